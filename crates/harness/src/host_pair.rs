//! The host's placement of two CPUs, as a cache line's round trip between them: the *fingerprint* every probe
//! process takes just before and just after its measurement (docs/METHOD.md §19).
//!
//! Why: on a shared host the hypervisor decides where the vCPUs run and changes its mind within seconds. One
//! contended cache-line round trip between the same two vCPUs reads 16–19, 30–40 or 110–130 ns on a 2-vCPU
//! KVM guest depending on whether the host put them on SMT siblings, one socket or two. A cross-core point's
//! processes then measure different machines. The speed probe (`speed.rs`) sees the CPU's clock, not this; a
//! short ping-pong does. It follows core-to-core-latency's CAS round trip (one thread flips a flag from even to
//! odd, the other from odd to even), cut to about five hundred round trips: with the responder's start a
//! fingerprint costs 100–200 µs, and two per process stay under 2% of a default run (docs/METHOD.md §19).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use overhead_clock::Ticks;
use overhead_machine::pin_current_thread;

use super::Harness;

/// Round trips per timed chunk.
const CHUNK: u64 = 64;

/// Timed chunks; the median is kept, so one chunk interrupted by the host or the kernel does not count.
const CHUNKS: usize = 8;

/// Untimed round trips first: the responder has started and both CPUs hold the line's code and data.
const WARMUP: u64 = 32;

/// How long either side waits for the other before giving up (the two threads ended up on one CPU, or the
/// host descheduled one for long): the fingerprint is then absent, never a time slice read as a round trip.
const PATIENCE: Duration = Duration::from_millis(50);

/// Spins between two looks at the clock while waiting: the clock stays off the round trip's path.
const SPINS_PER_LOOK: u32 = 4096;

/// One fingerprint: the median round trip and what taking it cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairRtt {
    /// Median over [`CHUNKS`] chunks of ns per round trip.
    pub rtt_ns: f64,
    /// Wall time of the whole fingerprint, the responder's start and end included (ns).
    pub cost_ns: f64,
}

/// The round trip of a cache line between CPUs `a` and `b` (distinct), timed on a thread pinned to `a`
/// against a responder pinned to `b`, then the calling thread pinned back to `home`.
///
/// `None` when `a == b`, either pinning is refused, or a side waited longer than [`PATIENCE`]: a number
/// that measured a scheduler's time slice rather than the line would put the process in a state it never
/// saw.
pub fn pair_rtt<C: Ticks>(h: &Harness<C>, a: usize, b: usize, home: usize) -> Option<PairRtt> {
    if a == b {
        return None;
    }
    let started = Instant::now();
    let flag = CachePadded::new(AtomicU64::new(0));
    let abandon = AtomicBool::new(false);
    let rounds = WARMUP + CHUNK * CHUNKS as u64;
    // A new thread inherits its creator's CPUs: spawned from a thread pinned to `a`, the responder would
    // first have to run on `a` — where the pinging side spins — to move itself away, and would wait a time
    // slice for it. So the caller moves to `b` first, the responder starts there, and the caller moves to `a`.
    if pin_current_thread(b).is_err() {
        let _ = pin_current_thread(home);
        return None;
    }
    let timed = std::thread::scope(|s| {
        let responder = s.spawn(|| respond(&flag, &abandon, rounds));
        let timed = if pin_current_thread(a).is_ok() { ping(h, &flag, &abandon) } else { None };
        abandon.store(true, Ordering::Relaxed);
        let _ = responder.join();
        timed
    });
    // Back where the measurement runs; a refusal here was already a refusal when the probe pinned first.
    let _ = pin_current_thread(home);
    let mut per_chunk = timed?;
    per_chunk.sort_by(f64::total_cmp);
    Some(PairRtt { rtt_ns: per_chunk[CHUNKS / 2], cost_ns: started.elapsed().as_secs_f64() * 1e9 })
}

/// The pinging side: round trip `i` turns the flag from `2i` to `2i + 1` and waits for the responder's
/// `2i + 2`. Returns ns per round trip for each timed chunk, `None` if it gave up waiting.
fn ping<C: Ticks>(h: &Harness<C>, flag: &AtomicU64, abandon: &AtomicBool) -> Option<Vec<f64>> {
    let mut next = 0u64;
    for _ in 0..WARMUP {
        round_trip(flag, abandon, &mut next)?;
    }
    let mut per_chunk = Vec::with_capacity(CHUNKS);
    for _ in 0..CHUNKS {
        let t0 = h.clock.start();
        for _ in 0..CHUNK {
            round_trip(flag, abandon, &mut next)?;
        }
        let t1 = h.clock.stop();
        per_chunk.push(h.clock.ticks_to_ns(t1.wrapping_sub(t0) as f64) / CHUNK as f64);
    }
    Some(per_chunk)
}

/// One round trip from the pinging side; `next` is the even value the flag holds when it starts.
#[inline(always)]
fn round_trip(flag: &AtomicU64, abandon: &AtomicBool, next: &mut u64) -> Option<()> {
    let even = *next;
    flag.store(even + 1, Ordering::Release);
    wait_for(flag, even + 2, abandon)?;
    *next = even + 2;
    Some(())
}

/// The responding side: answers each odd value with the next even one, `rounds` times, with a
/// compare-and-swap as core-to-core-latency does, so the line moves in exclusive state both ways.
fn respond(flag: &AtomicU64, abandon: &AtomicBool, rounds: u64) {
    for i in 0..rounds {
        let odd = 2 * i + 1;
        if wait_for(flag, odd, abandon).is_none() {
            return;
        }
        let _ = flag.compare_exchange(odd, odd + 1, Ordering::AcqRel, Ordering::Relaxed);
    }
}

/// Spins until `flag` reads `value`; `None` when the other side abandoned or [`PATIENCE`] ran out. The clock
/// and the abandon flag are read once every [`SPINS_PER_LOOK`] spins, so a round trip's path holds the
/// contended line alone.
#[inline(always)]
fn wait_for(flag: &AtomicU64, value: u64, abandon: &AtomicBool) -> Option<()> {
    let mut deadline: Option<Instant> = None;
    let mut spins = 0u32;
    while flag.load(Ordering::Acquire) != value {
        std::hint::spin_loop();
        spins = spins.wrapping_add(1);
        if spins % SPINS_PER_LOOK == 0 {
            if abandon.load(Ordering::Relaxed) {
                return None;
            }
            let now = Instant::now();
            match deadline {
                None => deadline = Some(now + PATIENCE),
                Some(d) if now > d => return None,
                Some(_) => {}
            }
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::quick_harness;

    /// Between two CPUs a round trip costs what a cache line's transfer there and back can: more than a few
    /// ns (no round trip through another core's cache is faster than an L2 hit) and far less than a time
    /// slice. Needs two CPUs this process may use; the test says so and passes on one.
    #[test]
    fn a_round_trip_between_two_cpus_is_a_cache_line_transfer() {
        let cpus = overhead_machine::allowed_cpus();
        let (Some(&a), Some(&b)) = (cpus.first(), cpus.get(1)) else {
            eprintln!("one CPU: no pair to fingerprint");
            return;
        };
        let h = quick_harness();
        // Under a loaded host a side may be descheduled past the patience: try a few times.
        let rtt = (0..5).find_map(|_| pair_rtt(&h, a, b, a)).expect("a fingerprint in five tries");
        assert!(rtt.rtt_ns > 5.0, "{rtt:?}");
        // At least half the chunks took the median or longer, and the cost (the wall time of the whole
        // fingerprint, measured by the same run) holds them all: the median is bounded by what this host took,
        // not by a constant that a loaded guest can exceed.
        let half = (CHUNK * CHUNKS as u64 / 2) as f64;
        assert!(rtt.cost_ns > rtt.rtt_ns * half, "the cost covers the round trips: {rtt:?}");
        assert!(rtt.rtt_ns < rtt.cost_ns / half, "a round trip is less than its share of the whole: {rtt:?}");
        // The caller is back on its home CPU.
        assert_eq!(overhead_machine::allowed_cpus(), vec![a]);
    }

    /// One CPU is no pair: nothing is timed, and the caller keeps its pinning.
    #[test]
    fn one_cpu_is_no_pair() {
        assert_eq!(pair_rtt(&quick_harness(), 0, 0, 0), None);
    }
}
