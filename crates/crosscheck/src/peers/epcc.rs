//! EPCC's OpenMP micro-benchmarks, `syncbench` (Bull, "Measuring Synchronisation and Scheduling Overheads in
//! OpenMP", EWOMP 1999): each construct's overhead is its time less a reference's, in µs, the mean over outer
//! repetitions, printed `"<NAME> overhead     = <µs> microseconds +/- <µs>"`. PARALLEL's is the fork-join of
//! one parallel region, BARRIER's one barrier episode. Found on the PATH or at `OVERHEAD_EPCC_SYNCBENCH`.

use std::collections::BTreeMap;

use overhead_record::PeerCase;

use super::super::peer::{find_program, number_after, Peer, PeerCommand};

/// The constructs compared, with our points.
const CONSTRUCTS: [(&str, &str); 2] = [
    ("PARALLEL", "spawn.forkjoin/runtime:openmp/mechanism:parallel/threads:2"),
    ("BARRIER", "sync.barrier/runtime:openmp/impl:omp_barrier/threads:2"),
];

pub struct Syncbench;

impl Peer for Syncbench {
    fn name(&self) -> String {
        "EPCC syncbench".into()
    }

    fn install(&self) -> String {
        "build syncbench from EPCC's OpenMP micro-benchmark suite (make syncbench) and put it on the PATH, or set \
         OVERHEAD_EPCC_SYNCBENCH to it"
            .into()
    }

    fn cases(&self) -> Vec<PeerCase> {
        CONSTRUCTS
            .iter()
            .map(|(name, point)| PeerCase {
                case: name.to_string(),
                point: point.to_string(),
                conversion: "overhead (time − reference), µs → ns".into(),
                cross_core: true,
                method_difference: "EPCC subtracts a reference of the same delay loop run by one thread, ours an \
                                    empty control; its threads are placed by GOMP_CPU_AFFINITY, ours pinned"
                    .into(),
                ours_key: None,
            })
            .collect()
    }

    fn command(&self, cpus: &[usize]) -> Result<PeerCommand, String> {
        let program = std::env::var_os("OVERHEAD_EPCC_SYNCBENCH")
            .map(std::path::PathBuf::from)
            .or_else(|| find_program("syncbench"))
            .ok_or("syncbench not found on the PATH and OVERHEAD_EPCC_SYNCBENCH not set")?;
        let affinity: Vec<String> = cpus.iter().take(2).map(usize::to_string).collect();
        let argv = vec![
            program.display().to_string(),
            "--outer-repetitions".into(),
            "20".into(),
            "--test-time".into(),
            "1000".into(),
        ];
        let env = vec![("OMP_NUM_THREADS".into(), "2".into()), ("GOMP_CPU_AFFINITY".into(), affinity.join(" "))];
        Ok(PeerCommand { argv, env, ..PeerCommand::default() })
    }

    fn parse(&self, stdout: &str, _stderr: &str) -> Result<BTreeMap<String, f64>, String> {
        CONSTRUCTS
            .iter()
            .map(|(name, _)| {
                // "PARALLEL overhead", not "PARALLEL FOR overhead": the label ends where the spaces start.
                let label = format!("{name} overhead ");
                let line = stdout
                    .lines()
                    .find(|l| l.starts_with(&label) || l.starts_with(&format!("{name} overhead=")))
                    .ok_or_else(|| format!("expected a line \"{name} overhead = <µs> microseconds\""))?;
                let us = number_after(line, "=").ok_or_else(|| format!("no number on \"{line}\""))?;
                Ok((name.to_string(), us * 1e3))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_construct_reads_its_overhead_in_ns() {
        let out = "PARALLEL time         = 0.834000 microseconds +/- 0.012000\n\
                   PARALLEL overhead     = 0.809590 microseconds +/- 0.012100\n\
                   PARALLEL median_ovrhd = 0.805500 microseconds \n\
                   PARALLEL FOR overhead = 1.5 microseconds +/- 0.1\n\
                   BARRIER time          = 0.5 microseconds +/- 0.01\n\
                   BARRIER overhead      = 0.21 microseconds +/- 0.01\n";
        let v = Syncbench.parse(out, "").unwrap();
        assert!((v["PARALLEL"] - 809.59).abs() < 1e-6, "{v:?}");
        assert!((v["BARRIER"] - 210.0).abs() < 1e-6, "{v:?}");
        assert!(Syncbench.parse("PARALLEL overhead = 1 microseconds", "").is_err(), "BARRIER is missing");
    }
}
