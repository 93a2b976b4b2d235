//! Proportional Rate Reduction (RFC 6937 §3.1, the PRR-SSRB bound), as Linux runs it in SACK
//! loss recovery (`tcp_cwnd_reduction`, on by default since 3.2).
//!
//! RFC 6675 alone sets cwnd = ssthresh on entering recovery, so with half the window lost the
//! sender falls silent until pipe drains below ssthresh, then sends one segment per ACK. PRR
//! instead spreads the reduction over the recovery round trip: while pipe > ssthresh it sends
//! `ssthresh / RecoverFS` of what the receiver reports delivered (one segment per two ACKs for
//! a halving), and below ssthresh it grows back towards it by at most one segment more than was
//! delivered (slow-start reduction bound). All quantities are bytes.
//!
//! Two variants (option `prr_variant`, [`PrrVariant`]):
//! - `rfc6937` (the default): the RFC's pseudocode. RecoverFS = FlightSize at entry; every ACK
//!   below ssthresh may send `MAX(prr_delivered − prr_out, DeliveredData) + MSS`.
//! - `linux` (`profile = "linux"`): Linux 6.18's `tcp_cwnd_reduction` (net/ipv4/tcp_input.c,
//!   as restructured by "tcp: improve PRR loss recovery", 2022). RecoverFS is `prior_cwnd`, the
//!   cwnd at entry (`tcp_init_cwnd_reduction`); an ACK that reports nothing delivered leaves
//!   cwnd as it was (`if (newly_acked_sacked <= 0) return`); the extra segment of the slow-start
//!   bound is added only when the ACK advanced snd_una and marked no segment newly lost
//!   (`if (flag & FLAG_SND_UNA_ADVANCED && !newly_lost) sndcnt++`), so a repair whose
//!   cumulative ACK is stuck (SACK-only ACKs) sends exactly what was delivered; and the first
//!   ACK of recovery may always send one segment (`max(sndcnt, prr_out ? 0 : 1)`, the fast
//!   retransmit).

use super::named_option::named_option;

named_option! {
    /// Which rules PRR follows (`TcpConfig::prr_variant`; see the module docs).
    pub enum PrrVariant("prr_variant") {
        /// RFC 6937 §3.1's pseudocode, the textbook default.
        #[default]
        Rfc6937 = "rfc6937",
        /// Linux's `tcp_cwnd_reduction`: RecoverFS = cwnd at entry, the extra slow-start-bound
        /// segment only on an ACK that advances snd_una and marks no new loss.
        Linux = "linux",
    }
    aliases { "rfc" => Rfc6937 }
    /// A name that matches no [`PrrVariant`].
    error UnknownPrrVariant;
}

/// What one ACK in recovery reported, as PRR needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrrAck {
    /// Bytes newly delivered: cumulatively acknowledged plus newly SACKed (`DeliveredData`).
    pub delivered: u64,
    /// The ACK advanced snd_una (Linux's `FLAG_SND_UNA_ADVANCED`).
    pub una_advanced: bool,
    /// Loss detection marked a segment lost while processing this ACK (Linux's `rs->losses`).
    pub newly_lost: bool,
}

/// PRR state of one recovery episode (RFC 6937 §3.1's variables).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// FlightSize when recovery started (`RecoverFS`).
    recover_fs: u64,
    /// Bytes the receiver reported delivered since recovery started (`prr_delivered`).
    delivered: u64,
    /// Bytes sent (new or retransmitted) since recovery started (`prr_out`).
    out: u64,
    /// Which rules apply.
    variant: PrrVariant,
}

impl Prr {
    /// Start of recovery with FlightSize `flight` and congestion window `cwnd` (bytes):
    /// `RecoverFS` = FlightSize (RFC 6937) or cwnd (Linux's `prior_cwnd`), counters zero.
    pub fn start(&mut self, variant: PrrVariant, flight: u64, cwnd: u64) {
        let recover_fs = if variant == PrrVariant::Linux { cwnd } else { flight };
        *self = Prr { recover_fs: recover_fs.max(1), delivered: 0, out: 0, variant };
    }

    /// `prr_out += len` for every data segment sent during recovery.
    pub fn on_sent(&mut self, len: u64) {
        self.out += len;
    }

    /// An ACK in recovery: returns `sndcnt`, the bytes that may be sent now (the caller sets
    /// cwnd = pipe + sndcnt), or `None` when cwnd stays as it was (Linux, nothing delivered).
    pub fn on_ack(&mut self, ack: PrrAck, pipe: u64, ssthresh: u64, mss: u64) -> Option<u64> {
        let linux = self.variant == PrrVariant::Linux;
        if linux && ack.delivered == 0 {
            return None;
        }
        self.delivered += ack.delivered;
        let sndcnt = if pipe > ssthresh {
            // Proportional part: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            (self.delivered * ssthresh).div_ceil(self.recover_fs).saturating_sub(self.out)
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS; Linux adds
            // the MSS only when snd_una advanced and nothing was newly marked lost.
            let extra = if !linux || (ack.una_advanced && !ack.newly_lost) { mss } else { 0 };
            let limit = self.delivered.saturating_sub(self.out).max(ack.delivered) + extra;
            (ssthresh - pipe).min(limit)
        };
        // Linux: the first ACK of recovery may always send the fast retransmit.
        Some(if linux && self.out == 0 { sndcnt.max(mss) } else { sndcnt })
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

    /// An ACK that delivered `n` bytes and advanced snd_una, with no new loss.
    fn d(n: u64) -> PrrAck {
        PrrAck { delivered: n, una_advanced: true, newly_lost: false }
    }

    /// A SACK-only ACK (snd_una stuck at a hole) that delivered `n` bytes.
    fn sacked(n: u64) -> PrrAck {
        PrrAck { delivered: n, una_advanced: false, newly_lost: false }
    }

    /// RFC 6937 §5's setting, in segments (MSS = 1): 20 in flight, one lost, ssthresh 10.
    /// Each ACK delivers one segment. PRR sends on every second ACK (the first send is the
    /// fast retransmit) while pipe > ssthresh; when pipe reaches ssthresh (17th ACK) SSRB
    /// holds it there, sending one per ACK delivered.
    #[test]
    fn rfc6937_single_loss_sends_on_every_second_ack() {
        let mut p = Prr::default();
        p.start(PrrVariant::Rfc6937, 20, 20);
        let mut pipe = 19u64; // 20 in flight, the lost one no longer counted once deemed lost
        let mut sent_per_ack = Vec::new();
        for _ack in 0..19 {
            pipe -= 1; // one more segment reported delivered
            let sndcnt = p.on_ack(d(1), pipe, 10, 1).unwrap();
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
        p.start(PrrVariant::Rfc6937, 20, 20);
        // 15 of 20 lost: pipe 4 after the first ACK delivered one segment.
        assert_eq!(p.on_ack(d(1), 4, 10, 1), Some(2), "limit = max(1 - 0, 1) + 1 = 2, ssthresh - pipe = 6");
        p.on_sent(2);
        assert_eq!(p.on_ack(d(1), 5, 10, 1), Some(2), "limit = max(2 - 2, 1) + 1 = 2");
        p.on_sent(2);
        assert_eq!(p.on_ack(d(3), 6, 10, 1), Some(4), "limit = max(5 - 4, 3) + 1 = 4 = ssthresh - pipe");
        p.on_sent(4);
        assert_eq!(p.on_ack(d(5), 9, 10, 1), Some(1), "ssthresh - pipe = 1 caps the limit of 6");
        assert_eq!(p.on_ack(d(0), 10, 10, 1), Some(0), "never above ssthresh");
    }

    /// The proportional part rounds up, in bytes, and never goes negative.
    #[test]
    fn proportional_part_rounds_up_and_is_never_negative() {
        let mut p = Prr::default();
        p.start(PrrVariant::Rfc6937, 14_480, 14_480); // 10 segments of 1448 B
        assert_eq!(p.on_ack(d(1448), 13_032, 10_136, 1448), Some(1014), "CEIL(1448 * 10136 / 14480) = 1014 (0.7 × 1448 rounded up)");
        p.on_sent(1448);
        assert_eq!(p.on_ack(d(0), 13_032, 10_136, 1448), Some(0), "sent more than the share: 1014 - 1448 < 0 -> 0");
    }

    /// Linux, below ssthresh: a repair whose cumulative ACK is stuck sends exactly what was
    /// delivered (packet conservation), where RFC 6937 sends one segment more per ACK.
    #[test]
    fn linux_sack_only_repair_sends_exactly_what_was_delivered() {
        let (mut rfc, mut linux) = (Prr::default(), Prr::default());
        rfc.start(PrrVariant::Rfc6937, 20, 20);
        linux.start(PrrVariant::Linux, 20, 20);
        // 15 of 20 lost, ssthresh 10: 5 ACKs each SACK one segment; each sends what it may.
        let (mut pipe_rfc, mut pipe_linux) = (4u64, 4u64);
        let (mut sent_rfc, mut sent_linux) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            let s = rfc.on_ack(sacked(1), pipe_rfc, 10, 1).unwrap();
            rfc.on_sent(s);
            pipe_rfc += s;
            sent_rfc.push(s);
            let s = linux.on_ack(sacked(1), pipe_linux, 10, 1).unwrap();
            linux.on_sent(s);
            pipe_linux += s;
            sent_linux.push(s);
            pipe_rfc -= 1; // the next ACK reports one more segment out of the network
            pipe_linux -= 1;
        }
        assert_eq!(sent_rfc, [2, 2, 2, 2, 2], "RFC: DeliveredData + 1 MSS per ACK, up to ssthresh");
        assert_eq!(sent_linux, [1, 1, 1, 1, 1], "Linux: the first is the fast retransmit, then one per delivered");
        assert_eq!(linux.on_ack(d(1), 4, 10, 1), Some(2), "an ACK that advances snd_una earns the extra segment");
        let lost = PrrAck { newly_lost: true, ..d(1) };
        linux.on_sent(2);
        assert_eq!(linux.on_ack(lost, 4, 10, 1), Some(1), "but not if it marked a new loss");
    }

    /// Linux: an ACK that delivered nothing leaves cwnd alone; the first ACK may always send
    /// the fast retransmit; RecoverFS is the cwnd at entry, not FlightSize.
    #[test]
    fn linux_nothing_delivered_first_send_and_prior_cwnd() {
        let mut p = Prr::default();
        p.start(PrrVariant::Linux, 20, 40);
        assert_eq!(p.on_ack(sacked(0), 30, 20, 1), None, "nothing delivered: cwnd unchanged");
        assert_eq!(p.on_ack(sacked(1), 30, 20, 1), Some(1), "CEIL(1 × 20 / 40) = 1 (RecoverFS = cwnd 40)");
        p.on_sent(1);
        assert_eq!(p.on_ack(sacked(1), 30, 20, 1), Some(0), "CEIL(2 × 20 / 40) − 1 = 0 (RFC's FlightSize 20 would give 1)");
        let mut q = Prr::default();
        q.start(PrrVariant::Linux, 20, 20);
        assert_eq!(q.on_ack(sacked(1), 19, 5, 1), Some(1), "CEIL(1 × 5 / 20) = 1 anyway");
        let mut r = Prr::default();
        r.start(PrrVariant::Linux, 100, 100);
        assert_eq!(r.on_ack(sacked(1), 99, 10, 4), Some(4), "CEIL(10 / 100) = 1 byte, raised to one MSS: the fast retransmit");
        assert_eq!(PrrVariant::from_name("RFC"), Ok(PrrVariant::Rfc6937));
        assert_eq!(PrrVariant::from_name("bsd").unwrap_err().to_string(), "unknown prr_variant `bsd` (known: rfc6937, linux)");
    }
}
