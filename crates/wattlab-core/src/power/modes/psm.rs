//! `psm`: 802.11 power-save mode (802.11-2020 §11.2.3). The station dozes when idle and wakes
//! for every `listen_interval`-th beacon; it learns from the TIM (or at once, on a MAC without
//! beacons, where the machine keeps the beacon clock) whether frames wait and fetches them
//! (PS-Polls, or one burst). Every wake-up costs the profile's transition.

use crate::power::station::{next_instant, Core, Mode, WAKE};
use crate::Time;
use crate::power::MacView;

/// The rules of `psm`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Psm {
    /// Beacons between wake-ups (1 = every beacon).
    pub listen_interval: u32,
}

impl Mode for Psm {
    fn uses_beacons(&self) -> bool {
        true
    }

    fn on_own_frame(&mut self, c: &mut Core) {
        if !c.caps.beacons {
            // The scheduled wake-up is superseded: the next one is set at the next doze.
            c.deadlines[WAKE] = None;
        }
    }

    fn listens_to_beacon(&self, _c: &Core, _now: Time, beacon: u64) -> bool {
        beacon.is_multiple_of(self.listen_interval.max(1) as u64)
    }

    fn on_doze(&mut self, c: &mut Core, now: Time, _view: MacView) {
        if !c.caps.beacons {
            let period = c.beacon_interval.saturating_mul(self.listen_interval.max(1) as u64);
            c.deadlines[WAKE] = Some(next_instant(now, period));
        }
    }
}
