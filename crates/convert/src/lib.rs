//! Tick↔ns conversion routines, their cost and their accuracy (Kiszka 2006, Kiszka, "Timer optimisations,
//! continued": conversion routines benchmarked with the loop overhead compensated, weighed against the
//! accuracy they lose on long intervals).
//!
//! Every routine computes `output = input × num / den` for a [`Ratio`]: `1e9 / hz` from ticks to ns,
//! `hz / 1e9` from ns to ticks. The reference is [`Ratio::exact`] (128-bit multiply and divide, the
//! floor of the true quotient); the others trade accuracy or range for speed:
//!
//! | routine | family | file |
//! | --- | --- | --- |
//! | `exact` | 128-bit multiply, 128-bit divide | `exact.rs` |
//! | `naive` | 64-bit multiply then divide; wraps past its overflow point | `naive.rs` |
//! | `kernel` | Linux `clocks_calc_mult_shift` + `mul_u64_u32_shr` | `kernel.rs` |
//! | `llmulshft`, `nodiv_llimd`, `imuldiv`, `nodiv_imuldiv` | Xenomai's arith (Kiszka's actors) | `xenomai.rs` |
//! | `fast_path` | Kiszka's recommended dispatch, the public [`Converter`] | `converter.rs` |
//! | `f64` | one double-precision multiply | `float.rs` |
//! | `quanta` | the `quanta` crate's own calibrated scale, as a peer | `peer.rs` |
//!
//! [`Prepared`] binds a routine to a direction and a rate; [`worst_error`] searches its error against
//! `exact` over an interval range.

mod converter;
mod exact;
mod float;
mod kernel;
mod naive;
mod peer;
mod routine;
mod search;
pub use search::SplitMix64;
mod xenomai;

pub use converter::{Converter, Fraction};
pub use exact::{Direction, Ratio, NS_PER_S};
pub use float::F64Scale;
pub use kernel::{clocks_calc_mult_shift, mul_u64_u32_shr, KernelScale};
pub use naive::Naive;
pub use peer::QuantaPeer;
pub use routine::{Imp, Prepared, Routine};
pub use search::{input_max, worst_error, IntervalRange, WorstError, RANGES};
pub use xenomai::{Imuldiv, Llmulshft, U32Frac};
