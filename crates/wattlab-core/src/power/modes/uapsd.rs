//! `u-apsd`: 802.11e unscheduled automatic power-save delivery. Every uplink frame is a
//! trigger: the AP answers with a service period of the frames it held (all, or `max_sp`),
//! the last one ending it. An optional periodic trigger goes out when nothing else went
//! uplink for a whole interval: a QoS-Null on a MAC that has them; without (the hop) the
//! trigger is idealised (no airtime) and the station wakes only for a service period that
//! has frames.

use crate::power::station::{Core, Mode, MODE};
use crate::power::{MacView, StationEvent};
use crate::{Duration, Time};

/// The rules of `u-apsd`, with the station's trigger clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Uapsd {
    /// Send a trigger this often when nothing else went uplink (None: never).
    trigger_interval: Option<Duration>,
    /// Frames per service period (0 = all held).
    max_sp: u32,
    /// When the last trigger (a frame of the station's, or a periodic one) reached the AP.
    last_uplink: Time,
}

impl Uapsd {
    /// U-APSD with a periodic trigger every `trigger_interval` (if any) and service periods of
    /// at most `max_sp` frames (0 = all).
    pub(crate) fn new(trigger_interval: Option<Duration>, max_sp: u32) -> Uapsd {
        Uapsd { trigger_interval, max_sp, last_uplink: Time::ZERO }
    }

    /// A trigger reached the AP; the service period is what it holds (up to `max_sp`).
    /// Returns its length.
    fn service_period(&mut self, c: &mut Core, view: MacView) -> u32 {
        let n = if self.max_sp == 0 { view.queued } else { view.queued.min(self.max_sp) };
        let added = n.saturating_sub(c.release);
        if added > 0 {
            if c.release == 0 {
                c.stats.bursts += 1;
            }
            c.stats.packets_released += added as u64;
        }
        c.release = n;
        n
    }
}

impl Mode for Uapsd {
    fn uplink_matters(&self) -> bool {
        true
    }

    fn period(&self) -> Option<Duration> {
        self.trigger_interval
    }

    fn start(&mut self, c: &mut Core, now: Time) {
        if let Some(t) = self.trigger_interval {
            c.deadlines[MODE] = Some(now + t);
        }
    }

    fn on_uplink_sent(&mut self, c: &mut Core, now: Time, _data: bool, view: MacView) {
        self.last_uplink = now;
        if self.service_period(c, view) > 0 {
            c.out.push_back(StationEvent::Release);
        }
    }

    /// The trigger clock: a trigger if nothing went uplink for a whole interval.
    fn on_mode_timer(&mut self, c: &mut Core, now: Time, view: MacView) -> bool {
        let Some(t) = self.trigger_interval else { return false };
        c.deadlines[MODE] = Some(now + t);
        if now.saturating_since(self.last_uplink) < t {
            return false;
        }
        if c.caps.null_frames {
            c.out.push_back(StationEvent::Trigger);
            return false;
        }
        self.last_uplink = now;
        if self.service_period(c, view) > 0 {
            c.wake(now);
            c.out.push_back(StationEvent::Release);
        }
        false
    }
}
