//! The `sync` family: fetch-and-add, barriers, oversubscribed barriers, locks (Ben-Asher & Feitelson 1991 §8), reader-writer
//! locks and semaphores (Souvatzis).

mod barrier;
mod faa;
mod mutex;
mod oversub;
mod rwlock;
mod sem;

pub use barrier::Barrier;
pub use faa::Faa;
pub use mutex::Mutex;
pub use oversub::Oversub;
pub use oversub::Params as OversubParams;
pub use rwlock::RwLock;
pub use sem::Sem;
