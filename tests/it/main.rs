//! The end-to-end tests that share the machine well, one binary (one link of the workspace instead of four):
//! each module is what was a file of its own under `tests/`. A test binary's tests run in parallel and the
//! binaries one after another, so a test that needs process-wide state of its own stays a binary apart:
//! `tests/fiber_no_alloc.rs` (a counting global allocator), and the tests that need the CPUs to themselves
//! while they measure — `tests/history.rs` (runs that the machine-state check must not flag as shared),
//! `tests/hosts.rs` (ranks killed at a given moment), `tests/sides.rs` and `tests/external_probes.rs`.

mod cli;
mod golden;
mod html_report;
mod layers;
