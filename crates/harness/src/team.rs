//! Thread teams: T threads pinned to given CPUs, started together on a spin barrier, every thread
//! timing its own batches so fairness shows up as a result (docs/METHOD.md §9).

use std::sync::atomic::{AtomicU64, Ordering};

use super::{CountsPerOp, Harness, SpinBarrier, TeamReport};
use overhead_clock::Ticks;
use overhead_machine::{cpu_mask, pin_current_thread, process_counts, set_affinity_mask, Counts, ThreadCounters};

/// The control bit of a posted command; the rest is the batch's operation count (0 = stop).
const CONTROL: u64 = 1 << 63;

/// The counted bit of a posted command: an untimed batch run with the kernel's counters open, after the
/// kept pairs ([`super::HarnessConfig::counted_pairs`]; docs/METHOD.md §18).
const COUNTED: u64 = 1 << 62;

/// Where one thread of a team may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seat<'a> {
    /// Pinned to this CPU.
    Cpu(usize),
    /// Free to run on any of these CPUs (non-empty): the scheduler places and moves it, as users run
    /// threads they never pin (crossbeam-channel's suite's threads; docs/METHOD.md §9).
    AnyOf(&'a [usize]),
}

/// What a team's sample is, per repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeamTiming {
    /// The slowest thread's own batch time, each thread timed from the moment it leaves the start barrier on
    /// its own clock read: no clock read is compared across CPUs. Right for threads that work side by side
    /// (contention, fairness); it undercounts a team whose threads take turns on one CPU, since a thread's
    /// clock starts only when the scheduler first runs it.
    SlowestThread,
    /// From the earliest start to the latest end over the team's threads: the stream's wall time, from when
    /// the first party leaves the start barrier to the last receive (docs/METHOD.md §9, "One stream, one
    /// span"). Compares clock reads of different threads, so it needs a time base shared by the team's CPUs:
    /// clock_gettime is one, and so is an invariant TSC on a machine whose kernel synchronised it at boot
    /// (`clock.offset` measures what is left; microseconds at worst against half-millisecond batches).
    Span,
}

impl<C: Ticks> Harness<C> {
    /// Measures `test` against `control` run by one thread per entry of `cpus`, each pinned to its CPU, the
    /// team's sample being its slowest thread ([`TeamTiming::SlowestThread`]); see
    /// [`Harness::measure_seated_team`].
    pub fn measure_team<T, K>(&self, cpus: &[usize], test: T, control: K) -> TeamReport
    where
        T: Fn(usize, u64) + Sync,
        K: Fn(usize, u64) + Sync,
    {
        let seats: Vec<Seat> = cpus.iter().map(|&c| Seat::Cpu(c)).collect();
        self.measure_seated_team(&seats, TeamTiming::SlowestThread, test, control)
    }

    /// Measures `test` against `control` run by one thread per entry of `seats`, each pinned to its CPU or
    /// free within its CPUs. Threads that may share a CPU (a CPU pinned twice, or more free threads than
    /// CPUs) yield to each other between batches instead of spinning.
    ///
    /// Both bodies get `(thread_index, n)`. Thread 0 leads: it posts each batch's size and kind, all
    /// threads start it together after a spin barrier, and a second barrier ends it; the leader sizes N
    /// on the team's batch time ([`super::sizing`]), so no thread's batch runs far past the target (a
    /// thread that shares its CPU with another process, each operation a time slice, would otherwise run a
    /// batch sized for its fast partner: seconds instead of half a millisecond). A repetition's team sample
    /// follows `timing` (the team finishes when its last member does). Per-thread samples, each thread's own
    /// batch times, are kept in `per_thread_ns`.
    pub fn measure_seated_team<T, K>(&self, seats: &[Seat], timing: TeamTiming, test: T, control: K) -> TeamReport
    where
        T: Fn(usize, u64) + Sync,
        K: Fn(usize, u64) + Sync,
    {
        assert!(!seats.is_empty(), "a team needs at least one thread");
        let shared = TeamShared::new(seats);
        let logs: Vec<TeamLog> = std::thread::scope(|s| {
            let handles: Vec<_> = seats
                .iter()
                .enumerate()
                .map(|(index, &seat)| {
                    let member = Member { h: self, shared: &shared, index, timing, test: &test, control: &control };
                    s.spawn(move || member.run(seat))
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("team thread panicked")).collect()
        });
        self.assemble_team(seats, timing, logs)
    }

    /// Splits every thread's batch log into kept control/test pairs and builds the measurement.
    fn assemble_team(&self, seats: &[Seat], timing: TeamTiming, logs: Vec<TeamLog>) -> TeamReport {
        let reps = self.config.repetitions;
        // The leader's plan knows the N it settled on (sizing may have re-run an N to confirm it).
        let n = logs[0].n.expect("thread 0 leads and reports its N");
        self.note_sized(n);
        // Per thread: its kept control and test batches, in order.
        let kept: Vec<KeptPairs> = logs.iter().map(|log| KeptPairs::of(&log.batches, reps)).collect();
        let team_control: Vec<u64> = (0..reps).map(|r| team_ticks(timing, kept.iter().map(|k| k.control[r]))).collect();
        let team_test: Vec<u64> = (0..reps).map(|r| team_ticks(timing, kept.iter().map(|k| k.test[r]))).collect();
        let per_thread_ns = kept
            .iter()
            .map(|k| self.per_op(n, &durations(&k.test), &durations(&k.control), Vec::new()).samples_ns)
            .collect();
        let pin_failures = seats
            .iter()
            .zip(&logs)
            .filter_map(|(seat, log)| log.pin_error.as_ref().map(|e| (seat.first_cpu(), e.clone())))
            .collect();
        let mut measurement = self.per_op(n, &team_test, &team_control, per_thread_ns);
        measurement.counts_per_op = CountsPerOp::from_pairs(n, &team_counts(&logs, self.config.counted_pairs));
        TeamReport { measurement, pin_failures }
    }

    /// One batch of `body`, as [`Harness::time_batch`], but its two clock reads (start, end) in ticks.
    fn time_batch_edges<F: FnMut(u64)>(&self, body: &mut F, n: u64) -> (u64, u64) {
        let t0 = self.clock.start();
        body(n);
        (t0, self.clock.stop())
    }
}

/// One repetition's team time in ticks from its threads' (start, end) reads: the slowest thread's
/// duration, or the span from the earliest start to the latest end (never less than the slowest thread).
fn team_ticks(timing: TeamTiming, edges: impl Iterator<Item = (u64, u64)>) -> u64 {
    let (mut slowest, mut start, mut end) = (0u64, u64::MAX, 0u64);
    for (t0, t1) in edges {
        slowest = slowest.max(t1.wrapping_sub(t0));
        start = start.min(t0);
        end = end.max(t1);
    }
    match timing {
        TeamTiming::SlowestThread => slowest,
        TeamTiming::Span => end.wrapping_sub(start).max(slowest),
    }
}

/// Whether two threads of a team may find themselves on one CPU: a CPU pinned twice, or free threads that
/// outnumber the CPUs they may use (with the team's pinned CPUs among them).
fn may_share_cpus(seats: &[Seat]) -> bool {
    let mut cpus: Vec<usize> = Vec::new();
    let mut pinned_twice = false;
    for seat in seats {
        match *seat {
            Seat::Cpu(c) => {
                pinned_twice |= cpus.contains(&c);
                cpus.push(c);
            }
            Seat::AnyOf(set) => cpus.extend(set),
        }
    }
    let free = seats.iter().any(|s| matches!(s, Seat::AnyOf(_)));
    cpus.sort_unstable();
    cpus.dedup();
    pinned_twice || (free && seats.len() > cpus.len())
}

/// Puts the calling thread on its seat: pinned to one CPU, or allowed on a set (the thread would otherwise
/// inherit its spawner's mask: a probe's main thread is pinned to the point's home CPU).
fn take_seat(seat: Seat) -> std::io::Result<()> {
    match seat {
        Seat::Cpu(cpu) => pin_current_thread(cpu),
        Seat::AnyOf(cpus) => cpu_mask(cpus).and_then(|mask| set_affinity_mask(&mask)),
    }
}

impl Seat<'_> {
    /// The CPU a refused pinning is reported under: the seat's CPU, or the first of its set.
    fn first_cpu(&self) -> usize {
        match *self {
            Seat::Cpu(c) => c,
            Seat::AnyOf(set) => set.first().copied().unwrap_or(0),
        }
    }
}

/// One batch's (start, end) clock reads, ticks.
type Edges = (u64, u64);

/// One thread's kept batches: the last `2 × repetitions` of its log, control and test alternating.
struct KeptPairs {
    control: Vec<Edges>,
    test: Vec<Edges>,
}

impl KeptPairs {
    fn of(log: &[Edges], reps: usize) -> KeptPairs {
        let tail = &log[log.len() - 2 * reps..];
        KeptPairs {
            control: tail.iter().step_by(2).copied().collect(),
            test: tail.iter().skip(1).step_by(2).copied().collect(),
        }
    }
}

/// Each batch's duration in ticks.
fn durations(edges: &[Edges]) -> Vec<u64> {
    edges.iter().map(|e| e.1.wrapping_sub(e.0)).collect()
}

/// What a team's threads share: the barrier they meet at, the leader's command (the next batch's N and kind,
/// 0 to stop), and the last batch's times, which every thread posts and the leader takes.
struct TeamShared {
    barrier: SpinBarrier,
    command: AtomicU64,
    /// The team's last batch, in ticks: what the leader sizes N on. With span timing every thread also posts
    /// its start and end, for the span.
    slowest: AtomicU64,
    first_start: AtomicU64,
    last_end: AtomicU64,
}

impl TeamShared {
    /// The shared state of a team in `seats`: threads that may share a CPU (an oversubscribed team) yield at
    /// the barrier instead of spinning, since a thread spinning would delay the others' clock stops by its
    /// whole spin.
    fn new(seats: &[Seat]) -> TeamShared {
        TeamShared {
            barrier: if may_share_cpus(seats) {
                SpinBarrier::yielding(seats.len())
            } else {
                SpinBarrier::new(seats.len())
            },
            command: AtomicU64::new(0),
            slowest: AtomicU64::new(0),
            first_start: AtomicU64::new(u64::MAX),
            last_end: AtomicU64::new(0),
        }
    }

    /// The team's last batch in ticks by `timing`, the shared times reset for the next. Only the leader
    /// calls it, while every other thread waits at the barrier: nobody writes the shared times then.
    fn take_last(&self, timing: TeamTiming) -> u64 {
        let own = self.slowest.swap(0, Ordering::Relaxed);
        let start = self.first_start.swap(u64::MAX, Ordering::Relaxed);
        let end = self.last_end.swap(0, Ordering::Relaxed);
        match timing {
            TeamTiming::SlowestThread => own,
            TeamTiming::Span => end.wrapping_sub(start).max(own),
        }
    }

    /// Posts one thread's timed batch, `(start, end)` in ticks.
    fn post(&self, edges: Edges) {
        self.slowest.fetch_max(edges.1.wrapping_sub(edges.0), Ordering::Relaxed);
        self.first_start.fetch_min(edges.0, Ordering::Relaxed);
        self.last_end.fetch_max(edges.1, Ordering::Relaxed);
    }
}

/// One thread of a team: its index (0 leads), what it runs and what it shares.
struct Member<'a, C, T, K> {
    h: &'a Harness<C>,
    shared: &'a TeamShared,
    index: usize,
    timing: TeamTiming,
    test: &'a T,
    control: &'a K,
}

impl<C: Ticks, T: Fn(usize, u64) + Sync, K: Fn(usize, u64) + Sync> Member<'_, C, T, K> {
    /// The thread's life: take its seat, then run what the leader posts until it posts 0. The leader plans
    /// each batch from the last one's time; a counted batch is run with the kernel's counters open and not
    /// timed; a timed one is posted for the leader.
    fn run(&self, seat: Seat) -> TeamLog {
        let pin_error = take_seat(seat).err().map(|e| e.to_string());
        let config = &self.h.config;
        // This thread's kernel counters, opened for the counted batches only (a thread with counters open pays
        // for them at every context switch; docs/METHOD.md §18).
        let mut counters: Option<Result<ThreadCounters, String>> = None;
        let mut counts_log: Vec<Option<Counts>> = Vec::with_capacity(2 * config.counted_pairs);
        let mut process_before: Option<Counts> = None;
        let mut log = Vec::with_capacity(64 + 2 * (config.warmup + config.repetitions));
        let mut sense = false;
        let mut plan = (self.index == 0).then(|| LeaderPlan::new(self.h));
        loop {
            if let Some(plan) = plan.as_mut() {
                let next = plan.next((!log.is_empty()).then(|| self.shared.take_last(self.timing)));
                // Before a counted batch, the process's switches and its children's counts while every other
                // thread waits at the barrier: with the reading after the batch's closing barrier, the window
                // holds every thread's whole batch.
                if next & COUNTED != 0 {
                    process_before = process_counts().ok();
                }
                self.shared.command.store(next, Ordering::Relaxed);
            }
            self.shared.barrier.wait(&mut sense);
            let cmd = self.shared.command.load(Ordering::Relaxed);
            if cmd == 0 {
                break;
            }
            let n = cmd & !(CONTROL | COUNTED);
            if cmd & COUNTED != 0 {
                let counted = self.counted_batch(cmd, n, &mut counters, &mut sense, &mut process_before);
                counts_log.push(counted);
                continue;
            }
            let edges = if cmd & CONTROL != 0 {
                self.h.time_batch_edges(&mut |n| (self.control)(self.index, n), n)
            } else {
                self.h.time_batch_edges(&mut |n| (self.test)(self.index, n), n)
            };
            log.push(edges);
            self.shared.post(edges);
            self.shared.barrier.wait(&mut sense);
        }
        TeamLog { batches: log, counts: counts_log, pin_error, n: plan.map(|p| p.n) }
    }

    /// One counted (untimed) batch of `cmd`'s kind and `n` operations between two readings of this thread's
    /// counters, opened on first use; the leader adds the process's own counts since `process_before`.
    fn counted_batch(
        &self,
        cmd: u64,
        n: u64,
        counters: &mut Option<Result<ThreadCounters, String>>,
        sense: &mut bool,
        process_before: &mut Option<Counts>,
    ) -> Option<Counts> {
        let mut counters = counters.get_or_insert_with(ThreadCounters::open).as_mut().ok();
        let before = counters.as_mut().and_then(|c| c.read().ok());
        if cmd & CONTROL != 0 {
            (self.control)(self.index, n);
        } else {
            (self.test)(self.index, n);
        }
        let after = counters.as_mut().and_then(|c| c.read().ok());
        self.shared.barrier.wait(sense);
        let counted = before.zip(after).map(|(b, a)| a.since(b));
        if self.index != 0 {
            return counted;
        }
        let process = process_before.take().zip(process_counts().ok()).map(|(before, after)| after.since(before));
        counted.map(|c| c.with_process(process))
    }
}

/// One team thread's log.
struct TeamLog {
    /// Every batch as (start, end) clock reads in ticks.
    batches: Vec<Edges>,
    /// The counted batches' kernel events, control and test alternating, where this thread's counters
    /// could be read.
    counts: Vec<Option<Counts>>,
    /// Its refused pinning.
    pin_error: Option<String>,
    /// The N the leader settled on (leader only).
    n: Option<u64>,
}

/// The team's kernel events per counted pair, (control's, test's), summed over its threads from the leader's
/// (the process's switches are the leader's reading, taken at the barriers around the batch: [`Counts::plus`]);
/// a pair some thread could not count is left out.
fn team_counts(logs: &[TeamLog], pairs: usize) -> Vec<(Counts, Counts)> {
    (0..pairs)
        .filter_map(|r| {
            let mut threads =
                logs.iter().map(|log| Some((log.counts.get(2 * r).copied()??, log.counts.get(2 * r + 1).copied()??)));
            let mut sum = threads.next()??;
            for thread in threads {
                let (control, test) = thread?;
                sum = (sum.0.plus(control), sum.1.plus(test));
            }
            Some(sum)
        })
        .collect()
}

/// The leader's schedule: test batches growing to the target ([`super::sizing`]), then warm-up and kept pairs
/// (control, test), the first warm-up a control alone, then the counted pairs, then stop.
struct LeaderPlan {
    target_ticks: f64,
    max_ops: u64,
    n: u64,
    sizing: bool,
    /// `n` is the batch-size hint; its first batch decides whether it is kept (see `Harness::with_batch_hint`).
    trying_hint: bool,
    /// The last sizing batch reached the target; the next one (same N) must too.
    confirming: bool,
    /// Sizing stepped back from a batch far past the target ([`super::sizing::shrink_overshoot`]); it does once.
    stepped_back: bool,
    /// The first of the two batches that reached the target (ticks), while `confirming`.
    first_hit: f64,
    /// The first warm-up's control batch is still to post: sizing's last test batch (the hint or the
    /// confirmation, of N operations) was that warm-up's test, as in `Harness::measure`.
    warm_control: bool,
    pairs_left: usize,
    /// Counted (untimed) pairs still to post after the kept ones, of `counted` in all.
    counted_left: usize,
    counted: usize,
    next_is_control: bool,
}

impl LeaderPlan {
    fn new<C: Ticks>(h: &Harness<C>) -> LeaderPlan {
        let hint = h.take_batch_hint();
        LeaderPlan {
            target_ticks: h.target_ticks(),
            max_ops: h.config.max_batch_ops,
            n: hint.unwrap_or(1),
            sizing: true,
            trying_hint: hint.is_some(),
            confirming: false,
            stepped_back: false,
            first_hit: 0.0,
            warm_control: h.config.warmup > 0,
            pairs_left: h.config.warmup.saturating_sub(1) + h.config.repetitions,
            counted_left: h.config.counted_pairs,
            counted: h.config.counted_pairs,
            next_is_control: true,
        }
    }

    /// The next command given the leader's last batch time (None before the first batch).
    fn next(&mut self, last_ticks: Option<u64>) -> u64 {
        if self.sizing && self.trying_hint {
            if let Some(t) = last_ticks {
                self.trying_hint = false;
                if super::hint_kept(self.n, t as f64, self.target_ticks) {
                    self.sizing = false;
                } else {
                    self.n = 1;
                    return self.n;
                }
            }
        }
        if self.sizing {
            match last_ticks {
                None => return self.n,
                Some(t) if (t as f64) < self.target_ticks && self.n < self.max_ops => {
                    // Below the target (or an unconfirmed hit whose second batch fell short): grow.
                    self.confirming = false;
                    self.n = super::sizing::next_batch_ops(self.n, t as f64, self.target_ticks, self.max_ops);
                    return self.n;
                }
                // A first hit is confirmed by a second batch of the same N, as in `Harness::measure`.
                Some(t) if !self.confirming && self.n < self.max_ops => {
                    (self.confirming, self.first_hit) = (true, t as f64);
                    return self.n;
                }
                // Both far past the target: one step back, and sizing goes on from there, as in
                // `Harness::measure` (a batch at the op cap is not confirmed, and not stepped back from).
                Some(t) if self.confirming && !self.stepped_back => {
                    let shorter = (t as f64).min(self.first_hit);
                    match super::sizing::shrink_overshoot(self.n, shorter, self.target_ticks) {
                        Some(smaller) => {
                            (self.n, self.stepped_back, self.confirming) = (smaller, true, false);
                            return self.n;
                        }
                        None => self.sizing = false,
                    }
                }
                Some(_) => self.sizing = false,
            }
        }
        if self.warm_control {
            self.warm_control = false;
            return self.n | CONTROL;
        }
        if self.next_is_control {
            let counted = if self.pairs_left > 0 {
                self.pairs_left -= 1;
                0
            } else if self.counted_left > 0 {
                self.counted_left -= 1;
                COUNTED
            } else {
                return 0;
            };
            self.next_is_control = false;
            self.n | CONTROL | counted
        } else {
            self.next_is_control = true;
            // The test batch of a counted pair is counted too: the pairs left say which this is.
            let counted = if self.pairs_left == 0 && self.counted_left < self.counted { COUNTED } else { 0 };
            self.n | counted
        }
    }
}

#[cfg(test)]
mod tests {
    use std::hint::black_box;
    use std::sync::atomic::{AtomicU64, Ordering};

    use std::sync::Mutex;

    use crate::testing::{quick_harness, scripted_config, scripted_harness, ScriptedClock};
    use overhead_machine::allowed_cpus;

    #[test]
    fn team_keeps_every_thread_and_every_repetition() {
        let h = quick_harness();
        let cpus = allowed_cpus();
        let team: Vec<usize> = (0..2).map(|i| cpus[i % cpus.len()]).collect();
        let ops = [AtomicU64::new(0), AtomicU64::new(0)];
        let report = h.measure_team(
            &team,
            |thread, n| {
                for i in 0..n {
                    black_box(i);
                }
                ops[thread].fetch_add(n, Ordering::Relaxed);
            },
            |_, _| {},
        );
        let m = &report.measurement;
        assert_eq!(m.samples_ns.len(), h.config.repetitions);
        assert_eq!(m.per_thread_ns.len(), 2);
        assert!(m.per_thread_ns.iter().all(|t| t.len() == h.config.repetitions));
        // Every thread ran the same batches: sizing (at least a batch of N and its confirmation, more when
        // doubling reached N or a confirmation fell short under load; 1 + 2 + … + N/2 = N − 1 when N is the op
        // cap), then (warm-up + kept) × N, less the first warm-up's test (sizing's last batch was it).
        let n = m.batch_ops;
        let (a, b) = (ops[0].load(Ordering::Relaxed), ops[1].load(Ordering::Relaxed));
        assert_eq!(a, b, "both threads run every batch");
        let kept = (h.config.warmup - 1 + h.config.repetitions) as u64 * n;
        let sizing = if n < h.config.max_batch_ops { 2 * n } else { n - 1 };
        assert!(a >= sizing + kept, "thread ops {a} < sizing + kept for N = {n}");
    }

    /// A team's sample is, per kept pair, the slowest thread's test batch less the slowest thread's control
    /// batch, over N; each thread's own samples are its test less its control. Here one thread in turn is slow
    /// (30 ticks an operation against 10) and every control costs 2, so each team sample is 28 ticks, 14 ns
    /// at 2 GHz, whichever thread was slow; a mean over threads (or a median of the per-thread samples)
    /// would give less. N follows the slowest thread's batches (the leader is the slow one while sizing): it
    /// settles at 64 against 1000 ticks (1920 ticks; 32 give 960). Every thread runs the same batches in the
    /// same order.
    #[test]
    fn the_team_sample_is_the_slowest_thread_per_operation() {
        const THREADS: usize = 3;
        let clock = ScriptedClock::new(2e9).with_read_ticks(5);
        let h = scripted_harness(clock, scripted_config(&clock, 1000.0, 1, 3));
        let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(THREADS).collect();
        // Per thread: the control batches it has run (warm-up included), and every batch as (control?, N).
        let pairs: [AtomicU64; THREADS] = Default::default();
        let ran: [Mutex<Vec<(bool, u64)>>; THREADS] = Default::default();
        let slow = |thread: usize| pairs[thread].load(Ordering::Relaxed) % THREADS as u64 == thread as u64;
        let report = h.measure_team(
            &cpus,
            |thread, n| {
                ran[thread].lock().unwrap().push((false, n));
                clock.advance(n * if slow(thread) { 30 } else { 10 })
            },
            |thread, n| {
                ran[thread].lock().unwrap().push((true, n));
                pairs[thread].fetch_add(1, Ordering::Relaxed);
                clock.advance(n * 2)
            },
        );
        let m = &report.measurement;
        // Sizing runs no control, so thread 0 is the slow one (30 ticks an operation and a read of 5): 32
        // operations take 965 ticks, past half the target, and predict 1.1 × 1000 / 965 × 32 = 36.5,
        // rounded up to 40 (1205 ticks).
        assert_eq!(m.batch_ops, 40);
        assert_eq!(h.first_sized_batch_ops(), Some(40));
        assert_eq!(m.samples_ns, vec![14.0; 3]);
        assert_eq!(m.control_ns, vec![(2 * 40 + 5) as f64 / 2.0 / 40.0; 3], "control and read, in ns per operation");
        // Kept pairs 2, 3, 4: slow threads 2, 0, 1.
        assert_eq!(m.per_thread_ns, vec![vec![4.0, 14.0, 4.0], vec![4.0, 4.0, 14.0], vec![14.0, 4.0, 4.0]]);
        // Sizing, the warm-up's control (sizing's last batch was its test), then the kept pairs.
        let mut expected: Vec<(bool, u64)> = [1, 2, 4, 8, 16, 32, 40, 40].map(|n| (false, n)).into();
        expected.push((true, 40));
        expected.extend([(true, 40), (false, 40)].repeat(3));
        for (thread, ran) in ran.iter().enumerate() {
            assert_eq!(*ran.lock().unwrap(), expected, "thread {thread}");
        }
    }

    /// The team's leader steps back from an overshooting batch as `Harness::measure` does: from the 8th
    /// batch (N = 128 after 1 … 64, 3 ticks an operation and reads of 5) every operation costs 300, so the
    /// confirmed 128 (38405 ticks) steps back to 1.1 × 1000 / 38405 × 128 = 3.7, rounded up to 4, which
    /// sizing confirms (1205 ticks); the warm-up then runs its control alone.
    #[test]
    fn the_leader_steps_back_from_a_batch_far_past_the_target() {
        let clock = ScriptedClock::new(1e9).with_read_ticks(5);
        let h = scripted_harness(clock, scripted_config(&clock, 1000.0, 1, 3));
        let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(2).collect();
        let ran: [Mutex<Vec<(bool, u64)>>; 2] = Default::default();
        let report = h.measure_team(
            &cpus,
            |thread, n| {
                let mut mine = ran[thread].lock().unwrap();
                mine.push((false, n));
                clock.advance(n * if mine.len() >= 8 { 300 } else { 3 });
            },
            |thread, n| ran[thread].lock().unwrap().push((true, n)),
        );
        assert_eq!(report.measurement.batch_ops, 4);
        let mut expected: Vec<(bool, u64)> = [1, 2, 4, 8, 16, 32, 64, 128, 128, 4, 4].map(|n| (false, n)).into();
        expected.push((true, 4));
        expected.extend([(true, 4), (false, 4)].repeat(3));
        assert_eq!(*ran[0].lock().unwrap(), expected);
        assert_eq!(report.measurement.samples_ns, vec![300.0; 3]);
    }

    /// A team keeps a hint of one operation that outlasts the target, as `Harness::measure` does: the hinted
    /// batch is the warm-up's test, its control follows alone, then the kept pairs.
    #[test]
    fn the_leader_keeps_a_hint_of_one_long_operation() {
        let clock = ScriptedClock::new(1e9).with_read_ticks(5);
        let h = scripted_harness(clock, scripted_config(&clock, 1000.0, 1, 3)).with_batch_hint(Some(1));
        let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(2).collect();
        let ran: [Mutex<Vec<(bool, u64)>>; 2] = Default::default();
        let report = h.measure_team(
            &cpus,
            |thread, n| {
                ran[thread].lock().unwrap().push((false, n));
                clock.advance(n * 50_000);
            },
            |thread, n| ran[thread].lock().unwrap().push((true, n)),
        );
        assert_eq!(report.measurement.batch_ops, 1);
        let mut expected = vec![(false, 1), (true, 1)];
        expected.extend([(true, 1), (false, 1)].repeat(3));
        assert_eq!(*ran[0].lock().unwrap(), expected);
    }

    /// N is sized on the slowest thread's batches, not the leader's: here thread 1 takes 100 ticks an operation
    /// and the leader 1, against a 1000-tick target, so N settles at 11 (8 operations take 805 ticks on
    /// thread 1 and predict 10.9; 11 take 1105), where the leader's own batches would have taken N past 1000.
    #[test]
    fn n_is_sized_on_the_slowest_thread() {
        let clock = ScriptedClock::new(2e9).with_read_ticks(5);
        let h = scripted_harness(clock, scripted_config(&clock, 1000.0, 1, 3));
        let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(2).collect();
        let report = h.measure_team(&cpus, |thread, n| clock.advance(n * if thread == 1 { 100 } else { 1 }), |_, _| {});
        assert_eq!(report.measurement.batch_ops, 11);
    }

    /// A span runs from the earliest start to the latest end: two parties that take turns on one CPU
    /// (one runs 0–100, the other 100–250) span 250 ticks, where the slowest alone says 150; threads side by
    /// side span what the slowest takes; the span is never less than the slowest (a clock read out of order).
    #[test]
    fn a_span_covers_parties_that_take_turns() {
        use super::{team_ticks, TeamTiming};
        let turns = [(1000, 1100), (1100, 1250)];
        assert_eq!(team_ticks(TeamTiming::SlowestThread, turns.into_iter()), 150);
        assert_eq!(team_ticks(TeamTiming::Span, turns.into_iter()), 250);
        let side_by_side = [(1000, 1200), (1001, 1190)];
        assert_eq!(team_ticks(TeamTiming::Span, side_by_side.into_iter()), 200);
        let skewed = [(1000, 1200), (900, 950)];
        assert_eq!(team_ticks(TeamTiming::Span, skewed.into_iter()), 300);
    }

    /// Threads may share a CPU when one is pinned twice or free threads outnumber their CPUs.
    #[test]
    fn which_teams_may_share_a_cpu() {
        use super::{may_share_cpus, Seat};
        assert!(!may_share_cpus(&[Seat::Cpu(0), Seat::Cpu(1)]));
        assert!(may_share_cpus(&[Seat::Cpu(0), Seat::Cpu(0)]));
        assert!(!may_share_cpus(&[Seat::AnyOf(&[0, 1]), Seat::AnyOf(&[0, 1])]));
        assert!(may_share_cpus(&[Seat::AnyOf(&[0, 1]); 3]));
        assert!(may_share_cpus(&[Seat::AnyOf(&[0]), Seat::AnyOf(&[0])]));
    }

    /// A free thread runs on its whole set, not on the CPU its spawner was pinned to: the spawner here pins
    /// itself to one CPU first, as a probe's main thread is.
    #[test]
    fn free_seats_run_on_their_whole_set() {
        use super::{Seat, TeamTiming};
        let cpus = allowed_cpus();
        let h = quick_harness();
        std::thread::scope(|s| {
            s.spawn(|| {
                overhead_machine::pin_current_thread(cpus[0]).unwrap();
                let seen: [Mutex<Vec<usize>>; 2] = Default::default();
                let report = h.measure_seated_team(
                    &[Seat::AnyOf(&cpus), Seat::Cpu(cpus[0])],
                    TeamTiming::Span,
                    |thread, _| *seen[thread].lock().unwrap() = allowed_cpus(),
                    |_, _| {},
                );
                assert!(report.pin_failures.is_empty(), "{:?}", report.pin_failures);
                assert_eq!(*seen[0].lock().unwrap(), cpus);
                assert_eq!(*seen[1].lock().unwrap(), vec![cpus[0]]);
                assert_eq!(report.measurement.per_thread_ns.len(), 2);
            });
        });
    }

    /// A team's counts are its threads' summed, from counted pairs after the kept ones: two threads that
    /// each sleep once an operation count two context switches per operation (where the kernel allows
    /// counting), and the kept samples are as many as asked.
    #[test]
    fn a_team_counts_its_threads_summed() {
        if overhead_machine::ThreadCounters::perf_absent().is_some() {
            return;
        }
        let config = crate::HarnessConfig { counted_pairs: 2, ..crate::testing::quick_config() };
        let h = crate::testing::quick_harness_with(config);
        let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(2).collect();
        let report = h.measure_team(
            &cpus,
            |_, n| {
                for _ in 0..n {
                    std::thread::sleep(std::time::Duration::from_micros(20));
                }
            },
            |_, _| {},
        );
        assert_eq!(report.measurement.samples_ns.len(), h.config.repetitions);
        let counts = report.measurement.counts_per_op.expect("counted");
        // Two voluntary switches an operation (one sleep per thread), summed: one thread's alone would read 1,
        // each counted twice 4. The counter holds involuntary switches too, which a loaded host adds (2.5 was
        // seen beside a parallel test run), so the upper bound leaves room for them below double counting.
        assert!(
            (1.8..3.5).contains(&counts.of(overhead_machine::CounterKind::ContextSwitches).expect("counted")),
            "{counts:?}"
        );
        // The process's switches hold both threads' (other tests of this binary may add theirs): two an
        // operation, where one thread's alone would be one. 1.75 was seen beside the whole suite with MPI,
        // Go and Java tests running, so the bound sits halfway between one thread and two.
        let process = counts.of(overhead_machine::CounterKind::ProcessVoluntarySwitches).expect("counted");
        assert!(process >= 1.5, "{counts:?}");
    }
}
