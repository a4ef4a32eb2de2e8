//! `msg.ipc`'s rows of an async runtime: round trips with a forked echo through the runtime's own socket type
//! (tokio's and smol's over epoll, monoio's over io_uring), written once over [`Executor`] and [`EchoSocket`]
//! and monomorphised per runtime and socket type, so the timed loop calls the runtime directly
//! (docs/METHOD.md §9, "A runtime's own sockets").

use std::cell::RefCell;
use std::future::Future;
use std::io;
use std::os::fd::OwnedFd;
use std::rc::Rc;

use anyhow::Context as _;

use crate::async_channels::Executor;
use overhead_harness::{Harness, Measurement};
use overhead_runtime_api::offer::not_offered;
use overhead_schema::variants::ipc::IpcTransport;

/// The two buffers of a round trip, made before the measurement: the message sent and the echo read back,
/// `payload` bytes each. Boxed slices, so a runtime that takes buffers by value (monoio's owned-buffer I/O)
/// moves them in and out of its calls without allocating.
pub struct Buffers {
    /// The message, sent whole every round trip.
    pub msg: Box<[u8]>,
    /// Where the echo lands, read whole every round trip.
    pub reply: Box<[u8]>,
}

impl Buffers {
    /// A message of `payload` bytes (0x5a, as the kernel's rows send) and a reply buffer as long.
    fn new(payload: usize) -> Buffers {
        Buffers { msg: vec![0x5a; payload].into_boxed_slice(), reply: vec![0; payload].into_boxed_slice() }
    }
}

/// A runtime's socket type connected to an echo.
pub trait EchoSocket: Sized + 'static {
    /// The connected stream socket `socket` as this type, inside the runtime's executor (a runtime registers
    /// it with the driver of the thread it runs on).
    ///
    /// Errors: the runtime refused it.
    fn join(socket: OwnedFd) -> io::Result<Self>;
    /// One round trip: all of `buffers.msg` out, then the whole echo into `buffers.reply`.
    ///
    /// Errors: a write or read failed, or the echo ended the stream.
    fn round_trip(&mut self, buffers: &mut Buffers) -> impl Future<Output = io::Result<()>>;
}

/// [`measure`] with `runtime`'s socket type for `transport`: `U` for a UNIX stream socket, `T` for TCP
/// ([`overhead_runtime_api::ipc::RUNTIME_SOCKETS`]); every runtime's `IpcRoundTrips` is this call on its
/// executor.
///
/// Errors: another transport ([`not_offered`]); as [`measure`].
pub fn by_transport<E: Executor, U: EchoSocket, T: EchoSocket>(
    runtime: &str,
    on: &E,
    (socket, transport): (OwnedFd, IpcTransport),
    payload: usize,
    h: &Harness,
) -> anyhow::Result<Measurement> {
    match transport {
        IpcTransport::UnixStream => measure::<E, U>(on, socket, payload, h),
        IpcTransport::Tcp => measure::<E, T>(on, socket, payload, h),
        other => Err(not_offered(runtime, "transport", other)),
    }
}

/// Implements [`EchoSocket`] for a runtime's socket types, `echo_sockets!(round_trip; Type => join, …)`: each
/// `Type` joins the runtime through `join` (an `fn(OwnedFd) -> io::Result<Type>`), and each of its round trips
/// is the runtime's `round_trip(&mut socket, &mut buffers)`, written once per runtime for both its types.
macro_rules! echo_sockets {
    ($round_trip:path; $($socket:ty => $join:expr),+ $(,)?) => {
        $(
            impl $crate::socket_round_trips::EchoSocket for $socket {
                fn join(socket: std::os::fd::OwnedFd) -> std::io::Result<Self> {
                    ($join)(socket)
                }
                async fn round_trip(
                    &mut self,
                    buffers: &mut $crate::socket_round_trips::Buffers,
                ) -> std::io::Result<()> {
                    $round_trip(self, buffers).await
                }
            }
        )+
    };
}
pub(crate) use echo_sockets;

/// Implements [`overhead_runtime_api::ipc::IpcRoundTrips`] for `$runtime` (named `$name` in errors): each
/// measurement on the executor `$on` makes (an expression evaluated in the method, so `?` works), through
/// `$unix` for a UNIX stream socket and `$tcp` for TCP ([`by_transport`]).
macro_rules! ipc_round_trips {
    ($(#[$doc:meta])* $runtime:ty, $name:literal, on: $on:expr, unix: $unix:ty, tcp: $tcp:ty) => {
        impl overhead_runtime_api::ipc::IpcRoundTrips for $runtime {
            $(#[$doc])*
            fn socket_round_trips(
                &self,
                socket: std::os::fd::OwnedFd,
                at: overhead_schema::variants::ipc::IpcTransport,
                payload: usize,
                h: &overhead_harness::Harness,
            ) -> anyhow::Result<overhead_harness::Measurement> {
                $crate::socket_round_trips::by_transport::<_, $unix, $tcp>($name, &$on, (socket, at), payload, h)
            }
        }
    };
}
pub(crate) use ipc_round_trips;

/// The socket and buffers between batches: each batch's future takes them and puts them back, so no
/// borrow is held across an `.await`; the first failed round trip is kept for after the measurement.
struct Ends<S> {
    socket: S,
    buffers: Buffers,
    failed: Option<io::Error>,
}

/// Round trips of `payload` bytes through `socket` as an `S` on the executor `on`: the socket joins it and
/// makes one round trip untimed, then [`Executor::measure`] times batches of round trips (each batch one
/// entry into the executor, the control the same entry with the empty loop).
///
/// Errors: joining, the first round trip, or one during the measurement failed (the first error).
pub fn measure<E: Executor, S: EchoSocket>(
    on: &E,
    socket: OwnedFd,
    payload: usize,
    h: &Harness,
) -> anyhow::Result<Measurement> {
    let ends = on.block_on(async {
        let mut socket = S::join(socket).context("the socket joining the runtime")?;
        let mut buffers = Buffers::new(payload);
        socket.round_trip(&mut buffers).await.context("first round trip")?;
        anyhow::Ok(Ends { socket, buffers, failed: None })
    })?;
    let shared = Rc::new(RefCell::new(Some(ends)));
    let measurement = on.measure(h, |n| {
        let shared = Rc::clone(&shared);
        async move {
            let mut ends = shared.borrow_mut().take().expect("the ends are back after every batch");
            for _ in 0..n {
                if let Err(e) = ends.socket.round_trip(&mut ends.buffers).await {
                    ends.failed.get_or_insert(e);
                }
            }
            *shared.borrow_mut() = Some(ends);
        }
    });
    let ends = shared.borrow_mut().take().expect("the ends are back after the measurement");
    if let Some(e) = ends.failed {
        anyhow::bail!("a round trip failed during measurement: {e}");
    }
    Ok(measurement)
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Round trips the [`Counting`] socket made on this thread.
        static ROUND_TRIPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// A socket whose round trips count themselves, and check that the buffers reach every call whole.
    struct Counting;

    impl EchoSocket for Counting {
        fn join(_: OwnedFd) -> io::Result<Self> {
            Ok(Counting)
        }
        async fn round_trip(&mut self, buffers: &mut Buffers) -> io::Result<()> {
            assert_eq!((buffers.msg.len(), buffers.reply.len()), (64, 64));
            ROUND_TRIPS.with(|c| c.set(c.get() + 1));
            Ok(())
        }
    }

    /// A socket that fails every round trip.
    struct Failing;

    impl EchoSocket for Failing {
        fn join(_: OwnedFd) -> io::Result<Self> {
            Ok(Failing)
        }
        async fn round_trip(&mut self, _: &mut Buffers) -> io::Result<()> {
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "the echo is gone"))
        }
    }

    fn any_socket() -> OwnedFd {
        std::os::unix::net::UnixStream::pair().unwrap().0.into()
    }

    /// Every operation of every batch is one round trip: at least the untimed one, sizing's batches and the
    /// kept batches' (N each) were made, and N is what the measurement reports.
    #[test]
    fn every_operation_is_one_round_trip() {
        let rt = crate::tokio_rt::current_thread().unwrap();
        let h = overhead_harness::testing::quick_harness();
        ROUND_TRIPS.with(|c| c.set(0));
        let m = measure::<_, Counting>(&rt, any_socket(), 64, &h).unwrap();
        let made = ROUND_TRIPS.with(|c| c.get());
        let least = 1 + (1 + h.config.repetitions as u64) * m.batch_ops;
        assert!(made >= least, "{made} round trips, fewer than {least}");
        assert_eq!(m.samples_ns.len(), h.config.repetitions);
    }

    /// A failed round trip fails the measurement with its error: the untimed first one already.
    #[test]
    fn a_failed_round_trip_fails_the_measurement() {
        let rt = crate::tokio_rt::current_thread().unwrap();
        let h = overhead_harness::testing::quick_harness();
        let err = measure::<_, Failing>(&rt, any_socket(), 8, &h).unwrap_err();
        assert!(format!("{err:#}").contains("the echo is gone"), "{err:#}");
    }
}
