//! The choice between implementations (docs/METHOD.md §12a): for each
//! primitive and setting, every implementation measured, ranked by median, the fastest marked, and each one
//! whose difference from the fastest is not significant marked as tied with it — "the best group"
//! (docs/METHOD.md "Choosing an implementation"). Derived into the record ([`choice_tables`] into
//! `RunRecord::choices` by [`super::analyze`]); the report's `choose` section and the HTML page's bar
//! charts only format it.

use super::runtime_comparisons::{ratio_low_end, ratio_with_ci};
use overhead_record::{
    Candidate, Catalog, ChoiceTable, NotMeasured, PointFlag, PointRecord, PointSpec, RatioCi, SkippedPoint, Verdict,
};
use overhead_schema::runtimes::FLAVOR_KEY;

/// Which parameter of an experiment's points names the implementation under comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImplementationKey {
    /// The experiment's ID.
    pub experiment: &'static str,
    /// The parameter's key in its points (`impl`, `lock`).
    pub key: &'static str,
}

/// The experiments whose points are implementations of one primitive, and the key that names them: the
/// one list of what competes in a choice table. A point of one of them without the key is its runtime's own
/// primitive (a message between two `fiber-asm` tasks) and competes as the runtime alone: every `msg.ipc`
/// point does, so a transport, payload and placement that `os` (the kernel's blocking calls) and async
/// runtimes (their own sockets) both measured is a table of runtimes. `msg.throughput`
/// and `sync.rwlock` are named by their IDs; a point of an experiment a build does
/// not have never occurs in its records.
pub const IMPLEMENTATION_KEYS: &[ImplementationKey] = &[
    ImplementationKey { experiment: overhead_schema::experiments::msg::ASYNC, key: "impl" },
    ImplementationKey { experiment: overhead_schema::experiments::msg::SWITCH, key: "impl" },
    ImplementationKey { experiment: overhead_schema::experiments::msg::RENDEZVOUS, key: "impl" },
    ImplementationKey { experiment: overhead_schema::experiments::msg::THROUGHPUT, key: "impl" },
    ImplementationKey { experiment: overhead_schema::experiments::msg::IPC, key: "impl" },
    ImplementationKey { experiment: overhead_schema::experiments::sync::FAA, key: "impl" },
    ImplementationKey { experiment: overhead_schema::experiments::sync::BARRIER, key: "impl" },
    ImplementationKey { experiment: overhead_schema::experiments::sync::MUTEX, key: "lock" },
    ImplementationKey { experiment: overhead_schema::experiments::sync::RWLOCK, key: "lock" },
];

/// The parameter that names the implementation in `experiment`'s points; `None` for an experiment whose
/// points are not alternatives to one another.
pub fn implementation_key(experiment: &str) -> Option<&'static str> {
    IMPLEMENTATION_KEYS.iter().find(|k| k.experiment == experiment).map(|k| k.key)
}

/// A point's place in the choice tables: its setting (parameters without the implementation key) and its
/// candidate (runtime, implementation).
struct Placed<'a> {
    key: &'static str,
    setting: Vec<(String, String)>,
    runtime: &'a str,
    implementation: Option<String>,
}

/// Where `spec` competes, if its experiment is one of [`IMPLEMENTATION_KEYS`].
fn placed(spec: &PointSpec) -> Option<Placed<'_>> {
    let key = implementation_key(&spec.experiment)?;
    Some(Placed {
        key,
        // A runtime's flavor is who competes, not the setting: tokio's current-thread socket competes with
        // the kernel's in the same table.
        setting: spec.params.iter().filter(|(k, _)| k != key && k != FLAVOR_KEY).cloned().collect(),
        runtime: &spec.runtime,
        implementation: spec.param(key).map(str::to_owned),
    })
}

/// The choice tables of a record's points: one per experiment and setting with at least two candidates,
/// in registry order and then in the order the settings first appear among the points. Candidates are
/// ranked by median (ties in the median by label); the first is [`Verdict::Best`]; each other gets its
/// ratio to the best with the conservative interval of [`ratio_with_ci`] and is [`Verdict::Tied`] when the
/// interval's low end is at most 1, [`Verdict::Slower`] when it is above. When the best's CI reaches zero
/// the interval has no upper end, and its low end ([`ratio_low_end`]) decides alone; when the best's whole
/// CI lies at or below zero there is no interval and the verdict is [`Verdict::Undecided`]. Two points of one candidate in one setting (which
/// a plan does not make) keep the first. Skipped cells of the setting are listed as not measured: a cell
/// whose parameters (without the key) all agree with the setting, a runtime-wide cell (no parameters)
/// included.
pub fn choice_tables(points: &[PointRecord], skipped: &[SkippedPoint], catalog: &dyn Catalog) -> Vec<ChoiceTable> {
    struct Group<'a> {
        experiment: &'a str,
        key: &'static str,
        setting: Vec<(String, String)>,
        members: Vec<(&'a PointRecord, Option<String>)>,
    }
    let mut groups: Vec<Group> = Vec::new();
    for p in points {
        let Some(at) = placed(&p.spec) else { continue };
        let i = match groups.iter().position(|g| g.experiment == p.spec.experiment && g.setting == at.setting) {
            Some(i) => i,
            None => {
                groups.push(Group {
                    experiment: &p.spec.experiment,
                    key: at.key,
                    setting: at.setting,
                    members: vec![],
                });
                groups.len() - 1
            }
        };
        let members = &mut groups[i].members;
        let same_candidate =
            |m: &PointRecord| m.spec.runtime == at.runtime && m.spec.param(FLAVOR_KEY) == p.spec.param(FLAVOR_KEY);
        if !members.iter().any(|(m, imp)| same_candidate(m) && *imp == at.implementation) {
            members.push((p, at.implementation));
        }
    }
    // A stable sort keeps the settings of one experiment in the order they first appear.
    groups.sort_by_key(|g| catalog.experiment_rank(g.experiment));
    groups
        .into_iter()
        .filter(|g| g.members.len() >= 2)
        .map(|g| table(g.experiment, g.key, g.setting, g.members, skipped))
        .collect()
}

/// One table from its members (at least two).
fn table(
    experiment: &str,
    key: &'static str,
    setting: Vec<(String, String)>,
    mut members: Vec<(&PointRecord, Option<String>)>,
    skipped: &[SkippedPoint],
) -> ChoiceTable {
    let label = |(p, imp): &(&PointRecord, Option<String>)| (p.spec.runtime.clone(), imp.clone());
    members.sort_by(|a, b| a.0.summary.median.total_cmp(&b.0.summary.median).then_with(|| label(a).cmp(&label(b))));
    let best = members[0].0;
    let candidates = members
        .iter()
        .enumerate()
        .map(|(rank, (p, implementation))| {
            let (ratio, open_low, verdict, paired_rounds) = if rank == 0 {
                (None, None, Verdict::Best, None)
            } else {
                let (ratio, paired_rounds) = points_ratio(p, best);
                // Without an upper end (the best's CI reaches zero) the low end still decides.
                let open_low = match ratio {
                    Some(_) => None,
                    None => ratio_low_end(&p.summary, &best.summary).filter(|x| x.is_finite()),
                };
                let verdict = match ratio.map(|r| r.low).or(open_low) {
                    Some(low) if low <= 1.0 => Verdict::Tied,
                    Some(_) => Verdict::Slower,
                    None => Verdict::Undecided,
                };
                (ratio, open_low, verdict, paired_rounds)
            };
            Candidate {
                runtime: p.spec.runtime.clone(),
                implementation: implementation.clone(),
                flavor: p.spec.param(FLAVOR_KEY).map(str::to_owned),
                point: p.name.clone(),
                median_ns: p.summary.median,
                ci_low_ns: p.summary.ci_low,
                ci_high_ns: p.summary.ci_high,
                ratio,
                paired_rounds,
                open_low,
                verdict,
                flags: PointFlag::of(p),
            }
        })
        .collect::<Vec<_>>();
    let mut not_measured: Vec<NotMeasured> = Vec::new();
    for s in skipped.iter().filter(|s| s.spec.experiment == experiment) {
        let Some(at) = placed(&s.spec) else { continue };
        let agrees = at.setting.iter().all(|kv| setting.contains(kv));
        let known = |runtime: &str, implementation: &Option<String>| {
            candidates.iter().any(|c| c.runtime == runtime && c.implementation == *implementation)
                || not_measured.iter().any(|n| n.runtime == runtime && n.implementation == *implementation)
        };
        if agrees && !known(at.runtime, &at.implementation) {
            not_measured.push(NotMeasured {
                runtime: at.runtime.into(),
                implementation: at.implementation,
                kind: s.kind,
                reason: s.reason.clone(),
            });
        }
    }
    ChoiceTable {
        experiment: experiment.into(),
        implementation_key: key.into(),
        setting,
        metric: best.metric,
        candidates,
        not_measured,
    }
}

/// `p`'s median over `base`'s with the narrower of two 95% intervals: the conservative one from both CIs
/// ([`ratio_with_ci`]), or the paired one over the processes the two points ran in the same rounds (with
/// how many rounds); `(None, None)` when neither exists.
pub fn points_ratio(p: &PointRecord, base: &PointRecord) -> (Option<RatioCi>, Option<usize>) {
    let conservative = ratio_with_ci(&p.summary, &base.summary).filter(finite);
    match (conservative, paired_ratio(p, base)) {
        (Some(c), Some((r, n))) if width(&r) < width(&c) => (Some(r), Some(n)),
        (None, Some((r, n))) => (Some(r), Some(n)),
        (c, _) => (c, None),
    }
}

/// `p` over `best` from their processes of the same rounds (measured in the same minute of the run, so a
/// slow spell of the machine cancels in the pair): the paired interval of [`super::sides::paired_ratio`],
/// with the number of pairs; `None` with fewer than two.
fn paired_ratio(p: &PointRecord, best: &PointRecord) -> Option<(RatioCi, usize)> {
    let logs = super::sides::paired_log_ratios(best, p);
    let r = super::sides::paired_ratio(&logs)?;
    Some((r, logs.len()))
}

/// The width of an interval on the log scale.
fn width(r: &RatioCi) -> f64 {
    (r.high / r.low).ln()
}

/// Whether every bound of `r` is a finite number.
fn finite(r: &RatioCi) -> bool {
    r.ratio.is_finite() && r.low.is_finite() && r.high.is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::point;
    use overhead_record::RecordOrder;
    use overhead_record::SkipKind;

    /// A point of `experiment` for `runtime` with `params`, whose median is `median` and 95% CI `low..high`.
    fn measured(
        experiment: &str,
        runtime: &str,
        params: &[(&str, &str)],
        (low, median, high): (f64, f64, f64),
    ) -> PointRecord {
        let mut p = point(experiment, runtime, params, median);
        (p.summary.ci_low, p.summary.median, p.summary.ci_high) = (low, median, high);
        p
    }

    fn mutex(runtime: &str, lock: &str, threads: &str, ci: (f64, f64, f64)) -> PointRecord {
        measured("sync.mutex", runtime, &[("lock", lock), ("threads", threads)], ci)
    }

    fn verdicts(t: &ChoiceTable) -> Vec<(String, Verdict)> {
        t.candidates.iter().map(|c| (c.label(), c.verdict)).collect()
    }

    /// A: 10 [9, 11]; B: 10.5 [10, 11.5], whose ratio interval 10/11 – 11.5/9 includes 1: tied; C: 20
    /// [19, 21], 19/11 > 1: slower. Given in another order, ranked by median.
    #[test]
    fn overlapping_cis_tie_and_a_clear_gap_does_not() {
        let points = [
            mutex("os", "c", "2", (19.0, 20.0, 21.0)),
            mutex("os", "b", "2", (10.0, 10.5, 11.5)),
            mutex("os", "a", "2", (9.0, 10.0, 11.0)),
        ];
        let tables = choice_tables(&points, &[], &RecordOrder);
        assert_eq!(tables.len(), 1, "{tables:?}");
        let t = &tables[0];
        assert_eq!((t.experiment.as_str(), t.implementation_key.as_str()), ("sync.mutex", "lock"));
        assert_eq!(t.setting, [("threads".to_string(), "2".to_string())]);
        assert_eq!(
            verdicts(t),
            [("os / a".into(), Verdict::Best), ("os / b".into(), Verdict::Tied), ("os / c".into(), Verdict::Slower)]
        );
        let b = t.candidates[1].ratio.unwrap();
        assert_eq!((b.ratio, b.low, b.high), (10.5 / 10.0, 10.0 / 11.0, 11.5 / 9.0));
        let c = t.candidates[2].ratio.unwrap();
        assert_eq!((c.ratio, c.low, c.high), (2.0, 19.0 / 11.0, 21.0 / 9.0));
        assert!(t.candidates[0].ratio.is_none(), "the best has no ratio to itself");
        assert_eq!(t.best_group().count(), 2);
    }

    /// `msg.ipc`'s points compete as runtimes: where `os` (the kernel's calls) and async runtimes (their own
    /// sockets) measured one transport, payload and placement, that setting is a table of runtimes; a cell
    /// only `os` measured (a pipe) is none.
    #[test]
    fn runtime_sockets_compete_with_the_kernels_calls_in_one_setting() {
        let ipc = |runtime: &str, transport: &str, ci: (f64, f64, f64)| {
            measured("msg.ipc", runtime, &[("transport", transport), ("payload", "8"), ("placement", "same_cpu")], ci)
        };
        let points = [
            ipc("os", "unix_stream", (7.9, 8.1, 8.3)),
            ipc("tokio", "unix_stream", (9.5, 9.75, 10.0)),
            ipc("monoio", "unix_stream", (9.4, 9.65, 9.9)),
            ipc("os", "pipe", (4.0, 4.2, 4.4)),
        ];
        let tables = choice_tables(&points, &[], &RecordOrder);
        assert_eq!(tables.len(), 1, "{tables:?}");
        let t = &tables[0];
        assert_eq!(t.experiment, "msg.ipc");
        assert_eq!(t.setting.len(), 3, "transport, payload and placement: {:?}", t.setting);
        assert_eq!(
            verdicts(t),
            [("os".into(), Verdict::Best), ("monoio".into(), Verdict::Slower), ("tokio".into(), Verdict::Slower)]
        );
    }

    /// Two locks measured in the same rounds of a machine whose speed swings 20% between rounds: each
    /// point's CI holds the swing, so the conservative interval ties them; the pairs of the same round see
    /// B 5% slower every time, and the narrower paired interval says so.
    #[test]
    fn processes_of_the_same_rounds_pair_where_that_narrows_the_interval() {
        let round_speed = [1.0, 1.2, 0.9, 1.1, 1.0];
        let with_rounds = |lock: &str, factor: f64, jitter: f64| {
            let medians: Vec<f64> = round_speed.iter().map(|s| 10.0 * s * factor).collect();
            let mean = medians.iter().sum::<f64>() / medians.len() as f64;
            let mut p = mutex("os", lock, "2", (mean * 0.88, mean, mean * 1.12));
            let jittered: Vec<f64> =
                medians.iter().enumerate().map(|(i, &m)| m * (1.0 + jitter * [0.0, 1.0, -1.0, 0.5, -0.5][i])).collect();
            p.processes = overhead_record::fixture::processes(&jittered);
            p
        };
        let points = [with_rounds("a", 1.0, 0.004), with_rounds("b", 1.05, -0.004)];
        let t = &choice_tables(&points, &[], &RecordOrder)[0];
        let b = &t.candidates[1];
        assert_eq!((b.verdict, b.paired_rounds), (Verdict::Slower, Some(5)), "{b:?}");
        let r = b.ratio.unwrap();
        assert!(r.low > 1.0 && r.low < 1.05 && r.high > 1.05, "{r:?}");
        // Without processes (an older record) the conservative interval stands, and ties them.
        let plain = [mutex("os", "a", "2", (8.8, 10.0, 11.2)), mutex("os", "b", "2", (9.2, 10.5, 11.8))];
        let t = &choice_tables(&plain, &[], &RecordOrder)[0];
        assert_eq!((t.candidates[1].verdict, t.candidates[1].paired_rounds), (Verdict::Tied, None));
    }

    /// The rule's boundary: a ratio interval whose low end is exactly 1 (B's CI starts where A's ends)
    /// includes 1, so B is tied; a hair above, it is slower.
    #[test]
    fn a_low_end_of_exactly_one_is_a_tie() {
        let at = |b_low: f64| {
            let points = [mutex("os", "a", "1", (9.0, 10.0, 11.0)), mutex("os", "b", "1", (b_low, 12.0, 13.0))];
            choice_tables(&points, &[], &RecordOrder).remove(0).candidates[1].clone()
        };
        let edge = at(11.0);
        assert_eq!(edge.ratio.unwrap().low, 1.0);
        assert_eq!(edge.verdict, Verdict::Tied);
        assert_eq!(at(11.0 * (1.0 + 1e-12)).verdict, Verdict::Slower);
    }

    /// A setting with one candidate makes no table; the setting beside it with two does. Experiments whose
    /// points are not alternatives (`sync.sem`) make none, however many runtimes measured them.
    #[test]
    fn one_candidate_is_no_choice() {
        let points = [
            mutex("os", "std", "1", (4.0, 5.0, 6.0)),
            mutex("os", "std", "2", (40.0, 50.0, 60.0)),
            mutex("os", "futex", "2", (30.0, 38.0, 45.0)),
            measured("sync.sem", "os", &[("op", "p")], (3.0, 3.5, 4.0)),
            measured("sync.sem", "tokio", &[("op", "p")], (20.0, 27.0, 30.0)),
        ];
        let tables = choice_tables(&points, &[], &RecordOrder);
        assert_eq!(tables.len(), 1, "{tables:?}");
        assert_eq!(tables[0].setting_text(), "threads:2");
        assert_eq!(verdicts(&tables[0]), [("os / futex".into(), Verdict::Best), ("os / std".into(), Verdict::Tied)]);
    }

    /// Candidates of several runtimes compete in one table per placement: crossbeam on kernel threads,
    /// async-channel on tokio, and Go's channel (a point that names no implementation: the runtime's own).
    #[test]
    fn runtimes_compete_in_one_table_per_placement() {
        let msg = |runtime: &str, imp: Option<&str>, placement: &str, ci| {
            let mut params = vec![];
            if let Some(i) = imp {
                params.push(("impl", i));
            }
            params.push(("placement", placement));
            measured("msg.switch", runtime, &params, ci)
        };
        let points = [
            msg("os", Some("crossbeam"), "same_cpu", (90.0, 100.0, 110.0)),
            msg("tokio", Some("async_channel"), "same_cpu", (140.0, 150.0, 160.0)),
            msg("go", None, "same_cpu", (100.0, 105.0, 115.0)),
            msg("os", Some("crossbeam"), "other_core", (300.0, 310.0, 320.0)),
            msg("go", None, "other_core", (200.0, 210.0, 220.0)),
        ];
        let tables = choice_tables(&points, &[], &RecordOrder);
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[0].setting_text(), "placement:same_cpu");
        assert_eq!(
            verdicts(&tables[0]),
            [
                ("os / crossbeam".into(), Verdict::Best),
                ("go".into(), Verdict::Tied),
                ("tokio / async_channel".into(), Verdict::Slower)
            ]
        );
        assert_eq!(tables[1].setting_text(), "placement:other_core");
        assert_eq!(verdicts(&tables[1]), [("go".into(), Verdict::Best), ("os / crossbeam".into(), Verdict::Slower)]);
        assert_eq!(tables[1].candidates[0].point, "msg.switch/runtime:go/placement:other_core");
    }

    /// A best whose CI reaches zero gives a ratio interval without an upper end: its low end still decides
    /// (B, whose CI starts inside the best's, is tied; C, wholly above it, is slower), and flags travel with
    /// each candidate. A best whose whole CI lies at or below zero, or a candidate whose CI is not a number,
    /// gives no interval at all: undecided, never tied or slower by default.
    #[test]
    fn an_open_interval_decides_by_its_low_end_and_no_interval_is_undecided() {
        let mut best = mutex("os", "a", "2", (-1.0, 1.0, 2.0));
        (best.below_resolution, best.noisy) = (true, true);
        let points = [best, mutex("os", "b", "2", (1.5, 3.0, 4.0)), mutex("os", "c", "2", (9.0, 10.0, 11.0))];
        let t = choice_tables(&points, &[], &RecordOrder).remove(0);
        assert_eq!(
            verdicts(&t),
            [("os / a".into(), Verdict::Best), ("os / b".into(), Verdict::Tied), ("os / c".into(), Verdict::Slower)]
        );
        assert_eq!(t.candidates[0].flags, [PointFlag::Noisy, PointFlag::BelowResolution]);
        assert!(t.candidates[1].ratio.is_none());
        assert_eq!((t.candidates[1].open_low, t.candidates[2].open_low), (Some(0.75), Some(4.5)));

        let points = [mutex("os", "a", "2", (-2.0, -1.0, 0.0)), mutex("os", "b", "2", (1.5, 3.0, 4.0))];
        assert_eq!(choice_tables(&points, &[], &RecordOrder).remove(0).candidates[1].verdict, Verdict::Undecided);
        let points = [mutex("os", "a", "2", (9.0, 10.0, 11.0)), mutex("os", "b", "2", (f64::NAN, 12.0, f64::NAN))];
        assert_eq!(choice_tables(&points, &[], &RecordOrder).remove(0).candidates[1].verdict, Verdict::Undecided);
    }

    /// Skipped cells of a table's setting are listed as not measured: one of the setting itself and a
    /// runtime-wide one; a cell of another setting is not.
    #[test]
    fn skipped_cells_of_the_setting_are_not_measured() {
        let points = [mutex("os", "std", "2", (40.0, 50.0, 60.0)), mutex("os", "futex", "2", (30.0, 38.0, 45.0))];
        let skip = |runtime: &str, params: &[(&str, &str)], kind| {
            let spec = measured("sync.mutex", runtime, params, (1.0, 1.0, 1.0)).spec;
            SkippedPoint::new(spec, kind, "why")
        };
        let skipped = [
            skip("openmp", &[("lock", "omp_lock"), ("threads", "2")], SkipKind::TimedOut),
            skip("openmp", &[("lock", "omp_lock"), ("threads", "4")], SkipKind::Skipped),
            skip("go", &[], SkipKind::Skipped),
        ];
        let t = choice_tables(&points, &skipped, &RecordOrder).remove(0);
        let listed: Vec<(String, SkipKind)> = t.not_measured.iter().map(|n| (n.label(), n.kind)).collect();
        assert_eq!(listed, [("openmp / omp_lock".into(), SkipKind::TimedOut), ("go".into(), SkipKind::Skipped)]);
    }

    /// A registry of two experiments, `sync.faa` before `sync.mutex`.
    struct TwoExperiments;

    impl Catalog for TwoExperiments {
        fn experiment_rank(&self, experiment: &str) -> usize {
            ["sync.faa", "sync.mutex"].iter().position(|e| *e == experiment).unwrap_or(usize::MAX)
        }
        fn runtime_rank(&self, _: &str) -> usize {
            0
        }
        fn own_impl(&self, _: &str, _: &str) -> Option<String> {
            None
        }
        fn snapshot(&self) -> overhead_record::CatalogSnapshot {
            overhead_record::CatalogSnapshot::default()
        }
    }

    /// Tables follow the catalog's order of experiments (sync.faa before sync.mutex), whatever order the
    /// points ran in; the analysis writes them into the record.
    #[test]
    fn tables_follow_the_registry_and_the_analysis_writes_them() {
        let faa =
            |imp: &str, ci| measured("sync.faa", "os", &[("impl", imp), ("variable", "shared"), ("threads", "2")], ci);
        let mut record = overhead_record::fixture::sample_record();
        record.skipped.clear();
        record.points = vec![
            mutex("os", "std", "2", (40.0, 50.0, 60.0)),
            mutex("os", "futex", "2", (30.0, 38.0, 45.0)),
            faa("hw", (20.0, 25.0, 30.0)),
            faa("hashed_lock", (70.0, 79.0, 90.0)),
        ];
        super::super::analyze(&mut record, &TwoExperiments);
        let order: Vec<&str> = record.choices.iter().map(|t| t.experiment.as_str()).collect();
        assert_eq!(order, ["sync.faa", "sync.mutex"]);
        assert_eq!(record.choices[0].setting_text(), "variable:shared threads:2");
    }
}
