//! The thread team of a `mem.remote` point: every activity pinned, incrementing in-line, publishing its count,
//! the reference snapshotting the others at two fixed counts of its own (or windows timed by the clock).

use super::*;

/// An activity's loop: 250 increments of `p`, publish the count in `lane`, and stop once the count
/// reaches `limit`, `stop` is raised or the clock passes `deadline` (every activity reads all three, so
/// every activity's loop costs the same). Returns the count, from `from`.
#[inline(never)]
pub(super) fn activity(
    p: Word,
    lane: &AtomicU64,
    stop: &AtomicBool,
    clock: &Clock,
    from: u64,
    limit: u64,
    deadline: u64,
) -> u64 {
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
pub(super) enum Bound {
    /// At fixed counts of its own (the study's reference activity).
    Counts { early: u64, late: u64 },
    /// At fixed times: `lead` ticks after its start, then `window` ticks after that.
    Ticks { lead: u64, window: u64 },
}

/// The shared state of one team: a progress lane per thread and the stop flag, each in its own line.
pub(super) struct Lanes {
    pub(super) progress: Vec<CachePadded<AtomicU64>>,
    pub(super) stop: CachePadded<AtomicBool>,
}

/// What the driver saw in one window: every lane at its two snapshots, and the ticks between them.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Seen {
    pub(super) lanes: Vec<Snapshot>,
    pub(super) ticks: u64,
}

/// Drives one window on `p` with `lanes.progress[me]` as its own lane: counts to the early bound,
/// snapshots every lane (and the clock), to the late bound, snapshots again, raises stop. Writes the
/// snapshots into `seen` (no allocation).
pub(super) fn drive(p: Word, me: usize, lanes: &Lanes, clock: &Clock, bound: Bound, seen: &mut Seen) {
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
pub(super) struct TeamRun {
    pub(super) joint: Vec<Seen>,
    /// `solo[k][w]`: measured thread k alone in window w (its own lane only).
    pub(super) solo: Vec<Vec<Seen>>,
    pub(super) notes: Vec<String>,
}

/// Runs `windows` windows of about `window_ns`: with the clock's reference each starts with a solo
/// window per measured thread (it alone, on its own word), then all threads together, thread 0 driving.
pub(super) fn run_team(setup: &Setup, clock: Clock, window_ns: f64, windows: usize) -> TeamRun {
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
    let barrier = overhead_harness::SpinBarrier::new(n);
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
pub(super) fn marks(pilot: Snapshot, pilot_ns: f64, window_ns: f64) -> Bound {
    let ns_per_increment = pilot.progress().map_or(1.0, |p| pilot_ns / p as f64).max(1e-3);
    let window = ((window_ns / ns_per_increment) as u64 / INLINE).max(4) * INLINE;
    let early = (window / 8 / INLINE).max(1) * INLINE;
    Bound::Counts { early, late: early + window }
}

/// Each measured activity's relative rate and ns per increment in one window; `None` for an activity
/// whose snapshots do not hold its steady loop.
pub(super) fn window_rates(setup: &Setup, run: &TeamRun, clock: &Clock, w: usize) -> Vec<Option<(f64, f64)>> {
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
