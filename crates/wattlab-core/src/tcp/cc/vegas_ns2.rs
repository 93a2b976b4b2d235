//! ns-2's Vegas fine-grained retransmission (`tcp/tcp-vegas.cc` of ns-2.35, `Agent/TCP/Vegas`),
//! selected by `TcpConfig::vegas_retransmit = VegasRetransmit::Ns2`; see [`super::vegas`] for
//! the default (`Rfc`) rules and for where the connection calls these.
//!
//! The rules, read from the ns-2.35 source (paraphrased, not copied):
//! - Fine timeout: ns-2's BSD-scaled estimator `v_sa_` = 8·SRTT, `v_sd_` = 4·mdev (gains 1/8
//!   and 1/4), timeout = (SRTT + 2·mdev)·17/16. Before any sample it never expires; the first
//!   sample r seeds SRTT = r, mdev = r/4 and is then applied once as an ordinary sample (ns-2
//!   seeds from the time of its first ACK and then samples that same ACK). A sample is taken
//!   on every new ACK that ends at a segment sent once (no delayed-ACK filter).
//! - On *every* duplicate ACK, if the segment at snd_una was sent at least the fine timeout
//!   ago (or on the DupThresh-th duplicate), it is retransmitted; the fine timeout is backed
//!   off ×2 if that segment had already been retransmitted, ×9/8 otherwise (a later sample
//!   recomputes it, undoing the back-off).
//! - The window is cut only if it has not been cut since that segment was sent (ns-2
//!   `t_cwnd_changed_ < sendTime`, strict): to 2 segments if it was ≤ 3, to half if the
//!   segment was a retransmission, otherwise by a quarter. The DupThresh-th duplicate uses
//!   the same cut (not RFC 5681's FlightSize/2).
//! - After an RTO the window restarts at 2 segments (`v_slowstart_`), ssthresh = half.
//!
//! Not modelled: ns-2's `reset_rtx_timer(1)` on each duplicate-ACK retransmission (it also
//! doubles the coarse RTO), and its quirk of leaving cwnd inflated by DupThresh when exactly
//! DupThresh duplicates arrived.

use crate::tcp::named_option::named_option;
use crate::time::{Duration, Time};

named_option! {
    /// Which fine-grained retransmission rules Vegas follows ("ns-2" is an alias of "ns2").
    pub enum VegasRetransmit("vegas_retransmit") {
        /// wattlab's default (see [`super::vegas`]): RFC 6298 arithmetic on the fine samples,
        /// checks on duplicate ACKs before recovery, FlightSize/2 on the third duplicate.
        #[default]
        Rfc = "rfc",
        /// ns-2.35's `Agent/TCP/Vegas` rules (this module).
        Ns2 = "ns2",
    }
    aliases { "ns-2" => Ns2 }
    /// A name that matches no [`VegasRetransmit`].
    error UnknownVegasRetransmit;
}

/// ns-2's fine-grained timeout estimator (`v_sa_`, `v_sd_`, `v_timeout_`), in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ns2FineTimer {
    /// 8 × smoothed RTT; `None` before the first sample.
    sa: Option<f64>,
    /// 4 × mean deviation.
    sd: f64,
    /// Current timeout, back-offs included.
    timeout: f64,
}

impl Ns2FineTimer {
    /// The current timeout (`None` before any sample: never expires).
    pub fn timeout(&self) -> Option<Duration> {
        self.sa.map(|_| Duration::from_secs_f64(self.timeout))
    }

    /// One RTT sample (ns-2 `recv`: seed on the first, then the 1/8, 1/4 update).
    pub fn sample(&mut self, r: Duration) {
        let r = r.as_secs_f64();
        if r <= 0.0 {
            return;
        }
        let sa = *self.sa.get_or_insert_with(|| {
            self.sd = r;
            8.0 * r
        });
        let n = r - sa / 8.0;
        let sa = sa + n;
        self.sd += n.abs() - self.sd / 4.0;
        self.sa = Some(sa);
        let t = (sa / 4.0 + self.sd) / 2.0;
        self.timeout = t + t / 16.0;
    }

    /// A duplicate-ACK retransmission: ×2 if the segment was resent before, else ×9/8.
    pub fn back_off(&mut self, again: bool) {
        if again {
            self.timeout *= 2.0;
        } else {
            self.timeout += self.timeout / 8.0;
        }
    }
}

/// ns-2's window after a duplicate-ACK retransmission: `w` (bytes, un-inflated) cut to 2
/// segments if ≤ 3, to half if the segment was a retransmission, else by a quarter; `None`
/// (keep the window) if it was already cut since the segment was sent (`sent_at`).
pub fn ns2_cut(w: u32, mss: u32, again: bool, sent_at: Time, cut_at: Option<Time>) -> Option<u32> {
    if cut_at.is_some_and(|c| c >= sent_at) {
        return None;
    }
    Some(if w <= 3 * mss {
        2 * mss
    } else if again {
        w / 2
    } else {
        w - w / 4
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        for m in VegasRetransmit::ALL {
            assert_eq!(VegasRetransmit::from_name(&m.name().to_uppercase()), Ok(m));
        }
        assert_eq!(VegasRetransmit::from_name("ns-2"), Ok(VegasRetransmit::Ns2));
        assert_eq!(VegasRetransmit::from_name("linux").unwrap_err().to_string(), "unknown vegas_retransmit `linux` (known: rfc, ns2)");
    }

    #[test]
    fn fine_timeout_is_srtt_plus_two_mdev_times_17_16() {
        let mut t = Ns2FineTimer::default();
        assert_eq!(t.timeout(), None, "no sample: never expires");
        let ms = |x: f64| Duration::from_secs_f64(x / 1000.0);
        // Seed: SRTT = 100 ms, mdev = 25 ms; applying the same sample leaves SRTT, mdev → 18.75.
        t.sample(ms(100.0));
        let want = (100.0 + 2.0 * 18.75) * 17.0 / 16.0;
        assert!((t.timeout().unwrap().as_secs_f64() * 1000.0 - want).abs() < 1e-6, "{:?}", t.timeout());
        // 200 ms: SRTT += 100/8 = 112.5; mdev += (100 − 18.75)/4 → 39.0625.
        t.sample(ms(200.0));
        let want = (112.5 + 2.0 * 39.0625) * 17.0 / 16.0;
        assert!((t.timeout().unwrap().as_secs_f64() * 1000.0 - want).abs() < 1e-6);
        let base = t.timeout().unwrap().as_secs_f64();
        t.back_off(false);
        assert!((t.timeout().unwrap().as_secs_f64() - base * 9.0 / 8.0).abs() < 2e-9);
        t.back_off(true);
        assert!((t.timeout().unwrap().as_secs_f64() - base * 9.0 / 4.0).abs() < 2e-9);
        t.sample(ms(112.5)); // a sample recomputes it: the back-off is gone
        assert!(t.timeout().unwrap().as_secs_f64() < base);
    }

    #[test]
    fn window_cut_rules() {
        let (mss, t0, t1) = (1000, Time(10), Time(20));
        assert_eq!(ns2_cut(3 * mss, mss, false, t1, None), Some(2 * mss), "≤ 3 segments → 2");
        assert_eq!(ns2_cut(3 * mss, mss, true, t1, None), Some(2 * mss));
        assert_eq!(ns2_cut(8 * mss, mss, false, t1, None), Some(6 * mss), "first loss → −1/4");
        assert_eq!(ns2_cut(8 * mss, mss, true, t1, None), Some(4 * mss), "lost retransmission → 1/2");
        assert_eq!(ns2_cut(8 * mss, mss, false, t1, Some(t0)), Some(6 * mss), "cut before it was sent");
        assert_eq!(ns2_cut(8 * mss, mss, false, t0, Some(t1)), None, "already cut since it was sent");
        assert_eq!(ns2_cut(8 * mss, mss, false, t1, Some(t1)), None, "same instant: ns-2's strict <");
    }
}
