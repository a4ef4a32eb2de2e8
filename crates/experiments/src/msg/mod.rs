//! The `msg` family: messages between activities (Walfield's IPC ping-pong, Souvatzis's messages).

mod async_send;
mod bandwidth;
mod call;
mod ipc;
mod peer_points;
mod rendezvous;
mod switch;
mod throughput;

pub use async_send::AsyncSend;
pub use bandwidth::Bandwidth;
pub use call::Call;
pub use ipc::Ipc;
pub use ipc::Params as IpcParams;
pub use rendezvous::Rendezvous;
pub use switch::Switch;
pub use throughput::Throughput;

use crate::{PlanContext, Planned};
use overhead_runtime_api::channel_impl::ChannelImpl;
use overhead_runtime_api::{Offer, RuntimeUnderTest};

/// The parameters of Souvatzis's message rows (`msg.async`, `msg.switch`, `msg.rendezvous`): the channel
/// implementation (`impl:`), one the runtime offers for the row. Records written before implementations were named have no
/// `impl:` key; they read as the runtime's own idiom ([`overhead_record::legacy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ImplParams {
    /// The channel implementation.
    #[serde(rename = "impl")]
    pub implementation: ChannelImpl,
}

/// `runtime`'s own implementation of one of Souvatzis's message rows (`experiment` is `msg.async`, `msg.switch`
/// or `msg.rendezvous`): the first its offers list, the one Souvatzis's table shows. `None` for another
/// experiment or a runtime this build does not know (a record from another build: any `impl:` then matches).
pub fn own_impl(experiment: &str, runtime: &str) -> Option<ChannelImpl> {
    let offers = overhead_runtime_registry::find(runtime)?.offers();
    let offer = match experiment {
        AsyncSend::ID => offers.channel,
        Switch::ID => offers.message_switch,
        Rendezvous::ID => offers.rendezvous,
        _ => return None,
    };
    offer.has()?.first().copied()
}

/// One point per implementation `offer` lists, in its order, made by `one` (the runtime's own idiom first).
fn per_impl(offer: Offer<&'static [ChannelImpl]>, mut one: impl FnMut(&ImplParams) -> Vec<Planned>) -> Vec<Planned> {
    offer.has().unwrap_or_default().iter().flat_map(|&implementation| one(&ImplParams { implementation })).collect()
}

/// `msg.async`'s points: one per channel on the home CPU.
fn single_per_impl(ctx: &PlanContext, experiment: &str, runtime: &dyn RuntimeUnderTest) -> Vec<Planned> {
    per_impl(runtime.offers().channel, |p| {
        vec![Planned::Run(ctx.spec_of(experiment, runtime, p, vec![ctx.home_cpu()]))]
    })
}

#[cfg(test)]
pub mod tests {
    use crate::{Experiment, PlanContext, Planned};
    use overhead_harness::Mode;
    use overhead_machine::Placement;
    use overhead_record::PointSpec;
    use overhead_runtime_api::channel_impl::ChannelImpl;
    use overhead_runtime_os::Os;

    /// `os` and `tokio` plan one `msg.async`, `msg.switch` and `msg.rendezvous` point per offered channel,
    /// the runtime's own idiom first; async-channel, which has no zero-capacity channel,
    /// has no rendezvous point.
    #[test]
    fn message_rows_plan_one_point_per_offered_impl_own_first() {
        let ctx = crate::plan::tests::two_cpu_context(Mode::Default);
        let impls = |e: &dyn Experiment, runtime: &str| -> Vec<String> {
            let r = overhead_runtime_registry::find(runtime).unwrap();
            e.points(&ctx, r)
                .into_iter()
                .map(|p| match p {
                    Planned::Run(s) | Planned::Skip(s, _) => s.param("impl").unwrap().to_owned(),
                })
                .collect()
        };
        let os = ["std_mpsc", "crossbeam", "flume", "kanal"];
        let tokio = ["tokio_mpsc", "async_channel", "flume_async", "kanal_async"];
        for e in [&super::AsyncSend as &dyn Experiment, &super::Switch, &super::Rendezvous] {
            assert_eq!(impls(e, "os"), os, "{}", e.id());
            assert_eq!(super::own_impl(e.id(), "os"), Some(ChannelImpl::StdMpsc));
            assert_eq!(super::own_impl(e.id(), "tokio"), Some(ChannelImpl::TokioMpsc));
        }
        assert_eq!(impls(&super::AsyncSend, "tokio"), tokio);
        assert_eq!(impls(&super::Switch, "tokio"), tokio);
        assert_eq!(impls(&super::Rendezvous, "tokio"), ["tokio_mpsc", "flume_async", "kanal_async"]);
    }

    /// With two hosts, exactly the tcp cells of `experiment` (msg.ipc, msg.bw) gain a `placement:other_host`
    /// point, one per payload of its local tcp cells, on hosts 0 and 1 and two different CPUs; without hosts
    /// there is none.
    pub fn only_tcp_runs_across_hosts(experiment: &dyn Experiment) {
        let mut ctx = crate::plan::tests::two_cpu_context(Mode::Default);
        let specs = |ctx: &PlanContext| -> Vec<PointSpec> {
            experiment
                .points(ctx, &Os)
                .into_iter()
                .map(|p| match p {
                    Planned::Run(s) | Planned::Skip(s, _) => s,
                })
                .collect()
        };
        let across = |ctx: &PlanContext| -> Vec<PointSpec> {
            specs(ctx).into_iter().filter(|s| s.placement == Some(Placement::OtherHost)).collect()
        };
        let local = specs(&ctx).len();
        assert!(across(&ctx).is_empty());
        ctx.hosts = vec!["a".into(), "b".into()];
        let other_host = across(&ctx);
        assert_eq!(specs(&ctx).len(), local + other_host.len());
        let payload = |s: &PointSpec| s.params_as::<super::IpcParams>().unwrap().payload;
        let tcp_payloads: Vec<usize> = specs(&ctx)
            .iter()
            .filter(|s| s.placement == Some(Placement::SameCpu) && s.param("transport") == Some("tcp"))
            .map(payload)
            .collect();
        assert!(!tcp_payloads.is_empty());
        assert_eq!(other_host.iter().map(payload).collect::<Vec<_>>(), tcp_payloads);
        for s in &other_host {
            assert_eq!(s.param("transport"), Some("tcp"), "{}", s.name());
            assert_eq!(s.param("placement"), Some("other_host"));
            assert_eq!(s.hosts, ["a", "b"]);
            assert_ne!(s.cpus[0], s.cpus[1]);
        }
    }
}
