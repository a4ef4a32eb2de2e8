//! Every runtime under test, in column order (docs/ARCHITECTURE.md "Runtimes under test").

use overhead_runtime_api::RuntimeUnderTest;
use overhead_runtime_async::{monoio_rt, smol_rt, tokio_rt};
use overhead_runtime_external::{self as external, mpi};
use overhead_runtime_fibers as fiber;
use overhead_runtime_os as os;
use overhead_runtime_parallel::{openmp, rayon_rt};

/// The runtimes, in the order of every table's columns: kernel threads first, then the project's fibers,
/// the peers, and the external probes. Adding a runtime is one line here and one module; a runtime of
/// several flavors has a line a flavor, side by side (`RuntimeUnderTest::flavor`).
pub fn registry() -> &'static [&'static dyn RuntimeUnderTest] {
    &[
        &os::Os,
        &fiber::FIBER_ASM,
        &fiber::FIBER_UCONTEXT,
        &fiber::FIBER_COROSENSEI,
        &tokio_rt::TokioCurrentThread,
        &tokio_rt::TokioMultiThread,
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

/// The runtime with this public name (a name a user typed: `--runtime`); of a runtime with flavors, its
/// first ([`find_all`] has every one).
pub fn find(name: &str) -> Option<&'static dyn RuntimeUnderTest> {
    registry().iter().copied().find(|r| r.name() == name)
}

/// Every entry of the runtime with this public name: one, or one a flavor (`--runtime tokio` measures both).
pub fn find_all(name: &str) -> Vec<&'static dyn RuntimeUnderTest> {
    registry().iter().copied().filter(|r| r.name() == name).collect()
}

/// The runtime a point names (`PointSpec::runtime`, and its `flavor:` parameter when it has one): the one
/// place a record's runtime becomes its code; `None` for a runtime or flavor this build does not have (a
/// record or job from another build). A point without `flavor:` names a runtime without flavors.
pub fn resolve(
    id: &overhead_schema::runtimes::RuntimeId,
    flavor: Option<&str>,
) -> Option<&'static dyn RuntimeUnderTest> {
    registry().iter().copied().find(|r| r.id() == *id && r.flavor() == flavor)
}

/// Every public runtime name, in column order, once (a runtime's flavors share its name).
pub fn names() -> Vec<&'static str> {
    // A runtime's flavors sit side by side in the registry (tested below), so one dedup leaves each once.
    let mut names: Vec<&'static str> = registry().iter().map(|r| r.name()).collect();
    names.dedup();
    names
}

/// The runtimes `overhead run` measures without `--runtime`.
pub fn default_run() -> Vec<&'static dyn RuntimeUnderTest> {
    registry().iter().copied().filter(|r| r.in_default_run()).collect()
}

/// Where a runtime's column goes: its index among the registry's [`names`] (a runtime's flavors share
/// one); names not in it (a record from another build) after all of them.
pub fn column_rank(name: &str) -> usize {
    let names = names();
    names.iter().position(|n| *n == name).unwrap_or(names.len())
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

    /// Entries that share a name are the flavors of one runtime, side by side, each named by its flavor, and a
    /// point finds its flavor.
    #[test]
    fn a_runtimes_flavors_sit_together_and_resolve_by_their_parameter() {
        for name in names() {
            let entries = find_all(name);
            let first = registry().iter().position(|r| r.name() == name).unwrap();
            assert!(registry()[first..first + entries.len()].iter().all(|r| r.name() == name), "{name}: not adjacent");
            if entries.len() > 1 {
                for r in &entries {
                    let flavor = r.flavor().unwrap_or_else(|| panic!("{name}: two entries, one without a flavor"));
                    assert_eq!(resolve(&r.id(), Some(flavor)).map(|found| found.flavor()), Some(Some(flavor)));
                }
                assert!(resolve(&entries[0].id(), None).is_none(), "{name}: a point must name its flavor");
            } else {
                assert!(entries[0].flavor().is_none() && resolve(&entries[0].id(), None).is_some());
            }
        }
        assert_eq!(find_all("tokio").len(), 2);
        assert!(resolve(&"tokio".into(), Some("work_stealing")).is_none());
    }

    #[test]
    fn names_are_unique_and_found() {
        let names = names();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[..i].contains(name), "{name} twice");
            assert_eq!(find(name).map(|r| r.name()), Some(*name));
        }
        assert_eq!(column_rank("not a runtime"), names.len());
    }
}
