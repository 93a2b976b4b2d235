//! The radiotap header (link type 127): the PHY fields a monitor-mode capture records for each
//! frame, parsed without allocating. Field numbers, alignments and sizes are radiotap.org's
//! defined fields; a field the parser does not know ends the walk (its size is unknown), and
//! the frame still starts at the header's `it_len`.

/// What the radiotap flags field (bit 1) says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RtFlags(pub u8);

impl RtFlags {
    /// Short preamble (DSSS/CCK).
    pub const SHORT_PREAMBLE: u8 = 0x02;
    /// Sent or received with WEP encryption (the legacy flag; use the 802.11 Protected bit).
    pub const WEP: u8 = 0x04;
    /// The frame ends with its 4-byte FCS.
    pub const FCS: u8 = 0x10;
    /// Padding between the 802.11 header and the payload, to a 32-bit boundary.
    pub const DATA_PAD: u8 = 0x20;
    /// The frame failed its FCS check.
    pub const BAD_FCS: u8 = 0x40;
    /// Short (400 ns) guard interval (HT).
    pub const SHORT_GI: u8 = 0x80;

    /// Whether every bit of `mask` is set.
    pub fn has(self, mask: u8) -> bool {
        self.0 & mask == mask
    }
}

/// The HT (802.11n) MCS field (bit 19).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HtMcs {
    /// Which of `flags` and `index` are known (radiotap's `known` byte).
    pub known: u8,
    /// Bandwidth (bits 0–1), short GI (bit 2), greenfield (bit 3), LDPC (bit 4), STBC (5–6).
    pub flags: u8,
    /// MCS index (0–76).
    pub index: u8,
}

impl HtMcs {
    /// Channel width in MHz (20 or 40), if known.
    pub fn width_mhz(self) -> Option<u16> {
        (self.known & 0x01 != 0).then(|| if self.flags & 0x03 == 1 { 40 } else { 20 })
    }

    /// Short guard interval, if known.
    pub fn short_gi(self) -> Option<bool> {
        (self.known & 0x04 != 0).then_some(self.flags & 0x04 != 0)
    }

    /// Spatial streams implied by the index (MCS 0–31: 8 per stream), if the index is known.
    pub fn nss(self) -> Option<u8> {
        (self.known & 0x02 != 0 && self.index < 32).then_some(self.index / 8 + 1)
    }
}

/// The VHT (802.11ac) field (bit 21), single-user view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vht {
    /// Which fields are known (radiotap's `known` u16).
    pub known: u16,
    /// STBC (bit 0), TXOP_PS_NOT_ALLOWED (1), short GI (2), ..., beamformed (5).
    pub flags: u8,
    /// Radiotap bandwidth code (0 = 20, 1 = 40, 4 = 80, 11 = 160 MHz, others sub-bands).
    pub bandwidth: u8,
    /// Per user: MCS in the high nibble, NSS in the low nibble (0 = user absent).
    pub mcs_nss: [u8; 4],
    /// Per-user coding (bit u: LDPC).
    pub coding: u8,
    /// Group ID (0 or 63: single user).
    pub group_id: u8,
    /// Partial AID.
    pub partial_aid: u16,
}

impl Vht {
    /// User 0's MCS index.
    pub fn mcs(self) -> u8 {
        self.mcs_nss[0] >> 4
    }

    /// User 0's spatial streams.
    pub fn nss(self) -> u8 {
        self.mcs_nss[0] & 0x0f
    }

    /// Short guard interval, if known.
    pub fn short_gi(self) -> Option<bool> {
        (self.known & 0x0004 != 0).then_some(self.flags & 0x04 != 0)
    }

    /// Channel width in MHz, if known (radiotap's bandwidth table).
    pub fn width_mhz(self) -> Option<u16> {
        if self.known & 0x0040 == 0 {
            return None;
        }
        Some(match self.bandwidth {
            0 => 20,
            1..=3 => 40,
            4..=10 => 80,
            11..=25 => 160,
            _ => return None,
        })
    }
}

/// The HE (802.11ax) field (bit 23): radiotap's six data words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct He {
    /// `data1` … `data6` as radiotap defines them.
    pub data: [u16; 6],
}

impl He {
    /// PPDU format: 0 SU, 1 extended-range SU, 2 MU, 3 trigger-based.
    pub fn format(self) -> u8 {
        (self.data[0] & 0x0003) as u8
    }

    /// Data MCS, if known.
    pub fn mcs(self) -> Option<u8> {
        (self.data[0] & 0x0020 != 0).then_some(((self.data[2] >> 8) & 0x0f) as u8)
    }

    /// Space-time streams (NSTS), if nonzero.
    pub fn nsts(self) -> Option<u8> {
        let n = (self.data[5] & 0x0f) as u8;
        (n != 0).then_some(n)
    }

    /// Guard interval in ns (800, 1600, 3200), if known.
    pub fn gi_ns(self) -> Option<u16> {
        if self.data[1] & 0x0002 == 0 {
            return None;
        }
        match (self.data[4] >> 4) & 0x03 {
            0 => Some(800),
            1 => Some(1600),
            2 => Some(3200),
            _ => None,
        }
    }

    /// Channel width in MHz (20–160) when the bandwidth/RU field names a whole channel.
    pub fn width_mhz(self) -> Option<u16> {
        if self.data[0] & 0x4000 == 0 {
            return None;
        }
        match self.data[4] & 0x0f {
            0 => Some(20),
            1 => Some(40),
            2 => Some(80),
            3 => Some(160),
            _ => None,
        }
    }
}

/// The A-MPDU status field (bit 20): frames with the same reference were one A-MPDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmpduStatus {
    /// Reference number, the same for every subframe of one A-MPDU.
    pub reference: u32,
    /// Flags: last-known (0x04), is-last (0x08), delimiter CRC error (0x10), EOF (0x40).
    pub flags: u16,
}

impl AmpduStatus {
    /// This is the A-MPDU's last subframe (when the capturing driver knows it).
    pub fn is_last(self) -> Option<bool> {
        (self.flags & 0x0004 != 0).then_some(self.flags & 0x0008 != 0)
    }
}

/// The radiotap fields of one frame, the ones the trace analyzer uses; `None` when absent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Radiotap {
    /// The header's length (`it_len`): the 802.11 frame starts there.
    pub len: u16,
    /// TSF timer of the frame's first bit, µs (bit 0).
    pub tsft: Option<u64>,
    /// Flags (bit 1).
    pub flags: Option<RtFlags>,
    /// Legacy rate in 500 kb/s units (bit 2).
    pub rate_500k: Option<u8>,
    /// Channel centre frequency in MHz and channel flags (bit 3).
    pub channel: Option<(u16, u16)>,
    /// Antenna signal, dBm (bit 5).
    pub antenna_signal_dbm: Option<i8>,
    /// RX flags (bit 14); 0x0002 is a bad PLCP CRC.
    pub rx_flags: Option<u16>,
    /// HT MCS (bit 19).
    pub mcs: Option<HtMcs>,
    /// A-MPDU status (bit 20).
    pub ampdu: Option<AmpduStatus>,
    /// VHT (bit 21).
    pub vht: Option<Vht>,
    /// HE (bit 23).
    pub he: Option<He>,
}

impl Radiotap {
    /// The flags say the frame ends with an FCS.
    pub fn has_fcs(&self) -> bool {
        self.flags.is_some_and(|f| f.has(RtFlags::FCS))
    }

    /// The capturing radio reports a failed FCS (or PLCP CRC) check.
    pub fn bad_fcs(&self) -> bool {
        self.flags.is_some_and(|f| f.has(RtFlags::BAD_FCS))
            || self.rx_flags.is_some_and(|f| f & 0x0002 != 0)
    }

    /// The 802.11 header is followed by padding to a 32-bit boundary.
    pub fn data_pad(&self) -> bool {
        self.flags.is_some_and(|f| f.has(RtFlags::DATA_PAD))
    }
}

/// Why a radiotap header cannot be parsed: `at` is the byte offset in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RadiotapError {
    /// The captured bytes end inside the header (a snaplen cut, not a corrupt header).
    Cut,
    /// The header is malformed.
    Malformed {
        /// Offset of the problem from the header's start.
        at: usize,
        /// What is wrong.
        what: &'static str,
    },
}

/// (alignment, size) of radiotap namespace fields 0..=27; fields past this table end the walk.
const FIELDS: [(usize, usize); 28] = [
    (8, 8),  // 0 TSFT
    (1, 1),  // 1 flags
    (1, 1),  // 2 rate
    (2, 4),  // 3 channel
    (2, 2),  // 4 FHSS
    (1, 1),  // 5 antenna signal dBm
    (1, 1),  // 6 antenna noise dBm
    (2, 2),  // 7 lock quality
    (2, 2),  // 8 TX attenuation
    (2, 2),  // 9 dB TX attenuation
    (1, 1),  // 10 dBm TX power
    (1, 1),  // 11 antenna
    (1, 1),  // 12 antenna signal dB
    (1, 1),  // 13 antenna noise dB
    (2, 2),  // 14 RX flags
    (2, 2),  // 15 TX flags
    (1, 1),  // 16 RTS retries
    (1, 1),  // 17 data retries
    (4, 8),  // 18 XChannel
    (1, 3),  // 19 MCS
    (4, 8),  // 20 A-MPDU status
    (2, 12), // 21 VHT
    (8, 12), // 22 timestamp
    (2, 12), // 23 HE
    (2, 12), // 24 HE-MU
    (2, 6),  // 25 HE-MU-other-user
    (1, 1),  // 26 0-length PSDU
    (2, 4),  // 27 L-SIG
];

/// Bit 31 of a present word: another present word follows.
const EXT: u32 = 31;

fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Parse the radiotap header at the start of `data` (the captured bytes of one record).
pub fn parse(data: &[u8]) -> Result<Radiotap, RadiotapError> {
    let malformed = |at, what| Err(RadiotapError::Malformed { at, what });
    if data.len() < 8 {
        return Err(RadiotapError::Cut);
    }
    if data[0] != 0 {
        return malformed(0, "version is not 0");
    }
    let len = le16(data, 2);
    let it_len = usize::from(len);
    if it_len < 8 {
        return malformed(2, "header length below 8");
    }
    if data.len() < it_len {
        return Err(RadiotapError::Cut);
    }
    let h = &data[..it_len];
    let mut rt = Radiotap {
        len,
        ..Radiotap::default()
    };
    // The present words: a chain linked by bit 31, before any field.
    let mut words_end = 4;
    loop {
        if words_end + 4 > it_len {
            return malformed(words_end, "present bitmaps run past the header");
        }
        let w = le32(h, words_end);
        words_end += 4;
        if w & (1 << EXT) == 0 {
            break;
        }
    }
    // Only the first present word's fields (bits 0–28 of the radiotap namespace) are read:
    // every field the analyzer needs is there, and the data of later words (per-chain
    // signals, vendor namespaces) follows them, so stopping early loses nothing.
    let w = le32(h, 4);
    let mut pos = words_end;
    // Only the set bits are visited (fields 0–28; 29–31 select namespaces and extensions).
    let mut bits = w & 0x1fff_ffff;
    while bits != 0 {
        let bit = bits.trailing_zeros();
        bits &= bits - 1;
        let Some(&(align, size)) = FIELDS.get(bit as usize) else {
            break; // an unknown field: its size is unknown, so nothing after it can be found
        };
        pos = pos.div_ceil(align) * align;
        if pos + size > it_len {
            return malformed(pos, "a field runs past the header's length");
        }
        let f = &h[pos..pos + size];
        match bit {
            0 => rt.tsft = Some(u64::from_le_bytes(f.try_into().expect("8 bytes"))),
            1 => rt.flags = Some(RtFlags(f[0])),
            2 => rt.rate_500k = Some(f[0]),
            3 => rt.channel = Some((le16(f, 0), le16(f, 2))),
            5 => rt.antenna_signal_dbm = Some(f[0] as i8),
            14 => rt.rx_flags = Some(le16(f, 0)),
            19 => {
                rt.mcs = Some(HtMcs {
                    known: f[0],
                    flags: f[1],
                    index: f[2],
                })
            }
            20 => {
                rt.ampdu = Some(AmpduStatus {
                    reference: le32(f, 0),
                    flags: le16(f, 4),
                })
            }
            21 => {
                rt.vht = Some(Vht {
                    known: le16(f, 0),
                    flags: f[2],
                    bandwidth: f[3],
                    mcs_nss: [f[4], f[5], f[6], f[7]],
                    coding: f[8],
                    group_id: f[9],
                    partial_aid: le16(f, 10),
                })
            }
            23 => {
                let mut data = [0u16; 6];
                for (i, d) in data.iter_mut().enumerate() {
                    *d = le16(f, 2 * i);
                }
                rt.he = Some(He { data });
            }
            _ => {}
        }
        pos += size;
    }
    Ok(rt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_rate_channel_signal_with_alignment() {
        // present: TSFT, flags, rate, channel, antenna signal (bits 0,1,2,3,5).
        let mut h = vec![0u8, 0, 0, 0];
        h.extend_from_slice(&0b10_1111u32.to_le_bytes());
        h.extend_from_slice(&123_456u64.to_le_bytes()); // TSFT at 8 (aligned)
        h.push(RtFlags::FCS); // 16
        h.push(12); // 6 Mb/s at 17
        h.extend_from_slice(&5180u16.to_le_bytes()); // channel at 18 (aligned to 2)
        h.extend_from_slice(&0x0140u16.to_le_bytes());
        h.push((-42i8) as u8); // 22
        let n = h.len() as u16;
        h[2..4].copy_from_slice(&n.to_le_bytes());
        let rt = parse(&h).unwrap();
        assert_eq!(rt.len, 23);
        assert_eq!(rt.tsft, Some(123_456));
        assert!(rt.has_fcs() && !rt.bad_fcs());
        assert_eq!(rt.rate_500k, Some(12));
        assert_eq!(rt.channel, Some((5180, 0x0140)));
        assert_eq!(rt.antenna_signal_dbm, Some(-42));
    }

    #[test]
    fn field_past_length_is_malformed_with_offset() {
        let mut h = vec![0u8, 0, 10, 0];
        h.extend_from_slice(&1u32.to_le_bytes()); // TSFT at 8 needs 16 bytes
        h.extend_from_slice(&[0, 0]);
        assert_eq!(
            parse(&h),
            Err(RadiotapError::Malformed {
                at: 8,
                what: "a field runs past the header's length"
            })
        );
    }
}
