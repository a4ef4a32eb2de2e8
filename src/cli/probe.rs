//! `overhead probe --job JSON` (hidden): measure one point, answer in JSON lines; and `overhead about`
//! (hidden): the protocol and build of this binary, for a run that drives it as a side.

use std::process::ExitCode;

use overhead_probe::run_probe;
use overhead_protocol::{ProbeJob, ProbeMessage, VERSION};

/// Runs one job and prints its message on stdout. Exits 1 when the point failed. A point of an external
/// runtime (Go, Java) is handed to that runtime's own probe, found in this process's environment and exec'd
/// in its place: how a run with sides measures each side's toolchain (a side's `JAVA_HOME`, docs/METHOD.md
/// §17).
pub fn probe(job: &str) -> anyhow::Result<ExitCode> {
    let message = match serde_json::from_str::<ProbeJob>(job) {
        Ok(mut parsed) => {
            // The run sends `placement:free` as its parameter alone (`orchestrator::run`): parsed here, once.
            parsed.spec.settle_placement();
            let external = overhead_experiments::Point::resolve(&parsed.spec).and_then(|p| p.external_probe());
            if let Some(external) = external {
                let mut command = external.command(&parsed.spec, job)?;
                // Only returns on failure: the external probe answers on this process's stdout.
                let failed = std::os::unix::process::CommandExt::exec(&mut command);
                anyhow::bail!("the {} probe could not be started: {failed}", parsed.spec.runtime);
            }
            run_probe(&parsed)
        }
        Err(e) => ProbeMessage::Error {
            v: VERSION,
            message: format!("the job is not valid JSON for protocol v{VERSION}: {e}"),
        },
    };
    // One write of the whole line, and nothing on stdout from a follower rank that succeeded: the launcher
    // merges every rank's stdout into one stream, where a follower's note could land inside rank 0's result
    // line (a long line is written in pieces). A follower's note goes to stderr; its error to stdout, where it
    // fails the point.
    let line = format!("{}\n", message.to_line());
    let follower_note = matches!(message, ProbeMessage::Note { .. });
    let written = if follower_note {
        std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes())
    } else {
        let mut out = std::io::stdout().lock();
        std::io::Write::write_all(&mut out, line.as_bytes()).and_then(|()| std::io::Write::flush(&mut out))
    };
    // A rank of an MPI job finalises MPI before it exits, or the launcher calls the job failed; a rank that
    // failed ends the job instead, since the others may wait for it in a collective.
    if matches!(message, ProbeMessage::Error { .. }) {
        overhead_runtime_external::mpi::shim::abort_job();
    } else {
        overhead_runtime_external::mpi::shim::finalize();
    }
    written?;
    // A follower rank answers with a note; only an error fails the process.
    Ok(if matches!(message, ProbeMessage::Error { .. }) { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// Prints `{"type":"about","v":…,"tool":…}`: the probe protocol this binary speaks and what it was built from.
pub fn about(build: &overhead_record::BuildStamp) -> anyhow::Result<ExitCode> {
    let message = ProbeMessage::About { v: VERSION, tool: overhead_record::ToolInfo::from_stamp(build) };
    println!("{}", message.to_line());
    Ok(ExitCode::SUCCESS)
}
