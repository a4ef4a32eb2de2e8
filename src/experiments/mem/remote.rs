//! `mem.remote`: seed 001 §4, Table 3, "relative access rates under different conditions", by the
//! seed's reference-activity method (docs/METHOD.md §10). An undisturbed activity A increments its own
//! line — on a page it first touched, 250 in-line increments per loop iteration, each a plain load and
//! a plain store like the seed's `(*p)++` — and at two fixed counts of its own, an early and a late one,
//! snapshots how far the others got (each publishes its count in its own padded line after every 250
//! increments, as `clock/race.rs` does). X's rate relative to A is X's progress between A's snapshots
//! over A's own: whatever the start skew, it cancels.
//!
//! The Makbilan's "remote memory" was another PE's board behind the bus; today's is a line another
//! core's cache holds (or, for the NUMA rows, a page on another node). So a remote activity increments a
//! word of the line a local activity uses — the seed's `j` beside `i` — which is what makes them contend.
//!
//! With too few CPUs for an isolated A beside the activities, the clock is the reference: the measured
//! activity's rate in a window with the others running, over its rate alone in an adjacent window on the
//! same CPU running A's loop (a line of its own).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use super::fairness::{window_ns, windows};
use super::page::FirstTouchPage;
use crate::clock::Clock;
use crate::experiments::plan::serde_plain;
use crate::experiments::{Experiment, ExperimentInfo, Outcome, PlanContext, Planned, Point, KERNEL};
use crate::harness::{Harness, Measurement};
use crate::machine::{pin_current_thread, Placement, Topology};
use crate::record::{Details, LabelledTable, Metric, PointSpec};
use crate::stats::percentile;

/// Increments in-line per loop iteration (seed 001 §4: "in-line code for 250 consecutive increment
/// instructions").
pub const INLINE: u64 = 250;

/// The note on every point measured against the clock.
pub const CLOCK_NOTE: &str = "reference: the clock — too few CPUs for an isolated reference activity";

/// One row of Table 3 (`case` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Case {
    /// Local B increments its own line, nobody else touches it (seed: 1.00).
    LocalFree,
    /// B on its own line while one remote activity C increments another word of the same line; B's rate
    /// (seed: 0.74).
    LocalOneRemote,
    /// As above with every other usable CPU a remote activity on that word; B's rate (seed: 0.57).
    LocalManyRemote,
    /// C increments a line first touched by another CPU, which then leaves it alone (seed: 0.11).
    RemoteUnused,
    /// C's rate in `local_one_remote`'s setting: to a line another core is using (seed: 0.11).
    RemoteUsed,
    /// Every CPU but the reference's increments one word; the slowest and fastest remote (seed: 0.01–0.03).
    RemoteHeavy,
    /// A dependent pointer chase over a buffer 4× the last-level cache, first touched on the walker's
    /// node, against a second such buffer: the local-node walk against itself.
    NumaLocal,
    /// The same walk over a buffer first touched on another node, against the local-node walk.
    NumaRemote,
}

impl Case {
    /// Every row, in Table 3's order, the NUMA rows last.
    pub const ALL: [Case; 8] = [
        Case::LocalFree,
        Case::LocalOneRemote,
        Case::LocalManyRemote,
        Case::RemoteUnused,
        Case::RemoteUsed,
        Case::RemoteHeavy,
        Case::NumaLocal,
        Case::NumaRemote,
    ];

    /// The parameter value (`local_free`, …).
    pub fn name(self) -> &'static str {
        match self {
            Case::LocalFree => "local_free",
            Case::LocalOneRemote => "local_one_remote",
            Case::LocalManyRemote => "local_many_remote",
            Case::RemoteUnused => "remote_unused",
            Case::RemoteUsed => "remote_used",
            Case::RemoteHeavy => "remote_heavy",
            Case::NumaLocal => "numa_local",
            Case::NumaRemote => "numa_remote",
        }
    }

    /// CPUs an isolated reference activity needs beside this case's activities (A included).
    fn cpus_with_reference(self) -> usize {
        match self {
            Case::LocalFree => 2,
            Case::LocalOneRemote | Case::RemoteUsed | Case::RemoteUnused | Case::RemoteHeavy => 3,
            Case::LocalManyRemote => 4,
            Case::NumaLocal | Case::NumaRemote => 1,
        }
    }
}

/// What the rates are relative to (`reference` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reference {
    /// An isolated activity A on a CPU of its own (the seed's method): thread 0.
    Activity,
    /// The clock: the measured activity's rate against its own undisturbed rate in an adjacent window.
    Clock,
}

/// `mem.remote`'s parameters (a `placement` follows where two CPUs are involved).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Params {
    pub case: Case,
    pub reference: Reference,
}

/// Seed 001 §4 (Table 3): relative access rates, one point per [`Case`]. Runtime `os`; every thread
/// pinned.
///
/// CPUs in the spec, thread 0 first. With `reference:activity`: A, then the measured activity, then the
/// others — `local_free` [A, B]; `local_one_remote` [A, B, C]; `remote_used` [A, C, B];
/// `local_many_remote` [A, B, C…] (needs 4 CPUs, else skipped); `remote_unused` [A, C, owner] (the owner
/// only first-touches C's page); `remote_heavy` [A, R…]. With `reference:clock` (fewer CPUs than that),
/// the measured activity first and no A: `local_free` [B], `local_one_remote` [B, C], `remote_used`
/// [C, B], `remote_unused` [C, owner], `remote_heavy` [R, R…] (each remote measured against its own
/// solo window). NUMA rows: [walker] or [walker, owner on another node]; skipped unless the usable CPUs
/// span two nodes. `placement` (parameter and spec) is that of the two CPUs that matter: B and C, C and
/// the owner, walker and owner.
///
/// Windows as [`super::fairness::window_ns`] (quick 2 ms, default 5 ms, full 10 ms), warm-up and kept as
/// [`windows`]. Samples: ns per increment (NUMA: per step) of the measured activity, one per kept
/// window; no control (`ovr` 0). `extra`: `relative_rate` (median over the kept windows; for
/// `remote_heavy` the mean over the remotes), `relative_rate_min` / `_max` (`remote_heavy`: the slowest
/// and fastest remote, each its median), `windows`, `window_ms`, `dropped_windows`;
/// `details.tables["rates"]`: each measured activity's median relative rate and ns per increment.
pub struct Remote;

/// What a `mem.remote` point reports beside its median (its `extra`). Relative rates are the measured
/// activities' access rates over the reference's (1 = undisturbed), medians over the kept windows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RemoteResult {
    /// The measured activities' relative rate.
    pub relative_rate: f64,
    /// The slowest measured activity's relative rate (more than one measured activity only).
    pub relative_rate_min: Option<f64>,
    /// The fastest measured activity's relative rate (more than one measured activity only).
    pub relative_rate_max: Option<f64>,
    /// Windows kept.
    pub windows: f64,
    /// Kept windows dropped because an activity was not counting yet (the counting cases only).
    pub dropped_windows: Option<f64>,
    /// A kept window's median length (ms; the counting cases only).
    pub window_ms: Option<f64>,
    /// The streamed buffer (MiB; the NUMA cases only).
    pub buffer_mib: Option<f64>,
    /// Steps timed per window (the NUMA cases only).
    pub steps_per_window: Option<f64>,
}

impl Remote {
    /// Public ID (docs/ARCHITECTURE.md "Experiments"): the record's `experiment` of every point of it, which
    /// the reports and the analysis match on.
    pub const ID: &'static str = "mem.remote";
}

impl Experiment for Remote {
    fn sections(&self) -> &'static [&'static crate::experiments::Section] {
        &[&super::report::SECTION]
    }
    fn info(&self) -> &'static ExperimentInfo {
        &ExperimentInfo {
            id: Remote::ID,
            summary: "relative access rates of local and remote activities against an undisturbed reference \
                      activity (or the clock on few CPUs): free, beside one or many remote writers of its line, \
                      remote to unused / used / heavily shared lines, local vs. remote NUMA node",
            source: "seed 001 §4, Table 3; docs/METHOD.md §10 (reference activity)",
            metric: Metric::PerOp,
            requires: KERNEL,
        }
    }
    fn points(&self, ctx: &PlanContext, runtime: &dyn crate::runtimes::RuntimeUnderTest) -> Vec<Planned> {
        plan(ctx, self.id(), runtime)
    }
    fn run(&self, point: &Point<'_>, h: &Harness) -> anyhow::Result<Outcome> {
        let spec = point.spec;
        let Params { case, reference } = point.params()?;
        let (warmup, kept) = windows(&h.config);
        let window = window_ns(h.config.mode);
        if matches!(case, Case::NumaLocal | Case::NumaRemote) {
            return numa(case, &spec.cpus, h, window, warmup, kept);
        }
        let setup = Setup::new(case, reference, &spec.cpus)?;
        let run = run_team(&setup, h.clock, window, warmup + kept);
        let mut outcome = rates_outcome(&setup, &run, warmup, h)?;
        if reference == Reference::Clock {
            outcome.notes.insert(0, CLOCK_NOTE.into());
        }
        Ok(outcome)
    }
}

/// The points: one per case, each with the reference this machine allows, or skipped with the reason.
fn plan(ctx: &PlanContext, experiment: &str, runtime: &dyn crate::runtimes::RuntimeUnderTest) -> Vec<Planned> {
    let cpus = ctx.team_cpus(ctx.cpus.len());
    let n = cpus.len();
    let spec = |case: Case, reference: Reference, cpus: Vec<usize>, pair: Option<(usize, usize)>| {
        let mut spec = ctx.spec_of(experiment, runtime, &Params { case, reference }, cpus);
        spec.placement = pair.map(|(a, b)| ctx.topology.placement(a, b));
        if let Some(p) = spec.placement {
            spec.params.push(("placement".into(), serde_plain(p)));
        }
        spec
    };
    let mut out = Vec::new();
    for case in Case::ALL {
        if matches!(case, Case::NumaLocal | Case::NumaRemote) {
            out.push(numa_point(ctx, case, &cpus, &spec));
            continue;
        }
        let isolated = n >= case.cpus_with_reference();
        let reference = if isolated { Reference::Activity } else { Reference::Clock };
        // Thread 0 is A with the seed's reference, the measured activity with the clock's.
        let a = usize::from(isolated);
        let planned = match case {
            _ if n == 0 => continue,
            Case::LocalManyRemote if !isolated => Planned::Skip(
                spec(case, Reference::Activity, cpus.clone(), None),
                format!(
                    "needs 4 usable CPUs (the reference, the local activity and at least two remote ones); \
                     this run may use {n}"
                ),
            ),
            _ if n < 2 && case != Case::LocalFree => Planned::Skip(
                spec(case, reference, cpus.clone(), None),
                format!(
                    "needs two usable CPUs ({}); this run may use only CPU {}",
                    if case == Case::RemoteUnused {
                        "the remote activity and the CPU that first touches its line"
                    } else {
                        "a local and a remote activity"
                    },
                    cpus[0]
                ),
            ),
            Case::LocalFree => Planned::Run(spec(case, reference, cpus[..1 + a].to_vec(), None)),
            Case::LocalOneRemote | Case::RemoteUsed | Case::RemoteUnused => {
                let c = cpus[..2 + a].to_vec();
                Planned::Run(spec(case, reference, c.clone(), Some((c[a], c[a + 1]))))
            }
            Case::LocalManyRemote | Case::RemoteHeavy => Planned::Run(spec(case, reference, cpus.clone(), None)),
            Case::NumaLocal | Case::NumaRemote => unreachable!("planned above"),
        };
        out.push(planned);
    }
    out
}

/// Makes a point's spec: case, reference, CPUs, and the two CPUs whose placement it carries.
type SpecOf<'a> = dyn Fn(Case, Reference, Vec<usize>, Option<(usize, usize)>) -> PointSpec + 'a;

/// A NUMA row: the walker on the first CPU, the remote buffer's owner on the nearest usable CPU of another
/// node (another package if no other node in this one), or skipped when the usable CPUs span one node.
fn numa_point(ctx: &PlanContext, case: Case, cpus: &[usize], spec: &SpecOf) -> Planned {
    let Some(&walker) = cpus.first() else {
        return Planned::Skip(spec(case, Reference::Clock, Vec::new(), None), "no usable CPU".into());
    };
    let owner = [Placement::OtherNumaNode, Placement::OtherPackage]
        .iter()
        .find_map(|&p| ctx.topology.partner(walker, p, &ctx.cpus))
        .filter(|&o| node_of(&ctx.topology, o) != node_of(&ctx.topology, walker));
    match (case, owner) {
        (_, None) => Planned::Skip(
            spec(case, Reference::Clock, vec![walker], None),
            format!(
                "the machine has one NUMA node{}: no remote node to compare with",
                if ctx.topology.numa_nodes > 1 { " among the usable CPUs" } else { "" }
            ),
        ),
        (Case::NumaLocal, Some(_)) => Planned::Run(spec(case, Reference::Clock, vec![walker], None)),
        (_, Some(owner)) => Planned::Run(spec(case, Reference::Clock, vec![walker, owner], Some((walker, owner)))),
    }
}

fn node_of(topology: &Topology, cpu: usize) -> Option<usize> {
    topology.cpu(cpu).map(|c| c.numa_node)
}

/// A word's address, shared with the thread that increments it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Word(*mut u64);
// SAFETY: an address into a `FirstTouchPage` that `Setup` keeps alive for as long as any thread runs
// (the threads are scoped inside `run_team`); the threads access it only through relaxed atomic loads and
// stores ([`increments`]), as the seed's plain increments, and the values are never read for anything but
// the increments themselves.
unsafe impl Send for Word {}
// SAFETY: as for Send.
unsafe impl Sync for Word {}

/// The memory and roles of one point.
struct Setup {
    /// The mappings the words point into; kept alive while the threads run.
    _pages: Vec<FirstTouchPage>,
    reference: Reference,
    /// One per thread, thread 0 first: its CPU and the word it increments.
    threads: Vec<(usize, Word)>,
    /// Indices of the threads whose rates are reported.
    measured: Vec<usize>,
    /// With the clock's reference: per measured thread, a word of its own (on a page its CPU first
    /// touched) for its solo windows.
    solo: Vec<Word>,
}

impl Setup {
    /// The layout of [`Remote`]'s doc for `case` on `cpus`.
    ///
    /// Errors: too few CPUs for the case, or a page could not be first touched on its CPU.
    fn new(case: Case, reference: Reference, cpus: &[usize]) -> anyhow::Result<Setup> {
        let a = usize::from(reference == Reference::Activity);
        let needed = match case {
            Case::LocalFree => 1,
            Case::LocalManyRemote => 3,
            _ => 2,
        } + a;
        anyhow::ensure!(cpus.len() >= needed, "{} needs {needed} CPUs, the point has {:?}", case.name(), cpus);
        let mut pages = Vec::new();
        let mut page = |cpu: usize| -> anyhow::Result<(Word, Word)> {
            let p = FirstTouchPage::on_cpu(cpu, 1).map_err(|e| anyhow::anyhow!("first touch on CPU {cpu}: {e}"))?;
            let w0 = p.line(0).as_ptr();
            // SAFETY: the second 8-byte word of line 0, inside the same 64-byte cache line and the mapping.
            let w1 = unsafe { w0.add(1) };
            pages.push(p);
            Ok((Word(w0), Word(w1)))
        };
        let mut threads = Vec::new();
        if a == 1 {
            threads.push((cpus[0], page(cpus[0])?.0));
        }
        let rest = &cpus[a..];
        let mut measured = vec![a];
        match case {
            Case::LocalFree => threads.push((rest[0], page(rest[0])?.0)),
            Case::LocalOneRemote => {
                let (i, j) = page(rest[0])?;
                threads.extend([(rest[0], i), (rest[1], j)]);
            }
            Case::RemoteUsed => {
                let (i, j) = page(rest[1])?;
                threads.extend([(rest[0], j), (rest[1], i)]);
            }
            Case::LocalManyRemote => {
                let (i, j) = page(rest[0])?;
                threads.push((rest[0], i));
                threads.extend(rest[1..].iter().map(|&c| (c, j)));
            }
            // The owner first touches the page and runs nothing.
            Case::RemoteUnused => threads.push((rest[0], page(rest[1])?.0)),
            Case::RemoteHeavy => {
                let (w, _) = page(rest[0])?;
                threads.extend(rest.iter().map(|&c| (c, w)));
                measured = (a..threads.len()).collect();
            }
            Case::NumaLocal | Case::NumaRemote => anyhow::bail!("{} is not a team case", case.name()),
        }
        let solo = match reference {
            Reference::Clock => {
                measured.iter().map(|&m| page(threads[m].0).map(|w| w.0)).collect::<anyhow::Result<_>>()?
            }
            Reference::Activity => Vec::new(),
        };
        Ok(Setup { _pages: pages, reference, threads, measured, solo })
    }
}

/// Two readings of a count: at the early and at the late snapshot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub early: u64,
    pub late: u64,
}

impl Snapshot {
    /// The progress between the two readings; `None` when the activity had not started by the early one
    /// or did not move, so the interval does not hold its steady loop.
    pub fn progress(self) -> Option<u64> {
        (self.early > 0 && self.late > self.early).then(|| self.late - self.early)
    }
}

/// The seed's relative rate: X's progress between the reference's snapshots over the reference's own
/// progress in that time. Where each stood at the early snapshot (the start skew) does not enter.
pub fn relative_rate(reference: Snapshot, seen: Snapshot) -> Option<f64> {
    Some(seen.progress()? as f64 / reference.progress()? as f64)
}

/// The clock's relative rate: X's increments per ns with the others running (`joint` over `joint_ns`)
/// over its increments per ns alone (`solo` over `solo_ns`).
pub fn clock_relative_rate(joint: Snapshot, joint_ns: f64, solo: Snapshot, solo_ns: f64) -> Option<f64> {
    let (j, s) = (joint.progress()? as f64, solo.progress()? as f64);
    (joint_ns > 0.0 && solo_ns > 0.0).then(|| (j / joint_ns) / (s / solo_ns))
}

/// 250 increments of `*p` in line, each a plain load and a plain store (seed 001 §4's `(*p)++`, not an
/// atomic read-modify-write): relaxed atomic accesses, which compile to the same two `mov`s on x86-64 and
/// aarch64 but stay defined when remote activities race on the word (`remote_heavy`, `local_many_remote`),
/// where volatile accesses would be a data race. A lost update costs nothing here: each activity counts its
/// own loop, not the word.
///
/// # Safety
/// `p` must be valid for reads and writes of a `u64`, 8-byte aligned, and accessed only atomically while any
/// activity runs.
#[inline(always)]
unsafe fn increments(p: *mut u64) {
    // SAFETY: valid and aligned for the whole call, accessed only atomically (the caller's promise).
    let word = unsafe { AtomicU64::from_ptr(p) };
    macro_rules! rep5 {
        ($($t:tt)*) => { $($t)* $($t)* $($t)* $($t)* $($t)* };
    }
    macro_rules! rep10 {
        ($($t:tt)*) => { rep5!{$($t)*} rep5!{$($t)*} };
    }
    // 5 × 5 × 10 = INLINE.
    rep5! { rep5! { rep10! { word.store(word.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed); } } }
}

/// An activity's loop: 250 increments of `p`, publish the count in `lane`, and stop once the count
/// reaches `limit`, `stop` is raised or the clock passes `deadline` (every activity reads all three, so
/// every activity's loop costs the same). Returns the count, from `from`.
#[inline(never)]
fn activity(p: Word, lane: &AtomicU64, stop: &AtomicBool, clock: &Clock, from: u64, limit: u64, deadline: u64) -> u64 {
    let mut c = from;
    loop {
        // SAFETY: `p` points into a live mapping (see `Word`), aligned.
        unsafe { increments(p.0) };
        c += INLINE;
        lane.store(c, Ordering::Relaxed);
        if c >= limit || stop.load(Ordering::Relaxed) || clock.start() >= deadline {
            return c;
        }
    }
}

/// How the driving activity (thread 0, or a solo one) ends its two intervals.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Bound {
    /// At fixed counts of its own (the seed's reference activity).
    Counts { early: u64, late: u64 },
    /// At fixed times: `lead` ticks after its start, then `window` ticks after that.
    Ticks { lead: u64, window: u64 },
}

/// The shared state of one team: a progress lane per thread and the stop flag, each in its own line.
struct Lanes {
    progress: Vec<CachePadded<AtomicU64>>,
    stop: CachePadded<AtomicBool>,
}

/// What the driver saw in one window: every lane at its two snapshots, and the ticks between them.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    lanes: Vec<Snapshot>,
    ticks: u64,
}

/// Drives one window on `p` with `lanes.progress[me]` as its own lane: counts to the early bound,
/// snapshots every lane (and the clock), to the late bound, snapshots again, raises stop. Writes the
/// snapshots into `seen` (no allocation).
fn drive(p: Word, me: usize, lanes: &Lanes, clock: &Clock, bound: Bound, seen: &mut Seen) {
    let lane = &lanes.progress[me];
    let stop = &lanes.stop;
    let snapshot = |at: &mut dyn FnMut(usize, u64)| {
        fence(Ordering::SeqCst);
        for (i, l) in lanes.progress.iter().enumerate() {
            at(i, l.load(Ordering::Relaxed));
        }
    };
    let (t0, t1) = match bound {
        Bound::Counts { early, late } => {
            let c = activity(p, lane, stop, clock, 0, early, u64::MAX);
            let t0 = clock.start();
            snapshot(&mut |i, v| seen.lanes[i].early = v);
            activity(p, lane, stop, clock, c, late, u64::MAX);
            let t1 = clock.stop();
            snapshot(&mut |i, v| seen.lanes[i].late = v);
            (t0, t1)
        }
        Bound::Ticks { lead, window } => {
            let start = clock.start();
            let c = activity(p, lane, stop, clock, 0, u64::MAX, start.wrapping_add(lead));
            let t0 = clock.start();
            snapshot(&mut |i, v| seen.lanes[i].early = v);
            activity(p, lane, stop, clock, c, u64::MAX, t0.wrapping_add(window));
            let t1 = clock.stop();
            snapshot(&mut |i, v| seen.lanes[i].late = v);
            (t0, t1)
        }
    };
    seen.ticks = t1.wrapping_sub(t0);
    stop.store(true, Ordering::Release);
}

/// What [`run_team`] hands back: per window, what the joint driver saw, and per measured thread its solo
/// windows (clock reference only).
#[derive(Debug, Clone, PartialEq)]
struct TeamRun {
    joint: Vec<Seen>,
    /// `solo[k][w]`: measured thread k alone in window w (its own lane only).
    solo: Vec<Vec<Seen>>,
    notes: Vec<String>,
}

/// Runs `windows` windows of about `window_ns`: with the clock's reference each starts with a solo
/// window per measured thread (it alone, on its own word), then all threads together, thread 0 driving.
fn run_team(setup: &Setup, clock: Clock, window_ns: f64, windows: usize) -> TeamRun {
    let n = setup.threads.len();
    let lanes = Lanes {
        progress: (0..n).map(|_| CachePadded::new(AtomicU64::new(0))).collect(),
        stop: CachePadded::new(AtomicBool::new(false)),
    };
    let solo_lanes: Vec<Lanes> = setup
        .measured
        .iter()
        .map(|_| Lanes {
            progress: vec![CachePadded::new(AtomicU64::new(0))],
            stop: CachePadded::new(AtomicBool::new(false)),
        })
        .collect();
    let window_ticks = (window_ns * clock.hz / 1e9).max(1.0) as u64;
    let ticks = Bound::Ticks { lead: window_ticks / 8, window: window_ticks };
    let barrier = crate::harness::SpinBarrier::new(n);
    type Log = (Vec<Seen>, Vec<Seen>, Option<String>);
    let logs: Vec<Log> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|index| {
                let (lanes, solo_lanes, barrier) = (&lanes, &solo_lanes, &barrier);
                let (cpu, word) = setup.threads[index];
                let solo_slot = setup.measured.iter().position(|&m| m == index).filter(|_| !setup.solo.is_empty());
                s.spawn(move || {
                    let pin_error =
                        pin_current_thread(cpu).err().map(|e| format!("thread for CPU {cpu} not pinned: {e}"));
                    let mut joint = vec![Seen { lanes: vec![Snapshot::default(); n], ticks: 0 }; windows];
                    let mut solo = vec![Seen { lanes: vec![Snapshot::default()], ticks: 0 }; windows];
                    let mut sense = false;
                    // The driver's bound: A counts to marks sized from a pilot of its own loop alone.
                    let bound = match setup.reference {
                        Reference::Clock => ticks,
                        Reference::Activity if index == 0 => {
                            let mut pilot = Seen { lanes: vec![Snapshot::default(); n], ticks: 0 };
                            let pilot_ticks = Bound::Ticks { lead: window_ticks / 16, window: window_ticks / 4 };
                            drive(word, 0, lanes, &clock, pilot_ticks, &mut pilot);
                            marks(pilot.lanes[0], clock.ticks_to_ns(pilot.ticks as f64), window_ns)
                        }
                        Reference::Activity => ticks,
                    };
                    for w in 0..windows {
                        for (k, solo_lane) in solo_lanes.iter().enumerate().take(setup.solo.len()) {
                            barrier.wait(&mut sense);
                            if solo_slot == Some(k) {
                                solo_lane.progress[0].store(0, Ordering::Relaxed);
                                solo_lane.stop.store(false, Ordering::Relaxed);
                                drive(setup.solo[k], 0, solo_lane, &clock, ticks, &mut solo[w]);
                            }
                        }
                        if index == 0 {
                            lanes.progress.iter().for_each(|l| l.store(0, Ordering::Relaxed));
                            lanes.stop.store(false, Ordering::Relaxed);
                        }
                        barrier.wait(&mut sense);
                        if index == 0 {
                            drive(word, 0, lanes, &clock, bound, &mut joint[w]);
                        } else {
                            activity(word, &lanes.progress[index], &lanes.stop, &clock, 0, u64::MAX, u64::MAX);
                        }
                        barrier.wait(&mut sense);
                    }
                    (joint, solo, pin_error)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("remote activity thread panicked")).collect()
    });
    let solo = setup.measured.iter().filter(|_| !setup.solo.is_empty()).map(|&m| logs[m].1.clone()).collect();
    let notes = logs.iter().filter_map(|l| l.2.clone()).collect();
    TeamRun { joint: logs[0].0.clone(), solo, notes }
}

/// The reference activity's marks for a window of about `window_ns`, from a pilot that counted `pilot`
/// in `pilot_ns`: early an eighth of the window in, late a window after; multiples of [`INLINE`].
fn marks(pilot: Snapshot, pilot_ns: f64, window_ns: f64) -> Bound {
    let ns_per_increment = pilot.progress().map_or(1.0, |p| pilot_ns / p as f64).max(1e-3);
    let window = ((window_ns / ns_per_increment) as u64 / INLINE).max(4) * INLINE;
    let early = (window / 8 / INLINE).max(1) * INLINE;
    Bound::Counts { early, late: early + window }
}

/// Each measured activity's relative rate and ns per increment in one window; `None` for an activity
/// whose snapshots do not hold its steady loop.
fn window_rates(setup: &Setup, run: &TeamRun, clock: &Clock, w: usize) -> Vec<Option<(f64, f64)>> {
    let seen = &run.joint[w];
    let joint_ns = clock.ticks_to_ns(seen.ticks as f64);
    setup
        .measured
        .iter()
        .enumerate()
        .map(|(k, &m)| {
            let progress = seen.lanes[m].progress()?;
            let rate = match setup.reference {
                Reference::Activity => relative_rate(seen.lanes[0], seen.lanes[m])?,
                Reference::Clock => {
                    let solo = &run.solo[k][w];
                    clock_relative_rate(seen.lanes[m], joint_ns, solo.lanes[0], clock.ticks_to_ns(solo.ticks as f64))?
                }
            };
            Some((rate, joint_ns / progress as f64))
        })
        .collect()
}

/// The median of `values` (unsorted); NaN for none.
fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        percentile(&v, 0.5)
    }
}

/// The point from the kept windows (after `warmup`).
///
/// Errors: no kept window held every measured activity's steady loop.
fn rates_outcome(setup: &Setup, run: &TeamRun, warmup: usize, h: &Harness) -> anyhow::Result<Outcome> {
    let clock = h.clock;
    let mut notes = run.notes.clone();
    let k = setup.measured.len();
    let mut per_activity: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); k];
    let (mut samples, mut rates, mut progress) = (Vec::new(), Vec::new(), Vec::new());
    let mut dropped = 0usize;
    for w in warmup..run.joint.len() {
        let window: Option<Vec<(f64, f64)>> = window_rates(setup, run, &clock, w).into_iter().collect();
        let Some(window) = window else {
            dropped += 1;
            continue;
        };
        for (a, &(rate, ns)) in per_activity.iter_mut().zip(&window) {
            a.0.push(rate);
            a.1.push(ns);
        }
        rates.push(window.iter().map(|r| r.0).sum::<f64>() / k as f64);
        let increments: f64 = window.iter().map(|r| 1.0 / r.1).sum::<f64>();
        samples.push(k as f64 / increments);
        let joint_ns = clock.ticks_to_ns(run.joint[w].ticks as f64);
        progress.push(joint_ns * increments / k as f64);
    }
    if samples.is_empty() {
        anyhow::bail!(
            "none of the {} kept windows saw every measured activity counting between the snapshots",
            run.joint.len() - warmup
        );
    }
    if dropped > 0 {
        notes.push(format!(
            "{dropped} of {} kept windows dropped (an activity not counting at the early snapshot)",
            run.joint.len() - warmup
        ));
    }
    let minmax = (k > 1).then(|| {
        let medians: Vec<f64> = per_activity.iter().map(|a| median(&a.0)).collect();
        (
            medians.iter().copied().fold(f64::INFINITY, f64::min),
            medians.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    });
    let joint_ms: Vec<f64> = run.joint[warmup..].iter().map(|s| clock.ticks_to_ns(s.ticks as f64) / 1e6).collect();
    let result = RemoteResult {
        relative_rate: median(&rates),
        relative_rate_min: minmax.map(|m| m.0),
        relative_rate_max: minmax.map(|m| m.1),
        windows: samples.len() as f64,
        dropped_windows: Some(dropped as f64),
        window_ms: Some(median(&joint_ms)),
        buffer_mib: None,
        steps_per_window: None,
    };
    let rows = setup
        .measured
        .iter()
        .zip(&per_activity)
        .map(|(&m, (r, ns))| {
            (format!("thread {m} (CPU {})", setup.threads[m].0), vec![Some(median(r)), Some(median(ns))])
        })
        .collect();
    let mut details = Details::default();
    details.tables.insert(
        "rates".into(),
        LabelledTable {
            title: "each measured activity's relative rate and time per increment, medians over the kept windows"
                .into(),
            unit: "rate (1 = the reference); ns".into(),
            columns: vec!["relative rate".into(), "ns per increment".into()],
            rows,
        },
    );
    // Counts are whole; a median computed through ns can land a hair below one (1499.999…).
    let batch_ops = median(&progress).max(1.0).round() as u64;
    let measurement = Measurement {
        batch_ops,
        control_ns: vec![0.0; samples.len()],
        samples_ns: samples,
        per_thread_ns: Vec::new(),
        resolution_ns: h.resolution_per_op_ns(batch_ops),
    };
    Ok(Outcome { measurement, notes, extra: BTreeMap::new(), details }.with_result(&result))
}

/// A buffer of `bytes` first touched on `cpu`, every 64-byte line holding the address of the next in one
/// random cycle through all of them ([`cycle`]): a dependent chase that neither the caches nor the
/// prefetchers can follow.
fn chase_buffer(cpu: usize, bytes: usize, seed: u64) -> anyhow::Result<FirstTouchPage> {
    let page = FirstTouchPage::on_cpu(cpu, bytes).map_err(|e| anyhow::anyhow!("first touch on CPU {cpu}: {e}"))?;
    let lines = page.bytes() / 64;
    let order = cycle(lines, seed);
    let base = page.as_ptr() as usize;
    for (i, &next) in order.iter().enumerate() {
        // SAFETY: `i` and `next` are below `lines`, so both lines lie inside the mapping; aligned for usize.
        unsafe { std::ptr::write((base + 64 * i) as *mut usize, base + 64 * next as usize) };
    }
    Ok(page)
}

/// `next[i]`: one cycle through all of `0..n` — the lines in a random order (Fisher–Yates with a xorshift
/// generator seeded `seed`), each linked to the one after it, the last to the first.
pub fn cycle(n: usize, seed: u64) -> Vec<u32> {
    let mut items: Vec<u32> = (0..n as u32).collect();
    let mut x = seed | 1;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = (x % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
    let mut next = vec![0u32; n];
    for i in 0..n {
        next[items[i] as usize] = items[(i + 1) % n];
    }
    next
}

/// `steps` dependent loads from `start`; returns where it ended (to start the next walk there).
///
/// # Safety
/// `start` must be a line of a buffer made by [`chase_buffer`], alive for the walk.
#[inline(never)]
unsafe fn chase(start: usize, steps: u64) -> usize {
    let mut p = start;
    for _ in 0..steps {
        p = std::ptr::read_volatile(p as *const usize);
    }
    p
}

/// The NUMA rows: per window, `steps` of the chase over the local buffer, then over the measured one
/// (a second local buffer for `numa_local`, one first touched on `cpus[1]`'s node for `numa_remote`),
/// each timed; the rate is local time over measured time.
fn numa(
    case: Case,
    cpus: &[usize],
    h: &Harness,
    window_ns: f64,
    warmup: usize,
    kept: usize,
) -> anyhow::Result<Outcome> {
    let walker = cpus[0];
    let owner = if case == Case::NumaRemote {
        *cpus.get(1).ok_or_else(|| anyhow::anyhow!("numa_remote needs the remote buffer's owner CPU"))?
    } else {
        walker
    };
    let topology = Topology::detect();
    let llc = topology.caches.iter().map(|c| c.size).max().unwrap_or(32 << 20) as usize;
    let bytes = (4 * llc).clamp(16 << 20, 1 << 30);
    let local = chase_buffer(walker, bytes, 0x9e37_79b9_7f4a_7c15)?;
    let measured = chase_buffer(owner, bytes, 0xd1b5_4a32_d192_ed03)?;
    let mut notes = Vec::new();
    for (what, page, cpu) in [("local", &local, walker), ("measured", &measured, owner)] {
        match (page.numa_node(), node_of(&topology, cpu)) {
            (Ok(node), Some(expected)) if node != expected => {
                notes.push(format!("the {what} buffer landed on node {node}, not CPU {cpu}'s node {expected}"))
            }
            (Err(e), _) => notes.push(format!("the {what} buffer's node is unknown: {e}")),
            _ => {}
        }
    }
    let clock = h.clock;
    let timed = |start: usize, steps: u64| -> (usize, f64) {
        let t0 = clock.start();
        // SAFETY: `start` is a line of a live chase buffer.
        let end = unsafe { chase(start, steps) };
        (end, clock.ticks_to_ns(clock.stop().wrapping_sub(t0) as f64))
    };
    let (mut at_local, mut at_measured) = (local.as_ptr() as usize, measured.as_ptr() as usize);
    let (end, pilot_ns) = timed(at_local, 20_000);
    at_local = end;
    let steps = ((window_ns / (pilot_ns / 20_000.0).max(1e-3)) as u64).max(1_000);
    let (mut samples, mut rates) = (Vec::new(), Vec::new());
    for w in 0..warmup + kept {
        let (end, local_ns) = timed(at_local, steps);
        at_local = end;
        let (end, measured_ns) = timed(at_measured, steps);
        at_measured = end;
        if w >= warmup && measured_ns > 0.0 {
            samples.push(measured_ns / steps as f64);
            rates.push(local_ns / measured_ns);
        }
    }
    let result = RemoteResult {
        relative_rate: median(&rates),
        relative_rate_min: None,
        relative_rate_max: None,
        windows: samples.len() as f64,
        dropped_windows: None,
        window_ms: None,
        buffer_mib: Some(bytes as f64 / (1 << 20) as f64),
        steps_per_window: Some(steps as f64),
    };
    let measurement = Measurement {
        batch_ops: steps,
        control_ns: vec![0.0; samples.len()],
        samples_ns: samples,
        per_thread_ns: Vec::new(),
        resolution_ns: h.resolution_per_op_ns(steps),
    };
    Ok(Outcome { measurement, notes, extra: BTreeMap::new(), details: Details::default() }.with_result(&result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::mem::classes::tests::simulated;
    use crate::harness::Mode;
    use crate::machine::allowed_cpus;

    fn planned(cpus: Vec<usize>, topology: Topology) -> Vec<Planned> {
        plan(&PlanContext { cpus, topology, mode: Mode::Default }, "mem.remote", &crate::runtimes::os::Os)
    }

    fn case_of(p: &Planned) -> (&PointSpec, Option<&str>) {
        match p {
            Planned::Run(s) => (s, None),
            Planned::Skip(s, why) => (s, Some(why.as_str())),
        }
    }

    #[test]
    fn many_cpus_give_every_row_with_the_seed_reference() {
        let p = planned((0..16).collect(), simulated(1, 2, 2, 2, 2));
        assert_eq!(p.len(), 8);
        let names: Vec<String> = p.iter().map(|p| case_of(p).0.param("case").unwrap().to_string()).collect();
        assert_eq!(names, Case::ALL.map(|c| c.name().to_string()));
        for planned in &p {
            let (spec, skip) = case_of(planned);
            assert_eq!(skip, None, "{spec:?}");
            let numa = spec.param("case").unwrap().starts_with("numa");
            assert_eq!(spec.param("reference"), Some(if numa { "clock" } else { "activity" }), "{}", spec.name());
        }
        let spec = |i: usize| case_of(&p[i]).0;
        // One CPU per core first: 0, 2, 4, …; A is thread 0.
        assert_eq!(spec(0).cpus, [0, 2]);
        assert_eq!(spec(0).placement, None);
        assert_eq!(spec(1).cpus, [0, 2, 4]);
        assert_eq!(
            spec(1).name(),
            "mem.remote/runtime:os/case:local_one_remote/reference:activity/placement:other_core"
        );
        assert_eq!(spec(2).cpus.len(), 16, "A, B and every other CPU a remote activity");
        assert_eq!(spec(3).cpus, [0, 2, 4], "A, C and the owner of C's page");
        assert_eq!(spec(5).cpus.len(), 16);
        // NUMA: CPUs 0–7 on node 0, 8–15 on node 1.
        assert_eq!(spec(6).cpus, [0]);
        assert_eq!(spec(7).cpus.len(), 2);
        assert!(spec(7).cpus[1] >= 8);
        assert_eq!(spec(7).placement, Some(Placement::OtherNumaNode));
    }

    #[test]
    fn two_cpus_fall_back_to_the_clock_and_skip_what_needs_more() {
        let topology = simulated(1, 1, 1, 2, 1);
        let p = planned(vec![0, 1], topology);
        let by_case = |c: Case| p.iter().map(case_of).find(|(s, _)| s.param("case") == Some(c.name())).unwrap();
        let (s, skip) = by_case(Case::LocalFree);
        assert_eq!((s.param("reference"), s.cpus.as_slice(), skip), (Some("activity"), &[0, 1][..], None));
        for c in [Case::LocalOneRemote, Case::RemoteUsed, Case::RemoteUnused, Case::RemoteHeavy] {
            let (s, skip) = by_case(c);
            assert_eq!((s.param("reference"), s.cpus.as_slice(), skip), (Some("clock"), &[0, 1][..], None), "{c:?}");
        }
        assert_eq!(by_case(Case::RemoteUsed).0.placement, Some(Placement::OtherCore));
        let (_, skip) = by_case(Case::LocalManyRemote);
        assert!(skip.unwrap().contains("needs 4 usable CPUs"), "{skip:?}");
        for c in [Case::NumaLocal, Case::NumaRemote] {
            let (_, skip) = by_case(c);
            assert!(skip.unwrap().contains("one NUMA node"), "{skip:?}");
        }
    }

    #[test]
    fn one_cpu_measures_local_free_against_the_clock_and_skips_the_rest() {
        let p = planned(vec![5], simulated(1, 1, 1, 1, 1));
        assert_eq!(p.len(), 8);
        let (s, skip) = case_of(&p[0]);
        assert_eq!((s.param("reference"), s.cpus.as_slice(), skip), (Some("clock"), &[5][..], None));
        for planned in &p[1..] {
            let (s, skip) = case_of(planned);
            let why = skip.unwrap_or_else(|| panic!("{} runs on one CPU", s.name()));
            assert!(why.contains("CPU") || why.contains("NUMA"), "{why}");
        }
        let (_, skip) = case_of(&p[1]);
        assert!(skip.unwrap().contains("only CPU 5"), "{skip:?}");
    }

    #[test]
    fn the_reference_arithmetic_cancels_the_start_skew() {
        // A counted 1 000 000 between its snapshots; B 740 000, whatever it had done before the first.
        let a = Snapshot { early: 125_000, late: 1_125_000 };
        let b = Snapshot { early: 60_000, late: 800_000 };
        assert_eq!(relative_rate(a, b), Some(0.74));
        let skewed = Snapshot { early: 400_000, late: 1_140_000 };
        assert_eq!(relative_rate(a, skewed), relative_rate(a, b));
        assert_eq!(relative_rate(a, Snapshot { early: 0, late: 500 }), None, "not started at the early snapshot");
        assert_eq!(relative_rate(a, Snapshot { early: 9, late: 9 }), None, "did not move");
        // The clock: 250 000 increments in 1 ms together, 1 000 000 in 2 ms alone: half the rate.
        let joint = Snapshot { early: 5_000, late: 255_000 };
        let solo = Snapshot { early: 1_000, late: 1_001_000 };
        assert_eq!(clock_relative_rate(joint, 1e6, solo, 2e6), Some(0.5));
        assert_eq!(clock_relative_rate(joint, 0.0, solo, 2e6), None);
    }

    /// The outcome's arithmetic on synthetic snapshots (two remotes against A, one warm-up window), and
    /// the report's Table 3 row from it.
    #[test]
    fn outcome_of_synthetic_windows() {
        let h = crate::harness::testing::quick_harness();
        let cpu = allowed_cpus()[0];
        let setup = Setup::new(Case::RemoteHeavy, Reference::Activity, &[cpu, cpu, cpu]).unwrap();
        assert_eq!(setup.measured, [1, 2]);
        let ms = (h.clock.hz / 1e3) as u64;
        let window = |a: (u64, u64), r1: (u64, u64), r2: (u64, u64)| Seen {
            lanes: [a, r1, r2].map(|(early, late)| Snapshot { early, late }).into(),
            ticks: ms,
        };
        let run = TeamRun {
            joint: vec![
                window((1, 2), (0, 0), (0, 0)),
                // A counted 10 000; R1 1 000 (0.1), R2 2 000 (0.2), over 1 ms: 1 000 and 500 ns per increment.
                window((1_000, 11_000), (500, 1_500), (100, 2_100)),
                window((1_000, 11_000), (0, 900), (100, 2_100)),
            ],
            solo: Vec::new(),
            notes: Vec::new(),
        };
        let o = rates_outcome(&setup, &run, 1, &h).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6 * b.abs().max(1.0);
        assert!(close(o.extra["relative_rate"], 0.15) && close(o.extra["relative_rate_min"], 0.1));
        assert!(close(o.extra["relative_rate_max"], 0.2));
        assert_eq!((o.extra["windows"], o.extra["dropped_windows"]), (1.0, 1.0), "R1 had not started in window 2");
        let ns = h.clock.ticks_to_ns(ms as f64);
        assert_eq!(o.measurement.samples_ns.len(), 1);
        assert!(close(o.measurement.samples_ns[0], 2.0 / (1_000.0 / ns + 2_000.0 / ns)));
        assert_eq!(o.measurement.control_ns, [0.0]);
        assert_eq!(o.measurement.batch_ops, 1_500);
        assert_eq!(o.details.tables["rates"].rows[1].0, format!("thread 2 (CPU {cpu})"));
        assert!(o.notes.iter().any(|n| n.contains("1 of 2 kept windows dropped")), "{:?}", o.notes);

        let mut record = crate::record::fixture::sample_record();
        let mut p = crate::record::fixture::point(
            "mem.remote",
            "os",
            &[("case", "remote_heavy"), ("reference", "activity")],
            o.measurement.samples_ns[0],
        );
        p.extra = o.extra;
        record.points = vec![p];
        let text = crate::experiments::mem::report::mem_tables(&record, crate::report::Format::Table);
        let row = text.lines().find(|l| l.contains("heavy contention")).unwrap();
        assert!(row.contains("0.10–0.20 (mean 0.15") && row.contains("0.01–0.03"), "{text}");
        assert!(text.contains("free memory") && text.contains("not run"), "{text}");
    }

    #[test]
    fn marks_are_whole_chunks_with_a_lead_in() {
        // 1 ns per increment, 1 ms window.
        let Bound::Counts { early, late } = marks(Snapshot { early: 1, late: 100_001 }, 1e5, 1e6) else { panic!() };
        assert_eq!(early % INLINE, 0);
        assert_eq!(late - early, 1_000_000);
        assert_eq!(early, 125_000);
    }

    #[test]
    fn the_chase_is_one_cycle_through_every_line() {
        for n in [1usize, 2, 3, 64, 1000] {
            let next = cycle(n, 42);
            let mut seen = vec![false; n];
            let mut i = 0usize;
            for _ in 0..n {
                assert!(!seen[i], "line {i} visited twice in a cycle of {n}");
                seen[i] = true;
                i = next[i] as usize;
            }
            assert_eq!(i, 0, "back at the start after {n} steps");
        }
        let page = chase_buffer(allowed_cpus()[0], 1 << 16, 7).unwrap();
        let start = page.as_ptr() as usize;
        // SAFETY: a live chase buffer of 1024 lines; a full cycle returns to the start.
        assert_eq!(unsafe { chase(start, (page.bytes() / 64) as u64) }, start);
    }

    /// Real runs of every team case on whatever CPUs exist (cycled), with both references: the outcome
    /// has a sample and a finite rate per kept window and the notes say which reference was used.
    /// Nothing about the rates' values is asserted: the machine may be loaded.
    #[test]
    fn team_cases_run_end_to_end() {
        let h = crate::harness::testing::quick_harness();
        let cpus: Vec<usize> = allowed_cpus().into_iter().cycle().take(4).collect();
        let cases = [Case::LocalFree, Case::LocalOneRemote, Case::RemoteUsed, Case::RemoteUnused, Case::RemoteHeavy];
        let mut measured = 0;
        for case in cases {
            for reference in [Reference::Activity, Reference::Clock] {
                let width = case.cpus_with_reference() - usize::from(reference == Reference::Clock);
                let setup = Setup::new(case, reference, &cpus[..width]).unwrap();
                let run = run_team(&setup, h.clock, 2e5, 3);
                assert_eq!(run.joint.len(), 3);
                assert_eq!(run.solo.len(), if reference == Reference::Clock { setup.measured.len() } else { 0 });
                // A preempted activity can drop a window on a loaded machine; what is kept is well formed.
                if let Ok(o) = rates_outcome(&setup, &run, 1, &h) {
                    measured += 1;
                    let m = &o.measurement;
                    assert!(!m.samples_ns.is_empty() && m.samples_ns.iter().all(|s| s.is_finite() && *s > 0.0));
                    assert_eq!(m.control_ns.len(), m.samples_ns.len());
                    assert!(o.extra["relative_rate"].is_finite() && o.extra["relative_rate"] > 0.0);
                    assert_eq!(case == Case::RemoteHeavy, o.extra.contains_key("relative_rate_min"), "{case:?}");
                    assert_eq!(o.details.tables["rates"].rows.len(), setup.measured.len());
                }
            }
        }
        assert!(measured >= cases.len(), "most settings give a rate: {measured} of {}", 2 * cases.len());
    }
}
