//! How many probe processes a point gets and how long a run may refine: the policy the orchestrator follows
//! (its rules in `round_rules.rs`; the orchestrator decides with them) and the record keeps (docs/METHOD.md "Rounds").

use serde::{Deserialize, Serialize};

use overhead_schema::Mode;

/// How many processes a point gets and how long a run may refine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RoundPolicy {
    /// Processes every point gets, whatever the budget.
    pub min_rounds: usize,
    /// Processes a point needs before a narrow CI may stop it: a CI from three processes is narrow by chance
    /// too often, and stopping on it made the next run's median fall outside (measured: a third of the points
    /// that stopped at 3 or 4 processes missed, against 15% of those at 9). Reached only while the budget lasts.
    pub stop_from: usize,
    /// Processes no point gets more than.
    pub max_rounds: usize,
    /// A point is refined while its CI half-width exceeds this fraction of its estimate (0.03 = 3%).
    pub target_half_width: f64,
    /// Rounds past `min_rounds` start a probe only if the run, with that probe's expected time, stays
    /// within this many seconds (measured from the first probe).
    pub budget_s: f64,
    /// Past `min_rounds`, a point's processes may take at most this many times an even share of the budget
    /// (`budget_s` / points) in all: a point whose process takes 300 ms (a timer wake-up sweep, 1000 thread
    /// spawns) would otherwise buy its twelfth process with the time that gives thirty cheap points another.
    pub max_share: f64,
    /// Every round after the first starts a probe only if the run, with that probe's expected time, stays
    /// within this many seconds (measured from the first probe): the minimum rounds too, so a slow host cuts
    /// processes instead of overrunning. Every point keeps its first process; one cut short of `min_rounds`
    /// says so. `None` in records older than it (no deadline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_s: Option<f64>,
}

impl RoundPolicy {
    /// quick: 3–5 processes, refined within 20 s, every probe started by 28 s; default: 3–24 within 80 s,
    /// by 85 s; full: 5–30 within 20 min, by 25 min; none stops on its CI before 5; no point takes more
    /// than 4 even shares of the budget past the minimum. The deadlines leave room for calibration before
    /// the first probe and the report after the last, so a whole run stays within 30 s, 90 s and 26 min.
    pub fn for_mode(mode: Mode) -> RoundPolicy {
        let (min_rounds, max_rounds, budget_s, deadline_s) = match mode {
            Mode::Quick => (3, 5, 20.0, 28.0),
            Mode::Default => (3, 24, 80.0, 85.0),
            Mode::Full => (5, 30, 1200.0, 1500.0),
        };
        RoundPolicy {
            min_rounds,
            stop_from: min_rounds.max(5),
            max_rounds,
            target_half_width: 0.03,
            budget_s,
            max_share: 4.0,
            deadline_s: Some(deadline_s),
        }
    }
}
