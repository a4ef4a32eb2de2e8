//! Latency histograms (HdrHistogram, as `wrk2` and cyclictest-style tools keep them) and their summary as
//! a record [`Distribution`].

use hdrhistogram::Histogram;

use super::Distribution;

/// Highest latency a [`latency_histogram`] tracks without saturating: 60 s, in ns.
pub const LATENCY_MAX_NS: u64 = 60_000_000_000;

/// Width of the first bucket of [`Distribution::buckets`] (ns): every latency up to 1 µs shares it.
pub const FIRST_BUCKET_NS: u64 = 1_000;

/// Growth factor between consecutive bucket bounds: 2^(1/4), four buckets per doubling, so 1 µs…10 ms
/// fits in ~55 buckets (a plot's resolution, unlike the histogram's own 0.1% steps).
pub const BUCKET_GROWTH: f64 = 1.189_207_115_002_721;

/// An empty histogram for latencies in ns: 1 ns … [`LATENCY_MAX_NS`], 3 significant digits (every value
/// is kept within 0.1%).
pub fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, LATENCY_MAX_NS, 3).expect("constant bounds are valid")
}

/// Summary of a latency histogram in ns: count, min, p50, p90, p99, p99.9, max, mean, and the non-empty
/// logarithmic buckets `(upper bound ns, events)` ([`FIRST_BUCKET_NS`], then ×[`BUCKET_GROWTH`]).
/// Percentiles are HdrHistogram's `value_at_quantile` (the highest value equivalent to the sample at
/// that rank: at most 0.1% above the exact order statistic). An empty histogram gives count 0 and
/// zeros everywhere.
pub fn distribution(hist: &Histogram<u64>) -> Distribution {
    let q = |quantile: f64| hist.value_at_quantile(quantile) as f64;
    let buckets = if hist.is_empty() {
        Vec::new()
    } else {
        hist.iter_log(FIRST_BUCKET_NS, BUCKET_GROWTH)
            .filter(|v| v.count_since_last_iteration() > 0)
            .map(|v| (v.value_iterated_to() as f64, v.count_since_last_iteration()))
            .collect()
    };
    Distribution {
        count: hist.len(),
        min_ns: if hist.is_empty() { 0.0 } else { hist.min() as f64 },
        p50_ns: q(0.5),
        p90_ns: q(0.9),
        p99_ns: q(0.99),
        p999_ns: q(0.999),
        max_ns: hist.max() as f64,
        mean_ns: hist.mean(),
        buckets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within HdrHistogram's 3 significant digits of `exact`.
    fn close(value: f64, exact: f64) -> bool {
        (value - exact).abs() <= exact * 1e-3 + 1.0
    }

    #[test]
    fn uniform_latencies_give_their_known_percentiles() {
        let mut hist = latency_histogram();
        // 1 µs, 2 µs, …, 1000 µs: exact p50 = 500 µs, p90 = 900 µs, p99 = 990 µs, p99.9 = 999 µs.
        for us in 1..=1000u64 {
            hist.record(us * 1_000).unwrap();
        }
        let d = distribution(&hist);
        assert_eq!(d.count, 1000);
        assert!(close(d.min_ns, 1_000.0), "{d:?}");
        assert!(close(d.p50_ns, 500_000.0), "p50 {}", d.p50_ns);
        assert!(close(d.p90_ns, 900_000.0), "p90 {}", d.p90_ns);
        assert!(close(d.p99_ns, 990_000.0), "p99 {}", d.p99_ns);
        assert!(close(d.p999_ns, 999_000.0), "p99.9 {}", d.p999_ns);
        assert!(close(d.max_ns, 1_000_000.0), "max {}", d.max_ns);
        assert!(close(d.mean_ns, 500_500.0), "mean {}", d.mean_ns);
        assert_eq!(d.buckets.iter().map(|b| b.1).sum::<u64>(), 1000, "every event in one bucket");
        assert!(d.buckets.windows(2).all(|w| w[0].0 < w[1].0), "bounds ascend: {:?}", d.buckets);
        // 1 µs…1 ms is ten doublings: about 4 buckets each, not one per distinct value.
        assert!((35..=45).contains(&d.buckets.len()), "{} buckets", d.buckets.len());
    }

    #[test]
    fn buckets_hold_what_falls_below_their_bound() {
        let mut hist = latency_histogram();
        hist.record_n(500, 3).unwrap(); // first bucket (≤ 1 µs)
        hist.record_n(50_000, 2).unwrap();
        let d = distribution(&hist);
        assert_eq!(d.buckets.len(), 2, "{:?}", d.buckets);
        assert_eq!(d.buckets[0].1, 3);
        assert!(d.buckets[0].0 < 1_000.0);
        assert_eq!(d.buckets[1].1, 2);
        assert!(d.buckets[1].0 >= 50_000.0 && d.buckets[1].0 < 50_000.0 * BUCKET_GROWTH, "{:?}", d.buckets);
        assert_eq!((d.min_ns, d.p50_ns), (500.0, 500.0));
    }

    #[test]
    fn empty_histogram_is_all_zero() {
        let d = distribution(&latency_histogram());
        assert_eq!(d.count, 0);
        assert!(d.buckets.is_empty());
        assert_eq!((d.min_ns, d.max_ns, d.p99_ns), (0.0, 0.0, 0.0));
    }
}
