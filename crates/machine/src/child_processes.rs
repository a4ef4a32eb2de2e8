//! The child processes' side of an operation (docs/METHOD.md §18): the faults, context switches and CPU time
//! of the processes a measurement forks — a fork's child reaped inside the operation, an IPC peer or an RPC
//! server that runs through the whole measurement. The kernel adds a child to `getrusage(RUSAGE_CHILDREN)`
//! only when it is reaped, so a child still running is read from `/proc` while it is watched
//! ([`WatchedChild`]). A watched child is reaped only through [`WatchedChild::reap`], which moves it from the
//! one to the other under the lock a reading holds, so no reading sees it in neither or both: the difference of
//! two readings is what the children did between them. (A thread that ends inside a running child takes its
//! switches and time with it: the sum falls, and the counts of that window read absent.)

use std::io;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::process_times::{rusage, timeval_ns};

/// The running children whose usage joins the reaped children's: their pids.
static WATCHED: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

fn watched() -> MutexGuard<'static, Vec<libc::pid_t>> {
    WATCHED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A forked child process (an IPC peer, an RPC server) whose faults, switches and CPU time count on the
/// children's side while it runs; reap it with [`WatchedChild::reap`]. Dropped unreaped, it only stops
/// watching (the child's counts then leave the sum until something reaps it).
#[must_use = "the child is watched only while this lives; reap it with WatchedChild::reap"]
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

    /// The child's pid.
    pub fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// Waits for the child to exit and reaps it; returns its wait status (as `waitpid` gives it). The wait
    /// leaves the child a zombie (`WNOWAIT`), whose counts `/proc` still shows; the reap and the end of the
    /// watch then happen together under the lock a reading holds.
    ///
    /// Errors: waiting or reaping failed (the child was not this process's, or was reaped elsewhere); the
    /// watch ends either way.
    pub fn reap(self) -> io::Result<libc::c_int> {
        let exited = wait_for_exit(self.pid);
        let mut list = watched();
        let mut status = 0;
        // SAFETY: `pid` is this process's child (the watch's contract); `status` is a valid int. After a
        // successful `waitid` it is a zombie, so this returns at once while the lock is held.
        let reaped = match exited {
            Ok(()) if unsafe { libc::waitpid(self.pid, &mut status, 0) } == self.pid => Ok(status),
            Ok(()) => Err(io::Error::last_os_error()),
            Err(e) => Err(e),
        };
        unwatch(&mut list, self.pid);
        drop(list);
        // The entry is gone already: no Drop to remove it again.
        std::mem::forget(self);
        reaped
    }
}

impl Drop for WatchedChild {
    fn drop(&mut self) {
        unwatch(&mut watched(), self.pid);
    }
}

/// Removes one entry of `pid` (a pid watched twice stays watched once).
fn unwatch(list: &mut Vec<libc::pid_t>, pid: libc::pid_t) {
    if let Some(i) = list.iter().position(|&p| p == pid) {
        list.swap_remove(i);
    }
}

/// Blocks until `pid` has exited, leaving it unreaped (`waitid` with `WNOWAIT`); retries when a signal
/// interrupts the wait.
fn wait_for_exit(pid: libc::pid_t) -> io::Result<()> {
    loop {
        // SAFETY: `siginfo_t` is plain data, for which all-zero bytes are a valid value.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: a valid pointer to that struct, which `waitid` fills; P_PID with our child's pid.
        if unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) } == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
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

/// The children's usage now: reaped and watched, read under the watch list's lock so that no
/// [`WatchedChild::reap`] falls between the two.
///
/// Errors: `getrusage` failed (it does not on Linux).
pub(crate) fn usage() -> io::Result<ChildUsage> {
    let list = watched();
    let reaped = rusage(libc::RUSAGE_CHILDREN)?;
    let mut total = ChildUsage {
        minor_faults: reaped.ru_minflt as u64,
        switches: (reaped.ru_nvcsw + reaped.ru_nivcsw) as u64,
        cpu_ns: timeval_ns(reaped.ru_utime) + timeval_ns(reaped.ru_stime),
    };
    let mut pids = list.clone();
    pids.sort_unstable();
    pids.dedup();
    for pid in pids {
        total = total.plus(running_usage(pid).unwrap_or_default());
    }
    drop(list);
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

    /// A watched child that blocks 20 times on a pipe (a ping-pong with a pause between rounds: each round it
    /// blocks, or is preempted, at least once) counts at least 20 switches and some CPU time while it runs;
    /// reaped through its watch, the children's sum does not fall (its whole life moved to
    /// `RUSAGE_CHILDREN`). Other tests of this binary may reap children meanwhile: lower bounds only.
    #[test]
    fn a_watched_child_counts_while_it_runs_and_the_sum_holds_when_it_is_reaped() {
        let (mut to_child, mut to_parent) = ([0; 2], [0; 2]);
        // SAFETY: two pipes, each into an array of two ints.
        assert_eq!(unsafe { libc::pipe(to_child.as_mut_ptr()) + libc::pipe(to_parent.as_mut_ptr()) }, 0);
        // SAFETY: the child only reads, writes, closes and calls `_exit` (async-signal-safe calls), so forking a
        // process with other threads is sound.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork: {}", io::Error::last_os_error());
        if pid == 0 {
            // SAFETY: in the child: echoes a byte at a time until the parent closes its end, then exits.
            unsafe {
                libc::close(to_child[1]);
                libc::close(to_parent[0]);
                let mut byte = 0u8;
                while libc::read(to_child[0], (&mut byte as *mut u8).cast(), 1) == 1 {
                    libc::write(to_parent[1], (&byte as *const u8).cast(), 1);
                }
                libc::_exit(0);
            }
        }
        // SAFETY: this process's copies of the child's ends, no longer used here.
        unsafe {
            libc::close(to_child[0]);
            libc::close(to_parent[1]);
        }
        let watch = WatchedChild::watch(pid);
        let before = usage().unwrap();
        for _ in 0..20 {
            let mut byte = 1u8;
            // SAFETY: one byte out of and back into a valid one-byte buffer, through the open ends.
            unsafe {
                assert_eq!(libc::write(to_child[1], (&byte as *const u8).cast(), 1), 1);
                assert_eq!(libc::read(to_parent[0], (&mut byte as *mut u8).cast(), 1), 1);
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let running = usage().unwrap();
        assert!(running.switches >= before.switches + 20, "{before:?} → {running:?}");
        assert!(running.cpu_ns > before.cpu_ns, "{before:?} → {running:?}");
        // SAFETY: closing our ends ends the child's loop.
        unsafe {
            libc::close(to_child[1]);
            libc::close(to_parent[0]);
        }
        let status = watch.reap().unwrap();
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "status {status}");
        let reaped = usage().unwrap();
        assert!(reaped.switches >= running.switches, "{running:?} → {reaped:?}");
        // rusage truncates the child's user and system time to µs each.
        assert!(reaped.cpu_ns + 2_000 >= running.cpu_ns, "{running:?} → {reaped:?}");
        assert!(!watched().contains(&pid), "the watch ended");
    }

    /// A pid watched twice stays watched until both watches end.
    #[test]
    fn a_pid_watched_twice_is_unwatched_once_per_watch() {
        let (a, b) = (WatchedChild::watch(-7), WatchedChild::watch(-7));
        drop(a);
        assert!(watched().contains(&-7));
        drop(b);
        assert!(!watched().contains(&-7));
    }
}
