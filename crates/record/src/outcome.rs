//! What a probe measured for one point, before the analysis makes it a [`super::PointRecord`]: the
//! harness's measurement with the experiment's notes, side numbers and details.

use std::collections::BTreeMap;

use super::Details;
use overhead_schema::{Measurement, TeamReport};

/// What an experiment hands back for one point.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub measurement: Measurement,
    /// Remarks for the record (e.g. refused pinning).
    pub notes: Vec<String>,
    /// Side numbers, unit in the key (e.g. `resolution_ns`).
    pub extra: BTreeMap<String, f64>,
    /// Matrices, a distribution or labelled tables (most experiments leave this empty).
    pub details: Details,
}

impl From<TeamReport> for Outcome {
    /// A team's measurement, with every refused pinning as a note.
    fn from(report: TeamReport) -> Outcome {
        let notes =
            report.pin_failures.iter().map(|(cpu, e)| format!("thread for CPU {cpu} not pinned: {e}")).collect();
        Outcome { measurement: report.measurement, notes, extra: BTreeMap::new(), details: Details::default() }
    }
}

impl From<Measurement> for Outcome {
    fn from(measurement: Measurement) -> Outcome {
        Outcome { measurement, notes: Vec::new(), extra: BTreeMap::new(), details: Details::default() }
    }
}

impl Outcome {
    /// This outcome with `result`'s fields added to its side numbers ([`super::result::to_extra`]): how an
    /// experiment writes its typed result.
    pub fn with_result<T: serde::Serialize>(mut self, result: &T) -> Outcome {
        self.extra.extend(super::result::to_extra(result));
        self
    }
}
