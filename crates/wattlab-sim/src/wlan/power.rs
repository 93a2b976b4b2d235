//! Power saving at the MAC: who dozes when, and when the AP may send to whom.
//!
//! - **PSM** (802.11-2020 §11.2.3): the AP buffers every frame for a station in PS mode. The
//!   station wakes for every `listen_interval`-th beacon (waking early by its wake-up latency,
//!   which the radio meter carves from the sleep before), reads the TIM, and fetches frames
//!   one PS-Poll at a time while More Data is set. It dozes as soon as nothing is pending,
//!   also right after sending its own frames, so a reply waits for the next beacon: RTTs are
//!   rounded up towards multiples of the beacon interval.
//! - **Idealised PSM** (seed 000): every `interval` the AP releases everything it holds for
//!   the station as one burst; the station is awake exactly then (no latency, no early
//!   wake-up) and dozes after the last frame of the burst and its own frames.
//! - **BSD-p** (Krashinsky & Balakrishnan, MobiCom 2002): after each uplink frame the station
//!   is in active mode (the AP delivers directly) for `beacon / p`; then it dozes and wakes
//!   for beacons at most `p × (time since that frame)` apart (beacon-aligned, at least the
//!   next beacon, at most 0.9 s), retrieving buffered frames as in PSM.
//! - **U-APSD** (802.11e): every uplink frame is a trigger; the AP answers with a service
//!   period of the frames it buffered (all, or `max_sp`), the last one ending it. A QoS-Null
//!   trigger goes out every `trigger_interval` when nothing else did.
//!
//! Simplifications, all documented in `docs/wlan.md`: the PM bit changes of BSD take effect
//! without a Null frame; no DTIM or broadcast buffering; U-APSD stations do not read beacons.

use super::{Body, Bss, MacOutput, MacTimer, PowerSave, StaId, AP};
use wattlab_core::{Duration, Time};

/// BSD stations wake at least this often while asleep.
const BSD_MAX_SLEEP: Duration = Duration::from_millis(900);

impl Bss {
    /// True if the AP may send a frame to `to` now, unpolled.
    pub(crate) fn ap_may_send(&self, to: StaId) -> bool {
        let s = &self.stas[to as usize];
        s.awake
            && !s.waking
            && match s.cfg.power_save {
                PowerSave::Cam => true,
                PowerSave::Psm { .. } => false,
                PowerSave::IdealPsm { .. } | PowerSave::Uapsd { .. } => s.release > 0,
                PowerSave::Bsd { .. } => s.bsd_active,
            }
    }

    /// Frames the AP holds for `sta`.
    fn buffered_for(&self, sta: StaId) -> u32 {
        self.stas[AP as usize].queue.iter().filter(|f| f.to == sta).count() as u32
    }

    /// Arms the beacon and release clocks and puts power-saving stations to sleep.
    pub(crate) fn start_power(&mut self, now: Time) {
        if self.cfg.beacons {
            self.timer(now + self.cfg.beacon_interval, MacTimer::Beacon);
        }
        let ideal = self.stas.iter().find_map(|s| match s.cfg.power_save {
            PowerSave::IdealPsm { interval } => Some(interval),
            _ => None,
        });
        if let Some(interval) = ideal {
            self.timer(now + interval, MacTimer::IdealRelease);
        }
        for i in 1..self.stas.len() as StaId {
            let mode = self.stas[i as usize].cfg.power_save;
            if let PowerSave::Uapsd { trigger_interval: Some(t), .. } = mode {
                self.timer(now + t, MacTimer::PowerTimer { sta: i, gen: 0 });
            }
            if mode.saves_power() {
                self.doze(now, i);
            }
        }
    }

    /// A frame for `to` was queued at the AP. Buffered frames wait for the station's own
    /// schedule (TIM, release, trigger), so nothing happens here yet.
    pub(crate) fn on_ap_enqueue(&mut self, _now: Time, _to: StaId) {}

    /// A station queued a frame: a dozing one starts waking up.
    pub(crate) fn on_sta_enqueue(&mut self, now: Time, sta: StaId) {
        let s = &self.stas[sta as usize];
        if s.awake || s.waking {
            return;
        }
        let latency = match s.cfg.power_save {
            PowerSave::IdealPsm { .. } => Duration::ZERO,
            _ => s.cfg.wake_latency,
        };
        let s = &mut self.stas[sta as usize];
        s.waking = true;
        s.wake_gen = s.wake_gen.wrapping_add(1);
        let gen = s.wake_gen;
        self.timer(now + latency, MacTimer::Wake { sta, gen });
    }

    /// A wake-up started by the station's own traffic has completed.
    pub(crate) fn on_wake(&mut self, now: Time, sta: StaId) {
        self.stas[sta as usize].waking = false;
        self.wake(now, sta);
        self.contend(now);
    }

    /// The radio is awake at `now` (a wake-up started earlier ends now).
    fn wake(&mut self, now: Time, sta: StaId) {
        let s = &mut self.stas[sta as usize];
        if s.awake {
            return;
        }
        s.awake = true;
        s.stats.doze_ns += (now - s.dozed_at).as_nanos();
        self.out.push_back(MacOutput::Power { sta, at: now, awake: true });
    }

    fn doze(&mut self, now: Time, sta: StaId) {
        let bsd_next = match self.stas[sta as usize].cfg.power_save {
            PowerSave::Bsd { percent } => Some(self.bsd_next_wake(now, sta, percent)),
            _ => None,
        };
        let s = &mut self.stas[sta as usize];
        s.awake = false;
        s.beacon_wait = false;
        s.dozed_at = now;
        s.stats.dozes += 1;
        if let Some(t) = bsd_next {
            s.next_wake = t;
        }
        self.out.push_back(MacOutput::Power { sta, at: now, awake: false });
    }

    /// BSD: the beacon to wake for next, sleeping at most p × (time since the last uplink
    /// frame) and at most 0.9 s, but at least until the next beacon.
    fn bsd_next_wake(&self, now: Time, sta: StaId, percent: u32) -> Time {
        let since = now.saturating_since(self.stas[sta as usize].last_uplink);
        let sleep = Duration::from_nanos(since.as_nanos() / 100 * percent as u64).min(BSD_MAX_SLEEP);
        let bi = self.cfg.beacon_interval.as_nanos();
        let latest = (now + sleep).as_nanos() / bi * bi;
        let next = (now.as_nanos() / bi + 1) * bi;
        Time(latest.max(next))
    }

    /// True if `sta` sends or receives in the exchange on the air.
    fn in_exchange(&self, sta: StaId) -> bool {
        use super::ExchangeKind::*;
        match self.exchange.map(|e| e.kind) {
            None => false,
            Some(Frame { sta: s, frame, .. }) => s == sta || frame.to == sta,
            Some(Poll { sta: s, .. }) => s == sta,
            Some(Collision) => self.winners.contains(&sta),
            Some(Beacon) => self.stas[sta as usize].beacon_wait,
        }
    }

    fn may_doze(&self, sta: StaId) -> bool {
        let s = &self.stas[sta as usize];
        let mode_allows = match s.cfg.power_save {
            PowerSave::Cam => false,
            PowerSave::Psm { .. } => true,
            PowerSave::IdealPsm { .. } | PowerSave::Uapsd { .. } => s.release == 0,
            PowerSave::Bsd { .. } => !s.bsd_active,
        };
        mode_allows
            && s.awake
            && !s.waking
            && s.queue.is_empty()
            && !s.poll_pending
            && !s.beacon_wait
            && !self.in_exchange(sta)
    }

    /// After every exchange: stations with nothing left to do go to doze.
    pub(crate) fn after_exchange(&mut self, now: Time) {
        for i in 1..self.stas.len() as StaId {
            if self.may_doze(i) {
                self.doze(now, i);
            }
        }
    }

    /// A frame was delivered: uplink frames feed BSD and U-APSD, downlink frames use up a
    /// release.
    pub(crate) fn after_success(&mut self, now: Time, sta: StaId, frame: super::Frame) {
        if sta == AP {
            self.release_used(frame.to);
            return;
        }
        match self.stas[sta as usize].cfg.power_save {
            PowerSave::Bsd { percent } if matches!(frame.body, Body::Data(_)) => {
                let window = Duration::from_nanos(self.cfg.beacon_interval.as_nanos() * 100 / percent.max(1) as u64);
                let s = &mut self.stas[sta as usize];
                s.last_uplink = now;
                s.bsd_active = true;
                s.power_gen = s.power_gen.wrapping_add(1);
                let gen = s.power_gen;
                self.timer(now + window, MacTimer::PowerTimer { sta, gen });
            }
            PowerSave::Uapsd { max_sp, .. } => {
                let buffered = self.buffered_for(sta);
                let s = &mut self.stas[sta as usize];
                s.last_uplink = now;
                s.release = if max_sp == 0 { buffered } else { buffered.min(max_sp) };
            }
            _ => {}
        }
    }

    /// One frame of a burst or service period has left the AP (delivered or dropped).
    pub(crate) fn release_used(&mut self, to: StaId) {
        let s = &mut self.stas[to as usize];
        s.release = s.release.saturating_sub(1);
    }

    /// Target beacon transmission time: queue the beacon, wake the stations that listen.
    pub(crate) fn on_beacon_timer(&mut self, now: Time) {
        self.beacon_count += 1;
        self.timer(now + self.cfg.beacon_interval, MacTimer::Beacon);
        self.beacon_pending = true;
        for i in 1..self.stas.len() as StaId {
            let s = &self.stas[i as usize];
            let listen = match s.cfg.power_save {
                PowerSave::Psm { listen_interval } => self.beacon_count.is_multiple_of(listen_interval.max(1) as u64),
                PowerSave::Bsd { .. } => !s.bsd_active && (s.awake || now >= s.next_wake),
                _ => false,
            };
            if listen && !s.waking {
                self.wake(now, i);
                self.stas[i as usize].beacon_wait = true;
            }
        }
        self.contend(now);
    }

    /// The beacon is out: stations whose TIM bit is set start polling, the others doze
    /// (in `after_exchange`).
    pub(crate) fn after_beacon(&mut self, _now: Time) {
        for i in 1..self.stas.len() as StaId {
            if self.stas[i as usize].beacon_wait {
                self.stas[i as usize].beacon_wait = false;
                if self.buffered_for(i) > 0 {
                    self.stas[i as usize].poll_pending = true;
                }
            }
        }
    }

    /// Seed 000's idealised PSM: release everything buffered, as one burst.
    pub(crate) fn on_ideal_release(&mut self, now: Time) {
        let mut interval = None;
        for i in 1..self.stas.len() as StaId {
            let PowerSave::IdealPsm { interval: t } = self.stas[i as usize].cfg.power_save else { continue };
            interval = Some(t);
            let buffered = self.buffered_for(i);
            if buffered > 0 && self.stas[i as usize].release == 0 {
                self.stas[i as usize].release = buffered;
                self.stas[i as usize].waking = false;
                self.wake(now, i);
            }
        }
        if let Some(t) = interval {
            self.timer(now + t, MacTimer::IdealRelease);
        }
        self.contend(now);
    }

    /// BSD's awake window ran out, or U-APSD's trigger interval passed.
    pub(crate) fn on_power_timer(&mut self, now: Time, sta: StaId) {
        match self.stas[sta as usize].cfg.power_save {
            PowerSave::Bsd { .. } => {
                self.stas[sta as usize].bsd_active = false;
                if self.may_doze(sta) {
                    self.doze(now, sta);
                    self.contend(now);
                }
            }
            PowerSave::Uapsd { trigger_interval: Some(t), .. } => {
                let s = &self.stas[sta as usize];
                if now.saturating_since(s.last_uplink) >= t && s.queue.is_empty() {
                    self.push_frame(now, sta, AP, Body::Null);
                }
                let gen = self.stas[sta as usize].power_gen;
                self.timer(now + t, MacTimer::PowerTimer { sta, gen });
            }
            _ => {}
        }
    }
}
