//! `rpc.methods`: Walfield's per-method table on gRPC. The client calls the four methods in the study's mix;
//! the harness times the calls against the empty loop (the point's median: µs per call over the mix, with its
//! CI over processes), and both sides tally each method as the study's instrumentation did (the per-method
//! table in the point's `details`, the per-call values in its `extra`).

use anyhow::Context as _;

use super::accounting::{methods_table, per_call, totals, TABLE_KEY};
use super::server::{serve_across_hosts, GrpcServer};
use super::{one_thread_note, placements, RpcTransport};
use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_clock::Clock;
use overhead_grpc::service::{connect, Method, Stub};
use overhead_grpc::transport::Address;
use overhead_harness::Harness;
use overhead_machine::Placement;
use overhead_record::Metric;

use Method::{CapCopy as C, FolioAlloc as F, ObjectAlloc as A, ObjectDiscard as D};

/// One round of Walfield's mix, the operation the harness times: 32 calls, 25 object discards, 3 object
/// allocs, 3 cap copies and 1 folio alloc (the study's 79%, 10%, 10% and 0.1% of 869,259 calls, with folio
/// alloc raised to one call a round so that every round has every method). A batch is a whole number of
/// rounds, so every batch of every process makes the same calls and their mean is the same quantity; one
/// round takes longer than a batch's target, so a batch is usually one round.
const MIX: [Method; 32] = [
    F, D, D, D, D, A, D, D, D, D, C, D, D, D, D, D, //
    A, D, D, D, D, C, D, D, D, D, D, A, D, D, C, D,
];

/// Untimed rounds of the mix before the tallies start: the connection's first calls (header tables, buffers,
/// lazily made state on both sides) are not what a call costs.
const WARMUP_ROUNDS: usize = 2;

pub use overhead_schema::experiments::rpc::MethodsParams as Params;

/// Walfield's per-method accounting on a gRPC service between two pinned processes: per call over the
/// study's mix (the point's median), and per method on each side (the table). With `--hosts`, TCP also runs
/// across hosts (`placement:other_host`): the server is rank 1 on the other host
/// ([`serve_across_hosts`], timing with `CLOCK_MONOTONIC_RAW`), the client rank 0 here, measuring as on one
/// machine.
pub struct Methods;

impl Methods {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::rpc::METHODS;
}

impl Experiment for Methods {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Methods::ID,
            summary: "gRPC call (tonic + prost, a current-thread runtime per process) in Walfield's mix of four \
                      methods, against the empty loop; per-method client and server time and their delta",
            source: "Walfield 2008 (per-method RPC accounting, client stub vs. server); tonic/gRPC",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }

    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        let mut out = Vec::new();
        for transport in RpcTransport::ALL {
            out.extend(placements(ctx, self.id(), runtime, &Params { transport }));
            if transport == RpcTransport::Tcp {
                out.extend(ctx.other_host_pair(self.id(), runtime, &Params { transport }));
            }
        }
        out
    }

    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let params: Params = point.params()?;
        let server_cpu = *spec.cpus.last().context("the point names no CPU")?;
        // Across hosts the server is rank 1 there, timing with its own clock; here it is forked before this
        // process starts a runtime of its own (server.rs), timing with the harness's clock.
        let (server, address, server_clock, across_note) = if spec.placement == Some(Placement::OtherHost) {
            anyhow::ensure!(params.transport == RpcTransport::Tcp, "{}: only tcp runs across hosts", spec.name());
            let address = crate::across_hosts::rank1_addresses(point)?[0];
            let note = format!(
                "across hosts over gRPC on TCP (TCP_NODELAY) to rank 1 at {}; the server timed with \
                 CLOCK_MONOTONIC_RAW",
                address.ip()
            );
            (None, Address::Tcp(address), Clock::MONOTONIC_RAW, Some(note))
        } else {
            let server = GrpcServer::start(params.transport, server_cpu, h.clock, None)?;
            let address = server.address().clone();
            (Some(server), address, h.clock, None)
        };
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let mut stub = Stub::new(rt.block_on(connect(&address)).context("connecting")?, h.clock);
        for _ in 0..WARMUP_ROUNDS {
            for &m in &MIX {
                rt.block_on(stub.call(m)).with_context(|| format!("warm-up call of {}", m.label()))?;
            }
        }
        rt.block_on(stub.take_tallies()).context("clearing the warm-up's tallies")?;
        let mut failed = None;
        let measurement = h
            .measure(
                |n| {
                    rt.block_on(async {
                        for _ in 0..n {
                            for &m in &MIX {
                                if let Err(e) = stub.call(m).await {
                                    failed.get_or_insert(e);
                                }
                            }
                        }
                    })
                },
                empty_loop,
            )
            .per(MIX.len() as f64);
        if let Some(e) = failed {
            anyhow::bail!("a call failed during measurement: {e}");
        }
        let (client, server_side) = rt.block_on(stub.take_tallies()).context("taking the tallies")?;
        let threads_note = one_thread_note();
        // Closing the connection ends the server: the client's tasks live in its runtime.
        drop(stub);
        drop(rt);
        if let Some(server) = server {
            server.finish()?;
        }
        let totals = totals(&h.clock, &server_clock, &client, &server_side)?;
        let mut outcome = Outcome::from(measurement).with_result(&per_call(&totals));
        outcome.details.tables.insert(TABLE_KEY.into(), methods_table(&totals));
        outcome.notes.push(format!(
            "a round of Walfield's mix is {} calls: {} object discard, {} object alloc, {} cap copy, {} folio alloc",
            MIX.len(),
            MIX.iter().filter(|&&m| m == D).count(),
            MIX.iter().filter(|&&m| m == A).count(),
            MIX.iter().filter(|&&m| m == C).count(),
            MIX.iter().filter(|&&m| m == F).count(),
        ));
        outcome.notes.extend(threads_note);
        outcome.notes.extend(across_note);
        Ok(outcome)
    }

    /// Rank 1 of a `placement:other_host` point: the gRPC server, on a TCP connection from rank 0.
    fn follow(&self, point: &Point<'_>) -> anyhow::Result<()> {
        let params: Params = point.params()?;
        anyhow::ensure!(params.transport == RpcTransport::Tcp, "{}: only tcp runs across hosts", point.spec.name());
        serve_across_hosts()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::tests::two_cores;
    use overhead_harness::Mode;

    fn names(planned: &[Planned]) -> Vec<String> {
        planned
            .iter()
            .map(|p| match p {
                Planned::Run(s) => s.name(),
                Planned::Skip(s, why) => format!("skip {} ({why})", s.name()),
            })
            .collect()
    }

    /// On two CPUs: per transport, the same CPU and the other one, client first, server second.
    #[test]
    fn plan_is_each_transport_on_the_same_and_the_other_cpu() {
        let ctx = two_cores(Mode::Default);
        let planned = Methods.points(&ctx, &overhead_runtime_os::Os);
        assert_eq!(
            names(&planned),
            [
                "rpc.methods/runtime:os/transport:unix/placement:same_cpu",
                "rpc.methods/runtime:os/transport:unix/placement:other_core",
                "rpc.methods/runtime:os/transport:tcp/placement:same_cpu",
                "rpc.methods/runtime:os/transport:tcp/placement:other_core",
            ]
        );
        let cpus: Vec<Vec<usize>> =
            planned.iter().filter_map(|p| if let Planned::Run(s) = p { Some(s.cpus.clone()) } else { None }).collect();
        assert_eq!(cpus, [vec![0, 0], vec![0, 1], vec![0, 0], vec![0, 1]]);
        let spec = match &planned[3] {
            Planned::Run(s) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(spec.params_as::<Params>().unwrap(), Params { transport: RpcTransport::Tcp });
    }

    /// With two hosts, only tcp gains a `placement:other_host` point (after its local ones), on hosts 0 and 1
    /// and two CPUs; without hosts there is none.
    #[test]
    fn only_tcp_runs_across_hosts() {
        let mut ctx = two_cores(Mode::Default);
        let local = names(&Methods.points(&ctx, &overhead_runtime_os::Os));
        assert!(!local.iter().any(|n| n.contains("other_host")));
        ctx.hosts = vec!["a".into(), "b".into()];
        let planned = Methods.points(&ctx, &overhead_runtime_os::Os);
        let mut expected = local;
        expected.push("rpc.methods/runtime:os/transport:tcp/placement:other_host".into());
        assert_eq!(names(&planned), expected);
        let Some(Planned::Run(spec)) = planned.last() else { panic!("{planned:?}") };
        assert_eq!(
            (spec.hosts.as_slice(), spec.placement),
            (&["a".to_string(), "b".to_string()][..], Some(Placement::OtherHost))
        );
        assert_ne!(spec.cpus[0], spec.cpus[1]);
    }

    /// The mix has every method, in the study's order of frequency, and a whole round per batch keeps it.
    #[test]
    fn the_mix_follows_the_seed() {
        let count = |m| MIX.iter().filter(|&&x| x == m).count();
        assert_eq!([count(D), count(A), count(C), count(F)], [25, 3, 3, 1]);
    }
}
