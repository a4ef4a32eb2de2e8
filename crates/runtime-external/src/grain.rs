//! `grain.sweep` on an external runtime: the search stays in Rust (`overhead_experiments::grain`), and the
//! external probe, started by `overhead probe` with the point's job, times the runs it is asked for
//! over its stdin (probes/README.md "grain.sweep: a conversation, the search in Rust"). The probe's own
//! clock times each run and its empty control, so the pipe's round trip is never part of a run.

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};

use overhead_harness::{Harness, Measurement};
use overhead_protocol::{ProbeJob, ProbeMessage, RunsRequest, TimedRuns, VERSION};
use overhead_record::PointSpec;
use overhead_runtime_api::grain_sweep::GrainRuns;
use overhead_runtime_api::grain_tally::Tally;

/// How long the probe may take to end after its stdin closes before it is killed.
const END_WAIT: Duration = Duration::from_secs(5);

/// An external probe in the `grain.sweep` conversation: its runs ([`GrainRuns`]) and its per-CPU task
/// counts ([`Tally`]). Dropping it closes the probe's stdin, which ends it.
pub struct RemoteRuns {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Tasks per CPU from the answers, shared with the sweep's [`RemoteTally`].
    counts: RemoteTally,
    /// The probe's notes before it was ready (its JIT warm-up).
    pub notes: Vec<String>,
}

impl RemoteRuns {
    /// Starts the probe for `spec` with `command` (the runtime's launch line, minus the job) and waits
    /// for its `ready` line. The probe is killed if this process dies first (`PR_SET_PDEATHSIG`), so no
    /// probe outlives a timed-out `overhead probe`.
    ///
    /// Errors: the probe could not start, answered an error, or ended before it was ready.
    pub fn start(mut command: Command, spec: &PointSpec) -> anyhow::Result<RemoteRuns> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        // SAFETY: runs in the child between fork and exec; prctl with constant arguments touches no memory of
        // ours and is async-signal-safe. A refusal fails the spawn rather than risk an orphaned probe.
        unsafe {
            command.pre_exec(|| match libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            });
        }
        let mut child = command.spawn().with_context(|| format!("starting the external probe of {}", spec.name()))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let slots = spec.cpus.iter().copied().max().unwrap_or(0) + 2;
        let mut remote = RemoteRuns {
            child,
            stdin,
            stdout,
            counts: RemoteTally(Rc::new(RefCell::new(vec![0; slots]))),
            notes: Vec::new(),
        };
        loop {
            match remote.next_message()? {
                ProbeMessage::Ready { .. } => return Ok(remote),
                ProbeMessage::Note { text, .. } => remote.notes.push(text),
                other => bail!("the external probe answered {other:?} where it should say it is ready"),
            }
        }
    }

    /// The probe's next line, read as a message; an `error` line is this call's error.
    fn next_message(&mut self) -> anyhow::Result<ProbeMessage> {
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line).context("reading the external probe's output")? == 0 {
                let status = self.child.wait().ok();
                bail!("the external probe ended ({status:?}) in the middle of the grain.sweep conversation");
            }
            if line.trim().is_empty() {
                continue;
            }
            let message: ProbeMessage = serde_json::from_str(line.trim())
                .with_context(|| format!("unreadable line from the external probe: {:.200}", line.trim()))?;
            if let ProbeMessage::Error { message, .. } = message {
                bail!("the external probe: {message}");
            }
            return Ok(message);
        }
    }

    /// Sends one request and reads its answer (notes in between are kept).
    fn request(&mut self, request: RunsRequest) -> anyhow::Result<TimedRuns> {
        let stdin = self.stdin.as_mut().context("the external probe's stdin is closed")?;
        let line = serde_json::to_string(&request).expect("requests always serialise");
        writeln!(stdin, "{line}").and_then(|()| stdin.flush()).context("writing to the external probe")?;
        loop {
            match self.next_message()? {
                ProbeMessage::Runs { runs, .. } => return Ok(*runs),
                ProbeMessage::Note { text, .. } => self.notes.push(text),
                other => bail!("the external probe answered {other:?} to a runs request"),
            }
        }
    }

    /// The per-CPU task counts of the answers so far, for the sweep.
    pub fn tally(&self) -> RemoteTally {
        RemoteTally(Rc::clone(&self.counts.0))
    }

    /// Adds an answer's task counts to the tally: CPUs outside the point's range, and tasks of unknown
    /// CPU, into the last slot.
    fn count(&self, runs: &TimedRuns) {
        let mut counts = self.counts.0.borrow_mut();
        let other = counts.len() - 1;
        for &(cpu, n) in &runs.cpu_counts {
            counts[cpu.min(other)] += n;
        }
        counts[other] += runs.other_count;
    }
}

/// An answer checked against its request: as many runs and controls as asked, and every task counted.
///
/// Errors: a count or length that disagrees with the request.
fn checked(request: RunsRequest, runs: &TimedRuns) -> anyhow::Result<()> {
    let asked = request.runs as usize;
    if runs.tasks != request.tasks || runs.test_ns.len() != asked || runs.control_ns.len() != asked {
        bail!(
            "the external probe answered {} tasks with {} runs and {} controls to a request of {} tasks and {asked} runs",
            runs.tasks,
            runs.test_ns.len(),
            runs.control_ns.len(),
            request.tasks
        );
    }
    let counted: u64 = runs.cpu_counts.iter().map(|&(_, n)| n).sum::<u64>() + runs.other_count;
    let expected = request.tasks * request.runs;
    if counted != expected {
        bail!(
            "the external probe counted {counted} tasks in {asked} runs of {} tasks (expected {expected})",
            request.tasks
        );
    }
    Ok(())
}

/// The runs as the Rust harness hands its own back: one sample per run, ns per run, control subtracted;
/// the resolution is the probe clock's floor, its cheapest control (two back-to-back reads).
fn measurement_of(runs: &TimedRuns) -> Measurement {
    Measurement {
        counts_per_op: None,
        batch_ops: 1,
        samples_ns: runs.test_ns.iter().zip(&runs.control_ns).map(|(t, c)| t - c).collect(),
        control_ns: runs.control_ns.clone(),
        per_thread_ns: Vec::new(),
        resolution_ns: runs.control_ns.iter().copied().fold(f64::INFINITY, f64::min).max(0.0),
    }
}

impl GrainRuns for RemoteRuns {
    /// One request of `runs` runs; the probe times them, so `h` is unused and the tally is filled from the
    /// answer.
    fn time_runs(&mut self, _h: &Harness, _tally: &dyn Tally, tasks: u64, runs: usize) -> anyhow::Result<Measurement> {
        let request = RunsRequest { tasks, runs: runs.max(1) as u64 };
        let answer = self.request(request)?;
        checked(request, &answer)?;
        self.count(&answer);
        Ok(measurement_of(&answer))
    }
}

/// The tasks per CPU an external probe reported (index: CPU of the point, `0..=max_cpu`; the last slot:
/// other CPUs, and tasks of unknown CPU).
pub struct RemoteTally(Rc<RefCell<Vec<u64>>>);

impl Tally for RemoteTally {
    fn take_counts(&self) -> Vec<u64> {
        let mut counts = self.0.borrow_mut();
        let taken = counts.clone();
        counts.iter_mut().for_each(|c| *c = 0);
        taken
    }
}

impl Drop for RemoteRuns {
    /// Closes the probe's stdin (its end of the conversation) and waits a little for it; kills it after
    /// [`END_WAIT`].
    fn drop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + END_WAIT;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The job that starts the probe: the point and the harness settings of this process (the probe times
/// with its own clock and ignores the time source, which is passed for the job's shape).
pub fn job_json(spec: &PointSpec, h: &Harness) -> String {
    let job = ProbeJob {
        v: VERSION,
        spec: spec.clone(),
        time_source: overhead_clock::TimeSourceInfo {
            clock: h.clock,
            reason: "overhead probe's clock (an external probe times with its own)".into(),
            calibration_error_ppm: 0.0,
            read_cost_ns: h.read_cost_ns,
            resolution_ns: h.resolution_ns,
        },
        harness: h.config,
        batch_ops_hint: None,
        host_pair: None,
    };
    serde_json::to_string(&job).expect("jobs always serialise")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(tasks: u64, runs: usize, cpu_counts: Vec<(usize, u64)>, other: u64) -> TimedRuns {
        TimedRuns { tasks, test_ns: vec![1000.0; runs], control_ns: vec![30.0; runs], cpu_counts, other_count: other }
    }

    /// The answer is checked against its request: run counts, and every task counted exactly once.
    #[test]
    fn an_answer_must_match_its_request() {
        let request = RunsRequest { tasks: 10, runs: 2 };
        assert!(checked(request, &answer(10, 2, vec![(0, 12), (1, 8)], 0)).is_ok());
        assert!(checked(request, &answer(10, 2, vec![], 20)).is_ok());
        assert!(checked(request, &answer(10, 1, vec![], 10)).is_err(), "too few runs");
        assert!(checked(request, &answer(10, 2, vec![(0, 12)], 0)).is_err(), "tasks missing");
        assert!(checked(request, &answer(100, 2, vec![], 200)).is_err(), "another task count");
    }

    /// Samples are run minus control per run, batch_ops 1, and the resolution is the cheapest control.
    #[test]
    fn runs_become_one_sample_per_run() {
        let mut runs = answer(10, 3, vec![], 30);
        runs.control_ns = vec![30.0, 20.0, 40.0];
        let m = measurement_of(&runs);
        assert_eq!(m.batch_ops, 1);
        assert_eq!(m.samples_ns, vec![970.0, 980.0, 960.0]);
        assert_eq!(m.resolution_ns, 20.0);
    }

    /// A scripted probe (a shell reading requests and answering fixed lines): ready after a note, the
    /// runs of a request, its counts in the tally by CPU with unknown CPUs last, and an error line becomes
    /// the call's error.
    #[test]
    fn a_scripted_probe_converses() {
        let cpu = overhead_machine::allowed_cpus()[0];
        let spec = PointSpec {
            experiment: "grain.sweep".into(),
            runtime: "go".into(),
            params: vec![],
            cpus: vec![cpu],
            placement: None,
            hosts: Vec::new(),
        };
        let script = format!(
            r#"echo '{{"type":"note","v":2,"text":"warmed up"}}'; echo '{{"type":"ready","v":2}}'
read line; echo '{{"type":"runs","v":2,"tasks":3,"test_ns":[500,600],"control_ns":[20,20],"cpu_counts":[[{cpu},4]],"other_count":2}}'
read line; echo '{{"type":"error","v":2,"message":"boom"}}'"#
        );
        let mut command = Command::new("sh");
        command.args(["-c", &script]);
        let mut remote = RemoteRuns::start(command, &spec).unwrap();
        assert_eq!(remote.notes, vec!["warmed up".to_string()]);
        let h = overhead_harness::testing::quick_harness();
        let m = remote.time_runs(&h, &overhead_runtime_api::grain_work::Work::new(0), 3, 2).unwrap();
        assert_eq!(m.samples_ns, vec![480.0, 580.0]);
        let counts = remote.tally().take_counts();
        assert_eq!(counts[cpu], 4, "{counts:?}");
        assert_eq!(*counts.last().unwrap(), 2, "{counts:?}");
        assert_eq!(counts.iter().sum::<u64>(), 6);
        let e = remote.time_runs(&h, &overhead_runtime_api::grain_work::Work::new(0), 3, 1).unwrap_err();
        assert!(format!("{e:#}").contains("boom"), "{e:#}");
    }
}
