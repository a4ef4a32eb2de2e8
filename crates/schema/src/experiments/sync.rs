//! The `sync.*` experiments: atomics, locks, semaphores and barriers.

/// The experiment ID `sync.rwlock`.
pub const RWLOCK: &str = "sync.rwlock";

/// The experiment ID `sync.sem`.
pub const SEM: &str = "sync.sem";

/// The experiment ID `sync.getcpu`.
pub const GETCPU: &str = "sync.getcpu";

/// The experiment ID `sync.percpu`.
pub const PERCPU: &str = "sync.percpu";

/// The experiment ID `sync.barrier`.
pub const BARRIER: &str = "sync.barrier";

/// The experiment ID `sync.oversub`.
pub const OVERSUB: &str = "sync.oversub";

/// The experiment ID `sync.faa`.
pub const FAA: &str = "sync.faa";

/// The experiment ID `sync.mutex`.
pub const MUTEX: &str = "sync.mutex";
