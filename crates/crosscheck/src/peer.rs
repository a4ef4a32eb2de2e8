//! One peer tool behind one trait (as core-to-core-latency puts one benchmark a file behind one trait): what
//! it is compared with, the command that runs it on the point's CPUs, and how its output becomes our metric.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use overhead_record::PeerCase;
use wait_timeout::ChildExt;

/// How long one run of a peer may take, unless it says otherwise ([`Peer::timeout`]), before it is killed
/// and the round has no reading from it.
pub const PEER_TIMEOUT: Duration = Duration::from_secs(120);

/// A peer tool of the crosscheck (docs/METHOD.md §20).
pub trait Peer {
    /// Its name as the report shows it (`lmbench lat_syscall`).
    fn name(&self) -> String;
    /// What installs it here, for the report of a missing peer.
    fn install(&self) -> String;
    /// Its numbers and the points of ours they are compared with.
    fn cases(&self) -> Vec<PeerCase>;
    /// The command that runs it on `cpus` (our first case's point's CPUs, thread 0 first), or why it cannot
    /// run here (not installed).
    fn command(&self, cpus: &[usize]) -> Result<PeerCommand, String>;
    /// How long one run may take before it is stopped and the round has no reading from it.
    fn timeout(&self) -> Duration {
        PEER_TIMEOUT
    }
    /// Its numbers from what it printed, by case, converted to our metric (ns).
    ///
    /// Errors: the output is not what the tool prints; the message quotes what was expected.
    fn parse(&self, stdout: &str, stderr: &str) -> Result<BTreeMap<String, f64>, String>;
}

/// A command line with its environment, and commands to run before and after it (a server to start and
/// stop: lmbench's `lat_tcp -s` and `-S`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PeerCommand {
    /// The program and its arguments (with `taskset -c …` in front where it is pinned).
    pub argv: Vec<String>,
    /// Environment settings added for it (`ENOUGH`, `OMP_NUM_THREADS`, `GOMP_CPU_AFFINITY`).
    pub env: Vec<(String, String)>,
    /// A command run to completion first (a server to start), its output dropped.
    pub before: Option<Vec<String>>,
    /// A command run last whatever happened (the server to stop).
    pub after: Option<Vec<String>>,
    /// How long the command may run ([`Peer::timeout`]); [`PEER_TIMEOUT`] when left at zero.
    pub timeout: Duration,
}

impl PeerCommand {
    /// `argv`, pinned to `cpus` with `taskset` where this machine has it.
    pub fn pinned(cpus: &[usize], argv: Vec<String>) -> PeerCommand {
        PeerCommand { argv: with_taskset(cpus, argv), ..PeerCommand::default() }
    }

    /// The command line as a shell would show it.
    pub fn display(&self) -> String {
        let quoted = |v: &str| if v.contains(' ') { format!("'{v}'") } else { v.to_string() };
        let env: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={}", quoted(v))).collect();
        env.into_iter().chain(self.argv.iter().cloned()).collect::<Vec<_>>().join(" ")
    }

    /// Runs it (its `before` first and its `after` whatever happens), returning stdout and stderr.
    ///
    /// Errors: it could not start, ran past its timeout, or exited with a failure; the message says which.
    pub fn run(&self) -> Result<(String, String), String> {
        let limit = if self.timeout.is_zero() { PEER_TIMEOUT } else { self.timeout };
        if let Some(before) = &self.before {
            run_argv(before, &self.env, false, PEER_TIMEOUT)?;
        }
        let result = run_argv(&self.argv, &self.env, true, limit);
        if let Some(after) = &self.after {
            let _ = run_argv(after, &self.env, false, PEER_TIMEOUT);
        }
        result
    }
}

/// `taskset -c LIST argv…` where `taskset` is on the PATH, `argv` alone otherwise.
pub fn with_taskset(cpus: &[usize], argv: Vec<String>) -> Vec<String> {
    match (find_program("taskset"), cpus.is_empty()) {
        (Some(taskset), false) => {
            let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
            let mut pinned = vec![taskset.display().to_string(), "-c".into(), list.join(",")];
            pinned.extend(argv);
            pinned
        }
        _ => argv,
    }
}

/// `program` on the PATH, or in `extra_dirs` (lmbench installs into a directory of its own).
pub fn find_program_in(program: &str, extra_dirs: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(extra_dirs.iter().map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

/// `program` on the PATH.
pub fn find_program(program: &str) -> Option<PathBuf> {
    find_program_in(program, &[])
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Runs `argv` with `env` added, waiting at most `limit`; `capture` keeps its output.
fn run_argv(
    argv: &[String],
    env: &[(String, String)],
    capture: bool,
    limit: Duration,
) -> Result<(String, String), String> {
    let (program, args) = argv.split_first().ok_or("an empty command")?;
    let output = if capture { Stdio::piped } else { Stdio::null };
    let mut child = Command::new(program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(output())
        .stderr(output())
        .spawn()
        .map_err(|e| format!("{program} could not start: {e}"))?;
    // The output is read on threads, so a peer that prints much cannot block on a full pipe.
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let status = match child.wait_timeout(limit).map_err(|e| e.to_string())? {
        Some(status) => status,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("{program} ran past {} s and was stopped", limit.as_secs()));
        }
    };
    let (out, err) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
    if !status.success() {
        let tail: String = err.lines().rev().take(3).collect::<Vec<_>>().join(" / ");
        return Err(format!("{program} exited with {status}: {tail}"));
    }
    Ok((out, err))
}

/// The number after `label` on the first line that holds it (`"Simple syscall: 0.0983 microseconds"` with
/// label `"Simple syscall:"` gives 0.0983).
pub fn number_after(text: &str, label: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.contains(label))?;
    let rest = &line[line.find(label)? + label.len()..];
    rest.split_whitespace().find_map(|w| w.trim_end_matches([',', ';']).parse::<f64>().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_is_read_after_its_label() {
        assert_eq!(number_after("x\nSimple syscall: 0.0983 microseconds\n", "Simple syscall:"), Some(0.0983));
        assert_eq!(number_after("BARRIER overhead     = 0.4 microseconds +/- 0.1", "BARRIER overhead"), Some(0.4));
        assert_eq!(number_after("nothing", "Pipe latency:"), None);
    }

    #[test]
    fn a_command_that_fails_says_so_and_one_that_runs_gives_its_output() {
        let ok =
            PeerCommand { argv: vec!["sh".into(), "-c".into(), "echo out; echo err >&2".into()], ..Default::default() };
        assert_eq!(ok.run().unwrap(), ("out\n".into(), "err\n".into()));
        let bad =
            PeerCommand { argv: vec!["sh".into(), "-c".into(), "echo why >&2; exit 3".into()], ..Default::default() };
        let e = bad.run().unwrap_err();
        assert!(e.contains("exit status: 3") && e.contains("why"), "{e}");
        let missing = PeerCommand { argv: vec!["/nonexistent/peer".into()], ..Default::default() };
        assert!(missing.run().unwrap_err().contains("could not start"));
    }
}
