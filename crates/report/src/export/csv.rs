//! CSV: one row per measured point, written with the `csv` crate (quoting, escaping). Times in ns.

use super::{finite, flags, Exporter};
use overhead_record::RunRecord;

/// The columns, in order: the time's, then each kernel count per operation (the median over processes;
/// empty where not counted; docs/METHOD.md §18; their intervals are in the JSON record's `counts`).
pub const COLUMNS: [&str; 31] = [
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
    "cs_per_op",
    "migrations_per_op",
    "minor_faults_per_op",
    "major_faults_per_op",
    "cpu_ns_per_op",
    "process_voluntary_cs_per_op",
    "process_involuntary_cs_per_op",
    "child_minor_faults_per_op",
    "child_cs_per_op",
    "child_cpu_ns_per_op",
    "cycles_per_op",
    "instructions_per_op",
    "llc_misses_per_op",
    "kernel_share",
];

/// Where the count columns start in [`COLUMNS`].
const FIRST_COUNT: usize = 17;

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
            let count = |key: &str| p.counts.iter().find(|c| c.key == key).map_or(String::new(), |c| number(c.median));
            let counts = COLUMNS[FIRST_COUNT..].iter().map(|key| count(key));
            let time_columns = [
                p.name.clone(),
                p.spec.experiment.clone(),
                p.spec.runtime.to_string(),
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
            ];
            out.write_record(time_columns.into_iter().chain(counts))?;
        }
        Ok(String::from_utf8(out.into_inner()?)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;

    /// The count columns are every counter's record key and the kernel share, in the record's order, and a
    /// point's count lands in its column.
    #[test]
    fn the_count_columns_are_the_records_keys_and_carry_the_medians() {
        let keys: Vec<String> = overhead_machine::CounterKind::ALL
            .iter()
            .map(|&k| overhead_record::per_op_key(k))
            .chain([overhead_record::KERNEL_SHARE_KEY.to_string()])
            .collect();
        assert_eq!(COLUMNS[FIRST_COUNT..], keys.iter().map(String::as_str).collect::<Vec<_>>()[..]);
        let mut record = sample_record();
        record.points[0].counts = vec![overhead_record::fixture::count("cs_per_op", 2.0, 1.9, 2.1)];
        let text = Csv.render(&record).unwrap();
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(&rows[0][FIRST_COUNT], "2");
        assert_eq!(&rows[0][FIRST_COUNT + 1], "", "not counted: empty");
    }

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
