//! `timer.hotpath`'s result: written by the experiment, read by the analysis's count fits and the report's
//! timer table, so it lives below both (docs/ARCHITECTURE.md "Layers": a type two layers need lives in the
//! lower one).

/// What a `timer.hotpath` point reports beside its median (its `extra`): the counts of a counting run of
/// the same workload, per hot-path operation, in the columns of Kiszka's summary tables
/// (`overhead_timerq::COUNT_COLUMNS`), and the timed run's fired timers per operation.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HotPathResult {
    /// Tick↔ns conversions of every kind (Kiszka's "total").
    pub conversions_per_op: f64,
    /// Tick→ns conversions (Kiszka's "tsc->ns").
    pub ticks_to_ns_per_op: f64,
    /// Ns→tick conversions (Kiszka's "ns->tsc").
    pub ns_to_ticks_per_op: f64,
    /// Ns→tick conversions a 32-bit multiply could do (Kiszka's "possible 32-bit ns->tsc").
    pub ns_to_ticks_32bit_candidates_per_op: f64,
    /// Hardware-timer programmings (Kiszka's `program_timer`, from its pseudo-code).
    pub hw_programs_per_op: f64,
    /// Counter reads (`get_tsc()`).
    pub counter_reads_per_op: f64,
    /// Timers fired per operation in the timed run.
    pub fired_per_op: f64,
}

impl HotPathResult {
    /// The counts in the order of `overhead_timerq::COUNT_COLUMNS`.
    pub fn counts(&self) -> [f64; 6] {
        [
            self.conversions_per_op,
            self.ticks_to_ns_per_op,
            self.ns_to_ticks_per_op,
            self.ns_to_ticks_32bit_candidates_per_op,
            self.hw_programs_per_op,
            self.counter_reads_per_op,
        ]
    }
}
