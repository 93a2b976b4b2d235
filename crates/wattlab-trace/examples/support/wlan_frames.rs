//! What the 802.11 benchmarks share: radiotap headers and MAC headers of the frames they write.
#![allow(dead_code)]

/// How a frame's PPDU was sent, as its radiotap header says.
#[derive(Clone, Copy)]
pub enum RtPhy {
    /// No rate field (the reader falls back to `--phy`).
    None,
    /// Non-HT, Rate field in 500 kb/s units.
    Rate(u8),
    /// HT MCS index, in the A-MPDU with this reference number.
    Mcs(u8, u32),
}

/// A radiotap header: TSFT, flags (FCS at the end), channel 5180 MHz, signal, and the PHY
/// field `phy` asks for (Rate; or HT MCS with A-MPDU status).
pub fn radiotap(tsft: u64, phy: RtPhy) -> Vec<u8> {
    let mut present = 0b10_1011u32; // TSFT, flags, channel, antenna signal
    let mut v = vec![0u8, 0, 0, 0, 0, 0, 0, 0];
    v.extend_from_slice(&tsft.to_le_bytes());
    v.push(0x10);
    if let RtPhy::Rate(r) = phy {
        present |= 1 << 2;
        v.push(r);
    } else {
        v.push(0); // pad to 2
    }
    v.extend_from_slice(&5180u16.to_le_bytes());
    v.extend_from_slice(&0x0140u16.to_le_bytes());
    v.push((-48i8) as u8);
    if let RtPhy::Mcs(index, reference) = phy {
        present |= 1 << 19 | 1 << 20;
        v.extend_from_slice(&[0x07, 0x00, index]);
        v.resize(v.len().div_ceil(4) * 4, 0);
        v.extend_from_slice(&reference.to_le_bytes());
        v.extend_from_slice(&[0x04, 0, 0, 0]);
    }
    let len = v.len() as u16;
    v[2..4].copy_from_slice(&len.to_le_bytes());
    v[4..8].copy_from_slice(&present.to_le_bytes());
    v
}

/// Address `02:00:00:00:00:a`.
pub fn mac(a: u8) -> [u8; 6] {
    [2, 0, 0, 0, 0, a]
}

/// A three-address MAC header (frame control `fc`, addresses 1-2 and BSSID `02:..:01`, sequence
/// control 0x0010), with a QoS Control field if `qos`.
pub fn mac_header(fc: [u8; 2], a1: [u8; 6], a2: [u8; 6], qos: bool) -> Vec<u8> {
    let mut v = fc.to_vec();
    v.extend_from_slice(&[0x2c, 0]);
    for a in [a1, a2, mac(1)] {
        v.extend_from_slice(&a);
    }
    v.extend_from_slice(&[0x10, 0]);
    if qos {
        v.extend_from_slice(&[0, 0]);
    }
    v
}

/// The body of a QoS data frame from the AP: LLC/SNAP, IPv4 from 93.184.216.34 to
/// 192.168.1.20, TCP 443 → 51000 with sequence number `seq` and `len` bytes of payload.
pub fn ipv4_tcp_down(frame: &mut Vec<u8>, seq: u32, len: usize) {
    frame.extend_from_slice(&[0xaa, 0xaa, 3, 0, 0, 0, 0x08, 0x00]);
    let total = (40 + len) as u16;
    frame.extend_from_slice(&[0x45, 0]);
    frame.extend_from_slice(&total.to_be_bytes());
    frame.extend_from_slice(&[0, 0, 0x40, 0, 64, 6, 0, 0, 93, 184, 216, 34, 192, 168, 1, 20]);
    frame.extend_from_slice(&443u16.to_be_bytes());
    frame.extend_from_slice(&51000u16.to_be_bytes());
    frame.extend_from_slice(&seq.to_be_bytes());
    frame.extend_from_slice(&[0, 0, 0, 1, 0x50, 0x10, 0x01, 0xf6, 0, 0, 0, 0]);
    frame.resize(frame.len() + len, 0);
}

/// A little-endian microsecond pcap with link type 127 (radiotap) being written.
pub struct RadiotapPcap {
    w: std::io::BufWriter<std::fs::File>,
}

impl RadiotapPcap {
    /// Creates `path` and writes the file header.
    pub fn create(path: &std::path::Path) -> RadiotapPcap {
        use std::io::Write;
        let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
        let mut hdr = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0];
        hdr.extend_from_slice(&[0; 8]);
        hdr.extend_from_slice(&262_144u32.to_le_bytes());
        hdr.extend_from_slice(&127u32.to_le_bytes());
        w.write_all(&hdr).unwrap();
        RadiotapPcap { w }
    }

    /// Appends a record stamped `t_us` (µs since the epoch).
    pub fn record(&mut self, t_us: u64, frame: &[u8]) {
        use std::io::Write;
        self.w.write_all(&((t_us / 1_000_000) as u32).to_le_bytes()).unwrap();
        self.w.write_all(&((t_us % 1_000_000) as u32).to_le_bytes()).unwrap();
        self.w.write_all(&(frame.len() as u32).to_le_bytes()).unwrap();
        self.w.write_all(&(frame.len() as u32).to_le_bytes()).unwrap();
        self.w.write_all(frame).unwrap();
    }
}
