//! RFC 6298 retransmission-timeout estimator, Linux's (`tcp.rto = "linux"`, see
//! [`super::rto_linux`]), or the coarse tick-granular one of [`super::coarse_rtt`] when
//! `tcp.timer_tick` is set.

use super::coarse_rtt::CoarseRtt;
use super::rto_linux::{LinuxRto, RtoMode};
use super::rto_timer;
use crate::time::{Duration, Time};

/// Clock granularity G of RFC 6298 §2: our timestamp clock ticks every millisecond.
pub const CLOCK_GRANULARITY: Duration = Duration::from_millis(1);

/// RFC 6298 §2.2–2.3 smoothing of RTT samples: SRTT and RTTVAR (gains 1/8 and 1/4). Shared by
/// the RTO estimator, Vegas's fine-grained timer and the energy agent's receiver-side RTT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmoothedRtt {
    srtt: Option<Duration>,
    rttvar: Duration,
}

impl SmoothedRtt {
    /// Feed one measurement.
    pub fn sample(&mut self, r: Duration) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Duration(r.0 / 2);
            }
            Some(srtt) => {
                // RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'| ; SRTT <- 7/8 SRTT + 1/8 R'
                // u128 so absurd samples (a peer's garbage TSecr) cannot overflow.
                let err = srtt.0.abs_diff(r.0) as u128;
                self.rttvar = Duration(((3 * self.rttvar.0 as u128 + err) / 4) as u64);
                self.srtt = Some(Duration(((7 * srtt.0 as u128 + r.0 as u128) / 8) as u64));
            }
        }
    }

    /// Smoothed RTT, once a sample exists.
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }

    /// RTT variation (mean deviation) estimate.
    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }
}

/// SRTT/RTTVAR estimator with clamped, backed-off RTO (RFC 6298), or BSD/ns-2 coarse ticks.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    smoothed: SmoothedRtt,
    rto: Duration,
    min_rto: Duration,
    max_rto: Duration,
    /// Set by `tcp.timer_tick`: every method defers to it.
    coarse: Option<Box<CoarseRtt>>,
    /// Set by `tcp.rto = "linux"`: samples, SRTT and the RTO come from it (backoff stays here).
    linux: Option<LinuxRto>,
    /// Set by `tcp.rto_timer = "linux"`: the RTO fires on Linux's jiffies timer wheel.
    wheel: bool,
}

impl RttEstimator {
    /// Estimator with no sample yet: RTO = `initial` (RFC 6298 §2.1).
    pub fn new(initial: Duration, min_rto: Duration, max_rto: Duration) -> Self {
        RttEstimator { smoothed: SmoothedRtt::default(), rto: initial, min_rto, max_rto, coarse: None, linux: None, wheel: false }
    }

    /// Estimator ticking every `tick` when given (see [`CoarseRtt`]), else RFC 6298's.
    pub fn with_tick(tick: Option<Duration>, initial: Duration, min_rto: Duration, max_rto: Duration) -> Self {
        let mut e = RttEstimator::new(initial, min_rto, max_rto);
        e.coarse = tick.map(|t| Box::new(CoarseRtt::new(t, initial, min_rto, max_rto)));
        e
    }

    /// As [`Self::with_tick`], with Linux's estimator when `mode` is [`RtoMode::Linux`] (and no
    /// tick: the coarse timer takes precedence, the builder refuses both together).
    pub fn with_mode(mode: RtoMode, tick: Option<Duration>, initial: Duration, min_rto: Duration, max_rto: Duration) -> Self {
        let mut e = RttEstimator::with_tick(tick, initial, min_rto, max_rto);
        if mode == RtoMode::Linux && tick.is_none() {
            e.linux = Some(LinuxRto::new(min_rto));
        }
        e
    }

    /// Feed the RTT `r` of a segment acknowledged at `now` (snd_una/snd_nxt as after that ACK,
    /// for Linux's once-per-RTT update); returns the sample as the stack measured it (`r`
    /// itself, or whole ticks with a coarse timer). Undoes any backoff.
    pub fn measure(&mut self, now: Time, r: Duration, snd_una: u64, snd_nxt: u64) -> Duration {
        match self.coarse.as_deref_mut() {
            None => {
                match self.linux.as_mut() {
                    None => self.sample(r),
                    Some(l) => {
                        // tcp_ack_update_rtt: tcp_rtt_estimator, then tcp_set_rto (only
                        // TCP_RTO_MAX bounds it; rto_min is inside rttvar).
                        l.sample(r, snd_una, snd_nxt);
                        self.rto = l.rto().min(self.max_rto);
                    }
                }
                r
            }
            Some(c) => c.sample(now, r),
        }
    }

    /// When a timer of `d` armed at `now` expires: `now + d`, or on a tick boundary.
    pub fn deadline(&self, now: Time, d: Duration) -> Time {
        match self.coarse.as_deref() {
            None => now + d,
            Some(c) => c.deadline(now, d),
        }
    }

    /// Fire the RTO on Linux's jiffies timer wheel (`tcp.rto_timer = "linux"`; ignored with a
    /// coarse tick, whose own boundaries rule).
    pub fn set_timer_wheel(&mut self, on: bool) {
        self.wheel = on && self.coarse.is_none();
    }

    /// When the retransmission timer armed at `now` expires.
    pub fn rto_deadline(&self, now: Time) -> Time {
        if self.wheel {
            return rto_timer::linux_expiry(now, self.rto());
        }
        self.deadline(now, self.rto())
    }

    /// Feed one RTT measurement (RFC 6298 §2.2–2.4); also undoes any backoff.
    pub fn sample(&mut self, r: Duration) {
        self.smoothed.sample(r);
        let srtt = self.smoothed.srtt().unwrap_or(r);
        let k = Duration(self.smoothed.rttvar().0.saturating_mul(4));
        self.rto = self.clamp(srtt + if k > CLOCK_GRANULARITY { k } else { CLOCK_GRANULARITY });
    }

    /// Double the RTO after a timeout (RFC 6298 §5.5), up to the maximum.
    pub fn backoff(&mut self) {
        if let Some(c) = self.coarse.as_deref_mut() {
            return c.backoff();
        }
        self.rto = self.clamp(self.rto.saturating_mul(2));
    }

    /// Set the RTO directly (e.g. 3 s after a lost SYN, RFC 6298 §5.7).
    pub fn set_rto(&mut self, rto: Duration) {
        if let Some(c) = self.coarse.as_deref_mut() {
            return c.set_rto(rto);
        }
        self.rto = self.clamp(rto);
    }

    /// Current retransmission timeout.
    pub fn rto(&self) -> Duration {
        match self.coarse.as_deref() {
            None => self.rto,
            Some(c) => c.rto(),
        }
    }

    /// Smoothed RTT, once a sample exists.
    pub fn srtt(&self) -> Option<Duration> {
        if let Some(l) = &self.linux {
            return l.srtt();
        }
        match self.coarse.as_deref() {
            None => self.smoothed.srtt(),
            Some(c) => c.srtt(),
        }
    }

    /// RTT variation estimate (with Linux's estimator: its `rttvar_us`, the RTO's variance term).
    pub fn rttvar(&self) -> Duration {
        if let Some(l) = &self.linux {
            return l.rttvar();
        }
        match self.coarse.as_deref() {
            None => self.smoothed.rttvar(),
            Some(c) => c.rttvar(),
        }
    }

    fn clamp(&self, d: Duration) -> Duration {
        d.max(self.min_rto).min(self.max_rto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn matches_rfc6298_by_hand() {
        // No clamping in the way: min 1 ms.
        let mut e = RttEstimator::new(ms(1000), ms(1), ms(60_000));
        assert_eq!(e.rto(), ms(1000));
        e.sample(ms(100)); // SRTT 100, RTTVAR 50, RTO 100 + 200
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(ms(100)), ms(50), ms(300)));
        e.sample(ms(200)); // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 87.5+25 = 112.5; RTO = 112.5+250
        assert_eq!(e.rttvar(), Duration::from_micros(62_500));
        assert_eq!(e.srtt(), Some(Duration::from_micros(112_500)));
        assert_eq!(e.rto(), Duration::from_micros(362_500));
        e.sample(ms(100)); // RTTVAR = 46.875 + 3.125 = 50; SRTT = 98.4375 + 12.5 = 110.9375
        assert_eq!(e.rttvar(), ms(50));
        assert_eq!(e.srtt(), Some(Duration::from_nanos(110_937_500)));
        assert_eq!(e.rto(), Duration::from_nanos(310_937_500));
        // Constant samples: RTTVAR decays, but K*RTTVAR never below G.
        for _ in 0..200 {
            e.sample(ms(100));
        }
        assert_eq!(e.rto(), ms(101));
    }

    #[test]
    fn linux_mode_uses_the_kernel_formula_and_keeps_backoff() {
        let mut e = RttEstimator::with_mode(RtoMode::Linux, None, ms(1000), ms(200), ms(120_000));
        assert_eq!(e.rto(), ms(1000));
        let t = Time::ZERO;
        assert_eq!(e.measure(t, ms(200), 1, 10), ms(200));
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(ms(200)), ms(400), ms(600)));
        e.backoff();
        assert_eq!(e.rto(), ms(1200));
        for k in 1..200 {
            e.measure(t, ms(200), 10 * k + 1, 10 * k + 10);
        }
        assert_eq!(e.rto(), ms(404)); // RTT + rto_min (+ jiffy rounding); RFC 6298: 201 ms
        let mut r = RttEstimator::with_mode(RtoMode::Rfc6298, None, ms(1000), ms(200), ms(120_000));
        for k in 0..200 {
            r.measure(t, ms(200), 10 * k + 1, 10 * k + 10);
        }
        assert_eq!(r.rto(), ms(201));
        // A coarse timer takes precedence over the mode.
        let c = RttEstimator::with_mode(RtoMode::Linux, Some(ms(500)), ms(1000), ms(200), ms(120_000));
        assert!(c.linux.is_none() && c.coarse.is_some());
    }

    #[test]
    fn clamps_and_backs_off() {
        let mut e = RttEstimator::new(ms(1000), ms(200), ms(60_000));
        e.sample(ms(10));
        assert_eq!(e.rto(), ms(200));
        e.backoff();
        assert_eq!(e.rto(), ms(400));
        for _ in 0..20 {
            e.backoff();
        }
        assert_eq!(e.rto(), ms(60_000));
        e.sample(ms(10)); // a new sample undoes the backoff
        assert!(e.rto() < ms(300));
    }
}
