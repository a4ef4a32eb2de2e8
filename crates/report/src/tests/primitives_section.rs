//! Souvatzis's primitives section (`crate::sections::primitives`) over an analysed record: its
//! comparison of the fibers needs the analysis, which only this crate sees beside the experiments.

use crate::sections::primitives::primitives_table;
use overhead_record::fixture::{point, sample_record};
use overhead_record::{SkipKind, SkippedPoint};
use overhead_render::Format;

#[test]
fn rows_columns_footnotes_and_comparison() {
    let mut record = sample_record();
    record.points = overhead_analysis::runtime_comparisons::ucontext_vs_asm_points();
    record.points.extend([
        point("spawn.create", "os", &[("kind", "process")], 1e5),
        point("spawn.create", "os", &[("kind", "thread")], 3e4),
        point("base.loop", "tokio", &[], 0.3),
    ]);
    let spec = point("msg.rendezvous", "tokio", &[("placement", "same_cpu")], 1.0).spec;
    record.skipped = vec![SkippedPoint::new(spec, SkipKind::Failed, "it broke")];
    overhead_analysis::analyze(&mut record, &overhead_experiments::CATALOG);
    let text = primitives_table(&record, Format::Md);
    let header = text.lines().next().unwrap();
    // Souvatzis's column order, whatever order the points came in
    let (os, asm, ucontext, tokio) = (
        header.find("os").unwrap(),
        header.find("fiber-asm").unwrap(),
        header.find("ucontext").unwrap(),
        header.find("tokio").unwrap(),
    );
    assert!(os < asm && asm < ucontext && ucontext < tokio, "{header}");
    let create = text.lines().find(|l| l.contains("task create/destroy")).unwrap();
    assert!(create.contains("30.0 µs"), "os shows the thread, not the process: {create}");
    assert!(text.contains("[1] rendezvous / tokio: it broke"), "{text}");
    // ucontext/asm: 40× on the switch, 4× on create: geometric mean √160 ≈ 12.6
    assert!(
        text.contains("fiber-ucontext is 12.6× slower than fiber-asm on switch-bound rows (geometric mean of 2 rows)"),
        "{text}"
    );
    // The raw switch ratio comes with an interval from the two medians' CIs, around the ratio itself.
    let line = text.lines().find(|l| l.starts_with("fiber-ucontext is")).unwrap();
    let tail = line.split("raw switch round trip fiber-ucontext / fiber-asm = 40.0 (95% CI ").nth(1).expect(line);
    let bounds: Vec<f64> = tail.trim_end_matches(')').split('–').map(|x| x.parse().unwrap()).collect();
    assert!(bounds[0] < 40.0 && 40.0 < bounds[1], "{line}");
}

#[test]
fn empty_without_table_experiments() {
    assert!(primitives_table(&sample_record(), Format::Table).is_empty());
}

/// A cell whose point counted switches or faults says how many per operation; one that counted none, or was
/// not counted, shows its time alone.
#[test]
fn cells_carry_the_kernels_switches_and_faults() {
    let count = |key: &str, median: f64| overhead_record::fixture::count(key, median, median, median);
    let mut record = sample_record();
    let mut fork = point("spawn.create", "os", &[("kind", "thread")], 3e4);
    fork.counts = vec![
        count("process_voluntary_cs_per_op", 1.0),
        count("process_involuntary_cs_per_op", 0.0),
        count("minor_faults_per_op", 2.31),
    ];
    let mut task = point("spawn.create", "fiber-asm", &[("kind", "task")], 30.0);
    task.counts = vec![count("process_voluntary_cs_per_op", 0.0), count("process_involuntary_cs_per_op", 0.0)];
    record.points = vec![fork, task];
    let text = primitives_table(&record, Format::Md);
    let create = text.lines().find(|l| l.contains("task create/destroy")).unwrap();
    assert!(create.contains("· 1.0 cs · 2.3 pf"), "{create}");
    assert_eq!(create.matches(" cs").count(), 1, "the fiber task counted no switch: {create}");
}
