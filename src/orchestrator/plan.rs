//! Choosing experiments and runtimes from the command line, and expanding them into points.

use crate::experiments::{families, registry, Experiment, PlanContext, Planned};
use crate::runtimes::{Runtime, KNOWN};

/// The experiments selected by `--only` (IDs or families); all when `only` is empty.
///
/// Errors: a name that is neither an ID nor a family, with the closest valid names.
pub fn select_experiments(only: &[String]) -> Result<Vec<&'static dyn Experiment>, String> {
    if only.is_empty() {
        return Ok(registry().to_vec());
    }
    for name in only {
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

/// Checks `--runtime` names against DESIGN.md's list.
///
/// Errors: an unknown runtime name, with the known ones.
pub fn validate_runtimes(runtimes: &[String]) -> Result<(), String> {
    for r in runtimes {
        if !KNOWN.contains(&r.as_str()) {
            return Err(format!("unknown runtime {r:?}; known runtimes: {}", KNOWN.join(", ")));
        }
    }
    Ok(())
}

/// Every point of every selected experiment for every selected runtime, in run order. When the user
/// named the runtimes (`explicit`), a runtime that an experiment does not implement gives one skipped
/// point saying so, never a silent gap; with the default runtimes, each experiment runs on those it
/// implements and nothing else is listed.
pub fn build_plan(
    experiments: &[&dyn Experiment],
    runtimes: &[String],
    explicit: bool,
    ctx: &PlanContext,
) -> Vec<Planned> {
    let mut plan = Vec::new();
    for e in experiments {
        for runtime in runtimes {
            let unavailable = match Runtime::parse(runtime) {
                Some(Runtime::Fiber(backend)) => backend.available().err(),
                Some(Runtime::OpenMp) => crate::runtimes::openmp::available().err(),
                _ => None,
            };
            if let (true, Some(reason)) = (e.runtimes().contains(&runtime.as_str()), unavailable) {
                let spec = ctx.spec(e.id(), runtime, &[], vec![ctx.home_cpu()]);
                plan.push(Planned::Skip(spec, format!("runtime {runtime} is not available here: {reason}")));
            } else if e.runtimes().contains(&runtime.as_str()) {
                plan.extend(e.points(ctx, runtime));
            } else if explicit {
                let spec = ctx.spec(e.id(), runtime, &[], vec![ctx.home_cpu()]);
                let reason = format!("runtime {runtime} does not implement {} in this build", e.id());
                plan.push(Planned::Skip(spec, reason));
            }
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_id_gets_closest_names() {
        let err = select_experiments(&["sync.fa".into()]).err().unwrap();
        assert!(err.contains("sync.faa"), "{err}");
    }

    #[test]
    fn family_selects_all_its_experiments() {
        let picked = select_experiments(&["base".into()]).unwrap();
        let ids: Vec<&str> = picked.iter().map(|e| e.id()).collect();
        assert_eq!(ids, ["base.loop", "base.call", "base.syscall"]);
    }

    #[test]
    fn unknown_runtime_is_refused() {
        assert!(validate_runtimes(&["os".into(), "tokio".into()]).is_ok());
        assert!(validate_runtimes(&["pthreads".into()]).unwrap_err().contains("known runtimes"));
    }
}
