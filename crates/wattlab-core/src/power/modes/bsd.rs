//! `bsd-P`: Bounded Slowdown (Krashinsky & Balakrishnan, MobiCom 2002) with bound P. After
//! each uplink data frame the station is active (awake, the AP delivering directly) for
//! `beacon / P`; then it dozes and wakes for beacons no more than P % of the time since that
//! frame apart (beacon-aligned, at least the next beacon, at most [`BSD_MAX_SLEEP`]),
//! retrieving held frames as PSM does.

use super::ModeParam;
use crate::power::station::{next_instant, Core, Mode, MODE, WAKE};
use crate::power::{MacView, StationEvent};
use crate::{Duration, Time};
use std::ops::RangeInclusive;

/// The values P of `bsd-P` (percent of slowdown tolerated).
pub const BSD_PERCENT: RangeInclusive<u32> = 1..=1000;

/// BSD stations wake at least this often while asleep (Krashinsky & Balakrishnan bound the
/// sleep; 0.9 s keeps a wake-up within every second of idle time).
pub const BSD_MAX_SLEEP: Duration = Duration::from_millis(900);

/// The parameter in the name `bsd-P`.
pub(super) const PARAMS: &[ModeParam] = &[ModeParam {
    name: "percent",
    letter: 'P',
    min: *BSD_PERCENT.start(),
    max: *BSD_PERCENT.end(),
    doc: "tolerated slowdown, in percent of the idle time",
}];

/// The rules of `bsd-P`, with the station's BSD state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bsd {
    /// P, in percent of the idle time (1..=1000).
    percent: u32,
    /// In the active window after an uplink data frame.
    active: bool,
    /// When the last uplink data frame reached the AP.
    last_uplink: Time,
    /// The earliest beacon to listen to while dozing.
    next_wake: Time,
}

impl Bsd {
    /// BSD with bound `percent`, not active yet.
    pub(crate) fn new(percent: u32) -> Bsd {
        Bsd { percent, active: false, last_uplink: Time::ZERO, next_wake: Time::ZERO }
    }
}

impl Mode for Bsd {
    fn uses_beacons(&self) -> bool {
        true
    }

    fn uplink_matters(&self) -> bool {
        true
    }

    fn ap_may_send(&self, c: &Core) -> bool {
        c.awake && !c.waking && (self.active || c.release > 0)
    }

    fn delivers_directly(&self, _c: &Core) -> bool {
        self.active
    }

    fn on_own_frame(&mut self, c: &mut Core) {
        if !c.caps.beacons {
            // The scheduled wake-up is superseded: the next one is set at the next doze.
            c.deadlines[WAKE] = None;
        }
    }

    fn on_uplink_sent(&mut self, c: &mut Core, now: Time, data: bool, view: MacView) {
        if !data {
            return;
        }
        self.last_uplink = now;
        let was_active = self.active;
        self.active = true;
        c.deadlines[MODE] = Some(now + bsd_window(c.beacon_interval, self.percent));
        if !was_active && view.queued > 0 {
            c.out.push_back(StationEvent::Release); // held frames now go directly
        }
    }

    fn may_doze(&self, c: &Core) -> bool {
        c.release == 0 && !self.active
    }

    fn listens_to_beacon(&self, c: &Core, now: Time, _beacon: u64) -> bool {
        !self.active && (c.awake || now >= self.next_wake)
    }

    /// The active window closes.
    fn on_mode_timer(&mut self, c: &mut Core, _now: Time, view: MacView) -> bool {
        self.active = false;
        // What the AP still has queued is held from now on.
        c.stats.packets_held += view.queued.saturating_sub(c.release) as u64;
        true
    }

    fn on_doze(&mut self, c: &mut Core, now: Time, _view: MacView) {
        self.next_wake = bsd_next_wake(now, self.last_uplink, self.percent, c.beacon_interval);
        if !c.caps.beacons {
            c.deadlines[WAKE] = Some(self.next_wake);
        }
    }
}

/// BSD: how long the station stays active (awake, the AP delivering directly) after an uplink
/// data frame: `beacon / P`.
pub fn bsd_window(beacon_interval: Duration, percent: u32) -> Duration {
    Duration::from_nanos(beacon_interval.as_nanos() * 100 / percent.max(1) as u64)
}

/// BSD: the beacon a station dozing from `now` wakes for next. It sleeps at most P % of the
/// time since its last uplink data frame and at most [`BSD_MAX_SLEEP`], floored to a beacon
/// instant (multiples of the interval from t = 0), but at least until the next beacon.
pub fn bsd_next_wake(now: Time, last_uplink: Time, percent: u32, beacon_interval: Duration) -> Time {
    let since = now.saturating_since(last_uplink);
    let sleep = Duration::from_nanos(since.as_nanos() / 100 * percent as u64).min(BSD_MAX_SLEEP);
    let latest = floor_to(now + sleep, beacon_interval);
    latest.max(next_instant(now, beacon_interval))
}

fn floor_to(t: Time, period: Duration) -> Time {
    let p = period.as_nanos().max(1);
    Time(t.as_nanos() / p * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    #[test]
    fn bsd_sleeps_a_bounded_share_of_the_idle_time_on_beacon_instants() {
        let bi = Duration::from_millis(100);
        assert_eq!(bsd_window(bi, 50), Duration::from_millis(200));
        assert_eq!(bsd_window(bi, 1000), Duration::from_millis(10));
        // Idle 200 ms at 50 %: 100 ms, floored to the beacon at 300 ms.
        assert_eq!(bsd_next_wake(ms(200), ms(0), 50, bi), ms(300));
        // Less than a beacon's worth: the next beacon anyway.
        assert_eq!(bsd_next_wake(ms(250), ms(240), 50, bi), ms(300));
        // Long idle: capped at 0.9 s.
        assert_eq!(bsd_next_wake(ms(10_000), ms(0), 50, bi), ms(10_900));
        assert_eq!(next_instant(ms(100), bi), ms(200));
        assert_eq!(next_instant(ms(99), bi), ms(100));
    }
}
