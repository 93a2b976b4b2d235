//! `beacon-doze`: doze between beacons unless traffic is queued. The station wakes for every
//! beacon; when the TIM shows frames held (or its own frame reached the AP while frames wait)
//! it stays awake and the AP delivers directly, without PS-Polls, until nothing is queued for
//! it and the MAC is idle; then it dozes until the next beacon. Cheaper than CAM when the
//! traffic comes in bursts, and it fetches a burst at once where PSM polls frame by frame;
//! a frame that arrives while it dozes waits for the next beacon, as under PSM. On a MAC
//! without beacons (the hop) the machine keeps the beacon clock and the station wakes at its
//! instants, whether or not anything is held. Every wake-up costs the profile's transition.

use crate::power::station::{next_instant, Core, Mode, WAKE};
use crate::power::{MacView, StationEvent};
use crate::Time;

/// The rules of `beacon-doze`, with whether the station is awake for queued traffic.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BeaconDoze {
    /// Awake for traffic: the AP delivers directly until its queue for the station drains.
    active: bool,
}

impl BeaconDoze {
    /// Frames wait at the AP: stay awake and let the AP send them.
    fn activate(&mut self, c: &mut Core, view: MacView) {
        if view.queued > 0 && !self.active {
            self.active = true;
            c.out.push_back(StationEvent::Release);
        }
    }
}

impl Mode for BeaconDoze {
    fn uses_beacons(&self) -> bool {
        true
    }

    fn uplink_matters(&self) -> bool {
        true
    }

    fn ap_may_send(&self, c: &Core) -> bool {
        c.awake && !c.waking && self.active
    }

    fn delivers_directly(&self, c: &Core) -> bool {
        self.active && c.awake
    }

    fn on_own_frame(&mut self, c: &mut Core) {
        if !c.caps.beacons {
            // The scheduled wake-up is superseded: the next one is set at the next doze.
            c.deadlines[WAKE] = None;
        }
    }

    fn on_uplink_sent(&mut self, c: &mut Core, _now: Time, _data: bool, view: MacView) {
        self.activate(c, view);
    }

    fn keeps_awake(&self, view: MacView) -> bool {
        self.active && view.queued > 0
    }

    fn listens_to_beacon(&self, _c: &Core, _now: Time, _beacon: u64) -> bool {
        !self.active
    }

    fn on_tim(&mut self, c: &mut Core, _now: Time, view: MacView) {
        self.activate(c, view);
    }

    fn on_wake_instant(&mut self, c: &mut Core, now: Time, view: MacView) {
        c.wake(now);
        self.activate(c, view);
    }

    fn on_doze(&mut self, c: &mut Core, now: Time, _view: MacView) {
        self.active = false;
        if !c.caps.beacons {
            c.deadlines[WAKE] = Some(next_instant(now, c.beacon_interval));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::power::{MacCaps, PowerSave, PowerState, StationPower};
    use crate::Duration;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    fn events(p: &mut StationPower) -> Vec<StationEvent> {
        std::iter::from_fn(|| p.poll_event()).collect()
    }

    /// The hop: asleep at once, awake at each beacon instant; a burst held meanwhile goes
    /// directly, without polls, and the station stays up until it has drained.
    #[test]
    fn on_the_hop_it_wakes_each_beacon_and_stays_up_while_frames_are_queued() {
        let bi = Duration::from_millis(100);
        let mut p = StationPower::new(PowerSave::BeaconDoze, MacCaps::HOP, bi);
        p.start(ms(0));
        p.handle_timeout(ms(0), MacView::default());
        assert!(!p.is_awake());
        assert_eq!(p.poll_timeout(), Some(ms(100)));
        // Nothing held at the first instant: awake for it, then back to sleep.
        p.handle_timeout(ms(100), MacView::default());
        assert!(!p.is_awake());
        assert_eq!(p.poll_timeout(), Some(ms(200)));
        // Two frames arrive and are held until the next instant.
        p.handle_ap_queued(ms(150));
        p.handle_ap_queued(ms(160));
        assert!(!p.ap_may_send());
        events(&mut p);
        p.handle_timeout(ms(200), MacView { queued: 2, busy: false });
        assert!(p.is_awake() && p.ap_may_send());
        assert!(events(&mut p).contains(&StationEvent::Release));
        // One sent, one queued: still awake, a third frame goes directly.
        p.handle_ap_sent();
        p.handle_idle(ms(201), MacView { queued: 1, busy: false });
        assert!(p.is_awake());
        p.handle_ap_queued(ms(202));
        assert_eq!(p.stats().packets_held, 2);
        // Drained: dozes until the next instant.
        p.handle_idle(ms(203), MacView::default());
        assert!(!p.is_awake() && !p.ap_may_send());
        assert_eq!(p.poll_timeout(), Some(ms(300)));
        assert_eq!(events(&mut p).last(), Some(&StationEvent::Power { at: ms(203), state: PowerState::Doze }));
    }

    /// The BSS: every beacon heard; frames in the TIM are released at once (no PS-Poll).
    #[test]
    fn in_a_bss_the_tim_releases_the_queue_without_polls() {
        let mut p = StationPower::new(PowerSave::BeaconDoze, MacCaps::bss(Duration::from_micros(500)), Duration::from_micros(102_400));
        p.start(ms(0));
        p.handle_timeout(ms(0), MacView::default());
        for beacon in 1..=3 {
            p.handle_tbtt(ms(100 * beacon), beacon);
            assert!(p.waits_for_beacon(), "beacon {beacon}");
            p.handle_tim(ms(100 * beacon), MacView::default());
            p.handle_idle(ms(100 * beacon), MacView::default());
            assert!(!p.is_awake());
        }
        events(&mut p);
        p.handle_ap_queued(ms(350));
        p.handle_tbtt(ms(400), 4);
        p.handle_tim(ms(400), MacView { queued: 1, busy: false });
        let ev = events(&mut p);
        assert!(ev.contains(&StationEvent::Release) && !ev.contains(&StationEvent::PsPoll), "{ev:?}");
        assert!(p.ap_may_send());
    }
}
