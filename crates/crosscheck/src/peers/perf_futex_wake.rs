//! `perf bench futex wake` and `perf bench futex wake-parallel` (Linux perf, tools/perf/bench/futex-wake.c and
//! futex-wake-parallel.c): threads block on one private futex, and waker threads wake them, timing each
//! `FUTEX_WAKE` call with `gettimeofday`; each prints the mean over its runs, in ms to four decimals (a step of
//! 100 ns). `wake` wakes from the main thread (`-w` at a time), `wake-parallel` from `-w` waker threads of its
//! own, each timing its own call (its "per-thread latency"). With one thread woken by one waker, both time
//! the waker's call on a sleeping waiter: our `wake.handoff` futex point's waker cost (`waker_ns_p50`), not its
//! wake latency.

use std::collections::BTreeMap;

use overhead_record::PeerCase;

use super::super::peer::{find_program, Peer, PeerCommand};

/// Which of perf's futex wake benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FutexBench {
    /// `perf bench futex wake -t 1 -w 1`: the main thread wakes one blocked thread.
    Wake,
    /// `perf bench futex wake-parallel -t 1 -w 1`: one waker thread of perf's wakes one blocked thread.
    WakeParallel,
}

impl FutexBench {
    /// perf's name of the benchmark, the case's name, and the start of its summary line.
    fn parts(self) -> (&'static str, &'static str, &'static str) {
        match self {
            FutexBench::Wake => ("wake", "futex wake", "Wokeup"),
            FutexBench::WakeParallel => ("wake-parallel", "futex wake-parallel", "Avg per-thread latency"),
        }
    }
}

/// One of perf's futex wake benchmarks as a peer.
pub struct PerfFutexWake(pub FutexBench);

impl Peer for PerfFutexWake {
    fn name(&self) -> String {
        format!("perf bench futex {}", self.0.parts().0)
    }

    fn install(&self) -> String {
        "apt-get install linux-perf".into()
    }

    fn cases(&self) -> Vec<PeerCase> {
        let waker = match self.0 {
            FutexBench::Wake => "perf times one wake a run from its main thread",
            FutexBench::WakeParallel => "perf's waker thread times its one wake a run",
        };
        vec![PeerCase {
            case: self.0.parts().1.into(),
            point: "wake.handoff/runtime:os/mechanism:futex/waiter:blocked/placement:other_core".into(),
            conversion: "ms → ns; one thread woken by one waker (-t 1 -w 1), the mean over its runs".into(),
            cross_core: true,
            method_difference: format!(
                "{waker} with gettimeofday (1 µs steps) after its waiter has slept at least 0.1 s, so the call \
                 runs cold, and averages ten runs; ours is the median of 500 wakes timed with the TSC, each after \
                 the waiter slept 20 µs, on pinned threads (perf's float over the CPUs taskset gives them)"
            ),
            ours_key: Some("waker_ns_p50".into()),
        }]
    }

    fn command(&self, cpus: &[usize]) -> Result<PeerCommand, String> {
        let perf = find_program("perf").ok_or("perf not found on the PATH")?;
        let argv = ["bench", "futex", self.0.parts().0, "-t", "1", "-w", "1", "-s"];
        let mut command = vec![perf.display().to_string()];
        command.extend(argv.iter().map(|a| a.to_string()));
        Ok(PeerCommand::pinned(cpus, command))
    }

    fn parse(&self, stdout: &str, _stderr: &str) -> Result<BTreeMap<String, f64>, String> {
        let (_, case, marker) = self.0.parts();
        let line = stdout
            .lines()
            .find(|l| l.starts_with(marker) && l.contains("+-"))
            .ok_or_else(|| format!("expected a summary line \"{marker} … in <ms> ms (+-<%>%)\""))?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "in").ok_or("expected \"in <ms> ms\"")?;
        let ms: f64 = words.get(at + 1).and_then(|w| w.parse().ok()).ok_or("expected a number after \"in\"")?;
        Ok([(case.to_string(), ms * 1e6)].into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_wake_is_read_in_ns() {
        let out = "# Running 'futex/wake' benchmark:\nRun summary [PID 985]: blocking on 1 threads (at [private] \
                   futex 0x56068f61db58), waking up 1 at a time.\n\nWokeup 1 of 1 threads in 0.0033 ms (+-16.32%)\n";
        let v = PerfFutexWake(FutexBench::Wake).parse(out, "").unwrap();
        assert!((v["futex wake"] - 3300.0).abs() < 1e-6);
        assert!(PerfFutexWake(FutexBench::Wake).parse("[Run 1]: Wokeup 1 of 1 threads in 0.0030 ms", "").is_err());
    }

    /// wake-parallel's summary line, not a run's, and the case of its own name.
    #[test]
    fn the_parallel_wakers_mean_is_read_in_ns() {
        let out = "Run summary [PID 13059]: blocking on 1 threads (at [private] futex 0x5593f2ed2cf8), 1 threads \
                   waking up 1 at a time.\n\n[Run 1]: Avg per-thread latency (waking 1/1 threads) in 0.0600 ms \
                   (+-0.00%)\nAvg per-thread latency (waking 1/1 threads) in 0.0474 ms (+-18.85%)\n";
        let peer = PerfFutexWake(FutexBench::WakeParallel);
        let v = peer.parse(out, "").unwrap();
        assert_eq!(v.len(), 1);
        assert!((v["futex wake-parallel"] - 47_400.0).abs() < 1e-6);
        assert_eq!(peer.cases()[0].case, "futex wake-parallel");
        assert!(peer.command(&[0, 1]).map_or(true, |c| c.display().contains("wake-parallel")));
    }
}
