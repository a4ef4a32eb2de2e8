//! The runtimes' identities as a record holds them (`runtime:` in a point's name), for the readers that pick a
//! runtime's points without its code. Each runtime's crate takes its name from here.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

/// Kernel threads (`overhead_runtime_os`).
pub const OS: &str = "os";
/// MPI ranks launched by `mpirun` (`overhead_runtime_external::mpi`).
pub const MPI: &str = "mpi";
/// tokio (`overhead_runtime_async::tokio_rt`), measured in both its flavors ([`TokioFlavor`]).
pub const TOKIO: &str = "tokio";

/// The parameter that names a runtime's flavor in its points (`flavor:current_thread`), first after the
/// runtime; only a runtime with several schedulers has it (`RuntimeUnderTest::flavor`).
pub const FLAVOR_KEY: &str = "flavor";

/// A runtime as a table names it: `tokio (current_thread)` for a flavor of a runtime that has several, else
/// the runtime's name.
pub fn runtime_label(runtime: &str, flavor: Option<&str>) -> String {
    match flavor {
        Some(flavor) => format!("{runtime} ({flavor})"),
        None => runtime.to_string(),
    }
}

/// tokio's two schedulers, which its users choose between (`#[tokio::main(flavor = "…")]`): the
/// `flavor:` parameter of every tokio point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokioFlavor {
    /// Every task on the one thread that calls `block_on`.
    CurrentThread,
    /// Work-stealing worker threads, one a CPU of the point.
    MultiThread,
}

impl TokioFlavor {
    /// The parameter's value: `current_thread`, `multi_thread`.
    pub const fn name(self) -> &'static str {
        match self {
            TokioFlavor::CurrentThread => "current_thread",
            TokioFlavor::MultiThread => "multi_thread",
        }
    }
}

/// A runtime's public name, the `runtime:` of point names (`os`, `fiber-asm`, `tokio`): typed, so that a
/// point's runtime is never confused with another string it sits beside (an experiment ID, an
/// implementation), and read and written as the plain string records have always held. Users' scripts and
/// older records name runtimes this way, so a name never changes once published
/// (`overhead_runtime_api::RuntimeUnderTest::name`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RuntimeId(Cow<'static, str>);

impl RuntimeId {
    /// Kernel threads ([`OS`]).
    pub const OS: RuntimeId = RuntimeId::named(OS);
    /// MPI ranks ([`MPI`]).
    pub const MPI: RuntimeId = RuntimeId::named(MPI);

    /// The ID of a runtime whose name is known at compile time (a runtime's own
    /// `RuntimeUnderTest::name`).
    pub const fn named(name: &'static str) -> RuntimeId {
        RuntimeId(Cow::Borrowed(name))
    }

    /// The name, as point names and records hold it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for RuntimeId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for RuntimeId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for RuntimeId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RuntimeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for RuntimeId {
    fn from(name: &str) -> RuntimeId {
        RuntimeId(Cow::Owned(name.to_owned()))
    }
}

impl From<String> for RuntimeId {
    fn from(name: String) -> RuntimeId {
        RuntimeId(Cow::Owned(name))
    }
}

impl PartialEq<str> for RuntimeId {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for RuntimeId {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for RuntimeId {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<RuntimeId> for &str {
    fn eq(&self, other: &RuntimeId) -> bool {
        **self == *other.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A runtime's ID reads and writes as the plain string records hold, and compares with one.
    #[test]
    fn an_id_is_its_name_in_records_and_comparisons() {
        let id: RuntimeId = serde_json::from_str("\"fiber-asm\"").unwrap();
        assert_eq!(id, "fiber-asm");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"fiber-asm\"");
        assert_eq!(RuntimeId::OS, RuntimeId::from("os"));
        assert_ne!(RuntimeId::OS, "mpi");
        assert_eq!(format!("runtime:{}", RuntimeId::MPI), "runtime:mpi");
    }

    /// A flavor's name is its serde form, the value of `flavor:` in point names.
    #[test]
    fn a_tokio_flavor_is_named_as_serde_writes_it() {
        for flavor in [TokioFlavor::CurrentThread, TokioFlavor::MultiThread] {
            assert_eq!(serde_json::to_string(&flavor).unwrap(), format!("\"{}\"", flavor.name()));
        }
    }
}
