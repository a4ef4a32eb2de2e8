//! What a run pays between one probe's end and the next one's start: the orchestrator's own work (merging the
//! answer, rewriting the record), which grows with the record. Read as a line in the number of processes
//! done, the schedule plans with it (docs/METHOD.md §4) and the simulation replays it (docs/METHOD.md "The
//! schedule, simulated").

/// The least-squares line of the gap after each probe (ms) on the number of processes done before it:
/// `runs` are the probes' (start, wall) in seconds, sorted by start. `[ms at none, ms more per process]`,
/// both at least 0; `[0, 0]` with fewer than three probes.
pub fn gap_line(runs: &[(f64, f64)]) -> [f64; 2] {
    line(&gaps(runs))
}

/// Each gap between `runs` (as [`gap_line`] reads them): (processes done before it, ms).
pub fn gaps(runs: &[(f64, f64)]) -> Vec<(f64, f64)> {
    runs.windows(2).enumerate().map(|(i, w)| ((i + 1) as f64, (w[1].0 - w[0].0 - w[0].1).max(0.0) * 1e3)).collect()
}

/// The least-squares line through `points` (x, y): `[intercept, slope]`, both at least 0; `[0, 0]` with
/// fewer than two points, the mean with no spread in x.
pub fn line(points: &[(f64, f64)]) -> [f64; 2] {
    if points.len() < 2 {
        return [0.0, 0.0];
    }
    let n = points.len() as f64;
    let (mx, my) = (points.iter().map(|g| g.0).sum::<f64>() / n, points.iter().map(|g| g.1).sum::<f64>() / n);
    let sxx: f64 = points.iter().map(|g| (g.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|g| (g.0 - mx) * (g.1 - my)).sum();
    let slope = if sxx > 0.0 { (sxy / sxx).max(0.0) } else { 0.0 };
    [(my - slope * mx).max(0.0), slope]
}

/// The mean gap (ms) over the `next` probes after `done`, on `line` ([`gap_line`]).
pub fn mean_gap_ms(line: [f64; 2], done: usize, next: usize) -> f64 {
    line[0] + line[1] * (done as f64 + next as f64 / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gap_between_probes_is_a_line_in_the_processes_done() {
        // Probes of 10 ms whose gaps grow by 1 ms a probe from 2 ms.
        let mut runs = Vec::new();
        let mut t = 0.0;
        for i in 0..10 {
            runs.push((t, 0.010));
            t += 0.010 + (2.0 + i as f64) / 1e3;
        }
        let [a, b] = gap_line(&runs);
        assert!((a - 1.0).abs() < 1e-9 && (b - 1.0).abs() < 1e-9, "{a} {b}");
        assert_eq!(gap_line(&runs[..2]), [0.0, 0.0]);
        assert!((mean_gap_ms([a, b], 10, 4) - 13.0).abs() < 1e-9);
    }
}
