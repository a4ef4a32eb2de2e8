//! What a point's kernel counts say (docs/METHOD.md §18): the statements the report makes beside a time —
//! "2.0 context switches per round trip, 1.0 on each side", "never blocks: preempted or yielding 2.0 times",
//! "2.8 page faults per operation", "kernel time 78%" — and where the counts contradict what the primitive
//! is built to do (a spin lock whose threads sleep, a lock-free channel that parks). The thresholds say when a
//! count is worth a sentence; the report prints the numbers either way.

use std::fmt;

use overhead_machine::CounterKind;
use overhead_record::{Metric, PointRecord};

/// Per operation as a finding says it: "per round trip", "per message one way", "per operation".
fn per(metric: Metric) -> &'static str {
    match metric {
        Metric::PerOp => "per operation",
        Metric::Rtt => "per round trip",
        Metric::OneWay => "per one-way trip",
    }
}

/// Below this many events per operation a count is no finding (one in a hundred operations).
const NOTABLE_PER_OP: f64 = 0.01;

/// A switch count worth a sentence: one every other operation.
const NOTABLE_SWITCHES: f64 = 0.5;

/// A kernel share worth a sentence.
const NOTABLE_KERNEL_SHARE: f64 = 0.5;

/// Below this share of its time on a CPU, the measuring thread mostly waits off the CPU.
const OFF_CPU_SHARE: f64 = 0.5;

/// What a point's counts say, one statement each.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// The process's threads switch `all` times per operation, `thread` of them the measuring thread's
    /// (`threads` measuring threads; `None` where the kernel refused perf), `voluntary` of `all` because a
    /// thread blocked.
    Switches { all: f64, voluntary: f64, thread: Option<f64>, threads: usize, per: &'static str },
    /// No thread blocks, yet they leave the CPU `involuntary` times per operation: preempted, or yielding
    /// (`sched_yield` counts as involuntary: the thread stays runnable).
    NeverBlocks { involuntary: f64, per: &'static str },
    /// Minor (and major) page faults per operation.
    Faults { minor: f64, major: f64, per: &'static str },
    /// The measuring threads moved between CPUs `per_op` times per operation.
    Migrates { per_op: f64, per: &'static str },
    /// The child processes (a fork's child reaped in the operation, a peer process it talks to) took `faults`
    /// minor page faults, `switches` context switches and `cpu_ns` ns on a CPU per operation: the children's
    /// side of the cost, which the probe process's counts do not hold.
    Children { faults: f64, switches: f64, cpu_ns: f64, per: &'static str },
    /// The kernel's share of the processes' CPU time, with its interval.
    KernelTime { share: f64, ci_low: f64, ci_high: f64 },
    /// The measuring thread, which leaves the CPU in each operation, was on a CPU for `share` of each
    /// operation's time: it waited off-CPU.
    OffCpu { share: f64 },
    /// What the implementation is built to do (`claim`), and the count that says otherwise (`evidence`).
    Contradicts { claim: &'static str, evidence: String },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Finding::Switches { all, voluntary, thread, threads, per } => {
                write!(f, "{all:.1} context switches {per} ({voluntary:.1} of them a thread blocking)")?;
                let Some(thread) = thread else { return Ok(()) };
                let side = if threads == 1 { "the measuring thread" } else { "the measuring threads together" };
                write!(f, ", {thread:.1} on {side}")?;
                if threads == 1 && thread >= NOTABLE_SWITCHES && (all - 2.0 * thread).abs() <= 0.1 * all {
                    write!(f, ": {thread:.1} on each side")?;
                }
                Ok(())
            }
            Finding::NeverBlocks { involuntary, per } => write!(
                f,
                "no thread blocks, yet they leave the CPU {involuntary:.1} times {per}: preempted, or yielding it (sched_yield)"
            ),
            Finding::Faults { minor, major, per } if major >= NOTABLE_PER_OP => {
                write!(f, "{minor:.2} minor and {major:.2} major page faults {per}")
            }
            Finding::Faults { minor, per, .. } => write!(f, "{minor:.2} page faults {per} (fresh or copied-on-write pages)"),
            Finding::Migrates { per_op, per } => {
                write!(f, "the measuring thread(s) moved to another CPU {per_op:.2} times {per}")
            }
            Finding::Children { faults, switches, cpu_ns, per } => {
                let mut took = Vec::new();
                if faults >= NOTABLE_PER_OP {
                    took.push(format!("{faults:.2} page faults"));
                }
                if switches >= NOTABLE_SWITCHES {
                    took.push(format!("{switches:.1} context switches"));
                }
                took.push(format!("{} on a CPU", overhead_humanize::format_ns(cpu_ns)));
                let last = took.pop().unwrap_or_default();
                let took = if took.is_empty() { last } else { format!("{} and {last}", took.join(", ")) };
                write!(f, "its child processes (a fork's child, a peer process) took {took} {per}")
            }
            Finding::KernelTime { share, ci_low, ci_high } => write!(
                f,
                "kernel time {:.0}% of the probe processes' CPU time, start-up included (95% CI {:.0}–{:.0}%)",
                share * 100.0,
                ci_low * 100.0,
                ci_high * 100.0
            ),
            Finding::OffCpu { share } => {
                write!(f, "the measuring thread was on a CPU {:.0}% of each operation's time: it waits off the CPU in each", share * 100.0)
            }
            Finding::Contradicts { claim, ref evidence } => write!(f, "a {claim} that {evidence}"),
        }
    }
}

/// What `point`'s counts say, in a fixed order; empty without counts or where nothing is notable.
pub fn findings(point: &PointRecord) -> Vec<Finding> {
    if point.counts.is_empty() {
        return Vec::new();
    }
    let per = per(point.metric);
    let mut out = Vec::new();
    let voluntary = point.per_op(CounterKind::ProcessVoluntarySwitches);
    let involuntary = point.per_op(CounterKind::ProcessInvoluntarySwitches);
    let thread = point.per_op(CounterKind::ContextSwitches);
    if let (Some(voluntary), Some(involuntary)) = (voluntary, involuntary) {
        let all = voluntary + involuntary;
        if all >= NOTABLE_SWITCHES {
            out.push(Finding::Switches { all, voluntary, thread, threads: point.threads, per });
        }
        if voluntary < NOTABLE_PER_OP && involuntary >= NOTABLE_SWITCHES {
            out.push(Finding::NeverBlocks { involuntary, per });
        }
    }
    let minor = point.per_op(CounterKind::MinorFaults).unwrap_or(0.0);
    let major = point.per_op(CounterKind::MajorFaults).unwrap_or(0.0);
    if minor >= NOTABLE_PER_OP || major >= NOTABLE_PER_OP {
        out.push(Finding::Faults { minor, major, per });
    }
    let migrations = point.per_op(CounterKind::CpuMigrations).unwrap_or(0.0);
    if migrations >= NOTABLE_PER_OP {
        out.push(Finding::Migrates { per_op: migrations, per });
    }
    let child = |kind| point.per_op(kind).unwrap_or(0.0);
    let (faults, switches) = (child(CounterKind::ChildMinorFaults), child(CounterKind::ChildSwitches));
    if faults >= NOTABLE_PER_OP || switches >= NOTABLE_SWITCHES {
        out.push(Finding::Children { faults, switches, cpu_ns: child(CounterKind::ChildCpuNs).max(0.0), per });
    }
    if let Some(share) = point.kernel_share().filter(|s| s.median >= NOTABLE_KERNEL_SHARE) {
        out.push(Finding::KernelTime { share: share.median, ci_low: share.ci_low, ci_high: share.ci_high });
    }
    // A single measuring thread's CPU time against its operation's time (a team's threads overlap in time),
    // where it leaves the CPU in each operation: a thread that parks once a batch while an executor's workers
    // do the work (`block_on`) is off the CPU without waiting in the operation.
    let leaves_each_time = thread.is_some_and(|cs| cs >= NOTABLE_SWITCHES);
    if let Some(cpu_ns) = point.per_op(CounterKind::CpuTimeNs).filter(|_| point.threads == 1 && leaves_each_time) {
        let share = (cpu_ns / point.summary.median).max(0.0);
        if point.summary.median >= 1_000.0 && share < OFF_CPU_SHARE {
            out.push(Finding::OffCpu { share });
        }
    }
    out.extend(contradiction(point, voluntary.unwrap_or(0.0), migrations));
    out
}

/// What an implementation is called when it is built never to put a thread to sleep, by the value of its
/// point's implementation key ([`crate::choose::implementation_key`]): a spin lock (a `lock:spin` point), any
/// other spinning implementation, and crossbeam-channel with a buffer (its array and list queues are
/// lock-free; it still parks a thread that finds them empty or full: what the finding shows; its
/// zero-capacity rendezvous is built to block and is no claim).
fn built_not_to_sleep(point: &PointRecord, key: &str, value: &str) -> Option<&'static str> {
    let buffered = point.spec.param("capacity").is_some_and(|c| c != "0");
    match (key, value) {
        ("lock", "spin") => Some("spin lock"),
        (_, "spin") => Some("spinning implementation"),
        ("impl", "crossbeam") if buffered => Some("lock-free channel"),
        _ => None,
    }
}

fn contradiction(point: &PointRecord, voluntary: f64, migrations: f64) -> Option<Finding> {
    let key = crate::choose::implementation_key(&point.spec.experiment)?;
    let claim = built_not_to_sleep(point, key, point.spec.param(key)?)?;
    let per = per(point.metric);
    if voluntary >= NOTABLE_PER_OP {
        Some(Finding::Contradicts { claim, evidence: format!("sleeps: its threads block {voluntary:.2} times {per}") })
    } else if migrations >= NOTABLE_PER_OP {
        Some(Finding::Contradicts { claim, evidence: format!("migrates: {migrations:.2} CPU moves {per}") })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_record::fixture::point;

    /// A point named `experiment/runtime:R/key:value/…` with these counts' medians.
    fn with_counts(name: &str, metric: Metric, median_ns: f64, counts: &[(&str, f64)]) -> PointRecord {
        let mut parts = name.split('/');
        let experiment = parts.next().expect("an experiment");
        let runtime = parts.next().and_then(|r| r.strip_prefix("runtime:")).expect("a runtime");
        let params: Vec<(&str, &str)> = parts.map(|kv| kv.split_once(':').expect("key:value")).collect();
        let mut p = point(experiment, runtime, &params, median_ns);
        p.metric = metric;
        p.threads = 1;
        p.counts = counts
            .iter()
            .map(|&(key, median)| overhead_record::fixture::count(key, median, median * 0.9, median * 1.1))
            .collect();
        p
    }

    /// A futex round trip between two threads: two switches in the process, one on the measuring thread, so
    /// one on each side; its thread is off the CPU most of the time.
    #[test]
    fn a_futex_round_trip_reads_one_switch_on_each_side() {
        let p = with_counts(
            "sched.switch/runtime:os/mechanism:futex/placement:other_core",
            Metric::Rtt,
            30_000.0,
            &[
                ("cs_per_op", 1.0),
                ("process_voluntary_cs_per_op", 2.0),
                ("process_involuntary_cs_per_op", 0.0),
                ("cpu_ns_per_op", 9_000.0),
            ],
        );
        let found = findings(&p);
        let text: Vec<String> = found.iter().map(|f| f.to_string()).collect();
        assert!(
            text[0].contains("2.0 context switches per round trip") && text[0].contains("1.0 on each side"),
            "{text:?}"
        );
        assert!(matches!(found[1], Finding::OffCpu { share } if (share - 0.3).abs() < 1e-9), "{found:?}");
        assert_eq!(found.len(), 2, "nothing else is notable: {found:?}");
        // A thread that parks once a batch in `block_on` while an executor's workers run is off the CPU without
        // waiting in each operation: no statement about it (and a negative CPU time is noise, never a share).
        let block_on = with_counts(
            "sync.oversub/runtime:tokio/variant:just_spawn/cpus:2/activities:32",
            Metric::PerOp,
            30_000.0,
            &[
                ("cs_per_op", 0.0),
                ("process_voluntary_cs_per_op", 1.0),
                ("process_involuntary_cs_per_op", 0.0),
                ("cpu_ns_per_op", -5.0),
            ],
        );
        assert!(findings(&block_on).iter().all(|f| !matches!(f, Finding::OffCpu { .. })), "{:?}", findings(&block_on));
    }

    /// kanal's rendezvous on one CPU: no thread blocks, two involuntary switches (its sched_yield polls).
    #[test]
    fn a_channel_that_yields_never_blocks() {
        let p = with_counts(
            "msg.rendezvous/runtime:os/impl:kanal/placement:same_cpu",
            Metric::Rtt,
            2_300.0,
            &[("cs_per_op", 1.0), ("process_voluntary_cs_per_op", 0.0), ("process_involuntary_cs_per_op", 2.0)],
        );
        let found = findings(&p);
        assert!(
            found.iter().any(|f| matches!(f, Finding::NeverBlocks { involuntary, .. } if *involuntary == 2.0)),
            "{found:?}"
        );
        assert!(
            found[0]
                .to_string()
                .contains("(0.0 of them a thread blocking), 1.0 on the measuring thread: 1.0 on each side"),
            "{found:?}"
        );
    }

    /// A lock-free channel that parks, a spin lock that migrates, fork's faults on both sides, a kernel-bound
    /// point; and a point with nothing to say says nothing.
    #[test]
    fn claims_faults_and_kernel_time_are_stated_and_quiet_points_say_nothing() {
        let counts = [("cs_per_op", 0.3), ("process_voluntary_cs_per_op", 0.2), ("process_involuntary_cs_per_op", 0.0)];
        let crossbeam = with_counts(
            "msg.throughput/runtime:os/impl:crossbeam/pattern:spsc/capacity:1024/placement:other_core",
            Metric::PerOp,
            100.0,
            &counts,
        );
        let text: Vec<String> = findings(&crossbeam).iter().map(|f| f.to_string()).collect();
        assert!(text.iter().any(|t| t.starts_with("a lock-free channel that sleeps")), "{text:?}");
        // Its zero-capacity rendezvous blocks by design: no claim to contradict.
        let rendezvous = with_counts(
            "msg.throughput/runtime:os/impl:crossbeam/pattern:spsc/capacity:0/placement:other_core",
            Metric::PerOp,
            100.0,
            &counts,
        );
        assert!(findings(&rendezvous).iter().all(|f| !matches!(f, Finding::Contradicts { .. })));
        let spin = with_counts(
            "sync.mutex/runtime:os/lock:spin/threads:2",
            Metric::PerOp,
            50.0,
            &[("migrations_per_op", 0.05)],
        );
        let text: Vec<String> = findings(&spin).iter().map(|f| f.to_string()).collect();
        assert!(text.iter().any(|t| t.starts_with("a spin lock that migrates")), "{text:?}");
        let fork = with_counts(
            "spawn.create/runtime:os/kind:process",
            Metric::PerOp,
            120_000.0,
            &[
                ("minor_faults_per_op", 2.8),
                ("major_faults_per_op", 0.0),
                ("child_minor_faults_per_op", 27.0),
                ("child_cs_per_op", 1.0),
                ("child_cpu_ns_per_op", 45_000.0),
                (overhead_record::KERNEL_SHARE_KEY, 0.78),
            ],
        );
        let text: Vec<String> = findings(&fork).iter().map(|f| f.to_string()).collect();
        assert_eq!(text[0], "2.80 page faults per operation (fresh or copied-on-write pages)");
        assert_eq!(
            text[1],
            "its child processes (a fork's child, a peer process) took 27.00 page faults, 1.0 context switches and \
             45.0 µs on a CPU per operation"
        );
        assert!(text[2].starts_with("kernel time 78% of the probe processes' CPU time"), "{text:?}");
        // An echo peer process: its switch and CPU time, no fault to speak of.
        let pipe = with_counts(
            "msg.ipc/runtime:os/transport:pipe/payload:8/placement:other_core",
            Metric::Rtt,
            35_000.0,
            &[("child_minor_faults_per_op", 0.0), ("child_cs_per_op", 1.0), ("child_cpu_ns_per_op", 27_000.0)],
        );
        let text: Vec<String> = findings(&pipe).iter().map(|f| f.to_string()).collect();
        assert_eq!(
            text,
            ["its child processes (a fork's child, a peer process) took 1.0 context switches and 27.0 µs on a CPU per \
              round trip"]
        );
        let quiet = with_counts(
            "sync.mutex/runtime:os/lock:std/threads:1",
            Metric::PerOp,
            20.0,
            &[("cs_per_op", 0.0), ("process_voluntary_cs_per_op", 0.0), ("process_involuntary_cs_per_op", 0.001)],
        );
        assert!(findings(&quiet).is_empty());
        assert!(findings(&point("x", "os", &[], 1.0)).is_empty(), "no counts, no findings");
    }
}
