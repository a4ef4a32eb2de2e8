//! The registries' answers to the analysis ([`overhead_record::Catalog`]): the experiments' order, the
//! runtimes' columns and each runtime's own channel, read from the registries themselves.

use overhead_record::Catalog;

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
        overhead_runtimes::column_rank(runtime)
    }
    fn own_impl(&self, experiment: &str, runtime: &str) -> Option<String> {
        super::msg::own_impl(experiment, runtime).map(|i| i.as_str().to_string())
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
}
