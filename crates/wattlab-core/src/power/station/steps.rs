//! The steps the machine's inputs share: deadlines, bursts and service periods, U-APSD's
//! trigger clock, dozing and waking (with the wake-up schedules of PSM and BSD without beacons).

use super::{MacView, PowerState, StationEvent, StationPower, TRIGGER, WAKE};
use crate::power::save::{bsd_next_wake, next_instant, PowerSave};
use crate::Time;

impl StationPower {
    pub(super) fn loses_frames_at_rest(&self) -> bool {
        matches!(self.mode, PowerSave::External(_)) && !self.caps.pm_bit
    }

    pub(super) fn take_due(&mut self, slot: usize, now: Time) -> bool {
        let due = self.deadlines[slot].is_some_and(|t| t <= now);
        if due {
            self.deadlines[slot] = None;
        }
        due
    }

    /// A wake instant of the machine's own clock (a MAC without beacons): what is held goes
    /// as one burst; PSM and BSD wake (and pay for it) whether or not anything is held.
    pub(super) fn wake_instant(&mut self, now: Time, view: MacView) {
        let released = self.burst(now, view);
        if let PowerSave::IdealPsm { interval } = self.mode {
            if !released && view.queued.saturating_sub(self.release) > 0 {
                // A burst longer than the interval is still going: the rest waits an instant.
                self.deadlines[WAKE] = Some(next_instant(now, interval));
            }
        } else {
            self.wake(now);
        }
        self.try_doze(now, view);
    }

    /// Releases what the AP holds as one burst (unless one is still going). True if it did.
    pub(super) fn burst(&mut self, now: Time, view: MacView) -> bool {
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

    /// U-APSD: a trigger reached the AP; the service period is what it holds (up to
    /// `max_sp`). Returns its length.
    pub(super) fn service_period(&mut self, view: MacView) -> u32 {
        let PowerSave::Uapsd { max_sp, .. } = self.mode else { return 0 };
        let n = if max_sp == 0 { view.queued } else { view.queued.min(max_sp) };
        let added = n.saturating_sub(self.release);
        if added > 0 {
            if self.release == 0 {
                self.stats.bursts += 1;
            }
            self.stats.packets_released += added as u64;
        }
        self.release = n;
        n
    }

    /// U-APSD's trigger clock: a trigger if nothing went uplink for a whole interval. Without
    /// Null frames the trigger is idealised: no airtime, and the station wakes only for a
    /// service period that has frames.
    pub(super) fn trigger_due(&mut self, now: Time, view: MacView) {
        let PowerSave::Uapsd { trigger_interval: Some(t), .. } = self.mode else { return };
        self.deadlines[TRIGGER] = Some(now + t);
        if now.saturating_since(self.last_uplink) < t {
            return;
        }
        if self.caps.null_frames {
            self.out.push_back(StationEvent::Trigger);
            return;
        }
        self.last_uplink = now;
        if self.service_period(view) > 0 {
            self.wake(now);
            self.out.push_back(StationEvent::Release);
        }
    }

    pub(super) fn try_doze(&mut self, now: Time, view: MacView) {
        if view.busy || !self.may_doze() {
            return;
        }
        self.doze(now);
        if let PowerSave::IdealPsm { interval } = self.mode {
            if !self.caps.beacons && view.queued > 0 && self.deadlines[WAKE].is_none() {
                self.deadlines[WAKE] = Some(next_instant(now, interval));
            }
        }
    }

    pub(super) fn wake(&mut self, now: Time) {
        self.waking = false;
        if self.awake {
            return;
        }
        self.awake = true;
        self.off = false;
        self.stats.doze_ns += now.saturating_since(self.dozed_at).as_nanos();
        self.out.push_back(StationEvent::Power { at: now, state: PowerState::Awake });
    }

    pub(super) fn doze(&mut self, now: Time) {
        self.awake = false;
        self.beacon_wait = false;
        self.off = matches!(self.mode, PowerSave::External(_)) && self.driver_off;
        self.dozed_at = now;
        self.stats.dozes += 1;
        let state = if self.off { PowerState::Off } else { PowerState::Doze };
        self.out.push_back(StationEvent::Power { at: now, state });
        match self.mode {
            PowerSave::Bsd { percent } => {
                self.next_wake = bsd_next_wake(now, self.last_uplink, percent, self.beacon_interval);
                if !self.caps.beacons {
                    self.deadlines[WAKE] = Some(self.next_wake);
                }
            }
            PowerSave::Psm { listen_interval } if !self.caps.beacons => {
                let period = self.beacon_interval.saturating_mul(listen_interval.max(1) as u64);
                self.deadlines[WAKE] = Some(next_instant(now, period));
            }
            _ => {}
        }
    }
}
