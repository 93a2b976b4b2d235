//! CUBIC (RFC 9438): C = 0.4, β_cubic = 0.7, fast convergence on.
//!
//! Modelling choices:
//! - The curve works in segments and seconds with f64 (RFC 9438 §4.1); cwnd itself stays whole
//!   bytes with the fraction carried over, so growth smaller than a byte per ACK is not lost.
//! - t counts from the first ACK of the congestion-avoidance stage (§4.2 "epoch"); K =
//!   cbrt((W_max − cwnd_epoch)/C) (eq. 2; = cbrt(W_max·(1−β)/C) after a fast retransmit), or 0
//!   with W_max = cwnd_epoch when cwnd already reached W_max and in the first stage after an
//!   RTO (§4.8). RTT in the target W_cubic(t + RTT) is the RFC 6298 SRTT.
//! - Per ACK (§4.4–4.5): target clamped to [cwnd, 1.5·cwnd], cwnd += (target − cwnd)/cwnd per
//!   SMSS ACKed. Reno-friendly region (§4.3): W_est += α_cubic·segments_acked/cwnd with
//!   α_cubic = 3(1 − β)/(1 + β), 1 once W_est ≥ cwnd_prior; if W_cubic(t) < W_est, cwnd =
//!   W_est (never lowered by an ACK, as Linux).
//! - Fast retransmit (§4.6, §4.7): W_max = cwnd (·(1 + β)/2 if below the last W_max), ssthresh
//!   = max(β·cwnd, 2·SMSS) (cwnd rather than FlightSize, as Linux and the RFC's note allow),
//!   then NewReno recovery (RFC 6582; cwnd = ssthresh + 3·SMSS inflated by duplicates) which
//!   ends with cwnd = ssthresh.
//! - RTO (§4.8): the same ssthresh (unless the RTO interrupts a recovery that already reduced
//!   it, as Linux), cwnd = 1 SMSS, then slow start.
//! - Slow start ends at the first loss unless `hystart` chooses Linux's HyStart or RFC 9406's
//!   HyStart++ (§4.10 recommends the latter; see [`super::hystart`]).
//! - `cubic = "linux"` replaces the avoidance and loss arithmetic above by Linux's
//!   (`tcp_cubic.c`: whole segments, jiffies, no α switch; see [`super::cubic_linux`]); slow
//!   start, HyStart and recovery stay the same.
//! - Idle periods (option `cubic_idle_shift`, [`Cubic::on_tx_start`]): as Linux's
//!   `cubictcp_cwnd_event(CA_EVENT_TX_START)`, data sent with nothing in flight moves the
//!   epoch start later by the time since the last data segment was sent, capped at now, so
//!   the curve resumes where it was instead of jumping by the idle time (RFC 9438 §5.8: t
//!   excludes application-limited periods). Off, t counts idle time too (the RFC's bare text).

use super::aimd::Aimd;
use super::cubic_linux::{CubicVariant, LinuxCubic};
use super::hystart::{HyStart, HyStartMode, Verdict};
use super::AckInfo;
use crate::time::{Duration, Time};

/// CUBIC's scaling constant C (RFC 9438 §5), segments/s³.
pub const CUBIC_C: f64 = 0.4;
/// Multiplicative decrease factor β_cubic (RFC 9438 §4.6).
pub const CUBIC_BETA: f64 = 0.7;
/// α_cubic of the Reno-friendly region, 3(1 − β)/(1 + β) (RFC 9438 §4.3).
pub const CUBIC_ALPHA: f64 = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);

/// CUBIC state: the window (shared arithmetic for slow start and recovery) plus the curve.
#[derive(Clone, Debug)]
pub struct Cubic {
    pub(super) aimd: Aimd,
    /// Sub-byte cwnd growth carried to the next ACK.
    frac: f64,
    /// W_max in segments (0 before the first congestion event).
    w_max: f64,
    /// cwnd before the last congestion event, segments (§4.3 α switch).
    cwnd_prior: f64,
    /// K in seconds.
    k: f64,
    epoch_start: Option<Time>,
    cwnd_epoch: f64,
    w_est: f64,
    after_timeout: bool,
    in_recovery: bool,
    srtt: Option<Duration>,
    /// Slow-start exit (`hystart`), boxed: allocated once per connection when on.
    hystart: Option<Box<HyStart>>,
    /// Linux's arithmetic (`cubic = "linux"`), boxed: allocated once per connection when on.
    linux: Option<Box<LinuxCubic>>,
}

impl Cubic {
    pub(super) fn new(aimd: Aimd) -> Self {
        Cubic {
            aimd,
            frac: 0.0,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch_start: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            after_timeout: false,
            in_recovery: false,
            srtt: None,
            hystart: None,
            linux: None,
        }
    }

    /// W_max in segments (0 before the first congestion event).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// K in seconds: when W_cubic(t) reaches W_max again.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// W_cubic(t) = C(t − K)³ + W_max in segments, t seconds into the avoidance epoch (eq. 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        CUBIC_C * (t - self.k).powi(3) + self.w_max
    }

    /// Reno-friendly estimate W_est in segments (§4.3).
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    /// Start of the current congestion-avoidance epoch, once one began.
    pub fn epoch_start(&self) -> Option<Time> {
        self.epoch_start
    }

    /// The slow-start exit in use, if any.
    pub fn hystart(&self) -> Option<&HyStart> {
        self.hystart.as_deref()
    }

    /// Linux's window arithmetic, when `cubic = "linux"`.
    pub fn linux(&self) -> Option<&LinuxCubic> {
        self.linux.as_deref()
    }

    pub(super) fn set_variant(&mut self, variant: CubicVariant) {
        self.linux = (variant == CubicVariant::Linux).then(Box::default);
    }

    pub(super) fn set_hystart(&mut self, mode: HyStartMode) {
        self.hystart = (mode != HyStartMode::Off).then(|| Box::new(HyStart::new(mode)));
    }

    /// Data leaves with nothing in flight, `since_last_send` after the previous data segment
    /// (Linux's `CA_EVENT_TX_START` with `now - lsndtime`): shift the epoch start by it, never
    /// past `now` (`cubictcp_cwnd_event`, `net/ipv4/tcp_cubic.c`, since Linux 4.3). No epoch
    /// (slow start before the first loss, recovery, after an RTO): nothing to shift.
    pub(super) fn on_tx_start(&mut self, now: Time, since_last_send: Duration) {
        if let Some(linux) = &mut self.linux {
            return linux.on_tx_start(now, since_last_send);
        }
        if let Some(start) = self.epoch_start {
            if since_last_send > Duration::ZERO {
                self.epoch_start = Some((start + since_last_send).min(now));
            }
        }
    }

    pub(super) fn on_segment_sent(&mut self, now: Time, end: u64, retransmission: bool) {
        if let Some(h) = &mut self.hystart {
            h.on_sent(now, end, retransmission, self.aimd.in_slow_start());
        }
    }

    pub(super) fn on_ack_arrival(&mut self, a: &AckInfo) {
        if a.srtt.is_some() {
            self.srtt = a.srtt;
        }
        if let (Some(l), true) = (&mut self.linux, a.bytes_acked > 0) {
            if let Some(rtt) = a.fine_rtt.or(a.rtt) {
                l.on_rtt_sample(a.now, rtt);
            }
        }
        if let Some(h) = &mut self.hystart {
            if a.bytes_acked > 0 {
                let fresh = match &self.linux {
                    Some(l) => l.fresh_epoch(a.now),
                    None => self.epoch_start.is_some_and(|t| a.now.saturating_since(t) < Duration::from_secs(1)),
                };
                let segs = self.aimd.cwnd / self.aimd.mss;
                if h.on_ack(a.now, a.ack, a.snd_nxt, segs, a.srtt, self.aimd.in_slow_start(), fresh) == Verdict::Exit {
                    self.aimd.ssthresh = self.aimd.cwnd; // tp->snd_ssthresh = tcp_snd_cwnd(tp)
                }
            }
        }
    }

    pub(super) fn on_ack(&mut self, now: Time, bytes_acked: u32) {
        if self.aimd.in_slow_start() {
            match &self.hystart {
                Some(h) => {
                    let inc = h.slow_start_increase(bytes_acked, self.aimd.mss, self.aimd.abc_limit.saturating_mul(self.aimd.mss));
                    self.aimd.cwnd = self.aimd.cwnd.saturating_add(inc);
                }
                None => self.aimd.slow_start(bytes_acked),
            }
            self.frac = 0.0;
            return;
        }
        if let Some(l) = &mut self.linux {
            l.on_ack(&mut self.aimd, now, bytes_acked);
            return;
        }
        let mss = self.aimd.mss as f64;
        let cwnd = (self.aimd.cwnd as f64 + self.frac) / mss;
        let start = *self.epoch_start.get_or_insert_with(|| {
            self.cwnd_epoch = cwnd;
            self.w_est = cwnd;
            if self.after_timeout || self.w_max <= cwnd {
                // §4.8 after an RTO; and a window already at W_max starts the convex part.
                self.w_max = cwnd;
                self.k = 0.0;
            } else {
                self.k = ((self.w_max - cwnd) / CUBIC_C).cbrt();
            }
            self.after_timeout = false;
            now
        });
        let t = now.saturating_since(start).as_secs_f64();
        let rtt = self.srtt.map_or(0.0, Duration::as_secs_f64);
        let acked = bytes_acked as f64 / mss;
        let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { CUBIC_ALPHA };
        self.w_est += alpha * acked / cwnd;
        let new = if self.w_cubic(t) < self.w_est {
            cwnd.max(self.w_est)
        } else {
            let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
            cwnd + (target - cwnd) / cwnd * acked
        };
        let bytes = (new * mss).min(u32::MAX as f64);
        self.aimd.cwnd = bytes as u32;
        self.frac = bytes - bytes.floor();
    }

    /// §4.6 and §4.7: remember where the loss happened, reduce by β.
    fn congestion_event(&mut self) -> u32 {
        if let Some(l) = &mut self.linux {
            if let Some(h) = &mut self.hystart {
                h.on_congestion();
            }
            let mss = self.aimd.mss;
            return l.recalc_ssthresh(self.aimd.cwnd / mss).saturating_mul(mss);
        }
        let mss = self.aimd.mss as f64;
        let cwnd = (self.aimd.cwnd as f64 + self.frac) / mss;
        self.w_max = if cwnd < self.w_max { cwnd * (1.0 + CUBIC_BETA) / 2.0 } else { cwnd };
        self.cwnd_prior = cwnd;
        self.epoch_start = None;
        self.frac = 0.0;
        if let Some(h) = &mut self.hystart {
            h.on_congestion();
        }
        ((CUBIC_BETA * cwnd * mss) as u32).max(2 * self.aimd.mss)
    }

    pub(super) fn on_enter_recovery(&mut self, dupacks: u32) -> u32 {
        let ssthresh = self.congestion_event();
        self.in_recovery = true;
        self.aimd.enter_fast_recovery(ssthresh, dupacks)
    }

    pub(super) fn on_exit_recovery(&mut self) {
        self.in_recovery = false;
        self.aimd.deflate();
    }

    pub(super) fn on_timeout(&mut self) {
        let ssthresh = if self.in_recovery { self.aimd.ssthresh } else { self.congestion_event() };
        self.in_recovery = false;
        self.after_timeout = true;
        self.epoch_start = None;
        if let Some(h) = &mut self.hystart {
            h.on_timeout();
        }
        if let Some(l) = &mut self.linux {
            l.reset();
        }
        self.aimd.collapse(ssthresh);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CongestionControl, CongestionControlKind};
    use super::*;

    const MSS: u32 = 1000;

    /// CUBIC in congestion avoidance just after a loss at `w_max` segments.
    fn after_loss(w_max: u32, rtt: Duration) -> CongestionControl {
        let mut cc = CongestionControl::new(CongestionControlKind::Cubic, MSS, w_max);
        cc.on_ack_arrival(&AckInfo {
            now: Time::ZERO,
            ack: 1,
            snd_nxt: 1,
            bytes_acked: 0,
            is_dup: false,
            rtt: None,
            fine_rtt: None,
            srtt: Some(rtt),
        });
        let s = cc.on_enter_recovery(w_max * MSS, 3);
        assert_eq!(s, (CUBIC_BETA * (w_max * MSS) as f64) as u32);
        cc.on_exit_recovery(0);
        assert_eq!(cc.cwnd(), s);
        cc
    }

    /// ACK one SMSS at a time at a fixed RTT (a window's worth per RTT) until `until`;
    /// calls `f` after every ACK.
    fn ack_clock(cc: &mut CongestionControl, rtt: Duration, until: Time, f: impl FnMut(&CongestionControl, Time)) {
        ack_clock_from(cc, rtt, Time::ZERO, until, f);
    }

    /// [`ack_clock`] from `from`; returns the last ACK's time.
    fn ack_clock_from(cc: &mut CongestionControl, rtt: Duration, from: Time, until: Time, mut f: impl FnMut(&CongestionControl, Time)) -> Time {
        let mut now = from;
        while now < until {
            let segs = (cc.cwnd() as f64 / MSS as f64).max(1.0);
            now += Duration::from_secs_f64(rtt.as_secs_f64() / segs);
            cc.on_ack(now, MSS, None, cc.cwnd());
            f(cc, now);
        }
        now
    }

    /// Linux's `CA_EVENT_TX_START` (option `cubic_idle_shift`): after an idle period the
    /// window resumes on the curve as if no time had passed — ACK for ACK the same windows as
    /// a sender that was never idle — while without the shift t includes the idle time and
    /// the first RTT after it grows the window by the 1.5·cwnd clamp. The shift never moves
    /// the epoch past now, and does nothing without an epoch (slow start before any loss).
    #[test]
    fn idle_period_resumes_growth_on_the_curve() {
        let rtt = Duration::from_millis(100);
        let idle = Duration::from_secs(10);
        let pause = Time::from_secs_f64(1.0); // K = cbrt(200 · 0.3 / 0.4) ≈ 5.3 s: concave part
        let never_idle = |cc: &mut CongestionControl| {
            let mut w = Vec::new();
            let last = ack_clock_from(cc, rtt, Time::ZERO, pause, |_, _| {});
            ack_clock_from(cc, rtt, last, last + Duration::from_secs(2), |cc, _| w.push(cc.cwnd()));
            w
        };
        let with_idle = |cc: &mut CongestionControl, shift: bool| {
            let mut w = Vec::new();
            let last = ack_clock_from(cc, rtt, Time::ZERO, pause, |_, _| {});
            let resume = last + idle;
            let epoch = cc.cubic().unwrap().epoch_start().unwrap();
            if shift {
                cc.on_tx_start(resume, idle);
                assert_eq!(cc.cubic().unwrap().epoch_start(), Some(epoch + idle), "shifted by the idle time");
            }
            ack_clock_from(cc, rtt, resume, resume + Duration::from_secs(2), |cc, _| w.push(cc.cwnd()));
            w
        };
        let reference = never_idle(&mut after_loss(200, rtt));
        let shifted = with_idle(&mut after_loss(200, rtt), true);
        assert_eq!(shifted, reference, "the same windows, ACK for ACK, as without the idle period");
        let unshifted = with_idle(&mut after_loss(200, rtt), false);
        let one_rtt = (reference[0] / MSS) as usize; // one ACK per segment: a window's ACKs
        let (grown_ref, grown_raw) = (reference[one_rtt] as f64 / reference[0] as f64, unshifted[one_rtt] as f64 / unshifted[0] as f64);
        assert!(grown_raw > 1.3 && grown_ref < 1.05, "without the shift the window jumps toward W_cubic(t + idle): {grown_raw:.2} vs {grown_ref:.2}");

        // Capped at now: a shift longer than the epoch's age starts the epoch now.
        let mut cc = after_loss(200, rtt);
        let last = ack_clock_from(&mut cc, rtt, Time::ZERO, Time::from_secs_f64(0.2), |_, _| {});
        cc.on_tx_start(last + Duration::from_millis(50), Duration::from_secs(10));
        assert_eq!(cc.cubic().unwrap().epoch_start(), Some(last + Duration::from_millis(50)));
        // No epoch yet (slow start before any loss): nothing to shift.
        let mut cc = CongestionControl::new(CongestionControlKind::Cubic, MSS, 10);
        cc.on_tx_start(Time::from_secs_f64(5.0), Duration::from_secs(5));
        assert_eq!(cc.cubic().unwrap().epoch_start(), None);
        // Other algorithms ignore it.
        let mut reno = CongestionControl::new(CongestionControlKind::Reno, MSS, 10);
        reno.on_tx_start(Time::from_secs_f64(5.0), Duration::from_secs(5));
        assert_eq!(reno.cwnd(), 10 * MSS);
    }

    #[test]
    fn window_follows_the_cubic_curve_after_a_loss() {
        let rtt = Duration::from_millis(100);
        let mut cc = after_loss(200, rtt);
        let k = (200.0 * (1.0 - CUBIC_BETA) / CUBIC_C).cbrt();
        let checks = [0.25, 0.5, 1.0, 1.5, 2.0].map(|x| x * k);
        let mut next = 0;
        ack_clock(&mut cc, rtt, Time::from_secs_f64(2.0 * k + 0.01), |cc, now| {
            let c = cc.cubic().expect("cubic");
            let t = now.saturating_since(c.epoch_start().expect("epoch")).as_secs_f64();
            if next < checks.len() && t >= checks[next] {
                assert!((c.k() - k).abs() < 1e-9, "K = cbrt(W_max(1−β)/C)");
                assert!(c.w_cubic(t) > c.w_est(), "cubic region at t = {t}");
                let err = cc.cwnd() as f64 / MSS as f64 - c.w_cubic(t);
                assert!(err.abs() <= 2.0, "t = {t:.2}: cwnd {} vs W_cubic {:.1}", cc.cwnd(), c.w_cubic(t));
                next += 1;
            }
        });
        assert_eq!(next, checks.len());
        assert!(cc.cwnd() > 250 * MSS, "convex region past W_max: {}", cc.cwnd());
    }

    #[test]
    fn reno_friendly_region_wins_on_a_small_bdp() {
        // W_max = 20 segments at 10 ms: K ≈ 2.5 s, far longer than Reno needs to get back.
        let rtt = Duration::from_millis(10);
        let mut cc = after_loss(20, rtt);
        let mut rtts = 0.0;
        let mut last = Time::ZERO;
        ack_clock(&mut cc, rtt, Time::from_secs_f64(0.5), |cc, now| {
            let c = cc.cubic().expect("cubic");
            let t = now.saturating_since(c.epoch_start().expect("epoch")).as_secs_f64();
            if now.saturating_since(last) >= rtt {
                last = now;
                rtts += 1.0;
                // Reno-friendly: W_est = 14 + α per RTT up to cwnd_prior = 20, then +1 per RTT.
                let to_prior = 6.0 / CUBIC_ALPHA;
                let reno = if rtts <= to_prior { 14.0 + CUBIC_ALPHA * rtts } else { 20.0 + rtts - to_prior };
                let w = cc.cwnd() as f64 / MSS as f64;
                assert!((w - reno).abs() <= 2.0, "after {rtts} RTTs: cwnd {w:.1} vs Reno-friendly {reno:.1}");
                assert!(w >= c.w_cubic(t), "W_est above W_cubic");
            }
        });
        assert!(cc.cwnd() > 45 * MSS, "{}", cc.cwnd());
    }

    #[test]
    fn timeout_restarts_with_k_zero() {
        let rtt = Duration::from_millis(50);
        let mut cc = after_loss(100, rtt);
        cc.on_timeout(Time::ZERO, 70 * MSS);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 49 * MSS));
        // Slow start back to ssthresh, then the curve starts flat at the current window.
        ack_clock(&mut cc, rtt, Time::from_secs_f64(1.0), |_, _| {});
        let c = cc.cubic().expect("cubic");
        assert_eq!(c.k(), 0.0);
        assert!(c.w_max() >= 49.0 && c.w_max() < 52.0, "W_max = cwnd at the epoch start: {}", c.w_max());
    }
}
