//! What the machine is, as far as timing concurrency primitives goes: which
//! logical CPUs exist and how they relate ([`Topology`]), which of them this
//! process may use ([`allowed_cpus`], [`pin_current_thread`]), and the facts
//! that decide whether a timing can be trusted ([`MachineInfo`]).
//!
//! Everything here is Linux-first. Detection never panics: whatever cannot be
//! read is reported as `None`, `false`, empty, or a documented fallback, so a
//! benchmark can always record *something* about where it ran.

mod describe;
mod topology;

pub use describe::{MachineInfo, TscFlags};
pub use topology::{CacheInfo, CpuInfo, Placement, Topology};

use std::fmt;
use std::io;
use std::mem::size_of;
use std::path::Path;

/// The contents of a small text file such as a sysfs or procfs attribute,
/// trimmed of surrounding whitespace (the kernel ends each value with `\n`);
/// `None` if it cannot be read. The one reader of such files for the topology
/// and the machine description alike.
fn read_trimmed(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

/// Why a CPU list such as `"0-3,8,10-11"` could not be parsed.
///
/// Returned by [`parse_cpu_list`]; `Display` gives a one-line description
/// that quotes the offending part of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuListError {
    /// The part of the input (one comma-separated item, or the whole input)
    /// that was rejected.
    pub item: String,
    /// What is wrong with it, e.g. "not a number" or "range end before start".
    pub reason: &'static str,
}

impl fmt::Display for CpuListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad CPU list item {:?}: {}", self.item, self.reason)
    }
}

impl std::error::Error for CpuListError {}

/// Largest CPU number [`parse_cpu_list`] accepts. Far above any real machine
/// (Linux tops out at 8192 today), yet small enough that a typo such as
/// `0-4000000000` cannot make us allocate gigabytes.
pub const MAX_CPU_INDEX: usize = 1 << 20;

/// Parse a Linux CPU list as found in sysfs (`/sys/devices/system/cpu/online`,
/// `.../cpulist`, `shared_cpu_list`) and as accepted by `taskset -c`.
///
/// Shape: comma-separated items, each either a CPU number `N` or an inclusive
/// range `A-B`; the kernel's stride form `A-B:S/G` (S CPUs used out of every G)
/// is accepted too. Surrounding whitespace (sysfs files end in `\n`) is
/// ignored, and an empty or all-whitespace input is the empty list, because
/// that is how sysfs spells "no CPUs".
///
/// Returns the CPUs sorted ascending without duplicates.
///
/// # Errors
/// [`CpuListError`] if an item is empty (`"1,,2"`), not a number, a range runs
/// backwards (`"3-1"`), a stride group is zero or smaller than its used count,
/// or a CPU number exceeds [`MAX_CPU_INDEX`].
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, CpuListError> {
    let text = text.trim();
    let mut cpus = Vec::new();
    if text.is_empty() {
        return Ok(cpus);
    }
    for raw_item in text.split(',') {
        let item = raw_item.trim();
        let bad = |reason| CpuListError { item: item.to_string(), reason };
        if item.is_empty() {
            return Err(bad("empty item"));
        }
        let (range, stride) = match item.split_once(':') {
            Some((range, stride)) => (range, Some(stride)),
            None => (item, None),
        };
        let number = |s: &str| -> Result<usize, CpuListError> {
            let s = s.trim();
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad("not a number"));
            }
            let n: usize = s.parse().map_err(|_| bad("number too large"))?;
            if n > MAX_CPU_INDEX {
                return Err(bad("CPU number too large"));
            }
            Ok(n)
        };
        let (start, end) = match range.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(range)?;
                (n, n)
            }
        };
        if end < start {
            return Err(bad("range end before start"));
        }
        let (used, group) = match stride {
            None => (1, 1),
            Some(stride) => {
                let (u, g) = stride.split_once('/').ok_or_else(|| bad("stride must be USED/GROUP"))?;
                let (u, g) = (number(u)?, number(g)?);
                if g == 0 || u == 0 || u > g {
                    return Err(bad("stride needs 0 < USED <= GROUP"));
                }
                (u, g)
            }
        };
        cpus.extend((start..=end).filter(|cpu| (cpu - start) % group < used));
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

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
    if let Some(online) = topology::online_cpus() {
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
/// [`MAX_CPU_INDEX`].
pub fn pin_current_thread(cpu: usize) -> io::Result<()> {
    if cpu > MAX_CPU_INDEX {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("CPU {cpu} is beyond the largest supported index {MAX_CPU_INDEX}"),
        ));
    }
    let words = (cpu / MASK_WORD_BITS + 1).max(MIN_MASK_WORDS);
    let mut mask: Vec<libc::c_ulong> = vec![0; words];
    mask[cpu / MASK_WORD_BITS] |= 1 << (cpu % MASK_WORD_BITS);
    // SAFETY: `mask` is a live buffer of exactly `words * size_of::<c_ulong>()`
    // bytes, at least `size_of::<cpu_set_t>()` and aligned like `cpu_set_t`;
    // the kernel only reads it, and reads no more than the length we pass.
    // pid 0 means the calling thread.
    let rc = unsafe {
        libc::sched_setaffinity(0, words * size_of::<libc::c_ulong>(), mask.as_ptr().cast::<libc::cpu_set_t>())
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_list_parses_sysfs_forms() {
        assert_eq!(parse_cpu_list("0"), Ok(vec![0]));
        assert_eq!(parse_cpu_list("0-3\n"), Ok(vec![0, 1, 2, 3]));
        assert_eq!(parse_cpu_list("0-3,8,10-11"), Ok(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(parse_cpu_list(" 5 , 1-2 "), Ok(vec![1, 2, 5]));
        assert_eq!(parse_cpu_list("3,1-3,2"), Ok(vec![1, 2, 3]));
        assert_eq!(parse_cpu_list(""), Ok(vec![]));
        assert_eq!(parse_cpu_list("\n"), Ok(vec![]));
        assert_eq!(parse_cpu_list("0-9:2/5"), Ok(vec![0, 1, 5, 6]));
        assert_eq!(parse_cpu_list("4-4"), Ok(vec![4]));
    }

    #[test]
    fn cpu_list_rejects_bad_input() {
        for bad in [
            "a",
            "1,,2",
            ",",
            "1-",
            "-1",
            "3-1",
            "1.5",
            "0x3",
            "1 2",
            "+1",
            "0-3:0/0",
            "0-3:3/2",
            "0-3:1",
            "99999999999999999999999",
            "0-4000000000",
        ] {
            let err = parse_cpu_list(bad).expect_err(bad);
            assert!(!err.to_string().is_empty());
        }
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
    fn pinning_to_absent_cpu_fails() {
        std::thread::scope(|s| {
            s.spawn(|| {
                assert!(pin_current_thread(100_000).is_err());
                assert!(pin_current_thread(usize::MAX).is_err());
            });
        });
    }
}
