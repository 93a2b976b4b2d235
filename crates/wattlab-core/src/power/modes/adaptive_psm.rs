//! `adaptive-psm:timeout=Tms`: adaptive ("dynamic") power save as phone drivers run it. The
//! station is in PS mode (PM = 1, the AP holds its frames, 802.11-2020 §11.2.3) until it has
//! traffic; then it is active (PM = 0, the AP delivers directly) and stays awake until
//! `timeout` has passed without a frame to or from it, when it announces PS mode with a Null
//! frame (PM = 1) and dozes once the AP acknowledged it. While in PS mode it wakes for every
//! `listen_interval`-th beacon; when the TIM shows frames held it returns to active mode with
//! a Null frame (PM = 0) rather than PS-Polls, and an uplink data frame returns it by its own
//! PM = 0 bit (no Null). This is Linux mac80211's dynamic PS (`net/mac80211/mlme.c`:
//! `ieee80211_dynamic_ps_enable_work` sends the PM = 1 nullfunc at the timeout,
//! `ieee80211_rx_mgmt_beacon` a PM = 0 nullfunc on a directed TIM when the timeout is set).
//!
//! Timeouts drivers use (see `docs/wlan.md`, "Adaptive PSM"): mac80211's default 100 ms
//! (`ieee80211_recalc_ps`, without a PM-QoS latency request), iwlwifi's rx/tx data timeouts
//! 100 ms (`iwlwifi/mvm/power.c`, `IWL_MVM_DEFAULT_PS_{RX,TX}_DATA_TIMEOUT`), Broadcom's
//! PM2 sleep-return time 200 ms (`bcmdhd`, `pm2_sleep_ret`); EnergyBox's phone model 220 ms.
//!
//! On a MAC without Null frames (the hop) the PM changes take effect at once, without
//! airtime, and the machine keeps the beacon clock: the station wakes at its listen instants
//! and, if frames are held, is active from then on (they go directly).

use super::ModeParam;
use crate::power::station::{next_instant, Core, Mode, MODE, WAKE};
use crate::power::{MacView, StationEvent};
use crate::{Duration, Time};
use std::ops::RangeInclusive;

/// The timeouts of `adaptive-psm:timeout=Tms`, in ms (1 ms to 10 s: drivers use 20 ms to
/// 500 ms).
pub const ADAPTIVE_TIMEOUT_MS: RangeInclusive<u32> = 1..=10_000;

/// The parameter in the name `adaptive-psm:timeout=Tms`.
pub(super) const PARAMS: &[ModeParam] = &[ModeParam {
    name: "timeout",
    letter: 'T',
    min: *ADAPTIVE_TIMEOUT_MS.start(),
    max: *ADAPTIVE_TIMEOUT_MS.end(),
    doc: "inactivity timeout in ms: awake this long after the last frame, then PM = 1 and doze",
}];

/// The rules of `adaptive-psm`, with the station's PM state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AdaptivePsm {
    /// Inactivity time after the last frame before the station returns to PS mode.
    timeout: Duration,
    /// Beacons between wake-ups while in PS mode (1 = every beacon).
    listen_interval: u32,
    /// Active mode (PM = 0 as the AP knows it): the AP delivers directly.
    active: bool,
    /// A Null frame with this PM bit is on its way to the AP (the change takes effect when
    /// it is acknowledged).
    null_pending: Option<bool>,
}

impl AdaptivePsm {
    /// In PS mode (as after an idle association), with `timeout` and `listen_interval`.
    pub(crate) fn new(timeout: Duration, listen_interval: u32) -> AdaptivePsm {
        AdaptivePsm { timeout, listen_interval: listen_interval.max(1), active: false, null_pending: None }
    }

    /// The AP now knows the station is active: it delivers what it held, directly, and the
    /// inactivity timer runs from `now`.
    fn activate(&mut self, c: &mut Core, now: Time, view: MacView) {
        self.null_pending = None;
        c.deadlines[MODE] = Some(now + self.timeout);
        if !self.active {
            self.active = true;
            c.wake(now);
            if view.queued > 0 {
                c.out.push_back(StationEvent::Release);
            }
        }
    }

    /// The AP now knows the station is in PS mode: what it still has queued is held.
    fn deactivate(&mut self, c: &mut Core, view: MacView) {
        self.null_pending = None;
        c.deadlines[MODE] = None;
        if self.active {
            self.active = false;
            c.stats.packets_held += view.queued as u64;
        }
    }
}

impl Mode for AdaptivePsm {
    fn uses_beacons(&self) -> bool {
        true
    }

    fn uplink_matters(&self) -> bool {
        true
    }

    fn downlink_matters(&self) -> bool {
        true
    }

    /// A data frame returns the station to active mode by its own PM = 0 bit; the PM
    /// changes the station announces go in its Null frames.
    fn pm_bit(&self, _c: &Core) -> bool {
        false
    }

    fn ap_may_send(&self, c: &Core) -> bool {
        c.awake && !c.waking && self.active
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

    /// A data frame carries PM = 0 itself; the Null frame the station sent is acknowledged.
    fn on_uplink_sent(&mut self, c: &mut Core, now: Time, data: bool, view: MacView) {
        match (data, self.null_pending) {
            (false, Some(false)) | (true, _) => self.activate(c, now, view),
            (false, Some(true)) => self.deactivate(c, view),
            (false, None) => {}
        }
    }

    /// A frame from the AP reached the station: the inactivity timer restarts.
    fn on_downlink(&mut self, c: &mut Core, now: Time) {
        if self.active && self.null_pending.is_none() {
            c.deadlines[MODE] = Some(now + self.timeout);
        }
    }

    fn may_doze(&self, c: &Core) -> bool {
        c.release == 0 && !self.active && self.null_pending.is_none()
    }

    fn listens_to_beacon(&self, _c: &Core, _now: Time, beacon: u64) -> bool {
        !self.active && beacon.is_multiple_of(self.listen_interval as u64)
    }

    /// Frames held: back to active mode, with a PM = 0 Null where the MAC has them.
    fn on_tim(&mut self, c: &mut Core, now: Time, view: MacView) {
        if view.queued == 0 || self.active || self.null_pending.is_some() {
            return;
        }
        if c.caps.null_frames {
            self.null_pending = Some(false);
            c.deadlines[MODE] = Some(now + self.timeout); // a guard, should the Null be lost
            c.out.push_back(StationEvent::PmNull { pm: false });
        } else {
            self.activate(c, now, view);
        }
    }

    fn on_wake_instant(&mut self, c: &mut Core, now: Time, view: MacView) {
        c.wake(now);
        if view.queued > 0 {
            self.activate(c, now, view);
        }
    }

    /// The inactivity timeout: announce PS mode (or, with a frame still under way, wait one
    /// more timeout: its end restarts the timer anyway).
    fn on_mode_timer(&mut self, c: &mut Core, now: Time, view: MacView) -> bool {
        if let Some(pm) = self.null_pending {
            // The Null was not acknowledged within a timeout (dropped at the retry limit).
            c.deadlines[MODE] = Some(now + self.timeout);
            c.out.push_back(StationEvent::PmNull { pm });
            return false;
        }
        if !self.active {
            return false;
        }
        if view.busy || view.queued > 0 {
            c.deadlines[MODE] = Some(now + self.timeout);
            return false;
        }
        if c.caps.null_frames {
            self.null_pending = Some(true);
            // Should the Null never be acknowledged (retry limit), try again after a timeout.
            c.deadlines[MODE] = Some(now + self.timeout);
            c.out.push_back(StationEvent::PmNull { pm: true });
            false
        } else {
            self.deactivate(c, view);
            true
        }
    }

    fn on_doze(&mut self, c: &mut Core, now: Time, _view: MacView) {
        if !c.caps.beacons {
            let period = c.beacon_interval.saturating_mul(self.listen_interval as u64);
            c.deadlines[WAKE] = Some(next_instant(now, period));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::power::{MacCaps, MacView, PowerSave, PowerState, StationEvent, StationPower};
    use crate::{Duration, Time};

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    fn us(x: u64) -> Time {
        Time(x * 1_000)
    }

    const QUIET: MacView = MacView { queued: 0, busy: false };

    fn held(n: u32) -> MacView {
        MacView { queued: n, busy: false }
    }

    fn events(p: &mut StationPower) -> Vec<StationEvent> {
        std::iter::from_fn(|| p.poll_event()).collect()
    }

    fn wake(at: Time) -> StationEvent {
        StationEvent::Power { at, state: PowerState::Awake }
    }

    fn doze(at: Time) -> StationEvent {
        StationEvent::Power { at, state: PowerState::Doze }
    }

    fn adaptive(timeout_ms: u64, listen_interval: u32) -> PowerSave {
        PowerSave::AdaptivePsm { timeout: Duration::from_millis(timeout_ms), listen_interval }
    }

    /// A BSS, 100 ms beacons, 200 ms timeout, hand-computed: PS mode from the start; a frame
    /// held at 150 ms is announced in the TIM at 200 ms; PM = 0 Null acknowledged at 201 ms
    /// releases it; the last frame reaches the station at 202 ms, so the PM = 1 Null goes at
    /// exactly 402 ms and the station dozes at its ACK (403 ms); no beacon is heard while
    /// active (300 ms, 400 ms); the next one is (500 ms).
    #[test]
    fn bss_timeline_pm_nulls_at_the_tim_and_exactly_one_timeout_after_the_last_frame() {
        let mut p = StationPower::new(adaptive(200, 1), MacCaps::bss(Duration::from_millis(1)), Duration::from_millis(100));
        p.start(ms(0));
        p.handle_timeout(ms(0), QUIET);
        assert_eq!(events(&mut p), [doze(ms(0))]);
        // Beacon 1: nothing held, back to doze.
        p.handle_tbtt(ms(100), 1);
        assert!(p.waits_for_beacon());
        p.handle_tim(us(100_300), QUIET);
        p.handle_idle(us(100_300), QUIET);
        assert_eq!(events(&mut p), [wake(ms(100)), doze(us(100_300))]);
        // A frame for it is held.
        p.handle_ap_queued(ms(150));
        assert!(!p.ap_may_send());
        assert_eq!(p.stats().packets_held, 1);
        // Beacon 2: the TIM shows it; a PM = 0 Null, not a PS-Poll.
        p.handle_tbtt(ms(200), 2);
        p.handle_tim(us(200_300), held(1));
        assert_eq!(events(&mut p), [wake(ms(200)), StationEvent::PmNull { pm: false }]);
        assert!(!p.ap_may_send() && !p.may_doze(), "PS mode until the Null is acknowledged");
        p.handle_uplink_sent(ms(201), false, held(1));
        assert_eq!(events(&mut p), [StationEvent::Release]);
        assert!(p.ap_may_send() && p.ap_allowance() == u32::MAX, "active: the AP delivers directly");
        assert_eq!(p.poll_timeout(), Some(ms(401)));
        // The held frame arrives at 202 ms: the timer restarts; a new frame is not held.
        p.handle_ap_sent();
        p.handle_downlink(ms(202));
        p.handle_idle(ms(202), QUIET);
        p.handle_ap_queued(ms(250));
        p.handle_ap_sent();
        assert_eq!(p.stats().packets_held, 1);
        assert_eq!(p.poll_timeout(), Some(ms(402)), "the frame at 250 ms was not delivered yet");
        // Active: no beacon heard.
        p.handle_tbtt(ms(300), 3);
        assert!(!p.waits_for_beacon() && p.is_awake());
        // The frame queued at 250 ms was sent but never reported delivered: the timeout is
        // still 200 ms after the one of 202 ms.
        p.handle_timeout(ms(402), QUIET);
        assert_eq!(events(&mut p), [StationEvent::PmNull { pm: true }]);
        assert!(p.is_awake() && p.ap_may_send(), "active until the AP has the PM = 1 Null");
        p.handle_uplink_sent(ms(403), false, QUIET);
        p.handle_idle(ms(403), QUIET);
        assert_eq!(events(&mut p), [doze(ms(403))]);
        assert!(!p.ap_may_send());
        assert_eq!(p.poll_timeout(), None, "no timer in PS mode: beacons wake it");
        p.handle_tbtt(ms(500), 5);
        assert!(p.waits_for_beacon());
        assert_eq!(p.stats_at(ms(500)).doze_ns, (100_000_000 + 99_700_000) + (ms(500).0 - ms(403).0));
    }

    /// An uplink data frame returns the station to active mode by its own PM = 0 bit (no
    /// Null); a PM = 1 Null that is never acknowledged is sent again after another timeout.
    #[test]
    fn bss_uplink_data_activates_without_a_null_and_a_lost_null_is_retried() {
        let mut p = StationPower::new(adaptive(100, 1), MacCaps::bss(Duration::from_millis(1)), Duration::from_millis(100));
        p.start(ms(0));
        p.handle_timeout(ms(0), QUIET);
        events(&mut p);
        p.handle_own_frame(ms(30));
        assert_eq!(p.poll_timeout(), Some(ms(31)), "the radio's 1 ms wake-up");
        p.handle_timeout(ms(31), MacView { queued: 0, busy: true });
        assert_eq!(events(&mut p), [wake(ms(31)), StationEvent::Ready]);
        p.handle_uplink_sent(ms(32), true, QUIET);
        assert!(events(&mut p).is_empty(), "no Null: the data frame carried PM = 0");
        assert!(p.ap_may_send());
        assert_eq!(p.poll_timeout(), Some(ms(132)));
        // A frame still under way at the timeout defers it by one timeout.
        p.handle_timeout(ms(132), MacView { queued: 0, busy: true });
        assert!(events(&mut p).is_empty());
        assert_eq!(p.poll_timeout(), Some(ms(232)));
        p.handle_timeout(ms(232), QUIET);
        assert_eq!(events(&mut p), [StationEvent::PmNull { pm: true }]);
        // Never acknowledged: again at 332 ms.
        p.handle_timeout(ms(332), QUIET);
        assert_eq!(events(&mut p), [StationEvent::PmNull { pm: true }]);
        p.handle_uplink_sent(ms(333), false, QUIET);
        p.handle_idle(ms(333), QUIET);
        assert_eq!(events(&mut p), [doze(ms(333))]);
    }

    /// Listen interval 3: in PS mode only beacons 3, 6, ... wake the station.
    #[test]
    fn bss_listens_to_every_listen_interval_th_beacon_in_ps_mode() {
        let mut p = StationPower::new(adaptive(100, 3), MacCaps::bss(Duration::from_millis(1)), Duration::from_millis(100));
        p.start(ms(0));
        p.handle_timeout(ms(0), QUIET);
        let heard: Vec<u64> = (1..=7)
            .filter(|&b| {
                p.handle_tbtt(ms(100 * b), b);
                let w = p.waits_for_beacon();
                p.handle_tim(ms(100 * b), QUIET);
                p.handle_idle(ms(100 * b), QUIET);
                w
            })
            .collect();
        assert_eq!(heard, [3, 6]);
    }

    /// The hop (no beacons, no Null frames): the PM changes take effect at once, so the
    /// station dozes at exactly the last frame + the timeout, and wakes at the beacon
    /// instants (multiples of 100 ms), active from one where frames are held.
    #[test]
    fn hop_timeline_dozes_exactly_one_timeout_after_the_last_frame() {
        let mut p = StationPower::new(adaptive(100, 1), MacCaps::HOP, Duration::from_millis(100));
        p.start(ms(0));
        p.handle_timeout(ms(0), QUIET);
        assert_eq!(events(&mut p), [doze(ms(0))]);
        assert_eq!(p.poll_timeout(), Some(ms(100)));
        // Own packet at 30 ms (awake at once on the hop), out at 31 ms.
        p.handle_own_frame(ms(30));
        p.handle_uplink_sent(ms(31), true, QUIET);
        assert_eq!(p.poll_timeout(), Some(ms(131)), "the scheduled wake-up is superseded");
        // A reply reaches it at 50 ms: the timer restarts.
        p.handle_ap_queued(ms(45));
        assert_eq!(p.stats().packets_held, 0, "active: delivered directly");
        p.handle_downlink(ms(50));
        p.handle_idle(ms(50), QUIET);
        assert_eq!(events(&mut p), [wake(ms(30))]);
        assert_eq!(p.poll_timeout(), Some(ms(150)));
        p.handle_timeout(ms(150), QUIET);
        assert_eq!(events(&mut p), [doze(ms(150))]);
        assert_eq!(p.poll_timeout(), Some(ms(200)));
        // Held from 160 ms; released at the 200 ms instant, active until 301 ms.
        p.handle_ap_queued(ms(160));
        assert!(!p.ap_may_send());
        p.handle_timeout(ms(200), held(1));
        assert_eq!(events(&mut p), [wake(ms(200)), StationEvent::Release]);
        p.handle_ap_sent();
        p.handle_downlink(ms(201));
        p.handle_idle(ms(201), QUIET);
        assert_eq!(p.poll_timeout(), Some(ms(301)));
        p.handle_timeout(ms(301), QUIET);
        assert_eq!(events(&mut p), [doze(ms(301))]);
        // Nothing held at 400 ms: awake for the instant, dozing again at once.
        p.handle_timeout(ms(400), QUIET);
        assert_eq!(events(&mut p), [wake(ms(400)), doze(ms(400))]);
        let s = p.stats_at(ms(500));
        assert_eq!(s.dozes, 4);
        assert_eq!(s.packets_held, 1);
        // Dozing 0–30, 150–200, 301–400 and 400–500 ms.
        assert_eq!(s.doze_ns, (30 + 50 + 99 + 100) * 1_000_000);
    }
}
