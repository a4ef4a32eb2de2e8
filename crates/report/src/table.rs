//! The results table, for a terminal or as Markdown: one row per point, grouped by experiment, with
//! the median, its 95% CI, the spread, the control cost ("ovr", as lmbench prints it) and flags.

use comfy_table::{Cell, CellAlignment, ContentArrangement};

pub use overhead_render::{new_table, Format};

use super::{counted, format_ns};
use overhead_record::{Metric, PointRecord, RunRecord, SkipKind};
use overhead_schema::speed::SLOW_FACTOR;

/// The whole report for `record`: header (machine, time source, warnings), the results table, the
/// primitives table, every point's matrices, and the skipped points with their reasons.
pub fn render(record: &RunRecord, format: Format) -> String {
    render_with_sections(record, format, &super::SECTIONS)
}

/// [`render`] with these `sections` after the results table (a test's registry: [`super::sections_of`]).
pub fn render_with_sections(record: &RunRecord, format: Format, sections: &[super::Section]) -> String {
    let h = |text: &str| match format {
        Format::Table => format!("{text}\n"),
        Format::Md => format!("## {text}\n\n"),
    };
    let bullet = if format == Format::Md { "- " } else { "  " };
    let mut out = header(record, format);
    out += "\n";
    out += &results_table(record, format);
    out += "\n";
    let floors: Vec<String> = record
        .points
        .iter()
        .filter_map(|p| p.below_resolution_why.as_ref().map(|why| format!("{bullet}{} — <res: {why}\n", p.name)))
        .collect();
    if !floors.is_empty() {
        out += "\n";
        out += &h("Points that are no cost the hardware can have (<res)");
        out += &floors.concat();
    }
    for section in sections {
        let body = (section.render)(record, format);
        if !body.is_empty() {
            out += "\n";
            out += &h(section.title);
            out += &body;
        }
    }
    if !record.skipped.is_empty() {
        out += "\n";
        out += &h("Points without a result");
        for s in &record.skipped {
            let kind = match s.kind {
                SkipKind::Skipped => "skipped",
                SkipKind::Failed => "failed",
                SkipKind::TimedOut => "timed out",
            };
            out += &format!("{bullet}{} — {kind}: {}\n", s.name, s.reason);
        }
    }
    out += &format!(
        "\nmedian: per operation, control subtracted, the geometric mean of each process's median batch (20% trimmed from five processes); CI: 95% CI over \
         this run's processes (Student t on the log scale, so never below zero; \"(2 processes)\" where it rests on two, none for one), for comparisons inside the run; between runs (when the history knows \
         it): the 95% range of a run's median on this machine; p10 – p90: every batch of every process; ovr: the control's own cost; \
         N × R×P: operations per batch × batches per process × processes; cs/op: context switches per \
         operation of every thread of the probe process, kernel: the kernel's share of its CPU time (both in the \
         section on the kernel's counts; — where not counted); flags: noisy = CI half-width > \
         {:.0}% of the median, unstable = the processes disagree more than their batches do (both, where the \
         header states the host's spread, only beyond twice the family's typical spread), <res = no cost \
         the hardware can have (CI reaches the timing resolution, below one cycle, or inside the control's \
         scatter; see the notes), slow = a reference loop timed around the point ran ≥ {:.0}% slower than \
         usual in this run, or other processes took ≥ {:.0}% of the point's CPUs while it ran; host-state = the \
         time depends on where the host put the CPUs, and the median and CI are the most common state's (section \
         on host states).\n",
        record.harness.noisy_fraction * 100.0,
        (SLOW_FACTOR - 1.0) * 100.0,
        overhead_record::SHARED_POINT_THRESHOLD * 100.0
    );
    out
}

/// The report's header: the run's title, the machine, the time source, the mode, the machine's speed and
/// state, the host's states, what an interval covers, and every warning once.
pub fn header(record: &RunRecord, format: Format) -> String {
    let mut out = String::new();
    let h = |text: &str| match format {
        Format::Table => format!("{text}\n"),
        Format::Md => format!("## {text}\n\n"),
    };
    let m = &record.machine;
    let t = &record.time_source;
    out += &h("overhead run");
    let bullet = if format == Format::Md { "- " } else { "  " };
    out += &format!("{bullet}machine: {} ({}), kernel {}\n", m.host_name, machine_shape(m), m.kernel);
    out += &format!("{bullet}time source: {}\n", time_source_line(t));
    let rounds = match record.rounds {
        Some(r) => format!("{}–{} processes per point, each ", r.min_rounds, r.max_rounds),
        None => String::new(),
    };
    out += &format!(
        "{bullet}mode: {:?}, {rounds}{} batches of ~{} after {} warm-up; started {}{}\n",
        record.mode,
        record.harness.repetitions,
        format_ns(record.harness.target_batch_ns),
        record.harness.warmup,
        record.started_utc,
        completion(record)
    );
    if let Some(line) = speed_line(record) {
        out += &format!("{bullet}speed: {line}\n");
    }
    if let Some(state) = &record.machine_state {
        out += &format!(
            "{bullet}machine state: other processes took at most {:.1}% of a measured CPU's time, steal at most {:.1}%\n",
            state.max_other() * 100.0,
            state.max_steal() * 100.0
        );
    }
    if let Some(line) = super::host_states::header_line(record) {
        out += &format!("{bullet}host states: {line}\n");
    }
    if let Some(line) = overhead_analysis::host_spread::header_line(record) {
        out += &format!("{bullet}spread: {line}\n");
    }
    out += &format!("{bullet}intervals: {}\n", intervals_line(record));
    for w in record.warnings.iter().chain(&record.speed_warning) {
        out += &format!("{bullet}warning: {w}\n");
    }
    out
}

/// The machine's model and shape: `AMD EPYC, 2 CPUs, 2 cores, 1 package, 1 NUMA node`.
pub fn machine_shape(m: &overhead_machine::MachineInfo) -> String {
    format!(
        "{}, {}, {}, {}, {}",
        m.cpu_model,
        counted(m.logical_cpus, "CPU", "CPUs"),
        counted(m.topology.cores, "core", "cores"),
        counted(m.topology.packages, "package", "packages"),
        counted(m.topology.numa_nodes, "NUMA node", "NUMA nodes")
    )
}

/// The machine's speed as the header states it: the reference loop's median over the run with its CI, and
/// the range of its course; `None` for a record without speed readings.
pub fn speed_line(record: &RunRecord) -> Option<String> {
    let s = record.speed.as_ref()?;
    let course = if s.course.len() >= 2 {
        let lo = s.course.iter().map(|w| w.median_ns).fold(f64::INFINITY, f64::min);
        let hi = s.course.iter().map(|w| w.median_ns).fold(0.0, f64::max);
        format!(", {lo:.4}–{hi:.4} ns from one {:.0} s window of the run to the next", s.course[0].length_s)
    } else {
        String::new()
    };
    Some(format!(
        "reference loop {:.4} ns per iteration (95% CI {:.4}–{:.4}, {} readings){course}",
        s.median_ns, s.ci_low_ns, s.ci_high_ns, s.readings
    ))
}

/// What a point's CI covers, and what the history knows about how far points move between runs here.
pub fn intervals_line(record: &RunRecord) -> String {
    let base = "a point's 95% CI covers this run's processes and batches: it is the interval for comparisons inside \
                this run (runtimes measured interleaved)";
    match &record.between_runs {
        Some(b) => format!(
            "{base}; between runs on this machine a point's median moves by the ± in the column `between runs` \
             (95%, this run's error and the run level; {})",
            b.source
        ),
        None => format!(
            "{base}; how far points move between runs here is not known yet (no repeated configuration in the \
             machine's history); `overhead compare` adds a measured default for it"
        ),
    }
}

/// The time source as the report's header describes it: counter, rate and its uncertainty, read cost,
/// resolution, and why it was chosen.
pub fn time_source_line(t: &overhead_clock::TimeSourceInfo) -> String {
    format!(
        "{:?} at {:.3} MHz (±{:.1} ppm), read {}, resolution {}; {}",
        t.clock.kind,
        t.clock.hz / 1e6,
        t.calibration_error_ppm,
        format_ns(t.read_cost_ns),
        format_ns(t.resolution_ns),
        t.reason
    )
}

/// How the run ended, as the header says it: interrupted, did not finish (no `finished_utc`: killed, or
/// still running), or nothing when it finished.
pub fn completion(record: &RunRecord) -> &'static str {
    if record.interrupted {
        " — INTERRUPTED, partial record"
    } else if record.finished_utc.is_none() {
        " — RUN DID NOT FINISH (killed, or still running): partial record"
    } else {
        ""
    }
}

fn results_table(record: &RunRecord, format: Format) -> String {
    let mut table = new_table(format);
    if format == Format::Table {
        table.set_content_arrangement(ContentArrangement::Disabled);
    }
    let between = record.between_runs.as_ref();
    let mut header =
        vec!["point", "metric", "median", "95% CI", "p10 – p90", "ovr", "N × R×P", "cs/op", "kernel", "flags"];
    if between.is_some() {
        header.insert(4, "between runs");
    }
    table.set_header(header);
    for p in &record.points {
        let s = &p.summary;
        let metric = match p.metric {
            Metric::PerOp => "per op",
            Metric::Rtt => "rtt",
            Metric::OneWay => "one way",
        };
        let flags = flags_of(p);
        let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
        let mut row = vec![
            Cell::new(&p.name),
            Cell::new(metric),
            right(format_ns(s.median)),
            right(crate::interval::point_interval(p, 1.0)),
            right(format!("{} – {}", format_ns(s.p10), format_ns(s.p90))),
            right(format_ns(p.control.median)),
            right(format!("{} × {}", p.batch_ops, batches_by_process(p))),
            right(super::counts::switches_cell(p)),
            right(super::counts::kernel_cell(p)),
            Cell::new(flags.join(",")),
        ];
        if let Some(b) = between {
            row.insert(4, right(b.points_pct.get(&p.name).map_or("—".into(), |x| format!("±{x:.1}%"))));
        }
        table.add_row(row);
    }
    table.to_string()
}

/// A point's flags in the order the tables print them: `noisy`, `unstable`, `<res`, `slow`, `host-state`, and `notes`
/// when it carries notes.
pub fn flags_of(p: &PointRecord) -> Vec<&'static str> {
    [
        (p.shown_noisy(), "noisy"),
        (p.shown_unstable(), "unstable"),
        (p.below_resolution, "<res"),
        (p.slow, "slow"),
        (p.host_state, "host-state"),
        (!p.notes.is_empty(), "notes"),
    ]
    .into_iter()
    .filter_map(|(set, flag)| set.then_some(flag))
    .collect()
}

/// Batches per process × processes, or the batch count alone for a point of one process.
pub fn batches_by_process(p: &PointRecord) -> String {
    match p.processes.len() {
        0 | 1 => p.summary.n.to_string(),
        k => format!("{}×{k}", p.summary.n / k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    #[test]
    fn the_header_says_how_the_run_ended() {
        let mut record = sample_record();
        assert!(render(&record, Format::Table).contains("INTERRUPTED"));
        record.interrupted = false;
        assert!(render(&record, Format::Table).contains("RUN DID NOT FINISH"));
        record.finished_utc = Some("2026-11-21T10:05:00+00:00".into());
        let text = render(&record, Format::Table);
        assert!(!text.contains("RUN DID NOT FINISH") && !text.contains("INTERRUPTED"));
    }

    #[test]
    fn the_header_says_what_an_interval_covers_and_the_between_runs_column_appears_with_the_history() {
        let mut record = sample_record();
        let text = render(&record, Format::Table);
        assert!(text.contains("covers this run's processes and batches") && text.contains("not known yet"), "{text}");
        assert!(!text.contains("between runs ┆"), "{text}");
        let name = record.points[0].name.clone();
        record.between_runs = Some(overhead_record::BetweenRuns {
            source: "this machine's history: 6 runs in 1 configuration".into(),
            runs: 6,
            points_pct: [(name, 3.25)].into(),
        });
        let text = render(&record, Format::Table);
        assert!(text.contains("±3.2%") && text.contains("6 runs in 1 configuration"), "{text}");
        record.speed = Some(overhead_record::RunSpeed {
            median_ns: 0.2359,
            ci_low_ns: 0.2351,
            ci_high_ns: 0.2367,
            readings: 15000,
            course: vec![],
        });
        assert!(render(&record, Format::Table).contains("reference loop 0.2359 ns per iteration"));
    }

    #[test]
    fn flags_and_the_reason_for_res_are_shown() {
        let mut record = sample_record();
        record.points[0].unstable = true;
        record.points[0].below_resolution = true;
        record.points[0].below_resolution_why = Some("less than one cycle".into());
        let text = render(&record, Format::Table);
        assert!(text.contains("unstable,<res"), "{text}");
        assert!(text.contains("<res: less than one cycle"), "{text}");
    }
}
