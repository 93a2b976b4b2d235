//! Congestion-window arithmetic, one variant per algorithm, behind an enum (no `dyn`).
//!
//! Division of labour: this module only decides *how big* `cwnd` and `ssthresh` are;
//! [`super::recovery`] decides *when* the connection is in loss recovery and *which* segment
//! to retransmit. The connection calls these hooks:
//!
//! - [`CongestionControl::on_ack`] for every ACK of new data outside recovery (with the RTT
//!   sample, if this ACK produced one, and the flight before the ACK) — growth (slow start,
//!   congestion avoidance; delay-based schemes like Vegas or bandwidth estimators like
//!   Westwood+ use `now` and the RTT sample here; CUBIC uses `now` for its epoch);
//! - [`CongestionControl::on_enter_recovery`] on fast retransmit: returns the new ssthresh
//!   (Westwood+ would return its bandwidth estimate × RTTmin; CUBIC β·cwnd);
//!   [`CongestionControl::enter_sack_recovery`] wraps it for RFC 6675 (cwnd = ssthresh, no
//!   inflation);
//! - [`CongestionControl::on_dup_ack`] for each further duplicate ACK in recovery (Reno window
//!   inflation; an RFC 6675 SACK variant would ignore it and use the scoreboard's pipe);
//! - [`CongestionControl::on_partial_ack`] for NewReno partial ACKs (partial deflation);
//! - [`CongestionControl::on_exit_recovery`] when recovery ends;
//! - [`CongestionControl::on_timeout`] on RTO expiry (loss window).
//!
//! Queries [`CongestionControl::uses_fast_recovery`] (Tahoe would return `false`: fast
//! retransmit, then slow start) and [`CongestionControl::recovery_style`] (Reno ends recovery at
//! the first new ACK, NewReno at a full ACK) let new algorithms be added as a variant plus a
//! match arm without touching the connection. When SACK was negotiated the connection uses
//! [`RecoveryStyle::Sack`] whatever the algorithm (as Linux does: the algorithm only sizes the
//! window), unless `uses_fast_recovery` is false — a Tahoe-like controller ignores SACK for
//! recovery and keeps go-back-N after its fast retransmit.

use super::config::CongestionControlKind;
use crate::time::{Duration, Time};

/// RFC 3465 Appropriate Byte Counting limit L in segments: 2·SMSS, the RFC's recommendation,
/// so slow start still doubles cwnd per RTT with delayed ACKs.
pub const ABC_LIMIT_SEGMENTS: u32 = 2;

/// How loss recovery proceeds after a fast retransmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryStyle {
    /// RFC 5681: the first ACK of new data ends fast recovery.
    Reno,
    /// RFC 6582: partial ACKs retransmit the next hole; a full ACK (covering `recover`) ends it.
    NewReno,
    /// RFC 6675: a SACK scoreboard decides what is lost and the pipe estimate how much may be
    /// sent; chosen by the connection when SACK was negotiated (never by `recovery_style`).
    Sack,
}

/// Additive-increase/multiplicative-decrease window arithmetic of RFC 5681 (Reno family).
#[derive(Clone, Debug)]
pub struct Aimd {
    cwnd: u32,
    ssthresh: u32,
    mss: u32,
    /// Bytes acknowledged in congestion avoidance not yet turned into cwnd growth (RFC 3465).
    ca_bytes: u32,
}

impl Aimd {
    fn new(mss: u32, initial_cwnd_segments: u32) -> Self {
        Aimd {
            cwnd: mss.saturating_mul(initial_cwnd_segments.max(1)),
            ssthresh: u32::MAX,
            mss,
            ca_bytes: 0,
        }
    }

    fn on_ack(&mut self, bytes_acked: u32) {
        if self.cwnd < self.ssthresh {
            // Slow start (RFC 5681 §3.1 with RFC 3465 byte counting, L = 2 SMSS).
            self.cwnd = self.cwnd.saturating_add(bytes_acked.min(ABC_LIMIT_SEGMENTS * self.mss));
        } else {
            // Congestion avoidance, byte-counted (RFC 3465 §2.1): +1 SMSS per cwnd of ACKed data.
            self.ca_bytes = self.ca_bytes.saturating_add(bytes_acked);
            if self.ca_bytes >= self.cwnd {
                self.ca_bytes -= self.cwnd;
                self.cwnd = self.cwnd.saturating_add(self.mss);
            }
        }
    }

    /// ssthresh = max(FlightSize / 2, 2·SMSS) (RFC 5681 eq. 4).
    fn halve(&self, flight: u32) -> u32 {
        (flight / 2).max(2 * self.mss)
    }
}

/// The congestion controller of one connection.
#[derive(Clone, Debug)]
pub enum CongestionControl {
    /// RFC 5681 Reno.
    Reno(Aimd),
    /// RFC 6582 NewReno (same window arithmetic as Reno, different recovery).
    NewReno(Aimd),
}

impl CongestionControl {
    /// Controller of `kind` for segments of `mss` bytes, starting at `initial_cwnd` segments.
    pub fn new(kind: CongestionControlKind, mss: u32, initial_cwnd: u32) -> Self {
        let a = Aimd::new(mss, initial_cwnd);
        match kind {
            CongestionControlKind::Reno => CongestionControl::Reno(a),
            CongestionControlKind::NewReno => CongestionControl::NewReno(a),
        }
    }

    fn aimd(&self) -> &Aimd {
        match self {
            CongestionControl::Reno(a) | CongestionControl::NewReno(a) => a,
        }
    }

    fn aimd_mut(&mut self) -> &mut Aimd {
        match self {
            CongestionControl::Reno(a) | CongestionControl::NewReno(a) => a,
        }
    }

    /// Congestion window in bytes.
    pub fn cwnd(&self) -> u32 {
        self.aimd().cwnd
    }

    /// Slow-start threshold in bytes (`u32::MAX` until the first loss).
    pub fn ssthresh(&self) -> u32 {
        self.aimd().ssthresh
    }

    /// Set the segment size once the handshake fixed it; rescales the initial window.
    pub fn set_mss(&mut self, mss: u32, initial_cwnd: u32) {
        let a = self.aimd_mut();
        a.mss = mss.max(1);
        a.cwnd = a.mss.saturating_mul(initial_cwnd.max(1));
    }

    /// Whether a fast retransmit is followed by fast recovery (Tahoe would say no).
    pub fn uses_fast_recovery(&self) -> bool {
        true
    }

    /// Which partial-ACK handling loss recovery uses.
    pub fn recovery_style(&self) -> RecoveryStyle {
        match self {
            CongestionControl::Reno(_) => RecoveryStyle::Reno,
            CongestionControl::NewReno(_) => RecoveryStyle::NewReno,
        }
    }

    /// New data ACKed outside loss recovery.
    pub fn on_ack(&mut self, _now: Time, bytes_acked: u32, _rtt: Option<Duration>, _bytes_in_flight: u32) {
        match self {
            CongestionControl::Reno(a) | CongestionControl::NewReno(a) => a.on_ack(bytes_acked),
        }
    }

    /// A further duplicate ACK during fast recovery: inflate by one SMSS (RFC 5681 §3.2 step 4).
    pub fn on_dup_ack(&mut self, _bytes_in_flight: u32) {
        let a = self.aimd_mut();
        a.cwnd = a.cwnd.saturating_add(a.mss);
    }

    /// Fast retransmit: set ssthresh and the recovery window cwnd = ssthresh + 3·SMSS
    /// (RFC 5681 §3.2 steps 2–3); returns the new ssthresh.
    pub fn on_enter_recovery(&mut self, flight: u32, dupacks: u32) -> u32 {
        let a = self.aimd_mut();
        a.ssthresh = a.halve(flight);
        a.cwnd = a.ssthresh.saturating_add(dupacks.saturating_mul(a.mss));
        a.ca_bytes = 0;
        a.ssthresh
    }

    /// RFC 6675 §5 step 2 fast retransmit: ssthresh from [`Self::on_enter_recovery`] (so each
    /// algorithm keeps its own reduction), then cwnd = ssthresh with no dup-ACK inflation, as
    /// the scoreboard's pipe replaces it. Returns the new ssthresh.
    pub fn enter_sack_recovery(&mut self, flight: u32) -> u32 {
        let ssthresh = self.on_enter_recovery(flight, 0);
        let a = self.aimd_mut();
        a.cwnd = ssthresh.max(a.mss);
        ssthresh
    }

    /// NewReno partial ACK: deflate by the data ACKed, add back one SMSS if that was at least
    /// one SMSS (RFC 6582 §3.2 step 5).
    pub fn on_partial_ack(&mut self, bytes_acked: u32) {
        let a = self.aimd_mut();
        a.cwnd = a.cwnd.saturating_sub(bytes_acked);
        if bytes_acked >= a.mss {
            a.cwnd = a.cwnd.saturating_add(a.mss);
        }
        a.cwnd = a.cwnd.max(a.mss);
    }

    /// Recovery over: deflate to ssthresh (RFC 5681 §3.2 step 6; RFC 6582 §3.2 option 2).
    pub fn on_exit_recovery(&mut self, _bytes_in_flight: u32) {
        let a = self.aimd_mut();
        a.cwnd = a.ssthresh.max(a.mss);
    }

    /// Retransmission timeout: ssthresh from the flight, cwnd = loss window of one SMSS
    /// (RFC 5681 §3.1 eq. 4 and LW).
    pub fn on_timeout(&mut self, flight: u32) {
        let a = self.aimd_mut();
        a.ssthresh = a.halve(flight);
        a.cwnd = a.mss;
        a.ca_bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_then_avoidance() {
        let mut cc = CongestionControl::new(CongestionControlKind::NewReno, 1000, 2);
        assert_eq!(cc.cwnd(), 2000);
        cc.on_ack(Time::ZERO, 2000, None, 2000); // delayed ACK of 2 segments: +2 SMSS (L = 2)
        assert_eq!(cc.cwnd(), 4000);
        cc.on_timeout(8000);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, 4000));
        for _ in 0..3 {
            cc.on_ack(Time::ZERO, 1000, None, 1000);
        }
        assert_eq!(cc.cwnd(), 4000); // reached ssthresh: now avoidance
        for _ in 0..4 {
            cc.on_ack(Time::ZERO, 1000, None, 4000);
        }
        assert_eq!(cc.cwnd(), 5000); // one cwnd of ACKed bytes = +1 SMSS
    }

    #[test]
    fn fast_recovery_arithmetic() {
        let mut cc = CongestionControl::new(CongestionControlKind::Reno, 1000, 10);
        assert_eq!(cc.on_enter_recovery(10_000, 3), 5000);
        assert_eq!(cc.cwnd(), 8000);
        cc.on_dup_ack(10_000);
        assert_eq!(cc.cwnd(), 9000);
        cc.on_partial_ack(3000);
        assert_eq!(cc.cwnd(), 7000);
        cc.on_exit_recovery(0);
        assert_eq!(cc.cwnd(), 5000);
        assert_eq!(cc.on_enter_recovery(1000, 3), 2000); // floor of 2 SMSS
    }

    #[test]
    fn sack_recovery_sets_cwnd_to_ssthresh() {
        let mut cc = CongestionControl::new(CongestionControlKind::NewReno, 1000, 10);
        assert_eq!(cc.enter_sack_recovery(10_000), 5000);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (5000, 5000));
    }
}
