//! The probe side of a point started as MPI ranks (docs/ARCHITECTURE.md "Hosts and MPI"): which rank this
//! process is, and where every rank really runs, checked before anything is measured.

use anyhow::Context as _;

use overhead_experiments::Point;
use overhead_machine::Placement;
use overhead_record::PointSpec;
use overhead_runtime_external::mpi::shim;

/// Joins the MPI job this process was started in and returns its rank.
///
/// Errors: the launcher's rank variable is missing (started by hand, or by a launcher `overhead` does not
/// know), the shim cannot be built or loaded, MPI does not start, or the job's size is not the point's
/// rank count (one per CPU of the point).
pub fn join(spec: &PointSpec) -> anyhow::Result<usize> {
    let expected = overhead_launch::rank::current().with_context(|| {
        format!(
            "{} runs as MPI ranks, but this process was not started by an MPI launcher (none of {} is set)",
            spec.name(),
            overhead_launch::rank::RANK_VARIABLES.join(", ")
        )
    })?;
    let shim = shim::shim().map_err(anyhow::Error::msg)?;
    let (rank, size) = (shim.rank(), shim.size());
    anyhow::ensure!(rank == expected, "MPI says rank {rank}, the launcher's environment rank {expected}");
    anyhow::ensure!(
        size == spec.cpus.len(),
        "{}: the job has {size} ranks, the point {} (one per CPU it names)",
        spec.name(),
        spec.cpus.len()
    );
    Ok(rank)
}

/// One rank's report of where it runs: fixed-size, so that every rank's fits one gather.
const REPORT_BYTES: usize = 192;

/// Where every rank runs, gathered at rank 0 after each pinned itself: its host name, the machine's boot
/// ID and the CPU it is on. Rank 0 refuses the point when two ranks share a CPU of one machine (two
/// "hosts" that are namespaces of one machine, or a launcher that ignored the placement): their time
/// slices would be the measurement. The exception is a point that asks for it (`placement:same_cpu`,
/// Souvatzis's message rows under `mpi`), whose launcher tells OpenMPI to yield while idle
/// (`probe_process::YIELD_WHEN_IDLE`); its note says so, or that this MPI is not OpenMPI and may poll.
/// Returns, at rank 0, the note that says where each rank ran.
///
/// Errors: the gather fails, or two ranks share a CPU of one machine of a point not placed `same_cpu`.
pub fn where_ranks_run(point: &Point<'_>) -> anyhow::Result<String> {
    let shim = shim::shim().map_err(anyhow::Error::msg)?;
    let host = gethostname::gethostname().to_string_lossy().into_owned();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    // SAFETY: sched_getcpu has no preconditions; it returns -1 on error.
    let cpu = unsafe { libc::sched_getcpu() };
    let mine = format!("{host}\t{}\t{cpu}", boot.trim());
    let mut report = [0u8; REPORT_BYTES];
    let n = mine.len().min(REPORT_BYTES);
    report[..n].copy_from_slice(&mine.as_bytes()[..n]);
    let all = shim.gather(&report)?;
    if point.rank > 0 {
        return Ok(String::new());
    }
    let ranks: Vec<RankReport> = all.iter().map(|r| RankReport::parse(r)).collect();
    check_distinct_cpus(&ranks, point.spec.placement)?;
    let same_cpu = point.spec.placement == Some(Placement::SameCpu);
    let placed: Vec<String> = ranks
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let named = point.host_of(i).map_or(String::new(), |h| format!("{h}, "));
            format!("rank {i} on {named}host {} CPU {}", r.host, r.cpu)
        })
        .collect();
    let version = shim.library_version();
    let mut note = format!("{}; {version}", placed.join("; "));
    if same_cpu && ranks.len() > 1 {
        note.push_str(&format!("; {}", sharing_note(&version)));
    }
    Ok(note)
}

/// What a note says of ranks that share one CPU on purpose (`placement:same_cpu`), by the MPI library's
/// version line: OpenMPI heeds `mpi_yield_when_idle`, which the launcher's command sets; another MPI may
/// poll, and then its time slice is part of the measurement.
fn sharing_note(version: &str) -> &'static str {
    if version.to_ascii_lowercase().contains("open mpi") {
        "ranks yield while idle (OpenMPI mpi_yield_when_idle)"
    } else {
        "ranks share one CPU and this MPI is not OpenMPI: mpi_yield_when_idle does not apply, a rank may poll \
         while it waits and its time slice be measured"
    }
}

/// What one rank said about where it runs.
#[derive(Debug, Clone, PartialEq)]
struct RankReport {
    host: String,
    boot_id: String,
    cpu: i64,
}

impl RankReport {
    fn parse(bytes: &[u8]) -> RankReport {
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        let text = String::from_utf8_lossy(&bytes[..end]);
        let mut fields = text.split('\t');
        RankReport {
            host: fields.next().unwrap_or_default().to_string(),
            boot_id: fields.next().unwrap_or_default().to_string(),
            cpu: fields.next().and_then(|c| c.parse().ok()).unwrap_or(-1),
        }
    }
}

/// Errors when two ranks run on one CPU of one machine (same boot ID, same CPU), unless the point's
/// `placement` is `same_cpu`: it asked for exactly that.
fn check_distinct_cpus(ranks: &[RankReport], placement: Option<Placement>) -> anyhow::Result<()> {
    if placement == Some(Placement::SameCpu) {
        return Ok(());
    }
    for (i, a) in ranks.iter().enumerate() {
        for (j, b) in ranks.iter().enumerate().skip(i + 1) {
            let one_machine = !a.boot_id.is_empty() && a.boot_id == b.boot_id;
            anyhow::ensure!(
                !(one_machine && a.cpu >= 0 && a.cpu == b.cpu),
                "ranks {i} and {j} run on CPU {} of one machine ({}): they would take turns on it, and the \
                 time slice would be the measurement",
                a.cpu,
                a.host
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_ranks_on_one_cpu_of_one_machine_are_refused_unless_the_point_asks_for_it() {
        let on = |boot: &str, cpu| RankReport { host: "h".into(), boot_id: boot.into(), cpu };
        let other = Some(Placement::OtherCore);
        assert!(check_distinct_cpus(&[on("a", 0), on("a", 1)], other).is_ok());
        assert!(check_distinct_cpus(&[on("a", 0), on("b", 0)], None).is_ok(), "two machines may use CPU 0 each");
        let err = check_distinct_cpus(&[on("a", 1), on("b", 0), on("a", 1)], other).unwrap_err().to_string();
        assert!(err.contains("ranks 0 and 2 run on CPU 1"), "{err}");
        let err = check_distinct_cpus(&[on("a", 1), on("a", 1)], Some(Placement::OtherHost)).unwrap_err();
        assert!(err.to_string().contains("ranks 0 and 1 run on CPU 1"), "{err}");
        // A point that asks for one CPU gets it, and its note says how the ranks share it.
        assert!(check_distinct_cpus(&[on("a", 1), on("a", 1)], Some(Placement::SameCpu)).is_ok());
        assert_eq!(
            sharing_note("Open MPI v4.1.4, package: Debian OpenMPI"),
            "ranks yield while idle (OpenMPI mpi_yield_when_idle)"
        );
        assert!(sharing_note("MPICH Version: 4.0").contains("not OpenMPI"));
        let report = RankReport::parse(b"node1\tabc-def\t3\0\0\0");
        assert_eq!(report, RankReport { host: "node1".into(), boot_id: "abc-def".into(), cpu: 3 });
    }
}
