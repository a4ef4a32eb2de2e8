//! The largest message each transport can carry on this machine, read from the kernel's settings, so
//! that a larger payload is skipped with the reason instead of failing or being cut.

use super::IpcTransport;

/// A transport's largest message here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadLimit {
    /// Largest payload, bytes.
    pub bytes: usize,
    /// Why, naming the setting (for skip reasons).
    pub why: String,
}

/// The default `net.core.wmem_max` of Linux, used when /proc cannot be read.
const DEFAULT_WMEM_MAX: usize = 212_992;
/// The default `fs.mqueue.msgsize_max` of Linux.
const DEFAULT_MSGSIZE_MAX: usize = 8192;

fn read_usize(path: &str) -> Option<usize> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The limit of `transport` on this machine, or `None` when any payload up to 1 MiB goes.
pub fn payload_limit(transport: IpcTransport) -> Option<PayloadLimit> {
    match transport {
        IpcTransport::Eventfd => {
            Some(PayloadLimit { bytes: 8, why: "an eventfd carries no payload, only its 8-byte counter".into() })
        }
        IpcTransport::Mqueue => {
            let max = read_usize("/proc/sys/fs/mqueue/msgsize_max").unwrap_or(DEFAULT_MSGSIZE_MAX);
            Some(PayloadLimit {
                bytes: max,
                why: format!("POSIX message queues here take messages of at most {max} bytes (fs.mqueue.msgsize_max)"),
            })
        }
        IpcTransport::UnixDgram => {
            let wmem = read_usize("/proc/sys/net/core/wmem_max").unwrap_or(DEFAULT_WMEM_MAX);
            let rmem = read_usize("/proc/sys/net/core/rmem_max").unwrap_or(DEFAULT_WMEM_MAX);
            // The kernel doubles a requested buffer size and needs room for its own bookkeeping: a
            // datagram of the smaller maximum fits in a doubled buffer.
            let max = wmem.min(rmem);
            Some(PayloadLimit {
                bytes: max,
                why: format!(
                    "a UNIX datagram here is at most the socket buffer limit, {max} bytes (net.core.wmem_max/rmem_max)"
                ),
            })
        }
        _ => None,
    }
}
