//! A hot team: kernel threads created once, one pinned to each CPU, and woken for every parallel region
//! (libgomp's and libomp's "hot team" with `OMP_WAIT_POLICY=active`; EPCC syncbench's PARALLEL measures
//! the same fork-join). The calling thread is member 0, as an OpenMP master thread is.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use overhead_harness::SpinBarrier;
use overhead_machine::pin_current_thread;

/// A running team of `cpus.len()` members, each running the team's fixed job once per region.
/// Built and torn down by [`with_hot_team`].
pub struct HotTeam<'a, J: Fn(usize) + Sync> {
    barrier: &'a SpinBarrier,
    stop: &'a AtomicBool,
    job: &'a J,
    /// Member 0's barrier sense.
    sense: bool,
}

impl<J: Fn(usize) + Sync> HotTeam<'_, J> {
    /// One parallel region: wakes the helpers (fork barrier), runs `job(0)` on the calling thread while
    /// member `m` runs `job(m)` on its CPU, and returns when every member has finished (join barrier).
    #[inline]
    pub fn region(&mut self) {
        self.barrier.wait(&mut self.sense);
        (self.job)(0);
        self.barrier.wait(&mut self.sense);
    }
}

impl<J: Fn(usize) + Sync> Drop for HotTeam<'_, J> {
    /// Releases the helpers from their fork barrier with the stop flag set, so that the scope can join
    /// them, also when the body unwinds.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // The barrier's release/acquire pair publishes `stop` to every helper it lets through.
        self.barrier.wait(&mut self.sense);
    }
}

/// Runs `body` with a hot team on `cpus`: helper threads for `cpus[1..]` are created and pinned once,
/// and wait (spinning, then yielding) at a fork barrier between regions; the caller is member 0 and
/// should already run on `cpus[0]`. Returns what `body` returns and the CPUs whose pinning the kernel
/// refused, with the error text (that helper ran unpinned).
///
/// Panics if `cpus` is empty. The job must not panic: a member that unwinds out of a region leaves the
/// others waiting at its barrier for ever.
pub fn with_hot_team<J, R>(
    cpus: &[usize],
    job: J,
    body: impl FnOnce(&mut HotTeam<'_, J>) -> R,
) -> (R, Vec<(usize, String)>)
where
    J: Fn(usize) + Sync,
{
    assert!(!cpus.is_empty(), "a hot team needs at least one CPU");
    let barrier = SpinBarrier::new(cpus.len());
    let stop = AtomicBool::new(false);
    let refused = Mutex::new(Vec::new());
    let result = std::thread::scope(|s| {
        for (member, &cpu) in cpus.iter().enumerate().skip(1) {
            let (barrier, stop, job, refused) = (&barrier, &stop, &job, &refused);
            s.spawn(move || {
                if let Err(e) = pin_current_thread(cpu) {
                    refused.lock().unwrap_or_else(|p| p.into_inner()).push((cpu, e.to_string()));
                }
                let mut sense = false;
                loop {
                    barrier.wait(&mut sense);
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    job(member);
                    barrier.wait(&mut sense);
                }
            });
        }
        let mut team = HotTeam { barrier: &barrier, stop: &stop, job: &job, sense: false };
        body(&mut team)
    });
    (result, refused.into_inner().unwrap_or_else(|p| p.into_inner()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// Every region runs the job exactly once on every member, and no member is still running when
    /// `region` returns (the join barrier).
    #[test]
    fn each_region_runs_the_job_once_per_member() {
        const MEMBERS: usize = 3; // more than this machine's CPUs may hold: the yield path must work too
        const REGIONS: u64 = 60; // oversubscribed, each region may wait out a yield: keep the test short
        let cpus: Vec<usize> = {
            let allowed = overhead_machine::allowed_cpus();
            (0..MEMBERS).map(|i| allowed[i % allowed.len()]).collect()
        };
        let runs: Vec<AtomicU64> = (0..MEMBERS).map(|_| AtomicU64::new(0)).collect();
        let (regions, _refused) = with_hot_team(
            &cpus,
            |member| {
                runs[member].fetch_add(1, Ordering::SeqCst);
            },
            |team| {
                for region in 1..=REGIONS {
                    team.region();
                    for (member, r) in runs.iter().enumerate() {
                        assert_eq!(r.load(Ordering::SeqCst), region, "member {member} after region {region}");
                    }
                }
                REGIONS
            },
        );
        assert_eq!(regions, REGIONS);
        assert!(runs.iter().all(|r| r.load(Ordering::SeqCst) == REGIONS));
    }

    #[test]
    fn a_team_of_one_is_the_caller() {
        let calls = AtomicU64::new(0);
        let cpu = overhead_machine::allowed_cpus()[0];
        with_hot_team(
            &[cpu],
            |_| {
                calls.fetch_add(1, Ordering::Relaxed);
            },
            |team| (0..10).for_each(|_| team.region()),
        );
        assert_eq!(calls.load(Ordering::Relaxed), 10);
    }
}
