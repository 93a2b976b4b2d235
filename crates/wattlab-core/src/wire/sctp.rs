//! The subset of SCTP (RFC 9260) the client–AP tunnel speaks (seed 002 Ch. 4,
//! [`crate::tunnel`]), carried over UDP as RFC 6951 does, so tcpdump and Wireshark decode it.
//!
//! ```text
//!  SCTP common header (12 B)            SACK chunk (type 3, 16 B + 4 per entry)
//!  +--------------+--------------+      +------+-------+-------------+
//!  | source port  | dest port    |      | 3    | flags | length      |
//!  +--------------+--------------+      +------+-------+-------------+
//!  | verification tag            |      | cumulative TSN ack         |
//!  +-----------------------------+      | a_rwnd                     |
//!  | checksum (CRC32c)           |      | #gap blocks | #dup TSNs    |
//!  +-----------------------------+      | gap start   | gap end  ... |  offsets from the cum. TSN
//!                                       | duplicate TSN ...          |
//!  DATA chunk (type 0, 16 B + data)     +----------------------------+
//!  +------+-------+-------------+
//!  | 0    | UBE   | length      |  length = 16 + data, not counting the padding to 4 bytes
//!  | TSN                        |
//!  | stream id   | stream seq n |
//!  | payload protocol id        |
//!  | data: one whole IP packet  |
//!  +----------------------------+
//! ```
//!
//! - A packet holds at most one SACK chunk and at most one DATA chunk, the SACK first (RFC 9260
//!   §6.5: control chunks precede DATA). That is what the tunnel sends: the thesis's model has
//!   one TCP packet per SCTP packet, and a SACK piggybacked on DATA. A received packet with more
//!   DATA or SACK chunks is refused rather than half-read.
//! - Each DATA chunk carries a whole message (B and E set: the tunnel never fragments; an IP
//!   packet fits in one chunk at the tunnel's MTU). The payload protocol identifier is 0
//!   (unspecified: IANA has no value for "an IP packet"); the receiver ignores it.
//! - Chunk types the subset does not implement are handled by their two high bits (RFC 9260
//!   §3.2): `00`/`01` stop processing (the packet is refused), `10`/`11` skip the chunk.
//! - The checksum is CRC32c (RFC 9260 Appendix A: the `crc` crate's `CRC_32_ISCSI`) over the
//!   whole packet with the checksum field zero, stored little-endian as the RFC's reference
//!   code does. [`decode_sctp`] verifies it; a mismatch is [`WireError::SctpChecksum`].
//! - Over UDP (RFC 6951) the SCTP packet is the UDP payload, both ports [`SCTP_UDP_PORT`]; the
//!   SCTP ports inside are the tunnel's own ([`TUNNEL_SCTP_PORT`]).
//!
//! The simulator carries an SCTP packet's header bytes inline in a datagram
//! ([`crate::packet::ProtoHeader`], up to 48 bytes) and the inner IP packet as an encapsulated
//! [`crate::packet::Packet`]; [`decode_sctp_headers`] reads such header bytes whose DATA payload
//! lives elsewhere, and the IPv4 encoder fills in the checksum over the real bytes
//! ([`fill_checksum`]). Decoding never panics and never allocates.

use super::WireError;

/// UDP port of SCTP over UDP (RFC 6951, IANA `sctp-tunneling`).
pub const SCTP_UDP_PORT: u16 = 9899;
/// IP protocol number of SCTP.
pub const IPPROTO_SCTP: u8 = 132;
/// SCTP port both tunnel endpoints use inside the UDP encapsulation.
pub const TUNNEL_SCTP_PORT: u16 = 9899;
/// Length of the SCTP common header.
pub const COMMON_HEADER_LEN: usize = 12;
/// Length of a DATA chunk header (before the user data).
pub const DATA_HEADER_LEN: usize = 16;
/// Length of a SACK chunk without gap blocks or duplicate TSNs.
pub const SACK_HEADER_LEN: usize = 16;
/// Most gap ack blocks a [`SackChunk`] holds (a SACK may report fewer than exist).
pub const MAX_GAP_BLOCKS: usize = 16;
/// Most duplicate TSNs a [`SackChunk`] holds.
pub const MAX_DUP_TSNS: usize = 8;
/// Chunk type of DATA.
pub const CHUNK_DATA: u8 = 0;
/// Chunk type of SACK.
pub const CHUNK_SACK: u8 = 3;
/// DATA flags: beginning and ending fragment of a whole message (U clear: ordered).
pub const DATA_FLAGS_WHOLE: u8 = 0x03;
/// Chunk type of INIT (RFC 9260 §3.3.2).
pub const CHUNK_INIT: u8 = 1;
/// Chunk type of INIT ACK (§3.3.3).
pub const CHUNK_INIT_ACK: u8 = 2;
/// Chunk type of COOKIE ECHO (§3.3.11).
pub const CHUNK_COOKIE_ECHO: u8 = 10;
/// Chunk type of COOKIE ACK (§3.3.12).
pub const CHUNK_COOKIE_ACK: u8 = 11;
/// Length of an INIT or INIT ACK chunk's fixed part (chunk header and five fields).
pub const INIT_LEN: usize = 20;
/// Length of the tunnel's State Cookie (opaque on the wire; the endpoint fills it).
pub const COOKIE_LEN: usize = 12;
/// Parameter type of the State Cookie in an INIT ACK (§3.3.3.1).
const PARAM_STATE_COOKIE: u16 = 7;

/// The fixed fields of an INIT or INIT ACK chunk (no optional parameters are sent; received
/// ones other than the State Cookie are skipped).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InitChunk {
    /// Initiate Tag: the verification tag the sender expects on every later packet to it.
    pub tag: u32,
    /// Advertised receiver window credit, bytes.
    pub a_rwnd: u32,
    /// Number of outbound streams.
    pub out_streams: u16,
    /// Maximum number of inbound streams.
    pub in_streams: u16,
    /// The sender's first TSN.
    pub initial_tsn: u32,
}

/// A State Cookie: opaque bytes the listener gets back in COOKIE ECHO (the tunnel endpoint's
/// layout is in `tunnel::endpoint`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cookie(pub [u8; COOKIE_LEN]);

/// One chunk of the association's four-way start (RFC 9260 §5.1), first in its packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// INIT, from the initiator (verification tag 0).
    Init(InitChunk),
    /// INIT ACK with its State Cookie, from the listener.
    InitAck(InitChunk, Cookie),
    /// COOKIE ECHO: the cookie back to the listener.
    CookieEcho(Cookie),
    /// COOKIE ACK: the listener's association is established.
    CookieAck,
}

impl Handshake {
    /// Encoded length in bytes (all are multiples of 4).
    pub fn len(&self) -> usize {
        match self {
            Handshake::Init(_) => INIT_LEN,
            Handshake::InitAck(..) => INIT_LEN + 4 + COOKIE_LEN,
            Handshake::CookieEcho(_) => 4 + COOKIE_LEN,
            Handshake::CookieAck => 4,
        }
    }

    /// Never empty: a chunk has at least its 4-byte header.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// A SACK chunk: cumulative TSN, receiver window, gap ack blocks and duplicate TSNs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackChunk {
    /// Last TSN received in sequence.
    pub cum_tsn: u32,
    /// Advertised receiver window credit, bytes.
    pub a_rwnd: u32,
    /// Gap ack blocks (start, end), offsets from `cum_tsn`, inclusive; first `n_gaps` valid.
    pub gaps: [(u16, u16); MAX_GAP_BLOCKS],
    /// Valid gap blocks.
    pub n_gaps: u8,
    /// Duplicate TSNs received since the last SACK; first `n_dups` valid.
    pub dups: [u32; MAX_DUP_TSNS],
    /// Valid duplicate TSNs.
    pub n_dups: u8,
}

impl SackChunk {
    /// The valid gap blocks.
    pub fn gap_blocks(&self) -> &[(u16, u16)] {
        &self.gaps[..usize::from(self.n_gaps).min(MAX_GAP_BLOCKS)]
    }

    /// The valid duplicate TSNs.
    pub fn dup_tsns(&self) -> &[u32] {
        &self.dups[..usize::from(self.n_dups).min(MAX_DUP_TSNS)]
    }

    /// Encoded length in bytes.
    pub fn len(&self) -> usize {
        SACK_HEADER_LEN + 4 * (self.gap_blocks().len() + self.dup_tsns().len())
    }

    /// Never empty: a SACK has at least its 16-byte header.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// A DATA chunk's header; its user data (`len` bytes) is the tunnelled IP packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataChunk {
    /// Transmission sequence number.
    pub tsn: u32,
    /// Stream identifier (one per inner flow).
    pub sid: u16,
    /// Stream sequence number.
    pub ssn: u16,
    /// Payload protocol identifier (0 here).
    pub ppid: u32,
    /// Flags (U, B, E bits).
    pub flags: u8,
    /// Bytes of user data.
    pub len: u32,
}

/// The chunks of one tunnel packet: the common header's fields, an optional SACK and an
/// optional DATA chunk (its data not included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SctpHeader {
    /// SCTP source port.
    pub src_port: u16,
    /// SCTP destination port.
    pub dst_port: u16,
    /// Verification tag (the receiver's tag; 0 on INIT).
    pub vtag: u32,
    /// A handshake chunk, first if present.
    pub control: Option<Handshake>,
    /// The SACK chunk, first after the handshake chunk if present.
    pub sack: Option<SackChunk>,
    /// The DATA chunk's header.
    pub data: Option<DataChunk>,
}

impl SctpHeader {
    /// Bytes of the common header and chunk headers (what precedes the DATA's user data).
    pub fn header_len(&self) -> usize {
        COMMON_HEADER_LEN + self.control.map_or(0, |c| c.len()) + self.sack.map_or(0, |s| s.len()) + self.data.map_or(0, |_| DATA_HEADER_LEN)
    }

    /// Total SCTP packet length: headers, user data and its padding to 4 bytes.
    pub fn packet_len(&self) -> usize {
        self.header_len() + self.data.map_or(0, |d| pad4(d.len as usize))
    }
}

/// `n` rounded up to a multiple of 4 (chunks are padded to 4-byte boundaries).
pub const fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

/// The thesis's SCTP packet size for a TCP packet of `s` bytes (Eq. 4.12): 12 + 20 + s, padded
/// to a multiple of 4. Its "20" is not the 16-byte DATA chunk header; docs/tunnel.md compares it
/// with [`SctpHeader::packet_len`] and the bytes on the wire.
pub const fn thesis_sctp_size(s: usize) -> usize {
    pad4(12 + 20 + s)
}

const CRC32C: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);

/// CRC32c of an SCTP packet with its checksum field taken as zero.
pub fn checksum(packet: &[u8]) -> u32 {
    let mut d = CRC32C.digest();
    d.update(packet.get(..8).unwrap_or(packet));
    if packet.len() >= COMMON_HEADER_LEN {
        d.update(&[0; 4]);
        d.update(&packet[COMMON_HEADER_LEN..]);
    }
    d.finalize()
}

/// Writes the CRC32c of `packet` (a whole SCTP packet) into its checksum field; no-op if it is
/// shorter than the common header.
pub fn fill_checksum(packet: &mut [u8]) {
    if packet.len() < COMMON_HEADER_LEN {
        return;
    }
    let c = checksum(packet);
    packet[8..12].copy_from_slice(&c.to_le_bytes());
}

/// Appends the common header and chunk headers of `h` (checksum 0, DATA length counting its
/// `len` bytes of user data, which the caller appends) to `out`.
pub fn encode_sctp_headers(h: &SctpHeader, out: &mut Vec<u8>) {
    out.extend_from_slice(&h.src_port.to_be_bytes());
    out.extend_from_slice(&h.dst_port.to_be_bytes());
    out.extend_from_slice(&h.vtag.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    if let Some(c) = &h.control {
        encode_handshake(c, out);
    }
    if let Some(s) = &h.sack {
        out.push(CHUNK_SACK);
        out.push(0);
        out.extend_from_slice(&(s.len() as u16).to_be_bytes()); // ≤ 16 + 4·24: fits
        out.extend_from_slice(&s.cum_tsn.to_be_bytes());
        out.extend_from_slice(&s.a_rwnd.to_be_bytes());
        out.extend_from_slice(&(s.gap_blocks().len() as u16).to_be_bytes());
        out.extend_from_slice(&(s.dup_tsns().len() as u16).to_be_bytes());
        for (a, b) in s.gap_blocks() {
            out.extend_from_slice(&a.to_be_bytes());
            out.extend_from_slice(&b.to_be_bytes());
        }
        for t in s.dup_tsns() {
            out.extend_from_slice(&t.to_be_bytes());
        }
    }
    if let Some(d) = &h.data {
        out.push(CHUNK_DATA);
        out.push(d.flags);
        let len = (DATA_HEADER_LEN as u32).saturating_add(d.len).min(u32::from(u16::MAX)) as u16;
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&d.tsn.to_be_bytes());
        out.extend_from_slice(&d.sid.to_be_bytes());
        out.extend_from_slice(&d.ssn.to_be_bytes());
        out.extend_from_slice(&d.ppid.to_be_bytes());
    }
}

fn encode_handshake(c: &Handshake, out: &mut Vec<u8>) {
    let kind = match c {
        Handshake::Init(_) => CHUNK_INIT,
        Handshake::InitAck(..) => CHUNK_INIT_ACK,
        Handshake::CookieEcho(_) => CHUNK_COOKIE_ECHO,
        Handshake::CookieAck => CHUNK_COOKIE_ACK,
    };
    out.extend_from_slice(&[kind, 0]);
    out.extend_from_slice(&(c.len() as u16).to_be_bytes());
    if let Handshake::Init(i) | Handshake::InitAck(i, _) = c {
        out.extend_from_slice(&i.tag.to_be_bytes());
        out.extend_from_slice(&i.a_rwnd.to_be_bytes());
        out.extend_from_slice(&i.out_streams.to_be_bytes());
        out.extend_from_slice(&i.in_streams.to_be_bytes());
        out.extend_from_slice(&i.initial_tsn.to_be_bytes());
    }
    match c {
        Handshake::InitAck(_, k) => {
            out.extend_from_slice(&PARAM_STATE_COOKIE.to_be_bytes());
            out.extend_from_slice(&((4 + COOKIE_LEN) as u16).to_be_bytes());
            out.extend_from_slice(&k.0);
        }
        Handshake::CookieEcho(k) => out.extend_from_slice(&k.0),
        _ => {}
    }
}

/// Appends a whole SCTP packet to `out`: `h`'s headers, `data` (the DATA chunk's user data,
/// whose length must be `h.data.len`), padding and the checksum. Refused if `data` disagrees
/// with the header or the DATA chunk would exceed the 16-bit chunk length.
pub fn encode_sctp(h: &SctpHeader, data: &[u8], out: &mut Vec<u8>) -> Result<(), WireError> {
    let want = h.data.map_or(0, |d| d.len as usize);
    if want != data.len() || DATA_HEADER_LEN + want > usize::from(u16::MAX) {
        return Err(WireError::BadSctpField {
            field: "DATA length",
            offset: 0,
            value: data.len() as u64,
            reason: "user data disagrees with the chunk header or exceeds 65519 bytes",
        });
    }
    let start = out.len();
    encode_sctp_headers(h, out);
    out.extend_from_slice(data);
    out.resize(start + h.packet_len(), 0);
    fill_checksum(&mut out[start..]);
    Ok(())
}

/// A decoded tunnel packet: its header and where the DATA chunk's user data is in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SctpView<'a> {
    /// Common header and chunks.
    pub header: SctpHeader,
    /// The DATA chunk's user data (empty without DATA, or when it lives elsewhere).
    pub data: &'a [u8],
}

/// Decodes a whole SCTP packet (the payload of a UDP datagram on port 9899), checksum verified.
pub fn decode_sctp(bytes: &[u8]) -> Result<SctpView<'_>, WireError> {
    decode(bytes, true)
}

/// Decodes the header bytes of an SCTP packet whose DATA user data is carried elsewhere (the
/// simulator's inline header): the checksum is not checked and the DATA chunk may end at its
/// header.
pub fn decode_sctp_headers(bytes: &[u8]) -> Result<SctpHeader, WireError> {
    decode(bytes, false).map(|v| v.header)
}

fn bad(field: &'static str, offset: usize, value: u64, reason: &'static str) -> WireError {
    WireError::BadSctpField { field, offset, value, reason }
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn decode(bytes: &[u8], whole: bool) -> Result<SctpView<'_>, WireError> {
    if bytes.len() < COMMON_HEADER_LEN {
        return Err(WireError::Truncated { what: "SCTP common header", offset: 0, needed: COMMON_HEADER_LEN, available: bytes.len() });
    }
    if whole {
        let found = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        let computed = checksum(bytes);
        if found != computed {
            return Err(WireError::SctpChecksum { found, computed });
        }
    }
    let mut h = SctpHeader { src_port: be16(bytes, 0), dst_port: be16(bytes, 2), vtag: be32(bytes, 4), ..SctpHeader::default() };
    let mut data: &[u8] = &[];
    let mut at = COMMON_HEADER_LEN;
    while at < bytes.len() {
        if bytes.len() - at < 4 {
            return Err(WireError::Truncated { what: "SCTP chunk header", offset: at, needed: 4, available: bytes.len() - at });
        }
        let (kind, flags, len) = (bytes[at], bytes[at + 1], usize::from(be16(bytes, at + 2)));
        if len < 4 {
            return Err(bad("chunk length", at + 2, len as u64, "below the 4-byte chunk header"));
        }
        let avail = bytes.len() - at;
        match kind {
            CHUNK_INIT | CHUNK_INIT_ACK | CHUNK_COOKIE_ECHO | CHUNK_COOKIE_ACK => {
                if at != COMMON_HEADER_LEN {
                    return Err(bad("chunk type", at, u64::from(kind), "a handshake chunk not first in its packet"));
                }
                if len > avail {
                    return Err(WireError::Truncated { what: "SCTP handshake chunk", offset: at, needed: len, available: avail });
                }
                h.control = Some(decode_handshake(kind, &bytes[at..at + len], at)?);
            }
            CHUNK_SACK => {
                if h.sack.is_some() || h.data.is_some() || matches!(h.control, Some(Handshake::Init(_) | Handshake::InitAck(..))) {
                    return Err(bad("chunk type", at, 3, "a second SACK, a SACK after DATA, or one bundled with INIT"));
                }
                if len > avail {
                    return Err(WireError::Truncated { what: "SCTP SACK chunk", offset: at, needed: len, available: avail });
                }
                h.sack = Some(decode_sack(&bytes[at..at + len], at)?);
            }
            CHUNK_DATA => {
                if h.data.is_some() || matches!(h.control, Some(Handshake::Init(_) | Handshake::InitAck(..))) {
                    return Err(bad("chunk type", at, 0, "more than one DATA chunk (the tunnel bundles none), or DATA with INIT"));
                }
                if len < DATA_HEADER_LEN {
                    return Err(bad("DATA length", at + 2, len as u64, "below the 16-byte DATA header"));
                }
                if len == DATA_HEADER_LEN {
                    return Err(bad("DATA length", at + 2, len as u64, "a DATA chunk without user data"));
                }
                if avail < DATA_HEADER_LEN || (whole && len > avail) {
                    return Err(WireError::Truncated { what: "SCTP DATA chunk", offset: at, needed: len, available: avail });
                }
                if flags & DATA_FLAGS_WHOLE != DATA_FLAGS_WHOLE {
                    return Err(bad("DATA flags", at + 1, u64::from(flags), "a fragment (the tunnel reassembles none)"));
                }
                h.data = Some(DataChunk {
                    tsn: be32(bytes, at + 4),
                    sid: be16(bytes, at + 8),
                    ssn: be16(bytes, at + 10),
                    ppid: be32(bytes, at + 12),
                    flags,
                    len: (len - DATA_HEADER_LEN) as u32,
                });
                if !whole {
                    if avail > DATA_HEADER_LEN {
                        return Err(bad("DATA length", at + 2, avail as u64, "inline header bytes past the DATA chunk header"));
                    }
                    break;
                }
                data = &bytes[at + DATA_HEADER_LEN..at + len];
            }
            other if other >> 6 & 0b10 == 0 => {
                return Err(bad("chunk type", at, u64::from(other), "not implemented and marked stop-processing"));
            }
            _ => {
                if len > avail {
                    return Err(WireError::Truncated { what: "SCTP chunk", offset: at, needed: len, available: avail });
                }
            }
        }
        // A last chunk's padding may be missing; the loop then ends.
        at += pad4(len);
    }
    Ok(SctpView { header: h, data })
}

/// An INIT, INIT ACK, COOKIE ECHO or COOKIE ACK chunk (`c`: the chunk, `len` bytes).
fn decode_handshake(kind: u8, c: &[u8], at: usize) -> Result<Handshake, WireError> {
    let init = |c: &[u8]| -> Result<InitChunk, WireError> {
        if c.len() < INIT_LEN {
            return Err(bad("INIT length", at + 2, c.len() as u64, "below the 20-byte INIT fixed part"));
        }
        let i = InitChunk { tag: be32(c, 4), a_rwnd: be32(c, 8), out_streams: be16(c, 12), in_streams: be16(c, 14), initial_tsn: be32(c, 16) };
        if i.tag == 0 || i.out_streams == 0 || i.in_streams == 0 {
            return Err(bad("INIT fields", at + 4, u64::from(i.tag), "Initiate Tag or a stream count is 0 (RFC 9260 §3.3.2)"));
        }
        Ok(i)
    };
    match kind {
        CHUNK_INIT => Ok(Handshake::Init(init(c)?)),
        CHUNK_INIT_ACK => {
            let i = init(c)?;
            // Parameters: the State Cookie is required; others (8 bytes minimum each) skipped.
            let mut p = INIT_LEN;
            while c.len() - p >= 4 {
                let (ty, plen) = (be16(c, p), usize::from(be16(c, p + 2)));
                if plen < 4 || plen > c.len() - p {
                    return Err(bad("INIT ACK parameter length", at + p + 2, plen as u64, "below 4 or past the chunk"));
                }
                if ty == PARAM_STATE_COOKIE {
                    if plen != 4 + COOKIE_LEN {
                        return Err(bad("State Cookie length", at + p + 2, plen as u64, "not the tunnel's 12-byte cookie"));
                    }
                    let mut k = [0; COOKIE_LEN];
                    k.copy_from_slice(&c[p + 4..p + 4 + COOKIE_LEN]);
                    return Ok(Handshake::InitAck(i, Cookie(k)));
                }
                p += pad4(plen);
            }
            Err(bad("INIT ACK", at, c.len() as u64, "no State Cookie parameter"))
        }
        CHUNK_COOKIE_ECHO => {
            if c.len() != 4 + COOKIE_LEN {
                return Err(bad("COOKIE ECHO length", at + 2, c.len() as u64, "not the tunnel's 12-byte cookie"));
            }
            let mut k = [0; COOKIE_LEN];
            k.copy_from_slice(&c[4..]);
            Ok(Handshake::CookieEcho(Cookie(k)))
        }
        _ => Ok(Handshake::CookieAck),
    }
}

fn decode_sack(c: &[u8], at: usize) -> Result<SackChunk, WireError> {
    if c.len() < SACK_HEADER_LEN {
        return Err(bad("SACK length", at + 2, c.len() as u64, "below the 16-byte SACK header"));
    }
    let (n_gaps, n_dups) = (usize::from(be16(c, 12)), usize::from(be16(c, 14)));
    if SACK_HEADER_LEN + 4 * (n_gaps + n_dups) != c.len() {
        return Err(bad("SACK length", at + 2, c.len() as u64, "disagrees with its gap block and duplicate TSN counts"));
    }
    if n_gaps > MAX_GAP_BLOCKS || n_dups > MAX_DUP_TSNS {
        return Err(bad("SACK counts", at + 12, (n_gaps + n_dups) as u64, "more gap blocks or duplicate TSNs than the tunnel reads"));
    }
    let mut s = SackChunk { cum_tsn: be32(c, 4), a_rwnd: be32(c, 8), n_gaps: n_gaps as u8, n_dups: n_dups as u8, ..SackChunk::default() };
    for i in 0..n_gaps {
        let (a, b) = (be16(c, 16 + 4 * i), be16(c, 18 + 4 * i));
        if a == 0 || b < a {
            return Err(bad("gap block", at + 16 + 4 * i, u64::from(a) << 16 | u64::from(b), "start 0 or end before start"));
        }
        s.gaps[i] = (a, b);
    }
    for i in 0..n_dups {
        s.dups[i] = be32(c, 16 + 4 * (n_gaps + i));
    }
    Ok(s)
}

#[cfg(test)]
#[path = "sctp_tests.rs"]
mod tests;
