//! Renderers: they read only the run record, never the probes (docs/ARCHITECTURE.md "Renderers"), so a report can
//! be made again later, on another machine.

use std::sync::LazyLock;

pub mod choose;
pub mod compare;
pub mod counts;
mod crosscheck;
pub mod export;
mod fits;
pub use crosscheck::crosscheck_text;
mod format;
mod host_states;
pub mod html;
pub mod interval;
mod latency;
mod matrices;
pub mod sides;
pub mod summary;
pub mod table;
mod time;

pub use compare::compare_tables;
pub use format::OutputFormat;
pub use latency::latency_table;
pub use matrices::matrices_section;
pub use overhead_humanize::{counted, format_ns};
pub use overhead_render::render_matrix;
pub use table::{new_table, render, Format};
pub use time::time_spent;

pub mod sections;
pub use sections::{Figures, Section};

/// The sections that present every experiment alike (the choice between implementations, fits, matrices,
/// latency distributions): the report's own; every other section comes from the experiments it presents
/// ([`sections::EXPERIMENT_SECTIONS`]).
const GENERIC: &[Section] = &[
    Section {
        key: "sides",
        title: "Sides: each against the baseline, measured next to each other",
        about: "a run with --side: each side ÷ the baseline per family and per flagged point (--format csv: every row)",
        position: 5,
        render: sides::sides_section,
    },
    Section {
        key: "counts",
        title: "Where the time goes: the kernel's counts per operation",
        about: "context switches (per thread and per process), page faults, migrations, CPU time and kernel share per operation, and what they say",
        position: 52,
        render: counts::counts_section,
    },
    Section {
        key: "host_states",
        title: "Points by host state: where the host put the CPUs",
        about: "the run's host states, and each point whose processes met several: its estimate per state and whether its time depends on the state",
        position: 53,
        render: host_states::host_states_section,
    },
    Section {
        key: "choose",
        title: "Choosing an implementation: the fastest and those tied with it",
        about: "per primitive and setting, its implementations ranked by median, the best and those tied with it",
        position: 55,
        render: choose::choose_section,
    },
    Section {
        key: "crosscheck",
        title: "Against the field's tools (overhead crosscheck)",
        about: "each peer tool's number against our matching point, round by round and by host state, and the verdict",
        position: 78,
        render: crosscheck::crosscheck_section,
    },
    Section {
        key: "fits",
        title: "Fits (Ben-Asher & Feitelson 1991 style)",
        about: "every least-squares fit in the record, with r²",
        position: 80,
        render: fits::fits_section,
    },
    Section {
        key: "matrices",
        title: "Matrices",
        about: "every point's matrices (clock offsets, relative rates) with ± uncertainty",
        position: 90,
        render: matrices_section,
    },
    Section {
        key: "latency",
        title: "Latency distributions",
        about: "latency percentiles of the points that recorded a distribution (timer.wakeup)",
        position: 100,
        render: latency_table,
    },
];

/// The sections after the results table, in order ([`Section::position`]): the report's generic ones and
/// the experiments' ([`sections::EXPERIMENT_SECTIONS`]). Each renderer returns an empty string when the
/// record has nothing for it, so a run of a few experiments prints only what applies.
pub static SECTIONS: LazyLock<Vec<Section>> = LazyLock::new(|| sections_of(sections::EXPERIMENT_SECTIONS));

/// The sections of the full report with `registered` beside the generic ones, a key listed twice kept
/// once, ordered by [`Section::position`] (a tie keeps the generic ones first, then the list's order).
pub fn sections_of(registered: &[&Section]) -> Vec<Section> {
    let mut out: Vec<Section> = GENERIC.to_vec();
    for section in registered {
        if !out.iter().any(|s| s.key == section.key) {
            out.push(**section);
        }
    }
    out.sort_by_key(|s| s.position);
    out
}

/// Older `--table` values that still name a section: `(old, current)`. Scripts written for them keep working.
pub const SECTION_ALIASES: &[(&str, &str)] = &[("seed001", "yield_oversub")];

/// The section whose `--table` value is `key`, or whose older name it is ([`SECTION_ALIASES`]).
pub fn section(key: &str) -> Option<&'static Section> {
    let key = SECTION_ALIASES.iter().find(|(old, _)| *old == key).map_or(key, |(_, current)| *current);
    SECTIONS.iter().find(|s| s.key == key)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod unit_tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::RunRecord;

    /// A made-up experiment's ID, with a report section of its own as a new experiment's file here would hold.
    const MADE_UP: &str = "made.up";

    /// Its section, between the Walfield 2008 tables and the `mem` family's.
    const MADE_UP_SECTION: Section = Section {
        key: "made_up",
        title: "A made-up experiment's table",
        about: "how many made.up points the record has",
        position: 65,
        render: made_up_table,
    };

    fn made_up_table(record: &RunRecord, _: Format) -> String {
        let n = record.points.iter().filter(|p| p.spec.experiment == MADE_UP).count();
        if n == 0 {
            return String::new();
        }
        format!("made.up points: {n}\n")
    }

    #[test]
    fn the_registry_gives_the_sections_in_the_reports_order() {
        let keys: Vec<&str> = SECTIONS.iter().map(|s| s.key).collect();
        let expected = [
            "sides",
            "primitives",
            "networked",
            "yield_oversub",
            "flavors",
            "convert",
            "timers",
            "wake",
            "ipc",
            "counts",
            "host_states",
            "choose",
            "rpc",
            "mem",
            "mpi",
            "crosscheck",
            "fits",
            "matrices",
            "latency",
            "grain",
        ];
        assert_eq!(keys, expected, "one section per key, in the golden report's order");
    }

    #[test]
    fn a_registered_experiments_section_appears_in_the_full_report_in_its_place() {
        let mut registered = sections::EXPERIMENT_SECTIONS.to_vec();
        registered.push(&MADE_UP_SECTION);
        let sections = sections_of(&registered);
        let keys: Vec<&str> = sections.iter().map(|s| s.key).collect();
        let at = |key: &str| keys.iter().position(|k| *k == key).unwrap();
        assert_eq!(at("made_up"), at("rpc") + 1, "{keys:?}");
        let mut record = sample_record();
        record.points.push(point(MADE_UP, "os", &[], 10.0));
        let text = table::render_with_sections(&record, Format::Table, &sections);
        assert!(text.contains("\nA made-up experiment's table\nmade.up points: 1\n"), "{text}");
        let without = table::render_with_sections(&record, Format::Table, &SECTIONS);
        assert!(!without.contains("made.up points"), "only a registered experiment's section is printed");
    }
}
