//! The 802.11 MAC header (IEEE 802.11-2020 §9.2–9.3): frame control, duration, addresses,
//! sequence control, QoS and HT control, parsed without allocating.

/// The frame's type and subtype, named where the trace analyzer cares (§9.2.4.1.3, Table 9-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// Association request (management 0).
    AssocRequest,
    /// Association response (management 1).
    AssocResponse,
    /// Reassociation request (management 2).
    ReassocRequest,
    /// Reassociation response (management 3).
    ReassocResponse,
    /// Probe request (management 4).
    ProbeRequest,
    /// Probe response (management 5).
    ProbeResponse,
    /// Beacon (management 8).
    Beacon,
    /// ATIM (management 9).
    Atim,
    /// Disassociation (management 10).
    Disassoc,
    /// Authentication (management 11).
    Auth,
    /// Deauthentication (management 12).
    Deauth,
    /// Action (management 13).
    Action,
    /// Action No Ack (management 14).
    ActionNoAck,
    /// Another management subtype.
    OtherManagement(u8),
    /// HE Trigger (control 2).
    Trigger,
    /// VHT/HE NDP Announcement (control 5).
    NdpAnnouncement,
    /// Block Ack Request (control 8).
    BlockAckReq,
    /// Block Ack (control 9).
    BlockAck,
    /// PS-Poll (control 10).
    PsPoll,
    /// RTS (control 11).
    Rts,
    /// CTS (control 12).
    Cts,
    /// ACK (control 13).
    Ack,
    /// CF-End (control 14).
    CfEnd,
    /// Another control subtype.
    OtherControl(u8),
    /// Data (data 0).
    Data,
    /// Null, no data (data 4): carries the PM bit.
    Null,
    /// QoS Data (data 8).
    QosData,
    /// QoS Null (data 12).
    QosNull,
    /// Another data subtype (the CF-Poll/CF-Ack variants).
    OtherData(u8),
    /// Extension frame (type 3: DMG or S1G beacon).
    Extension(u8),
}

impl FrameKind {
    fn from(ftype: u8, subtype: u8) -> FrameKind {
        use FrameKind::*;
        match (ftype, subtype) {
            (0, 0) => AssocRequest,
            (0, 1) => AssocResponse,
            (0, 2) => ReassocRequest,
            (0, 3) => ReassocResponse,
            (0, 4) => ProbeRequest,
            (0, 5) => ProbeResponse,
            (0, 8) => Beacon,
            (0, 9) => Atim,
            (0, 10) => Disassoc,
            (0, 11) => Auth,
            (0, 12) => Deauth,
            (0, 13) => Action,
            (0, 14) => ActionNoAck,
            (0, s) => OtherManagement(s),
            (1, 2) => Trigger,
            (1, 5) => NdpAnnouncement,
            (1, 8) => BlockAckReq,
            (1, 9) => BlockAck,
            (1, 10) => PsPoll,
            (1, 11) => Rts,
            (1, 12) => Cts,
            (1, 13) => Ack,
            (1, 14) => CfEnd,
            (1, s) => OtherControl(s),
            (2, 0) => Data,
            (2, 4) => Null,
            (2, 8) => QosData,
            (2, 12) => QosNull,
            (2, s) => OtherData(s),
            (_, s) => Extension(s),
        }
    }
}

/// Why an 802.11 header cannot be parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacError {
    /// The captured bytes end inside the header.
    Cut,
    /// The protocol version is not 0 (a corrupt frame the radio passed on).
    Version,
}

/// A parsed 802.11 MAC header. Addresses absent from a frame's format are `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacHeader {
    /// Frame control as read (little-endian u16: version, type, subtype, then the flag byte).
    pub fc: u16,
    /// Duration/ID field (µs, or a PS-Poll's AID with the top two bits set).
    pub duration: u16,
    /// Address 1: the receiver.
    pub addr1: [u8; 6],
    /// Address 2: the transmitter (absent in ACK and CTS).
    pub addr2: Option<[u8; 6]>,
    /// Address 3 (management and data frames).
    pub addr3: Option<[u8; 6]>,
    /// Address 4 (data frames with both To DS and From DS).
    pub addr4: Option<[u8; 6]>,
    /// Sequence control: fragment number (low 4 bits) and sequence number.
    pub seq_ctrl: Option<u16>,
    /// QoS control (QoS data subtypes).
    pub qos: Option<u16>,
    /// HT control (+HTC: the Order bit on a QoS data or management frame).
    pub ht_control: Option<u32>,
    /// Header length in bytes.
    pub len: u8,
}

impl MacHeader {
    /// Frame type: 0 management, 1 control, 2 data, 3 extension.
    pub fn frame_type(&self) -> u8 {
        ((self.fc >> 2) & 0x3) as u8
    }

    /// Frame subtype (0–15).
    pub fn subtype(&self) -> u8 {
        ((self.fc >> 4) & 0xf) as u8
    }

    /// Wireshark's `wlan.fc.type_subtype`: type × 16 + subtype.
    pub fn type_subtype(&self) -> u8 {
        self.frame_type() * 16 + self.subtype()
    }

    /// The named type/subtype.
    pub fn kind(&self) -> FrameKind {
        FrameKind::from(self.frame_type(), self.subtype())
    }

    fn flag(&self, bit: u16) -> bool {
        self.fc & (bit << 8) != 0
    }

    /// To DS.
    pub fn to_ds(&self) -> bool {
        self.flag(0x01)
    }

    /// From DS.
    pub fn from_ds(&self) -> bool {
        self.flag(0x02)
    }

    /// More Fragments.
    pub fn more_fragments(&self) -> bool {
        self.flag(0x04)
    }

    /// Retry: a retransmission.
    pub fn retry(&self) -> bool {
        self.flag(0x08)
    }

    /// Power Management: the transmitter will doze after this frame exchange.
    pub fn power_mgmt(&self) -> bool {
        self.flag(0x10)
    }

    /// More Data: the AP has more buffered frames for the receiver.
    pub fn more_data(&self) -> bool {
        self.flag(0x20)
    }

    /// Protected: the body is encrypted (opaque; its length is still known).
    pub fn protected(&self) -> bool {
        self.flag(0x40)
    }

    /// Order / +HTC.
    pub fn order(&self) -> bool {
        self.flag(0x80)
    }

    /// The receiver (address 1).
    pub fn receiver(&self) -> [u8; 6] {
        self.addr1
    }

    /// The transmitter (address 2), absent in ACK and CTS.
    pub fn transmitter(&self) -> Option<[u8; 6]> {
        self.addr2
    }

    /// QoS TID (0–15).
    pub fn tid(&self) -> Option<u8> {
        self.qos.map(|q| (q & 0x0f) as u8)
    }

    /// The QoS control's A-MSDU Present bit: the body is an A-MSDU.
    pub fn amsdu(&self) -> bool {
        self.qos.is_some_and(|q| q & 0x0080 != 0)
    }

    /// The QoS control's EOSP bit (end of a U-APSD service period).
    pub fn eosp(&self) -> bool {
        self.qos.is_some_and(|q| q & 0x0010 != 0)
    }

    /// Sequence number (0–4095).
    pub fn seq(&self) -> Option<u16> {
        self.seq_ctrl.map(|s| s >> 4)
    }

    /// A data subtype that carries no payload (Null, QoS Null, CF-Ack/Poll without data).
    pub fn is_null(&self) -> bool {
        self.frame_type() == 2 && self.subtype() & 0x4 != 0
    }
}

fn addr(b: &[u8], at: usize) -> [u8; 6] {
    let mut a = [0; 6];
    a.copy_from_slice(&b[at..at + 6]);
    a
}

/// Parse the MAC header at the start of `frame` (the 802.11 frame, FCS excluded).
pub fn parse(frame: &[u8]) -> Result<MacHeader, MacError> {
    if frame.len() < 10 {
        return Err(MacError::Cut);
    }
    let fc = u16::from_le_bytes([frame[0], frame[1]]);
    if fc & 0x3 != 0 {
        return Err(MacError::Version);
    }
    let mut h = MacHeader {
        fc,
        duration: u16::from_le_bytes([frame[2], frame[3]]),
        addr1: addr(frame, 4),
        addr2: None,
        addr3: None,
        addr4: None,
        seq_ctrl: None,
        qos: None,
        ht_control: None,
        len: 10,
    };
    let need = |n: usize| if frame.len() < n { Err(MacError::Cut) } else { Ok(()) };
    match h.frame_type() {
        1 => {
            // ACK and CTS carry only the receiver; the control frames the model and captures
            // hold otherwise (RTS, PS-Poll, BAR, BA, CF-End, Trigger, NDPA, BFRP) a transmitter.
            // A control wrapper (7) is not unwrapped.
            if !matches!(h.subtype(), 12 | 13 | 7) {
                need(16)?;
                h.addr2 = Some(addr(frame, 10));
                h.len = 16;
            }
        }
        0 | 2 => {
            need(24)?;
            h.addr2 = Some(addr(frame, 10));
            h.addr3 = Some(addr(frame, 16));
            h.seq_ctrl = Some(u16::from_le_bytes([frame[22], frame[23]]));
            let mut len = 24;
            if h.frame_type() == 2 && h.to_ds() && h.from_ds() {
                need(len + 6)?;
                h.addr4 = Some(addr(frame, len));
                len += 6;
            }
            let qos = h.frame_type() == 2 && h.subtype() & 0x8 != 0;
            if qos {
                need(len + 2)?;
                h.qos = Some(u16::from_le_bytes([frame[len], frame[len + 1]]));
                len += 2;
            }
            // +HTC: the Order bit means an HT control field on QoS data and management frames.
            if h.order() && (qos || h.frame_type() == 0) {
                need(len + 4)?;
                let b = &frame[len..len + 4];
                h.ht_control = Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                len += 4;
            }
            h.len = len as u8;
        }
        _ => {} // extension frames: only the frame control and the first address are common
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_data_to_ds_with_pm_and_retry() {
        // QoS data (0x88), flags To DS | Retry | PM = 0x19.
        let mut f = vec![0x88, 0x19, 0x2c, 0x00];
        f.extend_from_slice(&[1; 6]);
        f.extend_from_slice(&[2; 6]);
        f.extend_from_slice(&[3; 6]);
        f.extend_from_slice(&[0x30, 0x01]); // seq 19, frag 0
        f.extend_from_slice(&[0x85, 0x00]); // TID 5, A-MSDU present
        let h = parse(&f).unwrap();
        assert_eq!(h.kind(), FrameKind::QosData);
        assert_eq!(h.type_subtype(), 0x28);
        assert!(h.to_ds() && !h.from_ds() && h.retry() && h.power_mgmt() && !h.protected());
        assert_eq!(h.tid(), Some(5));
        assert!(h.amsdu());
        assert_eq!(h.seq(), Some(19));
        assert_eq!(h.len, 26);
        assert_eq!(h.transmitter(), Some([2; 6]));
        assert_eq!(parse(&f[..25]), Err(MacError::Cut));
    }

    #[test]
    fn ack_has_only_a_receiver_and_version_must_be_zero() {
        let mut f = vec![0xd4, 0x00, 0, 0];
        f.extend_from_slice(&[7; 6]);
        let h = parse(&f).unwrap();
        assert_eq!((h.kind(), h.len, h.addr2), (FrameKind::Ack, 10, None));
        f[0] |= 1;
        assert_eq!(parse(&f), Err(MacError::Version));
    }
}
