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
