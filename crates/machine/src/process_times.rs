//! Where the process's CPU time went: user or kernel, from `getrusage(RUSAGE_SELF)`, read around a
//! measurement so a point can say how much of its cost is the kernel's (docs/METHOD.md §18). The kernel
//! splits a thread's CPU time by sampling at its scheduler tick (4 ms at 250 Hz) unless it was built with
//! full-precision accounting, so a split is only as good as the number of ticks behind it: a share is
//! given only for a span of [`MIN_CPU_FOR_SHARE_NS`] or more, and a record counts the ticks behind a pooled
//! share with [`accounting_tick_ns`].

use std::io;

/// The least CPU time (user + kernel, every thread) a span must have for its kernel share to mean anything:
/// 40 ms, ten ticks at 250 Hz (four at 100 Hz).
pub const MIN_CPU_FOR_SHARE_NS: u64 = 40_000_000;

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

/// The CPU time of every thread of the process so far (ns), split as the kernel accounts it.
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
        let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
        Ok(ProcessTimes { user_ns: ns(usage.ru_utime), system_ns: ns(usage.ru_stime) })
    }

    /// The times between `earlier` and `self`. The kernel keeps each of them monotonic.
    pub fn since(self, earlier: ProcessTimes) -> ProcessTimes {
        ProcessTimes {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            system_ns: self.system_ns.saturating_sub(earlier.system_ns),
        }
    }

    /// The kernel's share of the CPU time (0 to 1), or `None` for a span with less than
    /// [`MIN_CPU_FOR_SHARE_NS`] of it (too few ticks behind the split).
    pub fn kernel_share(self) -> Option<f64> {
        let total = self.user_ns + self.system_ns;
        (total >= MIN_CPU_FOR_SHARE_NS).then(|| self.system_ns as f64 / total as f64)
    }
}

/// `getrusage(who)`: the process's (`RUSAGE_SELF`, every thread) or its waited-for children's usage.
///
/// Errors: the kernel refused (an unknown `who`).
pub(crate) fn rusage(who: libc::c_int) -> io::Result<libc::rusage> {
    // SAFETY: `getrusage` fills the zeroed `rusage` we own and reads nothing else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to that struct.
    if unsafe { libc::getrusage(who, &mut usage) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A span of system calls is mostly kernel time and a busy loop mostly user time; a short span has no
    /// share.
    #[test]
    fn system_calls_read_as_kernel_time_and_a_loop_as_user_time() {
        let spin = |ms: u64, mut body: Box<dyn FnMut()>| {
            let before = ProcessTimes::now().unwrap();
            let start = std::time::Instant::now();
            while start.elapsed() < std::time::Duration::from_millis(ms) {
                body();
            }
            ProcessTimes::now().unwrap().since(before)
        };
        let loop_only = spin(
            150,
            Box::new(|| {
                std::hint::black_box(0);
            }),
        );
        let calls = spin(
            150,
            Box::new(|| {
                // SAFETY: getppid takes nothing and cannot fail.
                std::hint::black_box(unsafe { libc::getppid() });
            }),
        );
        let (Some(user_side), Some(kernel_side)) = (loop_only.kernel_share(), calls.kernel_share()) else {
            // Another process took the CPU for most of the span: nothing to compare.
            return;
        };
        assert!(kernel_side > user_side, "getppid spans {kernel_side:.2} kernel, a plain loop {user_side:.2}");
        assert_eq!(ProcessTimes { user_ns: 1_000_000, system_ns: 0 }.kernel_share(), None);
    }

    /// Linux ticks at 100 to 1000 Hz, so the tick is 1 to 10 ms.
    #[test]
    fn the_tick_is_a_millisecond_to_ten() {
        let tick = accounting_tick_ns().expect("Linux has CLOCK_MONOTONIC_COARSE");
        assert!((1_000_000..=10_000_000).contains(&tick), "{tick} ns");
    }
}
