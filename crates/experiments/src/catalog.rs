//! The registries' answers to the analysis ([`overhead_record::Catalog`]): the experiments' order, the
//! runtimes' columns and each runtime's own channel, read from the registries themselves.

use overhead_record::{Catalog, CatalogSnapshot, ExperimentAbout, OwnImpl};

/// The catalog of this build's registries.
#[derive(Debug, Clone, Copy, Default)]
pub struct Registries;

/// The one instance the orchestrator, the report and the command line pass to the analysis.
pub static CATALOG: Registries = Registries;

impl Catalog for Registries {
    fn experiment_rank(&self, experiment: &str) -> usize {
        super::registry().iter().position(|e| e.id() == experiment).unwrap_or(usize::MAX)
    }
    fn runtime_rank(&self, runtime: &str) -> usize {
        overhead_runtime_registry::column_rank(runtime)
    }
    fn own_impl(&self, experiment: &str, runtime: &str) -> Option<String> {
        super::msg::own_impl(experiment, runtime).map(|i| i.as_str().to_string())
    }
    fn snapshot(&self) -> CatalogSnapshot {
        let experiments: Vec<ExperimentAbout> = super::registry()
            .iter()
            .map(|e| {
                let info = e.info();
                ExperimentAbout { id: info.id.into(), summary: info.summary.into(), source: info.source.into() }
            })
            .collect();
        let runtimes: Vec<String> = overhead_runtime_registry::names().into_iter().map(str::to_string).collect();
        let own_impls = experiments
            .iter()
            .flat_map(|e| runtimes.iter().map(move |r| (e, r)))
            .filter_map(|(e, r)| {
                let implementation = self.own_impl(&e.id, r)?;
                Some(OwnImpl { experiment: e.id.clone(), runtime: r.as_str().into(), implementation })
            })
            .collect();
        CatalogSnapshot { experiments, runtimes, own_impls }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_reads_the_registries() {
        assert_eq!(CATALOG.experiment_rank("base.loop"), 0);
        assert!(CATALOG.experiment_rank("sched.switch") < CATALOG.experiment_rank("mem.c2c"));
        assert_eq!(CATALOG.experiment_rank("made.up"), usize::MAX);
        assert!(CATALOG.runtime_rank("os") < CATALOG.runtime_rank("no-such-runtime"));
        assert!(CATALOG.own_impl("msg.async", "os").is_some_and(|i| !i.is_empty()));
        assert_eq!(CATALOG.own_impl("sched.switch", "os"), None);
    }

    /// The snapshot a record keeps answers every question as the registries do.
    #[test]
    fn the_snapshot_answers_as_the_registries() {
        let snapshot = CATALOG.snapshot();
        assert_eq!(snapshot.experiments.len(), super::super::registry().len());
        for e in super::super::registry() {
            assert_eq!(snapshot.experiment_rank(e.id()), CATALOG.experiment_rank(e.id()));
            for r in overhead_runtime_registry::registry() {
                assert_eq!(snapshot.runtime_rank(r.name()), CATALOG.runtime_rank(r.name()));
                assert_eq!(
                    snapshot.own_impl(e.id(), r.name()),
                    CATALOG.own_impl(e.id(), r.name()),
                    "{} {}",
                    e.id(),
                    r.name()
                );
            }
        }
        assert!(!snapshot.own_impls.is_empty());
    }
}
