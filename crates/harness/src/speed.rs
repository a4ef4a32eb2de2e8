//! The machine's speed around a point: one fixed reference loop, timed just before and just after each
//! point's measurement, so that a report can tell which points ran while the CPU was slower than usual.
//!
//! Why: on a shared machine (a VM whose SMT sibling another tenant uses, a host that changes frequency) a
//! tight loop can run at half speed for seconds at a time. A point's own CI cannot show that, because all its
//! batches ran in the same state; two cells measured minutes apart can then differ by up to 2× for no reason
//! of their own (seen on a 2-vCPU AMD EPYC guest: the empty loop took 0.27 ns per iteration in some points
//! and 0.52 ns in others of one run). pyperf and nanobench warn about unstable machines in the same spirit;
//! here the probe is cheap enough (about 1 ms) to run around every process. Nothing waits for the fast state
//! or measures again: rounds of processes spread a slow minute over different points (docs/METHOD.md), and
//! the fastest iteration seen is the run's estimate of one cycle (`analysis::cycle_floor_ns`).

use super::Harness;
use overhead_clock::Ticks;

/// Iterations per timed batch of the reference loop: ~30 µs at 0.3 ns, far above the clock's resolution.
const ITERATIONS: u64 = 100_000;

/// Timed batches per probe; the median is kept, so one preempted batch does not count.
const BATCHES: usize = 5;

pub use overhead_schema::speed::{every_probe, point_reference_ns, AFTER, BEFORE, SLOW_FACTOR};

/// The reference loop: `n` iterations that only keep their index alive, the same body as the control most
/// points subtract (`experiments::empty_loop`). Never inlined, so every probe in every build times the very same
/// machine code, and its speed depends only on the machine's state.
#[inline(never)]
fn reference_loop(n: u64) {
    for i in 0..n {
        std::hint::black_box(i);
    }
}

/// Times the reference loop on the calling thread: the median over [`BATCHES`] batches of ns per iteration.
pub fn reference_loop_ns<C: Ticks>(h: &Harness<C>) -> f64 {
    reference_loop(ITERATIONS / 10); // warm the code and the branch predictor
    let mut per_iteration: Vec<f64> = (0..BATCHES)
        .map(|_| {
            let t0 = h.clock.start();
            reference_loop(ITERATIONS);
            let t1 = h.clock.stop();
            h.clock.ticks_to_ns(t1.wrapping_sub(t0) as f64) / ITERATIONS as f64
        })
        .collect();
    per_iteration.sort_by(f64::total_cmp);
    per_iteration[BATCHES / 2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{quick_harness, scripted_config, scripted_harness, ScriptedClock};

    #[test]
    fn a_point_counts_its_slower_probe() {
        let extra = [(BEFORE.to_string(), 0.27), (AFTER.to_string(), 0.5)].into();
        assert_eq!(point_reference_ns(&extra), Some(0.5));
        assert_eq!(point_reference_ns(&Default::default()), None);
    }

    #[test]
    fn the_reference_loop_costs_a_positive_fraction_of_a_microsecond_per_iteration() {
        let ns = reference_loop_ns(&quick_harness());
        // An iteration is a few cycles; even a debug build on a loaded VM stays far below 1 µs.
        assert!(ns > 0.0 && ns < 1_000.0, "{ns} ns per iteration");
    }

    /// The probe reports a batch's time per iteration, in ns: on a clock where only a read costs time
    /// (50 000 ticks at 1 GHz), that is 50 µs over 100 000 iterations.
    #[test]
    fn the_probe_divides_a_batch_by_its_iterations() {
        let clock = ScriptedClock::new(1e9).with_read_ticks(50_000);
        let h = scripted_harness(clock, scripted_config(&clock, 1.0, 0, 1));
        assert_eq!(reference_loop_ns(&h), 0.5);
    }
}
