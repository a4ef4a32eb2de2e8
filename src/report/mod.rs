//! Renderers: they read only the run record, never the probes (docs/ARCHITECTURE.md "Renderers"), so a report can
//! be made again later, on another machine.

pub(crate) mod compare;
mod convert;
pub mod export;
mod fits;
mod grain;
pub mod html;
mod ipc;
mod latency;
mod matrices;
mod mem;
mod primitives;
mod rpc;
mod seed001;
pub(crate) mod table;
mod time;
mod timers;

pub use crate::units::{counted, format_ns};
pub use compare::compare_tables;
pub use convert::convert_table;
pub use grain::grain_table;
pub use latency::latency_table;
pub use crate::render::render_matrix;
pub use matrices::matrices_section;
pub use mem::mem_tables;
pub use primitives::primitives_table;
pub use rpc::rpc_tables;
pub use seed001::seed001_tables;
pub use table::{new_table, render, Format};
pub use time::time_spent;
pub use timers::timers_table;

/// A section of the full report: the one list that the full report, `overhead report --table KEY` and its
/// help all read.
#[derive(Clone, Copy)]
pub struct Section {
    /// The `--table` value.
    pub key: &'static str,
    /// Its heading in the full report.
    pub title: &'static str,
    /// One line for `--help`.
    pub about: &'static str,
    /// Renders it from the record; an empty string when the record has nothing for it.
    pub render: fn(&crate::record::RunRecord, Format) -> String,
}

/// The sections after the results table, in order. Each renderer returns an empty string when the record
/// has nothing for it, so a run of a few experiments prints only what applies.
pub const SECTIONS: &[Section] = &[
    Section {
        key: "primitives",
        title: "Seed 004 timing table: primitives by runtime",
        about: "seed 004's timing table: rows of primitives, one column per runtime",
        render: primitives_table,
    },
    Section {
        key: "seed001",
        title: "Seed 001 tables: yield round vs. load; barriers with activities ≫ CPUs",
        about: "seed 001's tables: yield round vs. load, sync.oversub vs. activities, with their fits",
        render: seed001_tables,
    },
    Section {
        key: "convert",
        title: "Seed 002 conversion table: cost and worst error by routine",
        about: "seed 002's conversion table: cost and worst error per range of each tick↔ns routine",
        render: convert_table,
    },
    Section {
        key: "timers",
        title: "Seed 002 timer tables: conversions and time per hot-path operation",
        about: "seed 002's timer tables: conversions per hot-path operation and the time measured",
        render: timers_table,
    },
    Section {
        key: "ipc",
        title: "Seed 003 ping-pong table: IPC round trip by payload and transport",
        about: "seed 003's ping-pong table: msg.ipc round trips (ns / ticks) per payload and transport, msg.bw MB/s",
        render: ipc::ipc_tables,
    },
    Section {
        key: "rpc",
        title: "Seed 003 table: RPC time per method, client vs. server, and what the delta is made of",
        about: "seed 003's per-method RPC table (rpc.methods) with its delta split into transport, framing and cold caches (rpc.floor)",
        render: rpc_tables,
    },
    Section {
        key: "mem",
        title: "Seed 001 §3–4: what sharing memory costs — core-to-core matrix, contention, fairness, remote access",
        about: "seed 001's memory tables: the core-to-core heat map by placement class, Fig. 1–2 with fits, Tables 2 and 3",
        render: mem_tables,
    },
    Section {
        key: "fits",
        title: "Fits (seed 001 style)",
        about: "every least-squares fit in the record, with r²",
        render: fits::fits_section,
    },
    Section {
        key: "matrices",
        title: "Matrices",
        about: "every point's matrices (clock offsets, relative rates) with ± uncertainty",
        render: matrices_section,
    },
    Section {
        key: "latency",
        title: "Latency distributions",
        about: "latency percentiles of the points that recorded a distribution (timer.wakeup)",
        render: latency_table,
    },
    Section {
        key: "grain",
        title: "Seed 001 Table 4: granularity (grain.sweep)",
        about: "seed 001's granularity table: elapsed time and speed-up per task count and runtime",
        render: grain_table,
    },
];

/// The section whose `--table` value is `key`.
pub fn section(key: &str) -> Option<&'static Section> {
    SECTIONS.iter().find(|s| s.key == key)
}
