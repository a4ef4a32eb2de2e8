//! Souvatzis's primitives on kernel threads and processes: threads pinned to the point's CPUs, futexes,
//! POSIX semaphores, the blocking channel crates (`channels.rs`), `fork`.

use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::channel_throughput::Capacity;
use overhead_runtime_api::offer::ensure_offered;
use overhead_runtime_api::RuntimeUnderTest as _;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context as _;

use super::channels::{with_sync_channel, SyncChannel, SyncVisit};
use super::futex::Handoff;
use super::sem::PosixSemaphore;
use super::Os;
use overhead_harness::empty_loop;
use overhead_harness::{Harness, Measurement};
use overhead_machine::pin_current_thread;
use overhead_record::Outcome;
use overhead_runtime_api::offer::not_offered;
use overhead_runtime_api::primitives::{
    call_operation, Body, Context, Messages, NewTask, Primitives, SemOp, SpawnKind,
};

/// Sentinel that ends an echo partner or a server.
const STOP: u64 = u64::MAX;

impl Context for Os {
    /// The calling thread is the context: it is already pinned to the point's home CPU.
    fn in_context(&self, h: &Harness, body: Body) -> anyhow::Result<Measurement> {
        Ok(body(h))
    }
}

impl Primitives for Os {
    /// In the caller's thread through a `&dyn Fn`; or a new thread, spawn + join.
    fn call(&self, new_task: NewTask, h: &Harness) -> anyhow::Result<Measurement> {
        if new_task == NewTask::No {
            let op: &dyn Fn(u64) -> u64 = black_box(&call_operation);
            return Ok(h.measure(
                |n| {
                    for i in 0..n {
                        black_box(op(i));
                    }
                },
                empty_loop,
            ));
        }
        Ok(h.measure(
            |n| {
                for i in 0..n {
                    black_box(std::thread::spawn(move || call_operation(i)).join().ok());
                }
            },
            empty_loop,
        ))
    }

    /// `thread`: `std::thread::spawn` of an empty closure plus `join`; `process`: `fork` of a child that
    /// `_exit`s plus `waitpid` (lmbench's `lat_proc fork`). The new activity inherits the creator's CPU.
    fn spawn_join(&self, kind: SpawnKind, h: &Harness) -> anyhow::Result<Measurement> {
        match kind {
            SpawnKind::Thread => {
                // Spawn failures (out of threads) panic inside std; check once before timing instead.
                std::thread::Builder::new().spawn(|| ()).context("creating a thread")?.join().ok();
                Ok(h.measure(
                    |n| {
                        for _ in 0..n {
                            black_box(std::thread::spawn(|| black_box(0u8)).join().ok());
                        }
                    },
                    empty_loop,
                ))
            }
            SpawnKind::Process => {
                fork_and_wait().context("forking a child process")?;
                Ok(h.measure(
                    |n| {
                        for _ in 0..n {
                            black_box(fork_and_wait().ok());
                        }
                    },
                    empty_loop,
                ))
            }
            other @ SpawnKind::Task => Err(not_offered("os", "kind", other)),
        }
    }

    /// POSIX `sem_t`; the switch partner is a thread pinned to `partner_cpu`.
    fn semaphore(&self, op: SemOp, partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement> {
        let sem = PosixSemaphore::new(op.initial_permits())?;
        Ok(match op {
            SemOp::P => {
                h.measure_with_reset(|n| (0..n).for_each(|_| sem.p()), empty_loop, |n| (0..n).for_each(|_| sem.v()))
            }
            SemOp::V => {
                h.measure_with_reset(|n| (0..n).for_each(|_| sem.v()), empty_loop, |n| (0..n).for_each(|_| sem.p()))
            }
            SemOp::Pair => h.measure(
                |n| {
                    (0..n).for_each(|_| {
                        sem.v();
                        sem.p()
                    })
                },
                empty_loop,
            ),
            SemOp::Switch => {
                let (ping, pong) = (sem, PosixSemaphore::new(0)?);
                let stop = AtomicBool::new(false);
                with_partner(
                    partner_cpu,
                    || loop {
                        ping.p();
                        if stop.load(Ordering::Acquire) {
                            break;
                        }
                        pong.v();
                    },
                    || {
                        h.measure(
                            |n| {
                                for _ in 0..n {
                                    ping.v();
                                    pong.p();
                                }
                            },
                            empty_loop,
                        )
                    },
                    || {
                        stop.store(true, Ordering::Release);
                        ping.v();
                    },
                )
            }
        })
    }

    /// Two threads pass control back and forth through one futex word, each round trip two wake-ups and,
    /// on the same CPU, two context switches (`perf bench sched pipe` with futexes instead of pipes).
    fn switch_round_trip(&self, cpus: [usize; 2], h: &Harness) -> anyhow::Result<Outcome> {
        let partner = cpus[1];
        let handoff = Handoff::new();
        let mut notes = Vec::new();
        let measurement = std::thread::scope(|s| {
            let responder = s.spawn(|| {
                let pinned =
                    pin_current_thread(partner).err().map(|e| format!("responder not pinned to CPU {partner}: {e}"));
                handoff.respond();
                pinned
            });
            let m = h.measure(
                |n| {
                    for _ in 0..n {
                        handoff.round_trip();
                    }
                },
                empty_loop,
            );
            handoff.stop();
            notes.extend(responder.join().expect("responder thread panicked"));
            m
        });
        Ok(Outcome { measurement, notes, extra: Default::default(), details: Default::default() })
    }
}

impl Messages for Os {
    /// An unbounded channel of `implementation` (std's `channel`, the crates' `unbounded`), sender and
    /// receiver in the same thread.
    fn async_message(&self, implementation: ChannelImpl, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered("os", "impl", self.offers().channel, implementation)?;
        with_sync_channel(implementation, Capacity::Unbounded, Row { row: RowKind::Async, partner_cpu: 0, h })
    }

    /// Two unbounded channels of `implementation` to and from an echo thread pinned to `partner_cpu`.
    fn message_round_trip(
        &self,
        implementation: ChannelImpl,
        partner_cpu: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement> {
        ensure_offered("os", "impl", self.offers().message_switch, implementation)?;
        with_sync_channel(implementation, Capacity::Unbounded, Row { row: RowKind::Echo, partner_cpu, h })
    }

    /// A server thread pinned to `partner_cpu` and two zero-capacity channels of `implementation` (std's
    /// `sync_channel(0)`, the crates' `bounded(0)`: a true rendezvous).
    fn rendezvous(&self, implementation: ChannelImpl, partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered("os", "impl", self.offers().rendezvous, implementation)?;
        with_sync_channel(implementation, Capacity::Bounded(0), Row { row: RowKind::Server, partner_cpu, h })
    }
}

/// Which of Souvatzis's message rows a [`Row`] measures.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RowKind {
    /// `msg.async`: send and receive in the timed thread.
    Async,
    /// `msg.switch`: a message to an echo thread and back.
    Echo,
    /// `msg.rendezvous`: a request to a server thread and its reply (`q + 1`).
    Server,
}

/// One message row's body, generic over the channel crate ([`with_sync_channel`] picks it outside the timed
/// loop).
struct Row<'h> {
    row: RowKind,
    partner_cpu: usize,
    h: &'h Harness,
}

impl SyncVisit for Row<'_> {
    type Out = Measurement;
    fn visit<C: SyncChannel>(self) -> Measurement {
        let Row { row, partner_cpu, h } = self;
        let capacity = if row == RowKind::Server { Capacity::Bounded(0) } else { Capacity::Unbounded };
        if row == RowKind::Async {
            let (tx, rx) = C::open(capacity);
            return h.measure(
                |n| {
                    for i in 0..n {
                        C::send(&tx, i);
                        black_box(C::recv(&rx).expect("sender alive"));
                    }
                },
                empty_loop,
            );
        }
        let (to_partner, partner_rx) = C::open(capacity);
        let (partner_tx, from_partner) = C::open(capacity);
        let answer = if row == RowKind::Server { 1 } else { 0 };
        with_partner(
            partner_cpu,
            move || {
                while let Some(v) = C::recv(&partner_rx) {
                    if v == STOP || !C::send(&partner_tx, v + answer) {
                        break;
                    }
                }
            },
            || {
                h.measure(
                    |n| {
                        for i in 0..n {
                            C::send(&to_partner, i);
                            black_box(C::recv(&from_partner).expect("partner alive"));
                        }
                    },
                    empty_loop,
                )
            },
            || {
                C::send(&to_partner, STOP);
            },
        )
    }
}

/// Runs `partner` on a kernel thread pinned to `cpu` while `timed` runs on the calling thread, then
/// calls `stop` (which must make `partner` return) and waits for the partner.
fn with_partner<M>(cpu: usize, partner: impl FnOnce() + Send, timed: impl FnOnce() -> M, stop: impl FnOnce()) -> M {
    std::thread::scope(|s| {
        s.spawn(move || {
            // A refused pin leaves the partner wherever the kernel puts it; the point's CPUs still say
            // what was asked, and the home thread's own pinning is reported by the probe.
            let _ = pin_current_thread(cpu);
            partner();
        });
        let m = timed();
        stop();
        m
    })
}

/// Forks a child that exits at once, and reaps it. Errors: fork or waitpid failed.
#[inline]
fn fork_and_wait() -> std::io::Result<()> {
    // SAFETY: the child calls only _exit, which is async-signal-safe, so forking from a process that
    // might have other threads is sound.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: ends the child at once, running no destructors or atexit handlers of the parent.
        unsafe { libc::_exit(0) };
    }
    let mut status = 0;
    // SAFETY: `pid` is our own child; `status` is a valid int.
    if unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn fork_and_wait_succeeds_repeatedly() {
        for _ in 0..20 {
            super::fork_and_wait().unwrap();
        }
    }
}
