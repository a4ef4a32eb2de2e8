//! The `msg` family: messages between activities (seed 003's IPC ping-pong, seed 004's messages).

mod ipc;

pub use ipc::Ipc;
