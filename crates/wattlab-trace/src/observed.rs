//! `observed`: what a monitor-mode (802.11) capture shows one station's radio doing, costed
//! (issue 31 item 2). Unlike the other policies, which decide when the radio may doze, this one
//! reads it from the air:
//!
//! - **airtime** of every PPDU from its own radiotap fields (legacy rate, HT MCS, VHT, HE),
//!   through the simulator's PPDU durations ([`PhyProfile::ppdu_duration`]); an A-MPDU's
//!   subframes (radiotap A-MPDU status, one reference) are one PPDU, its PSDU the subframes with
//!   their delimiters and padding ([`wattlab_core::wlan::aggregation::DELIMITER_BYTES`]);
//! - **what the station sends** (transmitter address = the client; an ACK or CTS, which has no
//!   transmitter address, when it answers a frame to the client within SIFS + a slot; a
//!   response the capture misses is inferred and counted), retries included;
//! - **what it receives**: frames addressed to it, ACK/CTS/Block Ack to it, and while awake its
//!   AP's beacons and group-addressed frames (others' frames only with `overhear=rx`);
//! - **when it dozes**, from the power-management protocol on the air: its PM bit (0: active,
//!   awake; 1: power save, dozing once the exchange ends), PS-Poll (awake until the polled
//!   frame, again while More Data is set), U-APSD (awake from a trigger until a frame with
//!   EOSP), beacons (a dozing station wakes for each of its AP's beacons, `listen=beacons`,
//!   and stays awake if the TIM has its AID), TWT (an individual agreement's TWT element, or
//!   a broadcast schedule's membership read with its announcements, [`crate::wlan::btwt`]),
//!   and any frame it sends or receives (it was awake).
//!
//! The radio is costed by the profile's meter as the simulator's station meter costs it:
//! tx and rx intervals (at the PPDU's width/streams power when the profile has
//! `[[ppdu_power]]`), idle or asleep between them, transitions carved from the dormant time.
//! What a capture cannot show is listed in `docs/trace.md` ("The observed policy").

use std::io::Read;

use serde::Serialize;

use wattlab_core::energy::{Activity, DeviceProfile, EnergyReport, RadioMeter, RadioState};
use wattlab_core::wlan::aggregation::{AmpduLimits, DELIMITER_BYTES};
use wattlab_core::wlan::phy::{
    Band, Mcs, PhyProfile, TxVector, ACK_BYTES, PHY_80211A, PHY_80211AC, PHY_80211AX, PHY_80211B, PHY_80211G,
    PHY_80211N,
};
use wattlab_core::wlan::PpduShape;
use wattlab_core::{Duration, Time};

use crate::wlan::btwt::{self, Schedule};
use crate::wlan::{FrameKind, MacHeader, Radiotap, WlanFrame};
use crate::{TraceError, TraceReader};

/// When a capture's timestamp was taken, relative to the PPDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stamp {
    /// At the PPDU's end (a receiving host stamps a frame once it is in; default).
    End,
    /// At the PPDU's start (the first bit on the air).
    Start,
}

/// The `observed` policy's settings (`observed[:listen=..,overhear=..,stamp=..,padding=..]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObservedParams {
    /// A station in power save wakes for each of its AP's beacons (`listen=beacons`, default;
    /// 802.11 PSM with listen interval 1) or reads none (`listen=none`: U-APSD and TWT stations).
    pub listen_beacons: bool,
    /// An awake station is charged rx for frames addressed to others (`overhear=rx`) or idle
    /// (`overhear=idle`, default, as the simulator's default).
    pub overhear: bool,
    /// What a record's timestamp marks.
    pub stamp: Stamp,
    /// HE receivers' nominal packet padding, µs (0, 8 or 16), which the capture does not carry.
    pub he_padding_us: u8,
}

impl Default for ObservedParams {
    fn default() -> Self {
        ObservedParams { listen_beacons: true, overhear: false, stamp: Stamp::End, he_padding_us: 0 }
    }
}

impl ObservedParams {
    /// Applies one `key=value` setting; `Ok(false)` for an unknown key.
    pub fn set(&mut self, k: &str, v: &str) -> Result<bool, String> {
        let bad = |valid: &str| Err(format!("setting `{k}`: `{v}` is not {valid}"));
        match k {
            "listen" => match v {
                "beacons" => self.listen_beacons = true,
                "none" => self.listen_beacons = false,
                _ => return bad("`beacons` or `none`"),
            },
            "overhear" => match v {
                "rx" => self.overhear = true,
                "idle" => self.overhear = false,
                _ => return bad("`rx` or `idle`"),
            },
            "stamp" => match v {
                "end" => self.stamp = Stamp::End,
                "start" => self.stamp = Stamp::Start,
                _ => return bad("`end` or `start`"),
            },
            "padding" => match v.trim_end_matches("us") {
                "0" => self.he_padding_us = 0,
                "8" => self.he_padding_us = 8,
                "16" => self.he_padding_us = 16,
                _ => return bad("0, 8 or 16 (µs)"),
            },
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// Valid keys of `observed`.
pub const OBSERVED_KEYS: [&str; 4] = ["listen", "overhear", "stamp", "padding"];

/// Parses `aa:bb:cc:dd:ee:ff` (or with `-`).
pub fn parse_mac(text: &str) -> Result<[u8; 6], String> {
    let parts: Vec<&str> = text.trim().split([':', '-']).collect();
    let bad = || format!("`{text}` is not a MAC address (e.g. 02:00:00:00:00:01)");
    if parts.len() != 6 {
        return Err(bad());
    }
    let mut m = [0u8; 6];
    for (b, p) in m.iter_mut().zip(parts) {
        if p.len() != 2 {
            return Err(bad());
        }
        *b = u8::from_str_radix(p, 16).map_err(|_| bad())?;
    }
    Ok(m)
}

/// `aa:bb:cc:dd:ee:ff`.
pub fn format_mac(m: &[u8; 6]) -> String {
    m.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// What the capture showed the station doing (beside the energy report).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ObservedOutcome {
    /// The station, `aa:bb:...`.
    pub client_mac: String,
    /// Its AP (the peer of its first frame to or from an infrastructure peer), if seen.
    pub ap_mac: Option<String>,
    /// Its association ID, if a PS-Poll or an association response gave it.
    pub aid: Option<u16>,
    /// Frames (MPDUs) it sent, captured.
    pub tx_frames: u64,
    /// Of them, retransmissions (Retry bit).
    pub tx_retries: u64,
    /// Control responses (ACK, CTS, Block Ack) it sent, captured.
    pub tx_responses: u64,
    /// Responses it must have sent that the capture misses (costed as an ACK at the control
    /// rate SIFS after the frame).
    pub responses_inferred: u64,
    /// Frames addressed to it, received (captured).
    pub rx_frames: u64,
    /// Beacons of its AP it received (awake).
    pub beacons: u64,
    /// Group-addressed frames of its AP it received (awake), beacons excluded.
    pub group_frames: u64,
    /// Frames addressed to others heard while awake (costed as rx only with `overhear=rx`).
    pub overheard: u64,
    /// PPDUs (an A-MPDU counts once) costed from the capture's PHY fields.
    pub ppdus: u64,
    /// Of them, A-MPDUs.
    pub ampdus: u64,
    /// PPDUs involving the station without usable PHY fields (costed at the `--phy` rate).
    pub phy_fallback: u64,
    /// Its frames with the PM bit set / clear.
    pub pm_set: u64,
    /// Its frames with the PM bit clear.
    pub pm_clear: u64,
    /// Null and QoS-Null frames it sent.
    pub nulls: u64,
    /// PS-Polls it sent.
    pub ps_polls: u64,
    /// Frames to it with EOSP set (U-APSD service periods ended).
    pub eosp: u64,
    /// TWT Setup action frames to or from it.
    pub twt_setups: u64,
    /// TWT agreements accepted (a Setup response with Accept TWT to it).
    pub twt_agreements: u64,
    /// TWT service periods the station was awake for.
    pub service_periods: u64,
    /// The broadcast TWT schedule the station joined (its Broadcast TWT ID), if any.
    pub broadcast_twt_id: Option<u8>,
    /// How much later than costed its schedule's SPs may start, µs: the window the
    /// announcements leave (at most 1023; SPs on TU boundaries leave it whole: the capture
    /// cannot tell them from SPs up to 1023 µs later, and they are costed at the TU's start).
    pub broadcast_twt_window_us: Option<u64>,
    /// Times it was seen receiving while the inference had it dozing (it had woken unseen:
    /// U-APSD, TWT, a beacon it was not expected to read).
    pub woke_to_receive: u64,
    /// Dozes the inference decided.
    pub dozes: u64,
    /// Start and end of the costed span, ns since the epoch.
    pub start_ns: u64,
    /// End of the costed span (the last PPDU's end plus the tail).
    pub end_ns: u64,
}

/// Airtime of a PPDU of `psdu` bytes sent with `tx`: an HE TB PPDU's (longer HE-STF, the
/// trigger's GI) when its radiotap HE field says trigger-based (data1 PPDU format 3), else the
/// format's own, both the simulator's durations.
pub fn ppdu_airtime(rt: &Radiotap, phy: &PhyProfile, psdu: u32, tx: TxVector) -> Duration {
    if rt.he.is_some_and(|h| h.format() == 3) {
        phy.tb_ppdu_duration(psdu, tx)
    } else {
        phy.ppdu_duration(psdu, tx)
    }
}

/// The PHY profile and TxVector a frame's radiotap fields say it was sent with, if they say
/// enough (and the combination is one the PHY can send).
pub fn tx_vector(rt: &Radiotap) -> Option<(PhyProfile, TxVector)> {
    let band = match rt.channel.map(|c| c.0) {
        Some(f) if f < 3000 => Band::Ghz2_4,
        Some(f) if f > 5925 => Band::Ghz6,
        _ => Band::Ghz5,
    };
    let short_gi = rt.flags.is_some_and(|f| f.has(crate::wlan::RtFlags::SHORT_GI));
    let (phy, tx) = if let Some(he) = rt.he {
        let m = Mcs {
            mcs: he.mcs()?,
            nss: he.nsts().unwrap_or(1),
            width_mhz: he.width_mhz().unwrap_or(20),
            gi_ns: he.gi_ns().unwrap_or(800),
        };
        (PHY_80211AX.with_band(band).ok()?, TxVector::He(m))
    } else if let Some(v) = rt.vht {
        let gi = if v.short_gi().unwrap_or(false) { 400 } else { 800 };
        let m = Mcs { mcs: v.mcs(), nss: v.nss(), width_mhz: v.width_mhz().unwrap_or(20), gi_ns: gi };
        (PHY_80211AC, TxVector::Vht(m))
    } else if let Some(h) = rt.mcs {
        let nss = h.nss()?;
        let gi = if h.short_gi().unwrap_or(short_gi) { 400 } else { 800 };
        let m = Mcs { mcs: h.index % 8, nss, width_mhz: h.width_mhz().unwrap_or(20), gi_ns: gi };
        (PHY_80211N.with_band(if band == Band::Ghz6 { Band::Ghz5 } else { band }).ok()?, TxVector::Ht(m))
    } else {
        let kbps = u32::from(rt.rate_500k?) * 500;
        let phy = if [1_000, 2_000, 5_500, 11_000].contains(&kbps) {
            let short = rt.flags.is_some_and(|f| f.has(crate::wlan::RtFlags::SHORT_PREAMBLE));
            PHY_80211B.with_short_preamble(short)
        } else if band == Band::Ghz2_4 {
            PHY_80211G
        } else {
            PHY_80211A
        };
        (phy, TxVector::Legacy { kbps })
    };
    let tx = phy.check_tx(tx).ok()?;
    Some((phy, tx))
}

/// The station's radio: awake or dozing between tx/rx intervals (the simulator's station
/// meter, `wattlab_sim::radio::MacMeter`, without flow attribution).
struct StationMeter {
    meter: RadioMeter,
    profile: DeviceProfile,
    per_ppdu: bool,
    rest: RadioState,
    busy_until: Time,
}

impl StationMeter {
    fn activity(&mut self, start: Time, end: Time, kind: Activity, shape: PpduShape) {
        let start = start.max(self.busy_until).max(self.meter.last_change());
        if end <= start {
            return;
        }
        if self.per_ppdu {
            let p = self.profile.ppdu_power_uw(kind.state(), shape.width_mhz, shape.nss);
            self.meter.set_state_at_power(start, kind.state(), 0, p);
        } else {
            self.meter.set_state(start, kind.state());
        }
        self.meter.set_state(end, self.rest);
        self.busy_until = end;
    }

    fn set_rest(&mut self, at: Time, rest: RadioState) {
        self.rest = rest;
        let at = at.max(self.busy_until).max(self.meter.last_change());
        self.meter.set_state(at, rest);
    }
}

/// What the station waits for while awake in power save.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    /// Nothing: it dozes once the current exchange ends.
    Nothing,
    /// The frame its PS-Poll asked for (or the TIM announced).
    Polled,
    /// The end of a U-APSD service period (EOSP).
    ServicePeriod,
}

/// One MPDU of a PPDU, the fields the inference needs.
#[derive(Clone, Copy, Debug)]
struct Mpdu {
    mac: MacHeader,
    len: u32,
    tim_has_aid: Option<bool>,
}

/// A PPDU being assembled (an A-MPDU's subframes arrive as records of their own).
struct Ppdu {
    ts: Time,
    rt: Radiotap,
    reference: Option<u32>,
    mpdus: Vec<Mpdu>,
}

fn is_group(a: &[u8; 6]) -> bool {
    a[0] & 1 == 1
}

/// Frames that the receiver answers SIFS later (ACK, CTS, Block Ack): unicast data and
/// management frames, RTS, PS-Poll and BAR (a QoS frame with No Ack policy is not answered).
fn needs_response(m: &MacHeader) -> bool {
    if is_group(&m.addr1) {
        return false;
    }
    match m.kind() {
        FrameKind::Ack | FrameKind::Cts | FrameKind::BlockAck | FrameKind::ActionNoAck | FrameKind::Trigger => false,
        FrameKind::Rts | FrameKind::PsPoll | FrameKind::BlockAckReq => true,
        _ if m.frame_type() == 1 => false,
        _ => m.qos.is_none_or(|q| (q >> 5) & 0x3 != 1),
    }
}

struct Inference<'p> {
    c: [u8; 6],
    params: ObservedParams,
    fallback: Option<(PhyProfile, TxVector)>,
    meter: Option<StationMeter>,
    profile: &'p DeviceProfile,
    out: ObservedOutcome,
    ap: Option<[u8; 6]>,
    aid: Option<u16>,
    uapsd: bool,
    ps: bool,
    awake: bool,
    wait: Wait,
    /// The station dozes then, unless something involving it comes first.
    pending: Option<Time>,
    /// The last PPDU, if it needs a response (cleared once another PPDU follows).
    last: Option<Owed>,
    end: Time,
    timeline: bool,
    /// The accepted TWT agreement, on the capture's clock.
    twt: Option<TwtAgreement>,
    /// Capture time minus radiotap TSFT (ns), from the first PPDU that has a TSFT.
    tsf_offset: Option<i128>,
    /// A TWT Setup response accepting an agreement, waiting for its PPDU's end to take effect.
    twt_accepted: Option<ParsedTwt>,
}

/// Most TWT service periods walked between two PPDUs (bounds the work of a long silence).
pub const MAX_SP_PER_GAP: u64 = 10_000_000;

/// A TWT element's individual agreement as the AP accepted it (IEEE 802.11ax-2021 §9.4.2.199).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedTwt {
    /// Target Wake Time, TSF µs.
    pub target_tsf_us: u64,
    /// Wake interval, µs (mantissa × 2^exponent).
    pub interval_us: u64,
    /// Nominal minimum wake duration, µs (× 256 µs, or × 1 TU with the Wake Duration Unit bit).
    pub duration_us: u64,
}

/// The TWT agreement a TWT Setup frame's body (category, action, dialog token, TWT element)
/// accepts (Setup Command 4, Accept TWT), if it does.
pub fn parse_twt_accept(body: &[u8]) -> Option<ParsedTwt> {
    let el = body.get(3..)?;
    if *el.first()? != 216 || usize::from(*el.get(1)?) + 2 > el.len() || el.len() < 17 {
        return None;
    }
    let control = el[2];
    let req = u16::from_le_bytes([el[3], el[4]]);
    if (req >> 1) & 0x7 != 4 {
        return None;
    }
    let target_tsf_us = u64::from_le_bytes(el[5..13].try_into().ok()?);
    let unit = if control & 0x20 != 0 { 1024 } else { 256 };
    let duration_us = u64::from(el[13]) * unit;
    let mantissa = u64::from(u16::from_le_bytes([el[14], el[15]]));
    let exponent = u32::from((req >> 10) & 0x1f);
    let interval_us = mantissa.checked_shl(exponent)?;
    (interval_us > 0 && duration_us > 0 && duration_us < interval_us).then_some(ParsedTwt { target_tsf_us, interval_us, duration_us })
}

/// A TWT agreement's service periods on the capture's clock.
#[derive(Clone, Copy, Debug)]
struct TwtAgreement {
    /// The next SP's start.
    next: Time,
    interval: Duration,
    duration: Duration,
    /// In an SP that ends then.
    open_until: Option<Time>,
}

/// A PPDU that needs a response (ACK, CTS, Block Ack) SIFS after it.
#[derive(Clone, Copy, Debug)]
struct Owed {
    /// Its end.
    end: Time,
    /// Its transmitter, receiver.
    from: Option<[u8; 6]>,
    to: [u8; 6],
    /// Where an ACK at the control rate would be on the air.
    response: (Time, Time),
}

impl Inference<'_> {
    fn meter(&mut self, start: Time) -> &mut StationMeter {
        let (profile, timeline) = (self.profile, self.timeline);
        self.meter.get_or_insert_with(|| StationMeter {
            meter: {
                let mut m = RadioMeter::new(profile, start, RadioState::Idle);
                if timeline {
                    m.enable_timeline();
                }
                m
            },
            profile: profile.clone(),
            per_ppdu: !profile.ppdu_powers().is_empty(),
            rest: RadioState::Idle,
            busy_until: start,
        })
    }

    /// Walks the TWT service periods up to `until`: the station wakes at each SP's start and
    /// dozes at its end (once its exchange is over).
    fn advance_twt(&mut self, until: Time) -> Result<(), String> {
        let Some(mut w) = self.twt else { return Ok(()) };
        let mut walked = 0u64;
        loop {
            if let Some(end) = w.open_until {
                if end > until {
                    break;
                }
                w.open_until = None;
                // The SP's end ends any wait: what More Data announced comes in a later SP.
                self.wait = Wait::Nothing;
                let at = self.pending.map_or(end, |p| p.max(end));
                self.pending = Some(at);
            } else {
                if w.next > until {
                    break;
                }
                if let Some(p) = self.pending {
                    if p <= w.next {
                        self.doze(p);
                    }
                }
                self.pending = None;
                self.wake(w.next);
                self.out.service_periods += 1;
                w.open_until = Some(w.next + w.duration);
                w.next += w.interval;
                walked += 1;
                if walked > MAX_SP_PER_GAP {
                    return Err(format!(
                        "policy `observed`: more than {MAX_SP_PER_GAP} TWT service periods without a frame between them \
                         (interval {} µs): not walked",
                        w.interval.as_nanos() / 1_000
                    ));
                }
            }
        }
        self.twt = Some(w);
        Ok(())
    }

    /// In an open TWT service period: the station stays awake until its end.
    fn in_sp(&self) -> bool {
        self.twt.is_some_and(|w| w.open_until.is_some())
    }

    fn wake(&mut self, at: Time) {
        if !self.awake {
            self.awake = true;
            self.meter(at).set_rest(at, RadioState::Idle);
        }
    }

    fn doze(&mut self, at: Time) {
        self.pending = None;
        if self.awake {
            self.awake = false;
            self.out.dozes += 1;
            self.meter(at).set_rest(at, RadioState::Sleep);
        }
    }

    /// Costs one PPDU.
    fn ppdu(&mut self, p: &Ppdu) -> Result<(), String> {
        let Some(first) = p.mpdus.first().copied() else { return Ok(()) };
        let (phy, tx, fell_back) = match tx_vector(&p.rt) {
            Some((phy, tx)) => (phy, tx, false),
            None => match self.fallback {
                Some((phy, tx)) => (phy, tx, true),
                None => return Ok(()),
            },
        };
        let phy = if matches!(tx, TxVector::He(_)) { phy.with_he_packet_padding(self.params.he_padding_us).unwrap_or(phy) } else { phy };
        let psdu = if p.reference.is_some() {
            let n = p.mpdus.len();
            p.mpdus.iter().enumerate().map(|(i, m)| {
                let sub = DELIMITER_BYTES + m.len;
                if i + 1 == n { sub } else { sub.next_multiple_of(4) }
            }).sum()
        } else {
            first.len
        };
        let dur = ppdu_airtime(&p.rt, &phy, psdu, tx);
        let (s, e) = match self.params.stamp {
            Stamp::End => (p.ts - dur, p.ts),
            Stamp::Start => (p.ts, p.ts + dur),
        };
        self.meter(s);
        if let (None, Some(tsft)) = (self.tsf_offset, p.rt.tsft) {
            self.tsf_offset = Some(i128::from(s.as_nanos()) - i128::from(tsft) * 1_000);
        }
        self.advance_twt(s)?;
        self.out.ppdus += 1;
        self.out.ampdus += u64::from(p.reference.is_some());
        let shape = tx.shape();
        let m = first.mac;
        let ta = m.addr2;
        let ra = m.addr1;
        let c = self.c;
        // A response answering the previous PPDU, SIFS after it: an ACK or CTS (no transmitter
        // address), or a Block Ack from the PPDU's addressee (an A-MPDU's answer).
        let answers = |last: Option<Owed>| {
            last.is_some_and(|o| {
                let responder = match m.kind() {
                    FrameKind::Ack | FrameKind::Cts => true,
                    FrameKind::BlockAck => ta == Some(o.to),
                    _ => false,
                };
                responder && Some(ra) == o.from && s <= o.end + phy.sifs + phy.slot
            })
        };
        let response_by_c = answers(self.last) && self.last.is_some_and(|o| o.to == c);
        // The answer: an ACK, or for an A-MPDU a compressed Block Ack (the window of its format).
        let response_bytes = match (p.reference, tx) {
            (None, _) => ACK_BYTES,
            (Some(_), TxVector::He(_)) => AmpduLimits::HE.block_ack_bytes(),
            (Some(_), TxVector::Vht(_)) => AmpduLimits::VHT.block_ack_bytes(),
            (Some(_), _) => AmpduLimits::HT.block_ack_bytes(),
        };
        let ack_at = |e: Time| (e + phy.sifs, e + phy.sifs + phy.frame_duration(response_bytes, phy.response_kbps(tx)));
        let ack_after = |e: Time| ack_at(e).1;
        // A frame to the station that the capture shows no answer to: its response is inferred.
        // Not if the sender retries it now: the station did not answer (or its answer was lost).
        let retried = self.last.is_some_and(|o| o.from == ta && o.to == ra && m.retry());
        if let Some(o) = self.last {
            if o.to == c && !response_by_c && !retried {
                self.owed_response(o);
            }
        }
        // A doze decided for the end of the last exchange happens unless this PPDU is part of it.
        // The station's response to a frame under way at an SP's end is part of that exchange:
        // it dozes after the response, not before it.
        if let Some(at) = self.pending {
            let involves = ta == Some(c) || ra == c || response_by_c;
            if (s >= at && !response_by_c) || !involves {
                self.doze(at);
            }
        }
        let from_c = ta == Some(c) || response_by_c;
        let to_c = ra == c;
        let from_ap = ta.is_some() && ta == self.ap;
        if fell_back && (from_c || to_c) {
            self.out.phy_fallback += 1;
        }
        if from_c {
            self.wake(s);
            self.meter(s).activity(s, e, Activity::Tx, shape);
            for mp in &p.mpdus {
                let h = mp.mac;
                match h.kind() {
                    FrameKind::Ack | FrameKind::Cts | FrameKind::BlockAck => self.out.tx_responses += 1,
                    _ => {
                        self.out.tx_frames += 1;
                        self.out.tx_retries += u64::from(h.retry());
                    }
                }
            }
            if self.ap.is_none() && m.frame_type() != 1 && !is_group(&ra) {
                self.ap = Some(ra);
            }
            self.after_own(&m, e, ack_after(e));
        } else if to_c {
            if !self.awake {
                self.out.woke_to_receive += 1;
            }
            self.wake(s);
            self.meter(s).activity(s, e, Activity::Rx, shape);
            self.out.rx_frames += p.mpdus.len() as u64;
            if self.ap.is_none() && m.frame_type() != 1 {
                self.ap = ta;
            }
            let last = p.mpdus.last().copied().unwrap_or(first);
            self.after_received(&last.mac, e, ack_after(e));
        } else if from_ap && is_group(&ra) {
            let beacon = m.kind() == FrameKind::Beacon;
            if beacon && !self.awake && self.ps && self.params.listen_beacons && self.twt.is_none() {
                self.wake(s);
            }
            if self.awake {
                self.meter(s).activity(s, e, Activity::Rx, PpduShape::NON_HT);
                if beacon {
                    self.out.beacons += 1;
                    if self.ps && self.wait == Wait::Nothing && self.twt.is_none() {
                        if first.tim_has_aid == Some(true) {
                            self.wait = Wait::Polled;
                            self.pending = None;
                        } else if self.pending.is_none() {
                            self.pending = Some(e);
                        }
                    }
                } else {
                    self.out.group_frames += 1;
                }
            }
        } else if self.awake && !is_group(&ra) {
            self.out.overheard += 1;
            if self.params.overhear {
                self.meter(s).activity(s, e, Activity::Rx, shape);
            }
        }
        // A captured response by the station, or to it, ends the exchange there.
        if response_by_c || (to_c && answers(self.last)) {
            if let Some(at) = self.pending.as_mut() {
                *at = e;
            }
        }
        self.last = needs_response(&m).then(|| Owed { end: e, from: ta, to: ra, response: ack_at(e) });
        self.end = self.end.max(e);
        if let Some(a) = self.twt_accepted.take() {
            self.accept_twt(a, e);
        }
        Ok(())
    }

    /// A TWT agreement holds from `at` (the Setup response's end): the station is in power
    /// save, reads no beacon, and is awake in each service period.
    fn accept_twt(&mut self, a: ParsedTwt, at: Time) {
        // Target Wake Time on the capture's clock (TSF 0 at the first PPDU without a TSFT).
        let offset = self.tsf_offset.unwrap_or(i128::from(self.out.start_ns));
        let target = (offset + i128::from(a.target_tsf_us) * 1_000).clamp(0, i128::from(u64::MAX)) as u64;
        let interval = Duration::from_micros(a.interval_us);
        let mut next = Time(target);
        if next < at {
            let k = (at - next).as_nanos().div_ceil(interval.as_nanos());
            next = next + Duration::from_nanos(k.saturating_mul(interval.as_nanos()));
        }
        self.twt = Some(TwtAgreement { next, interval, duration: Duration::from_micros(a.duration_us), open_until: None });
        self.ps = true;
        self.wait = Wait::Nothing;
        // It dozes until the first SP once the response's exchange (its ACK) is over.
        self.pending = Some(self.last.map_or(at, |o| o.response.1));
        self.out.twt_agreements += 1;
    }

    /// The station sent `m` (ending at `e`; its exchange ends at `exchange_end`).
    fn after_own(&mut self, m: &MacHeader, e: Time, exchange_end: Time) {
        let kind = m.kind();
        if matches!(kind, FrameKind::Ack | FrameKind::Cts | FrameKind::BlockAck) {
            return;
        }
        if matches!(kind, FrameKind::Null | FrameKind::QosNull) {
            self.out.nulls += 1;
        }
        if m.power_mgmt() {
            self.out.pm_set += 1;
        } else {
            self.out.pm_clear += 1;
        }
        if kind == FrameKind::PsPoll {
            self.out.ps_polls += 1;
            self.aid.get_or_insert(m.duration & 0x3fff);
            self.ps = true;
            self.wait = Wait::Polled;
            self.pending = None;
            return;
        }
        self.ps = m.power_mgmt();
        if !self.ps {
            self.wait = Wait::Nothing;
            self.pending = None;
        } else if self.uapsd && m.qos.is_some() {
            self.wait = Wait::ServicePeriod;
            self.pending = None;
        } else if self.wait == Wait::Nothing && !self.in_sp() {
            self.pending = Some(if needs_response(m) { exchange_end } else { e });
        }
    }

    /// The station received `m` (the last MPDU of its PPDU, ending at `e`).
    fn after_received(&mut self, m: &MacHeader, e: Time, exchange_end: Time) {
        if m.eosp() {
            self.out.eosp += 1;
        }
        if !self.ps || m.frame_type() == 1 {
            return;
        }
        let done = match self.wait {
            Wait::ServicePeriod => m.eosp(),
            Wait::Polled | Wait::Nothing => !m.more_data(),
        };
        if done {
            self.wait = Wait::Nothing;
            if !self.in_sp() {
                self.pending = Some(if needs_response(m) { exchange_end } else { e });
            }
        } else if self.wait == Wait::Nothing {
            // More Data: the station polls again (PSM) or stays for the rest.
            self.wait = if self.uapsd { Wait::ServicePeriod } else { Wait::Polled };
            self.pending = None;
        }
    }

    /// A response the station owed for `o` that the capture misses: costed as an ACK.
    fn owed_response(&mut self, o: Owed) {
        self.out.responses_inferred += 1;
        let (s, e) = o.response;
        self.meter(s).activity(s, e, Activity::Tx, PpduShape::NON_HT);
        self.end = self.end.max(e);
        if let Some(at) = self.pending.as_mut() {
            *at = (*at).max(e);
        }
    }
}

/// Facts about the station found in a first pass: its AP, AID and whether its AP ends
/// U-APSD service periods (EOSP) for it.
#[derive(Default)]
struct Prepass {
    ap: Option<[u8; 6]>,
    aid: Option<u16>,
    uapsd: bool,
    seen: bool,
    /// Broadcast TWT schedules announced (beacons, accepting Setup frames) by BSSID and ID:
    /// one entry per schedule, not per frame.
    schedules: Vec<([u8; 6], u8, Schedule)>,
}

impl Prepass {
    /// Takes the broadcast sets of a TWT element's `value` sent by `bssid` at TSF `tsf_us`.
    fn announce(&mut self, bssid: [u8; 6], value: &[u8], tsf_us: u64) {
        for set in btwt::broadcast_sets(value).filter(|s| !s.request) {
            match self.schedules.iter_mut().find(|(b, id, _)| *b == bssid && *id == set.id) {
                Some((_, _, s)) => s.announce(&set, tsf_us),
                None => self.schedules.extend(Schedule::new(&set, tsf_us).map(|s| (bssid, set.id, s))),
            }
        }
    }

    /// What the capture says of the station's AP's broadcast schedule `id`.
    fn schedule_of(&self, id: u8) -> Option<Schedule> {
        let ap = self.ap?;
        self.schedules.iter().find(|(b, i, _)| *b == ap && *i == id).map(|e| e.2)
    }
}

/// The agreement a member of its AP's broadcast TWT schedule `id` follows: SPs at the
/// earliest phase every announcement allows ([`Schedule`]).
fn broadcast_agreement(pre: &Prepass, id: u8) -> Option<ParsedTwt> {
    let s = pre.schedule_of(id)?;
    (s.duration_us > 0 && s.duration_us < s.interval_us).then_some(ParsedTwt {
        target_tsf_us: s.phase_us,
        interval_us: s.interval_us,
        duration_us: s.duration_us,
    })
}

fn prepass<R: Read>(reader: &mut TraceReader<R>, c: [u8; 6]) -> Result<Prepass, TraceError> {
    let mut p = Prepass::default();
    while let Some(f) = reader.next_wlan() {
        let f = f?;
        let m = f.mac;
        let (from_c, to_c) = (m.addr2 == Some(c), m.addr1 == c);
        p.seen |= from_c || to_c;
        if p.ap.is_none() && m.frame_type() != 1 {
            if from_c && !is_group(&m.addr1) {
                p.ap = Some(m.addr1);
            } else if to_c {
                p.ap = m.addr2;
            }
        }
        if to_c && m.eosp() {
            p.uapsd = true;
        }
        // Broadcast TWT announcements, each placed on the AP's TSF: a beacon's by its
        // Timestamp field, a Setup frame's by its radiotap TSFT.
        if m.kind() == FrameKind::Beacon {
            if let (Some(bssid), Some(ts)) = (m.addr2, f.body().get(..8)) {
                let tsf = u64::from_le_bytes(ts.try_into().unwrap_or_default());
                for (_, v) in f.elements().into_iter().flatten().filter(|(id, _)| *id == btwt::TWT_ELEMENT_ID) {
                    p.announce(bssid, v, tsf);
                }
            }
        } else if to_c && matches!(f.action(), Some(crate::wlan::Action::TwtSetup)) {
            if let (Some(bssid), Some(tsf), Some(v)) = (m.addr2, f.phy.tsft, btwt::setup_broadcast_element(f.body())) {
                p.announce(bssid, v, tsf);
            }
        }
        if p.aid.is_none() {
            if from_c && m.kind() == FrameKind::PsPoll {
                p.aid = Some(m.duration & 0x3fff);
            } else if to_c {
                p.aid = f.assoc_aid();
            }
        }
    }
    Ok(p)
}

/// The observed policy's result: the energy report, what was seen, and the state timeline.
pub struct Observed {
    /// Energy and time per state over `[start_ns, end_ns)`.
    pub report: EnergyReport,
    /// Counts of what the capture showed.
    pub outcome: ObservedOutcome,
    /// The radio's state changes, when asked for.
    pub timeline: Vec<(Time, RadioState)>,
}

/// Costs what the capture shows station `c` doing: two passes over the capture (`open` opens
/// it), the first to find its AP, AID and U-APSD use. `fallback` times PPDUs whose records
/// carry no PHY fields (plain 802.11); `tail` extends the run after the last PPDU.
pub fn cost<R: Read>(
    mut open: impl FnMut() -> Result<TraceReader<R>, TraceError>,
    path: &str,
    c: [u8; 6],
    params: ObservedParams,
    profile: &DeviceProfile,
    fallback: Option<(PhyProfile, TxVector)>,
    tail: Duration,
    timeline: bool,
) -> Result<Observed, String> {
    let pre = prepass(&mut open().map_err(|e| e.to_string())?, c).map_err(|e| e.to_string())?;
    if !pre.seen {
        return Err(format!(
            "{path}: policy `observed`: no 802.11 frame to or from {} in the capture (is it a monitor-mode capture, \
             and the station's MAC address right?)",
            format_mac(&c)
        ));
    }
    let mut inf = Inference {
        c,
        params,
        fallback,
        meter: None,
        profile,
        out: ObservedOutcome { client_mac: format_mac(&c), ..Default::default() },
        ap: pre.ap,
        aid: pre.aid,
        uapsd: pre.uapsd,
        ps: false,
        awake: true,
        wait: Wait::Nothing,
        pending: None,
        last: None,
        end: Time::ZERO,
        timeline,
        twt: None,
        tsf_offset: None,
        twt_accepted: None,
    };
    let mut reader = open().map_err(|e| e.to_string())?;
    // The PPDU being assembled; its MPDU list is reused (nothing allocated per frame).
    let mut cur = Ppdu { ts: Time::ZERO, rt: Radiotap::default(), reference: None, mpdus: Vec::with_capacity(64) };
    let mut open_ppdu = false;
    let mut pending_twt: Option<ParsedTwt> = None;
    while let Some(f) = reader.next_wlan() {
        let f: WlanFrame<'_> = f.map_err(|e| e.to_string())?;
        let reference = f.phy.ampdu.map(|a| a.reference);
        let mpdu = Mpdu {
            mac: f.mac,
            len: f.mpdu_len,
            tim_has_aid: (f.mac.kind() == FrameKind::Beacon)
                .then(|| f.tim().is_some_and(|t| inf.aid.is_some_and(|aid| t.has_aid(aid)))),
        };
        if matches!(f.action(), Some(crate::wlan::Action::TwtSetup)) && (f.mac.addr2 == Some(c) || f.mac.addr1 == c) {
            inf.out.twt_setups += 1;
            if let Some(element) = btwt::setup_broadcast_element(f.body()) {
                if f.mac.addr1 == c {
                    if let Some(set) = btwt::broadcast_sets(element).find(|s| !s.request && s.command == btwt::ACCEPT_TWT) {
                        pending_twt = Some(broadcast_agreement(&pre, set.id).ok_or_else(|| {
                            format!(
                                "record {} (Wireshark's frame number; file offset {}): a TWT Setup accepting the station into broadcast TWT schedule {}, but no announcement of schedule {} with a TSF to place its service periods on (radiotap TSFT on the Setup frames, or its AP's beacons carrying it): cannot cost the station",
                                f.index + 1,
                                f.offset,
                                set.id,
                                set.id
                            )
                        })?);
                        inf.out.broadcast_twt_id = Some(set.id);
                        inf.out.broadcast_twt_window_us = pre.schedule_of(set.id).map(|s| s.window_us - 1);
                    }
                }
            } else if f.mac.addr1 == c {
                pending_twt = parse_twt_accept(f.body());
            }
        }
        // Subframes of one A-MPDU (same reference, consecutive) make one PPDU.
        if open_ppdu && reference.is_some() && cur.reference == reference {
            cur.mpdus.push(mpdu);
            continue;
        }
        if open_ppdu {
            inf.ppdu(&cur)?;
        }
        inf.twt_accepted = pending_twt.take().or(inf.twt_accepted.take());
        (cur.ts, cur.rt, cur.reference) = (Time(f.ts_ns), f.phy, reference);
        cur.mpdus.clear();
        cur.mpdus.push(mpdu);
        open_ppdu = true;
    }
    if open_ppdu {
        inf.ppdu(&cur)?;
    }
    // A response still owed at the end of the capture.
    if let Some(o) = inf.last.take() {
        if o.to == c {
            inf.owed_response(o);
        }
    }
    let end = inf.end + tail;
    inf.advance_twt(end)?;
    if let Some(at) = inf.pending {
        if at < end {
            inf.doze(at);
        }
    }
    inf.out.ap_mac = inf.ap.map(|a| format_mac(&a));
    inf.out.aid = inf.aid;
    let Some(mut m) = inf.meter.take() else {
        return Err(format!("{path}: policy `observed`: no PPDU could be timed (no PHY fields and no --phy rate)"));
    };
    let report = m.meter.report(end);
    inf.out.start_ns = report.start_ns;
    inf.out.end_ns = end.as_nanos();
    let mut rows = Vec::new();
    m.meter.drain_timeline(|t, s| rows.push((t, s)));
    rows.extend_from_slice(m.meter.timeline());
    Ok(Observed { report, outcome: inf.out, timeline: rows })
}

#[cfg(test)]
#[path = "observed_tests.rs"]
mod tests;
