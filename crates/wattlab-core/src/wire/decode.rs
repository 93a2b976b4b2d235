//! Bytes → packet.

use std::net::Ipv4Addr;

use etherparse::{err, Ethernet2HeaderSlice, Ipv4HeaderSlice, TcpHeaderSlice, UdpHeaderSlice};

use super::{WireError, ETHERNET_HEADER_LEN, ETHERTYPE_IPV4};
use crate::packet::{
    Body, IcmpMessage, Packet, PacketArena, ProtoHeader, SackBlock, TcpFlags, TcpHeader, TcpOptions, Timestamps,
    Transport, UdpHeader, ICMP_HEADER_LEN, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, MAX_SACK_BLOCKS, PROTO_HEADER_MAX,
    TCP_HEADER_LEN, UDP_HEADER_LEN,
};

/// Fixed part of the TCP header before the options start.
const TCP_OPTIONS_OFFSET: usize = TCP_HEADER_LEN as usize;

/// Decode an IPv4 packet; the payload length comes from the IPv4 total length, so a capture
/// truncated after the transport header still decodes.
pub fn decode_ipv4(bytes: &[u8]) -> Result<Packet, WireError> {
    decode_ipv4_at(bytes, 0)
}

/// Decode an Ethernet II frame carrying IPv4 (up to two VLAN tags are skipped).
pub fn decode_ethernet(bytes: &[u8]) -> Result<Packet, WireError> {
    let eth =
        Ethernet2HeaderSlice::from_slice(bytes).map_err(|e| len_error("Ethernet header", 0, e))?;
    let mut ether_type = eth.ether_type().0;
    let mut offset = ETHERNET_HEADER_LEN;
    // 802.1Q / 802.1ad tags: 2 bytes of tag control, then the next EtherType. Two tags cover
    // Q-in-Q; a third would be unusual enough to report as unsupported.
    for _ in 0..2 {
        if !matches!(ether_type, 0x8100 | 0x88a8 | 0x9100) {
            break;
        }
        match bytes.get(offset..offset + 4) {
            Some(tag) => ether_type = u16::from_be_bytes([tag[2], tag[3]]),
            None => {
                return Err(WireError::Truncated {
                    what: "VLAN tag",
                    offset,
                    needed: 4,
                    available: bytes.len().saturating_sub(offset),
                })
            }
        }
        offset += 4;
    }
    if ether_type != ETHERTYPE_IPV4 {
        return Err(WireError::UnsupportedEtherType { ether_type, offset: offset - 2 });
    }
    // `offset <= bytes.len()` holds: every step above checked the bytes it skipped.
    decode_ipv4_at(bytes.get(offset..).unwrap_or_default(), offset)
}

/// Decode IPv4 from `bytes`, reporting offsets relative to `base` (where `bytes` starts in the
/// caller's input).
fn decode_ipv4_at(bytes: &[u8], base: usize) -> Result<Packet, WireError> {
    let ip = Ipv4HeaderSlice::from_slice(bytes).map_err(|e| match e {
        err::ipv4::HeaderSliceError::Len(e) => len_error("IPv4 header", base, e),
        err::ipv4::HeaderSliceError::Content(err::ipv4::HeaderError::UnexpectedVersion {
            version_number,
        }) => WireError::NotIpv4 { version: version_number, offset: base },
        err::ipv4::HeaderSliceError::Content(
            err::ipv4::HeaderError::HeaderLengthSmallerThanHeader { ihl },
        ) => WireError::BadIpHeaderLength { ihl, offset: base },
    })?;
    let ip_hl = ip.slice().len();
    if ip.more_fragments() || ip.fragments_offset().value() != 0 {
        return Err(WireError::Fragment {
            offset: base,
            fragment_offset: ip.fragments_offset().value(),
        });
    }
    // A zero total length is what captures of TCP segmentation offload show: the NIC fills it
    // in later. The captured length is the best estimate then.
    let total_len = match ip.total_len() {
        0 => bytes.len(),
        n => usize::from(n),
    };
    let protocol = ip.protocol().0;
    let rest = bytes.get(ip_hl..).unwrap_or_default();
    let rest_base = base + ip_hl;

    let (transport, transport_len) = match protocol {
        IPPROTO_TCP => {
            let tcp = TcpHeaderSlice::from_slice(rest).map_err(|e| match e {
                err::tcp::HeaderSliceError::Len(e) => len_error("TCP header", rest_base, e),
                err::tcp::HeaderSliceError::Content(
                    err::tcp::HeaderError::DataOffsetTooSmall { data_offset },
                ) => WireError::BadTcpDataOffset { data_offset, offset: rest_base },
            })?;
            let header = TcpHeader {
                src_port: tcp.source_port(),
                dst_port: tcp.destination_port(),
                seq: tcp.sequence_number(),
                ack: tcp.acknowledgment_number(),
                // Byte 13 holds exactly the 8 flag bits TcpFlags models (NS lives in byte 12).
                flags: TcpFlags(tcp.slice().get(13).copied().unwrap_or(0)),
                window: tcp.window_size(),
                options: parse_tcp_options(tcp.options(), rest_base + TCP_OPTIONS_OFFSET)?,
            };
            (Transport::Tcp(header), tcp.slice().len())
        }
        IPPROTO_UDP => {
            let udp = UdpHeaderSlice::from_slice(rest)
                .map_err(|e| len_error("UDP header", rest_base, e))?;
            let header =
                UdpHeader { src_port: udp.source_port(), dst_port: udp.destination_port() };
            (Transport::Udp(header, Body::EMPTY), UDP_HEADER_LEN as usize)
        }
        IPPROTO_ICMP => {
            // Type, code and bytes 5..8 are all the header a message needs; etherparse's slice
            // would also insist on a timestamp message's full length, which a snaplen cuts.
            let h = rest.get(..ICMP_HEADER_LEN as usize).ok_or(WireError::Truncated {
                what: "ICMP header",
                offset: rest_base,
                needed: ICMP_HEADER_LEN as usize,
                available: rest.len(),
            })?;
            let message = IcmpMessage::from_raw(h[0], h[1], [h[4], h[5], h[6], h[7]]);
            (Transport::Icmp(message), ICMP_HEADER_LEN as usize)
        }
        protocol => (Transport::Other { protocol, body: Body::EMPTY }, 0),
    };

    let headers_len = ip_hl + transport_len;
    let payload_len = total_len.checked_sub(headers_len).ok_or(WireError::BadTotalLength {
        total_len: ip.total_len(),
        needed: headers_len,
        offset: base,
    })?;
    Ok(Packet {
        src: Ipv4Addr::from(ip.source()),
        dst: Ipv4Addr::from(ip.destination()),
        ip_id: ip.identification(),
        ttl: ip.ttl(),
        dscp: ip.dcp().value(),
        transport,
        // total_len <= 65535 (or a slice length when the field is 0, which fits in u32 for any
        // real capture; saturate rather than wrap otherwise).
        payload_len: u32::try_from(payload_len).unwrap_or(u32::MAX),
    })
}

/// How to read the start of a datagram's payload, which the bytes alone do not say (as
/// Wireshark's "Decode As"): the length of its protocol's header, and whether an encapsulated
/// IPv4 packet follows the header (a tunnel).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodeAs {
    /// Bytes of the protocol header at the start of the payload (0: none).
    pub header_len: usize,
    /// An IPv4 packet follows the header.
    pub encapsulated: bool,
}

/// Reads the body of datagram `p`, decoded from the IPv4 bytes `ip`, as `how` says: its
/// protocol header's bytes, and the encapsulated packet, decoded and stored in `arena`. The
/// bytes must hold what is read (a capture's snaplen may have cut them); on error `p` is
/// unchanged.
pub fn decode_body(p: &mut Packet, ip: &[u8], how: DecodeAs, arena: &mut PacketArena) -> Result<(), WireError> {
    let protocol = p.protocol();
    if p.body().is_none() {
        return Err(WireError::NotDatagram { protocol });
    }
    let ip_hl = Ipv4HeaderSlice::from_slice(ip).map_err(|_| WireError::NotDatagram { protocol })?.slice().len();
    let payload_len = p.payload_len as usize;
    let start = ip_hl + p.transport_header_len() as usize;
    if how.header_len > PROTO_HEADER_MAX {
        return Err(WireError::ProtoHeaderTooLong { len: how.header_len, max: PROTO_HEADER_MAX });
    }
    if how.header_len > payload_len {
        return Err(WireError::BodyLongerThanPayload { needed: how.header_len as u64, payload_len: p.payload_len });
    }
    let payload = ip.get(start..).unwrap_or_default();
    let payload = &payload[..payload.len().min(payload_len)];
    let header = payload.get(..how.header_len).ok_or(WireError::Truncated {
        what: "protocol header",
        offset: start,
        needed: how.header_len,
        available: payload.len(),
    })?;
    let mut body = Body { header: ProtoHeader::new(header).unwrap_or_default(), encap: None, kept: false };
    if how.encapsulated {
        let inner = decode_ipv4_at(&payload[how.header_len..], start + how.header_len)?;
        let needed = how.header_len as u64 + u64::from(inner.ip_len());
        if needed > payload_len as u64 {
            return Err(WireError::BodyLongerThanPayload { needed, payload_len: p.payload_len });
        }
        body.encap = Some(arena.insert(inner));
    }
    if let Transport::Udp(_, b) | Transport::Other { body: b, .. } = &mut p.transport {
        *b = body;
    }
    Ok(())
}

/// Parse TCP option bytes that start at input offset `base`.
///
/// Known options must have their exact length; unknown ones are skipped by their length
/// byte; `EOL` ends the list.
fn parse_tcp_options(opts: &[u8], base: usize) -> Result<TcpOptions, WireError> {
    let mut o = TcpOptions::default();
    let mut i = 0;
    while let Some(&kind) = opts.get(i) {
        match kind {
            0 => break, // EOL: the rest is padding
            1 => {
                // NOP
                i += 1;
                continue;
            }
            _ => {}
        }
        let bad = |reason| WireError::BadTcpOption { kind, offset: base + i, reason };
        let len = usize::from(*opts.get(i + 1).ok_or_else(|| bad("length byte missing"))?);
        if len < 2 {
            return Err(bad("length below 2"));
        }
        let body =
            opts.get(i + 2..i + len).ok_or_else(|| bad("runs past the end of the header"))?;
        let exact = |want: usize| if len == want { Ok(()) } else { Err(bad("wrong length")) };
        match kind {
            2 => {
                exact(4)?;
                o.mss = Some(u16::from_be_bytes([body[0], body[1]]));
            }
            3 => {
                exact(3)?;
                o.window_scale = Some(body[0]);
            }
            4 => {
                exact(2)?;
                o.sack_permitted = true;
            }
            5 => {
                let n = (len - 2) / 8;
                if (len - 2) % 8 != 0 || n == 0 || n > MAX_SACK_BLOCKS {
                    return Err(bad("SACK length is not 2 + 8n with n in 1..=4"));
                }
                for (slot, b) in o.sack.iter_mut().zip(body.chunks_exact(8)) {
                    *slot = SackBlock {
                        left: u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
                        right: u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
                    };
                }
                o.sack_len = n as u8;
            }
            8 => {
                exact(10)?;
                o.timestamps = Some(Timestamps {
                    tsval: u32::from_be_bytes([body[0], body[1], body[2], body[3]]),
                    tsecr: u32::from_be_bytes([body[4], body[5], body[6], body[7]]),
                });
            }
            _ => {} // unmodelled option (MPTCP, TFO, MD5, ...): skipped
        }
        i += len;
    }
    Ok(o)
}

/// Map an etherparse length error for `what` starting at input offset `offset`.
fn len_error(what: &'static str, offset: usize, e: err::LenError) -> WireError {
    WireError::Truncated { what, offset, needed: e.required_len, available: e.len }
}
