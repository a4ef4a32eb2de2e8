//! One probe process: started for its job (`overhead probe`, or a runtime's external probe), watched
//! under a timeout and Ctrl-C, its JSON lines read into how it ended.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use overhead_launch::pml::{self, LearnedPml, PmlLaunch};
use overhead_launch::{LaunchSettings, Launcher, RankSlot};
use overhead_machine::Placement;
use overhead_protocol::{ProbeJob, ProbeMessage, RawBatches};
use overhead_record::{PointRecord, SkipKind};

/// How one probe ended.
pub enum ProbeEnd {
    /// The process answered with the point.
    Result(ProbeAnswer),
    /// It could not start, crashed, timed out or answered an error: how, and why in words.
    Failed(SkipKind, String),
    /// Ctrl-C: it was killed.
    Interrupted,
}

/// What a probe process answered for its point.
pub struct ProbeAnswer {
    /// The point as the process measured it.
    pub point: Box<PointRecord>,
    /// The batch size its first sizing settled on, for the point's later processes.
    pub sized_batch_ops: Option<u64>,
    /// How many of its pinning requests the kernel refused.
    pub pin_refusals: usize,
}

/// Starts a probe for `job` (through the MPI launcher, with `launch`'s arguments, when the point runs as
/// ranks) from `exe` with `env` added to its environment (a side's settings), waits for it under the
/// watchdog, and reads its answer.
pub fn run_one(
    exe: &Path,
    env: &[(String, String)],
    job: &ProbeJob,
    launch: &LaunchSettings,
    timeout: Duration,
    interrupted: &AtomicBool,
) -> ProbeEnd {
    let pml = pml_launch(job, env, launch);
    let mut child = match start(exe, env, job, launch, &pml) {
        Ok(child) => child,
        Err(reason) => return ProbeEnd::Failed(SkipKind::Failed, reason),
    };
    let stdout = drain(&mut child, true);
    let stderr = drain(&mut child, false);
    let status = match wait_for(&mut child, timeout, interrupted) {
        Waited::Exited(status) => Some(status),
        Waited::TimedOut => None,
        Waited::Interrupted => return ProbeEnd::Interrupted,
        Waited::Failed(e) => return ProbeEnd::Failed(SkipKind::Failed, format!("waiting for the probe failed: {e}")),
    };
    let out = stdout.join().unwrap_or_default();
    let err = stderr.join().unwrap_or_default();
    let Some(status) = status else {
        return ProbeEnd::Failed(SkipKind::TimedOut, format!("timed out after {} s", timeout.as_secs()));
    };
    if interrupted.load(Ordering::SeqCst) {
        return ProbeEnd::Interrupted;
    }
    let mut end = interpret(job, &out, &err, status);
    if let ProbeEnd::Result(answer) = &mut end {
        if pml == PmlLaunch::Learn {
            LEARNED_PML.learn_from(&err);
        }
        answer.point.notes.extend(pml.note());
    }
    end
}

/// The PML OpenMPI chose at this run's first launch of ranks on this machine alone (`overhead_launch::pml`).
static LEARNED_PML: LearnedPml = LearnedPml::new();

/// What `job`'s launch does about OpenMPI's PML: nothing unless its ranks run on this machine alone under
/// OpenMPI and nothing the user set chooses one (`pml::may_name`); then learn it, or name what was learned.
fn pml_launch(job: &ProbeJob, env: &[(String, String)], launch: &LaunchSettings) -> PmlLaunch {
    let as_ranks = overhead_experiments::Point::resolve(&job.spec).is_some_and(|p| p.runs_as_ranks());
    let Some(launcher) = as_ranks.then(Launcher::find).and_then(Result::ok) else {
        return PmlLaunch::AsConfigured;
    };
    let own_env = |name: &str| std::env::var(name).ok();
    if pml::may_name(launcher.flavour, !job.spec.hosts.is_empty(), &launch.launcher_args, env, own_env) {
        LEARNED_PML.launch()
    } else {
        PmlLaunch::AsConfigured
    }
}

/// The probe of `job`, started with its output piped.
///
/// Errors: why it could not start, as the failure's reason.
fn start(
    exe: &Path,
    env: &[(String, String)],
    job: &ProbeJob,
    launch: &LaunchSettings,
    pml: &PmlLaunch,
) -> Result<Child, String> {
    let job_json = serde_json::to_string(job).expect("jobs always serialise");
    // A side with an environment of its own (or another binary) finds its own external toolchains: its
    // `overhead probe` starts the external probe, not this process.
    let own_toolchains = env.is_empty() && std::env::current_exe().is_ok_and(|this| this == exe);
    let mut command = probe_command(exe, job, &job_json, launch, pml, own_toolchains)
        .map_err(|e| format!("could not start the probe: {e:#}"))?;
    // Its own process group, so that a kill reaches whatever it started on this machine too (the ranks a
    // launcher forks).
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start the probe: {e}"))
}

/// How waiting for a probe process ended.
enum Waited {
    Exited(ExitStatus),
    /// Past its deadline: killed.
    TimedOut,
    /// Ctrl-C: killed.
    Interrupted,
    /// Waiting itself failed.
    Failed(std::io::Error),
}

/// Waits for `child`, killing it past `timeout` or once `interrupted` is set (checked every 50 ms).
fn wait_for(child: &mut Child, timeout: Duration, interrupted: &AtomicBool) -> Waited {
    let deadline = Instant::now() + timeout;
    loop {
        match child.wait_timeout(Duration::from_millis(50)) {
            Ok(Some(status)) => return Waited::Exited(status),
            Ok(None) if interrupted.load(Ordering::SeqCst) => {
                kill(child);
                return Waited::Interrupted;
            }
            Ok(None) if Instant::now() > deadline => {
                kill(child);
                return Waited::TimedOut;
            }
            Ok(None) => {}
            Err(e) => return Waited::Failed(e),
        }
    }
}

/// The process that measures `job`: `overhead probe` (`exe`), or the runtime's external probe
/// (`runtimes::external`), with the same job. An experiment driven from Rust (`grain.sweep`) runs in
/// `overhead probe`, which starts the external probe itself; so does every external point when not
/// `own_toolchains` (a side whose environment or binary is not this process's: its probe finds its own JDK
/// or Go and execs the external probe).
fn probe_command(
    exe: &Path,
    job: &ProbeJob,
    job_json: &str,
    launch: &LaunchSettings,
    pml: &PmlLaunch,
    own_toolchains: bool,
) -> anyhow::Result<Command> {
    // The same rule the probe's ranks apply to themselves (`Point::runs_as_ranks`).
    if overhead_experiments::Point::resolve(&job.spec).is_some_and(|p| p.runs_as_ranks()) {
        let launcher = Launcher::find().map_err(|e| anyhow::anyhow!("no MPI launcher: {e}"))?;
        let args = ["probe".to_string(), "--job".into(), job_json.to_string()];
        let launcher_args = [launch.launcher_args.clone(), pml.launcher_args()].concat();
        let mut command = launcher.command(&rank_slots(&job.spec), &launcher_args, exe, &args);
        if let Some((name, value)) = pml.env() {
            command.env(name, value);
        }
        if job.spec.placement == Some(Placement::SameCpu) {
            // Ranks that share a CPU must give it up while they wait (Souvatzis's message that requires a
            // context switch), not poll for their time slice: OpenMPI then sched_yield()s while idle. MPICH
            // ignores the variable (`orchestrator::ranks` notes which MPI ran).
            command.env(YIELD_WHEN_IDLE, "1");
        }
        return Ok(command);
    }
    let external = overhead_experiments::Point::resolve(&job.spec).and_then(|p| p.external_probe());
    match external.filter(|_| own_toolchains) {
        Some(external) => external.command(&job.spec, job_json),
        None => {
            let mut command = Command::new(exe);
            command.args(["probe", "--job", job_json]);
            Ok(command)
        }
    }
}

/// OpenMPI's MCA parameter, as an environment variable, that makes an idle rank yield its CPU
/// (`mpi_yield_when_idle`): set for rank points whose ranks share one CPU (`placement:same_cpu`).
pub const YIELD_WHEN_IDLE: &str = "OMPI_MCA_mpi_yield_when_idle";

/// Where each rank of a point goes: rank `i` on `spec.hosts[i]` (this machine when it names no hosts),
/// pinned there to `spec.cpus[i]`.
fn rank_slots(spec: &overhead_record::PointSpec) -> Vec<RankSlot> {
    spec.cpus.iter().enumerate().map(|(i, &cpu)| RankSlot { host: spec.hosts.get(i).cloned(), cpu }).collect()
}

/// The point of an external probe's raw batches, made as `overhead probe` makes its own
/// (`overhead_probe::point_record`): the same summary, CI and flags for every runtime.
fn point_of_batches(job: &ProbeJob, batches: &RawBatches) -> Result<Box<PointRecord>, String> {
    let measurement = batches.measurement()?;
    let point = overhead_probe::point_record(
        &job.spec,
        &measurement,
        batches.notes.clone(),
        batches.extra.clone(),
        Default::default(),
        job.harness.noisy_fraction,
    )?;
    Ok(Box::new(point))
}

/// Reads the probe's JSON lines: the last result (or external probe's batches) wins; an error message or a
/// crash makes it a failure.
fn interpret(job: &ProbeJob, out: &str, err: &str, status: ExitStatus) -> ProbeEnd {
    let mut error = None;
    for line in out.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<ProbeMessage>(line) {
            Ok(ProbeMessage::Result { point, sized_batch_ops, pin_refusals, .. }) if status.success() => {
                return ProbeEnd::Result(ProbeAnswer { point, sized_batch_ops, pin_refusals })
            }
            Ok(ProbeMessage::Batches { batches, .. }) if status.success() => match point_of_batches(job, &batches) {
                Ok(point) => {
                    let (sized_batch_ops, pin_refusals) = (batches.sized_batch_ops, batches.pin_refusals);
                    return ProbeEnd::Result(ProbeAnswer { point, sized_batch_ops, pin_refusals });
                }
                Err(e) => error = Some(format!("the external probe's batches: {e}")),
            },
            Ok(ProbeMessage::Error { message, .. }) => error = Some(message),
            Ok(_) => {}
            Err(e) => error = Some(format!("unreadable probe output ({e}): {line:.200}")),
        }
    }
    let detail = error.unwrap_or_else(|| {
        let tail = what_stderr_says(err).join(" / ");
        format!("probe exited with {status}{}", if tail.is_empty() { String::new() } else { format!(": {tail}") })
    });
    ProbeEnd::Failed(SkipKind::Failed, detail)
}

/// The last four lines of a failed probe's stderr that say something. An MPI launcher frames each message
/// in rules of dashes with a page of advice after its first line: of a framed message only that first line
/// counts (`ORTE was unable to reliably start one or more daemons.`), and the launch agent's own lines
/// outside the frames (`ssh: connect to host node7: No route to host`) count whole.
fn what_stderr_says(err: &str) -> Vec<&str> {
    let is_rule = |l: &str| l.len() >= 8 && l.chars().all(|c| c == '-' || c == '=');
    let (mut framed, mut first_of_frame) = (false, false);
    let mut said: Vec<&str> = Vec::new();
    for line in err.lines().map(str::trim) {
        if is_rule(line) {
            framed = !framed;
            first_of_frame = framed;
            continue;
        }
        if line.is_empty() || (framed && !first_of_frame) {
            continue;
        }
        first_of_frame = false;
        if !said.contains(&line) {
            said.push(line);
        }
    }
    said.split_off(said.len().saturating_sub(4))
}

/// Collects one of the child's output pipes on a thread, so a chatty probe cannot block on a full pipe.
fn drain(child: &mut Child, stdout: bool) -> std::thread::JoinHandle<String> {
    let mut pipe: Box<dyn Read + Send> = if stdout {
        Box::new(child.stdout.take().expect("stdout is piped"))
    } else {
        Box::new(child.stderr.take().expect("stderr is piped"))
    };
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = pipe.read_to_string(&mut text);
        text
    })
}

/// Ends the child and everything it started on this machine (its process group: a launcher's local ranks),
/// asking first (SIGTERM, so a launcher can stop its remote ranks) and killing after a second, and reaps it.
fn kill(child: &mut Child) {
    let group = child.id() as libc::pid_t;
    // SAFETY: killpg with the group this child leads (started with process_group(0)); a stale group is ESRCH.
    unsafe { libc::killpg(group, libc::SIGTERM) };
    if !matches!(child.wait_timeout(Duration::from_secs(1)), Ok(Some(_))) {
        // SAFETY: as above.
        unsafe { libc::killpg(group, libc::SIGKILL) };
        let _ = child.kill();
    }
    let _ = child.wait();
    // SAFETY: as above; whatever of the group outlived its leader.
    unsafe { libc::killpg(group, libc::SIGKILL) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_protocol::VERSION;
    use overhead_record::fixture::sample_record;
    use std::os::unix::process::ExitStatusExt;

    fn job() -> ProbeJob {
        let record = sample_record();
        ProbeJob {
            v: VERSION,
            spec: record.points[0].spec.clone(),
            time_source: record.time_source,
            harness: record.harness,
            batch_ops_hint: None,
            host_pair: None,
        }
    }

    /// Ranks placed on one CPU are told to yield while idle (OpenMPI); ranks on two CPUs, and points that are
    /// not ranks, are not. Needs an MPI launcher (CI installs OpenMPI); without one there is no command.
    #[test]
    fn ranks_on_one_cpu_yield_while_idle() {
        if Launcher::find().is_err() {
            return;
        }
        let yields = |runtime: &str, cpus: Vec<usize>, placement| {
            let mut job = job();
            (job.spec.runtime, job.spec.cpus, job.spec.placement) = (runtime.into(), cpus, placement);
            let (settings, pml) = (LaunchSettings::default(), PmlLaunch::AsConfigured);
            let command = probe_command(Path::new("overhead"), &job, "{}", &settings, &pml, true).unwrap();
            command.get_envs().any(|(k, v)| k == YIELD_WHEN_IDLE && v == Some("1".as_ref()))
        };
        assert!(yields("mpi", vec![0, 0], Some(Placement::SameCpu)));
        assert!(!yields("mpi", vec![0, 1], Some(Placement::OtherCore)));
        assert!(!yields("mpi", vec![0], None));
        assert!(!yields("os", vec![0, 0], Some(Placement::SameCpu)));
    }

    /// A launch that learns OpenMPI's PML asks it to say which it chose; a later one names it after the user's
    /// launcher arguments, and a point that is not ranks is started as it always was.
    #[test]
    fn a_rank_launch_learns_the_pml_then_names_it() {
        let Ok(launcher) = Launcher::find() else { return };
        if launcher.flavour != overhead_launch::Flavour::OpenMpi {
            return;
        }
        let mut ranks = job();
        (ranks.spec.runtime, ranks.spec.cpus) = ("mpi".into(), vec![0, 1]);
        let settings = LaunchSettings {
            launcher_args: vec!["--mca".into(), "btl".into(), "self,vader".into()],
            ..Default::default()
        };
        let text = |c: &Command| c.get_args().map(|a| a.to_string_lossy().into_owned()).collect::<Vec<_>>();
        let learning = probe_command(Path::new("overhead"), &ranks, "{}", &settings, &PmlLaunch::Learn, true).unwrap();
        assert!(learning.get_envs().any(|(k, v)| k == pml::VERBOSE_VARIABLE.0 && v == Some("10".as_ref())));
        assert!(!text(&learning).contains(&"pml".to_string()));
        let named = PmlLaunch::Named("ob1".into());
        let args = text(&probe_command(Path::new("overhead"), &ranks, "{}", &settings, &named, true).unwrap());
        let at = args.iter().position(|a| a == "pml").expect("the PML is named");
        assert_eq!(args[at + 1], "ob1");
        assert!(args.iter().position(|a| a == "btl").unwrap() < at, "after the user's own arguments: {args:?}");
        assert!(args.iter().position(|a| a == "probe").unwrap() > at, "before the program: {args:?}");
        let os = text(&probe_command(Path::new("overhead"), &job(), "{}", &settings, &named, true).unwrap());
        assert!(!os.contains(&"pml".to_string()), "{os:?}");
    }

    /// A launcher's framed advice is reduced to each message's first line; the agent's own lines stay.
    #[test]
    fn a_launchers_failure_reads_as_its_messages() {
        let err = "launch-agent: ssh: connect to host node7: No route to host\n\
                   --------------------------------------------------------------------------\n\
                   ORTE was unable to reliably start one or more daemons.\n\
                   This usually is caused by:\n\n* not finding the required libraries\n\
                   --------------------------------------------------------------------------\n\
                   --------------------------------------------------------------------------\n\
                   mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).\n\
                   --------------------------------------------------------------------------\n";
        assert_eq!(
            what_stderr_says(err),
            [
                "launch-agent: ssh: connect to host node7: No route to host",
                "ORTE was unable to reliably start one or more daemons.",
                "mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).",
            ]
        );
        assert_eq!(what_stderr_says("a\nb\nc\nd\ne\n"), ["b", "c", "d", "e"]);
    }

    #[test]
    fn a_result_line_carries_the_point_its_batch_size_and_its_refused_pinnings() {
        let point = Box::new(sample_record().points[0].clone());
        let message = ProbeMessage::Result { v: VERSION, point, sized_batch_ops: Some(64), pin_refusals: 2 };
        let line = serde_json::to_string(&message).unwrap();
        let ProbeEnd::Result(answer) = interpret(&job(), &line, "", ExitStatus::from_raw(0)) else {
            panic!("not a result")
        };
        assert_eq!((answer.sized_batch_ops, answer.pin_refusals), (Some(64), 2));
        let ProbeEnd::Failed(SkipKind::Failed, why) = interpret(&job(), &line, "boom", ExitStatus::from_raw(1 << 8))
        else {
            panic!("a failed process's result is not taken")
        };
        assert!(why.contains("boom"), "{why}");
    }
}
