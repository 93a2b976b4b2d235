//! What a live web client tells the client-centered agent, as the simulator's web application
//! hints its agent (`Hint::NewPage`, `Hint::ResponseSize`): a new page starts (the agent
//! flushes its RTT cache, seed 000 §III-E), and a response's length is known (the first byte
//! reached the browser, which parsed Content-Length). One datagram per hint on a Unix socket
//! the agent binds (`wattlab-live agent --hints PATH`); the client sends each before the
//! packets it concerns leave (a new page's hint precedes its first SYN or request).

use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::unix::net::UnixDatagram;
use std::path::Path;

/// One hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebHint {
    /// A new page request: forget the RTT cache.
    NewPage,
    /// The response on connection `local`–`remote` is `bytes` long (header and body).
    ResponseSize {
        /// The client's end.
        local: SocketAddrV4,
        /// The server's end.
        remote: SocketAddrV4,
        /// Response length.
        bytes: u64,
    },
}

impl WebHint {
    /// The datagram's text: `page`, or `resp LOCAL REMOTE BYTES`.
    pub fn encode(&self) -> String {
        match self {
            WebHint::NewPage => "page".into(),
            WebHint::ResponseSize { local, remote, bytes } => format!("resp {local} {remote} {bytes}"),
        }
    }

    /// A datagram's hint, or None for anything else (ignored by the agent, counted).
    pub fn decode(b: &[u8]) -> Option<WebHint> {
        let s = std::str::from_utf8(b).ok()?;
        let mut w = s.split_ascii_whitespace();
        match w.next()? {
            "page" if w.next().is_none() => Some(WebHint::NewPage),
            "resp" => {
                let local = w.next()?.parse().ok()?;
                let remote = w.next()?.parse().ok()?;
                let bytes = w.next()?.parse().ok()?;
                w.next().is_none().then_some(WebHint::ResponseSize { local, remote, bytes })
            }
            _ => None,
        }
    }
}

/// The client's end: sends hints to the agent's socket, if there is one (without an agent,
/// hints go nowhere).
pub struct HintSender {
    sock: Option<(UnixDatagram, std::path::PathBuf)>,
    /// Hints sent.
    pub sent: u64,
}

impl HintSender {
    /// Hints to the socket at `path` (None: none are sent).
    pub fn new(path: Option<&Path>) -> Result<HintSender, String> {
        let sock = match path {
            None => None,
            Some(p) => Some((UnixDatagram::unbound().map_err(|e| format!("hint socket: {e}"))?, p.to_path_buf())),
        };
        Ok(HintSender { sock, sent: 0 })
    }

    /// Sends `h` (blocking briefly: the agent drains its socket on every packet).
    pub fn send(&mut self, h: WebHint) -> Result<(), String> {
        if let Some((s, p)) = &self.sock {
            s.send_to(h.encode().as_bytes(), p).map_err(|e| format!("hint to the agent at {}: {e}", p.display()))?;
            self.sent += 1;
        }
        Ok(())
    }
}

/// An address as the agent's endpoint.
pub fn endpoint(a: SocketAddrV4) -> wattlab_core::Endpoint {
    wattlab_core::Endpoint::new(*a.ip(), a.port())
}

/// 0.0.0.0:0, the local address a connection reports before its socket is bound.
pub const UNSPECIFIED: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_round_trip_and_garbage_is_refused() {
        let r = WebHint::ResponseSize { local: "10.201.1.2:40000".parse().unwrap(), remote: "10.201.2.2:80".parse().unwrap(), bytes: 12_345 };
        assert_eq!(WebHint::decode(r.encode().as_bytes()), Some(r));
        assert_eq!(WebHint::decode(b"page"), Some(WebHint::NewPage));
        for bad in [&b"pag"[..], b"page x", b"resp 1 2 3", b"resp 10.0.0.1:1 10.0.0.2:2", b"resp 10.0.0.1:1 10.0.0.2:2 -1", b"\xff"] {
            assert_eq!(WebHint::decode(bad), None, "{bad:?}");
        }
    }
}
