//! What a power mode decides, and what every mode shares.
//!
//! [`Core`] is the state every station has whatever its mode (awake, dozing or off, a wake-up
//! under way, the frames the AP may send unpolled, its deadlines, counters and the events for
//! the MAC), with the steps every mode takes the same way (wake, doze, a burst). A mode is a
//! type implementing [`Mode`] (one module in `crate::power::modes`): its own state and
//! settings, and the rules where modes differ. Every rule has a default, so a mode writes only
//! what makes it what it is; the machine ([`super::StationPower`]) calls the rules at the
//! points the MAC reports.

use super::types::{MacCaps, MacView, PowerState, StationEvent, StationStats};
use crate::energy::DeviceProfile;
use super::types::Command;
use crate::{Duration, Time};
use std::collections::VecDeque;

/// Deadline slots: settle (the first doze), ready (a wake-up for own frames), wake (a wake
/// instant of the machine's own clock, on a MAC without beacons) and the mode's own timer.
pub(crate) const SETTLE: usize = 0;
/// See [`SETTLE`].
pub(crate) const READY: usize = 1;
/// See [`SETTLE`].
pub(crate) const WAKE: usize = 2;
/// See [`SETTLE`]: one timer a mode may use as it likes (BSD's active window, U-APSD's
/// trigger clock).
pub(crate) const MODE: usize = 3;

/// The state every station's machine has, whatever its mode.
#[derive(Debug)]
pub(crate) struct Core {
    /// What the MAC below can do.
    pub caps: MacCaps,
    /// Beacon interval (or the interval of the machine's own beacon clock).
    pub beacon_interval: Duration,
    /// The radio is awake (a wake-up under way is not).
    pub awake: bool,
    /// Resting with the radio off (not just dozing).
    pub off: bool,
    /// A wake-up for the station's own frames is under way.
    pub waking: bool,
    /// When the current doze began.
    pub dozed_at: Time,
    /// Frames the AP may send unpolled (a burst or a service period not yet started).
    pub release: u32,
    /// Woke for a beacon, waits for its TIM.
    pub beacon_wait: bool,
    /// Deadlines by slot ([`SETTLE`], [`READY`], [`WAKE`], [`MODE`]).
    pub deadlines: [Option<Time>; 4],
    /// Counters.
    pub stats: StationStats,
    /// Events for the MAC.
    pub out: VecDeque<StationEvent>,
}

impl Core {
    /// An awake station on a MAC that can do `caps`.
    pub(crate) fn new(caps: MacCaps, beacon_interval: Duration) -> Core {
        Core {
            caps,
            beacon_interval: beacon_interval.max(Duration::from_nanos(1)),
            awake: true,
            off: false,
            waking: false,
            dozed_at: Time::ZERO,
            release: 0,
            beacon_wait: false,
            deadlines: [None; 4],
            stats: StationStats::default(),
            out: VecDeque::with_capacity(8),
        }
    }

    /// True (and the slot cleared) if deadline `slot` is due at `now`.
    pub(crate) fn take_due(&mut self, slot: usize, now: Time) -> bool {
        let due = self.deadlines[slot].is_some_and(|t| t <= now);
        if due {
            self.deadlines[slot] = None;
        }
        due
    }

    /// Releases what the AP holds as one burst (unless one is still going). True if it did.
    pub(crate) fn burst(&mut self, now: Time, view: MacView) -> bool {
        let held = view.queued.saturating_sub(self.release);
        if held == 0 || self.release > 0 {
            return false;
        }
        self.release = held;
        self.stats.bursts += 1;
        self.stats.packets_released += held as u64;
        self.wake(now);
        self.out.push_back(StationEvent::Release);
        true
    }

    /// The radio wakes (at once: a wake-up under way is over).
    pub(crate) fn wake(&mut self, now: Time) {
        self.waking = false;
        if self.awake {
            return;
        }
        self.awake = true;
        self.off = false;
        self.stats.doze_ns += now.saturating_since(self.dozed_at).as_nanos();
        self.out.push_back(StationEvent::Power { at: now, state: PowerState::Awake });
    }
}

/// The rules of one power mode. The machine keeps the [`Core`]; a mode answers where modes
/// differ and keeps whatever state of its own it needs. Defaults are those of a mode that
/// dozes when idle and lets the AP send only what it released (a burst or a service period).
pub(crate) trait Mode {
    /// False for a mode that never sleeps (`cam`): the traffic is left as it is.
    fn saves_power(&self) -> bool {
        true
    }

    /// The Power Management bit of the station's frames other than its PM Null frames
    /// (802.11-2020 §9.2.4.1.7): set while it is in PS mode, as every saving mode is.
    fn pm_bit(&self, _c: &Core) -> bool {
        self.saves_power()
    }

    /// True if the station's own rules put it to sleep (a driver does for `external`).
    fn dozes_by_itself(&self) -> bool {
        self.saves_power()
    }

    /// True if the station listens to beacons (the AP must send them).
    fn uses_beacons(&self) -> bool {
        false
    }

    /// True if the station's uplink frames change its power saving: a MAC may skip telling
    /// the machine otherwise.
    fn uplink_matters(&self) -> bool {
        false
    }

    /// True if the frames the AP delivers to the station change its power saving (adaptive
    /// PSM's inactivity timer): a MAC may skip telling the machine otherwise.
    fn downlink_matters(&self) -> bool {
        false
    }

    /// The interval of the AP's release instants, for a mode that has them (`ideal-psm`):
    /// a MAC with beacons keeps that clock and reports each instant.
    fn release_interval(&self) -> Option<Duration> {
        None
    }

    /// The period of the mode's own clock, if it has one (release instants, periodic
    /// triggers): what a run's cost estimate counts.
    fn period(&self) -> Option<Duration> {
        self.release_interval()
    }

    /// The energy rule: true if the mode's wake-ups cost nothing, neither time (the radio is
    /// ready at once) nor energy (its meter drops the profile's wake-up transition).
    fn free_wakeups(&self) -> bool {
        false
    }

    /// The run starts (after the machine set its first doze, if the mode dozes by itself).
    fn start(&mut self, _c: &mut Core, _now: Time) {}

    /// True if the AP may start sending to the station now, unpolled.
    fn ap_may_send(&self, c: &Core) -> bool {
        c.awake && !c.waking && c.release > 0
    }

    /// True if a frame reaching the station at rest is lost (nobody holds it for it).
    fn loses_frames_at_rest(&self, _c: &Core) -> bool {
        false
    }

    /// True if a frame the AP queues for the station now goes directly (is not held).
    fn delivers_directly(&self, _c: &Core) -> bool {
        false
    }

    /// A frame for the station is held at the AP.
    fn on_held(&mut self, _c: &mut Core, _now: Time) {}

    /// The dozing station starts waking up for a frame of its own.
    fn on_own_frame(&mut self, _c: &mut Core) {}

    /// True if the station's uplink frames wait for the AP's triggers (trigger-enabled TWT):
    /// they neither wake it nor contend.
    fn uplink_by_trigger(&self, _c: &Core) -> bool {
        false
    }

    /// True if the AP should send the station a Basic Trigger frame now (`uplink_queued`:
    /// the station has frames of its own waiting).
    fn trigger_due(&self, _c: &Core, _uplink_queued: bool) -> bool {
        false
    }

    /// A frame of the station's reached the AP (`data`: not a Null or a PS-Poll).
    fn on_uplink_sent(&mut self, _c: &mut Core, _now: Time, _data: bool, _view: MacView) {}

    /// A frame from the AP reached the station.
    fn on_downlink(&mut self, _c: &mut Core, _now: Time) {}

    /// True if the mode lets the station doze now (the machine adds: awake, not waking, not
    /// waiting for a beacon, and the MAC idle).
    fn may_doze(&self, c: &Core) -> bool {
        c.release == 0
    }

    /// True if what the MAC shows keeps the station awake although it is idle.
    fn keeps_awake(&self, _view: MacView) -> bool {
        false
    }

    /// True if the station wakes for the MAC's `beacon`-th beacon (from 1).
    fn listens_to_beacon(&self, _c: &Core, _now: Time, _beacon: u64) -> bool {
        false
    }

    /// The beacon the station woke for is out, and its TIM shows `view.queued` frames held:
    /// fetch them (PS-Polls, or one burst without them).
    fn on_tim(&mut self, c: &mut Core, now: Time, view: MacView) {
        if view.queued > 0 {
            if c.caps.ps_poll {
                c.out.push_back(StationEvent::PsPoll);
            } else {
                c.burst(now, view);
            }
        }
    }

    /// An ideal-PSM release instant of the MAC's clock.
    fn on_release_instant(&mut self, _c: &mut Core, _now: Time, _view: MacView) {}

    /// A wake instant of the machine's own clock (a MAC without beacons): by default what is
    /// held goes as one burst, and the station wakes (and pays for it) whether or not anything
    /// is held. The machine then lets it doze if it may.
    fn on_wake_instant(&mut self, c: &mut Core, now: Time, view: MacView) {
        c.burst(now, view);
        c.wake(now);
    }

    /// The mode's own deadline ([`MODE`]) is due. True if the station should then doze if
    /// it may.
    fn on_mode_timer(&mut self, _c: &mut Core, _now: Time, _view: MacView) -> bool {
        false
    }

    /// A driver's command (modes without a driver ignore it).
    fn on_command(&mut self, _c: &mut Core, _now: Time, _cmd: Command, _view: MacView) {}

    /// The AP accepted the station's TWT agreement (its TWT Setup response arrived).
    fn on_twt_accepted(&mut self, _c: &mut Core, _now: Time) {}

    /// True if the station rests with its radio off rather than dozing.
    fn rests_off(&self) -> bool {
        false
    }

    /// The station has just dozed (after asking with `view`): schedule its next wake-up.
    fn on_doze(&mut self, _c: &mut Core, _now: Time, _view: MacView) {}

    /// The device profile the station's meter costs it with (the mode's energy rule).
    fn meter_profile(&self, profile: &DeviceProfile) -> DeviceProfile {
        if self.free_wakeups() {
            profile.without_wakeup_cost()
        } else {
            profile.clone()
        }
    }
}

/// True if the station would doze now were the MAC idle.
pub(crate) fn may_doze<M: Mode + ?Sized>(m: &M, c: &Core) -> bool {
    m.may_doze(c) && c.awake && !c.waking && !c.beacon_wait
}

/// The station dozes if its mode allows and `view` says it is idle.
pub(crate) fn try_doze<M: Mode + ?Sized>(m: &mut M, c: &mut Core, now: Time, view: MacView) {
    if view.busy || !may_doze(m, c) || m.keeps_awake(view) {
        return;
    }
    doze(m, c, now, view);
}

/// The station dozes (or rests off) now.
pub(crate) fn doze<M: Mode + ?Sized>(m: &mut M, c: &mut Core, now: Time, view: MacView) {
    c.awake = false;
    c.beacon_wait = false;
    c.off = m.rests_off();
    c.dozed_at = now;
    c.stats.dozes += 1;
    let state = if c.off { PowerState::Off } else { PowerState::Doze };
    c.out.push_back(StationEvent::Power { at: now, state });
    m.on_doze(c, now, view);
}

/// The first multiple of `period` (from t = 0) strictly after `now`.
pub fn next_instant(now: Time, period: Duration) -> Time {
    let p = period.as_nanos().max(1);
    Time((now.as_nanos() / p + 1) * p)
}
