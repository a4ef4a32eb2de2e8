//! Fits through series of points, printed as formulas in the study's style (Ben-Asher & Feitelson 1991 Fig. 3:
//! "0.140 + 0.072·load ms").

use super::{format_ns, Format};
use overhead_analysis::fits::too_few_points;
use overhead_record::RunRecord;

/// One line per fit in `record.fits`: the series name and its formula, each coefficient with its standard
/// error; then one line per series its experiment fits that has too few points for it (`too few points for
/// a fit (2 points; a line needs 3)`). Empty when there are neither.
pub fn fits_section(record: &RunRecord, format: Format) -> String {
    let bullet = if format == Format::Md { "- " } else { "  " };
    let line = |name: String, text: String| match format {
        Format::Md => format!("{bullet}`{name}`: {text}\n"),
        Format::Table => format!("{bullet}{name}: {text}\n"),
    };
    let fits = record.fits.iter().map(|f| {
        let unit = if f.x_unit.is_empty() { String::new() } else { format!(" ({} in {})", f.x, f.x_unit) };
        line(f.name(), format!("{}{unit}", f.formula(format_ns)))
    });
    let refused =
        too_few_points(&record.points).into_iter().map(|s| line(s.name(), format!("{} against {}", s.note(), s.x)));
    fits.chain(refused).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::sample_record;
    use overhead_record::FitRecord;

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
            a_se: None,
            b_se: None,
            c_se: None,
        });
        let text = fits_section(&record, Format::Md);
        assert!(text.contains("`sched.yield/runtime:os`: 140 ns + 72.0 ns·load"), "{text}");
        assert!(text.contains("r² 0.990"), "{text}");
    }
}
