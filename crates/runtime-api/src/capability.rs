//! What a runtime under test can do, as the experiments ask for it (docs/ARCHITECTURE.md "Runtimes under test").
//!
//! An experiment names the capabilities it needs ([`overhead_experiments::Experiment::requires`]); a
//! runtime says, per capability, whether it has it and, if not, why ([`super::Offers`]). The plan gets a cell for every runtime that has them all and a
//! skipped cell with the runtime's reason for every other one the user named.

use std::fmt;

/// One thing a runtime can be measured doing. The names follow the studies' rows: Souvatzis's primitives
/// (call, spawn + join, semaphore, asynchronous message, message with switch, rendezvous, raw switch),
/// Ben-Asher & Feitelson's constructs (yield, wake-all, fork-join fan-out, many activities on a barrier) and
/// contention between CPUs (atomic, barrier, lock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    /// Runs a single-thread loop in its own context (a fiber, a tokio task), for `base.loop`, `base.call`.
    Context,
    /// The kernel's own facilities: system calls, time sources, timers, IPC between processes.
    Kernel,
    /// Souvatzis "inter-task call": a call, inline or in a new task.
    Call,
    /// Souvatzis "create/destroy": spawn an activity and join it.
    SpawnJoin,
    /// Souvatzis semaphore P, V, pair and handoff with a switch.
    Semaphore,
    /// Souvatzis asynchronous send/receive without a switch.
    Channel,
    /// Souvatzis message passing that needs a context switch.
    MessageSwitch,
    /// Souvatzis rendezvous (request and reply).
    Rendezvous,
    /// Messages streamed through one channel by 1…N producers to 1…N consumers, bounded or not: the shape of
    /// crossbeam-channel's benchmark suite (`msg.throughput`).
    ChannelThroughput,
    /// Souvatzis raw switch between two activities.
    RawSwitch,
    /// Ben-Asher & Feitelson 1991 §5 yield round among loaded activities.
    Yield,
    /// Ben-Asher & Feitelson 1991 §5 waking all waiters at once.
    WakeAll,
    /// Ben-Asher & Feitelson 1991 §6–7 fork-join fan-out: one construct of tasks over the CPUs, joined.
    ForkJoin,
    /// Ben-Asher & Feitelson 1991 §8.2 many more activities than CPUs meeting on a barrier.
    ActivityBarrier,
    /// Ben-Asher & Feitelson 1991 §8.1 a fetch-and-add shared by threads on different CPUs.
    Atomic,
    /// Ben-Asher & Feitelson 1991 §8.2 a barrier of one thread per CPU.
    Barrier,
    /// A lock contended by threads on different CPUs.
    Lock,
    /// A reader-writer lock taken by threads on different CPUs, a given share of them writes (`sync.rwlock`).
    RwLock,
    /// Round trips with another process (a forked echo): the kernel's transports under `os`, an async runtime's
    /// own socket types elsewhere (`msg.ipc`; [`crate::ipc::IpcRoundTrips`]).
    Ipc,
    /// Processes started together as MPI ranks, on one host or several, and MPI's own primitives between
    /// them (point to point, collectives): the `mpi.*` experiments (OSU micro-benchmarks).
    Ranks,
}

impl Capability {
    /// The name in skip reasons and docs (`spawn+join`, `wake-all`, …).
    pub fn name(self) -> &'static str {
        match self {
            Capability::Context => "own context",
            Capability::Kernel => "kernel facilities",
            Capability::Call => "call",
            Capability::SpawnJoin => "spawn+join",
            Capability::Semaphore => "semaphore",
            Capability::Channel => "asynchronous channel",
            Capability::MessageSwitch => "message with switch",
            Capability::Rendezvous => "rendezvous",
            Capability::ChannelThroughput => "channel throughput",
            Capability::RawSwitch => "raw switch",
            Capability::Yield => "yield",
            Capability::WakeAll => "wake-all",
            Capability::ForkJoin => "fork-join fan-out",
            Capability::ActivityBarrier => "barrier of many activities",
            Capability::Atomic => "atomic between CPUs",
            Capability::Barrier => "barrier between CPUs",
            Capability::Lock => "lock between CPUs",
            Capability::RwLock => "reader-writer lock between CPUs",
            Capability::Ipc => "round trips with another process",
            Capability::Ranks => "MPI ranks",
        }
    }

    /// Souvatzis's primitives (its timing table's rows: call, spawn + join, semaphore, asynchronous
    /// message, message with switch, rendezvous, raw switch), which every runtime of the table fills.
    pub const PRIMITIVES: [Capability; 7] = [
        Capability::Call,
        Capability::SpawnJoin,
        Capability::Semaphore,
        Capability::Channel,
        Capability::MessageSwitch,
        Capability::Rendezvous,
        Capability::RawSwitch,
    ];

    /// Souvatzis's message rows (asynchronous message, message with switch, rendezvous): the capabilities
    /// of [`super::primitives::Messages`], a part of [`Capability::PRIMITIVES`].
    pub const MESSAGES: [Capability; 3] = [Capability::Channel, Capability::MessageSwitch, Capability::Rendezvous];

    /// Contention between CPUs.
    pub const BETWEEN_CPUS: [Capability; 3] = [Capability::Atomic, Capability::Barrier, Capability::Lock];
}

/// Why a runtime other than `os` lacks [`Capability::Kernel`].
pub const KERNEL_UNDER_OS: &str = "it runs on kernel threads; the kernel's own facilities are measured once, under os";

/// Why a runtime without sockets of its own lacks [`Capability::Ipc`].
pub const IPC_UNDER_OS: &str =
    "it has no sockets of its own; a round trip with another process is the kernel's, measured under os";

/// Why a runtime other than `mpi` lacks [`Capability::Ranks`].
pub const RANKS_UNDER_MPI: &str = "MPI's primitives between ranks are measured under the mpi runtime";

/// Why a runtime lacks [`Capability::BETWEEN_CPUS`] in this build.
pub const BETWEEN_CPUS_ELSEWHERE: &str =
    "contention between CPUs is measured on pinned kernel threads (os) and OpenMP teams in this build";

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
