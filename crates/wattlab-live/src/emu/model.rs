//! The sans-IO path model (rate, queue, loss, delay and jitter, half-duplex hop, idealised PSM
//! or U-APSD at the AP).
//!
//! The emulated path is server ⇄ wired link ⇄ AP ⇄ wireless hop ⇄ client, four channels:
//! `wired_down` (server → AP), `hop_down` (AP → client), `hop_up` (client → AP) and
//! `wired_up` (AP → server). A packet from the server crosses `wired_down` then `hop_down`; one
//! from the client crosses `hop_up` then `wired_up`. Every channel is the simulator's
//! [`Channel`] (DropTail queue, serialization at rate + overhead, loss after serialization,
//! delay + jitter pipe); the hop's two channels may share the simulator's half-duplex
//! [`Medium`], and the hop may run the idealised PSM of the simulator's `[[wireless]]` hop:
//! the core's one station power-save machine ([`StationPower`] in `ideal-psm`, on a MAC with
//! [`MacCaps::HOP`]), driven as the simulator drives it. Events run on the simulator's
//! [`Scheduler`], so ties break in the order they were scheduled, as in the simulator.
//!
//! The model never reads a clock: the host calls [`PathEmulator::offer`] when a packet reaches
//! the AP namespace, sleeps until [`PathEmulator::poll_timeout`], calls
//! [`PathEmulator::handle_timeout`], and gives each token from [`PathEmulator::poll_output`]
//! its verdict. Internally time runs from `origin` (beacon 0), so the station's beacon instants
//! are `origin + k · beacon_interval`.

use serde::Serialize;
use std::collections::VecDeque;
use wattlab_core::{Duration, Time};
use wattlab_sim::engine::Scheduler;
use wattlab_core::power::{MacCaps, MacView, PowerSave, PowerState, StationEvent, StationPower, StationStats};
use wattlab_sim::hop_power;
use wattlab_sim::link::{Channel, LinkPacket, Medium};
use wattlab_sim::rng::RngStreams;

pub use wattlab_sim::impairment::{Jitter, LossProcess};
pub use wattlab_sim::link::{ChannelParams, ChannelStats, QueueLimit};

/// Index of `wired_down` (server → AP) in the model's channels.
const WIRED_DOWN: usize = 0;
/// Index of `hop_down` (AP → client).
const HOP_DOWN: usize = 1;
/// Index of `hop_up` (client → AP).
const HOP_UP: usize = 2;
/// Index of `wired_up` (AP → server).
const WIRED_UP: usize = 3;
/// Channel names, in index order: report names and RNG stream names (`loss:hop_down`, ...).
const NAMES: [&str; 4] = ["wired_down", "hop_down", "hop_up", "wired_up"];

/// The emulated path: its four channels, the hop's sharing and power saving, the run seed.
#[derive(Clone, Debug)]
pub struct PathParams {
    /// Server → AP.
    pub wired_down: ChannelParams,
    /// AP → client (the wireless hop's downlink).
    pub hop_down: ChannelParams,
    /// Client → AP (the wireless hop's uplink).
    pub hop_up: ChannelParams,
    /// AP → server.
    pub wired_up: ChannelParams,
    /// `hop_down` and `hop_up` share one transmitter (the simulator's half-duplex medium).
    pub half_duplex: bool,
    /// `Some(beacon interval)`: idealised PSM on `hop_down`, beacons from the origin.
    pub psm_beacon: Option<Duration>,
    /// U-APSD on the hop instead (the SCTP tunnel's live run): the AP holds the dozing
    /// station's frames until an uplink frame triggers their release (the core's
    /// [`StationPower`] in `u-apsd`, no periodic trigger: the tunnel sends its own).
    pub uapsd: bool,
    /// Any other registry mode on the hop (`adaptive-psm`), run by the core's machine as
    /// the simulator's `[[wireless]]` hop runs it, with beacon instants every `psm_beacon`
    /// (102.4 ms without it); wins over `psm_beacon`'s idealised PSM and `uapsd`.
    pub mode: Option<PowerSave>,
    /// Run seed of the loss and jitter streams.
    pub seed: u64,
    /// Names of the four channels, in the order above, for reports and RNG streams
    /// (`loss:NAME`, `jitter:NAME`); None = `wired_down`, `hop_down`, `hop_up`, `wired_up`.
    /// Given the simulator's channel names, a live run draws the same loss and jitter
    /// sequences as the simulation of the same scenario and seed (common random numbers).
    pub names: Option<[String; 4]>,
}

/// Where a packet enters the path, and where it leaves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the server, towards the client (`wired_down` then `hop_down`).
    Down,
    /// From the client, towards the server (`hop_up` then `wired_up`).
    Up,
    /// From the server to the AP itself (`wired_down` only): a daemon on the AP.
    ServerToAp,
    /// From the AP itself to the client (`hop_down` only).
    ApToClient,
    /// From the client to the AP itself (`hop_up` only).
    ClientToAp,
    /// From the AP itself to the server (`wired_up` only).
    ApToServer,
}

impl Direction {
    /// The first and the last channel the packet crosses.
    fn legs(self) -> (usize, usize) {
        match self {
            Direction::Down => (WIRED_DOWN, HOP_DOWN),
            Direction::Up => (HOP_UP, WIRED_UP),
            Direction::ServerToAp => (WIRED_DOWN, WIRED_DOWN),
            Direction::ApToClient => (HOP_DOWN, HOP_DOWN),
            Direction::ClientToAp => (HOP_UP, HOP_UP),
            Direction::ApToServer => (WIRED_UP, WIRED_UP),
        }
    }
}

/// What happened to a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fate {
    /// It reaches the far end of the path (accept it at the reported time).
    Deliver,
    /// It is lost on the way (drop it); which channel dropped it is counted in [`PathStats`].
    Drop(DropReason),
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// A channel's DropTail queue was full when it arrived.
    QueueFull,
    /// A channel's loss process took it after serialization.
    Loss,
    /// It reached the station while the station's radio was off (a driven radio, e.g. PSNA's).
    RadioOff,
}

/// Counters of a path (JSON-serializable for the run's report).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PathStats {
    /// Packets offered from the server side.
    pub offered_down: u64,
    /// Packets offered from the client side.
    pub offered_up: u64,
    /// Server → AP channel.
    pub wired_down: ChannelStats,
    /// AP → client channel.
    pub hop_down: ChannelStats,
    /// Client → AP channel.
    pub hop_up: ChannelStats,
    /// AP → server channel.
    pub wired_up: ChannelStats,
    /// The station's power-save counters (bursts, packets held and released, dozes), if
    /// idealised PSM or U-APSD runs; a doze in progress is counted up to the model's latest time.
    pub psm: Option<StationStats>,
    /// Packets that reached the station while its driven radio was off (lost, as on the
    /// simulator's `[[wireless]]` hop: no PM bit, the AP does not hold them).
    pub dropped_radio_off: u64,
}

/// A packet in the model: its IP length, the channel where it leaves the path, and the host's
/// token for it.
struct Frame<T> {
    len: u32,
    last: usize,
    token: T,
}

impl<T> LinkPacket for Frame<T> {
    fn ip_len(&self) -> u32 {
        self.len
    }
}

/// Internal events (times relative to the origin); channels by index (`WIRED_DOWN`...).
#[derive(Clone, Copy, Debug)]
enum Event {
    /// The channel finished serializing its packet.
    TxDone(usize),
    /// The head of the channel's pipe reaches its far end.
    Arrive(usize),
    /// A deadline of the hop station's power machine (stale if it moved).
    Power,
}

/// The real-time link emulator's model of the path: feed it packets, it decides when each
/// arrives at the far end (or that it is dropped). `T` is the host's handle for a packet.
pub struct PathEmulator<T> {
    /// Absolute time of the model's t = 0 (beacon 0).
    origin: Time,
    /// Latest time the host told us about, relative to the origin.
    clock: Time,
    channels: [Channel<Frame<T>>; 4],
    /// The hop's shared transmitter, if half-duplex.
    medium: Option<Medium>,
    /// The hop station's power machine (idealised PSM), if enabled.
    power: Option<StationPower>,
    /// The time of the scheduled `Power` event, if any (an earlier deadline gets its own).
    power_at: Option<Time>,
    sched: Scheduler<Event>,
    out: VecDeque<(T, Fate, Time)>,
    radio: VecDeque<(Time, bool)>,
    /// The station's radio as its own host drives it (PSNA's mobile); off = frames reaching
    /// it are lost.
    station_on: bool,
    stats: PathStats,
}

impl<T> PathEmulator<T> {
    /// A model with empty queues whose timeline starts at `origin` (the time of beacon 0).
    pub fn new(params: PathParams, origin: Time) -> Self {
        let streams = RngStreams::new(params.seed);
        let PathParams { wired_down, hop_down, hop_up, wired_up, half_duplex, psm_beacon, uapsd, mode, names, .. } = params;
        let names = names.unwrap_or_else(|| NAMES.map(String::from));
        let mut k = 0;
        let channels = [wired_down, hop_down, hop_up, wired_up].map(|p| {
            let c = Channel::new(names[k].clone(), k as u32, k as u32, p, &streams);
            k += 1;
            c
        });
        let medium = half_duplex.then_some(Medium { channels: [HOP_DOWN as u32, HOP_UP as u32], busy_with: None, next_turn: 0 });
        // As the simulator's `[[wireless]]` hop: ideal PSM releases at its beacon instants.
        let power = if let Some(mode) = mode.filter(|m| m.saves_power()) {
            Some(StationPower::new(mode, MacCaps::HOP, psm_beacon.unwrap_or(Duration::from_micros(102_400))))
        } else if uapsd {
            let beacon = psm_beacon.unwrap_or(Duration::from_micros(102_400));
            Some(StationPower::new(PowerSave::Uapsd { trigger_interval: None, max_sp: 0 }, MacCaps::HOP, beacon))
        } else {
            psm_beacon.map(|beacon| StationPower::new(PowerSave::IdealPsm { interval: beacon }, MacCaps::HOP, beacon))
        };
        let mut emu = PathEmulator {
            origin,
            clock: Time::ZERO,
            channels,
            medium,
            power,
            power_at: None,
            sched: Scheduler::new(),
            out: VecDeque::with_capacity(1024),
            radio: VecDeque::new(),
            station_on: true,
            stats: PathStats::default(),
        };
        if let Some(p) = emu.power.as_mut() {
            p.start(Time::ZERO); // the station dozes once the origin's events have run
        }
        emu.drain_power(Time::ZERO);
        emu.sync_stats();
        emu
    }

    /// The absolute time of beacon 0.
    pub fn origin(&self) -> Time {
        self.origin
    }

    /// A packet of `ip_len` bytes reaches the AP namespace at `now` from `dir`'s end; `token`
    /// comes back from [`PathEmulator::poll_output`] with its fate. Runs the events due up to
    /// `now` first; `now` should not decrease between calls (an earlier one counts as the
    /// latest time seen, as does a time before the origin).
    pub fn offer(&mut self, now: Time, dir: Direction, ip_len: u32, token: T) {
        self.run_until(now);
        let t = self.clock;
        let (first, last) = dir.legs();
        match first {
            WIRED_DOWN | HOP_DOWN => self.stats.offered_down += 1,
            _ => self.stats.offered_up += 1,
        }
        self.enqueue(t, first, Frame { len: ip_len, last, token });
        self.sync_stats();
    }

    /// The station's own host switched its radio on or off at `now` (a driven radio: PSNA's
    /// mobile). While it is off, a frame that reaches the end of `hop_down` is lost.
    pub fn set_station_radio(&mut self, now: Time, on: bool) {
        self.run_until(now);
        self.station_on = on;
    }

    /// When the next internal event is due (absolute), if any.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.sched.peek_time().map(|t| self.abs(t))
    }

    /// Runs every event due at or before `now`, each at its own scheduled time.
    pub fn handle_timeout(&mut self, now: Time) {
        self.run_until(now);
        self.sync_stats();
    }

    /// The next token whose fate is decided, with the model time of its delivery or drop.
    pub fn poll_output(&mut self) -> Option<(T, Fate, Time)> {
        self.out.pop_front()
    }

    /// PSM only: the next change of the station's radio, `(time, awake after it)`, in time
    /// order (the first is the doze at the origin; poll them, or they pile up).
    pub fn poll_radio(&mut self) -> Option<(Time, bool)> {
        self.radio.pop_front()
    }

    /// True while the PSM station is awake; None without PSM.
    pub fn station_awake(&self) -> Option<bool> {
        self.power.as_ref().map(|p| p.is_awake())
    }

    /// Counters per channel and of the PSM, as of the latest call.
    pub fn stats(&self) -> &PathStats {
        &self.stats
    }

    // ---- the model ------------------------------------------------------------------------

    fn abs(&self, t: Time) -> Time {
        Time(t.0.saturating_add(self.origin.0))
    }

    /// Advances the model to `now` (absolute; never backwards), running the due events.
    fn run_until(&mut self, now: Time) {
        self.clock = self.clock.max(Time(now.0.saturating_sub(self.origin.0)));
        while let Some((t, ev)) = self.sched.pop_until(self.clock) {
            match ev {
                Event::TxDone(ch) => self.on_tx_done(t, ch),
                Event::Arrive(ch) => self.on_arrive(t, ch),
                Event::Power => {
                    if self.power_at == Some(t) {
                        self.power_at = None;
                    }
                    let view = self.hop_view();
                    if let Some(p) = self.power.as_mut().filter(|p| p.poll_timeout().is_some_and(|d| d <= t)) {
                        p.handle_timeout(t, view);
                    }
                    self.drain_power(t);
                }
            }
        }
    }

    fn decide(&mut self, t: Time, token: T, fate: Fate) {
        let at = self.abs(t);
        self.out.push_back((token, fate, at));
    }

    fn enqueue(&mut self, t: Time, ch: usize, f: Frame<T>) {
        if let Err(f) = self.channels[ch].enqueue(f) {
            self.decide(t, f.token, Fate::Drop(DropReason::QueueFull));
            return;
        }
        if let Some(p) = self.power.as_mut() {
            match ch {
                HOP_UP => p.handle_own_frame(t),
                HOP_DOWN => p.handle_ap_queued(t),
                _ => {}
            }
            self.drain_power(t);
        }
        self.kick(t, ch);
    }

    /// True if `ch` has work and may start it (a PSM AP may be holding).
    fn can_start(&self, ch: usize) -> bool {
        self.channels[ch].ready() && (ch != HOP_DOWN || self.power.as_ref().is_none_or(|p| p.ap_may_send()))
    }

    /// Starts a transmission on `ch` (or on the hop's medium) if it is free and has work.
    fn kick(&mut self, t: Time, ch: usize) {
        let on_medium = ch == HOP_DOWN || ch == HOP_UP;
        match self.medium.as_ref() {
            Some(m) if on_medium => {
                if m.busy_with.is_some() {
                    return;
                }
                let [a, b] = m.channels;
                let ready = [self.can_start(a as usize), self.can_start(b as usize)];
                let m = self.medium.as_mut().expect("checked above");
                if let Some(next) = m.pick(ready) {
                    m.busy_with = Some(next);
                    self.start_tx(t, next as usize);
                }
            }
            _ => {
                if self.can_start(ch) {
                    self.start_tx(t, ch);
                }
            }
        }
    }

    fn start_tx(&mut self, t: Time, ch: usize) {
        let Some((end, _)) = self.channels[ch].start_tx(t) else { return };
        self.sched.schedule(end, Event::TxDone(ch));
        if ch == HOP_DOWN {
            if let Some(p) = self.power.as_mut() {
                p.handle_ap_sent();
            }
        }
    }

    fn on_tx_done(&mut self, t: Time, ch: usize) {
        match self.channels[ch].finish_tx(t) {
            None => return,
            Some(Ok(at)) => self.sched.schedule(at, Event::Arrive(ch)),
            Some(Err(f)) => self.decide(t, f.token, Fate::Drop(DropReason::Loss)),
        }
        let on_medium = ch == HOP_DOWN || ch == HOP_UP;
        if let Some(m) = self.medium.as_mut().filter(|_| on_medium) {
            m.busy_with = None;
        }
        self.kick(t, ch);
        if on_medium && self.power.is_some() {
            let view = self.hop_view();
            let p = self.power.as_mut().expect("checked above");
            if ch == HOP_UP {
                p.handle_uplink_sent(t, true, view);
            }
            p.handle_idle(t, view);
            self.drain_power(t);
        }
    }

    fn on_arrive(&mut self, t: Time, ch: usize) {
        let Some((_, f)) = self.channels[ch].pipe.pop_front() else { return };
        self.channels[ch].stats.packets_delivered += 1;
        match ch {
            _ if ch != f.last => self.enqueue(t, if ch == WIRED_DOWN { HOP_DOWN } else { WIRED_UP }, f),
            HOP_DOWN if !self.station_on => {
                self.stats.dropped_radio_off += 1;
                self.decide(t, f.token, Fate::Drop(DropReason::RadioOff));
            }
            _ => self.decide(t, f.token, Fate::Deliver),
        }
        if ch == HOP_DOWN && self.power.is_some() {
            let view = self.hop_view();
            let p = self.power.as_mut().expect("checked above");
            if p.downlink_matters() {
                p.handle_downlink(t);
            }
            p.handle_idle(t, view);
            self.drain_power(t);
        }
    }

    /// The hop as the station's power machine sees it (as in the simulator).
    fn hop_view(&self) -> MacView {
        hop_power::view(&self.channels[HOP_DOWN], &self.channels[HOP_UP])
    }

    /// Carries out what the station's power machine asked for, and keeps an event at its
    /// next deadline.
    fn drain_power(&mut self, t: Time) {
        while let Some(e) = self.power.as_mut().and_then(|p| p.poll_event()) {
            match e {
                StationEvent::Power { at, state } => {
                    let at = self.abs(at);
                    self.radio.push_back((at, state == PowerState::Awake));
                }
                StationEvent::Release => self.kick(t, HOP_DOWN),
                // The hop has no latency, no PS-Polls and no Null frames (MacCaps::HOP).
                StationEvent::Ready | StationEvent::PsPoll | StationEvent::Trigger | StationEvent::PmNull { .. } | StationEvent::TwtSetup => {}
            }
        }
        if let Some(d) = self.power.as_ref().and_then(|p| p.poll_timeout()) {
            if self.power_at.is_none_or(|s| d < s) {
                self.power_at = Some(d);
                self.sched.schedule(d, Event::Power);
            }
        }
    }

    /// Copies the channels' and the PSM's counters into `stats` (no allocation).
    fn sync_stats(&mut self) {
        let [wd, hd, hu, wu] = &self.channels;
        self.stats.wired_down.clone_from(&wd.stats);
        self.stats.hop_down.clone_from(&hd.stats);
        self.stats.hop_up.clone_from(&hu.stats);
        self.stats.wired_up.clone_from(&wu.stats);
        self.stats.psm = self.power.as_ref().map(|p| p.stats_at(self.clock));
    }
}
