//! The gRPC service of the `rpc` family (Walfield 2008; tonic + prost, generated from
//! `crates/grpc/proto/overhead_rpc.proto` into `crates/grpc/generated/`): Walfield's four Viengoos calls, each doing a fixed amount of server work, their
//! per-method accounting on the server's side, one connection served on hyper's HTTP/2, and the client's stub
//! that times each call.

use std::future::Future;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use hyper_util::rt::{TokioExecutor, TokioIo};
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Response, Status};

use crate::evict::Evictor;
use crate::transport::{Address, Listener};
use overhead_clock::Clock;
use overhead_harness::chain;

/// The code tonic-prost-build generated from `crates/grpc/proto/overhead_rpc.proto` (messages, client, server),
/// kept in the tree so that the build needs no code generator; `tests::the_generated_code_matches_the_proto`
/// regenerates it (`--features regenerate`) and compares.
#[allow(clippy::all, clippy::pedantic, missing_docs)]
mod pb {
    include!("../generated/overhead_rpc.rs");
}

pub use pb::viengoos_client::ViengoosClient;
pub use pb::viengoos_server::{Viengoos, ViengoosServer};
pub use pb::{Words12, Words2};

/// Walfield's four most used Viengoos calls, in the study's table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `ObjectDiscard`: the study's most used call (79% of its calls), 22.0 µs of server time there.
    ObjectDiscard,
    /// `ObjectAlloc`: 10% of the study's calls, 6.2 µs of server time.
    ObjectAlloc,
    /// `CapCopy`: 10% of the study's calls, 5.6 µs of server time.
    CapCopy,
    /// `FolioAlloc`: the rarest (0.1%) and heaviest, 37.8 µs of server time.
    FolioAlloc,
}

impl Method {
    /// Every method, in the study's table order (also their index in per-method arrays).
    pub const ALL: [Method; 4] = [Method::ObjectDiscard, Method::ObjectAlloc, Method::CapCopy, Method::FolioAlloc];

    /// Its index in [`Method::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The study's row label: `object discard`, `object alloc`, `cap copy`, `folio alloc`.
    pub const fn label(self) -> &'static str {
        match self {
            Method::ObjectDiscard => "object discard",
            Method::ObjectAlloc => "object alloc",
            Method::CapCopy => "cap copy",
            Method::FolioAlloc => "folio alloc",
        }
    }

    /// Links of the server's work chain ([`chain`], one xorshift-multiply step of about 5 cycles each: shift,
    /// xor, multiply, each waiting for the last). The study's server time per call (Viengoos's "Kernel" µs:
    /// 22.0, 6.2, 5.6, 37.8) in cycles of its 1.2 GHz K7, over 5: the methods keep the study's proportions of
    /// server work (discard heavy, alloc and cap copy light, folio alloc heaviest), and a delta that is small
    /// beside the work, as the study's was, is as hard to see here as it was there. 22.0 µs × 1200 / 5 = 5280.
    pub const fn links(self) -> u64 {
        match self {
            Method::ObjectDiscard => 5280,
            Method::ObjectAlloc => 1488,
            Method::CapCopy => 1344,
            Method::FolioAlloc => 9072,
        }
    }

    /// A distinct non-zero start for the reply's fold, so that two methods answer one request differently.
    const fn tag(self) -> u64 {
        0x9e37_79b9_7f4a_7c15_u64.wrapping_mul(self as u64 + 1)
    }
}

/// Request number `i`: 12 distinct non-zero words (every field is on the wire, so each request encodes to
/// 108 bytes).
pub fn request(i: u64) -> Words12 {
    let w = |k: u64| (i.wrapping_mul(12).wrapping_add(k).wrapping_add(1)).wrapping_mul(0xd6e8_feb8_6659_fd93) | 1;
    Words12 {
        w0: w(0),
        w1: w(1),
        w2: w(2),
        w3: w(3),
        w4: w(4),
        w5: w(5),
        w6: w(6),
        w7: w(7),
        w8: w(8),
        w9: w(9),
        w10: w(10),
        w11: w(11),
    }
}

/// What `method` answers to `request`: word 0 folds the 12 words (rotate and xor, from the method's tag),
/// word 1 is the method's work, a dependent chain of [`Method::links`] links started from word 0. The
/// work's result is part of the reply, so it cannot be optimised away, and a test can recompute it.
pub fn reply(method: Method, request: &Words12) -> Words2 {
    let r = request;
    let words = [r.w0, r.w1, r.w2, r.w3, r.w4, r.w5, r.w6, r.w7, r.w8, r.w9, r.w10, r.w11];
    let w0 = words.iter().fold(method.tag(), |h, &w| h.rotate_left(5) ^ w);
    Words2 { w0, w1: chain(method.links(), w0) }
}

/// One method's calls and the ticks they took on one side, summed (Walfield's per-method variables).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Calls counted.
    pub calls: u64,
    /// Their time together, ticks of the harness's clock.
    pub ticks: u64,
}

/// The server's per-method tallies, kept by its handler and taken by the client's `TakeTally` calls.
#[derive(Debug, Default)]
pub struct ServerTallies {
    calls: [AtomicU64; 4],
    ticks: [AtomicU64; 4],
}

impl ServerTallies {
    /// Counts one call of `method` that took `ticks`.
    #[inline]
    fn add(&self, method: Method, ticks: u64) {
        // One thread serves; Relaxed atomics cost what plain adds do.
        self.calls[method.index()].fetch_add(1, Ordering::Relaxed);
        self.ticks[method.index()].fetch_add(ticks, Ordering::Relaxed);
    }

    /// `method`'s tally so far, which starts again from zero.
    fn take(&self, method: Method) -> Tally {
        Tally {
            calls: self.calls[method.index()].swap(0, Ordering::Relaxed),
            ticks: self.ticks[method.index()].swap(0, Ordering::Relaxed),
        }
    }
}

/// The server's side of the service: does each method's work and times it, from the receipt of the decoded
/// request to the reply handed back to tonic (Walfield 2008: "on the receipt of a message … just before Viengoos
/// sends a reply"), with the same clock as the client's stub. Decoding the request and encoding the reply are
/// outside this time, as the RPC layer's, like the transport: they fall into the delta.
#[derive(Debug)]
pub struct Handler {
    clock: Clock,
    tallies: ServerTallies,
    evictor: Option<Evictor>,
}

impl Handler {
    /// A handler timing with `clock`; `evictor` is what `Evict` streams (none: `Evict` only answers).
    pub fn new(clock: Clock, evictor: Option<Evictor>) -> Handler {
        Handler { clock, tallies: ServerTallies::default(), evictor }
    }

    #[inline]
    fn serve(&self, method: Method, request: Request<Words12>) -> Result<Response<Words2>, Status> {
        let t0 = self.clock.start();
        let answer = reply(method, request.get_ref());
        let t1 = self.clock.stop();
        self.tallies.add(method, t1.wrapping_sub(t0));
        Ok(Response::new(answer))
    }
}

#[tonic::async_trait]
impl Viengoos for Handler {
    async fn object_discard(&self, request: Request<Words12>) -> Result<Response<Words2>, Status> {
        self.serve(Method::ObjectDiscard, request)
    }
    async fn object_alloc(&self, request: Request<Words12>) -> Result<Response<Words2>, Status> {
        self.serve(Method::ObjectAlloc, request)
    }
    async fn cap_copy(&self, request: Request<Words12>) -> Result<Response<Words2>, Status> {
        self.serve(Method::CapCopy, request)
    }
    async fn folio_alloc(&self, request: Request<Words12>) -> Result<Response<Words2>, Status> {
        self.serve(Method::FolioAlloc, request)
    }
    async fn evict(&self, request: Request<Words12>) -> Result<Response<Words2>, Status> {
        if let Some(e) = &self.evictor {
            e.evict();
        }
        Ok(Response::new(Words2 { w0: request.get_ref().w0, w1: 0 }))
    }
    async fn take_tally(&self, request: Request<Words12>) -> Result<Response<Words2>, Status> {
        let which = request.get_ref().w0;
        let method = Method::ALL
            .get(usize::try_from(which).unwrap_or(usize::MAX))
            .ok_or_else(|| Status::invalid_argument(format!("no method number {which}")))?;
        let tally = self.tallies.take(*method);
        Ok(Response::new(Words2 { w0: tally.calls, w1: tally.ticks }))
    }
}

/// Accepts one connection on `listener` and serves `handler` on it over HTTP/2 until the client closes it.
/// Call inside a tokio runtime (the server's current-thread one).
///
/// Errors: accepting failed, or the connection ended in an HTTP/2 error (a client that simply closes ends it
/// cleanly).
pub async fn serve_one(listener: Listener, handler: Handler) -> io::Result<()> {
    let service = ViengoosServer::new(handler);
    match listener {
        Listener::Unix { listener, .. } => {
            listener.set_nonblocking(true)?;
            let (stream, _) = tokio::net::UnixListener::from_std(listener)?.accept().await?;
            serve_connection(stream, service).await
        }
        Listener::Tcp(listener) => {
            listener.set_nonblocking(true)?;
            let (stream, _) = tokio::net::TcpListener::from_std(listener)?.accept().await?;
            stream.set_nodelay(true)?;
            serve_connection(stream, service).await
        }
    }
}

/// hyper's HTTP/2 server on one connection, with the tonic service as its handler (what tonic's own server
/// runs per connection, without its accept loop).
async fn serve_connection<IO>(io: IO, service: ViengoosServer<Handler>) -> io::Result<()>
where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    hyper::server::conn::http2::Builder::new(TokioExecutor::new())
        .serve_connection(TokioIo::new(io), hyper_util::service::TowerToHyperService::new(service))
        .await
        .map_err(io::Error::other)
}

/// A tonic channel to `address` and the service's client on it. tonic's own TCP connector (`TCP_NODELAY`, an
/// IP address: no name lookup); for a UNIX socket, a connector that opens the path (tonic's documented way).
/// Call inside the client's tokio runtime.
///
/// Errors: the connection could not be made.
pub async fn connect(address: &Address) -> Result<ViengoosClient<Channel>, tonic::transport::Error> {
    let channel = match address {
        Address::Tcp(addr) => Endpoint::from_shared(format!("http://{addr}"))?.tcp_nodelay(true).connect().await?,
        Address::Unix(path) => {
            let path = path.clone();
            // The URI only names the HTTP/2 authority; the connector decides where the bytes go.
            let connector = tower::service_fn(move |_: tonic::codegen::http::Uri| {
                let path = path.clone();
                async move { Ok::<_, io::Error>(TokioIo::new(tokio::net::UnixStream::connect(path).await?)) }
            });
            Endpoint::from_static("http://overhead.rpc").connect_with_connector(connector).await?
        }
    };
    Ok(ViengoosClient::new(channel))
}

/// The client's stub, instrumented as Walfield's were: the clock is read just before each call and on its
/// return, and the difference is summed per method with the number of calls.
#[derive(Debug)]
pub struct Stub {
    client: ViengoosClient<Channel>,
    clock: Clock,
    tallies: [Tally; 4],
    request: Words12,
}

impl Stub {
    /// A stub calling through `client`, timing with `clock`; every call sends [`request`]`(0)`.
    pub fn new(client: ViengoosClient<Channel>, clock: Clock) -> Stub {
        Stub { client, clock, tallies: [Tally::default(); 4], request: request(0) }
    }

    /// Calls `method` once, timed and counted.
    ///
    /// Errors: the call failed (the server's status, or the connection's error as a status).
    #[inline]
    pub async fn call(&mut self, method: Method) -> Result<Words2, Status> {
        let t0 = self.clock.start();
        let answer = self.untimed(method).await;
        let t1 = self.clock.stop();
        let tally = &mut self.tallies[method.index()];
        tally.calls += 1;
        tally.ticks += t1.wrapping_sub(t0);
        answer
    }

    /// The call of `method`, untimed and uncounted.
    fn untimed(&mut self, method: Method) -> impl Future<Output = Result<Words2, Status>> + '_ {
        let (client, request) = (&mut self.client, self.request);
        async move {
            let response = match method {
                Method::ObjectDiscard => client.object_discard(request).await,
                Method::ObjectAlloc => client.object_alloc(request).await,
                Method::CapCopy => client.cap_copy(request).await,
                Method::FolioAlloc => client.folio_alloc(request).await,
            };
            response.map(Response::into_inner)
        }
    }

    /// Asks the server to evict its caches (the control method: neither timed nor counted).
    ///
    /// Errors: the call failed.
    pub async fn evict(&mut self) -> Result<(), Status> {
        self.client.evict(self.request).await.map(|_| ())
    }

    /// Both sides' tallies since the last take, client's then server's, in [`Method::ALL`] order; both start
    /// again from zero (the server's through `TakeTally`, one untimed call per method).
    ///
    /// Errors: a `TakeTally` call failed.
    pub async fn take_tallies(&mut self) -> Result<([Tally; 4], [Tally; 4]), Status> {
        let mut server = [Tally::default(); 4];
        for (i, tally) in server.iter_mut().enumerate() {
            let ask = Words12 { w0: i as u64, ..self.request };
            let answer = self.client.take_tally(ask).await?.into_inner();
            *tally = Tally { calls: answer.w0, ticks: answer.w1 };
        }
        Ok((std::mem::take(&mut self.tallies), server))
    }
}

#[cfg(test)]
mod tests {
    use prost::Message as _;

    use super::*;
    use crate::RpcTransport;
    use overhead_harness::testing::quick_harness;

    /// The code in `generated/` is what the proto generates today (`--features regenerate`; CI runs it):
    /// the proto and the code the build uses cannot drift apart. `OVERHEAD_BLESS=1` writes the new code.
    #[cfg(overhead_grpc_regenerated)]
    #[test]
    fn the_generated_code_matches_the_proto() {
        let fresh = include_str!(concat!(env!("OUT_DIR"), "/overhead_rpc.rs"));
        let kept = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("generated/overhead_rpc.rs");
        if std::env::var_os("OVERHEAD_BLESS").is_some() {
            std::fs::write(&kept, fresh).unwrap();
        }
        let kept = std::fs::read_to_string(&kept).unwrap();
        assert!(kept == fresh, "crates/grpc/generated/overhead_rpc.rs is stale: rerun with OVERHEAD_BLESS=1");
    }

    fn current_thread() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    /// A server on its own thread (in the probe it is a forked process), a client here: every method answers
    /// with the fold of the request and its own chain, the stub and the server count each call once, and the
    /// server ends when the client closes the connection.
    #[test]
    fn each_method_answers_with_its_reply_over_both_transports() {
        let clock = quick_harness().clock;
        for transport in RpcTransport::ALL {
            let (listener, _dir) = Listener::bind(transport).unwrap();
            let address = listener.address().unwrap();
            let handler = Handler::new(clock, Some(Evictor::new(1 << 16)));
            let server = std::thread::spawn(move || current_thread().block_on(serve_one(listener, handler)));
            let rt = current_thread();
            let mut stub = Stub::new(rt.block_on(connect(&address)).unwrap(), clock);
            let sent = request(0);
            let mut answers = Vec::new();
            for method in Method::ALL {
                let answer = rt.block_on(stub.call(method)).unwrap();
                let fold = [sent.w0, sent.w1, sent.w2, sent.w3, sent.w4, sent.w5, sent.w6, sent.w7]
                    .into_iter()
                    .chain([sent.w8, sent.w9, sent.w10, sent.w11])
                    .fold(method.tag(), |h, w| h.rotate_left(5) ^ w);
                assert_eq!(answer.w0, fold, "{transport:?} {method:?}");
                assert_eq!(answer.w1, chain(method.links(), fold), "{transport:?} {method:?}");
                answers.push(answer);
            }
            rt.block_on(stub.evict()).unwrap();
            answers.dedup();
            assert_eq!(answers.len(), 4, "each method answers differently");
            rt.block_on(stub.call(Method::CapCopy)).unwrap();
            let (client, server_side) = rt.block_on(stub.take_tallies()).unwrap();
            assert_eq!(client.map(|t| t.calls), [1, 1, 2, 1], "{transport:?}: Evict is not counted");
            assert_eq!(server_side.map(|t| t.calls), [1, 1, 2, 1], "{transport:?}");
            for (c, s) in client.iter().zip(&server_side) {
                assert!(
                    c.ticks > s.ticks && s.ticks > 0,
                    "{transport:?}: a call takes longer than its work: {c:?} {s:?}"
                );
            }
            let (client, server_side) = rt.block_on(stub.take_tallies()).unwrap();
            assert_eq!((client, server_side), ([Tally::default(); 4], [Tally::default(); 4]), "taken: zero again");
            let bad = Words12 { w0: 4, ..request(0) };
            assert_eq!(rt.block_on(stub.client.take_tally(bad)).unwrap_err().code(), tonic::Code::InvalidArgument);
            drop(stub);
            drop(rt);
            server.join().unwrap().unwrap();
        }
    }

    /// More work for the heavier methods, in the study's order of server time.
    #[test]
    fn work_follows_the_seeds_server_times() {
        let links = Method::ALL.map(Method::links);
        assert!(links[3] > links[0] && links[0] > links[1] && links[1] > links[2], "{links:?}");
        assert_eq!(Method::ALL.map(Method::index), [0, 1, 2, 3]);
    }

    #[test]
    fn requests_carry_twelve_words_and_replies_two() {
        for i in [0, 1, u64::MAX] {
            assert_eq!(request(i).encoded_len(), 108, "12 × (1-byte tag + 8 bytes)");
        }
        assert_ne!(request(0), request(1));
        assert_eq!(reply(Method::CapCopy, &request(5)).encoded_len(), 18);
    }
}
