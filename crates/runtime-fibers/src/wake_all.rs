//! Wake-all on the project's fibers (Ben-Asher & Feitelson 1991 §5), all on one kernel thread: N V's on a semaphore N fibers
//! are blocked in P on, as the first fiber of a fiber run.

use std::cell::Cell;
use std::rc::Rc;

use super::FiberRuntime;
use crate as fiber;
use overhead_harness::empty_loop;
use overhead_harness::{Harness, Measurement};
use overhead_record::Outcome;
use overhead_runtime_api::offer::not_offered;
use overhead_runtime_api::primitives::Context;
use overhead_runtime_api::wake_all::{WakeAll, WakeMechanism};

impl WakeAll for FiberRuntime {
    /// `semaphore`: N V's on a semaphore N fibers are blocked in P on, then the waker blocks until the
    /// last has run; all on one CPU, so no settle time is needed.
    fn wake_all(
        &self,
        mechanism: WakeMechanism,
        waiters: usize,
        _cpus: &[usize],
        _settle_ticks: u64,
        h: &Harness,
    ) -> anyhow::Result<Outcome> {
        use WakeMechanism as M;
        match mechanism {
            M::Semaphore => {}
            other @ (M::Futex | M::Condvar | M::Notify) => {
                return Err(not_offered(self.name_str(), "mechanism", other))
            }
        }
        Ok(self.in_context(h, Box::new(move |h| semaphore_broadcast(waiters, h)))?.into())
    }
}

/// N fibers blocked in P on one semaphore; the waker V's N times and blocks on a second semaphore that
/// the last waiter to run V's.
pub(super) fn semaphore_broadcast(waiters: usize, h: &Harness) -> Measurement {
    let wake = fiber::Semaphore::new(0);
    let done = fiber::Semaphore::new(0);
    let arrived = Rc::new(Cell::new(0usize));
    let stop = Rc::new(Cell::new(false));
    let handles: Vec<_> = (0..waiters)
        .map(|_| {
            let (wake, done, arrived, stop) = (wake.clone(), done.clone(), arrived.clone(), stop.clone());
            fiber::spawn(move || loop {
                wake.p();
                if stop.get() {
                    break;
                }
                arrived.set(arrived.get() + 1);
                if arrived.get() == waiters {
                    arrived.set(0);
                    done.v();
                }
            })
        })
        .collect();
    let m = h.measure(
        |ops| {
            for _ in 0..ops {
                for _ in 0..waiters {
                    wake.v();
                }
                done.p();
            }
        },
        empty_loop,
    );
    stop.set(true);
    for _ in 0..waiters {
        wake.v();
    }
    for handle in handles {
        let _ = handle.join();
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every episode wakes all waiters: the waker would hang on `done` otherwise.
    #[test]
    fn semaphore_broadcast_wakes_all_waiters() {
        let h = overhead_harness::testing::quick_harness();
        let m = fiber::run(fiber::Backend::Corosensei, move || semaphore_broadcast(3, &h));
        assert!(m.samples_ns.iter().all(|s| s.is_finite()));
    }
}
