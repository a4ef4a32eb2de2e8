//! `perf bench futex wake` (Linux perf, tools/perf/bench/futex-wake.c): threads block on one private futex,
//! and the main thread wakes them `-w` at a time, timing each `FUTEX_WAKE` call with `gettimeofday`; it
//! prints the mean over its runs of the time to wake them all, in ms to four decimals (a step of 100 ns).
//! With one thread woken one at a time, that is the waker's call on a sleeping waiter: our `wake.handoff`
//! futex point's waker cost (`waker_ns_p50`), not its wake latency.

use std::collections::BTreeMap;

use overhead_record::PeerCase;

use super::super::peer::{find_program, Peer, PeerCommand};

const CASE: &str = "futex wake";

pub struct PerfFutexWake;

impl Peer for PerfFutexWake {
    fn name(&self) -> String {
        "perf bench futex wake".into()
    }

    fn install(&self) -> String {
        "apt-get install linux-perf".into()
    }

    fn cases(&self) -> Vec<PeerCase> {
        vec![PeerCase {
            case: CASE.into(),
            point: "wake.handoff/runtime:os/mechanism:futex/waiter:blocked/placement:other_core".into(),
            conversion: "ms → ns; one thread woken one at a time (-t 1 -w 1), the mean over its runs".into(),
            cross_core: true,
            method_difference: "perf times one wake a run with gettimeofday (1 µs steps) after its waiter has \
                                slept at least 0.1 s and its own thread has just slept in usleep, so the call \
                                runs cold, and averages ten runs; ours is the median of 500 wakes timed with the \
                                TSC, each after the waiter slept 20 µs, on pinned threads (perf's float over the \
                                CPUs taskset gives them)"
                .into(),
            ours_key: Some("waker_ns_p50".into()),
        }]
    }

    fn command(&self, cpus: &[usize]) -> Result<PeerCommand, String> {
        let perf = find_program("perf").ok_or("perf not found on the PATH")?;
        let argv = ["bench", "futex", "wake", "-t", "1", "-w", "1", "-s"];
        let mut command = vec![perf.display().to_string()];
        command.extend(argv.iter().map(|a| a.to_string()));
        Ok(PeerCommand::pinned(cpus, command))
    }

    fn parse(&self, stdout: &str, _stderr: &str) -> Result<BTreeMap<String, f64>, String> {
        let line = stdout
            .lines()
            .find(|l| l.contains("Wokeup") && l.contains("+-"))
            .ok_or("expected a line \"Wokeup 1 of 1 threads in <ms> ms (+-<%>%)\"")?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "in").ok_or("expected \"in <ms> ms\"")?;
        let ms: f64 = words.get(at + 1).and_then(|w| w.parse().ok()).ok_or("expected a number after \"in\"")?;
        Ok([(CASE.to_string(), ms * 1e6)].into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_wake_is_read_in_ns() {
        let out = "# Running 'futex/wake' benchmark:\nRun summary [PID 985]: blocking on 1 threads (at [private] \
                   futex 0x56068f61db58), waking up 1 at a time.\n\nWokeup 1 of 1 threads in 0.0033 ms (+-16.32%)\n";
        let v = PerfFutexWake.parse(out, "").unwrap();
        assert!((v[CASE] - 3300.0).abs() < 1e-6);
        assert!(PerfFutexWake.parse("[Run 1]: Wokeup 1 of 1 threads in 0.0030 ms", "").is_err());
    }
}
