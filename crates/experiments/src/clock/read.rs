//! `clock.read`: what one read of each time source costs, and the smallest step it shows.

use std::hint::black_box;
use std::time::Instant;

use crate::{empty_loop, Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use overhead_clock::clock_gettime_ns;
use overhead_harness::Harness;
use overhead_record::Metric;

/// The sources, by parameter value. The x86-64 counters come first; the rest exist everywhere.
const SOURCES: [&str; 8] = [
    "rdtsc",
    "rdtscp",
    "rdtsc_lfence",
    "clock_gettime_monotonic",
    "clock_gettime_monotonic_raw",
    "clock_gettime_realtime",
    "clock_gettime_monotonic_coarse",
    "instant_now",
];

/// One read of a time source, back to back in a loop (throughput of dependent-free reads, as
/// `perf bench`'s clock test and lmbench do), against the empty loop. Also reports the source's
/// `clock.read`'s parameters: `source` is one of [`SOURCES`] (the names the record has always used).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Params {
    source: String,
}

/// smallest observed step (`resolution_ns`) and, for POSIX clocks, `clock_getres` (`getres_ns`).
pub struct Read;

/// What a `clock.read` point reports beside its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReadResult {
    /// The smallest step between two different readings seen (ns).
    pub resolution_ns: f64,
    /// `clock_getres`'s answer for a POSIX clock (ns); absent for the other sources.
    pub getres_ns: Option<f64>,
}

impl Read {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = overhead_schema::experiments::clock::READ;
}

impl Experiment for Read {
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Read::ID,
            summary: "one read of each time source (TSC variants, clock_gettime clocks, Instant::now)",
            source: "Kiszka 2006 (time base reads on the timer hot path); docs/METHOD.md §8",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn overhead_runtime_api::RuntimeUnderTest) -> Vec<Planned> {
        SOURCES
            .iter()
            .map(|source| {
                let spec =
                    ctx.spec_of(self.id(), runtime, &Params { source: source.to_string() }, vec![ctx.home_cpu()]);
                if source.starts_with("rdtsc") && !cfg!(target_arch = "x86_64") {
                    Planned::Skip(spec, "the TSC instructions exist only on x86-64".into())
                } else {
                    Planned::Run(spec)
                }
            })
            .collect()
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let Params { source } = point.params()?;
        let source = source.as_str();
        let (outcome, step_ticks_to_ns): (Outcome, f64) = match source {
            #[cfg(target_arch = "x86_64")]
            "rdtsc" => (timed(h, tsc::plain), 1e9 / h.clock.hz),
            #[cfg(target_arch = "x86_64")]
            "rdtscp" => (timed(h, tsc::rdtscp), 1e9 / h.clock.hz),
            #[cfg(target_arch = "x86_64")]
            "rdtsc_lfence" => (timed(h, tsc::fenced), 1e9 / h.clock.hz),
            "clock_gettime_monotonic" => (timed(h, || clock_gettime_ns(libc::CLOCK_MONOTONIC)), 1.0),
            "clock_gettime_monotonic_raw" => (timed(h, || clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW)), 1.0),
            "clock_gettime_realtime" => (timed(h, || clock_gettime_ns(libc::CLOCK_REALTIME)), 1.0),
            "clock_gettime_monotonic_coarse" => (timed(h, || clock_gettime_ns(libc::CLOCK_MONOTONIC_COARSE)), 1.0),
            "instant_now" => (timed(h, instant_ns), 1.0),
            other => {
                anyhow::bail!("unknown clock.read source {other:?}; expected one of {SOURCES:?}")
            }
        };
        let read = reader(source);
        let result = ReadResult {
            resolution_ns: smallest_step(read) as f64 * step_ticks_to_ns,
            getres_ns: posix_clock(source).map(getres_ns),
        };
        Ok(outcome.with_result(&result))
    }
}

/// Measures `read` in the control loop's shape.
fn timed<R: Fn() -> u64>(h: &Harness, read: R) -> Outcome {
    h.measure(
        |n| {
            for _ in 0..n {
                black_box(read());
            }
        },
        empty_loop,
    )
    .into()
}

/// Nanoseconds since a fixed process-wide `Instant`, so `Instant::now` can be read as a `u64`.
fn instant_ns() -> u64 {
    static ORIGIN: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let origin = *ORIGIN.get_or_init(Instant::now);
    Instant::now().duration_since(origin).as_nanos() as u64
}

fn posix_clock(source: &str) -> Option<libc::clockid_t> {
    match source {
        "clock_gettime_monotonic" => Some(libc::CLOCK_MONOTONIC),
        "clock_gettime_monotonic_raw" => Some(libc::CLOCK_MONOTONIC_RAW),
        "clock_gettime_realtime" => Some(libc::CLOCK_REALTIME),
        "clock_gettime_monotonic_coarse" => Some(libc::CLOCK_MONOTONIC_COARSE),
        _ => None,
    }
}

/// The source as a plain function for the resolution probe.
fn reader(source: &str) -> fn() -> u64 {
    match source {
        #[cfg(target_arch = "x86_64")]
        "rdtsc" => tsc::plain,
        #[cfg(target_arch = "x86_64")]
        "rdtscp" => tsc::rdtscp,
        #[cfg(target_arch = "x86_64")]
        "rdtsc_lfence" => tsc::fenced,
        "clock_gettime_monotonic" => || clock_gettime_ns(libc::CLOCK_MONOTONIC),
        "clock_gettime_realtime" => || clock_gettime_ns(libc::CLOCK_REALTIME),
        "clock_gettime_monotonic_coarse" => || clock_gettime_ns(libc::CLOCK_MONOTONIC_COARSE),
        "instant_now" => instant_ns,
        _ => || clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW),
    }
}

/// Smallest non-zero difference between consecutive reads, in the source's ticks (0 when none showed). Reads
/// 2^20 times, and on until a step shows, for at most 50 ms of wall time, so a coarse clock (a jiffy, 1–10 ms)
/// shows its step too.
fn smallest_step(read: fn() -> u64) -> u64 {
    let deadline = clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW) + 50_000_000;
    let mut smallest = u64::MAX;
    let mut prev = read();
    // 2^20 reads, or more until a step shows: a coarse clock's read takes ~2.5 ns, so 2^20 of them can fall
    // inside one of its ~4 ms ticks. Never past the 50 ms deadline.
    for i in 0u64.. {
        let now = read();
        let step = now.wrapping_sub(prev);
        if step > 0 && step < smallest {
            smallest = step;
        }
        prev = now;
        if i % 1024 == 0
            && (clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW) > deadline || i >= 1 << 20 && smallest != u64::MAX)
        {
            break;
        }
    }
    if smallest == u64::MAX {
        0
    } else {
        smallest
    }
}

fn getres_ns(id: libc::clockid_t) -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; an unknown clock only returns EINVAL.
    unsafe { libc::clock_getres(id, &mut ts) };
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

#[cfg(target_arch = "x86_64")]
mod tsc {
    use core::arch::x86_64::{__rdtscp, _mm_lfence, _rdtsc};

    /// Bare `rdtsc`: may execute out of order with its neighbours.
    pub fn plain() -> u64 {
        // SAFETY: rdtsc exists on every x86-64 CPU and touches no memory.
        unsafe { _rdtsc() }
    }

    /// `rdtscp`: waits for earlier instructions to retire. Needs CPUID's RDTSCP bit, which every x86-64
    /// CPU since 2006–2008 reports; a CPU without it would fault with SIGILL, failing only this point.
    pub fn rdtscp() -> u64 {
        let mut aux = 0u32;
        // SAFETY: `aux` is a valid u32 for TSC_AUX; see above for the CPUID requirement.
        unsafe { __rdtscp(&mut aux) }
    }

    /// `lfence; rdtsc; lfence`: fully ordered against both neighbours.
    pub fn fenced() -> u64 {
        // SAFETY: lfence and rdtsc are baseline x86-64 and touch no memory.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_reads_forward_and_has_a_step() {
        for source in SOURCES {
            if source.starts_with("rdtsc") && !cfg!(target_arch = "x86_64") {
                continue;
            }
            let read = reader(source);
            let a = read();
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(read() > a, "{source} did not advance over 20 ms");
            assert!(smallest_step(read) > 0, "{source} showed no step");
        }
    }
}
