//! Bencher Metric Format (bencher.dev): one benchmark per point, measure `latency` in ns with the 95% CI as
//! its lower and upper values.

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
            benchmarks.insert(p.name.clone(), json!({ "latency": latency }));
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
}
