//! The `openmp` runtime: C kernels compiled with `-fopenmp` (GCC, so libgomp runs them), called through FFI
//! (docs/ARCHITECTURE.md "Runtimes under test"). The constructs are Ben-Asher & Feitelson's (§6 spawning, §7 granularity, §8
//! fetch-and-add and barriers) in OpenMP's forms, timed the way EPCC's syncbench/taskbench do: the loop of N
//! repetitions lives in C, so the harness times one FFI call per batch and subtracts a control of the same
//! shape with an empty body.
//!
//! Use: make one [`Team`] on the thread that will time (it is the OpenMP master, thread 0), then hand its
//! kernels to the harness, e.g. `h.measure(|n| team.barrier(n), |n| team.team_loop(n))`; add
//! [`Team::notes`] to the outcome's notes. The kernels and their controls:
//!
//! | kernel | control | seed |
//! | --- | --- | --- |
//! | [`Team::forkjoin`] | [`Team::empty_loop`] | 001 §6.1, EPCC PARALLEL |
//! | [`Team::barrier`] | [`Team::team_loop`] | 001 §8.2, EPCC BARRIER |
//! | [`Team::bulk`] | [`Team::single_loop`] | 001 §6.3 |
//! | [`Team::remote`] | [`Team::remote_control`] | 001 §6.2 (closest form, see there) |
//! | [`Team::grain`] | [`Team::serial_reads`] (serial baseline) | 001 §7 |
//! | [`Team::faa`] | [`Team::team_loop`] | 001 §8.1 |
//! | [`Team::mutex`] | [`Team::team_loop`] | 004 (semaphore pair), EPCC LOCK/UNLOCK |
//!
//! OpenMP has no thread yield: see [`NO_YIELD`].
//!
//! Placement: each pool thread pins itself to its CPU from inside a region ([`Team::pinned`]) rather than
//! through `OMP_PLACES`/`OMP_PROC_BIND`, which libgomp reads once at load time and which would have to be set
//! before the probe process starts; pinning from inside uses the project's own `pin_current_thread`, works on
//! any CPU list a point names, and reports refusals like every other team does.
//!
//! If build.rs could not build an OpenMP program, this module still compiles: [`available`] says why, and no
//! [`Team`] can be made.

mod contention;
mod fan_out;
mod ffi;
mod plugin;
mod tally;
mod team;
#[cfg(test)]
mod tests;

pub use fan_out::executor_share_pct;
pub use plugin::OpenMp;
pub use tally::OmpTally;
pub use team::Team;

/// Why a point of `sched.yield` (or any yield) has no `openmp` cell. OpenMP 3.1's `taskyield` is only a
/// task scheduling point that may switch to another task of the same team, not a yield of the CPU to another
/// thread, and libgomp implements it as a no-op (`GOMP_taskyield` does nothing).
pub const NO_YIELD: &str = "OpenMP has no construct that yields the CPU to another thread: `taskyield` only \
                            lets another task of the same team run, and libgomp implements it as a no-op";

/// Why an `openmp` point cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The build has no OpenMP kernels; the text is [`available`]'s.
    #[error("{0}")]
    Unavailable(String),
    /// A CPU list or count the team cannot have, named in the text.
    #[error("{0}")]
    BadInput(String),
    /// libgomp gave a team of another size than asked (`OMP_DYNAMIC` or `OMP_THREAD_LIMIT` set).
    #[error("libgomp gave {got} threads for num_threads({asked}); check OMP_DYNAMIC and OMP_THREAD_LIMIT")]
    TeamSize {
        /// Threads asked for (`num_threads`).
        asked: usize,
        /// Threads that ran the region.
        got: usize,
    },
}

/// `Ok` when this build has the OpenMP kernels; otherwise `Err("openmp not available: <reason>")` with
/// build.rs's reason (no `omp.h`, no libgomp, `OVERHEAD_NO_OPENMP` set at build time).
pub fn available() -> Result<(), String> {
    if cfg!(overhead_openmp) {
        Ok(())
    } else {
        let reason = option_env!("OVERHEAD_OPENMP_UNAVAILABLE")
            .unwrap_or("the build did not compile crates/runtime-parallel/c/omp");
        Err(format!("openmp not available: {reason}"))
    }
}

/// The OpenMP runtime library the kernels are linked with (`gomp`, or `omp` when built by clang), or `None`
/// when unavailable.
pub fn library() -> Option<&'static str> {
    option_env!("OVERHEAD_OPENMP_LIBRARY")
}

/// The `_OPENMP` date of the compiler that built the kernels (201511 = OpenMP 4.5, 201811 = 5.0), or `None`
/// when unavailable.
pub fn spec_version() -> Option<u32> {
    available().ok()?;
    // SAFETY: a pure function returning a compile-time constant; the kernels are linked (checked above).
    let version = unsafe { ffi::ovh_omp_spec_version() };
    u32::try_from(version).ok()
}

/// OpenMP environment variables that change what the kernels measure (wait policy, spin count, binding,
/// dynamic teams), as `NAME=value` for each one set in this process.
pub fn settings() -> Vec<String> {
    const VARS: [&str; 6] =
        ["OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OMP_PROC_BIND", "OMP_PLACES", "OMP_DYNAMIC", "OMP_THREAD_LIMIT"];
    VARS.iter().filter_map(|v| std::env::var(v).ok().map(|value| format!("{v}={value}"))).collect()
}
