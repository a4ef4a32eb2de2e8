//! `wake.handoff`: one matrix of wake paths (futex, futex_waitv, eventfd, epoll, io_uring), with the waker's
//! cost and the wake latency apart, per placement and waiter state.

use overhead_harness::{Harness, Mode};
use overhead_machine::Placement;
use overhead_record::Metric;
use overhead_runtime_api::RuntimeUnderTest;
use overhead_runtime_os::wake::handoff::{measure, Handoffs, WaiterState, SETTLE_NS, SPIN_NS};
use overhead_runtime_os::wake::Mechanism;
use overhead_stats::percentile;

use crate::timer::latency_outcome;
use crate::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};

pub use overhead_schema::experiments::wake::HandoffParams as Params;

pub use overhead_schema::experiments::wake::HandoffResult;

/// Souvatzis-style handoffs for the wake paths of today's runtimes: a waker thread wakes a waiter through the
/// mechanism, the waiter answers through a second channel of it, and each round gives the waker's call, the
/// wake latency (from just before the call to the waiter running) and the round trip on one clock
/// (`os::wake::handoff`). Every mechanism the kernel has, at the same CPU and one CPU of each placement
/// class; the waiter blocked when woken, and spinning ([`SPIN_NS`]) before it blocks, where the mechanism can
/// be polled and the waker has a CPU of its own. A mechanism the kernel lacks or refuses is skipped with the
/// kernel's reason.
///
/// Samples: the medians of R consecutive chunks of the rounds' latencies (as `timer.wakeup`), so the point's
/// median is the typical wake latency with a CI over processes; the latency distribution is in
/// `details.distribution`; the waker's cost and the round trip are in `extra`.
pub struct Handoff;

impl Handoff {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it.
    pub const ID: &'static str = overhead_schema::experiments::wake::HANDOFF;
}

/// Timed rounds per process: a blocked round costs a settle and two wakes (≈ 50–120 µs on a 2-vCPU VM).
pub fn rounds_for(mode: Mode) -> usize {
    match mode {
        Mode::Quick => 200,
        Mode::Default => 500,
        Mode::Full => 5_000,
    }
}

/// Untimed rounds first: the threads' first switches, the rings' first submissions, page faults.
const WARMUP_ROUNDS: usize = 20;

impl Experiment for Handoff {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Handoff::ID,
            summary: "wake one waiting thread: futex, futex_waitv ×1/×8, eventfd, eventfd/pipe under epoll, io_uring \
                      MSG_RING (default, DEFER_TASKRUN, from SQPOLL), ring eventfd read, ring FUTEX_WAIT; waker \
                      cost, wake latency p50/p99/p99.9, round trip; blocked and spinning waiters",
            source: "liburing issue 1150 and Axboe's MSG_RING series (2024); perf bench futex wake; Souvatzis \
                     handoff method",
            metric: Metric::OneWay,
            requires: KERNEL,
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        plan(ctx, runtime, |mechanism| overhead_runtime_os::wake::open(mechanism).map(drop))
    }

    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { mechanism, waiter } = point.params()?;
        let cpus = [spec.cpus[0], spec.cpus[spec.cpus.len() - 1]];
        let rounds = rounds_for(h.config.mode);
        let handoffs = measure(mechanism, cpus, waiter, WARMUP_ROUNDS, rounds, &h.clock)?;
        Ok(outcome(&handoffs, mechanism, waiter, h.config.repetitions, |t| h.clock.ticks_to_ns(t)))
    }
}

/// The points of [`Handoff`] on `ctx`'s machine, each mechanism planned where `available` says the kernel has
/// it and skipped with its reason where not (the plan asks the kernel by opening each: [`Mechanism::open`]).
fn plan(
    ctx: &PlanContext,
    runtime: &dyn RuntimeUnderTest,
    available: impl Fn(Mechanism) -> Result<(), overhead_runtime_os::wake::Unavailable>,
) -> Vec<Planned> {
    // Outside `--full`, the same CPU and the nearest other core: eleven paths at every placement class
    // would grow the plan with the machine (docs/METHOD.md §9a).
    let placed = |params: &Params| -> Vec<Planned> {
        ctx.pair_points(Handoff::ID, runtime, params)
            .into_iter()
            .filter(|p| {
                ctx.mode == Mode::Full
                    || matches!(spec_of(p).placement, Some(Placement::SameCpu | Placement::OtherCore))
            })
            .collect()
    };
    let mut out = Vec::new();
    for mechanism in Mechanism::ALL {
        let blocked = Params { mechanism, waiter: WaiterState::Blocked };
        let planned = placed(&blocked);
        if let Err(why) = available(mechanism) {
            out.extend(planned.into_iter().map(|p| skip(p, &why.0)));
            continue;
        }
        out.extend(planned);
        if mechanism.can_spin() {
            let spinning = Params { mechanism, waiter: WaiterState::Spinning };
            // A spinning waiter on the waker's own CPU would only hold it away from the waker.
            out.extend(placed(&spinning).into_iter().filter(|p| spec_of(p).placement != Some(Placement::SameCpu)));
        }
    }
    out
}

fn spec_of(planned: &Planned) -> &overhead_record::PointSpec {
    match planned {
        Planned::Run(spec) | Planned::Skip(spec, _) => spec,
    }
}

/// A planned point turned into a skip with the kernel's reason.
fn skip(planned: Planned, why: &str) -> Planned {
    match planned {
        Planned::Run(spec) | Planned::Skip(spec, _) => Planned::Skip(spec, why.to_string()),
    }
}

/// The point's outcome from one process's rounds: chunk medians of the latency as samples, the latency
/// distribution in the details, the waker's cost and the round trip in `extra`.
fn outcome(
    h: &Handoffs,
    mechanism: Mechanism,
    waiter: WaiterState,
    chunks: usize,
    to_ns: impl Fn(f64) -> f64,
) -> Outcome {
    let negative = h.latency_ticks.iter().filter(|&&t| t < 0).count();
    let latency_ns: Vec<i64> = h.latency_ticks.iter().map(|&t| to_ns(t.max(0) as f64).round() as i64).collect();
    let sorted = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values
    };
    let waker = sorted(h.waker_ticks.iter().map(|&t| to_ns(t as f64)).collect());
    let latency = sorted(latency_ns.iter().map(|&ns| ns as f64).collect());
    let rtt = sorted(h.rtt_ticks.iter().map(|&t| to_ns(t as f64)).collect());
    let rounds = h.rtt_ticks.len().max(1) as f64;
    let result = HandoffResult {
        rounds: h.rtt_ticks.len() as f64,
        waker_ns_p50: percentile(&waker, 0.5),
        waker_ns_p99: percentile(&waker, 0.99),
        latency_ns_p50: percentile(&latency, 0.5),
        latency_ns_p99: percentile(&latency, 0.99),
        latency_ns_p999: percentile(&latency, 0.999),
        rtt_ns_p50: percentile(&rtt, 0.5),
        waiter_switches_per_round: h.waiter_switches as f64 / rounds,
        caught_spinning_fraction: h.caught_spinning as f64 / rounds,
        negative_latencies: negative as f64,
    };
    let mut notes = vec![format!("kernel {}", kernel_release())];
    if !mechanism.ring_flags().is_empty() {
        notes.push(mechanism.ring_flags().to_string());
    }
    if mechanism == Mechanism::UringSqpoll {
        notes.push(
            "the waker's submissions are polled by the ring's kernel thread, which keeps a CPU busy while it polls: its \
             CPU time is not in the waker's cost"
                .into(),
        );
    }
    match waiter {
        WaiterState::Blocked if result.waiter_switches_per_round < 0.9 => notes.push(format!(
            "the waiter slept in only {:.0}% of the rounds (voluntary context switches): the others found their wake \
             before they blocked",
            100.0 * result.waiter_switches_per_round.min(1.0)
        )),
        WaiterState::Spinning => notes.push(format!(
            "the waiter spun up to {:.0} µs before blocking and caught {:.0}% of the wakes in its spin",
            SPIN_NS / 1e3,
            100.0 * result.caught_spinning_fraction
        )),
        WaiterState::Blocked => notes.push(format!(
            "the waiter was asleep when woken (the waker let it settle {:.0} µs on another CPU)",
            SETTLE_NS / 1e3
        )),
    }
    if negative > 0 {
        notes.push(format!(
            "{negative} rounds read a latency below zero (the two CPUs' counters differ; recorded as 0)"
        ));
    }
    latency_outcome(&latency_ns, chunks, to_ns(1.0).max(1.0), notes).with_result(&result)
}

/// This kernel's release (`uname -r`), for the record: every wake path's cost depends on it.
fn kernel_release() -> String {
    std::fs::read_to_string("/proc/sys/kernel/osrelease").map_or_else(|_| "unknown".into(), |s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel without io_uring (as under `kernel.io_uring_disabled` or a container's seccomp filter) skips
    /// every ring path at every placement with the kernel's reason, plans no spinning point for it, and still
    /// plans the others.
    #[test]
    fn a_path_the_kernel_lacks_is_skipped_with_its_reason() {
        let ctx = crate::rpc::tests::two_cores(Mode::Default);
        let runtime = overhead_runtime_registry::find("os").unwrap();
        let why = "io_uring_setup (default flags): EPERM: refused (kernel.io_uring_disabled, …)";
        let planned = plan(&ctx, runtime, |m| {
            if m.uses_io_uring() {
                Err(overhead_runtime_os::wake::Unavailable(why.into()))
            } else {
                Ok(())
            }
        });
        let mut ring_skips = 0;
        for p in &planned {
            let params: Params = spec_of(p).params_as().unwrap();
            match p {
                Planned::Skip(_, reason) => {
                    assert!(params.mechanism.uses_io_uring() && reason == why, "{reason}");
                    assert_eq!(params.waiter, WaiterState::Blocked, "no spinning point for a missing path");
                    ring_skips += 1;
                }
                Planned::Run(_) => assert!(!params.mechanism.uses_io_uring()),
            }
        }
        assert_eq!(ring_skips, 5 * 2, "five ring paths at the same CPU and the other core");
        assert!(planned.iter().any(|p| matches!(p, Planned::Run(s) if s.param("mechanism") == Some("futex"))));
    }

    #[test]
    fn the_outcome_keeps_sender_and_receiver_apart() {
        let h = Handoffs {
            waker_ticks: vec![100; 10],
            latency_ticks: (1..=10).map(|i| i * 1_000).collect(),
            rtt_ticks: vec![30_000; 10],
            waiter_switches: 10,
            caught_spinning: 0,
        };
        let o = outcome(&h, Mechanism::Futex, WaiterState::Blocked, 5, |t| t);
        assert_eq!(o.extra["waker_ns_p50"], 100.0);
        assert_eq!(o.extra["rtt_ns_p50"], 30_000.0);
        assert!(o.extra["latency_ns_p50"] > 5_000.0 && o.extra["latency_ns_p50"] < 6_000.0);
        let p999 = o.extra["latency_ns_p999"];
        assert!(p999 > 9_900.0 && p999 <= 10_000.0, "{p999}");
        assert_eq!(o.measurement.samples_ns.len(), 5);
        assert_eq!(o.details.distribution.unwrap().count, 10);
        assert_eq!(o.extra["waiter_switches_per_round"], 1.0);
        assert!(o.notes[0].starts_with("kernel "));
    }

    #[test]
    fn a_waiter_that_did_not_sleep_is_said() {
        let h = Handoffs {
            waker_ticks: vec![1; 4],
            latency_ticks: vec![-5, 10, 20, 30],
            rtt_ticks: vec![50; 4],
            waiter_switches: 1,
            caught_spinning: 0,
        };
        let o = outcome(&h, Mechanism::UringMsgRing, WaiterState::Blocked, 2, |t| t);
        assert!(o.notes.iter().any(|n| n.contains("slept in only 25%")), "{:?}", o.notes);
        assert!(o.notes.iter().any(|n| n.contains("1 rounds read a latency below zero")), "{:?}", o.notes);
        assert!(o.notes.iter().any(|n| n.contains("DEFER") || n.contains("default flags")), "{:?}", o.notes);
        assert_eq!(o.extra["negative_latencies"], 1.0);
    }
}
