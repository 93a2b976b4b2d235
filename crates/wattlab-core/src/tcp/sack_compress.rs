//! Linux's SACK compression (`tcp.sack_compress`): how a receiver holding out-of-order data
//! spaces its duplicate ACKs.
//!
//! RFC 5681 §4.2 (the default) sends an immediate duplicate ACK for every out-of-order
//! segment. Linux (`__tcp_ack_snd_check` in net/ipv4/tcp_input.c, since 4.18 "tcp: add SACK
//! compression"; the DupThresh rule since commit 86de5921a3d5 "tcp: defer SACK compression
//! after DupThresh", kept in its own `dup_ack_counter` since 2021; as in 6.18) sends the first `TCP_FASTRETRANS_THRESH` = 3 duplicate ACKs after each advance of
//! rcv_nxt at once, then holds the following ones: the first held one arms a timer of
//! min(`tcp_comp_sack_delay_ns` = 1 ms, RTT/20) (RTT = the smaller of the receiver's RTT
//! estimate and srtt) and an ACK goes out when it fires (`tcp_compressed_ack_kick`), or at once
//! when `tcp_comp_sack_nr` = 44 are held. Any ACK sent cancels the timer and the count
//! (`tcp_event_ack_sent`). The live testbed's client shows it: after a loss the first three
//! SACKs leave with their segments, the next ones ~1.1 ms apart (docs/live.md, "Per seed").
//!
//! Modelling choices: the RTT is the connection's srtt (a receiver-side RTT estimate from
//! timestamps is not kept apart; both are the path's RTT on a bulk download), and without
//! one the delay is the 1 ms cap; the hrtimer's 100 µs slack (`tcp_comp_sack_slack_ns`) is
//! not added (the timer fires at its earliest instant).

use crate::time::{Duration, Time};

/// `tcp_comp_sack_nr`: most duplicate ACKs held before one is sent at once (Linux default).
pub const COMP_SACK_NR: u32 = 44;
/// `tcp_comp_sack_delay_ns`: the hold timer's upper bound (Linux default, 1 ms).
pub const COMP_SACK_DELAY: Duration = Duration::from_millis(1);
/// `TCP_FASTRETRANS_THRESH`: duplicate ACKs sent at once after each advance of rcv_nxt.
pub const DUPACKS_AT_ONCE: u8 = 3;

/// The receiver's SACK-compression state (Linux's `compressed_ack`, `compressed_ack_rcv_nxt`,
/// `dup_ack_counter` and `compressed_ack_timer`).
#[derive(Debug, Clone, Default)]
pub struct SackCompress {
    held: u32,
    rcv_nxt: u64,
    dupacks: u8,
    at: Option<Time>,
}

impl SackCompress {
    /// An out-of-order segment arrived with rcv_nxt at `rcv_nxt`: `true` = send the duplicate
    /// ACK now, `false` = it is held (the timer is armed if it was not).
    pub fn on_out_of_order(&mut self, now: Time, rcv_nxt: u64, srtt: Option<Duration>) -> bool {
        if self.held >= COMP_SACK_NR {
            return true;
        }
        if self.rcv_nxt != rcv_nxt {
            self.rcv_nxt = rcv_nxt;
            self.dupacks = 0;
        }
        if self.dupacks < DUPACKS_AT_ONCE {
            self.dupacks += 1;
            return true;
        }
        self.held += 1;
        if self.at.is_none() {
            let delay = srtt.map_or(COMP_SACK_DELAY, |r| Duration::from_nanos(r.as_nanos() / 20).min(COMP_SACK_DELAY));
            self.at = Some(now + delay);
        }
        false
    }

    /// When the hold timer fires, if armed.
    pub fn deadline(&self) -> Option<Time> {
        self.at
    }

    /// The timer is due at `now`: `true` = send the held ACK now.
    pub fn on_timer(&mut self, now: Time) -> bool {
        if self.at.is_some_and(|t| t <= now) {
            self.at = None;
            return self.held > 0;
        }
        false
    }

    /// An ACK went out (`tcp_event_ack_sent`): nothing is held any more.
    pub fn on_ack_sent(&mut self) {
        self.held = 0;
        self.at = None;
    }

    /// Duplicate ACKs held now.
    pub fn held(&self) -> u32 {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_at_once_then_held_until_the_timer() {
        let mut c = SackCompress::default();
        let t0 = Time::from_secs_f64(1.0);
        let srtt = Some(Duration::from_millis(20));
        let sent: Vec<bool> = (0..6).map(|i| c.on_out_of_order(t0 + Duration::from_micros(240 * i), 100, srtt)).collect();
        assert_eq!(sent, [true, true, true, false, false, false]);
        assert_eq!(c.held(), 3);
        // armed at the 4th segment (t0 + 720 µs) for min(1 ms, 20 ms / 20) = 1 ms
        assert_eq!(c.deadline(), Some(t0 + Duration::from_micros(720) + Duration::from_millis(1)));
        assert!(!c.on_timer(t0 + Duration::from_micros(1700)), "not yet due");
        assert!(c.on_timer(t0 + Duration::from_micros(1720)));
        c.on_ack_sent();
        assert_eq!((c.held(), c.deadline()), (0, None));
        // same rcv_nxt: the duplicate-ACK counter is not reset by the ACK, so the next is held
        assert!(!c.on_out_of_order(t0 + Duration::from_millis(3), 100, srtt));
        // rcv_nxt advanced (a hole filled in part): three at once again
        assert!(c.on_out_of_order(t0 + Duration::from_millis(4), 200, srtt));
    }

    #[test]
    fn short_rtt_shortens_the_hold_and_44_held_send_at_once() {
        let mut c = SackCompress::default();
        let t0 = Time::from_secs_f64(0.5);
        for _ in 0..3 {
            assert!(c.on_out_of_order(t0, 7, Some(Duration::from_millis(4))));
        }
        assert!(!c.on_out_of_order(t0, 7, Some(Duration::from_millis(4))));
        assert_eq!(c.deadline(), Some(t0 + Duration::from_micros(200)), "4 ms / 20");
        for _ in 1..COMP_SACK_NR {
            assert!(!c.on_out_of_order(t0, 7, None));
        }
        assert_eq!(c.held(), COMP_SACK_NR);
        assert!(c.on_out_of_order(t0, 7, None), "the 45th goes at once");
        let mut d = SackCompress::default();
        for _ in 0..4 {
            d.on_out_of_order(t0, 7, None);
        }
        assert_eq!(d.deadline(), Some(t0 + COMP_SACK_DELAY), "no RTT yet: the 1 ms cap");
    }
}
