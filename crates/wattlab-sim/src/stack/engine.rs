//! The one socket for every datagram engine (`wattlab_core::engine::Engine`): the engine on a
//! UDP port, one datagram per [`Transmit`](wattlab_core::engine::Transmit), sent to the socket's
//! peer or where the engine says. WWP, the PSNA mobile and daemon, the echo and any new engine
//! run here unchanged: the socket knows them only through the contract (and that they can move
//! to the simulation's thread: `Send`).
//!
//! The simulator carries no payload bytes: a datagram's first [`PROTO_HEADER_MAX`] bytes are
//! the packet's inline protocol header (on the wire in a pcap) and the rest counts in its
//! length. The receiving socket rebuilds the rest as zeros, which is exact when the sender's
//! bytes were zeros (the applications write zeros); a datagram whose bytes past the header are
//! not all zeros (a long NACK list, an echo's pattern) is kept whole in the sending socket's
//! ring of recent ones ([`TAIL_RING`]), flagged `kept` in its body, and read from there by the
//! receiving socket (found by the packet's source endpoint and IP id). Nothing is allocated per
//! datagram once the buffers and the ring have grown.
//!
//! The engine's events reach the flow as [`SocketEvent::Engine`](super::SocketEvent): the event
//! itself waits in the socket, typed, for [`Stack::take_event`](super::Stack::take_event). An
//! application that must write before every transmission (the paper's WWP sender, blocked on
//! its buffer's semaphore) gives the socket a [`Feed`].

use std::any::Any;

use wattlab_core::engine::{Engine, Transmit};
use wattlab_core::packet::{Body, ProtoHeader, UdpHeader, PROTO_HEADER_MAX};
use wattlab_core::{Endpoint, Packet, Time};

/// Kept datagrams (bytes past the inline header not all zeros) a socket holds for its peers.
pub const TAIL_RING: usize = 64;

/// An application that writes into its engine right before each transmission.
pub trait Feed<E>: Send + 'static {
    /// Writes what it has room for at `now`.
    fn feed(&mut self, engine: &mut E, now: Time);
}

/// An engine with its application's pending event and feed: the typed half of the socket.
struct Slot<E: Engine> {
    engine: E,
    event: Option<E::Event>,
    feed: Option<Box<dyn Feed<E>>>,
}

/// What the socket asks of its engine, whatever its type (one virtual call per step).
trait Hosted: Send {
    fn handle(&mut self, now: Time, from: Endpoint, bytes: &[u8]);
    fn transmit(&mut self, now: Time, buf: &mut Vec<u8>) -> Option<Transmit>;
    fn timeout(&mut self) -> Option<Time>;
    fn on_timeout(&mut self, now: Time);
    /// Polls the engine's next event into the slot; true if there was one.
    fn next_event(&mut self) -> bool;
    fn discarded(&self) -> u64;
    fn protocol(&self) -> &'static str;
    fn feed(&mut self, now: Time);
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<E: Engine + Send + 'static> Hosted for Slot<E>
where
    E::Event: Send + 'static,
{
    fn handle(&mut self, now: Time, from: Endpoint, bytes: &[u8]) {
        // A refused datagram is counted by the engine (`discarded`).
        let _ = self.engine.handle_datagram(now, from, bytes);
    }
    fn transmit(&mut self, now: Time, buf: &mut Vec<u8>) -> Option<Transmit> {
        self.feed(now);
        self.engine.poll_transmit(now, buf)
    }
    fn timeout(&mut self) -> Option<Time> {
        self.engine.poll_timeout()
    }
    fn on_timeout(&mut self, now: Time) {
        self.engine.handle_timeout(now);
    }
    fn next_event(&mut self) -> bool {
        self.event = self.engine.poll_event();
        self.event.is_some()
    }
    fn discarded(&self) -> u64 {
        self.engine.discarded()
    }
    fn protocol(&self) -> &'static str {
        E::PROTOCOL
    }
    fn feed(&mut self, now: Time) {
        if let Some(f) = self.feed.as_mut() {
            f.feed(&mut self.engine, now);
        }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// A datagram engine on a UDP port (see the module docs).
pub struct EngineSocket {
    slot: Box<dyn Hosted>,
    local: Endpoint,
    /// Where datagrams go unless the engine names a destination.
    remote: Option<Endpoint>,
    tx: Vec<u8>,
    rx: Vec<u8>,
    ip_id: u16,
    tails: Vec<(u16, Vec<u8>)>,
    next_tail: usize,
    /// Kept datagrams that arrived after their sender's ring had dropped them (lost).
    pub lost_tails: u64,
}

impl EngineSocket {
    /// `engine` bound to `local`, sending to `remote` unless it names a destination; `feed`
    /// writes into it before each transmission.
    pub fn new<E: Engine + Send + 'static>(engine: E, local: Endpoint, remote: Option<Endpoint>, feed: Option<Box<dyn Feed<E>>>) -> EngineSocket
    where
        E::Event: Send + 'static,
    {
        EngineSocket {
            slot: Box::new(Slot { engine, event: None, feed }),
            local,
            remote,
            tx: Vec::with_capacity(2048),
            rx: Vec::with_capacity(2048),
            ip_id: 1,
            tails: Vec::new(),
            next_tail: 0,
            lost_tails: 0,
        }
    }

    /// The bound address and port.
    pub fn local(&self) -> Endpoint {
        self.local
    }

    /// The peer, if the socket has one.
    pub fn remote(&self) -> Option<Endpoint> {
        self.remote
    }

    /// The protocol's name in result tables.
    pub fn protocol(&self) -> &'static str {
        self.slot.protocol()
    }

    /// Datagrams received and not used: the engine's count, and kept datagrams lost.
    pub fn drops(&self) -> u64 {
        self.slot.discarded() + self.lost_tails
    }

    fn typed<E: Engine + 'static>(&self) -> Option<&Slot<E>>
    where
        E::Event: 'static,
    {
        self.slot.as_any().downcast_ref::<Slot<E>>()
    }

    fn typed_mut<E: Engine + 'static>(&mut self) -> Option<&mut Slot<E>>
    where
        E::Event: 'static,
    {
        self.slot.as_any_mut().downcast_mut::<Slot<E>>()
    }

    /// The engine, if it is an `E`.
    pub fn engine<E: Engine + 'static>(&self) -> Option<&E>
    where
        E::Event: 'static,
    {
        self.typed::<E>().map(|s| &s.engine)
    }

    /// The engine, mutably, if it is an `E`.
    pub fn engine_mut<E: Engine + 'static>(&mut self) -> Option<&mut E>
    where
        E::Event: 'static,
    {
        self.typed_mut::<E>().map(|s| &mut s.engine)
    }

    /// The event [`SocketEvent::Engine`](super::SocketEvent) announced, if the engine is an
    /// `E` and it was not taken yet.
    pub fn take_event<E: Engine + 'static>(&mut self) -> Option<E::Event>
    where
        E::Event: 'static,
    {
        self.typed_mut::<E>().and_then(|s| s.event.take())
    }

    /// Runs the feed now (the application wrote into the engine's buffer's room).
    pub fn feed(&mut self, now: Time) {
        self.slot.feed(now);
    }

    /// The next datagram to send, if the engine has one.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        let t = self.slot.transmit(now, &mut self.tx)?;
        let dst = t.to.or(self.remote)?;
        let bytes = &self.tx[..t.len.min(self.tx.len())];
        let id = self.ip_id;
        self.ip_id = self.ip_id.wrapping_add(1);
        let inline = bytes.len().min(PROTO_HEADER_MAX);
        let header = ProtoHeader::new(&bytes[..inline]).expect("at most PROTO_HEADER_MAX bytes");
        let kept = !all_zero(&bytes[inline..]);
        if kept {
            self.keep_tail(id, t.len);
        }
        let udp = UdpHeader { src_port: self.local.port, dst_port: dst.port };
        let body = Body { header, encap: None, kept };
        let mut p = Packet::udp_with(self.local.addr, dst.addr, udp, body, t.len as u32);
        p.ip_id = id;
        Some(p)
    }

    fn keep_tail(&mut self, id: u16, len: usize) {
        if self.tails.len() < TAIL_RING {
            self.tails.push((id, Vec::new()));
        }
        let slot = &mut self.tails[self.next_tail];
        slot.0 = id;
        slot.1.clear();
        slot.1.extend_from_slice(&self.tx[..len]);
        self.next_tail = (self.next_tail + 1) % TAIL_RING;
    }

    /// The whole datagram sent with IP id `id`, if it was kept and still is.
    fn tail(&self, id: u16) -> Option<&[u8]> {
        self.tails.iter().find(|(i, _)| *i == id).map(|(_, b)| b.as_slice())
    }

    /// A datagram for this socket arrived; `sender` is the socket that sent it, if it is one
    /// of the simulator's engine sockets (where a kept datagram is read from).
    pub fn handle_packet(&mut self, now: Time, p: &Packet, sender: Option<&EngineSocket>) {
        let head = p.proto_header();
        let len = p.payload_len as usize;
        self.rx.clear();
        if p.body().is_some_and(|b| b.kept) {
            match sender.and_then(|s| s.tail(p.ip_id)).filter(|b| b.len() == len) {
                Some(b) => self.rx.extend_from_slice(b),
                None => {
                    self.lost_tails += 1;
                    return;
                }
            }
        } else {
            self.rx.extend_from_slice(head);
            self.rx.resize(len.max(head.len()), 0);
        }
        self.slot.handle(now, p.src_endpoint(), &self.rx);
    }

    /// When the engine's next timer is due.
    pub fn poll_timeout(&mut self) -> Option<Time> {
        self.slot.timeout()
    }

    /// The engine's timer is due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        self.slot.on_timeout(now);
    }

    /// True if the engine had an event (now waiting for [`EngineSocket::take_event`]).
    pub fn poll_event(&mut self) -> bool {
        self.slot.next_event()
    }
}

/// Zeros to compare payloads with (a UDP payload over IPv4 is at most 65,507 bytes).
static ZEROS: [u8; 65_536] = [0; 65_536];

/// True if every byte is zero. It runs over every datagram's payload, so it is one `memcmp`
/// against [`ZEROS`] (libc's, vectorised) rather than a loop.
fn all_zero(bytes: &[u8]) -> bool {
    bytes.chunks(ZEROS.len()).all(|c| c == &ZEROS[..c.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_runs_of_every_length_are_told_from_others() {
        for n in 0..70 {
            let mut v = vec![0u8; n];
            assert!(all_zero(&v), "{n} zeros");
            for i in 0..n {
                v[i] = 1;
                assert!(!all_zero(&v), "{n} bytes, a one at {i}");
                v[i] = 0;
            }
        }
    }
}
