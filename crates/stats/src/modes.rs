//! Process medians that fall in distinct modes: a point whose processes disagree in kind, not in degree.
//! On a KVM guest the host moves the vCPUs, so one contended cache-line round trip reads 16–19, 30–40 or
//! 110–130 ns depending on where a process's vCPUs landed; the mean of such processes lies between the
//! modes and describes none of them. This finds the modes so the report can give each one instead.

use serde::{Deserialize, Serialize};

/// A gap between neighbouring process medians (sorted) is a boundary between modes when it is at least this
/// ratio (25%)…
pub const MIN_GAP_RATIO: f64 = 1.25;
/// …and at least this many times the median gap between neighbours, so that a point whose processes merely
/// spread out evenly has no modes.
pub const GAP_OVER_TYPICAL: f64 = 4.0;

/// One mode of a point's processes: how many, and their median and range (the samples' unit, ns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessMode {
    pub processes: usize,
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

/// The modes of `values` (one median per process), lowest first: split at every gap between sorted
/// neighbours of at least [`MIN_GAP_RATIO`] and [`GAP_OVER_TYPICAL`] times the median gap (on the log
/// scale), kept only when that gives two or more groups of two or more processes each. `None` otherwise,
/// for fewer than four values, or when any is not positive (a time inside the control's scatter has no
/// ratio to its neighbours).
pub fn process_modes(values: &[f64]) -> Option<Vec<ProcessMode>> {
    if values.len() < 4 || values.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let gaps: Vec<f64> = sorted.windows(2).map(|w| (w[1] / w[0]).ln()).collect();
    let mut ordered = gaps.clone();
    ordered.sort_by(f64::total_cmp);
    let typical = ordered[ordered.len() / 2];
    let threshold = MIN_GAP_RATIO.ln().max(GAP_OVER_TYPICAL * typical);
    let mut groups: Vec<&[f64]> = Vec::new();
    let mut start = 0;
    for (i, gap) in gaps.iter().enumerate() {
        if *gap >= threshold {
            groups.push(&sorted[start..=i]);
            start = i + 1;
        }
    }
    groups.push(&sorted[start..]);
    if groups.len() < 2 || groups.iter().any(|g| g.len() < 2) {
        return None;
    }
    Some(
        groups
            .into_iter()
            .map(|g| ProcessMode {
                processes: g.len(),
                median: super::order::percentile(g, 0.5),
                low: g[0],
                high: g[g.len() - 1],
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_placements_give_three_modes_and_a_spread_gives_none() {
        let c2c = [17.0, 16.2, 18.9, 33.0, 38.5, 121.0, 112.0, 17.5];
        let modes = process_modes(&c2c).unwrap();
        let counts: Vec<usize> = modes.iter().map(|m| m.processes).collect();
        assert_eq!(counts, [4, 2, 2]);
        assert_eq!(modes.len(), 3);
        assert_eq!((modes[0].low, modes[2].high), (16.2, 121.0));
        // An even spread, however wide, is no set of modes.
        assert!(process_modes(&[10.0, 11.0, 12.1, 13.3, 14.6, 16.1]).is_none());
        // One outlying process is an outlier, not a mode: a mode needs two processes.
        assert!(process_modes(&[46.0, 45.0, 47.0, 46.5, 230.0]).is_none());
        assert!(process_modes(&[1.0, 2.0, 3.0]).is_none(), "fewer than four");
        assert!(process_modes(&[1.0, -2.0, 3.0, 4.0]).is_none(), "a time below the control's scatter");
    }
}
