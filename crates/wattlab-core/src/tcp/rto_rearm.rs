//! When a sender restarts its retransmission timer (`tcp.rto_rearm`).
//!
//! RFC 6298 §5.1/§5.3 (the textbook default): the timer starts when data is sent with none
//! running and restarts on every ACK that acknowledges new data, so in a SACK repair whose
//! cumulative ACK is stuck (a lost retransmission at snd_una) it runs out one RTO after the
//! last cumulative ACK, however many SACKs say the repair is progressing.
//!
//! Linux 6.18 ([`RtoRearm::Linux`]) also restarts it (now + RTO) in two more cases:
//! - the segment at snd_una is retransmitted (`tcp_xmit_retransmit_queue` in
//!   net/ipv4/tcp_output.c: `skb == rtx_head` sets `rearm_timer`, then
//!   `tcp_reset_xmit_timer(sk, ICSK_TIME_RETRANS, icsk_rto, …)`; the RTO handler's own
//!   retransmission arms it the same way);
//! - an ACK that does not advance snd_una SACKs a never-retransmitted segment sent before the
//!   segment at snd_una was last (re)transmitted (`tcp_clean_rtx_queue` in
//!   net/ipv4/tcp_input.c: no `FLAG_ACKED`, a SACK RTT sample `sack_rtt_us` longer than the
//!   head's age sets `FLAG_SET_XMIT_TIMER`, and `tcp_ack` calls `tcp_set_xmit_timer` →
//!   `tcp_rearm_rto`; "first" is the lowest such segment, as `tcp_sacktag_one` meets it).
//!   SACKs of data sent after the head's last transmission do not restart it, so the timer
//!   still fires if the repair of the head itself stalls.
//!
//! Not modelled: while Linux's RACK reordering timer holds the one timer slot, the RTO is
//! re-armed from the head's send time when that timer fires (`tcp_rack_reo_timeout`); the
//! model keeps the two timers apart, which ends at the same deadline once the head is resent.
//! The SACK rule needs the send time of every segment: the connection keeps RACK's record of
//! them whenever SACK is on with this option (as for `rack` or `tlp`); without SACK only the
//! first rule applies.

use super::named_option::named_option;
use crate::time::Time;

named_option! {
    /// When the retransmission timer restarts.
    pub enum RtoRearm("rto_rearm") {
        /// RFC 6298 §5.1/§5.3: on sending with no timer running and on each ACK of new data.
        #[default]
        Rfc6298 = "rfc6298",
        /// Linux 6.18: also when the head is retransmitted, and on SACKs of data sent before
        /// the head's last transmission (see the module docs).
        Linux = "linux",
    }
    aliases { "rfc" => Rfc6298 }
    /// A name that matches no [`RtoRearm`].
    error UnknownRtoRearm;
}

/// Linux's SACK rule: an ACK that left snd_una where it was, whose lowest newly SACKed
/// never-retransmitted segment was sent at `first_sackt`, restarts the timer when that was
/// before the head's last transmission `head_xmit` (`sack_rtt_us` > the head's age).
pub fn sack_restarts_timer(first_sackt: Option<Time>, head_xmit: Option<Time>) -> bool {
    matches!((first_sackt, head_xmit), (Some(s), Some(h)) if s < h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sacks_of_data_older_than_the_heads_last_send_restart_the_timer() {
        let t = |ms| Time::from_secs_f64(ms as f64 / 1000.0);
        // The head (snd_una) was resent at 100 ms: a SACK of data first sent at 90 ms shows
        // the repair progressing, one of data sent at 110 ms (after the head) does not.
        assert!(sack_restarts_timer(Some(t(90)), Some(t(100))));
        assert!(!sack_restarts_timer(Some(t(110)), Some(t(100))));
        assert!(!sack_restarts_timer(Some(t(100)), Some(t(100))), "strictly older, as Linux's >");
        assert!(!sack_restarts_timer(None, Some(t(100))), "nothing never-retransmitted was SACKed");
        assert!(!sack_restarts_timer(Some(t(90)), None), "nothing outstanding");
    }

    #[test]
    fn names_and_default() {
        assert_eq!(RtoRearm::default(), RtoRearm::Rfc6298);
        assert_eq!(RtoRearm::from_name("Linux"), Ok(RtoRearm::Linux));
        assert_eq!(RtoRearm::from_name("rfc"), Ok(RtoRearm::Rfc6298));
        assert_eq!(RtoRearm::from_name("bsd").unwrap_err().to_string(), "unknown rto_rearm `bsd` (known: rfc6298, linux)");
    }
}
