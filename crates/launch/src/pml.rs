//! Which point-to-point messaging layer (PML) OpenMPI chooses on this machine, learned from a run's first
//! launch and named on the launches after it (docs/METHOD.md §4, "A launch that probes once").
//!
//! OpenMPI opens every PML it was built with at each `MPI_Init` and keeps the one of highest priority. Opening
//! the `cm` PML makes its MTLs (libfabric's `ofi`, `psm2`) look for their networks, and on a machine with no
//! such network each gives up only after a timeout: 200 of the 320 ms a two-rank "hello" launch takes on a
//! 2-vCPU guest, and the bulk of the 0.7 s each `mpi.*` process took on a 16-CPU one. The choice does not
//! change within a run on one machine, so the first launch asks OpenMPI to say what it chose
//! (`pml_base_verbose`), and every later launch whose ranks all run here names that PML (`--mca pml ob1`):
//! OpenMPI then opens only the PML it would have kept, and the ranks talk through exactly the transports they
//! used before. A launch the user or a side configures (an `OMPI_MCA_pml`/`OMPI_MCA_mtl` setting, a
//! `--launcher-arg` naming `pml` or `mtl`), a launch across hosts (another host may choose another way) and
//! MPICH's Hydra (which has no such probing) are left as they are.

use std::sync::OnceLock;

use crate::Flavour;

/// The environment variable that makes OpenMPI's PML framework say what it chose, and the level at which
/// its `select: component NAME selected` line appears (on each rank's stderr, during `MPI_Init`).
pub const VERBOSE_VARIABLE: (&str, &str) = ("OMPI_MCA_pml_base_verbose", "10");

/// What a launch does about the PML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PmlLaunch {
    /// Left to the launcher and the user's settings (not OpenMPI, across hosts, or configured by the user).
    AsConfigured,
    /// The first eligible launch: OpenMPI chooses among all its PMLs and says which (`VERBOSE_VARIABLE`).
    Learn,
    /// A later launch: OpenMPI opens only this PML, the one it chose on the first.
    Named(String),
}

impl PmlLaunch {
    /// The launcher arguments that name the PML (`--mca pml NAME`), empty unless [`PmlLaunch::Named`].
    pub fn launcher_args(&self) -> Vec<String> {
        match self {
            PmlLaunch::Named(name) => vec!["--mca".into(), "pml".into(), name.clone()],
            _ => Vec::new(),
        }
    }

    /// The environment setting the launch adds: [`VERBOSE_VARIABLE`] when it learns, else none.
    pub fn env(&self) -> Option<(&'static str, &'static str)> {
        (*self == PmlLaunch::Learn).then_some(VERBOSE_VARIABLE)
    }

    /// What the point's notes say of a launch that named the PML; `None` for the others.
    pub fn note(&self) -> Option<String> {
        match self {
            PmlLaunch::Named(name) => Some(format!(
                "launched with `--mca pml {name}`: the PML this OpenMPI chose by itself at the run's first MPI launch, \
                 named so that MPI_Init skips probing the others (docs/METHOD.md §4)"
            )),
            _ => None,
        }
    }
}

/// Whether a launch may name the PML: OpenMPI, every rank on this machine, and nothing in the user's
/// launcher arguments, the side's environment (`side_env`) or this process's environment (`own_env`, the
/// value of an `OMPI_MCA_…` variable by name) that chooses a PML or an MTL.
pub fn may_name(
    flavour: Flavour,
    across_hosts: bool,
    launcher_args: &[String],
    side_env: &[(String, String)],
    own_env: impl Fn(&str) -> Option<String>,
) -> bool {
    let chooses = |key: &str| {
        let key = key.trim_start_matches("--").to_ascii_lowercase();
        ["pml", "mtl"].iter().any(|framework| key.contains(framework))
    };
    let configured_by_variable =
        |name: &str| side_env.iter().any(|(k, _)| k == name) || own_env(name).is_some_and(|v| !v.trim().is_empty());
    flavour == Flavour::OpenMpi
        && !across_hosts
        && !launcher_args.iter().any(|a| chooses(a))
        && !["OMPI_MCA_pml", "OMPI_MCA_mtl"].iter().any(|v| configured_by_variable(v))
}

/// The PML the ranks' stderr says OpenMPI chose (`[host:pid] select: component ob1 selected`), if every
/// rank that said one said the same; `None` when none did or two disagree.
pub fn chosen_in(stderr: &str) -> Option<String> {
    let mut chosen: Option<&str> = None;
    for line in stderr.lines() {
        let Some(rest) = line.split("select: component ").nth(1) else { continue };
        let Some(name) = rest.trim().strip_suffix(" selected") else { continue };
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        match chosen {
            Some(earlier) if earlier != name => return None,
            _ => chosen = Some(name),
        }
    }
    chosen.map(str::to_string)
}

/// The PML learned in this process (one run, one machine), once.
#[derive(Debug, Default)]
pub struct LearnedPml(OnceLock<String>);

impl LearnedPml {
    /// An empty one.
    pub const fn new() -> Self {
        LearnedPml(OnceLock::new())
    }

    /// What an eligible launch does: name the learned PML, or learn it.
    pub fn launch(&self) -> PmlLaunch {
        self.0.get().map_or(PmlLaunch::Learn, |name| PmlLaunch::Named(name.clone()))
    }

    /// Keeps what a learning launch's stderr says OpenMPI chose; a launch that said nothing clear leaves it
    /// unlearned (the next launch learns again).
    pub fn learn_from(&self, stderr: &str) {
        if let Some(name) = chosen_in(stderr) {
            let _ = self.0.set(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPENMPI_4_1: &str = "[vm:17677] select: initializing pml component ob1\n\
        [vm:17677] select: init returned priority 20\n\
        [vm:17677] selected ob1 best priority 20\n\
        [vm:17677] select: component ob1 selected\n\
        [vm:17676] select: component ob1 selected\n";

    #[test]
    fn the_choice_is_read_from_the_ranks_lines_and_two_choices_are_none() {
        assert_eq!(chosen_in(OPENMPI_4_1).as_deref(), Some("ob1"));
        assert_eq!(chosen_in("[a:1] select: component ucx selected\n").as_deref(), Some("ucx"));
        assert_eq!(chosen_in("[a:1] select: component ob1 selected\n[b:2] select: component ucx selected"), None);
        assert_eq!(chosen_in("no verbose output at all"), None);
        assert_eq!(chosen_in("[a:1] select: component $(rm) selected"), None, "only a component's name is kept");
    }

    #[test]
    fn the_first_launch_learns_and_the_later_ones_name_it() {
        let learned = LearnedPml::new();
        assert_eq!(learned.launch(), PmlLaunch::Learn);
        assert_eq!(learned.launch().env(), Some(VERBOSE_VARIABLE));
        learned.learn_from("mpirun noticed nothing");
        assert_eq!(learned.launch(), PmlLaunch::Learn, "a launch that said nothing leaves it to the next");
        learned.learn_from(OPENMPI_4_1);
        let named = learned.launch();
        assert_eq!(named, PmlLaunch::Named("ob1".into()));
        assert_eq!(named.launcher_args(), ["--mca", "pml", "ob1"]);
        assert_eq!(named.env(), None);
        assert!(named.note().unwrap().contains("--mca pml ob1"));
        learned.learn_from("[a:1] select: component ucx selected");
        assert_eq!(learned.launch(), PmlLaunch::Named("ob1".into()), "learned once");
    }

    #[test]
    fn a_launch_the_user_configures_is_left_alone() {
        let none = |_: &str| None;
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(may_name(Flavour::OpenMpi, false, &[], &[], none));
        assert!(may_name(Flavour::OpenMpi, false, &args(&["--mca", "btl", "self,vader"]), &[], none));
        assert!(!may_name(Flavour::Mpich, false, &[], &[], none));
        assert!(!may_name(Flavour::OpenMpi, true, &[], &[], none), "across hosts");
        assert!(!may_name(Flavour::OpenMpi, false, &args(&["--mca", "pml", "ucx"]), &[], none));
        assert!(!may_name(Flavour::OpenMpi, false, &args(&["--mca", "mtl", "ofi"]), &[], none));
        assert!(!may_name(Flavour::OpenMpi, false, &args(&["--mca", "PML_UCX_TLS=rc"]), &[], none));
        let side = vec![("OMPI_MCA_pml".to_string(), "ob1".to_string())];
        assert!(!may_name(Flavour::OpenMpi, false, &[], &side, none));
        assert!(!may_name(Flavour::OpenMpi, false, &[], &[], |n| (n == "OMPI_MCA_mtl").then(|| "ofi".into())));
        assert!(may_name(Flavour::OpenMpi, false, &[], &[], |n| (n == "OMPI_MCA_btl").then(|| "tcp".into())));
    }
}
