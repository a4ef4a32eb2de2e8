//! `mpi`: MPI's own primitives as a runtime under test (docs/ARCHITECTURE.md "Hosts and MPI"):
//! ping-pong, bandwidth with messages in flight, barrier and allreduce between ranks that the site's MPI
//! launcher starts, on this machine or across `--hosts`, as the OSU micro-benchmarks measure them but with
//! the project's batches, control subtraction, processes and CIs.
//!
//! Its points run as ranks ([`RuntimeUnderTest::launched_as_ranks`]): the orchestrator starts `overhead
//! probe` through the launcher (`overhead_launch::Launcher`), one rank per CPU of the point; every rank loads
//! the MPI shim ([`shim`], built with `mpicc` on first use) and rank 0 runs the harness. Without a launcher
//! or `mpicc` every cell is skipped with the reason; the default build needs neither.
//!
//! It also fills Souvatzis's message rows (`msg.async`, `msg.switch`, `msg.rendezvous`: [`messages`]), with
//! the two ranks of a switch or a rendezvous on one CPU.

mod lead;
mod messages;
pub mod shim;

pub use lead::{follow, lead_measure};

use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::{Offer, Offers, RuntimeUnderTest};

/// The `mpi` runtime.
pub struct Mpi;

/// Its public name (the `runtime:` of its points), for the reports that present its points.
pub const NAME: &str = overhead_schema::runtimes::MPI;

/// Why `mpi` lacks the other capabilities.
const RANKS_ONLY: &str =
    "MPI ranks are processes that pass messages; Souvatzis's message rows and the mpi.* experiments measure them";

const OFFERS: Offers = Offers {
    channel: Offer::Has(&[ChannelImpl::Mpi]),
    message_switch: Offer::Has(&[ChannelImpl::Mpi]),
    rendezvous: Offer::Has(&[ChannelImpl::Mpi]),
    ranks: Offer::Has(()),
    ..Offers::lacking(RANKS_ONLY)
};

impl RuntimeUnderTest for Mpi {
    fn name(&self) -> &'static str {
        NAME
    }
    fn about(&self) -> &'static str {
        "MPI ranks and MPI's primitives, started by the site's mpirun/mpiexec (OpenMPI or MPICH; shim built with mpicc on first use)"
    }
    /// A launcher on PATH (or `OVERHEAD_MPIRUN`) and the shim built with `mpicc`.
    fn available(&self) -> Result<(), String> {
        overhead_launch::Launcher::find().map_err(|e| format!("no MPI launcher: {e}"))?;
        shim::build().map(drop)
    }
    fn offers(&self) -> &Offers {
        &OFFERS
    }
    fn launched_as_ranks(&self) -> bool {
        true
    }
    overhead_runtime_api::capabilities!(messages);
}
