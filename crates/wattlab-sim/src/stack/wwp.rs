//! WWP sockets: a Wave & Wait Protocol endpoint (`wattlab_core::wwp`, sans-IO) carried over
//! UDP, bound to a port and connected to one remote endpoint.
//!
//! Each segment is one UDP datagram whose payload is the WWP segment: its 6-byte header (and
//! for N-S_ACK / P-S_ACK the start of the NACK list) is the packet's inline protocol header,
//! so a capture shows UDP with the WWP header as the first payload bytes; the rest counts in
//! the payload length. The simulator carries no payload bytes, so the sender's application
//! writes zeros and the receiving socket rebuilds DATA payloads as zeros (the checksum, over
//! the same bytes, still holds). A NACK list longer than the inline room (17 entries) is read
//! back from the sending socket's ring of recent long segments, found by its peer socket and
//! the packet's IP id; nothing is allocated per segment once the buffers have grown.

use wattlab_core::packet::{Body, ProtoHeader, UdpHeader, PROTO_HEADER_MAX};
use wattlab_core::wire::wwp::{WwpType, WWP_HEADER_LEN};
use wattlab_core::wwp::{WwpEndpoint, WwpEvent};
use wattlab_core::{Endpoint, Packet, Time};

/// Long segments (NACK lists past the inline header) a socket keeps for its peer to read.
const TAIL_RING: usize = 64;

/// What a continuous source writes: zeros (the simulator carries no payload bytes).
static ZEROS: [u8; 65_536] = [0; 65_536];

/// An application that writes `message`-byte messages whenever the sender buffer has room for
/// one, `left` bytes in all, none at or after `until`, then closes. The socket runs it before
/// forming each wave, so a freed buffer is refilled at once, as the paper's application blocked
/// on the sender's semaphore would; otherwise a wave would leave with the buffer's remainder.
#[derive(Clone, Copy, Debug)]
pub struct WwpSource {
    /// Bytes per write.
    pub message: usize,
    /// Bytes still to write (`u64::MAX`: until `until`).
    pub left: u64,
    /// No write at or after this time.
    pub until: Time,
    /// Bytes written so far.
    pub written: u64,
    /// The source closed the connection.
    pub closed: bool,
}

/// A WWP endpoint on a UDP port.
pub struct WwpSocket {
    /// The protocol endpoint.
    pub ep: WwpEndpoint,
    local: Endpoint,
    remote: Endpoint,
    /// The socket at the other end, in the simulator (where long NACK lists are read from).
    pub peer: Option<u32>,
    tx: Vec<u8>,
    rx: Vec<u8>,
    ip_id: u16,
    tails: Vec<(u16, Vec<u8>)>,
    next_tail: usize,
    /// Datagrams that arrived but could not be rebuilt (their long NACK list was overwritten).
    pub lost_tails: u64,
    /// The sending application, if it is a continuous source.
    pub source: Option<WwpSource>,
}

impl WwpSocket {
    /// A socket bound to `local`, speaking to `remote` through `ep`.
    pub fn new(ep: WwpEndpoint, local: Endpoint, remote: Endpoint) -> WwpSocket {
        let seg = usize::from(ep.config().segment_size) + WWP_HEADER_LEN;
        WwpSocket {
            ep,
            local,
            remote,
            peer: None,
            tx: Vec::with_capacity(seg),
            rx: Vec::with_capacity(seg),
            ip_id: 1,
            tails: Vec::new(),
            next_tail: 0,
            lost_tails: 0,
            source: None,
        }
    }

    /// Runs the source: writes whole messages while there is room, closes when it is done.
    pub fn refill(&mut self, now: Time) {
        let Some(src) = self.source.as_mut().filter(|s| !s.closed) else { return };
        while now < src.until && src.left > 0 {
            let n = (src.message as u64).min(src.left) as usize;
            if self.ep.writable() < n {
                break;
            }
            let w = self.ep.write(&ZEROS[..n]) as u64;
            src.written += w;
            src.left -= w;
        }
        if now >= src.until || src.left == 0 {
            src.closed = true;
            self.ep.close();
        }
    }

    /// The bound address and port.
    pub fn local(&self) -> Endpoint {
        self.local
    }

    /// The remote address and port.
    pub fn remote(&self) -> Endpoint {
        self.remote
    }

    /// The next datagram to send, if the endpoint has a segment.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        self.refill(now);
        let t = self.ep.poll_transmit(now, &mut self.tx)?;
        let id = self.ip_id;
        self.ip_id = self.ip_id.wrapping_add(1);
        let inline = t.len.min(PROTO_HEADER_MAX);
        let header = ProtoHeader::new(&self.tx[..inline]).expect("at most PROTO_HEADER_MAX bytes");
        if t.len > PROTO_HEADER_MAX && t.kind != WwpType::Data {
            self.keep_tail(id);
        }
        let udp = UdpHeader { src_port: self.local.port, dst_port: self.remote.port };
        let mut p = Packet::udp_with(self.local.addr, self.remote.addr, udp, Body::with_header(header), t.len as u32);
        p.ip_id = id;
        Some(p)
    }

    fn keep_tail(&mut self, id: u16) {
        if self.tails.len() < TAIL_RING {
            self.tails.push((id, Vec::new()));
        }
        let slot = &mut self.tails[self.next_tail];
        slot.0 = id;
        slot.1.clear();
        slot.1.extend_from_slice(&self.tx);
        self.next_tail = (self.next_tail + 1) % TAIL_RING;
    }

    /// The whole segment sent in the datagram with IP id `id`, if it was long and is still kept.
    pub fn tail(&self, id: u16) -> Option<&[u8]> {
        self.tails.iter().find(|(i, _)| *i == id).map(|(_, b)| b.as_slice())
    }

    /// A datagram arrived; `peer` is the sending socket (for long NACK lists).
    pub fn handle_packet(&mut self, now: Time, p: &Packet, peer: Option<&WwpSocket>) {
        let head = p.proto_header();
        let len = p.payload_len as usize;
        self.rx.clear();
        if len > head.len() && head.len() == PROTO_HEADER_MAX && WwpType::from_code(head[3] & 0x0f).is_some_and(WwpType::carries_nack_list) {
            match peer.and_then(|s| s.tail(p.ip_id)).filter(|b| b.len() == len) {
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
        // Undecodable bytes are counted by the endpoint (`bad_segments`).
        let _ = self.ep.handle_segment(now, &self.rx);
    }

    /// The next event for the application.
    pub fn poll_event(&mut self) -> Option<WwpEvent> {
        self.ep.poll_event()
    }
}
