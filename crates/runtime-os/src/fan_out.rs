//! Fork-join fan-out on kernel threads (Ben-Asher & Feitelson 1991 §6–7): a thread per task in one scope, a hot team, and
//! ParC's spawn descriptor for the granularity sweep.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use anyhow::Context as _;

use super::hot_team::{with_hot_team, HotTeam};
use super::Os;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_machine::pin_current_thread;
use overhead_record::Outcome;
use overhead_runtime_api::fan_out::{measure_team_warm, measure_warm, per_executor_spawn, FanOut, ForkJoinMechanism};
use overhead_runtime_api::grain_sweep::{GrainSweep, Granularity, Remarks, Sweep};
use overhead_runtime_api::grain_work::{reads_per_task, Work};
use overhead_runtime_api::offer::not_offered;

/// `n` kernel threads in one `std::thread::scope`; thread `i` first pins itself to `cpus[i % cpus.len()]`
/// (a new thread inherits its creator's one-CPU mask, so without this every task would run on the
/// creator's CPU), then runs `f`. A refused pinning is counted in `refused` (the thread runs unpinned).
/// Returns when all have been joined.
///
/// Panics (inside std) if a thread cannot be created; check once with [`pinning_notes`] first.
pub fn threads<F: Fn() + Sync>(cpus: &[usize], n: u64, refused: &AtomicUsize, f: &F) {
    std::thread::scope(|s| {
        for i in 0..n {
            let cpu = cpus[(i % cpus.len() as u64) as usize];
            s.spawn(move || {
                if pin_current_thread(cpu).is_err() {
                    refused.fetch_add(1, Ordering::Relaxed);
                }
                f();
            });
        }
    });
}

/// One untimed round of [`threads`]'s pinning: a note for every CPU of `cpus` that a new thread could
/// not pin itself to.
///
/// Errors: a thread could not be created.
pub fn pinning_notes(cpus: &[usize]) -> anyhow::Result<Vec<String>> {
    let mut notes = Vec::new();
    for &cpu in cpus {
        let pinned = std::thread::Builder::new().spawn(move || pin_current_thread(cpu).map_err(|e| e.to_string()))?;
        if let Ok(Err(e)) = pinned.join() {
            notes.push(format!("a spawned thread could not pin itself to CPU {cpu}: {e}"));
        }
    }
    Ok(notes)
}

/// Notes for the members of a hot team whose pinning was refused.
fn team_notes(refused: &[(usize, String)]) -> impl Iterator<Item = String> + '_ {
    refused.iter().map(|(cpu, e)| format!("team thread for CPU {cpu} not pinned: {e}"))
}

/// Ben-Asher & Feitelson 1991 §7's spawn descriptor for kernel threads: a pinned hot team whose members claim the next
/// activity with one fetch-and-add on a shared counter until all are taken, as ParC's processors each
/// take "a new activity once every scheduling round" from the descriptor in global memory.
#[derive(Default)]
pub struct Descriptor {
    next: AtomicU64,
    tasks: AtomicU64,
    reads: AtomicU64,
}

impl Descriptor {
    /// A member's part of one run: claim and run tasks until none is left.
    #[inline]
    pub fn claim_and_run(&self, work: &Work) {
        let tasks = self.tasks.load(Ordering::Relaxed);
        let reads = self.reads.load(Ordering::Relaxed);
        while self.next.fetch_add(1, Ordering::Relaxed) < tasks {
            work.task(reads);
        }
    }

    /// Posts a run of `tasks` tasks over `work_reads` reads; the team's fork barrier publishes it.
    #[inline]
    pub fn post(&self, work_reads: u64, tasks: u64) {
        self.tasks.store(tasks, Ordering::Relaxed);
        self.reads.store(reads_per_task(work_reads, tasks), Ordering::Relaxed);
        self.next.store(0, Ordering::Relaxed);
    }

    /// One run on a hot team whose job is [`Descriptor::claim_and_run`] on this descriptor.
    pub fn run<J: Fn(usize) + Sync>(&self, team: &mut HotTeam<'_, J>, work_reads: u64, tasks: u64) {
        self.post(work_reads, tasks);
        team.region();
    }
}

impl FanOut for Os {
    /// `spawn`: a scope of one pinned kernel thread per CPU, joined; `hot_team`: threads created once and
    /// pinned, woken per episode through a spin barrier, the caller member 0 (an OpenMP hot team with
    /// active waiting; EPCC syncbench PARALLEL).
    fn fork_join(&self, mechanism: ForkJoinMechanism, cpus: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        let empty = || {
            black_box(());
        };
        use ForkJoinMechanism as M;
        match mechanism {
            M::Spawn => {
                let notes = pinning_notes(cpus)?;
                let refused = AtomicUsize::new(0);
                let tasks = cpus.len() as u64;
                let m = measure_warm(h, |n| (0..n).for_each(|_| threads(cpus, tasks, &refused, &empty)), empty_loop);
                let mut outcome = Outcome::from(m);
                outcome.notes = notes;
                Ok(outcome)
            }
            M::HotTeam => {
                let (m, refused) = with_hot_team(
                    cpus,
                    |_| empty(),
                    |team| measure_warm(h, |n| (0..n).for_each(|_| team.region()), empty_loop),
                );
                let mut outcome = Outcome::from(m);
                outcome.notes.extend(team_notes(&refused));
                Ok(outcome)
            }
            other @ (M::Broadcast | M::Scope | M::Parallel | M::Pool) => Err(not_offered("os", "mechanism", other)),
        }
    }

    /// `tasks` kernel threads in one scope, thread `i` pinned to CPU `i mod CPUs`; the control is a batch
    /// without constructs.
    fn bulk(&self, cpus: &[usize], tasks: u64, h: &Harness) -> anyhow::Result<Outcome> {
        let notes = pinning_notes(cpus)?;
        let refused = AtomicUsize::new(0);
        let empty = || {
            black_box(());
        };
        let m = measure_warm(h, |n| (0..n).for_each(|_| threads(cpus, tasks, &refused, &empty)), |_| {});
        let mut outcome = Outcome::from(m);
        outcome.notes = notes;
        Ok(outcome)
    }

    /// A queue to a pinned executor thread would be a message, not a spawn. Instead each generator creates
    /// a kernel thread that moves itself to the executor CPU (`sched_setaffinity`) and ends, and joins it:
    /// creation runs on the generator's CPU, so kernel threads need not bottleneck on the executor the way
    /// a shared descriptor list does.
    fn remote(&self, executor: usize, generators: &[usize], h: &Harness) -> anyhow::Result<Outcome> {
        let mut notes = Vec::new();
        let probe = std::thread::Builder::new().spawn(move || pin_current_thread(executor));
        if let Err(e) = probe.context("creating a thread")?.join().unwrap_or(Ok(())) {
            notes.push(format!("a new thread could not move itself to CPU {executor}: {e}"));
        }
        let report = measure_team_warm(h, generators, |_, n| {
            for _ in 0..n {
                let task = std::thread::spawn(move || {
                    let _ = pin_current_thread(executor);
                });
                black_box(task.join().ok());
            }
        });
        Ok(per_executor_spawn(report, generators.len(), notes))
    }
}

impl GrainSweep for Os {
    /// A pinned hot team claiming tasks from a shared [`Descriptor`] by fetch-and-add (ParC's own
    /// mechanism; a kernel thread per task would stop the sweep at 10^4).
    fn granularity(&self, run: &Granularity<'_>, _h: &Harness, sweep: &mut Sweep<'_>) -> anyhow::Result<Remarks> {
        let desc = Descriptor::default();
        let work = run.work;
        let ((), refused) = with_hot_team(
            run.cpus,
            |_| desc.claim_and_run(work),
            |team| sweep(work, &mut |tasks| desc.run(team, run.work_reads, tasks)),
        );
        Ok(Remarks { notes: team_notes(&refused).collect(), ..Remarks::default() })
    }
}
