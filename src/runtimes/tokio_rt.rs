//! The `tokio` runtime: tokio's current-thread scheduler, the async peer of the fiber runtime in seed
//! 004's table (one worker thread, cooperative switches at `.await`).

/// A current-thread tokio runtime (no I/O or timer drivers: the primitives measured need neither).
///
/// Errors: tokio could not create its runtime (out of memory or file descriptors).
pub fn current_thread() -> std::io::Result<::tokio::runtime::Runtime> {
    ::tokio::runtime::Builder::new_current_thread().build()
}
