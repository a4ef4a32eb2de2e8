//! The registry of the runtimes under test (docs/ARCHITECTURE.md "Runtimes under test"): every runtime, in
//! column order, over the plug-in interface (`overhead-runtime-api`) and one crate per runtime family. The
//! experiments, the probe and the run find a runtime here by name; everything else of a runtime is reached in
//! its own crate (`overhead_runtime_os`, `overhead_runtime_async::tokio_rt`, …) and the interface in
//! `overhead_runtime_api`.

mod registry;

pub use registry::{column_rank, default_run, find, find_all, names, registry, resolve};

#[cfg(test)]
mod tests {
    mod fan_out;
    mod offer;
}
