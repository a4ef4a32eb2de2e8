//! Which CPUs this thread may run on, and pinning a thread to one: `sched_getaffinity` and
//! `sched_setaffinity` on kernel CPU masks.

use std::io;
use std::mem::size_of;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::topology::online_cpus;
use super::MAX_CPU_INDEX;

/// Bits in one word of a kernel CPU mask; the kernel lays masks out as arrays
/// of `unsigned long`, lowest CPU in bit 0 of word 0.
const MASK_WORD_BITS: usize = libc::c_ulong::BITS as usize;

/// Words in a glibc `cpu_set_t` (1024 CPUs): the smallest mask we ever pass,
/// because glibc and the kernel both expect at least that much.
const MIN_MASK_WORDS: usize = size_of::<libc::cpu_set_t>() / size_of::<libc::c_ulong>();

/// Words enough for [`MAX_CPU_INDEX`]; stops the grow-on-EINVAL loop in
/// [`affinity_mask`] from running forever if the kernel keeps refusing.
const MAX_MASK_WORDS: usize = MAX_CPU_INDEX / MASK_WORD_BITS + 1;

/// The calling thread's affinity mask, as a sorted CPU list.
fn affinity_mask() -> io::Result<Vec<usize>> {
    let mut words = MIN_MASK_WORDS;
    loop {
        let mut mask: Vec<libc::c_ulong> = vec![0; words];
        // SAFETY: `mask` is a live, writable buffer of exactly
        // `words * size_of::<c_ulong>()` bytes, at least `size_of::<cpu_set_t>()`
        // and aligned like `cpu_set_t` (an array of `unsigned long`); the kernel
        // writes no more than the length we pass. pid 0 means the caller.
        let rc = unsafe {
            libc::sched_getaffinity(0, words * size_of::<libc::c_ulong>(), mask.as_mut_ptr().cast::<libc::cpu_set_t>())
        };
        if rc == 0 {
            return Ok(mask_to_cpus(&mask));
        }
        let err = io::Error::last_os_error();
        // EINVAL here means "your mask is smaller than the kernel's nr_cpu_ids":
        // possible on machines with more than 1024 possible CPUs.
        if err.raw_os_error() == Some(libc::EINVAL) && words < MAX_MASK_WORDS {
            words = (words * 2).min(MAX_MASK_WORDS);
            continue;
        }
        return Err(err);
    }
}

/// The CPUs whose bits are set in a kernel CPU mask, ascending.
fn mask_to_cpus(mask: &[libc::c_ulong]) -> Vec<usize> {
    let mut cpus = Vec::new();
    for (w, &word) in mask.iter().enumerate() {
        for bit in 0..MASK_WORD_BITS {
            if word & (1 << bit) != 0 {
                cpus.push(w * MASK_WORD_BITS + bit);
            }
        }
    }
    cpus
}

/// Logical CPUs this process may run on, sorted ascending (Linux CPU numbers,
/// as in `/sys/devices/system/cpu/cpuN`).
///
/// Taken from `sched_getaffinity` of the calling thread, so it reflects
/// `taskset`, cgroup cpusets and any earlier [`pin_current_thread`] on *this*
/// thread. Call it before pinning, from the main thread, to learn what the
/// process as a whole was given.
///
/// Never fails: if the kernel refuses, falls back to the online CPUs, and if
/// those are unreadable too, to `0..std::thread::available_parallelism()`.
pub fn allowed_cpus() -> Vec<usize> {
    if let Ok(cpus) = affinity_mask() {
        if !cpus.is_empty() {
            return cpus;
        }
    }
    if let Some(online) = online_cpus() {
        if !online.is_empty() {
            return online;
        }
    }
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    (0..n).collect()
}

/// Pin the calling thread (only it, not the process) to logical CPU `cpu`,
/// using `sched_setaffinity` with pid 0.
///
/// After `Ok(())` the thread runs only on `cpu` until it is re-pinned or
/// exits; other threads keep their own masks.
///
/// # Errors
/// The OS error from `sched_setaffinity` (typically `EINVAL` when `cpu` is
/// offline, does not exist, or is outside this process's cpuset; `EPERM`
/// when a policy forbids it), or `ErrorKind::InvalidInput` if `cpu` exceeds
/// [`MAX_CPU_INDEX`]. Every refusal is counted in [`refused_pinnings`].
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    let pinned = cpu_mask(&[cpu]).and_then(|mask| set_affinity_mask(&mask));
    if pinned.is_err() {
        REFUSED_PINNINGS.fetch_add(1, Ordering::Relaxed);
    }
    pinned
}

/// [`pin_current_thread`] calls refused in this process so far, by any thread.
static REFUSED_PINNINGS: AtomicUsize = AtomicUsize::new(0);

/// How many [`pin_current_thread`] calls were refused in this process so far, by any thread. A probe
/// measures one point, so the count's growth across its measurement is the point's refused pinnings: a
/// number its result carries beside the notes that describe them, so nothing has to read the notes' words.
pub fn refused_pinnings() -> usize {
    REFUSED_PINNINGS.load(Ordering::Relaxed)
}

/// The affinity mask holding `cpus`, as `sched_setaffinity` reads it: words of `c_ulong`, at least a
/// `cpu_set_t`'s worth. Built ahead of [`set_affinity_mask`] so that call allocates nothing (it may run
/// between `fork` and `exec`).
///
/// # Errors
/// `ErrorKind::InvalidInput` when a CPU exceeds [`MAX_CPU_INDEX`].
pub fn cpu_mask(cpus: &[usize]) -> io::Result<Vec<libc::c_ulong>> {
    if let Some(&cpu) = cpus.iter().find(|&&c| c > MAX_CPU_INDEX) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("CPU {cpu} is beyond the largest supported index {MAX_CPU_INDEX}"),
        ));
    }
    let largest = cpus.iter().copied().max().unwrap_or(0);
    let words = (largest / MASK_WORD_BITS + 1).max(MIN_MASK_WORDS);
    let mut mask: Vec<libc::c_ulong> = vec![0; words];
    for &cpu in cpus {
        mask[cpu / MASK_WORD_BITS] |= 1 << (cpu % MASK_WORD_BITS);
    }
    Ok(mask)
}

/// Restricts the calling thread (and the threads and processes it starts later, which inherit the mask)
/// to the CPUs of `mask` (from [`cpu_mask`]). Allocates nothing and makes one system call, so it is safe
/// between `fork` and `exec` (an external probe's `pre_exec`).
///
/// # Errors
/// The OS error from `sched_setaffinity`, as [`pin_current_thread`].
pub fn set_affinity_mask(mask: &[libc::c_ulong]) -> io::Result<()> {
    // SAFETY: `mask` is a live buffer of exactly `mask.len() * size_of::<c_ulong>()` bytes, at least
    // `size_of::<cpu_set_t>()` (cpu_mask's minimum) and aligned like `cpu_set_t`; the kernel only reads it,
    // and reads no more than the length we pass. pid 0 means the calling thread.
    let rc =
        unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(mask), mask.as_ptr().cast::<libc::cpu_set_t>()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Topology;

    #[test]
    fn mask_bits_are_cpu_numbers_word_by_word() {
        assert_eq!(mask_to_cpus(&[0b101, 1]), vec![0, 2, MASK_WORD_BITS]);
        assert_eq!(mask_to_cpus(&[0, 0]), Vec::<usize>::new());
    }

    #[test]
    fn allowed_cpus_is_sorted_nonempty_and_online() {
        let allowed = allowed_cpus();
        assert!(!allowed.is_empty());
        assert!(allowed.windows(2).all(|w| w[0] < w[1]));
        let topo = Topology::detect();
        for cpu in &allowed {
            assert!(topo.cpu(*cpu).is_some(), "allowed CPU {cpu} not online");
        }
    }

    #[test]
    fn pinning_to_allowed_cpu_succeeds_and_sticks() {
        let allowed = allowed_cpus();
        let target = *allowed.last().unwrap();
        // A scoped thread so the test runner's thread keeps its full mask.
        std::thread::scope(|s| {
            s.spawn(|| {
                pin_current_thread(target).expect("pin to an allowed CPU");
                assert_eq!(affinity_mask().unwrap(), vec![target]);
                // SAFETY: sched_getcpu has no preconditions.
                let now = unsafe { libc::sched_getcpu() };
                assert_eq!(usize::try_from(now).ok(), Some(target));
            });
        });
    }

    #[test]
    fn a_mask_of_several_cpus_holds_exactly_them_and_is_kept_by_a_child() {
        let mask = cpu_mask(&[1, 3, 3, MASK_WORD_BITS + 2]).unwrap();
        assert!(mask.len() >= MIN_MASK_WORDS);
        assert_eq!(mask_to_cpus(&mask), vec![1, 3, MASK_WORD_BITS + 2]);
        assert!(cpu_mask(&[MAX_CPU_INDEX + 1]).is_err());
        // A mask set on a thread is what the processes it starts inherit (how external probes are placed).
        let allowed = allowed_cpus();
        let target = *allowed.last().unwrap();
        std::thread::scope(|s| {
            s.spawn(|| {
                set_affinity_mask(&cpu_mask(&[target]).unwrap()).unwrap();
                let out = std::process::Command::new("cat").arg("/proc/self/status").output().unwrap();
                let status = String::from_utf8_lossy(&out.stdout);
                let line = status.lines().find(|l| l.starts_with("Cpus_allowed_list:")).unwrap();
                assert_eq!(line.split_whitespace().nth(1), Some(target.to_string().as_str()), "{line}");
            });
        });
    }

    #[test]
    fn pinning_to_absent_cpu_fails() {
        std::thread::scope(|s| {
            s.spawn(|| {
                let before = refused_pinnings();
                assert!(pin_current_thread(100_000).is_err());
                assert!(pin_current_thread(usize::MAX).is_err());
                // Other tests may be refused at the same time: at least these two were counted.
                assert!(refused_pinnings() >= before + 2);
            });
        });
    }
}
