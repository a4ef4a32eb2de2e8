//! Hosts: the machines a run measures across, and the MPI launcher that starts ranks on them (docs/ARCHITECTURE.md
//! "Hosts and MPI").
//!
//! Everything `overhead` measures inside one machine runs in one probe process per point. A point that
//! needs more than one process started together — the ranks of the `mpi` runtime, or the two ends of a
//! socket or RPC point with `placement:other_host` — is started by an existing MPI implementation's launcher
//! (`mpirun`/`mpiexec`, [`launcher`]) instead: every rank runs `overhead probe` with the same job, learns its
//! rank from the launcher's environment ([`rank`]), pins itself to `spec.cpus[rank]` on `spec.hosts[rank]`,
//! and rank 0 answers for the point. Souvatzis ran its SR/MPD processes "on a (local) network" the same way.

pub mod launcher;
pub mod pml;
pub mod rank;

use std::path::Path;

pub use launcher::{Flavour, Launcher, RankSlot};

/// The hosts of a run and what to pass the launcher: from `--hosts`/`--hostfile` and `--launcher-arg`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchSettings {
    /// The hosts, in the order given; empty for a run on this machine alone. Host 0 should be this machine
    /// (where `overhead run` runs): rank 0 of a point across hosts runs on host 0 and answers for the point.
    pub hosts: Vec<String>,
    /// Arguments passed to the launcher unchanged, before the program (a site's launch agent, transports,
    /// interfaces: `--mca btl tcp,self`).
    pub launcher_args: Vec<String>,
}

impl LaunchSettings {
    /// Whether the run measures across hosts (two or more named).
    pub fn across_hosts(&self) -> bool {
        self.hosts.len() >= 2
    }
}

/// The hosts of `--hosts H1,H2,…` (mpirun's `--host` list: comma-separated names or addresses; a `:N`
/// slot count, which mpirun allows, is dropped: `overhead` places one rank per host and pins it itself).
///
/// Errors: an empty name, a name with spaces, or the same host twice, naming the input.
pub fn parse_host_list(list: &str) -> Result<Vec<String>, String> {
    let mut hosts: Vec<String> = Vec::new();
    for item in list.split(',') {
        let name = item.trim().split(':').next().unwrap_or_default();
        check_host(name, &format!("--hosts {list:?}"))?;
        if hosts.iter().any(|h| h == name) {
            return Err(format!("--hosts {list:?}: host {name:?} is named twice; name each host once"));
        }
        hosts.push(name.to_string());
    }
    Ok(hosts)
}

/// The hosts of a hostfile (OpenMPI's and MPICH's format: one host per line, then optional
/// `slots=N`/`:N`, `#` comments and blank lines ignored).
///
/// Errors: the file cannot be read, or a line names no valid host, with the file and line number.
pub fn read_hostfile(path: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--hostfile {}: {e}", path.display()))?;
    let mut hosts: Vec<String> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let name = line.split_whitespace().next().unwrap_or_default().split(':').next().unwrap_or_default();
        check_host(name, &format!("--hostfile {} line {}", path.display(), number + 1))?;
        if !hosts.iter().any(|h| h == name) {
            hosts.push(name.to_string());
        }
    }
    if hosts.is_empty() {
        return Err(format!("--hostfile {}: names no host (one host per line expected)", path.display()));
    }
    Ok(hosts)
}

/// A host name or address as a launcher takes it: not empty, no spaces, no shell metacharacters.
fn check_host(name: &str, input: &str) -> Result<(), String> {
    let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "-._[]".contains(c));
    if ok {
        Ok(())
    } else {
        Err(format!("{input}: {name:?} is not a host name or address (letters, digits, '-', '.', '_' expected)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_list_keeps_its_order_and_drops_slot_counts() {
        assert_eq!(parse_host_list("node1,node2:4, 10.0.0.3").unwrap(), ["node1", "node2", "10.0.0.3"]);
        let twice = parse_host_list("a,b,a").unwrap_err();
        assert!(twice.contains("\"a\" is named twice"), "{twice}");
        let empty = parse_host_list("a,,b").unwrap_err();
        assert!(empty.contains("--hosts") && empty.contains("\"\""), "{empty}");
        assert!(parse_host_list("a;rm -rf").is_err());
    }

    #[test]
    fn a_hostfile_reads_like_mpiruns() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hosts");
        std::fs::write(&file, "# cluster\nnode1 slots=4\n\nnode2:2 # second\nnode1\n").unwrap();
        assert_eq!(read_hostfile(&file).unwrap(), ["node1", "node2"]);
        std::fs::write(&file, "# nothing\n").unwrap();
        assert!(read_hostfile(&file).unwrap_err().contains("names no host"));
        std::fs::write(&file, "good\nb@d\n").unwrap();
        assert!(read_hostfile(&file).unwrap_err().contains("line 2"));
        assert!(read_hostfile(&dir.path().join("missing")).unwrap_err().contains("--hostfile"));
    }
}
