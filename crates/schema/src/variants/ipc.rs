//! How two processes talk in `msg.ipc`, `msg.bw` and the IPC rows of `rpc.*` (the `transport:` parameter);
//! the ends and the peer are `overhead_runtime_os::ipc`.

/// How the two processes talk (the `transport:` parameter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IpcTransport {
    /// Two pipes, one each way (lmbench `lat_pipe`).
    Pipe,
    /// A connected pair of UNIX stream sockets (`socketpair(AF_UNIX, SOCK_STREAM)`, lmbench `lat_unix`).
    UnixStream,
    /// A connected pair of UNIX datagram sockets: one datagram per message, so the size is bounded by the
    /// socket buffer limit (`net.core.wmem_max`).
    UnixDgram,
    /// Two eventfds, one each way: no payload, only the 8-byte counter (the cheapest kernel wake-up
    /// with a file descriptor).
    Eventfd,
    /// A futex handoff in shared memory, the payload copied in and out of a shared buffer each way.
    FutexShm,
    /// Shared memory polled by both sides (no system call), the payload copied as for `futex_shm`.
    SpinShm,
    /// Two POSIX message queues, one each way; the size is bounded by `fs.mqueue.msgsize_max`.
    Mqueue,
    /// A TCP connection over loopback (127.0.0.1) with `TCP_NODELAY` (lmbench `lat_tcp`).
    Tcp,
}

crate::param_enum!(IpcTransport);

impl IpcTransport {
    /// Every transport, in the ping-pong table's column order.
    pub const ALL: [IpcTransport; 8] = [
        IpcTransport::Pipe,
        IpcTransport::UnixStream,
        IpcTransport::UnixDgram,
        IpcTransport::Eventfd,
        IpcTransport::FutexShm,
        IpcTransport::SpinShm,
        IpcTransport::Mqueue,
        IpcTransport::Tcp,
    ];

    /// The byte streams, which keep many messages in flight (`msg.bw`'s transports).
    pub const STREAMS: [IpcTransport; 3] = [IpcTransport::Pipe, IpcTransport::UnixStream, IpcTransport::Tcp];

    /// Whether a message carries its bytes (an eventfd carries only its counter).
    pub fn carries_payload(self) -> bool {
        self != IpcTransport::Eventfd
    }

    /// The parameter value and column header (`pipe`, `unix_stream`, …).
    pub fn name(self) -> &'static str {
        match self {
            IpcTransport::Pipe => "pipe",
            IpcTransport::UnixStream => "unix_stream",
            IpcTransport::UnixDgram => "unix_dgram",
            IpcTransport::Eventfd => "eventfd",
            IpcTransport::FutexShm => "futex_shm",
            IpcTransport::SpinShm => "spin_shm",
            IpcTransport::Mqueue => "mqueue",
            IpcTransport::Tcp => "tcp",
        }
    }
}
