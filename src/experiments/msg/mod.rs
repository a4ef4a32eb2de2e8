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
