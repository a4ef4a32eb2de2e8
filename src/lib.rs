//! `overhead`: measures what the primitives of concurrent runtimes cost on the machine it runs on.
//!
//! This crate is the command line on top of the workspace (docs/ARCHITECTURE.md "Crates"): the CLI builds a
//! plan, the orchestrator runs each point in a probe process, the harness inside the probe times it, analysis
//! merges a point's processes (stats summarise), the run record stores it, and the renderers read only the
//! record. The layers below are re-exported under their layer names, so `overhead::record::RunRecord` names
//! the same type as `overhead_record::RunRecord`.

pub mod cli;

pub use overhead_analysis as analysis;
pub use overhead_clock as clock;
pub use overhead_crosscheck as crosscheck;
pub use overhead_experiments as experiments;
pub use overhead_grpc as grpc;
pub use overhead_harness as harness;
pub use overhead_history as history;
pub use overhead_humanize as humanize;
pub use overhead_launch as launch;
pub use overhead_machine as machine;
pub use overhead_orchestrator as orchestrator;
pub use overhead_probe as probe;
pub use overhead_protocol as protocol;
pub use overhead_record as record;
pub use overhead_render as render;
pub use overhead_report as report;
pub use overhead_runtime_api as runtime_api;
pub use overhead_runtime_external as runtime_external;
pub use overhead_runtime_fibers as runtime_fibers;
pub use overhead_runtime_os as runtime_os;
pub use overhead_runtime_registry as runtime_registry;
pub use overhead_schema as schema;
pub use overhead_stats as stats;
pub use overhead_timerq as timerq;
