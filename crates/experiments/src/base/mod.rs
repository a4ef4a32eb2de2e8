//! The `base` family: the costs every other number sits on (Souvatzis's first rows, lmbench's "null").

mod call;
mod loop_overhead;
mod syscall;

pub use call::Call;
pub use loop_overhead::LoopOverhead;
pub use syscall::Syscall;
