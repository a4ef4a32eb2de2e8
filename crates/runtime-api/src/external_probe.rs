//! The trait of a runtime measured by a probe in another language (`runtimes::external`): what the
//! orchestrator asks of it ([`super::RuntimeUnderTest::external`]). Apart from its implementations so that the
//! plug-in trait does not depend on them.

use std::process::Command;

use overhead_record::PointSpec;

/// What starts a runtime's external probe for one point.
pub trait ExternalProbe: Sync {
    /// The probe process for `spec` with the job `job_json` (`--job`), restricted to the point's CPUs
    /// before it runs (every thread it starts inherits the mask), with the runtime's settings for that many
    /// CPUs (GOMAXPROCS, the virtual-thread carriers).
    ///
    /// Errors: the probe is not built (its toolchain is missing), or a CPU of the point is out of range.
    fn command(&self, spec: &PointSpec, job_json: &str) -> anyhow::Result<Command>;

    /// Whether `overhead probe` measures `experiment` itself, asking the external probe only for timed
    /// runs (`grain.sweep`, whose search stays in Rust: `runtimes::external::grain`); otherwise the orchestrator starts the
    /// external probe for the point.
    fn driven_from_rust(&self, experiment: &str) -> bool {
        experiment == "grain.sweep"
    }
}
