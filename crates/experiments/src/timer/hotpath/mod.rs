//! `timer.hotpath`: Kiszka's five timer scenarios on our own timer queue, with dates kept in counter
//! ticks ("TSC-based") or in ns ("ns-based"), absolute starts where 002 proposes them: the tick↔ns
//! conversions each hot-path operation needs, counted, and what the operation costs, timed.

use std::hint::black_box;

use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, KERNEL};
use overhead_clock::TimeSourceKind;
use overhead_convert::Converter;
use overhead_harness::Harness;
use overhead_record::{Details, LabelledTable, Metric};
use overhead_timerq::{
    count_per_op, Counts, MonotonicRaw, NoCount, NsBase, Scenario, StartMode, TickBase, TickSource, TimeBase,
    TimeBaseKind, Workload, COUNT_COLUMNS,
};

/// Operations of the counting run; the counts per operation are the totals over this.
const COUNTED_OPS: u64 = 64;

/// Key of the counts table in `details.tables`.
const COUNTS_TABLE: &str = "conversions";

/// For every scenario × time base × start mode 002 analyses (16 points): one untimed run of the
/// workload with a counting hook gives the conversions, programmings and counter reads per operation
/// (`extra`, [`HotPathResult`]: `conversions_per_op`, `ticks_to_ns_per_op`, …; and
/// `details.tables["conversions"]` beside 002's row); then the same workload, with the hook compiled
/// out, is timed per operation against the empty loop (so the time includes the counter reads, as
/// 002's hot paths do). `fired_per_op` checks the timed run took the intended path (1 for timers, 0 for
/// timeouts).
///
/// The counter is the harness's: the TSC read with plain `rdtsc` on x86-64, the virtual counter on
/// aarch64, and `CLOCK_MONOTONIC_RAW` as a 1 GHz counter otherwise (noted on the point).
pub struct HotPath;

pub use overhead_record::HotPathResult;

impl HotPath {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::timer::HOTPATH;
}

impl Experiment for HotPath {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: HotPath::ID,
            summary: "Kiszka's five timer scenarios, dates in ticks or ns: conversions counted, time per \
                      hot-path operation against the empty loop",
            source: "Kiszka 2006 §1–§5 (Kiszka, Xenomai timer hot paths, summary tables §N.3)",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        let mut out = Vec::new();
        for scenario in Scenario::ALL {
            for base in TimeBaseKind::ALL {
                for start in scenario.starts() {
                    let params = Params { scenario, time_base: base, start: *start };
                    out.push(Planned::Run(ctx.spec_of(self.id(), runtime, &params, vec![ctx.home_cpu()])));
                }
            }
        }
        out
    }

    fn run(&self, point: &crate::Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let Params { scenario, time_base: base, start } = point.params()?;
        let point = Point { scenario, base, start };
        match h.clock.kind {
            #[cfg(target_arch = "x86_64")]
            TimeSourceKind::Tsc => point.measure(h, overhead_timerq::Rdtsc, h.clock.hz),
            #[cfg(target_arch = "aarch64")]
            TimeSourceKind::Cntvct => point.measure(h, overhead_timerq::Cntvct, h.clock.hz),
            _ => {
                let mut outcome = point.measure(h, MonotonicRaw, 1e9)?;
                outcome.notes.push(
                    "no usable hardware counter: the tick base counts CLOCK_MONOTONIC_RAW ns (conversions at \
                     1 GHz are computed all the same)"
                        .into(),
                );
                Ok(outcome)
            }
        }
    }
}

pub use overhead_schema::experiments::timer::HotPathParams as Params;

/// One point's scenario, time base and start mode.
#[derive(Debug, Clone, Copy)]
struct Point {
    scenario: Scenario,
    base: TimeBaseKind,
    start: StartMode,
}

impl Point {
    /// Counts and times the point reading `source`, a counter of `hz` ticks per second.
    fn measure<S: TickSource + Copy>(self, h: &Harness, source: S, hz: f64) -> anyhow::Result<Outcome> {
        let conv = Converter::new((hz.round() as u64).max(1));
        match self.base {
            TimeBaseKind::Tsc => self.measure_in::<TickBase, S>(h, conv, source),
            TimeBaseKind::Ns => self.measure_in::<NsBase, S>(h, conv, source),
        }
    }

    fn measure_in<B: TimeBase, S: TickSource + Copy>(
        self,
        h: &Harness,
        conv: Converter,
        source: S,
    ) -> anyhow::Result<Outcome> {
        let (counts, _) = count_per_op::<B, S>(self.scenario, self.start, conv, source, COUNTED_OPS)?;
        let mut workload = Workload::<B, S, NoCount>::new(self.scenario, self.start, conv, source)?;
        let (mut fired, mut ops) = (0u64, 0u64);
        let measurement = h.measure(
            |n| {
                fired += black_box(workload.run(n));
                ops += n;
            },
            empty_loop,
        );
        let mut outcome =
            Outcome::from(measurement).with_result(&self.result(counts, fired as f64 / ops.max(1) as f64));
        outcome.details = self.details(counts);
        let seed = self.scenario.seed_002(self.base, self.start);
        if !seed.is_some_and(|seed| seed.times(COUNTED_OPS).same_conversions(&counts)) {
            outcome.notes.push(format!(
                "conversions per operation differ from Kiszka 2006's table: counted {counts:?} over {COUNTED_OPS} \
                 operations"
            ));
        }
        Ok(outcome)
    }

    /// Counts per operation and the timed run's fired timers per operation.
    fn result(self, counts: Counts, fired_per_op: f64) -> HotPathResult {
        let [conversions, ticks_to_ns, ns_to_ticks, candidates, hw_programs, counter_reads] =
            counts.columns().map(|count| count as f64 / COUNTED_OPS as f64);
        HotPathResult {
            conversions_per_op: conversions,
            ticks_to_ns_per_op: ticks_to_ns,
            ns_to_ticks_per_op: ns_to_ticks,
            ns_to_ticks_32bit_candidates_per_op: candidates,
            hw_programs_per_op: hw_programs,
            counter_reads_per_op: counter_reads,
            fired_per_op,
        }
    }

    /// The counts table: this queue's row beside 002's.
    fn details(self, counts: Counts) -> Details {
        let row = |c: Counts, over: u64| -> Vec<Option<f64>> {
            c.columns().into_iter().map(|v| Some(v as f64 / over as f64)).collect()
        };
        let mut rows = vec![("this queue".to_string(), row(counts, COUNTED_OPS))];
        if let Some(seed) = self.scenario.seed_002(self.base, self.start) {
            rows.push(("Kiszka 2006".to_string(), row(seed, 1)));
        }
        let table = LabelledTable {
            title: format!(
                "Kiszka 2006 §{}.3: conversions per hot-path operation, {} ({})",
                self.scenario.section(),
                self.scenario.title(),
                self.scenario.hot_path()
            ),
            unit: "count".into(),
            columns: COUNT_COLUMNS.iter().map(|c| c.to_string()).collect(),
            rows,
        };
        let mut details = Details::default();
        details.tables.insert(COUNTS_TABLE.into(), table);
        details
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_harness::Mode;
    use overhead_machine::Topology;

    fn ctx() -> PlanContext {
        PlanContext { cpus: vec![0], topology: Topology::detect(), mode: Mode::Quick, hosts: Vec::new() }
    }

    /// 002's 16 rows, one point each, named with the parameters in a fixed order.
    #[test]
    fn one_point_per_row_of_002s_tables() {
        let points = HotPath.points(&ctx(), &overhead_runtime_os::Os);
        assert_eq!(points.len(), 16);
        let Planned::Run(first) = &points[0] else { panic!("{:?}", points[0]) };
        assert_eq!(first.name(), "timer.hotpath/runtime:os/scenario:periodic_timer/time_base:tsc/start:relative");
        assert!(!points.iter().any(|p| matches!(p, Planned::Run(s)
            if s.param("scenario") == Some("relative_timer") && s.param("start") == Some("absolute"))));
    }

    /// A point records 002's counts per operation, the table beside 002's row, and a timed run whose
    /// timers fired every time; a bad parameter is refused by name.
    #[test]
    fn a_point_records_counts_table_and_fired_timers() {
        let h = overhead_harness::testing::quick_harness();
        let spec = ctx().spec(
            "timer.hotpath",
            &overhead_runtime_os::Os,
            &[("scenario", "absolute_timer".into()), ("time_base", "ns".into()), ("start", "relative".into())],
            vec![0],
        );
        let outcome = HotPath.run(&crate::Point::resolve(&spec).unwrap(), &h).unwrap();
        assert_eq!(outcome.extra["conversions_per_op"], 5.0, "§4.3 ns-based: {:?}", outcome.extra);
        assert_eq!(outcome.extra["ticks_to_ns_per_op"], 4.0);
        assert_eq!(outcome.extra["fired_per_op"], 1.0);
        let table = &outcome.details.tables[COUNTS_TABLE];
        assert_eq!(table.rows[0].1, table.rows[1].1, "this queue's row equals 002's");
        assert_eq!(outcome.extra["counter_reads_per_op"], 5.0);
        assert!(outcome.notes.iter().all(|n| !n.contains("differ")), "{:?}", outcome.notes);
        let mut bad = spec.clone();
        bad.params[1].1 = "jiffies".into();
        let err = HotPath.run(&crate::Point::resolve(&bad).unwrap(), &h).unwrap_err().to_string();
        assert!(err.contains("time_base") && err.contains("jiffies"), "{err}");
    }
}
