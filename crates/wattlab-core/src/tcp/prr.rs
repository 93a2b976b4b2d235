//! Proportional Rate Reduction (RFC 6937 §3.1, the PRR-SSRB bound), as Linux runs it in SACK
//! loss recovery (`tcp_cwnd_reduction`, on by default since 3.2).
//!
//! RFC 6675 alone sets cwnd = ssthresh on entering recovery, so with half the window lost the
//! sender falls silent until pipe drains below ssthresh, then sends one segment per ACK. PRR
//! instead spreads the reduction over the recovery round trip: while pipe > ssthresh it sends
//! `ssthresh / RecoverFS` of what the receiver reports delivered (one segment per two ACKs for
//! a halving), and below ssthresh it grows back towards it by at most one segment more than was
//! delivered (slow-start reduction bound). All quantities are bytes.

/// PRR state of one recovery episode (RFC 6937 §3.1's variables).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// FlightSize when recovery started (`RecoverFS`).
    recover_fs: u64,
    /// Bytes the receiver reported delivered since recovery started (`prr_delivered`).
    delivered: u64,
    /// Bytes sent (new or retransmitted) since recovery started (`prr_out`).
    out: u64,
}

impl Prr {
    /// Start of recovery: `RecoverFS` = FlightSize, both counters zero.
    pub fn start(&mut self, flight: u64) {
        *self = Prr { recover_fs: flight.max(1), delivered: 0, out: 0 };
    }

    /// `prr_out += len` for every data segment sent during recovery.
    pub fn on_sent(&mut self, len: u64) {
        self.out += len;
    }

    /// An ACK in recovery reported `delivered` new bytes (cumulative plus newly SACKed):
    /// returns `sndcnt`, the bytes that may be sent now; the caller sets cwnd = pipe + sndcnt.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        self.delivered += delivered;
        if pipe > ssthresh {
            // Proportional part: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            (self.delivered * ssthresh).div_ceil(self.recover_fs).saturating_sub(self.out)
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS.
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        }
    }

    /// Bytes delivered since recovery started.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Bytes sent since recovery started.
    pub fn out(&self) -> u64 {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937 §5's setting, in segments (MSS = 1): 20 in flight, one lost, ssthresh 10.
    /// Each ACK delivers one segment. PRR sends on every second ACK (the first send is the
    /// fast retransmit) while pipe > ssthresh; when pipe reaches ssthresh (17th ACK) SSRB
    /// holds it there, sending one per ACK delivered.
    #[test]
    fn rfc6937_single_loss_sends_on_every_second_ack() {
        let mut p = Prr::default();
        p.start(20);
        let mut pipe = 19u64; // 20 in flight, the lost one no longer counted once deemed lost
        let mut sent_per_ack = Vec::new();
        for _ack in 0..19 {
            pipe -= 1; // one more segment reported delivered
            let sndcnt = p.on_ack(1, pipe, 10, 1);
            p.on_sent(sndcnt);
            pipe += sndcnt;
            sent_per_ack.push(sndcnt);
        }
        // Hand-computed: CEIL(d * 10 / 20) - out = 1, 0, 1, 0, ... while pipe > ssthresh;
        // ACK 17 finds pipe = 19 - 17 + 8 = 10 = ssthresh: SSRB's ssthresh - pipe = 0, then 1, 1.
        assert_eq!(sent_per_ack, [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]);
        assert_eq!((p.delivered(), p.out()), (19, 10));
        assert_eq!(pipe, 10, "pipe lands on ssthresh");
    }

    /// Below ssthresh (heavy loss) the slow-start reduction bound lets the sender grow by at
    /// most DeliveredData + 1 MSS per ACK back towards ssthresh, never above it.
    #[test]
    fn ssrb_grows_back_towards_ssthresh_by_one_segment_more_than_delivered() {
        let mut p = Prr::default();
        p.start(20);
        // 15 of 20 lost: pipe 4 after the first ACK delivered one segment.
        assert_eq!(p.on_ack(1, 4, 10, 1), 2, "limit = max(1 - 0, 1) + 1 = 2, ssthresh - pipe = 6");
        p.on_sent(2);
        assert_eq!(p.on_ack(1, 5, 10, 1), 2, "limit = max(2 - 2, 1) + 1 = 2");
        p.on_sent(2);
        assert_eq!(p.on_ack(3, 6, 10, 1), 4, "limit = max(5 - 4, 3) + 1 = 4 = ssthresh - pipe");
        p.on_sent(4);
        assert_eq!(p.on_ack(5, 9, 10, 1), 1, "ssthresh - pipe = 1 caps the limit of 6");
        assert_eq!(p.on_ack(0, 10, 10, 1), 0, "never above ssthresh");
    }

    /// The proportional part rounds up, in bytes, and never goes negative.
    #[test]
    fn proportional_part_rounds_up_and_is_never_negative() {
        let mut p = Prr::default();
        p.start(14_480); // 10 segments of 1448 B
        assert_eq!(p.on_ack(1448, 13_032, 10_136, 1448), 1014, "CEIL(1448 * 10136 / 14480) = 1014 (0.7 × 1448 rounded up)");
        p.on_sent(1448);
        assert_eq!(p.on_ack(0, 13_032, 10_136, 1448), 0, "sent more than the share: 1014 - 1448 < 0 -> 0");
    }
}
