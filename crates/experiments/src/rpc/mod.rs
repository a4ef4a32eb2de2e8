//! The `rpc` family: Walfield's per-method RPC accounting on a real RPC stack, and the bare socket under it.
//!
//! Walfield 2008 (Walfield, "RPC overhead", Viengoos, 2008) timed each of four system calls twice: in the client's
//! stub around the call and in the server from the receipt of the request to its reply, and read the
//! difference (the delta) as the RPC's overhead; the delta was about 3650 cycles more than a ping-pong of the
//! same message sizes, which the study could not account for and guessed to be cold caches. Here the stack is
//! gRPC (tonic + prost on hyper's HTTP/2, one current-thread tokio runtime per side, `service.rs`), between a
//! client (the probe) and a server process forked from it (`server.rs`), each one thread pinned to its CPU of
//! the point, over a UNIX domain socket or TCP loopback (`transport.rs`):
//!
//! - `rpc.methods` (`methods.rs`): the study's table, per method: calls, total time on each side, µs per call on
//!   each side and the delta (`accounting.rs`);
//! - `rpc.floor` (`floor.rs`): the same request and reply bytes over the bare socket (`bare.rs`), so the delta
//!   splits into transport and framing + protocol + runtime, and the delta again with the caches of both
//!   processes evicted before every call (`evict.rs`): cold − hot is the study's unaccounted cycles.
//!
//! docs/ARCHITECTURE.md "The rpc family (Walfield 2008)" describes both; the report's `rpc` section prints the
//! study's table.

pub mod accounting;
mod floor;
mod methods;
mod server;

pub use floor::{Floor, FloorResult};
pub use methods::Methods;
pub use methods::Params as MethodsParams;
pub use overhead_grpc::{service, RpcTransport};

/// A note for the record when the client process ran more than one thread while it measured: each side of an
/// `rpc` point is meant to be one pinned thread (a current-thread runtime that started no helper thread).
fn one_thread_note() -> Option<String> {
    server::threads().filter(|&n| n > 1).map(|n| format!("the client process ran {n} threads, not one"))
}

use serde::Serialize;

use super::{PlanContext, Planned};
use overhead_harness::Mode;
use overhead_machine::Topology;

/// [`PlanContext::pair_points`] with fewer placements outside `--full` ([`PlanContext::nearest_pair_points`]):
/// the same CPU (Walfield's machine had one) and one other CPU (another core when there is one, else the
/// nearest other placement), so that a default run has at most two points per transport and experiment;
/// `--full` keeps every placement the machine has. Skipped points (one usable CPU) are kept with their reason.
fn placements<P: Serialize>(
    ctx: &PlanContext,
    experiment: &str,
    runtime: &dyn overhead_runtime_api::RuntimeUnderTest,
    params: &P,
) -> Vec<Planned> {
    match ctx.mode {
        Mode::Full => ctx.pair_points(experiment, runtime, params),
        _ => ctx.nearest_pair_points(experiment, runtime, params),
    }
}

/// Bytes streamed to evict the caches when the machine does not say how large they are (MiB).
const EVICT_MIB_UNKNOWN: u64 = 64;

/// The most the cold variant streams before each call (MiB). Some virtual machines report the host's whole
/// last-level cache (480 MiB seen on a 2-vCPU KVM guest): twice that, streamed by both processes before every
/// cold call, made one `rpc.floor` process take 5 s and the default run pass its 90 s. A cold call after the
/// cap may find lines of its previous call in a cache larger than half of it; the point's note says when the
/// cap applied (docs/METHOD.md §5 keeps such limits visible).
pub const EVICT_MIB_CAP: u64 = 256;

/// The cap in `--quick` (MiB), whose point is a first look in about 30 s: there the cold calls stream at most
/// this much (the point's name and note say how much).
pub const EVICT_MIB_CAP_QUICK: u64 = 64;

/// Bytes the cold variant streams through the caches before each call, in MiB: twice the largest cache the
/// machine reports (one instance of the last level), so that nothing a call used before survives in any level;
/// at least 8 MiB, at most [`EVICT_MIB_CAP`] ([`EVICT_MIB_CAP_QUICK`] in `--quick`), and [`EVICT_MIB_UNKNOWN`]
/// when the topology lists no cache.
pub fn evict_mib(topology: &Topology, mode: Mode) -> u64 {
    let cap = if mode == Mode::Quick { EVICT_MIB_CAP_QUICK } else { EVICT_MIB_CAP };
    match topology.caches.iter().map(|c| c.size).max() {
        Some(largest) => (2 * largest).div_ceil(1 << 20).clamp(8, cap),
        None => EVICT_MIB_UNKNOWN.min(cap),
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use overhead_machine::{CacheInfo, CpuInfo, Placement};

    /// A machine of two CPUs on two cores of one package with a 32 MiB last-level cache, whatever this one is
    /// (so that a plan's test does not depend on where it runs).
    pub fn two_cores(mode: Mode) -> PlanContext {
        let mut ctx = four_cpus(mode);
        ctx.topology.cpus = (0..2)
            .map(|cpu| CpuInfo { cpu, core: cpu, package: 0, numa_node: 0, smt_siblings: vec![], llc: None })
            .collect();
        (ctx.topology.packages, ctx.topology.cores) = (1, 2);
        ctx.cpus = vec![0, 1];
        ctx
    }

    /// A machine of 4 CPUs: 0 and 1 share a core, 2 is another core of the same package, 3 another package;
    /// a 32 MiB last-level cache.
    fn four_cpus(mode: Mode) -> PlanContext {
        let cpu =
            |cpu, core, package, smt_siblings| CpuInfo { cpu, core, package, numa_node: 0, smt_siblings, llc: None };
        let cache = |level, size| CacheInfo { kind: "Unified".into(), level, size, num_sharing: 1 };
        let topology = Topology {
            cpus: vec![cpu(0, 0, 0, vec![1]), cpu(1, 0, 0, vec![0]), cpu(2, 1, 0, vec![]), cpu(3, 2, 1, vec![])],
            caches: vec![cache(2, 1 << 20), cache(3, 32 << 20)],
            packages: 2,
            cores: 3,
            numa_nodes: 1,
        };
        PlanContext { cpus: vec![0, 1, 2, 3], topology, mode, hosts: Vec::new() }
    }

    fn placements_of(planned: &[Planned]) -> Vec<(Option<Placement>, bool)> {
        planned
            .iter()
            .map(|p| match p {
                Planned::Run(s) => (s.placement, true),
                Planned::Skip(s, _) => (s.placement, false),
            })
            .collect()
    }

    #[test]
    fn default_keeps_the_same_cpu_and_another_core_full_keeps_all() {
        let params = overhead_record::params::NoParams {};
        let default = placements(&four_cpus(Mode::Default), "rpc.x", &overhead_runtime_os::Os, &params);
        assert_eq!(placements_of(&default), [(Some(Placement::SameCpu), true), (Some(Placement::OtherCore), true)]);
        let full = placements(&four_cpus(Mode::Full), "rpc.x", &overhead_runtime_os::Os, &params);
        let expected = [Placement::SameCpu, Placement::SmtSibling, Placement::OtherCore, Placement::OtherPackage];
        assert_eq!(placements_of(&full), expected.map(|p| (Some(p), true)));
        // Without another core, the nearest other placement stands in for it.
        let mut ctx = four_cpus(Mode::Quick);
        ctx.cpus = vec![0, 1];
        let quick = placements(&ctx, "rpc.x", &overhead_runtime_os::Os, &params);
        assert_eq!(placements_of(&quick), [(Some(Placement::SameCpu), true), (Some(Placement::SmtSibling), true)]);
        // One usable CPU: the other-CPU point is skipped, not dropped.
        ctx.cpus = vec![2];
        let one = placements(&ctx, "rpc.x", &overhead_runtime_os::Os, &params);
        assert_eq!(placements_of(&one), [(Some(Placement::SameCpu), true), (Some(Placement::OtherCore), false)]);
    }

    #[test]
    fn eviction_is_twice_the_largest_cache() {
        assert_eq!(evict_mib(&four_cpus(Mode::Default).topology, Mode::Default), 64);
        let mut small = four_cpus(Mode::Default).topology;
        small.caches.truncate(1);
        assert_eq!(evict_mib(&small, Mode::Default), 8, "at least 8 MiB");
        small.caches[0].size = 5 << 20;
        assert_eq!(evict_mib(&small, Mode::Default), 10);
        small.caches[0].size = 480 << 20;
        assert_eq!(evict_mib(&small, Mode::Default), EVICT_MIB_CAP, "a VM's claim of the host's whole cache is capped");
        assert_eq!(evict_mib(&small, Mode::Quick), EVICT_MIB_CAP_QUICK);
        small.caches.clear();
        assert_eq!(evict_mib(&small, Mode::Default), EVICT_MIB_UNKNOWN);
    }
}
