//! The probe process's body: what `overhead probe --job JSON` does in the child the run starts for one
//! point and round (docs/ARCHITECTURE.md "The data flow"). It resolves the point's experiment and runtime,
//! pins itself, joins its MPI job when the point runs as ranks, times the machine's speed and the host's
//! state around the measurement, and answers with the point's record. The parent's side (the plan, the
//! rounds, the schedule, the sides) is `overhead-orchestrator`, which starts these processes and reads their
//! answers; it shares only [`point_record`], so that an external probe's raw batches become a point the same
//! way.

mod body;
mod ranks;

pub use body::{point_record, run_probe};
