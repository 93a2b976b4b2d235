//! The SACK sender's scoreboard and the RFC 6675 §4 routines over it: `Update()`,
//! `IsLost()`, `SetPipe()` and `NextSeg()`.
//!
//! Positions are unwrapped sequence offsets (see [`super::seq::SeqSpace`]) and every range is
//! half-open `[start, end)`. The RFC counts octets inclusively ("HighRxt is the highest octet
//! retransmitted"); here [`Scoreboard::high_rxt`] is the position just *past* the highest
//! retransmitted octet, and `HighACK + 1` (the first unacknowledged octet) is
//! [`Scoreboard::high_ack`] itself.
//!
//! Memory is bounded: at most [`MAX_SACK_RANGES`] disjoint SACKed ranges, stored in a `Vec`
//! allocated once; adjacent or overlapping ranges merge. A block that would need a slot when
//! the list is full is ignored — that only makes the sender less informed (it may retransmit
//! SACKed data or detect a loss later), never wrong about what the receiver holds.
//!
//! Reneging (RFC 2018 §8) is not modelled: the model's receiver never discards data it has
//! SACKed, so the scoreboard is kept across a retransmission timeout (as Linux does; RFC 6675
//! §5.1 leaves this open) and SACKed data is never resent. The payload itself is only byte
//! counts, so "keeping data until it is cumulatively ACKed" costs nothing.
//! Rule 4 of `NextSeg()` (rescue retransmission) is not implemented.

/// Most disjoint SACKed ranges the scoreboard keeps.
pub const MAX_SACK_RANGES: usize = 32;

/// What `NextSeg()` (RFC 6675 §4) says to send next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Retransmit `len` bytes at `start` (rule 1: deemed lost; rule 3: not yet lost, but
    /// below the highest SACKed octet and not yet retransmitted).
    Retransmit {
        /// First position to resend.
        start: u64,
        /// Bytes to resend (at most one SMSS, never into a SACKed range).
        len: u64,
    },
    /// Rule 2: send new data at HighData (the caller checks that there is some and that the
    /// peer's receive window allows it).
    NewData,
}

/// SACK scoreboard of one sender (RFC 6675 §3–4).
#[derive(Clone, Debug)]
pub struct Scoreboard {
    /// Sorted, disjoint, non-adjacent SACKed ranges, all inside `[high_ack, high_data)`.
    ranges: Vec<(u64, u64)>,
    high_ack: u64,
    high_data: u64,
    high_rxt: u64,
    /// After an RTO every unSACKed octet below this is deemed lost (RFC 6675 §5.1).
    rto_lost_below: u64,
    smss: u64,
    dupthresh: u32,
}

impl Scoreboard {
    /// Empty scoreboard for segments of `smss` bytes and a DupThresh of `dupthresh`.
    pub fn new(smss: u32, dupthresh: u32) -> Self {
        Scoreboard {
            ranges: Vec::with_capacity(MAX_SACK_RANGES),
            high_ack: 0,
            high_data: 0,
            high_rxt: 0,
            rto_lost_below: 0,
            smss: smss.max(1) as u64,
            dupthresh: dupthresh.max(1),
        }
    }

    /// Set the sender MSS once the handshake fixed it.
    pub fn set_mss(&mut self, smss: u32) {
        self.smss = smss.max(1) as u64;
    }

    /// HighACK: the cumulative ACK point (first unacknowledged position).
    pub fn high_ack(&self) -> u64 {
        self.high_ack
    }

    /// HighData: the position just past the highest octet sent.
    pub fn high_data(&self) -> u64 {
        self.high_data
    }

    /// HighRxt: the position just past the highest octet retransmitted in this episode.
    pub fn high_rxt(&self) -> u64 {
        self.high_rxt
    }

    /// The SACKed ranges, in order.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Bytes SACKed above HighACK.
    pub fn sacked_bytes(&self) -> u64 {
        self.ranges.iter().map(|&(s, e)| e - s).sum()
    }

    /// True while RTO marking is active (unSACKed data below the RTO's HighData is lost).
    pub fn rto_marked(&self) -> bool {
        self.rto_lost_below > self.high_ack
    }

    /// `Update()` (RFC 6675 §4): a new ACK point and HighData, then the ACK's SACK blocks.
    /// Blocks entirely at or below HighACK (stale, or D-SACK) or reaching above HighData
    /// (never sent: bogus) are ignored. Returns true if any previously unSACKed octet is now
    /// SACKed — RFC 6675 §2's definition of a duplicate ACK.
    pub fn update(&mut self, high_ack: u64, high_data: u64, blocks: impl IntoIterator<Item = (u64, u64)>) -> bool {
        self.advance(high_ack, high_data);
        let before = self.sacked_bytes();
        for (s, e) in blocks {
            if e <= self.high_ack || e > self.high_data || s >= e {
                continue;
            }
            self.insert(s.max(self.high_ack), e);
        }
        self.sacked_bytes() > before
    }

    /// Move HighACK and HighData (no SACK information), dropping what is now cumulatively ACKed.
    pub fn advance(&mut self, high_ack: u64, high_data: u64) {
        self.high_data = self.high_data.max(high_data);
        if high_ack > self.high_ack {
            self.high_ack = high_ack;
            let i = self.ranges.partition_point(|&(_, e)| e <= high_ack);
            self.ranges.drain(..i);
            if let Some(first) = self.ranges.first_mut() {
                first.0 = first.0.max(high_ack);
            }
        }
        self.high_rxt = self.high_rxt.max(self.high_ack);
    }

    /// Record a retransmission of `[start, end)` (RFC 6675 §5 steps 3 and C.2).
    pub fn on_retransmit(&mut self, end: u64) {
        self.high_rxt = self.high_rxt.max(end);
    }

    /// Retransmission timeout (RFC 6675 §5.1): every unSACKed octet below HighData is deemed
    /// lost and HighRxt restarts at HighACK, so `NextSeg()` resends the holes from the
    /// bottom and skips SACKed data.
    pub fn on_rto(&mut self) {
        self.rto_lost_below = self.high_data;
        self.high_rxt = self.high_ack;
    }

    /// Start of a new recovery episode: nothing retransmitted yet (RFC 6675 §5 step 3 sets
    /// HighRxt from the first retransmission).
    pub fn start_recovery(&mut self) {
        self.high_rxt = self.high_ack;
    }

    /// `IsLost(seq)` (RFC 6675 §4): DupThresh discontiguous SACKed ranges above `seq`, or more
    /// than (DupThresh − 1)·SMSS SACKed bytes above it; or RTO marking covers it.
    pub fn is_lost(&self, seq: u64) -> bool {
        if seq < self.rto_lost_below && !self.is_sacked(seq) {
            return true;
        }
        let mut bytes = 0u64;
        let mut count = 0u32;
        for &(s, e) in self.ranges.iter().rev() {
            if e <= seq + 1 {
                break;
            }
            bytes += e - s.max(seq + 1);
            count += 1;
        }
        self.lost_by_sack(bytes, count)
    }

    fn lost_by_sack(&self, bytes_above: u64, ranges_above: u32) -> bool {
        ranges_above >= self.dupthresh || bytes_above > (self.dupthresh as u64 - 1) * self.smss
    }

    /// True if `seq` lies in a SACKed range.
    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.ranges.partition_point(|&(_, e)| e <= seq);
        self.ranges.get(i).is_some_and(|&(s, _)| s <= seq)
    }

    /// `SetPipe()` (RFC 6675 §4): over every unSACKed octet in `[HighACK, HighData)`, count
    /// one if it is not lost and one more if it was retransmitted (below HighRxt). Walks the
    /// holes from the top, where the SACKed bytes and ranges above a hole are the same for
    /// every octet in it.
    pub fn pipe(&self) -> u64 {
        let mut pipe = 0u64;
        let mut bytes_above = 0u64;
        let mut count_above = 0u32;
        let mut hole_end = self.high_data;
        for i in (0..=self.ranges.len()).rev() {
            let hole_start = if i == 0 { self.high_ack } else { self.ranges[i - 1].1 };
            if hole_start < hole_end {
                let lost_end = if self.lost_by_sack(bytes_above, count_above) {
                    hole_end
                } else {
                    self.rto_lost_below.clamp(hole_start, hole_end)
                };
                pipe += hole_end - lost_end; // not lost: still in the network
                pipe += self.high_rxt.clamp(hole_start, hole_end) - hole_start; // retransmitted
            }
            if i > 0 {
                let (s, e) = self.ranges[i - 1];
                bytes_above += e - s;
                count_above += 1;
                hole_end = s;
            }
        }
        pipe
    }

    /// `NextSeg()` (RFC 6675 §4) rules 1–3 for segments of at most `max_len` bytes;
    /// `new_data` says whether rule 2 may send new data (data queued, receive window open).
    pub fn next_seg(&self, max_len: u64, new_data: bool) -> Option<NextSeg> {
        // (1.a) the first unSACKed position at or above HighRxt (and HighACK).
        let mut c = self.high_rxt.max(self.high_ack);
        let i = self.ranges.partition_point(|&(_, e)| e <= c);
        if let Some(&(s, e)) = self.ranges.get(i) {
            if s <= c {
                c = e; // ranges are non-adjacent, so `e` itself is unSACKed
            }
        }
        let top = self.ranges.last().map_or(self.high_ack, |r| r.1);
        // (1.b) below the highest SACKed octet — or, after an RTO, below the marked point.
        let below_limit = c < top.max(self.rto_lost_below.min(self.high_data)) && c < self.high_data;
        let seg = || {
            let next_sacked = self.ranges.iter().map(|r| r.0).find(|&s| s > c).unwrap_or(self.high_data);
            NextSeg::Retransmit { start: c, len: max_len.max(1).min(next_sacked - c).min(self.high_data - c) }
        };
        if below_limit && self.is_lost(c) {
            return Some(seg()); // rule 1
        }
        if new_data {
            return Some(NextSeg::NewData); // rule 2
        }
        if below_limit && c < top {
            return Some(seg()); // rule 3
        }
        None
    }

    /// Bytes from `pos` up to the next SACKed range (or HighData), at most `max`.
    pub fn unsacked_run(&self, pos: u64, max: u64) -> u64 {
        let next = self.ranges.iter().map(|r| r.0).find(|&s| s > pos).unwrap_or(self.high_data);
        max.min(next.saturating_sub(pos))
    }

    /// Add a SACKed range, merging; ignored if it needs a new slot and the list is full.
    fn insert(&mut self, start: u64, end: u64) {
        let i = self.ranges.partition_point(|&(_, e)| e < start);
        let j = i + self.ranges[i..].partition_point(|&(s, _)| s <= end);
        if i == j {
            if self.ranges.len() < MAX_SACK_RANGES {
                self.ranges.insert(i, (start, end));
            }
        } else {
            let s = start.min(self.ranges[i].0);
            let e = end.max(self.ranges[j - 1].1);
            self.ranges[i] = (s, e);
            self.ranges.drain(i + 1..j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Ten segments of 1000 bytes outstanding: positions [0, 10000).
    fn board(sacked_segments: &[u64]) -> Scoreboard {
        let mut sb = Scoreboard::new(MSS as u32, 3);
        sb.update(0, 10 * MSS, sacked_segments.iter().map(|&k| (k * MSS, (k + 1) * MSS)));
        sb
    }

    #[test]
    fn update_merges_clips_and_reports_new_information() {
        let mut sb = Scoreboard::new(1000, 3);
        assert!(sb.update(0, 10_000, [(2000, 3000)]));
        assert!(!sb.update(0, 10_000, [(2000, 3000)]), "same block again: not a dup ACK");
        assert!(sb.update(0, 10_000, [(3000, 4000), (6000, 7000)]));
        assert_eq!(sb.ranges(), &[(2000, 4000), (6000, 7000)]);
        // Below HighACK (D-SACK-like) and above HighData (never sent) are ignored.
        assert!(!sb.update(1000, 10_000, [(0, 1000), (9000, 11_000)]));
        // The cumulative ACK passes the first range.
        assert!(!sb.update(4000, 10_000, []));
        assert_eq!(sb.ranges(), &[(6000, 7000)]);
        assert_eq!(sb.high_ack(), 4000);
        assert_eq!(sb.high_rxt(), 4000);
    }

    #[test]
    fn bounded_number_of_ranges() {
        let mut sb = Scoreboard::new(1000, 3);
        let cap = sb.ranges.capacity();
        for k in 0..(2 * MAX_SACK_RANGES as u64) {
            sb.update(0, 1_000_000, [(2000 * k + 1000, 2000 * k + 2000)]);
        }
        assert_eq!(sb.ranges().len(), MAX_SACK_RANGES);
        assert_eq!(sb.ranges.capacity(), cap);
    }

    #[test]
    fn is_lost_by_bytes_and_by_discontiguous_ranges() {
        // Segments 2, 3 SACKed: 2·SMSS above 0 is not more than (3−1)·SMSS.
        let sb = board(&[2, 3]);
        assert!(!sb.is_lost(0));
        // Segments 2, 3, 4: 3000 > 2000 bytes above positions 0..2000.
        let sb = board(&[2, 3, 4]);
        assert!(sb.is_lost(0) && sb.is_lost(1999));
        assert!(!sb.is_lost(5000));
        // Three small discontiguous ranges (RFC 6675 §4: DupThresh discontiguous SACKed
        // sequences) mark loss although they hold fewer than 2·SMSS bytes.
        let mut sb = Scoreboard::new(1000, 3);
        sb.update(0, 10_000, [(1000, 1100), (2000, 2100), (3000, 3100)]);
        assert!(sb.is_lost(500));
        assert!(!sb.is_lost(1500));
    }

    #[test]
    fn pipe_and_next_seg_single_hole() {
        // RFC 6675 example: segment 0 lost, 1..=3 SACKed (three dup ACKs); 10 outstanding.
        let mut sb = board(&[1, 2, 3]);
        // Hole 0 is lost (not counted); 4..10 are unSACKed and not lost: 6 segments.
        assert_eq!(sb.pipe(), 6 * MSS);
        sb.start_recovery();
        // Rule 1: retransmit the lost hole.
        assert_eq!(sb.next_seg(MSS, true), Some(NextSeg::Retransmit { start: 0, len: MSS }));
        sb.on_retransmit(MSS);
        assert_eq!(sb.pipe(), 7 * MSS, "the retransmission counts once");
        // Nothing else is lost: rule 2 (new data) if there is some, else none (no rule 3:
        // nothing unSACKed below the highest SACK that was not retransmitted).
        assert_eq!(sb.next_seg(MSS, true), Some(NextSeg::NewData));
        assert_eq!(sb.next_seg(MSS, false), None);
        // More dup ACKs SACK 4 and 5: pipe shrinks by one SMSS each.
        sb.update(0, 10 * MSS, [(4 * MSS, 6 * MSS)]);
        assert_eq!(sb.pipe(), 5 * MSS);
    }

    #[test]
    fn pipe_and_next_seg_several_holes() {
        // Holes at 0, 2, 5; SACKed 1, 3, 4, 6, 7, 8; 9 unSACKed and not lost.
        let mut sb = board(&[1, 3, 4, 6, 7, 8]);
        // Above hole 5: 3 SACKed → lost. Above 2: 5 → lost. Above 0: 6 → lost.
        assert!(sb.is_lost(0) && sb.is_lost(2 * MSS) && sb.is_lost(5 * MSS) && !sb.is_lost(9 * MSS));
        assert_eq!(sb.pipe(), MSS);
        sb.start_recovery();
        let mut sent = Vec::new();
        while let Some(NextSeg::Retransmit { start, len }) = sb.next_seg(MSS, false) {
            sent.push(start / MSS);
            assert_eq!(len, MSS, "never into a SACKed range");
            sb.on_retransmit(start + len);
        }
        assert_eq!(sent, vec![0, 2, 5], "every hole once, lowest first");
        assert_eq!(sb.pipe(), 4 * MSS);
        // The cumulative ACK for hole 0 arrives: HighRxt stays, pipe drops one segment.
        sb.update(MSS, 10 * MSS, []);
        assert_eq!(sb.pipe(), 3 * MSS);
    }

    #[test]
    fn rule_three_retransmits_unlost_hole_below_highest_sack() {
        // Segment 0 unSACKed, 1 and 2 SACKed: not lost (only 2·SMSS above), no new data.
        let mut sb = board(&[1, 2]);
        assert_eq!(sb.pipe(), 8 * MSS);
        assert_eq!(sb.next_seg(MSS, true), Some(NextSeg::NewData), "rule 2 before rule 3");
        assert_eq!(sb.next_seg(MSS, false), Some(NextSeg::Retransmit { start: 0, len: MSS }));
        sb.on_retransmit(MSS);
        assert_eq!(sb.next_seg(MSS, false), None);
        assert_eq!(sb.pipe(), 9 * MSS, "a not-lost retransmitted octet counts twice");
    }

    #[test]
    fn rto_marks_unsacked_data_lost_and_skips_sacked() {
        // Segments 3 and 7 SACKed; an RTO: every other segment below HighData is lost.
        let mut sb = board(&[3, 7]);
        sb.on_retransmit(2 * MSS); // retransmissions before the timeout are forgotten
        sb.on_rto();
        assert!(sb.rto_marked());
        assert_eq!(sb.pipe(), 0);
        let mut sent = Vec::new();
        while let Some(NextSeg::Retransmit { start, len }) = sb.next_seg(MSS, false) {
            sent.push((start, len));
            sb.on_retransmit(start + len);
        }
        let segs: Vec<u64> = sent.iter().map(|s| s.0 / MSS).collect();
        assert_eq!(segs, vec![0, 1, 2, 4, 5, 6, 8, 9]);
        assert_eq!(sb.pipe(), 8 * MSS);
        // The cumulative ACK reaches the RTO's HighData: marking ends.
        sb.update(10 * MSS, 10 * MSS, []);
        assert!(!sb.rto_marked());
        assert_eq!(sb.pipe(), 0);
    }
}
