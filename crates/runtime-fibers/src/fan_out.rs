//! Fork-join fan-out on the project's fibers (Ben-Asher & Feitelson 1991 §6), all on one kernel thread: spawn + join of
//! fibers. Every measurement runs as the first fiber of a fiber run with the runtime's back-end.

use std::hint::black_box;

use super::{FiberRuntime, ONE_THREAD};
use crate as fiber;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_record::Outcome;
use overhead_runtime_api::fan_out::{measure_warm, FanOut, ForkJoinMechanism};
use overhead_runtime_api::offer::not_offered;
use overhead_runtime_api::primitives::Context;

/// `n` spawns of `f` (queued, not yet run), then a join of each (the first join runs them all).
/// `handles` is cleared and refilled; give it the capacity for `n` beforehand so the loop does not
/// reallocate.
///
/// Panics if a fiber panicked.
pub fn spawn_all<F: Fn() + Copy + 'static>(n: u64, f: F, handles: &mut Vec<fiber::JoinHandle<()>>) {
    handles.clear();
    for _ in 0..n {
        handles.push(fiber::spawn(f));
    }
    for handle in handles.drain(..) {
        handle.join().expect("a spawned fiber panicked");
    }
}

/// An empty fiber body.
fn empty() {
    black_box(());
}

impl FanOut for FiberRuntime {
    /// `spawn`: spawn + join of one fiber (fibers run on one CPU, so the plan gives one).
    fn fork_join(&self, mechanism: ForkJoinMechanism, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        use ForkJoinMechanism as M;
        match mechanism {
            M::Spawn => {}
            other @ (M::HotTeam | M::Broadcast | M::Scope | M::Parallel | M::Pool) => {
                return Err(not_offered(self.name_str(), "mechanism", other))
            }
        }
        self.bulk_in_context(cpus.len() as u64, h, true)
    }

    /// `tasks` fiber spawns, then the joins; the control is a batch without constructs.
    fn bulk(&self, _cpus: &[usize], tasks: u64, h: &Harness) -> anyhow::Result<Outcome> {
        self.bulk_in_context(tasks, h, false)
    }

    fn remote(&self, _executor: usize, _generators: &[usize], _h: &Harness) -> anyhow::Result<Outcome> {
        anyhow::bail!(
            "{}: {ONE_THREAD}; spawn.remote needs an executor and generators on CPUs of their own",
            self.name_str()
        )
    }
}

impl FiberRuntime {
    /// Constructs of `tasks` fibers (spawn all, join all) in a fiber run; against the empty loop
    /// (`spawn.forkjoin`) or an empty batch (`spawn.bulk`).
    fn bulk_in_context(&self, tasks: u64, h: &Harness, empty_loop_control: bool) -> anyhow::Result<Outcome> {
        let m = self.in_context(
            h,
            Box::new(move |h| {
                let mut handles = Vec::with_capacity(tasks as usize);
                let test = |n: u64| (0..n).for_each(|_| spawn_all(tasks, empty, &mut handles));
                if empty_loop_control {
                    measure_warm(h, test, empty_loop)
                } else {
                    measure_warm(h, test, |_| {})
                }
            }),
        )?;
        Ok(Outcome::from(m))
    }
}
