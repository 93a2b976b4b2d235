//! 802.11 frames with a radiotap header: what a monitor on a simulated BSS's channel records
//! ([`crate::wlan::AirFrame`] → bytes of a `LINKTYPE_IEEE802_11_RADIOTAP` record).
//!
//! Each record is stamped at its PPDU's end, as a monitor's host stamps a frame it received
//! (`sim/wlan_glue.rs`), so `wattlab trace energy --policy observed` reads the simulator's
//! captures and a host's alike with its default `stamp=end`.
//!
//! Radiotap fields (<https://www.radiotap.org>): TSFT (the BSS's TSF at the PPDU's first bit,
//! µs since the run's start; mac80211 puts the MPDU's first bit there, one PHY preamble and
//! header later: 20 µs for OFDM, more for HT/VHT/HE, see `docs/trace.md`), Flags (bad FCS for a frame its addressee did not receive), Rate (non-HT), Channel
//! (nominal: 2412, 5180 or 5955 MHz by band; the model has no channel number), MCS (HT), A-MPDU
//! status (one reference number per A-MPDU, the last MPDU flagged), VHT and HE (MCS, NSS,
//! width, GI, coding; PPDU format HE SU, or HE TB for a station's answer to a Basic Trigger). No FCS is written (the Flags' FCS bit is clear).
//!
//! The 802.11 frames (IEEE 802.11-2020 §9.3, 802.11ax-2021 for the Trigger and TWT Setup) are
//! as long as the model charges them, less the 4-byte FCS, so a reader that adds the FCS back
//! gets the model's MPDU length: data frames carry LLC/SNAP and the IPv4 packet
//! ([`wattlab_core::wire`]), A-MSDUs their subframes; Null frames are QoS-Null frames (the
//! model charges 30 bytes for every Null); the beacon carries the BSS's broadcast TWT
//! schedules (TWT elements, §9.4.2.199) and is padded to `beacon_bytes` with its SSID and a
//! vendor-specific element. Duration fields are 0 (the model keeps no NAV).

use super::{AirFrame, AirKind, StaId, AP, BROADCAST};
use crate::net::pcap::PcapSink;
use wattlab_core::packet::PacketArena;
use wattlab_core::power::modes::{twt_wake_duration_units, TWT_DURATION_UNIT_TU_US, TWT_DURATION_UNIT_US};
use wattlab_core::power::TwtAgreement;
use wattlab_core::wire::{self, WireError};
use wattlab_core::wlan::phy::{he, Band};
use wattlab_core::wlan::TxVector;

/// A radiotap capture of a BSS: its file, sink and the frames' context.
pub struct AirCapture {
    /// Path written.
    pub path: String,
    /// The pcap sink (link type 127).
    pub sink: PcapSink,
    /// Addresses and beacon fields of the BSS.
    pub cx: AirContext,
    /// Every frame written, as the MAC logged it (tests compare the file with it).
    #[cfg(test)]
    pub logged: Vec<AirFrame>,
}

/// What the frames of one BSS need beyond their records: addresses, band and beacon fields.
#[derive(Clone, Debug)]
pub struct AirContext {
    /// MAC address of each station (index = station id; the AP's is the BSSID).
    pub macs: Vec<[u8; 6]>,
    /// The band (the Channel field).
    pub band: Band,
    /// Beacon interval, TU (1024 µs).
    pub beacon_interval_tu: u16,
    /// SSID (the BSS's name, cut to 32 bytes).
    pub ssid: Vec<u8>,
    /// Basic rates, kb/s (the beacon's Supported Rates).
    pub basic_rates_kbps: Vec<u32>,
    /// Block Ack window (64 or 256; the ADDBA buffer size).
    pub ba_window: u16,
    /// The AP's broadcast TWT schedules by ascending Broadcast TWT ID (its beacons' TWT
    /// element).
    pub broadcast_twt: Vec<TwtAgreement>,
}

/// LLC/SNAP header of an IPv4 MSDU.
const LLC_SNAP_IPV4: [u8; 8] = [0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00];

/// Radiotap `present` bits written.
const TSFT: u32 = 1 << 0;
const FLAGS: u32 = 1 << 1;
const RATE: u32 = 1 << 2;
const CHANNEL: u32 = 1 << 3;
const MCS: u32 = 1 << 19;
const AMPDU: u32 = 1 << 20;
const VHT: u32 = 1 << 21;
const HE: u32 = 1 << 23;

/// Radiotap Flags: the frame failed its FCS check.
const BAD_FCS: u8 = 0x40;

impl AirContext {
    fn mac(&self, sta: StaId) -> [u8; 6] {
        if sta == BROADCAST {
            [0xff; 6]
        } else {
            self.macs[sta as usize]
        }
    }

    fn bssid(&self) -> [u8; 6] {
        self.macs[AP as usize]
    }
}

/// Appends `f` as radiotap + 802.11 bytes to `buf`; its MSDUs are read from `arena` when they
/// encapsulate others (a tunnel's).
pub fn encode(f: &AirFrame, cx: &AirContext, arena: &PacketArena, buf: &mut Vec<u8>) -> Result<(), WireError> {
    radiotap(f, cx, buf);
    match f.kind {
        AirKind::Data | AirKind::Null => data(f, cx, arena, buf)?,
        AirKind::Ack | AirKind::Cts => {
            control_header(buf, if f.kind == AirKind::Ack { 13 } else { 12 }, 0, 0);
            buf.extend_from_slice(&cx.mac(f.to));
        }
        AirKind::Rts => {
            control_header(buf, 11, 0, 0);
            buf.extend_from_slice(&cx.mac(f.to));
            buf.extend_from_slice(&cx.mac(f.from));
        }
        AirKind::PsPoll => {
            control_header(buf, 10, pm_flags(f), 0xc000 | f.from);
            buf.extend_from_slice(&cx.bssid());
            buf.extend_from_slice(&cx.mac(f.from));
        }
        AirKind::BlockAck | AirKind::BlockAckReq => block_ack(f, cx, buf),
        AirKind::Trigger => trigger(f, cx, buf),
        AirKind::Beacon => beacon(f, cx, buf),
        AirKind::AddBaRequest | AirKind::AddBaResponse | AirKind::TwtSetup => action(f, cx, buf),
    }
    Ok(())
}

/// The radiotap header of `f`.
fn radiotap(f: &AirFrame, cx: &AirContext, buf: &mut Vec<u8>) {
    let base = buf.len();
    let mut present = TSFT | FLAGS | CHANNEL;
    present |= match f.tx {
        TxVector::Legacy { .. } => RATE,
        TxVector::Ht(_) => MCS,
        TxVector::Vht(_) => VHT,
        TxVector::He(_) => HE,
    };
    if f.ampdu.is_some() {
        present |= AMPDU;
    }
    buf.extend_from_slice(&[0, 0, 0, 0]);
    buf.extend_from_slice(&present.to_le_bytes());
    // Fields in bit order, each aligned to its natural size from the header's start.
    let align = |buf: &mut Vec<u8>, a: usize| {
        while (buf.len() - base) % a != 0 {
            buf.push(0);
        }
    };
    buf.extend_from_slice(&(f.start.as_nanos() / 1_000).to_le_bytes());
    buf.push(if f.lost { BAD_FCS } else { 0 });
    let (freq, cck) = match f.tx {
        TxVector::Legacy { kbps } => {
            buf.push((kbps / 500) as u8);
            (channel_mhz(cx.band), matches!(kbps, 1_000 | 2_000 | 5_500 | 11_000))
        }
        _ => (channel_mhz(cx.band), false),
    };
    align(buf, 2);
    let spectrum: u16 = if cx.band == Band::Ghz2_4 { 0x0080 } else { 0x0100 };
    let modulation: u16 = if cck { 0x0020 } else { 0x0040 };
    buf.extend_from_slice(&freq.to_le_bytes());
    buf.extend_from_slice(&(spectrum | modulation).to_le_bytes());
    if let TxVector::Ht(m) = f.tx {
        // Known: bandwidth, MCS index, GI, format, FEC; flags: 40 MHz, short GI (HT-mixed, BCC).
        let flags = u8::from(m.width_mhz == 40) | if m.gi_ns == 400 { 0x04 } else { 0 };
        buf.extend_from_slice(&[0x1f, flags, 8 * (m.nss - 1) + m.mcs]);
    }
    if let Some((reference, last)) = f.ampdu {
        align(buf, 4);
        buf.extend_from_slice(&reference.to_le_bytes());
        // Last-subframe known (0x0004), last (0x0008).
        let flags: u16 = 0x0004 | if last { 0x0008 } else { 0 };
        buf.extend_from_slice(&flags.to_le_bytes());
        buf.extend_from_slice(&[0, 0]);
    }
    if let TxVector::Vht(m) = f.tx {
        align(buf, 2);
        // Known: GI (0x0004), bandwidth (0x0040); user 0's MCS and NSS, BCC.
        buf.extend_from_slice(&0x0044u16.to_le_bytes());
        buf.push(if m.gi_ns == 400 { 0x04 } else { 0 });
        buf.push(match m.width_mhz {
            40 => 1,
            80 => 4,
            160 => 11,
            _ => 0,
        });
        buf.extend_from_slice(&[(m.mcs << 4) | m.nss, 0, 0, 0, 0, 0]);
        buf.extend_from_slice(&0u16.to_le_bytes());
    }
    if let TxVector::He(m) = f.tx {
        align(buf, 2);
        // data1: PPDU format (HE SU 0, HE TB 3 for a trigger's answer), data MCS known
        // (0x0020), coding known (0x0080), BW known (0x4000); data2: GI known (0x0002); data3:
        // MCS, LDPC (0x2000); data5: BW, GI (a TB PPDU's as the trigger asks it); data6: NSTS.
        let bw: u16 = match m.width_mhz {
            40 => 1,
            80 => 2,
            160 => 3,
            _ => 0,
        };
        let (format, gi_ns) = if f.tb { (3, he::tb_gi_ns(m.gi_ns)) } else { (0, m.gi_ns) };
        let gi: u16 = match gi_ns {
            1600 => 1,
            3200 => 2,
            _ => 0,
        };
        for d in [0x40a0u16 | format, 0x0002, (u16::from(m.mcs) << 8) | 0x2000, 0, bw | (gi << 4), u16::from(m.nss)] {
            buf.extend_from_slice(&d.to_le_bytes());
        }
    }
    let len = (buf.len() - base) as u16;
    buf[base + 2..base + 4].copy_from_slice(&len.to_le_bytes());
}

/// The nominal channel of `band`: 1 (2412 MHz), 36 (5180 MHz), 6 GHz channel 1 (5955 MHz).
fn channel_mhz(band: Band) -> u16 {
    match band {
        Band::Ghz2_4 => 2412,
        Band::Ghz5 => 5180,
        Band::Ghz6 => 5955,
    }
}

/// Frame Control flags of `f`: Retry, Power Management, More Data.
fn pm_flags(f: &AirFrame) -> u8 {
    (if f.retry { 0x08 } else { 0 }) | (if f.pm { 0x10 } else { 0 }) | (if f.more_data { 0x20 } else { 0 })
}

/// Frame Control (type 1 = control, `subtype`), and Duration/ID.
fn control_header(buf: &mut Vec<u8>, subtype: u8, flags: u8, duration: u16) {
    buf.extend_from_slice(&[(subtype << 4) | (1 << 2), flags]);
    buf.extend_from_slice(&duration.to_le_bytes());
}

/// A data or (QoS) Null frame: To DS from a station, From DS from the AP.
fn data(f: &AirFrame, cx: &AirContext, arena: &PacketArena, buf: &mut Vec<u8>) -> Result<(), WireError> {
    let subtype = match (f.kind, f.qos) {
        (AirKind::Null, _) => 12,
        (_, true) => 8,
        _ => 0,
    };
    let ds = if f.from == AP { 0x02 } else { 0x01 };
    buf.extend_from_slice(&[(subtype << 4) | (2 << 2), ds | pm_flags(f)]);
    buf.extend_from_slice(&0u16.to_le_bytes());
    let (sta, bssid) = (if f.from == AP { f.to } else { f.from }, cx.bssid());
    let (a1, a2) = if f.from == AP { (cx.mac(sta), bssid) } else { (bssid, cx.mac(sta)) };
    buf.extend_from_slice(&a1);
    buf.extend_from_slice(&a2);
    // The AP is the router beyond the station: destination (uplink), source (downlink).
    buf.extend_from_slice(&bssid);
    buf.extend_from_slice(&(f.seq << 4).to_le_bytes());
    let amsdu = f.msdus.len() > 1;
    if f.qos || f.kind == AirKind::Null {
        let qos: u16 = u16::from(f.tid) | if amsdu { 0x0080 } else { 0 };
        buf.extend_from_slice(&qos.to_le_bytes());
    }
    if !amsdu {
        if let Some(p) = f.msdus.first() {
            buf.extend_from_slice(&LLC_SNAP_IPV4);
            wire::encode_ipv4_in(p, arena, buf)?;
        }
        return Ok(());
    }
    let (da, sa) = if f.from == AP { (a1, bssid) } else { (bssid, a2) };
    let start = buf.len();
    for (k, p) in f.msdus.iter().enumerate() {
        if k > 0 {
            while (buf.len() - start) % 4 != 0 {
                buf.push(0);
            }
        }
        buf.extend_from_slice(&da);
        buf.extend_from_slice(&sa);
        let len = (LLC_SNAP_IPV4.len() as u32 + p.ip_len()) as u16;
        buf.extend_from_slice(&len.to_be_bytes());
        buf.extend_from_slice(&LLC_SNAP_IPV4);
        wire::encode_ipv4_in(p, arena, buf)?;
    }
    Ok(())
}

/// A compressed Block Ack or BlockAckReq (§9.3.1.7–8): its TID, starting sequence number and
/// (Block Ack) the bitmap of 64 or 256 bits the model charges for.
fn block_ack(f: &AirFrame, cx: &AirContext, buf: &mut Vec<u8>) {
    let bar = f.kind == AirKind::BlockAckReq;
    control_header(buf, if bar { 8 } else { 9 }, 0, 0);
    buf.extend_from_slice(&cx.mac(f.to));
    buf.extend_from_slice(&cx.mac(f.from));
    // BA/BAR Control: compressed variant (type 2, bits 1-4), TID in bits 12-15.
    let control: u16 = (2 << 1) | (u16::from(f.tid) << 12);
    buf.extend_from_slice(&control.to_le_bytes());
    // Frame length less header 16, control 2, SSC 2 and FCS 4: the bitmap's octets.
    let bitmap = if bar { 0 } else { f.mpdu_bytes.saturating_sub(24) as usize };
    // 802.11ax-2021 Table 9-28b: a 256-bit bitmap is announced in the fragment number (B2 set).
    let fragment: u16 = if bitmap == 32 { 0x4 } else { 0 };
    buf.extend_from_slice(&((f.seq << 4) | fragment).to_le_bytes());
    let mut bits = vec![0u8; bitmap];
    for &b in &f.bits {
        if let Some(o) = bits.get_mut(b as usize / 8) {
            *o |= 1 << (b % 8);
        }
    }
    buf.extend_from_slice(&bits);
}

/// A Basic Trigger frame for one station (802.11ax-2021 §9.3.1.22): Common Info (Basic
/// type, UL BW of the station's data PPDUs), one User Info (its AID, the whole-channel RU,
/// LDPC, its HE-MCS and streams), Basic's Trigger Dependent User Info.
fn trigger(f: &AirFrame, cx: &AirContext, buf: &mut Vec<u8>) {
    control_header(buf, 2, 0, 0);
    buf.extend_from_slice(&cx.mac(f.to));
    buf.extend_from_slice(&cx.mac(f.from));
    let (mcs, nss, bw) = match f.tx {
        TxVector::He(m) => (m.mcs, m.nss, m.width_mhz),
        _ => (0, 1, 20),
    };
    let (bw_code, ru): (u64, u64) = match bw {
        40 => (1, 65),
        80 => (2, 67),
        160 => (3, 68 << 1),
        _ => (0, 61),
    };
    // Common Info: Trigger Type 0 (Basic) in B0-B3, UL BW in B18-B19.
    let common: u64 = bw_code << 18;
    buf.extend_from_slice(&common.to_le_bytes());
    // User Info: AID12, RU allocation, UL FEC (LDPC), UL HE-MCS, SS allocation, target RSSI.
    let user: u64 = u64::from(f.to & 0x0fff)
        | (ru << 12)
        | (1 << 20)
        | (u64::from(mcs) << 21)
        | (u64::from(nss.saturating_sub(1)) << 29)
        | (127 << 32);
    buf.extend_from_slice(&user.to_le_bytes()[..5]);
    buf.push(0);
}

/// The beacon: timestamp, interval, capabilities, SSID, Supported Rates, DS Parameter Set
/// (2.4 GHz), TIM (DTIM period 1: the model buffers no group frames), padded to the model's
/// length with the SSID and a vendor-specific element.
fn beacon(f: &AirFrame, cx: &AirContext, buf: &mut Vec<u8>) {
    let start = buf.len();
    buf.extend_from_slice(&[0x80, 0]);
    buf.extend_from_slice(&0u16.to_le_bytes());
    buf.extend_from_slice(&[0xff; 6]);
    buf.extend_from_slice(&cx.bssid());
    buf.extend_from_slice(&cx.bssid());
    buf.extend_from_slice(&(f.seq << 4).to_le_bytes());
    buf.extend_from_slice(&(f.start.as_nanos() / 1_000).to_le_bytes());
    buf.extend_from_slice(&cx.beacon_interval_tu.to_le_bytes());
    buf.extend_from_slice(&0x0001u16.to_le_bytes()); // ESS
    let rates: Vec<u8> = cx.basic_rates_kbps.iter().take(8).map(|&k| 0x80 | (k / 500) as u8).collect();
    let ds: Vec<u8> = if cx.band == Band::Ghz2_4 { vec![3, 1, 1] } else { Vec::new() };
    let tim = tim_element(&f.bits);
    let twt = broadcast_twt_elements(&cx.broadcast_twt, f.start.as_nanos() / 1_000);
    let fixed = 24 + 12 + 2 + rates.len() + ds.len() + tim.len() + twt.len() + 2;
    let target = f.mpdu_bytes.saturating_sub(4) as usize;
    let room = target.saturating_sub(fixed);
    let mut ssid = room.min(32);
    // What is left goes in a vendor-specific element, which needs at least 5 bytes.
    if (1..5).contains(&(room - ssid)) {
        ssid = ssid.saturating_sub(5 - (room - ssid));
    }
    buf.extend_from_slice(&[0, ssid as u8]);
    buf.extend((0..ssid).map(|i| cx.ssid.get(i).copied().unwrap_or(b'_')));
    buf.extend_from_slice(&[1, rates.len() as u8]);
    buf.extend_from_slice(&rates);
    buf.extend_from_slice(&ds);
    buf.extend_from_slice(&tim);
    buf.extend_from_slice(&twt);
    let mut left = room - ssid;
    while left >= 5 {
        let n = (left - 2).min(255);
        // Element 221 with the IEEE's own OUI (00-00-00), filled with zeros: padding only.
        buf.extend_from_slice(&[221, n as u8]);
        buf.extend(std::iter::repeat_n(0u8, n));
        left -= n + 2;
    }
    debug_assert!(buf.len() - start <= target.max(fixed + ssid) + 4);
}

/// A TIM element with DTIM count 0 and period 1 and the partial virtual bitmap of `aids`.
fn tim_element(aids: &[u16]) -> Vec<u8> {
    let (lo, hi) = match (aids.iter().min(), aids.iter().max()) {
        (Some(&lo), Some(&hi)) => ((lo / 8) & !1, hi / 8),
        _ => (0, 0),
    };
    let mut bitmap = vec![0u8; usize::from(hi - lo + 1)];
    for &a in aids {
        bitmap[usize::from(a / 8 - lo)] |= 1 << (a % 8);
    }
    let mut e = vec![5, (3 + bitmap.len()) as u8, 0, 1, lo as u8];
    e.extend_from_slice(&bitmap);
    e
}

/// An action frame: ADDBA Request/Response (Block Ack category 3) or TWT Setup (Unprotected
/// S1G category 22, action 6) with an individual TWT element.
fn action(f: &AirFrame, cx: &AirContext, buf: &mut Vec<u8>) {
    buf.extend_from_slice(&[0xd0, pm_flags(f)]);
    buf.extend_from_slice(&0u16.to_le_bytes());
    buf.extend_from_slice(&cx.mac(f.to));
    buf.extend_from_slice(&cx.mac(f.from));
    buf.extend_from_slice(&cx.bssid());
    buf.extend_from_slice(&(f.seq << 4).to_le_bytes());
    let params: u16 = 0x0002 | (u16::from(f.tid) << 2) | (cx.ba_window << 6);
    match f.kind {
        AirKind::AddBaRequest => {
            buf.extend_from_slice(&[3, 0, 1]);
            buf.extend_from_slice(&params.to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes());
        }
        AirKind::AddBaResponse => {
            buf.extend_from_slice(&[3, 1, 1]);
            buf.extend_from_slice(&0u16.to_le_bytes());
            buf.extend_from_slice(&params.to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes());
        }
        _ => twt_setup(f, buf),
    }
}

/// TWT Setup (802.11ax-2021 §9.6.24.2 as the model sizes it): dialog token, then a TWT
/// element (ID 216) carrying the station's request or the AP's accept: an Individual TWT
/// Parameter Set (trigger, implicit, flow type, the SPs' start as the target wake time in TSF
/// µs, the wake duration and the interval), or for a member of a broadcast schedule a
/// Broadcast TWT Parameter Set naming its Broadcast TWT ID (negotiation type 3, "manage
/// membership", §9.4.2.199).
fn twt_setup(f: &AirFrame, buf: &mut Vec<u8>) {
    buf.extend_from_slice(&[22, 6, 1]);
    let a = f.twt.unwrap_or(TwtAgreement { interval_ms: 100, duration_us: 8192, announced: false, offset_us: 0, trigger: false, broadcast: None });
    let request = f.from != AP;
    let command: u16 = if request { SETUP_REQUEST } else { SETUP_ACCEPT };
    if a.broadcast.is_some() {
        let tu = needs_tu(&a);
        let control = NEGOTIATION_MEMBERSHIP << 2 | if tu { DURATION_UNIT_TU } else { 0 };
        buf.extend_from_slice(&[216, 1 + BROADCAST_SET_BYTES as u8, control]);
        broadcast_set(&a, request, command, true, tu, f.start.as_nanos() / 1_000, buf);
        return;
    }
    let (mantissa, exp) = wake_interval(&a);
    let req_type: u16 = u16::from(request)
        | (command << 1)
        | (u16::from(a.trigger) << 4)
        | (1 << 5)
        | (u16::from(!a.announced) << 6)
        | (exp << 10);
    let tu = needs_tu(&a);
    buf.extend_from_slice(&[216, 15, if tu { DURATION_UNIT_TU } else { 0 }]);
    buf.extend_from_slice(&req_type.to_le_bytes());
    buf.extend_from_slice(&u64::from(a.offset_us).to_le_bytes());
    buf.push(wake_duration(&a, tu));
    buf.extend_from_slice(&mantissa.to_le_bytes());
    buf.push(0);
}

/// TWT Setup Command values (802.11ax-2021 §9.4.2.199): Request TWT, Accept TWT.
const SETUP_REQUEST: u16 = 0;
const SETUP_ACCEPT: u16 = 4;
/// TWT element Negotiation Type (Control B2-B3): a broadcast schedule the AP announces
/// (beacons), and a station's membership of one (TWT Setup frames).
const NEGOTIATION_ANNOUNCE: u8 = 2;
const NEGOTIATION_MEMBERSHIP: u8 = 3;
/// Octets of one Broadcast TWT Parameter Set, as the model charges them.
const BROADCAST_SET_BYTES: usize = super::power::BROADCAST_TWT_PARAMETER_SET_BYTES as usize;
/// Broadcast TWT Persistence 255: the schedule holds until further notice (the model's never
/// ends).
const PERSISTENCE_INDEFINITE: u16 = 255;

/// The wake interval of `a` as TWT Wake Interval Mantissa and Exponent (µs = mantissa · 2^exp).
fn wake_interval(a: &TwtAgreement) -> (u16, u16) {
    let mut interval = u64::from(a.interval_ms) * 1000;
    let mut exp: u16 = 0;
    while interval > u64::from(u16::MAX) {
        interval = interval.div_ceil(2);
        exp += 1;
    }
    (interval as u16, exp)
}

/// The TWT element's Control bit Wake Duration Unit (B5): durations in TUs, not 256 µs.
const DURATION_UNIT_TU: u8 = 0x20;

/// True if `a`'s wake duration needs the Wake Duration Unit bit: it is longer than the
/// 256 µs unit's 255 × 256 = 65280 µs.
fn needs_tu(a: &TwtAgreement) -> bool {
    a.wake_duration_unit_us() == TWT_DURATION_UNIT_TU_US
}

/// Nominal Minimum TWT Wake Duration of `a` in 256 µs units (1 TU with `tu`): exact for the
/// BSS's agreements (already [`TwtAgreement::on_air`]); rounded up by the same rule where a
/// beacon's element puts a 256 µs schedule in TUs (the mode's names go up to 255 TU).
fn wake_duration(a: &TwtAgreement, tu: bool) -> u8 {
    twt_wake_duration_units(a.duration_us, if tu { TWT_DURATION_UNIT_TU_US } else { TWT_DURATION_UNIT_US }).min(255) as u8
}

/// The start of the first SP of `a` at or after `tsf_us` (SPs at the offset plus every
/// multiple of the interval from TSF 0).
fn next_sp_us(a: &TwtAgreement, tsf_us: u64) -> u64 {
    let (interval, offset) = (u64::from(a.interval_ms) * 1000, u64::from(a.offset_us));
    offset + tsf_us.saturating_sub(offset).div_ceil(interval) * interval
}

/// One Broadcast TWT Parameter Set (802.11ax-2021 §9.4.2.199): Request Type (TWT Request,
/// Setup Command, Trigger, Last Broadcast Parameter Set, Flow Type, exponent), Target Wake
/// Time (TSF bits 10-25 of the next SP from `tsf_us`), wake duration, mantissa, Broadcast
/// TWT Info (its ID in B3-B7, persistence in B8-B15).
fn broadcast_set(a: &TwtAgreement, request: bool, command: u16, last: bool, tu: bool, tsf_us: u64, buf: &mut Vec<u8>) {
    let (mantissa, exp) = wake_interval(a);
    let req_type: u16 = u16::from(request)
        | (command << 1)
        | (u16::from(a.trigger) << 4)
        | (u16::from(last) << 5)
        | (u16::from(!a.announced) << 6)
        | (exp << 10);
    buf.extend_from_slice(&req_type.to_le_bytes());
    buf.extend_from_slice(&(((next_sp_us(a, tsf_us) >> 10) & 0xffff) as u16).to_le_bytes());
    buf.push(wake_duration(a, tu));
    buf.extend_from_slice(&mantissa.to_le_bytes());
    let info: u16 = (u16::from(a.broadcast.unwrap_or(0)) << 3) | (PERSISTENCE_INDEFINITE << 8);
    buf.extend_from_slice(&info.to_le_bytes());
}

/// The beacon's TWT elements announcing `schedules` (negotiation type 2, Accept TWT): as many
/// Broadcast TWT Parameter Sets per element as its 255-octet body holds, the last of each
/// element flagged; empty without schedules. As long as `broadcast_twt_beacon_bytes` charges.
fn broadcast_twt_elements(schedules: &[TwtAgreement], tsf_us: u64) -> Vec<u8> {
    let mut e = Vec::new();
    for chunk in schedules.chunks((255 - 1) / BROADCAST_SET_BYTES) {
        // One unit per element: TUs if any of its schedules needs them.
        let tu = chunk.iter().any(needs_tu);
        let control = NEGOTIATION_ANNOUNCE << 2 | if tu { DURATION_UNIT_TU } else { 0 };
        e.extend_from_slice(&[216, (1 + chunk.len() * BROADCAST_SET_BYTES) as u8, control]);
        for (k, a) in chunk.iter().enumerate() {
            broadcast_set(a, false, SETUP_ACCEPT, k + 1 == chunk.len(), tu, tsf_us, &mut e);
        }
    }
    e
}

#[cfg(test)]
#[path = "radiotap_tests.rs"]
mod tests;
