//! Robust summaries, confidence intervals (one process, and two levels: processes and batches) and
//! least-squares fits.
//!
//! Kept apart from the harness, as criterion keeps its `stats` module, so that renderers and tests can use
//! the same arithmetic on samples read back from a run record.

mod changepoints;
mod distribution;
mod fit;
mod geometric;
mod histogram;
mod levels;
mod modes;
mod order;
mod polyfit;
mod stderr;
mod summary;
mod two_level;

pub use changepoints::{changepoints, classify, SeriesClass};
pub use distribution::Distribution;
pub use fit::{least_squares, LinearFit};
pub use geometric::geometric_mean;
pub use histogram::{distribution, latency_histogram};
pub use levels::{levels, levels_apart, Levels};
pub use modes::{process_modes, ProcessMode};
pub use order::{median_ci_ranks, percentile};
pub use polyfit::{quadratic_least_squares, QuadraticFit};
pub use stderr::standard_errors;
pub use summary::{Summary, CI_LEVEL, Z95};
#[cfg(any(test, feature = "testing"))]
pub use two_level::tests as synthetic;
pub use two_level::{mean_interval, trimmed_mean, ProcessInterval, Scale, TrimmedMean, TwoLevel, TRIM};
