//! `msg.ipc`: ping-pong round trips between two processes.

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use crate::experiments::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, KERNEL};
use crate::harness::Harness;
use crate::record::{Metric, PointSpec};
use crate::runtimes::os::pipe::EchoChild;

/// Payload of each message, bytes: one machine word, as lmbench's `lat_pipe`.
const PAYLOAD: usize = 8;

/// `msg.ipc`'s parameters (the transport and payload grow into a matrix with seed 003's issue).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Params {
    transport: Transport,
    /// Bytes per message.
    payload: usize,
}

/// How the two processes talk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Transport {
    /// Two pipes, one each way (lmbench `lat_pipe`).
    Pipe,
}

/// Seed 003's ping-pong: the parent writes a message into one pipe, a forked child echoes it back
/// through another (lmbench `lat_pipe`), timed per round trip against the empty loop.
pub struct Ipc;

impl Experiment for Ipc {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: "msg.ipc",
            summary: "pipe ping-pong round trip between two processes, 8-byte payload",
            source: "seed 003 (IPC ping-pong vs. payload); lmbench lat_pipe",
            metric: Metric::Rtt,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn crate::runtimes::RuntimeUnderTest) -> Vec<Planned> {
        let runtime = runtime.name();
        ctx.pair_points(self.id(), runtime, &Params { transport: Transport::Pipe, payload: PAYLOAD })
    }
    fn run(&self, spec: &PointSpec, h: &Harness) -> anyhow::Result<Outcome> {
        let params: Params = spec.params_as()?;
        anyhow::ensure!(
            params.payload == PAYLOAD,
            "msg.ipc measures {PAYLOAD}-byte messages only, not {}",
            params.payload
        );
        let child = EchoChild::spawn(spec.cpus[1], PAYLOAD).context("starting the echo process")?;
        let msg = [0x5au8; PAYLOAD];
        let mut reply = [0u8; PAYLOAD];
        child.round_trip(&msg, &mut reply).context("first round trip")?;
        let mut failed = None;
        let measurement = h.measure(
            |n| {
                for _ in 0..n {
                    if let Err(e) = child.round_trip(&msg, &mut reply) {
                        failed.get_or_insert(e);
                    }
                }
            },
            empty_loop,
        );
        let status = child.wait().context("reaping the echo process")?;
        if let Some(e) = failed {
            anyhow::bail!("a round trip failed during measurement: {e}");
        }
        anyhow::ensure!(status == 0, "the echo process exited with status {status}");
        Ok(measurement.into())
    }
}
