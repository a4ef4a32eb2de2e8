//! `overhead`: measures what the primitives of concurrent runtimes cost on the machine it runs on.
//!
//! The crate follows the data flow of `docs/ARCHITECTURE.md`: the CLI builds a plan, the orchestrator runs each
//! point in a probe process, the harness inside the probe times it, analysis merges a point's processes
//! (stats summarise), the run record stores it, and the renderers read only the record.

pub mod analysis;
pub mod cli;
pub mod clock;
pub mod experiments;
pub mod harness;
pub mod history;
pub mod hosts;
pub mod machine;
pub mod orchestrator;
pub mod protocol;
pub mod record;
pub mod render;
pub mod report;
pub mod runtimes;
pub mod stats;
pub mod units;
