//! Seed 004's primitives on kernel threads and processes: threads pinned to the point's CPUs, futexes,
//! POSIX semaphores, `std::sync::mpsc`, `fork`.

use crate::runtimes::channel_impl::ChannelImpl;
use crate::runtimes::offer::ensure_offered;
use crate::runtimes::RuntimeUnderTest as _;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context as _;

use super::futex::Handoff;
use super::sem::PosixSemaphore;
use super::Os;
use crate::harness::empty_loop;
use crate::harness::{Harness, Measurement};
use crate::machine::pin_current_thread;
use crate::record::Outcome;
use crate::runtimes::offer::not_offered;
use crate::runtimes::primitives::{Body, Context, Messages, NewTask, Primitives, SemOp, SpawnKind};

/// Sentinel that ends an echo partner or a server.
const STOP: u64 = u64::MAX;

/// The operation `msg.call` calls: one argument in, one result out.
fn operation(x: u64) -> u64 {
    x.wrapping_add(1)
}

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
            let op: &dyn Fn(u64) -> u64 = black_box(&operation);
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
                    black_box(std::thread::spawn(move || operation(i)).join().ok());
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
    /// `std::sync::mpsc`, sender and receiver in the same thread.
    fn async_message(&self, implementation: ChannelImpl, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered("os", "impl", self.offers().channel, implementation)?;
        let (tx, rx) = std::sync::mpsc::channel::<u64>();
        Ok(h.measure(
            |n| {
                for i in 0..n {
                    tx.send(i).expect("receiver alive");
                    black_box(rx.recv().expect("sender alive"));
                }
            },
            empty_loop,
        ))
    }

    /// Two `std::sync::mpsc` channels to and from an echo thread pinned to `partner_cpu`.
    fn message_round_trip(
        &self,
        implementation: ChannelImpl,
        partner_cpu: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement> {
        ensure_offered("os", "impl", self.offers().message_switch, implementation)?;
        let (to_partner, partner_rx) = std::sync::mpsc::channel::<u64>();
        let (partner_tx, from_partner) = std::sync::mpsc::channel::<u64>();
        Ok(with_partner(
            partner_cpu,
            move || {
                while let Ok(v) = partner_rx.recv() {
                    if v == STOP || partner_tx.send(v).is_err() {
                        break;
                    }
                }
            },
            || {
                h.measure(
                    |n| {
                        for i in 0..n {
                            to_partner.send(i).expect("partner alive");
                            black_box(from_partner.recv().expect("partner alive"));
                        }
                    },
                    empty_loop,
                )
            },
            || {
                let _ = to_partner.send(STOP);
            },
        ))
    }

    /// A server thread pinned to `partner_cpu` and two zero-capacity `sync_channel`s (a true rendezvous).
    fn rendezvous(&self, implementation: ChannelImpl, partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered("os", "impl", self.offers().rendezvous, implementation)?;
        let (request_tx, request_rx) = std::sync::mpsc::sync_channel::<u64>(0);
        let (reply_tx, reply_rx) = std::sync::mpsc::sync_channel::<u64>(0);
        Ok(with_partner(
            partner_cpu,
            move || {
                while let Ok(q) = request_rx.recv() {
                    if q == STOP || reply_tx.send(q + 1).is_err() {
                        break;
                    }
                }
            },
            || {
                h.measure(
                    |n| {
                        for i in 0..n {
                            request_tx.send(i).expect("server alive");
                            black_box(reply_rx.recv().expect("server alive"));
                        }
                    },
                    empty_loop,
                )
            },
            || {
                let _ = request_tx.send(STOP);
            },
        ))
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
