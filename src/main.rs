//! The `overhead` command; everything lives in the library. Only this file sees the build's stamp (build.rs:
//! the commit and the crates under test) and the external probes' sources, so a new commit or an edited probe
//! recompiles this file and relinks, nothing else.

use overhead_record::BuildStamp;

/// What this binary was built from.
const BUILD: BuildStamp = BuildStamp {
    name: env!("CARGO_PKG_NAME"),
    version: env!("CARGO_PKG_VERSION"),
    git_commit: option_env!("OVERHEAD_GIT_COMMIT"),
    crate_versions: env!("OVERHEAD_CRATE_VERSIONS"),
};

include!(concat!(env!("OUT_DIR"), "/probe_sources.rs"));

fn main() -> std::process::ExitCode {
    // Before anything can build a probe: a run's probes and a side's `overhead probe` are this binary too.
    overhead::runtime_external::probe_sources::install(PROBE_SOURCES);
    overhead::cli::main(&BUILD)
}
