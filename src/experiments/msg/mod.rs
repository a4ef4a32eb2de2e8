//! The `msg` family: messages between activities (seed 003's IPC ping-pong, seed 004's messages).

mod async_send;
mod bandwidth;
mod call;
mod ipc;
mod rendezvous;
mod report;
mod switch;

pub use async_send::AsyncSend;
pub use bandwidth::Bandwidth;
pub use call::Call;
pub use ipc::Ipc;
pub use ipc::Params as IpcParams;
pub use rendezvous::Rendezvous;
pub use switch::Switch;

#[cfg(test)]
pub(crate) mod tests {
    use crate::experiments::{Experiment, PlanContext, Planned};
    use crate::harness::Mode;
    use crate::machine::Placement;
    use crate::record::PointSpec;
    use crate::runtimes::os::Os;

    /// With two hosts, exactly the tcp cells of `experiment` (msg.ipc, msg.bw) gain a `placement:other_host`
    /// point, one per payload of its local tcp cells, on hosts 0 and 1 and two different CPUs; without hosts
    /// there is none.
    pub(crate) fn only_tcp_runs_across_hosts(experiment: &dyn Experiment) {
        let mut ctx = crate::experiments::plan::tests::two_cpu_context(Mode::Default);
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
