//! Offers against implementations across the runtimes.

use overhead_runtime_api::contention::{AtomicImpl, FetchAndAdd, Variable};

/// A measuring method asked for a variant its runtime does not offer refuses it by its parameter value,
/// before starting anything.
#[test]
fn a_variant_not_offered_is_refused_by_name() {
    let h = overhead_harness::testing::quick_harness();
    let os = crate::find("os").and_then(|r| r.contention()).unwrap();
    let err = os
        .fetch_and_add(FetchAndAdd { implementation: AtomicImpl::OmpAtomic, variable: Variable::Shared }, &[0], &h)
        .unwrap_err()
        .to_string();
    assert!(err.contains("impl:omp_atomic"), "{err}");
}
