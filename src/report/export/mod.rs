//! Machine-readable exports of a run record, one file per format behind one [`Exporter`] trait (as
//! hyperfine's `src/export/<format>.rs`): CSV for spreadsheets, Bencher's Metric Format and
//! github-action-benchmark's `customSmallerIsBetter` for CI dashboards. Each holds every measured point,
//! named as in the record (`experiment/runtime:R/key:value/…`), its median and the bounds of its 95% CI in ns.
//! Renderers read only the record (docs/ARCHITECTURE.md "Renderers").

mod bmf;
mod csv;
mod github_benchmark;

use crate::record::{PointRecord, RunRecord};

/// One export format. serde/clap: `csv`, `bmf`, `github-benchmark`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// One row per point: name, parameters, median and CI (ns), spread, flags.
    Csv,
    /// Bencher Metric Format: `{name: {"latency": {value, lower_value, upper_value}}}`, ns.
    Bmf,
    /// github-action-benchmark's `customSmallerIsBetter`: `[{name, unit, value, range, extra}]`, ns.
    GithubBenchmark,
}

impl ExportFormat {
    /// Every format, in `--export` order.
    pub const ALL: [ExportFormat; 3] = [ExportFormat::Csv, ExportFormat::Bmf, ExportFormat::GithubBenchmark];

    /// The file `overhead run --export` writes next to `results.json`.
    pub fn file_name(self) -> &'static str {
        match self {
            ExportFormat::Csv => "results.csv",
            ExportFormat::Bmf => "results.bmf.json",
            ExportFormat::GithubBenchmark => "results.github-benchmark.json",
        }
    }

    /// The exporter that writes this format.
    pub fn exporter(self) -> &'static dyn Exporter {
        match self {
            ExportFormat::Csv => &csv::Csv,
            ExportFormat::Bmf => &bmf::Bmf,
            ExportFormat::GithubBenchmark => &github_benchmark::GithubBenchmark,
        }
    }
}

/// Writes a record in one format.
pub trait Exporter: Sync {
    /// The whole file's text.
    ///
    /// Errors: the serializer failed (it does not for finite numbers; a NaN median is written as `null` in
    /// JSON and empty in CSV).
    fn export(&self, record: &RunRecord) -> anyhow::Result<String>;
}

/// The flags of a point, as the results table prints them: `noisy`, `unstable`, `<res`, `slow`.
pub fn flags(p: &PointRecord) -> Vec<&'static str> {
    [(p.noisy, "noisy"), (p.unstable, "unstable"), (p.below_resolution, "<res"), (p.slow, "slow")]
        .into_iter()
        .filter_map(|(set, name)| set.then_some(name))
        .collect()
}

/// A finite number, or `None` (JSON `null`, an empty CSV cell).
fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::fixture::sample_record;

    #[test]
    fn every_format_holds_every_point() {
        let record = sample_record();
        assert!(!record.points.is_empty());
        for format in ExportFormat::ALL {
            let text = format.exporter().export(&record).unwrap();
            for p in &record.points {
                assert!(text.contains(&p.name), "{format:?} lacks {}", p.name);
            }
        }
    }

    #[test]
    fn flags_follow_the_point() {
        let mut p = sample_record().points[0].clone();
        (p.noisy, p.unstable, p.below_resolution, p.slow) = (true, false, true, false);
        assert_eq!(flags(&p), ["noisy", "<res"]);
    }
}
