//! The Reno-family window arithmetic (RFC 5681) shared by every algorithm: each variant keeps
//! its `cwnd`/`ssthresh` here so recovery's inflation and deflation exist only once.

/// RFC 3465 Appropriate Byte Counting limit L in segments: 2·SMSS, the RFC's recommendation,
/// so slow start still doubles cwnd per RTT with delayed ACKs.
pub const ABC_LIMIT_SEGMENTS: u32 = 2;

/// Additive-increase/multiplicative-decrease window arithmetic of RFC 5681 (Reno family).
#[derive(Clone, Debug)]
pub struct Aimd {
    pub(super) cwnd: u32,
    pub(super) ssthresh: u32,
    pub(super) mss: u32,
    /// Bytes acknowledged in congestion avoidance not yet turned into cwnd growth (RFC 3465).
    pub(super) ca_bytes: u32,
    /// Byte-counting limit L in segments ([`ABC_LIMIT_SEGMENTS`] unless the receiver ACKs
    /// less often than every second segment).
    pub(super) abc_limit: u32,
}

impl Aimd {
    pub(super) fn new(mss: u32, initial_cwnd_segments: u32) -> Self {
        let mss = mss.max(1);
        Aimd {
            cwnd: mss.saturating_mul(initial_cwnd_segments.max(1)),
            ssthresh: u32::MAX,
            mss,
            ca_bytes: 0,
            abc_limit: ABC_LIMIT_SEGMENTS,
        }
    }

    pub(super) fn set_mss(&mut self, mss: u32, initial_cwnd: u32) {
        self.mss = mss.max(1);
        self.cwnd = self.mss.saturating_mul(initial_cwnd.max(1));
    }

    pub(super) fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Slow start (RFC 5681 §3.1 with RFC 3465 byte counting, L = 2 SMSS, or the receiver's
    /// ACK factor when larger).
    pub(super) fn slow_start(&mut self, bytes_acked: u32) {
        self.cwnd = self.cwnd.saturating_add(bytes_acked.min(self.abc_limit.saturating_mul(self.mss)));
    }

    /// Congestion avoidance, byte-counted (RFC 3465 §2.1): +1 SMSS per cwnd of ACKed data.
    pub(super) fn congestion_avoidance(&mut self, bytes_acked: u32) {
        self.ca_bytes = self.ca_bytes.saturating_add(bytes_acked);
        if self.ca_bytes >= self.cwnd {
            self.ca_bytes -= self.cwnd;
            self.cwnd = self.cwnd.saturating_add(self.mss);
        }
    }

    pub(super) fn on_ack(&mut self, bytes_acked: u32) {
        if self.in_slow_start() {
            self.slow_start(bytes_acked);
        } else {
            self.congestion_avoidance(bytes_acked);
        }
    }

    /// ssthresh = max(FlightSize / 2, 2·SMSS) (RFC 5681 eq. 4).
    pub(super) fn halve(&self, flight: u32) -> u32 {
        (flight / 2).max(2 * self.mss)
    }

    /// Fast retransmit with ssthresh already chosen: cwnd = ssthresh + dupacks·SMSS, the
    /// segments that left the network (RFC 5681 §3.2 steps 2–3).
    pub(super) fn enter_fast_recovery(&mut self, ssthresh: u32, dupacks: u32) -> u32 {
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.cwnd = self.ssthresh.saturating_add(dupacks.saturating_mul(self.mss));
        self.ca_bytes = 0;
        self.ssthresh
    }

    /// A further duplicate ACK in recovery: one more segment left (RFC 5681 §3.2 step 4).
    pub(super) fn inflate(&mut self) {
        self.cwnd = self.cwnd.saturating_add(self.mss);
    }

    /// NewReno partial ACK: deflate by the data ACKed, add back one SMSS if that was at least
    /// one SMSS (RFC 6582 §3.2 step 5).
    pub(super) fn partial_ack(&mut self, bytes_acked: u32) {
        self.cwnd = self.cwnd.saturating_sub(bytes_acked);
        if bytes_acked >= self.mss {
            self.cwnd = self.cwnd.saturating_add(self.mss);
        }
        self.cwnd = self.cwnd.max(self.mss);
    }

    /// Recovery over: deflate to ssthresh (RFC 5681 §3.2 step 6; RFC 6582 §3.2 option 2).
    pub(super) fn deflate(&mut self) {
        self.cwnd = self.ssthresh.max(self.mss);
        self.ca_bytes = 0;
    }

    /// Loss window after a timeout (RFC 5681 §3.1 LW = 1 SMSS) with ssthresh already chosen;
    /// Tahoe uses the same collapse on a fast retransmit.
    pub(super) fn collapse(&mut self, ssthresh: u32) {
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.cwnd = self.mss;
        self.ca_bytes = 0;
    }
}
