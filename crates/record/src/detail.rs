//! Results richer than one number per point: labelled matrices (Ben-Asher & Feitelson 1991 Table 1, cross-core clock
//! offsets), latency distributions (timer wake-ups) and small labelled tables (conversion errors per
//! range, counts per timer scenario). They live beside a point's summary in the `"overhead"` section,
//! which Google Benchmark readers ignore (docs/ARCHITECTURE.md "The run record").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use overhead_stats::Distribution;

/// A labelled matrix of numbers, row `i` against column `j`, in one unit. Cells that could not be
/// measured (a CPU against itself, a refused pinning) are `None` (JSON `null`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matrix {
    /// What a cell means, e.g. "TSC offset of column CPU relative to row CPU".
    pub title: String,
    /// Unit of every cell, e.g. `"ns"`, `"ppm"`, `"ticks"`.
    pub unit: String,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// `values[i][j]`, rows × columns.
    pub values: Vec<Vec<Option<f64>>>,
    /// ± uncertainty of each cell in the same unit, when the method gives one (e.g. half the minimum
    /// round trip of a clock exchange); same shape as `values`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<Vec<Vec<Option<f64>>>>,
}

impl Matrix {
    /// A square matrix with the same labels on both axes, every cell empty.
    pub fn square(title: impl Into<String>, unit: impl Into<String>, labels: Vec<String>) -> Matrix {
        let n = labels.len();
        Matrix {
            title: title.into(),
            unit: unit.into(),
            row_labels: labels.clone(),
            col_labels: labels,
            values: vec![vec![None; n]; n],
            uncertainty: None,
        }
    }

    /// True when the shape agrees with the labels (every row as long as the column labels, as many rows
    /// as row labels, and the uncertainty, if any, the same shape).
    pub fn is_well_formed(&self) -> bool {
        let shape_ok = |cells: &Vec<Vec<Option<f64>>>| {
            cells.len() == self.row_labels.len() && cells.iter().all(|r| r.len() == self.col_labels.len())
        };
        shape_ok(&self.values) && self.uncertainty.as_ref().is_none_or(shape_ok)
    }
}

/// A small labelled table of numbers: rows by name, columns by name, one unit for the table.
/// Used where the result is a grid of values that are not timings of one operation (worst conversion
/// error per interval range, conversions per hot-path operation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelledTable {
    pub title: String,
    pub unit: String,
    pub columns: Vec<String>,
    /// Row label → one cell per column (`None`: not applicable).
    pub rows: Vec<(String, Vec<Option<f64>>)>,
}

/// All richer results of one point, by name. Empty for most points.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Details {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub matrices: BTreeMap<String, Matrix>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution: Option<Distribution>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tables: BTreeMap<String, LabelledTable>,
}

impl Details {
    /// True when there is nothing to record.
    pub fn is_empty(&self) -> bool {
        self.matrices.is_empty() && self.distribution.is_none() && self.tables.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_matrix_is_labelled_and_well_formed() {
        let mut m = Matrix::square("offset", "ns", vec!["cpu0".into(), "cpu1".into()]);
        assert!(m.is_well_formed());
        m.values[0][1] = Some(3.0);
        m.uncertainty = Some(vec![vec![None; 2]; 1]);
        assert!(!m.is_well_formed(), "an uncertainty of the wrong shape must be caught");
    }

    #[test]
    fn details_round_trip_through_json() {
        let mut d = Details::default();
        assert!(d.is_empty());
        d.matrices.insert("rate".into(), Matrix::square("r", "ppm", vec!["0".into()]));
        d.tables.insert(
            "errors".into(),
            LabelledTable {
                title: "t".into(),
                unit: "ns".into(),
                columns: vec!["1s".into()],
                rows: vec![("exact".into(), vec![Some(0.0)])],
            },
        );
        let back: Details = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
        assert_eq!(back, d);
        assert_eq!(serde_json::to_string(&Details::default()).unwrap(), "{}");
    }
}
