//! The agent's receiver-side estimators: RTT from TCP timestamps (mechanism 2), packet
//! inter-arrival for the dynamic threshold (mechanism 6), and the probe delay D.

use crate::tcp::rtt::SmoothedRtt;
use crate::tcp::seq;
use crate::time::{Duration, Time};

/// Outgoing timestamps remembered per connection (a ring: echoes refer to recent ACKs).
const TS_RING: usize = 16;

/// RTT measured at the receiver: each TSval the client sends is remembered with the time it
/// was last sent; the first incoming segment echoing it gives one sample (later echoes of the
/// same value come from the rest of a burst and would add the burst's length to the RTT).
#[derive(Clone, Debug, Default)]
pub struct ReceiverRtt {
    ring: [(u32, Time, bool); TS_RING],
    next: usize,
    written: u64,
    smoothed: SmoothedRtt,
    min: Option<Duration>,
    samples: u64,
}

impl ReceiverRtt {
    /// Remember that the client sent TSval `tsval` at `now`.
    pub fn on_sent(&mut self, now: Time, tsval: u32) {
        let last = (self.next + TS_RING - 1) % TS_RING;
        if self.written > 0 && self.ring[last].0 == tsval {
            self.ring[last].1 = now; // the latest send: samples err on the short side
            return;
        }
        self.ring[self.next] = (tsval, now, false);
        self.next = (self.next + 1) % TS_RING;
        self.written += 1;
    }

    /// An incoming segment echoed `tsecr` at `now`: returns the new sample, if any.
    pub fn on_echo(&mut self, now: Time, tsecr: u32) -> Option<Duration> {
        let slot = self
            .ring
            .iter_mut()
            .find(|(v, t, used)| *v == tsecr && !*used && *t <= now)?;
        slot.2 = true;
        let r = now.saturating_since(slot.1);
        self.sample(r);
        Some(r)
    }

    /// Feed one RTT sample (RFC 6298 smoothing, gains 1/8 and 1/4, as TCP does).
    pub fn sample(&mut self, r: Duration) {
        self.samples += 1;
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
        self.smoothed.sample(r);
    }

    /// Smoothed RTT.
    pub fn srtt(&self) -> Option<Duration> {
        self.smoothed.srtt()
    }

    /// Mean deviation (the seed's VAR).
    pub fn var(&self) -> Duration {
        self.smoothed.rttvar()
    }

    /// Smallest sample: the base RTT used to wake for the next burst (mechanism 7).
    pub fn min(&self) -> Option<Duration> {
        self.min
    }

    /// Number of samples taken.
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

/// The client's timestamp clock, learned from its outgoing segments so the agent can stamp
/// its own probes and ACKs with plausible values (never ahead of the TCP's own clock).
#[derive(Clone, Copy, Debug, Default)]
pub struct TsClock {
    last: Option<(Time, u32)>,
}

impl TsClock {
    /// The client sent `tsval` at `now`.
    pub fn observe(&mut self, now: Time, tsval: u32) {
        match self.last {
            Some((_, v)) if seq::lt(tsval, v) => {}
            _ => self.last = Some((now, tsval)),
        }
    }

    /// Estimated TSval at `now` for a clock of `hz` ticks per second.
    pub fn estimate(&self, now: Time, hz: u64) -> u32 {
        match self.last {
            None => 0,
            Some((t, v)) => {
                let ticks = (now.saturating_since(t).as_nanos() as u128 * hz as u128
                    / 1_000_000_000) as u32;
                v.wrapping_add(ticks)
            }
        }
    }
}

/// EWMA of packet inter-arrival times within bursts and its mean deviation, as TCP keeps
/// SRTT and RTTVAR, for the dynamic end-of-burst threshold.
#[derive(Clone, Copy, Debug, Default)]
pub struct InterArrival {
    avg: Option<Duration>,
    dev: Duration,
}

impl InterArrival {
    /// One gap between consecutive data packets of a burst.
    pub fn sample(&mut self, gap: Duration) {
        match self.avg {
            None => {
                self.avg = Some(gap);
                self.dev = Duration(gap.0 / 2);
            }
            Some(a) => {
                self.dev = Duration((3 * self.dev.0 + a.0.abs_diff(gap.0)) / 4);
                self.avg = Some(Duration((7 * a.0 + gap.0) / 8));
            }
        }
    }

    /// Threshold after which a burst with `missing` of its expected packets still missing is
    /// declared over: (IA_avg + 4·IA_dev) × max(1, missing) **\[R\]**; `None` before any sample.
    pub fn threshold(&self, missing: u32) -> Option<Duration> {
        let a = self.avg?;
        Some((a + Duration(4 * self.dev.0)).saturating_mul(missing.max(1) as u64))
    }
}

/// The delay D between an open ACK and its window probe, with the seed's adaptation.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProbeDelay {
    /// Current D (zero until initialised from the first window estimate).
    pub d: Duration,
    /// Clean bursts in a row.
    pub clean: u32,
    /// Sum of the gaps (last data packet → probe response) over the clean run.
    pub gap_sum: Duration,
}

impl ProbeDelay {
    /// D = W / B for a window of `window_bytes` and server rate `rate_bps`, within bounds.
    pub fn init(&mut self, window_bytes: u64, rate_bps: u64, floor: Duration, ceiling: Duration) {
        self.d = clamp(
            Duration::transmission(window_bytes, rate_bps),
            floor,
            ceiling,
        );
        self.clean = 0;
        self.gap_sum = Duration::ZERO;
    }

    /// The probe response came mid-burst or piggy-backed: D grows by `step`. Returns false if
    /// that would pass the ceiling (the caller then switches to the dynamic threshold).
    pub fn grow(&mut self, step: Duration, ceiling: Duration) -> bool {
        self.clean = 0;
        self.gap_sum = Duration::ZERO;
        if self.d + step > ceiling {
            self.d = ceiling;
            return false;
        }
        self.d += step;
        true
    }

    /// A clean burst whose last data packet preceded the probe response by `gap`; after
    /// `needed` in a row, D shrinks by half their mean gap. Returns true if D changed.
    pub fn clean_burst(&mut self, gap: Duration, needed: u32, floor: Duration) -> bool {
        self.clean += 1;
        self.gap_sum += gap;
        if self.clean < needed {
            return false;
        }
        let cut = Duration(self.gap_sum.0 / self.clean as u64 / 2);
        self.clean = 0;
        self.gap_sum = Duration::ZERO;
        let new = clamp(
            Duration(self.d.0.saturating_sub(cut.0)),
            floor,
            Duration::MAX,
        );
        let changed = new != self.d;
        self.d = new;
        changed
    }
}

/// `x` limited to `[lo, hi]` (`lo` wins if they cross).
pub fn clamp(x: Duration, lo: Duration, hi: Duration) -> Duration {
    x.min(hi).max(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rtt_samples_once_per_echoed_value_and_keeps_the_minimum() {
        let mut r = ReceiverRtt::default();
        r.on_sent(Time(0), 10);
        assert_eq!(
            r.on_echo(Time::ZERO + Duration::from_millis(60), 10),
            Some(Duration::from_millis(60))
        );
        assert_eq!(
            r.on_echo(Time::ZERO + Duration::from_millis(70), 10),
            None,
            "second echo of the same TSval"
        );
        r.on_sent(Time(0) + Duration::from_millis(100), 110);
        r.on_echo(Time(0) + Duration::from_millis(180), 110);
        assert_eq!(r.min(), Some(Duration::from_millis(60)));
        assert_eq!(r.srtt(), Some(Duration::from_micros(62_500)));
        assert_eq!(
            r.var(),
            Duration::from_micros(27_500),
            "3/4 · 30 + 1/4 · 20"
        );
    }

    #[test]
    fn ts_clock_extrapolates_at_its_rate() {
        let mut c = TsClock::default();
        c.observe(Time(5_000_000), 1000);
        assert_eq!(
            c.estimate(Time(5_000_000) + Duration::from_millis(7), 1000),
            1007
        );
        c.observe(Time(6_000_000), 999); // older value: ignored
        assert_eq!(c.estimate(Time(5_000_000), 1000), 1000);
    }

    #[test]
    fn probe_delay_grows_to_the_ceiling_and_shrinks_after_clean_runs() {
        let mut d = ProbeDelay::default();
        let (floor, ceil) = (Duration::from_millis(3), Duration::from_millis(30));
        d.init(44 * 1500, 100_000_000, floor, ceil);
        assert_eq!(d.d, Duration::from_micros(5280));
        assert!(d.grow(Duration::from_millis(1), ceil));
        assert_eq!(d.d, Duration::from_micros(6280));
        for _ in 0..9 {
            assert!(!d.clean_burst(Duration::from_millis(2), 10, floor));
        }
        assert!(d.clean_burst(Duration::from_millis(2), 10, floor));
        assert_eq!(d.d, Duration::from_micros(5280));
        d.d = Duration::from_millis(30);
        assert!(!d.grow(Duration::from_millis(1), ceil), "past the ceiling");
    }

    #[test]
    fn dynamic_threshold_scales_with_missing_packets() {
        let mut ia = InterArrival::default();
        assert_eq!(ia.threshold(3), None);
        ia.sample(Duration::from_micros(600));
        assert_eq!(ia.threshold(0), Some(Duration::from_micros(600 + 1200)));
        assert_eq!(ia.threshold(3), Some(Duration::from_micros(3 * 1800)));
    }
}
