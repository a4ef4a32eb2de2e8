//! The peer tools, one file each (docs/METHOD.md §20).

mod core_to_core;
mod crossbeam;
mod cyclictest;
mod epcc;
mod lmbench;
mod perf_epoll_wait;
mod perf_futex_wake;
mod perf_sched_pipe;

use std::path::PathBuf;

use super::peer::Peer;

/// Every peer the crosscheck knows, with crossbeam's programs at `crossbeam` (paths the user gave).
pub fn all(crossbeam: &[PathBuf]) -> Vec<Box<dyn Peer>> {
    let mut peers: Vec<Box<dyn Peer>> = Vec::new();
    for program in lmbench::programs() {
        peers.push(Box::new(program));
    }
    peers.push(Box::new(perf_sched_pipe::PerfSchedPipe));
    peers.push(Box::new(perf_futex_wake::PerfFutexWake(perf_futex_wake::FutexBench::Wake)));
    peers.push(Box::new(perf_futex_wake::PerfFutexWake(perf_futex_wake::FutexBench::WakeParallel)));
    peers.push(Box::new(perf_epoll_wait::PerfEpollWait));
    peers.push(Box::new(cyclictest::Cyclictest));
    peers.push(Box::new(core_to_core::CoreToCore));
    peers.push(Box::new(epcc::Syncbench));
    for path in crossbeam {
        peers.push(Box::new(crossbeam::CrossbeamBench { path: path.clone() }));
    }
    peers
}
