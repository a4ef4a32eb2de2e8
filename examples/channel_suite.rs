//! An equivalent of crossbeam-channel's own benchmark suite (crossbeam-channel/benchmarks/{crossbeam-channel,
//! flume, mpsc}.rs: `MESSAGES` = 5 000 000, `THREADS` = 4, each case one run over all messages timed with
//! `std::time::Instant`, scoped threads, the main thread receiving), for the cross-check of
//! must show": `msg.throughput`'s spsc and mpsc at capacity N against the same scenario timed the suite's way
//! (`scripts/crosscheck-channels.sh` alternates the two). The suite cannot be vendored; this runs the same
//! scenario through each crate's API.
//!
//! Differences from the suite, on purpose: the bound of the bounded-N channel is `msg.throughput`'s N (1024,
//! `experiments/msg/throughput.rs`), not the suite's MESSAGES (a harness batch is sized by time, so its N must
//! not depend on the message count; with MESSAGES as the bound the suite's channel never fills); and the
//! threads are pinned to the CPUs `msg.throughput`'s `placement:other_core` point uses: producers on the home
//! CPU, the receiving (main) thread on the other core's CPU.
//!
//! Usage: `cargo run --release --example channel_suite -- [MESSAGES] [PRODUCER_CPU] [CONSUMER_CPU]`; prints one
//! line per case: `impl pattern capacity ns_per_message`.

use std::time::Instant;

use overhead::machine::pin_current_thread;

/// The bound of the bounded-N channel: `msg.throughput`'s N.
const N: usize = 1024;
/// Producers of `mpsc`: the suite's `THREADS`.
const THREADS: usize = 4;

/// One case: `producers` threads pinned to `producer_cpu` each send their share of `messages` through `send`,
/// the calling thread (pinned to `consumer_cpu`) receives all of them through `recv`; ns per message.
fn run<T: Clone + Send>(
    messages: usize,
    producers: usize,
    producer_cpu: usize,
    (tx, recv): (T, impl Fn() -> u64),
    send: impl Fn(&T, u64) + Sync,
) -> f64 {
    let start = Instant::now();
    std::thread::scope(|s| {
        for p in 0..producers {
            let (tx, send) = (tx.clone(), &send);
            s.spawn(move || {
                let _ = pin_current_thread(producer_cpu);
                for i in 0..messages / producers {
                    send(&tx, (p * messages + i) as u64);
                }
            });
        }
        drop(tx);
        for _ in 0..messages / producers * producers {
            std::hint::black_box(recv());
        }
    });
    start.elapsed().as_nanos() as f64 / (messages / producers * producers) as f64
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("numeric arguments")).collect();
    let messages = args.first().copied().unwrap_or(5_000_000);
    let allowed = overhead::machine::allowed_cpus();
    let producer_cpu = args.get(1).copied().unwrap_or(allowed[0]);
    let consumer_cpu = args.get(2).copied().unwrap_or(*allowed.get(1).unwrap_or(&allowed[0]));
    pin_current_thread(consumer_cpu).expect("pinning the receiving thread");
    for (pattern, producers) in [("spsc", 1), ("mpsc", THREADS)] {
        let (tx, rx) = crossbeam_channel::bounded::<u64>(N);
        let ns = run(messages, producers, producer_cpu, (tx, || rx.recv().unwrap()), |tx, m| tx.send(m).unwrap());
        println!("crossbeam {pattern} {N} {ns:.2}");
        let (tx, rx) = flume::bounded::<u64>(N);
        let ns = run(messages, producers, producer_cpu, (tx, || rx.recv().unwrap()), |tx, m| tx.send(m).unwrap());
        println!("flume {pattern} {N} {ns:.2}");
        let (tx, rx) = std::sync::mpsc::sync_channel::<u64>(N);
        let ns = run(messages, producers, producer_cpu, (tx, || rx.recv().unwrap()), |tx, m| tx.send(m).unwrap());
        println!("std_mpsc {pattern} {N} {ns:.2}");
    }
}
