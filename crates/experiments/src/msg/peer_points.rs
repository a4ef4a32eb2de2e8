//! What `msg.ipc` and `msg.bw` share: their parameters, their points over transports and payloads, and the
//! measurement against a forked peer, each experiment's side of it behind [`PeerMeasure`] (so neither
//! experiment's file needs the other's).

use crate::{Outcome, PairSpan, PlanContext, Planned};
use overhead_harness::{Harness, Measurement};
use overhead_runtime_os::ipc::{payload_limit, End, IpcTransport, Peer, Role, WithEnds};

pub use overhead_schema::experiments::msg::IpcParams as Params;

/// The points of a peer experiment (`msg.ipc`, `msg.bw`) over `transports` × `payloads`, in that order: the
/// first payload at each pair placement this machine has, the others at the same CPU and the nearest other
/// (`PairSpan::first_at_every_class`; every placement in `--full`), skipped with the reason where the transport
/// cannot carry the payload here (`payload_limit`), and over TCP the pair across hosts.
pub(super) fn transport_points(
    ctx: &PlanContext,
    experiment: &str,
    runtime: &dyn overhead_runtime_api::RuntimeUnderTest,
    transports: &[IpcTransport],
    payloads: &[usize],
) -> Vec<Planned> {
    let mut out = Vec::new();
    for &transport in transports {
        let limit = payload_limit(transport);
        for (i, &payload) in payloads.iter().enumerate() {
            let span = PairSpan::first_at_every_class(i);
            let planned = ctx.spanned_pair_points(span, experiment, runtime, &Params { transport, payload });
            match limit.as_ref().filter(|l| payload > l.bytes) {
                Some(l) => out.extend(planned.into_iter().map(|p| match p {
                    Planned::Run(spec) | Planned::Skip(spec, _) => Planned::Skip(spec, l.why.clone()),
                })),
                None => out.extend(planned),
            }
            if transport == IpcTransport::Tcp {
                out.extend(ctx.other_host_pair(experiment, runtime, &Params { transport, payload }));
            }
        }
    }
    out
}

/// How one side of a peer experiment measures once its end is open: round trips against an echo (`msg.ipc`)
/// or batches streamed into a sink (`msg.bw`).
pub(super) trait PeerMeasure: Copy {
    /// The forked peer's part.
    const ROLE: Role;
    /// The measurement through `end`, whose other side plays [`PeerMeasure::ROLE`].
    fn measure<E: End>(self, h: &Harness, end: &mut E, payload: usize) -> anyhow::Result<Measurement>;
}

/// The measurement against a forked peer, once the channel's end type is known.
pub(super) struct AgainstPeer<'h, M> {
    pub h: &'h Harness,
    pub payload: usize,
    pub peer_cpu: usize,
    pub measure: M,
}

impl<M: PeerMeasure> WithEnds for AgainstPeer<'_, M> {
    type Output = anyhow::Result<Outcome>;
    fn with<E: End>(self, parent: E, child: E) -> anyhow::Result<Outcome> {
        let AgainstPeer { h, payload, peer_cpu, measure } = self;
        Peer::measure_against(parent, child, peer_cpu, payload, M::ROLE, |end| measure.measure(h, end, payload))
            .map(Outcome::from)
    }
}
