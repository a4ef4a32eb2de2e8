//! One point as an experiment measures it (docs/ARCHITECTURE.md "Experiments"): its spec and the runtime
//! it names, resolved once by the probe, with its typed parameters and the runtime's in-process code for
//! the capability the experiment uses (docs/ARCHITECTURE.md "Runtimes under test").

use serde::de::DeserializeOwned;

use overhead_record::PointSpec;
use overhead_runtime_api::RuntimeUnderTest;

/// What [`super::Experiment::run`] gets: the point's spec and its runtime, already found in the registry.
#[derive(Clone, Copy)]
pub struct Point<'a> {
    /// The point as planned: experiment, runtime name, `key:value` parameters, CPUs, placement.
    pub spec: &'a PointSpec,
    /// The runtime `spec.runtime` names.
    pub runtime: &'static dyn RuntimeUnderTest,
    /// This process's rank when the point runs as MPI ranks ([`Point::runs_as_ranks`]); 0 otherwise. Rank 0
    /// measures ([`super::Experiment::run`]), the others follow ([`super::Experiment::follow`]).
    pub rank: usize,
}

impl<'a> Point<'a> {
    /// The point of `spec` with its runtime, or `None` when no runtime in the registry has its name.
    pub fn resolve(spec: &'a PointSpec) -> Option<Point<'a>> {
        overhead_runtime_registry::resolve(&spec.runtime, spec.param(overhead_schema::runtimes::FLAVOR_KEY))
            .map(|runtime| Point { spec, runtime, rank: 0 })
    }

    /// The external runtime's probe of the point (Go, Java), when its runtime is external and the experiment is
    /// not one driven from Rust (`grain.sweep`), which this probe runs and which starts the external probe itself.
    pub fn external_probe(&self) -> Option<&'static dyn overhead_runtime_api::external_probe::ExternalProbe> {
        self.runtime.external().filter(|e| !e.driven_from_rust(&self.spec.experiment))
    }

    /// Whether the point's processes are MPI ranks started by the launcher: its runtime runs as ranks
    /// (`mpi`), or it spans hosts (`spec.hosts`).
    pub fn runs_as_ranks(&self) -> bool {
        self.runtime.launched_as_ranks() || !self.spec.hosts.is_empty()
    }

    /// The host rank `rank` runs on, when the point spans hosts.
    pub fn host_of(&self, rank: usize) -> Option<&str> {
        self.spec.hosts.get(rank).map(String::as_str)
    }

    /// The point's parameters as the experiment's parameter struct `P` ([`overhead_record::params::decode`]).
    ///
    /// Errors: a parameter is missing or its value is not what `P` takes; the text names the point.
    pub fn params<P: DeserializeOwned>(&self) -> anyhow::Result<P> {
        self.spec.params_as()
    }

    /// The runtime's in-process implementation behind `get` (an accessor such as
    /// [`RuntimeUnderTest::contention`]).
    ///
    /// Errors: the runtime has none (plans never make such a point; a hand-written probe job can):
    /// [`unimplemented_runtime`].
    pub fn in_process<T: ?Sized>(
        &self,
        get: impl FnOnce(&'static dyn RuntimeUnderTest) -> Option<&'static T>,
    ) -> anyhow::Result<&'static T> {
        get(self.runtime).ok_or_else(|| unimplemented_runtime(self.spec))
    }
}

/// The error for a point whose runtime the experiment does not implement, or that no runtime has (plans
/// never make one; a hand-written probe job can).
pub fn unimplemented_runtime(spec: &PointSpec) -> anyhow::Error {
    anyhow::anyhow!("{} does not implement runtime {}", spec.experiment, spec.runtime)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(experiment: &str, runtime: &str, params: &[(&str, &str)]) -> PointSpec {
        overhead_record::fixture::spec(experiment, runtime, params, &[0])
    }

    /// A job naming no runtime of the registry is not a point; the error names the experiment and the name.
    #[test]
    fn an_unknown_runtime_resolves_to_nothing() {
        let bad = spec("sync.faa", "pthreads", &[]);
        assert!(Point::resolve(&bad).is_none());
        let err = unimplemented_runtime(&bad).to_string();
        assert!(err.contains("sync.faa") && err.contains("pthreads"), "{err}");
    }

    /// The runtime comes resolved; a capability it has no code for is the same error, and a bad parameter
    /// value names the point.
    #[test]
    fn a_point_gives_its_runtime_code_and_params() {
        let good = spec("sync.faa", "os", &[("impl", "hashed_lock")]);
        let point = Point::resolve(&good).unwrap();
        assert_eq!(point.runtime.name(), "os");
        assert!(point.in_process(|r| r.contention()).is_ok());
        let rayon = spec("sync.faa", "rayon", &[]);
        let err = Point::resolve(&rayon).unwrap().in_process(|r| r.contention()).err().unwrap().to_string();
        assert!(err.contains("does not implement runtime rayon"), "{err}");

        #[derive(Debug, serde::Deserialize)]
        struct Params {
            #[serde(rename = "impl")]
            implementation: overhead_runtime_api::contention::AtomicImpl,
        }
        let params: Params = point.params().unwrap();
        assert_eq!(params.implementation, overhead_runtime_api::contention::AtomicImpl::HashedLock);
        let bad = spec("sync.faa", "os", &[("impl", "cas")]);
        let err = Point::resolve(&bad).unwrap().params::<Params>().unwrap_err().to_string();
        assert!(err.contains("sync.faa/runtime:os/impl:cas") && err.contains("hashed_lock"), "{err}");
    }
}
