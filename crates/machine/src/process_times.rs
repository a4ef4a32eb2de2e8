//! Where the process's CPU time went: user or kernel, from `getrusage(RUSAGE_SELF)`, so a point can say how
//! much of its cost is the kernel's (docs/METHOD.md §18). The kernel splits CPU time by sampling at its
//! scheduler tick (4 ms at 250 Hz; [`accounting_tick_ns`]) unless it was built with full-precision
//! accounting, and `getrusage` reports the precise total split in the proportion of *every* tick since the
//! process started. So the split of a reading is the process's whole life's, and the difference of two
//! readings is not the window's own split (it carries the start-up's proportion): a record takes the split
//! of the reading at the end, and says how much of the CPU time the measuring window was (the totals, unlike
//! the split, are exact).

use std::io;

/// The kernel's tick (ns): the resolution of its coarse clocks, which advance once a tick
/// (`clock_getres(CLOCK_MONOTONIC_COARSE)`: 4 ms at 250 Hz); `None` where the clock is not there.
pub fn accounting_tick_ns() -> Option<u64> {
    let mut res = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_getres writes one timespec into the one we own.
    if unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC_COARSE, &mut res) } != 0 {
        return None;
    }
    let ns = res.tv_sec as u64 * 1_000_000_000 + res.tv_nsec as u64;
    (ns > 0).then_some(ns)
}

/// The CPU time of every thread of the process so far (ns), split as the kernel accounts it: the total is
/// exact, the split the proportion of the scheduler ticks that found the process in the kernel, over its
/// whole life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcessTimes {
    /// In user space.
    pub user_ns: u64,
    /// In the kernel, on the process's behalf (system calls, faults).
    pub system_ns: u64,
}

impl ProcessTimes {
    /// The process's times now.
    ///
    /// Errors: `getrusage` failed (it does not on Linux).
    pub fn now() -> io::Result<ProcessTimes> {
        let usage = rusage(libc::RUSAGE_SELF)?;
        Ok(ProcessTimes { user_ns: timeval_ns(usage.ru_utime), system_ns: timeval_ns(usage.ru_stime) })
    }

    /// User and kernel together (ns): exact.
    pub fn total_ns(self) -> u64 {
        self.user_ns + self.system_ns
    }
}

/// A `timeval` of `getrusage` (µs resolution) in ns.
pub(crate) fn timeval_ns(t: libc::timeval) -> u64 {
    t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000
}

/// `getrusage(who)`: the process's (`RUSAGE_SELF`, every thread) or its waited-for children's usage.
///
/// Errors: the kernel refused (an unknown `who`).
pub(crate) fn rusage(who: libc::c_int) -> io::Result<libc::rusage> {
    // SAFETY: `rusage` is plain integers and `timeval`s, for which all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to that struct, which `getrusage` fills and nothing else reads meanwhile.
    if unsafe { libc::getrusage(who, &mut usage) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The total grows by at least this thread's own CPU time (other threads of the test binary may add
    /// theirs), and a process that has made system calls has a kernel side.
    #[test]
    fn the_total_covers_this_threads_cpu_time_and_system_calls_count_as_kernel() {
        let thread_ns = || crate::thread_counters::thread_cpu_ns().unwrap();
        let (before, own_before) = (ProcessTimes::now().unwrap(), thread_ns());
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_millis(50) {
            // SAFETY: getppid takes nothing and cannot fail.
            std::hint::black_box(unsafe { libc::getppid() });
        }
        let (after, own) = (ProcessTimes::now().unwrap(), thread_ns() - own_before);
        // The kernel brings the totals up to date for the calling thread; allow a microsecond of rounding
        // (rusage counts in µs).
        assert!(after.total_ns() + 1_000 >= before.total_ns() + own, "{before:?} → {after:?}, own {own} ns");
        assert!(after.system_ns > 0, "{after:?}");
    }
}
