//! `mem.remote`'s points: one per case, against an isolated reference activity where the CPUs allow, else
//! against the clock; the NUMA rows where the usable CPUs span two nodes.

use super::*;

/// The points: one per case, each with the reference this machine allows, or skipped with the reason.
pub(super) fn plan(
    ctx: &PlanContext,
    experiment: &str,
    runtime: &dyn overhead_runtime_api::RuntimeUnderTest,
) -> Vec<Planned> {
    let cpus = ctx.team_cpus(ctx.cpus.len());
    let n = cpus.len();
    let spec = |case: Case, reference: Reference, cpus: Vec<usize>, pair: Option<(usize, usize)>| {
        let spec = ctx.spec_of(experiment, runtime, &Params { case, reference }, cpus);
        match pair {
            Some((a, b)) => with_placement(spec, ctx.topology.placement(a, b)),
            None => PointSpec { placement: None, ..spec },
        }
    };
    let mut out = Vec::new();
    for case in Case::ALL {
        if matches!(case, Case::NumaLocal | Case::NumaRemote) {
            out.push(numa_point(ctx, case, &cpus, &spec));
            continue;
        }
        let isolated = n >= super::cpus_with_reference(case);
        let reference = if isolated { Reference::Activity } else { Reference::Clock };
        // Thread 0 is A with the study's reference, the measured activity with the clock's.
        let a = usize::from(isolated);
        let planned = match case {
            _ if n == 0 => continue,
            Case::LocalManyRemote if !isolated => Planned::Skip(
                spec(case, Reference::Activity, cpus.clone(), None),
                format!(
                    "needs 4 usable CPUs (the reference, the local activity and at least two remote ones); \
                     this run may use {n}"
                ),
            ),
            _ if n < 2 && case != Case::LocalFree => Planned::Skip(
                spec(case, reference, cpus.clone(), None),
                format!(
                    "needs two usable CPUs ({}); this run may use only CPU {}",
                    if case == Case::RemoteUnused {
                        "the remote activity and the CPU that first touches its line"
                    } else {
                        "a local and a remote activity"
                    },
                    cpus[0]
                ),
            ),
            Case::LocalFree => Planned::Run(spec(case, reference, cpus[..1 + a].to_vec(), None)),
            Case::LocalOneRemote | Case::RemoteUsed | Case::RemoteUnused => {
                let c = cpus[..2 + a].to_vec();
                Planned::Run(spec(case, reference, c.clone(), Some((c[a], c[a + 1]))))
            }
            Case::LocalManyRemote | Case::RemoteHeavy => Planned::Run(spec(case, reference, cpus.clone(), None)),
            Case::NumaLocal | Case::NumaRemote => unreachable!("planned above"),
        };
        out.push(planned);
    }
    out
}

/// Makes a point's spec: case, reference, CPUs, and the two CPUs whose placement it carries.
pub(super) type SpecOf<'a> = dyn Fn(Case, Reference, Vec<usize>, Option<(usize, usize)>) -> PointSpec + 'a;

/// A NUMA row: the walker on the first CPU, the remote buffer's owner on the nearest usable CPU of another
/// node (another package if no other node in this one), or skipped when the usable CPUs span one node.
pub(super) fn numa_point(ctx: &PlanContext, case: Case, cpus: &[usize], spec: &SpecOf) -> Planned {
    let Some(&walker) = cpus.first() else {
        return Planned::Skip(spec(case, Reference::Clock, Vec::new(), None), "no usable CPU".into());
    };
    let owner = [Placement::OtherNumaNode, Placement::OtherPackage]
        .iter()
        .find_map(|&p| ctx.topology.partner(walker, p, &ctx.cpus))
        .filter(|&o| node_of(&ctx.topology, o) != node_of(&ctx.topology, walker));
    match (case, owner) {
        (_, None) => Planned::Skip(
            spec(case, Reference::Clock, vec![walker], None),
            format!(
                "the machine has one NUMA node{}: no remote node to compare with",
                if ctx.topology.numa_nodes > 1 { " among the usable CPUs" } else { "" }
            ),
        ),
        (Case::NumaLocal, Some(_)) => Planned::Run(spec(case, Reference::Clock, vec![walker], None)),
        (_, Some(owner)) => Planned::Run(spec(case, Reference::Clock, vec![walker, owner], Some((walker, owner)))),
    }
}

pub(super) fn node_of(topology: &Topology, cpu: usize) -> Option<usize> {
    topology.cpu(cpu).map(|c| c.numa_node)
}
