//! CSV: one row per measured point, written with the `csv` crate (quoting, escaping). Times in ns.

use super::{finite, flags, Exporter};
use overhead_record::RunRecord;

/// The columns, in order.
pub const COLUMNS: [&str; 17] = [
    "name",
    "experiment",
    "runtime",
    "params",
    "placement",
    "cpus",
    "metric",
    "median_ns",
    "ci_low_ns",
    "ci_high_ns",
    "ci_level",
    "p10_ns",
    "p90_ns",
    "ovr_ns",
    "batch_ops",
    "processes",
    "flags",
];

/// [`COLUMNS`], one row per point in record order: `params` as `key:value` joined by `/` (as in the name),
/// `cpus` joined by `;`, `flags` joined by `;`, the metric as the record spells it (`per_op`, `rtt`, …).
pub struct Csv;

impl Exporter<RunRecord> for Csv {
    fn render(&self, record: &RunRecord) -> anyhow::Result<String> {
        let mut out = csv::Writer::from_writer(Vec::new());
        out.write_record(COLUMNS)?;
        for p in record.every_point() {
            let s = &p.summary;
            let number = |v: f64| finite(v).map_or(String::new(), |v| v.to_string());
            let params: Vec<String> = p.spec.params.iter().map(|(k, v)| format!("{k}:{v}")).collect();
            let cpus: Vec<String> = p.spec.cpus.iter().map(usize::to_string).collect();
            let enum_text = |v: serde_json::Value| v.as_str().unwrap_or_default().to_string();
            out.write_record([
                p.name.clone(),
                p.spec.experiment.clone(),
                p.spec.runtime.clone(),
                params.join("/"),
                p.spec.placement.map(|pl| enum_text(serde_json::json!(pl))).unwrap_or_default(),
                cpus.join(";"),
                enum_text(serde_json::json!(p.metric)),
                number(s.median),
                number(s.ci_low),
                number(s.ci_high),
                number(s.ci_level),
                number(s.p10),
                number(s.p90),
                number(p.control.median),
                p.batch_ops.to_string(),
                p.processes.len().max(1).to_string(),
                flags(p).join(";"),
            ])?;
        }
        Ok(String::from_utf8(out.into_inner()?)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    #[test]
    fn an_ordinary_csv_reader_reads_every_point_back() {
        let record = sample_record();
        let text = Csv.render(&record).unwrap();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        assert_eq!(reader.headers().unwrap().iter().collect::<Vec<_>>(), COLUMNS);
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), record.points.len());
        for (row, p) in rows.iter().zip(&record.points) {
            assert_eq!(&row[0], p.name);
            assert_eq!(row[7].parse::<f64>().unwrap(), p.summary.median);
            assert_eq!(row[8].parse::<f64>().unwrap(), p.summary.ci_low);
            assert_eq!(row[9].parse::<f64>().unwrap(), p.summary.ci_high);
        }
    }
}
