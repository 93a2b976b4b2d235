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

mod ampdu;
mod dcf;
mod edca;
mod link;
mod power;
mod queue;
pub mod rate;
pub mod rate_use;

use crate::net::impairment::LossProcess;
use crate::rng::StreamRng;
use serde::Serialize;
use std::collections::VecDeque;
use wattlab_core::energy::Activity;
use wattlab_core::power::{MacCaps, PowerState, StationPower};
use wattlab_core::wlan::{PhyProfile, PpduShape};

pub use wattlab_core::power::{PowerSave, PowerSaveSettings};
use wattlab_core::{Duration, Packet, Time};

pub use edca::{Ac, AcParams, Aggregation, EdcaSet, QosConfig};
pub use link::Link;
pub use queue::ApQueueing;
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
    /// Channel-access priority of the AP (None: the AP contends like every station). With
    /// `qos`, it replaces the AP's AC_BE parameters.
    pub ap_priority: Option<ApPriority>,
    /// The QoS MAC (EDCA, A-MPDU with Block Ack) of the HT/VHT/HE PHYs; None: legacy DCF.
    pub qos: Option<QosConfig>,
}

impl MacConfig {
    /// (AIFSN, CWmin, CWmax) station `sta` contends with: AIFSN 2 (DIFS) and the PHY's window
    /// under DCF, its AC_BE parameters under EDCA; `ap_priority` overrides the AP's.
    pub fn access_params(&self, sta: StaId) -> (u32, u32, u32) {
        match (self.ap_priority, self.qos) {
            (Some(p), _) if sta == AP => (p.aifs_slots, p.cw_min, p.cw_max),
            (_, Some(q)) => {
                let p = q.edca.params(sta == AP, Ac::Be);
                (p.aifsn, p.cw_min, p.cw_max)
            }
            _ => (2, self.phy.cw_min, self.phy.cw_max),
        }
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
    /// A Null frame (QoS-Null trigger for U-APSD).
    Null,
    /// A TWT Setup action frame: the station's request or the AP's response (`power.rs`).
    TwtSetup,
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

/// One station's MAC state.
pub struct Sta {
    /// Settings.
    pub cfg: StaConfig,
    /// Counters.
    pub stats: StaStats,
    pub(crate) queue: VecDeque<Frame>,
    pub(crate) cw: u32,
    pub(crate) retries: u32,
    pub(crate) retry_id: u64,
    pub(crate) backoff: u32,
    pub(crate) backoff_active: bool,
    /// It had something to send at the last contention evaluation (a frame arriving at an
    /// empty queue is told from one behind others by this).
    pub(crate) had_head: bool,
    pub(crate) rng: StreamRng,
    pub(crate) loss_rng: StreamRng,
    /// Slots this station's AIFS exceeds the shortest of the BSS (it counts its backoff only
    /// after them).
    pub(crate) aifs_off: u64,
    /// Contention window bounds.
    pub(crate) cw_min: u32,
    pub(crate) cw_max: u32,
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
    /// Block Ack agreements (one TID): this station → the AP, and the AP → this station.
    pub(crate) ba_up: bool,
    pub(crate) ba_down: bool,
    /// The originator of those two flows owes a BlockAckReq (an MPDU was dropped).
    pub(crate) bar_up: bool,
    pub(crate) bar_down: bool,
    /// Next sequence number of those two flows.
    pub(crate) seq_up: u32,
    pub(crate) seq_down: u32,
    /// MPDUs in its queue acknowledged and passed up (or dropped), not yet removed.
    pub(crate) gone: u32,
    /// Rates of the data MPDUs of this station's link: [station → AP, AP → station] (the
    /// AP's own entry stays empty).
    pub rate_use: [rate_use::RateUse; 2],
    /// PPDUs in a row without a Block Ack on [station → AP, AP → station]: the attempt index
    /// of the link's next A-MPDU in its rate controller's retry chain.
    pub(crate) ppdu_fails: [u32; 2],
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
    /// Whether [`MacOutput::Transmit`] is reported (its one use is a sender's capture: off
    /// when no station of the BSS is captured, so no packet is copied out per MPDU for
    /// nothing).
    pub(crate) report_transmits: bool,
    /// The medium has been busy at least once (before that it counts as idle for long enough
    /// for immediate access).
    pub(crate) medium_used: bool,
}

impl Bss {
    /// A BSS with the AP first in `stas`. `rngs` gives each station's (backoff, loss) streams.
    pub fn new(name: String, cfg: MacConfig, stas: Vec<StaConfig>, mut rngs: Vec<(StreamRng, StreamRng)>) -> Bss {
        assert_eq!(stas.len(), rngs.len());
        let ap_queue = FairQueue::new(cfg.ap_queueing, stas.len());
        let base_aifsn = (0..stas.len() as StaId).map(|i| cfg.access_params(i).0).min().unwrap_or(2) as u64;
        let stas = stas
            .into_iter()
            .zip(rngs.drain(..))
            .enumerate()
            .map(|(i, (c, (rng, loss_rng)))| {
                let (aifsn, cw_min, cw_max) = cfg.access_params(i as StaId);
                Sta {
                queue: VecDeque::with_capacity(c.queue_limit.min(4096) as usize),
                power: StationPower::new(c.power_save, MacCaps::bss(c.wake_latency), cfg.beacon_interval),
                cfg: c,
                stats: StaStats::default(),
                cw: cw_min,
                cw_min,
                cw_max,
                aifs_off: aifsn as u64 - base_aifsn,
                retries: 0,
                retry_id: u64::MAX,
                backoff: 0,
                backoff_active: false,
                had_head: false,
                rng,
                loss_rng,
                awake: true,
                waking: false,
                poll_pending: false,
                by_trigger: false,
                timer_at: None,
                ba_up: false,
                ba_down: false,
                bar_up: false,
                bar_down: false,
                seq_up: 0,
                seq_down: 0,
                rate_use: Default::default(),
                ppdu_fails: [0; 2],
                gone: 0,
            }})
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
            report_transmits: true,
            medium_used: false,
        }
    }

    /// Switches the BSS to the QoS MAC `qos` (None: legacy DCF) before it starts: each
    /// contender's AIFS and contention window follow.
    pub fn set_qos(&mut self, qos: Option<QosConfig>) {
        self.cfg.qos = qos;
        self.base_aifsn = (0..self.stas.len() as StaId).map(|i| self.cfg.access_params(i).0).min().unwrap_or(2) as u64;
        for i in 0..self.stas.len() {
            let (aifsn, cw_min, cw_max) = self.cfg.access_params(i as StaId);
            let s = &mut self.stas[i];
            (s.aifs_off, s.cw_min, s.cw_max, s.cw) = (aifsn as u64 - self.base_aifsn, cw_min, cw_max, cw_min);
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
        let finish = if from == AP && self.ap_queue.is_fair() {
            if !self.ap_make_room(to) {
                return false;
            }
            let bytes = Self::mpdu_bytes(&Frame { body, to, id, finish: 0, tag, ba: BaState::NEW });
            let class = self.ap_class(to);
            self.ap_queue.tag(class, bytes)
        } else {
            0
        };
        let s = &mut self.stas[from as usize];
        if s.queue.len() >= s.cfg.queue_limit as usize {
            s.stats.queue_drops += 1;
            return false;
        }
        self.next_frame_id += 1;
        s.queue.push_back(Frame { body, to, id, finish, tag, ba: BaState::NEW });
        s.stats.max_queue = s.stats.max_queue.max(s.queue.len() as u64);
        if from == AP {
            self.on_ap_enqueue(now, to);
        } else {
            self.on_sta_enqueue(now, from);
        }
        self.contend(now);
        true
    }

    /// Fires a timer the MAC asked for.
    pub fn handle_timer(&mut self, now: Time, timer: MacTimer) {
        match timer {
            MacTimer::Access { gen } if gen == self.access_gen && self.access_at == Some(now) => self.on_access(now),
            MacTimer::Delivered { gen } if gen == self.exchange_gen => self.on_delivered(now),
            MacTimer::ExchangeEnd { gen } if gen == self.exchange_gen => self.on_exchange_end(now),
            MacTimer::Beacon => self.on_beacon_timer(now),
            MacTimer::IdealRelease => self.on_ideal_release(now),
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
mod tests_ba;
