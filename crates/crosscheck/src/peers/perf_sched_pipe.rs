//! `perf bench sched pipe` (Linux perf, tools/perf/bench/sched-pipe.c): two processes pass a 4-byte token
//! through a pair of pipes; it prints `usecs/op`, the mean over its loops of the wall time, process start
//! included. Up to Linux 6.14 one loop is one round trip (one side reads first); pinned to one CPU it is two
//! context switches, as our same-CPU pipe round trip.

use std::collections::BTreeMap;

use overhead_record::PeerCase;

use super::super::peer::{find_program, Peer, PeerCommand};

/// Loops: ~0.5 s at 5 µs a round trip.
const LOOPS: &str = "100000";

const CASE: &str = "sched pipe";

pub struct PerfSchedPipe;

impl Peer for PerfSchedPipe {
    fn name(&self) -> String {
        "perf bench sched pipe".into()
    }

    fn install(&self) -> String {
        "apt-get install linux-perf".into()
    }

    fn cases(&self) -> Vec<PeerCase> {
        vec![PeerCase {
            case: CASE.into(),
            point: "msg.ipc/runtime:os/transport:pipe/payload:8/placement:same_cpu".into(),
            conversion: "usecs/op → ns; one loop is a round trip (perf ≤ 6.14)".into(),
            cross_core: false,
            method_difference: "perf's mean includes starting its second process, and a perf from 2025 on writes \
                                before it reads, so one loop is half a round trip"
                .into(),
            ours_key: None,
        }]
    }

    fn command(&self, cpus: &[usize]) -> Result<PeerCommand, String> {
        let perf = find_program("perf").ok_or("perf not found on the PATH")?;
        let argv =
            vec![perf.display().to_string(), "bench".into(), "sched".into(), "pipe".into(), "-l".into(), LOOPS.into()];
        Ok(PeerCommand::pinned(&cpus[..cpus.len().min(1)], argv))
    }

    fn parse(&self, stdout: &str, _stderr: &str) -> Result<BTreeMap<String, f64>, String> {
        let line = stdout.lines().find(|l| l.contains("usecs/op")).ok_or("expected a line \"<µs> usecs/op\"")?;
        let us: f64 =
            line.split_whitespace().next().and_then(|w| w.parse().ok()).ok_or("expected a number before usecs/op")?;
        Ok([(CASE.to_string(), us * 1e3)].into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usecs_per_op_is_read_in_ns() {
        let out = "# Running 'sched/pipe' benchmark:\n# Executed 100000 pipe operations between two processes\n\n     \
                   Total time: 0.412 [sec]\n\n       4.123450 usecs/op\n         242515 ops/sec\n";
        let v = PerfSchedPipe.parse(out, "").unwrap();
        assert!((v[CASE] - 4123.45).abs() < 1e-6);
        assert!(PerfSchedPipe.parse("Total time: 1 [sec]", "").is_err());
    }
}
