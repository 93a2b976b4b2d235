//! Packets as compact, copyable structs: real IPv4/TCP/UDP/ICMP header fields, payload by
//! length.
//!
//! The simulator moves these through queues without allocating; the bytes on the wire only
//! exist at the pcap and live boundaries (see [`crate::wire`]).
//!
//! A datagram (UDP, or a protocol straight over IP such as WWP) may carry a [`Body`]: its
//! protocol's own small header inline ([`ProtoHeader`], up to [`PROTO_HEADER_MAX`] bytes) and,
//! for a tunnel, a handle to the packet it encapsulates ([`EncapId`], kept in a
//! [`PacketArena`]). Both live inside the UDP and other-protocol variants of [`Transport`],
//! in room the TCP variant already takes, so a packet is no larger for them.

mod datagram;
mod encap;

pub use datagram::{
    Body, IcmpMessage, ProtoHeader, ICMP_ECHO_REPLY, ICMP_ECHO_REQUEST, ICMP_HEADER_LEN,
    PROTO_HEADER_MAX,
};
pub use encap::{EncapId, PacketArena, DEFAULT_ARENA_SLOTS};

use std::net::Ipv4Addr;

/// IP protocol number of ICMP.
pub const IPPROTO_ICMP: u8 = 1;
/// IP protocol number of TCP.
pub const IPPROTO_TCP: u8 = 6;
/// IP protocol number of UDP.
pub const IPPROTO_UDP: u8 = 17;
/// Length of an IPv4 header without options.
pub const IPV4_HEADER_LEN: u32 = 20;
/// Length of a TCP header without options.
pub const TCP_HEADER_LEN: u32 = 20;
/// Length of a UDP header.
pub const UDP_HEADER_LEN: u32 = 8;
/// Most SACK blocks a TCP header can carry (with timestamps only 3 fit; see [`TcpOptions::len`]).
pub const MAX_SACK_BLOCKS: usize = 4;

/// A transport endpoint: IPv4 address and port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Endpoint {
    /// IPv4 address.
    pub addr: Ipv4Addr,
    /// Port number.
    pub port: u16,
}

impl Endpoint {
    /// Endpoint from address and port.
    pub const fn new(addr: Ipv4Addr, port: u16) -> Endpoint {
        Endpoint { addr, port }
    }
}

/// TCP header flags (the low 8 bits of the flags field).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    /// No more data from sender.
    pub const FIN: TcpFlags = TcpFlags(0x01);
    /// Synchronize sequence numbers.
    pub const SYN: TcpFlags = TcpFlags(0x02);
    /// Reset the connection.
    pub const RST: TcpFlags = TcpFlags(0x04);
    /// Push function.
    pub const PSH: TcpFlags = TcpFlags(0x08);
    /// Acknowledgment field significant.
    pub const ACK: TcpFlags = TcpFlags(0x10);
    /// Urgent pointer significant.
    pub const URG: TcpFlags = TcpFlags(0x20);
    /// ECN echo.
    pub const ECE: TcpFlags = TcpFlags(0x40);
    /// Congestion window reduced.
    pub const CWR: TcpFlags = TcpFlags(0x80);

    /// True if every flag in `other` is set.
    pub const fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    /// Union of two flag sets.
    pub const fn with(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | other.0)
    }
    /// Short tcpdump-style rendering, e.g. `S.` or `P.`.
    pub fn short(self) -> String {
        let mut s = String::new();
        for (f, c) in [(Self::SYN, 'S'), (Self::FIN, 'F'), (Self::RST, 'R'), (Self::PSH, 'P')] {
            if self.contains(f) {
                s.push(c);
            }
        }
        if self.contains(Self::ACK) {
            s.push('.');
        }
        s
    }
}

impl std::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, rhs: TcpFlags) -> TcpFlags {
        self.with(rhs)
    }
}

/// One SACK block: the half-open sequence range `[left, right)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SackBlock {
    /// First sequence number of the block.
    pub left: u32,
    /// Sequence number just past the block.
    pub right: u32,
}

/// TCP timestamps option (RFC 7323).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Timestamps {
    /// Sender's timestamp clock value.
    pub tsval: u32,
    /// Echo of the peer's most recent TSval.
    pub tsecr: u32,
}

/// The TCP options wattlab models; stored inline so a header stays `Copy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpOptions {
    /// Maximum segment size (SYN only).
    pub mss: Option<u16>,
    /// Window scale shift (SYN only).
    pub window_scale: Option<u8>,
    /// SACK permitted (SYN only).
    pub sack_permitted: bool,
    /// Timestamps option.
    pub timestamps: Option<Timestamps>,
    /// SACK blocks; the first `sack_len` entries are valid.
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    /// Number of valid SACK blocks.
    pub sack_len: u8,
}

impl TcpOptions {
    /// Valid SACK blocks.
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.sack_len as usize]
    }

    /// Encoded length in bytes, padded to a multiple of 4, as Linux lays options out
    /// (MSS 4, SACK-permitted+timestamps 12 or NOP-padded, window scale 4, SACK 2 + 8n + 2 NOPs).
    // Inlined and branch-free: every MAC, queue and link asks a packet's length (issue 29's
    // profile of wlan-10sta-ax had ip_len at 6 % of the instructions as a call).
    #[inline]
    pub fn len(&self) -> u32 {
        let (ts, sack_perm) = (self.timestamps.is_some() as u32, self.sack_permitted as u32);
        let sacks = self.sack_len as u32;
        4 * self.mss.is_some() as u32 // MSS(4)
            + 12 * ts + 4 * sack_perm * (1 - ts) // SACK_PERM(2) + TS(10), NOP NOP TS(10), NOP NOP SACK_PERM(2)
            + 4 * self.window_scale.is_some() as u32 // NOP WS(3)
            + (4 + 8 * sacks) * (sacks > 0) as u32 // NOP NOP SACK(2+8n)
    }

    /// True if no option is present.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A TCP header with real field semantics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpHeader {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number (meaningful when ACK is set).
    pub ack: u32,
    /// Flags.
    pub flags: TcpFlags,
    /// Advertised receive window, as on the wire (before scaling).
    pub window: u16,
    /// Options.
    pub options: TcpOptions,
}

impl TcpHeader {
    /// Header length including options.
    #[allow(clippy::len_without_is_empty)] // a TCP header is never empty (20 bytes at least)
    #[inline]
    pub fn len(&self) -> u32 {
        TCP_HEADER_LEN + self.options.len()
    }
    /// Sequence space consumed by a segment with `payload_len` bytes (SYN and FIN count one).
    pub fn seq_len(&self, payload_len: u32) -> u32 {
        payload_len
            + self.flags.contains(TcpFlags::SYN) as u32
            + self.flags.contains(TcpFlags::FIN) as u32
    }
}

/// A UDP header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UdpHeader {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
}

/// The transport header of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// TCP segment.
    Tcp(TcpHeader),
    /// UDP datagram, and what its payload starts with.
    Udp(UdpHeader, Body),
    /// ICMP message (8-byte header; the rest is payload).
    Icmp(IcmpMessage),
    /// Any other IP protocol: no header of its own beyond what its body models.
    Other {
        /// IP protocol number.
        protocol: u8,
        /// What the payload starts with (a protocol's header such as WWP's, a tunnel's packet).
        body: Body,
    },
}

/// An IPv4 packet: header fields, a transport header and the payload length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Packet {
    /// Source address.
    pub src: Ipv4Addr,
    /// Destination address.
    pub dst: Ipv4Addr,
    /// IPv4 identification field.
    pub ip_id: u16,
    /// Time to live.
    pub ttl: u8,
    /// DiffServ code point (the upper six bits of the IPv4 TOS byte, RFC 2474): what an
    /// 802.11 QoS MAC classifies the packet by. 0 (default forwarding) unless a flow sets it.
    pub dscp: u8,
    /// Transport header.
    pub transport: Transport,
    /// Bytes of application payload after the transport header.
    pub payload_len: u32,
}

impl Packet {
    /// A TCP packet from `src` to `dst` with the given header and payload length.
    pub fn tcp(src: Ipv4Addr, dst: Ipv4Addr, header: TcpHeader, payload_len: u32) -> Packet {
        Packet { src, dst, ip_id: 0, ttl: 64, dscp: 0, transport: Transport::Tcp(header), payload_len }
    }

    /// A UDP packet from `src` to `dst` with an opaque payload.
    pub fn udp(src: Ipv4Addr, dst: Ipv4Addr, header: UdpHeader, payload_len: u32) -> Packet {
        Packet::udp_with(src, dst, header, Body::EMPTY, payload_len)
    }

    /// A UDP packet whose `payload_len` bytes start with `body` (its header counts in them).
    pub fn udp_with(src: Ipv4Addr, dst: Ipv4Addr, header: UdpHeader, body: Body, payload_len: u32) -> Packet {
        Packet { src, dst, ip_id: 0, ttl: 64, dscp: 0, transport: Transport::Udp(header, body), payload_len }
    }

    /// An ICMP packet from `src` to `dst` with `payload_len` bytes after the ICMP header.
    pub fn icmp(src: Ipv4Addr, dst: Ipv4Addr, message: IcmpMessage, payload_len: u32) -> Packet {
        Packet { src, dst, ip_id: 0, ttl: 64, dscp: 0, transport: Transport::Icmp(message), payload_len }
    }

    /// The TCP header, if this is a TCP packet.
    pub fn tcp_header(&self) -> Option<&TcpHeader> {
        match &self.transport {
            Transport::Tcp(h) => Some(h),
            _ => None,
        }
    }

    /// Mutable TCP header, if this is a TCP packet.
    pub fn tcp_header_mut(&mut self) -> Option<&mut TcpHeader> {
        match &mut self.transport {
            Transport::Tcp(h) => Some(h),
            _ => None,
        }
    }

    /// The ICMP message, if this is an ICMP packet.
    pub fn icmp_message(&self) -> Option<IcmpMessage> {
        match self.transport {
            Transport::Icmp(m) => Some(m),
            _ => None,
        }
    }

    /// What a datagram's payload starts with (UDP and other protocols; `None` for TCP and ICMP).
    pub fn body(&self) -> Option<&Body> {
        match &self.transport {
            Transport::Udp(_, b) | Transport::Other { body: b, .. } => Some(b),
            Transport::Tcp(_) | Transport::Icmp(_) => None,
        }
    }

    /// The protocol header a datagram carries at the start of its payload (empty if none).
    pub fn proto_header(&self) -> &[u8] {
        self.body().map_or(&[], |b| b.header.as_bytes())
    }

    /// IP protocol number.
    pub fn protocol(&self) -> u8 {
        match self.transport {
            Transport::Tcp(_) => IPPROTO_TCP,
            Transport::Udp(..) => IPPROTO_UDP,
            Transport::Icmp(_) => IPPROTO_ICMP,
            Transport::Other { protocol, .. } => protocol,
        }
    }

    /// Transport header length in bytes (zero for other protocols: their own header, if
    /// modelled, is the start of the payload).
    #[inline]
    pub fn transport_header_len(&self) -> u32 {
        match &self.transport {
            Transport::Tcp(h) => h.len(),
            Transport::Udp(..) => UDP_HEADER_LEN,
            Transport::Icmp(_) => ICMP_HEADER_LEN,
            Transport::Other { .. } => 0,
        }
    }

    /// Total IPv4 length: IP header + transport header + payload.
    #[inline]
    pub fn ip_len(&self) -> u32 {
        IPV4_HEADER_LEN + self.transport_header_len() + self.payload_len
    }

    /// Source endpoint: the port, an ICMP echo's identifier (what a ping socket binds, as on
    /// Linux), 0 for other protocols.
    pub fn src_endpoint(&self) -> Endpoint {
        Endpoint::new(self.src, self.ports().0)
    }

    /// Destination endpoint (port, echo identifier or 0, as [`Packet::src_endpoint`]).
    pub fn dst_endpoint(&self) -> Endpoint {
        Endpoint::new(self.dst, self.ports().1)
    }

    fn ports(&self) -> (u16, u16) {
        match &self.transport {
            Transport::Tcp(h) => (h.src_port, h.dst_port),
            Transport::Udp(h, _) => (h.src_port, h.dst_port),
            Transport::Icmp(m) => m.echo().map_or((0, 0), |(id, _)| (id, id)),
            Transport::Other { .. } => (0, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_lengths_match_linux_layout() {
        let mut o = TcpOptions::default();
        assert_eq!(o.len(), 0);
        o.timestamps = Some(Timestamps::default());
        assert_eq!(o.len(), 12);
        o.mss = Some(1460);
        o.sack_permitted = true;
        o.window_scale = Some(7);
        assert_eq!(o.len(), 20); // a Linux SYN: 40 bytes of TCP header
        let mut d = TcpOptions { timestamps: Some(Timestamps::default()), ..Default::default() };
        d.sack_len = 3;
        assert_eq!(d.len(), 12 + 28); // 3 blocks with timestamps fill the 40-byte option space
    }

    #[test]
    fn packet_length_counts_headers_and_payload() {
        let h = TcpHeader { options: TcpOptions { timestamps: Some(Timestamps::default()), ..Default::default() }, ..Default::default() };
        let p = Packet::tcp(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), h, 1448);
        assert_eq!(p.ip_len(), 1500);
        assert_eq!(h.seq_len(1448), 1448);
        let syn = TcpHeader { flags: TcpFlags::SYN, ..Default::default() };
        assert_eq!(syn.seq_len(0), 1);
        let (a, b) = (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
        let ping = Packet::icmp(a, b, IcmpMessage::EchoRequest { id: 9, seq: 1 }, 56);
        assert_eq!((ping.ip_len(), ping.protocol(), ping.src_endpoint().port), (84, IPPROTO_ICMP, 9));
        let h = ProtoHeader::new(&[1, 2, 3, 4, 5, 6]).unwrap();
        let u = Packet::udp_with(a, b, UdpHeader::default(), Body::with_header(h), 100);
        // The protocol header is the start of the payload, not an extra header.
        assert_eq!((u.ip_len(), u.proto_header()), (128, &[1u8, 2, 3, 4, 5, 6][..]));
        assert_eq!(Packet::udp(a, b, UdpHeader::default(), 100).proto_header(), &[] as &[u8]);
    }

    /// The inline protocol header and the tunnel handle fit in the room of the TCP header: a
    /// packet stays 84 bytes (docs/benchmarks.md records it).
    #[test]
    fn datagram_bodies_do_not_grow_the_packet() {
        assert_eq!(std::mem::size_of::<Packet>(), 84);
        assert_eq!(std::mem::size_of::<Transport>(), std::mem::size_of::<TcpHeader>());
    }
}
