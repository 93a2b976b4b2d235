//! Datagram (UDP) sockets: bound to a port, they queue what the application sends and what
//! arrives, without retransmission or congestion control.

use std::collections::VecDeque;
use wattlab_core::packet::UdpHeader;
use wattlab_core::{Endpoint, Packet};

/// A bound datagram socket.
pub struct DatagramSocket {
    local: Endpoint,
    outbox: VecDeque<Packet>,
    inbox: VecDeque<Packet>,
    /// Datagrams the application sent.
    pub sent: u64,
    /// Datagrams that arrived.
    pub received: u64,
    /// Payload bytes that arrived.
    pub received_bytes: u64,
}

impl DatagramSocket {
    /// A socket bound to `local`.
    pub fn new(local: Endpoint) -> DatagramSocket {
        DatagramSocket { local, outbox: VecDeque::with_capacity(4), inbox: VecDeque::with_capacity(4), sent: 0, received: 0, received_bytes: 0 }
    }

    /// The bound address and port.
    pub fn local(&self) -> Endpoint {
        self.local
    }

    /// Queues a datagram of `payload` bytes to `remote` with IP identification `ip_id`.
    pub fn send_to(&mut self, remote: Endpoint, payload: u32, ip_id: u16) {
        let mut p = Packet::udp(self.local.addr, remote.addr, UdpHeader { src_port: self.local.port, dst_port: remote.port }, payload);
        p.ip_id = ip_id;
        self.sent += 1;
        self.outbox.push_back(p);
    }

    pub(super) fn handle_packet(&mut self, p: &Packet) {
        self.received += 1;
        self.received_bytes += p.payload_len as u64;
        self.inbox.push_back(*p);
    }

    pub(super) fn poll_transmit(&mut self) -> Option<Packet> {
        self.outbox.pop_front()
    }

    pub(super) fn poll_event(&mut self) -> Option<Packet> {
        self.inbox.pop_front()
    }
}
