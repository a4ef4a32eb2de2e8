//! The `os` runtime: kernel threads and processes, futexes and pipes, and the locks and barriers built
//! on them.

mod activity_barrier;
pub mod channels;
mod contention;
pub mod fan_out;
pub mod futex;
pub mod futex_lock;
pub mod hashed_faa;
pub mod hot_team;
pub mod ipc;
pub mod percpu;
pub mod pipe;
mod plugin;
mod primitives;
pub mod pthread_barrier;
mod rwlock;
pub mod sem;
pub mod spin_lock;
pub mod timed_wait;
pub mod wake;
pub mod wake_all;
mod yield_round;

pub use plugin::Os;

/// Test support of the locks (`futex_lock`, `spin_lock`).
#[cfg(test)]
mod lock_tests {
    /// Four threads (more than a small machine's CPUs, so holders get preempted and waiters sleep or spin)
    /// each add 1 50,000 times through `critical` (a read and a separate write inside the lock): an overlap of
    /// two critical sections would lose an update, a lost wake-up hang. Returns the count the lock must hold.
    pub(crate) fn add_from_four_threads(critical: impl Fn(&dyn Fn(&mut u64)) + Sync) -> u64 {
        const THREADS: u64 = 4;
        const EACH: u64 = 50_000;
        let add_one = |c: &mut u64| {
            let v = std::hint::black_box(*c);
            *c = v + 1;
        };
        std::thread::scope(|s| {
            for _ in 0..THREADS {
                s.spawn(|| {
                    for _ in 0..EACH {
                        critical(&add_one);
                    }
                });
            }
        });
        THREADS * EACH
    }
}
