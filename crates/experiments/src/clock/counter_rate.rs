//! Each CPU's hardware counter rate against `CLOCK_MONOTONIC_RAW`: the part of `clock.rate` that asks
//! whether every CPU's counter ticks as fast as the one the run calibrated (docs/METHOD.md §8).

use std::time::Duration;

use super::hardware;
use overhead_clock::{measure_span, Clock, TimeSourceKind};
use overhead_machine::pin_current_thread;
use overhead_record::Matrix;

/// Each CPU's counter rate in Hz with its uncertainty in ppm, measured over one `span` on all `cpus`
/// at once (one pinned thread per CPU; the counter and the kernel clock are read, nothing shared is
/// written, so the CPUs do not disturb each other). A CPU whose pinning was refused gets the error.
pub fn counter_rates(kind: TimeSourceKind, cpus: &[usize], span: Duration) -> Vec<Result<(f64, f64), String>> {
    let raw = Clock { kind, hz: 1e9 };
    std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                s.spawn(move || {
                    pin_current_thread(cpu).map_err(|e| format!("CPU {cpu} not pinned: {e}"))?;
                    Ok(measure_span(&raw, span))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("rate thread panicked")).collect()
    })
}

/// The rate the per-CPU rates are compared with: the run's calibration when it is this counter (so a
/// cell says how far that CPU is from the rate every timing of the run assumed), otherwise the median
/// of the CPUs' rates.
pub fn reference_hz(run_clock: &Clock, rates: &[Result<(f64, f64), String>]) -> Option<f64> {
    if run_clock.kind == hardware::KIND {
        return Some(run_clock.hz);
    }
    let mut hz: Vec<f64> = rates.iter().filter_map(|r| r.as_ref().ok().map(|&(hz, _)| hz)).collect();
    hz.sort_by(f64::total_cmp);
    hz.get(hz.len() / 2).copied()
}

/// A one-column matrix, a row per CPU: its counter rate minus `reference_hz`, in ppm of it, ± the
/// measurement's own uncertainty (the pairing of counter and clock reads at both ends of the span).
pub fn rate_matrix(labels: Vec<String>, rates: &[Result<(f64, f64), String>], reference_hz: f64) -> Matrix {
    let cells: Vec<(Option<f64>, Option<f64>)> = rates
        .iter()
        .map(|r| match r {
            Ok((hz, error_ppm)) => (Some((hz / reference_hz - 1.0) * 1e6), Some(*error_ppm)),
            Err(_) => (None, None),
        })
        .collect();
    Matrix {
        title: format!(
            "counter rate of each CPU against CLOCK_MONOTONIC_RAW, relative to {:.3} MHz",
            reference_hz / 1e6
        ),
        unit: "ppm".into(),
        row_labels: labels,
        col_labels: vec!["rate".into()],
        values: cells.iter().map(|c| vec![c.0]).collect(),
        uncertainty: Some(cells.iter().map(|c| vec![c.1]).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_machine::allowed_cpus;

    #[test]
    fn matrix_has_a_row_per_cpu_and_ppm_from_the_reference() {
        let rates = vec![Ok((3.0e9, 1.5)), Err("refused".to_string()), Ok((2.999_97e9, 2.0))];
        let m = rate_matrix(vec!["0".into(), "1".into(), "2".into()], &rates, 3.0e9);
        assert!(m.is_well_formed());
        assert_eq!(m.col_labels.len(), 1);
        assert_eq!(m.values[0][0], Some(0.0));
        assert_eq!(m.values[1][0], None);
        assert!((m.values[2][0].unwrap() + 10.0).abs() < 1e-6, "{:?}", m.values);
        assert_eq!(m.uncertainty.as_ref().unwrap()[2][0], Some(2.0));
    }

    #[test]
    fn reference_is_the_run_calibration_or_the_median() {
        let rates = vec![Ok((1.0e9, 0.0)), Ok((3.0e9, 0.0)), Ok((2.0e9, 0.0))];
        let run = Clock { kind: hardware::KIND, hz: 5.0e9 };
        assert_eq!(reference_hz(&run, &rates), Some(5.0e9));
        let other = if hardware::KIND == TimeSourceKind::ClockMonotonicRaw {
            TimeSourceKind::Tsc
        } else {
            TimeSourceKind::ClockMonotonicRaw
        };
        assert_eq!(reference_hz(&Clock { kind: other, hz: 1e9 }, &rates), Some(2.0e9));
    }

    #[test]
    fn every_cpu_gets_a_plausible_rate() {
        let cpus = allowed_cpus();
        let cpus = &cpus[..cpus.len().min(2)];
        let rates = counter_rates(hardware::KIND, cpus, Duration::from_millis(5));
        assert_eq!(rates.len(), cpus.len());
        for r in rates {
            let (hz, error_ppm) = r.unwrap();
            assert!(hz > 1e6 && error_ppm >= 0.0, "{hz} {error_ppm}");
        }
    }
}
