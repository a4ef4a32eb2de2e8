//! github-action-benchmark's `customSmallerIsBetter` tool: a JSON array of `{name, unit, value, range,
//! extra}`, one per point, time in ns.

use serde_json::{json, Value};

use super::{finite, flags, Exporter};
use overhead_record::RunRecord;

/// `[{ "name": point name, "unit": "ns", "value": median, "range": "± CI half-width", "extra": "95% CI
/// low – high ns; N processes; flags" }]`, points in record order (every side's, [`RunRecord::every_point`]).
pub struct GithubBenchmark;

impl Exporter<RunRecord> for GithubBenchmark {
    fn render(&self, record: &RunRecord) -> anyhow::Result<String> {
        let entries: Vec<Value> = record
            .every_point()
            .map(|p| {
                let s = &p.summary;
                let mut extra =
                    format!("95% CI {} – {} ns; {} processes", s.ci_low, s.ci_high, p.processes.len().max(1));
                let flags = flags(p);
                if !flags.is_empty() {
                    extra += &format!("; {}", flags.join(", "));
                }
                json!({
                    "name": p.name,
                    "unit": p.unit,
                    "value": finite(s.median),
                    "range": format!("± {}", s.ci_half_width()),
                    "extra": extra,
                })
            })
            .collect();
        Ok(serde_json::to_string_pretty(&entries)? + "\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    #[test]
    fn an_array_of_smaller_is_better_entries_one_per_point() {
        let record = sample_record();
        let parsed: Value = serde_json::from_str(&GithubBenchmark.render(&record).unwrap()).unwrap();
        let entries = parsed.as_array().unwrap();
        assert_eq!(entries.len(), record.points.len());
        for (e, p) in entries.iter().zip(&record.points) {
            assert_eq!(e["name"], p.name.as_str());
            assert_eq!(e["unit"], "ns");
            assert_eq!(e["value"].as_f64(), Some(p.summary.median));
            assert!(e["range"].as_str().unwrap().starts_with("± "));
        }
    }
}
