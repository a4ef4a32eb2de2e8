//! `msg.throughput`: messages streamed through one channel by producers to consumers, per message (in
//! the shape of crossbeam-channel's benchmark suite).

use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, Mode};
use overhead_machine::Placement;
use overhead_record::Metric;
use overhead_runtimes::channel_impl::ChannelImpl;
use overhead_runtimes::channel_throughput::{Capacity, Pattern, StreamShape};
use overhead_runtimes::{Capability, RuntimeUnderTest};

/// `msg.throughput`'s parameters, in key order: the channel implementation (one the runtime offers,
/// [`overhead_runtimes::Offers::channel_throughput`]), who sends and receives, the channel's capacity, and where
/// the consumers sit relative to the producers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Params {
    /// The channel implementation.
    #[serde(rename = "impl")]
    pub implementation: ChannelImpl,
    /// seq, spsc, mpsc or mpmc.
    pub pattern: Pattern,
    /// 0 (rendezvous), 1, [`N`] or unbounded.
    pub capacity: Capacity,
    /// `same_cpu`: every party on the home CPU; `other_core`: producers on the home CPU, consumers on a CPU of
    /// another core.
    pub placement: Placement,
}

/// The bounded-N capacity: crossbeam-channel's suite bounds its "bounded_n" channel by its whole message
/// count (5 000 000); a batch here is sized by the harness, so N is a fixed 1024 messages, a queue that a
/// producer rarely fills.
pub const N: usize = 1024;

/// Crossbeam-channel's benchmark suite (crossbeam-channel/benchmarks: `seq`, `spsc`, `mpsc`, `mpmc`; bounded 0,
/// 1, N and unbounded) on this machine, with placements and CIs: per harness batch, a stream of n messages in
/// total, split evenly over the producers (and consumers), each message a `u64` naming its producer and its
/// place in that producer's stream. Every party is a thread (`os`) or a future of a pinned thread's executor
/// (async runtimes) that starts with the team and times its part; the slowest party's time (the last
/// receive) over n is the sample, against the empty loop. `seq` is one thread that sends a chunk and
/// receives it back (a chunk is the capacity for bounded N, the whole batch when unbounded), so it runs only
/// at N and unbounded, on the home CPU. A capacity or pattern the library lacks (a rendezvous channel for
/// tokio's mpsc and async-channel; mpmc for single-consumer queues) is not planned.
///
/// Grids: `--quick` spsc and mpsc at N, other core; default adds them on the same CPU and spsc at 0 and
/// unbounded on the other core; `--full` every pattern, capacity and placement.
pub struct Throughput;

impl Throughput {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = "msg.throughput";
}

/// The (pattern, capacity, placement) cells of a mode's grid, before an implementation filters them.
fn grid(mode: Mode) -> Vec<(Pattern, Capacity, Placement)> {
    use Capacity::{Bounded, Unbounded};
    use Pattern::*;
    use Placement::{OtherCore, SameCpu};
    match mode {
        // The default run's budget (≤ 90 s in all) leaves room for the cases the crossbeam-channel cross-check
        // compares and the rendezvous channel; the rest of the suite's grid is `--full`'s.
        Mode::Quick => vec![(Spsc, Bounded(N), OtherCore)],
        Mode::Default => {
            vec![(Spsc, Bounded(N), OtherCore), (Mpsc, Bounded(N), OtherCore), (Spsc, Bounded(0), OtherCore)]
        }
        Mode::Full => {
            let mut out = vec![(Seq, Bounded(N), SameCpu), (Seq, Unbounded, SameCpu)];
            for pattern in [Spsc, Mpsc, Mpmc] {
                for capacity in [Bounded(0), Bounded(1), Bounded(N), Unbounded] {
                    out.extend([SameCpu, OtherCore].map(|placement| (pattern, capacity, placement)));
                }
            }
            out
        }
    }
}

impl Experiment for Throughput {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Throughput::ID,
            summary: "messages streamed through one channel, seq/spsc/mpsc/mpmc, bounded 0/1/N and unbounded, \
                      same CPU and other core, per message",
            source: "crossbeam-channel's benchmark suite (crossbeam-channel/benchmarks)",
            metric: Metric::PerOp,
            requires: &[Capability::ChannelThroughput],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        let home = ctx.home_cpu();
        let other = ctx.topology.partner(home, Placement::OtherCore, &ctx.cpus);
        let mut out = Vec::new();
        for &implementation in runtime.offers().channel_throughput.has().unwrap_or_default() {
            for (pattern, capacity, placement) in grid(ctx.mode) {
                if !implementation.has_capacity(capacity) || !implementation.has_pattern(pattern) {
                    continue;
                }
                let params = Params { implementation, pattern, capacity, placement };
                let (producers, consumers) = pattern.parties();
                let consumer_cpu = match placement {
                    Placement::OtherCore => other,
                    _ => Some(home),
                };
                let Some(consumer_cpu) = consumer_cpu else {
                    let mut spec = ctx.spec_of(self.id(), runtime, &params, vec![home]);
                    spec.placement = Some(placement);
                    out.push(Planned::Skip(spec, format!("needs a CPU on another core than CPU {home}")));
                    continue;
                };
                let cpus = if pattern == Pattern::Seq {
                    vec![home]
                } else {
                    std::iter::repeat_n(home, producers).chain(std::iter::repeat_n(consumer_cpu, consumers)).collect()
                };
                let mut spec = ctx.spec_of(self.id(), runtime, &params, cpus);
                spec.placement = Some(placement);
                out.push(Planned::Run(spec));
            }
        }
        out
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { implementation, pattern, capacity, .. } = point.params()?;
        let shape = StreamShape { pattern, capacity };
        let mut outcome =
            point.in_process(|r| r.channel_throughput())?.throughput(implementation, shape, &spec.cpus, h)?;
        if capacity == Capacity::Bounded(0) {
            outcome.notes.extend(implementation.wait_strategy().map(str::to_owned));
        }
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
        let os = overhead_runtimes::find("os").unwrap();
        let tokio = overhead_runtimes::find("tokio").unwrap();
        for mode in [Mode::Quick, Mode::Default, Mode::Full] {
            for runtime in [os, tokio] {
                let points = planned(mode, runtime);
                let offered = runtime.offers().channel_throughput.has().unwrap();
                let mut expected = 0;
                for &i in offered {
                    expected += grid(mode).iter().filter(|(p, c, _)| i.has_capacity(*c) && i.has_pattern(*p)).count();
                }
                assert_eq!(points.len(), expected, "{mode:?} {}", runtime.name());
                let first: Vec<&str> = points.iter().map(|(s, _)| s.param("impl").unwrap()).collect();
                assert_eq!(first[0], offered[0].as_str());
                for (s, runs) in &points {
                    let keys: Vec<&str> = s.params.iter().map(|(k, _)| k.as_str()).collect();
                    assert_eq!(keys, ["impl", "pattern", "capacity", "placement"], "{}", s.name());
                    let p: Params = s.params_as().unwrap();
                    if !*runs {
                        // Only where this machine's CPUs 0 and 1 share a core.
                        assert_eq!(p.placement, Placement::OtherCore, "{}", s.name());
                        continue;
                    }
                    let (producers, consumers) = p.pattern.parties();
                    let parties = if p.pattern == Pattern::Seq { 1 } else { producers + consumers };
                    assert_eq!(s.cpus.len(), parties, "{}", s.name());
                    assert_eq!(s.placement, Some(p.placement));
                    let consumers_apart = s.cpus[s.cpus.len() - 1] != s.cpus[0];
                    assert_eq!(consumers_apart, p.placement == Placement::OtherCore, "{}", s.name());
                    assert!(p.implementation.has_capacity(p.capacity) && p.implementation.has_pattern(p.pattern));
                }
            }
        }
        let quick = planned(Mode::Quick, os);
        assert_eq!(quick.len(), 4);
        assert!(quick.iter().all(|(s, _)| s.param("capacity") == Some("1024")));
        // The default grid: 3 cells for each os crate; tokio's mpsc and async-channel lack the rendezvous.
        assert_eq!(planned(Mode::Default, os).len(), 12);
        assert_eq!(planned(Mode::Default, tokio).len(), 10);
        let full = planned(Mode::Full, os);
        assert!(!full.iter().any(|(s, _)| s.param("impl") == Some("std_mpsc") && s.param("pattern") == Some("mpmc")));
        assert!(full.iter().any(|(s, _)| s.param("impl") == Some("kanal") && s.param("pattern") == Some("mpmc")));
        assert!(full.iter().filter(|(s, _)| s.param("pattern") == Some("seq")).all(|(s, _)| s.cpus.len() == 1));
    }

    /// On one usable CPU the other-core cells are skipped with the reason, the same-CPU ones run.
    #[test]
    fn other_core_is_skipped_on_one_cpu() {
        let mut ctx = two_cpu_context(Mode::Default);
        ctx.cpus.truncate(1);
        let os = overhead_runtimes::find("os").unwrap();
        let points = Throughput.points(&ctx, os);
        for p in &points {
            match p {
                Planned::Run(s) => assert_eq!(s.param("placement"), Some("same_cpu")),
                Planned::Skip(s, why) => {
                    assert_eq!(s.param("placement"), Some("other_core"));
                    assert!(why.contains("another core"), "{why}");
                }
            }
        }
        assert!(points.iter().any(|p| matches!(p, Planned::Skip(..))));
    }
}
