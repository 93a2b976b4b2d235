//! The client's U-APSD trigger interval (seed 002 Eqs. 4.15–4.17): an EWMA of packets
//! received per slot of length H, the mean inter-arrival time t^a = H / n^r, and the trigger
//! interval clamp(m · t^a, t_min, t_max): about when the AP has buffered m frames.

use super::config::TriggerConfig;
use crate::{Duration, Time};

/// Slots rolled forward at most in one step: after that many empty slots n^r is ~0 anyway.
const MAX_ROLL: u32 = 64;

/// The estimator's state.
#[derive(Clone, Debug)]
pub struct TriggerEstimator {
    cfg: TriggerConfig,
    /// EWMA n^r of packets per slot.
    rate: f64,
    /// Packets received in the current slot (n̂^r).
    count: u32,
    slot_start: Time,
}

impl TriggerEstimator {
    /// A fresh estimator; its first slot starts at `now`.
    pub fn new(cfg: TriggerConfig, now: Time) -> TriggerEstimator {
        TriggerEstimator { cfg, rate: 0.0, count: 0, slot_start: now }
    }

    /// Closes the slots that ended by `now` (Eq. 4.15 once per slot).
    fn roll(&mut self, now: Time) {
        let h = self.cfg.slot.as_nanos().max(1);
        let mut n = 0;
        while now.saturating_since(self.slot_start).as_nanos() >= h && n < MAX_ROLL {
            self.rate = self.cfg.alpha * f64::from(self.count) + (1.0 - self.cfg.alpha) * self.rate;
            self.count = 0;
            self.slot_start += self.cfg.slot;
            n += 1;
        }
        if n == MAX_ROLL {
            // A long silence: start the next slot now rather than replaying every slot.
            self.slot_start = now;
        }
    }

    /// A packet from the AP arrived at `now`.
    pub fn on_receive(&mut self, now: Time) {
        self.roll(now);
        self.count = self.count.saturating_add(1);
    }

    /// The smoothed packets per slot n^r.
    pub fn rate_per_slot(&self) -> f64 {
        self.rate
    }

    /// The trigger interval for burst size `m` at `now` (Eqs. 4.16–4.17); t_max while nothing
    /// has been received.
    pub fn interval(&mut self, now: Time, m: u32) -> Duration {
        self.roll(now);
        if self.rate <= 0.0 {
            return self.cfg.t_max;
        }
        let ta = self.cfg.slot.as_secs_f64() / self.rate; // Eq. 4.16
        let t = Duration::from_secs_f64((f64::from(m) * ta).min(self.cfg.t_max.as_secs_f64()));
        t.max(self.cfg.t_min).min(self.cfg.t_max) // Eq. 4.17
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_follows_the_arrival_rate_within_bounds() {
        let cfg = TriggerConfig::default(); // H = 50 ms, α = 0.3, [2 ms, 100 ms]
        let mut e = TriggerEstimator::new(cfg, Time::ZERO);
        assert_eq!(e.interval(Time::ZERO, 5), cfg.t_max);
        // 1 packet per ms for a second: n^r → 50 per slot, t^a → 1 ms, m·t^a → 5 ms.
        for k in 0..1000u64 {
            e.on_receive(Time::ZERO + Duration::from_millis(k));
        }
        let t = e.interval(Time::ZERO + Duration::from_millis(1000), 5);
        assert!((t.as_secs_f64() - 0.005).abs() < 1e-4, "{t}");
        // m = 1 would ask for 1 ms: clamped to t_min.
        assert_eq!(e.interval(Time::ZERO + Duration::from_millis(1000), 1), cfg.t_min);
        // After a long silence the estimate decays to t_max.
        assert_eq!(e.interval(Time::ZERO + Duration::from_secs(60), 5), cfg.t_max);
        assert!(e.rate_per_slot() < 1e-3);
    }
}
