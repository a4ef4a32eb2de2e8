//! Raw counter reads. Everything here is `#[inline(always)]`: these sit at the edges of timed batches.

/// Nanoseconds of the given POSIX clock (`libc::CLOCK_*`), as one `u64`.
///
/// Errors are impossible for the clock IDs this crate passes (all exist on Linux ≥ 2.6.28); a failing
/// call would leave the zeroed timespec and read as 0.
#[inline(always)]
pub fn clock_gettime_ns(clock_id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    unsafe { libc::clock_gettime(clock_id, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The hardware counters a batch edge may read.
pub struct Counter;

impl Counter {
    /// TSC read for the start of a batch: `lfence; rdtsc`. The fence keeps the read from being hoisted
    /// above earlier instructions (Intel's "How to Benchmark Code Execution Times", §3.2.1; AMD with
    /// `lfence` made dispatch-serialising by the kernel behaves the same).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn tsc_start() -> u64 {
        use core::arch::x86_64::{_mm_lfence, _rdtsc};
        // SAFETY: lfence and rdtsc exist on every x86-64 CPU (SSE2 is baseline) and touch no memory.
        unsafe {
            _mm_lfence();
            _rdtsc()
        }
    }

    /// TSC read for the end of a batch: `rdtscp; lfence`. rdtscp waits for the timed work to retire;
    /// the trailing fence keeps later work from starting before the read.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn tsc_stop() -> u64 {
        use core::arch::x86_64::{__rdtscp, _mm_lfence};
        let mut aux = 0u32;
        // SAFETY: the caller chose the TSC only after CPUID reported rdtscp (see `Clock::detect`);
        // `aux` is a valid u32 for the instruction's TSC_AUX output.
        unsafe {
            let t = __rdtscp(&mut aux);
            _mm_lfence();
            t
        }
    }

    /// aarch64 virtual counter (`cntvct_el0`) behind an `isb`, so the read is not taken early.
    #[cfg(target_arch = "aarch64")]
    #[inline(always)]
    pub fn cntvct() -> u64 {
        let t: u64;
        // SAFETY: cntvct_el0 is readable from EL0 on Linux (the kernel enables it for the vDSO);
        // isb only orders the pipeline.
        unsafe { core::arch::asm!("isb", "mrs {t}, cntvct_el0", t = out(reg) t, options(nostack, nomem)) };
        t
    }

    /// Frequency of the aarch64 virtual counter in Hz, as the architecture reports it.
    #[cfg(target_arch = "aarch64")]
    pub fn cntfrq() -> u64 {
        let f: u64;
        // SAFETY: cntfrq_el0 is readable from EL0 and has no side effects.
        unsafe { core::arch::asm!("mrs {f}, cntfrq_el0", f = out(reg) f, options(nostack, nomem)) };
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_gettime_is_monotonic() {
        let a = clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW);
        let b = clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW);
        assert!(a > 0 && b >= a);
    }

    /// Catches a fence or intrinsic mistake that returns garbage: the counter must move forward.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn tsc_edges_move_forward() {
        let a = Counter::tsc_start();
        let b = Counter::tsc_stop();
        let c = Counter::tsc_start();
        assert!(b > a && c > b, "{a} {b} {c}");
    }
}
