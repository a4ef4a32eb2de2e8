//! Souvatzis's message rows for `mpi` (docs/ARCHITECTURE.md "Hosts and MPI"): led from rank 0 with
//! [`super::lead_measure`], 8 bytes per message (the u64 the other runtimes pass).

use super::shim::Op;
use super::{follow, lead_measure, Mpi};
use overhead_harness::{Harness, Measurement};
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::offer::ensure_offered;
use overhead_runtime_api::primitives::Messages;
use overhead_runtime_api::RuntimeUnderTest as _;

/// Bytes per message: the u64 of the other runtimes' channels.
const BYTES: u64 = 8;

impl Messages for Mpi {
    /// One rank: MPI_Isend to itself, the matching MPI_Recv, then MPI_Wait on the send.
    fn async_message(&self, implementation: ChannelImpl, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered(super::NAME, "impl", self.offers().channel, implementation)?;
        lead_measure(h, Op::SelfMessage, BYTES, 0)
    }

    /// Two ranks on one CPU (the launcher's command tells OpenMPI to yield while idle,
    /// `orchestrator::probe_process`): MPI_Send then MPI_Recv of the echo; rank 1 the mirror.
    fn message_round_trip(
        &self,
        implementation: ChannelImpl,
        _partner_cpu: usize,
        h: &Harness,
    ) -> anyhow::Result<Measurement> {
        ensure_offered(super::NAME, "impl", self.offers().message_switch, implementation)?;
        lead_measure(h, Op::PingPong, BYTES, 0)
    }

    /// Two ranks on one CPU: rank 0 MPI_Ssend of the request (complete only once rank 1 has received it)
    /// then MPI_Recv of the reply; rank 1 MPI_Recv then MPI_Send. Per call, as the other runtimes'.
    fn rendezvous(&self, implementation: ChannelImpl, _partner_cpu: usize, h: &Harness) -> anyhow::Result<Measurement> {
        ensure_offered(super::NAME, "impl", self.offers().rendezvous, implementation)?;
        lead_measure(h, Op::Rendezvous, BYTES, 0)
    }

    fn follow(&self) -> anyhow::Result<()> {
        follow()
    }
}
