//! The `os` runtime as a plug-in.

use overhead_runtime_api::activity_barrier::ActivityBarrierLimits;
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::contention::{AtomicImpl, BarrierImpl, LockImpl, RwLockImpl};
use overhead_runtime_api::fan_out::ForkJoinMechanism;
use overhead_runtime_api::primitives::{SpawnKind, SwitchKind, SwitchMechanism};
use overhead_runtime_api::wake_all::{WaiterCpus, WakeAllOffer, WakeMechanism};
use overhead_runtime_api::yield_round::YieldLimits;
use overhead_runtime_api::{Offer, Offers, RuntimeUnderTest, RANKS_UNDER_MPI};

/// The blocking channels on kernel threads (`os/channels.rs`): std's mpsc first (Souvatzis's
/// cell), then crossbeam-channel, flume and kanal. Each has unbounded and zero-capacity channels, so each
/// fills every message row.
const SYNC_CHANNELS: &[ChannelImpl] =
    &[ChannelImpl::StdMpsc, ChannelImpl::Crossbeam, ChannelImpl::Flume, ChannelImpl::Kanal];

/// What `os` offers: every capability.
const OFFERS: Offers = Offers {
    context: Offer::Has(()),
    kernel: Offer::Has(()),
    call: Offer::Has(()),
    spawn_join: Offer::Has(&[SpawnKind::Thread, SpawnKind::Process]),
    semaphore: Offer::Has(()),
    channel: Offer::Has(SYNC_CHANNELS),
    message_switch: Offer::Has(SYNC_CHANNELS),
    rendezvous: Offer::Has(SYNC_CHANNELS),
    channel_throughput: Offer::Has(SYNC_CHANNELS),
    raw_switch: Offer::Has(SwitchMechanism { kind: SwitchKind::Futex, across_cpus: true }),
    yield_round: Offer::Has(YieldLimits::NONE),
    wake_all: Offer::Has(WakeAllOffer {
        mechanisms: &[WakeMechanism::Futex, WakeMechanism::Condvar],
        waiter_cpus: WaiterCpus::OnePerWaiter,
    }),
    fork_join: Offer::Has(&[ForkJoinMechanism::Spawn, ForkJoinMechanism::HotTeam]),
    activity_barrier: Offer::Has(ActivityBarrierLimits::NONE),
    atomic: Offer::Has(&[AtomicImpl::Hw, AtomicImpl::HashedLock]),
    barrier: Offer::Has(&[BarrierImpl::Std, BarrierImpl::Spin, BarrierImpl::Pthread]),
    lock: Offer::Has(&[LockImpl::Std, LockImpl::Spin, LockImpl::Futex, LockImpl::ParkingLot, LockImpl::SpinCrate]),
    rwlock: Offer::Has(&[RwLockImpl::Std, RwLockImpl::ParkingLot, RwLockImpl::SpinCrate]),
    ipc: Offer::Has(&crate::ipc::IpcTransport::ALL),
    ranks: Offer::Lacks(RANKS_UNDER_MPI),
};

/// Kernel threads and processes: `std::thread`, futexes, pipes, sockets, POSIX semaphores.
pub struct Os;

impl RuntimeUnderTest for Os {
    fn name(&self) -> &'static str {
        "os"
    }
    fn about(&self) -> &'static str {
        "kernel threads and processes: std::thread, futex, POSIX semaphores, pipes, sockets"
    }
    fn offers(&self) -> &Offers {
        &OFFERS
    }
    overhead_runtime_api::capabilities!(
        context,
        primitives,
        messages,
        channel_throughput,
        yield_round,
        wake_all,
        fan_out,
        grain_sweep,
        activity_barrier,
        contention,
        rwlock
    );
}
