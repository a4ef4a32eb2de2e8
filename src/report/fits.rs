//! Fits through series of points, printed as formulas in the seed's style (seed 001 Fig. 3:
//! "0.140 + 0.072·load ms").

use super::{format_ns, Format};
use crate::record::RunRecord;

/// One line per fit in `record.fits`: the series name and its formula; empty when there are none.
pub fn fits_section(record: &RunRecord, format: Format) -> String {
    let bullet = if format == Format::Md { "- " } else { "  " };
    record
        .fits
        .iter()
        .map(|f| {
            let unit = if f.x_unit.is_empty() { String::new() } else { format!(" ({} in {})", f.x, f.x_unit) };
            let formula = f.formula(format_ns);
            match format {
                Format::Md => format!("{bullet}`{}`: {formula}{unit}\n", f.name()),
                Format::Table => format!("{bullet}{}: {formula}{unit}\n", f.name()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::fixture::sample_record;
    use crate::record::FitRecord;

    #[test]
    fn prints_each_fit_as_a_formula() {
        let mut record = sample_record();
        assert!(fits_section(&record, Format::Table).is_empty());
        record.fits.push(FitRecord {
            experiment: "sched.yield".into(),
            runtime: "os".into(),
            series: vec![],
            x: "load".into(),
            x_unit: "extra activities per CPU".into(),
            y_unit: "ns".into(),
            a: 140.0,
            b: 72.0,
            c: None,
            r2: 0.99,
            points: 8,
        });
        let text = fits_section(&record, Format::Md);
        assert!(text.contains("`sched.yield/runtime:os`: 140 ns + 72.0 ns·load"), "{text}");
        assert!(text.contains("r² 0.990"), "{text}");
    }
}
