//! What the pairwise experiments (`clock.offset`, `clock.rate`, `mem.c2c`) share: one point for the whole
//! machine, every pair of its CPUs taken in turn with the others idle (Ben-Asher & Feitelson 1991 §2: "check all pairs of processors against each
//! other … with no interference from any other processor"), and a time budget that shrinks the work
//! per pair as the pairs grow, so that a machine with hundreds of CPUs still finishes inside the
//! point's time limit.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::{PlanContext, Planned};
use overhead_harness::{HarnessConfig, Mode, SpinBarrier};
use overhead_machine::pin_current_thread;
use overhead_runtime_api::RuntimeUnderTest;

/// The one point of a pairwise experiment: the CPUs of [`PlanContext::pairwise_cpus`] (every usable CPU in
/// `--full`, one per pair class otherwise), no parameters, no placement (the pairs have all placements). With
/// one usable CPU there is no pair, and the point is skipped saying so.
pub fn whole_machine(ctx: &PlanContext, experiment: &str, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
    let mut spec = ctx.spec(experiment, runtime, &[], ctx.pairwise_cpus());
    spec.placement = None;
    if spec.cpus.len() < 2 {
        let only = ctx.cpus.first().map_or("none".to_string(), usize::to_string);
        return vec![Planned::Skip(spec, format!("needs two usable CPUs to pair; this run may use only CPU {only}"))];
    }
    vec![Planned::Run(spec)]
}

/// Matrix labels: the logical CPU numbers, as the kernel names them.
pub fn cpu_labels(cpus: &[usize]) -> Vec<String> {
    cpus.iter().map(usize::to_string).collect()
}

/// Every unordered pair of indices `(i, j)` with `i < j < n`, row by row: n (n − 1) / 2 pairs.
pub fn index_pairs(n: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect()
}

/// The measuring effort of one pairwise point in this mode (ns): quick 1.5 ms, default 5 ms, full 9 ms.
/// The pairwise budgets are multiples of it, so `--quick` and `--full` scale them. It follows the mode,
/// not the per-process batch settings: a pairwise point runs in one process per round like any other, but
/// its pairs, not its batches, are what more effort buys.
pub fn effort_ns(config: &HarnessConfig) -> f64 {
    match config.mode {
        Mode::Quick => 1.5e6,
        Mode::Default => 5e6,
        Mode::Full => 9e6,
    }
}

/// An amount per pair: `budget` shared among `pairs`, kept within `[min, max]`. Above `budget / min`
/// pairs the total grows past the budget, which [`deadline`] then bounds.
pub fn per_pair(budget: f64, pairs: usize, min: f64, max: f64) -> f64 {
    (budget / pairs.max(1) as f64).clamp(min, max)
}

/// When a pairwise point stops starting new pairs: 200 × [`effort_ns`], within 60 s … 200 s (quick
/// 60 s, default ≈ 62 s, full 200 s), well inside the orchestrator's 120 s and 300 s point limits. The
/// budgets fit a 256-CPU machine inside it even in quick mode, whose windows are already at their
/// floor there; beyond, cells of pairs not reached stay empty and a note says how many were measured.
pub fn deadline(config: &HarnessConfig) -> Duration {
    Duration::from_secs_f64((200.0 * effort_ns(config) / 1e9).clamp(60.0, 200.0))
}

/// Runs `a` on a thread pinned to `cpus.0` and `b` on one pinned to `cpus.1`, started together after
/// both are pinned. When either pinning is refused neither closure runs (their results would mix two
/// CPUs) and the errors come back instead.
pub fn on_pair<A, B, RA, RB>(cpus: (usize, usize), a: A, b: B) -> Result<(RA, RB), String>
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let ready = SpinBarrier::new(2);
    let refused = AtomicBool::new(false);
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| side(cpus.0, &ready, &refused, a));
        let hb = s.spawn(|| side(cpus.1, &ready, &refused, b));
        (ha.join().expect("pair thread panicked"), hb.join().expect("pair thread panicked"))
    });
    match (ra, rb) {
        (Ok(Some(ra)), Ok(Some(rb))) => Ok((ra, rb)),
        (ra, rb) => Err([ra.err(), rb.err()].into_iter().flatten().collect::<Vec<_>>().join("; ")),
    }
}

/// One side of [`on_pair`]: pin, meet the other side, then run `body` only if neither pinning was
/// refused (`Ok(None)`: this side was pinned but the other was not).
fn side<R>(
    cpu: usize,
    ready: &SpinBarrier,
    refused: &AtomicBool,
    body: impl FnOnce() -> R,
) -> Result<Option<R>, String> {
    let pinned = pin_current_thread(cpu);
    if pinned.is_err() {
        refused.store(true, Ordering::SeqCst);
    }
    ready.wait(&mut false);
    match pinned {
        Err(e) => Err(format!("CPU {cpu} not pinned: {e}")),
        Ok(()) if refused.load(Ordering::SeqCst) => Ok(None),
        Ok(()) => Ok(Some(body())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_harness::Mode;
    use overhead_machine::{allowed_cpus, Topology};

    #[test]
    fn one_cpu_gives_a_skipped_point_with_the_reason() {
        let ctx = PlanContext { cpus: vec![3], topology: Topology::detect(), mode: Mode::Quick, hosts: Vec::new() };
        let planned = whole_machine(&ctx, "clock.offset", &overhead_runtime_os::Os);
        let [Planned::Skip(spec, reason)] = planned.as_slice() else { panic!("{planned:?}") };
        assert_eq!(spec.cpus, [3]);
        assert!(reason.contains("two usable CPUs") && reason.contains("CPU 3"), "{reason}");
    }

    #[test]
    fn several_cpus_give_one_point_for_all_of_them_in_full_and_one_per_class_otherwise() {
        let mut ctx =
            PlanContext { cpus: vec![0, 2, 5], topology: Topology::detect(), mode: Mode::Full, hosts: Vec::new() };
        let planned = whole_machine(&ctx, "clock.rate", &overhead_runtime_os::Os);
        let [Planned::Run(spec)] = planned.as_slice() else { panic!("{planned:?}") };
        assert_eq!(spec.cpus, [0, 2, 5]);
        assert_eq!(spec.name(), "clock.rate/runtime:os");
        assert_eq!(spec.placement, None);
        // One package of 2 L3s of 2 cores of 2 threads: SMT sibling 1, same L3 2, other L3 4.
        ctx.topology = overhead_machine::testing::simulated(1, 1, 2, 2, 2);
        (ctx.cpus, ctx.mode) = ((0..8).collect(), Mode::Quick);
        let planned = whole_machine(&ctx, "clock.offset", &overhead_runtime_os::Os);
        let [Planned::Run(spec)] = planned.as_slice() else { panic!("{planned:?}") };
        assert_eq!(spec.cpus, [0, 1, 2, 4]);
    }

    #[test]
    fn pairs_and_budget_shares() {
        assert_eq!(index_pairs(3), [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(index_pairs(256).len(), 256 * 255 / 2);
        assert!(index_pairs(1).is_empty());
        assert_eq!(per_pair(1000.0, 4, 10.0, 100.0), 100.0, "few pairs: capped");
        assert_eq!(per_pair(1000.0, 40, 10.0, 100.0), 25.0);
        assert_eq!(per_pair(1000.0, 400, 10.0, 100.0), 10.0, "many pairs: the floor");
        let quick = HarnessConfig::for_mode(Mode::Quick);
        let full = HarnessConfig::for_mode(Mode::Full);
        let default = HarnessConfig::for_mode(Mode::Default);
        assert!(deadline(&quick) < Duration::from_secs(120) && deadline(&default) < Duration::from_secs(120));
        assert!(deadline(&full) < Duration::from_secs(300));
        assert!(effort_ns(&quick) < effort_ns(&full));
    }

    #[test]
    fn a_pair_runs_both_sides_pinned_or_neither() {
        let cpu = allowed_cpus()[0];
        // SAFETY: sched_getcpu takes no arguments and only reads which CPU the caller runs on.
        let here = || unsafe { libc::sched_getcpu() } as usize;
        let (a, b) = on_pair((cpu, cpu), here, here).unwrap();
        assert_eq!((a, b), (cpu, cpu));
        let ran = AtomicBool::new(false);
        let err = on_pair((cpu, overhead_machine::MAX_CPU_INDEX + 1), || ran.store(true, Ordering::SeqCst), || ())
            .unwrap_err();
        assert!(err.contains("not pinned"), "{err}");
        assert!(!ran.load(Ordering::SeqCst), "a side ran although its partner was not pinned");
    }
}
