//! The runtime plug-in: what every runtime under test tells the plan (docs/ARCHITECTURE.md "Runtimes under test").

use super::contention::Contention;
use super::primitives::{Context, Primitives};
use super::Capability;

/// One runtime under test (docs/ARCHITECTURE.md "Runtimes under test"): its public name, whether it can run here, and
/// for each [`Capability`] whether it has it or why not. The plan asks only this; adding a runtime is one
/// module implementing it plus one line in [`super::registry`].
pub trait RuntimeUnderTest: Sync {
    /// The public name: the `runtime:` key of point names, the column header, the `--runtime` value
    /// (`"os"`, `"fiber-asm"`). Records keep it as a string, so it never changes once published.
    fn name(&self) -> &'static str;
    /// One line for `overhead list`: what implements it.
    fn about(&self) -> &'static str;
    /// Whether it can run on this machine and build; the reason when not (a fiber back-end without a
    /// switch for this CPU, a build without libgomp, a probe not built). Its cells are then skipped with it.
    fn available(&self) -> Result<(), String> {
        Ok(())
    }
    /// `None` when it has `capability`; otherwise why not, as a sentence fragment that follows
    /// "runtime NAME has no CAPABILITY: ".
    fn lacks(&self, capability: Capability) -> Option<&'static str>;
    /// Whether `overhead run` measures it without `--runtime` (a runtime that is not built yet is not).
    fn in_default_run(&self) -> bool {
        true
    }
    /// Its own context for single-thread loops ([`Capability::Context`]), if it has one.
    fn context(&self) -> Option<&dyn Context> {
        None
    }
    /// Its seed 004 primitives ([`Capability::TABLE_004`]), if it has them.
    fn primitives(&self) -> Option<&dyn Primitives> {
        None
    }
    /// Its contention between CPUs ([`Capability::BETWEEN_CPUS`]), if it has it.
    fn contention(&self) -> Option<&dyn Contention> {
        None
    }
}

/// Why `runtime` cannot give a cell for an experiment needing `requires`: the first capability it lacks,
/// with its reason, or `None` when it has them all.
pub fn missing(runtime: &dyn RuntimeUnderTest, requires: &[Capability]) -> Option<String> {
    requires.iter().find_map(|&c| runtime.lacks(c).map(|why| format!("runtime {} has no {c}: {why}", runtime.name())))
}
