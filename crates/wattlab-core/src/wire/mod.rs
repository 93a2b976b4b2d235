//! Bytes on the wire: encode [`Packet`]s to IPv4 / Ethernet II frames and decode them back.
//!
//! This is the only place where wattlab's compact packets become real bytes (for pcap output
//! and the live testbed) and where captured bytes become packets (for the trace analyzer).
//! Header writing, checksums and header slicing use `etherparse`; TCP options are laid out and
//! parsed here because their exact byte layout is part of wattlab's model.
//!
//! # Encoding
//!
//! - IPv4 header: 20 bytes (version 4, IHL 5, the packet's DSCP, ECN 0), total length = [`Packet::ip_len`],
//!   identification = `ip_id`, DF set for TCP only (as Linux does with path-MTU discovery; UDP
//!   and other protocols leave it clear), TTL, protocol, correct header checksum.
//! - TCP header: data offset including options, the 8 flag bits of [`TcpFlags`], window, urgent
//!   pointer 0, correct checksum over the pseudo-header, header and payload.
//! - UDP header: length = 8 + payload, correct checksum (0 is sent as 0xffff, RFC 768).
//! - ICMP (RFC 792): type, code, checksum over header and payload, and the 4 type-specific
//!   bytes (an echo's identifier and sequence number), so tcpdump shows
//!   `ICMP echo request, id X, seq Y`.
//! - [`Transport::Other`]: the IP header followed directly by `payload_len` bytes.
//! - Payload: `payload_len` bytes. A datagram's [`Body`](crate::packet::Body) is written first
//!   (UDP and other protocols): its protocol header's bytes, then the encapsulated packet's
//!   IPv4 bytes (looked up in the [`PacketArena`](crate::packet::PacketArena) given to
//!   [`encode_ipv4_in`]); the rest is zeros. Zeros are deterministic, compress well in pcap
//!   files and make the checksum depend on headers only; nothing else in wattlab models
//!   payload content.
//!
//! ## TCP option layout
//!
//! Options are written in the order and with the padding Linux uses (`tcp_options_write`), so
//! the option bytes are exactly [`TcpOptions::len`] long:
//!
//! | present                       | bytes                                              | len |
//! |-------------------------------|----------------------------------------------------|-----|
//! | MSS                           | `02 04 mss_hi mss_lo`                              | 4   |
//! | SACK-permitted and timestamps | `04 02 08 0a tsval(4) tsecr(4)`                    | 12  |
//! | timestamps only               | `01 01 08 0a tsval(4) tsecr(4)`                    | 12  |
//! | SACK-permitted only           | `01 01 04 02`                                      | 4   |
//! | window scale                  | `01 03 03 shift`                                   | 4   |
//! | n SACK blocks (1..=4)         | `01 01 05 (2+8n) {left(4) right(4)}*n`             | 4+8n|
//!
//! rows appear in this order. A Linux SYN therefore carries `MSS, SACK_PERM, TS, NOP, WS`
//! (20 bytes); a data segment `NOP, NOP, TS` (12 bytes); an ACK with three SACK blocks and
//! timestamps `NOP, NOP, TS, NOP, NOP, SACK` (40 bytes, the maximum).
//!
//! # Decoding
//!
//! The decoder accepts what the encoder writes and what real stacks send: all modelled options
//! in any order, unknown options skipped by their length, `EOL` ending the list. The payload
//! length comes from the IPv4 total length, not from the captured bytes, so captures truncated
//! by a snaplen still decode as long as the transport header is complete (a snaplen of 94 bytes
//! always suffices: 14 Ethernet + 20 IPv4 + 60 TCP). A total length of 0 (as seen in captures of
//! TCP segmentation offload) falls back to the captured length. Checksums are not verified,
//! because captures taken on hosts with checksum offload routinely carry wrong ones.
//!
//! ICMP echo requests and replies (type 8 and 0, code 0) decode to their identifier and
//! sequence number, any other ICMP message to its raw type, code and bytes 5 to 8, so every
//! ICMP packet of 8 bytes or more round-trips. A datagram's payload decodes as opaque bytes:
//! which protocol header it starts with is not in the bytes (WWP runs over its own protocol
//! number, an application over any port), so the caller says it with [`decode_body`] and a
//! [`DecodeAs`], as Wireshark's "Decode As" does.
//!
//! Not representable in [`Packet`] and therefore rejected or dropped: IP fragments are
//! rejected ([`WireError::Fragment`]); IPv4 options are skipped (the decoded packet's
//! [`Packet::ip_len`] is then shorter than the captured total length by their size); ECN,
//! DF, the TCP NS bit, the urgent pointer and UDP's own length field are ignored.
//!
//! [`wwp`] holds the segment format of seed 004's Wave & Wait Protocol (its own 6-byte header,
//! not carried in [`Packet`]); [`pstp`] the message format of seed 001's PS-TP (over UDP);
//! [`sctp`] the SCTP subset of seed 002's client–AP tunnel (over UDP, RFC 6951). A UDP
//! datagram to or from port 9899 whose body has a protocol header is an SCTP packet, and so is
//! the body of an IP protocol 132 packet: the encoder fills in its CRC32c over the real bytes
//! (the encapsulated packet's included), before the UDP checksum.
//!
//! Neither direction panics on any input, and encoding allocates only by growing the caller's
//! buffer.

mod decode;
mod encode;
pub mod fuzz;
pub mod pstp;
mod rewrite;
pub mod sctp;
pub mod wwp;
#[cfg(test)]
mod datagram_tests;
#[cfg(test)]
mod tests;

pub use decode::{decode_body, decode_ethernet, decode_ipv4, DecodeAs};
pub use encode::{encode_ethernet, encode_ethernet_in, encode_ipv4, encode_ipv4_in, MAX_ENCAP_DEPTH};
pub use rewrite::set_tcp_window;
pub use pstp::{decode_pstp, encode_pstp, PstpBody, PstpMessage, PstpType, PSTP_HEADER_LEN};
pub use wwp::{decode_wwp, encode_wwp, WwpHeader, WwpSegment, WwpType, WWP_HEADER_LEN};

#[allow(unused_imports)] // referenced by the module docs
use crate::packet::{Packet, TcpFlags, TcpOptions, Transport};

/// Length of an Ethernet II header (no VLAN tag).
pub const ETHERNET_HEADER_LEN: usize = 14;
/// EtherType of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// Largest TCP option space: a 60-byte header minus the 20 fixed bytes.
pub const MAX_TCP_OPTIONS_LEN: u32 = 40;
/// Largest IPv4 total length (the 16-bit total-length field).
pub const MAX_IPV4_LEN: u32 = 65_535;

/// What went wrong while encoding or decoding; decode errors carry the byte offset from the
/// start of the input where the problem is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The packet's DSCP does not fit the six bits of the IPv4 DS field.
    #[error("DSCP {dscp} does not fit the 6-bit DS field (0–63)")]
    BadDscp {
        /// The offending value.
        dscp: u8,
    },
    /// The packet is longer than an IPv4 total-length field can express.
    #[error("IPv4 packet of {len} bytes exceeds the 65535-byte total-length field")]
    PacketTooLong {
        /// IP header + transport header + payload, in bytes.
        len: u64,
    },
    /// The TCP options do not fit in the 40 bytes a TCP header can carry.
    #[error("TCP options need {len} bytes, more than the 40 a TCP header can carry")]
    TcpOptionsTooLong {
        /// Encoded option length, in bytes.
        len: u32,
    },
    /// `sack_len` is larger than the SACK block array.
    #[error("TCP header claims {count} SACK blocks, at most 4 exist")]
    TooManySackBlocks {
        /// The offending `sack_len`.
        count: u8,
    },
    /// `Transport::Other` with the TCP, UDP or ICMP protocol number: the bytes would lack the
    /// header the protocol number promises, so they could not be decoded back.
    #[error("Transport::Other with protocol {protocol} (TCP, UDP or ICMP) has no header to encode")]
    OtherWithTransportProtocol {
        /// The protocol number.
        protocol: u8,
    },
    /// A datagram's modelled body (its protocol header and encapsulated packet) is longer than
    /// its payload.
    #[error("the datagram's protocol header and encapsulated packet need {needed} bytes, its payload has {payload_len}")]
    BodyLongerThanPayload {
        /// Bytes of header and encapsulated packet.
        needed: u64,
        /// The packet's payload length.
        payload_len: u32,
    },
    /// The encapsulated packet is not in the arena given (its slot was reused since, or no
    /// arena was given).
    #[error("the encapsulated packet is no longer in the packet arena (or no arena was given)")]
    MissingEncapsulated,
    /// Tunnels nest deeper than [`MAX_ENCAP_DEPTH`].
    #[error("encapsulated packets nest more than {depth} deep")]
    EncapsulationTooDeep {
        /// The limit.
        depth: u8,
    },
    /// A protocol header longer than a packet carries inline ([`crate::packet::PROTO_HEADER_MAX`]).
    #[error("a protocol header of {len} bytes is longer than the {max} a packet carries inline")]
    ProtoHeaderTooLong {
        /// Length asked for.
        len: usize,
        /// The most a packet carries.
        max: usize,
    },
    /// The packet is not a datagram (where only UDP or another protocol without a transport
    /// header of wattlab's makes sense, e.g. decoding its body).
    #[error("IP protocol {protocol}: not a datagram with a body (UDP or a protocol straight over IP)")]
    NotDatagram {
        /// Protocol number.
        protocol: u8,
    },
    /// The input ends before a header does.
    #[error("truncated {what} at byte {offset}: need {needed} bytes, have {available}")]
    Truncated {
        /// Which header is cut short.
        what: &'static str,
        /// Offset where that header starts.
        offset: usize,
        /// Bytes the header needs.
        needed: usize,
        /// Bytes available from `offset`.
        available: usize,
    },
    /// The Ethernet frame does not carry IPv4.
    #[error("unsupported EtherType 0x{ether_type:04x} at byte {offset} (only IPv4, optionally VLAN-tagged)")]
    UnsupportedEtherType {
        /// The EtherType found.
        ether_type: u16,
        /// Offset of the EtherType field.
        offset: usize,
    },
    /// The IP version nibble is not 4.
    #[error("IP version {version} at byte {offset}, expected 4")]
    NotIpv4 {
        /// Version found.
        version: u8,
        /// Offset of the IP header.
        offset: usize,
    },
    /// The IPv4 header length field is below the minimum of 5 words.
    #[error("IPv4 header length {ihl} words at byte {offset} is below the minimum of 5")]
    BadIpHeaderLength {
        /// IHL found.
        ihl: u8,
        /// Offset of the IP header.
        offset: usize,
    },
    /// The IPv4 total length is smaller than the headers it must contain.
    #[error("IPv4 total length {total_len} (header at byte {offset}) is smaller than the {needed} bytes of headers")]
    BadTotalLength {
        /// Total length found.
        total_len: u16,
        /// Bytes of IP and transport headers present.
        needed: usize,
        /// Offset of the IP header.
        offset: usize,
    },
    /// The packet is an IP fragment, which has no complete transport header.
    #[error("IPv4 fragment (header at byte {offset}, fragment offset {fragment_offset}): fragments are not decoded")]
    Fragment {
        /// Offset of the IP header.
        offset: usize,
        /// Fragment offset field, in 8-byte units.
        fragment_offset: u16,
    },
    /// The TCP data offset is below the minimum of 5 words.
    #[error("TCP data offset {data_offset} words at byte {offset} is below the minimum of 5")]
    BadTcpDataOffset {
        /// Data offset found.
        data_offset: u8,
        /// Offset of the TCP header.
        offset: usize,
    },
    /// The packet is not a TCP segment (where only TCP makes sense, e.g. a window rewrite).
    #[error("IP protocol {protocol} at byte {offset}: not TCP")]
    NotTcp {
        /// Protocol number found.
        protocol: u8,
        /// Offset of the protocol field.
        offset: usize,
    },
    /// A TCP option is malformed.
    #[error("malformed TCP option kind {kind} at byte {offset}: {reason}")]
    BadTcpOption {
        /// Option kind.
        kind: u8,
        /// Offset of the option's kind byte.
        offset: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A WWP header or payload field holds a value the format does not allow.
    #[error("bad WWP {field} at byte {offset} (value {value}): {reason}")]
    BadWwpField {
        /// Which field.
        field: &'static str,
        /// Offset of the byte holding it.
        offset: usize,
        /// The value found (a length for length problems).
        value: u32,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A PS-TP header or body field holds a value the format does not allow (decode), or a
    /// message cannot be encoded (offset: where the field would go).
    #[error("bad PS-TP {field} at byte {offset} (value {value}): {reason}")]
    BadPstpField {
        /// Which field.
        field: &'static str,
        /// Offset of the byte holding it.
        offset: usize,
        /// The value found (a length for length problems).
        value: u64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An SCTP header or chunk field holds a value the tunnel's subset does not allow (decode),
    /// or a packet cannot be encoded.
    #[error("bad SCTP {field} at byte {offset} (value {value}): {reason}")]
    BadSctpField {
        /// Which field.
        field: &'static str,
        /// Offset of the field from the start of the SCTP packet.
        offset: usize,
        /// The value found (a length for length problems).
        value: u64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The SCTP CRC32c does not verify.
    #[error("bad SCTP checksum 0x{found:08x}, computed 0x{computed:08x}")]
    SctpChecksum {
        /// The checksum field (as stored, little-endian).
        found: u32,
        /// The CRC32c of the packet.
        computed: u32,
    },
    /// The WWP checksum does not verify.
    #[error("bad WWP checksum 0x{found:02x} at byte {offset}: one's-complement sum 0x{sum:02x}, expected 0xff")]
    WwpChecksum {
        /// Offset of the checksum byte.
        offset: usize,
        /// The checksum byte found.
        found: u8,
        /// The 8-bit one's-complement sum over the segment.
        sum: u8,
    },
}

/// A locally administered unicast MAC for a node index: `02:00:00:xx:xx:xx` with the low 24
/// bits of `node_index` (indices 2^24 apart share a MAC; no wattlab topology is that large).
pub fn mac_for_node(node_index: u32) -> [u8; 6] {
    let [_, a, b, c] = node_index.to_be_bytes();
    // 0x02: locally administered (bit 1) and unicast (bit 0 clear), so it never collides with
    // a vendor-assigned address on a live testbed.
    [0x02, 0x00, 0x00, a, b, c]
}
