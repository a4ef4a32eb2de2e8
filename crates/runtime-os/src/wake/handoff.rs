//! The timed ping-pong of a wake path (docs/METHOD.md §9, "Waking another thread"): a waker thread wakes
//! a waiter through one channel of the mechanism, the waiter answers through a second one, and every round
//! gives three times on one clock (the TSC where it is invariant: both threads read the same counter):
//!
//! - the waker's cost: the wake call alone, from just before it to its return (`t1 − t0`);
//! - the wake latency: from just before the waker's call to the waiter running after its wait (`t2 − t0`);
//! - the round trip: from `t0` to the waker running after the waiter's answer (`t3 − t0`), two wakes.
//!
//! The waiter is **blocked** when woken (the waker waits until the waiter has said it is about to wait,
//! then lets it go to sleep: it yields on the same CPU, spins [`SETTLE_NS`] on another) or **spinning**: it
//! polls the mechanism for up to [`SPIN_NS`] before it blocks, as runtimes do before they park, and the
//! waker wakes it as soon as the last answer is in. How often each really happened is counted: the
//! waiter's voluntary context switches (`getrusage(RUSAGE_THREAD)`) and the rounds a spin caught.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;

use anyhow::Context as _;
use overhead_clock::Ticks;

use super::{Mechanism, WaitEnd, WakeEnd};

/// How long a spinning waiter polls before it blocks (ns): tens of µs, the order of the spin phases of
/// runtimes' parking (Go's spinning Ms, glibc's adaptive mutex) and of a cross-CPU wake-up in a VM.
pub const SPIN_NS: f64 = 50_000.0;

/// How long the waker lets a waiter on another CPU settle into its sleep after it said it is about to
/// block (ns): the system call's entry and the scheduler's switch away take a few µs.
pub const SETTLE_NS: f64 = 20_000.0;

pub use overhead_schema::variants::wake::WaiterState;

/// What one process's rounds measured (ticks of the clock given to [`measure`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Handoffs {
    /// Per timed round: the waker's call, `t1 − t0`.
    pub waker_ticks: Vec<u64>,
    /// Per timed round: the wake latency, `t2 − t0` (signed: two CPUs' counters may differ by their offset).
    pub latency_ticks: Vec<i64>,
    /// Per timed round: the round trip, `t3 − t0`.
    pub rtt_ticks: Vec<u64>,
    /// The waiter's voluntary context switches over the timed rounds (each blocking wait that slept is one).
    pub waiter_switches: u64,
    /// Timed rounds whose wake a spinning waiter caught before it blocked.
    pub caught_spinning: u64,
}

/// One side's slots, each on its own cache line so the two threads' stores do not share one.
#[derive(Default)]
#[repr(align(128))]
struct Slot<T>(T);

/// What the two threads share besides the mechanism.
struct Shared {
    /// Both threads attached their ends: a message into a ring its waiter has not enabled yet is refused
    /// (EBADFD), so no round starts before.
    attached: std::sync::Barrier,
    /// The waker's `t0` of the round in flight.
    t0: Slot<AtomicU64>,
    /// The waiter's `t2` of the round in flight.
    t2: Slot<AtomicU64>,
    /// Set by the waiter just before it waits (blocked rounds).
    armed: Slot<AtomicBool>,
}

/// Times `warmup` untimed then `rounds` timed round trips of `mechanism` between a waker on `cpus[0]` and a
/// waiter on `cpus[1]` (the same CPU twice: the two threads take turns on it), with the waiter `state`.
///
/// Errors: the mechanism cannot be opened here (its reason), a thread cannot be pinned or started, or a
/// wait or wake fails.
pub fn measure<C: Ticks + 'static>(
    mechanism: Mechanism,
    cpus: [usize; 2],
    state: WaiterState,
    warmup: usize,
    rounds: usize,
    clock: &C,
) -> anyhow::Result<Handoffs> {
    let (fwd_wait, fwd_wake) = super::open(mechanism).map_err(|e| anyhow::anyhow!("{}: {e}", mechanism.name()))?;
    let answer = mechanism.answer();
    let (back_wait, back_wake) = super::open(answer).map_err(|e| anyhow::anyhow!("{}: {e}", answer.name()))?;
    let shared = Arc::new(Shared {
        attached: std::sync::Barrier::new(2),
        t0: Slot::default(),
        t2: Slot::default(),
        armed: Slot::default(),
    });
    let settle_ticks = (SETTLE_NS * clock.hz() / 1e9) as u64;
    let spin_ticks = (SPIN_NS * clock.hz() / 1e9) as u64;
    let same_cpu = cpus[0] == cpus[1];

    let waiter = {
        let (shared, clock) = (shared.clone(), clock.clone());
        thread::Builder::new().name("wake-waiter".into()).spawn(move || {
            let plan = Rounds { shared: &shared, clock: &clock, state, warmup, rounds };
            waiter_loop(&plan, fwd_wait, back_wake, cpus[1], spin_ticks)
        })?
    };
    // A waker that failed leaves the waiter waiting for ever: its error is returned without joining it (the
    // probe process ends with the error, and the thread with it).
    let plan = Rounds { shared: &shared, clock, state, warmup, rounds };
    let mut handoffs = waker_loop(&plan, fwd_wake, back_wait, cpus[0], same_cpu, settle_ticks)?;
    let (switches, caught) = waiter.join().map_err(|_| anyhow::anyhow!("the waiter thread panicked"))??;
    (handoffs.waiter_switches, handoffs.caught_spinning) = (switches, caught);
    Ok(handoffs)
}

/// What both sides of a handoff follow: the state they share, the clock, the waiter's state, and how many
/// rounds are warm-up and how many are timed.
struct Rounds<'a, C> {
    shared: &'a Shared,
    clock: &'a C,
    state: WaiterState,
    warmup: usize,
    rounds: usize,
}

/// The waker's side: `warmup + rounds` wakes, each followed by a blocking wait for the answer.
fn waker_loop<C: Ticks>(
    plan: &Rounds<'_, C>,
    mut wake: Box<dyn WakeEnd>,
    mut answer: Box<dyn WaitEnd>,
    cpu: usize,
    same_cpu: bool,
    settle_ticks: u64,
) -> anyhow::Result<Handoffs> {
    let Rounds { shared, clock, state, warmup, rounds } = *plan;
    attach_here("waker", cpu, &mut *answer, &mut *wake)?;
    shared.attached.wait();
    let mut out = Handoffs {
        waker_ticks: Vec::with_capacity(rounds),
        latency_ticks: Vec::with_capacity(rounds),
        rtt_ticks: Vec::with_capacity(rounds),
        ..Handoffs::default()
    };
    for round in 0..warmup + rounds {
        if state == WaiterState::Blocked {
            let_the_waiter_sleep(shared, clock, same_cpu, settle_ticks);
        }
        let t0 = clock.start();
        shared.t0.0.store(t0, Ordering::Release);
        wake.wake()?;
        let t1 = clock.stop();
        answer.wait()?;
        let t3 = clock.stop();
        if round >= warmup {
            let t2 = shared.t2.0.load(Ordering::Acquire);
            out.waker_ticks.push(t1.wrapping_sub(t0));
            out.latency_ticks.push(t2.wrapping_sub(t0) as i64);
            out.rtt_ticks.push(t3.wrapping_sub(t0));
        }
    }
    Ok(out)
}

/// Pins the calling thread (the `who` of the round) to `cpu` and attaches the two ends it holds there.
fn attach_here(who: &str, cpu: usize, wait: &mut dyn WaitEnd, wake: &mut dyn WakeEnd) -> anyhow::Result<()> {
    overhead_machine::pin_current_thread(cpu).with_context(|| format!("pinning the {who} to CPU {cpu}"))?;
    wait.attach()?;
    wake.attach()?;
    Ok(())
}

/// Returns once the waiter has said it is about to block and has had the time to: on the same CPU the
/// waker yields until the flag is set (the waiter needs the CPU to get there, and it sleeps before the
/// waker runs again unless preempted); on another CPU it spins `settle_ticks` more after the flag.
fn let_the_waiter_sleep<C: Ticks>(shared: &Shared, clock: &C, same_cpu: bool, settle_ticks: u64) {
    while !shared.armed.0.load(Ordering::Acquire) {
        if same_cpu {
            thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
    if !same_cpu {
        let from = clock.start();
        while clock.start().wrapping_sub(from) < settle_ticks {
            std::hint::spin_loop();
        }
    }
}

/// The waiter's side: `warmup + rounds` waits (spinning first when asked), each answered at once. Returns
/// its voluntary context switches over the timed rounds and the timed rounds a spin caught.
fn waiter_loop<C: Ticks>(
    plan: &Rounds<'_, C>,
    mut wait: Box<dyn WaitEnd>,
    mut answer: Box<dyn WakeEnd>,
    cpu: usize,
    spin_ticks: u64,
) -> anyhow::Result<(u64, u64)> {
    let Rounds { shared, clock, state, warmup, rounds } = *plan;
    let total = warmup + rounds;
    let attached = attach_here("waiter", cpu, &mut *wait, &mut *answer);
    shared.attached.wait();
    attached?;
    let (mut switches_before, mut caught) = (0, 0);
    for round in 0..total {
        if round == warmup {
            switches_before = voluntary_switches();
        }
        let spun = state == WaiterState::Spinning && spin(&mut *wait, clock, spin_ticks)?;
        if !spun {
            shared.armed.0.store(true, Ordering::Release);
            wait.wait()?;
        }
        let t2 = clock.stop();
        shared.armed.0.store(false, Ordering::Relaxed);
        caught += u64::from(spun && round >= warmup);
        shared.t2.0.store(t2, Ordering::Release);
        answer.wake()?;
    }
    Ok((voluntary_switches().saturating_sub(switches_before), caught))
}

/// Polls `wait` for up to `spin_ticks`; whether it caught a wake.
fn spin<C: Ticks>(wait: &mut dyn WaitEnd, clock: &C, spin_ticks: u64) -> anyhow::Result<bool> {
    let from = clock.start();
    loop {
        if wait.poll()? {
            return Ok(true);
        }
        if clock.start().wrapping_sub(from) >= spin_ticks {
            return Ok(false);
        }
        std::hint::spin_loop();
    }
}

/// This thread's voluntary context switches so far (`getrusage(RUSAGE_THREAD).ru_nvcsw`; 0 if refused).
fn voluntary_switches() -> u64 {
    // SAFETY: getrusage writes one rusage into the zeroed struct it is given.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_THREAD, &mut usage) == 0 {
            usage.ru_nvcsw as u64
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_clock::Clock;

    /// Every mechanism this kernel has really blocks and really wakes: a blocked waiter sleeps (a voluntary
    /// context switch) in most rounds, and its wake comes after the waker's call began. A waiter that never
    /// blocked (a wait that returned at once) would fake a cheap wake and fail here.
    #[test]
    fn each_mechanism_really_blocks_and_really_wakes() {
        // The first CPU this process may use, twice: the two threads take turns on it.
        let cpu = overhead_machine::allowed_cpus()[0];
        let cpus = [cpu, cpu];
        for mechanism in Mechanism::ALL {
            if let Err(why) = crate::wake::open(mechanism) {
                eprintln!("{}: skipped: {why}", mechanism.name());
                continue;
            }
            let rounds = 40;
            let h = measure(mechanism, cpus, WaiterState::Blocked, 5, rounds, &Clock::MONOTONIC_RAW).unwrap();
            assert_eq!(h.latency_ticks.len(), rounds);
            // Each timed round's waiter slept at least once; allow a few rounds the scheduler let through.
            assert!(h.waiter_switches as usize >= rounds * 3 / 4, "{}: {h:?}", mechanism.name());
            // On one CPU the clock is one counter: the wake comes after t0 and before the answer.
            for ((&lat, &rtt), &call) in h.latency_ticks.iter().zip(&h.rtt_ticks).zip(&h.waker_ticks) {
                assert!(lat > 0 && (lat as u64) < rtt && call < rtt, "{}: {lat} {rtt} {call}", mechanism.name());
            }
            assert_eq!(h.caught_spinning, 0);
        }
    }

    /// Every mechanism a waiter can poll runs spinning from its first round: the waker starts only once both
    /// ends are attached (a message into a `DEFER_TASKRUN` ring its waiter had not enabled yet was refused with
    /// EBADFD, and the waiter then waited for ever). On another CPU where there is one.
    #[test]
    fn a_spinning_waiter_polls_from_the_first_round() {
        let cpus = overhead_machine::allowed_cpus();
        let pair = match cpus.as_slice() {
            [first, second, ..] => [*first, *second],
            [only] => [*only, *only],
            [] => return,
        };
        for mechanism in Mechanism::ALL.into_iter().filter(|m| m.can_spin() && crate::wake::open(*m).is_ok()) {
            for _ in 0..20 {
                let h = measure(mechanism, pair, WaiterState::Spinning, 0, 3, &Clock::MONOTONIC_RAW).unwrap();
                assert_eq!(h.rtt_ticks.len(), 3, "{}", mechanism.name());
                assert!(h.caught_spinning <= 3);
                assert!(h.latency_ticks.iter().zip(&h.rtt_ticks).all(|(&l, &r)| l < r as i64), "{h:?}");
            }
        }
    }

    #[test]
    fn the_kernels_reason_names_the_errno() {
        let e = std::io::Error::from_raw_os_error(libc::ENOSYS);
        assert!(super::super::Unavailable::from_io("io_uring_setup", &e).0.starts_with("io_uring_setup: ENOSYS"));
        let e = std::io::Error::from_raw_os_error(libc::EPERM);
        assert!(super::super::Unavailable::from_io("x", &e).0.contains("io_uring_disabled"));
    }
}
