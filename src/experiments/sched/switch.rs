//! `sched.switch`: a futex handoff round trip between two kernel threads.

use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned};
use crate::harness::Harness;
use crate::machine::pin_current_thread;
use crate::record::{Metric, PointSpec};
use crate::runtimes::os::futex::Handoff;

/// Two threads pass control back and forth through one futex word; each round trip is two wake-ups
/// and, on the same CPU, two context switches (the kernel analogue of seed 004's `csloop`; `perf bench
/// sched pipe` with futexes instead of pipes). Against the empty loop.
pub struct Switch;

impl Experiment for Switch {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "sched.switch",
            summary: "futex handoff round trip between two threads, same CPU and other CPU",
            source: "seed 001 §5 (context-switch overhead); seed 004 csloop; perf bench sched",
            metric: Metric::Rtt,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &str) -> Vec<Planned> {
        ctx.pair_points(self.id(), runtime, &[("mechanism", "futex".into())])
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
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
        Ok(Outcome { measurement, notes, extra: Default::default() })
    }
}
