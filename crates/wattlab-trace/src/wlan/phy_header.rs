//! The capture header in front of an 802.11 frame: radiotap (127), none (105), PPI (192,
//! its 802.11-common field) or AVS (163); each gives the same [`Radiotap`] view.

use super::radiotap::{self, Radiotap, RadiotapError, RtFlags};

/// Which capture header the link type puts in front of each 802.11 frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WlanHeader {
    /// Radiotap (`LINKTYPE_IEEE802_11_RADIOTAP`, 127).
    Radiotap,
    /// None (`LINKTYPE_IEEE802_11`, 105): the frame without an FCS, as Wireshark assumes.
    Plain,
    /// Per-Packet Information (`LINKTYPE_PPI`, 192).
    Ppi,
    /// AVS (`LINKTYPE_IEEE802_11_AVS`, 163).
    Avs,
}

impl WlanHeader {
    /// Its name in error messages.
    pub fn name(self) -> &'static str {
        match self {
            WlanHeader::Radiotap => "radiotap header",
            WlanHeader::Plain => "802.11 header",
            WlanHeader::Ppi => "PPI header",
            WlanHeader::Avs => "AVS header",
        }
    }
}

/// The capture header of one record: PHY fields, its length, and whether the frame behind it
/// ends with its FCS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaptureHeader {
    /// The PHY fields it records.
    pub phy: Radiotap,
    /// Its length: the 802.11 frame starts there.
    pub len: usize,
    /// The frame ends with its FCS.
    pub fcs: bool,
    /// The header says the frame failed its FCS check.
    pub bad_fcs: bool,
}

/// PPI's data link type for 802.11.
const PPI_DLT_80211: u32 = 105;
/// PPI field type of the 802.11-common field.
const PPI_80211_COMMON: u16 = 2;

fn malformed<T>(at: usize, what: &'static str) -> Result<T, RadiotapError> {
    Err(RadiotapError::Malformed { at, what })
}

/// The capture header of kind `kind` at the start of `data`.
pub fn parse(kind: WlanHeader, data: &[u8]) -> Result<CaptureHeader, RadiotapError> {
    match kind {
        WlanHeader::Plain => Ok(CaptureHeader {
            phy: Radiotap::default(),
            len: 0,
            fcs: false,
            bad_fcs: false,
        }),
        WlanHeader::Radiotap => {
            let phy = radiotap::parse(data)?;
            Ok(CaptureHeader {
                phy,
                len: usize::from(phy.len),
                fcs: phy.has_fcs(),
                bad_fcs: phy.bad_fcs(),
            })
        }
        WlanHeader::Ppi => ppi(data),
        WlanHeader::Avs => avs(data),
    }
}

fn ppi(data: &[u8]) -> Result<CaptureHeader, RadiotapError> {
    let h = data.get(..8).ok_or(RadiotapError::Cut)?;
    if h[0] != 0 {
        return malformed(0, "PPI version is not 0");
    }
    let len = usize::from(u16::from_le_bytes([h[2], h[3]]));
    let dlt = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
    if len < 8 {
        return malformed(2, "PPI header length below 8");
    }
    if dlt != PPI_DLT_80211 {
        return malformed(4, "PPI data link type is not 802.11 (105)");
    }
    let h = data.get(..len).ok_or(RadiotapError::Cut)?;
    let mut out = CaptureHeader {
        phy: Radiotap::default(),
        len,
        fcs: false,
        bad_fcs: false,
    };
    let mut at = 8;
    while at < len {
        let Some(f) = h.get(at..at + 4) else {
            return malformed(at, "a PPI field header runs past the PPI header");
        };
        let ftype = u16::from_le_bytes([f[0], f[1]]);
        let flen = usize::from(u16::from_le_bytes([f[2], f[3]]));
        let Some(v) = h.get(at + 4..at + 4 + flen) else {
            return malformed(at, "a PPI field runs past the PPI header");
        };
        if ftype == PPI_80211_COMMON {
            if flen < 20 {
                return malformed(at, "PPI 802.11-common field shorter than 20 bytes");
            }
            let flags = u16::from_le_bytes([v[8], v[9]]);
            let rate = u16::from_le_bytes([v[10], v[11]]);
            let freq = u16::from_le_bytes([v[12], v[13]]);
            out.phy.tsft = Some(u64::from_le_bytes(v[..8].try_into().expect("8 bytes")));
            out.phy.rate_500k = (rate != 0).then(|| u8::try_from(rate).unwrap_or(u8::MAX));
            out.phy.channel = (freq != 0).then(|| (freq, u16::from_le_bytes([v[14], v[15]])));
            out.phy.antenna_signal_dbm = (v[18] != 0).then_some(v[18] as i8);
            out.fcs = flags & 0x0001 != 0;
            out.bad_fcs = flags & 0x0004 != 0;
            let mut rf = 0;
            if out.fcs {
                rf |= RtFlags::FCS;
            }
            if out.bad_fcs {
                rf |= RtFlags::BAD_FCS;
            }
            out.phy.flags = Some(RtFlags(rf));
        }
        at += 4 + flen;
    }
    Ok(out)
}

/// AVS capture header v1/v2: 64 bytes (v2: 72), big-endian.
fn avs(data: &[u8]) -> Result<CaptureHeader, RadiotapError> {
    let h = data.get(..8).ok_or(RadiotapError::Cut)?;
    let magic = u32::from_be_bytes([h[0], h[1], h[2], h[3]]);
    if magic & 0xffff_fff0 != 0x8021_1000 {
        return malformed(0, "AVS magic/version is not 0x8021100x");
    }
    let len = u32::from_be_bytes([h[4], h[5], h[6], h[7]]) as usize;
    if len < 64 {
        return malformed(4, "AVS header length below 64");
    }
    let h = data.get(..len).ok_or(RadiotapError::Cut)?;
    let be32 = |at: usize| u32::from_be_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
    let mut phy = Radiotap {
        tsft: Some(u64::from_be_bytes(h[8..16].try_into().expect("8 bytes"))),
        ..Radiotap::default()
    };
    let channel = be32(28);
    // AVS gives the channel number; radiotap the frequency.
    phy.channel = match channel {
        1..=13 => Some((2407 + 5 * channel as u16, 0)),
        14 => Some((2484, 0)),
        15..=196 => Some((5000 + 5 * channel as u16, 0)),
        _ => None,
    };
    let rate_100k = be32(32);
    phy.rate_500k = (rate_100k != 0).then(|| u8::try_from(rate_100k / 5).unwrap_or(u8::MAX));
    // ssi_type 2: the signal is in dBm.
    if be32(44) == 2 {
        phy.antenna_signal_dbm = i8::try_from(be32(48) as i32).ok();
    }
    Ok(CaptureHeader {
        phy,
        len,
        fcs: false,
        bad_fcs: false,
    })
}
