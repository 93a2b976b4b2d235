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

mod dcf;
mod link;
mod power;
mod queue;
pub mod rate;

use crate::net::impairment::LossProcess;
use crate::rng::StreamRng;
use serde::Serialize;
use std::collections::VecDeque;
use wattlab_core::energy::Activity;
use wattlab_core::power::{MacCaps, PowerState, StationPower};
use wattlab_core::wlan::PhyProfile;

pub use wattlab_core::power::{PowerSave, PowerSaveSettings};
use wattlab_core::{Duration, Packet, Time};

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
    /// Channel-access priority of the AP (None: the AP contends like every station).
    pub ap_priority: Option<ApPriority>,
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

    /// Slots the AP's backoff runs ahead of the stations' (DIFS − AIFS, in slots).
    pub fn lead_slots(&self) -> u64 {
        2u64.saturating_sub(self.aifs_slots as u64)
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
    pub(crate) rng: StreamRng,
    pub(crate) loss_rng: StreamRng,
    /// Power management: the station's machine (built again from `cfg` when the MAC starts).
    pub(crate) power: StationPower,
    /// The machine's radio state as the MAC reads it (copied after every call into it).
    pub(crate) awake: bool,
    pub(crate) waking: bool,
    /// The station must send a PS-Poll (the TIM said frames wait; More Data keeps it set).
    pub(crate) poll_pending: bool,
    /// Time of the [`MacTimer::Station`] event scheduled for it, if any.
    pub(crate) timer_at: Option<Time>,
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
    pub(crate) ap_queue: FairQueue,
    /// Slots the AP's backoff grid runs ahead of the stations' ([`ApPriority::lead_slots`]).
    pub(crate) lead: u64,
    /// Links with distance, rate control and capture (`[wlan.propagation]`; `link.rs`).
    pub(crate) link: Option<Box<Link>>,
}

impl Bss {
    /// A BSS with the AP first in `stas`. `rngs` gives each station's (backoff, loss) streams.
    pub fn new(name: String, cfg: MacConfig, stas: Vec<StaConfig>, mut rngs: Vec<(StreamRng, StreamRng)>) -> Bss {
        assert_eq!(stas.len(), rngs.len());
        let cw = cfg.phy.cw_min;
        let cfg_lead = cfg.ap_priority.map_or(0, |p| p.lead_slots());
        let ap_queue = FairQueue::new(cfg.ap_queueing, stas.len());
        let ap_cw = cfg.ap_priority.map_or(cw, |p| p.cw_min);
        let stas = stas
            .into_iter()
            .zip(rngs.drain(..))
            .enumerate()
            .map(|(i, (c, (rng, loss_rng)))| Sta {
                queue: VecDeque::with_capacity(c.queue_limit.min(4096) as usize),
                power: StationPower::new(c.power_save, MacCaps::bss(c.wake_latency), cfg.beacon_interval),
                cfg: c,
                stats: StaStats::default(),
                cw: if i == AP as usize { ap_cw } else { cw },
                retries: 0,
                retry_id: u64::MAX,
                backoff: 0,
                backoff_active: false,
                rng,
                loss_rng,
                awake: true,
                waking: false,
                poll_pending: false,
                timer_at: None,
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
            ap_queue,
            lead: cfg_lead,
            link: None,
        }
    }

    /// Starts the MAC at `now`: power-save stations go to doze, beacon timers are armed.
    pub fn start(&mut self, now: Time) {
        self.grid_origin = now + self.cfg.phy.difs() - self.lead_time();
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
            let bytes = Self::mpdu_bytes(&Frame { body, to, id, finish: 0, tag });
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
        s.queue.push_back(Frame { body, to, id, finish, tag });
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

    fn activity(&mut self, sta: StaId, start: Time, end: Time, kind: Activity, tag: u32) {
        if self.stas[sta as usize].cfg.has_radio && end > start {
            self.out.push_back(MacOutput::Activity { sta, start, end, kind, tag });
        }
    }
}

#[cfg(test)]
mod tests;
