//! Choosing experiments and runtimes from the command line, and expanding them into points.

use overhead_experiments::{families, registry, Experiment, PlanContext, Planned};
use overhead_runtime_api::{missing, RuntimeUnderTest};
use overhead_runtime_registry as runtimes;

/// The experiments selected by `--only` (IDs or families; an experiment's ID before a rename selects it too,
/// `overhead_record::legacy::RENAMED_EXPERIMENTS`); all when `only` is empty.
///
/// Errors: a name that is neither an ID nor a family, with the closest valid names.
pub fn select_experiments(only: &[String]) -> Result<Vec<&'static dyn Experiment>, String> {
    if only.is_empty() {
        return Ok(registry().to_vec());
    }
    let only: Vec<String> =
        only.iter().map(|name| overhead_record::legacy::current_experiment_id(name).to_string()).collect();
    for name in &only {
        let known = registry().iter().any(|e| e.id() == name) || families().contains(&name.as_str());
        if !known {
            return Err(format!("unknown experiment or family {name:?}; {}", closest(name)));
        }
    }
    Ok(registry()
        .iter()
        .copied()
        .filter(|e| only.iter().any(|o| e.id() == o || e.id().split('.').next() == Some(o.as_str())))
        .collect())
}

/// "did you mean …" for an unknown name: the three valid IDs or families nearest by edit distance.
fn closest(name: &str) -> String {
    let mut candidates: Vec<&str> = registry().iter().map(|e| e.id()).chain(families()).collect();
    candidates.sort_by(|a, b| {
        let da = strsim::damerau_levenshtein(name, a);
        let db = strsim::damerau_levenshtein(name, b);
        da.cmp(&db).then(a.cmp(b))
    });
    format!("closest valid IDs: {} (see `overhead list`)", candidates[..3.min(candidates.len())].join(", "))
}

/// The runtimes `--runtime` names, in the order given (a runtime with flavors: every flavor); the registry's
/// default ones when it names none.
///
/// Errors: a name no runtime in the registry has, with the known names.
pub fn select_runtimes(names: &[String]) -> Result<Vec<&'static dyn RuntimeUnderTest>, String> {
    if names.is_empty() {
        return Ok(runtimes::default_run());
    }
    let mut selected = Vec::new();
    for name in names {
        let entries = runtimes::find_all(name);
        if entries.is_empty() {
            return Err(format!("unknown runtime {name:?}; known runtimes: {}", runtimes::names().join(", ")));
        }
        selected.extend(entries);
    }
    Ok(selected)
}

/// Every point of every selected experiment for every selected runtime, in run order. A runtime that has
/// every capability the experiment requires gets its points, or one skipped point when it is not available
/// here. When the user named the runtimes (`explicit`), a runtime lacking a capability gives one skipped
/// point with the runtime's reason, never a silent gap; with the default runtimes, nothing is listed. A
/// `--quick` run of the default runtimes skips those launched as MPI ranks, with [`QUICK_LEAVES_RANKS`].
pub fn build_plan(
    experiments: &[&dyn Experiment],
    runtimes: &[&dyn RuntimeUnderTest],
    explicit: bool,
    ctx: &PlanContext,
) -> Vec<Planned> {
    build_plan_where(experiments, runtimes, explicit, ctx, &|runtime| runtime.available())
}

/// [`build_plan`] for a machine where `available` says whether a runtime is available (Err: why not), not
/// necessarily this one: the simulation plans a described machine with the runtimes a recorded run had.
pub fn build_plan_where(
    experiments: &[&dyn Experiment],
    runtimes: &[&dyn RuntimeUnderTest],
    explicit: bool,
    ctx: &PlanContext,
    available: &dyn Fn(&dyn RuntimeUnderTest) -> Result<(), String>,
) -> Vec<Planned> {
    let mut plan = Vec::new();
    for e in experiments {
        for runtime in runtimes {
            let skip = |reason: String| Planned::Skip(ctx.spec(e.id(), *runtime, &[], vec![ctx.home_cpu()]), reason);
            let refused = || runtime.refuses(e.id()).map(|why| format!("runtime {}: {why}", runtime.name()));
            match (missing(*runtime, e.requires()).or_else(refused), available(*runtime)) {
                (None, Ok(())) if leaves_out(ctx, *runtime, explicit) => plan.push(skip(QUICK_LEAVES_RANKS.into())),
                (None, Ok(())) => plan.extend(e.points(ctx, *runtime)),
                (None, Err(reason)) => {
                    plan.push(skip(format!("runtime {} is not available here: {reason}", runtime.name())))
                }
                // A flavor lacking what another selected flavor of its runtime has leaves no cell: the
                // runtime measures the experiment, in its other flavor.
                (Some(_), _) if another_flavor_runs(*runtime, runtimes, e.requires()) => {}
                (Some(reason), _) if explicit => plan.push(skip(reason)),
                (Some(_), _) => {}
            }
        }
    }
    plan
}

/// Why a `--quick` run of the default runtimes has no point of a runtime launched as MPI ranks: each of its
/// processes is a launch (`mpirun`, `MPI_Init`: 0.1 s of a 0.14 s process on 2 vCPUs, a quarter second on
/// 16 CPUs), and on 16 CPUs the seven launches were a sixth of quick's round, which three rounds in its
/// half-minute leave no room for (docs/METHOD.md §9a). Naming the runtime measures them.
pub const QUICK_LEAVES_RANKS: &str =
    "--quick leaves out runtimes launched as MPI ranks (a launch a process); run without --quick, or name --runtime mpi";

/// Whether the plan leaves `runtime` out ([`QUICK_LEAVES_RANKS`]): a `--quick` run of the default runtimes
/// (not `explicit`) and a runtime whose points run as MPI ranks.
fn leaves_out(ctx: &PlanContext, runtime: &dyn RuntimeUnderTest, explicit: bool) -> bool {
    ctx.mode == overhead_schema::Mode::Quick && !explicit && runtime.launched_as_ranks()
}

/// Whether another of `selected` is a flavor of `runtime`'s runtime that has every capability of `requires`.
fn another_flavor_runs(
    runtime: &dyn RuntimeUnderTest,
    selected: &[&dyn RuntimeUnderTest],
    requires: &[overhead_runtime_api::Capability],
) -> bool {
    runtime.flavor().is_some()
        && selected.iter().any(|other| {
            other.name() == runtime.name() && other.flavor() != runtime.flavor() && missing(*other, requires).is_none()
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_harness::Mode;
    use overhead_machine::Topology;
    use overhead_runtime_api::yield_round::YieldLimits;
    use overhead_runtime_api::{Capability, Offer, Offers};
    use overhead_runtime_async::smol_rt::Smol;

    #[test]
    fn unknown_id_gets_closest_names() {
        let err = select_experiments(&["sync.fa".into()]).err().unwrap();
        assert!(err.contains("sync.faa"), "{err}");
    }

    #[test]
    fn family_selects_all_its_experiments() {
        let renamed = select_experiments(&["clock.skew".into()]).unwrap();
        assert_eq!(renamed.iter().map(|e| e.id()).collect::<Vec<_>>(), ["clock.offset"], "an ID from before a rename");
        let picked = select_experiments(&["base".into()]).unwrap();
        let ids: Vec<&str> = picked.iter().map(|e| e.id()).collect();
        assert_eq!(ids, ["base.loop", "base.call", "base.syscall"]);
    }

    #[test]
    fn unknown_runtime_is_refused() {
        let picked = select_runtimes(&["tokio".into(), "os".into()]).unwrap();
        let names: Vec<(&str, Option<&str>)> = picked.iter().map(|r| (r.name(), r.flavor())).collect();
        assert_eq!(
            names,
            [("tokio", Some("current_thread")), ("tokio", Some("multi_thread")), ("os", None)],
            "a runtime with flavors is every flavor"
        );
        assert!(select_runtimes(&["pthreads".into()]).err().unwrap().contains("known runtimes"));
    }

    #[test]
    fn the_default_runtimes_are_the_built_ones() {
        let names: Vec<&str> = select_runtimes(&[]).unwrap().iter().map(|r| r.name()).collect();
        assert!(names.contains(&"os") && names.contains(&"fiber-asm"), "{names:?}");
        assert!(!names.contains(&"go"), "{names:?}");
    }

    /// `--quick` with the default runtimes skips MPI's ranks, each cell with the reason; naming the runtime, or
    /// the default mode, measures them.
    #[test]
    fn quick_leaves_out_ranks_unless_the_runtime_is_named() {
        let mpi = select_runtimes(&["mpi".into()]).unwrap();
        let experiments = select_experiments(&["mpi.pingpong".into()]).unwrap();
        let plan = |mode, explicit| {
            let ctx = PlanContext { mode, ..context() };
            build_plan_where(&experiments, &mpi, explicit, &ctx, &|_| Ok(()))
        };
        let quick = plan(Mode::Quick, false);
        assert!(!quick.is_empty());
        assert!(quick.iter().all(|p| matches!(p, Planned::Skip(_, why) if why == QUICK_LEAVES_RANKS)), "{quick:?}");
        for (mode, explicit) in [(Mode::Quick, true), (Mode::Default, false)] {
            assert!(plan(mode, explicit).iter().any(|p| matches!(p, Planned::Run(_))), "{mode:?} {explicit}");
        }
    }

    /// A runtime made up for the test: it has only `yield`, and says why it lacks everything else.
    struct YieldOnly;

    const YIELD_ONLY_REASON: &str = "the test runtime implements yield and nothing else";

    /// What it offers: a yield round at every load, nothing else.
    const YIELD_ONLY_OFFERS: Offers =
        Offers { yield_round: Offer::Has(YieldLimits::NONE), ..Offers::lacking(YIELD_ONLY_REASON) };

    impl RuntimeUnderTest for YieldOnly {
        fn name(&self) -> &'static str {
            "yield-only"
        }
        fn about(&self) -> &'static str {
            "a test runtime"
        }
        fn offers(&self) -> &Offers {
            &YIELD_ONLY_OFFERS
        }
    }

    fn context() -> PlanContext {
        PlanContext { cpus: vec![0, 1], topology: Topology::detect(), mode: Mode::Quick, hosts: Vec::new() }
    }

    #[test]
    fn a_new_runtime_gets_cells_where_it_has_the_capability_and_its_reason_elsewhere() {
        let plan = build_plan(registry(), &[&YieldOnly], true, &context());
        for e in registry() {
            let cells: Vec<&Planned> = plan
                .iter()
                .filter(|p| matches!(p, Planned::Run(s) | Planned::Skip(s, _) if s.experiment == e.id()))
                .collect();
            assert!(!cells.is_empty(), "{} has no cell for the new runtime", e.id());
            if e.requires() == [Capability::Yield] {
                assert!(cells.iter().all(|p| matches!(p, Planned::Run(s) if s.runtime == "yield-only")), "{cells:?}");
            } else {
                let [Planned::Skip(spec, reason)] = cells.as_slice() else { panic!("{}: {cells:?}", e.id()) };
                assert_eq!(spec.runtime, "yield-only");
                assert!(reason.contains(YIELD_ONLY_REASON) && reason.contains("yield-only"), "{reason}");
            }
        }
        assert!(plan.iter().any(|p| matches!(p, Planned::Run(s) if s.experiment == "sched.yield")));
    }

    #[test]
    fn without_naming_it_a_runtime_lacking_a_capability_leaves_no_cell() {
        let plan = build_plan(registry(), &[&YieldOnly], false, &context());
        assert!(plan.iter().all(|p| matches!(p, Planned::Run(s) if s.experiment == "sched.yield")), "{plan:?}");
    }

    #[test]
    fn every_built_in_experiment_has_a_runtime_and_every_runtime_a_reason_for_what_it_lacks() {
        for e in registry() {
            let runs = runtimes::registry().iter().filter(|r| missing(**r, e.requires()).is_none()).count();
            assert!(runs > 0, "no runtime has what {} requires", e.id());
        }
        for r in runtimes::registry() {
            for e in registry() {
                if let Some(reason) = missing(*r, e.requires()) {
                    assert!(reason.len() > r.name().len() + 20, "{}: {reason}", r.name());
                }
            }
        }
    }

    /// `--runtime smol` gets points for every experiment whose capabilities smol offers, and one skipped
    /// cell with smol's reason for every other.
    /// Naming tokio selects both flavors; where one flavor has what the other lacks, the runtime measures it
    /// and no cell says the other lacks it; where both lack it, both say so.
    #[test]
    fn a_flavor_lacking_what_the_other_has_leaves_no_cell() {
        let tokio = select_runtimes(&["tokio".into()]).unwrap();
        let plan = build_plan(registry(), &tokio, true, &context());
        let skipped: Vec<String> = plan
            .iter()
            .filter_map(|p| match p {
                Planned::Skip(s, _) => Some(s.name()),
                Planned::Run(_) => None,
            })
            .collect();
        assert!(!skipped.contains(&"msg.async/runtime:tokio/flavor:multi_thread".to_string()), "{skipped:?}");
        assert!(!skipped.contains(&"sched.broadcast/runtime:tokio/flavor:current_thread".to_string()), "{skipped:?}");
        assert!(skipped.contains(&"sync.faa/runtime:tokio/flavor:current_thread".to_string()), "{skipped:?}");
        assert!(skipped.contains(&"sync.faa/runtime:tokio/flavor:multi_thread".to_string()), "{skipped:?}");
    }

    #[test]
    fn named_smol_gets_cells_for_every_capability_it_offers() {
        let ctx = PlanContext { cpus: vec![0, 1], topology: Topology::detect(), mode: Mode::Quick, hosts: Vec::new() };
        let experiments = overhead_experiments::registry();
        let plan = build_plan(experiments, &[&Smol], true, &ctx);
        let mut ran = 0;
        for e in experiments {
            let cells: Vec<&Planned> = plan
                .iter()
                .filter(|p| matches!(p, Planned::Run(s) | Planned::Skip(s, _) if s.experiment == e.id()))
                .collect();
            if missing(&Smol, e.requires()).is_none() {
                assert!(
                    !cells.is_empty() && cells.iter().all(|p| matches!(p, Planned::Run(s) if s.runtime == "smol")),
                    "{}: {cells:?}",
                    e.id()
                );
                ran += 1;
            } else {
                let [Planned::Skip(spec, reason)] = cells.as_slice() else { panic!("{}: {cells:?}", e.id()) };
                assert!(spec.runtime == "smol" && reason.contains("smol"), "{reason}");
            }
        }
        // Souvatzis's rows, yield, wake-all, fork-join, bulk, remote, the sweep and the activity barrier at least.
        assert!(ran >= 14, "{ran}");
    }
}
