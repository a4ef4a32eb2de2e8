//! What the experiments need to know about the machine to choose their points.

use serde::Serialize;

use overhead_harness::Mode;
use overhead_machine::{Placement, Topology};
use overhead_record::PointSpec;
use overhead_runtimes::RuntimeUnderTest;

/// A point to run, or one that cannot run here and why.
#[derive(Debug, Clone, PartialEq)]
pub enum Planned {
    Run(PointSpec),
    Skip(PointSpec, String),
}

/// The machine and settings a plan is made for.
#[derive(Debug, Clone)]
pub struct PlanContext {
    /// CPUs the run may use (allowed by affinity and `--cpus`), sorted.
    pub cpus: Vec<usize>,
    pub topology: Topology,
    pub mode: Mode,
    /// The hosts of a run across hosts (`--hosts`), host 0 this machine; empty for a run on this machine
    /// alone. Experiments that can span hosts add their `placement:other_host` points when there are two
    /// or more ([`PlanContext::other_host_pair`]).
    pub hosts: Vec<String>,
}

impl PlanContext {
    /// The CPU single-thread points run on.
    pub fn home_cpu(&self) -> usize {
        self.cpus[0]
    }

    /// A spec of `runtime` with the given parameters on the given CPUs.
    pub fn spec(
        &self,
        experiment: &str,
        runtime: &dyn RuntimeUnderTest,
        params: &[(&str, String)],
        cpus: Vec<usize>,
    ) -> PointSpec {
        PointSpec {
            experiment: experiment.into(),
            runtime: runtime.name().into(),
            params: params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            placement: (cpus.len() >= 2).then(|| self.topology.placement(cpus[0], cpus[1])),
            cpus,
            hosts: Vec::new(),
        }
    }

    /// A spec of `runtime` with the typed parameters `params` (encoded in field order,
    /// [`overhead_record::params`]) on the given CPUs.
    pub fn spec_of<P: Serialize>(
        &self,
        experiment: &str,
        runtime: &dyn RuntimeUnderTest,
        params: &P,
        cpus: Vec<usize>,
    ) -> PointSpec {
        let mut spec = self.spec(experiment, runtime, &[], cpus);
        spec.params = overhead_record::params::encode(params);
        spec
    }

    /// The one point of an experiment without parameters, on the home CPU.
    pub fn single(&self, experiment: &str, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
        vec![Planned::Run(self.spec(experiment, runtime, &[], vec![self.home_cpu()]))]
    }

    /// The one two-party point of an experiment whose parties share the home CPU (the runtimes of Souvatzis's
    /// table run on one thread; `os` pins both threads there), with `placement:same_cpu` last.
    pub fn same_cpu_pair<P: Serialize>(
        &self,
        experiment: &str,
        runtime: &dyn RuntimeUnderTest,
        params: &P,
    ) -> Vec<Planned> {
        let home = self.home_cpu();
        let spec = self.spec_of(experiment, runtime, params, vec![home, home]);
        vec![Planned::Run(with_placement(spec, Placement::SameCpu))]
    }

    /// Two-party points: the same CPU, and one partner CPU for each kind of placement this machine has
    /// among the usable CPUs (SMT sibling, other core, other NUMA node, other package). On a machine
    /// with one usable CPU the "other CPU" point is skipped with the reason.
    pub fn pair_points<P: Serialize>(
        &self,
        experiment: &str,
        runtime: &dyn RuntimeUnderTest,
        params: &P,
    ) -> Vec<Planned> {
        let home = self.home_cpu();
        let on = |cpus: Vec<usize>, placement: Placement| {
            with_placement(self.spec_of(experiment, runtime, params, cpus), placement)
        };
        let mut out = vec![Planned::Run(on(vec![home, home], Placement::SameCpu))];
        let others = [Placement::SmtSibling, Placement::OtherCore, Placement::OtherNumaNode, Placement::OtherPackage];
        let mut any_other = false;
        for placement in others {
            if let Some(partner) = self.topology.partner(home, placement, &self.cpus) {
                any_other = true;
                out.push(Planned::Run(on(vec![home, partner], placement)));
            }
        }
        if !any_other {
            let mut spec = on(vec![home], Placement::OtherCore);
            spec.placement = Some(Placement::OtherCore);
            out.push(Planned::Skip(spec, format!("needs a second usable CPU; this run may use only CPU {home}")));
        }
        out
    }

    /// The point of a two-party experiment with its parties on different hosts (`placement:other_host`,
    /// last parameter): rank 0 on host 0 (this machine), rank 1 on host 1. `None` when the run names fewer
    /// than two hosts. The two ranks get different CPU numbers whenever this machine allows two: the
    /// "hosts" may be namespaces or containers of one machine, where the same number is the same CPU, and
    /// two ranks on one CPU measure the time slice. With one usable CPU both use it, and the
    /// ranks refuse the point at run time if they turn out to share a machine
    /// (`orchestrator::ranks::where_ranks_run`).
    pub fn other_host_pair<P: Serialize>(
        &self,
        experiment: &str,
        runtime: &dyn RuntimeUnderTest,
        params: &P,
    ) -> Option<Planned> {
        let [first, second, ..] = self.hosts.as_slice() else { return None };
        let cpus = self.other_host_cpus();
        let mut spec = with_placement(self.spec_of(experiment, runtime, params, cpus), Placement::OtherHost);
        spec.placement = Some(Placement::OtherHost);
        spec.hosts = vec![first.clone(), second.clone()];
        Some(Planned::Run(spec))
    }

    /// The CPUs of a two-rank point across hosts: the home CPU for rank 0, and the next usable CPU for rank 1
    /// (the home CPU again only when it is the only one).
    pub fn other_host_cpus(&self) -> Vec<usize> {
        let home = self.home_cpu();
        vec![home, self.cpus.iter().copied().find(|&c| c != home).unwrap_or(home)]
    }

    /// Thread counts for team experiments, from `min` to the usable CPU count: `min`, 2 and every usable
    /// CPU (every count in `--full`), so a default run's size does not grow with the machine.
    pub fn thread_counts(&self, min: usize) -> Vec<usize> {
        let max = self.cpus.len();
        let mut counts: Vec<usize> = match self.mode {
            overhead_harness::Mode::Full => (min..=max).collect(),
            _ => [min, 2, max].into_iter().filter(|&t| t >= min && t <= max).collect(),
        };
        counts.dedup();
        counts
    }

    /// Thread counts for a curve against the number of threads (Ben-Asher & Feitelson 1991 Fig. 1–2): `min`, then doubling
    /// (2, 4, 8, …) and the usable CPU count last, so 256 CPUs give 10 counts; every count in `--full`.
    pub fn thread_ladder(&self, min: usize) -> Vec<usize> {
        let max = self.cpus.len();
        if self.mode == overhead_harness::Mode::Full {
            return (min..=max).collect();
        }
        let mut counts: Vec<usize> = std::iter::once(min)
            .chain(std::iter::successors(Some(1usize), |k| k.checked_mul(2)).take_while(|&k| k < max))
            .chain(std::iter::once(max))
            .filter(|&k| k >= min && k <= max)
            .collect();
        counts.sort_unstable();
        counts.dedup();
        counts
    }

    /// `threads` CPUs for a team: one per physical core first, then SMT siblings, so that T threads
    /// share hardware only when T exceeds the cores.
    pub fn team_cpus(&self, threads: usize) -> Vec<usize> {
        let mut firsts = Vec::new();
        let mut rest = Vec::new();
        let mut seen_cores = Vec::new();
        for &cpu in &self.cpus {
            let core = self.topology.cpu(cpu).map(|c| (c.package, c.core));
            if core.is_some() && seen_cores.contains(&core) {
                rest.push(cpu);
            } else {
                seen_cores.push(core);
                firsts.push(cpu);
            }
        }
        firsts.into_iter().chain(rest).take(threads).collect()
    }
}

/// `spec` with `placement:NAME` appended to its parameters.
fn with_placement(mut spec: PointSpec, placement: Placement) -> PointSpec {
    spec.params.push(("placement".into(), serde_plain(placement)));
    spec
}

/// The serde string of a placement (`same_cpu`, `other_core`, …), used as a parameter value.
pub fn serde_plain(placement: Placement) -> String {
    serde_json::to_value(placement).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A context with CPUs 0 and 1 on this machine's topology (a CPU missing here is "other core"),
    /// for tests of experiments' plans that must not depend on the machine's CPU count.
    pub fn two_cpu_context(mode: Mode) -> PlanContext {
        PlanContext { cpus: vec![0, 1], topology: Topology::detect(), mode, hosts: Vec::new() }
    }

    /// A context with CPUs 0 to `n - 1` on this machine's topology.
    fn ctx(n: usize, mode: Mode) -> PlanContext {
        PlanContext { cpus: (0..n).collect(), topology: Topology::detect(), mode, hosts: Vec::new() }
    }

    #[test]
    fn thread_counts_are_one_two_and_all_but_in_full() {
        assert_eq!(ctx(16, Mode::Default).thread_counts(1), vec![1, 2, 16]);
        assert_eq!(ctx(1, Mode::Quick).thread_counts(1), vec![1]);
        assert_eq!(ctx(4, Mode::Default).thread_counts(2), vec![2, 4]);
        assert_eq!(ctx(3, Mode::Full).thread_counts(1), vec![1, 2, 3]);
        assert!(ctx(1, Mode::Default).thread_counts(2).is_empty());
    }

    #[test]
    fn the_thread_ladder_doubles_to_every_cpu_but_in_full() {
        assert_eq!(ctx(256, Mode::Default).thread_ladder(1), vec![1, 2, 4, 8, 16, 32, 64, 128, 256]);
        assert_eq!(ctx(12, Mode::Quick).thread_ladder(1), vec![1, 2, 4, 8, 12]);
        assert_eq!(ctx(12, Mode::Default).thread_ladder(2), vec![2, 4, 8, 12]);
        assert_eq!(ctx(2, Mode::Default).thread_ladder(1), vec![1, 2]);
        assert_eq!(ctx(1, Mode::Default).thread_ladder(1), vec![1]);
        assert!(ctx(1, Mode::Default).thread_ladder(2).is_empty());
        assert_eq!(ctx(5, Mode::Full).thread_ladder(1), vec![1, 2, 3, 4, 5]);
    }

    /// Across hosts, the two ranks of a pair never get one CPU number while the machine has two, whatever
    /// the CPU list; without a second host there is no such point.
    #[test]
    fn other_host_pairs_put_their_ranks_on_different_cpus() {
        #[derive(serde::Serialize)]
        struct Params {
            payload: usize,
        }
        let (os, params) = (&overhead_runtimes::os::Os, &Params { payload: 8 });
        let mut ctx = two_cpu_context(Mode::Default);
        assert_eq!(ctx.other_host_pair("msg.ipc", os, params), None);
        ctx.hosts = vec!["a".into(), "b".into(), "c".into()];
        for cpus in [vec![0, 1], vec![5, 2, 7], vec![3, 3, 4]] {
            ctx.cpus = cpus;
            let Some(Planned::Run(spec)) = ctx.other_host_pair("msg.ipc", os, params) else { panic!("no point") };
            assert_ne!(spec.cpus[0], spec.cpus[1], "{:?}", ctx.cpus);
            assert_eq!(spec.hosts, ["a", "b"]);
            assert_eq!(spec.placement, Some(Placement::OtherHost));
            assert_eq!(spec.param("placement"), Some("other_host"));
        }
        ctx.cpus = vec![4];
        assert_eq!(ctx.other_host_cpus(), [4, 4], "one CPU: both use it, checked at run time");
    }

    #[test]
    fn two_cpu_context_plans_teams_of_both_cpus() {
        let ctx = two_cpu_context(Mode::Default);
        assert_eq!(ctx.thread_counts(1), vec![1, 2]);
        let mut team = ctx.team_cpus(2);
        team.sort_unstable();
        assert_eq!(team, vec![0, 1]);
    }
}
