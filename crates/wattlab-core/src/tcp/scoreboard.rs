//! The SACK sender's scoreboard and the RFC 6675 §4 routines over it: `Update()`,
//! `IsLost()`, `SetPipe()` and `NextSeg()`.
//!
//! Positions are unwrapped sequence offsets (see [`super::seq::SeqSpace`]) and every range is
//! half-open `[start, end)`. The RFC counts octets inclusively ("HighRxt is the highest octet
//! retransmitted"); here [`Scoreboard::high_rxt`] is the position just *past* the highest
//! retransmitted octet, and `HighACK + 1` (the first unacknowledged octet) is
//! [`Scoreboard::high_ack`] itself.
//!
//! The SACKed ranges are sorted, disjoint and merged when adjacent or overlapping, in a `Vec`
//! allocated once with room for [`MAX_SACK_RANGES`]. How many it keeps is the option
//! `ooo_limit` ([`super::ooo_limit`]): with `ranges32` (the default) at most
//! [`MAX_SACK_RANGES`], and a block that would need a slot when the list is full is ignored —
//! that only makes the sender less informed (it may retransmit SACKed data or detect a loss
//! later), never wrong about what the receiver holds. With `rcvbuf` there is no count limit,
//! as Linux's scoreboard is the retransmit queue itself (a `sacked` flag per skb,
//! `tcp_sacktag_write_queue`); the list then grows (doubling) only when the flight holds more
//! ranges than ever before. The SACKed byte total is kept as the ranges change, and every
//! lookup is a binary search; `IsLost()` stops at DupThresh ranges or bytes, so only
//! `SetPipe()` walks every range.
//!
//! Reneging (RFC 2018 §8): a `ranges32` receiver never discards data it has SACKed, so the
//! scoreboard is kept across a retransmission timeout (as Linux does; RFC 6675 §5.1 leaves
//! this open) and SACKed data is never resent. An `rcvbuf` receiver may prune SACKed data;
//! the connection then detects it as Linux does and calls [`Scoreboard::clear_sacked`] at the
//! timeout (`connection/sack.rs`). The payload itself is only byte counts, so "keeping data
//! until it is cumulatively ACKed" costs nothing.
//! Rule 4 of `NextSeg()` (rescue retransmission) is not implemented.

/// Most disjoint SACKed ranges the scoreboard keeps with `ooo_limit = "ranges32"`.
pub const MAX_SACK_RANGES: usize = super::ooo_limit::RANGES32;

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
    /// Bytes in `ranges`.
    sacked: u64,
    /// Most ranges kept (`ooo_limit`).
    max_ranges: usize,
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
            sacked: 0,
            max_ranges: MAX_SACK_RANGES,
            high_ack: 0,
            high_data: 0,
            high_rxt: 0,
            rto_lost_below: 0,
            smss: smss.max(1) as u64,
            dupthresh: dupthresh.max(1),
        }
    }

    /// How many ranges to keep (`ooo_limit`; [`MAX_SACK_RANGES`] until set).
    pub fn set_ooo_limit(&mut self, limit: super::ooo_limit::OooLimit) {
        self.max_ranges = limit.scoreboard_ranges();
    }

    /// Forget every SACKed range: the receiver reneged (Linux's `tcp_timeout_mark_lost` with
    /// `is_reneg`, which clears every skb's SACKED_ACKED flag at the timeout).
    pub fn clear_sacked(&mut self) {
        self.ranges.clear();
        self.sacked = 0;
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
        self.sacked
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
        let before = self.sacked;
        for (s, e) in blocks {
            if e <= self.high_ack || e > self.high_data || s >= e {
                continue;
            }
            self.insert(s.max(self.high_ack), e);
        }
        self.sacked > before
    }

    /// Move HighACK and HighData (no SACK information), dropping what is now cumulatively ACKed.
    pub fn advance(&mut self, high_ack: u64, high_data: u64) {
        self.high_data = self.high_data.max(high_data);
        if high_ack > self.high_ack {
            self.high_ack = high_ack;
            let i = self.ranges.partition_point(|&(_, e)| e <= high_ack);
            self.sacked -= self.ranges[..i].iter().map(|&(s, e)| e - s).sum::<u64>();
            self.ranges.drain(..i);
            if let Some(first) = self.ranges.first_mut() {
                let s = first.0.max(high_ack);
                self.sacked -= s - first.0;
                first.0 = s;
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
    /// than (DupThresh − 1)·SMSS SACKed bytes above it; or RTO marking covers it. Walks down
    /// from the highest range and stops as soon as either threshold is passed.
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
            if self.lost_by_sack(bytes, count) {
                return true;
            }
        }
        false
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
            let next_sacked = self.next_sacked_start(c);
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
        max.min(self.next_sacked_start(pos).saturating_sub(pos))
    }

    /// Start of the first SACKed range beginning after `pos`, or HighData.
    fn next_sacked_start(&self, pos: u64) -> u64 {
        let i = self.ranges.partition_point(|&(s, _)| s <= pos);
        self.ranges.get(i).map_or(self.high_data, |r| r.0)
    }

    /// Add a SACKed range, merging; ignored if it needs a new slot and the list is full.
    fn insert(&mut self, start: u64, end: u64) {
        let i = self.ranges.partition_point(|&(_, e)| e < start);
        let j = i + self.ranges[i..].partition_point(|&(s, _)| s <= end);
        if i == j {
            if self.ranges.len() < self.max_ranges {
                self.ranges.insert(i, (start, end));
                self.sacked += end - start;
            }
        } else {
            let s = start.min(self.ranges[i].0);
            let e = end.max(self.ranges[j - 1].1);
            let absorbed: u64 = self.ranges[i..j].iter().map(|&(s, e)| e - s).sum();
            self.sacked += (e - s) - absorbed;
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

    /// `ooo_limit = rcvbuf`: 100 holes in a 200-segment flight, every other segment SACKed:
    /// the scoreboard keeps all 100 ranges (Linux's scoreboard is the retransmit queue),
    /// deems the holes lost, and `NextSeg()` resends each hole once and nothing SACKed.
    /// With the 32-range bound the blocks above the 32nd range are ignored, so the sender
    /// knows of only 32 holes.
    #[test]
    fn unbounded_scoreboard_keeps_a_hundred_holes() {
        let run = |limit: super::super::ooo_limit::OooLimit| {
            let mut sb = Scoreboard::new(MSS as u32, 3);
            sb.set_ooo_limit(limit);
            // One ACK per SACKed segment, as a receiver sends them (newest block first).
            for k in 0..100u64 {
                sb.update(0, 200 * MSS, [((2 * k + 1) * MSS, (2 * k + 2) * MSS)]);
            }
            sb.start_recovery();
            let mut sent = Vec::new();
            while let Some(NextSeg::Retransmit { start, len }) = sb.next_seg(MSS, false) {
                assert_eq!(len, MSS);
                sent.push(start / MSS);
                sb.on_retransmit(start + len);
            }
            (sb, sent)
        };
        let (sb, sent) = run(super::super::ooo_limit::OooLimit::Rcvbuf);
        assert_eq!(sb.ranges().len(), 100);
        assert_eq!(sb.sacked_bytes(), 100 * MSS);
        assert_eq!(sent, (0..100).map(|k| 2 * k).collect::<Vec<_>>(), "every hole once, lowest first");
        // Holes 0..=194 are lost and resent (once in flight each); 196 and 198 have fewer
        // than DupThresh ranges above them, so they count as in flight and again as resent
        // (rule 3): pipe = 98 + 2·2 segments, no SACKed byte.
        assert!(!sb.is_lost(196 * MSS) && sb.is_lost(194 * MSS));
        assert_eq!(sb.pipe(), 102 * MSS);
        let (sb, sent) = run(super::super::ooo_limit::OooLimit::Ranges32);
        assert_eq!(sb.ranges().len(), MAX_SACK_RANGES);
        // Blind above the 32nd range: only the 32 holes below it are known to resend now.
        assert_eq!(sent, (0..32).map(|k| 2 * k).collect::<Vec<_>>());
    }

    /// The running SACKed-byte total, the binary-searched lookups and the early-exit
    /// `IsLost()` agree with straightforward recomputation over pseudo-random updates,
    /// advances, timeouts and retransmissions, bounded and unbounded.
    #[test]
    fn running_totals_and_searches_match_a_recount() {
        use super::super::ooo_limit::OooLimit;
        for limit in [OooLimit::Ranges32, OooLimit::Rcvbuf] {
            let mut sb = Scoreboard::new(MSS as u32, 3);
            sb.set_ooo_limit(limit);
            let mut x: u64 = 0xD1B5_4A32_D192_ED03;
            let (mut ack, mut data) = (0u64, 0u64);
            for step in 0..20_000u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                data += x % 3000;
                if x % 7 == 0 {
                    ack = (ack + x % 5000).min(data);
                }
                let s = ack + (x >> 8) % 300_000;
                let e = s + 1 + (x >> 30) % 4000;
                sb.update(ack, data, [(s, e), (s / 2, s / 2 + 700)]);
                if step % 1000 == 0 {
                    sb.on_rto();
                }
                if x % 11 == 0 {
                    if let Some(NextSeg::Retransmit { start, len }) = sb.next_seg(MSS, false) {
                        sb.on_retransmit(start + len);
                    }
                }
                assert_eq!(sb.sacked_bytes(), sb.ranges().iter().map(|&(s, e)| e - s).sum::<u64>());
                assert!(sb.ranges().len() <= limit.scoreboard_ranges());
                let p = ack + (x >> 12) % 300_000;
                let next = sb.ranges().iter().map(|r| r.0).find(|&s| s > p).unwrap_or(sb.high_data());
                assert_eq!(sb.unsacked_run(p, 1 << 40), next.saturating_sub(p));
                let (mut bytes, mut count) = (0u64, 0u32);
                for &(s, e) in sb.ranges().iter().filter(|r| r.1 > p + 1) {
                    bytes += e - s.max(p + 1);
                    count += 1;
                }
                let lost = (p < sb.rto_lost_below && !sb.is_sacked(p)) || count >= 3 || bytes > 2 * MSS;
                assert_eq!(sb.is_lost(p), lost);
            }
        }
    }

    #[test]
    fn clear_sacked_forgets_every_range() {
        let mut sb = board(&[2, 3, 5]);
        assert_eq!(sb.sacked_bytes(), 3 * MSS);
        sb.clear_sacked();
        assert!(sb.ranges().is_empty());
        assert_eq!((sb.sacked_bytes(), sb.pipe()), (0, 10 * MSS));
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
