//! The yield round on kernel threads (Ben-Asher & Feitelson 1991 §5.1): `sched_yield` among pinned loading threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::Os;
use overhead_harness::empty_loop;
use overhead_harness::Harness;
use overhead_machine::pin_current_thread;
use overhead_record::Outcome;
use overhead_runtime_api::yield_round::YieldRound;

impl YieldRound for Os {
    /// `load` yielding threads pinned to each CPU, started (and seen running) before the measurement, as
    /// the study's `ready` semaphore did; then a team of one measuring thread per CPU timing `sched_yield`
    /// loops.
    fn yield_round(&self, cpus: &[usize], load: usize, h: &Harness) -> anyhow::Result<Outcome> {
        let stop = AtomicBool::new(false);
        let started = AtomicUsize::new(0);
        let (report, refused) = std::thread::scope(|s| {
            let loaders: Vec<_> = cpus
                .iter()
                .flat_map(|&cpu| std::iter::repeat_n(cpu, load))
                .map(|cpu| {
                    let (stop, started) = (&stop, &started);
                    s.spawn(move || {
                        let refused =
                            pin_current_thread(cpu).err().map(|e| format!("load thread for CPU {cpu} not pinned: {e}"));
                        started.fetch_add(1, Ordering::Release);
                        while !stop.load(Ordering::Relaxed) {
                            std::thread::yield_now();
                        }
                        refused
                    })
                })
                .collect();
            while started.load(Ordering::Acquire) < loaders.len() {
                std::thread::yield_now();
            }
            let report = h.measure_team(
                cpus,
                |_, n| {
                    for _ in 0..n {
                        std::thread::yield_now();
                    }
                },
                |_, n| empty_loop(n),
            );
            stop.store(true, Ordering::Relaxed);
            let refused: Vec<String> =
                loaders.into_iter().filter_map(|t| t.join().expect("load thread panicked")).collect();
            (report, refused)
        });
        let mut outcome = Outcome::from(report);
        outcome.notes.extend(refused);
        Ok(outcome)
    }
}
