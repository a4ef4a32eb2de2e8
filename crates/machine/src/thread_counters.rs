//! The kernel's counters around a batch — the calling thread's context switches, CPU migrations and page
//! faults through `perf_event_open` (the `perf-event2` crate), its CPU time, the whole process's voluntary and
//! involuntary context switches through `getrusage`, its children's faults, switches and CPU time
//! (`child_processes.rs`), and the hardware's cycles, instructions and last-level
//! cache misses where the machine has a PMU — read at batch edges so a measurement can say what each
//! operation costs the kernel and the hardware besides its time (docs/METHOD.md §18). Software counters need
//! no PMU: they work in the KVM guests where `perf stat -e cycles` says "not supported". A kernel that
//! refuses (`perf_event_paranoid` above 2 for a non-root user, a seccomp filter) gives an error whose text
//! says why, and the measurement goes on without counts.

use std::io;

use perf_event::events::{Hardware, Software};
use perf_event::{Builder, Counter, Group};

/// The environment variable that turns counting off when set to `off` (`--side off={COUNTERS_ENV}=off` runs
/// an A/A pair of counting against not counting in one run).
pub const COUNTERS_ENV: &str = "OVERHEAD_COUNTERS";

/// What one counter counts, in the order of [`Counts`]' values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterKind {
    /// Times the measuring thread left the CPU, voluntarily (it blocked) or not (it was preempted).
    ContextSwitches,
    /// Times the measuring thread moved to another CPU.
    CpuMigrations,
    /// Page faults served without I/O (a fresh page, a copy on write), on the measuring thread.
    MinorFaults,
    /// Page faults that read from disk, on the measuring thread.
    MajorFaults,
    /// The measuring thread's time on a CPU, user and kernel (ns): its `CLOCK_THREAD_CPUTIME_ID`. (Not
    /// perf's `task-clock`: read by the running thread itself it lags, 0 ns after a 20 ms busy loop here, as it
    /// is brought up to date at context switches.)
    CpuTimeNs,
    /// Voluntary context switches (a thread blocked) of every thread of the process: the measuring thread,
    /// its partners and helpers, an executor's workers (`getrusage(RUSAGE_SELF)`'s `ru_nvcsw`).
    ProcessVoluntarySwitches,
    /// Involuntary context switches (a thread was preempted) of every thread of the process (`ru_nivcsw`).
    ProcessInvoluntarySwitches,
    /// Minor page faults of the process's children in the window: those reaped in it (a fork's child copying
    /// the pages it writes; `getrusage(RUSAGE_CHILDREN)`) and the running ones a measurement watches (an IPC
    /// peer, an RPC server; `/proc`, [`crate::WatchedChild`]). An unwatched running child is not counted.
    ChildMinorFaults,
    /// Context switches, voluntary and not, of the children in the window (as [`CounterKind::ChildMinorFaults`]):
    /// an echo peer's blocking read, once a round trip; a child that exits at once counts one, its last.
    ChildSwitches,
    /// CPU time of the children in the window, user and kernel (ns): the reaped ones' precise run time (to the
    /// µs), the watched ones' from `/proc/{pid}/task/*/schedstat`. For a fork's child that only calls `_exit`,
    /// the kernel's work on the child, its exit among it.
    ChildCpuNs,
    /// CPU cycles of the measuring thread, user and kernel (PMU only).
    Cycles,
    /// Instructions retired by the measuring thread (PMU only).
    Instructions,
    /// Last-level cache misses of the measuring thread (PMU only: the kernel's generic `cache-misses`).
    LlcMisses,
}

/// How many kinds there are.
const KINDS: usize = 13;

impl CounterKind {
    /// Every kind, in [`Counts`]' order.
    pub const ALL: [CounterKind; KINDS] = [
        CounterKind::ContextSwitches,
        CounterKind::CpuMigrations,
        CounterKind::MinorFaults,
        CounterKind::MajorFaults,
        CounterKind::CpuTimeNs,
        CounterKind::ProcessVoluntarySwitches,
        CounterKind::ProcessInvoluntarySwitches,
        CounterKind::ChildMinorFaults,
        CounterKind::ChildSwitches,
        CounterKind::ChildCpuNs,
        CounterKind::Cycles,
        CounterKind::Instructions,
        CounterKind::LlcMisses,
    ];

    /// The kernel's software counters of the measuring thread.
    const SOFTWARE: [CounterKind; 4] =
        [CounterKind::ContextSwitches, CounterKind::CpuMigrations, CounterKind::MinorFaults, CounterKind::MajorFaults];

    /// The PMU's counters of the measuring thread.
    const HARDWARE: [CounterKind; 3] = [CounterKind::Cycles, CounterKind::Instructions, CounterKind::LlcMisses];

    /// The short name a record's `extra` key (`{name}_per_op`) and a report column use: `cs`, `migrations`,
    /// `minor_faults`, `major_faults`, `cpu_ns`, `process_voluntary_cs`, `process_involuntary_cs`,
    /// `child_minor_faults`, `child_cs`, `child_cpu_ns`, `cycles`, `instructions`, `llc_misses`.
    pub fn name(self) -> &'static str {
        match self {
            CounterKind::ContextSwitches => "cs",
            CounterKind::CpuMigrations => "migrations",
            CounterKind::MinorFaults => "minor_faults",
            CounterKind::MajorFaults => "major_faults",
            CounterKind::CpuTimeNs => "cpu_ns",
            CounterKind::ProcessVoluntarySwitches => "process_voluntary_cs",
            CounterKind::ProcessInvoluntarySwitches => "process_involuntary_cs",
            CounterKind::ChildMinorFaults => "child_minor_faults",
            CounterKind::ChildSwitches => "child_cs",
            CounterKind::ChildCpuNs => "child_cpu_ns",
            CounterKind::Cycles => "cycles",
            CounterKind::Instructions => "instructions",
            CounterKind::LlcMisses => "llc_misses",
        }
    }

    /// True for the counts of the whole process (every thread) and of its reaped children, which a team adds
    /// once, not once a thread.
    pub fn is_per_process(self) -> bool {
        matches!(
            self,
            CounterKind::ProcessVoluntarySwitches
                | CounterKind::ProcessInvoluntarySwitches
                | CounterKind::ChildMinorFaults
                | CounterKind::ChildSwitches
                | CounterKind::ChildCpuNs
        )
    }

    fn index(self) -> usize {
        self as usize
    }

    fn software_event(self) -> Option<Software> {
        Some(match self {
            CounterKind::ContextSwitches => Software::CONTEXT_SWITCHES,
            CounterKind::CpuMigrations => Software::CPU_MIGRATIONS,
            CounterKind::MinorFaults => Software::PAGE_FAULTS_MIN,
            CounterKind::MajorFaults => Software::PAGE_FAULTS_MAJ,
            _ => return None,
        })
    }

    fn hardware_event(self) -> Option<Hardware> {
        Some(match self {
            CounterKind::Cycles => Hardware::CPU_CYCLES,
            CounterKind::Instructions => Hardware::INSTRUCTIONS,
            CounterKind::LlcMisses => Hardware::CACHE_MISSES,
            _ => return None,
        })
    }
}

/// One reading of every [`CounterKind`], in its order: events since the counters were opened; `None` for a
/// counter this machine does not have (no PMU) or that could not be read whole (a multiplexed PMU group).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts(pub [Option<u64>; KINDS]);

impl Counts {
    /// The events between `earlier` and `self` (a later reading of the same counters). A count that fell
    /// reads absent: counters only grow, so something left the sum (a thread that ended inside a watched
    /// child process took its switches with it), and the window's count is unknown.
    pub fn since(self, earlier: Counts) -> Counts {
        Counts(std::array::from_fn(|i| self.0[i]?.checked_sub(earlier.0[i]?)))
    }

    /// These counts with every per-process kind ([`CounterKind::is_per_process`]) taken from `process` (absent
    /// where `process` is `None`): a team's leader's reading of the whole process around every thread's batch.
    pub fn with_process(self, process: Option<Counts>) -> Counts {
        Counts(std::array::from_fn(|i| match CounterKind::ALL[i].is_per_process() {
            true => process.and_then(|p| p.0[i]),
            false => self.0[i],
        }))
    }

    /// Both counts added (a team's threads summed); a per-process count ([`CounterKind::is_per_process`]) is
    /// the whole process's already and keeps `self`'s (the team leader's).
    pub fn plus(self, other: Counts) -> Counts {
        Counts(std::array::from_fn(|i| match CounterKind::ALL[i].is_per_process() {
            true => self.0[i].or(other.0[i]),
            false => Some(self.0[i]?.wrapping_add(other.0[i]?)),
        }))
    }

    /// The count of `kind`, `None` where it was not counted.
    pub fn of(self, kind: CounterKind) -> Option<u64> {
        self.0[kind.index()]
    }

    /// The same counts with `kind`'s replaced by `value`.
    pub fn with(mut self, kind: CounterKind, value: Option<u64>) -> Counts {
        self.0[kind.index()] = value;
        self
    }
}

/// The calling thread's counters: its software counters in one group (one `read` returns them all: one
/// system call, about a microsecond), its PMU counters in another where the machine has them, its CPU time,
/// and the process's context switches from `getrusage` — read only at batch edges, never inside a timed loop.
/// The thread's perf counters count this thread only (`pid = 0`, no inheritance), so each thread of a team
/// opens its own; the process's switches count every thread. Where the kernel refuses `perf_event_open`
/// (`perf_event_paranoid`), the CPU time and the process's switches, which need no permission, are still
/// counted.
pub struct ThreadCounters {
    software: Option<(Group, Vec<Counter>)>,
    hardware: Option<(Group, Vec<Counter>)>,
}

impl ThreadCounters {
    /// Opens and starts the counters of the calling thread: the perf groups the kernel allows (see
    /// [`ThreadCounters::perf_absent`] and [`ThreadCounters::hardware_absent`] for why one is not).
    ///
    /// Errors: counting is turned off ([`COUNTERS_ENV`] = `off`, for an A/A pair of counting against not
    /// counting).
    pub fn open() -> Result<ThreadCounters, String> {
        if let Some(why) = turned_off() {
            return Err(why);
        }
        let software = open_group(&CounterKind::SOFTWARE).ok();
        let hardware = software.as_ref().and_then(|_| open_group(&CounterKind::HARDWARE).ok());
        Ok(ThreadCounters { software, hardware })
    }

    /// Why this thread cannot count its own context switches, migrations and faults through
    /// `perf_event_open`: the kernel's refusal, with `perf_event_paranoid`'s value, or counting turned off;
    /// `None` where it can.
    pub fn perf_absent() -> Option<String> {
        turned_off().or_else(|| open_group(&CounterKind::SOFTWARE).err())
    }

    /// Why this thread cannot count the PMU's events (cycles, instructions, LLC misses): the kernel's answer,
    /// read as "no PMU" where the kernel knows no such event here (a KVM guest without a virtual PMU: `perf
    /// stat -e cycles` says "not supported"); `None` where it can.
    pub fn hardware_absent() -> Option<String> {
        if let Some(why) = ThreadCounters::perf_absent() {
            return Some(why);
        }
        let why = open_group(&CounterKind::HARDWARE).err()?;
        let no_pmu = ["No such file or directory", "Operation not supported", "No such device"];
        Some(match no_pmu.iter().any(|text| why.contains(text)) {
            true => {
                format!("this machine exposes no PMU to its kernel (a virtual machine without a virtual PMU?): {why}")
            }
            false => why,
        })
    }

    /// Every counter kind with why it is absent here (`None`: it counts), for `overhead check`.
    pub fn availability() -> Vec<(CounterKind, Option<String>)> {
        let (off, perf, hardware) = (turned_off(), ThreadCounters::perf_absent(), ThreadCounters::hardware_absent());
        CounterKind::ALL
            .iter()
            .map(|&kind| {
                let why = match kind {
                    _ if CounterKind::HARDWARE.contains(&kind) => hardware.clone(),
                    _ if CounterKind::SOFTWARE.contains(&kind) => perf.clone(),
                    _ => off.clone(),
                };
                (kind, why)
            })
            .collect()
    }

    /// Every counter now: a few system calls, and three `/proc` files a thread for each watched child process
    /// (`child_processes.rs`). Read at batch edges only; the control pays the same. The kinds of a perf group that is not open read `None`.
    ///
    /// Errors: a read failed (it does not once the counters are open).
    pub fn read(&mut self) -> io::Result<Counts> {
        let mut counts = Counts::default();
        if let Some(software) = self.software.as_mut() {
            read_group(software, &CounterKind::SOFTWARE, &mut counts)?;
        }
        if let Some(hardware) = self.hardware.as_mut() {
            read_group(hardware, &CounterKind::HARDWARE, &mut counts)?;
        }
        counts.0[CounterKind::CpuTimeNs.index()] = Some(thread_cpu_ns()?);
        Ok(counts.with_process(Some(process_counts()?)))
    }
}

/// Why counting is off: [`COUNTERS_ENV`] = `off`; `None` otherwise.
fn turned_off() -> Option<String> {
    std::env::var(COUNTERS_ENV).is_ok_and(|v| v == "off").then(|| format!("counting turned off by {COUNTERS_ENV}=off"))
}

/// Opens `kinds` (all software or all hardware) as one group of the calling thread, kernel side included, and
/// starts it.
fn open_group(kinds: &[CounterKind]) -> Result<(Group, Vec<Counter>), String> {
    let explain = |what: &str, e: io::Error| {
        let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
            .map(|v| format!("; kernel.perf_event_paranoid is {}", v.trim()))
            .unwrap_or_default();
        format!("the kernel refused perf_event_open for {what}: {e}{paranoid}")
    };
    // Context switches and faults are counted in the kernel: without `include_kernel` (perf-event2's default
    // excludes it) a context switch would never count. A kernel that allows only user-space counting
    // (perf_event_paranoid 2 for a non-root user) refuses here, and the counts are absent.
    let mut group = Group::builder()
        .observe_self()
        .any_cpu()
        .inherit(false)
        .include_kernel()
        .build_group()
        .map_err(|e| explain("a counter group", e))?;
    let mut counters = Vec::with_capacity(kinds.len());
    for &kind in kinds {
        let mut builder = match (kind.software_event(), kind.hardware_event()) {
            (Some(event), _) => Builder::new(event),
            (None, Some(event)) => Builder::new(event),
            (None, None) => unreachable!("{kind:?} is counted by getrusage"),
        };
        let counter = group
            .add(builder.observe_self().any_cpu().inherit(false).include_kernel())
            .map_err(|e| explain(kind.name(), e))?;
        counters.push(counter);
    }
    group.enable().map_err(|e| explain("enabling the counters", e))?;
    Ok((group, counters))
}

/// Reads one group into `counts`. A group the kernel could not keep on the PMU all the time (multiplexed
/// with other users' events) reads `None`: a scaled estimate would pass for a count.
fn read_group(
    (group, counters): &mut (Group, Vec<Counter>),
    kinds: &[CounterKind],
    counts: &mut Counts,
) -> io::Result<()> {
    let data = group.read()?;
    let whole = data.time_enabled() == data.time_running();
    for (counter, &kind) in counters.iter().zip(kinds) {
        counts.0[kind.index()] = if whole { data.get(counter).map(|entry| entry.value()) } else { None };
    }
    Ok(())
}

/// The calling thread's CPU time so far (ns): `CLOCK_THREAD_CPUTIME_ID`, brought up to date by the read.
pub(crate) fn thread_cpu_ns() -> io::Result<u64> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into the one we own.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
}

/// The per-process counts so far ([`CounterKind::is_per_process`]; the others absent): the process's
/// voluntary and involuntary context switches, every thread's (`getrusage(RUSAGE_SELF)`), and its children's
/// faults, switches and CPU time (`child_processes.rs`). What a team's leader reads while the other threads
/// wait at a barrier, so the window holds every thread's whole batch.
///
/// Errors: `getrusage` failed (it does not on Linux).
pub fn process_counts() -> io::Result<Counts> {
    let usage = crate::process_times::rusage(libc::RUSAGE_SELF)?;
    let children = crate::child_processes::usage()?;
    Ok(Counts::default()
        .with(CounterKind::ProcessVoluntarySwitches, Some(usage.ru_nvcsw as u64))
        .with(CounterKind::ProcessInvoluntarySwitches, Some(usage.ru_nivcsw as u64))
        .with(CounterKind::ChildMinorFaults, Some(children.minor_faults))
        .with(CounterKind::ChildSwitches, Some(children.switches))
        .with(CounterKind::ChildCpuNs, Some(children.cpu_ns)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: usize = 4096;

    /// A fresh anonymous private mapping of `pages` pages, or `MAP_FAILED`: one plain system call, so a forked
    /// child may call it too.
    fn map_pages(pages: usize) -> *mut libc::c_void {
        // SAFETY: a new mapping at an address the kernel picks; nothing else refers to it.
        unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                pages * PAGE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        }
    }

    /// Writes one byte of each of the first `pages` pages at `region`: one first touch each.
    ///
    /// # Safety
    /// `region` is a writable mapping of at least `pages` pages.
    unsafe fn touch_pages(region: *mut libc::c_void, pages: usize) {
        for i in 0..pages {
            // SAFETY: inside the mapping (the caller's promise), one byte of page i.
            unsafe { std::ptr::write_volatile((region as *mut u8).add(i * PAGE), 1) };
        }
    }

    /// Where the kernel allows the counters (root here, and CI), touching fresh pages counts one minor
    /// fault each, and a busy loop on a pinned thread counts no migration; where it does not, the error
    /// says why.
    #[test]
    fn fresh_pages_count_one_minor_fault_each() {
        if let Some(why) = ThreadCounters::perf_absent() {
            assert!(why.contains("perf_event_open") || why.contains(COUNTERS_ENV), "{why}");
            return;
        }
        let mut counters = ThreadCounters::open().expect("perf counters open");
        const PAGES: usize = 64;
        let region = map_pages(PAGES);
        assert_ne!(region, libc::MAP_FAILED);
        let before = counters.read().unwrap();
        // SAFETY: a writable mapping of PAGES pages, made above.
        unsafe { touch_pages(region, PAGES) };
        let after = counters.read().unwrap();
        // SAFETY: the mapping made above, of that length, no longer used.
        unsafe { libc::munmap(region, PAGES * PAGE) };
        let faults = after.since(before).of(CounterKind::MinorFaults).expect("counted");
        // Transparent huge pages may serve several pages with one fault; the reads themselves may add one or
        // two (a first touch of their buffer): about one a page, never far more.
        assert!((1..=PAGES as u64 + 4).contains(&faults), "{faults} minor faults for {PAGES} fresh pages");
        assert_eq!(after.since(before).of(CounterKind::MajorFaults), Some(0));
    }

    /// A thread that sleeps 50 times leaves its CPU at least 50 times, and the counters say so (where the
    /// kernel allows them).
    #[test]
    fn sleeping_counts_a_context_switch_each_time() {
        if ThreadCounters::perf_absent().is_some() {
            return;
        }
        let Ok(mut counters) = ThreadCounters::open() else { return };
        let wall = std::time::Instant::now();
        let before = counters.read().unwrap();
        for _ in 0..50 {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let counted = counters.read().unwrap().since(before);
        let wall_ns = wall.elapsed().as_nanos() as u64;
        let switches = counted.of(CounterKind::ContextSwitches).expect("counted");
        // A preemption between two sleeps (another process or test on the CPU) adds one; double counting would
        // read 100.
        assert!((50..=75).contains(&switches), "{switches} context switches for 50 sleeps");
        // Sleeping is voluntary, and the process saw at least this thread's switches; the thread was off the CPU
        // while it slept, so its CPU time is below the wall time the loop took on this host (a guest whose timer
        // path exits to the hypervisor charges 30–70 µs a sleep: no constant bound holds everywhere).
        let voluntary = counted.of(CounterKind::ProcessVoluntarySwitches).expect("counted");
        assert!(voluntary >= 50, "{voluntary} voluntary switches in the process for 50 sleeps");
        let cpu_ns = counted.of(CounterKind::CpuTimeNs).expect("counted");
        assert!(cpu_ns > 0 && cpu_ns < wall_ns, "{cpu_ns} ns on the CPU in {wall_ns} ns of 50 sleeps");
    }

    /// The process's switches count another thread's too: a partner that sleeps 30 times while this thread
    /// waits in `join` (one switch of this thread) adds at least 30, which this thread's own counter does not
    /// see.
    #[test]
    fn the_process_counts_a_partner_threads_switches() {
        if ThreadCounters::perf_absent().is_some() {
            return;
        }
        let Ok(mut counters) = ThreadCounters::open() else { return };
        let before = counters.read().unwrap();
        std::thread::spawn(|| {
            for _ in 0..30 {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        })
        .join()
        .unwrap();
        let counted = counters.read().unwrap().since(before);
        let own = counted.of(CounterKind::ContextSwitches).expect("counted");
        let process = counted.of(CounterKind::ProcessVoluntarySwitches).expect("counted");
        assert!(own < 10, "{own} switches of the joining thread");
        assert!(process >= 30 + own, "{process} voluntary switches in the process, {own} of them this thread's");
    }

    /// Children reaped in the window are counted on their own side: 10 children that each write 16 fresh
    /// pages before `_exit` count at least 160 minor faults, at least one switch each (its last) and some CPU
    /// time; this thread's own faults do not include theirs. (Other tests of this binary may reap children
    /// of their own in the window: lower bounds only.)
    #[test]
    fn reaped_children_count_their_faults_switches_and_cpu_time() {
        let Ok(mut counters) = ThreadCounters::open() else { return };
        const CHILDREN: u64 = 10;
        const PAGES: usize = 16;
        let before = counters.read().unwrap();
        for _ in 0..CHILDREN {
            // SAFETY: the child only writes to a mapping of its own and calls `_exit`, both async-signal-safe
            // (mmap is a plain system call), so forking a process with other threads is sound.
            let pid = unsafe { libc::fork() };
            assert!(pid >= 0, "fork: {}", io::Error::last_os_error());
            if pid == 0 {
                let region = map_pages(PAGES);
                // SAFETY: in the child: writes its own fresh mapping of PAGES pages (if it got one), sleeps
                // 100 µs (nanosleep is async-signal-safe) so that it blocks once — a child that runs to its exit
                // on an idle CPU need not switch at all, and one in ten here did not — then `_exit`s without
                // running the parent's destructors.
                unsafe {
                    if region != libc::MAP_FAILED {
                        touch_pages(region, PAGES);
                    }
                    let nap = libc::timespec { tv_sec: 0, tv_nsec: 100_000 };
                    libc::nanosleep(&nap, std::ptr::null_mut());
                    libc::_exit(0);
                }
            }
            let mut status = 0;
            // SAFETY: `pid` is this thread's own child; `status` a valid int.
            assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        }
        let counted = counters.read().unwrap().since(before);
        let faults = counted.of(CounterKind::ChildMinorFaults).expect("counted");
        assert!(
            faults >= CHILDREN * PAGES as u64,
            "{faults} minor faults in {CHILDREN} children writing {PAGES} pages each"
        );
        let switches = counted.of(CounterKind::ChildSwitches).expect("counted");
        assert!(switches >= CHILDREN, "{switches} switches of {CHILDREN} children that each slept once");
        assert!(counted.of(CounterKind::ChildCpuNs).is_some_and(|ns| ns > 0), "{counted:?}");
        if let Some(own) = counted.of(CounterKind::MinorFaults) {
            // The parent's own copy-on-write faults after each fork are a few a fork, never the children's.
            assert!(own < faults, "the parent's {own} faults against its children's {faults}");
        }
    }

    /// A busy loop's counted CPU time is up to date when read (perf's task clock read 0 ns here after a 20 ms
    /// loop without a context switch), and no more than the wall time it ran in.
    #[test]
    fn a_busy_loop_counts_its_cpu_time() {
        let Ok(mut counters) = ThreadCounters::open() else { return };
        let before = counters.read().unwrap();
        let start = std::time::Instant::now();
        let mut spins = 0u64;
        while start.elapsed() < std::time::Duration::from_millis(20) {
            spins += 1;
            std::hint::black_box(spins);
        }
        let wall_ns = start.elapsed().as_nanos() as u64;
        let cpu_ns = counters.read().unwrap().since(before).of(CounterKind::CpuTimeNs).expect("counted");
        // Another process may take the CPU for part of the loop, never all of it: the loop spun.
        assert!(cpu_ns > 0 && cpu_ns <= wall_ns + 1_000_000, "{cpu_ns} ns on a CPU in {wall_ns} ns of wall time");
    }

    /// A team adds its threads' own counts and keeps the process's once; a counter one side lacks stays absent.
    #[test]
    fn a_team_adds_thread_counts_and_keeps_the_process_count_once() {
        let mut a = Counts::default();
        let mut b = Counts::default();
        for kind in CounterKind::ALL {
            a.0[kind as usize] = Some(3);
            b.0[kind as usize] = Some(4);
        }
        b.0[CounterKind::Cycles as usize] = None;
        let sum = a.plus(b);
        assert_eq!(sum.of(CounterKind::ContextSwitches), Some(7));
        assert_eq!(sum.of(CounterKind::ProcessVoluntarySwitches), Some(3));
        assert_eq!(sum.of(CounterKind::Cycles), None);
        assert_eq!(sum.since(a).of(CounterKind::ContextSwitches), Some(4));
        assert_eq!(sum.since(a).of(CounterKind::Cycles), None);
        // A count that fell (a thread of a watched child ended) is unknown, never a wrapped 1.8e19.
        assert_eq!(a.since(b).of(CounterKind::ContextSwitches), None);
        // The leader's reading of the whole process replaces every per-process kind, and only those.
        let leader = Counts::default().with(CounterKind::ChildSwitches, Some(9));
        let team = sum.with_process(Some(leader));
        assert_eq!(team.of(CounterKind::ChildSwitches), Some(9));
        assert_eq!(team.of(CounterKind::ProcessVoluntarySwitches), None);
        assert_eq!(team.of(CounterKind::ContextSwitches), Some(7));
        assert_eq!(sum.with_process(None).of(CounterKind::ChildCpuNs), None);
    }

    /// Without perf (the kernel refused it), the CPU time and the process's switches are still read, and the
    /// perf kinds read absent, not zero.
    #[test]
    fn without_perf_the_cpu_time_and_the_process_switches_still_count() {
        let mut counters = ThreadCounters { software: None, hardware: None };
        let before = counters.read().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1));
        let counted = counters.read().unwrap().since(before);
        assert_eq!(counted.of(CounterKind::ContextSwitches), None);
        assert_eq!(counted.of(CounterKind::Cycles), None);
        assert!(counted.of(CounterKind::ProcessVoluntarySwitches).is_some_and(|n| n >= 1), "{counted:?}");
        assert!(counted.of(CounterKind::CpuTimeNs).is_some(), "{counted:?}");
    }

    /// Each kind's index is its place in `ALL` (the arrays of `Counts` rely on it).
    #[test]
    fn every_kind_sits_at_its_index() {
        for (i, kind) in CounterKind::ALL.iter().enumerate() {
            assert_eq!(kind.index(), i, "{kind:?}");
        }
    }
}
