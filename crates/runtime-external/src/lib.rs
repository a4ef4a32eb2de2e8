//! The runtimes whose code a toolchain outside Cargo builds on first use (docs/ARCHITECTURE.md "Runtimes
//! under test"): `mpi` (its ranks' shim, built by `mpicc`: [`mpi`]) and the runtimes measured by probes in other
//! languages, `go`, `java-platform` and `java-virtual`. Their probes (`probes/go`, `probes/java`) are built on first
//! use ([`toolchain`]), take the same job as `overhead probe` and answer raw batches
//! ([`overhead_protocol::RawBatches`]), from which the orchestrator makes the point: the
//! method's statistics stay in one place. No toolchain, or one too old, makes every cell of the runtime a
//! skipped cell with that reason.
//!
//! The plan reads these runtimes' data as every runtime's ([`Offers`]: their capabilities, spawn kinds,
//! switch mechanism, implementations), so their points are named like everyone's and land in the same
//! tables. They have no measuring code in this process: the orchestrator starts the external probe instead
//! ([`ExternalProbe::command`]). The one exception is the granularity sweep, whose search stays in Rust and
//! asks the probe for timed runs ([`GrainSweep`], [`grain`]).

pub mod grain;
pub mod mpi;
pub mod probe_files;
pub mod probe_sources;
pub mod toolchain;

use std::os::unix::process::CommandExt;
use std::process::Command;

use overhead_harness::Harness;
use overhead_record::PointSpec;
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::contention::{AtomicImpl, BarrierImpl, LockImpl, RwLockImpl};
pub use overhead_runtime_api::external_probe::ExternalProbe;
use overhead_runtime_api::fan_out::ForkJoinMechanism;
use overhead_runtime_api::grain_sweep::{GrainSweep, Granularity, Remarks, Sweep};
use overhead_runtime_api::primitives::{SpawnKind, SwitchKind, SwitchMechanism};
use overhead_runtime_api::yield_round::YieldLimits;
use overhead_runtime_api::{Offer, Offers, RuntimeUnderTest, KERNEL_UNDER_OS, RANKS_UNDER_MPI};

/// Which language and flavour a runtime's probe is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Probe {
    Go,
    JavaPlatform,
    JavaVirtual,
}

/// A runtime measured by an external probe: its name, its probe, and what its probe offers.
pub struct External {
    name: &'static str,
    about: &'static str,
    probe: Probe,
    offers: Offers,
}

/// The constructs a probe's message rows use (`impl:` values of Souvatzis's msg.async, msg.switch,
/// msg.rendezvous, and of msg.throughput).
struct ProbeMessages {
    channel: &'static [ChannelImpl],
    switch: &'static [ChannelImpl],
    rendezvous: &'static [ChannelImpl],
    throughput: &'static [ChannelImpl],
}

/// Go's message rows: channels throughout (msg.throughput at capacities 0, 1 and 1024: no unbounded chan).
const GO_MESSAGES: ProbeMessages = ProbeMessages {
    channel: &[ChannelImpl::Chan],
    switch: &[ChannelImpl::Chan],
    rendezvous: &[ChannelImpl::Chan],
    throughput: &[ChannelImpl::Chan],
};

/// Java's message rows: a LinkedTransferQueue for the asynchronous message, SynchronousQueues for the rest;
/// msg.throughput on the four java.util.concurrent queues, each at the capacities it has
/// ([`ChannelImpl::has_capacity`]).
const JAVA_MESSAGES: ProbeMessages = ProbeMessages {
    channel: &[ChannelImpl::LinkedTransferQueue],
    switch: &[ChannelImpl::SynchronousQueue],
    rendezvous: &[ChannelImpl::SynchronousQueue],
    throughput: &[
        ChannelImpl::SynchronousQueue,
        ChannelImpl::ArrayBlockingQueue,
        ChannelImpl::LinkedBlockingQueue,
        ChannelImpl::LinkedTransferQueue,
    ],
};

/// What every external probe offers, given the variants that differ between them: Souvatzis's primitives,
/// the yield round, fork-join fan-out, channel throughput and contention between CPUs (`impl:hw`, `impl:cyclic`,
/// mutexes and reader-writer locks).
const fn probe_offers(
    spawn_kinds: &'static [SpawnKind],
    switch: SwitchMechanism,
    locks: &'static [LockImpl],
    rwlocks: &'static [RwLockImpl],
    fork_join: &'static [ForkJoinMechanism],
    messages: ProbeMessages,
) -> Offers {
    Offers {
        context: Offer::Has(()),
        kernel: Offer::Lacks(KERNEL_UNDER_OS),
        call: Offer::Has(()),
        spawn_join: Offer::Has(spawn_kinds),
        semaphore: Offer::Has(()),
        channel: Offer::Has(messages.channel),
        message_switch: Offer::Has(messages.switch),
        rendezvous: Offer::Has(messages.rendezvous),
        channel_throughput: Offer::Has(messages.throughput),
        raw_switch: Offer::Has(switch),
        yield_round: Offer::Has(YieldLimits::NONE),
        wake_all: Offer::Lacks(NOT_IN_PROBE),
        fork_join: Offer::Has(fork_join),
        activity_barrier: Offer::Lacks(NOT_IN_PROBE),
        atomic: Offer::Has(&[AtomicImpl::Hw]),
        barrier: Offer::Has(&[BarrierImpl::Cyclic]),
        lock: Offer::Has(locks),
        rwlock: Offer::Has(rwlocks),
        ipc: Offer::Lacks("its probe has no socket round trips in this build"),
        ranks: Offer::Lacks(RANKS_UNDER_MPI),
    }
}

/// Go: goroutines on GOMAXPROCS = the point's CPUs, channels, `sync`, `sync/atomic` (`probes/go`).
pub const GO: External = External {
    name: "go",
    about: "Go goroutines, channels and sync (external probe, probes/go; needs Go ≥ 1.19)",
    probe: Probe::Go,
    offers: probe_offers(
        &[SpawnKind::Task],
        SwitchMechanism { kind: SwitchKind::Gosched, across_cpus: false },
        &[LockImpl::Mutex],
        &[RwLockImpl::RwMutex],
        &[ForkJoinMechanism::Spawn, ForkJoinMechanism::Pool],
        GO_MESSAGES,
    ),
};

/// Java platform threads (kernel threads) and java.util.concurrent (`probes/java`).
pub const JAVA_PLATFORM: External = External {
    name: "java-platform",
    about: "Java platform threads and java.util.concurrent (external probe, probes/java; needs a JDK ≥ 17)",
    probe: Probe::JavaPlatform,
    offers: probe_offers(
        &[SpawnKind::Thread],
        SwitchMechanism { kind: SwitchKind::Park, across_cpus: true },
        &[LockImpl::Synchronized, LockImpl::Reentrant],
        &[RwLockImpl::ReentrantRw, RwLockImpl::Stamped],
        &[ForkJoinMechanism::Spawn, ForkJoinMechanism::Pool],
        JAVA_MESSAGES,
    ),
};

/// Java virtual threads on one carrier per CPU of the point (`probes/java`, JDK ≥ 21).
pub const JAVA_VIRTUAL: External = External {
    name: "java-virtual",
    about: "Java virtual threads, one carrier per CPU (external probe, probes/java; needs a JDK ≥ 21)",
    probe: Probe::JavaVirtual,
    offers: probe_offers(
        &[SpawnKind::Task],
        SwitchMechanism { kind: SwitchKind::Yield, across_cpus: false },
        &[LockImpl::Synchronized, LockImpl::Reentrant],
        &[RwLockImpl::ReentrantRw, RwLockImpl::Stamped],
        // Virtual threads are not pooled: one per task is the idiom.
        &[ForkJoinMechanism::Spawn],
        JAVA_MESSAGES,
    ),
};

/// Why an external runtime has no cell for the experiments its probe does not implement.
const NOT_IN_PROBE: &str = "its external probe does not implement it yet";

impl RuntimeUnderTest for External {
    fn name(&self) -> &'static str {
        self.name
    }
    fn about(&self) -> &'static str {
        self.about
    }
    /// Builds the probe on first use (cached across runs): no toolchain, one too old, or a failed build is
    /// the reason every cell is skipped.
    fn available(&self) -> Result<(), String> {
        match self.probe {
            Probe::Go => toolchain::go_probe().map(drop),
            Probe::JavaPlatform => toolchain::java_probe().map(drop),
            Probe::JavaVirtual => {
                let probe = toolchain::java_probe()?;
                if probe.feature < toolchain::JAVA_VIRTUAL_MIN {
                    return Err(format!(
                        "virtual threads need JDK ≥ {}; {} is JDK {} (set JAVA_HOME to a newer JDK)",
                        toolchain::JAVA_VIRTUAL_MIN,
                        probe.java.display(),
                        probe.feature
                    ));
                }
                Ok(())
            }
        }
    }
    fn offers(&self) -> &Offers {
        &self.offers
    }
    /// `spawn.remote` is a fan-out experiment the probes do not measure.
    fn refuses(&self, experiment: &str) -> Option<&'static str> {
        (experiment == "spawn.remote").then_some(NOT_IN_PROBE)
    }
    /// Named with `--runtime`; a default run needs no Go or JDK.
    fn in_default_run(&self) -> bool {
        false
    }
    fn external(&self) -> Option<&dyn ExternalProbe> {
        Some(self)
    }
    overhead_runtime_api::capabilities!(grain_sweep);
}

impl ExternalProbe for External {
    fn command(&self, spec: &PointSpec, job_json: &str) -> anyhow::Result<Command> {
        let mut cpus = spec.cpus.clone();
        cpus.sort_unstable();
        cpus.dedup();
        let processors = cpus.len().max(1).to_string();
        let mut command = match self.probe {
            Probe::Go => {
                let probe = toolchain::go_probe().map_err(anyhow::Error::msg)?;
                let mut c = Command::new(&probe.binary);
                c.env("GOMAXPROCS", &processors);
                c
            }
            Probe::JavaPlatform | Probe::JavaVirtual => {
                let probe = toolchain::java_probe().map_err(anyhow::Error::msg)?;
                let mut c = Command::new(&probe.java);
                // probes/README.md "Launching": no GC threads beside the point's CPUs, a fixed heap, the
                // JVM's own output off stdout, never-inlined callees, one carrier per CPU.
                c.args([
                    "-XX:+UseSerialGC",
                    "-Xms256m",
                    "-Xmx256m",
                    "-XX:+DisplayVMOutputToStderr",
                    "-XX:CompileCommand=quiet",
                    "-XX:CompileCommand=dontinline,overhead.probe.Callee*::*",
                ]);
                c.arg(format!("-Djdk.virtualThreadScheduler.parallelism={processors}"));
                c.arg("-cp").arg(&probe.classes).arg("overhead.probe.Main");
                c
            }
        };
        command.arg("--job").arg(job_json);
        let mask = overhead_machine::cpu_mask(&cpus)?;
        // SAFETY: the closure runs in the child between fork and exec; it only calls sched_setaffinity on a
        // mask built before the fork (no allocation, no lock), which is async-signal-safe. A refused mask
        // fails the spawn with that error rather than measuring on the wrong CPUs.
        unsafe {
            command.pre_exec(move || overhead_machine::set_affinity_mask(&mask));
        }
        Ok(command)
    }
}

impl GrainSweep for External {
    /// The sweep's runs come from the external probe, started here with the point's job and asked for
    /// timed runs ([`grain::RemoteRuns`]); the runs' tasks are the probe's (probes/README.md
    /// "grain.sweep"). Java cannot tell a task's CPU: its shares are all "other", as a note says.
    fn granularity(&self, run: &Granularity<'_>, h: &Harness, sweep: &mut Sweep<'_>) -> anyhow::Result<Remarks> {
        let command = self.command(run.spec, &grain::job_json(run.spec, h))?;
        let mut remote = grain::RemoteRuns::start(command, run.spec)?;
        let tally = remote.tally();
        sweep(&tally, &mut remote);
        let mut notes = std::mem::take(&mut remote.notes);
        if self.probe != Probe::Go {
            notes.push("the JDK cannot tell the CPU a task ran on: every task is counted as \"other\"".into());
        }
        Ok(Remarks { notes, ..Remarks::default() })
    }
}
