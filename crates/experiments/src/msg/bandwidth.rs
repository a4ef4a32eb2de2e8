//! `msg.bw`: streaming bandwidth between two processes, many messages in flight.

use anyhow::Context as _;

use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_harness::{Harness, Measurement, Mode};
use overhead_machine::Placement;
use overhead_record::Metric;
use overhead_runtime_os::ipc::{open, stream, End, IpcTransport, Role};

/// `msg.bw`'s parameters are `msg.ipc`'s (transport, payload: bytes per message); `placement` follows.
use super::peer_points::{transport_points, AgainstPeer, Params, PeerMeasure};

/// Message sizes (bytes): large ones only, where bandwidth rather than the round trip decides.
fn payloads(mode: Mode) -> Vec<usize> {
    match mode {
        Mode::Quick => vec![64 * 1024],
        Mode::Default => vec![64 * 1024, 1 << 20],
        Mode::Full => vec![64 * 1024, 256 * 1024, 1 << 20],
    }
}

/// lmbench's `bw_pipe`/`bw_unix`/`bw_tcp` and OSU's `osu_bw` beside `msg.ipc`'s latency: per batch the
/// parent streams a count and then that many `payload`-byte messages through a byte-stream transport to
/// a forked child pinned to the other CPU, which reads them all and answers once. The time per operation
/// is one message (ns); bandwidth is `payload` over it (MB/s, the report). The control is the empty loop
/// plus one empty batch (count 0 and its answer), so the answer's round trip is not charged to the
/// messages. Only the byte streams (pipe, UNIX stream socket, TCP loopback) keep messages in flight. With
/// `--hosts`, TCP also runs across hosts (`placement:other_host`, every payload): the sink is rank 1 on the
/// other host, serving one TCP connection from rank 0, which measures as here (`experiments/across_hosts.rs`).
pub struct Bandwidth;

/// What a `msg.bw` point reports beside its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BandwidthResult {
    /// Bytes per message.
    pub payload_bytes: f64,
    /// The payload over the median time per message (MB/s, 10⁶ bytes).
    pub mb_per_s: f64,
}

impl Bandwidth {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::msg::BW;
}

impl Experiment for Bandwidth {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Bandwidth::ID,
            summary:
                "streaming bandwidth between two pinned processes (pipe, UNIX stream, TCP loopback), 64 KiB–1 MiB \
                      messages in flight; ns per message, MB/s in the report",
            source: "Walfield 2008 (payload); lmbench bw_pipe, bw_unix, bw_tcp; OSU osu_bw",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        // The streams carry every payload of the list (no `payload_limit`).
        transport_points(ctx, self.id(), runtime, &IpcTransport::STREAMS, &payloads(ctx.mode))
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { transport, payload } = point.params()?;
        anyhow::ensure!(
            IpcTransport::STREAMS.contains(&transport),
            "{}: msg.bw streams through pipe, unix_stream or tcp, not {}",
            spec.name(),
            transport.name()
        );
        anyhow::ensure!(payload > 0, "{}: msg.bw needs a payload of at least 1 byte", spec.name());
        let outcome = if spec.placement == Some(Placement::OtherHost) {
            anyhow::ensure!(transport == IpcTransport::Tcp, "{}: only tcp runs across hosts", spec.name());
            let (mut end, note) = crate::across_hosts::connect_msg_rank(point).with_context(|| spec.name())?;
            let mut outcome = Outcome::from(batches(h, &mut end, payload).with_context(|| spec.name())?);
            outcome.notes.push(note);
            outcome
        } else {
            let peer_cpu = *spec.cpus.get(1).unwrap_or(&spec.cpus[0]);
            open(transport, payload, AgainstPeer { h, payload, peer_cpu, measure: Batches })
                .with_context(|| format!("{}: opening the {} channel", spec.name(), transport.name()))??
        };
        let median = outcome.measurement.summary().map_or(f64::NAN, |s| s.median);
        let result = BandwidthResult { payload_bytes: payload as f64, mb_per_s: payload as f64 / median * 1e3 };
        let outcome = outcome.with_result(&result);
        Ok(outcome)
    }
    /// Rank 1 of a `placement:other_host` point: the sink, on a TCP connection from rank 0.
    fn follow(&self, point: &Point<'_>) -> anyhow::Result<()> {
        let Params { transport, payload } = point.params()?;
        anyhow::ensure!(transport == IpcTransport::Tcp, "{}: only tcp runs across hosts", point.spec.name());
        crate::across_hosts::serve_msg_rank(Role::Sink, payload)
    }
}

/// `msg.bw`'s side of a forked peer: batches streamed into a sink.
#[derive(Debug, Clone, Copy)]
struct Batches;

impl PeerMeasure for Batches {
    const ROLE: Role = Role::Sink;
    fn measure<E: End>(self, h: &Harness, end: &mut E, payload: usize) -> anyhow::Result<Measurement> {
        batches(h, end, payload)
    }
}

/// Times batches of `payload`-byte messages streamed through `end`, whose other side is a sink (a forked
/// [`Peer`], or rank 1 on another host): one operation is one message; the control is the empty loop plus
/// an empty batch (count 0 and its answer). One batch of one message untimed first. The timed loop only
/// sends and receives from buffers made before it.
///
/// Errors: the first batch failed, or one during the measurement did (the first error).
fn batches<E: End>(h: &Harness, end: &mut E, payload: usize) -> anyhow::Result<Measurement> {
    let msg = vec![0x5au8; payload];
    let mut ack = [0u8; 8];
    stream(end, &msg, 1, &mut ack).context("first batch")?;
    let mut failed = None;
    let end = std::cell::RefCell::new(end);
    let measurement = h.measure(
        |n| {
            if let Err(e) = stream(*end.borrow_mut(), &msg, n, &mut ack) {
                failed.get_or_insert(e);
            }
        },
        |n| {
            empty_loop(n);
            // The control's answer: the same count-and-acknowledge round trip with no messages.
            let mut ack = [0u8; 8];
            let _ = stream(*end.borrow_mut(), &[], 0, &mut ack);
        },
    );
    if let Some(e) = failed {
        anyhow::bail!("a batch failed during measurement: {e}");
    }
    Ok(measurement)
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_runtime_os::ipc::{Peer, WithEnds};

    /// The sink reads exactly the messages of each batch: a batch of k messages is answered with k, and
    /// the stream stays in step over batches of different sizes (a lost or extra byte would desynchronise
    /// the count and fail the next answer).
    #[test]
    fn the_sink_answers_each_batch_with_its_count() {
        struct Check;
        impl WithEnds for Check {
            type Output = ();
            fn with<E: End>(self, parent: E, child: E) {
                let cpu = overhead_machine::allowed_cpus()[0];
                let mut peer = Peer::spawn(parent, child, cpu, 65536, Role::Sink).unwrap();
                let msg = vec![7u8; 65536];
                for count in [1u64, 0, 5, 17] {
                    let mut ack = [0u8; 8];
                    peer.stream(&msg, count, &mut ack).unwrap();
                    assert_eq!(u64::from_le_bytes(ack), count);
                }
                assert_eq!(peer.wait().unwrap(), 0);
            }
        }
        for transport in IpcTransport::STREAMS {
            open(transport, 65536, Check).unwrap();
        }
    }

    /// With two hosts, exactly the tcp cells gain a `placement:other_host` point, one per payload, on
    /// hosts 0 and 1 and two different CPUs; without hosts there is none.
    #[test]
    fn only_tcp_runs_across_hosts() {
        crate::msg::tests::only_tcp_runs_across_hosts(&Bandwidth);
    }
}
