//! The MPI launcher: found on this machine, and the command line that starts one point's ranks.
//!
//! `overhead` ships no MPI of its own: it uses the site's `mpirun`/`mpiexec` (OpenMPI or MPICH's Hydra), so
//! that the launch agent, the interfaces and the transports are the ones the site's MPI jobs use. Every
//! option the user passes with `--launcher-arg` goes to the launcher unchanged. Binding is the launcher's
//! only default `overhead` overrides: `--bind-to none`, because each rank pins itself to the CPU its point
//! names (left to its default, OpenMPI binds each host's first rank to CPU 0, and two "hosts" that are
//! namespaces of one machine then share one CPU: an 8 µs round trip read 8 ms there).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Which MPI implementation's launcher it is: their options differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// OpenMPI's `mpirun` (ORTE or PRRTE).
    OpenMpi,
    /// MPICH's `mpiexec` (Hydra), and the MPICH derivatives that keep its options (MVAPICH, Intel MPI).
    Mpich,
}

/// A launcher found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launcher {
    /// The executable, as given by `OVERHEAD_MPIRUN` or found on PATH.
    pub program: PathBuf,
    pub flavour: Flavour,
    /// The first line of its `--version`, for the record.
    pub version: String,
}

/// Where one rank runs: its host (`None`: this machine, no host named) and the CPU it pins itself to there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankSlot {
    pub host: Option<String>,
    pub cpu: usize,
}

/// The environment variable that names the launcher (a path, or a name looked up on PATH).
pub const LAUNCHER_VARIABLE: &str = "OVERHEAD_MPIRUN";

impl Launcher {
    /// The launcher of this machine, looked for once per process: `OVERHEAD_MPIRUN`, else `mpirun`, else
    /// `mpiexec` on PATH.
    ///
    /// Errors: none found, or it does not say which MPI it is, in words that read after "no MPI launcher: ".
    pub fn find() -> Result<&'static Launcher, String> {
        static FOUND: OnceLock<Result<Launcher, String>> = OnceLock::new();
        FOUND
            .get_or_init(|| {
                let named = std::env::var_os(LAUNCHER_VARIABLE);
                let candidates: Vec<OsString> = match &named {
                    Some(name) => vec![name.clone()],
                    None => vec!["mpirun".into(), "mpiexec".into()],
                };
                Launcher::first_of(&candidates, named.is_some())
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The first of `candidates` that runs and says which MPI it is.
    fn first_of(candidates: &[OsString], named: bool) -> Result<Launcher, String> {
        let mut why = Vec::new();
        for candidate in candidates {
            match Command::new(candidate).arg("--version").output() {
                Ok(out) => {
                    let text =
                        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
                    match flavour_of(&text) {
                        Some(flavour) => {
                            let version = text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim();
                            return Ok(Launcher {
                                program: PathBuf::from(candidate),
                                flavour,
                                version: version.to_string(),
                            });
                        }
                        None => why.push(format!(
                            "{} --version names neither Open MPI nor MPICH/Hydra",
                            Path::new(candidate).display()
                        )),
                    }
                }
                Err(e) => why.push(format!("{}: {e}", Path::new(candidate).display())),
            }
        }
        let hint = if named {
            format!("{LAUNCHER_VARIABLE} names no working launcher")
        } else {
            format!("install OpenMPI or MPICH (mpirun or mpiexec on PATH), or set {LAUNCHER_VARIABLE}")
        };
        Err(format!("{} ({hint})", why.join("; ")))
    }

    /// The launcher's arguments that start `program args…` as one rank per slot of `ranks`, rank `i` on
    /// `ranks[i].host`, then `extra` (the user's `--launcher-arg`s) unchanged, then the program. Ranks on a
    /// named host are grouped as the launcher's `host:count` list, in rank order, so rank `i` lands where
    /// `ranks[i]` says (both launchers fill hosts in list order by default). No host named: all ranks on
    /// this machine. Binding is off (`--bind-to none`, `-bind-to none`): each rank pins itself to its CPU.
    /// OpenMPI refuses to run as root without `--allow-run-as-root`, given when this process is root.
    pub fn argv(&self, ranks: &[RankSlot], extra: &[String], program: &Path, args: &[String]) -> Vec<OsString> {
        let hosts = host_counts(ranks);
        let mut argv: Vec<OsString> = Vec::new();
        let mut push = |s: &str| argv.push(s.into());
        match self.flavour {
            Flavour::OpenMpi => {
                push("-np");
                push(&ranks.len().to_string());
                match &hosts {
                    Some(list) => {
                        push("--host");
                        push(list);
                    }
                    // More ranks than this machine has cores is a point's choice (ranks on one CPU are
                    // named so), not an error.
                    None => push("--oversubscribe"),
                }
                push("--bind-to");
                push("none");
                if is_root() {
                    push("--allow-run-as-root");
                }
            }
            Flavour::Mpich => {
                push("-n");
                push(&ranks.len().to_string());
                if let Some(list) = &hosts {
                    push("-hosts");
                    push(list);
                }
                push("-bind-to");
                push("none");
            }
        }
        argv.extend(extra.iter().map(OsString::from));
        argv.push(program.as_os_str().to_owned());
        argv.extend(args.iter().map(OsString::from));
        argv
    }

    /// The launcher's command for [`Launcher::argv`], with no stdin (the job travels in the arguments, and
    /// OpenMPI would forward stdin to rank 0).
    pub fn command(&self, ranks: &[RankSlot], extra: &[String], program: &Path, args: &[String]) -> Command {
        let mut command = Command::new(&self.program);
        command.args(self.argv(ranks, extra, program, args)).stdin(std::process::Stdio::null());
        command
    }
}

/// Which MPI a launcher's `--version` text names.
pub fn flavour_of(version: &str) -> Option<Flavour> {
    let lower = version.to_ascii_lowercase();
    if lower.contains("open mpi") || lower.contains("openrte") || lower.contains("prte") {
        Some(Flavour::OpenMpi)
    } else if lower.contains("hydra") || lower.contains("mpich") || lower.contains("intel(r) mpi") {
        Some(Flavour::Mpich)
    } else {
        None
    }
}

/// `host:count,host:count` of consecutive ranks per host, in rank order; `None` when no rank names a host.
fn host_counts(ranks: &[RankSlot]) -> Option<String> {
    let mut groups: Vec<(&str, usize)> = Vec::new();
    for rank in ranks {
        let host = rank.host.as_deref()?;
        match groups.last_mut() {
            Some((last, count)) if *last == host => *count += 1,
            _ => groups.push((host, 1)),
        }
    }
    Some(groups.iter().map(|(h, n)| format!("{h}:{n}")).collect::<Vec<_>>().join(","))
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launcher(flavour: Flavour) -> Launcher {
        Launcher { program: "mpirun".into(), flavour, version: String::new() }
    }

    fn text(argv: Vec<OsString>) -> Vec<String> {
        argv.into_iter().map(|a| a.into_string().unwrap()).filter(|a| a != "--allow-run-as-root").collect()
    }

    #[test]
    fn hosts_and_launcher_args_make_the_command_line() {
        let ranks = [RankSlot { host: Some("node1".into()), cpu: 0 }, RankSlot { host: Some("node2".into()), cpu: 1 }];
        let extra = ["--mca".to_string(), "btl".into(), "tcp,self".into()];
        let args = ["probe".to_string(), "--job".into(), "{}".into()];
        // After each launcher's own options: the extra arguments, the program and its arguments, in order.
        let tail = ["--mca", "btl", "tcp,self", "/bin/overhead", "probe", "--job", "{}"];
        let open = text(launcher(Flavour::OpenMpi).argv(&ranks, &extra, Path::new("/bin/overhead"), &args));
        assert_eq!(open, [&["-np", "2", "--host", "node1:1,node2:1", "--bind-to", "none"][..], &tail].concat());
        let mpich = text(launcher(Flavour::Mpich).argv(&ranks, &extra, Path::new("/bin/overhead"), &args));
        assert_eq!(mpich, [&["-n", "2", "-hosts", "node1:1,node2:1", "-bind-to", "none"][..], &tail].concat());
    }

    #[test]
    fn ranks_of_one_host_are_grouped_and_no_host_means_this_machine() {
        let on = |h: &str, cpu| RankSlot { host: Some(h.into()), cpu };
        assert_eq!(host_counts(&[on("a", 0), on("a", 1), on("b", 0)]).unwrap(), "a:2,b:1");
        let local = [RankSlot { host: None, cpu: 0 }, RankSlot { host: None, cpu: 1 }];
        assert_eq!(host_counts(&local), None);
        let open = text(launcher(Flavour::OpenMpi).argv(&local, &[], Path::new("x"), &[]));
        assert_eq!(open, ["-np", "2", "--oversubscribe", "--bind-to", "none", "x"]);
    }

    #[test]
    fn the_flavour_comes_from_the_version_text() {
        assert_eq!(flavour_of("mpirun (Open MPI) 4.1.4\n\nReport bugs"), Some(Flavour::OpenMpi));
        assert_eq!(flavour_of("HYDRA build details:\n    Version: 4.0.2"), Some(Flavour::Mpich));
        assert_eq!(flavour_of("prterun (PRRTE) 3.0.0"), Some(Flavour::OpenMpi));
        assert_eq!(flavour_of("bash: mpirun: command not found"), None);
    }

    #[test]
    fn a_missing_launcher_says_what_was_tried_and_what_to_do() {
        let none = Launcher::first_of(&["/nonexistent/mpirun".into()], true).unwrap_err();
        assert!(none.contains("/nonexistent/mpirun") && none.contains(LAUNCHER_VARIABLE), "{none}");
        let not_mpi = Launcher::first_of(&["true".into()], false).unwrap_err();
        assert!(not_mpi.contains("names neither") && not_mpi.contains("install OpenMPI"), "{not_mpi}");
    }
}
