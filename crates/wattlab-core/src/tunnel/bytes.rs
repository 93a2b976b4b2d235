//! The tunnel in its byte form, for a host whose inner packets are bytes (the live testbed's
//! TUN device): an [`Endpoint`] whose inner handles are shared buffers from a pool, behind the
//! [`Engine`] contract. Its datagrams are the SCTP packets' bytes (RFC 6951's UDP payload); its
//! events are the inner packets that came out of the tunnel, in order within their flow.
//!
//! The simulator drives the packet form instead ([`Endpoint`] with packet handles, as a
//! middlebox), where inner packets are compact [`crate::Packet`]s and never bytes.

use std::rc::Rc;

use super::{DropReason, Endpoint, FlowKey, TunnelConfig, TunnelStats};
use crate::engine::{self, Engine, Refused};
use crate::packet::Endpoint as Addr;
use crate::time::Time;
use crate::wire::sctp::encode_sctp;

/// Largest inner packet a buffer is sized for (a TUN device's MTU is 1500).
const BUF_CAPACITY: usize = 2048;

/// An inner packet, shared with the endpoint until the peer acknowledges it.
pub type InnerPacket = Rc<Vec<u8>>;

/// Inner-packet buffers shared with the endpoint (which keeps a copy until it is acknowledged):
/// a buffer whose only owner is the pool is reused, so the steady state allocates nothing.
#[derive(Debug, Default)]
struct BufPool {
    bufs: Vec<InnerPacket>,
    next: usize,
}

impl BufPool {
    /// A shared buffer holding `bytes`.
    fn take(&mut self, bytes: &[u8]) -> InnerPacket {
        let n = self.bufs.len();
        // Round robin from the last reuse: the endpoint frees buffers roughly in send order.
        for k in 0..n {
            let i = (self.next + k) % n;
            if let Some(v) = Rc::get_mut(&mut self.bufs[i]) {
                v.clear();
                v.extend_from_slice(bytes);
                self.next = (i + 1) % n;
                return Rc::clone(&self.bufs[i]);
            }
        }
        let mut v = Vec::with_capacity(BUF_CAPACITY.max(bytes.len()));
        v.extend_from_slice(bytes);
        self.bufs.push(Rc::new(v));
        Rc::clone(&self.bufs[n])
    }
}

/// One tunnel end whose inner packets are bytes (see the module docs).
#[derive(Debug)]
pub struct TunnelEngine {
    ep: Endpoint<InnerPacket>,
    pool: BufPool,
    /// The latest instant an input gave (the trigger's deadline is evaluated at it).
    now: Time,
}

impl TunnelEngine {
    /// An end of the association `cfg` describes, at `now`.
    pub fn new(cfg: TunnelConfig, now: Time) -> Result<TunnelEngine, String> {
        Ok(TunnelEngine { ep: Endpoint::new(cfg, now)?, pool: BufPool::default(), now })
    }

    /// An inner IPv4 packet to carry to the peer (read from the TUN device); false (and
    /// nothing sent) if it is not IPv4.
    pub fn send(&mut self, now: Time, packet: &[u8]) -> bool {
        self.now = self.now.max(now);
        let Some(key) = FlowKey::of_ipv4_bytes(packet) else { return false };
        let inner = self.pool.take(packet);
        self.ep.send(now, key, packet.len() as u32, inner);
        true
    }

    /// The endpoint's counters.
    pub fn stats(&self) -> &TunnelStats {
        self.ep.stats()
    }

    /// Inner packets still held: in the inlet, waiting for the window, unacknowledged.
    pub fn backlog(&self) -> usize {
        let (a, b, c) = self.ep.backlog();
        a + b + c
    }
}

impl Engine for TunnelEngine {
    /// An inner packet out of the tunnel, to hand on (write to the TUN device).
    type Event = InnerPacket;

    const PROTOCOL: &'static str = "sctp";

    fn handle_datagram(&mut self, now: Time, _from: Addr, bytes: &[u8]) -> Result<(), Refused> {
        self.now = self.now.max(now);
        let pool = &mut self.pool;
        self.ep.handle_datagram(now, bytes, |inner| pool.take(inner)).map_err(|e| match e {
            DropReason::Malformed => Refused::Malformed,
            DropReason::NotOurs => Refused::NotOurs,
            DropReason::BadData => Refused::Invalid,
        })
    }

    /// The next SCTP packet (SACK, DATA with its inner packet, or a U-APSD trigger), encoded.
    fn poll_transmit(&mut self, now: Time, buf: &mut Vec<u8>) -> Option<engine::Transmit> {
        self.now = self.now.max(now);
        let t = self.ep.poll_transmit(now)?;
        buf.clear();
        let inner = t.inner.as_ref().map_or(&[][..], |b| &b[..]);
        // The endpoint builds only packets that encode (its headers fit by construction).
        encode_sctp(&t.header, inner, buf).ok()?;
        Some(engine::Transmit { to: None, len: buf.len() })
    }

    /// The earliest timer (retransmission, delayed SACK, inlet, the client's trigger), the
    /// trigger's interval evaluated at the latest input.
    fn poll_timeout(&mut self) -> Option<Time> {
        self.ep.poll_timeout(self.now)
    }

    fn handle_timeout(&mut self, now: Time) {
        self.now = self.now.max(now);
        self.ep.handle_timeout(now);
    }

    fn poll_event(&mut self) -> Option<InnerPacket> {
        self.ep.poll_deliver().map(|(_, p)| p)
    }

    /// Arriving packets dropped: malformed, another association's, bad DATA, beyond the window.
    fn discarded(&self) -> u64 {
        let s = self.ep.stats();
        s.dropped_malformed + s.dropped_not_ours + s.dropped_bad_data + s.dropped_window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Duration;

    #[test]
    fn pool_reuses_a_buffer_once_the_endpoint_dropped_its_copy() {
        let mut pool = BufPool::default();
        let a = pool.take(b"first");
        let b = pool.take(b"second");
        assert_eq!((&a[..], &b[..], pool.bufs.len()), (&b"first"[..], &b"second"[..], 2));
        drop(a); // acknowledged: only the pool holds it
        let c = pool.take(b"third");
        assert_eq!((&c[..], pool.bufs.len()), (&b"third"[..], 2), "reused, not grown");
        let d = pool.take(b"fourth"); // b and c still held
        assert_eq!((&d[..], &b[..], pool.bufs.len()), (&b"fourth"[..], &b"second"[..], 3));
    }

    /// An IPv4/UDP packet of `len` bytes from 10.0.0.2:5000 to 10.0.1.2:6000, filled with `fill`.
    fn inner(len: usize, fill: u8) -> Vec<u8> {
        let mut p = vec![fill; len];
        p[0] = 0x45;
        p[9] = 17;
        p[12..16].copy_from_slice(&[10, 0, 0, 2]);
        p[16..20].copy_from_slice(&[10, 0, 1, 2]);
        p[20..24].copy_from_slice(&[0x13, 0x88, 0x17, 0x70]);
        p
    }

    /// Two ends over a lossless wire in one thread: every inner packet comes out of the other
    /// end intact and in order, through nothing but the `Engine` contract.
    #[test]
    fn inner_packets_cross_two_ends_through_the_engine_contract() {
        let cfg = TunnelConfig { burst: 2, ..TunnelConfig::default() };
        let (mut a, mut b) = (TunnelEngine::new(cfg.clone(), Time::ZERO).unwrap(), TunnelEngine::new(cfg.mirrored(), Time::ZERO).unwrap());
        let peer = Addr::new(std::net::Ipv4Addr::new(10, 9, 9, 9), 9899);
        let sent: Vec<Vec<u8>> = (0..10u8).map(|i| inner(100 + usize::from(i), i)).collect();
        let mut got = Vec::new();
        let mut buf = Vec::new();
        let mut now = Time::ZERO;
        assert!(!a.send(now, &[0x60; 40]), "IPv6 is refused");
        for p in &sent {
            assert!(a.send(now, p));
        }
        for _ in 0..200 {
            now += Duration::from_millis(5);
            for turn in 0..2 {
                let (x, y) = if turn == 0 { (&mut a, &mut b) } else { (&mut b, &mut a) };
                if x.poll_timeout().is_some_and(|t| t <= now) {
                    x.handle_timeout(now);
                }
                while let Some(t) = x.poll_transmit(now, &mut buf) {
                    assert_eq!((t.to, t.len), (None, buf.len()));
                    y.handle_datagram(now, peer, &buf).unwrap();
                }
            }
            while let Some(p) = b.poll_event() {
                got.push(p.to_vec());
            }
        }
        assert_eq!(got, sent);
        assert_eq!((b.stats().inner_delivered, a.backlog(), a.discarded()), (10, 0, 0));
        assert_eq!(b.handle_datagram(now, peer, b"junk"), Err(Refused::Malformed));
        assert_eq!(b.discarded(), 1);
    }
}
