//! Runtimes measured by probes in other languages (issue 15; docs/ARCHITECTURE.md "Runtimes under test"):
//! `go`, `java-platform` and `java-virtual`. Their probes (`probes/go`, `probes/java`) are built on first
//! use ([`toolchain`]), take the same job as `overhead probe` and answer raw batches
//! ([`crate::protocol::RawBatches`]), from which the orchestrator makes the point: the
//! method's statistics stay in one place. No toolchain, or one too old, makes every cell of the runtime a
//! skipped cell with that reason.
//!
//! The plan asks these runtimes what it asks every runtime (their capabilities, spawn kinds, switch
//! mechanism, implementations), so their points are named like everyone's and land in the same tables.
//! Their measuring methods are never called in this process: the orchestrator starts the external probe
//! instead ([`ExternalProbe::command`]); called anyway, they return an error saying so.

pub mod grain;
pub mod toolchain;

use std::os::unix::process::CommandExt;
use std::process::Command;

use super::contention::Contention;
pub use super::external_probe::ExternalProbe;
use super::fan_out::{FanOut, Granularity, Remarks, Sweep};
use super::primitives::{Body, Context, Primitives, SemOp, SwitchMechanism};
use super::yield_round::YieldRound;
use super::{Capability, RuntimeUnderTest, KERNEL_UNDER_OS};
use crate::harness::{Harness, Measurement};
use crate::record::{Outcome, PointSpec};

/// Which language and flavour a runtime's probe is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Probe {
    Go,
    JavaPlatform,
    JavaVirtual,
}

/// A runtime measured by an external probe: its name and what the plan needs to know of its probe.
pub struct External {
    name: &'static str,
    about: &'static str,
    probe: Probe,
    spawn_kinds: &'static [&'static str],
    switch: SwitchMechanism,
    lock_impls: &'static [&'static str],
    fork_join_mechanisms: &'static [&'static str],
}

/// Go: goroutines on GOMAXPROCS = the point's CPUs, channels, `sync`, `sync/atomic` (`probes/go`).
pub const GO: External = External {
    name: "go",
    about: "Go goroutines, channels and sync (external probe, probes/go; needs Go ≥ 1.19)",
    probe: Probe::Go,
    spawn_kinds: &["task"],
    switch: SwitchMechanism { name: "gosched", across_cpus: false },
    lock_impls: &["mutex"],
    fork_join_mechanisms: &["spawn", "pool"],
};

/// Java platform threads (kernel threads) and java.util.concurrent (`probes/java`).
pub const JAVA_PLATFORM: External = External {
    name: "java-platform",
    about: "Java platform threads and java.util.concurrent (external probe, probes/java; needs a JDK ≥ 17)",
    probe: Probe::JavaPlatform,
    spawn_kinds: &["thread"],
    switch: SwitchMechanism { name: "park", across_cpus: true },
    lock_impls: &["synchronized", "reentrant"],
    fork_join_mechanisms: &["spawn", "pool"],
};

/// Java virtual threads on one carrier per CPU of the point (`probes/java`, JDK ≥ 21).
pub const JAVA_VIRTUAL: External = External {
    name: "java-virtual",
    about: "Java virtual threads, one carrier per CPU (external probe, probes/java; needs a JDK ≥ 21)",
    probe: Probe::JavaVirtual,
    spawn_kinds: &["task"],
    switch: SwitchMechanism { name: "yield", across_cpus: false },
    lock_impls: &["synchronized", "reentrant"],
    // Virtual threads are not pooled: one per task is the idiom.
    fork_join_mechanisms: &["spawn"],
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
    fn lacks(&self, capability: Capability) -> Option<&'static str> {
        match capability {
            Capability::Kernel => Some(KERNEL_UNDER_OS),
            Capability::WakeAll | Capability::ActivityBarrier => Some(NOT_IN_PROBE),
            _ => None,
        }
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
    super::plugin::capabilities!(context, primitives, contention, yield_round, fan_out);
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
        let mask = crate::machine::cpu_mask(&cpus)?;
        // SAFETY: the closure runs in the child between fork and exec; it only calls sched_setaffinity on a
        // mask built before the fork (no allocation, no lock), which is async-signal-safe. A refused mask
        // fails the spawn with that error rather than measuring on the wrong CPUs.
        unsafe {
            command.pre_exec(move || crate::machine::set_affinity_mask(&mask));
        }
        Ok(command)
    }
}

/// The error of a measuring method called in this process.
fn elsewhere<T>() -> anyhow::Result<T> {
    anyhow::bail!("this runtime is measured by its external probe (probes/), not inside overhead's own probe")
}

impl Context for External {
    fn in_context(&self, _: &Harness, _: Body) -> anyhow::Result<Measurement> {
        elsewhere()
    }
}

impl Primitives for External {
    fn call(&self, _: bool, _: &Harness) -> anyhow::Result<Measurement> {
        elsewhere()
    }
    fn spawn_kinds(&self) -> &'static [&'static str] {
        self.spawn_kinds
    }
    fn spawn_join(&self, _: &str, _: &Harness) -> anyhow::Result<Measurement> {
        elsewhere()
    }
    fn semaphore(&self, _: SemOp, _: usize, _: &Harness) -> anyhow::Result<Measurement> {
        elsewhere()
    }
    fn async_message(&self, _: &Harness) -> anyhow::Result<Measurement> {
        elsewhere()
    }
    fn message_round_trip(&self, _: usize, _: &Harness) -> anyhow::Result<Measurement> {
        elsewhere()
    }
    fn rendezvous(&self, _: usize, _: &Harness) -> anyhow::Result<Measurement> {
        elsewhere()
    }
    fn switch_mechanism(&self) -> SwitchMechanism {
        self.switch
    }
    fn switch_round_trip(&self, _: [usize; 2], _: &Harness) -> anyhow::Result<Outcome> {
        elsewhere()
    }
}

impl Contention for External {
    fn atomic_impls(&self) -> &'static [&'static str] {
        &["hw"]
    }
    fn fetch_and_add(&self, _: &str, _: bool, _: &[usize], _: &Harness) -> anyhow::Result<Outcome> {
        elsewhere()
    }
    fn barrier_impls(&self) -> &'static [&'static str] {
        &["cyclic"]
    }
    fn barrier(&self, _: &str, _: &[usize], _: &Harness) -> anyhow::Result<Outcome> {
        elsewhere()
    }
    fn lock_impls(&self) -> &'static [&'static str] {
        self.lock_impls
    }
    fn lock(&self, _: &str, _: &[usize], _: &Harness) -> anyhow::Result<Outcome> {
        elsewhere()
    }
}

impl YieldRound for External {
    fn yield_round(&self, _: &[usize], _: usize, _: &Harness) -> anyhow::Result<Outcome> {
        elsewhere()
    }
}

impl FanOut for External {
    fn fork_join_mechanisms(&self) -> &'static [&'static str] {
        self.fork_join_mechanisms
    }
    fn fork_join(&self, _: &str, _: &[usize], _: &Harness) -> anyhow::Result<Outcome> {
        elsewhere()
    }
    fn bulk(&self, _: &[usize], _: u64, _: &Harness) -> anyhow::Result<Outcome> {
        elsewhere()
    }
    fn remote(&self, _: usize, _: &[usize], _: &Harness) -> anyhow::Result<Outcome> {
        elsewhere()
    }
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
