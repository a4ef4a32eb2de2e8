//! The child processes' side of an operation (docs/METHOD.md §18): the faults, context switches and CPU time
//! of the processes a measurement forks — a fork's child reaped inside the operation, an IPC peer or an RPC
//! server that runs through the whole measurement. The kernel adds a child to `getrusage(RUSAGE_CHILDREN)`
//! only when it is reaped, so a child still running is read from `/proc` while it is watched
//! ([`WatchedChild`]); the sum of the two is continuous when a watched child is reaped (its whole life moves
//! from the one to the other), so the difference of two readings is what the children did between them.

use std::io;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::process_times::{rusage, timeval_ns};

/// The running children whose usage joins the reaped children's: their pids.
static WATCHED: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

fn watched() -> MutexGuard<'static, Vec<libc::pid_t>> {
    WATCHED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A forked child process (an IPC peer, an RPC server) whose faults, switches and CPU time count on the
/// children's side while it runs. Drop it before reaping the child: the kernel then adds the child's whole
/// life to the reaped children's, and the sum goes on without a jump.
#[must_use = "the child is watched only while this lives"]
#[derive(Debug)]
pub struct WatchedChild {
    pid: libc::pid_t,
}

impl WatchedChild {
    /// Watches `pid`, a child of this process that has not been reaped.
    pub fn watch(pid: libc::pid_t) -> WatchedChild {
        watched().push(pid);
        WatchedChild { pid }
    }
}

impl Drop for WatchedChild {
    fn drop(&mut self) {
        watched().retain(|&p| p != self.pid);
    }
}

/// The children's usage so far: the reaped ones' (`RUSAGE_CHILDREN`) and the watched running ones' (`/proc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ChildUsage {
    /// Minor page faults, every thread's.
    pub minor_faults: u64,
    /// Context switches, voluntary and involuntary, every thread's.
    pub switches: u64,
    /// Time on a CPU (ns), every thread's.
    pub cpu_ns: u64,
}

impl ChildUsage {
    fn plus(self, other: ChildUsage) -> ChildUsage {
        ChildUsage {
            minor_faults: self.minor_faults + other.minor_faults,
            switches: self.switches + other.switches,
            cpu_ns: self.cpu_ns + other.cpu_ns,
        }
    }
}

/// The children's usage now: reaped and watched. A watched child that has gone from `/proc` counts nothing
/// until it is reaped.
///
/// Errors: `getrusage` failed (it does not on Linux).
pub(crate) fn usage() -> io::Result<ChildUsage> {
    let reaped = rusage(libc::RUSAGE_CHILDREN)?;
    let mut total = ChildUsage {
        minor_faults: reaped.ru_minflt as u64,
        switches: (reaped.ru_nvcsw + reaped.ru_nivcsw) as u64,
        cpu_ns: timeval_ns(reaped.ru_utime) + timeval_ns(reaped.ru_stime),
    };
    let pids = watched().clone();
    for pid in pids {
        total = total.plus(running_usage(pid).unwrap_or_default());
    }
    Ok(total)
}

/// A running process's usage from `/proc/{pid}`: its minor faults (`stat`, every thread's), and each of its
/// threads' context switches (`task/*/status`) and time on a CPU (`task/*/schedstat`, ns). A thread that
/// ended takes its switches and time with it; `None` where the process is gone.
fn running_usage(pid: libc::pid_t) -> Option<ChildUsage> {
    let proc_dir = format!("/proc/{pid}");
    let minor_faults = minor_faults(&std::fs::read_to_string(format!("{proc_dir}/stat")).ok()?)?;
    let mut usage = ChildUsage { minor_faults, ..ChildUsage::default() };
    for task in std::fs::read_dir(format!("{proc_dir}/task")).ok()?.flatten() {
        let path = task.path();
        if let Ok(status) = std::fs::read_to_string(path.join("status")) {
            usage.switches += switches(&status);
        }
        if let Ok(schedstat) = std::fs::read_to_string(path.join("schedstat")) {
            usage.cpu_ns += schedstat.split_whitespace().next().and_then(|ns| ns.parse::<u64>().ok()).unwrap_or(0);
        }
    }
    Some(usage)
}

/// The minor faults of a `/proc/{pid}/stat` line: its 10th field, counted after the command name in
/// parentheses (which may itself hold spaces and parentheses).
fn minor_faults(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(7)?.parse().ok()
}

/// The voluntary and involuntary context switches of a `/proc/{pid}/task/{tid}/status`, together.
fn switches(status: &str) -> u64 {
    status
        .lines()
        .filter_map(|line| {
            let value = line
                .strip_prefix("voluntary_ctxt_switches:")
                .or_else(|| line.strip_prefix("nonvoluntary_ctxt_switches:"))?;
            value.trim().parse::<u64>().ok()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minor_faults_are_the_tenth_field_whatever_the_name() {
        let stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 1234 0 5 0 17 3 0 0 20 0 1 0 99 0 0";
        assert_eq!(minor_faults(stat), Some(1234));
        assert_eq!(minor_faults("4242 (x) S 1"), None, "too short");
        assert_eq!(minor_faults("no name here"), None);
    }

    #[test]
    fn switches_add_the_voluntary_and_the_involuntary() {
        let status = "Name:\tpeer\nvoluntary_ctxt_switches:\t40\nnonvoluntary_ctxt_switches:\t2\n";
        assert_eq!(switches(status), 42);
        assert_eq!(switches("Name:\tpeer\n"), 0);
    }

    /// A watched child that blocks 20 times on a pipe counts at least 20 switches and some CPU time while it
    /// runs; reaped after the watch ends, the children's sum does not fall (its whole life moved to
    /// `RUSAGE_CHILDREN`). Other tests of this binary may reap children meanwhile: lower bounds only.
    #[test]
    fn a_watched_child_counts_while_it_runs_and_the_sum_holds_when_it_is_reaped() {
        let mut fds = [0; 2];
        // SAFETY: a pipe into an array of two ints.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let [read_end, write_end] = fds;
        // SAFETY: the child only reads from the pipe and calls `_exit` (async-signal-safe calls), so forking
        // a process with other threads is sound.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork: {}", io::Error::last_os_error());
        if pid == 0 {
            // SAFETY: in the child: reads a byte at a time until the parent closes its end, then exits.
            unsafe {
                libc::close(write_end);
                let mut byte = 0u8;
                while libc::read(read_end, (&mut byte as *mut u8).cast(), 1) == 1 {}
                libc::_exit(0);
            }
        }
        // SAFETY: this process's copy of the read end, no longer used here.
        unsafe { libc::close(read_end) };
        let watch = WatchedChild::watch(pid);
        std::thread::sleep(std::time::Duration::from_millis(5));
        let before = usage().unwrap();
        for _ in 0..20 {
            // SAFETY: one byte from a valid buffer into the pipe's open write end.
            assert_eq!(unsafe { libc::write(write_end, [1u8].as_ptr().cast(), 1) }, 1);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let running = usage().unwrap();
        assert!(running.switches >= before.switches + 20, "{before:?} → {running:?}");
        assert!(running.cpu_ns > before.cpu_ns, "{before:?} → {running:?}");
        drop(watch);
        // SAFETY: closing our write end ends the child's loop; `pid` is our own unreaped child.
        unsafe {
            libc::close(write_end);
            assert_eq!(libc::waitpid(pid, std::ptr::null_mut(), 0), pid);
        }
        let reaped = usage().unwrap();
        assert!(reaped.switches >= running.switches, "{running:?} → {reaped:?}");
        // rusage truncates the child's user and system time to µs each.
        assert!(reaped.cpu_ns + 2_000 >= running.cpu_ns, "{running:?} → {reaped:?}");
        assert!(!watched().contains(&pid), "the watch ended");
    }
}
