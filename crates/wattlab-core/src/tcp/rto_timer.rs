//! When an armed retransmission timer actually fires (`tcp.rto_timer`).
//!
//! `exact` (the textbook default): at `now + RTO`.
//!
//! `linux`: Linux 6.18 keeps the RTO in jiffies and arms it on the timer wheel
//! (net/ipv4/tcp_output.c `tcp_reset_xmit_timer` → include/net/inet_connection_sock.h
//! `inet_csk_reset_xmit_timer` → `sk_reset_timer(sk, &icsk->icsk_retransmit_timer, jiffies +
//! when)`, a `timer_list`). kernel/time/timer.c (`calc_wheel_index`, `calc_index`, since
//! 5.x's "Round up with level granularity") puts a timer of expiry E armed at wheel clock
//! `clk` (= jiffies) in level L = the first with E − clk < LVL_START(L + 1) (63, 504, 4032, …
//! jiffies: LVL_START(n) = 63 << 3(n − 1)) and fires it at the tick
//! `((E >> 3L) + 1) << 3L`: always after E, by up to one granule of 8^L jiffies. With the
//! testbed's CONFIG_HZ = 250 (4 ms jiffies, `/proc/config.gz` of its 6.18 kernel) an RTO below
//! 252 ms fires 0–4 ms after its jiffy (level 0, plus the sub-jiffy part of `now`), one of
//! 252 ms–2.016 s at the next 32 ms boundary of the jiffies clock (level 1: 0–32 ms late, 16
//! on average), one of 2.016–16.1 s at the next 256 ms boundary (level 2). Linux's RTO is at
//! least SRTT + 200 ms (`tcp.rto = "linux"`), so level 1 is the usual case. A timer re-armed
//! into the same bucket keeps its tick (`__mod_timer`), which this rule also gives.
//!
//! The model's jiffies clock starts with the simulation (the live kernel's phase is
//! arbitrary). Not modelled: the timer softirq's own latency; TLP's probe timer, RACK's
//! reordering timer and the delayed-ACK timer (also `timer_list`s, mostly in level 0 where
//! the rounding is under 2 jiffies).

use super::cc::cubic_linux::LINUX_HZ;
use super::named_option::named_option;
use crate::time::{Duration, Time};

named_option! {
    /// When an armed retransmission timer fires.
    pub enum RtoTimer("rto_timer") {
        /// At exactly the armed time plus the RTO. The textbook default.
        #[default]
        Exact = "exact",
        /// On Linux's jiffies timer wheel (CONFIG_HZ = 250): rounded up to the level's
        /// granule (see the module docs).
        Linux = "linux",
    }
    /// A name that matches no [`RtoTimer`].
    error UnknownRtoTimer;
}

/// Nanoseconds per jiffy.
const JIFFY_NS: u64 = 1_000_000_000 / LINUX_HZ as u64;
/// Bits per wheel level's clock step (`LVL_CLK_SHIFT`) and slots per level (`LVL_BITS`).
const LVL_CLK_SHIFT: u32 = 3;
const LVL_BITS: u32 = 6;

/// When a `timer_list` armed at `now` for `timeout` fires on the jiffies wheel: expiry E =
/// jiffies(now) + `usecs_to_jiffies`(timeout) (rounded up), then `calc_wheel_index`'s bucket.
pub fn linux_expiry(now: Time, timeout: Duration) -> Time {
    let clk = now.as_nanos() / JIFFY_NS;
    let delta = timeout.as_nanos().div_ceil(JIFFY_NS);
    let expires = clk + delta;
    // LVL_START(n) = (LVL_SIZE - 1) << ((n - 1) * LVL_CLK_SHIFT); past the last level the
    // kernel caps the timeout (WHEEL_TIMEOUT_CUTOFF, days): not reached by an RTO.
    let mut lvl = 0;
    while lvl < 8 && delta >= ((1u64 << LVL_BITS) - 1) << (lvl * LVL_CLK_SHIFT) {
        lvl += 1;
    }
    let shift = lvl * LVL_CLK_SHIFT;
    let bucket = ((expires >> shift) + 1) << shift;
    Time(bucket * JIFFY_NS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `v` ms (whole microseconds: exact in nanoseconds).
    fn ms(v: f64) -> Time {
        Time((v * 1000.0).round() as u64 * 1000)
    }

    #[test]
    fn level_zero_fires_the_jiffy_after_expiry() {
        // 200 ms = 50 jiffies (< 63): armed at 1.0 ms (jiffy 0), expiry jiffy 50, fires at
        // tick 51 = 204 ms.
        assert_eq!(linux_expiry(ms(1.0), Duration::from_millis(200)), ms(204.0));
        // A timeout not a whole number of jiffies is rounded up first (201 ms → 51 jiffies).
        assert_eq!(linux_expiry(ms(1.0), Duration::from_millis(201)), ms(208.0));
    }

    #[test]
    fn level_one_rounds_up_to_the_next_32_ms_boundary() {
        // 400 ms = 100 jiffies (63..504: level 1, granule 8 jiffies = 32 ms). Armed at jiffy
        // 0: expiry 100, bucket ((100 >> 3) + 1) << 3 = 104 → 416 ms.
        assert_eq!(linux_expiry(ms(0.0), Duration::from_millis(400)), ms(416.0));
        // Armed at jiffy 3 (12.5 ms): expiry 103 → still tick 104: 403.5 ms after arming.
        assert_eq!(linux_expiry(ms(12.5), Duration::from_millis(400)), ms(416.0));
        // Armed at jiffy 4: expiry 104 → tick 112 (a whole granule late).
        assert_eq!(linux_expiry(ms(16.0), Duration::from_millis(400)), ms(448.0));
        // Never early, never more than a granule (+ a jiffy) late.
        for i in 0..400 {
            let now = ms(i as f64 * 0.37);
            let at = linux_expiry(now, Duration::from_millis(400));
            let late = at.saturating_since(now + Duration::from_millis(400));
            assert!(at >= now + Duration::from_millis(400) && late <= Duration::from_millis(36), "{i}: {late:?}");
        }
    }

    #[test]
    fn level_two_granule_is_256_ms() {
        // 3 s = 750 jiffies (504..4032: level 2, granule 64 jiffies). From jiffy 0: expiry
        // 750, bucket ((750 >> 6) + 1) << 6 = 768 → 3.072 s.
        assert_eq!(linux_expiry(ms(0.0), Duration::from_secs(3)), ms(3072.0));
    }

    #[test]
    fn names_and_default() {
        assert_eq!(RtoTimer::default(), RtoTimer::Exact);
        assert_eq!(RtoTimer::from_name("Linux"), Ok(RtoTimer::Linux));
        assert_eq!(RtoTimer::from_name("jiffies").unwrap_err().to_string(), "unknown rto_timer `jiffies` (known: exact, linux)");
    }
}
