//! The kernel's software counters of one thread — context switches, CPU migrations, minor and major page
//! faults — through `perf_event_open` (the `perf-event2` crate), read at batch edges so a measurement can say
//! what each operation costs the kernel besides its time (docs/METHOD.md §18). Software counters need no PMU:
//! they work in the KVM guests where `perf stat -e cycles` says "not supported". A kernel that refuses
//! (`perf_event_paranoid` above 2 for a non-root user, a seccomp filter) gives an error whose text says why,
//! and the measurement goes on without counts.

use std::io;

use perf_event::events::Software;
use perf_event::{Builder, Counter, Group};

/// The environment variable that turns counting off when set to `off` (`--side off={COUNTERS_ENV}=off` runs
/// an A/A pair of counting against not counting in one run).
pub const COUNTERS_ENV: &str = "OVERHEAD_COUNTERS";

/// What one counter counts, in the order of [`Counts`]' values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CounterKind {
    /// Times the thread left the CPU, voluntarily (it blocked) or not (it was preempted).
    ContextSwitches,
    /// Times the thread moved to another CPU.
    CpuMigrations,
    /// Page faults served without I/O (a fresh page, a copy on write).
    MinorFaults,
    /// Page faults that read from disk.
    MajorFaults,
}

impl CounterKind {
    /// Every kind, in [`Counts`]' order.
    pub const ALL: [CounterKind; 4] =
        [CounterKind::ContextSwitches, CounterKind::CpuMigrations, CounterKind::MinorFaults, CounterKind::MajorFaults];

    /// The short name a record's `extra` key and a report column use: `cs`, `migrations`, `minor_faults`,
    /// `major_faults`.
    pub fn name(self) -> &'static str {
        match self {
            CounterKind::ContextSwitches => "cs",
            CounterKind::CpuMigrations => "migrations",
            CounterKind::MinorFaults => "minor_faults",
            CounterKind::MajorFaults => "major_faults",
        }
    }

    fn event(self) -> Software {
        match self {
            CounterKind::ContextSwitches => Software::CONTEXT_SWITCHES,
            CounterKind::CpuMigrations => Software::CPU_MIGRATIONS,
            CounterKind::MinorFaults => Software::PAGE_FAULTS_MIN,
            CounterKind::MajorFaults => Software::PAGE_FAULTS_MAJ,
        }
    }
}

/// One reading of every [`CounterKind`], in its order: events since the counters were opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts(pub [u64; 4]);

impl Counts {
    /// The events between `earlier` and `self` (a later reading of the same counters).
    pub fn since(self, earlier: Counts) -> Counts {
        Counts(std::array::from_fn(|i| self.0[i].wrapping_sub(earlier.0[i])))
    }

    /// Both counts added (a team's threads summed).
    pub fn plus(self, other: Counts) -> Counts {
        Counts(std::array::from_fn(|i| self.0[i].wrapping_add(other.0[i])))
    }

    /// The count of `kind`.
    pub fn of(self, kind: CounterKind) -> u64 {
        self.0[CounterKind::ALL.iter().position(|&k| k == kind).expect("every kind is in ALL")]
    }
}

/// The calling thread's software counters, in one group so one `read` returns them all (one system call,
/// about a microsecond: read only at batch edges, never inside a timed loop). Counts this thread only: the
/// counters are opened with `pid = 0` and without inheritance, so each thread of a team opens its own.
pub struct ThreadCounters {
    group: Group,
    counters: Vec<Counter>,
}

impl ThreadCounters {
    /// Opens and starts the counters of the calling thread.
    ///
    /// Errors: counting is turned off ([`COUNTERS_ENV`] = `off`, for an A/A pair of counting against not
    /// counting); the kernel refused `perf_event_open` (the text names the counter and, for a permission
    /// error, `/proc/sys/kernel/perf_event_paranoid`'s value), or this is no Linux.
    pub fn open() -> Result<ThreadCounters, String> {
        if std::env::var(COUNTERS_ENV).is_ok_and(|v| v == "off") {
            return Err(format!("counting turned off by {COUNTERS_ENV}=off"));
        }
        let explain = |what: &str, e: io::Error| {
            let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                .map(|v| format!("; kernel.perf_event_paranoid is {}", v.trim()))
                .unwrap_or_default();
            format!("the kernel refused perf_event_open for {what}: {e}{paranoid}")
        };
        // Context switches and faults are counted in the kernel: without `include_kernel` (perf-event2's
        // default excludes it) a context switch would never count. A kernel that allows only user-space
        // counting (perf_event_paranoid 2 for a non-root user) refuses here, and the counts are absent.
        let mut group = Group::builder()
            .observe_self()
            .any_cpu()
            .inherit(false)
            .include_kernel()
            .build_group()
            .map_err(|e| explain("a counter group", e))?;
        let mut counters = Vec::with_capacity(CounterKind::ALL.len());
        for kind in CounterKind::ALL {
            let counter = group
                .add(Builder::new(kind.event()).observe_self().any_cpu().inherit(false).include_kernel())
                .map_err(|e| explain(kind.name(), e))?;
            counters.push(counter);
        }
        group.enable().map_err(|e| explain("enabling the counters", e))?;
        Ok(ThreadCounters { group, counters })
    }

    /// Every counter now (one system call).
    ///
    /// Errors: the read failed (it does not once the counters are open).
    pub fn read(&mut self) -> io::Result<Counts> {
        let data = self.group.read()?;
        let mut counts = Counts::default();
        for (i, counter) in self.counters.iter().enumerate() {
            counts.0[i] = data.get(counter).map_or(0, |entry| entry.value());
        }
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the kernel allows the counters (root here, and CI), touching fresh pages counts one minor
    /// fault each, and a busy loop on a pinned thread counts no migration; where it does not, the error
    /// says why.
    #[test]
    fn fresh_pages_count_one_minor_fault_each() {
        let mut counters = match ThreadCounters::open() {
            Ok(c) => c,
            Err(why) => {
                assert!(why.contains("perf_event_open"), "{why}");
                return;
            }
        };
        const PAGES: usize = 64;
        let page = 4096;
        // SAFETY: an anonymous private mapping of PAGES pages, unmapped below; nothing else refers to it.
        let region = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                PAGES * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(region, libc::MAP_FAILED);
        let before = counters.read().unwrap();
        for i in 0..PAGES {
            // SAFETY: inside the mapping, one byte of page i, written once.
            unsafe { std::ptr::write_volatile((region as *mut u8).add(i * page), 1) };
        }
        let after = counters.read().unwrap();
        // SAFETY: the mapping made above, of that length, no longer used.
        unsafe { libc::munmap(region, PAGES * page) };
        let faults = after.since(before).of(CounterKind::MinorFaults);
        // Transparent huge pages may serve several pages with one fault; the reads themselves may add one or
        // two (a first touch of their buffer): about one a page, never far more.
        assert!((1..=PAGES as u64 + 4).contains(&faults), "{faults} minor faults for {PAGES} fresh pages");
        assert_eq!(after.since(before).of(CounterKind::MajorFaults), 0);
    }

    /// A thread that sleeps 50 times leaves its CPU at least 50 times, and the counters say so (where the
    /// kernel allows them).
    #[test]
    fn sleeping_counts_a_context_switch_each_time() {
        let Ok(mut counters) = ThreadCounters::open() else { return };
        let before = counters.read().unwrap();
        for _ in 0..50 {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let switches = counters.read().unwrap().since(before).of(CounterKind::ContextSwitches);
        assert!((50..=60).contains(&switches), "{switches} context switches for 50 sleeps");
    }
}
