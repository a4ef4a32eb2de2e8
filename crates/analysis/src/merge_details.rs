//! A point's details from its processes' details (docs/METHOD.md "Between-process variance"): most details
//! describe one process (a histogram, a table of one run) and the representative process's are kept; an
//! experiment whose details are its result, a matrix of CPU or host pairs, has them merged cell by cell, so
//! that they carry the between-process spread too. Which experiments those are is the table
//! [`MERGED_MATRICES`]; the experiments that measure them know nothing of it.

use std::collections::BTreeMap;

use crate::placement_class::PairClass;
use overhead_machine::Topology;
use overhead_record::{Details, LabelledTable, Matrix};
use overhead_stats::Summary;

/// The experiments whose matrices are their result: `(experiment, matrix keys, summarised per placement
/// class)`. `mem.c2c`'s core-to-core round trips get a `by_class` table on this machine's topology;
/// `mpi.hosts`'s matrices are of hosts, which have no such class.
pub const MERGED_MATRICES: &[(&str, &[&str], bool)] = &[
    (overhead_schema::experiments::mem::C2C, &["rtt"], true),
    (overhead_schema::experiments::mpi::HOSTS, &["rtt", "bw"], false),
];

/// The details of a point of `experiment` merged from its processes' (in the order they ran), or `None` to
/// keep the representative process's: an experiment not in [`MERGED_MATRICES`], or processes whose matrices
/// are missing or differ in shape.
pub fn merge_details(experiment: &str, processes: &[&Details]) -> Option<Details> {
    let (_, keys, by_placement) = MERGED_MATRICES.iter().find(|(e, ..)| *e == experiment)?;
    let mut details = Details::default();
    for key in *keys {
        let matrices: Vec<&Matrix> = processes.iter().filter_map(|d| d.matrices.get(*key)).collect();
        details.matrices.insert((*key).into(), merge_cells(&matrices)?);
    }
    if *by_placement {
        let rtt = details.matrices.get("rtt")?;
        details.tables.insert("by_class".into(), by_class(rtt, &Topology::detect()));
    }
    Some(details)
}

/// The processes' matrices as one: each cell the median of the processes' cells, ± the half-width of
/// that median's distribution-free CI across processes (three processes give min…max, at 75%: what the
/// next process will do is what a matrix of several processes promises). `None` when no process has a
/// matrix or their shapes or labels differ.
pub fn merge_cells(matrices: &[&Matrix]) -> Option<Matrix> {
    let first = *matrices.first()?;
    let same_shape =
        |m: &&Matrix| m.is_well_formed() && m.row_labels == first.row_labels && m.col_labels == first.col_labels;
    if !matrices.iter().all(same_shape) {
        return None;
    }
    if matrices.len() == 1 {
        return Some(first.clone());
    }
    let mut merged = first.clone();
    let mut uncertainty = vec![vec![None; first.col_labels.len()]; first.row_labels.len()];
    for (i, row) in merged.values.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            let cells: Vec<f64> = matrices.iter().filter_map(|m| m.values[i][j]).collect();
            let summary = Summary::of(&cells);
            *cell = summary.as_ref().map(|s| s.median);
            uncertainty[i][j] = summary.map(|s| s.ci_half_width());
        }
    }
    merged.uncertainty = Some(uncertainty);
    Some(merged)
}

/// Column names of the `by_class` table, in order.
pub const BY_CLASS_COLUMNS: [&str; 5] = ["pairs", "median rtt", "min rtt", "max rtt", "one way (rtt / 2)"];

/// The matrix summarised per placement class (rows closest first, only classes that have a measured
/// pair): pairs, median, min and max round trip, and one way = median / 2 (ns; the count in "pairs").
/// Each pair counts once (the upper triangle). Labels that are not CPU numbers are left out.
pub fn by_class(rtt: &Matrix, topology: &Topology) -> LabelledTable {
    let cpus: Vec<Option<usize>> = rtt.row_labels.iter().map(|l| l.parse().ok()).collect();
    let mut per_class: BTreeMap<PairClass, Vec<f64>> = BTreeMap::new();
    for (i, row) in rtt.values.iter().enumerate() {
        for (j, cell) in row.iter().enumerate().skip(i + 1) {
            let (Some(a), Some(b), Some(v)) = (cpus[i], cpus.get(j).copied().flatten(), *cell) else { continue };
            if let Some(class) = PairClass::of(topology, a, b) {
                per_class.entry(class).or_default().push(v);
            }
        }
    }
    let rows = per_class
        .into_iter()
        .filter_map(|(class, values)| {
            let s = Summary::of(&values)?;
            let cells = [values.len() as f64, s.median, s.min, s.max, s.median / 2.0];
            Some((class.label().to_string(), cells.into_iter().map(Some).collect()))
        })
        .collect();
    LabelledTable {
        title: "round trip per placement class (each pair once)".into(),
        unit: "ns".into(),
        columns: BY_CLASS_COLUMNS.iter().map(|c| c.to_string()).collect(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_machine::testing::simulated;

    fn synthetic(cells: &[(usize, usize, f64)], n: usize) -> Matrix {
        let mut m = Matrix::square("rtt", "ns", (0..n).map(|c| c.to_string()).collect());
        for &(i, j, v) in cells {
            m.values[i][j] = Some(v);
            m.values[j][i] = Some(v);
        }
        m
    }

    #[test]
    fn classes_summarise_each_pair_once() {
        // 8 CPUs: 2 L3s of 2 cores × 2 threads, one node.
        let t = simulated(1, 1, 2, 2, 2);
        let m = synthetic(&[(0, 1, 20.0), (2, 3, 22.0), (0, 2, 60.0), (1, 3, 70.0), (0, 4, 200.0)], 8);
        let table = by_class(&m, &t);
        let row = |label: &str| table.rows.iter().find(|(l, _)| l == label).map(|(_, c)| c.clone()).unwrap();
        assert_eq!(table.rows.len(), 3, "{table:?}");
        assert_eq!(row(PairClass::SmtSibling.label()), [2.0, 21.0, 20.0, 22.0, 10.5].map(Some));
        assert_eq!(row(PairClass::SameLlc.label()), [2.0, 65.0, 60.0, 70.0, 32.5].map(Some));
        assert_eq!(row(PairClass::OtherLlc.label()), [1.0, 200.0, 200.0, 200.0, 100.0].map(Some));
        assert_eq!(table.columns, BY_CLASS_COLUMNS);
    }

    #[test]
    fn a_simulated_two_socket_machine_has_every_class_and_every_pair_once() {
        // 2 packages × 2 nodes × 2 L3s × 2 cores × 2 threads = 32 CPUs, every pair filled.
        let t = simulated(2, 2, 2, 2, 2);
        let cells: Vec<(usize, usize, f64)> = (0..32).flat_map(|i| (i + 1..32).map(move |j| (i, j, 1.0))).collect();
        let table = by_class(&synthetic(&cells, 32), &t);
        let pairs: Vec<(&str, f64)> = table.rows.iter().map(|(l, c)| (l.as_str(), c[0].unwrap())).collect();
        let expected = [
            (PairClass::SmtSibling, 16.0),
            (PairClass::SameLlc, 32.0),
            (PairClass::OtherLlc, 64.0),
            (PairClass::OtherNumaNode, 128.0),
            (PairClass::OtherPackage, 256.0),
        ];
        assert_eq!(pairs, expected.map(|(c, n)| (c.label(), n)));
        assert_eq!(pairs.iter().map(|p| p.1).sum::<f64>(), (32 * 31 / 2) as f64);
    }

    #[test]
    fn processes_merge_cell_by_cell_with_their_spread() {
        let a = synthetic(&[(0, 1, 100.0)], 2);
        let b = synthetic(&[(0, 1, 130.0)], 2);
        let c = synthetic(&[(0, 1, 110.0)], 3);
        assert!(merge_cells(&[&a, &c]).is_none(), "different shapes do not merge");
        let d = synthetic(&[(0, 1, 104.0)], 2);
        let merged = merge_cells(&[&a, &b, &d]).unwrap();
        assert_eq!(merged.values[0][1], Some(104.0));
        assert_eq!(merged.values[0][0], None);
        let u = merged.uncertainty.unwrap();
        assert_eq!(u[0][1], Some(15.0), "three processes: half of min…max");
        assert_eq!(u[1][1], None);
        let details: Vec<Details> = [a, b, d]
            .into_iter()
            .map(|m| {
                let mut d = Details::default();
                d.matrices.insert("rtt".into(), m);
                d
            })
            .collect();
        let refs: Vec<&Details> = details.iter().collect();
        let merged = merge_details("mem.c2c", &refs).unwrap();
        assert_eq!(merged.matrices["rtt"].values[1][0], Some(104.0));
        assert!(merged.tables.contains_key("by_class"));
    }

    #[test]
    fn host_matrices_merge_both_keys_without_classes() {
        let mut d = Details::default();
        d.matrices.insert("rtt".into(), synthetic(&[(0, 1, 11.0)], 2));
        d.matrices.insert("bw".into(), synthetic(&[(0, 1, 640.0)], 2));
        let mut e = d.clone();
        e.matrices.get_mut("rtt").unwrap().values[0][1] = Some(13.0);
        let merged = merge_details("mpi.hosts", &[&d, &e, &d]).unwrap();
        assert_eq!(merged.matrices["rtt"].values[0][1], Some(11.0));
        assert_eq!(merged.matrices["bw"].values[0][1], Some(640.0));
        assert!(merged.tables.is_empty(), "hosts have no placement class");
        assert!(merge_details("sched.switch", &[&d]).is_none(), "other experiments keep the representative's");
        e.matrices.remove("bw");
        let partial = merge_details("mpi.hosts", &[&d, &e]).unwrap();
        assert_eq!(partial.matrices["bw"], d.matrices["bw"], "a matrix one process lacks is the others'");
    }
}
