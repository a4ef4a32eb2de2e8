//! Fork-join fan-out as OpenMP constructs (Ben-Asher & Feitelson 1991 §6–7): C kernels of a pinned libgomp team, timed
//! against controls of the same shape (docs/ARCHITECTURE.md "Runtimes under test", and this module's
//! table of kernels).

use super::{OmpTally, OpenMp, Team};
use overhead_harness::Harness;
use overhead_record::Outcome;
use overhead_runtime_api::fan_out::{measure_warm, FanOut, ForkJoinMechanism};
use overhead_runtime_api::grain_sweep::{GrainSweep, Granularity, Remarks, Sweep};
use overhead_runtime_api::offer::not_offered;

impl FanOut for OpenMp {
    /// `parallel`: an empty `#pragma omp parallel` region of a pinned team ([`Team::forkjoin`]), against
    /// the same C loop without the region ([`Team::empty_loop`]): EPCC syncbench PARALLEL, the region's
    /// fork (waking the pool) and join (its end barrier).
    fn fork_join(&self, mechanism: ForkJoinMechanism, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        use ForkJoinMechanism as M;
        match mechanism {
            M::Parallel => {}
            other @ (M::Spawn | M::HotTeam | M::Broadcast | M::Scope | M::Pool) => {
                return Err(not_offered("openmp", "mechanism", other))
            }
        }
        // Made here, on the probe thread pinned to cpus[0]: it is the team's master (thread 0).
        let team = Team::pinned(cpus)?;
        let m = measure_warm(h, |n| team.forkjoin(n), |n| team.empty_loop(n));
        let mut outcome = Outcome::from(m);
        outcome.notes = team.notes();
        Ok(outcome)
    }

    /// One `#pragma omp parallel` region in which one thread (`single`) creates `tasks` empty
    /// `#pragma omp task`s, joined at the end of `single` ([`Team::bulk`]). Its control is the same region
    /// and `single` looping `tasks` times without creating a task ([`Team::single_loop`]), so the region's
    /// fork-join and the `single` cancel; what remains per spawn is creating and queueing one task,
    /// running it (by any thread, at the barrier, or by its creator once libgomp's queue is full), and
    /// the barrier's wait for the last task, less one empty iteration. The control per construct is in
    /// `extra` as `control_construct_ns` (the other runtimes' control is empty). The task body is C's
    /// empty task: a Rust closure cannot cross into the kernel.
    fn bulk(&self, cpus: &[usize], tasks: u64, h: &Harness) -> anyhow::Result<Outcome> {
        let team = Team::pinned(cpus)?;
        let m = measure_warm(
            h,
            |n| (0..n).for_each(|_| team.bulk(tasks)),
            |n| (0..n).for_each(|_| team.single_loop(tasks)),
        );
        let control_construct_ns = m.control_summary().map_or(f64::NAN, |s| s.median);
        let mut outcome = Outcome::from(m);
        outcome.notes = team.notes();
        if cpus.len() == 1 {
            outcome.notes.push(
                "a team of one thread runs each task at once in its creator (libgomp: undeferred), so per spawn is \
                 one task run inline through the task machinery, never queued"
                    .into(),
            );
        }
        outcome.extra.insert("control_construct_ns".into(), control_construct_ns);
        Ok(outcome)
    }

    /// The closest form ([`Team::remote`]): one region of a pinned team of `generators + 1` threads,
    /// thread 0 (the executor, the timing thread) creating no task and waiting at a barrier, where it runs
    /// queued tasks, while threads 1… create the batch's empty tasks between them without waiting for
    /// each (OpenMP has no per-task join from another thread). OpenMP cannot direct a task at one thread,
    /// so generators run tasks too; `extra.executor_share_pct` says which share of all the test batches'
    /// tasks thread 0 ran. Per op: one task, against the same region with the generators' loops empty
    /// ([`Team::remote_control`]); no `round_trip_ns`.
    fn remote(&self, executor: usize, generators: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        let cpus: Vec<usize> = std::iter::once(executor).chain(generators.iter().copied()).collect();
        // Made on the probe thread, pinned to the executor CPU: it is the team's master, thread 0.
        let team = Team::pinned(&cpus)?;
        // Tasks run per thread over every test batch (sizing and warm-up included), summed untimed after each.
        let mut ran = vec![0u64; team.threads()];
        team.remote(1);
        let m = h.measure_with_reset(
            |n| team.remote(n),
            |n| team.remote_control(n),
            |_| ran.iter_mut().zip(team.tasks_per_thread()).for_each(|(sum, c)| *sum += c),
        );
        let share = executor_share_pct(&ran);
        let mut outcome = Outcome::from(m);
        outcome.notes = team.notes();
        outcome.notes.push(format!(
            "OpenMP cannot direct a task at one thread: the executor (thread 0, CPU {executor}) ran {share:.1}% of the \
             tasks, the generators the rest (at the barrier, or at once when libgomp's queue was full)"
        ));
        outcome.extra.insert("generators".into(), generators.len() as f64);
        outcome.extra.insert("executor_share_pct".into(), share);
        Ok(outcome)
    }
}

impl GrainSweep for OpenMp {
    /// One run is one call of the C kernel [`Team::grain`]: `work_reads` reads of a shared `volatile int`
    /// split into `tasks` `omp task`s (the remainder spread one read each over the first tasks, where the
    /// Rust runtimes drop it: at most `tasks − 1` reads), created by thread 0 inside `single` and run by
    /// the team; each thread counts its tasks ([`OmpTally`]). Beside the sweep, `extra.serial_reads_ns`:
    /// the same reads in a plain C loop without OpenMP (fastest of `baseline_runs`).
    fn granularity(&self, run: &Granularity<'_>, h: &Harness, sweep: &mut Sweep<'_>) -> anyhow::Result<Remarks> {
        // Made on the probe thread, pinned to cpus[0]: it is the team's master, thread 0, which spawns.
        let team = Team::pinned(run.cpus)?;
        let tally = OmpTally::new(&team);
        sweep(&tally, &mut |tasks| team.grain(run.work_reads, tasks));
        let serial = h.measure_runs(|_| team.serial_reads(run.work_reads), |_| {}, 1, run.baseline_runs);
        let serial_reads_ns = serial.summary().map_or(f64::NAN, |s| s.min);
        let mut notes = team.notes();
        notes.push(format!(
            "the reads are C's (one volatile int load each; the whole work in a plain C loop: {:.3} ms), not the Rust \
             runtimes' reads: compare speed-ups and best counts across runtimes, not elapsed times",
            serial_reads_ns / 1e6
        ));
        Ok(Remarks { notes, extra: [("serial_reads_ns".to_string(), serial_reads_ns)].into() })
    }
}

/// Thread 0's share of the tasks counted per thread (thread 0 first), in percent; NaN when none ran.
pub fn executor_share_pct(per_thread: &[u64]) -> f64 {
    let total: u64 = per_thread.iter().sum();
    match (per_thread.first(), total) {
        (Some(&first), 1..) => 100.0 * first as f64 / total as f64,
        _ => f64::NAN,
    }
}
