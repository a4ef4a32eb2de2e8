//! The OpenMP kernels run, return, count exactly, and keep one pinned team across calls.

use super::*;

#[test]
fn openmp_is_available_here() {
    assert_eq!(available(), Ok(()));
    assert_eq!(library(), Some("gomp"));
    assert!(spec_version().is_some_and(|v| v >= 200505), "_OPENMP {:?}", spec_version());
}

/// Without the kernels, no team can be made, and the reason is build.rs's.
#[cfg(not(overhead_openmp))]
#[test]
fn a_build_without_openmp_refuses_a_team_with_the_reason() {
    let err = Team::pinned(&[0]).err().expect("no team without OpenMP");
    assert!(matches!(err, Error::Unavailable(ref m) if m.starts_with("openmp not available: ")), "{err}");
}

/// The kernels themselves (built only when build.rs could compile them).
#[cfg(overhead_openmp)]
mod kernels {
    use super::super::ffi::{self, Slot};
    use super::super::*;
    use overhead_machine::allowed_cpus;
    use overhead_runtime_api::contention::Variable;

    /// `threads` CPUs from those this process may use, repeating them on a machine with fewer.
    fn cpus(threads: usize) -> Vec<usize> {
        let allowed = allowed_cpus();
        (0..threads).map(|i| allowed[i % allowed.len()]).collect()
    }

    fn team(threads: usize) -> Team {
        Team::pinned(&cpus(threads)).unwrap_or_else(|e| panic!("team of {threads}: {e}"))
    }

    #[test]
    fn slot_layout_matches_c() {
        // SAFETY: returns sizeof(ovh_slot), a constant.
        let c_size = unsafe { ffi::ovh_omp_slot_size() };
        assert_eq!(c_size, std::mem::size_of::<Slot>());
        assert_eq!(std::mem::size_of::<Slot>(), 128);
        assert_eq!(std::mem::align_of::<Slot>(), 128);
    }

    #[test]
    fn every_kernel_runs_with_one_and_two_threads() {
        for threads in [1, 2] {
            let t = team(threads);
            assert_eq!(t.threads(), threads);
            t.empty_loop(100);
            t.forkjoin(100);
            t.team_loop(100);
            t.barrier(100);
            t.bulk(100);
            t.single_loop(100);
            t.remote(100);
            t.remote_control(100);
            t.grain(1000, 10);
            t.serial_reads(1000);
            assert_eq!(t.faa(100, Variable::Shared), 100 * threads as u64);
            assert_eq!(t.mutex(100), 100 * threads as u64);
            // Zero repetitions are a valid, empty batch.
            t.forkjoin(0);
            t.barrier(0);
            t.bulk(0);
            t.grain(0, 0);
            assert_eq!(t.tasks_per_thread(), vec![0; threads]);
        }
    }

    #[test]
    fn faa_and_mutex_counts_are_exact() {
        for threads in [1, 2] {
            let t = team(threads);
            let reps = 200_000;
            assert_eq!(t.faa(reps, Variable::Shared), reps * threads as u64, "shared, {threads} threads");
            assert_eq!(t.faa(reps, Variable::Distinct), reps * threads as u64, "distinct, {threads} threads");
            assert!(t.tasks_per_thread().iter().all(|&c| c == reps), "each distinct counter holds its thread's reps");
            assert_eq!(t.mutex(reps), reps * threads as u64, "mutex, {threads} threads");
        }
    }

    #[test]
    fn grain_and_remote_counts_add_up_to_ntasks() {
        for threads in [1, 2] {
            let t = team(threads);
            for ntasks in [1u64, 7, 1000, 5000] {
                t.grain(20_000, ntasks);
                let counts = t.tasks_per_thread();
                assert_eq!(counts.len(), threads);
                assert_eq!(counts.iter().sum::<u64>(), ntasks, "grain, {threads} threads, {ntasks} tasks: {counts:?}");
                t.remote(ntasks);
                let counts = t.tasks_per_thread();
                assert_eq!(counts.iter().sum::<u64>(), ntasks, "remote, {threads} threads, {ntasks} tasks: {counts:?}");
            }
        }
    }

    #[test]
    fn team_persists_and_stays_pinned_across_calls() {
        let t = team(2);
        let ids = t.thread_ids();
        assert!(ids.iter().all(|&id| id > 0), "{ids:?}");
        assert_ne!(ids[0], ids[1], "two threads, two IDs");
        for _ in 0..3 {
            t.forkjoin(50);
            t.barrier(50);
            t.bulk(50);
        }
        assert_eq!(t.thread_ids(), ids, "libgomp reused the same pool threads in the same order");
        if t.pin_failures().is_empty() {
            let want: Vec<Option<usize>> = t.cpus().iter().map(|&c| Some(c)).collect();
            assert_eq!(t.current_cpus(), want, "each pool thread still on its CPU");
            assert!(t.notes().iter().all(|n| n.starts_with("OpenMP environment")), "{:?}", t.notes());
        }
    }

    #[test]
    fn on_each_runs_once_per_thread_with_the_team_size() {
        let t = team(2);
        let seen = std::sync::Mutex::new(Vec::new());
        t.on_each(|thread, size| seen.lock().unwrap().push((thread, size)));
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, vec![(0, 2), (1, 2)]);
    }

    #[test]
    #[should_panic(expected = "OpenMP team thread panicked")]
    fn a_panic_on_a_team_thread_comes_back_to_the_master() {
        team(2).on_each(|thread, _| assert_ne!(thread, 1, "thread 1 fails on purpose"));
    }

    #[test]
    fn an_empty_cpu_list_is_refused_by_name() {
        let err = Team::pinned(&[]).err().expect("an empty team must be refused");
        assert!(matches!(err, Error::BadInput(ref m) if m.contains("CPU list is empty")), "{err}");
    }
}
