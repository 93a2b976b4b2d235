//! One station's power saving as a sans-IO state machine, and the AP's holding for it, on
//! any MAC whose abilities [`MacCaps`] describes. The machine keeps what every station has
//! (awake, dozing or off, a wake-up under way, what the AP may send, deadlines, counters);
//! the rules of its mode (`crate::power::modes`, one module per mode: `cam`, `psm`,
//! `ideal-psm`, `bsd-P`, `u-apsd`, `external` and the drivers' names, `beacon-doze`, `twt`) decide
//! where modes differ, through the [`rules`] they implement.
//!
//! The MAC drives it: `handle_*` inputs with the time (its own frames, the AP's, beacons,
//! a driver's commands), [`StationPower::handle_timeout`] once [`StationPower::poll_timeout`]
//! is due, and a [`MacView`] of what the MAC is doing for the station where the rules need
//! it. Out come [`StationEvent`]s ([`StationPower::poll_event`]): the radio dozes or wakes,
//! the AP may send again, send a PS-Poll or a U-APSD trigger. Queries say whether the AP may
//! send to the station now and whether an arriving frame reaches it.
//!
//! Own frames wake a dozing station in every mode but `cam` and a PM-less `external` (whose
//! radio wakes just for the transmission, as the meter sees it). Time never goes backwards
//! between calls; the machine allocates nothing after it is built.

use super::modes::{PowerSave, Rules};
use crate::{Duration, Time};

pub(crate) mod rules;
mod types;

pub(crate) use rules::{doze, try_doze, Core, Mode, MODE, WAKE};
pub use rules::next_instant;
pub use types::{Command, MacCaps, MacView, PowerState, StationEvent, StationStats};

use rules::{may_doze, READY, SETTLE};

/// One station's power-save state machine, and the AP's holding for it.
#[derive(Debug)]
pub struct StationPower {
    mode: PowerSave,
    c: Core,
    rules: Rules,
}

impl StationPower {
    /// A station in `mode`, awake, on a MAC that can do `caps`, with beacons (or beacon
    /// instants) every `beacon_interval` (zero is read as 1 ns; scenarios refuse it).
    pub fn new(mode: PowerSave, caps: MacCaps, beacon_interval: Duration) -> StationPower {
        StationPower { mode, c: Core::new(caps, beacon_interval), rules: mode.rules() }
    }

    /// The mode.
    pub fn mode(&self) -> PowerSave {
        self.mode
    }

    /// What the MAC below can do.
    pub fn caps(&self) -> MacCaps {
        self.c.caps
    }

    /// The beacon interval.
    pub fn beacon_interval(&self) -> Duration {
        self.c.beacon_interval
    }

    /// The Power Management bit of the station's frames now, other than the Null frames
    /// that announce a PM change (adaptive PSM's, which carry their own).
    pub fn pm_bit(&self) -> bool {
        self.rules.pm_bit(&self.c)
    }

    /// True while the radio is awake (a wake-up under way is not).
    pub fn is_awake(&self) -> bool {
        self.c.awake
    }

    /// True while a wake-up for the station's own frames is under way.
    pub fn is_waking(&self) -> bool {
        self.c.waking
    }

    /// True while the station is awake for a beacon and waits for its TIM.
    pub fn waits_for_beacon(&self) -> bool {
        self.c.beacon_wait
    }

    /// True if the station's uplink frames change its power saving (BSD's active window,
    /// U-APSD's triggers): a MAC may skip [`StationPower::handle_uplink_sent`] otherwise.
    pub fn uplink_matters(&self) -> bool {
        self.rules.uplink_matters()
    }

    /// True if frames the AP delivers change the station's power saving (adaptive PSM's
    /// inactivity timer): a MAC may skip [`StationPower::handle_downlink`] otherwise.
    pub fn downlink_matters(&self) -> bool {
        self.rules.downlink_matters()
    }

    /// True if the station's own frames wait for the AP's triggers (trigger-enabled TWT): a
    /// MAC neither lets them contend nor counts them as keeping the station awake.
    pub fn uplink_by_trigger(&self) -> bool {
        self.rules.uplink_by_trigger(&self.c)
    }

    /// True if the AP should send the station a Basic Trigger frame now (`uplink_queued`:
    /// the station has frames of its own queued).
    pub fn trigger_due(&self, uplink_queued: bool) -> bool {
        self.rules.trigger_due(&self.c, uplink_queued)
    }

    /// Counters (a doze in progress not counted yet).
    pub fn stats(&self) -> &StationStats {
        &self.c.stats
    }

    /// Counters, with a doze in progress counted up to `end`.
    pub fn stats_at(&self, end: Time) -> StationStats {
        let mut s = self.c.stats.clone();
        if !self.c.awake {
            s.doze_ns += end.saturating_since(self.c.dozed_at).as_nanos();
        }
        s
    }

    /// The next event for the MAC, if any.
    pub fn poll_event(&mut self) -> Option<StationEvent> {
        self.c.out.pop_front()
    }

    /// When [`StationPower::handle_timeout`] is due next.
    pub fn poll_timeout(&self) -> Option<Time> {
        self.c.deadlines.iter().flatten().min().copied()
    }

    /// True if the AP may start sending to the station now, unpolled.
    pub fn ap_may_send(&self) -> bool {
        self.rules.ap_may_send(&self.c)
    }

    /// Frames the AP may still send the station unpolled now, in one A-MPDU or one after
    /// another: none if it may not send, no limit (`u32::MAX`) if it delivers directly,
    /// otherwise what is left of the release (a U-APSD service period, an idealised burst).
    pub fn ap_allowance(&self) -> u32 {
        if !self.ap_may_send() {
            0
        } else if self.rules.delivers_directly(&self.c) {
            u32::MAX
        } else {
            self.c.release
        }
    }

    /// True if the station's radio receives a frame sent to it now; false only for a PM-less
    /// `external` station at rest (the frame is lost on arrival and costs it nothing).
    pub fn hears(&self) -> bool {
        self.c.awake || !self.rules.loses_frames_at_rest(&self.c)
    }

    /// True if a frame reaching the station now is taken; counts it as lost otherwise.
    pub fn accept_arrival(&mut self) -> bool {
        if !self.c.awake && self.rules.loses_frames_at_rest(&self.c) {
            self.c.stats.dropped_asleep += 1;
            return false;
        }
        true
    }

    /// The run starts: a station whose own rules save power dozes once the events of `now`
    /// have run (the settle deadline; a MAC that starts before them calls
    /// [`StationPower::handle_timeout`] at once); the mode's own clock starts.
    pub fn start(&mut self, now: Time) {
        if self.rules.dozes_by_itself() {
            self.c.deadlines[SETTLE] = Some(now);
        }
        self.rules.start(&mut self.c, now);
    }

    /// Deadlines due at `now` fire.
    pub fn handle_timeout(&mut self, now: Time, view: MacView) {
        let (c, m) = (&mut self.c, &mut self.rules);
        if c.take_due(SETTLE, now) {
            try_doze(m, c, now, view);
        }
        if c.take_due(READY, now) {
            if c.waking {
                c.wake(now);
            }
            c.out.push_back(StationEvent::Ready);
        }
        if c.take_due(WAKE, now) {
            m.on_wake_instant(c, now, view);
            try_doze(m, c, now, view);
        }
        if c.take_due(MODE, now) && m.on_mode_timer(c, now, view) {
            try_doze(m, c, now, view);
        }
    }

    /// The station queued a frame of its own: a dozing station starts waking up.
    pub fn handle_own_frame(&mut self, now: Time) {
        let (c, m) = (&mut self.c, &mut self.rules);
        if !m.saves_power() || m.loses_frames_at_rest(c) || c.awake || c.waking || m.uplink_by_trigger(c) {
            return;
        }
        m.on_own_frame(c);
        match c.caps.wake_latency {
            None => c.wake(now),
            Some(d) => {
                let d = if m.free_wakeups() { Duration::ZERO } else { d };
                c.waking = true;
                c.deadlines[READY] = Some(now + d);
            }
        }
    }

    /// The AP queued a frame for the station: it is held unless the AP may deliver directly.
    pub fn handle_ap_queued(&mut self, now: Time) {
        if self.rules.delivers_directly(&self.c) {
            return;
        }
        self.c.stats.packets_held += 1;
        self.rules.on_held(&mut self.c, now);
    }

    /// The AP started sending the station a frame (or dropped one): it uses up a release.
    pub fn handle_ap_sent(&mut self) {
        self.c.release = self.c.release.saturating_sub(1);
    }

    /// A frame of the station's reached the AP (`data`: not a Null or a PS-Poll): BSD's active
    /// window (re)starts; for U-APSD it is a trigger. The MAC calls
    /// [`StationPower::handle_idle`] when the station is done.
    pub fn handle_uplink_sent(&mut self, now: Time, data: bool, view: MacView) {
        self.rules.on_uplink_sent(&mut self.c, now, data, view);
    }

    /// A frame from the AP reached the station (delivered; for an A-MPDU, once its Block Ack
    /// is out): adaptive PSM's inactivity timer restarts.
    pub fn handle_downlink(&mut self, now: Time) {
        self.rules.on_downlink(&mut self.c, now);
    }

    /// Something ended at the MAC (an exchange, a transmission, an arrival): the station
    /// dozes if its mode allows and `view` says it is idle.
    pub fn handle_idle(&mut self, now: Time, view: MacView) {
        try_doze(&mut self.rules, &mut self.c, now, view);
    }

    /// True if the station would doze now were the MAC idle: a cheap test before building
    /// a [`MacView`].
    pub fn may_doze(&self) -> bool {
        may_doze(&self.rules, &self.c)
    }

    /// Target beacon transmission time of the MAC's `beacon`-th beacon (from 1): stations
    /// that listen to it wake and wait for its TIM.
    pub fn handle_tbtt(&mut self, now: Time, beacon: u64) {
        if self.rules.listens_to_beacon(&self.c, now, beacon) && !self.c.waking {
            self.c.wake(now);
            self.c.beacon_wait = true;
        }
    }

    /// The beacon is out: if its TIM shows frames held (`view.queued`), fetch them.
    pub fn handle_tim(&mut self, now: Time, view: MacView) {
        if !self.c.beacon_wait {
            return;
        }
        self.c.beacon_wait = false;
        self.rules.on_tim(&mut self.c, now, view);
    }

    /// An ideal-PSM release instant of the MAC's clock: what is held goes as one burst.
    pub fn handle_release_instant(&mut self, now: Time, view: MacView) {
        self.rules.on_release_instant(&mut self.c, now, view);
    }

    /// The AP's TWT Setup response reached the station: its TWT agreement holds from `now`
    /// (the station dozes until its first service period once `view` says it is idle).
    pub fn handle_twt_accepted(&mut self, now: Time, view: MacView) {
        self.rules.on_twt_accepted(&mut self.c, now);
        try_doze(&mut self.rules, &mut self.c, now, view);
    }

    /// A driver's command (ignored unless the mode is `external`: other modes' own rules
    /// decide). With the PM bit, sleep waits until `view` says the station is idle.
    pub fn handle_command(&mut self, now: Time, cmd: Command, view: MacView) {
        self.rules.on_command(&mut self.c, now, cmd, view);
    }
}

#[cfg(test)]
mod tests;
