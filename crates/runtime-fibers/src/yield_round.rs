//! The yield round on the project's fibers (Ben-Asher & Feitelson 1991 §5.1, Fig. 3), all on one kernel thread: the measuring
//! fiber and the loading ones through the FIFO ready queue, as the first fiber of a fiber run.

use std::cell::Cell;
use std::rc::Rc;

use super::{FiberRuntime, ONE_THREAD};
use crate as fiber;
use overhead_harness::empty_loop;
use overhead_harness::{Harness, Measurement};
use overhead_record::Outcome;
use overhead_runtime_api::primitives::Context;
use overhead_runtime_api::yield_round::YieldRound;

impl YieldRound for FiberRuntime {
    /// `load` yielding fibers beside the measuring one, all on this thread, through the FIFO ready queue.
    fn yield_round(&self, cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome> {
        anyhow::ensure!(cpus.len() == 1, "{}: {ONE_THREAD}; got CPUs {cpus:?}", self.name_str());
        Ok(self.in_context(h, Box::new(move |h| rounds(load, h)))?.into())
    }
}

/// The yield round among `load` loading fibers.
fn rounds(load: usize, h: &Harness) -> Measurement {
    let stop = Rc::new(Cell::new(false));
    let loaders: Vec<_> = (0..load)
        .map(|_| {
            let stop = stop.clone();
            fiber::spawn(move || {
                while !stop.get() {
                    fiber::yield_now();
                }
            })
        })
        .collect();
    let m = h.measure(
        |n| {
            for _ in 0..n {
                fiber::yield_now();
            }
        },
        empty_loop,
    );
    stop.set(true);
    for l in loaders {
        let _ = l.join();
    }
    m
}
