//! The `sync` family: fetch-and-add, barriers, oversubscribed barriers, locks (Ben-Asher & Feitelson 1991 §8), reader-writer
//! locks and semaphores (Souvatzis), and per-CPU data (which CPU, per-CPU counters through rseq).

mod barrier;
mod faa;
mod mutex;
mod oversub;
mod percpu;
mod rwlock;
mod sem;

pub use barrier::Barrier;
pub use faa::Faa;
pub use mutex::Mutex;
pub use oversub::Oversub;
pub use oversub::Params as OversubParams;
pub use percpu::{Getcpu, GetcpuParams, Percpu, PercpuParams};
pub use rwlock::RwLock;
pub use sem::Sem;
