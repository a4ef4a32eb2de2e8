//! The distinct levels of a one-dimensional sample: optimal k-means in one dimension (Wang and Song,
//! "Ckmeans.1d.dp: optimal k-means clustering in one dimension by dynamic programming", The R Journal 2011),
//! with the number of levels chosen by the Bayesian information criterion of the Gaussian mixture the
//! clustering implies, as Ckmeans.1d.dp does (Song and Zhong, Bioinformatics 2020).
//!
//! What it is for: the host's states (docs/METHOD.md §19). A cache-line round trip between two vCPUs reads
//! one of a few levels (16–19, 30–40, 110–130 ns on a KVM guest), and which one depends on where the
//! hypervisor put the vCPUs. The values are clustered on the log scale, where a level's scatter is a ratio.
//!
//! Why not the `ckmeans` crate: it depends on `wasm-bindgen` and `js-sys` on every target and builds a
//! `cdylib` too, a cost every build of this tool would pay for thirty lines of dynamic programming. The
//! values are first gathered into bins of [`BIN`] (0.2% on the log scale, far below a level's own scatter),
//! so the O(k·m²) programme runs over a few hundred bins however long the run.

/// Width of a bin on the log scale: values within 0.2% of each other are one value to the clustering.
pub const BIN: f64 = 0.002;

/// The smallest standard deviation a level may have on the log scale (2%): a level whose values agree
/// exactly (a scripted test, a clock that ticks coarsely) would otherwise have an infinite likelihood.
pub const MIN_SD: f64 = 0.02;

/// Neighbouring levels closer than this ratio (15%) are one level: a round trip's own scatter within one
/// placement reaches 5–10% on a shared host.
pub const MIN_RATIO: f64 = 1.15;

/// A level holds at least this many values: one odd value is an outlier, not a state of the host.
pub const MIN_SIZE: usize = 3;

/// The most levels tried.
pub const MAX_LEVELS: usize = 6;

/// The levels of a positive sample: each value's level (0 = lowest) and each level's members.
#[derive(Debug, Clone, PartialEq)]
pub struct Levels {
    /// For each input value, in input order, the index of its level, lowest level first.
    pub label: Vec<usize>,
    /// How many levels.
    pub count: usize,
}

/// The levels of `values` (all positive and finite; others are an error), chosen among 1 to [`MAX_LEVELS`]
/// by the lowest BIC where every level has [`MIN_SIZE`] values and neighbouring levels' geometric means
/// differ by [`MIN_RATIO`]. No level for no value.
///
/// Errors: a value is not positive and finite; the message names it.
pub fn levels(values: &[f64]) -> Result<Levels, String> {
    levels_apart(values, MIN_RATIO)
}

/// [`levels`] with neighbouring levels at least `min_ratio` apart (their geometric means; never less than
/// [`MIN_RATIO`]): the host's states use the fingerprint's own repeatability here, so that two clusters the
/// measurement cannot tell apart are one state (docs/METHOD.md §19).
///
/// Errors: a value is not positive and finite; the message names it.
pub fn levels_apart(values: &[f64], min_ratio: f64) -> Result<Levels, String> {
    let min_gap = min_ratio.max(MIN_RATIO).ln();
    if let Some(bad) = values.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
        return Err(format!("a level needs positive, finite values; got {bad}"));
    }
    let logs: Vec<f64> = values.iter().map(|v| v.ln()).collect();
    let bins = Bins::of(&logs);
    let mut best: Option<(f64, Vec<usize>)> = None;
    for k in 1..=MAX_LEVELS.min(bins.centres.len()) {
        let starts = optimal_partition(&bins, k);
        let fit = LevelFit::of(&bins, &starts);
        if k > 1 && !fit.acceptable(min_gap) {
            continue;
        }
        let bic = fit.bic(values.len());
        if best.as_ref().is_none_or(|(b, _)| bic < *b) {
            best = Some((bic, starts));
        }
    }
    let starts = best.map_or_else(|| vec![0], |(_, s)| s);
    if values.is_empty() {
        return Ok(Levels { label: Vec::new(), count: 0 });
    }
    let label = bins.of_value.iter().map(|&bin| starts.iter().rposition(|&s| s <= bin).unwrap_or(0)).collect();
    Ok(Levels { label, count: starts.len() })
}

/// The values gathered into bins of [`BIN`], sorted: each bin's mean and weight, and each value's bin.
struct Bins {
    centres: Vec<f64>,
    weights: Vec<f64>,
    /// For each input value, in input order, the index of its bin.
    of_value: Vec<usize>,
}

impl Bins {
    fn of(logs: &[f64]) -> Bins {
        let mut order: Vec<usize> = (0..logs.len()).collect();
        order.sort_by(|&a, &b| logs[a].total_cmp(&logs[b]));
        let mut firsts: Vec<f64> = Vec::new();
        let mut weights: Vec<f64> = Vec::new();
        let mut sums: Vec<f64> = Vec::new();
        let mut of_value = vec![0; logs.len()];
        for i in order {
            let x = logs[i];
            // A bin opens at its first value and takes what lies within BIN of it.
            if firsts.last().is_none_or(|&first| x - first >= BIN) {
                firsts.push(x);
                weights.push(0.0);
                sums.push(0.0);
            }
            *weights.last_mut().expect("a bin") += 1.0;
            *sums.last_mut().expect("a bin") += x;
            of_value[i] = firsts.len() - 1;
        }
        let centres = sums.iter().zip(&weights).map(|(s, w)| s / w).collect();
        Bins { centres, weights, of_value }
    }
}

/// Prefix sums of weight, weighted value and weighted square, so any run of bins' sum of squares about its
/// mean costs O(1).
struct Prefix {
    w: Vec<f64>,
    wx: Vec<f64>,
    wxx: Vec<f64>,
}

impl Prefix {
    fn of(bins: &Bins) -> Prefix {
        let mut p = Prefix { w: vec![0.0], wx: vec![0.0], wxx: vec![0.0] };
        for (&x, &w) in bins.centres.iter().zip(&bins.weights) {
            p.w.push(p.w.last().expect("seeded") + w);
            p.wx.push(p.wx.last().expect("seeded") + w * x);
            p.wxx.push(p.wxx.last().expect("seeded") + w * x * x);
        }
        p
    }

    /// Weighted sum of squares about the mean of bins `i..j`.
    fn sse(&self, i: usize, j: usize) -> f64 {
        let w = self.w[j] - self.w[i];
        if w <= 0.0 {
            return 0.0;
        }
        let wx = self.wx[j] - self.wx[i];
        ((self.wxx[j] - self.wxx[i]) - wx * wx / w).max(0.0)
    }
}

/// The partition of the sorted bins into `k` runs with the least within-run sum of squares (dynamic
/// programming over the last run's start): the first bin of each run, ascending.
fn optimal_partition(bins: &Bins, k: usize) -> Vec<usize> {
    let m = bins.centres.len();
    let prefix = Prefix::of(bins);
    // cost[c][j]: least cost of the first j bins in c + 1 runs; from[c][j]: where the last run starts.
    let mut cost = vec![vec![f64::INFINITY; m + 1]; k];
    let mut from = vec![vec![0usize; m + 1]; k];
    for (j, c) in cost[0].iter_mut().enumerate().skip(1) {
        *c = prefix.sse(0, j);
    }
    for c in 1..k {
        for j in (c + 1)..=m {
            for start in c..j {
                let total = cost[c - 1][start] + prefix.sse(start, j);
                if total < cost[c][j] {
                    cost[c][j] = total;
                    from[c][j] = start;
                }
            }
        }
    }
    let mut starts = vec![0; k];
    let mut end = m;
    for c in (1..k).rev() {
        starts[c] = from[c][end];
        end = starts[c];
    }
    starts
}

/// The Gaussian mixture a partition implies: each level's weight, mean and standard deviation (log scale).
struct LevelFit {
    weight: Vec<f64>,
    mean: Vec<f64>,
    sd: Vec<f64>,
    count: Vec<f64>,
    log_likelihood: f64,
}

impl LevelFit {
    fn of(bins: &Bins, starts: &[usize]) -> LevelFit {
        let prefix = Prefix::of(bins);
        let m = bins.centres.len();
        let n = prefix.w[m];
        let ends: Vec<usize> = starts.iter().skip(1).copied().chain([m]).collect();
        let mut fit = LevelFit { weight: vec![], mean: vec![], sd: vec![], count: vec![], log_likelihood: 0.0 };
        for (&i, &j) in starts.iter().zip(&ends) {
            let w = prefix.w[j] - prefix.w[i];
            fit.count.push(w);
            fit.weight.push(w / n);
            fit.mean.push((prefix.wx[j] - prefix.wx[i]) / w);
            fit.sd.push((prefix.sse(i, j) / w).sqrt().max(MIN_SD));
        }
        fit.log_likelihood = bins
            .centres
            .iter()
            .zip(&bins.weights)
            .map(|(&x, &w)| {
                let density: f64 =
                    (0..fit.mean.len()).map(|c| fit.weight[c] * normal_pdf(x, fit.mean[c], fit.sd[c])).sum();
                w * density.max(f64::MIN_POSITIVE).ln()
            })
            .sum();
        fit
    }

    /// Every level large enough and at least `min_gap` (log scale) from its neighbour.
    fn acceptable(&self, min_gap: f64) -> bool {
        self.count.iter().all(|&c| c >= MIN_SIZE as f64) && self.mean.windows(2).all(|w| w[1] - w[0] >= min_gap)
    }

    /// BIC = −2 ln L + p ln n with p = 3k − 1 (k means, k variances, k − 1 free weights).
    fn bic(&self, n: usize) -> f64 {
        let p = (3 * self.mean.len() - 1) as f64;
        -2.0 * self.log_likelihood + p * (n as f64).ln()
    }
}

fn normal_pdf(x: f64, mean: f64, sd: f64) -> f64 {
    let z = (x - mean) / sd;
    (-0.5 * z * z).exp() / (sd * (2.0 * std::f64::consts::PI).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::Rng;

    /// `n` values around `centre` with a relative scatter `sd` (log-normal).
    fn around(rng: &mut Rng, centre: f64, sd: f64, n: usize) -> Vec<f64> {
        (0..n).map(|_| centre * (sd * rng.normal()).exp()).collect()
    }

    #[test]
    fn three_placements_are_three_levels_each_value_in_its_own() {
        let mut rng = Rng::new(7);
        let mut values = around(&mut rng, 17.5, 0.05, 40);
        values.extend(around(&mut rng, 35.0, 0.06, 25));
        values.extend(around(&mut rng, 120.0, 0.05, 15));
        let found = levels(&values).unwrap();
        assert_eq!(found.count, 3);
        let expected: Vec<usize> = [0; 40].into_iter().chain([1; 25]).chain([2; 15]).collect();
        assert_eq!(found.label, expected);
    }

    #[test]
    fn one_placement_however_scattered_is_one_level() {
        for seed in 1..=20 {
            let mut rng = Rng::new(seed);
            let values = around(&mut rng, 34.0, 0.08, 60);
            assert_eq!(levels(&values).unwrap().count, 1, "seed {seed}");
        }
        // Identical values (a pair that never moves, a coarse clock): one level, no infinite likelihood.
        assert_eq!(levels(&[20.0; 12]).unwrap().count, 1);
    }

    #[test]
    fn an_odd_value_is_no_level_and_close_levels_are_one() {
        let mut rng = Rng::new(3);
        let mut values = around(&mut rng, 30.0, 0.04, 50);
        values.push(300.0);
        values.push(310.0);
        assert_eq!(levels(&values).unwrap().count, 1, "two outliers are fewer than {MIN_SIZE}");
        // Two levels 10% apart are one state: within a placement's own scatter.
        let mut values = around(&mut rng, 30.0, 0.01, 30);
        values.extend(around(&mut rng, 33.0, 0.01, 30));
        assert_eq!(levels(&values).unwrap().count, 1);
    }

    /// What the host's states need: one log-normal of sd 0.1 (a state's own scatter) is one level when the
    /// levels must stand four of its repeatability's standard deviations apart, over many draws; two modes
    /// five times apart stay two.
    #[test]
    fn levels_closer_than_the_required_ratio_merge_and_distant_ones_do_not() {
        let mut rng = Rng::new(51);
        let apart = (4.0f64 * 0.1 * 2f64.sqrt()).exp();
        for _ in 0..50 {
            let one = around(&mut rng, 80.0, 0.1, 400);
            assert_eq!(levels_apart(&one, apart).unwrap().count, 1);
            let mut two = around(&mut rng, 80.0, 0.1, 300);
            two.extend(around(&mut rng, 400.0, 0.1, 100));
            let l = levels_apart(&two, apart).unwrap();
            assert_eq!(l.count, 2);
            assert!(l.label[..300].iter().all(|&x| x == 0) && l.label[300..].iter().all(|&x| x == 1));
        }
    }

    #[test]
    fn a_value_that_is_no_time_is_refused_by_name() {
        let e = levels(&[10.0, -1.0]).unwrap_err();
        assert!(e.contains("-1"), "{e}");
        assert_eq!(levels(&[]).unwrap(), Levels { label: vec![], count: 0 });
    }
}
