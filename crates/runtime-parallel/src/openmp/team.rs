//! One persistent, pinned OpenMP team and its kernels.

use std::ffi::{c_int, c_void};
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::ffi::{self, Slot};
use super::{available, settings, Error};
use overhead_machine::pin_current_thread;
use overhead_runtime_api::contention::Variable;

/// A new team's warm-up (see `Team::warm_up`) ends after this many fast empty regions in a row…
const WARM_UP_STREAK: u32 = 32;
/// …a region being fast when it takes less than this (a fork-join costs microseconds, a wait for a time
/// slice milliseconds)…
const WARM_UP_FAST: Duration = Duration::from_micros(100);
/// …or after this long in any case.
const WARM_UP_LIMIT: Duration = Duration::from_millis(200);

/// A team of `cpus.len()` OpenMP threads, thread `i` pinned to `cpus[i]`; thread 0 is the thread that made
/// the `Team` (the OpenMP master), so pin it to `cpus[0]` first (the probe does).
///
/// libgomp keeps one pool of threads per master thread and reuses it for every region, giving pool thread `i`
/// team number `i` again each time, as real OpenMP programs rely on: the team persists across kernel calls
/// and stays pinned ([`Team::current_cpus`] checks it). A `Team` is therefore neither `Send` nor `Sync`: its
/// kernels must run on the master thread that owns the pool. Make one `Team` per master thread; a second one
/// of another size re-pins the shared pool.
///
/// The kernels take operation counts as `u64` and never fail once the team exists; each runs the whole loop
/// in C (one FFI call per batch). Times are the harness's: ns per operation after the control is subtracted.
pub struct Team {
    cpus: Vec<usize>,
    threads: c_int,
    /// One slot per thread: fetch-and-add targets and per-thread task counts.
    slots: Box<[Slot]>,
    pin_failures: Vec<(usize, String)>,
    /// `*const ()` is neither `Send` nor `Sync`: the team stays on its master thread.
    _master_only: PhantomData<*const ()>,
}

impl Team {
    /// Starts (or reuses) the calling thread's libgomp pool with `cpus.len()` threads and pins thread `i` to
    /// `cpus[i]` from inside a parallel region, then runs empty regions until they are fast (at most 200 ms)
    /// so the threads are awake and on their CPUs when timing starts. A refused pinning is not an error: the thread runs unpinned and
    /// [`Team::notes`] says so.
    ///
    /// Errors: [`Error::Unavailable`] in a build without OpenMP; [`Error::BadInput`] for an empty CPU list
    /// or more threads than a C `int` holds; [`Error::TeamSize`] if libgomp gives another team size.
    pub fn pinned(cpus: &[usize]) -> Result<Team, Error> {
        available().map_err(Error::Unavailable)?;
        if cpus.is_empty() {
            return Err(Error::BadInput("an OpenMP team needs at least one CPU; the CPU list is empty".into()));
        }
        // SAFETY: returns sizeof(ovh_slot), a constant; the kernels are linked (checked above).
        let c_slot = unsafe { ffi::ovh_omp_slot_size() };
        assert_eq!(
            c_slot,
            std::mem::size_of::<Slot>(),
            "C's ovh_slot and Rust's Slot differ: rebuild crates/runtime-parallel/c/omp"
        );
        let threads = c_int::try_from(cpus.len())
            .map_err(|_| Error::BadInput(format!("{} CPUs is more threads than num_threads takes", cpus.len())))?;
        let mut team = Team {
            cpus: cpus.to_vec(),
            threads,
            slots: (0..cpus.len()).map(|_| Slot::default()).collect(),
            pin_failures: Vec::new(),
            _master_only: PhantomData,
        };
        let failures = Mutex::new(Vec::new());
        let sizes = Mutex::new(Vec::new());
        team.on_each(|thread, size| {
            sizes.lock().unwrap_or_else(|e| e.into_inner()).push(size);
            if let Err(e) = pin_current_thread(cpus[thread]) {
                failures.lock().unwrap_or_else(|e| e.into_inner()).push((thread, cpus[thread], e.to_string()));
            }
        });
        let sizes = sizes.into_inner().unwrap_or_else(|e| e.into_inner());
        if sizes.len() != cpus.len() || sizes.iter().any(|&s| s != cpus.len()) {
            return Err(Error::TeamSize { asked: cpus.len(), got: sizes.len() });
        }
        let mut failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
        failures.sort();
        team.pin_failures = failures.into_iter().map(|(_, cpu, e)| (cpu, e)).collect();
        team.warm_up();
        Ok(team)
    }

    /// Empty regions, untimed, as EPCC runs one region before timing: a pool thread that has just pinned
    /// itself must first be migrated to its CPU and get a time slice there (milliseconds on a busy machine),
    /// and that wait would otherwise land in the harness's first batch and stop the doubling of N at 1. Runs
    /// until [`WARM_UP_STREAK`] regions in a row each took under [`WARM_UP_FAST`], for at most
    /// [`WARM_UP_LIMIT`] (on a machine that never settles the harness's numbers will say so).
    fn warm_up(&self) {
        let start = Instant::now();
        let mut streak = 0;
        while streak < WARM_UP_STREAK && start.elapsed() < WARM_UP_LIMIT {
            let region = Instant::now();
            self.forkjoin(1);
            streak = if region.elapsed() < WARM_UP_FAST { streak + 1 } else { 0 };
        }
    }

    /// Threads in the team.
    pub fn threads(&self) -> usize {
        self.cpus.len()
    }

    /// The CPU of each thread, thread 0 first.
    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// CPUs whose pinning the kernel refused, with the error text (the shape of `TeamReport::pin_failures`).
    pub fn pin_failures(&self) -> &[(usize, String)] {
        &self.pin_failures
    }

    /// Remarks for a point's record: refused pinnings, threads found off their CPU now, and the OpenMP
    /// environment variables set (they change the wait policy and binding, hence the numbers).
    pub fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> =
            self.pin_failures.iter().map(|(cpu, e)| format!("OpenMP thread for CPU {cpu} not pinned: {e}")).collect();
        for (thread, (&want, got)) in self.cpus.iter().zip(self.current_cpus()).enumerate() {
            let refused = self.pin_failures.iter().any(|(cpu, _)| *cpu == want);
            match got {
                Some(got) if got != want && !refused => {
                    notes.push(format!("OpenMP thread {thread} runs on CPU {got}, not its CPU {want}"))
                }
                _ => {}
            }
        }
        notes.extend(settings().into_iter().map(|s| format!("OpenMP environment: {s}")));
        notes
    }

    /// Runs `f(thread, team_size)` once on every thread of the team, inside one parallel region (untimed
    /// work such as pinning or reading where a thread runs). A panic in `f` is caught on its thread and
    /// re-raised here after the region ends.
    pub fn on_each<F: Fn(usize, usize) + Sync>(&self, f: F) {
        struct Context<F> {
            f: F,
            panicked: AtomicBool,
        }
        extern "C" fn trampoline<F: Fn(usize, usize) + Sync>(ctx: *mut c_void, thread: c_int, size: c_int) {
            // SAFETY: `ctx` is the `&Context<F>` that `on_each` passed to `ovh_omp_each`, which returns only
            // after the region's final barrier, so the context outlives every call; it is only read here
            // (`F: Sync`, the flag is atomic).
            let ctx = unsafe { &*(ctx as *const Context<F>) };
            let run = catch_unwind(AssertUnwindSafe(|| (ctx.f)(thread as usize, size as usize)));
            if run.is_err() {
                ctx.panicked.store(true, Ordering::Relaxed);
            }
        }
        let ctx = Context { f, panicked: AtomicBool::new(false) };
        // SAFETY: the callback matches `ovh_omp_thread_fn`, cannot unwind into C (panics are caught above),
        // and `ctx` lives until the call returns (see the trampoline).
        unsafe { ffi::ovh_omp_each(self.threads, trampoline::<F>, &ctx as *const Context<F> as *mut c_void) };
        assert!(!ctx.panicked.load(Ordering::Relaxed), "a closure run on an OpenMP team thread panicked");
    }

    /// The CPU each thread runs on now (`sched_getcpu`), thread 0 first; `None` where it cannot be read.
    pub fn current_cpus(&self) -> Vec<Option<usize>> {
        let seen: Vec<AtomicI64> = (0..self.threads()).map(|_| AtomicI64::new(-1)).collect();
        self.on_each(|thread, _| {
            // SAFETY: sched_getcpu takes no arguments and only returns a number or -1.
            let cpu = unsafe { libc::sched_getcpu() };
            seen[thread].store(i64::from(cpu), Ordering::Relaxed);
        });
        seen.iter().map(|c| usize::try_from(c.load(Ordering::Relaxed)).ok()).collect()
    }

    /// The OS thread ID (`gettid`) of each thread, thread 0 first: the same IDs call after call show that the
    /// pool persists.
    pub fn thread_ids(&self) -> Vec<i64> {
        let ids: Vec<AtomicI64> = (0..self.threads()).map(|_| AtomicI64::new(-1)).collect();
        self.on_each(|thread, _| {
            // SAFETY: gettid takes no arguments and cannot fail.
            let tid = unsafe { libc::gettid() };
            ids[thread].store(i64::from(tid), Ordering::Relaxed);
        });
        ids.iter().map(|i| i.load(Ordering::Relaxed)).collect()
    }

    /// Control of [`Team::forkjoin`]: the same C loop of `reps` iterations with no region in it.
    pub fn empty_loop(&self, reps: u64) {
        // SAFETY: takes only a count; the kernels are linked (a Team exists).
        unsafe { ffi::ovh_omp_empty_loop(reps) }
    }

    /// Ben-Asher & Feitelson 1991 §6.1, EPCC PARALLEL: `reps` empty `#pragma omp parallel` regions of the whole team, each a
    /// fork (waking the pool) and a join (the region's end barrier). Per op: one fork-join.
    pub fn forkjoin(&self, reps: u64) {
        // SAFETY: takes only counts; the kernels are linked (a Team exists).
        unsafe { ffi::ovh_omp_forkjoin(self.threads, reps) }
    }

    /// Control of [`Team::barrier`], [`Team::faa`] and [`Team::mutex`]: one region in which every thread
    /// runs `reps` empty iterations, so the region's own fork-join cancels.
    pub fn team_loop(&self, reps: u64) {
        // SAFETY: takes only counts; the kernels are linked (a Team exists).
        unsafe { ffi::ovh_omp_team_loop(self.threads, reps) }
    }

    /// Ben-Asher & Feitelson 1991 §8.2 experiment 1, EPCC BARRIER: one region in which the team passes `#pragma omp barrier`
    /// `reps` times. Per op: one barrier episode.
    pub fn barrier(&self, reps: u64) {
        // SAFETY: takes only counts; the kernels are linked (a Team exists).
        unsafe { ffi::ovh_omp_barrier(self.threads, reps) }
    }

    /// Ben-Asher & Feitelson 1991 §6.3: one region in which one thread (`single`) spawns `ntasks` empty `omp task`s, all joined
    /// at the end of `single`; any thread may run them. Per op: one task spawned, run and joined. libgomp runs
    /// a task at once in its creator in a team of one, or when more than 64 × threads tasks are queued.
    pub fn bulk(&self, ntasks: u64) {
        // SAFETY: takes only counts; the kernels are linked (a Team exists).
        unsafe { ffi::ovh_omp_bulk(self.threads, ntasks) }
    }

    /// Control of [`Team::bulk`]: the same region and `single`, looping `n` times without spawning.
    pub fn single_loop(&self, n: u64) {
        // SAFETY: takes only counts; the kernels are linked (a Team exists).
        unsafe { ffi::ovh_omp_single_loop(self.threads, n) }
    }

    /// The closest OpenMP form of Ben-Asher & Feitelson 1991 §6.2 (generators feeding one executor): threads 1…T−1 spawn
    /// `ntasks` single empty tasks between them while thread 0 spawns none and waits at a barrier, where it
    /// runs queued tasks. Not exact: OpenMP has no way to direct a task at one thread, so generators also run
    /// tasks (at that barrier, or at once when more than 64 × threads are queued). [`Team::tasks_per_thread`]
    /// then gives each thread's share, so thread 0's share is a result beside the time. Per op: one task.
    /// With one thread, thread 0 both spawns and runs.
    pub fn remote(&self, ntasks: u64) {
        // SAFETY: `slots` has one slot per thread, as the kernel requires; it writes only slots[0..threads)
        // through `Cell`s, and no Rust reference reads them during the call (Team is not Sync).
        unsafe { ffi::ovh_omp_remote(self.threads, ntasks, self.slots.as_ptr() as *mut Slot) }
    }

    /// Control of [`Team::remote`]: the same region, split and barrier, the generators' loops empty.
    pub fn remote_control(&self, ntasks: u64) {
        // SAFETY: takes only counts; the kernels are linked (a Team exists).
        unsafe { ffi::ovh_omp_remote_control(self.threads, ntasks) }
    }

    /// Ben-Asher & Feitelson 1991 §7 (Table 4, Fig. 7): `total_reads` reads of a shared volatile `int` split into `ntasks` tasks
    /// (the first `total_reads % ntasks` do one more), spawned by one thread and run by the team. One call is
    /// one phase of the study's table; [`Team::tasks_per_thread`] then gives Fig. 7's per-CPU share.
    pub fn grain(&self, total_reads: u64, ntasks: u64) {
        // SAFETY: as in `remote`: one slot per thread, written through `Cell`s during the call only.
        unsafe { ffi::ovh_omp_grain(self.threads, total_reads, ntasks, self.slots.as_ptr() as *mut Slot) }
    }

    /// The serial baseline of [`Team::grain`]: `total_reads` reads of the same variable on the calling thread,
    /// no OpenMP (speed-up = this time / the grain phase's time).
    pub fn serial_reads(&self, total_reads: u64) {
        // SAFETY: takes only a count; the kernels are linked (a Team exists).
        unsafe { ffi::ovh_omp_serial_reads(total_reads) }
    }

    /// Tasks each thread ran in the last [`Team::remote`] or [`Team::grain`] call, thread 0 first; they add up
    /// to that call's `ntasks`. (After [`Team::faa`] the slots hold its counters instead.)
    pub fn tasks_per_thread(&self) -> Vec<u64> {
        self.slots.iter().map(|s| s.value.get()).collect()
    }

    /// Ben-Asher & Feitelson 1991 §8.1: every thread does `reps` `#pragma omp atomic` increments of one shared counter or of its
    /// own. Returns the final total, exactly threads × `reps`. Per op: one increment of one thread while the
    /// others do theirs. Control: [`Team::team_loop`].
    pub fn faa(&self, reps: u64, variable: Variable) -> u64 {
        let distinct = c_int::from(variable == Variable::Distinct);
        // SAFETY: as in `remote`: one slot per thread, written through `Cell`s during the call only.
        unsafe { ffi::ovh_omp_faa(self.threads, reps, distinct, self.slots.as_ptr() as *mut Slot) }
    }

    /// Every thread takes and releases one shared `omp_lock_t` `reps` times, counting inside it. Returns the
    /// count, exactly threads × `reps`. Per op: one lock/unlock pair of one thread while the others do theirs.
    /// Control: [`Team::team_loop`].
    pub fn mutex(&self, reps: u64) -> u64 {
        // SAFETY: takes only counts; the lock and its count live in the C call's frame.
        unsafe { ffi::ovh_omp_mutex(self.threads, reps) }
    }
}
