//! The `wake` family: how one thread wakes another, every path runtimes argue about side by side
//! (docs/METHOD.md §9, "Waking another thread").

mod handoff;

pub use handoff::{Handoff, HandoffResult, Params};
