//! Bencher Metric Format (bencher.dev): one benchmark per point, measure `latency` in ns with the 95% CI as
//! its lower and upper values, and one measure per kernel count the point has (`cs_per_op`, `kernel_share`,
//! …: the median over processes with its interval; docs/METHOD.md §18).

use serde_json::{json, Map, Value};

use super::{finite, Exporter};
use overhead_record::RunRecord;

/// `{ "<point name>": { "latency": { "value": median, "lower_value": ci_low, "upper_value": ci_high } } }`,
/// every time in ns, points in record order.
pub struct Bmf;

impl Exporter<RunRecord> for Bmf {
    fn render(&self, record: &RunRecord) -> anyhow::Result<String> {
        let mut benchmarks = Map::new();
        for p in record.every_point() {
            let s = &p.summary;
            let latency = json!({
                "value": finite(s.median),
                "lower_value": finite(s.ci_low),
                "upper_value": finite(s.ci_high),
            });
            let mut measures = Map::new();
            measures.insert("latency".into(), latency);
            for c in &p.counts {
                let measure = json!({
                    "value": finite(c.median),
                    "lower_value": finite(c.ci_low),
                    "upper_value": finite(c.ci_high),
                });
                measures.insert(c.key.clone(), measure);
            }
            benchmarks.insert(p.name.clone(), Value::Object(measures));
        }
        Ok(serde_json::to_string_pretty(&Value::Object(benchmarks))? + "\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    #[test]
    fn an_ordinary_json_reader_reads_every_point_with_its_bounds() {
        let record = sample_record();
        let parsed: Value = serde_json::from_str(&Bmf.render(&record).unwrap()).unwrap();
        let object = parsed.as_object().unwrap();
        assert_eq!(object.len(), record.points.len());
        for p in &record.points {
            let latency = &object[&p.name]["latency"];
            assert_eq!(latency["value"].as_f64(), Some(p.summary.median));
            assert_eq!(latency["lower_value"].as_f64(), Some(p.summary.ci_low));
            assert_eq!(latency["upper_value"].as_f64(), Some(p.summary.ci_high));
        }
    }

    /// A point's kernel counts are measures of their own, with their intervals.
    #[test]
    fn counts_are_measures_with_their_intervals() {
        let mut record = sample_record();
        record.points[0].counts = vec![overhead_record::fixture::count("cs_per_op", 1.0, 0.98, 1.02)];
        let parsed: Value = serde_json::from_str(&Bmf.render(&record).unwrap()).unwrap();
        let cs = &parsed[&record.points[0].name]["cs_per_op"];
        assert_eq!(
            (cs["value"].as_f64(), cs["lower_value"].as_f64(), cs["upper_value"].as_f64()),
            (Some(1.0), Some(0.98), Some(1.02))
        );
        let measures: Vec<&String> = parsed[&record.points[0].name].as_object().unwrap().keys().collect();
        assert_eq!(measures, ["cs_per_op", "latency"], "the time and the one count, nothing else");
    }
}
