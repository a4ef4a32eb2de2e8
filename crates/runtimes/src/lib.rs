//! The runtimes under test (docs/ARCHITECTURE.md "Runtimes under test"): the registry of every runtime, in
//! column order, over the plug-in interface (`overhead-runtime-api`) and one crate per runtime family.
//! The experiments and the orchestrator reach every runtime through this crate, under the paths it has
//! always had (`overhead_runtimes::os`, `::offer`, ...): the families are re-exported here.

pub use overhead_runtime_api::{
    activity_barrier, channel_impl, channel_parties, channel_throughput, contention, external_probe, fan_out,
    grain_sweep, grain_tally, grain_work, offer, plugin, primitives, wake_all, yield_barrier, yield_round,
};
pub use overhead_runtime_api::{
    implements, missing, Capability, Offer, Offers, RuntimeUnderTest, BETWEEN_CPUS_ELSEWHERE, KERNEL_UNDER_OS,
    RANKS_UNDER_MPI,
};
pub use overhead_runtime_async::{
    async_channels, async_runtime, local_runtime, monoio_rt, smol_rt, task_pool, tokio_rt,
};
pub use overhead_runtime_external::{self as external, mpi};
pub use overhead_runtime_fibers as fiber;
pub use overhead_runtime_os as os;
pub use overhead_runtime_parallel::{openmp, rayon_rt};

mod registry;

pub use registry::{column_rank, default_run, find, names, registry};

#[cfg(test)]
mod tests {
    mod fan_out;
    mod offer;
}
