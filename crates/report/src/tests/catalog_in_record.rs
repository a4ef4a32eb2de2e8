//! A section reads the registries' answers from the record (`RunRecord::catalog`), not from the registries:
//! a record analysed once, written and read back, renders in the registries' order without them, and the
//! same record without its catalog falls back to the order its points came in.

use crate::sections::primitives::primitives_table;
use overhead_record::fixture::{point, sample_record};
use overhead_record::{CatalogSnapshot, RunRecord};
use overhead_render::Format;

/// The positions of the runtimes' columns in the primitives table's header.
fn columns(record: &RunRecord) -> [usize; 3] {
    let text = primitives_table(record, Format::Md);
    let header = text.lines().next().unwrap().to_string();
    ["| os", "fiber-asm", "tokio"].map(|name| header.find(name).unwrap_or_else(|| panic!("{name} in {header}")))
}

#[test]
fn a_rendered_section_needs_no_registry() {
    let mut record = sample_record();
    // Points in an order the registries do not use: fiber-asm first, os after.
    record.points = overhead_analysis::runtime_comparisons::ucontext_vs_asm_points();
    record
        .points
        .extend([point("spawn.create", "os", &[("kind", "thread")], 3e4), point("base.loop", "tokio", &[], 0.3)]);
    overhead_analysis::analyze(&mut record, &overhead_experiments::CATALOG);
    assert!(!record.catalog.is_empty());
    // What a reader without the registries has: the record as written.
    let read: RunRecord = serde_json::from_str(&serde_json::to_string(&record).unwrap()).unwrap();
    assert_eq!(read.catalog, record.catalog);
    let [os, asm, tokio] = columns(&read);
    assert!(os < asm && asm < tokio, "the registries' column order, from the record");
    // Without the catalog (a record analysed before it existed) the points' own order stands.
    let mut bare = read;
    bare.catalog = CatalogSnapshot::default();
    let [os, asm, _] = columns(&bare);
    assert!(asm < os, "the record's order when it keeps no catalog");
}
