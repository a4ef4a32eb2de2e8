//! The data-parallel runtimes under test (docs/ARCHITECTURE.md "Runtimes under test"): `rayon` (its
//! work-stealing pool) and `openmp` (C kernels compiled with `-fopenmp` by build.rs, linked against the
//! compiler's OpenMP runtime). Both run Ben-Asher & Feitelson's fork-join constructs and the granularity
//! sweep; OpenMP also its atomics, locks and barriers (EPCC's syncbench).

pub mod openmp;
pub mod rayon_rt;
