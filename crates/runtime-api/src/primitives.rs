//! Souvatzis's primitives as a runtime implements them (docs/ARCHITECTURE.md "Runtimes under test").
//!
//! The experiments of Souvatzis's timing table (`base.loop`, `base.call`, `msg.*`, `sync.sem`,
//! `spawn.create`, `sched.switch`) are written once against these traits; each runtime that has the
//! capabilities implements them in its own module (`runtime-os/src/primitives.rs`,
//! `runtime-fibers/src/primitives.rs`, `runtime-async/src/local_runtime.rs`). Every method times its operation
//! with the harness, against the control the experiment's documentation names, and returns the
//! measurement per operation as described; the experiment turns it into its metric.

use super::channel_impl::ChannelImpl;
use overhead_harness::{Harness, Measurement};
use overhead_record::Outcome;

/// A measuring body, run once inside a runtime's context. Boxed so that [`Context`] is object-safe: the
/// box is called once per process, never inside a timed loop.
pub type Body = Box<dyn FnOnce(&Harness) -> Measurement>;

/// [`super::Capability::Context`]: running a single-thread measuring loop where the runtime's own
/// activities run — the calling thread for `os`, the first fiber of a fiber run, inside tokio's
/// `block_on` (the harness loop then runs on the runtime's thread as a task would, without awaiting).
pub trait Context: Sync {
    /// Runs `body` in the runtime's context and returns what it measured.
    ///
    /// Errors: the runtime could not start (tokio's runtime, a fiber back-end not available here).
    fn in_context(&self, h: &Harness, body: Body) -> anyhow::Result<Measurement>;
}

/// Souvatzis's semaphore rows (`sync.sem`'s `op:` parameter: `p`, `v`, `pair`, `switch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SemOp {
    /// P on a semaphore with plenty of permits: never blocks.
    P,
    /// V with no waiter.
    V,
    /// V then P.
    Pair,
    /// Two activities on one CPU pass a permit back and forth through two semaphores.
    Switch,
}

impl SemOp {
    /// Permits a P-only semaphore starts with: a batch never takes more than the harness's batch cap, and
    /// the reset after each batch gives its permits back, so P never blocks; below POSIX's SEM_VALUE_MAX.
    pub const PLENTY: u32 = 1 << 30;

    /// Every row, in the table's order.
    pub const ALL: [SemOp; 4] = [SemOp::P, SemOp::V, SemOp::Pair, SemOp::Switch];

    /// The permits the timed semaphore starts with.
    pub fn initial_permits(self) -> u32 {
        if self == SemOp::P {
            SemOp::PLENTY
        } else {
            0
        }
    }
}

/// `spawn.create`'s kinds of activity (its `kind:` parameter), across runtimes ([`super::Offers::spawn_join`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpawnKind {
    /// A kernel thread, created and joined.
    Thread,
    /// A process, forked and waited for.
    Process,
    /// A runtime's own task (a fiber, a tokio task, a goroutine, a virtual thread), spawned and joined.
    Task,
}

/// `sched.switch`'s mechanisms (its `mechanism:` parameter), across runtimes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwitchKind {
    /// A futex handoff between two kernel threads.
    Futex,
    /// The fibers' own switch.
    RawSwitch,
    /// A yield to the other task (tokio, Java's virtual threads).
    Yield,
    /// Go's `runtime.Gosched`.
    Gosched,
    /// Java's `LockSupport.park`/`unpark` between platform threads.
    Park,
}

/// `msg.call`'s `new_task:` parameter: whether the callee runs in a new activity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewTask {
    /// The call runs in the caller's activity, through an opaque operation reference.
    No,
    /// A new activity answers the call; the caller waits for its result.
    Yes,
}

/// How a runtime's `sched.switch` points are laid out: the mechanism (the `mechanism:` key) and whether its
/// two activities can sit on different CPUs (kernel threads) or share one thread (fibers, a current-thread
/// tokio runtime).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchMechanism {
    /// What switches.
    pub kind: SwitchKind,
    /// Whether the two activities may sit on different CPUs.
    pub across_cpus: bool,
}

/// The operation `msg.call` calls on every runtime: one argument in, one result out.
#[inline]
pub fn call_operation(x: u64) -> u64 {
    x.wrapping_add(1)
}

/// The Souvatzis primitives but its message rows ([`Messages`]): call, spawn + join, semaphore and raw switch of
/// [`super::Capability::PRIMITIVES`]. `partner_cpu` is the CPU a second kernel thread is pinned to where the
/// runtime uses one (the home CPU for Souvatzis's same-CPU rows). The kinds and the switch mechanism a runtime
/// has are its data ([`super::Offers`]).
pub trait Primitives: Sync {
    /// `msg.call`: a call through an opaque operation reference in the caller's activity
    /// (`NewTask::No`), or answered by a new activity the caller waits for; per call.
    fn call(&self, new_task: NewTask, h: &Harness) -> anyhow::Result<Measurement>;
    /// `spawn.create`: create an empty activity of `kind` and wait for its end; per activity.
    ///
    /// Errors: a `kind` the runtime does not offer; the first activity could not be created.
    fn spawn_join(&self, kind: SpawnKind, h: &Harness) -> anyhow::Result<Measurement>;
    /// `sync.sem`: one P, one V, a V+P pair, or (`SemOp::Switch`) one round trip of the permit through
    /// a partner activity on the same CPU (two handoffs).
    fn semaphore(&self, op: SemOp, partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement>;
    /// `sched.switch`: one switch round trip between the two activities on `cpus` (home, partner).
    fn switch_round_trip(&self, cpus: [usize; 2], h: &Harness) -> anyhow::Result<Outcome>;
}

/// Souvatzis's message rows ([`super::Capability::MESSAGES`]: asynchronous channel, message with switch,
/// rendezvous), apart from [`Primitives`] so that a runtime that passes messages and has nothing else of
/// the table (`mpi`) fills just these rows. `partner_cpu` is the CPU of the partner activity (the home CPU:
/// Souvatzis's rows are on one CPU).
pub trait Messages: Sync {
    /// `msg.async`: a send and the receive of the same message by the same activity, through
    /// `implementation`; per message.
    ///
    /// Errors: an `implementation` the runtime does not offer for the row ([`super::offer::not_offered`]).
    fn async_message(&self, implementation: ChannelImpl, h: &Harness) -> anyhow::Result<Measurement>;
    /// `msg.switch`: a message to a partner blocked receiving and its echo back, through `implementation`;
    /// per round trip.
    ///
    /// Errors: as [`Messages::async_message`].
    fn message_round_trip(
        &self,
        implementation: ChannelImpl,
        partner_cpu: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement>;
    /// `msg.rendezvous`: a call a server activity accepts and replies to, through `implementation`; per call.
    ///
    /// Errors: as [`Messages::async_message`].
    fn rendezvous(&self, implementation: ChannelImpl, partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement>;
    /// Every rank but 0 of a point started as MPI ranks: its part of what rank 0's method above leads,
    /// until rank 0 is done (`Experiment::follow`).
    ///
    /// Errors: by default, the runtime does not run as ranks.
    fn follow(&self) -> anyhow::Result<()> {
        anyhow::bail!("this runtime's messages do not run as MPI ranks")
    }
}
