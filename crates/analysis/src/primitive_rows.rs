//! Souvatzis's timing table (the MPD/SR runtime on NetBSD): which point fills which row. The report's
//! primitives section prints it and the analysis compares each runtime with the reference on its
//! switch-bound rows ([`crate::runtime_comparisons`]).

use overhead_record::{Catalog, PointSpec};

/// One row: its label in Souvatzis's words, the experiment, the parameter values that pick the point
/// (a key may accept several values: `os` spawns a thread where the others spawn a task), and whether
/// the row is switch-bound.
pub struct Row {
    /// The row's label in Souvatzis's words.
    pub label: &'static str,
    /// The experiment whose point fills it.
    pub experiment: &'static str,
    /// Parameter values that pick the point (any of the values; a key the point lacks matches).
    pub params: &'static [(&'static str, &'static [&'static str])],
    /// Whether its cost is dominated by switching (the comparison's rows).
    pub switch_bound: bool,
}

/// Souvatzis's table, in its order.
pub const ROWS: &[Row] = &[
    Row {
        label: "loop control overhead",
        experiment: overhead_schema::experiments::base::LOOP,
        params: &[],
        switch_bound: false,
    },
    Row { label: "local call", experiment: overhead_schema::experiments::base::CALL, params: &[], switch_bound: false },
    Row {
        label: "inter-task call, no new task",
        experiment: overhead_schema::experiments::msg::CALL,
        params: &[("new_task", &["no"])],
        switch_bound: false,
    },
    Row {
        label: "inter-task call, new task",
        experiment: overhead_schema::experiments::msg::CALL,
        params: &[("new_task", &["yes"])],
        switch_bound: true,
    },
    Row {
        label: "task create/destroy",
        experiment: overhead_schema::experiments::spawn::CREATE,
        params: &[("kind", &["thread", "task"])],
        switch_bound: true,
    },
    Row {
        label: "semaphore P only",
        experiment: overhead_schema::experiments::sync::SEM,
        params: &[("op", &["p"])],
        switch_bound: false,
    },
    Row {
        label: "semaphore V only",
        experiment: overhead_schema::experiments::sync::SEM,
        params: &[("op", &["v"])],
        switch_bound: false,
    },
    Row {
        label: "semaphore pair",
        experiment: overhead_schema::experiments::sync::SEM,
        params: &[("op", &["pair"])],
        switch_bound: false,
    },
    Row {
        label: "semaphore requiring switch",
        experiment: overhead_schema::experiments::sync::SEM,
        params: &[("op", &["switch"])],
        switch_bound: true,
    },
    // The message rows take each runtime's own channel (its first `impl:`), not the crates it also offers.
    Row {
        label: "asynchronous send/receive",
        experiment: overhead_schema::experiments::msg::ASYNC,
        params: &[],
        switch_bound: false,
    },
    Row {
        label: "message requiring switch",
        experiment: overhead_schema::experiments::msg::SWITCH,
        params: &[],
        switch_bound: true,
    },
    Row {
        label: "rendezvous",
        experiment: overhead_schema::experiments::msg::RENDEZVOUS,
        params: &[],
        switch_bound: true,
    },
    Row {
        label: "switch round trip (csloop)",
        experiment: overhead_schema::experiments::sched::SWITCH,
        params: &[("placement", &["same_cpu"])],
        switch_bound: true,
    },
];

/// The runtime every other column is compared with.
pub const REFERENCE: &str = "fiber-asm";

/// Whether `spec` is `runtime`'s point of `row`. A point with an `impl:` key (the message rows) matches only
/// with the runtime's own implementation ([`Catalog::own_impl`]): the table compares runtimes by their own
/// idiom, and the "choose" tables compare the rest.
pub fn matches(row: &Row, spec: &PointSpec, runtime: &str, catalog: &dyn Catalog) -> bool {
    spec.experiment == row.experiment
        && spec.runtime == runtime
        && row.params.iter().all(|(k, values)| spec.param(k).is_none_or(|v| values.contains(&v)))
        && spec.param("impl").is_none_or(|v| catalog.own_impl(row.experiment, runtime).is_none_or(|own| own == v))
}
