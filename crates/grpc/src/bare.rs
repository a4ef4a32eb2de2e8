//! `rpc.floor`'s bare socket: the request's bytes out and the reply's bytes back over the same kind of socket,
//! with no RPC stack in between (Walfield's ping-pong with the call's payload: "12 words of payload and each
//! reply contains 2 words"). The server echoes the first `reply_len` bytes of each request.

use std::io::{self, Read, Write};

use crate::evict::Evictor;

/// First byte of a request that asks the echo server to evict its caches before it answers (a control
/// message of the cold variant, never timed). A protobuf message starts with a field's tag, and a tag byte of
/// `0xEE` would be field 29 with wire type 6, which does not exist: no request the floor sends starts with it.
pub const EVICT_TAG: u8 = 0xEE;

/// Largest request the echo serves, bytes.
pub const MAX_MESSAGE: usize = 4096;

/// Reads exactly `buf.len()` bytes; `Ok(false)` on end of file before the first byte (the client is done).
///
/// Errors: a read failed, or the stream ended inside a message.
fn read_message(stream: &mut impl Read, buf: &mut [u8]) -> io::Result<bool> {
    let mut done = 0;
    while done < buf.len() {
        match stream.read(&mut buf[done..]) {
            Ok(0) if done == 0 => return Ok(false),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Serves one client until it closes the stream: reads requests of `request_len` bytes and answers each with
/// its first `reply_len` bytes; a request that starts with [`EVICT_TAG`] streams `evictor` through the caches
/// first (and is answered the same way). Returns the number of requests answered.
///
/// Errors: a read or a write failed; `reply_len` is larger than `request_len` or `request_len` than
/// [`MAX_MESSAGE`].
pub fn serve_echo(
    stream: &mut (impl Read + Write),
    request_len: usize,
    reply_len: usize,
    evictor: Option<&Evictor>,
) -> io::Result<u64> {
    if request_len > MAX_MESSAGE || reply_len > request_len || request_len == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("echo of {reply_len} of {request_len} bytes (at most {MAX_MESSAGE})"),
        ));
    }
    let mut buf = [0u8; MAX_MESSAGE];
    let mut answered = 0;
    while read_message(stream, &mut buf[..request_len])? {
        if buf[0] == EVICT_TAG {
            if let Some(e) = evictor {
                e.evict();
            }
        }
        stream.write_all(&buf[..reply_len])?;
        answered += 1;
    }
    Ok(answered)
}

/// One round trip: writes `request`, reads the reply into all of `reply`.
///
/// Errors: a write or read failed, or the server closed the stream.
#[inline]
pub fn round_trip(stream: &mut (impl Read + Write), request: &[u8], reply: &mut [u8]) -> io::Result<()> {
    stream.write_all(request)?;
    if read_message(stream, reply)? {
        Ok(())
    } else {
        Err(io::ErrorKind::UnexpectedEof.into())
    }
}

#[cfg(test)]
mod tests {
    use prost::Message as _;

    use super::*;
    use crate::service::{reply, request, Method};
    use crate::transport::Listener;
    use crate::RpcTransport;

    /// Over both transports, with the floor's real sizes (an encoded request and reply): every reply is exactly
    /// the request's first bytes, an evict request is answered like any other, and the server counts them all
    /// and ends cleanly when the client closes.
    #[test]
    fn the_echo_returns_the_bytes_exactly() {
        let words = request(3);
        let req = words.encode_to_vec();
        let reply_len = reply(Method::ObjectDiscard, &words).encoded_len();
        assert_eq!((req.len(), reply_len), (108, 18), "Walfield's 12 words out, 2 back, as protobuf");
        for transport in RpcTransport::ALL {
            let (listener, _dir) = Listener::bind(transport).unwrap();
            let address = listener.address().unwrap();
            let (request_len, evictor) = (req.len(), Evictor::new(1 << 16));
            let server = std::thread::spawn(move || {
                let mut stream = listener.accept().unwrap();
                serve_echo(&mut stream, request_len, reply_len, Some(&evictor))
            });
            let mut client = address.connect().unwrap();
            let mut back = vec![0u8; reply_len];
            let mut msg = req.clone();
            for i in 0..50u8 {
                msg[1] = i;
                round_trip(&mut client, &msg, &mut back).unwrap();
                assert_eq!(back, msg[..reply_len], "{transport:?} message {i}");
            }
            msg[0] = EVICT_TAG;
            round_trip(&mut client, &msg, &mut back).unwrap();
            assert_eq!(back, msg[..reply_len]);
            drop(client);
            assert_eq!(server.join().unwrap().unwrap(), 51, "{transport:?}");
        }
    }

    #[test]
    fn a_reply_longer_than_its_request_is_refused() {
        let mut nothing = io::Cursor::new(Vec::new());
        assert!(serve_echo(&mut nothing, 8, 9, None).is_err());
        assert!(serve_echo(&mut nothing, MAX_MESSAGE + 1, 1, None).is_err());
        assert_eq!(serve_echo(&mut nothing, 8, 8, None).unwrap(), 0, "end of file at once: no request");
    }
}
