//! Curves as data: series of medians with their 95% CIs against a numeric parameter, an optional fit per
//! series, and marked points; what [`super::plot::curve_svg`] draws. Generic: the report's HTML figures fill
//! them from the record.

use overhead_record::FitRecord;

/// One chart: an experiment's points against one numeric parameter, in one panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// Public experiment ID, e.g. `sync.faa`.
    pub experiment: String,
    /// The parameters this panel holds fixed (e.g. `placement:same_cpu` for `msg.ipc`), empty when the
    /// experiment has one panel.
    pub panel: Vec<(String, String)>,
    /// The parameter on the x axis, e.g. `threads`.
    pub x: String,
    /// The x axis is logarithmic (the values span two decades or more).
    pub log_x: bool,
    /// The y axis is logarithmic (the medians span two decades or more).
    pub log_y: bool,
    /// What y is: the points' metric (`per op`, `rtt`, `one way`), in ns.
    pub y_label: String,
    pub series: Vec<Series>,
    /// Points to mark and label (the best task count of a granularity sweep).
    pub marks: Vec<Mark>,
    /// Series with a single point, left out of the drawing (a lone dot is no curve), each as a caption
    /// line: its label, x and median with CI.
    pub lone: Vec<String>,
}

/// A labelled point on a [`Curve`].
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub label: String,
    /// The index of the series it belongs to (its colour).
    pub series: usize,
    pub x: f64,
    pub y: f64,
}

/// One line of a [`Curve`]: the points of one runtime and one setting of the other parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// `runtime` then the parameters other than x and the panel's, e.g. `os · impl:hw · variable:shared`.
    pub label: String,
    /// Ascending in x.
    pub points: Vec<CurvePoint>,
    /// The record's least-squares fit through these points, if it has one and the points outnumber its
    /// coefficients ([`FitRecord::is_supported`]).
    pub fit: Option<FitRecord>,
    /// Why the series has no fit although its experiment fits its series against this x: `too few points
    /// for a fit (2 points; a line needs 3)`.
    pub fit_note: Option<String>,
}

/// A point of a [`Series`]: x, and the median with its 95% CI (ns).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    pub x: f64,
    pub median: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}
