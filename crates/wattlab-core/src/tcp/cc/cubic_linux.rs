//! CUBIC's window arithmetic as Linux computes it (option `cubic = "linux"`): a port of
//! `bictcp_update`, `cubictcp_recalc_ssthresh`, `cubictcp_acked`'s delay_min and
//! `cubictcp_state`'s reset (`net/ipv4/tcp_cubic.c`, Linux 6.18; unchanged since 5.x apart from
//! HyStart), and `tcp_cong_avoid_ai` (`net/ipv4/tcp_cong.c`), with the module's defaults
//! (`beta = 717`, `bic_scale = 41`, `fast_convergence = 1`, `tcp_friendliness = 1`).
//!
//! Where it differs from RFC 9438 as [`super::cubic`] models it (each a Linux behaviour, read
//! from the source, not a fit):
//! - **Reno-friendly region without the α switch.** Linux's estimate `tcp_cwnd` grows by one
//!   segment per `cwnd · beta_scale / 8` segments ACKed, `beta_scale = 8(1024 + 717) / 3 /
//!   (1024 − 717) = 15` (integer): α = 8/15 ≈ 0.53 per RTT for the whole epoch. RFC 9438 §4.3
//!   switches α to 1 once W_est reaches cwnd_prior; Linux never does.
//! - **Whole segments.** cwnd grows by one segment after `cnt` segments ACKed
//!   (`tcp_cong_avoid_ai`), `cnt = cwnd / (target − cwnd)` in integers (`100·cwnd` when the
//!   target is not above cwnd), at least 2 (at most 1.5·cwnd per RTT), and at most 20 (5 % per
//!   RTT) before the first loss (`last_max_cwnd == 0`, e.g. after HyStart ended slow start).
//!   The Reno-friendly estimate caps it at `cwnd / (tcp_cwnd − cwnd)`.
//! - **Jiffies.** Time on the curve is in jiffies of [`LINUX_HZ`], offset by delay_min rounded
//!   up to jiffies (`t = now − epoch_start + usecs_to_jiffies(delay_min)`, not + SRTT), in
//!   units of 1/1024 s; K from the kernel's `cubic_root` (table plus one Newton step). `cnt`
//!   is recomputed at most once per jiffy, and not at all while cwnd is unchanged and less
//!   than HZ/32 jiffies passed since the last computation (ACKs are still counted then).
//! - **Loss.** ssthresh = max(cwnd·717/1024, 2), W_max = cwnd (·(1024 + 717)/2048 with fast
//!   convergence when below the last W_max), both in whole segments; an RTO
//!   (`TCP_CA_Loss`) clears the whole state, W_max and delay_min included.
//!
//! delay_min is the smallest RTT sample, samples within a second (`HZ` jiffies) of an epoch's
//! start discarded (`cubictcp_acked`); the connection's nanosecond sample when it has one,
//! else its timestamp sample. Not modelled: `tcp_is_cwnd_limited` (a bulk sender here is
//! always window-limited) and the slow-start leftover (`tcp_slow_start` caps cwnd at ssthresh and passes the rest on): slow start is the
//! shared [`super::Aimd`]'s. `CA_EVENT_TX_START`'s epoch shift after idle is
//! [`LinuxCubic::on_tx_start`] (option `cubic_idle_shift`).

use super::aimd::Aimd;
use crate::tcp::named_option::named_option;
use crate::time::{Duration, Time};

named_option! {
    /// Whose window arithmetic CUBIC follows (`TcpConfig::cubic`; "rfc" is an alias of "rfc9438").
    pub enum CubicVariant("cubic") {
        /// RFC 9438 in floating point ([`super::cubic`]): the textbook default.
        #[default]
        Rfc9438 = "rfc9438",
        /// Linux's `tcp_cubic.c` (this module): on in the `linux` profile.
        Linux = "linux",
    }
    aliases { "rfc" => Rfc9438 }
    /// A name that matches no [`CubicVariant`].
    error UnknownCubicVariant;
}

/// Timer frequency of the jiffies clock (`CONFIG_HZ`): 250, the live testbed's kernel
/// (6.18.44, `/proc/config.gz`) and Debian's and Ubuntu's generic kernels.
pub const LINUX_HZ: u32 = 250;
/// `beta` module parameter: β = 717/1024.
pub const BETA: u32 = 717;
/// `BICTCP_BETA_SCALE`.
pub const BETA_SCALE: u32 = 1024;
/// `bic_scale` module parameter: C = 41·10/1024 ≈ 0.4.
pub const BIC_SCALE: u64 = 41;
/// `BICTCP_HZ`: the curve's time unit is 2^-10 s.
const BICTCP_HZ: u32 = 10;
/// `beta_scale` of `cubictcp_register`: segments ACKed per Reno-friendly increment = cwnd·15/8.
pub const FRIENDLY_SCALE: u32 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
/// `cube_rtt_scale`: C scaled by 1024 (and by 10 for the 100 ms reference RTT).
const CUBE_RTT_SCALE: u64 = BIC_SCALE * 10;
/// `cube_factor`: 2^(10 + 3·BICTCP_HZ) / (bic_scale·10), so K = cbrt(cube_factor·(W_max − cwnd)).
const CUBE_FACTOR: u64 = (1u64 << (10 + 3 * BICTCP_HZ)) / (BIC_SCALE * 10);
/// Linux's `snd_cwnd_clamp` default (`~0U` bounded by the u32 window here).
const CWND_CLAMP: u32 = u32::MAX / 2;

/// Linux's `cubic_root`: a table lookup and one Newton-Raphson step (average error ≈ 0.2 %).
pub fn cubic_root(a: u64) -> u32 {
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164, 168, 170, 173, 176, 179,
        181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224, 225, 227,
        229, 231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    let b = 64 - a.leading_zeros(); // fls64
    if b < 7 {
        return (V[a as usize] as u32 + 35) >> 6;
    }
    let b = ((b * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    let x = ((V[shift] as u32 + 10) << b) >> 6;
    let x = 2 * x as u64 + a / (x as u64 * (x as u64 - 1));
    ((x * 341) >> 10) as u32
}

/// Jiffies of `now` (the clock starts with the simulation; only differences matter).
fn jiffies(now: Time) -> u32 {
    (now.as_nanos() / (1_000_000_000 / LINUX_HZ as u64)) as u32
}

/// `usecs_to_jiffies`: rounded up.
fn usecs_to_jiffies(us: u32) -> u32 {
    let per = 1_000_000 / LINUX_HZ;
    us.div_ceil(per)
}

/// Linux's `struct bictcp` plus the connection's `snd_cwnd_cnt`, in segments and jiffies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinuxCubic {
    /// Segments ACKed per one-segment increase.
    cnt: u32,
    /// W_max (`last_max_cwnd`), segments; 0 before the first loss.
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u32,
    bic_origin_point: u32,
    /// K in 2^-10 s.
    bic_k: u32,
    /// Smallest RTT sample, µs (0 = none yet).
    delay_min_us: u32,
    /// Start of the epoch in jiffies (`None`: Linux's `epoch_start == 0`).
    epoch_start: Option<u32>,
    ack_cnt: u32,
    /// The Reno-friendly estimate, segments.
    tcp_cwnd: u32,
    /// `tp->snd_cwnd_cnt`: segments ACKed toward the next increase.
    snd_cwnd_cnt: u32,
    /// ACKed bytes short of a whole segment, carried to the next ACK.
    acked_bytes: u32,
}

impl LinuxCubic {
    /// W_max in segments (0 before the first loss and after an RTO).
    pub fn w_max(&self) -> u32 {
        self.last_max_cwnd
    }

    /// The Reno-friendly estimate `tcp_cwnd`, segments.
    pub fn tcp_cwnd(&self) -> u32 {
        self.tcp_cwnd
    }

    /// Segments ACKed per one-segment increase, as last computed.
    pub fn cnt(&self) -> u32 {
        self.cnt
    }

    /// K in seconds.
    pub fn k(&self) -> f64 {
        self.bic_k as f64 / 1024.0
    }

    /// delay_min, if a sample arrived.
    pub fn delay_min(&self) -> Option<Duration> {
        (self.delay_min_us > 0).then(|| Duration::from_micros(self.delay_min_us as u64))
    }

    /// An epoch began less than a second ago (`cubictcp_acked` drops delay samples then).
    pub fn fresh_epoch(&self, now: Time) -> bool {
        self.epoch_start.is_some_and(|e| (jiffies(now).wrapping_sub(e) as i32) < LINUX_HZ as i32)
    }

    /// Data leaves with nothing in flight (`CA_EVENT_TX_START`, `cubictcp_cwnd_event`): the
    /// epoch start moves later by `now - lsndtime` in jiffies, never past now.
    pub(super) fn on_tx_start(&mut self, now: Time, since_last_send: Duration) {
        let now_j = jiffies(now);
        let delta = now_j.wrapping_sub(jiffies(now - since_last_send)) as i32;
        if let (Some(e), true) = (self.epoch_start, delta > 0) {
            let shifted = e.wrapping_add(delta as u32);
            // `after(epoch_start, now)`: wrapping comparison as the kernel's.
            self.epoch_start = Some(if (shifted.wrapping_sub(now_j) as i32) > 0 { now_j } else { shifted });
        }
    }

    /// An RTT sample (`cubictcp_acked`): delay_min.
    pub fn on_rtt_sample(&mut self, now: Time, rtt: Duration) {
        if self.fresh_epoch(now) {
            return;
        }
        let us = (rtt.as_nanos() / 1000).clamp(1, u32::MAX as u64) as u32;
        if self.delay_min_us == 0 || self.delay_min_us > us {
            self.delay_min_us = us;
        }
    }

    /// Congestion avoidance for `bytes_acked` (`cubictcp_cong_avoid` outside slow start):
    /// whole segments ACKed go through `bictcp_update` and `tcp_cong_avoid_ai`; cwnd keeps
    /// any part of a segment it had.
    pub(super) fn on_ack(&mut self, aimd: &mut Aimd, now: Time, bytes_acked: u32) {
        let mss = aimd.mss.max(1);
        self.acked_bytes = self.acked_bytes.saturating_add(bytes_acked);
        let acked = self.acked_bytes / mss;
        self.acked_bytes %= mss;
        if acked == 0 {
            return;
        }
        let (segs, part) = (aimd.cwnd / mss, aimd.cwnd % mss);
        let segs = self.cong_avoid(jiffies(now), segs.max(1), acked);
        aimd.cwnd = segs.saturating_mul(mss).saturating_add(part);
    }

    /// `bictcp_update` then `tcp_cong_avoid_ai`: the new cwnd in segments.
    pub fn cong_avoid(&mut self, now_jiffies: u32, cwnd: u32, acked: u32) -> u32 {
        self.update(now_jiffies, cwnd, acked);
        self.cong_avoid_ai(cwnd, self.cnt.max(1), acked)
    }

    fn update(&mut self, j: u32, cwnd: u32, acked: u32) {
        self.ack_cnt = self.ack_cnt.wrapping_add(acked);
        if self.last_cwnd == cwnd && (j.wrapping_sub(self.last_time) as i32) <= (LINUX_HZ / 32) as i32 {
            return;
        }
        // The curve is recomputed at most once per jiffy (the Reno-friendly part every time).
        if !(self.epoch_start.is_some() && j == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = j;
            let epoch = *self.epoch_start.get_or_insert_with(|| {
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.bic_k = 0;
                    self.bic_origin_point = cwnd;
                } else {
                    self.bic_k = cubic_root(CUBE_FACTOR * (self.last_max_cwnd - cwnd) as u64);
                    self.bic_origin_point = self.last_max_cwnd;
                }
                j
            });
            let t = (j.wrapping_sub(epoch) as i32).max(0) as u64 + usecs_to_jiffies(self.delay_min_us) as u64;
            let t = (t << BICTCP_HZ) / LINUX_HZ as u64;
            let k = self.bic_k as u64;
            let offs = k.abs_diff(t);
            let delta = ((CUBE_RTT_SCALE * offs * offs * offs) >> (10 + 3 * BICTCP_HZ)) as u32;
            let target = if t < k { self.bic_origin_point.wrapping_sub(delta) } else { self.bic_origin_point.wrapping_add(delta) };
            self.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100u32.saturating_mul(cwnd) };
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20; // 5 % per RTT while the bandwidth is unknown
            }
        }
        // tcp_friendliness
        let delta = ((cwnd as u64 * FRIENDLY_SCALE as u64) >> 3).max(1) as u32;
        while self.ack_cnt > delta {
            self.ack_cnt -= delta;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            self.cnt = self.cnt.min(max_cnt);
        }
        self.cnt = self.cnt.max(2);
    }

    /// `tcp_cong_avoid_ai(tp, w, acked)`.
    fn cong_avoid_ai(&mut self, mut cwnd: u32, w: u32, acked: u32) -> u32 {
        if self.snd_cwnd_cnt >= w {
            self.snd_cwnd_cnt = 0;
            cwnd += 1;
        }
        self.snd_cwnd_cnt += acked;
        if self.snd_cwnd_cnt >= w {
            let d = self.snd_cwnd_cnt / w;
            self.snd_cwnd_cnt -= d * w;
            cwnd += d;
        }
        cwnd.min(CWND_CLAMP)
    }

    /// A loss (`cubictcp_recalc_ssthresh`, with `tcp_init_cwnd_reduction`'s
    /// `snd_cwnd_cnt = 0`): W_max with fast convergence; returns ssthresh in segments.
    pub fn recalc_ssthresh(&mut self, cwnd: u32) -> u32 {
        self.epoch_start = None;
        self.snd_cwnd_cnt = 0;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd { cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE) } else { cwnd };
        (cwnd * BETA / BETA_SCALE).max(2)
    }

    /// An RTO (`cubictcp_state(TCP_CA_Loss)`: `bictcp_reset`; `tcp_enter_loss` clears
    /// `snd_cwnd_cnt`): everything forgotten, W_max and delay_min included.
    pub fn reset(&mut self) {
        *self = LinuxCubic::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_parse_case_insensitively() {
        assert_eq!(CubicVariant::from_name(" Linux "), Ok(CubicVariant::Linux));
        assert_eq!(CubicVariant::from_name("RFC"), Ok(CubicVariant::Rfc9438));
        assert_eq!(CubicVariant::default(), CubicVariant::Rfc9438);
        assert_eq!(CubicVariant::from_name("bic").unwrap_err().to_string(), "unknown cubic `bic` (known: rfc9438, linux)");
    }

    #[test]
    fn constants_are_the_kernels() {
        assert_eq!(FRIENDLY_SCALE, 15);
        assert_eq!(CUBE_FACTOR, (1u64 << 40) / 410);
        assert_eq!((LINUX_HZ / 32, usecs_to_jiffies(21_000), usecs_to_jiffies(20_000), usecs_to_jiffies(0)), (7, 6, 5, 0));
    }

    #[test]
    fn cubic_root_is_within_the_kernels_error() {
        assert_eq!((cubic_root(0), cubic_root(1), cubic_root(8), cubic_root(27), cubic_root(63)), (0, 1, 2, 3, 4));
        for a in (0..200u64).map(|i| i * i * i + 3 * i) {
            let exact = (a as f64).cbrt();
            assert!((cubic_root(a) as f64 - exact).abs() <= 1.0, "cbrt({a}) = {} vs {exact:.2}", cubic_root(a));
        }
        assert_eq!(cubic_root(123_456), 49, "the kernel truncates: cbrt = 49.8");
        for a in [1u64 << 30, CUBE_FACTOR * 6, CUBE_FACTOR * 300, 1 << 50] {
            let exact = (a as f64).cbrt();
            let err = (cubic_root(a) as f64 - exact).abs() / exact;
            assert!(err < 0.01, "cbrt({a}) = {} vs {exact:.2}", cubic_root(a));
        }
        // K for W_max − cwnd = 6 segments: cbrt(6 / 0.4) = 2.47 s, in 2^-10 s.
        let k = cubic_root(CUBE_FACTOR * 6) as f64 / 1024.0;
        assert!((k - (6.0f64 / 0.4).cbrt()).abs() < 0.02, "K = {k}");
    }

    #[test]
    fn loss_arithmetic_is_in_whole_segments_with_fast_convergence() {
        let mut c = LinuxCubic::default();
        assert_eq!(c.recalc_ssthresh(100), 70); // 100·717/1024 = 70.02
        assert_eq!(c.w_max(), 100);
        assert_eq!(c.recalc_ssthresh(90), 63);
        assert_eq!(c.w_max(), 76, "below the last W_max: 90·1741/2048");
        assert_eq!(c.recalc_ssthresh(2), 2, "floor of 2 segments");
        c.reset();
        assert_eq!((c.w_max(), c.delay_min()), (0, None));
    }

    /// ACKs of `per` segments each, a window's worth spread evenly over each `rtt`, for
    /// `rtts` RTTs from `cwnd` at jiffy `j0`; the cwnd at the end of each RTT.
    fn ack_clock(c: &mut LinuxCubic, mut cwnd: u32, rtt_jiffies: f64, rtts: usize, per: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut t = 0.0;
        for _ in 0..rtts {
            let n = (cwnd / per).max(1);
            for i in 0..n {
                let j = (t + rtt_jiffies * (i + 1) as f64 / n as f64) as u32;
                cwnd = c.cong_avoid(j, cwnd, per);
            }
            t += rtt_jiffies;
            out.push(cwnd);
        }
        out
    }

    #[test]
    fn reno_friendly_growth_keeps_alpha_past_the_last_maximum() {
        // A loss at 20 segments on a 22 ms path: K ≈ 2.5 s, so for the next second the
        // Reno-friendly estimate (8/15 segment per RTT) sets the pace, and it keeps that pace
        // past cwnd_prior = 20 (RFC 9438 §4.3 would switch to 1 per RTT there).
        let mut c = LinuxCubic::default();
        c.on_rtt_sample(Time::ZERO, Duration::from_millis(22));
        let ss = c.recalc_ssthresh(20);
        assert_eq!(ss, 14);
        let w = ack_clock(&mut c, ss, 22.0 * LINUX_HZ as f64 / 1000.0, 40, 2);
        let per_rtt = (w[39] - w[9]) as f64 / 30.0;
        assert!((0.45..=0.56).contains(&per_rtt), "{per_rtt:.3} segments per RTT past cwnd_prior: {w:?}");
        assert!(w[9] <= 20 && w[39] >= 30, "{w:?}");
    }

    #[test]
    fn before_the_first_loss_growth_is_capped_at_five_percent_per_rtt() {
        // HyStart ended slow start at 100 segments (no loss yet: W_max = 0): the curve starts
        // flat, cnt is capped at 20, so cwnd grows ~5 % per RTT, more than Reno's 0.53.
        let mut c = LinuxCubic::default();
        c.on_rtt_sample(Time::ZERO, Duration::from_millis(20));
        let w = ack_clock(&mut c, 100, 5.0, 5, 1);
        assert!(w[4] >= 121 && w[4] <= 128, "{w:?}");
        assert_eq!(c.cnt().max(20), 20);
    }

    #[test]
    fn cnt_waits_for_the_hz_over_32_throttle_while_cwnd_is_unchanged() {
        // No loss yet (cnt capped at 20); 2000 segments ACKed at once would put the
        // Reno-friendly estimate 10 segments above cwnd = 100 (cnt = 100/10), but with cwnd
        // unchanged and within HZ/32 = 7 jiffies of the last computation they are only counted.
        let mut c = LinuxCubic::default();
        c.cong_avoid(0, 100, 1);
        assert_eq!(c.cnt(), 20);
        c.cong_avoid(7, 100, 2000);
        assert_eq!((c.cnt(), c.tcp_cwnd()), (20, 100), "throttled");
        c.cong_avoid(8, 100, 1);
        assert_eq!((c.cnt(), c.tcp_cwnd()), (10, 110), "recomputed after HZ/32 jiffies, nothing lost");
    }

    #[test]
    fn delay_min_ignores_samples_in_the_first_second_of_an_epoch() {
        let mut c = LinuxCubic::default();
        c.on_rtt_sample(Time::ZERO, Duration::from_millis(30));
        c.recalc_ssthresh(50);
        c.cong_avoid(jiffies(Time::from_secs_f64(1.0)), 35, 1); // epoch starts at 1 s
        c.on_rtt_sample(Time::from_secs_f64(1.5), Duration::from_millis(10));
        assert_eq!(c.delay_min(), Some(Duration::from_millis(30)));
        c.on_rtt_sample(Time::from_secs_f64(2.1), Duration::from_millis(10));
        assert_eq!(c.delay_min(), Some(Duration::from_millis(10)));
    }

    #[test]
    fn tx_start_moves_the_epoch_by_the_idle_jiffies_never_past_now() {
        // Epoch at jiffy 250 (1 s at HZ 250); 2 s idle ending at 4 s: 500 jiffies later.
        let mut c = LinuxCubic::default();
        c.recalc_ssthresh(50);
        c.cong_avoid(jiffies(Time::from_secs_f64(1.0)), 35, 1);
        c.on_tx_start(Time::from_secs_f64(4.0), Duration::from_secs(2));
        assert_eq!(c.epoch_start, Some(750));
        // An idle time longer than the epoch's age is capped at now (jiffy 2500).
        c.on_tx_start(Time::from_secs_f64(10.0), Duration::from_secs(60));
        assert_eq!(c.epoch_start, Some(2500));
        // No epoch (Linux's epoch_start == 0): nothing to shift.
        let mut fresh = LinuxCubic::default();
        fresh.on_tx_start(Time::from_secs_f64(10.0), Duration::from_secs(5));
        assert_eq!(fresh.epoch_start, None);
    }
}
