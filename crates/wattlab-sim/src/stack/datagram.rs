//! Datagram sockets: UDP sockets bound to a port, and ping sockets bound to an ICMP echo
//! identifier (Linux's `SOCK_DGRAM`/`IPPROTO_ICMP`). They queue what the application sends and
//! what arrives, without retransmission or congestion control.

use std::collections::VecDeque;
use std::net::Ipv4Addr;
use wattlab_core::packet::{Body, IcmpMessage, UdpHeader, IPPROTO_ICMP, IPPROTO_UDP};
use wattlab_core::{Endpoint, Packet};

/// Datagrams a socket holds before it drops arrivals (Linux's receive buffer, in datagrams).
pub const DATAGRAM_RCVBUF: usize = 256;

/// What a datagram socket speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DatagramProto {
    /// UDP: bound to a port.
    Udp,
    /// ICMP echo (a ping socket): bound to an echo identifier, sends requests, gets replies.
    Ping,
}

impl DatagramProto {
    /// The IP protocol number.
    pub fn ip_protocol(self) -> u8 {
        match self {
            DatagramProto::Udp => IPPROTO_UDP,
            DatagramProto::Ping => IPPROTO_ICMP,
        }
    }

    /// Name in result tables (`udp`, `icmp`).
    pub fn name(self) -> &'static str {
        match self {
            DatagramProto::Udp => "udp",
            DatagramProto::Ping => "icmp",
        }
    }
}

/// A bound datagram socket.
pub struct DatagramSocket {
    local: Endpoint,
    proto: DatagramProto,
    outbox: VecDeque<Packet>,
    inbox: VecDeque<Packet>,
    /// Datagrams the application sent.
    pub sent: u64,
    /// Datagrams that arrived and were queued for the application.
    pub received: u64,
    /// Payload bytes of those datagrams.
    pub received_bytes: u64,
    /// Datagrams that arrived while [`DATAGRAM_RCVBUF`] were waiting: dropped.
    pub dropped: u64,
}

impl DatagramSocket {
    /// A socket speaking `proto` bound to `local` (for a ping socket, the port is the echo
    /// identifier).
    pub fn new(local: Endpoint, proto: DatagramProto) -> DatagramSocket {
        DatagramSocket {
            local,
            proto,
            outbox: VecDeque::with_capacity(4),
            inbox: VecDeque::with_capacity(4),
            sent: 0,
            received: 0,
            received_bytes: 0,
            dropped: 0,
        }
    }

    /// The bound address and port (echo identifier).
    pub fn local(&self) -> Endpoint {
        self.local
    }

    /// What the socket speaks.
    pub fn proto(&self) -> DatagramProto {
        self.proto
    }

    /// Queues a UDP datagram of `payload` opaque bytes to `remote` with IP identification `ip_id`.
    pub fn send_to(&mut self, remote: Endpoint, payload: u32, ip_id: u16) {
        self.send_body(remote, Body::EMPTY, payload, ip_id);
    }

    /// Queues a UDP datagram of `payload` bytes that start with `body` (an application's
    /// header) to `remote`.
    pub fn send_body(&mut self, remote: Endpoint, body: Body, payload: u32, ip_id: u16) {
        debug_assert_eq!(self.proto, DatagramProto::Udp, "send_to on a ping socket");
        let header = UdpHeader { src_port: self.local.port, dst_port: remote.port };
        let mut p = Packet::udp_with(self.local.addr, remote.addr, header, body, payload);
        p.ip_id = ip_id;
        self.push(p);
    }

    /// Queues an ICMP echo request with sequence number `seq` and `payload` bytes to `remote`
    /// (a ping socket: the identifier is the bound port).
    pub fn send_echo(&mut self, remote: Ipv4Addr, seq: u16, payload: u32, ip_id: u16) {
        debug_assert_eq!(self.proto, DatagramProto::Ping, "send_echo on a UDP socket");
        let m = IcmpMessage::EchoRequest { id: self.local.port, seq };
        let mut p = Packet::icmp(self.local.addr, remote, m, payload);
        p.ip_id = ip_id;
        self.push(p);
    }

    fn push(&mut self, p: Packet) {
        self.sent += 1;
        self.outbox.push_back(p);
    }

    pub(super) fn handle_packet(&mut self, p: &Packet) {
        if self.inbox.len() >= DATAGRAM_RCVBUF {
            self.dropped += 1;
            return;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_receive_buffer_drops_and_counts() {
        let a = Endpoint::new(Ipv4Addr::new(10, 0, 0, 1), 9);
        let mut s = DatagramSocket::new(a, DatagramProto::Udp);
        let p = Packet::udp(Ipv4Addr::new(10, 0, 0, 2), a.addr, UdpHeader { src_port: 1, dst_port: 9 }, 10);
        for _ in 0..DATAGRAM_RCVBUF + 3 {
            s.handle_packet(&p);
        }
        assert_eq!((s.received, s.dropped, s.received_bytes), (DATAGRAM_RCVBUF as u64, 3, 10 * DATAGRAM_RCVBUF as u64));
        assert!(s.poll_event().is_some());
        s.handle_packet(&p);
        assert_eq!(s.dropped, 3, "room again after the application read one");
    }

    #[test]
    fn a_ping_socket_sends_echo_requests_with_its_identifier() {
        let mut s = DatagramSocket::new(Endpoint::new(Ipv4Addr::new(10, 0, 0, 1), 0x77), DatagramProto::Ping);
        s.send_echo(Ipv4Addr::new(10, 0, 0, 2), 5, 56, 1);
        let p = s.poll_transmit().unwrap();
        assert_eq!((p.icmp_message(), p.ip_len(), p.ip_id), (Some(IcmpMessage::EchoRequest { id: 0x77, seq: 5 }), 84, 1));
    }
}
