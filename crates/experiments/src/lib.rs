//! The experiments and their registry. One file per experiment, grouped by family (docs/ARCHITECTURE.md
//! "Experiments"); each says what it measures, against which control, and where the idea comes from.

pub mod across_hosts;
pub mod base;
mod catalog;
pub mod clock;
pub mod grain;
pub mod mem;
pub mod mpi;
pub mod msg;
pub mod pairwise;
mod plan;
pub mod point;
pub mod rpc;
pub mod sched;
pub mod spawn;
pub mod sync;
pub mod timer;
pub mod wake;

pub use catalog::{Registries, CATALOG};
pub use plan::{PairSpan, PlanContext, Planned};
pub use point::Point;

pub use overhead_harness::empty_loop;
use overhead_harness::{Harness, HarnessConfig};
use overhead_record::Metric;
pub use overhead_record::Outcome;
use overhead_runtime_api::Capability;

/// What `overhead list` and the record say about an experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExperimentInfo {
    /// Public ID, `family.name` (docs/ARCHITECTURE.md table; users' scripts depend on it).
    pub id: &'static str,
    /// One line: what is measured, and against which control.
    pub summary: &'static str,
    /// The study document and section, or tool, the experiment follows.
    pub source: &'static str,
    /// What the reported time means.
    pub metric: Metric,
    /// What a runtime needs to have for a cell of this experiment; each runtime says whether it has it
    /// ([`overhead_runtime_api::RuntimeUnderTest::offers`]).
    pub requires: &'static [Capability],
}

/// The `requires` of an experiment of the kernel's own facilities (system calls, clocks, timers, IPC):
/// measured once, under `os`.
pub const KERNEL: &[Capability] = &[Capability::Kernel];

/// One public experiment.
pub trait Experiment: Sync {
    /// Its ID, description, source and metric.
    fn info(&self) -> &'static ExperimentInfo;
    /// Public ID, `family.name`.
    fn id(&self) -> &'static str {
        self.info().id
    }
    /// The points to run for `runtime` on this machine (what it offers decides the shape: mechanisms,
    /// one CPU for a runtime on one kernel thread, loads it refuses; [`overhead_runtime_api::Offers`]); points that
    /// cannot run here come back as [`Planned::Skip`] with the reason. Called only for runtimes that have
    /// every capability in [`Experiment::requires`]; the specs name `runtime` ([`PlanContext::spec_of`]).
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned>;
    /// What a runtime must have for a cell of this experiment.
    fn requires(&self) -> &'static [Capability] {
        self.info().requires
    }
    /// Measures one point: its spec, its runtime (resolved once by the probe) and its typed parameters
    /// ([`Point::params`]). The calling thread is already pinned to `point.spec.cpus[0]`.
    ///
    /// Errors: the point's parameters are not the experiment's (the text names the point); its runtime has
    /// no in-process code for the capability ([`Point::in_process`]); the point's resources could not be
    /// set up (a pipe, a fork, a thread).
    fn run(&self, point: &Point<'_>, harness: &Harness) -> anyhow::Result<Outcome>;
    /// The harness settings this experiment's probes run with, given the run's (`base`): the run's own by
    /// default. An experiment whose batches must hold more than the mode's target lengthens them here, and
    /// the orchestrator puts the result in every probe's job, so a Rust probe and an external one (Go,
    /// Java) time the same batches (`msg.throughput`: streams that switch between regimes over
    /// milliseconds; docs/METHOD.md §9).
    fn harness_config(&self, base: HarnessConfig) -> HarnessConfig {
        base
    }
    /// A point started as MPI ranks ([`Point::runs_as_ranks`]): what every rank but 0 does, on its own CPU
    /// (`point.spec.cpus[point.rank]`, already pinned), until rank 0's [`Experiment::run`] is done — follow
    /// its batches, serve its socket. Rank 0 answers for the point; a follower's error fails it.
    ///
    /// Errors: by default, the experiment does not run as ranks.
    fn follow(&self, point: &Point<'_>) -> anyhow::Result<()> {
        anyhow::bail!("{} does not run as MPI ranks (rank {} has nothing to do)", self.id(), point.rank)
    }
}

/// Every experiment, in the order a run takes them.
pub fn registry() -> &'static [&'static dyn Experiment] {
    &[
        &base::LoopOverhead,
        &base::Call,
        &base::Syscall,
        &clock::Read,
        &clock::Convert,
        &clock::Offset,
        &clock::Rate,
        &sched::Switch,
        &sched::Yield,
        &sched::Broadcast,
        &spawn::Create,
        &spawn::ForkJoin,
        &spawn::Remote,
        &spawn::Bulk,
        &grain::Sweep,
        &sync::Faa,
        &sync::Barrier,
        &sync::Oversub,
        &sync::Mutex,
        &sync::RwLock,
        &sync::Sem,
        &sync::Getcpu,
        &sync::Percpu,
        &msg::Call,
        &msg::AsyncSend,
        &msg::Switch,
        &msg::Rendezvous,
        &msg::Throughput,
        &msg::Ipc,
        &msg::Bandwidth,
        &rpc::Methods,
        &rpc::Floor,
        &timer::HotPath,
        &timer::Wakeup,
        &timer::Stolen,
        &wake::Handoff,
        &mem::C2c,
        &mem::Contention,
        &mem::Mix,
        &mem::Fairness,
        &mem::Remote,
        &mpi::PingPong,
        &mpi::Bandwidth,
        &mpi::Barrier,
        &mpi::Allreduce,
        &mpi::Hosts,
    ]
}

/// The experiment with this exact ID.
pub fn find(id: &str) -> Option<&'static dyn Experiment> {
    registry().iter().copied().find(|e| e.id() == id)
}

/// The families present in the registry (`base`, `clock`, …), in registry order.
pub fn families() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for e in registry() {
        let family = e.id().split('.').next().unwrap_or_default();
        if !out.contains(&family) {
            out.push(family);
        }
    }
    out
}
