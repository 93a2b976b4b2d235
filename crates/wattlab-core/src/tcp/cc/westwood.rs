//! TCP Westwood+ (Mascolo et al., "TCP Westwood: bandwidth estimation for enhanced transport
//! over wireless links", MobiCom 2001; Westwood+ per-RTT sampling, Grieco & Mascolo 2004),
//! with the estimator of Linux `net/ipv4/tcp_westwood.c`.
//!
//! Modelling choices:
//! - Bytes delivered are counted from the ACK stream: new data ACKed, one SMSS per duplicate
//!   ACK, and a cumulative ACK of more than one SMSS after duplicates has what the duplicates
//!   already counted subtracted (Linux `westwood_acked_count`). ACKs that neither advance nor
//!   count as duplicates (window updates, piggybacked ACKs) count nothing (Linux counts one
//!   SMSS for them too).
//! - One bandwidth sample per window of Δt > max(RTT, 50 ms) (Linux `westwood_update_window`,
//!   the 50 ms floor is `TCP_WESTWOOD_RTT_MIN`), bk = bytes/Δt, filtered by Linux's cascade of
//!   two 7/8 low-pass stages (the first sample fills both).
//! - RTT and RTTmin come from the connection's fine-grained (ns) sample; RTTmin restarts from
//!   the next sample after an RTO (Linux `reset_rtt_min`).
//! - Three duplicate ACKs: ssthresh = max(BWE·RTTmin, 2·SMSS) at once (the paper; Linux sets
//!   Reno's cwnd/2 first and the same BWE·RTTmin when recovery completes — the window after
//!   recovery is the same), cwnd = min(cwnd, ssthresh) (the paper's "if cwnd > ssthresh")
//!   plus the RFC 5681 inflation by 3 SMSS during NewReno recovery (RFC 6582); when recovery
//!   ends cwnd = min(ssthresh, cwnd before the loss), so an estimate above the old window
//!   is reached by slow start rather than a burst.
//! - RTO: ssthresh = max(BWE·RTTmin, 2·SMSS), cwnd = 1 SMSS. Before the first bandwidth
//!   sample both fall back to Reno's FlightSize/2 (Linux would use 2 segments).
//! - Growth: Reno slow start and congestion avoidance.

use super::aimd::Aimd;
use super::AckInfo;
use crate::time::{Duration, Time};

/// Shortest bandwidth-sampling interval (Linux `TCP_WESTWOOD_RTT_MIN` = HZ/20): very short
/// RTTs would give noisy samples.
pub const WESTWOOD_MIN_SAMPLE_INTERVAL: Duration = Duration::from_millis(50);

/// Westwood+ state: Reno window arithmetic plus the bandwidth estimator.
#[derive(Clone, Debug)]
pub struct Westwood {
    pub(super) aimd: Aimd,
    /// First (less smoothed) filter stage, bytes/s (Linux `bw_ns_est`).
    bw_ns_est: f64,
    /// Bandwidth estimate, bytes/s (Linux `bw_est`).
    bw_est: f64,
    /// Bytes delivered in the current sampling window (Linux `bk`).
    bk: u64,
    win_start: Option<Time>,
    /// Bytes credited to duplicate ACKs not yet matched by a cumulative ACK.
    accounted: u64,
    rtt: Option<Duration>,
    rtt_min: Option<Duration>,
    reset_rtt_min: bool,
    /// cwnd when the current recovery began.
    prior_cwnd: u32,
}

impl Westwood {
    pub(super) fn new(aimd: Aimd) -> Self {
        Westwood {
            aimd,
            bw_ns_est: 0.0,
            bw_est: 0.0,
            bk: 0,
            win_start: None,
            accounted: 0,
            rtt: None,
            rtt_min: None,
            reset_rtt_min: false,
            prior_cwnd: 0,
        }
    }

    /// Bandwidth estimate (BWE) in bytes per second, once sampled.
    pub fn bandwidth_estimate(&self) -> Option<f64> {
        (self.bw_est > 0.0).then_some(self.bw_est)
    }

    /// Smallest RTT seen (since the last RTO).
    pub fn rtt_min(&self) -> Option<Duration> {
        self.rtt_min
    }

    /// max(BWE·RTTmin, 2·SMSS) in bytes, once both are known.
    pub fn bw_rttmin(&self) -> Option<u32> {
        let rtt_min = self.rtt_min?;
        let bw = self.bandwidth_estimate()?;
        let w = (bw * rtt_min.as_secs_f64()).min(u32::MAX as f64) as u32;
        Some(w.max(2 * self.aimd.mss))
    }

    pub(super) fn on_ack_arrival(&mut self, a: &AckInfo) {
        // Close the sampling window before counting this ACK, as Linux does.
        match self.win_start {
            None => self.win_start = Some(a.now),
            Some(start) => {
                let dt = a.now.saturating_since(start);
                if self.rtt.is_some_and(|rtt| dt > rtt.max(WESTWOOD_MIN_SAMPLE_INTERVAL)) {
                    self.filter(self.bk as f64 / dt.as_secs_f64());
                    self.bk = 0;
                    self.win_start = Some(a.now);
                }
            }
        }
        let mss = self.aimd.mss as u64;
        let mut cumul = if a.is_dup {
            self.accounted += mss;
            mss
        } else {
            a.bytes_acked as u64
        };
        if cumul > mss {
            // Delayed or partial ACK: part of it was already counted by duplicate ACKs.
            if self.accounted >= cumul {
                self.accounted -= cumul;
                cumul = 0;
            } else {
                cumul -= self.accounted;
                self.accounted = 0;
            }
        }
        self.bk += cumul;
        if let Some(r) = a.fine_rtt.filter(|r| r.0 > 0) {
            self.rtt = Some(r);
        }
        if let Some(r) = self.rtt {
            self.rtt_min = match self.rtt_min {
                Some(m) if !self.reset_rtt_min => Some(m.min(r)),
                _ => Some(r),
            };
            self.reset_rtt_min = false;
        }
    }

    fn filter(&mut self, sample: f64) {
        if self.bw_ns_est == 0.0 && self.bw_est == 0.0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7.0 * self.bw_ns_est + sample) / 8.0;
            self.bw_est = (7.0 * self.bw_est + self.bw_ns_est) / 8.0;
        }
    }

    pub(super) fn on_enter_recovery(&mut self, flight: u32, dupacks: u32) -> u32 {
        let a = &mut self.aimd;
        self.prior_cwnd = a.cwnd;
        let ssthresh = self.bw_rttmin().unwrap_or_else(|| self.aimd.halve(flight));
        let a = &mut self.aimd;
        a.ssthresh = ssthresh;
        a.cwnd = a.cwnd.min(ssthresh).saturating_add(dupacks.saturating_mul(a.mss));
        a.ca_bytes = 0;
        ssthresh
    }

    pub(super) fn on_exit_recovery(&mut self) {
        let a = &mut self.aimd;
        a.cwnd = a.ssthresh.min(self.prior_cwnd).max(a.mss);
        a.ca_bytes = 0;
    }

    pub(super) fn on_timeout(&mut self, flight: u32) {
        let ssthresh = self.bw_rttmin().unwrap_or_else(|| self.aimd.halve(flight));
        self.aimd.collapse(ssthresh);
        self.reset_rtt_min = true;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CongestionControl, CongestionControlKind};
    use super::*;

    fn ack(now: Time, pos: u64, bytes: u32, dup: bool, rtt: Option<Duration>) -> AckInfo {
        AckInfo { now, ack: pos, snd_nxt: pos, bytes_acked: bytes, is_dup: dup, rtt: None, fine_rtt: rtt, srtt: rtt }
    }

    #[test]
    fn estimate_filters_per_rtt_samples_and_counts_dupacks() {
        let mut cc = CongestionControl::new(CongestionControlKind::Westwood, 1000, 10);
        let rtt = Duration::from_millis(100);
        // 1000 bytes every 1 ms = 1 MB/s, one RTT sample per 100 ACKs.
        let mut t = Time::ZERO;
        let mut pos = 1;
        for i in 0..2000u64 {
            t += Duration::from_millis(1);
            pos += 1000;
            cc.on_ack_arrival(&ack(t, pos, 1000, false, (i % 100 == 0).then_some(rtt)));
        }
        let w = cc.westwood().expect("westwood");
        let bwe = w.bandwidth_estimate().expect("sampled");
        assert!((bwe - 1e6).abs() < 0.02e6, "BWE {bwe}");
        assert_eq!(w.rtt_min(), Some(rtt));
        // Duplicate ACKs keep the estimate up (each = one SMSS delivered); the cumulative ACK
        // that follows counts only what the duplicates did not.
        for _ in 0..3 {
            t += Duration::from_millis(1);
            cc.on_ack_arrival(&ack(t, pos, 0, true, None));
        }
        t += Duration::from_millis(1);
        pos += 4000;
        cc.on_ack_arrival(&ack(t, pos, 4000, false, None));
        let w = cc.westwood().expect("westwood");
        assert_eq!(w.accounted, 0);
        // ssthresh = BWE·RTTmin = 1 MB/s · 0.1 s.
        let bwe = w.bandwidth_estimate().expect("sampled");
        let s = cc.on_enter_recovery(200_000, 3);
        assert_eq!(s, (bwe * 0.1) as u32);
        assert!((s as f64 - 100_000.0).abs() < 2_000.0, "{s}");
        assert_eq!(cc.cwnd(), 10_000 + 3000, "cwnd (10 kB) below ssthresh: kept, plus inflation");
        cc.on_exit_recovery(0);
        assert_eq!(cc.cwnd(), 10_000, "min(ssthresh, prior cwnd)");
        cc.on_timeout(Time::ZERO, 20_000);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, s));
    }
}
