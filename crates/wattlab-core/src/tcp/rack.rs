//! RACK-TLP loss detection (RFC 8985), options `rack` and `tlp`: the per-segment transmit
//! record, RACK's time-based loss marking with its reordering window, and the Tail Loss
//! Probe's state. The connection glue (when to call what) is `connection/rack.rs`.
//!
//! **Sent queue.** Every data segment sent (new or retransmitted) is a [`SentSeg`] in a
//! `VecDeque` kept in sequence order over `[snd_una, snd_max)`; a retransmission updates its
//! records' `xmit_ts` in place (splitting a record if it resends only part of one). RFC 8985
//! asks for a time-ordered queue; sequence order is enough because original transmissions are
//! sent in sequence order and a retransmission is later than its original, so every record
//! after the first *never-retransmitted* record sent after RACK.xmit_ts was also sent after it
//! ([`Rack::detect_loss`] stops there, like Linux's walk of its time-sorted list). The deque's
//! buffer grows to the largest flight once and is then reused: nothing is allocated per segment.
//!
//! **Modelling choices.** RACK.min_RTT is the minimum over the connection (Linux: a 300 s
//! windowed minimum, the same for runs shorter than that). D-SACK is not modelled (the model's
//! receiver sends none), so the reordering window's multiplier stays 1 (RFC 8985 §6.2 step 4
//! grows it per D-SACK round) and a TLP retransmission is never proven spurious: it counts as a
//! repaired loss once an ACK goes beyond it (Linux's `tcp_process_tlp_ack`), which reduces
//! cwnd. Segments are assumed SACKed whole (a SACK block covering part of a record leaves it
//! unSACKed until the rest is covered).

use crate::time::{Duration, Time};
use std::collections::VecDeque;

/// Records the sent queue keeps room for from the start (grows, once, beyond that).
const INITIAL_RECORDS: usize = 64;

/// One data segment sent and not yet cumulatively acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentSeg {
    /// First position (unwrapped sequence offset).
    pub start: u64,
    /// Position just past it (a FIN counts one).
    pub end: u64,
    /// When it was last (re)transmitted.
    pub xmit_ts: Time,
    /// Retransmitted at least once.
    pub retransmitted: bool,
    /// Selectively acknowledged.
    pub sacked: bool,
    /// Deemed lost and not retransmitted since.
    pub lost: bool,
}

impl SentSeg {
    fn len(&self) -> u64 {
        self.end - self.start
    }
}

/// What an ACK's newly acknowledged records say about when they were sent (see
/// [`Rack::ack_send_times`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckSendTimes {
    /// Send time of the lowest never-retransmitted record acknowledged cumulatively (Linux's
    /// `first_ackt`); `None` also when the ACK covers a retransmitted record.
    pub first_ackt: Option<Time>,
    /// Send time of the lowest never-retransmitted record newly SACKed (Linux's `first_sackt`).
    pub first_sackt: Option<Time>,
}

/// Counters of RACK-TLP's decisions over a connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RackStats {
    /// Segments RACK marked lost (each marking counts, a lost retransmission again).
    pub marked_lost: u64,
    /// Segments marked lost whose last transmission was itself a retransmission.
    pub lost_retransmissions: u64,
    /// Reordering-timer expiries.
    pub reo_timeouts: u64,
    /// Loss probes sent (new data or the last segment).
    pub tlp_probes: u64,
    /// Loss probes that carried new data.
    pub tlp_new_data: u64,
    /// Probe episodes that repaired a loss (an ACK beyond a retransmitted probe, no D-SACK).
    pub tlp_repaired: u64,
    /// Times reordering was first detected (0 or 1).
    pub reordering_seen: u64,
}

/// RACK (RFC 8985 §6) and TLP (§7) state of one sender.
#[derive(Clone, Debug)]
pub struct Rack {
    segs: VecDeque<SentSeg>,
    /// RACK.xmit_ts / RACK.end_seq of the most recently sent segment delivered.
    latest: Option<(Time, u64)>,
    /// RACK.rtt: RTT of that segment.
    rtt: Duration,
    /// RACK.min_RTT.
    min_rtt: Option<Duration>,
    /// RACK.fack: highest end_seq delivered.
    fack: u64,
    /// RACK.reordering_seen.
    reordering_seen: bool,
    sacked_bytes: u64,
    sacked_segs: u32,
    lost_bytes: u64,
    /// Reordering timer deadline.
    reo_timer: Option<Time>,
    /// TLP.end_seq while a probe episode is in progress, with TLP.is_retrans.
    tlp: Option<(u64, bool)>,
    /// PTO deadline.
    pto: Option<Time>,
    stats: RackStats,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            segs: VecDeque::new(), // allocated by `reserve` only when RACK or TLP runs
            latest: None,
            rtt: Duration::ZERO,
            min_rtt: None,
            fack: 0,
            reordering_seen: false,
            sacked_bytes: 0,
            sacked_segs: 0,
            lost_bytes: 0,
            reo_timer: None,
            tlp: None,
            pto: None,
            stats: RackStats::default(),
        }
    }
}

/// RFC 8985 §6.2 `RACK_sent_after(t1, seq1, t2, seq2)`: (t1, seq1) was sent after (t2, seq2).
fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// Make room for the first records (called once RACK or TLP is known to run).
    pub fn reserve(&mut self) {
        self.segs.reserve(INITIAL_RECORDS);
    }

    /// Counters.
    pub fn stats(&self) -> &RackStats {
        &self.stats
    }

    /// The send times Linux reads off an ACK about to be applied (cumulative point `una`, SACK
    /// `blocks`, unwrapped, any order), one walk for `rto_rearm` and `rtt_sample` (Linux 6.18,
    /// net/ipv4/tcp_input.c):
    /// - `first_ackt`: `tcp_clean_rtx_queue`'s — the send time of the lowest record the ACK
    ///   acknowledges cumulatively that was neither SACKed before nor ever retransmitted; `None`
    ///   if any record it acknowledges cumulatively was retransmitted (`FLAG_RETRANS_DATA_ACKED`:
    ///   Karn). A record only partly acknowledged counts as not acknowledged (Linux frees whole
    ///   skbs; a one-segment skb partly acknowledged ends the walk).
    /// - `first_sackt`: `tcp_sacktag_one`'s — the send time of the lowest never-retransmitted
    ///   record the ACK newly SACKs (blocks are walked in ascending order, as
    ///   `tcp_sacktag_write_queue` sorts them).
    pub fn ack_send_times(&self, una: u64, blocks: &[(u64, u64)]) -> AckSendTimes {
        let mut t = AckSendTimes::default();
        let mut retransmitted = false;
        for s in self.segs.iter().take_while(|s| s.end <= una) {
            if s.retransmitted {
                retransmitted = true;
            } else if !s.sacked && t.first_ackt.is_none() {
                t.first_ackt = Some(s.xmit_ts);
            }
        }
        if retransmitted {
            t.first_ackt = None;
        }
        let mut lowest: Option<(u64, Time)> = None;
        for &(bs, be) in blocks {
            let from = self.segs.partition_point(|s| s.start < bs.max(una));
            let first = self.segs.range(from..).take_while(|s| s.end <= be).find(|s| !s.sacked && !s.retransmitted);
            if let Some(s) = first.filter(|s| lowest.is_none_or(|(start, _)| s.start < start)) {
                lowest = Some((s.start, s.xmit_ts));
            }
        }
        t.first_sackt = lowest.map(|(_, t)| t);
        t
    }

    /// When the lowest outstanding segment (snd_una's) was last (re)transmitted.
    pub fn head_xmit(&self) -> Option<Time> {
        self.segs.front().map(|s| s.xmit_ts)
    }

    /// The sent queue, in sequence order.
    pub fn segments(&self) -> &VecDeque<SentSeg> {
        &self.segs
    }

    /// RACK.rtt, RACK.min_RTT.
    pub fn rtts(&self) -> (Duration, Option<Duration>) {
        (self.rtt, self.min_rtt)
    }

    /// RACK.reordering_seen.
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }

    /// Bytes deemed lost and not retransmitted since.
    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }

    /// The reordering timer's deadline.
    pub fn reo_timer(&self) -> Option<Time> {
        self.reo_timer
    }

    /// The PTO's deadline.
    pub fn pto(&self) -> Option<Time> {
        self.pto
    }

    /// Earliest of the reordering timer and the PTO.
    pub fn next_timer(&self) -> Option<Time> {
        match (self.reo_timer, self.pto) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Cancel the reordering timer (and return whether it had expired by `now`).
    pub fn take_reo_timer(&mut self, now: Time) -> bool {
        let due = self.reo_timer.is_some_and(|t| t <= now);
        if due {
            self.reo_timer = None;
        }
        due
    }

    /// Cancel the PTO (and return whether it had expired by `now`).
    pub fn take_pto(&mut self, now: Time) -> bool {
        let due = self.pto.is_some_and(|t| t <= now);
        if due {
            self.pto = None;
        }
        due
    }

    /// Arm or cancel the PTO.
    pub fn set_pto(&mut self, at: Option<Time>) {
        self.pto = at;
    }

    /// TLP.end_seq and TLP.is_retrans of the probe episode in progress.
    pub fn tlp_episode(&self) -> Option<(u64, bool)> {
        self.tlp
    }

    /// A loss probe ending at `end_seq` was sent (`retrans`: it resent the last segment).
    pub fn on_probe_sent(&mut self, end_seq: u64, retrans: bool) {
        self.tlp = Some((end_seq, retrans));
        self.stats.tlp_probes += 1;
        if !retrans {
            self.stats.tlp_new_data += 1;
        }
    }

    /// End the probe episode (loss recovery or an RTO took over).
    pub fn end_tlp_episode(&mut self) {
        self.tlp = None;
    }

    /// TLP loss detection (RFC 8985 §7.4, as Linux's `tcp_process_tlp_ack`) on an ACK for
    /// `ack`; `pure_dup` = the ACK neither advanced snd_una nor SACKed new data nor carried
    /// data. Returns true if the probe repaired a loss (the caller reduces cwnd).
    pub fn tlp_on_ack(&mut self, ack: u64, pure_dup: bool) -> bool {
        let Some((end, retrans)) = self.tlp else { return false };
        if ack < end {
            return false;
        }
        if !retrans {
            self.tlp = None; // a probe of new data was delivered: nothing to infer
        } else if ack > end {
            // Beyond the probe with no D-SACK saying it was redundant: it repaired a loss.
            self.tlp = None;
            self.stats.tlp_repaired += 1;
            return true;
        } else if pure_dup {
            // Original and probe both arrived (the probe drew a duplicate ACK): no loss.
            self.tlp = None;
        }
        false
    }

    /// The last segment sent: `[start, end)` of the highest record.
    pub fn last_segment(&self) -> Option<(u64, u64)> {
        self.segs.back().map(|s| (s.start, s.end))
    }

    // ------------------------------------------------------------------ sent queue

    /// Record a transmission of `[start, end)` at `now` (new data is appended; data already
    /// in the queue is a retransmission: its records take the new time and lose `lost`).
    pub fn on_sent(&mut self, start: u64, end: u64, now: Time) {
        if end <= start {
            return;
        }
        let tail = self.segs.back().map_or(start, |s| s.end);
        if start < tail {
            let i = self.split_at(start);
            let j = self.split_at(end.min(tail));
            for s in self.segs.range_mut(i..j) {
                s.xmit_ts = now;
                s.retransmitted = true;
                if s.lost {
                    s.lost = false;
                    self.lost_bytes -= s.end - s.start;
                }
            }
        }
        if end > tail {
            let seg = SentSeg { start: start.max(tail), end, xmit_ts: now, retransmitted: false, sacked: false, lost: false };
            self.segs.push_back(seg);
        }
    }

    /// Split the record containing `pos` (if `pos` is inside it) and return the index of the
    /// first record starting at or after `pos`.
    fn split_at(&mut self, pos: u64) -> usize {
        let i = self.segs.partition_point(|s| s.end <= pos);
        match self.segs.get(i).copied() {
            Some(s) if s.start < pos => {
                self.segs[i].end = pos;
                let mut right = s;
                right.start = pos;
                if s.sacked {
                    self.sacked_segs += 1;
                }
                self.segs.insert(i + 1, right);
                i + 1
            }
            _ => i,
        }
    }

    /// An ACK: cumulative point `una`, SACK `blocks` (unwrapped, any order). Updates RACK.xmit_ts/end_seq/rtt/
    /// min_RTT from the newly delivered segments (§6.2 step 2) and RACK.fack/reordering_seen
    /// (step 3). Returns true if it delivered anything new.
    pub fn on_ack(&mut self, now: Time, una: u64, blocks: &[(u64, u64)]) -> bool {
        let mut best: Option<SentSeg> = None;
        let mut delivered = false;
        // Cumulatively acknowledged records, lowest first.
        while let Some(&s) = self.segs.front() {
            if s.start >= una {
                break;
            }
            if s.end > una {
                // Partly acknowledged: keep the rest (it was sent at the same time).
                self.segs[0].start = una;
                if s.lost {
                    self.lost_bytes -= una - s.start;
                }
                if s.sacked {
                    self.sacked_bytes -= una - s.start;
                }
                break;
            }
            self.segs.pop_front();
            if s.sacked {
                self.sacked_bytes -= s.len();
                self.sacked_segs -= 1;
                continue;
            }
            if s.lost {
                self.lost_bytes -= s.len();
            }
            delivered = true;
            self.delivered(s, now, &mut best);
        }
        // Newly SACKed records, in ascending order of the blocks.
        let mut sorted = [(0u64, 0u64); 8];
        let n = blocks.len().min(sorted.len());
        sorted[..n].copy_from_slice(&blocks[..n]);
        sorted[..n].sort_unstable();
        for &(bs, be) in &sorted[..n] {
            let mut i = self.segs.partition_point(|s| s.start < bs);
            while let Some(s) = self.segs.get(i).copied() {
                if s.end > be {
                    break;
                }
                if !s.sacked {
                    let r = &mut self.segs[i];
                    r.sacked = true;
                    self.sacked_bytes += s.len();
                    self.sacked_segs += 1;
                    if s.lost {
                        r.lost = false;
                        self.lost_bytes -= s.len();
                    }
                    delivered = true;
                    self.delivered(s, now, &mut best);
                }
                i += 1;
            }
        }
        if let Some(s) = best {
            self.rtt = now.saturating_since(s.xmit_ts);
            if self.latest.is_none_or(|(t, e)| sent_after(s.xmit_ts, s.end, t, e)) {
                self.latest = Some((s.xmit_ts, s.end));
            }
        }
        delivered
    }

    /// One newly delivered segment: step 3 (fack, reordering) and step 2's filter, keeping
    /// the latest-sent valid sample in `best` (steps 2 applied in xmit_ts order end with it).
    fn delivered(&mut self, s: SentSeg, now: Time, best: &mut Option<SentSeg>) {
        if s.end > self.fack {
            self.fack = s.end;
        } else if s.end < self.fack && !s.retransmitted {
            if !self.reordering_seen {
                self.stats.reordering_seen += 1;
            }
            self.reordering_seen = true;
        }
        let rtt = now.saturating_since(s.xmit_ts);
        // Ambiguous: the ACK of a retransmitted segment may be for the original. An RTT below
        // RACK.min_RTT must be (§6.2 step 2). The step's timestamp test is not applied: an
        // RFC 7323 receiver echoes the last in-order segment's TSval on an out-of-order ACK,
        // so a SACKed retransmission would never count (Linux's `tcp_rack_advance` has only
        // the min_RTT test).
        if s.retransmitted && self.min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        if best.is_none_or(|b| sent_after(s.xmit_ts, s.end, b.xmit_ts, b.end)) {
            *best = Some(s);
        }
    }

    /// RACK.reo_wnd (RFC 8985 §6.2 step 4): 0 before any reordering was seen if in recovery
    /// or DupThresh segments are SACKed, else min(RACK.min_RTT / 4, SRTT) (multiplier 1:
    /// no D-SACK).
    pub fn reo_wnd(&self, in_recovery: bool, dupthresh: u32, srtt: Option<Duration>) -> Duration {
        if !self.reordering_seen && (in_recovery || self.sacked_segs >= dupthresh) {
            return Duration::ZERO;
        }
        let q = Duration(self.min_rtt.unwrap_or(Duration::ZERO).0 / 4);
        srtt.map_or(q, |s| q.min(s))
    }

    /// RACK_detect_loss (§6.2 step 5) and the reordering timer (step 6): marks lost every
    /// unSACKed segment sent before RACK.xmit_ts whose time to be delivered
    /// (xmit_ts + RACK.rtt + reo_wnd) has passed; arms the timer for the earliest of the
    /// others. Returns the number of segments newly marked.
    pub fn detect_loss(&mut self, now: Time, reo_wnd: Duration) -> u32 {
        let Some((rx, re)) = self.latest else { return 0 };
        let mut timeout: Option<Time> = None;
        let mut marked = 0u32;
        let wait = self.rtt + reo_wnd;
        for s in self.segs.iter_mut() {
            if s.sacked || s.lost {
                continue;
            }
            if !sent_after(rx, re, s.xmit_ts, s.end) {
                if !s.retransmitted {
                    break; // every later record was sent later still (module docs)
                }
                continue;
            }
            let due = s.xmit_ts + wait;
            if due <= now {
                s.lost = true;
                self.lost_bytes += s.end - s.start;
                marked += 1;
                if s.retransmitted {
                    self.stats.lost_retransmissions += 1;
                }
            } else {
                timeout = Some(timeout.map_or(due, |t| t.max(due)));
            }
        }
        self.stats.marked_lost += marked as u64;
        self.reo_timer = timeout;
        marked
    }

    /// The reordering timer fired: one more detection pass.
    pub fn on_reo_timeout(&mut self, now: Time, reo_wnd: Duration) -> u32 {
        self.stats.reo_timeouts += 1;
        self.detect_loss(now, reo_wnd)
    }

    /// Retransmission timeout: every unSACKed segment is lost (Linux's `tcp_timeout_mark_lost`,
    /// RFC 8985 §6.3's RTO recovery); the timers and the probe episode end.
    pub fn on_rto(&mut self) {
        for s in self.segs.iter_mut() {
            if !s.sacked && !s.lost {
                s.lost = true;
                self.lost_bytes += s.end - s.start;
            }
        }
        self.reo_timer = None;
        self.pto = None;
        self.tlp = None;
    }

    /// The receiver reneged (`ooo_limit = rcvbuf`): forget every SACK mark, as Linux's
    /// `tcp_timeout_mark_lost` with `is_reneg` (called before [`Self::on_rto`]).
    pub fn clear_sacked(&mut self) {
        for s in self.segs.iter_mut() {
            s.sacked = false;
        }
        self.sacked_bytes = 0;
        self.sacked_segs = 0;
    }

    /// RFC 6675 `pipe` from the marks: bytes outstanding that are neither SACKed nor lost
    /// (a retransmitted lost segment is in flight once).
    pub fn pipe(&self) -> u64 {
        let (Some(f), Some(b)) = (self.segs.front(), self.segs.back()) else { return 0 };
        (b.end - f.start).saturating_sub(self.sacked_bytes + self.lost_bytes)
    }

    /// The lowest segment marked lost, as (start, len ≤ `max_len`): what to retransmit next.
    pub fn next_lost(&self, max_len: u64) -> Option<(u64, u64)> {
        if self.lost_bytes == 0 {
            return None;
        }
        self.segs.iter().find(|s| s.lost).map(|s| (s.start, s.len().min(max_len.max(1))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn t(ms: u64) -> Time {
        Time::ZERO + Duration::from_millis(ms)
    }

    /// Segments 0..n of MSS bytes (positions 1 + i·MSS) sent 1 ms apart from t = 0.
    fn sent(n: u64) -> Rack {
        let mut r = Rack::default();
        for i in 0..n {
            r.on_sent(1 + i * MSS, 1 + (i + 1) * MSS, t(i));
        }
        r
    }

    fn seg(i: u64) -> (u64, u64) {
        (1 + i * MSS, 1 + (i + 1) * MSS)
    }

    /// Linux's send times of an ACK (`ack_send_times`): `first_ackt` is the lowest cumulatively
    /// acknowledged never-retransmitted, not-yet-SACKed segment, and none at all if the ACK
    /// covers a retransmitted one (Karn, `FLAG_RETRANS_DATA_ACKED`); `first_sackt` the lowest
    /// newly SACKed never-retransmitted one, whatever the order of the blocks.
    #[test]
    fn ack_send_times_follow_first_ackt_and_first_sackt() {
        let mut r = sent(8);
        // Cumulative ACK of 0..2: segment 0 (sent at 0 ms) is the first.
        assert_eq!(r.ack_send_times(seg(2).0, &[]), AckSendTimes { first_ackt: Some(t(0)), first_sackt: None });
        // SACKs of 6 and of 3..4 (listed high block first): the lowest newly SACKed is 3.
        let times = r.ack_send_times(seg(0).0, &[seg(6), (seg(3).0, seg(4).1)]);
        assert_eq!(times, AckSendTimes { first_ackt: None, first_sackt: Some(t(3)) });
        r.on_ack(t(50), seg(0).0, &[seg(3), seg(4)]);
        // 3 and 4 are SACKed now: a cumulative ACK past them times segment 0, and re-SACKing
        // them gives no SACK sample; SACKed records below the ACK are skipped for first_ackt.
        assert_eq!(r.ack_send_times(seg(0).0, &[(seg(3).0, seg(4).1)]).first_sackt, None);
        assert_eq!(r.ack_send_times(seg(5).0, &[]).first_ackt, Some(t(0)));
        // Segment 1 resent at 60 ms: an ACK covering it gives no cumulative sample, even though
        // segment 0 below it was never resent; a new SACK still gives its sample.
        r.on_sent(seg(1).0, seg(1).1, t(60));
        let times = r.ack_send_times(seg(2).0, &[seg(6)]);
        assert_eq!(times, AckSendTimes { first_ackt: None, first_sackt: Some(t(6)) });
        // Resent data SACKed gives no SACK sample either.
        r.on_sent(seg(5).0, seg(5).1, t(61));
        assert_eq!(r.ack_send_times(seg(0).0, &[seg(5)]).first_sackt, None);
        // A partly acknowledged segment is not acknowledged.
        assert_eq!(r.ack_send_times(seg(0).0 + 10, &[]).first_ackt, None);
    }

    /// RFC 8985 §3.3.1's example: segments P1..P3 sent, P1 lost; the SACK of P3 (sent later)
    /// arrives one RTT after P3: P1 is deemed lost once RACK.rtt + reo_wnd has passed since it
    /// was sent — at once with reo_wnd = 0 (3 segments SACKed, no reordering seen), after the
    /// reordering window otherwise.
    #[test]
    fn loss_of_an_earlier_segment_is_detected_by_time() {
        let mut r = sent(3);
        assert_eq!(r.pipe(), 3 * MSS);
        // P2 and P3 SACKed at t = 102 (RTT 100 ms from P3).
        assert!(r.on_ack(t(102), 1, &[(seg(1).0, seg(2).1)]));
        assert_eq!(r.rtts(), (Duration::from_millis(100), Some(Duration::from_millis(100))));
        let wnd = r.reo_wnd(false, 3, Some(Duration::from_millis(100)));
        assert_eq!(wnd, Duration::from_millis(25), "2 SACKed < DupThresh: min_RTT/4");
        // P1 sent at 0: due at 0 + 100 + 25 = 125.
        assert_eq!(r.detect_loss(t(102), wnd), 0);
        assert_eq!(r.reo_timer(), Some(t(125)));
        assert_eq!(r.on_reo_timeout(t(125), wnd), 1);
        assert_eq!(r.next_lost(MSS), Some((1, MSS)));
        assert_eq!((r.lost_bytes(), r.pipe()), (MSS, 0));
        // In recovery (and with no reordering seen) the window is 0.
        assert_eq!(r.reo_wnd(true, 3, None), Duration::ZERO);
    }

    /// §3.3.3's rule: a segment delayed by less than the reordering window is not marked; its
    /// late delivery (below RACK.fack, never retransmitted) sets reordering_seen, after which
    /// the window stays min_RTT/4 even with DupThresh segments SACKed.
    #[test]
    fn reordering_within_the_window_is_not_marked_lost() {
        let mut r = sent(6);
        // Segments 1..=5 SACKed at 100..=104 ms (RTT 99 ms from each), 0 delayed by 20 ms.
        for i in 1..=5 {
            r.on_ack(t(99 + i), 1, &[(seg(1).0, seg(i).1)]);
            let wnd = r.reo_wnd(false, 3, Some(Duration::from_millis(99)));
            if i < 3 {
                assert_eq!(wnd, Duration::from_micros(24_750));
                assert_eq!(r.detect_loss(t(99 + i), wnd), 0);
            } else {
                // No reordering seen yet and 3 SACKed: the window is 0 and segment 0 is lost.
                assert_eq!(wnd, Duration::ZERO);
            }
        }
        // Segment 0 arrives (ACK of everything): it was never retransmitted and lies below
        // RACK.fack: reordering.
        let mut r = sent(6);
        r.on_ack(t(100), 1, &[seg(1)]);
        r.on_ack(t(101), 1, &[(seg(1).0, seg(2).1)]);
        assert!(!r.reordering_seen());
        r.on_ack(t(119), seg(2).1, &[]);
        assert!(r.reordering_seen());
        assert_eq!(r.stats().reordering_seen, 1);
        // Now 3 SACKed segments no longer shrink the window: segment 3 late by 10 ms (within
        // min_RTT/4 = 24.75 ms) is not marked while 4 and 5 are SACKed.
        r.on_ack(t(120), seg(2).1, &[(seg(4).0, seg(5).1)]);
        assert_eq!(r.rtts(), (Duration::from_millis(115), Some(Duration::from_millis(99))));
        let wnd = r.reo_wnd(false, 3, Some(Duration::from_millis(99)));
        assert_eq!(wnd, Duration::from_micros(24_750));
        assert_eq!(r.detect_loss(t(120), wnd), 0);
        assert_eq!(r.reo_timer(), Some(t(3) + Duration::from_millis(115) + wnd));
        r.on_ack(t(130), seg(5).1, &[]);
        assert_eq!((r.lost_bytes(), r.stats().marked_lost), (0, 0));
    }

    /// §3.3.2: a lost retransmission is detected like any loss, by its retransmission time,
    /// once a segment sent after it is delivered (no RTO).
    #[test]
    fn lost_retransmission_is_detected() {
        let mut r = sent(10);
        // Segment 0 lost; 1..=9 SACKed at 101..=109: marked lost with reo_wnd 0.
        r.on_ack(t(109), 1, &[(seg(1).0, seg(9).1)]);
        assert_eq!(r.detect_loss(t(109), r.reo_wnd(false, 3, None)), 1);
        // Retransmit it at 109 (the record is updated in place), send new data 10, 11 at 110, 111.
        r.on_sent(seg(0).0, seg(0).1, t(109));
        assert_eq!((r.lost_bytes(), r.pipe()), (0, MSS));
        r.on_sent(seg(10).0, seg(10).1, t(110));
        r.on_sent(seg(11).0, seg(11).1, t(111));
        // The retransmission is lost too; 10 and 11 are SACKed at 210, 211.
        r.on_ack(t(211), 1, &[(seg(1).0, seg(11).1)]);
        assert_eq!(r.detect_loss(t(211), r.reo_wnd(true, 3, None)), 1);
        assert_eq!(r.stats().lost_retransmissions, 1);
        assert_eq!(r.next_lost(MSS), Some((1, MSS)));
        // An RTT below min_RTT from a retransmission is the original's ACK: no sample.
        let mut r = sent(2);
        r.on_ack(t(100), seg(0).1, &[]);
        r.on_sent(seg(1).0, seg(1).1, t(150));
        r.on_ack(t(160), seg(1).1, &[]);
        assert_eq!(r.rtts(), (Duration::from_millis(100), Some(Duration::from_millis(100))));
    }

    #[test]
    fn partial_retransmission_splits_records_and_pipe_follows_marks() {
        let mut r = sent(4);
        r.on_rto();
        assert_eq!((r.lost_bytes(), r.pipe()), (4 * MSS, 0));
        // Resend the first half of segment 1 only.
        r.on_sent(seg(1).0, seg(1).0 + 500, t(300));
        assert_eq!(r.segments().len(), 5);
        assert_eq!((r.lost_bytes(), r.pipe()), (4 * MSS - 500, 500));
        assert_eq!(r.next_lost(MSS), Some((1, MSS)));
        // The cumulative ACK of half of segment 0 trims it.
        r.on_ack(t(301), 501, &[]);
        assert_eq!(r.segments()[0].start, 501);
        assert_eq!(r.lost_bytes(), 4 * MSS - 1000);
    }

    /// TLP episode bookkeeping (§7.4, Linux's reading): a new-data probe's ACK ends it with no
    /// inference; a retransmitted probe is a repaired loss when an ACK goes beyond it, and no
    /// loss when the probe drew a pure duplicate ACK.
    #[test]
    fn tlp_episode_outcomes() {
        let mut r = Rack::default();
        r.on_probe_sent(5000, false);
        assert!(!r.tlp_on_ack(4000, false));
        assert!(!r.tlp_on_ack(5000, false));
        assert_eq!(r.tlp_episode(), None);
        r.on_probe_sent(5000, true);
        assert!(!r.tlp_on_ack(5000, false), "ACK of the probe itself: undecided");
        assert!(r.tlp_episode().is_some());
        assert!(r.tlp_on_ack(6000, false), "beyond it: a loss was repaired");
        r.on_probe_sent(5000, true);
        assert!(!r.tlp_on_ack(5000, true), "duplicate ACK: both copies arrived");
        assert_eq!(r.tlp_episode(), None);
        assert_eq!((r.stats().tlp_probes, r.stats().tlp_new_data, r.stats().tlp_repaired), (3, 1, 1));
    }
}
