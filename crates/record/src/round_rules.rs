//! Rounds of probe processes and when a point stops getting more (docs/METHOD.md "Rounds").
//!
//! The orchestrator walks the whole plan once per round, one fresh probe process per point, so a slow
//! minute of the machine lands on different points in different rounds. Every point gets `min_rounds`
//! processes while the run's deadline allows (the first always; when they do not all fit, the orchestrator
//! plans which points give way, the costliest first, `minimum_plan.rs`); after that, a point whose CI is still wider
//! than the target gets another round while the run's time budget allows, up to `max_rounds` (Kalibera &
//! Jones 2013: spend repetitions where the variance is; JMH forks).

use std::time::Duration;

use crate::{PointRecord, RoundPolicy};

impl RoundPolicy {
    /// Whether a point measured by `processes` processes so far, merged into `point` (None before the
    /// first), gets another: always below `stop_from`, never at `max_rounds`, otherwise while its CI is
    /// wider than the target. The budget is the caller's ([`RoundPolicy::affordable`]): past `min_rounds`
    /// it may refuse.
    pub fn wants_another(&self, point: Option<&PointRecord>, processes: usize) -> bool {
        if processes < self.stop_from {
            return true;
        }
        if processes >= self.max_rounds {
            return false;
        }
        point.is_some_and(|p| p.summary.ci_half_width() > self.target_half_width * p.summary.median.abs())
    }

    /// Whether a probe of round `round`, expected to take `expected`, may start `elapsed` into the run: the
    /// first round always (every point gets a value); the rest of the minimum rounds while the run stays
    /// within the deadline; refining rounds within the budget and the deadline.
    pub fn affordable(&self, round: usize, elapsed: Duration, expected: Duration) -> bool {
        let end_s = (elapsed + expected).as_secs_f64();
        let within_deadline = self.deadline_s.is_none_or(|d| end_s <= d);
        round == 1 || (within_deadline && (round <= self.min_rounds || end_s <= self.budget_s))
    }

    /// Whether round `round` (a minimum round past the first), started `elapsed` into the run, would end
    /// past the deadline with its probes expected to take `expected` in all: the schedule then serves the
    /// cheapest processes first, so the deadline cuts the fewest.
    pub fn round_overruns(&self, round: usize, elapsed: Duration, expected: Duration) -> bool {
        round > 1 && self.deadline_s.is_some_and(|d| (elapsed + expected).as_secs_f64() > d)
    }

    /// Whether a point whose processes took `spent` so far may start one expected to take `expected`, out of
    /// `points` points sharing the budget: always in the first `min_rounds`, else while the point stays within
    /// `max_share` even shares.
    pub fn within_share(&self, round: usize, spent: Duration, expected: Duration, points: usize) -> bool {
        let share_s = self.max_share * self.budget_s / points.max(1) as f64;
        round <= self.min_rounds || (spent + expected).as_secs_f64() <= share_s
    }

    /// The policy for a run of `planned` points out of the `whole` plan this mode makes on this machine
    /// (`--only`, `--runtime`): the refining budget shrunk to the run's share of the points, never below a
    /// quarter of it (a few points still get five processes) nor above all of it. A part of the plan then gets about the refining each of its points
    /// would get in the whole run, so `--only mem` takes seconds, not the whole run's budget.
    pub fn for_part(mut self, planned: usize, whole: usize) -> RoundPolicy {
        let share = planned as f64 / whole.max(1) as f64;
        self.budget_s *= share.clamp(0.25, 1.0);
        self
    }

    /// The policy with a refining budget of `budget_s` (`--budget`): the deadline moves out to it when the
    /// budget asks for more time than the deadline gives.
    pub fn with_budget(mut self, budget_s: f64) -> RoundPolicy {
        self.budget_s = budget_s;
        self.deadline_s = self.deadline_s.map(|d| d.max(budget_s));
        self
    }

    /// The policy for a run that measures its plan on `sides` sides (`--side`): each point is measured on
    /// every side, so the budget and the deadline grow by that factor — two sides take at most twice a run of
    /// one.
    pub fn for_sides(mut self, sides: usize) -> RoundPolicy {
        let factor = sides.max(1) as f64;
        self.budget_s *= factor;
        self.deadline_s = self.deadline_s.map(|d| d * factor);
        self
    }

    /// The budget as a duration.
    pub fn budget(&self) -> Duration {
        Duration::from_secs_f64(self.budget_s)
    }
}
