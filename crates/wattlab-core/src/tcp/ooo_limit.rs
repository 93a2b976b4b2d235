//! What bounds out-of-order state (option `ooo_limit`): the receiver's out-of-order queue
//! ([`super::reassembly`]) and the sender's SACK scoreboard ([`super::scoreboard`]).
//!
//! - [`OooLimit::Ranges32`] (the textbook default): each holds at most 32 disjoint ranges. A
//!   segment that would need a 33rd range is dropped by the receiver (the sender resends it);
//!   a SACK block that would need a 33rd slot is ignored by the sender.
//! - [`OooLimit::Rcvbuf`] (`profile = "linux"`): as Linux, which bounds neither by a count.
//!   The receiver's queue (Linux: an rbtree of skbs, `tcp_data_queue_ofo` in
//!   `net/ipv4/tcp_input.c`) is bounded by the receive buffer's bytes: a segment that would
//!   make in-order unread data plus held data exceed the buffer first prunes held data above
//!   it, from the highest sequence down, at least an eighth of the buffer per round
//!   (`tcp_prune_ofo_queue`), and is dropped if that is not enough; a prune forgets the SACK
//!   recency (`tcp_sack_reset`). The sender's scoreboard (Linux: the retransmit queue's
//!   per-skb `sacked` flags, `tcp_sacktag_write_queue`) has no count limit, and the sender
//!   detects a receiver that pruned (reneged on) SACKed data as Linux does
//!   (`tcp_check_sack_reneging`, `tcp_timeout_mark_lost`; see `connection/sack.rs`).

use super::named_option::named_option;

named_option! {
    /// How the out-of-order queue and the SACK scoreboard are bounded.
    pub enum OooLimit("ooo_limit") {
        /// At most [`RANGES32`] disjoint ranges on each side (the model's original bound).
        #[default]
        Ranges32 = "ranges32",
        /// The receive buffer's bytes bound the receiver's queue (pruned from the top when
        /// exceeded); the scoreboard is unbounded by count (Linux).
        Rcvbuf = "rcvbuf",
    }
    /// A name that matches no [`OooLimit`].
    error UnknownOooLimit;
}

/// The range count of [`OooLimit::Ranges32`].
pub const RANGES32: usize = 32;

impl OooLimit {
    /// Most SACKed ranges the sender's scoreboard keeps.
    pub const fn scoreboard_ranges(self) -> usize {
        match self {
            OooLimit::Ranges32 => RANGES32,
            OooLimit::Rcvbuf => usize::MAX,
        }
    }
}

/// Most ranges a byte-bounded queue of `buffer` bytes holds for segments of `mss` bytes: one
/// per full segment the buffer holds, plus one. Linux charges every held skb its memory
/// (truesize) however short its payload, so a queue of tiny segments exhausts the buffer
/// long before its bytes do; a range needing a slot beyond this count is treated as the
/// buffer being full (the queue prunes). Full-sized segments never reach it: disjoint ranges
/// of whole segments need a hole between them, so at most buffer / (2·mss) + 1 exist.
pub fn rcvbuf_range_cap(buffer: u64, mss: u32) -> usize {
    (buffer / mss.max(1) as u64).saturating_add(1).min(usize::MAX as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_case_insensitively_and_unknown_lists_the_known() {
        for m in OooLimit::ALL {
            assert_eq!(OooLimit::from_name(m.name()), Ok(m));
        }
        assert_eq!(OooLimit::from_name(" RcvBuf "), Ok(OooLimit::Rcvbuf));
        assert_eq!(OooLimit::default(), OooLimit::Ranges32);
        let e = OooLimit::from_name("ranges64").unwrap_err();
        assert_eq!(e.to_string(), "unknown ooo_limit `ranges64` (known: ranges32, rcvbuf)");
    }

    #[test]
    fn range_cap_counts_full_segments_of_the_buffer() {
        assert_eq!(rcvbuf_range_cap(3 << 20, 1448), (3 << 20) / 1448 + 1);
        assert_eq!(rcvbuf_range_cap(1000, 0), 1001, "an MSS of 0 is read as 1");
        assert_eq!(OooLimit::Ranges32.scoreboard_ranges(), 32);
        assert_eq!(OooLimit::Rcvbuf.scoreboard_ranges(), usize::MAX);
    }
}
