//! Option `ooo_limit = rcvbuf` (see [`crate::tcp::ooo_limit`]) in [`TcpConnection`]: the
//! receiver's out-of-order queue bounded by the receive buffer's bytes (Linux 6.18's
//! `tcp_data_queue_ofo` / `tcp_prune_ofo_queue`), and the sender's detection of a receiver
//! that pruned data it had SACKed (`tcp_check_sack_reneging`, `tcp_timeout_mark_lost`).
//!
//! The connection calls these only with `rcvbuf` (places marked `OOO:`); with `ranges32`
//! nothing here runs.

use super::TcpConnection;
use crate::tcp::ooo_limit::rcvbuf_range_cap;
use crate::time::{Duration, Time};

/// Floor of the reneging timer (Linux's `msecs_to_jiffies(10)` in `tcp_check_sack_reneging`).
const RENEGING_MIN_DELAY: Duration = Duration::from_millis(10);

impl TcpConnection {
    /// The receive buffer in window bytes, which bounds in-order unread plus out-of-order
    /// data: `recv_buffer`, or with autotuning the buffer grown so far (Linux's `sk_rcvbuf`,
    /// here in window bytes: the clamp).
    fn rcvbuf_window(&self) -> u64 {
        match &self.autotune {
            Some(a) => a.clamp().min(self.cfg.recv_buffer as u64),
            None => self.cfg.recv_buffer as u64,
        }
    }

    /// Hold out-of-order `[start, end)` in a queue bounded by the receive buffer: it fits if
    /// unread + held bytes stay within the buffer (Linux's `tcp_can_ingest`), else held data
    /// above it is pruned from the highest sequence, an eighth of the buffer per round
    /// (`goal = sk_rcvbuf >> 3`), and it is dropped if that is not enough.
    pub(super) fn ooo_insert_bounded(&mut self, start: u64, end: u64) {
        let buffer = self.rcvbuf_window();
        let budget = buffer.saturating_sub(self.unread);
        let cap = rcvbuf_range_cap(buffer, self.eff_mss);
        let r = self.ooo.insert_bounded(start, end, budget, cap, buffer / 8);
        if r.pruned > 0 {
            self.stats.ooo_prunes += 1;
            self.stats.ooo_pruned_bytes += r.pruned;
        }
        if !r.held {
            self.stats.ooo_dropped_segments += 1;
        }
    }

    /// After an ACK advanced snd_una: if the new snd_una lies in a SACKed range, the receiver
    /// discarded data it had SACKed (Linux: `FLAG_SACK_RENEGING` with
    /// `FLAG_SND_UNA_ADVANCED`). As `tcp_check_sack_reneging`, the retransmission timer is
    /// set to max(SRTT/2, 10 ms), so the timeout (which clears the scoreboard, see
    /// [`Self::ooo_reneged_at_rto`]) comes soon instead of one RTO later.
    #[cold]
    pub(super) fn ooo_check_reneging(&mut self, now: Time) {
        if self.snd_una < self.snd_max && self.sb.is_sacked(self.snd_una) {
            let half_srtt = self.rtt.srtt().map_or(Duration::ZERO, |s| Duration(s.0 / 2));
            self.rto_at = Some(now + half_srtt.max(RENEGING_MIN_DELAY));
        }
    }

    /// At a retransmission timeout (scoreboard already advanced to snd_una): if the first
    /// unacknowledged byte is SACKed, the receiver reneged, and every SACK mark is forgotten
    /// (Linux's `tcp_timeout_mark_lost`: `is_reneg` clears every skb's SACKED_ACKED), so
    /// the data is resent. Returns true if it reneged.
    pub(super) fn ooo_reneged_at_rto(&mut self) -> bool {
        if !self.sb.is_sacked(self.snd_una) {
            return false;
        }
        self.sb.clear_sacked();
        if self.rack_track {
            self.rack.clear_sacked();
        }
        self.stats.sack_renegings += 1;
        true
    }
}
