//! `msg.ipc`: ping-pong round trips between two processes, transport × payload × placement.

use anyhow::Context as _;

use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point};
use overhead_harness::{Harness, Measurement, Mode};
use overhead_machine::Placement;
use overhead_record::Metric;
use overhead_runtime_api::Capability;
use overhead_runtime_os::ipc::{open, round_trip, socket_pair, End, IpcTransport, Peer, Role};

pub use super::peer_points::Params;
use super::peer_points::{transport_points, AgainstPeer, PeerMeasure};

/// Payloads (bytes): Walfield's 0–60 message registers end near 256 bytes; today's IPC carries pages
/// and buffers, so the matrix runs from one word to 1 MiB — powers of 4 in `--full`, four sizes by
/// default, two in `--quick`.
pub fn payloads(mode: Mode) -> Vec<usize> {
    match mode {
        Mode::Quick => vec![8, 64 * 1024],
        Mode::Default => vec![8, 4096, 64 * 1024, 1 << 20],
        Mode::Full => {
            let mut sizes: Vec<usize> = (0..9).map(|k| 8usize << (2 * k)).collect();
            sizes.push(1 << 20);
            sizes
        }
    }
}

/// Payloads of an async runtime's own sockets (bytes): one word, and 64 KiB, past the socket's first
/// buffer, where the runtime's read loop takes the reply in pieces (`--quick`: the word only; `--full`: the
/// kernel's matrix).
pub fn runtime_payloads(mode: Mode) -> Vec<usize> {
    match mode {
        Mode::Quick => vec![8],
        Mode::Default => vec![8, 64 * 1024],
        Mode::Full => payloads(Mode::Full),
    }
}

/// Walfield's ping-pong (its table: IPC cost against message registers), lmbench's `lat_pipe`,
/// `lat_unix`, `lat_tcp`: the parent sends `payload` bytes through `transport` to a forked child pinned
/// to the other CPU of the point, which sends them straight back; one round trip per operation against
/// the empty loop. Both processes are pinned (`placement`: the same CPU, and one CPU per kind of
/// placement the machine has). Transports ([`IpcTransport`]): pipe, UNIX stream and datagram sockets,
/// eventfd (no payload: only the counter, so only `payload:8`), a futex handoff and a polled handoff
/// through shared memory (the payload copied in and out each way), POSIX message queues and TCP over
/// loopback. A payload above what the transport takes here (the datagram socket's buffer limit, the
/// message queue's `msgsize_max`) is a skipped cell with the limit, never a truncated message. With
/// `--hosts`, TCP also runs across hosts (`placement:other_host`, every payload): the echo is rank 1 on the
/// other host, serving one TCP connection from rank 0, which measures as here (`experiments/across_hosts.rs`).
///
/// An async runtime's rows (tokio, smol, monoio: [`Capability::Ipc`]) send and receive through the runtime's
/// own socket type instead (`IpcRoundTrips`): a UNIX stream socket and TCP over loopback, against the same
/// forked echo, at [`runtime_payloads`], on this host. Beside `os`'s row of the same transport, payload and
/// placement, the difference is what the runtime's I/O path (epoll and a wake of its executor, or io_uring's
/// submissions and completions) adds to the kernel's blocking read and write.
pub struct Ipc;

impl Ipc {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::msg::IPC;
}

impl Experiment for Ipc {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Ipc::ID,
            summary: "ping-pong round trip between two pinned processes: pipe, UNIX stream/datagram, eventfd, futex \
                      and polled shared memory, POSIX mqueue, TCP loopback × payload 8 B–1 MiB; UNIX stream and TCP \
                      also through tokio's, smol's and monoio's own sockets",
            source: "Walfield 2008 (IPC ping-pong vs. payload); lmbench lat_pipe, lat_unix, lat_tcp",
            metric: Metric::Rtt,
            requires: &[Capability::Ipc],
        }
    }
    /// `os`: every transport at [`payloads`]; an async runtime: its own sockets at [`runtime_payloads`], on
    /// this host only.
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        let transports = runtime.offers().ipc.has().unwrap_or_default();
        if measured_by_the_kernel(runtime) {
            return transport_points(ctx, self.id(), runtime, transports, &payloads(ctx.mode));
        }
        let mut planned = transport_points(ctx, self.id(), runtime, transports, &runtime_payloads(ctx.mode));
        planned.retain(
            |p| !matches!(p, Planned::Run(s) | Planned::Skip(s, _) if s.placement == Some(Placement::OtherHost)),
        );
        planned
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { transport, payload } = point.params()?;
        anyhow::ensure!(payload > 0, "{}: msg.ipc needs a payload of at least 1 byte", spec.name());
        if spec.placement == Some(Placement::OtherHost) {
            anyhow::ensure!(transport == IpcTransport::Tcp, "{}: only tcp runs across hosts", spec.name());
            let (mut end, note) = crate::across_hosts::connect_msg_rank(point).with_context(|| spec.name())?;
            let measurement = round_trips(h, &mut end, payload).with_context(|| spec.name())?;
            let mut outcome = Outcome::from(measurement);
            outcome.notes.push(note);
            return Ok(outcome);
        }
        let peer_cpu = *spec.cpus.get(1).unwrap_or(&spec.cpus[0]);
        if !measured_by_the_kernel(point.runtime) {
            return runtime_round_trips(point, transport, payload, peer_cpu, h).map(Outcome::from);
        }
        open(transport, payload, AgainstPeer { h, payload, peer_cpu, measure: RoundTrips })
            .with_context(|| format!("{}: opening the {} channel", spec.name(), transport.name()))?
    }
    /// Rank 1 of a `placement:other_host` point: the echo, on a TCP connection from rank 0.
    fn follow(&self, point: &Point<'_>) -> anyhow::Result<()> {
        let Params { transport, payload } = point.params()?;
        anyhow::ensure!(transport == IpcTransport::Tcp, "{}: only tcp runs across hosts", point.spec.name());
        crate::across_hosts::serve_msg_rank(Role::Echo, payload)
    }
}

/// Whether `runtime`'s round trips are the kernel's own calls, made here (`os`), rather than its own sockets'.
fn measured_by_the_kernel(runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> bool {
    runtime.offers().kernel.has().is_some()
}

/// An async runtime's row: a connected pair of `transport` sockets, the child's end echoing in a forked peer
/// pinned to `peer_cpu`, the parent's socket handed to the runtime's own socket type (`IpcRoundTrips`).
///
/// Errors: the runtime has no in-process sockets; the sockets, the fork or the reaping failed; the
/// measurement failed.
fn runtime_round_trips(
    point: &Point<'_>,
    transport: IpcTransport,
    payload: usize,
    peer_cpu: usize,
    h: &Harness,
) -> anyhow::Result<Measurement> {
    let name = point.spec.name();
    let sockets = point.in_process(|r| r.ipc())?;
    let (parent, child) =
        socket_pair(transport).with_context(|| format!("{name}: opening the {} sockets", transport.name()))?;
    Peer::measure_against(parent, child, peer_cpu, payload, Role::Echo, |end| {
        let socket = end.socket().context("a descriptor of the parent's socket for the runtime")?;
        sockets.socket_round_trips(socket, transport, payload, h)
    })
    .with_context(|| name.clone())
}

/// Times round trips of `payload`-byte messages through `end`, whose other side echoes them (a forked
/// [`Peer`], or rank 1 on another host), against the empty loop: one round trip untimed first, then the
/// harness's batches. The timed loop only sends and receives into buffers made before it.
///
/// Errors: the first round trip failed, or one during the measurement did (the first error).
fn round_trips<E: End>(h: &Harness, end: &mut E, payload: usize) -> anyhow::Result<Measurement> {
    let msg = vec![0x5au8; payload];
    let mut reply = vec![0u8; payload];
    round_trip(end, &msg, &mut reply).context("first round trip")?;
    let mut failed = None;
    let measurement = h.measure(
        |n| {
            for _ in 0..n {
                if let Err(e) = round_trip(end, &msg, &mut reply) {
                    failed.get_or_insert(e);
                }
            }
        },
        empty_loop,
    );
    if let Some(e) = failed {
        anyhow::bail!("a round trip failed during measurement: {e}");
    }
    Ok(measurement)
}

/// `msg.ipc`'s side of a forked peer: round trips against an echo.
#[derive(Debug, Clone, Copy)]
pub(super) struct RoundTrips;

impl PeerMeasure for RoundTrips {
    const ROLE: Role = Role::Echo;
    fn measure<E: End>(self, h: &Harness, end: &mut E, payload: usize) -> anyhow::Result<Measurement> {
        round_trips(h, end, payload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_runtime_os::ipc::{payload_limit, Peer, WithEnds};

    /// Every transport returns every payload byte for byte, 1 MiB included, where this machine lets it
    /// carry the size; the rest are refused by `open` with the limit's reason.
    #[test]
    fn every_transport_echoes_every_payload_exactly() {
        struct Check {
            payload: usize,
            cpu: usize,
            carries: bool,
        }
        impl WithEnds for Check {
            type Output = ();
            fn with<E: End>(self, parent: E, child: E) {
                let mut peer = Peer::spawn(parent, child, self.cpu, self.payload, Role::Echo).unwrap();
                for round in 0..3u8 {
                    let msg: Vec<u8> =
                        (0..self.payload).map(|i| (i as u8).wrapping_mul(31).wrapping_add(round)).collect();
                    let mut reply = vec![0u8; self.payload];
                    peer.round_trip(&msg, &mut reply).unwrap();
                    if self.carries {
                        assert!(reply == msg, "{}-byte reply differs in round {round}", self.payload);
                    }
                }
                assert_eq!(peer.wait().unwrap(), 0);
            }
        }
        let cpus = overhead_machine::allowed_cpus();
        let cpu = cpus[cpus.len() - 1];
        for transport in IpcTransport::ALL {
            let limit = payload_limit(transport).map_or(usize::MAX, |l| l.bytes);
            for payload in [8, 100, 4096, 65536, 1 << 20] {
                match open(transport, payload, Check { payload, cpu, carries: transport.carries_payload() }) {
                    Ok(()) => assert!(payload <= limit, "{transport:?} took {payload} bytes over its limit"),
                    Err(e) => assert!(payload > limit, "{transport:?}, {payload} bytes: {e}"),
                }
            }
        }
    }

    /// An eventfd's "message" is its counter: it wakes the peer but carries no bytes, so only `payload:8`
    /// is planned and the other sizes say why.
    #[test]
    fn eventfd_and_mqueue_sizes_above_their_limit_are_skipped_with_the_reason() {
        let ctx = crate::plan::tests::two_cpu_context(Mode::Default);
        let plan = Ipc.points(&ctx, &overhead_runtime_os::Os);
        let cells = |transport: &'static str| {
            plan.iter().filter(
                move |p| matches!(p, Planned::Run(s) | Planned::Skip(s, _) if s.param("transport") == Some(transport)),
            )
        };
        let skipped_eventfd: Vec<_> = cells("eventfd").filter(|p| matches!(p, Planned::Skip(..))).collect();
        assert_eq!(skipped_eventfd.len(), 2 * 3, "three payloads above 8, two placements");
        assert!(skipped_eventfd.iter().all(|p| matches!(p, Planned::Skip(_, why) if why.contains("counter"))));
        let mq_limit = payload_limit(IpcTransport::Mqueue).unwrap().bytes;
        for p in cells("mqueue") {
            let (Planned::Run(s) | Planned::Skip(s, _)) = p;
            let payload: usize = s.param("payload").unwrap().parse().unwrap();
            assert_eq!(matches!(p, Planned::Skip(..)), payload > mq_limit, "{}", s.name());
        }
        assert_eq!(plan.len(), IpcTransport::ALL.len() * payloads(Mode::Default).len() * 2);
    }

    /// An async runtime plans its own sockets only (unix_stream and tcp) at the runtime payloads, never across
    /// hosts; `os` keeps the kernel's whole matrix.
    #[test]
    fn an_async_runtime_plans_its_own_sockets_on_this_host() {
        let mut ctx = crate::plan::tests::two_cpu_context(Mode::Default);
        ctx.hosts = vec!["a".into(), "b".into()];
        for name in ["tokio", "smol", "monoio"] {
            let runtime = overhead_runtime_registry::find(name).unwrap();
            if runtime.offers().ipc.has().is_none() {
                continue; // monoio without io_uring here: it lacks everything, with the reason.
            }
            let plan = Ipc.points(&ctx, runtime);
            assert!(!plan.is_empty(), "{name}");
            for p in &plan {
                let (Planned::Run(s) | Planned::Skip(s, _)) = p;
                let params: Params = s.params_as().unwrap();
                assert!(overhead_runtime_api::ipc::RUNTIME_SOCKETS.contains(&params.transport), "{}", s.name());
                assert!(runtime_payloads(Mode::Default).contains(&params.payload), "{}", s.name());
                assert_ne!(s.placement, Some(Placement::OtherHost), "{}", s.name());
                assert_eq!(s.runtime, name);
            }
        }
        let os = Ipc.points(&ctx, &overhead_runtime_os::Os);
        assert!(os.iter().any(|p| matches!(p, Planned::Run(s) if s.placement == Some(Placement::OtherHost))));
    }

    /// Each async runtime's own sockets make real round trips with the forked echo, UNIX stream and TCP:
    /// the measurement ends (a reply that never came would hang it; one of the wrong size fails it) with
    /// finite, positive round trips.
    #[test]
    fn an_async_runtimes_sockets_round_trip_with_the_echo() {
        let h = overhead_harness::testing::quick_harness();
        let cpus = overhead_machine::allowed_cpus();
        let mut ctx = crate::plan::tests::two_cpu_context(Mode::Quick);
        ctx.cpus = vec![cpus[0], cpus[cpus.len() - 1]];
        for name in ["tokio", "smol", "monoio"] {
            let runtime = overhead_runtime_registry::find(name).unwrap();
            if runtime.offers().ipc.has().is_none() {
                continue;
            }
            for p in Ipc.points(&ctx, runtime) {
                let Planned::Run(spec) = p else { continue };
                let outcome = Ipc.run(&Point::resolve(&spec).unwrap(), &h).unwrap();
                let m = &outcome.measurement;
                assert_eq!(m.samples_ns.len(), h.config.repetitions, "{}", spec.name());
                let median = m.summary().unwrap().median;
                // A round trip between two processes is a wake-up at least: microseconds, never nothing.
                assert!(median.is_finite() && median > 100.0, "{}: {median} ns", spec.name());
            }
        }
    }

    /// With two hosts, exactly the tcp cells gain a `placement:other_host` point, one per payload, on
    /// hosts 0 and 1 and two different CPUs; without hosts there is none.
    #[test]
    fn only_tcp_runs_across_hosts() {
        crate::msg::tests::only_tcp_runs_across_hosts(&Ipc);
    }
}
