//! Runtimes measured by probes in other languages (docs/ARCHITECTURE.md "Runtimes under test": sources in `probes/`,
//! built on first use, speaking the probe protocol). Registered so their names are known and every cell
//! says why it is empty; none is built yet.

use super::{Capability, RuntimeUnderTest};

/// A runtime whose probe is not in this build.
pub struct External {
    name: &'static str,
    about: &'static str,
}

/// Go: goroutines, channels, `sync` (planned probe in `probes/go`).
pub const GO: External = External { name: "go", about: "Go goroutines and channels (external probe, not built yet)" };
/// Java platform threads (planned probe in `probes/java`).
pub const JAVA_PLATFORM: External =
    External { name: "java-platform", about: "Java platform threads (external probe, not built yet)" };
/// Java virtual threads, JDK ≥ 21 (planned probe in `probes/java`).
pub const JAVA_VIRTUAL: External =
    External { name: "java-virtual", about: "Java virtual threads (external probe, not built yet)" };

impl RuntimeUnderTest for External {
    fn name(&self) -> &'static str {
        self.name
    }
    fn about(&self) -> &'static str {
        self.about
    }
    fn available(&self) -> Result<(), String> {
        Err(format!("the {} probe is not in this build yet", self.name))
    }
    fn lacks(&self, _: Capability) -> Option<&'static str> {
        Some("its external probe is not in this build yet")
    }
    fn in_default_run(&self) -> bool {
        false
    }
}
