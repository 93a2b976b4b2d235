//! Which ACKs give the RTO estimator an RTT sample, and from what (`tcp.rtt_sample`).
//!
//! RFC 7323 §4.3 / RFC 6298 §3 ([`RttSample::Rfc`], the textbook default): with timestamps the
//! TSecr echo of an ACK that advances snd_una (whole milliseconds), without them Karn's one
//! timed segment at a time.
//!
//! Linux 6.18 ([`RttSample::Linux`], net/ipv4/tcp_input.c) times every ACK by the send times it
//! keeps per skb (`tcp_skb_timestamp_us`, µs):
//! - `tcp_clean_rtx_queue`: `first_ackt` is the send time of the first skb the ACK acknowledges
//!   cumulatively that was not SACKed before and never retransmitted; if any skb it
//!   acknowledges was ever retransmitted (`FLAG_RETRANS_DATA_ACKED`) there is no such sample
//!   (`seq_rtt_us = -1`, Karn);
//! - `tcp_sacktag_one`: `first_sackt` is the send time of the first never-retransmitted skb the
//!   ACK newly SACKs (`sack_rtt_us`);
//! - `tcp_ack_update_rtt`: `seq_rtt_us` if there is one, else `sack_rtt_us`, else — only if the
//!   ACK acknowledged new data (`FLAG_ACKED`) — the TSecr (`tcp_rtt_tsopt_us`, ms
//!   resolution); the result feeds `tcp_rtt_estimator` and `tcp_set_rto`.
//!
//! So a SACK-only ACK (no cumulative progress) gives a sample too, from the data it SACKs, and
//! samples carry the send time of the data, not the echo of the last in-order segment's TSval.
//! The send times come from RACK-TLP's sent-segment records ([`super::rack::Rack::ack_send_times`],
//! the same walk `rto_rearm = "linux"` reads `first_sackt` from); the connection keeps them
//! whenever this option is on. Not modelled: Linux's `ca_rtt_us` (the *last* acknowledged
//! skb's age, for `tcp_update_rtt_min` and congestion control's `pkts_acked`): congestion
//! control gets the estimator's sample as before.

use super::named_option::named_option;
use super::rack::AckSendTimes;
use crate::time::{Duration, Time};

named_option! {
    /// Which ACKs give the RTO estimator an RTT sample, and from what (`TcpConfig::rtt_sample`).
    pub enum RttSample("rtt_sample") {
        /// RFC 7323 §4.3 / RFC 6298 §3: the TSecr of an ACK that advances snd_una, without
        /// timestamps Karn's one timed segment. The textbook default.
        #[default]
        Rfc = "rfc",
        /// Linux 6.18: every ACK, SACK-only ones too, from the send time of the first
        /// never-retransmitted segment it newly acknowledges or SACKs (see the module docs).
        Linux = "linux",
    }
    /// A name that matches no [`RttSample`].
    error UnknownRttSample;
}

/// Linux's `tcp_ack_update_rtt` choice at `now` for an ACK that advanced snd_una, with the
/// send times it covers and its TSecr echo (if timestamps are on and it echoes the past).
pub fn linux_sample(now: Time, times: AckSendTimes, tsecr: Option<Duration>) -> Option<Duration> {
    match times.first_ackt.or(times.first_sackt) {
        Some(sent) => Some(now.saturating_since(sent)),
        None => tsecr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn the_cumulative_send_time_wins_then_the_sacked_one_then_tsecr() {
        let t = |v| Time::from_secs_f64(v as f64 / 1000.0);
        let now = t(300);
        let both = AckSendTimes { first_ackt: Some(t(100)), first_sackt: Some(t(150)) };
        assert_eq!(linux_sample(now, both, Some(ms(7))), Some(ms(200)), "first_ackt, not the TSecr");
        let karn = AckSendTimes { first_ackt: None, first_sackt: Some(t(150)) };
        assert_eq!(linux_sample(now, karn, Some(ms(7))), Some(ms(150)), "retransmitted data acked: the SACK sample");
        assert_eq!(linux_sample(now, AckSendTimes::default(), Some(ms(7))), Some(ms(7)), "TSecr as the last resort");
        assert_eq!(linux_sample(now, AckSendTimes::default(), None), None);
    }

    #[test]
    fn names_and_default() {
        assert_eq!(RttSample::default(), RttSample::Rfc);
        assert_eq!(RttSample::from_name("Linux"), Ok(RttSample::Linux));
        assert_eq!(RttSample::from_name("bsd").unwrap_err().to_string(), "unknown rtt_sample `bsd` (known: rfc, linux)");
    }
}
