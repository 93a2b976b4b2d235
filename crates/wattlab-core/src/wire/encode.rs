//! Packet → bytes.

use etherparse::{EtherType, Ethernet2Header, IcmpEchoHeader, Icmpv4Header, Icmpv4Type, IpNumber, Ipv4Header};

use super::sctp::{self, IPPROTO_SCTP, SCTP_UDP_PORT};
use super::{WireError, ETHERTYPE_IPV4, MAX_IPV4_LEN, MAX_TCP_OPTIONS_LEN};
use crate::packet::{
    Body, IcmpMessage, Packet, PacketArena, TcpFlags, TcpHeader, TcpOptions, Transport, ICMP_HEADER_LEN, IPPROTO_ICMP,
    IPPROTO_TCP, IPPROTO_UDP, IPV4_HEADER_LEN, MAX_SACK_BLOCKS, UDP_HEADER_LEN,
};

/// Offset of the checksum field inside a TCP header.
const TCP_CHECKSUM_OFFSET: usize = 16;

/// Deepest nesting of tunnels encoded (a packet in a tunnel in a tunnel...): a handle whose
/// slot was reused may point back at an outer packet, so the depth is bounded, not trusted.
pub const MAX_ENCAP_DEPTH: u8 = 8;

/// The arena of packets that carry no encapsulated packet.
static NO_ENCAPSULATION: PacketArena = PacketArena::with_slots(1);

/// Append `pkt` as an IPv4 packet (header, transport header, zero-filled payload) to `buf`.
///
/// On error `buf` is left unchanged. The only allocation is `buf` growing by
/// [`Packet::ip_len`] bytes. A packet that encapsulates another needs [`encode_ipv4_in`].
pub fn encode_ipv4(pkt: &Packet, buf: &mut Vec<u8>) -> Result<(), WireError> {
    encode_ipv4_in(pkt, &NO_ENCAPSULATION, buf)
}

/// [`encode_ipv4`] for packets whose bodies may hold encapsulated packets, looked up in `arena`
/// and written as IPv4 bytes after the protocol header.
pub fn encode_ipv4_in(pkt: &Packet, arena: &PacketArena, buf: &mut Vec<u8>) -> Result<(), WireError> {
    let start = buf.len();
    let r = encode_at(pkt, arena, 0, buf);
    if r.is_err() {
        buf.truncate(start);
    }
    r
}

/// Encodes `pkt`, nested `depth` tunnels deep; on error the caller truncates `buf`.
fn encode_at(pkt: &Packet, arena: &PacketArena, depth: u8, buf: &mut Vec<u8>) -> Result<(), WireError> {
    // Validate everything first so a failed encode never leaves half a packet in `buf`.
    let total_len = checked_ip_len(pkt, arena, depth)?;
    let payload_len = pkt.payload_len as usize; // fits: checked_ip_len bounds it by 65535

    let ip_payload_len = total_len - IPV4_HEADER_LEN as u16; // total_len >= 20 by construction
    let mut ip = Ipv4Header::new(
        ip_payload_len,
        pkt.ttl,
        IpNumber(pkt.protocol()),
        pkt.src.octets(),
        pkt.dst.octets(),
    )
    .map_err(|_| WireError::PacketTooLong { len: u64::from(total_len) })?;
    ip.identification = pkt.ip_id;
    // Six bits; a larger value (not a DSCP) is refused as the scenario builder does.
    ip.dscp = etherparse::IpDscp::try_new(pkt.dscp).map_err(|_| WireError::BadDscp { dscp: pkt.dscp })?;
    // Linux sets DF on TCP (path-MTU discovery); datagrams and others go without it here.
    ip.dont_fragment = matches!(pkt.transport, Transport::Tcp(_));
    ip.header_checksum = ip.calc_header_checksum();

    buf.reserve(usize::from(total_len));
    let start = buf.len();
    buf.extend_from_slice(&ip.to_bytes());
    let too_long = || WireError::PacketTooLong { len: u64::from(total_len) };

    match &pkt.transport {
        Transport::Tcp(h) => {
            let mut tcp = to_etherparse_tcp(h);
            let tcp_start = buf.len();
            buf.extend_from_slice(&tcp.to_bytes());
            buf.resize(buf.len() + payload_len, 0);
            let payload = &buf[tcp_start + tcp.header_len()..];
            // Unreachable after checked_ip_len, but never a panic.
            tcp.checksum = tcp.calc_checksum_ipv4(&ip, payload).map_err(|_| too_long())?;
            buf[tcp_start + TCP_CHECKSUM_OFFSET..tcp_start + TCP_CHECKSUM_OFFSET + 2]
                .copy_from_slice(&tcp.checksum.to_be_bytes());
        }
        Transport::Udp(h, body) => {
            let udp_start = buf.len();
            buf.resize(udp_start + UDP_HEADER_LEN as usize, 0);
            write_body(body, payload_len, arena, depth, buf)?;
            if (h.src_port == SCTP_UDP_PORT || h.dst_port == SCTP_UDP_PORT) && !body.header.is_empty() {
                // SCTP over UDP (RFC 6951): its CRC32c covers bytes that exist only now.
                sctp::fill_checksum(&mut buf[udp_start + UDP_HEADER_LEN as usize..]);
            }
            let payload = &buf[udp_start + UDP_HEADER_LEN as usize..];
            let udp = etherparse::UdpHeader::with_ipv4_checksum(h.src_port, h.dst_port, &ip, payload)
                .map_err(|_| too_long())?;
            buf[udp_start..udp_start + UDP_HEADER_LEN as usize].copy_from_slice(&udp.to_bytes());
        }
        Transport::Icmp(m) => {
            let icmp_start = buf.len();
            buf.resize(icmp_start + ICMP_HEADER_LEN as usize + payload_len, 0);
            let header = Icmpv4Header::with_checksum(icmp_type(m), &buf[icmp_start + ICMP_HEADER_LEN as usize..]);
            buf[icmp_start..icmp_start + ICMP_HEADER_LEN as usize].copy_from_slice(&header.to_bytes());
        }
        Transport::Other { body, protocol } => {
            let at = buf.len();
            write_body(body, payload_len, arena, depth, buf)?;
            if *protocol == IPPROTO_SCTP && !body.header.is_empty() {
                sctp::fill_checksum(&mut buf[at..]); // SCTP straight over IP: the same CRC32c
            }
        }
    }
    debug_assert_eq!(buf.len() - start, usize::from(total_len));
    Ok(())
}

/// Appends a datagram's payload: its protocol header, its encapsulated packet, then zeros to
/// `payload_len` bytes (checked_ip_len made sure the first two fit).
fn write_body(body: &Body, payload_len: usize, arena: &PacketArena, depth: u8, buf: &mut Vec<u8>) -> Result<(), WireError> {
    let end = buf.len() + payload_len;
    buf.extend_from_slice(body.header.as_bytes());
    if let Some(id) = body.encap {
        let inner = arena.get(id).ok_or(WireError::MissingEncapsulated)?;
        encode_at(inner, arena, depth + 1, buf)?;
    }
    buf.resize(end, 0);
    Ok(())
}

/// etherparse's ICMP type for a message: echo request and reply by their fields, any other
/// message by its raw header bytes.
fn icmp_type(m: &IcmpMessage) -> Icmpv4Type {
    match *m {
        IcmpMessage::EchoRequest { id, seq } => Icmpv4Type::EchoRequest(IcmpEchoHeader { id, seq }),
        IcmpMessage::EchoReply { id, seq } => Icmpv4Type::EchoReply(IcmpEchoHeader { id, seq }),
        IcmpMessage::Other { icmp_type, code, rest } => Icmpv4Type::Unknown { type_u8: icmp_type, code_u8: code, bytes5to8: rest },
    }
}

/// Append `pkt` as an Ethernet II frame (EtherType IPv4, no FCS) to `buf`.
///
/// On error `buf` is left unchanged.
pub fn encode_ethernet(
    pkt: &Packet,
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    buf: &mut Vec<u8>,
) -> Result<(), WireError> {
    encode_ethernet_in(pkt, &NO_ENCAPSULATION, src_mac, dst_mac, buf)
}

/// [`encode_ethernet`] for packets that may encapsulate others (kept in `arena`).
pub fn encode_ethernet_in(
    pkt: &Packet,
    arena: &PacketArena,
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    buf: &mut Vec<u8>,
) -> Result<(), WireError> {
    let eth = Ethernet2Header {
        source: src_mac,
        destination: dst_mac,
        ether_type: EtherType(ETHERTYPE_IPV4),
    };
    let start = buf.len();
    buf.extend_from_slice(&eth.to_bytes());
    if let Err(e) = encode_ipv4_in(pkt, arena, buf) {
        buf.truncate(start);
        return Err(e);
    }
    Ok(())
}

/// Validate `pkt` (nested `depth` tunnels deep) for encoding and return its IPv4 total length.
fn checked_ip_len(pkt: &Packet, arena: &PacketArena, depth: u8) -> Result<u16, WireError> {
    if depth > MAX_ENCAP_DEPTH {
        return Err(WireError::EncapsulationTooDeep { depth: MAX_ENCAP_DEPTH });
    }
    let (transport_len, body) = match &pkt.transport {
        Transport::Tcp(h) => {
            let o = &h.options;
            // Checked before `TcpOptions::len` so `sack_blocks()` can never index out of range.
            if usize::from(o.sack_len) > MAX_SACK_BLOCKS {
                return Err(WireError::TooManySackBlocks { count: o.sack_len });
            }
            if o.len() > MAX_TCP_OPTIONS_LEN {
                return Err(WireError::TcpOptionsTooLong { len: o.len() });
            }
            (h.len(), None)
        }
        Transport::Udp(_, body) => (UDP_HEADER_LEN, Some(body)),
        Transport::Icmp(_) => (ICMP_HEADER_LEN, None),
        Transport::Other { protocol, body } => {
            if matches!(*protocol, IPPROTO_TCP | IPPROTO_UDP | IPPROTO_ICMP) {
                return Err(WireError::OtherWithTransportProtocol { protocol: *protocol });
            }
            (0, Some(body))
        }
    };
    if let Some(body) = body {
        let inner = match body.encap {
            Some(id) => u64::from(checked_ip_len(arena.get(id).ok_or(WireError::MissingEncapsulated)?, arena, depth + 1)?),
            None => 0,
        };
        let needed = u64::from(body.header.len()) + inner;
        if needed > u64::from(pkt.payload_len) {
            return Err(WireError::BodyLongerThanPayload { needed, payload_len: pkt.payload_len });
        }
    }
    // In u64: `Packet::ip_len` would overflow u32 for a payload_len near u32::MAX.
    let len = u64::from(IPV4_HEADER_LEN) + u64::from(transport_len) + u64::from(pkt.payload_len);
    if len > u64::from(MAX_IPV4_LEN) {
        return Err(WireError::PacketTooLong { len });
    }
    Ok(len as u16)
}

/// The etherparse TCP header for `h`, checksum still zero.
fn to_etherparse_tcp(h: &TcpHeader) -> etherparse::TcpHeader {
    let f = h.flags;
    let mut tcp = etherparse::TcpHeader::new(h.src_port, h.dst_port, h.seq, h.window);
    tcp.acknowledgment_number = h.ack;
    tcp.fin = f.contains(TcpFlags::FIN);
    tcp.syn = f.contains(TcpFlags::SYN);
    tcp.rst = f.contains(TcpFlags::RST);
    tcp.psh = f.contains(TcpFlags::PSH);
    tcp.ack = f.contains(TcpFlags::ACK);
    tcp.urg = f.contains(TcpFlags::URG);
    tcp.ece = f.contains(TcpFlags::ECE);
    tcp.cwr = f.contains(TcpFlags::CWR);
    let mut opts = [0u8; MAX_TCP_OPTIONS_LEN as usize];
    let n = write_tcp_options(&h.options, &mut opts);
    debug_assert_eq!(n as u32, h.options.len(), "option layout disagrees with TcpOptions::len");
    // Cannot fail: n <= 40 was validated by checked_ip_len; an empty option list is the
    // fallback rather than a panic.
    tcp.options = etherparse::TcpOptions::try_from_slice(&opts[..n]).unwrap_or_default();
    tcp
}

/// Write `o` in the Linux layout (see the module docs) and return the byte count.
///
/// The caller guarantees `o.len() <= 40` and `sack_len <= 4`.
fn write_tcp_options(o: &TcpOptions, out: &mut [u8; MAX_TCP_OPTIONS_LEN as usize]) -> usize {
    const NOP: u8 = 1;
    let mut w = OptWriter { out, n: 0 };
    if let Some(mss) = o.mss {
        let [hi, lo] = mss.to_be_bytes();
        w.put(&[2, 4, hi, lo]);
    }
    match (o.sack_permitted, o.timestamps) {
        (sack_perm, Some(ts)) => {
            // SACK_PERM rides in the two bytes that would otherwise be NOP padding for TS.
            w.put(if sack_perm { &[4, 2] } else { &[NOP, NOP] });
            w.put(&[8, 10]);
            w.put(&ts.tsval.to_be_bytes());
            w.put(&ts.tsecr.to_be_bytes());
        }
        (true, None) => w.put(&[NOP, NOP, 4, 2]),
        (false, None) => {}
    }
    if let Some(shift) = o.window_scale {
        w.put(&[NOP, 3, 3, shift]);
    }
    let blocks = o.sack_blocks();
    if !blocks.is_empty() {
        w.put(&[NOP, NOP, 5, 2 + 8 * blocks.len() as u8]);
        for b in blocks {
            w.put(&b.left.to_be_bytes());
            w.put(&b.right.to_be_bytes());
        }
    }
    w.n
}

/// Cursor over the fixed option buffer.
struct OptWriter<'a> {
    out: &'a mut [u8; MAX_TCP_OPTIONS_LEN as usize],
    n: usize,
}

impl OptWriter<'_> {
    fn put(&mut self, bytes: &[u8]) {
        // Bounds hold by the caller's validation; `get_mut` keeps an impossible overflow from
        // panicking in release builds (the length mismatch is caught by a debug assertion).
        if let Some(dst) = self.out.get_mut(self.n..self.n + bytes.len()) {
            dst.copy_from_slice(bytes);
            self.n += bytes.len();
        } else {
            debug_assert!(false, "TCP options overflow 40 bytes");
        }
    }
}
