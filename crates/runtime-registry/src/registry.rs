//! Every runtime under test, in column order (docs/ARCHITECTURE.md "Runtimes under test").

use overhead_runtime_api::RuntimeUnderTest;
use overhead_runtime_async::{monoio_rt, smol_rt, tokio_rt};
use overhead_runtime_external::{self as external, mpi};
use overhead_runtime_fibers as fiber;
use overhead_runtime_os as os;
use overhead_runtime_parallel::{openmp, rayon_rt};

/// The runtimes, in the order of every table's columns: kernel threads first, then the project's fibers,
/// the peers, and the external probes. Adding a runtime is one line here and one module.
pub fn registry() -> &'static [&'static dyn RuntimeUnderTest] {
    &[
        &os::Os,
        &fiber::FIBER_ASM,
        &fiber::FIBER_UCONTEXT,
        &fiber::FIBER_COROSENSEI,
        &tokio_rt::Tokio,
        &smol_rt::Smol,
        &monoio_rt::Monoio,
        &rayon_rt::Rayon,
        &openmp::OpenMp,
        &external::GO,
        &external::JAVA_PLATFORM,
        &external::JAVA_VIRTUAL,
        &mpi::Mpi,
    ]
}

/// The runtime with this public name (a name a user typed: `--runtime`).
pub fn find(name: &str) -> Option<&'static dyn RuntimeUnderTest> {
    registry().iter().copied().find(|r| r.name() == name)
}

/// The runtime a point names (`PointSpec::runtime`): the one place a record's runtime becomes its code;
/// `None` for a runtime this build does not have (a record or job from another build).
pub fn resolve(id: &overhead_schema::runtimes::RuntimeId) -> Option<&'static dyn RuntimeUnderTest> {
    registry().iter().copied().find(|r| r.id() == *id)
}

/// Every public runtime name, in column order.
pub fn names() -> Vec<&'static str> {
    registry().iter().map(|r| r.name()).collect()
}

/// The runtimes `overhead run` measures without `--runtime`.
pub fn default_run() -> Vec<&'static dyn RuntimeUnderTest> {
    registry().iter().copied().filter(|r| r.in_default_run()).collect()
}

/// Where a runtime's column goes: its index in the registry; names not in it (a record from another
/// build) after all of them.
pub fn column_rank(name: &str) -> usize {
    registry().iter().position(|r| r.name() == name).unwrap_or(registry().len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_runtime_api::{implements, Capability};

    /// Every capability a runtime measured in this process offers has its implementation behind the
    /// accessor, and every one it lacks has none: the plan (which reads the offers) and the experiments
    /// (which ask the accessors) cannot disagree. An external runtime has no in-process code but its
    /// granularity sweep, exactly when it offers fork-join fan-out.
    #[test]
    fn what_a_runtime_claims_is_what_it_implements() {
        use Capability as C;
        let all = [
            C::Context,
            C::Kernel,
            C::Call,
            C::SpawnJoin,
            C::Semaphore,
            C::Channel,
            C::MessageSwitch,
            C::Rendezvous,
            C::ChannelThroughput,
            C::RawSwitch,
            C::Yield,
            C::WakeAll,
            C::ForkJoin,
            C::ActivityBarrier,
            C::Atomic,
            C::Barrier,
            C::Lock,
            C::RwLock,
        ];
        for runtime in registry() {
            let offers = runtime.offers();
            if runtime.external().is_some() {
                assert!(
                    runtime.context().is_none()
                        && runtime.primitives().is_none()
                        && runtime.messages().is_none()
                        && runtime.contention().is_none()
                        && runtime.rwlock().is_none()
                        && runtime.channel_throughput().is_none()
                        && runtime.yield_round().is_none()
                        && runtime.wake_all().is_none()
                        && runtime.fan_out().is_none()
                        && runtime.activity_barrier().is_none(),
                    "{} is external: data only",
                    runtime.name()
                );
                assert_eq!(runtime.grain_sweep().is_some(), offers.fork_join.has().is_some(), "{}", runtime.name());
                continue;
            }
            for c in all {
                if let Some(has) = implements(*runtime, c) {
                    assert_eq!(has, offers.lacks(c).is_none(), "{} and {c}", runtime.name());
                }
            }
            if offers.fork_join.has().is_some() {
                assert!(runtime.fan_out().is_some(), "{}", runtime.name());
                let sweeps = runtime.one_thread().is_none();
                assert_eq!(runtime.grain_sweep().is_some(), sweeps, "{}: grain.sweep", runtime.name());
            }
        }
    }

    #[test]
    fn names_are_unique_and_found() {
        let names = names();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[..i].contains(name), "{name} twice");
            assert_eq!(find(name).map(|r| r.name()), Some(*name));
        }
        assert_eq!(column_rank("not a runtime"), registry().len());
    }
}
