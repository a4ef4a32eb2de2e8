//! `overhead probe --job JSON` (hidden): measure one point, answer in JSON lines.

use std::process::ExitCode;

use crate::orchestrator::run_probe;
use crate::protocol::{ProbeJob, ProbeMessage, VERSION};

/// Runs one job and prints its message on stdout. Exits 1 when the point failed.
pub fn probe(job: &str) -> anyhow::Result<ExitCode> {
    let message = match serde_json::from_str::<ProbeJob>(job) {
        Ok(job) => run_probe(&job),
        Err(e) => ProbeMessage::Error {
            v: VERSION,
            message: format!("the job is not valid JSON for protocol v{VERSION}: {e}"),
        },
    };
    println!("{}", message.to_line());
    // A rank of an MPI job finalises MPI before it exits, or the launcher calls the job failed.
    crate::runtimes::mpi::shim::finalize();
    // A follower rank answers with a note; only an error fails the process.
    Ok(if matches!(message, ProbeMessage::Error { .. }) { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}
