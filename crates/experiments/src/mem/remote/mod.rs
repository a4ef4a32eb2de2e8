//! `mem.remote`: Ben-Asher & Feitelson 1991 §4, Table 3, "relative access rates under different conditions", by the
//! study's reference-activity method (docs/METHOD.md §10). An undisturbed activity A increments its own
//! line — on a page it first touched, 250 in-line increments per loop iteration, each a plain load and
//! a plain store like the study's `(*p)++` — and at two fixed counts of its own, an early and a late one,
//! snapshots how far the others got (each publishes its count in its own padded line after every 250
//! increments, as `clock/race.rs` does). X's rate relative to A is X's progress between A's snapshots
//! over A's own: whatever the start skew, it cancels.
//!
//! The Makbilan's "remote memory" was another PE's board behind the bus; today's is a line another
//! core's cache holds (or, for the NUMA rows, a page on another node). So a remote activity increments a
//! word of the line a local activity uses — the study's `j` beside `i` — which is what makes them contend.
//!
//! With too few CPUs for an isolated A beside the activities, the clock is the reference: the measured
//! activity's rate in a window with the others running, over its rate alone in an adjacent window on the
//! same CPU running A's loop (a line of its own).

use std::collections::BTreeMap;

use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use super::fairness::{window_ns, windows};
use super::page::FirstTouchPage;
use crate::plan::with_placement;
use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_clock::Clock;
use overhead_harness::{Harness, Measurement};
use overhead_machine::{pin_current_thread, Placement, Topology};
use overhead_record::{Details, LabelledTable, Metric, PointSpec};
use overhead_stats::percentile;

mod numa;
mod outcome;
mod plan;
mod rates;
mod setup;
mod team;
#[cfg(test)]
mod tests;

use numa::*;
use outcome::*;
use plan::*;
pub use rates::*;
use setup::*;
use team::*;

/// Increments in-line per loop iteration (Ben-Asher & Feitelson 1991 §4: "in-line code for 250 consecutive increment
/// instructions").
pub const INLINE: u64 = 250;

/// The note on every point measured against the clock.
pub const CLOCK_NOTE: &str = "reference: the clock — too few CPUs for an isolated reference activity";

pub use overhead_schema::experiments::mem::Case;

/// CPUs an isolated reference activity needs beside this case's activities (A included).
pub(crate) fn cpus_with_reference(case: Case) -> usize {
    match case {
        Case::LocalFree => 2,
        Case::LocalOneRemote | Case::RemoteUsed | Case::RemoteUnused | Case::RemoteHeavy => 3,
        Case::LocalManyRemote => 4,
        Case::NumaLocal | Case::NumaRemote => 1,
    }
}

pub use overhead_schema::experiments::mem::Reference;

pub use overhead_schema::experiments::mem::RemoteParams as Params;

/// Ben-Asher & Feitelson 1991 §4 (Table 3): relative access rates, one point per [`Case`]. Runtime `os`; every thread
/// pinned.
///
/// CPUs in the spec, thread 0 first. With `reference:activity`: A, then the measured activity, then the
/// others — `local_free` [A, B]; `local_one_remote` [A, B, C]; `remote_used` [A, C, B];
/// `local_many_remote` [A, B, C…] (needs 4 CPUs, else skipped); `remote_unused` [A, C, owner] (the owner
/// only first-touches C's page); `remote_heavy` [A, R…]. With `reference:clock` (fewer CPUs than that),
/// the measured activity first and no A: `local_free` [B], `local_one_remote` [B, C], `remote_used`
/// [C, B], `remote_unused` [C, owner], `remote_heavy` [R, R…] (each remote measured against its own
/// solo window). NUMA rows: [walker] or [walker, owner on another node]; skipped unless the usable CPUs
/// span two nodes. `placement` (parameter and spec) is that of the two CPUs that matter: B and C, C and
/// the owner, walker and owner.
///
/// Windows as [`super::fairness::window_ns`] (quick 2 ms, default 5 ms, full 10 ms), warm-up and kept as
/// [`windows`]. Samples: ns per increment (NUMA: per step) of the measured activity, one per kept
/// window; no control (`ovr` 0). `extra`: `relative_rate` (median over the kept windows; for
/// `remote_heavy` the mean over the remotes), `relative_rate_min` / `_max` (`remote_heavy`: the slowest
/// and fastest remote, each its median), `windows`, `window_ms`, `dropped_windows`;
/// `details.tables["rates"]`: each measured activity's median relative rate and ns per increment.
pub struct Remote;

pub use overhead_schema::experiments::mem::RemoteResult;

impl Remote {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::mem::REMOTE;
}

impl Experiment for Remote {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Remote::ID,
            summary: "relative access rates of local and remote activities against an undisturbed reference \
                      activity (or the clock on few CPUs): free, beside one or many remote writers of its line, \
                      remote to unused / used / heavily shared lines, local vs. remote NUMA node",
            source: "Ben-Asher & Feitelson 1991 §4, Table 3; docs/METHOD.md §10 (reference activity)",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        plan(ctx, self.id(), runtime)
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { case, reference } = point.params()?;
        let (warmup, kept) = windows(&h.config);
        let window = window_ns(h.config.mode);
        if matches!(case, Case::NumaLocal | Case::NumaRemote) {
            return numa(case, &spec.cpus, h, window, warmup, kept);
        }
        let setup = Setup::new(case, reference, &spec.cpus)?;
        let run = run_team(&setup, h.clock, window, warmup + kept);
        let mut outcome = rates_outcome(&setup, &run, warmup, h)?;
        if reference == Reference::Clock {
            outcome.notes.insert(0, CLOCK_NOTE.into());
        }
        Ok(outcome)
    }
}
