//! 802.11 captures: the PHY header in front of each frame (radiotap, PPI, AVS, or none), the
//! MAC header, and the parts of the body the analyzer reads (IP in LLC/SNAP, A-MSDU
//! subframes, a beacon's TIM, an association's AID, action frames), all without allocating.
//!
//! Written here rather than taken from a crate (see docs/trace.md): `radiotap` 1.3 has no HE
//! field and allocates per frame; `ieee80211` 0.5 knows only RTS/CTS/ACK among control frames
//! and no ADDBA or TWT action; `libwifi` allocates per frame.

pub mod btwt;
pub mod elements;
pub mod mac;
pub mod phy_header;
pub mod radiotap;

pub use elements::{Action, Elements, Tim};
pub use mac::{FrameKind, MacError, MacHeader};
pub use radiotap::{AmpduStatus, He, HtMcs, Radiotap, RadiotapError, RtFlags, Vht};

/// The FCS (CRC-32) ending every MPDU on the air.
pub const FCS_LEN: usize = 4;

/// One 802.11 frame of a monitor-mode capture, borrowed from the reader's buffer until the
/// next call: PHY fields, MAC header, and the captured bytes behind them.
#[derive(Clone, Copy, Debug)]
pub struct WlanFrame<'a> {
    /// 0-based record index in file order.
    pub index: u64,
    /// Byte offset of its record or block.
    pub offset: u64,
    /// Capture time, ns since the Unix epoch.
    pub ts_ns: u64,
    /// pcapng interface id (0 for pcap).
    pub interface: u32,
    /// The PHY fields its capture header records (all `None` for plain 802.11, link type 105).
    pub phy: Radiotap,
    /// The MAC header.
    pub mac: MacHeader,
    /// The MPDU's length on the air, FCS included: the record's original length less the
    /// capture header (plus 4 when the capture dropped the FCS).
    pub mpdu_len: u32,
    /// The captured 802.11 bytes (FCS excluded; shorter than the MPDU if the snaplen cut it).
    pub bytes: &'a [u8],
    /// Where the body starts in `bytes` (after the header and any radiotap data padding).
    pub body_at: usize,
}

impl<'a> WlanFrame<'a> {
    /// The captured body (may be cut by the snaplen; encrypted if the Protected bit is set).
    pub fn body(&self) -> &'a [u8] {
        self.bytes.get(self.body_at..).unwrap_or(&[])
    }

    /// The information elements of a management frame (after its fixed fields), if it has
    /// any the parser knows how to find.
    pub fn elements(&self) -> Option<Elements<'a>> {
        let fixed = match self.mac.kind() {
            FrameKind::Beacon | FrameKind::ProbeResponse => 12,
            FrameKind::AssocRequest => 4,
            FrameKind::ReassocRequest => 10,
            FrameKind::AssocResponse | FrameKind::ReassocResponse => 6,
            FrameKind::ProbeRequest => 0,
            _ => return None,
        };
        self.body().get(fixed..).map(Elements::new)
    }

    /// A beacon's (or probe response's) TIM element.
    pub fn tim(&self) -> Option<Tim<'a>> {
        self.elements()?.find_map(|(id, v)| (id == 5).then(|| Tim::parse(v)).flatten())
    }

    /// The AID an (re)association response gives, if it succeeded.
    pub fn assoc_aid(&self) -> Option<u16> {
        if !matches!(self.mac.kind(), FrameKind::AssocResponse | FrameKind::ReassocResponse) {
            return None;
        }
        let b = self.body().get(..6)?;
        let status = u16::from_le_bytes([b[2], b[3]]);
        (status == 0).then(|| u16::from_le_bytes([b[4], b[5]]) & 0x3fff)
    }

    /// An action frame's category and action (unprotected ones only).
    pub fn action(&self) -> Option<Action> {
        let named = matches!(self.mac.kind(), FrameKind::Action | FrameKind::ActionNoAck);
        let b = self.body();
        (named && !self.mac.protected() && b.len() >= 2).then(|| Action::from(b[0], b[1]))
    }
}

/// Where an unprotected data frame's payload is, after the LLC/SNAP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// No payload (null frames, or not a data frame).
    None,
    /// Encrypted: opaque bytes of known length.
    Protected,
    /// One MSDU: its EtherType and where its bytes start in the frame.
    Msdu {
        /// The SNAP EtherType (0x0800 IPv4, 0x86dd IPv6, 0x888e EAPOL, ...).
        ether_type: u16,
        /// Offset of the MSDU's payload (the IP header) in the frame.
        at: usize,
    },
    /// An A-MSDU: its subframes start at `at`.
    Amsdu {
        /// Offset of the first subframe header in the frame.
        at: usize,
    },
    /// The body is not LLC/SNAP (or is cut inside it).
    Unknown,
}

/// The payload of a data frame whose body starts at `body_at` of `frame`.
pub fn payload(mac: &MacHeader, frame: &[u8], body_at: usize) -> Payload {
    if mac.frame_type() != 2 || mac.is_null() {
        return Payload::None;
    }
    if mac.protected() {
        return Payload::Protected;
    }
    if mac.amsdu() {
        return Payload::Amsdu { at: body_at };
    }
    match snap(frame.get(body_at..).unwrap_or(&[])) {
        Some(ether_type) => Payload::Msdu {
            ether_type,
            at: body_at + 8,
        },
        None => Payload::Unknown,
    }
}

/// The EtherType of an LLC/SNAP header (AA AA 03, OUI 00-00-00 or 00-00-F8), if `b` starts
/// with one.
pub fn snap(b: &[u8]) -> Option<u16> {
    let h = b.get(..8)?;
    let rfc1042 = h[..6] == [0xaa, 0xaa, 0x03, 0, 0, 0] || h[..6] == [0xaa, 0xaa, 0x03, 0, 0, 0xf8];
    rfc1042.then(|| u16::from_be_bytes([h[6], h[7]]))
}

/// One A-MSDU subframe (§9.3.2.2.2): its MSDU's EtherType (if LLC/SNAP) and byte range in the
/// frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subframe {
    /// The SNAP EtherType, `None` if the MSDU is not LLC/SNAP.
    pub ether_type: Option<u16>,
    /// Offset of the MSDU payload after its LLC/SNAP header.
    pub at: usize,
    /// End of the MSDU in the frame.
    pub end: usize,
    /// Offset of the next subframe (after padding to 4 bytes).
    pub next: usize,
}

/// The A-MSDU subframe at `at` of `frame`, or `None` when the frame ends (or is cut) before it.
pub fn subframe(frame: &[u8], at: usize) -> Option<Subframe> {
    let h = frame.get(at..at + 14)?;
    let len = usize::from(u16::from_be_bytes([h[12], h[13]]));
    let start = at + 14;
    let end = start + len;
    if end > frame.len() {
        return None;
    }
    let msdu = &frame[start..end];
    Some(Subframe {
        ether_type: snap(msdu),
        at: start + 8,
        end,
        next: at + (14 + len).div_ceil(4) * 4,
    })
}

/// Why an 802.11 record yields no frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// A per-frame problem: counted, reading goes on.
    Skip(crate::SkipReason),
    /// A corrupt capture header (radiotap, PPI, AVS): an error at byte `at` of the header.
    Corrupt {
        /// Offset in the capture header.
        at: usize,
        /// What is wrong.
        what: &'static str,
    },
}

/// What [`parse_record`] finds in one record, with the frame as a byte range of the record's
/// data (so the reader can hand out a borrowed [`WlanFrame`] afterwards).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Parsed {
    pub phy: Radiotap,
    pub mac: MacHeader,
    pub mpdu_len: u32,
    /// The 802.11 frame (FCS excluded) is `data[start..end]`.
    pub start: usize,
    pub end: usize,
    /// Body offset within the frame.
    pub body_at: usize,
}

/// Parse one record's capture header and MAC header. A bad FCS, a cut or a malformed MAC
/// header is a skip; a corrupt capture header is [`Problem::Corrupt`].
pub(crate) fn parse_record(kind: phy_header::WlanHeader, data: &[u8], orig_len: u32) -> Result<Parsed, Problem> {
    use crate::SkipReason;
    let hdr = match phy_header::parse(kind, data) {
        Ok(h) => h,
        Err(RadiotapError::Cut) => return Err(Problem::Skip(SkipReason::HeaderCut)),
        Err(RadiotapError::Malformed { at, what }) => return Err(Problem::Corrupt { at, what }),
    };
    if hdr.bad_fcs {
        return Err(Problem::Skip(SkipReason::BadFcs));
    }
    // The FCS is the last 4 bytes only if the record holds the whole frame.
    let whole = data.len() >= orig_len as usize;
    let end = if hdr.fcs && whole { data.len().saturating_sub(FCS_LEN) } else { data.len() };
    let start = hdr.len.min(end);
    let frame = &data[start..end];
    let mac = mac::parse(frame).map_err(|e| {
        Problem::Skip(match e {
            MacError::Cut => SkipReason::HeaderCut,
            MacError::Version => SkipReason::MalformedWlan,
        })
    })?;
    let mut body_at = usize::from(mac.len);
    if hdr.phy.data_pad() {
        body_at = body_at.div_ceil(4) * 4;
    }
    let on_air = orig_len.saturating_sub(hdr.len as u32);
    // orig_len is the capture's claim, up to u32::MAX: never overflow on it.
    let mpdu_len = if hdr.fcs { on_air } else { on_air.saturating_add(FCS_LEN as u32) };
    Ok(Parsed {
        phy: hdr.phy,
        mac,
        mpdu_len,
        start,
        end,
        body_at,
    })
}
