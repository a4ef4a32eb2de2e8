//! The matrices section: every point's matrices as labelled grids ([`overhead_render::matrix`]), except those
//! a section of their own shows. Generic: it presents every experiment the same way.

use overhead_record::RunRecord;
use overhead_render::{render_matrix, Format};

/// Experiments whose matrices a section of their own shows (`mem.c2c`: the `mem` section's heat map;
/// `mpi.hosts`: the `mpi` section's host matrices); this section leaves them out rather than print them twice.
pub const SHOWN_ELSEWHERE: &[&str] =
    &[overhead_schema::experiments::mem::C2C, overhead_schema::experiments::mpi::HOSTS];

/// Every matrix of every point, in point order then by name: a heading naming the point, the matrix's
/// key, title and unit, the grid, and a line with its smallest and largest cell. Empty when no point
/// has a matrix.
pub fn matrices_section(record: &RunRecord, format: Format) -> String {
    let mut out = String::new();
    for point in record.points.iter().filter(|p| !SHOWN_ELSEWHERE.contains(&p.spec.experiment.as_str())) {
        for (key, matrix) in &point.details.matrices {
            if !out.is_empty() {
                out += "\n";
            }
            out += &render_matrix(&point.name, key, matrix, format);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::{point, sample_record};
    use overhead_record::Matrix;

    fn offsets() -> Matrix {
        let mut m = Matrix::square("offset", "ns", vec!["0".into(), "1".into()]);
        m.values[0][1] = Some(12.5);
        m.values[1][0] = Some(-12.5);
        m
    }

    #[test]
    fn the_section_lists_every_matrix_of_every_point() {
        let mut record = sample_record();
        assert!(matrices_section(&record, Format::Table).is_empty());
        let mut skew = point("clock.offset", "os", &[], 80.0);
        skew.details.matrices.insert("offset".into(), offsets());
        skew.details.matrices.insert("warps".into(), Matrix::square("warps", "count", vec!["0".into()]));
        record.points.push(skew);
        let text = matrices_section(&record, Format::Table);
        assert!(text.contains("clock.offset/runtime:os — offset"), "{text}");
        assert!(text.contains("clock.offset/runtime:os — warps"), "{text}");
        let full = crate::render(&record, Format::Table);
        assert!(full.contains("clock.offset/runtime:os — offset"), "the full report prints matrices: {full}");
    }
}
