//! Ben-Asher & Feitelson 1991 §3–4 as the paper printed them, from the `mem` family's points: the core-to-core matrix as a
//! heat map with its summary per placement class (`c2c.rs`), Fig. 1–2 as tables with their fits
//! (`contention.rs`), Table 2 (`fairness.rs`) and Table 3 (`remote.rs`). Each part is empty when the
//! record has none of its points.

mod c2c;
mod contention;
mod fairness;
mod remote;
pub mod shares;

use crate::sections::Section;
use overhead_record::RunRecord;
use overhead_render::Format;

/// The `mem` section: every part that has points, one blank line apart.
pub fn mem_tables(record: &RunRecord, format: Format) -> String {
    let parts = [
        c2c::render(record, format),
        contention::render(record, format),
        fairness::render(record, format),
        remote::render(record, format),
    ];
    parts.into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>().join("\n")
}

/// The report's `mem` section (docs/ARCHITECTURE.md "Renderers").
pub const SECTION: Section = Section {
    key: "mem",
    title: "Ben-Asher & Feitelson 1991 §3–4: what sharing memory costs — core-to-core matrix, contention, fairness, remote access",
    about: "Ben-Asher & Feitelson's memory tables: the core-to-core heat map by placement class, Fig. 1–2 with fits, Tables 2 and 3",
    position: 70,
    render: mem_tables,
};
