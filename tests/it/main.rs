//! The end-to-end tests, one binary (one link of the workspace instead of eight): each module is what was a
//! file of its own under `tests/`. Only a test that needs process-wide state of its own stays a separate
//! binary (`tests/fiber_no_alloc.rs`, which installs a counting global allocator).

mod cli;
mod external_probes;
mod golden;
mod history;
mod hosts;
mod html_report;
mod layers;
mod sides;
