//! `sched.switch`: a futex handoff round trip between two kernel threads.

use crate::experiments::context::{runtime_of, tokio_measure, unimplemented_runtime};
use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::machine::pin_current_thread;
use crate::record::{Metric, PointSpec};
use crate::runtimes::os::futex::Handoff;
use crate::runtimes::Capability;
use crate::runtimes::{fiber, tokio_rt, Runtime};

/// Seed 004's `csloop`: a switch round trip, per runtime. `os`: two threads pass control back and forth
/// through one futex word, each round trip two wake-ups and, on the same CPU, two context switches
/// (`perf bench sched pipe` with futexes instead of pipes), same CPU and other CPUs. `fiber-*`: the
/// back-end's raw switch to a partner context and back, no scheduler. `tokio`: a yield that runs one
/// other task and comes back. Against the empty loop.
pub struct Switch;

impl Experiment for Switch {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sched.switch",
            summary: "switch round trip: futex handoff between threads (same/other CPU), raw fiber switch, tokio yield",
            source: "seed 001 §5 (context-switch overhead); seed 004 csloop; perf bench sched",
            metric: Metric::Rtt,
            requires: &[Capability::RawSwitch],
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        let on_one_thread = |mechanism: &str| ctx.same_cpu_pair(self.id(), runtime, &[("mechanism", mechanism.into())]);
        match Runtime::parse(runtime) {
            Some(Runtime::Fiber(_)) => on_one_thread("raw_switch"),
            Some(Runtime::Tokio) => on_one_thread("yield"),
            _ => ctx.pair_points(self.id(), runtime, &[("mechanism", "futex".into())]),
        }
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        match runtime_of(&spec.runtime)? {
            Runtime::Os => futex_handoff(spec, h),
            Runtime::Fiber(backend) => {
                backend.available().map_err(anyhow::Error::msg)?;
                let mut pair = fiber::SwitchPair::new(backend)?;
                Ok(h.measure(|n| pair.round_trips(n), empty_loop).into())
            }
            Runtime::Tokio => tokio_yield(h),
            Runtime::Rayon | Runtime::OpenMp => Err(unimplemented_runtime(spec)),
        }
    }
}

/// Two tokio tasks on the current-thread scheduler: the timed task yields, the partner (which only
/// yields) runs once, and control comes back: one round trip through tokio's run queue.
fn tokio_yield(h: &Harness) -> anyhow::Result<Outcome> {
    let rt = tokio_rt::current_thread()?;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let partner_stop = stop.clone();
    let partner = rt.spawn(async move {
        while !partner_stop.load(std::sync::atomic::Ordering::Relaxed) {
            ::tokio::task::yield_now().await;
        }
    });
    let m = tokio_measure(h, &rt, |n| async move {
        for _ in 0..n {
            ::tokio::task::yield_now().await;
        }
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    rt.block_on(partner)?;
    Ok(m.into())
}

/// Kernel threads: the futex handoff between the home CPU and the partner CPU.
fn futex_handoff(spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
    let partner = spec.cpus[1];
    let handoff = Handoff::new();
    let mut notes = Vec::new();
    let measurement = std::thread::scope(|s| {
        let responder = s.spawn(|| {
            let pinned =
                pin_current_thread(partner).err().map(|e| format!("responder not pinned to CPU {partner}: {e}"));
            handoff.respond();
            pinned
        });
        let m = h.measure(
            |n| {
                for _ in 0..n {
                    handoff.round_trip();
                }
            },
            empty_loop,
        );
        handoff.stop();
        notes.extend(responder.join().expect("responder thread panicked"));
        m
    });
    Ok(Outcome { measurement, notes, extra: Default::default(), details: Default::default() })
}
