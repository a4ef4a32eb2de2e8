//! A known-cost operation: a dependent chain of xorshift-multiply steps, whose time grows with its length
//! and does not overlap the loop around it. `overhead check` times it to see whether batch times add up
//! here (docs/METHOD.md §7); the harness's tests use it as an operation whose cost doubles with its chain.

use std::hint::black_box;

/// Runs a dependent chain of `links` xorshift-multiply steps from `seed` and returns its last value. Each
/// step waits for the previous result, and the step is non-linear, so the compiler cannot fold links
/// together: the time is proportional to `links`. Never inlined, so every caller times the same code.
#[inline(never)]
pub fn chain(links: u64, seed: u64) -> u64 {
    let mut x = seed;
    for _ in 0..links {
        // xorshift-multiply: non-linear, so the compiler cannot fold several links into one.
        x = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
    x
}

/// A batch body for [`crate::Harness::measure`]: `body(n)` runs `n` chains of `links` links
/// ([`chain`], seeds `0..n`), every result and the length kept opaque to the compiler with `black_box`.
pub fn chain_batch(links: u64) -> impl Fn(u64) + Copy {
    move |n| {
        for i in 0..n {
            black_box(chain(black_box(links), i));
        }
    }
}
