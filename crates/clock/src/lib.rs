//! Time sources: the counter the harness reads at batch edges, and its calibration.
//!
//! docs/METHOD.md §8: the TSC when it is invariant, calibrated against `CLOCK_MONOTONIC_RAW` with the
//! calibration error recorded; the virtual counter on aarch64; `clock_gettime` otherwise. The tick↔ns
//! conversion routines under test (Kiszka 2006), which the clock never uses, are `overhead-convert`.

mod calibrate;
mod counter;
mod source;

pub use calibrate::measure_span;
pub use calibrate::{calibrate, Calibration};
pub use counter::{clock_gettime_ns, Counter};
pub use source::{Clock, Ticks, TimeSourceInfo, TimeSourceKind};
