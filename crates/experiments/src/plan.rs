//! What the experiments need to know about the machine to choose their points.

use serde::Serialize;

use overhead_harness::Mode;
use overhead_machine::{PairClass, Placement, Topology};
use overhead_record::PointSpec;
use overhead_runtime_api::RuntimeUnderTest;

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

    /// A spec of `runtime` with the given parameters on the given CPUs; a flavor's `flavor:` comes first.
    pub fn spec(
        &self,
        experiment: &str,
        runtime: &dyn RuntimeUnderTest,
        params: &[(&str, String)],
        cpus: Vec<usize>,
    ) -> PointSpec {
        // A flavor names itself first, so that a runtime's flavors never share a point name.
        let flavor = runtime.flavor().map(|f| (overhead_schema::runtimes::FLAVOR_KEY.to_string(), f.to_string()));
        PointSpec {
            experiment: experiment.into(),
            runtime: runtime.id(),
            params: flavor.into_iter().chain(params.iter().map(|(k, v)| (k.to_string(), v.clone()))).collect(),
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
        spec.params.extend(overhead_record::params::encode(params));
        spec.settle_placement();
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
    /// among the usable CPUs (SMT sibling, other core, other NUMA node, other package;
    /// [`PlanContext::placement_partner`]), so their number is bounded by the placements, not the CPUs. On a
    /// machine with one usable CPU the "other CPU" point is skipped with the reason.
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
            if let Some(partner) = self.placement_partner(placement) {
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

    /// [`PlanContext::pair_points`] narrowed to the same CPU and one other CPU: another core when there is
    /// one, else the nearest other placement. For points whose question is not the placement (an RPC's
    /// layers, an MPI payload's bandwidth), so they cost two points, not one per placement class. Skipped
    /// points (one usable CPU) are kept with their reason.
    pub fn nearest_pair_points<P: Serialize>(
        &self,
        experiment: &str,
        runtime: &dyn RuntimeUnderTest,
        params: &P,
    ) -> Vec<Planned> {
        let all = self.pair_points(experiment, runtime, params);
        let runs_at = |p: Placement| all.iter().any(|x| matches!(x, Planned::Run(s) if s.placement == Some(p)));
        let preferred =
            [Placement::OtherCore, Placement::SmtSibling, Placement::OtherNumaNode, Placement::OtherPackage];
        let other = preferred.into_iter().find(|&p| runs_at(p));
        all.into_iter()
            .filter(|x| match x {
                Planned::Run(s) => s.placement == Some(Placement::SameCpu) || s.placement == other,
                Planned::Skip(..) => true,
            })
            .collect()
    }

    /// The two-party points of `span`: [`PlanContext::pair_points`] for [`PairSpan::EveryClass`] and in
    /// `--full`, [`PlanContext::nearest_pair_points`] for [`PairSpan::Nearest`] otherwise.
    pub fn spanned_pair_points<P: Serialize>(
        &self,
        span: PairSpan,
        experiment: &str,
        runtime: &dyn RuntimeUnderTest,
        params: &P,
    ) -> Vec<Planned> {
        match (span, self.mode) {
            (PairSpan::Nearest, Mode::Quick | Mode::Default) => self.nearest_pair_points(experiment, runtime, params),
            _ => self.pair_points(experiment, runtime, params),
        }
    }

    /// Rank counts for MPI collectives: every count from 2 in `--full`; otherwise the two ends of the
    /// machine's scale, 2 ranks and one rank per usable core (MPI ranks poll, so two on the SMT siblings of
    /// one core would measure their competition). A collective's question is what it costs the smallest job
    /// and the whole machine, and a launch of ranks costs a process a quarter of a second, so the levels
    /// between (one L3 domain, one package) are `--full`'s. `--quick` launches the smallest job alone: on 16
    /// cores the whole-machine launches were a twentieth of its round, and its half-minute holds three
    /// processes of every point only without them.
    pub fn rank_counts(&self) -> Vec<usize> {
        if self.mode == Mode::Full {
            return self.thread_counts(2);
        }
        let cores = self.cpus.len() - self.smt_threads_beyond_cores();
        let mut counts: Vec<usize> = self.thread_counts(2).into_iter().filter(|&t| t <= cores).take(1).collect();
        if cores >= 2 && self.mode == Mode::Default && !counts.contains(&cores) {
            counts.push(cores);
        }
        counts
    }

    /// Usable CPUs that are a second (or later) hardware thread of a core another usable CPU is on.
    fn smt_threads_beyond_cores(&self) -> usize {
        let cores: std::collections::BTreeSet<usize> =
            self.cpus.iter().filter_map(|&c| self.topology.cpu(c)).map(|c| c.core).collect();
        let known = self.cpus.iter().filter(|&&c| self.topology.cpu(c).is_some()).count();
        known - cores.len()
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

    /// The partner of the home CPU for a two-party point of `placement`: the lowest usable CPU of that
    /// placement, but for [`Placement::OtherCore`] one that shares the home CPU's last-level cache when there
    /// is one (another core of its L3: the nearest other core, whatever the CPU numbering), else the lowest.
    pub fn placement_partner(&self, placement: Placement) -> Option<usize> {
        let home = self.home_cpu();
        let same_llc = || self.topology.class_partner(home, PairClass::SameLlc, &self.cpus);
        match placement {
            Placement::OtherCore => same_llc().or_else(|| self.topology.partner(home, placement, &self.cpus)),
            _ => self.topology.partner(home, placement, &self.cpus),
        }
    }

    /// The CPUs of a pairwise point (`clock.offset`, `clock.rate`, `mem.c2c`, whose matrix pairs every two of
    /// them): every usable CPU in `--full`; otherwise the home CPU and one CPU of each pair class the machine
    /// has around it ([`Topology::class_representatives`]: SMT sibling, same L3, other L3, other NUMA node,
    /// other package), so the matrix samples every class with at most six CPUs however many the machine has.
    /// Where the topology knows neither CPU, the first two usable CPUs.
    pub fn pairwise_cpus(&self) -> Vec<usize> {
        if self.mode == Mode::Full {
            return self.cpus.clone();
        }
        let home = self.home_cpu();
        let reps = self.topology.class_representatives(home, &self.cpus);
        if reps.is_empty() {
            return self.cpus.iter().copied().take(2).collect();
        }
        std::iter::once(home).chain(reps.into_iter().map(|(_, cpu)| cpu)).collect()
    }

    /// Thread counts for team experiments, from `min` to the usable CPU count: every count in `--full`;
    /// by default `min`, 2, one L3 domain, one package and every usable CPU, where these differ
    /// ([`PlanContext::domain_threads`]), so a run's size grows with the topology's levels, not its CPUs;
    /// in `--quick` the two ends, `min`, 2 and every CPU: on 64 CPUs the levels between made quick's
    /// round 14 s, against the 9 s that three rounds in its half-minute allow (docs/METHOD.md §9a).
    /// [`PlanContext::team_cpus`] puts a team of one L3 domain's or one package's size exactly on it.
    pub fn thread_counts(&self, min: usize) -> Vec<usize> {
        let max = self.cpus.len();
        let mut counts: Vec<usize> = match self.mode {
            Mode::Full => (min..=max).collect(),
            Mode::Quick => [min, 2, max].into_iter().filter(|&t| t >= min && t <= max).collect(),
            _ => {
                let (llc, package) = self.domain_threads();
                [Some(min), Some(2), llc, package, Some(max)]
                    .into_iter()
                    .flatten()
                    .filter(|&t| t >= min && t <= max)
                    .collect()
            }
        };
        counts.sort_unstable();
        counts.dedup();
        counts
    }

    /// The team sizes of the home CPU's domains: the usable cores (one thread each) that share its last-level
    /// cache, and those of its package; `None` where the topology does not know the home CPU or its L3.
    pub fn domain_threads(&self) -> (Option<usize>, Option<usize>) {
        let home = self.home_cpu();
        let Some(info) = self.topology.cpu(home) else { return (None, None) };
        let cores_where = |keep: &dyn Fn(&overhead_machine::CpuInfo) -> bool| {
            let cores: std::collections::BTreeSet<usize> =
                self.cpus.iter().filter_map(|&c| self.topology.cpu(c)).filter(|c| keep(c)).map(|c| c.core).collect();
            cores.len()
        };
        let llc = info.llc.map(|own| cores_where(&|c| c.llc == Some(own)));
        let package = cores_where(&|c| c.package == info.package);
        (llc, Some(package))
    }

    /// Thread counts for a curve against the number of threads (Ben-Asher & Feitelson 1991 Fig. 1–2): every
    /// count in `--full`; otherwise the counts of [`PlanContext::thread_counts`] (1, 2, one L3 domain, one
    /// package, every CPU; `--quick`'s ends), where the curve bends on a machine with levels, so its points follow the
    /// topology, not the CPU count (doubling to 256 CPUs gave 9 counts; these give at most five).
    pub fn thread_ladder(&self, min: usize) -> Vec<usize> {
        self.thread_counts(min)
    }

    /// `threads` CPUs for a team: one per physical core first, then SMT siblings, so that T threads share
    /// hardware only when T exceeds the cores; within each, nearest the home CPU first (its L3, its node,
    /// its package, then the others; by CPU number within a class), so that a team of one L3 domain's size
    /// fills that L3 and one of a package's size that package, whatever the CPU numbering.
    pub fn team_cpus(&self, threads: usize) -> Vec<usize> {
        let home = self.home_cpu();
        let distance = |cpu: usize| -> usize {
            match (cpu == home, self.topology.cpu(cpu), PairClass::of(&self.topology, home, cpu)) {
                (true, ..) => 0,
                (false, Some(_), Some(class)) => 1 + PairClass::ALL.iter().position(|&c| c == class).unwrap_or(0),
                _ => PairClass::ALL.len() + 1,
            }
        };
        let mut by_distance = self.cpus.clone();
        by_distance.sort_by_key(|&cpu| (distance(cpu), cpu));
        let mut firsts = Vec::new();
        let mut rest = Vec::new();
        let mut seen_cores = Vec::new();
        for cpu in by_distance {
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

/// Which placement classes a two-party point is planned at, outside `--full` (which plans every class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairSpan {
    /// One pair of CPUs of every placement class the machine has ([`PlanContext::pair_points`]).
    EveryClass,
    /// The same CPU and the nearest pair of different CPUs only ([`PlanContext::nearest_pair_points`]).
    Nearest,
}

impl PairSpan {
    /// The span of an experiment's `index`-th payload: the first (the smallest, whose time is mostly the path
    /// between the parties, the placement's question) at every class, the larger ones at the nearest pair, so
    /// a payload sweep costs one point per class more, not one per class and payload.
    pub fn first_at_every_class(index: usize) -> PairSpan {
        if index == 0 {
            PairSpan::EveryClass
        } else {
            PairSpan::Nearest
        }
    }
}

/// `spec` with `placement:NAME` appended to its parameters, and as its placement.
pub fn with_placement(mut spec: PointSpec, placement: Placement) -> PointSpec {
    spec.params.push((overhead_schema::placement::PLACEMENT_KEY.into(), placement.name().into()));
    spec.placement = Some(placement);
    spec
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

    /// A context of every CPU of a simulated machine (`overhead_machine::testing::simulated`'s arguments).
    fn simulated_ctx(shape: (usize, usize, usize, usize, usize), mode: Mode) -> PlanContext {
        let topology = overhead_machine::testing::simulated(shape.0, shape.1, shape.2, shape.3, shape.4);
        PlanContext { cpus: topology.cpus.iter().map(|c| c.cpu).collect(), topology, mode, hosts: Vec::new() }
    }

    #[test]
    fn the_thread_ladder_follows_the_levels_but_in_full() {
        // 2 packages × 4 L3 × 8 cores × 2 threads: one L3 is 8 cores, one package 32.
        assert_eq!(simulated_ctx((2, 1, 4, 8, 2), Mode::Default).thread_ladder(1), vec![1, 2, 8, 32, 128]);
        assert_eq!(simulated_ctx((1, 1, 2, 6, 1), Mode::Quick).thread_ladder(1), vec![1, 2, 12], "--quick: the ends");
        assert_eq!(simulated_ctx((1, 1, 2, 6, 1), Mode::Quick).thread_ladder(2), vec![2, 12]);
        assert_eq!(simulated_ctx((1, 1, 2, 6, 1), Mode::Default).thread_ladder(2), vec![2, 6, 12]);
        assert_eq!(ctx(2, Mode::Default).thread_ladder(1), vec![1, 2]);
        assert_eq!(ctx(1, Mode::Default).thread_ladder(1), vec![1]);
        assert!(ctx(1, Mode::Default).thread_ladder(2).is_empty());
        assert_eq!(ctx(5, Mode::Full).thread_ladder(1), vec![1, 2, 3, 4, 5]);
    }

    /// Teams fill the home CPU's L3 before another, one thread per core first, whatever the CPU numbering: on
    /// a two-package machine numbered package by package in turn (even CPUs on package 0), a team of two
    /// stays on package 0.
    #[test]
    fn teams_fill_the_nearest_level_first() {
        let mut ctx = simulated_ctx((2, 1, 1, 4, 1), Mode::Default);
        for info in &mut ctx.topology.cpus {
            info.cpu = if info.package == 0 { 2 * info.core } else { 2 * (info.core - 4) + 1 };
        }
        ctx.topology.cpus.sort_by_key(|c| c.cpu);
        ctx.cpus = (0..8).collect();
        assert_eq!(ctx.team_cpus(2), [0, 2]);
        assert_eq!(ctx.team_cpus(5), [0, 2, 4, 6, 1]);
        assert_eq!(ctx.thread_counts(1), [1, 2, 4, 8]);
        let smt = simulated_ctx((1, 1, 2, 2, 2), Mode::Default);
        assert_eq!(smt.team_cpus(4), [0, 2, 4, 6], "one thread per core first");
        assert_eq!(smt.team_cpus(8), [0, 2, 4, 6, 1, 3, 5, 7]);
        assert_eq!(smt.rank_counts(), [2, 4], "ranks stop at the cores");
        assert_eq!(simulated_ctx((1, 1, 2, 2, 2), Mode::Quick).rank_counts(), [2], "--quick: the smallest job");
    }

    /// Across hosts, the two ranks of a pair never get one CPU number while the machine has two, whatever
    /// the CPU list; without a second host there is no such point.
    #[test]
    fn other_host_pairs_put_their_ranks_on_different_cpus() {
        #[derive(serde::Serialize)]
        struct Params {
            payload: usize,
        }
        let (os, params) = (&overhead_runtime_os::Os, &Params { payload: 8 });
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
