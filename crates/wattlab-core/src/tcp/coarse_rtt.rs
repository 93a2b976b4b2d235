//! Coarse, tick-granular retransmission timer (`tcp.timer_tick`): the 4.4BSD "slow timer" RTO
//! (Wright & Stevens, *TCP/IP Illustrated* Vol. 2, ch. 25: `tcp_xmit_timer`, `tcp_timers`,
//! 500 ms ticks) and ns-2's `Agent/TCP` with `tcpTick_` (tcp.cc: `rtt_update`, `rtt_timeout`,
//! `rtt_backoff`).
//!
//! Semantics, shared by both sources unless stated:
//! - an RTT sample is the number of tick boundaries between the send and the ACK, at least 1
//!   (BSD counts slow-timer ticks while a segment is timed; ns-2's `(tao + tickoff) / tcpTick_`
//!   with `tickoff` the send time's phase is the same count);
//! - SRTT is kept in ticks × 8 and RTTVAR in ticks × 4 with integer gains 1/8 and 1/4; the first
//!   sample sets SRTT = m and RTTVAR = m / 2;
//! - the un-backed-off RTO is SRTT + 4·RTTVAR in whole ticks (`(srtt >> 3) + rttvar`, BSD's
//!   `TCP_REXMTVAL`);
//! - a timeout multiplies it by 2^k (k ≤ 6, both cap the multiplier at 64), then clamps to
//!   [max(min_rto, 2 ticks), max_rto] — the floor applies after the backoff, as in both;
//! - from the 4th consecutive timeout SRTT is folded into RTTVAR and forgotten, so the next
//!   sample starts afresh (BSD `t_rxtshift > TCP_MAXRXTSHIFT / 4`, ns-2 `t_backoff_ > 8`);
//! - the timer fires on a tick boundary: an RTO of N ticks armed at t expires at the N-th
//!   boundary after t, i.e. between (N − 1) and N ticks later (BSD's counter decremented by the
//!   slow timer). Boundaries are multiples of the tick from the run's start. ns-2 fires exactly
//!   N ticks later instead; this is the one place where we follow BSD.
//!
//! Before any sample the RTO is the configured initial RTO rounded up to ticks (BSD's odd
//! 6 s / 24 s SYN schedule from its initial RTTVAR is not modelled).

use crate::time::{Duration, Time};

/// Largest backoff shift: the RTO multiplier stops at 2^6 = 64.
const MAX_SHIFT: u32 = 6;
/// From this backoff shift on, SRTT is folded into RTTVAR and forgotten.
const FORGET_SRTT_SHIFT: u32 = 4;
/// No RTO below this many ticks (BSD's TCPTV_MIN at 2 Hz, ns-2's `2 * tcp_tick_`).
const MIN_TICKS: u64 = 2;

/// Tick-granular SRTT/RTTVAR and RTO, as BSD's slow timer and ns-2's `tcpTick_`.
#[derive(Clone, Debug)]
pub struct CoarseRtt {
    tick: u64,
    /// SRTT in ticks × 8; 0 = no estimate (never sampled, or forgotten after backoff).
    srtt8: u64,
    /// RTTVAR in ticks × 4.
    rttvar4: u64,
    /// Un-backed-off RTO in ticks.
    base: u64,
    /// Consecutive timeouts (the backoff exponent).
    shift: u32,
    /// Lower clamp in ticks: max(min_rto rounded up, 2).
    min_ticks: u64,
    max_rto: Duration,
    sampled: bool,
}

impl CoarseRtt {
    /// An estimator ticking every `tick` (> 0), with no sample yet.
    pub fn new(tick: Duration, initial: Duration, min_rto: Duration, max_rto: Duration) -> Self {
        let tick = tick.0.max(1);
        CoarseRtt {
            tick,
            srtt8: 0,
            rttvar4: 0,
            base: initial.0.div_ceil(tick),
            shift: 0,
            min_ticks: min_rto.0.div_ceil(tick).max(MIN_TICKS),
            max_rto,
            sampled: false,
        }
    }

    /// One measurement of a segment sent at `now − r` and acknowledged at `now`; returns the
    /// sample as the stack measured it (whole ticks). Undoes any backoff.
    pub fn sample(&mut self, now: Time, r: Duration) -> Duration {
        let sent = now.0.saturating_sub(r.0);
        let m = (now.0 / self.tick - sent / self.tick).max(1);
        if self.srtt8 != 0 {
            let delta = m as i64 - (self.srtt8 >> 3) as i64;
            self.srtt8 = (self.srtt8 as i64 + delta).max(1) as u64;
            let dev = delta.abs() - (self.rttvar4 >> 2) as i64;
            self.rttvar4 = (self.rttvar4 as i64 + dev).max(1) as u64;
        } else {
            self.srtt8 = m << 3;
            self.rttvar4 = m << 1;
        }
        self.base = (self.srtt8 >> 3) + self.rttvar4;
        self.shift = 0;
        self.sampled = true;
        Duration(m.saturating_mul(self.tick))
    }

    /// A timeout: double the multiplier (up to 64); forget SRTT from the 4th in a row.
    pub fn backoff(&mut self) {
        self.shift = (self.shift + 1).min(MAX_SHIFT);
        if self.shift >= FORGET_SRTT_SHIFT {
            self.rttvar4 += self.srtt8 >> 3;
            self.srtt8 = 0;
        }
    }

    /// Set the un-backed-off RTO (rounded up to ticks), e.g. 3 s after a lost SYN.
    pub fn set_rto(&mut self, rto: Duration) {
        self.base = rto.0.div_ceil(self.tick);
        self.shift = 0;
    }

    /// Current RTO: whole ticks, backed off and clamped.
    pub fn rto(&self) -> Duration {
        let ticks = (self.base << self.shift).max(self.min_ticks);
        Duration(ticks.saturating_mul(self.tick)).min(self.max_rto)
    }

    /// When a timer of `d` armed at `now` fires: the ⌈d / tick⌉-th tick boundary after `now`.
    pub fn deadline(&self, now: Time, d: Duration) -> Time {
        let n = d.0.div_ceil(self.tick).max(1);
        Time((now.0 / self.tick).saturating_add(n).saturating_mul(self.tick))
    }

    /// Smoothed RTT (a multiple of tick / 8), while an estimate exists.
    pub fn srtt(&self) -> Option<Duration> {
        (self.sampled && self.srtt8 != 0).then(|| Duration(self.srtt8 * self.tick / 8))
    }

    /// RTT variation (a multiple of tick / 4).
    pub fn rttvar(&self) -> Duration {
        Duration(self.rttvar4 * self.tick / 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: Duration = Duration::from_millis(500);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn at(n: u64) -> Time {
        Time(ms(n).0)
    }

    fn bsd() -> CoarseRtt {
        CoarseRtt::new(TICK, Duration::from_secs(1), ms(1000), Duration::from_secs(64))
    }

    #[test]
    fn a_sample_counts_tick_boundaries_at_least_one() {
        let mut e = bsd();
        // 10 ms inside one tick: no boundary crossed, counted as 1 tick.
        assert_eq!(e.sample(at(1_010), ms(10)), ms(500));
        // 10 ms across a boundary (sent 995, acked 1005): 1 tick.
        assert_eq!(e.sample(at(1_005), ms(10)), ms(500));
        // 600 ms from 499 to 1099: boundaries at 500 and 1000, 2 ticks.
        assert_eq!(e.sample(at(1_099), ms(600)), ms(1000));
        // 600 ms from 0 to 600: one boundary (500).
        assert_eq!(e.sample(at(600), ms(600)), ms(500));
    }

    #[test]
    fn rto_by_hand_bsd_500ms() {
        let mut e = bsd();
        assert_eq!(e.rto(), ms(1000)); // initial 1 s = 2 ticks
        // First sample, m = 3 ticks: srtt8 = 24, rttvar4 = 6, RTO = 3 + 6 = 9 ticks = 4.5 s.
        e.sample(at(1_600), ms(1_500)); // 100 -> 1600: boundaries 500, 1000, 1500
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(ms(1500)), ms(750), ms(4500)));
        // m = 1: delta = 1 - 3 = -2; srtt8 = 22; dev = 2 - 1 = 1, rttvar4 = 7; RTO = 2 + 7 = 9 ticks.
        e.sample(at(2_010), ms(10));
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(ms(1375)), ms(875), ms(4500)));
        // Many 1-tick samples: srtt8 -> 15 (delta 0 once srtt8 < 16), rttvar4 decays to 1
        // (dev = 0 - rttvar4/4 until rttvar4 < 4, then stuck at 3: |0| - 0 = 0).
        for k in 0..200 {
            e.sample(at(3_010 + 500 * k), ms(10));
        }
        assert_eq!(e.srtt(), Some(ms(937) + Duration::from_micros(500))); // 15/8 ticks
        assert_eq!(e.rttvar(), ms(375)); // rttvar4 = 3
        // base = 1 + 3 = 4 ticks = 2 s.
        assert_eq!(e.rto(), ms(2000));
    }

    #[test]
    fn a_sub_tick_rtt_keeps_three_ticks_unless_min_rto_is_higher() {
        // ns-2's old defaults: 100 ms ticks, 3 s initial RTO.
        let mut e = CoarseRtt::new(ms(100), Duration::from_secs(3), ms(200), Duration::from_secs(60));
        assert_eq!(e.rto(), Duration::from_secs(3));
        e.sample(at(5), ms(2)); // m = 1: srtt8 = 8, rttvar4 = 2, base = 1 + 2 = 3 ticks
        assert_eq!(e.rto(), ms(300));
        for k in 1..100 {
            e.sample(at(5 + 100 * k), ms(2));
        }
        // delta = 0 and rttvar4 >> 2 = 0: the integer RTTVAR never decays below 2/4 tick, so
        // a sub-tick RTT keeps a 3-tick RTO.
        assert_eq!((e.srtt(), e.rttvar(), e.rto()), (Some(ms(100)), ms(50), ms(300)));
        // A 1 s min_rto dominates the ticks.
        let mut e = CoarseRtt::new(ms(100), Duration::from_secs(3), ms(1000), Duration::from_secs(60));
        e.sample(at(5), ms(2));
        assert_eq!(e.rto(), ms(1000));
    }

    #[test]
    fn backoff_multiplies_the_estimate_then_clamps_and_forgets_srtt() {
        let mut e = bsd();
        e.sample(at(1_010), ms(10)); // m = 1: base = 1 + 2 = 3 ticks (1.5 s)
        assert_eq!(e.rto(), ms(1500));
        let want = [3000, 6000, 12_000, 24_000, 48_000, 64_000, 64_000];
        for w in want {
            e.backoff();
            assert_eq!(e.rto(), ms(w));
        }
        // The 4th timeout folded SRTT (1 tick) into RTTVAR (2 -> 3) and forgot it; the
        // un-backed-off value is unchanged (1 + 2 = 0 + 3) and the next sample starts afresh.
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rttvar(), ms(375));
        e.sample(at(9_300), ms(700)); // 8600 -> 9300: boundary 9000, m = 1: srtt8 = 8, rttvar4 = 2
        assert_eq!((e.srtt(), e.rto()), (Some(ms(500)), ms(1500)));
    }

    #[test]
    fn the_floor_applies_after_the_backoff() {
        // base 1 tick with a 2-tick floor: backoff gives 2, 4, ... ticks, not 4, 8 (the clamped
        // value doubled).
        let mut e = CoarseRtt::new(TICK, ms(500), ms(1), Duration::from_secs(64));
        assert_eq!(e.rto(), ms(1000)); // 1 tick, floor 2
        e.backoff();
        assert_eq!(e.rto(), ms(1000)); // 2 ticks
        e.backoff();
        assert_eq!(e.rto(), ms(2000)); // 4 ticks
    }

    #[test]
    fn the_timer_fires_on_a_tick_boundary() {
        let e = bsd();
        // 2 ticks armed at 0.1 s: boundaries 0.5 and 1.0 s -> fires at 1.0 s (0.9 s later).
        assert_eq!(e.deadline(at(100), ms(1000)), at(1000));
        // Armed exactly on a boundary: that boundary has passed, fires 2 ticks later.
        assert_eq!(e.deadline(at(500), ms(1000)), at(1500));
        // Armed at 0.999 s: fires at 1.5 s, 0.501 s later (BSD's "up to one tick early").
        assert_eq!(e.deadline(at(999), ms(1000)), at(1500));
        // A non-multiple rounds up to ticks: 1.2 s = 3 ticks.
        assert_eq!(e.deadline(at(0), ms(1200)), at(1500));
    }

    #[test]
    fn set_rto_rounds_up_and_clears_the_backoff() {
        let mut e = bsd();
        e.backoff();
        e.set_rto(Duration::from_secs(3));
        assert_eq!(e.rto(), Duration::from_secs(3));
        e.set_rto(ms(1200));
        assert_eq!(e.rto(), ms(1500));
    }
}
