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
//! that parks them, `--start spin` on one they spin at (the harness's team barrier), instead of timing from
//! their spawn (the suite's way, `--start spawn`, the default with one chunk).
//!
//! Usage: `cargo run --release --example channel_suite -- [--messages M] [--scenario free|other_core|same_cpu]
//! [--producer-cpu P] [--consumer-cpu C] [--capacity 1024|unbounded|messages]... [--pattern spsc|mpsc]...
//! [--chunks K] [--start spawn|barrier|spin] [--timer suite|harness]... [--crate NAME]... [--repetitions R]`; prints one line
//! per case and timer: `impl pattern capacity scenario ns_per_message timer`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use overhead::experiments::msg::Throughput;
use overhead::experiments::Experiment as _;
use overhead::harness::{Harness, HarnessConfig, Mode};
use overhead::machine::{allowed_cpus, cpu_mask, pin_current_thread, set_affinity_mask};
use overhead::runtime_api::channel_impl::ChannelImpl;
use overhead::runtime_api::channel_throughput::{
    Capacity, ChannelThroughput as _, Pattern, StreamShape, TeamSeats, NEVER_FULL,
};

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
    /// When every thread has reached a barrier (threads spawned once for all chunks); the barrier parks.
    Barrier,
    /// As `barrier`, but the threads spin at it, as the harness's team barrier does.
    Spin,
}

/// A barrier for `parties` threads: `std::sync::Barrier` (threads park), or a spinning one (each thread
/// spins on a generation counter until the last arrives), as the harness's team barrier spins.
enum StartBarrier {
    Parking(Barrier),
    Spinning { parties: usize, arrived: AtomicUsize, generation: AtomicUsize },
}

impl StartBarrier {
    fn new(start: Start, parties: usize) -> StartBarrier {
        match start {
            Start::Spin => {
                StartBarrier::Spinning { parties, arrived: AtomicUsize::new(0), generation: AtomicUsize::new(0) }
            }
            _ => StartBarrier::Parking(Barrier::new(parties)),
        }
    }

    fn wait(&self) {
        match self {
            StartBarrier::Parking(b) => {
                b.wait();
            }
            StartBarrier::Spinning { parties, arrived, generation } => {
                let gen = generation.load(Ordering::Acquire);
                if arrived.fetch_add(1, Ordering::AcqRel) + 1 == *parties {
                    arrived.store(0, Ordering::Relaxed);
                    generation.store(gen + 1, Ordering::Release);
                } else {
                    while generation.load(Ordering::Acquire) == gen {
                        std::hint::spin_loop();
                    }
                }
            }
        }
    }
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
    /// Who times each case, in order: this program (`suite`, the suite's way), or `msg.throughput`'s own
    /// measurement (`harness`: the harness team of `runtimes/os/channels.rs`, in this process; the median of
    /// its kept batches). Both, one right after the other per case, pair the two methods within seconds
    /// on a host whose speed drifts over minutes.
    #[arg(long, value_enum, default_values = ["suite"])]
    timer: Vec<Timer>,
    /// Crates to run, in order (default: crossbeam, flume, std_mpsc).
    #[arg(long = "crate", value_enum, default_values = ["crossbeam", "flume", "std_mpsc"])]
    crates: Vec<Crate>,
    /// The harness's target batch duration for `--timer harness`, ms; default: `msg.throughput`'s own in the
    /// default mode (5 ms).
    #[arg(long)]
    target_ms: Option<f64>,
    /// Kept batch pairs of `--timer harness` (a probe process of the default mode keeps 3, after 1 warm-up).
    #[arg(long, default_value_t = 50)]
    repetitions: usize,
}

/// Who times a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Timer {
    /// This program: one `Instant` per stream.
    Suite,
    /// `msg.throughput`'s measurement through the harness (`--repetitions` kept batch pairs).
    Harness,
}

/// The crates the suite compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
enum Crate {
    Crossbeam,
    Flume,
    StdMpsc,
}

impl Crate {
    /// `msg.throughput`'s `impl:` for it.
    fn implementation(self) -> ChannelImpl {
        match self {
            Crate::Crossbeam => ChannelImpl::Crossbeam,
            Crate::Flume => ChannelImpl::Flume,
            Crate::StdMpsc => ChannelImpl::StdMpsc,
        }
    }
}

/// Where each thread goes: the producers' CPU and the receiver's, `None` for a free thread; `allowed` is
/// every CPU this process was given (read before any pinning), where free threads run.
#[derive(Debug, Clone)]
struct Cpus {
    producer: Option<usize>,
    consumer: Option<usize>,
    allowed: Vec<usize>,
}

/// `msg.throughput`'s own measurement of one case in this process (pinned as `cpus` says, or free), the
/// median of its kept batches, ns per message.
fn harness_case(h: &Harness, krate: Crate, pattern: PatternArg, capacity: CapacityArg, cpus: &Cpus) -> f64 {
    let capacity = match capacity {
        CapacityArg::N => Capacity::Bounded(N),
        CapacityArg::Messages => Capacity::Bounded(NEVER_FULL),
        CapacityArg::Unbounded => Capacity::Unbounded,
    };
    let mut h = h.clone();
    if capacity == Capacity::Bounded(NEVER_FULL) {
        h.config.max_batch_ops = NEVER_FULL as u64;
    }
    let pattern = match pattern {
        PatternArg::Spsc => Pattern::Spsc,
        PatternArg::Mpsc => Pattern::Mpsc,
    };
    let (producers, consumers) = pattern.parties();
    let pinned: Vec<usize> = match (cpus.producer, cpus.consumer) {
        (Some(p), Some(c)) => std::iter::repeat_n(p, producers).chain(std::iter::repeat_n(c, consumers)).collect(),
        _ => Vec::new(),
    };
    let parties = if pinned.is_empty() { TeamSeats::Free(&cpus.allowed) } else { TeamSeats::Pinned(&pinned) };
    let outcome = overhead::runtime_os::Os
        .throughput(krate.implementation(), StreamShape { pattern, capacity }, parties, &h)
        .expect("msg.throughput's measurement");
    let mut samples = outcome.measurement.samples_ns.clone();
    samples.sort_by(f64::total_cmp);
    eprintln!(
        "{} harness: batches of {} messages, ns per message min {:.1} median {:.1} max {:.1}",
        krate.implementation(),
        outcome.measurement.batch_ops,
        samples[0],
        samples[samples.len() / 2],
        samples[samples.len() - 1]
    );
    outcome.measurement.summary().expect("samples").median
}

/// One case timed the suite's way through `krate`'s API.
fn suite_case(args: &Args, krate: Crate, pattern: PatternArg, capacity: CapacityArg, cpus: &Cpus) -> f64 {
    let producers = match pattern {
        PatternArg::Spsc => 1,
        PatternArg::Mpsc => THREADS,
    };
    let bound = |chunk: usize| match capacity {
        CapacityArg::N => Some(N),
        CapacityArg::Messages => Some(chunk),
        CapacityArg::Unbounded => None,
    };
    match (krate, bound(0)) {
        (Crate::Crossbeam, _) => run(
            args,
            producers,
            cpus,
            |m| bound(m).map_or_else(crossbeam_channel::unbounded, crossbeam_channel::bounded),
            |rx| rx.recv().unwrap(),
            |tx, m| tx.send(m).unwrap(),
        ),
        (Crate::Flume, _) => run(
            args,
            producers,
            cpus,
            |m| bound(m).map_or_else(flume::unbounded, flume::bounded),
            |rx| rx.recv().unwrap(),
            |tx, m| tx.send(m).unwrap(),
        ),
        (Crate::StdMpsc, Some(_)) => run(
            args,
            producers,
            cpus,
            |m| std::sync::mpsc::sync_channel(bound(m).expect("bounded")),
            |rx| rx.recv().unwrap(),
            |tx, m| tx.send(m).unwrap(),
        ),
        (Crate::StdMpsc, None) => run(
            args,
            producers,
            cpus,
            |_| std::sync::mpsc::channel(),
            |rx| rx.recv().unwrap(),
            |tx, m| tx.send(m).unwrap(),
        ),
    }
}

/// One case: `producers` threads each send their share of every chunk through `send`, the calling thread
/// receives all of them through `recv`; total time of the timed streams over the messages, ns per message.
/// `open` makes the channel for a chunk's message count.
fn run<T: Clone + Send, R>(
    args: &Args,
    producers: usize,
    cpus: &Cpus,
    open: impl Fn(usize) -> (T, R),
    recv: impl Fn(&R) -> u64,
    send: impl Fn(&T, u64) + Sync,
) -> f64 {
    let chunk = args.messages / args.chunks / producers * producers;
    let (tx, rx) = open(chunk);
    // The receiving (calling) thread: pinned, or free on every allowed CPU (a free case after a pinned one
    // must not keep the earlier pin).
    let _ = match cpus.consumer {
        Some(cpu) => pin_current_thread(cpu),
        None => cpu_mask(&cpus.allowed).and_then(|mask| set_affinity_mask(&mask)),
    };
    let producer_cpu = cpus.producer;
    let pin_producer = move || {
        if let Some(cpu) = producer_cpu {
            let _ = pin_current_thread(cpu);
        }
    };
    let elapsed = if args.start == Start::Spawn && args.chunks == 1 {
        let start = Instant::now();
        std::thread::scope(|s| {
            for p in 0..producers {
                let (tx, send) = (tx.clone(), &send);
                s.spawn(move || {
                    pin_producer();
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
        let barrier = StartBarrier::new(args.start, producers + 1);
        let mut total = Duration::ZERO;
        std::thread::scope(|s| {
            for p in 0..producers {
                let (tx, send, barrier) = (tx.clone(), &send, &barrier);
                s.spawn(move || {
                    pin_producer();
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
    let second = args.consumer_cpu.unwrap_or(*allowed.get(1).unwrap_or(&allowed[0]));
    let (producer, consumer) = match args.scenario {
        Scenario::Free => (None, None),
        Scenario::SameCpu => (Some(first), Some(first)),
        Scenario::OtherCore => (Some(first), Some(second)),
    };
    let cpus = Cpus { producer, consumer, allowed };
    let harness = args.timer.contains(&Timer::Harness).then(|| {
        let time = overhead::clock::calibrate(false, overhead::clock::Calibration::DEFAULT);
        Harness::new(&time, {
            let base = HarnessConfig { repetitions: args.repetitions, ..HarnessConfig::for_mode(Mode::Default) };
            match args.target_ms {
                Some(ms) => HarnessConfig { target_batch_ns: ms * 1e6, ..base },
                None => Throughput.harness_config(base),
            }
        })
    });
    let scenario = args.scenario.to_possible_value().expect("named").get_name().to_owned();
    for &pattern in &args.pattern {
        let name = pattern.to_possible_value().expect("named").get_name().to_owned();
        for &capacity in &args.capacity {
            let label = capacity.to_possible_value().expect("named").get_name().to_owned();
            for &krate in &args.crates {
                for &timer in &args.timer {
                    let ns = match (timer, &harness) {
                        (Timer::Harness, Some(h)) => harness_case(h, krate, pattern, capacity, &cpus),
                        _ => suite_case(&args, krate, pattern, capacity, &cpus),
                    };
                    let timer = timer.to_possible_value().expect("named").get_name().to_owned();
                    println!("{} {name} {label} {scenario} {ns:.2} {timer}", krate.implementation());
                }
            }
        }
    }
}
