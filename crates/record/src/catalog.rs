//! What the analysis needs to know of the registries that made a record, without their code
//! (docs/ARCHITECTURE.md "Layers"): the order of the experiments and of the runtimes' columns, and each
//! runtime's own channel. The registries (`overhead_experiments::CATALOG`) implement it; the analysis and
//! the report take it as an argument, so they build on the record alone and never link a runtime.

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
}
