//! Souvatzis's networked case judged (Souvatzis, MPD/SR on NetBSD; docs/METHOD.md and the README's notes on the
//! study): each runtime's heavy rows against the network round trip measured in the same run, and its local
//! case against the fastest runtime. The report's `networked` section only shows what this computes.

use overhead_machine::Placement;
use overhead_record::{Catalog, PointRecord, RunRecord};

use crate::primitive_rows::{matches, Row, ROWS};

/// The rows whose cost decides the networked case: the study's "process creation/destruction/
/// synchronisation" (L216), the three rows at about 1/3 of the round trip on its slow machine.
pub const HEAVY_ROWS: [&str; 3] = ["task create/destroy", "inter-task call, new task", "rendezvous"];

/// Good enough for the networked case up to this fraction of the round trip: every networked verdict of
/// the study is reproduced by it.
pub const THRESHOLD: f64 = 0.25;

/// In the local case, a runtime within this factor of the fastest (geometric mean over the switch-bound
/// rows) reads as the study's "acceptable": its context_u was about 3.6× assembler on those rows and
/// acceptable (our reading; the study gives no number).
pub const LOCAL_ACCEPTABLE: f64 = 4.0;

/// A cost or a round trip: median and 95% CI (ns).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

impl Estimate {
    /// A point's median and CI.
    pub fn of(p: &PointRecord) -> Estimate {
        Estimate { median: p.summary.median, low: p.summary.ci_low, high: p.summary.ci_high }
    }
}

/// The networked verdict: good enough when even the upper bound of r is ≤ 1/4, not when even its lower
/// bound is above, else borderline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    GoodEnough,
    Borderline,
    NotGoodEnough,
}

impl Verdict {
    /// The verdict as the section says it.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::GoodEnough => "good enough",
            Verdict::Borderline => "borderline",
            Verdict::NotGoodEnough => "not good enough",
        }
    }
}

/// r = the largest heavy row / the round trip, with the interval the CIs give: low = the largest lower
/// bound / the round trip's upper bound, high = the largest upper bound / the round trip's lower bound
/// (unbounded when that reaches zero).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    pub r: f64,
    pub low: f64,
    pub high: f64,
}

/// The study's rule: r of the heavy rows against the round trip, and the verdict. `None` without a row.
pub fn networked_verdict(rows: &[Estimate], round_trip: Estimate) -> Option<(Ratio, Verdict)> {
    let max = |f: fn(&Estimate) -> f64| rows.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
    if rows.is_empty() {
        return None;
    }
    let r = max(|e| e.median) / round_trip.median;
    let low = if round_trip.high > 0.0 { max(|e| e.low).max(0.0) / round_trip.high } else { 0.0 };
    let high = if round_trip.low > 0.0 { max(|e| e.high) / round_trip.low } else { f64::INFINITY };
    let verdict = if high <= THRESHOLD {
        Verdict::GoodEnough
    } else if low > THRESHOLD {
        Verdict::NotGoodEnough
    } else {
        Verdict::Borderline
    };
    Some((Ratio { r, low, high }, verdict))
}

/// The round trip the networked case uses and where it comes from.
pub struct RoundTrip<'a> {
    pub point: &'a PointRecord,
    /// What it is, in words.
    pub source: &'static str,
}

/// The other-host round trip of a small message measured in the run: `mpi.pingpong` payload 8
/// `other_host`, else `msg.ipc` TCP payload 8 `other_host`.
pub fn round_trip(record: &RunRecord) -> Option<RoundTrip<'_>> {
    let across = |p: &&PointRecord| p.spec.placement == Some(Placement::OtherHost);
    let small = |p: &PointRecord| p.spec.param("payload") == Some("8");
    let mpi = record
        .points
        .iter()
        .filter(across)
        .find(|p| p.spec.experiment == overhead_schema::experiments::mpi::PINGPONG && small(p));
    if let Some(point) = mpi {
        return Some(RoundTrip {
            point,
            source: "8-byte MPI ping-pong between two hosts (mpi.pingpong): MPI's own cost rides on the \
                     transport's, so it is dearer than the study's bare Ethernet round trip",
        });
    }
    let tcp = record.points.iter().filter(across).find(|p| {
        p.spec.experiment == overhead_schema::experiments::msg::IPC
            && p.spec.param("transport") == Some("tcp")
            && small(p)
    });
    tcp.map(|point| RoundTrip { point, source: "8-byte TCP round trip between two hosts (msg.ipc transport tcp)" })
}

/// The runtimes with a point of Souvatzis's table, in the catalog's column order.
pub fn columns(record: &RunRecord, catalog: &dyn Catalog) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for p in &record.points {
        if ROWS.iter().any(|r| r.experiment == p.spec.experiment) && !seen.iter().any(|s| p.spec.runtime == *s) {
            seen.push(p.spec.runtime.to_string());
        }
    }
    seen.sort_by_key(|r| catalog.runtime_rank(r));
    seen
}

/// `runtime`'s point of `row`, if measured.
pub fn point_of<'a>(record: &'a RunRecord, row: &Row, runtime: &str, catalog: &dyn Catalog) -> Option<&'a PointRecord> {
    record.points.iter().find(|p| matches(row, &p.spec, runtime, catalog))
}

/// One runtime's local-case standing: the geometric mean over the switch-bound rows it measured of its
/// median / the fastest runtime's median on that row, and how many rows.
fn local_ratio(record: &RunRecord, runtimes: &[String], runtime: &str, catalog: &dyn Catalog) -> Option<(f64, usize)> {
    let ratios: Vec<f64> = ROWS
        .iter()
        .filter(|row| row.switch_bound)
        .filter_map(|row| {
            let own = point_of(record, row, runtime, catalog)?.summary.median;
            let fastest = runtimes
                .iter()
                .filter_map(|r| point_of(record, row, r, catalog).map(|p| p.summary.median))
                .filter(|m| *m > 0.0)
                .fold(f64::INFINITY, f64::min);
            (own > 0.0 && fastest.is_finite()).then(|| own / fastest)
        })
        .collect();
    (!ratios.is_empty()).then(|| (overhead_stats::geometric_mean(&ratios), ratios.len()))
}

/// A runtime's networked case.
#[derive(Debug, Clone, PartialEq)]
pub enum Networked {
    /// r and the verdict.
    Judged(Ratio, Verdict),
    /// r over the heavy rows it measured, no verdict: these rows are missing and could only raise r (a "not
    /// good enough" stands and is [`Networked::Judged`]).
    Waiting(Ratio, Vec<&'static str>),
    /// No heavy row measured.
    NoHeavyRow,
}

/// One runtime's standing in both cases.
#[derive(Debug, Clone)]
pub struct RuntimeCase<'a> {
    pub runtime: overhead_schema::runtimes::RuntimeId,
    /// Its largest heavy row by median: the row's label and point.
    pub largest_heavy: Option<(&'static str, &'a PointRecord)>,
    pub networked: Networked,
    /// Its local-case ratio (× the fastest, geometric mean) and over how many rows.
    pub local: Option<(f64, usize)>,
    /// Whether it is the fastest overall (least local ratio).
    pub fastest: bool,
}

impl RuntimeCase<'_> {
    /// Whether the local-case ratio reads as the study's "acceptable" ([`LOCAL_ACCEPTABLE`]).
    pub fn locally_acceptable(&self) -> Option<bool> {
        self.local.map(|(x, _)| x <= LOCAL_ACCEPTABLE)
    }
}

/// Every runtime of `runtimes` judged against the round trip `rtt`.
pub fn runtime_cases<'a>(
    record: &'a RunRecord,
    runtimes: &[String],
    rtt: Estimate,
    catalog: &dyn Catalog,
) -> Vec<RuntimeCase<'a>> {
    let locals: Vec<Option<(f64, usize)>> =
        runtimes.iter().map(|r| local_ratio(record, runtimes, r, catalog)).collect();
    let fastest = runtimes
        .iter()
        .zip(&locals)
        .filter_map(|(r, l)| l.map(|(x, _)| (r, x)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(r, _)| r.clone());
    runtimes
        .iter()
        .zip(locals)
        .map(|(runtime, local)| {
            let heavy: Vec<(&'static str, &PointRecord)> = HEAVY_ROWS
                .iter()
                .filter_map(|label| {
                    let row = ROWS.iter().find(|r| r.label == *label)?;
                    Some((*label, point_of(record, row, runtime, catalog)?))
                })
                .collect();
            let missing: Vec<&'static str> =
                HEAVY_ROWS.iter().copied().filter(|l| !heavy.iter().any(|(h, _)| h == l)).collect();
            let estimates: Vec<Estimate> = heavy.iter().map(|(_, p)| Estimate::of(p)).collect();
            let largest_heavy = heavy.iter().copied().max_by(|a, b| a.1.summary.median.total_cmp(&b.1.summary.median));
            let networked = match networked_verdict(&estimates, rtt) {
                Some((r, v)) if missing.is_empty() || v == Verdict::NotGoodEnough => Networked::Judged(r, v),
                Some((r, _)) => Networked::Waiting(r, missing),
                None => Networked::NoHeavyRow,
            };
            RuntimeCase {
                runtime: runtime.as_str().into(),
                largest_heavy,
                networked,
                local,
                fastest: fastest.as_deref() == Some(runtime),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(median: f64, half: f64) -> Estimate {
        Estimate { median, low: median - half, high: median + half }
    }

    /// The study's own numbers against its 200 µs round trip: machine A's SVR4 heavy rows (4.35, 4.28,
    /// 4.2 µs: ≤ 0.022) pass; machine B's (55.9, 58.78, 54.0 µs: 0.27–0.29) fail.
    #[test]
    fn the_studys_verdicts_come_out_of_the_rule() {
        let rtt = est(200_000.0, 2_000.0);
        let a = [est(4_350.0, 100.0), est(4_280.0, 100.0), est(4_200.0, 100.0)];
        let (r, v) = networked_verdict(&a, rtt).unwrap();
        assert_eq!(v, Verdict::GoodEnough);
        assert!((r.r - 0.02175).abs() < 1e-9 && r.high <= 0.023, "{r:?}");
        let b = [est(55_900.0, 500.0), est(58_780.0, 500.0), est(54_000.0, 500.0)];
        let (r, v) = networked_verdict(&b, rtt).unwrap();
        assert_eq!(v, Verdict::NotGoodEnough);
        assert!((r.r - 0.2939).abs() < 1e-9 && r.low > 0.25, "{r:?}");
        // B's context_u (≤ 0.136) passes.
        let (_, v) = networked_verdict(&[est(27_200.0, 500.0)], rtt).unwrap();
        assert_eq!(v, Verdict::GoodEnough);
    }

    #[test]
    fn a_ci_straddling_a_quarter_is_borderline() {
        let rtt = est(200_000.0, 2_000.0);
        let (r, v) = networked_verdict(&[est(48_000.0, 6_000.0)], rtt).unwrap();
        assert_eq!(v, Verdict::Borderline, "{r:?}");
        assert!(r.low < 0.25 && r.r < 0.25 && 0.25 < r.high, "{r:?}");
        // A round trip whose CI reaches zero bounds nothing from above.
        let (r, v) = networked_verdict(&[est(10.0, 1.0)], est(100.0, 150.0)).unwrap();
        assert!(r.high.is_infinite() && v == Verdict::Borderline, "{r:?}");
        assert!(networked_verdict(&[], rtt).is_none());
    }

    #[test]
    fn heavy_rows_are_rows_of_the_table() {
        for label in HEAVY_ROWS {
            let row = ROWS.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("{label}"));
            assert!(row.switch_bound, "{label}");
        }
    }
}
