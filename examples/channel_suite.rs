//! An equivalent of crossbeam-channel's own benchmark suite (crossbeam-channel/benchmarks/{crossbeam-channel,
//! flume, mpsc}.rs: `MESSAGES` = 5 000 000, `THREADS` = 4, each case one run over all messages timed with
//! `std::time::Instant`, scoped threads, the main thread receiving), for the cross-check of `msg.throughput`
//! (`scripts/crosscheck-channels.sh` alternates the two) and for the experiments that find where the two
//! disagree (docs/METHOD.md §9, "Channel throughput: which question a number answers"). The suite cannot be
//! vendored; this runs the same scenario through each crate's API.
//!
//! Scenarios (`--scenario`): `free` is the suite's own — threads wherever the scheduler puts them; `other_core`
//! pins the producers to one CPU and the receiving (main) thread to another, as `msg.throughput`'s
//! `placement:other_core` points; `same_cpu` pins every thread to one CPU. Capacities (`--capacity`): `1024`
//! (`msg.throughput`'s N, a channel producers fill), `unbounded`, and `messages` (bounded by the run's message
//! count: the suite's `bounded_n`, a channel that never fills).
//!
//! Two knobs isolate the suspects of a disagreement: `--chunks K` splits the run into K consecutive streams of
//! MESSAGES / K through the same channel and threads (each started on a barrier and timed alone, the times
//! summed), as the harness's short batches are; `--start barrier` starts the threads together on a barrier
//! instead of timing from their spawn (the suite's way, `--start spawn`, the default with one chunk).
//!
//! Usage: `cargo run --release --example channel_suite -- [--messages M] [--scenario free|other_core|same_cpu]
//! [--producer-cpu P] [--consumer-cpu C] [--capacity 1024|unbounded|messages]... [--pattern spsc|mpsc]...
//! [--chunks K] [--start spawn|barrier]`; prints one line per case: `impl pattern capacity scenario
//! ns_per_message`.

use std::sync::Barrier;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use overhead::machine::{allowed_cpus, pin_current_thread};

/// `msg.throughput`'s N: the bound of the bounded channel that producers fill.
const N: usize = 1024;
/// Producers of `mpsc`: the suite's `THREADS`.
const THREADS: usize = 4;

/// Where the threads run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
enum Scenario {
    /// Unpinned: the scheduler places every thread (the suite's scenario).
    Free,
    /// Producers pinned to one CPU, the receiver to another.
    OtherCore,
    /// Every thread pinned to one CPU.
    SameCpu,
}

/// The channel's bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CapacityArg {
    /// 1024 messages.
    #[value(name = "1024")]
    N,
    /// No bound.
    Unbounded,
    /// The stream's whole message count (a chunk's, with `--chunks`): never full.
    Messages,
}

/// Who sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PatternArg {
    /// One producer.
    Spsc,
    /// `THREADS` producers.
    Mpsc,
}

/// How a stream's clock starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Start {
    /// Before the threads are spawned, as the suite (one chunk only).
    Spawn,
    /// When every thread has reached a barrier (threads spawned once for all chunks).
    Barrier,
}

/// The suite's scenario, with the knobs that tell its differences from `msg.throughput` apart.
#[derive(Debug, Parser)]
struct Args {
    /// Messages per case (the suite's MESSAGES).
    #[arg(long, default_value_t = 5_000_000)]
    messages: usize,
    /// Where the threads run.
    #[arg(long, value_enum, default_value = "other_core")]
    scenario: Scenario,
    /// The producers' CPU (pinned scenarios); default: the first allowed CPU.
    #[arg(long)]
    producer_cpu: Option<usize>,
    /// The receiver's CPU (`other_core`); default: the second allowed CPU.
    #[arg(long)]
    consumer_cpu: Option<usize>,
    /// Capacities to run, in order.
    #[arg(long, value_enum, default_values = ["1024"])]
    capacity: Vec<CapacityArg>,
    /// Patterns to run, in order.
    #[arg(long, value_enum, default_values = ["spsc", "mpsc"])]
    pattern: Vec<PatternArg>,
    /// Consecutive streams the messages are split into, each timed alone.
    #[arg(long, default_value_t = 1)]
    chunks: usize,
    /// How a stream's clock starts.
    #[arg(long, value_enum, default_value = "spawn")]
    start: Start,
}

/// Where each thread goes: the producers' CPU and the receiver's, `None` for a free thread.
#[derive(Debug, Clone, Copy)]
struct Cpus {
    producer: Option<usize>,
    consumer: Option<usize>,
}

/// One case: `producers` threads each send their share of every chunk through `send`, the calling thread
/// receives all of them through `recv`; total time of the timed streams over the messages, ns per message.
/// `open` makes the channel for a chunk's message count.
fn run<T: Clone + Send, R>(
    args: &Args,
    producers: usize,
    cpus: Cpus,
    open: impl Fn(usize) -> (T, R),
    recv: impl Fn(&R) -> u64,
    send: impl Fn(&T, u64) + Sync,
) -> f64 {
    let chunk = args.messages / args.chunks / producers * producers;
    let (tx, rx) = open(chunk);
    if let Some(cpu) = cpus.consumer {
        pin_current_thread(cpu).expect("pinning the receiving thread");
    }
    let elapsed = if args.start == Start::Spawn && args.chunks == 1 {
        let start = Instant::now();
        std::thread::scope(|s| {
            for p in 0..producers {
                let (tx, send) = (tx.clone(), &send);
                s.spawn(move || {
                    if let Some(cpu) = cpus.producer {
                        let _ = pin_current_thread(cpu);
                    }
                    for i in 0..chunk / producers {
                        send(&tx, (p * chunk + i) as u64);
                    }
                });
            }
            for _ in 0..chunk {
                std::hint::black_box(recv(&rx));
            }
        });
        start.elapsed()
    } else {
        let barrier = Barrier::new(producers + 1);
        let mut total = Duration::ZERO;
        std::thread::scope(|s| {
            for p in 0..producers {
                let (tx, send, barrier) = (tx.clone(), &send, &barrier);
                s.spawn(move || {
                    if let Some(cpu) = cpus.producer {
                        let _ = pin_current_thread(cpu);
                    }
                    for _ in 0..args.chunks {
                        barrier.wait();
                        for i in 0..chunk / producers {
                            send(&tx, (p * chunk + i) as u64);
                        }
                    }
                });
            }
            for _ in 0..args.chunks {
                barrier.wait();
                let start = Instant::now();
                for _ in 0..chunk {
                    std::hint::black_box(recv(&rx));
                }
                total += start.elapsed();
            }
        });
        total
    };
    elapsed.as_nanos() as f64 / (chunk * args.chunks) as f64
}

fn main() {
    let args = Args::parse();
    assert!(args.chunks >= 1 && args.messages >= args.chunks * THREADS, "--messages must be ≥ 4 × --chunks");
    let allowed = allowed_cpus();
    let first = args.producer_cpu.unwrap_or(allowed[0]);
    let cpus = match args.scenario {
        Scenario::Free => Cpus { producer: None, consumer: None },
        Scenario::SameCpu => Cpus { producer: Some(first), consumer: Some(first) },
        Scenario::OtherCore => Cpus {
            producer: Some(first),
            consumer: Some(args.consumer_cpu.unwrap_or(*allowed.get(1).unwrap_or(&allowed[0]))),
        },
    };
    let scenario = args.scenario.to_possible_value().expect("named").get_name().to_owned();
    for &pattern in &args.pattern {
        let (name, producers) = match pattern {
            PatternArg::Spsc => ("spsc", 1),
            PatternArg::Mpsc => ("mpsc", THREADS),
        };
        for &capacity in &args.capacity {
            let bound = |chunk: usize| match capacity {
                CapacityArg::N => Some(N),
                CapacityArg::Messages => Some(chunk),
                CapacityArg::Unbounded => None,
            };
            let label = capacity.to_possible_value().expect("named").get_name().to_owned();
            let ns = run(
                &args,
                producers,
                cpus,
                |m| bound(m).map_or_else(crossbeam_channel::unbounded, crossbeam_channel::bounded),
                |rx| rx.recv().unwrap(),
                |tx, m| tx.send(m).unwrap(),
            );
            println!("crossbeam {name} {label} {scenario} {ns:.2}");
            let ns = run(
                &args,
                producers,
                cpus,
                |m| bound(m).map_or_else(flume::unbounded, flume::bounded),
                |rx| rx.recv().unwrap(),
                |tx, m| tx.send(m).unwrap(),
            );
            println!("flume {name} {label} {scenario} {ns:.2}");
            let ns = match bound(0).map(|_| ()) {
                Some(()) => run(
                    &args,
                    producers,
                    cpus,
                    |m| std::sync::mpsc::sync_channel(bound(m).expect("bounded")),
                    |rx| rx.recv().unwrap(),
                    |tx, m| tx.send(m).unwrap(),
                ),
                None => run(
                    &args,
                    producers,
                    cpus,
                    |_| std::sync::mpsc::channel(),
                    |rx| rx.recv().unwrap(),
                    |tx, m| tx.send(m).unwrap(),
                ),
            };
            println!("std_mpsc {name} {label} {scenario} {ns:.2}");
        }
    }
}
