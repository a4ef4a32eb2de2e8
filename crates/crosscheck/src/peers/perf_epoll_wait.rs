//! `perf bench epoll wait` (Linux perf, tools/perf/bench/epoll-wait.c): worker threads call `epoll_wait` for one
//! event at a time on eventfds that a writer thread keeps writing, and read each; it prints the workers'
//! mean rate, operations per second. The writer writes every descriptor, then sleeps 500 ns (at least the
//! timer slack, 50 µs by default) before the next round: with one descriptor a worker's rate is the writer's
//! sleep, not epoll's cost (about 13,000 a second on a 2-vCPU guest). With 1024 descriptors a worker finds an
//! event ready at almost every call, so one operation is a ready `epoll_wait` and its eventfd `read`: what our
//! spinning waiter under epoll pays once the waker's write lands (`wake.handoff`'s `eventfd_epoll` point,
//! its wake latency).

use std::collections::BTreeMap;

use overhead_record::PeerCase;

use super::super::peer::{find_program, Peer, PeerCommand};

const CASE: &str = "epoll wait";

/// Descriptors the worker watches: enough that an event is ready at almost every call.
const DESCRIPTORS: &str = "1024";

/// perf's run, seconds (it then sleeps one more before it stops its writer).
const SECONDS: &str = "1";

/// `perf bench epoll wait` with one worker.
pub struct PerfEpollWait;

impl Peer for PerfEpollWait {
    fn name(&self) -> String {
        "perf bench epoll wait".into()
    }

    fn install(&self) -> String {
        "apt-get install linux-perf".into()
    }

    fn cases(&self) -> Vec<PeerCase> {
        vec![PeerCase {
            case: CASE.into(),
            point: "wake.handoff/runtime:os/mechanism:eventfd_epoll/waiter:spinning/placement:other_core".into(),
            conversion: "operations/s → ns per operation (10⁹ / rate); one worker on 1024 eventfds (-t 1 -f 1024)"
                .into(),
            cross_core: true,
            method_difference: "perf's worker blocks in epoll_wait (timeout −1) but almost always finds an event \
                                already written, so an operation is a ready epoll_wait and a read, averaged over a \
                                second of a writer writing in bulk; ours is the median latency of single wakes \
                                from the waker's write to the waiter's return, the waiter polling epoll_wait \
                                (timeout 0) on one eventfd on another core, so it adds the write's trip between \
                                the cores and up to one polling call"
                .into(),
            ours_key: Some("latency_ns_p50".into()),
        }]
    }

    fn command(&self, cpus: &[usize]) -> Result<PeerCommand, String> {
        let perf = find_program("perf").ok_or("perf not found on the PATH")?;
        let argv = ["bench", "epoll", "wait", "-t", "1", "-f", DESCRIPTORS, "-r", SECONDS];
        let mut command = vec![perf.display().to_string()];
        command.extend(argv.iter().map(|a| a.to_string()));
        Ok(PeerCommand::pinned(cpus, command))
    }

    fn parse(&self, stdout: &str, _stderr: &str) -> Result<BTreeMap<String, f64>, String> {
        let line = stdout
            .lines()
            .find(|l| l.starts_with("Averaged"))
            .ok_or("expected a line \"Averaged <n> operations/sec (+- <%>%), total secs = <s>\"")?;
        let rate: f64 = line
            .split_whitespace()
            .nth(1)
            .and_then(|w| w.parse().ok())
            .ok_or("expected a number after \"Averaged\"")?;
        if rate <= 0.0 {
            return Err(format!("perf counted no operations: {line:?}"));
        }
        Ok([(CASE.to_string(), 1e9 / rate)].into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_becomes_ns_per_operation() {
        let out = "# Running 'epoll/wait' benchmark:\nRun summary [PID 12911]: 1 threads monitoring on 1024 \
                   file-descriptors for 1 secs.\n\n[thread  0] fdmap: 0x55 ... 0x56 [ 1277933 ops/sec ]\n\n\
                   Averaged 1277933 operations/sec (+- 0.00%), total secs = 1\n";
        let v = PerfEpollWait.parse(out, "").unwrap();
        assert!((v[CASE] - 1e9 / 1_277_933.0).abs() < 1e-9);
        assert!(PerfEpollWait.parse("Averaged 0 operations/sec (+- 0.00%), total secs = 1", "").is_err());
        assert!(PerfEpollWait.parse("[thread  0] fdmap: 0x55 [ 12820 ops/sec ]", "").is_err());
    }
}
