//! Older records read as today's (DESIGN "Rules that hold": names are public; a rename keeps older records
//! readable). Naming the implementations gave Souvatzis's message rows (`msg.async`, `msg.switch`, `msg.rendezvous`) an `impl:`
//! key; a point written before it measured the runtime's own channel and reads as that implementation, so
//! `compare` and the history's between-run variance pair it with today's point. Experiments renamed since
//! ([`RENAMED_EXPERIMENTS`]) read under today's ID.

use super::PointSpec;

/// Experiments renamed after records were written under the old ID: `(old, today's)`. `clock.skew` measured the
/// counters' offset, and NTP and PTP call skew what `clock.rate` measures, so it became `clock.offset`.
pub const RENAMED_EXPERIMENTS: [(&str, &str); 1] = [("clock.skew", overhead_schema::experiments::clock::OFFSET)];

/// Today's ID of `experiment`: itself, unless it was renamed ([`RENAMED_EXPERIMENTS`]). `--only` reads the old
/// IDs through this too.
pub fn current_experiment_id(experiment: &str) -> &str {
    RENAMED_EXPERIMENTS.iter().find(|(old, _)| *old == experiment).map_or(experiment, |(_, new)| new)
}

/// The message rows that gained `impl:` when the implementations were named.
const MESSAGE_ROWS: [&str; 3] = [
    overhead_schema::experiments::msg::ASYNC,
    overhead_schema::experiments::msg::SWITCH,
    overhead_schema::experiments::msg::RENDEZVOUS,
];

/// The `impl:` value a point of `experiment` by `runtime` measured before points named it: each runtime's own
/// channel then (std's mpsc for `os`, the fibers' own, tokio's mpsc, Go's chan, Java's queues, MPI's
/// point-to-point). `None` for other experiments and runtimes.
pub fn implied_impl(experiment: &str, runtime: &str) -> Option<&'static str> {
    if !MESSAGE_ROWS.contains(&experiment) {
        return None;
    }
    Some(match runtime {
        "os" => "std_mpsc",
        "fiber-asm" | "fiber-ucontext" | "fiber-corosensei" => "fiber",
        "tokio" => "tokio_mpsc",
        "go" => "chan",
        "java-platform" | "java-virtual" if experiment == overhead_schema::experiments::msg::ASYNC => {
            "linked_transfer_queue"
        }
        "java-platform" | "java-virtual" => "synchronous_queue",
        "mpi" => "mpi",
        _ => return None,
    })
}

/// The experiments whose tokio points ran on tokio's multi-thread pool before tokio's points named their
/// flavor (Ben-Asher & Feitelson's constructs); its other points ran on a current-thread runtime.
const TOKIO_POOL_EXPERIMENTS: [&str; 7] = [
    overhead_schema::experiments::sched::YIELD,
    overhead_schema::experiments::sched::BROADCAST,
    overhead_schema::experiments::spawn::FORKJOIN,
    overhead_schema::experiments::spawn::REMOTE,
    overhead_schema::experiments::spawn::BULK,
    overhead_schema::experiments::grain::SWEEP,
    overhead_schema::experiments::sync::OVERSUB,
];

/// The `flavor:` value a point of `experiment` by `runtime` measured before points named it: tokio's
/// multi-thread pool for [`TOKIO_POOL_EXPERIMENTS`], its current-thread runtime for the rest. `None` for a
/// runtime without flavors.
pub fn implied_flavor(experiment: &str, runtime: &str) -> Option<&'static str> {
    use overhead_schema::runtimes::{TokioFlavor, TOKIO};
    (runtime == TOKIO).then(|| {
        let flavor = if TOKIO_POOL_EXPERIMENTS.contains(&experiment) {
            TokioFlavor::MultiThread
        } else {
            TokioFlavor::CurrentThread
        };
        flavor.name()
    })
}

/// Gives `spec` today's experiment ID, the `impl:` key it would have today when it is a message row written
/// before the key existed, and the `flavor:` it measured when it is a tokio point written before flavors were
/// named (each first, as the plan puts them: `flavor:` then `impl:`).
pub fn upgrade_spec(spec: &mut PointSpec) {
    // Records written before the placement was parsed once kept the topology's relation of the first two
    // CPUs beside a `placement:` that could say otherwise (`other_host`, `free`).
    spec.settle_placement();
    let current = current_experiment_id(&spec.experiment);
    if current != spec.experiment {
        spec.experiment = current.to_string();
    }
    if spec.param("impl").is_none() {
        if let Some(implementation) = implied_impl(&spec.experiment, &spec.runtime) {
            spec.params.insert(0, ("impl".into(), implementation.into()));
        }
    }
    if spec.param(overhead_schema::runtimes::FLAVOR_KEY).is_none() {
        if let Some(flavor) = implied_flavor(&spec.experiment, &spec.runtime) {
            spec.params.insert(0, (overhead_schema::runtimes::FLAVOR_KEY.into(), flavor.into()));
        }
    }
}

/// A point name (`experiment/runtime:R/key:value/…`) as [`upgrade_spec`] would make it: unchanged unless its
/// experiment was renamed, it is a message row without `impl:`, or a tokio point without `flavor:`.
pub fn upgrade_name(name: &str) -> String {
    if let Some((experiment, rest)) = name.split_once('/') {
        let current = current_experiment_id(experiment);
        if current != experiment {
            return upgrade_name(&format!("{current}/{rest}"));
        }
    }
    let mut parts = name.splitn(3, '/');
    let (Some(experiment), Some(runtime)) = (parts.next(), parts.next()) else { return name.to_string() };
    let Some(runtime_name) = runtime.strip_prefix("runtime:") else { return name.to_string() };
    let mut params: Vec<&str> = parts.next().map(|rest| rest.split('/').collect()).unwrap_or_default();
    let has = |params: &[&str], key: &str| params.iter().any(|kv| kv.split_once(':').is_some_and(|(k, _)| k == key));
    let implied = implied_impl(experiment, runtime_name).map(|i| format!("impl:{i}"));
    if let Some(implementation) = implied.as_deref().filter(|_| !has(&params, "impl")) {
        params.insert(0, implementation);
    }
    let flavor =
        implied_flavor(experiment, runtime_name).map(|f| format!("{}:{f}", overhead_schema::runtimes::FLAVOR_KEY));
    if let Some(flavor) = flavor.as_deref().filter(|_| !has(&params, overhead_schema::runtimes::FLAVOR_KEY)) {
        params.insert(0, flavor);
    }
    std::iter::once(experiment).chain(std::iter::once(runtime)).chain(params).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(experiment: &str, runtime: &str, params: &[(&str, &str)]) -> PointSpec {
        crate::fixture::spec(experiment, runtime, params, &[0, 0])
    }

    /// An older message row gains its runtime's own `impl:` first, and its name is today's name; a point
    /// that has `impl:`, and every other experiment, is left as it is.
    #[test]
    fn older_message_rows_read_as_their_runtimes_own_channel() {
        let mut old = spec("msg.switch", "os", &[("placement", "same_cpu")]);
        let old_name = old.name();
        upgrade_spec(&mut old);
        assert_eq!(old.name(), "msg.switch/runtime:os/impl:std_mpsc/placement:same_cpu");
        assert_eq!(upgrade_name(&old_name), old.name());
        assert_eq!(
            upgrade_name("msg.async/runtime:tokio"),
            "msg.async/runtime:tokio/flavor:current_thread/impl:tokio_mpsc"
        );
        assert_eq!(
            upgrade_name("msg.async/runtime:java-virtual"),
            "msg.async/runtime:java-virtual/impl:linked_transfer_queue"
        );

        let mut new = spec("msg.switch", "os", &[("impl", "crossbeam"), ("placement", "same_cpu")]);
        let before = new.clone();
        upgrade_spec(&mut new);
        assert_eq!(new, before);
        assert_eq!(upgrade_name(&new.name()), new.name());

        for name in ["msg.call/runtime:os/new_task:yes", "sync.mutex/runtime:os/lock:std/threads:1", "nonsense"] {
            assert_eq!(upgrade_name(name), name);
        }
        assert_eq!(upgrade_name("msg.async/runtime:some-new-runtime"), "msg.async/runtime:some-new-runtime");
    }

    /// An older tokio point reads under the flavor it ran on: the constructs on the multi-thread pool, the rest on
    /// a current-thread runtime; by spec and by name alike, and a point that names its flavor is left alone.
    #[test]
    fn older_tokio_points_read_as_the_flavor_they_ran_on() {
        let mut old = spec("spawn.forkjoin", "tokio", &[("mechanism", "spawn"), ("threads", "1")]);
        let old_name = old.name();
        upgrade_spec(&mut old);
        assert_eq!(old.name(), "spawn.forkjoin/runtime:tokio/flavor:multi_thread/mechanism:spawn/threads:1");
        assert_eq!(upgrade_name(&old_name), old.name());
        assert_eq!(upgrade_name("sync.sem/runtime:tokio/op:p"), "sync.sem/runtime:tokio/flavor:current_thread/op:p");
        assert_eq!(upgrade_name("base.loop/runtime:tokio"), "base.loop/runtime:tokio/flavor:current_thread");
        let mut old_row = spec("msg.switch", "tokio", &[("placement", "same_cpu")]);
        let old_row_name = old_row.name();
        upgrade_spec(&mut old_row);
        let today = "msg.switch/runtime:tokio/flavor:current_thread/impl:tokio_mpsc/placement:same_cpu";
        assert_eq!((old_row.name().as_str(), upgrade_name(&old_row_name).as_str()), (today, today));
        let named = "spawn.bulk/runtime:tokio/flavor:current_thread/tasks:1000/threads:1";
        assert_eq!(upgrade_name(named), named);
        assert_eq!(upgrade_name("sync.sem/runtime:smol/op:p"), "sync.sem/runtime:smol/op:p");
    }

    /// A renamed experiment's points read under today's ID, by spec and by name; its parameters stay.
    #[test]
    fn a_renamed_experiment_reads_under_todays_id() {
        let mut old = spec("clock.skew", "os", &[]);
        upgrade_spec(&mut old);
        assert_eq!(old.name(), "clock.offset/runtime:os");
        assert_eq!(upgrade_name("clock.skew/runtime:os"), "clock.offset/runtime:os");
        assert_eq!(
            upgrade_name("clock.skew/runtime:os/placement:same_cpu"),
            "clock.offset/runtime:os/placement:same_cpu"
        );
        assert_eq!(current_experiment_id("clock.skew"), "clock.offset");
        assert_eq!(current_experiment_id("clock.rate"), "clock.rate");
        assert_eq!(upgrade_name("clock.skewed/runtime:os"), "clock.skewed/runtime:os");
    }
}
