//! The Wave & Wait Protocol (seed 004) segment format: a bit-exact 6-byte header and the
//! 12-bit NACK lists of N-S_ACK / P-S_ACK.
//!
//! ```text
//!  0               8               16              24              32              40            47
//! +---------------+---------------+-------------------------------+-------+-------+---------------+
//! |  source port  |   dest port   |   sequence number (12 bits)   | type  |lvl| wave id | checksum  |
//! |    8 bits     |    8 bits     |                               | 4 bits|2b |  6 bits |  8 bits   |
//! +---------------+---------------+-------------------------------+-------+-------+---------------+
//! byte 0          byte 1          bytes 2-3 (seq << 4 | type)       byte 4 (level << 6 | wave id)  byte 5
//! ```
//!
//! - Type codes are 0–11 in the order the paper lists the types ([`WwpType`]); 12–15 are
//!   refused.
//! - Checksum: the 8-bit one's-complement sum (end-around carry) of every byte of the segment,
//!   header and payload, with the checksum byte taken as 0, complemented. No pseudo-header
//!   (WWP runs directly over IP or UDP; a UDP host's own checksum covers the addresses). A
//!   receiver checks that the sum over all bytes, checksum included, is `0xff`.
//! - NACK list (the payload of N-S_ACK and P-S_ACK): 12-bit sequence numbers, oldest first, the
//!   last one the terminator (the first new sequence number). Packed big-endian, two entries
//!   per three bytes; an odd count ends with one entry in two bytes whose low nibble is 0. The
//!   entry count is ⌊8·len/12⌋, so every count has one length (k entries: ⌈1.5·k⌉ bytes). A
//!   list needs at least the terminator; a non-zero padding nibble is refused.
//! - DATA carries any payload length (fixed-size segments are the endpoint's rule, not the
//!   format's); every other type carries none.
//!
//! Decoding never panics and never allocates: [`decode_wwp`] returns a [`WwpSegment`] that
//! borrows the payload. Errors name the byte offset and field ([`WireError::BadWwpField`]).

use super::WireError;

/// Length of the WWP header in bytes.
pub const WWP_HEADER_LEN: usize = 6;
/// Largest 12-bit sequence number + 1 (the size of the sequence space).
pub const WWP_SEQ_SPACE: u16 = 4096;
/// Largest wave id + 1 (the size of the 6-bit wave-id space).
pub const WWP_WAVE_ID_SPACE: u8 = 64;

/// The 12 WWP segment types, with their 4-bit wire codes (0–11 in the paper's order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum WwpType {
    /// Handshake steps 1 (A → B) and 4 (B → A): carries the sender's ISN.
    Syn = 0,
    /// Handshake steps 2 (B → A) and 3 (A → B, the echo).
    SynAck1 = 1,
    /// Handshake step 5 (A → B).
    SynAck2 = 2,
    /// Handshake step 6 (B → A): the first wave level and wave id.
    DWait = 3,
    /// A data segment of a wave.
    Data = 4,
    /// Negative selective ACK: one per wave, NACK list, next level and wave id.
    NsAck = 5,
    /// First probe of a probe cycle (sender → receiver), fresh id in the sequence field.
    Probe1 = 6,
    /// The receiver's echo of a PROBE1 id.
    ProbeAck = 7,
    /// The sender's echo of a PROBE_ACK id.
    Probe2 = 8,
    /// The end of a probe cycle: NACK list, next level and wave id.
    PsAck = 9,
    /// Start of one side's termination; carries the last data sequence number.
    Fin = 10,
    /// Answer to a FIN.
    FinAck = 11,
}

impl WwpType {
    /// Every type, in wire-code order.
    pub const ALL: [WwpType; 12] = [
        WwpType::Syn,
        WwpType::SynAck1,
        WwpType::SynAck2,
        WwpType::DWait,
        WwpType::Data,
        WwpType::NsAck,
        WwpType::Probe1,
        WwpType::ProbeAck,
        WwpType::Probe2,
        WwpType::PsAck,
        WwpType::Fin,
        WwpType::FinAck,
    ];

    /// The type with this 4-bit code, if any.
    pub fn from_code(code: u8) -> Option<WwpType> {
        WwpType::ALL.get(usize::from(code)).copied()
    }

    /// The 4-bit wire code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The paper's name of the type (e.g. `N-S_ACK`).
    pub const fn name(self) -> &'static str {
        match self {
            WwpType::Syn => "SYN",
            WwpType::SynAck1 => "SYN_ACK1",
            WwpType::SynAck2 => "SYN_ACK2",
            WwpType::DWait => "D_WAIT",
            WwpType::Data => "DATA",
            WwpType::NsAck => "N-S_ACK",
            WwpType::Probe1 => "PROBE1",
            WwpType::ProbeAck => "PROBE_ACK",
            WwpType::Probe2 => "PROBE2",
            WwpType::PsAck => "P-S_ACK",
            WwpType::Fin => "FIN",
            WwpType::FinAck => "FIN_ACK",
        }
    }

    /// Whether the payload is a NACK list (N-S_ACK and P-S_ACK).
    pub const fn carries_nack_list(self) -> bool {
        matches!(self, WwpType::NsAck | WwpType::PsAck)
    }
}

/// The fields of a WWP header (the checksum is computed on encode and checked on decode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WwpHeader {
    /// Source port (service access point), 8 bits.
    pub src_port: u8,
    /// Destination port, 8 bits.
    pub dst_port: u8,
    /// Sequence number or probe id, 12 bits (0..4096).
    pub seq: u16,
    /// Segment type.
    pub kind: WwpType,
    /// Wave level, 2 bits (0..4).
    pub level: u8,
    /// Wave id, 6 bits (0..64).
    pub wave_id: u8,
}

impl WwpHeader {
    /// The 6 header bytes with the checksum byte 0; out-of-range fields are masked to their width.
    pub fn to_bytes_unchecked(&self) -> [u8; WWP_HEADER_LEN] {
        let seq_type = ((self.seq & 0x0fff) << 4) | u16::from(self.kind.code());
        let [s0, s1] = seq_type.to_be_bytes();
        [self.src_port, self.dst_port, s0, s1, ((self.level & 3) << 6) | (self.wave_id & 0x3f), 0]
    }
}

/// A decoded WWP segment, borrowing its payload from the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WwpSegment<'a> {
    /// The header fields.
    pub header: WwpHeader,
    /// The payload: data for DATA, the packed NACK list for N-S_ACK / P-S_ACK, empty otherwise.
    pub payload: &'a [u8],
}

impl<'a> WwpSegment<'a> {
    /// The NACK list entries (terminator last); empty for types without a list.
    pub fn nack_list(&self) -> NackIter<'a> {
        if self.header.kind.carries_nack_list() {
            NackIter::new(self.payload)
        } else {
            NackIter::new(&[])
        }
    }

    /// Bytes on the wire: header plus payload.
    pub fn wire_len(&self) -> usize {
        WWP_HEADER_LEN + self.payload.len()
    }
}

/// Iterator over the 12-bit entries of a packed NACK list.
#[derive(Clone, Debug)]
pub struct NackIter<'a> {
    bytes: &'a [u8],
    index: usize,
    count: usize,
}

impl<'a> NackIter<'a> {
    /// Iterate over the entries packed in `bytes` (⌊8·len/12⌋ of them).
    pub fn new(bytes: &'a [u8]) -> NackIter<'a> {
        NackIter { bytes, index: 0, count: nack_count(bytes.len()) }
    }
}

impl Iterator for NackIter<'_> {
    type Item = u16;
    fn next(&mut self) -> Option<u16> {
        if self.index >= self.count {
            return None;
        }
        let i = self.index;
        self.index += 1;
        let at = (i / 2) * 3;
        let b = |k: usize| u16::from(self.bytes.get(at + k).copied().unwrap_or(0));
        Some(if i & 1 == 0 { (b(0) << 4) | (b(1) >> 4) } else { ((b(1) & 0x0f) << 8) | b(2) })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count - self.index;
        (n, Some(n))
    }
}

impl ExactSizeIterator for NackIter<'_> {}

/// Entries in a packed NACK list of `len` bytes.
pub const fn nack_count(len: usize) -> usize {
    len * 8 / 12
}

/// Bytes a packed NACK list of `count` entries takes (⌈1.5·count⌉).
pub const fn nack_len(count: usize) -> usize {
    (count * 12).div_ceil(8)
}

/// Append the packed NACK list `entries` (12-bit values, masked) to `out`.
pub fn pack_nack_list(entries: impl IntoIterator<Item = u16>, out: &mut Vec<u8>) {
    let mut pending: Option<u16> = None;
    for e in entries {
        let e = e & 0x0fff;
        match pending.take() {
            None => pending = Some(e),
            Some(a) => out.extend_from_slice(&[(a >> 4) as u8, (((a & 0x0f) << 4) | (e >> 8)) as u8, e as u8]),
        }
    }
    if let Some(a) = pending {
        out.extend_from_slice(&[(a >> 4) as u8, ((a & 0x0f) << 4) as u8]);
    }
}

/// The 8-bit one's-complement sum (end-around carry) of `bytes`, not complemented.
pub fn ones_complement_sum8(bytes: &[u8]) -> u8 {
    let mut sum: u32 = bytes.iter().map(|&b| u32::from(b)).sum();
    while sum > 0xff {
        sum = (sum & 0xff) + (sum >> 8);
    }
    sum as u8
}

/// Encode a segment: clear `out`, write the header, `payload`, and the checksum; returns its length.
pub fn encode_wwp(header: &WwpHeader, payload: &[u8], out: &mut Vec<u8>) -> usize {
    out.clear();
    out.extend_from_slice(&header.to_bytes_unchecked());
    out.extend_from_slice(payload);
    finish_wwp(out)
}

/// Fill in the checksum of a segment already laid out in `seg` (checksum byte ignored); returns
/// its length. Hosts that write the payload in place (e.g. a NACK list) call this last.
pub fn finish_wwp(seg: &mut [u8]) -> usize {
    if seg.len() < WWP_HEADER_LEN {
        return seg.len();
    }
    seg[5] = 0;
    seg[5] = !ones_complement_sum8(seg);
    seg.len()
}

/// Decode and verify a WWP segment.
pub fn decode_wwp(bytes: &[u8]) -> Result<WwpSegment<'_>, WireError> {
    if bytes.len() < WWP_HEADER_LEN {
        return Err(WireError::Truncated {
            what: "WWP header",
            offset: 0,
            needed: WWP_HEADER_LEN,
            available: bytes.len(),
        });
    }
    let code = bytes[3] & 0x0f;
    let kind = WwpType::from_code(code).ok_or(WireError::BadWwpField {
        field: "type",
        offset: 3,
        value: u32::from(code),
        reason: "codes 12-15 are not WWP segment types",
    })?;
    let sum = ones_complement_sum8(bytes);
    if sum != 0xff {
        return Err(WireError::WwpChecksum { offset: 5, found: bytes[5], sum });
    }
    let payload = &bytes[WWP_HEADER_LEN..];
    let header = WwpHeader {
        src_port: bytes[0],
        dst_port: bytes[1],
        seq: u16::from_be_bytes([bytes[2], bytes[3]]) >> 4,
        kind,
        level: bytes[4] >> 6,
        wave_id: bytes[4] & 0x3f,
    };
    if kind.carries_nack_list() {
        let count = nack_count(payload.len());
        if count == 0 {
            return Err(WireError::BadWwpField {
                field: "NACK list",
                offset: WWP_HEADER_LEN,
                value: payload.len() as u32,
                reason: "a NACK list needs at least its terminator (2 bytes)",
            });
        }
        if nack_len(count) != payload.len() {
            return Err(WireError::BadWwpField {
                field: "NACK list",
                offset: WWP_HEADER_LEN + nack_len(count),
                value: payload.len() as u32,
                reason: "trailing byte after the last 12-bit entry",
            });
        }
        if count % 2 == 1 && payload[payload.len() - 1] & 0x0f != 0 {
            return Err(WireError::BadWwpField {
                field: "NACK list padding",
                offset: bytes.len() - 1,
                value: u32::from(payload[payload.len() - 1] & 0x0f),
                reason: "the padding nibble after an odd entry count must be 0",
            });
        }
    } else if kind != WwpType::Data && !payload.is_empty() {
        return Err(WireError::BadWwpField {
            field: "payload",
            offset: WWP_HEADER_LEN,
            value: payload.len() as u32,
            reason: "only DATA, N-S_ACK and P-S_ACK carry a payload",
        });
    }
    Ok(WwpSegment { header, payload })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr(kind: WwpType) -> WwpHeader {
        WwpHeader { src_port: 7, dst_port: 9, seq: 0xabc, kind, level: 2, wave_id: 0x2a }
    }

    #[test]
    fn header_is_six_bytes_and_bit_exact() {
        let mut out = Vec::new();
        assert_eq!(encode_wwp(&hdr(WwpType::Probe1), &[], &mut out), 6);
        assert_eq!(&out[..5], &[7, 9, 0xab, 0xc6, 0b10_101010]);
        let seg = decode_wwp(&out).unwrap();
        assert_eq!(seg.header, hdr(WwpType::Probe1));
        assert_eq!(seg.wire_len(), WWP_HEADER_LEN);
    }

    #[test]
    fn data_segment_is_1030_bytes() {
        let mut out = Vec::new();
        assert_eq!(encode_wwp(&hdr(WwpType::Data), &[0x5a; 1024], &mut out), 1030);
        let seg = decode_wwp(&out).unwrap();
        assert_eq!(seg.payload, &[0x5a; 1024][..]);
    }

    #[test]
    fn all_twelve_types_round_trip_and_codes_above_are_refused() {
        let mut out = Vec::new();
        for (code, kind) in WwpType::ALL.into_iter().enumerate() {
            assert_eq!(kind.code() as usize, code);
            let payload: &[u8] = if kind.carries_nack_list() { &[0x12, 0x30] } else { &[] };
            encode_wwp(&hdr(kind), payload, &mut out);
            assert_eq!(decode_wwp(&out).unwrap().header.kind, kind, "{}", kind.name());
        }
        for code in 12..16u8 {
            let mut b = [0u8, 0, 0, code, 0, 0];
            finish_wwp(&mut b);
            match decode_wwp(&b) {
                Err(WireError::BadWwpField { field: "type", offset: 3, .. }) => {}
                other => panic!("code {code}: {other:?}"),
            }
        }
    }

    #[test]
    fn checksum_errors_name_the_offset() {
        let mut out = Vec::new();
        encode_wwp(&hdr(WwpType::Data), b"hello", &mut out);
        out[8] ^= 0x01;
        assert!(matches!(decode_wwp(&out), Err(WireError::WwpChecksum { offset: 5, .. })));
        assert!(matches!(decode_wwp(&out[..4]), Err(WireError::Truncated { offset: 0, .. })));
    }

    #[test]
    fn nack_lists_pack_two_entries_per_three_bytes() {
        for n in 1..20usize {
            let entries: Vec<u16> = (0..n as u16).map(|i| (i * 977 + 4000) % 4096).collect();
            let mut payload = Vec::new();
            pack_nack_list(entries.iter().copied(), &mut payload);
            assert_eq!(payload.len(), nack_len(n));
            assert_eq!(nack_count(payload.len()), n);
            let mut out = Vec::new();
            encode_wwp(&hdr(WwpType::NsAck), &payload, &mut out);
            let seg = decode_wwp(&out).unwrap();
            assert_eq!(seg.nack_list().collect::<Vec<_>>(), entries);
        }
        // A lossless N-S_ACK is 8 bytes.
        let mut p = Vec::new();
        pack_nack_list([17], &mut p);
        assert_eq!(WWP_HEADER_LEN + p.len(), 8);
    }

    #[test]
    fn malformed_payloads_are_refused() {
        let mut out = Vec::new();
        encode_wwp(&hdr(WwpType::NsAck), &[], &mut out);
        assert!(matches!(decode_wwp(&out), Err(WireError::BadWwpField { field: "NACK list", .. })));
        encode_wwp(&hdr(WwpType::NsAck), &[1, 2, 3, 4], &mut out);
        assert!(matches!(decode_wwp(&out), Err(WireError::BadWwpField { offset: 9, .. })));
        encode_wwp(&hdr(WwpType::PsAck), &[1, 2], &mut out);
        assert!(matches!(decode_wwp(&out), Err(WireError::BadWwpField { field: "NACK list padding", offset: 7, .. })));
        encode_wwp(&hdr(WwpType::Fin), &[0], &mut out);
        assert!(matches!(decode_wwp(&out), Err(WireError::BadWwpField { field: "payload", offset: 6, .. })));
    }
}
