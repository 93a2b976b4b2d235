//! `ideal-psm`: paper 000's idealised PSM. At release instants (multiples of `interval`) the
//! AP sends everything it held for the station as one burst; the station is awake exactly
//! then and dozes after the burst and its own frames. Its energy rule: wake-ups are free (no
//! latency, and its meter drops the profile's wake-up transition). On a MAC with beacons the
//! MAC keeps the release clock; without, the machine wakes only when something is held.

use crate::power::station::{next_instant, Core, Mode, WAKE};
use crate::power::MacView;
use crate::{Duration, Time};

/// The rules of `ideal-psm`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IdealPsm {
    /// Time between release instants (paper 000: 100 ms, its beacon interval).
    pub interval: Duration,
}

impl Mode for IdealPsm {
    fn release_interval(&self) -> Option<Duration> {
        Some(self.interval)
    }

    fn free_wakeups(&self) -> bool {
        true
    }

    fn on_held(&mut self, c: &mut Core, now: Time) {
        // Without beacons ideal PSM wakes only when something is held.
        if !c.caps.beacons && c.deadlines[WAKE].is_none() {
            c.deadlines[WAKE] = Some(next_instant(now, self.interval));
        }
    }

    fn on_release_instant(&mut self, c: &mut Core, now: Time, view: MacView) {
        c.burst(now, view);
    }

    fn on_wake_instant(&mut self, c: &mut Core, now: Time, view: MacView) {
        let released = c.burst(now, view);
        if !released && view.queued.saturating_sub(c.release) > 0 {
            // A burst longer than the interval is still going: the rest waits an instant.
            c.deadlines[WAKE] = Some(next_instant(now, self.interval));
        }
    }

    fn on_doze(&mut self, c: &mut Core, now: Time, view: MacView) {
        if !c.caps.beacons && view.queued > 0 && c.deadlines[WAKE].is_none() {
            c.deadlines[WAKE] = Some(next_instant(now, self.interval));
        }
    }
}
