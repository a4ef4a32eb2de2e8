//! What the analysis needs to know of the registries that made a record, without their code
//! (docs/ARCHITECTURE.md "Layers"): the order of the experiments and of the runtimes' columns, and each
//! runtime's own channel. The registries (`overhead_experiments::CATALOG`) implement it; the analysis takes
//! it as an argument and keeps what it answered in the record ([`CatalogSnapshot`], `RunRecord::catalog`),
//! so the analysis builds on the record alone, and the report reads the snapshot: neither links a runtime.

use serde::{Deserialize, Serialize};

/// The registries' answers about names a record holds. Names a catalog does not know (another build's
/// record) rank after every known one.
pub trait Catalog: Sync {
    /// The position of `experiment` (an ID, `family.name`) in the run's order; unknown IDs rank last.
    fn experiment_rank(&self, experiment: &str) -> usize;
    /// The column of `runtime` in tables of runtimes; unknown names rank last.
    fn runtime_rank(&self, runtime: &str) -> usize;
    /// The `impl:` value of `runtime`'s own implementation of a message `experiment` (its channel, the first
    /// it offers), or `None` when the experiment has no implementations or the runtime is unknown.
    fn own_impl(&self, experiment: &str, runtime: &str) -> Option<String>;
    /// Everything this catalog knows, for the record: every experiment in order with its summary and
    /// source, every runtime in column order, every runtime's own implementations.
    fn snapshot(&self) -> CatalogSnapshot;
}

/// One experiment as its registry describes it (`Experiment::info`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExperimentAbout {
    /// Its ID, `family.name`.
    pub id: String,
    /// One line: what it measures.
    pub summary: String,
    /// Where the idea comes from: a study and its section, or a tool.
    pub source: String,
}

/// A runtime's own implementation of a message experiment (the `impl:` value of its channel).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnImpl {
    pub experiment: String,
    pub runtime: overhead_schema::runtimes::RuntimeId,
    pub implementation: String,
}

/// What the registries answered when the record was last analysed, kept in the record so that a reader (the
/// report, another tool) orders, captions and matches its points without the registries' code. Empty in a
/// record analysed before it existed, and with [`RecordOrder`]: everything then ranks alike.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogSnapshot {
    /// Every experiment, in the run's order.
    #[serde(default)]
    pub experiments: Vec<ExperimentAbout>,
    /// Every runtime's name, in the tables' column order.
    #[serde(default)]
    pub runtimes: Vec<String>,
    /// Every runtime's own implementation of each message experiment that has implementations.
    #[serde(default)]
    pub own_impls: Vec<OwnImpl>,
}

impl CatalogSnapshot {
    /// Whether it knows nothing (a record analysed before snapshots, or with [`RecordOrder`]).
    pub fn is_empty(&self) -> bool {
        self.experiments.is_empty() && self.runtimes.is_empty() && self.own_impls.is_empty()
    }

    /// What the catalog said of `experiment`, if it knew it.
    pub fn about(&self, experiment: &str) -> Option<&ExperimentAbout> {
        self.experiments.iter().find(|e| e.id == experiment)
    }
}

impl Catalog for CatalogSnapshot {
    fn experiment_rank(&self, experiment: &str) -> usize {
        self.experiments.iter().position(|e| e.id == experiment).unwrap_or(usize::MAX)
    }
    fn runtime_rank(&self, runtime: &str) -> usize {
        self.runtimes.iter().position(|r| r == runtime).unwrap_or(usize::MAX)
    }
    fn own_impl(&self, experiment: &str, runtime: &str) -> Option<String> {
        self.own_impls
            .iter()
            .find(|o| o.experiment == experiment && o.runtime == runtime)
            .map(|o| o.implementation.clone())
    }
    fn snapshot(&self) -> CatalogSnapshot {
        self.clone()
    }
}

/// A catalog that knows no names: every experiment and runtime ranks alike (a stable sort keeps the record's
/// order) and no runtime has an own implementation (every `impl:` matches). For tests and for tools that
/// read a record without the registries.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordOrder;

impl Catalog for RecordOrder {
    fn experiment_rank(&self, _: &str) -> usize {
        0
    }
    fn runtime_rank(&self, _: &str) -> usize {
        0
    }
    fn own_impl(&self, _: &str, _: &str) -> Option<String> {
        None
    }
    fn snapshot(&self) -> CatalogSnapshot {
        CatalogSnapshot::default()
    }
}

#[cfg(test)]
mod snapshot_tests {
    use super::*;

    /// A snapshot answers as the catalog it was taken from: ranks by position, unknown names last, own
    /// implementations by experiment and runtime; it round-trips through JSON, and an empty one is empty.
    #[test]
    fn a_snapshot_answers_as_its_catalog_and_round_trips() {
        let snapshot = CatalogSnapshot {
            experiments: ["base.loop", "msg.async"]
                .map(|id| ExperimentAbout { id: id.into(), summary: format!("{id} summary"), source: "a study".into() })
                .into(),
            runtimes: vec!["os".into(), "tokio".into()],
            own_impls: vec![OwnImpl {
                experiment: "msg.async".into(),
                runtime: "tokio".into(),
                implementation: "tokio_mpsc".into(),
            }],
        };
        assert_eq!(snapshot.experiment_rank("msg.async"), 1);
        assert_eq!(snapshot.experiment_rank("made.up"), usize::MAX);
        assert!(snapshot.runtime_rank("os") < snapshot.runtime_rank("tokio"));
        assert_eq!(snapshot.runtime_rank("go"), usize::MAX);
        assert_eq!(snapshot.own_impl("msg.async", "tokio").as_deref(), Some("tokio_mpsc"));
        assert_eq!(snapshot.own_impl("msg.async", "os"), None);
        assert_eq!(snapshot.about("base.loop").map(|e| e.summary.as_str()), Some("base.loop summary"));
        let json = serde_json::to_string(&snapshot).unwrap();
        assert_eq!(serde_json::from_str::<CatalogSnapshot>(&json).unwrap(), snapshot);
        assert!(!snapshot.is_empty() && RecordOrder.snapshot().is_empty());
    }
}
