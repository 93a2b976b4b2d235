//! Which retransmission-timeout formula the sender uses (`tcp.rto`), and Linux's estimator.
//!
//! RFC 6298 (the textbook default, in [`super::rtt`]) computes RTO = max(rto_min, SRTT +
//! 4·RTTVAR): the floor applies to the whole timeout. Linux 6.18 floors the *variance term*
//! instead (net/ipv4/tcp_input.c `tcp_rtt_estimator`, include/net/tcp.h `__tcp_set_rto`,
//! net/ipv4/tcp_input.c `tcp_set_rto`/`tcp_bound_rto`): RTO = SRTT + rttvar with rttvar ≥
//! rto_min, so RTO ≥ SRTT + 200 ms (≈ 400 ms at a 200 ms RTT where RFC 6298 gives ≈ 200–250
//! ms). [`LinuxRto`] is that arithmetic, integer for integer:
//!
//! - state in µs: `srtt_us` (8 × SRTT), `mdev_us` (4 × mean deviation), `mdev_max_us` (the
//!   largest `mdev_us` of the current RTT, reset to rto_min once per RTT), `rttvar_us` (the
//!   variance term of the RTO, never below `mdev_max_us`), `rtt_seq` (the snd_nxt that ends the
//!   current RTT);
//! - first sample m: `srtt_us = 8m`, `mdev_us = 2m`, `rttvar_us = mdev_max_us = max(2m,
//!   rto_min)`, `rtt_seq = snd_nxt` (RTO = 3·RTT, at least RTT + rto_min);
//! - later samples: `srtt_us += m − srtt_us/8`; the error e = |m − srtt| moves `mdev_us` by
//!   (e − mdev_us/4), except that a sample *below* SRTT whose error exceeds mdev/4 moves it by
//!   only an eighth of that (the Eifel-like rule that keeps a falling RTT from raising the RTO);
//!   a larger `mdev_us` raises `mdev_max_us` and, through it, `rttvar_us` at once;
//! - once per RTT (when snd_una passes `rtt_seq`): `rttvar_us` decays a quarter of the way
//!   down to `mdev_max_us`, `rtt_seq = snd_nxt`, `mdev_max_us = rto_min`;
//! - RTO = usecs_to_jiffies(srtt_us/8 + rttvar_us) (rounded up to whole jiffies), at most
//!   TCP_RTO_MAX (`max_rto`). A jiffy is [`LINUX_JIFFY`] (the testbed's CONFIG_HZ = 250).
//!
//! What feeds it is the connection's sample (see `TcpConnection::take_rtt_sample`): with
//! timestamps the TSecr echo (whole milliseconds, as Linux's `tcp_rtt_tsopt_us`), without them
//! the Karn-timed segment (RFC 6298 §3). Linux prefers the send time of the oldest newly
//! acknowledged never-retransmitted segment (µs, `tcp_clean_rtx_queue`'s `first_ackt`) and
//! falls back to TSecr only when that is missing; that preference is not modelled.

use super::named_option::named_option;
use crate::time::Duration;

/// One jiffy of the testbed kernel (CONFIG_HZ = 250): Linux keeps `icsk_rto` in jiffies.
pub const LINUX_JIFFY: Duration = Duration::from_millis(4);

named_option! {
    /// When the retransmission timer restarts (`TcpConfig::rto_restart`).
    pub enum RtoRestart("rto_restart") {
        /// RFC 6298 §5.2–5.3: when an ACK acknowledges new data (and when it is not running).
        #[default]
        Rfc6298 = "rfc6298",
        /// Linux 6.18 also restarts it when SACK recovery resends the first unacknowledged
        /// segment (net/ipv4/tcp_output.c `tcp_xmit_retransmit_queue`: `skb == rtx_head` and no
        /// RACK reordering timer pending → `tcp_reset_xmit_timer(ICSK_TIME_RETRANS, icsk_rto)`),
        /// so a lost retransmission that RACK repairs does not also run into the RTO armed by
        /// the first one.
        Linux = "linux",
    }
    aliases { "rfc" => Rfc6298 }
    /// A name that matches no [`RtoRestart`].
    error UnknownRtoRestart;
}

named_option! {
    /// Which retransmission-timeout formula the sender uses.
    pub enum RtoMode("rto") {
        /// RFC 6298: RTO = max(rto_min, SRTT + max(G, 4·RTTVAR)), the textbook default.
        #[default]
        Rfc6298 = "rfc6298",
        /// Linux 6.18's `tcp_rtt_estimator` + `__tcp_set_rto`: RTO = SRTT + rttvar, rttvar ≥ rto_min.
        Linux = "linux",
    }
    /// A name that matches no [`RtoMode`].
    error UnknownRto;
}

/// Linux's RTT estimator state (`struct tcp_sock` fields of the same names, all in µs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxRto {
    /// 8 × smoothed RTT (0 = no sample yet).
    pub srtt_us: u64,
    /// 4 × mean deviation.
    pub mdev_us: u64,
    /// Largest `mdev_us` of the current RTT, at least rto_min.
    pub mdev_max_us: u64,
    /// Variance term of the RTO, at least `mdev_max_us` after each RTT.
    pub rttvar_us: u64,
    /// snd_nxt when the current RTT began; passing it ends the RTT.
    pub rtt_seq: u64,
    /// The route's rto_min (`tcp_rto_min_us`).
    rto_min_us: u64,
}

impl LinuxRto {
    /// No sample yet; `rto_min` is the route's rto_min (200 ms = TCP_RTO_MIN by default).
    pub fn new(rto_min: Duration) -> Self {
        LinuxRto { srtt_us: 0, mdev_us: 0, mdev_max_us: 0, rttvar_us: 0, rtt_seq: 0, rto_min_us: rto_min.0 / 1000 }
    }

    /// `tcp_rtt_estimator(sk, mrtt_us)` with snd_una/snd_nxt as after the ACK that gave it.
    pub fn sample(&mut self, rtt: Duration, snd_una: u64, snd_nxt: u64) {
        // Kernel arithmetic in signed `long`; samples are clamped so it cannot overflow.
        let mut m = (rtt.0 / 1000).min(i64::MAX as u64 >> 4) as i64;
        let mut srtt = self.srtt_us as i64;
        if srtt != 0 {
            m -= srtt >> 3; // m is now the error in the RTT estimate
            srtt += m; // rtt = 7/8 rtt + 1/8 new
            let mdev = self.mdev_us as i64;
            if m < 0 {
                m = -m; // abs(error)
                m -= mdev >> 2;
                // A falling RTT: finer gain (alpha·beta) so the RTO neither grows nor drops fast.
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= mdev >> 2;
            }
            self.mdev_us = (mdev + m) as u64; // mdev = 3/4 mdev + 1/4 new
            if self.mdev_us > self.mdev_max_us {
                self.mdev_max_us = self.mdev_us;
                if self.mdev_max_us > self.rttvar_us {
                    self.rttvar_us = self.mdev_max_us;
                }
            }
            if snd_una > self.rtt_seq {
                // after(snd_una, rtt_seq): one RTT has passed.
                if self.mdev_max_us < self.rttvar_us {
                    self.rttvar_us -= (self.rttvar_us - self.mdev_max_us) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max_us = self.rto_min_us;
            }
        } else {
            srtt = m << 3; // take the measured time to be the RTT
            self.mdev_us = (m << 1) as u64; // make sure rto = 3*rtt
            self.rttvar_us = self.mdev_us.max(self.rto_min_us);
            self.mdev_max_us = self.rttvar_us;
            self.rtt_seq = snd_nxt;
        }
        self.srtt_us = (srtt as u64).max(1);
    }

    /// `__tcp_set_rto`: srtt + rttvar, rounded up to whole jiffies (before TCP_RTO_MAX).
    pub fn rto(&self) -> Duration {
        let us = (self.srtt_us >> 3) + self.rttvar_us;
        let j = LINUX_JIFFY.0 / 1000;
        Duration::from_micros(us.div_ceil(j) * j)
    }

    /// Smoothed RTT (`srtt_us >> 3`), once a sample exists.
    pub fn srtt(&self) -> Option<Duration> {
        (self.srtt_us != 0).then(|| Duration::from_micros(self.srtt_us >> 3))
    }

    /// The RTO's variance term (`rttvar_us`).
    pub fn rttvar(&self) -> Duration {
        Duration::from_micros(self.rttvar_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    /// (srtt_us, mdev_us, mdev_max_us, rttvar_us, rto in µs) after a sample.
    fn state(e: &LinuxRto) -> (u64, u64, u64, u64, u64) {
        (e.srtt_us, e.mdev_us, e.mdev_max_us, e.rttvar_us, e.rto().0 / 1000)
    }

    #[test]
    fn names_parse_and_unknown_lists_the_known() {
        for m in RtoMode::ALL {
            assert_eq!(RtoMode::from_name(&m.name().to_uppercase()), Ok(m));
        }
        assert_eq!(RtoMode::default(), RtoMode::Rfc6298);
        assert_eq!(RtoMode::from_name("bsd").unwrap_err().to_string(), "unknown rto `bsd` (known: rfc6298, linux)");
    }

    #[test]
    fn first_sample_gives_three_rtts_or_rtt_plus_rto_min() {
        // 200 ms: srtt = 8·200000, mdev = 2·200000 = 400000 ≥ rto_min: RTO = 200 + 400 = 600 ms.
        let mut e = LinuxRto::new(Duration::from_millis(200));
        assert_eq!(e.srtt(), None);
        e.sample(Duration::from_millis(200), 1, 10);
        assert_eq!(state(&e), (1_600_000, 400_000, 400_000, 400_000, 600_000));
        assert_eq!(e.rtt_seq, 10);
        // 20 ms: mdev = 40000 < rto_min: rttvar = mdev_max = 200000, RTO = 20 + 200 = 220 ms.
        let mut e = LinuxRto::new(Duration::from_millis(200));
        e.sample(Duration::from_millis(20), 1, 10);
        assert_eq!(state(&e), (160_000, 40_000, 200_000, 200_000, 220_000));
        // 1 µs: srtt_us = 8; 200.001 ms rounds up to 204 ms (4 ms jiffies).
        let mut e = LinuxRto::new(Duration::from_millis(200));
        e.sample(us(1), 1, 10);
        assert_eq!(state(&e), (8, 2, 200_000, 200_000, 204_000));
    }

    #[test]
    fn constant_rtt_converges_to_rtt_plus_rto_min() {
        // One sample per RTT (each ACK passes rtt_seq), 200 ms constant.
        let mut e = LinuxRto::new(Duration::from_millis(200));
        e.sample(Duration::from_millis(200), 1, 10);
        // m = 0: srtt unchanged, mdev = 400000 − 100000 = 300000 < mdev_max; the RTT ends:
        // mdev_max (400000) is not < rttvar (400000), so no decay; mdev_max = rto_min.
        e.sample(Duration::from_millis(200), 11, 20);
        assert_eq!(state(&e), (1_600_000, 300_000, 200_000, 400_000, 600_000));
        // mdev = 300000 − 75000 = 225000 > mdev_max (200000): mdev_max = 225000 (< rttvar);
        // decay: rttvar −= (400000 − 225000) >> 2 = 43750 → 356250; RTO 556.25 → 560 ms.
        e.sample(Duration::from_millis(200), 21, 30);
        assert_eq!(state(&e), (1_600_000, 225_000, 200_000, 356_250, 560_000));
        // mdev = 225000 − 56250 = 168750 < mdev_max 200000: rttvar −= 156250 >> 2 = 39062.
        e.sample(Duration::from_millis(200), 31, 40);
        assert_eq!(state(&e), (1_600_000, 168_750, 200_000, 317_188, 520_000));
        for k in 4..200 {
            e.sample(Duration::from_millis(200), 10 * k + 1, 10 * k + 10);
        }
        // mdev and rttvar decay until the integer steps vanish (3 − (3 >> 2) = 3): mdev_us
        // stops at 3, rttvar 3 µs above rto_min. RTO = 200 + 200.003 ms → 404 ms in 4 ms
        // jiffies; RFC 6298 would give 201 ms.
        assert_eq!((e.mdev_us, e.rttvar_us, e.rto()), (3, 200_003, Duration::from_millis(404)));
    }

    #[test]
    fn samples_within_one_rtt_do_not_decay_rttvar() {
        let mut e = LinuxRto::new(Duration::from_millis(200));
        e.sample(Duration::from_millis(200), 1, 100);
        for una in 2..=100 {
            e.sample(Duration::from_millis(200), una, 200); // snd_una never passes rtt_seq = 100
        }
        assert_eq!((e.rttvar_us, e.rtt_seq, e.mdev_max_us), (400_000, 100, 400_000));
        // Now it does: mdev_max (still 400000 from the first sample) is not below rttvar, so
        // no decay yet; the next RTT starts with mdev_max = rto_min.
        e.sample(Duration::from_millis(200), 101, 300);
        assert_eq!((e.rttvar_us, e.rtt_seq, e.mdev_max_us, e.mdev_us), (400_000, 300, 200_000, 3));
        // Samples within the second RTT leave rttvar alone; its end decays it once:
        // rttvar −= (400000 − 200000) >> 2 = 50000.
        e.sample(Duration::from_millis(200), 200, 400);
        assert_eq!(e.rttvar_us, 400_000);
        e.sample(Duration::from_millis(200), 301, 400);
        assert_eq!((e.rttvar_us, e.rto()), (350_000, Duration::from_millis(552)));
    }

    #[test]
    fn rising_rtt_raises_rttvar_at_once() {
        let mut e = LinuxRto::new(Duration::from_millis(200));
        e.sample(Duration::from_millis(100), 1, 10); // srtt 800000, mdev 200000, rttvar 200000
        assert_eq!(state(&e), (800_000, 200_000, 200_000, 200_000, 300_000));
        // 300 ms, same RTT (no decay): m = 300000 − 100000 = 200000; srtt = 1000000;
        // m −= 200000 >> 2 → 150000; mdev = 350000 > mdev_max: mdev_max = rttvar = 350000.
        e.sample(Duration::from_millis(300), 5, 20);
        assert_eq!(state(&e), (1_000_000, 350_000, 350_000, 350_000, 476_000)); // 125 + 350 → 476 (jiffy)
        // 300 ms, next RTT: m = 300000 − 125000 = 175000; srtt = 1175000; m −= 87500 →
        // 87500; mdev = 437500 > mdev_max: mdev_max = rttvar = 437500; the RTT ends: no decay
        // (mdev_max = rttvar), mdev_max = rto_min.
        e.sample(Duration::from_millis(300), 11, 30);
        assert_eq!(state(&e), (1_175_000, 437_500, 200_000, 437_500, 588_000)); // 146875 + 437500 → 588 ms
    }

    #[test]
    fn falling_rtt_moves_mdev_by_an_eighth() {
        let mut e = LinuxRto::new(Duration::from_millis(200));
        e.sample(Duration::from_millis(400), 1, 10); // srtt 3200000, mdev 800000, rttvar 800000
        // 100 ms, same RTT: m = 100000 − 400000 = −300000; srtt = 2900000; |m| = 300000;
        // m −= 800000 >> 2 → 100000 > 0 → m >>= 3 = 12500; mdev = 812500 (with the rising
        // rule it would be 800000 + 100000 = 900000): mdev_max = rttvar = 812500.
        e.sample(Duration::from_millis(100), 5, 20);
        assert_eq!(state(&e), (2_900_000, 812_500, 812_500, 812_500, 1_176_000)); // 362500 + 812500 → 1176 ms
        // 100 ms again, next RTT: m = 100000 − 362500 = −262500; srtt = 2637500; |m| = 262500;
        // m −= 812500 >> 2 = 203125 → 59375 → >> 3 = 7421; mdev = 819921 → mdev_max = rttvar
        // = 819921; the RTT ends: no decay, mdev_max = rto_min.
        e.sample(Duration::from_millis(100), 11, 30);
        assert_eq!(state(&e), (2_637_500, 819_921, 200_000, 819_921, 1_152_000)); // 329687 + 819921 = 1149608 → 1152
        // A falling sample within mdev/4 of SRTT: |m| − mdev/4 ≤ 0 is applied unscaled (mdev shrinks).
        let mut e = LinuxRto::new(Duration::from_millis(200));
        e.sample(Duration::from_millis(400), 1, 10); // mdev 800000
        e.sample(Duration::from_millis(390), 5, 20); // m = −10000 → 10000 − 200000 = −190000
        assert_eq!((e.srtt_us, e.mdev_us), (3_190_000, 610_000));
    }
}
