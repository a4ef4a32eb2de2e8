//! What a runtime offers, as data apart from the code that measures it (docs/ARCHITECTURE.md "Runtimes under
//! test"): for every [`Capability`], the variants it has (mechanisms, implementations, kinds) or why it lacks
//! it. The plan reads only this; the measuring code sits behind the runtime's accessors
//! ([`super::RuntimeUnderTest::contention`], …), which exist only for runtimes measured in this process.

use super::activity_barrier::ActivityBarrierLimits;
use super::channel_impl::ChannelImpl;
use super::contention::{AtomicImpl, BarrierImpl, LockImpl, RwLockImpl};
use super::fan_out::ForkJoinMechanism;
use super::primitives::{SpawnKind, SwitchMechanism};
use super::wake_all::WakeAllOffer;
use super::yield_round::YieldLimits;
use super::Capability;
use overhead_schema::variants::ipc::IpcTransport;

/// Whether a runtime has one capability: `Has` with what it offers of it (`()` for a capability without
/// variants), or `Lacks` with why not, as a sentence fragment that follows "runtime NAME has no
/// CAPABILITY: ".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer<V> {
    /// It has the capability, with these variants.
    Has(V),
    /// It lacks the capability, for this reason.
    Lacks(&'static str),
}

impl<V: Copy> Offer<V> {
    /// What it offers, or `None` when it lacks the capability.
    pub fn has(&self) -> Option<V> {
        match self {
            Offer::Has(v) => Some(*v),
            Offer::Lacks(_) => None,
        }
    }

    /// Why it lacks the capability, or `None` when it has it.
    pub fn lacks(&self) -> Option<&'static str> {
        match self {
            Offer::Has(_) => None,
            Offer::Lacks(why) => Some(why),
        }
    }
}

/// Every capability of one runtime, stated once: one field per [`Capability`], in its order. Souvatzis's
/// primitives (call … raw switch), Ben-Asher & Feitelson's constructs (yield … activity barrier) and contention between
/// CPUs (atomic, barrier, lock), each with the variants the runtime's points are named after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offers {
    /// [`Capability::Context`]: a single-thread loop in its own context.
    pub context: Offer<()>,
    /// [`Capability::Kernel`]: the kernel's own facilities (only `os`).
    pub kernel: Offer<()>,
    /// [`Capability::Call`].
    pub call: Offer<()>,
    /// [`Capability::SpawnJoin`]: the kinds of activity `spawn.create` creates (its `kind:` values, plan order).
    pub spawn_join: Offer<&'static [SpawnKind]>,
    /// [`Capability::Semaphore`].
    pub semaphore: Offer<()>,
    /// [`Capability::Channel`]: its `msg.async` channels (`impl:` values, plan order; the first is the
    /// runtime's own idiom, Souvatzis's table's cell).
    pub channel: Offer<&'static [ChannelImpl]>,
    /// [`Capability::MessageSwitch`]: its `msg.switch` channels (`impl:` values; the first as above).
    pub message_switch: Offer<&'static [ChannelImpl]>,
    /// [`Capability::Rendezvous`]: its `msg.rendezvous` implementations (`impl:` values; the first as above).
    pub rendezvous: Offer<&'static [ChannelImpl]>,
    /// [`Capability::ChannelThroughput`]: its `msg.throughput` channels (`impl:` values, plan order).
    pub channel_throughput: Offer<&'static [ChannelImpl]>,
    /// [`Capability::RawSwitch`]: what `sched.switch` measures and where its two activities may sit.
    pub raw_switch: Offer<SwitchMechanism>,
    /// [`Capability::Yield`]: and the loads it refuses.
    pub yield_round: Offer<YieldLimits>,
    /// [`Capability::WakeAll`]: its mechanisms and where its waiters run.
    pub wake_all: Offer<WakeAllOffer>,
    /// [`Capability::ForkJoin`]: its `spawn.forkjoin` mechanisms (`mechanism:` values, plan order).
    pub fork_join: Offer<&'static [ForkJoinMechanism]>,
    /// [`Capability::ActivityBarrier`]: and the combinations it refuses.
    pub activity_barrier: Offer<ActivityBarrierLimits>,
    /// [`Capability::Atomic`]: its `sync.faa` implementations (`impl:` values, plan order).
    pub atomic: Offer<&'static [AtomicImpl]>,
    /// [`Capability::Barrier`]: its `sync.barrier` implementations (`impl:` values, plan order).
    pub barrier: Offer<&'static [BarrierImpl]>,
    /// [`Capability::Lock`]: its `sync.mutex` locks (`lock:` values, plan order).
    pub lock: Offer<&'static [LockImpl]>,
    /// [`Capability::RwLock`]: its `sync.rwlock` reader-writer locks (`lock:` values, plan order).
    pub rwlock: Offer<&'static [RwLockImpl]>,
    /// [`Capability::Ipc`]: the transports of its `msg.ipc` round trips (`transport:` values, plan order).
    pub ipc: Offer<&'static [IpcTransport]>,
    /// [`Capability::Ranks`]: MPI ranks and MPI's primitives between them (only `mpi`).
    pub ranks: Offer<()>,
}

impl Offers {
    /// A runtime that lacks every capability for `why`: the base of a struct update that states what it
    /// has (`Offers { yield_round: …, ..Offers::lacking(WHY) }`).
    pub const fn lacking(why: &'static str) -> Offers {
        Offers {
            context: Offer::Lacks(why),
            kernel: Offer::Lacks(why),
            call: Offer::Lacks(why),
            spawn_join: Offer::Lacks(why),
            semaphore: Offer::Lacks(why),
            channel: Offer::Lacks(why),
            message_switch: Offer::Lacks(why),
            rendezvous: Offer::Lacks(why),
            channel_throughput: Offer::Lacks(why),
            raw_switch: Offer::Lacks(why),
            yield_round: Offer::Lacks(why),
            wake_all: Offer::Lacks(why),
            fork_join: Offer::Lacks(why),
            activity_barrier: Offer::Lacks(why),
            atomic: Offer::Lacks(why),
            barrier: Offer::Lacks(why),
            lock: Offer::Lacks(why),
            rwlock: Offer::Lacks(why),
            ipc: Offer::Lacks(why),
            ranks: Offer::Lacks(why),
        }
    }

    /// The implementations it offers that users choose between, as `(what, the experiment and key, values)`
    /// rows for `overhead list`: channels per message row and for throughput, locks, reader-writer locks,
    /// atomics and barriers; a row only where it offers some.
    pub fn implementations(&self) -> Vec<(&'static str, &'static str, Vec<String>)> {
        fn names<V: serde::Serialize + Copy>(offer: Offer<&[V]>) -> Vec<String> {
            let name = |v: &V| serde_json::to_value(v).ok().and_then(|j| j.as_str().map(str::to_owned));
            offer.has().unwrap_or_default().iter().filter_map(name).collect()
        }
        let rows = [
            ("asynchronous channel", "msg.async impl:", names(self.channel)),
            ("message with switch", "msg.switch impl:", names(self.message_switch)),
            ("rendezvous", "msg.rendezvous impl:", names(self.rendezvous)),
            ("channel throughput", "msg.throughput impl:", names(self.channel_throughput)),
            ("lock", "sync.mutex lock:", names(self.lock)),
            ("reader-writer lock", "sync.rwlock lock:", names(self.rwlock)),
            ("atomic", "sync.faa impl:", names(self.atomic)),
            ("barrier", "sync.barrier impl:", names(self.barrier)),
        ];
        rows.into_iter().filter(|(_, _, values)| !values.is_empty()).collect()
    }

    /// `None` when the runtime has `capability`; otherwise why not.
    pub fn lacks(&self, capability: Capability) -> Option<&'static str> {
        use Capability as C;
        match capability {
            C::Context => self.context.lacks(),
            C::Kernel => self.kernel.lacks(),
            C::Call => self.call.lacks(),
            C::SpawnJoin => self.spawn_join.lacks(),
            C::Semaphore => self.semaphore.lacks(),
            C::Channel => self.channel.lacks(),
            C::MessageSwitch => self.message_switch.lacks(),
            C::Rendezvous => self.rendezvous.lacks(),
            C::ChannelThroughput => self.channel_throughput.lacks(),
            C::RawSwitch => self.raw_switch.lacks(),
            C::Yield => self.yield_round.lacks(),
            C::WakeAll => self.wake_all.lacks(),
            C::ForkJoin => self.fork_join.lacks(),
            C::ActivityBarrier => self.activity_barrier.lacks(),
            C::Atomic => self.atomic.lacks(),
            C::Barrier => self.barrier.lacks(),
            C::Lock => self.lock.lacks(),
            C::RwLock => self.rwlock.lacks(),
            C::Ipc => self.ipc.lacks(),
            C::Ranks => self.ranks.lacks(),
        }
    }
}

/// The error of a measuring method asked for a variant its runtime does not offer (plans never ask; a
/// hand-written probe job can): `runtime`, the parameter `key` and the variant's parameter value.
pub fn not_offered<V: serde::Serialize>(runtime: &str, key: &str, variant: V) -> anyhow::Error {
    let value = serde_json::to_value(&variant).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
    anyhow::anyhow!("runtime {runtime} does not offer {key}:{value}")
}

/// `Ok` when `asked` is one of `offered` (a runtime's offer for the row), else [`not_offered`]'s error.
pub fn ensure_offered<V: serde::Serialize + PartialEq + Copy>(
    runtime: &str,
    key: &str,
    offered: Offer<&[V]>,
    asked: V,
) -> anyhow::Result<()> {
    if offered.has().unwrap_or_default().contains(&asked) {
        Ok(())
    } else {
        Err(not_offered(runtime, key, asked))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lacking` lacks everything for its reason; a struct update states what a runtime has.
    #[test]
    fn offers_say_per_capability_what_is_offered_or_why_not() {
        let offers = Offers { atomic: Offer::Has(&[AtomicImpl::Hw]), ..Offers::lacking("a reason") };
        assert_eq!(offers.lacks(Capability::Atomic), None);
        assert_eq!(offers.atomic.has(), Some(&[AtomicImpl::Hw][..]));
        for c in [Capability::Context, Capability::Kernel, Capability::RawSwitch, Capability::Lock] {
            assert_eq!(offers.lacks(c), Some("a reason"), "{c}");
        }
        assert_eq!(offers.implementations(), [("atomic", "sync.faa impl:", vec!["hw".to_string()])]);
    }

    /// A measuring method asked for a variant its runtime does not offer refuses it by its parameter value,
    /// before starting anything.
    #[test]
    fn a_variant_not_offered_is_refused_by_name() {
        let err = not_offered("os", "impl", AtomicImpl::OmpAtomic).to_string();
        assert_eq!(err, "runtime os does not offer impl:omp_atomic");
    }
}
