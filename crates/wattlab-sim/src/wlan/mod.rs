//! The 802.11 MAC: one basic service set (an AP and its stations) sharing one channel.
//!
//! [`Bss`] is a state machine in the style of the rest of wattlab: the simulator hands it
//! frames ([`Bss::enqueue`]) and fires the timers it asked for ([`Bss::handle_timer`]); it
//! answers through [`Bss::poll_output`] with timers to schedule, packets delivered to a
//! station, transmit/receive intervals for the radios and doze/wake decisions. It never sees
//! the event queue, so unit tests drive it with a plain loop.
//!
//! - `dcf`: CSMA/CA contention, frame exchanges, retries (the medium's behaviour);
//! - `power`: the MAC's side of each station's power-save machine
//!   (`wattlab_core::power::StationPower` with [`MacCaps::bss`]): beacons and TIM, PS-Polls,
//!   Null triggers, the AP's holding, wake-ups.
//!
//! Station 0 of every BSS is the AP.

pub mod air;
mod ampdu;
mod amsdu;
mod dcf;
mod edca;
mod link;
mod power;
mod queue;
pub mod radiotap;
pub mod rate;
pub mod rate_use;
mod txop;

use crate::net::impairment::LossProcess;
use crate::rng::StreamRng;
use serde::Serialize;
use std::collections::VecDeque;
use wattlab_core::energy::Activity;
use wattlab_core::power::{MacCaps, PowerState, StationPower};
use wattlab_core::wlan::{PhyProfile, PpduShape};

pub use wattlab_core::power::{PowerSave, PowerSaveSettings};
use wattlab_core::{Duration, Packet, Time};

pub use air::{AirFrame, AirKind, AirLog, BROADCAST};
pub use edca::{up_of_dscp, Ac, AcParams, Aggregation, EdcaSet, QosConfig};
pub use link::Link;
pub use queue::{ApQueueing, POWER_SAVE_WEIGHT_RANGE};
pub(crate) use power::broadcast_twt_beacon_bytes;
use queue::FairQueue;

pub use crate::net::StaId;

/// The AP's index in every BSS.
pub const AP: StaId = 0;

/// What an awake station's radio does while other stations' frames are on the air.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overhearing {
    /// Receives them (the PHY locks on every frame it can decode, as ns-3 models it).
    Rx,
    /// Stays idle (the NIC drops frames not addressed to it right after the header).
    Idle,
}

/// BSS-wide MAC settings.
#[derive(Clone, Debug)]
pub struct MacConfig {
    /// PHY timing.
    pub phy: PhyProfile,
    /// How every data frame is sent (format and rate); see `Bss::tx_vector`.
    pub tx: wattlab_core::wlan::TxVector,
    /// Use RTS/CTS for MPDUs longer than this many bytes (None: never).
    pub rts_threshold: Option<u32>,
    /// Attempts after the first for frames sent without RTS (None: unlimited).
    pub short_retry_limit: Option<u32>,
    /// Attempts after the first for frames protected by RTS (None: unlimited).
    pub long_retry_limit: Option<u32>,
    /// One-way propagation delay between any two stations.
    pub propagation: Duration,
    /// What overhearing costs.
    pub overhearing: Overhearing,
    /// Beacon interval.
    pub beacon_interval: Duration,
    /// Send beacons (their airtime is then part of the channel's load).
    pub beacons: bool,
    /// Beacon size in bytes (MPDU).
    pub beacon_bytes: u32,
    /// Where the stations' loss processes act.
    pub loss_layer: LossLayer,
    /// How the AP picks its next frame.
    pub ap_queueing: ApQueueing,
    /// Weight of the power-saving class under `ApQueueing::FairClass` (regular stations: 1).
    pub ap_power_save_weight: f64,
    /// Channel-access priority of the AP (None: the AP contends like every station). With
    /// `qos`, it replaces the AP's AC_BE parameters.
    pub ap_priority: Option<ApPriority>,
    /// The QoS MAC (EDCA, A-MPDU with Block Ack) of the HT/VHT/HE PHYs; None: legacy DCF.
    pub qos: Option<QosConfig>,
}

impl MacConfig {
    /// Access parameters of AC `ac` at station `sta`: AIFSN 2 (DIFS), the PHY's window and
    /// no TXOP under DCF (every frame is AC_BE there), the EDCA set's under QoS;
    /// `ap_priority` overrides the AP's AC_BE (or its only) AIFSN and window.
    pub fn access_params(&self, sta: StaId, ac: Ac) -> AcParams {
        match (self.ap_priority, self.qos) {
            (Some(p), q) if sta == AP && ac == Ac::Be => {
                let txop_limit = q.map_or(Duration::ZERO, |q| q.edca.params(true, Ac::Be).txop_limit);
                AcParams { aifsn: p.aifs_slots, cw_min: p.cw_min, cw_max: p.cw_max, txop_limit }
            }
            (_, Some(q)) => q.edca.params(sta == AP, ac),
            _ => AcParams { aifsn: 2, cw_min: self.phy.cw_min, cw_max: self.phy.cw_max, txop_limit: Duration::ZERO },
        }
    }

    /// The shortest AIFSN of any contender of a BSS of `n` stations: where the backoff slot
    /// grid starts (2 = DIFS under DCF; under EDCA the AP's AC_VO, AIFSN 1 by default).
    fn base_aifsn(&self, n: usize) -> u64 {
        let acs: &[Ac] = if self.qos.is_some() { &Ac::ALL } else { &[Ac::Be] };
        (0..n as StaId).flat_map(|i| acs.iter().map(move |&ac| (i, ac))).map(|(i, ac)| self.access_params(i, ac).aifsn).min().unwrap_or(2) as u64
    }

    /// The four EDCAFs of station `sta` on a slot grid starting `base` slots after SIFS.
    fn edcafs(&self, sta: StaId, base: u64) -> [Edcaf; 4] {
        Ac::ALL.map(|ac| {
            let p = self.access_params(sta, ac);
            Edcaf::new(p.aifsn as u64 - base, p.cw_min, p.cw_max, p.txop_limit)
        })
    }
}

/// A shorter carrier-sense time and/or a different contention window for the AP (the
/// "prioritised AP" baseline of seed 002, after Fukuda & Oie, IEICE Trans. Commun. E88-B(4),
/// 2005): the AP defers SIFS + `aifs_slots` slots after the medium goes idle instead of DIFS
/// (= SIFS + 2 slots), so its backoff counts down `2 − aifs_slots` slots ahead of everyone's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApPriority {
    /// Slots after SIFS the AP defers: 1 = PIFS, 2 = DIFS (no head start).
    pub aifs_slots: u32,
    /// The AP's CW_min.
    pub cw_min: u32,
    /// The AP's CW_max.
    pub cw_max: u32,
}

impl ApPriority {
    /// Preset names accepted by `ap_priority = "..."`.
    pub const PRESETS: [&'static str; 2] = ["fukuda-oie", "pifs"];

    /// The preset `name` on `phy`: "fukuda-oie" = the AP sends PIFS (SIFS + 1 slot) after the
    /// medium goes idle, without backoff (CW 0), so it always goes before any station;
    /// "pifs" = PIFS with the PHY's contention window (a head start of one slot only).
    pub fn preset(name: &str, phy: &wattlab_core::wlan::PhyProfile) -> Option<ApPriority> {
        match name {
            "fukuda-oie" => Some(ApPriority { aifs_slots: 1, cw_min: 0, cw_max: 0 }),
            "pifs" => Some(ApPriority { aifs_slots: 1, cw_min: phy.cw_min, cw_max: phy.cw_max }),
            _ => None,
        }
    }
}

/// Where a station's loss processes (`loss_down`, `loss_up`) act.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LossLayer {
    /// Each data-frame attempt may be corrupted; the MAC retransmits it (802.11 ARQ).
    #[default]
    Frame,
    /// Each packet the MAC delivered may be lost above the MAC (after its MAC ACK), so the
    /// loss rate is exactly what the transport sees: the "packet error rate" of studies
    /// that put their error model above the link's retransmissions.
    Packet,
}

/// Per-station settings.
#[derive(Clone, Debug)]
pub struct StaConfig {
    /// Node index in the simulation.
    pub node: u32,
    /// Node name (reports).
    pub name: String,
    /// Transmit queue capacity in frames (for the AP: all its buffered frames together).
    pub queue_limit: u32,
    /// Power management.
    pub power_save: PowerSave,
    /// Sleep → awake latency (from the device profile).
    pub wake_latency: Duration,
    /// Frame errors on frames the AP sends to this station.
    pub loss_down: LossProcess,
    /// Frame errors on frames this station sends to the AP.
    pub loss_up: LossProcess,
    /// The node has a radio meter (only then are its intervals reported).
    pub has_radio: bool,
    /// How data goes both ways between this station and the AP (None: the BSS's `tx`).
    pub tx: Option<wattlab_core::wlan::TxVector>,
}

/// Counters of one station.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StaStats {
    /// Data frames delivered (acknowledged).
    pub frames_sent: u64,
    /// IP bytes in delivered data frames.
    pub bytes_sent: u64,
    /// Transmission attempts of any frame (data, PS-Poll, Null).
    pub attempts: u64,
    /// IP bytes in every data-frame attempt, delivered or not: what the station put on the air
    /// (seed 003's Thr_max counts these).
    pub bytes_attempted: u64,
    /// Attempts that collided with another station's.
    pub collisions: u64,
    /// Accesses an AC of this station lost to a higher-priority AC of its own whose backoff
    /// ended in the same slot (EDCA's internal collisions, §10.23.2.4).
    pub internal_collisions: u64,
    /// Exchanges started within a TXOP already held, SIFS after the previous one (no backoff).
    pub txop_continuations: u64,
    /// Attempts lost to a frame error.
    pub frame_errors: u64,
    /// Delivered packets lost above the MAC (`loss_layer = "packet"`).
    pub packet_errors: u64,
    /// Frames dropped after the retry limit.
    pub retry_drops: u64,
    /// Frames refused because the transmit queue was full.
    pub queue_drops: u64,
    /// Largest queue length seen.
    pub max_queue: u64,
    /// PS-Polls sent successfully.
    pub ps_polls: u64,
    /// Null / QoS-Null frames sent successfully.
    pub null_frames: u64,
    /// Times the station went to doze.
    pub dozes: u64,
    /// Time spent dozing, ns (up to the last wake-up).
    pub doze_ns: u64,
    /// Time the medium carried exchanges this station started (its frames, their responses,
    /// its share of collisions as long as its own frame), ns.
    pub airtime_ns: u64,
    /// A-MPDUs sent (PPDUs under a Block Ack agreement; aggregated MACs only).
    pub ampdus: u64,
    /// MPDUs in those A-MPDUs (the mean aggregation size is `ampdu_mpdus / ampdus`).
    pub ampdu_mpdus: u64,
    /// MSDUs in those MPDUs (more than `ampdu_mpdus` only with A-MSDU).
    pub ampdu_msdus: u64,
    /// A-MPDU sizes: how many had 1, 2–3, 4–7, 8–15, 16–31, 32–63, 64–127, 128–256 MPDUs.
    #[serde(flatten)]
    pub ampdu_hist: AmpduHistogram,
    /// MPDUs sent again because a Block Ack did not list them or did not come.
    pub ba_retries: u64,
    /// A-MPDUs whose Block Ack did not come (collision, every MPDU lost, or the BA lost).
    pub ba_lost: u64,
    /// Block Ack agreements set up (ADDBA request/response exchanges).
    pub ba_setups: u64,
    /// BlockAckReq frames sent (attempts), each after MPDUs were dropped at the retry limit.
    pub bars: u64,
}

/// A-MPDU sizes in power-of-two buckets (fixed columns, nothing allocated per A-MPDU).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct AmpduHistogram {
    /// 1 MPDU.
    pub ampdu_1: u64,
    /// 2–3 MPDUs.
    pub ampdu_2_3: u64,
    /// 4–7 MPDUs.
    pub ampdu_4_7: u64,
    /// 8–15 MPDUs.
    pub ampdu_8_15: u64,
    /// 16–31 MPDUs.
    pub ampdu_16_31: u64,
    /// 32–63 MPDUs.
    pub ampdu_32_63: u64,
    /// 64–127 MPDUs.
    pub ampdu_64_127: u64,
    /// 128–256 MPDUs.
    pub ampdu_128_256: u64,
}

impl AmpduHistogram {
    /// Counts an A-MPDU of `n` MPDUs (n ≥ 1).
    pub fn add(&mut self, n: u32) {
        let b = match n {
            0..=1 => &mut self.ampdu_1,
            2..=3 => &mut self.ampdu_2_3,
            4..=7 => &mut self.ampdu_4_7,
            8..=15 => &mut self.ampdu_8_15,
            16..=31 => &mut self.ampdu_16_31,
            32..=63 => &mut self.ampdu_32_63,
            64..=127 => &mut self.ampdu_64_127,
            _ => &mut self.ampdu_128_256,
        };
        *b += 1;
    }
}

/// What the MAC asks of its host.
#[derive(Clone, Copy, Debug)]
pub enum MacOutput {
    /// Fire `timer` at `at` (ask again with [`Bss::handle_timer`]).
    Timer {
        /// When.
        at: Time,
        /// Which.
        timer: MacTimer,
    },
    /// `sta` starts sending `packet` for the first time (capture point of the sender).
    Transmit {
        /// Sender.
        sta: StaId,
        /// Frame to which station.
        to: StaId,
        /// The packet.
        packet: Packet,
    },
    /// `packet` arrived intact at `sta`, sent by `from`.
    Deliver {
        /// Receiver.
        sta: StaId,
        /// Sender.
        from: StaId,
        /// The packet.
        packet: Packet,
    },
    /// `sta`'s radio transmits or receives over `[start, end)`.
    Activity {
        /// The station.
        sta: StaId,
        /// Start.
        start: Time,
        /// End.
        end: Time,
        /// Transmit or receive.
        kind: Activity,
        /// Width and spatial streams of the PPDU on the air (from its `TxVector`; non-HT for
        /// control frames, beacons and what others hear of a collision): the radio meter
        /// charges the profile's power for them.
        shape: PpduShape,
        /// Tag of the data frame the air time serves (its RTS, CTS and ACK too), given with
        /// the packet ([`Bss::enqueue_tagged`]); 0 for frames of none (beacons, PS-Polls,
        /// Null triggers, what others hear of a collision).
        tag: u32,
    },
    /// Frames on the air were logged ([`Bss::take_air`]; only with a radiotap capture): sent
    /// once when the log stops being empty, so a host without a capture never looks for them.
    AirFrames,
    /// `sta`'s radio wakes up, dozes or is switched off at `at`.
    Power {
        /// The station.
        sta: StaId,
        /// When the radio is awake (wake-ups) or starts resting.
        at: Time,
        /// New state.
        state: PowerState,
    },
}

/// Timers of the MAC. Stale ones (an older `gen`) are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacTimer {
    /// Contention ended: the stations whose backoff ran out transmit.
    Access {
        /// Contention generation.
        gen: u32,
    },
    /// The data frame of the current exchange has arrived at its receiver.
    Delivered {
        /// Exchange generation.
        gen: u32,
    },
    /// The current exchange is over; the medium is idle.
    ExchangeEnd {
        /// Exchange generation.
        gen: u32,
    },
    /// Target beacon transmission time.
    Beacon,
    /// Seed 000's idealised PSM release instant.
    IdealRelease,
    /// SIFS after an exchange of a TXOP: its holder sends the next one.
    Burst {
        /// Generation of the exchange before.
        gen: u32,
    },
    /// A deadline of a station's power-save machine (a wake-up's end, BSD's active window,
    /// U-APSD's trigger clock); stale if the deadline moved.
    Station {
        /// The station.
        sta: StaId,
    },
}

/// What a queued frame carries.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Body {
    /// An IP packet.
    Data(Packet),
    /// A Null frame (QoS-Null trigger for U-APSD); with the PM bit it announces, if it
    /// announces one (adaptive PSM).
    Null(Option<bool>),
    /// A TWT Setup action frame: the station's request or the AP's response (`power.rs`),
    /// for an individual agreement or to join a broadcast schedule (`broadcast`).
    TwtSetup {
        /// Its TWT element carries a Broadcast TWT Parameter Set (shorter than an individual one).
        broadcast: bool,
    },
}

/// A frame waiting in a transmit queue.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub body: Body,
    /// Receiver (the AP for every station's frame).
    pub to: StaId,
    /// Unique id, so retry counters follow the frame they belong to.
    pub id: u64,
    /// Fair queueing's finish tag (AP frames under a fair discipline; 0 otherwise).
    pub finish: u64,
    /// The caller's tag for the frame (the simulator's flow tag), reported with its air time.
    pub tag: u32,
    /// Under a Block Ack agreement: the sequence number given at its first transmission
    /// ([`NO_SEQ`] before), its attempts so far and where it stands.
    pub ba: BaState,
    /// Its access category (`Ac as usize`; AC_BE under DCF).
    pub ac: u8,
    /// When it was queued.
    pub queued_at: Time,
}

/// Sequence number of an MPDU not sent yet.
pub(crate) const NO_SEQ: u32 = u32::MAX;

/// An MPDU's state under a Block Ack agreement (all false/zero outside one).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BaState {
    /// Sequence number (counted without the 12-bit wrap; windows are far smaller).
    pub seq: u32,
    /// Attempts so far.
    pub tries: u16,
    /// In the A-MPDU on the air.
    pub inflight: bool,
    /// The recipient has it (in its reorder buffer or passed up).
    pub received: bool,
    /// Passed up at the recipient, in order.
    pub delivered: bool,
    /// The originator got its Block Ack bit.
    pub acked: bool,
}

impl BaState {
    /// A frame just queued.
    pub(crate) const NEW: BaState = BaState { seq: NO_SEQ, tries: 0, inflight: false, received: false, delivered: false, acked: false };
}

/// One access category's EDCA function (EDCAF, IEEE 802.11-2020 §10.23.2.2): its queue's
/// length, its own contention window, backoff counter and retry state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edcaf {
    /// Frames of this AC in the station's queue.
    pub queued: u32,
    pub cw: u32,
    pub retries: u32,
    pub retry_id: u64,
    pub backoff: u32,
    pub backoff_active: bool,
    /// It had something to send at the last contention evaluation: an EDCAF that was already
    /// deferring when the medium turned busy keeps a zero backoff ([`Bss::contend`]).
    pub had_head: bool,
    /// Slots this AC's AIFS exceeds the shortest of the BSS (it counts its backoff only
    /// after them).
    pub aifs_off: u64,
    /// Contention window bounds.
    pub cw_min: u32,
    pub cw_max: u32,
    /// TXOP limit (zero: one exchange per access).
    pub txop_limit: Duration,
    /// When a frame of this AC last left the queue (delivered or dropped): the next one has
    /// been at the head of the AC's queue since then, or since it arrived if later.
    pub last_left: Time,
}

impl Edcaf {
    /// An idle EDCAF with access parameters (AIFS offset, CWmin, CWmax, TXOP limit).
    fn new(aifs_off: u64, cw_min: u32, cw_max: u32, txop_limit: Duration) -> Edcaf {
        Edcaf { queued: 0, cw: cw_min, retries: 0, retry_id: u64::MAX, backoff: 0, backoff_active: false, had_head: false, aifs_off, cw_min, cw_max, txop_limit, last_left: Time::ZERO }
    }
}

/// Counters of one access category at one station (its own transmissions).
#[derive(Clone, Copy, Debug, Default)]
pub struct AcStats {
    /// Data frames (MPDUs) delivered.
    pub frames: u64,
    /// IP bytes in them.
    pub bytes: u64,
    /// Time the medium carried exchanges this AC started, ns.
    pub airtime_ns: u64,
    /// Sum of the delivered frames' access delays (head of the AC's queue to acknowledgement), ns.
    pub delay_ns: u64,
}

impl Sta {
    /// Counts the delivery of data frame `f` (`ip_bytes`) at `now` in its AC's counters: its
    /// access delay runs from when it reached the head of its AC's queue (`head_since`, the
    /// previous frame's departure, or its own arrival if later).
    pub(crate) fn count_ac_delivery(&mut self, f: &Frame, ip_bytes: u32, head_since: Time, now: Time) {
        let a = &mut self.ac_stats[f.ac as usize];
        a.frames += 1;
        a.bytes += ip_bytes as u64;
        a.delay_ns += (now - head_since.max(f.queued_at)).as_nanos();
    }

    /// The EDCAF of the AC that holds (or last held) the station's access.
    #[inline]
    pub(crate) fn edcaf(&mut self) -> &mut Edcaf {
        &mut self.acs[self.cur]
    }

    /// [`Sta::edcaf`], read-only.
    #[inline]
    pub(crate) fn edcaf_ref(&self) -> &Edcaf {
        &self.acs[self.cur]
    }
}

/// One station's MAC state.
pub struct Sta {
    /// Settings.
    pub cfg: StaConfig,
    /// Counters.
    pub stats: StaStats,
    /// Every queued frame, each access category's in its own order: the AC's queue is the
    /// subsequence of its frames (one buffer, so the Block Ack state can live in place).
    pub(crate) queue: VecDeque<Frame>,
    /// Each access category's channel access function, in ACI order (`Ac as usize`); under
    /// DCF only AC_BE's is used.
    pub(crate) acs: [Edcaf; 4],
    /// The AC that won the station's last access: the exchange on the air (or just over)
    /// is its, and its backoff and retry state is what the exchange settles.
    pub(crate) cur: usize,
    pub(crate) rng: StreamRng,
    pub(crate) loss_rng: StreamRng,
    /// Power management: the station's machine (built again from `cfg` when the MAC starts).
    pub(crate) power: StationPower,
    /// The machine's radio state as the MAC reads it (copied after every call into it).
    pub(crate) awake: bool,
    pub(crate) waking: bool,
    /// The station must send a PS-Poll (the TIM said frames wait; More Data keeps it set).
    pub(crate) poll_pending: bool,
    /// Its uplink frames wait for the AP's triggers (trigger-enabled TWT; copied from the
    /// machine like `awake`).
    pub(crate) by_trigger: bool,
    /// Time of the [`MacTimer::Station`] event scheduled for it, if any.
    pub(crate) timer_at: Option<Time>,
    /// Block Ack agreements, one per AC (one TID each): this station → the AP, and the AP →
    /// this station.
    pub(crate) ba_up: [bool; 4],
    pub(crate) ba_down: [bool; 4],
    /// The originator of those flows owes a BlockAckReq (an MPDU was dropped), per AC.
    pub(crate) bar_up: [bool; 4],
    pub(crate) bar_down: [bool; 4],
    /// Next sequence number of those flows, per AC.
    pub(crate) seq_up: [u32; 4],
    pub(crate) seq_down: [u32; 4],
    /// MPDUs in its queue acknowledged and passed up (or dropped), not yet removed.
    pub(crate) gone: u32,
    /// Rates of the data MPDUs of this station's link: [station → AP, AP → station] (the
    /// AP's own entry stays empty).
    pub rate_use: [rate_use::RateUse; 2],
    /// PPDUs in a row without a Block Ack on [station → AP, AP → station]: the attempt index
    /// of the link's next A-MPDU in its rate controller's retry chain.
    pub(crate) ppdu_fails: [u32; 2],
    /// Counters per access category (ACI order).
    pub ac_stats: [AcStats; 4],
}

/// Counters of the whole BSS.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BssStats {
    /// Time the medium carried frames or exchanges (successful or not), ns.
    pub busy_ns: u64,
    /// Exchanges that delivered their frame.
    pub successes: u64,
    /// Contention rounds in which two or more stations transmitted.
    pub collisions: u64,
    /// Beacons sent.
    pub beacons: u64,
    /// Collisions in which one frame was captured (received despite the others; only with
    /// `[wlan.propagation]`, and then reported).
    #[serde(skip_serializing_if = "is_zero")]
    pub captures: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// The exchange on the air.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Exchange {
    pub kind: ExchangeKind,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum ExchangeKind {
    /// One station sent one frame; `ok` if it was received and acknowledged.
    Frame { sta: StaId, frame: Frame, ok: bool, rts: bool },
    /// A station polled; the AP answered with `response` (None: just an ACK).
    Poll { sta: StaId, response: Option<(usize, Frame)>, ok: bool },
    /// One station sent an A-MPDU of `n` MPDUs from sequence number `ssn` to `to`;
    /// `received` is the recipient's bitmap, `ba` whether its Block Ack reached the sender.
    Ampdu { sta: StaId, to: StaId, ssn: u32, n: u16, received: [u64; 4], ba: bool, rts: bool },
    /// A station set up a Block Ack agreement with `to` (ADDBA request and response); `ok`
    /// if every frame of the set-up arrived.
    AddBa { sta: StaId, to: StaId, ok: bool },
    /// A station sent a BlockAckReq to `to`; `ok` if its Block Ack came back.
    Bar { sta: StaId, to: StaId, ok: bool },
    /// The AP sent station `sta` a Basic Trigger frame (trigger-enabled TWT); the station's
    /// TB PPDU follows SIFS later as an exchange of its own (`power.rs`).
    Trigger { sta: StaId },
    /// Several stations transmitted in the same slot.
    Collision,
    /// The AP's beacon.
    Beacon,
}

/// One basic service set.
pub struct Bss {
    /// Name used in reports.
    pub name: String,
    /// MAC settings.
    pub cfg: MacConfig,
    /// Stations; index 0 is the AP.
    pub stas: Vec<Sta>,
    /// Counters.
    pub stats: BssStats,
    pub(crate) out: VecDeque<MacOutput>,
    pub(crate) busy: bool,
    /// Start of the backoff slot grid of the current idle period (idle start + IFS).
    pub(crate) grid_origin: Time,
    /// When the current idle period started.
    pub(crate) idle_since: Time,
    pub(crate) access_gen: u32,
    pub(crate) access_at: Option<Time>,
    pub(crate) exchange: Option<Exchange>,
    pub(crate) exchange_gen: u32,
    pub(crate) winners: Vec<StaId>,
    pub(crate) next_frame_id: u64,
    pub(crate) beacon_pending: bool,
    pub(crate) beacon_count: u64,
    /// The station answering a trigger now: it may transmit although its uplink waits for
    /// triggers.
    pub(crate) responding: Option<StaId>,
    /// Some station has a trigger-enabled TWT agreement (the AP looks for due triggers only
    /// then: contention asks on every evaluation).
    pub(crate) any_trigger: bool,
    pub(crate) ap_queue: FairQueue,
    /// Links with distance, rate control and capture (`[wlan.propagation]`; `link.rs`).
    pub(crate) link: Option<Box<Link>>,
    /// Block Acks to lose on purpose, the next ones first (tests of the BA-loss path; 0 in
    /// runs, where control responses are error-free as ACKs are).
    pub(crate) lose_responses: u32,
    /// The last A-MPDU length cap computed: (TX vector, time limit, byte limit, cap).
    pub(crate) psdu_cap_cache: Option<(wattlab_core::wlan::TxVector, Duration, u32, u32)>,
    /// The shortest AIFSN of the BSS: the backoff slot grid starts SIFS + this many slots
    /// after the medium goes idle (2 = DIFS under DCF).
    pub(crate) base_aifsn: u64,
    /// The TXOP on the air: its holder and when it ends (ACs with a TXOP limit; `txop.rs`).
    pub(crate) txop: Option<(StaId, Time)>,
    /// Whether [`MacOutput::Transmit`] is reported (its one use is a sender's capture: off
    /// when no station of the BSS is captured, so no packet is copied out per MPDU for
    /// nothing).
    pub(crate) report_transmits: bool,
    /// The frames on the air, logged for a radiotap capture (None: no capture, no cost).
    pub(crate) air: Option<Box<AirLog>>,
    /// When contention last evaluated every station: before `idle_since`, the medium has been
    /// busy since, and a frame first seen now arrived while it was (or, under DCF, while the
    /// station still deferred its IFS).
    pub(crate) evaluated_at: Time,
}

impl Bss {
    /// A BSS with the AP first in `stas`. `rngs` gives each station's (backoff, loss) streams.
    pub fn new(name: String, cfg: MacConfig, stas: Vec<StaConfig>, mut rngs: Vec<(StreamRng, StreamRng)>) -> Bss {
        assert_eq!(stas.len(), rngs.len());
        let ap_queue = FairQueue::new(cfg.ap_queueing, stas.len(), cfg.ap_power_save_weight);
        let base_aifsn = cfg.base_aifsn(stas.len());
        let stas = stas
            .into_iter()
            .zip(rngs.drain(..))
            .enumerate()
            .map(|(i, (c, (rng, loss_rng)))| Sta {
                queue: VecDeque::with_capacity(c.queue_limit.min(4096) as usize),
                // Both ends follow the agreement the AP's TWT Setup response carries (its
                // element's wake duration, rounded up); `cfg` keeps the requested mode.
                power: StationPower::new(c.power_save.on_air().expect("TWT durations are checked at build"), MacCaps::bss(c.wake_latency), cfg.beacon_interval),
                cfg: c,
                stats: StaStats::default(),
                acs: cfg.edcafs(i as StaId, base_aifsn),
                cur: Ac::Be as usize,
                rng,
                loss_rng,
                awake: true,
                waking: false,
                poll_pending: false,
                by_trigger: false,
                timer_at: None,
                ba_up: [false; 4],
                ba_down: [false; 4],
                bar_up: [false; 4],
                bar_down: [false; 4],
                seq_up: [0; 4],
                seq_down: [0; 4],
                rate_use: Default::default(),
                ppdu_fails: [0; 2],
                gone: 0,
                ac_stats: [AcStats::default(); 4],
            })
            .collect();
        Bss {
            name,
            cfg,
            stas,
            stats: BssStats::default(),
            out: VecDeque::with_capacity(64),
            busy: false,
            grid_origin: Time::ZERO,
            idle_since: Time::ZERO,
            access_gen: 0,
            access_at: None,
            exchange: None,
            exchange_gen: 0,
            winners: Vec::with_capacity(8),
            next_frame_id: 0,
            beacon_pending: false,
            beacon_count: 0,
            responding: None,
            any_trigger: false,
            ap_queue,
            link: None,
            lose_responses: 0,
            psdu_cap_cache: None,
            base_aifsn,
            txop: None,
            report_transmits: true,
            air: None,
            evaluated_at: Time::ZERO,
        }
    }

    /// Switches the BSS to the QoS MAC `qos` (None: legacy DCF) before it starts: each
    /// contender's AIFS and contention window follow.
    pub fn set_qos(&mut self, qos: Option<QosConfig>) {
        self.cfg.qos = qos;
        self.base_aifsn = self.cfg.base_aifsn(self.stas.len());
        for i in 0..self.stas.len() {
            self.stas[i].acs = self.cfg.edcafs(i as StaId, self.base_aifsn);
        }
    }

    /// Reports [`MacOutput::Transmit`] (the default) or not: a host that captures no sender
    /// turns it off.
    pub fn set_report_transmits(&mut self, on: bool) {
        self.report_transmits = on;
    }

    /// Starts the MAC at `now`: power-save stations go to doze, beacon timers are armed.
    pub fn start(&mut self, now: Time) {
        self.grid_origin = self.grid_after(now, true);
        self.idle_since = now;
        self.evaluated_at = now;
        self.start_power(now);
    }

    /// Hands `packet` from station `from` to the MAC, for station `to`. Returns false if the
    /// transmit queue was full (the packet is dropped and counted).
    pub fn enqueue(&mut self, now: Time, from: StaId, to: StaId, packet: Packet) -> bool {
        self.enqueue_tagged(now, from, to, packet, 0)
    }

    /// [`Bss::enqueue`], the frame's air time reported with `tag` ([`MacOutput::Activity`]).
    pub fn enqueue_tagged(&mut self, now: Time, from: StaId, to: StaId, packet: Packet, tag: u32) -> bool {
        self.push_tagged(now, from, to, Body::Data(packet), tag)
    }

    pub(crate) fn push_frame(&mut self, now: Time, from: StaId, to: StaId, body: Body) -> bool {
        self.push_tagged(now, from, to, body, 0)
    }

    fn push_tagged(&mut self, now: Time, from: StaId, to: StaId, body: Body, tag: u32) -> bool {
        let id = self.next_frame_id;
        let ac = self.classify(&body) as u8;
        // The frame is built where it is used (as wt-arrival did): building it once up front
        // and copying it into the queue cost a second copy per frame.
        let finish = if from == AP && self.ap_queue.is_fair() {
            if !self.ap_make_room(to, ac as usize) {
                return false;
            }
            let bytes = Self::mpdu_bytes(&Frame { body, to, id, finish: 0, tag, ba: BaState::NEW, ac, queued_at: now });
            let class = self.ap_class(to);
            self.ap_queue.tag(class, bytes)
        } else {
            0
        };
        let s = &mut self.stas[from as usize];
        // Each AC's queue holds up to `queue_limit` frames (DCF: the one queue).
        if s.acs[ac as usize].queued >= s.cfg.queue_limit {
            s.stats.queue_drops += 1;
            return false;
        }
        self.next_frame_id += 1;
        s.queue.push_back(Frame { body, to, id, finish, tag, ba: BaState::NEW, ac, queued_at: now });
        s.acs[ac as usize].queued += 1;
        s.stats.max_queue = s.stats.max_queue.max(s.queue.len() as u64);
        if from == AP {
            self.on_ap_enqueue(now, to);
        } else {
            self.on_sta_enqueue(now, from);
        }
        self.contend(now);
        true
    }

    /// The access category of a frame: from its packet's DSCP under EDCA ([`Ac::of_dscp`]);
    /// AC_BE under DCF and for QoS-Null triggers.
    #[inline]
    fn classify(&self, body: &Body) -> Ac {
        match body {
            Body::Data(p) if self.cfg.qos.is_some() => Ac::of_dscp(p.dscp),
            _ => Ac::Be,
        }
    }

    /// Removes the frame at `i` of `sta`'s queue.
    #[inline]
    pub(crate) fn take_frame(&mut self, sta: StaId, i: usize) -> Frame {
        let s = &mut self.stas[sta as usize];
        // Most frames leave from the front, where `pop_front` is cheaper than `remove`.
        let f = if i == 0 { s.queue.pop_front() } else { s.queue.remove(i) }.expect("index in range");
        s.acs[f.ac as usize].queued -= 1;
        f
    }

    /// Fires a timer the MAC asked for.
    pub fn handle_timer(&mut self, now: Time, timer: MacTimer) {
        match timer {
            MacTimer::Access { gen } if gen == self.access_gen && self.access_at == Some(now) => self.on_access(now),
            MacTimer::Delivered { gen } if gen == self.exchange_gen => self.on_delivered(now),
            MacTimer::ExchangeEnd { gen } if gen == self.exchange_gen => self.on_exchange_end(now),
            MacTimer::Beacon => self.on_beacon_timer(now),
            MacTimer::IdealRelease => self.on_ideal_release(now),
            MacTimer::Burst { gen } if gen == self.exchange_gen => self.on_burst(now),
            MacTimer::Station { sta } => self.on_station_timer(now, sta),
            _ => {}
        }
    }

    /// Next output for the host, if any.
    pub fn poll_output(&mut self) -> Option<MacOutput> {
        self.out.pop_front()
    }

    /// Frames waiting at a station (the AP: all of them, buffered ones included).
    pub fn queue_len(&self, sta: StaId) -> usize {
        self.stas[sta as usize].queue.len()
    }

    /// True if the station's radio is awake.
    pub fn is_awake(&self, sta: StaId) -> bool {
        self.stas[sta as usize].awake
    }

    fn timer(&mut self, at: Time, timer: MacTimer) {
        self.out.push_back(MacOutput::Timer { at, timer });
    }

    /// `sta`'s radio sends or receives a non-HT PPDU over `[start, end)` ([`Bss::ppdu_activity`]).
    fn activity(&mut self, sta: StaId, start: Time, end: Time, kind: Activity, tag: u32) {
        self.ppdu_activity(sta, start, end, kind, tag, PpduShape::NON_HT);
    }

    /// `sta`'s radio sends or receives a PPDU of `shape` over `[start, end)`, for data `tag`.
    fn ppdu_activity(&mut self, sta: StaId, start: Time, end: Time, kind: Activity, tag: u32, shape: PpduShape) {
        if self.stas[sta as usize].cfg.has_radio && end > start {
            self.out.push_back(MacOutput::Activity { sta, start, end, kind, shape, tag });
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_qos;
#[cfg(test)]
mod tests_model;
#[cfg(test)]
mod tests_ac;
#[cfg(test)]
mod tests_ba;
#[cfg(test)]
mod tests_amsdu;
#[cfg(test)]
mod tests_access;
