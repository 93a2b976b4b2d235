//! One station's power saving as a sans-IO state machine: the rules of every registry mode
//! (`cam`, `psm`, `ideal-psm`, `bsd-P`, `u-apsd`, and `external`, which a driver commands),
//! and the AP's holding for the station, on any MAC whose abilities [`MacCaps`] describes.
//!
//! The MAC drives it: `handle_*` inputs with the time (its own frames, the AP's, beacons,
//! a driver's commands), [`StationPower::handle_timeout`] once [`StationPower::poll_timeout`]
//! is due, and a [`MacView`] of what the MAC is doing for the station where the rules need
//! it. Out come [`StationEvent`]s ([`StationPower::poll_event`]): the radio dozes or wakes,
//! the AP may send again, send a PS-Poll or a U-APSD trigger. Queries say whether the AP may
//! send to the station now and whether an arriving frame reaches it.
//!
//! - **cam**: always awake; the AP never holds.
//! - **psm**: dozes when idle; wakes for every `listen_interval`-th beacon; learns from the TIM
//!   (or at once, without beacons) whether frames wait and fetches them (PS-Polls, or one burst).
//! - **ideal-psm**: at release instants the AP sends everything it held as one burst and the
//!   station is awake for it, at no latency or cost; it dozes after the burst and its own frames.
//! - **bsd-P**: active (awake, the AP delivering directly) for `beacon / P` after every uplink
//!   data frame; then it dozes and listens to beacons no more than P % of the time since that
//!   frame apart (≤ 0.9 s), retrieving as PSM does.
//! - **u-apsd**: every uplink frame is a trigger: the AP releases what it held (a service
//!   period, all or `max_sp`); an optional periodic trigger when nothing else went uplink.
//! - **external**: a driver commands wake, sleep or off. With the PM bit the AP holds while the
//!   driver has the station asleep and sleep waits until the station is idle; without it
//!   commands act at once and frames reaching a sleeping station are lost.
//!
//! Own frames wake a dozing station in every mode but `cam` and a PM-less `external` (whose
//! radio wakes just for the transmission, as the meter sees it). Time never goes backwards
//! between calls; the machine allocates nothing after it is built.

use super::save::{bsd_window, next_instant, MacCaps, PowerSave};
use crate::{Duration, Time};
use std::collections::VecDeque;

mod steps;
mod types;

pub use types::{Command, MacView, PowerState, StationEvent, StationStats};


/// Deadlines, by slot: settle (the first doze), ready (a wake-up for own frames), wake (a
/// wake instant of the machine's own clock), window (BSD's active window), trigger (U-APSD).
const SETTLE: usize = 0;
const READY: usize = 1;
const WAKE: usize = 2;
const WINDOW: usize = 3;
const TRIGGER: usize = 4;

/// One station's power-save state machine, and the AP's holding for it.
#[derive(Debug)]
pub struct StationPower {
    mode: PowerSave,
    caps: MacCaps,
    beacon_interval: Duration,
    awake: bool,
    /// Resting with the radio off (not just dozing).
    off: bool,
    /// A wake-up for the station's own frames is under way.
    waking: bool,
    dozed_at: Time,
    /// Frames the AP may send unpolled (a burst or a service period not yet started).
    release: u32,
    /// Woke for a beacon, waits for its TIM.
    beacon_wait: bool,
    bsd_active: bool,
    last_uplink: Time,
    /// BSD: the earliest beacon to listen to while dozing.
    next_wake: Time,
    /// `external`: the driver's last command was wake (and not off).
    driver_awake: bool,
    driver_off: bool,
    deadlines: [Option<Time>; 5],
    stats: StationStats,
    out: VecDeque<StationEvent>,
}

impl StationPower {
    /// A station in `mode`, awake, on a MAC that can do `caps`, with beacons (or beacon
    /// instants) every `beacon_interval` (zero is read as 1 ns; scenarios refuse it).
    pub fn new(mode: PowerSave, caps: MacCaps, beacon_interval: Duration) -> StationPower {
        StationPower {
            mode,
            caps,
            beacon_interval: beacon_interval.max(Duration::from_nanos(1)),
            awake: true,
            off: false,
            waking: false,
            dozed_at: Time::ZERO,
            release: 0,
            beacon_wait: false,
            bsd_active: false,
            last_uplink: Time::ZERO,
            next_wake: Time::ZERO,
            driver_awake: true,
            driver_off: false,
            deadlines: [None; 5],
            stats: StationStats::default(),
            out: VecDeque::with_capacity(8),
        }
    }

    /// The mode.
    pub fn mode(&self) -> PowerSave {
        self.mode
    }

    /// What the MAC below can do.
    pub fn caps(&self) -> MacCaps {
        self.caps
    }

    /// The beacon interval.
    pub fn beacon_interval(&self) -> Duration {
        self.beacon_interval
    }

    /// True while the radio is awake (a wake-up under way is not).
    pub fn is_awake(&self) -> bool {
        self.awake
    }

    /// True while a wake-up for the station's own frames is under way.
    pub fn is_waking(&self) -> bool {
        self.waking
    }

    /// True while the station is awake for a beacon and waits for its TIM.
    pub fn waits_for_beacon(&self) -> bool {
        self.beacon_wait
    }

    /// Counters (a doze in progress not counted yet).
    pub fn stats(&self) -> &StationStats {
        &self.stats
    }

    /// Counters, with a doze in progress counted up to `end`.
    pub fn stats_at(&self, end: Time) -> StationStats {
        let mut s = self.stats.clone();
        if !self.awake {
            s.doze_ns += end.saturating_since(self.dozed_at).as_nanos();
        }
        s
    }

    /// The next event for the MAC, if any.
    pub fn poll_event(&mut self) -> Option<StationEvent> {
        self.out.pop_front()
    }

    /// When [`StationPower::handle_timeout`] is due next.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.deadlines.iter().flatten().min().copied()
    }

    /// True if the AP may start sending to the station now, unpolled.
    pub fn ap_may_send(&self) -> bool {
        match self.mode {
            PowerSave::Cam => true,
            PowerSave::External(_) if !self.caps.pm_bit => true,
            mode => {
                self.awake
                    && !self.waking
                    && match mode {
                        PowerSave::External(_) => self.driver_awake,
                        PowerSave::Bsd { .. } => self.bsd_active || self.release > 0,
                        _ => self.release > 0,
                    }
            }
        }
    }

    /// True if the station's radio receives a frame sent to it now; false only for a PM-less
    /// `external` station at rest (the frame is lost on arrival and costs it nothing).
    pub fn hears(&self) -> bool {
        self.awake || !self.loses_frames_at_rest()
    }

    /// True if a frame reaching the station now is taken; counts it as lost otherwise.
    pub fn accept_arrival(&mut self) -> bool {
        if !self.awake && self.loses_frames_at_rest() {
            self.stats.dropped_asleep += 1;
            return false;
        }
        true
    }

    /// The run starts: a station whose own rules save power dozes once the events of `now`
    /// have run (the settle deadline; a MAC that starts before them calls
    /// [`StationPower::handle_timeout`] at once); U-APSD's trigger clock starts.
    pub fn start(&mut self, now: Time) {
        if self.mode.dozes_by_itself() {
            self.deadlines[SETTLE] = Some(now);
        }
        if let PowerSave::Uapsd { trigger_interval: Some(t), .. } = self.mode {
            self.deadlines[TRIGGER] = Some(now + t);
        }
    }

    /// Deadlines due at `now` fire.
    pub fn handle_timeout(&mut self, now: Time, view: MacView) {
        if self.take_due(SETTLE, now) {
            self.try_doze(now, view);
        }
        if self.take_due(READY, now) {
            if self.waking {
                self.wake(now);
            }
            self.out.push_back(StationEvent::Ready);
        }
        if self.take_due(WAKE, now) {
            self.wake_instant(now, view);
        }
        if self.take_due(WINDOW, now) {
            self.bsd_active = false;
            // What the AP still has queued is held from now on.
            self.stats.packets_held += view.queued.saturating_sub(self.release) as u64;
            self.try_doze(now, view);
        }
        if self.take_due(TRIGGER, now) {
            self.trigger_due(now, view);
        }
    }

    /// The station queued a frame of its own: a dozing station starts waking up.
    pub fn handle_own_frame(&mut self, now: Time) {
        if !self.mode.saves_power() || self.loses_frames_at_rest() || self.awake || self.waking {
            return;
        }
        if !self.caps.beacons && matches!(self.mode, PowerSave::Psm { .. } | PowerSave::Bsd { .. }) {
            // The scheduled wake-up is superseded: the next one is set at the next doze.
            self.deadlines[WAKE] = None;
        }
        match self.caps.wake_latency {
            None => self.wake(now),
            Some(d) => {
                let d = if matches!(self.mode, PowerSave::IdealPsm { .. }) { Duration::ZERO } else { d };
                self.waking = true;
                self.deadlines[READY] = Some(now + d);
            }
        }
    }

    /// The AP queued a frame for the station: it is held unless the AP may deliver directly.
    pub fn handle_ap_queued(&mut self, now: Time) {
        let direct = match self.mode {
            PowerSave::Cam => true,
            PowerSave::External(_) => !self.caps.pm_bit || self.driver_awake,
            PowerSave::Bsd { .. } => self.bsd_active,
            PowerSave::Psm { .. } | PowerSave::IdealPsm { .. } | PowerSave::Uapsd { .. } => false,
        };
        if direct {
            return;
        }
        self.stats.packets_held += 1;
        // Without beacons ideal PSM wakes only when something is held.
        if let PowerSave::IdealPsm { interval } = self.mode {
            if !self.caps.beacons && self.deadlines[WAKE].is_none() {
                self.deadlines[WAKE] = Some(next_instant(now, interval));
            }
        }
    }

    /// The AP started sending the station a frame (or dropped one): it uses up a release.
    pub fn handle_ap_sent(&mut self) {
        self.release = self.release.saturating_sub(1);
    }

    /// A frame of the station's reached the AP (`data`: not a Null or a PS-Poll): BSD's active
    /// window (re)starts; for U-APSD it is a trigger. The MAC calls
    /// [`StationPower::handle_idle`] when the station is done.
    pub fn handle_uplink_sent(&mut self, now: Time, data: bool, view: MacView) {
        match self.mode {
            PowerSave::Bsd { percent } if data => {
                self.last_uplink = now;
                let was_active = self.bsd_active;
                self.bsd_active = true;
                self.deadlines[WINDOW] = Some(now + bsd_window(self.beacon_interval, percent));
                if !was_active && view.queued > 0 {
                    self.out.push_back(StationEvent::Release); // held frames now go directly
                }
            }
            PowerSave::Uapsd { .. } => {
                self.last_uplink = now;
                if self.service_period(view) > 0 {
                    self.out.push_back(StationEvent::Release);
                }
            }
            _ => {}
        }
    }

    /// Something ended at the MAC (an exchange, a transmission, an arrival): the station
    /// dozes if its mode allows and `view` says it is idle.
    pub fn handle_idle(&mut self, now: Time, view: MacView) {
        self.try_doze(now, view);
    }

    /// True if the station would doze now were the MAC idle: a cheap test before building
    /// a [`MacView`].
    pub fn may_doze(&self) -> bool {
        let allowed = match self.mode {
            PowerSave::Cam => false,
            PowerSave::External(_) => self.caps.pm_bit && !self.driver_awake,
            PowerSave::Psm { .. } | PowerSave::IdealPsm { .. } | PowerSave::Uapsd { .. } => self.release == 0,
            PowerSave::Bsd { .. } => self.release == 0 && !self.bsd_active,
        };
        allowed && self.awake && !self.waking && !self.beacon_wait
    }

    /// Target beacon transmission time of the MAC's `beacon`-th beacon (from 1): PSM and BSD
    /// stations that listen to it wake and wait for its TIM.
    pub fn handle_tbtt(&mut self, now: Time, beacon: u64) {
        let listen = match self.mode {
            PowerSave::Psm { listen_interval } => beacon.is_multiple_of(listen_interval.max(1) as u64),
            PowerSave::Bsd { .. } => !self.bsd_active && (self.awake || now >= self.next_wake),
            _ => false,
        };
        if listen && !self.waking {
            self.wake(now);
            self.beacon_wait = true;
        }
    }

    /// The beacon is out: if its TIM shows frames held (`view.queued`), fetch them.
    pub fn handle_tim(&mut self, now: Time, view: MacView) {
        if !self.beacon_wait {
            return;
        }
        self.beacon_wait = false;
        if view.queued > 0 {
            if self.caps.ps_poll {
                self.out.push_back(StationEvent::PsPoll);
            } else {
                self.burst(now, view);
            }
        }
    }

    /// An ideal-PSM release instant of the MAC's clock: what is held goes as one burst.
    pub fn handle_release_instant(&mut self, now: Time, view: MacView) {
        if matches!(self.mode, PowerSave::IdealPsm { .. }) {
            self.burst(now, view);
        }
    }

    /// A driver's command (ignored unless the mode is `external`: other modes' own rules
    /// decide). With the PM bit, sleep waits until `view` says the station is idle.
    pub fn handle_command(&mut self, now: Time, cmd: Command, view: MacView) {
        if !matches!(self.mode, PowerSave::External(_)) {
            return;
        }
        match cmd {
            Command::Wake => {
                self.driver_awake = true;
                self.driver_off = false;
                self.wake(now);
                if self.caps.pm_bit && view.queued > 0 {
                    self.out.push_back(StationEvent::Release);
                }
            }
            Command::Sleep | Command::Off => {
                self.driver_awake = false;
                self.driver_off = cmd == Command::Off;
                if !self.awake && !self.waking {
                    if self.off != self.driver_off {
                        // Already resting: only the radio's state changes.
                        self.off = self.driver_off;
                        let state = if self.off { PowerState::Off } else { PowerState::Doze };
                        self.out.push_back(StationEvent::Power { at: now, state });
                    }
                } else if self.caps.pm_bit {
                    self.try_doze(now, view);
                } else if self.awake {
                    self.doze(now);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
