//! `msg.throughput`: messages streamed through one channel by producers to consumers, per message (in
//! the shape of crossbeam-channel's benchmark suite).

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, HarnessConfig, Mode};
use overhead_machine::Placement;
use overhead_record::Metric;
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::channel_throughput::{Capacity, Pattern, StreamShape, TeamSeats, NEVER_FULL};
use overhead_runtime_api::{Capability, RuntimeUnderTest};

/// `msg.throughput`'s parameters, in key order: the channel implementation (one the runtime offers,
/// [`overhead_runtime_api::Offers::channel_throughput`]), who sends and receives, the channel's capacity, and where
/// the parties run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Params {
    /// The channel implementation.
    #[serde(rename = "impl")]
    pub implementation: ChannelImpl,
    /// seq, spsc, mpsc or mpmc.
    pub pattern: Pattern,
    /// 0 (rendezvous), 1, [`N`], [`NEVER_FULL`] or unbounded.
    pub capacity: Capacity,
    /// Where the parties run: one of [`STREAM_PLACEMENTS`].
    pub placement: Placement,
}

/// Where a stream's parties run: the `placement:` values of `msg.throughput`, two pinned placements and the
/// free one, so that a reader sees which question a number answers (docs/METHOD.md §9, "Channel throughput:
/// which question a number answers"): every party on the home CPU (they take turns), producers on the home
/// CPU and consumers on another core's (what a message costs between two cores), or no party pinned (the
/// scheduler places them on the run's CPUs, as users run threads and as crossbeam-channel's suite does).
pub const STREAM_PLACEMENTS: [Placement; 3] = [Placement::SameCpu, Placement::OtherCore, Placement::Free];

/// How many times the mode's target a `msg.throughput` batch lasts ([`Experiment::harness_config`]).
pub const STREAM_BATCH_FACTOR: f64 = 10.0;

/// The shortest `msg.throughput` batch, ns: 5 ms (2.5 ms in `--quick`).
pub const MIN_STREAM_BATCH_NS: f64 = 5e6;

/// The bounded-N capacity: a fixed 1024 messages, a queue producers fill when the consumer falls behind
/// (crossbeam-channel's suite has no such bound: its `bounded_n` is [`NEVER_FULL`]'s scenario).
pub const N: usize = 1024;

/// Crossbeam-channel's benchmark suite (crossbeam-channel/benchmarks: `seq`, `spsc`, `mpsc`, `mpmc`; bounded 0,
/// 1, N and unbounded) on this machine, with placements and CIs: per harness batch, a stream of n messages in
/// total, split evenly over the producers (and consumers), each message a `u64` naming its producer and its
/// place in that producer's stream. Every party is a thread (`os`) or a future of a pinned thread's executor
/// (async runtimes); a batch's time is the stream's, from the first party's start to the last receive (on
/// `os`; an executor's group is timed whole), over n, against the empty loop. `seq` is one thread that sends a
/// chunk and receives it back (a chunk is the capacity when bounded, the whole batch when unbounded), so it
/// runs only where the chunk is not 0, on the home CPU. A capacity or pattern the library lacks (a rendezvous
/// channel for tokio's mpsc and async-channel; mpmc for single-consumer queues) is not planned.
///
/// Two cells are the suite's own scenario and are planned for the crates it compares (the blocking crates on
/// kernel threads, [`ChannelImpl::runs_free`]): `placement:free`, threads nobody pins, and capacity
/// [`NEVER_FULL`], a bound no batch reaches (the suite bounds `bounded_n` by its message count).
///
/// Grids: `--quick` spsc at N, other core and free; default: spsc and mpsc at N and unbounded, other core
/// and free, and spsc at 0 on the other core; `--full` every pattern, capacity and placement.
pub struct Throughput;

impl Throughput {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::msg::THROUGHPUT;
}

/// The (pattern, capacity, placement) cells of a mode's grid, before an implementation filters them.
fn grid(mode: Mode) -> Vec<(Pattern, Capacity, Placement)> {
    use Capacity::{Bounded, Unbounded};
    use Pattern::*;
    use Placement::{Free, OtherCore, SameCpu};
    match mode {
        Mode::Quick => vec![(Spsc, Bounded(N), OtherCore), (Spsc, Bounded(N), Free)],
        // The default run's budget (≤ 90 s in all) leaves room for the cases the crossbeam-channel cross-check
        // compares, pinned and free, and the zero-capacity channel; the rest of the suite's grid is `--full`'s.
        Mode::Default => vec![
            (Spsc, Bounded(N), OtherCore),
            (Mpsc, Bounded(N), OtherCore),
            (Spsc, Bounded(0), OtherCore),
            (Spsc, Unbounded, OtherCore),
            (Mpsc, Unbounded, OtherCore),
            (Spsc, Bounded(N), Free),
            (Mpsc, Bounded(N), Free),
            (Spsc, Unbounded, Free),
            (Mpsc, Unbounded, Free),
        ],
        Mode::Full => {
            let mut out =
                vec![(Seq, Bounded(N), SameCpu), (Seq, Bounded(NEVER_FULL), SameCpu), (Seq, Unbounded, SameCpu)];
            for pattern in [Spsc, Mpsc, Mpmc] {
                for capacity in [Bounded(0), Bounded(1), Bounded(N), Bounded(NEVER_FULL), Unbounded] {
                    out.extend([SameCpu, OtherCore, Free].map(|placement| (pattern, capacity, placement)));
                }
            }
            out
        }
    }
}

/// Whether `implementation` has the cell: its capacity and pattern, and, for the suite's own scenario
/// (free parties, a bound no batch reaches), whether it is one of the crates the suite compares.
fn has_cell(implementation: ChannelImpl, (pattern, capacity, placement): (Pattern, Capacity, Placement)) -> bool {
    let suite_scenario = placement == Placement::Free || capacity == Capacity::Bounded(NEVER_FULL);
    implementation.has_capacity(capacity)
        && implementation.has_pattern(pattern)
        && (!suite_scenario || implementation.runs_free())
}

impl Experiment for Throughput {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Throughput::ID,
            summary: "messages streamed through one channel, seq/spsc/mpsc/mpmc, bounded 0/1/N/never full and \
                      unbounded, same CPU, other core and free threads, per message",
            source: "crossbeam-channel's benchmark suite (crossbeam-channel/benchmarks)",
            metric: Metric::PerOp,
            requires: &[Capability::ChannelThroughput],
        }
    }
    /// Batches [`STREAM_BATCH_FACTOR`] times the mode's target, at least [`MIN_STREAM_BATCH_NS`]: a stream
    /// switches between regimes (a consumer that keeps up and spins, or one that empties the queue, parks
    /// and is woken) over milliseconds, and producers that share a CPU take turns in time slices of
    /// milliseconds; a half-millisecond batch catches one regime, a longer one averages them as a long
    /// stream does (docs/METHOD.md §9, "Why a number differs from the suite's"). One counted pair instead of
    /// the mode's two (docs/METHOD.md §18): a batch ten times as long counts five times the operations of
    /// two ordinary ones, and the second pair cost a tenth of every stream process. `--quick` halves the
    /// floor as it halves every target: its streams average over 2.5 ms.
    fn harness_config(&self, base: HarnessConfig) -> HarnessConfig {
        let floor = if base.mode == Mode::Quick { MIN_STREAM_BATCH_NS / 2.0 } else { MIN_STREAM_BATCH_NS };
        HarnessConfig {
            target_batch_ns: (base.target_batch_ns * STREAM_BATCH_FACTOR).max(floor),
            counted_pairs: base.counted_pairs.min(1),
            ..base
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let home = ctx.home_cpu();
        let other = ctx.topology.partner(home, Placement::OtherCore, &ctx.cpus);
        let mut out = Vec::new();
        for &implementation in runtime.offers().channel_throughput.has().unwrap_or_default() {
            for cell in grid(ctx.mode) {
                if !has_cell(implementation, cell) {
                    continue;
                }
                let (pattern, capacity, placement) = cell;
                let params = Params { implementation, pattern, capacity, placement };
                let (producers, consumers) = pattern.parties();
                let cpus = match (placement, other) {
                    // Free parties may run on every CPU of the run.
                    (Placement::Free, _) => ctx.cpus.clone(),
                    _ if pattern == Pattern::Seq => vec![home],
                    (Placement::OtherCore, Some(other)) => {
                        std::iter::repeat_n(home, producers).chain(std::iter::repeat_n(other, consumers)).collect()
                    }
                    (Placement::OtherCore, None) => {
                        let spec = ctx.spec_of(self.id(), runtime, &params, vec![home]);
                        out.push(Planned::Skip(spec, format!("needs a CPU on another core than CPU {home}")));
                        continue;
                    }
                    _ => vec![home; producers + consumers],
                };
                out.push(Planned::Run(ctx.spec_of(self.id(), runtime, &params, cpus)));
            }
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { implementation, pattern, capacity, placement } = point.params()?;
        anyhow::ensure!(
            STREAM_PLACEMENTS.contains(&placement),
            "{}: placement:{} is not one of a stream's (same_cpu, other_core, free)",
            spec.name(),
            placement.name()
        );
        let shape = StreamShape { pattern, capacity };
        let parties = match placement {
            Placement::Free => TeamSeats::Free(&spec.cpus),
            _ => TeamSeats::Pinned(&spec.cpus),
        };
        let mut notes = vec![format!(
            "batches of about {:.0} ms ({STREAM_BATCH_FACTOR}× the mode's target): long enough to average a stream's \
             regimes and its producers' time slices",
            h.config.target_batch_ns / 1e6
        )];
        let capped;
        let h = if capacity == Capacity::Bounded(NEVER_FULL) {
            // No batch may outgrow the bound, or the channel would fill after all.
            let mut never_full = h.clone();
            never_full.config.max_batch_ops = never_full.config.max_batch_ops.min(NEVER_FULL as u64);
            capped = never_full;
            notes.push(format!(
                "capacity {NEVER_FULL} never fills: batches are capped at it (crossbeam-channel's suite bounds its \
                 bounded_n channel by its message count)"
            ));
            &capped
        } else {
            h
        };
        if placement == Placement::Free {
            notes.push(format!(
                "threads free on CPUs {:?}: the scheduler places them, as in crossbeam-channel's suite; the time \
                 is the stream's span, first start to last receive",
                spec.cpus
            ));
        }
        let mut outcome =
            point.in_process(|r| r.channel_throughput())?.throughput(implementation, shape, parties, h)?;
        // How a blocked party waits explains a rendezvous, and an async stream at any capacity; how the queue
        // is built explains a stream of the blocking crates.
        if capacity == Capacity::Bounded(0) || implementation.is_async() {
            outcome.notes.extend(implementation.wait_strategy().map(str::to_owned));
        }
        if capacity != Capacity::Bounded(0) {
            outcome.notes.extend(implementation.queue_design().map(str::to_owned));
        }
        outcome.notes.extend(notes);
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::tests::two_cpu_context;
    use overhead_record::PointSpec;

    fn planned(mode: Mode, runtime: &dyn RuntimeUnderTest) -> Vec<(PointSpec, bool)> {
        let ctx = two_cpu_context(mode);
        Throughput
            .points(&ctx, runtime)
            .into_iter()
            .map(|p| match p {
                Planned::Run(s) => (s, true),
                Planned::Skip(s, _) => (s, false),
            })
            .collect()
    }

    /// Each mode plans its grid for every offered implementation that has the cell's capacity and pattern, in
    /// the offers' order, keys in order `impl, pattern, capacity, placement`, one CPU per party.
    #[test]
    fn each_mode_plans_its_grid_per_offered_impl() {
        let os = overhead_runtime_registry::find("os").unwrap();
        let tokio = overhead_runtime_registry::find("tokio").unwrap();
        for mode in [Mode::Quick, Mode::Default, Mode::Full] {
            for runtime in [os, tokio] {
                let points = planned(mode, runtime);
                let offered = runtime.offers().channel_throughput.has().unwrap();
                let mut expected = 0;
                for &i in offered {
                    expected += grid(mode).into_iter().filter(|&cell| has_cell(i, cell)).count();
                }
                assert_eq!(points.len(), expected, "{mode:?} {}", runtime.name());
                let first: Vec<&str> = points.iter().map(|(s, _)| s.param("impl").unwrap()).collect();
                assert_eq!(first[0], offered[0].as_str());
                for (s, runs) in &points {
                    // A runtime's flavor names itself first (tokio's), then the experiment's own keys.
                    let keys: Vec<&str> = s.params.iter().map(|(k, _)| k.as_str()).filter(|k| *k != "flavor").collect();
                    assert_eq!(keys, ["impl", "pattern", "capacity", "placement"], "{}", s.name());
                    assert_eq!(s.param("flavor").is_some(), runtime.flavor().is_some(), "{}", s.name());
                    let p: Params = s.params_as().unwrap();
                    if !*runs {
                        // Only where this machine's CPUs 0 and 1 share a core.
                        assert_eq!(p.placement, Placement::OtherCore, "{}", s.name());
                        continue;
                    }
                    assert!(p.implementation.has_capacity(p.capacity) && p.implementation.has_pattern(p.pattern));
                    if p.placement == Placement::Free {
                        // Free parties may use every CPU of the run, and only the suite's crates have them.
                        assert_eq!(s.cpus, two_cpu_context(mode).cpus, "{}", s.name());
                        assert_eq!(s.placement, Some(Placement::Free));
                        assert!(s.threads_free() && p.implementation.runs_free(), "{}", s.name());
                        continue;
                    }
                    let (producers, consumers) = p.pattern.parties();
                    let parties = if p.pattern == Pattern::Seq { 1 } else { producers + consumers };
                    assert_eq!(s.cpus.len(), parties, "{}", s.name());
                    assert_eq!(s.placement, Some(p.placement), "the parsed placement is the named one");
                    assert!(!s.threads_free());
                    let consumers_apart = s.cpus[s.cpus.len() - 1] != s.cpus[0];
                    assert_eq!(consumers_apart, p.placement == Placement::OtherCore, "{}", s.name());
                }
            }
        }
        let quick = planned(Mode::Quick, os);
        assert_eq!(quick.len(), 8);
        assert!(quick.iter().all(|(s, _)| s.param("capacity") == Some("1024")));
        // The default grid: 5 pinned and 4 free cells for each os crate; tokio's mpsc and async-channel lack
        // the rendezvous, and no executor has free parties.
        assert_eq!(planned(Mode::Default, os).len(), 36);
        assert_eq!(planned(Mode::Default, tokio).len(), 18);
        assert!(planned(Mode::Full, tokio).iter().all(|(s, _)| !s.threads_free()));
        assert!(planned(Mode::Full, tokio).iter().all(|(s, _)| s.param("capacity") != Some("1048576")));
        let full = planned(Mode::Full, os);
        assert!(!full.iter().any(|(s, _)| s.param("impl") == Some("std_mpsc") && s.param("pattern") == Some("mpmc")));
        assert!(full.iter().any(|(s, _)| s.param("impl") == Some("kanal") && s.param("pattern") == Some("mpmc")));
        assert!(full.iter().filter(|(s, _)| s.param("pattern") == Some("seq")).all(|(s, _)| s.cpus.len() == 1));
    }

    /// Streams run in batches ten times the mode's target and at least 5 ms (2.5 ms in `--quick`), with one
    /// counted pair (none where the mode counts none); the rest of the settings stay.
    #[test]
    fn streams_get_long_batches() {
        for (mode, floor) in [(Mode::Quick, 2.5e6), (Mode::Default, 5e6), (Mode::Full, 5e6)] {
            let base = HarnessConfig::for_mode(mode);
            let long = Throughput.harness_config(base);
            assert_eq!(long.target_batch_ns, (base.target_batch_ns * 10.0).max(floor));
            assert!(long.target_batch_ns >= floor);
            assert_eq!(long.counted_pairs, 1);
            let rest =
                HarnessConfig { target_batch_ns: base.target_batch_ns, counted_pairs: base.counted_pairs, ..long };
            assert_eq!(rest, base);
            let uncounted = HarnessConfig { counted_pairs: 0, ..base };
            assert_eq!(Throughput.harness_config(uncounted).counted_pairs, 0);
        }
    }

    /// On one usable CPU the other-core cells are skipped with the reason, the same-CPU ones run.
    #[test]
    fn other_core_is_skipped_on_one_cpu() {
        let mut ctx = two_cpu_context(Mode::Default);
        ctx.cpus.truncate(1);
        let os = overhead_runtime_registry::find("os").unwrap();
        let points = Throughput.points(&ctx, os);
        for p in &points {
            match p {
                Planned::Run(s) => assert_ne!(s.param("placement"), Some("other_core")),
                Planned::Skip(s, why) => {
                    assert_eq!(s.param("placement"), Some("other_core"));
                    assert!(why.contains("another core"), "{why}");
                }
            }
        }
        assert!(points.iter().any(|p| matches!(p, Planned::Skip(..))));
    }
}
