//! Out-of-order receive queue: a sorted list of disjoint byte ranges (payload by length only).
//!
//! How it is bounded is the option `ooo_limit` ([`super::ooo_limit`]):
//! - [`Reassembly::insert`] (`ranges32`): at most [`MAX_RANGES`] ranges in a list preallocated
//!   with that capacity, which never grows. A range that would need a new slot when it is
//!   full is dropped (the sender will retransmit it).
//! - [`Reassembly::insert_bounded`] (`rcvbuf`, Linux's `tcp_data_queue_ofo`): bounded by the
//!   receive buffer's bytes. A segment that does not fit first prunes held data above it,
//!   from the highest sequence down (`tcp_prune_ofo_queue`), and is dropped if that is not
//!   enough. The list starts with the same capacity and grows (doubling) only when a
//!   connection holds more ranges than ever before: no allocation in steady state.
//!
//! For SACK (RFC 2018 §4) the queue also remembers which ranges were most recently added to,
//! as a fixed array of representative positions (newest first): the first SACK block must
//! contain the segment that triggered the ACK and the following ones repeat the most recently
//! reported blocks. With `ranges32` held ranges are never discarded before they are
//! delivered, so the receiver never reneges on a SACK; with `rcvbuf` a prune discards SACKed
//! data (RFC 2018 §8 allows it, Linux does it) and forgets the recency, as Linux's
//! `tcp_sack_reset`.
//!
//! Every operation is a binary search plus a move of the list's tail (`Vec::insert`/`drain`):
//! O(log n + n) per segment with n ranges, never a walk per range per segment.

/// Most disjoint out-of-order ranges kept.
pub const MAX_RANGES: usize = 32;
/// Ranges whose recency is remembered: the most SACK blocks one ACK can carry (RFC 2018 §3).
pub const RECENT_RANGES: usize = crate::packet::MAX_SACK_BLOCKS;

/// Sorted, disjoint, non-adjacent half-open ranges `[start, end)` of unwrapped positions.
#[derive(Clone, Debug)]
pub struct Reassembly {
    ranges: Vec<(u64, u64)>,
    /// One position inside each recently added-to range, newest first; distinct ranges only.
    recent: [u64; RECENT_RANGES],
    recent_len: usize,
    /// Bytes held: the sum of the ranges' lengths.
    held: u64,
}

/// What [`Reassembly::insert_bounded`] did with a segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoundedInsert {
    /// The segment's data is held (false: dropped for lack of room).
    pub held: bool,
    /// Held bytes discarded from above the segment to make room (0: no prune).
    pub pruned: u64,
}

impl Default for Reassembly {
    fn default() -> Self {
        Reassembly { ranges: Vec::with_capacity(MAX_RANGES), recent: [0; RECENT_RANGES], recent_len: 0, held: 0 }
    }
}

impl Reassembly {
    /// True if no out-of-order data is held.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The held ranges, in order.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.held
    }

    /// Add `[start, end)`, merging with overlapping or adjacent ranges; the range now holding
    /// it becomes the most recent one. Returns false if it was dropped for lack of space.
    pub fn insert(&mut self, start: u64, end: u64) -> bool {
        if start >= end {
            return true;
        }
        if !self.insert_range(start, end) {
            return false;
        }
        self.touch(start);
        true
    }

    /// Add `[start, end)` to a queue bounded by bytes (option `rcvbuf`, Linux 6.18's
    /// `tcp_data_queue_ofo` → `tcp_try_rmem_schedule`): it is held if afterwards the held
    /// bytes are at most `budget` (the receive buffer less the in-order data not yet read:
    /// Linux's `tcp_can_ingest`, rmem + len ≤ rcvbuf) and a new range finds one of
    /// `max_ranges` slots. Otherwise held data *above* the segment is pruned from the highest
    /// sequence down, in rounds of at least `goal` bytes (Linux: `sk_rcvbuf >> 3`), until the
    /// segment fits or nothing above it is left (`tcp_prune_ofo_queue`, which never prunes
    /// below the incoming segment); if it still does not fit it is dropped. A prune forgets
    /// the SACK recency (`tcp_sack_reset`). The model holds bytes, not skbs, so a prune
    /// frees exactly the goal's bytes where Linux frees whole skbs until the goal is reached.
    pub fn insert_bounded(&mut self, start: u64, end: u64, budget: u64, max_ranges: usize, goal: u64) -> BoundedInsert {
        if start >= end {
            return BoundedInsert { held: true, pruned: 0 };
        }
        let (i, j) = self.span(start, end);
        let mut pruned = 0;
        while !self.fits(i, j, start, end, budget, max_ranges) && self.ranges.len() > j {
            pruned += self.prune_top(j, goal.max(1));
        }
        if pruned > 0 {
            self.recent_len = 0; // tcp_sack_reset: the SACK blocks start afresh
        }
        if !self.fits(i, j, start, end, budget, max_ranges) {
            return BoundedInsert { held: false, pruned };
        }
        self.merge(i, j, start, end);
        self.touch(start);
        BoundedInsert { held: true, pruned }
    }

    /// Ranges `i..j` overlap or touch `[start, end)` (`i == j`: it needs a slot at `i`).
    fn span(&self, start: u64, end: u64) -> (usize, usize) {
        // First range whose end reaches `start` (could merge with us).
        let i = self.ranges.partition_point(|&(_, e)| e < start);
        (i, i + self.ranges[i..].partition_point(|&(s, _)| s <= end))
    }

    /// Bytes the queue would hold with `[start, end)` merged into ranges `i..j`.
    fn held_with(&self, i: usize, j: usize, start: u64, end: u64) -> u64 {
        if i == j {
            return self.held + (end - start);
        }
        let absorbed: u64 = self.ranges[i..j].iter().map(|&(s, e)| e - s).sum();
        let merged = end.max(self.ranges[j - 1].1) - start.min(self.ranges[i].0);
        self.held - absorbed + merged
    }

    /// `[start, end)` merged into ranges `i..j` stays within `budget` bytes and `max_ranges`.
    fn fits(&self, i: usize, j: usize, start: u64, end: u64, budget: u64, max_ranges: usize) -> bool {
        self.held_with(i, j, start, end) <= budget && (i < j || self.ranges.len() < max_ranges)
    }

    /// One pruning round: discard `goal` bytes (or all there is) from the top, never below
    /// range `keep`. Returns the bytes discarded.
    fn prune_top(&mut self, keep: usize, goal: u64) -> u64 {
        let mut freed = 0;
        while freed < goal && self.ranges.len() > keep {
            let last = self.ranges.len() - 1;
            let (s, e) = self.ranges[last];
            let take = (e - s).min(goal - freed);
            if take == e - s {
                self.ranges.pop();
            } else {
                self.ranges[last].1 = e - take;
            }
            freed += take;
        }
        self.held -= freed;
        freed
    }

    /// Up to `out.len()` held ranges in SACK order (RFC 2018 §4): the most recently added-to
    /// range first, then the other recently added-to ones, then the rest from the lowest
    /// (which the sender most needs to hear about). Returns how many were written.
    pub fn sack_blocks(&self, out: &mut [(u64, u64)]) -> usize {
        let mut n = 0;
        for &p in &self.recent[..self.recent_len] {
            if n == out.len() {
                return n;
            }
            if let Some(r) = self.containing(p) {
                out[n] = r;
                n += 1;
            }
        }
        for &r in &self.ranges {
            if n == out.len() {
                break;
            }
            if !out[..n].contains(&r) {
                out[n] = r;
                n += 1;
            }
        }
        n
    }

    /// The held range containing `pos`.
    fn containing(&self, pos: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|&(_, e)| e <= pos);
        self.ranges.get(i).copied().filter(|&(s, _)| s <= pos)
    }

    /// Make the range containing `pos` the most recent; forget entries it absorbed.
    fn touch(&mut self, pos: u64) {
        let Some((s, e)) = self.containing(pos) else { return };
        let mut k = 0;
        for i in 0..self.recent_len {
            let p = self.recent[i];
            if p < s || p >= e {
                self.recent[k] = p;
                k += 1;
            }
        }
        let keep = k.min(RECENT_RANGES - 1);
        self.recent.copy_within(0..keep, 1);
        self.recent[0] = pos;
        self.recent_len = keep + 1;
    }

    fn insert_range(&mut self, start: u64, end: u64) -> bool {
        let (i, j) = self.span(start, end);
        if i == j && self.ranges.len() >= MAX_RANGES {
            return false;
        }
        self.merge(i, j, start, end);
        true
    }

    /// Put `[start, end)` into the list: a new range at `i` if `i == j`, else merged with
    /// ranges `i..j` (which overlap or touch it).
    fn merge(&mut self, i: usize, j: usize, start: u64, end: u64) {
        self.held = self.held_with(i, j, start, end);
        if i == j {
            self.ranges.insert(i, (start, end));
        } else {
            let s = start.min(self.ranges[i].0);
            let e = end.max(self.ranges[j - 1].1);
            self.ranges[i] = (s, e);
            self.ranges.drain(i + 1..j);
        }
    }

    /// Remove and return the end of the range that begins at or before `pos` (data now
    /// contiguous with the in-order stream); ranges entirely below `pos` are discarded.
    pub fn pop_contiguous(&mut self, pos: u64) -> Option<u64> {
        let mut out = None;
        let k = self.ranges.partition_point(|&(s, _)| s <= pos);
        for &(s, e) in &self.ranges[..k] {
            self.held -= e - s;
            if e > pos {
                out = Some(e.max(out.unwrap_or(0)));
            }
        }
        self.ranges.drain(..k);
        // Delivered data leaves the recency list (the SACK blocks must be above the ACK).
        let mut k = 0;
        for i in 0..self.recent_len {
            if self.recent[i] >= pos && self.containing(self.recent[i]).is_some() {
                self.recent[k] = self.recent[i];
                k += 1;
            }
        }
        self.recent_len = k;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_and_pops() {
        let mut r = Reassembly::default();
        assert!(r.insert(10, 20));
        assert!(r.insert(30, 40));
        assert!(r.insert(20, 25)); // adjacent: merges
        assert_eq!(r.ranges(), &[(10, 25), (30, 40)]);
        assert!(r.insert(5, 35)); // bridges both
        assert_eq!(r.ranges(), &[(5, 40)]);
        assert_eq!(r.pop_contiguous(3), None);
        assert_eq!(r.pop_contiguous(5), Some(40));
        assert!(r.is_empty());
    }

    #[test]
    fn sack_order_most_recent_first() {
        let mut r = Reassembly::default();
        let mut out = [(0, 0); 4];
        assert_eq!(r.sack_blocks(&mut out), 0);
        r.insert(10, 20);
        r.insert(30, 40);
        r.insert(50, 60);
        assert_eq!(r.sack_blocks(&mut out[..3]), 3);
        assert_eq!(out[..3], [(50, 60), (30, 40), (10, 20)]);
        r.insert(20, 25); // extends the first range: it becomes the most recent
        assert_eq!(r.sack_blocks(&mut out[..2]), 2);
        assert_eq!(out[..2], [(10, 25), (50, 60)]);
        r.insert(25, 30); // bridges two ranges: one block, absorbed entries forgotten
        assert_eq!(r.sack_blocks(&mut out), 2);
        assert_eq!(out[..2], [(10, 40), (50, 60)]);
        for k in 0..6u64 {
            r.insert(100 + 10 * k, 105 + 10 * k);
        }
        // Newest four first, then the lowest other one.
        assert_eq!(r.sack_blocks(&mut out), 4);
        assert_eq!(out, [(150, 155), (140, 145), (130, 135), (120, 125)]);
        assert_eq!(r.pop_contiguous(10), Some(40));
        assert!(r.recent[..r.recent_len].iter().all(|&p| p >= 40));
    }

    /// Recomputes what the running byte count must say.
    fn sum(r: &Reassembly) -> u64 {
        r.ranges().iter().map(|&(s, e)| e - s).sum()
    }

    const BIG: u64 = 1 << 40;

    /// `rcvbuf`: 100 holes in a window are 100 held ranges (where `ranges32` keeps 32 and
    /// drops the rest); the SACK blocks are the most recently added-to ranges, newest first
    /// (RFC 2018 §4), and filling the holes delivers everything.
    #[test]
    fn rcvbuf_keeps_a_hundred_holes_and_reports_the_newest_first() {
        let mut r = Reassembly::default();
        let mut textbook = Reassembly::default();
        let cap = r.ranges.capacity();
        // Segments of 100 B at 100·k; every second one lost: ranges [200k+100, 200k+200).
        for k in 0..100u64 {
            let (s, e) = (200 * k + 100, 200 * k + 200);
            assert_eq!(r.insert_bounded(s, e, BIG, usize::MAX, BIG), BoundedInsert { held: true, pruned: 0 });
            assert_eq!(textbook.insert(s, e), k < MAX_RANGES as u64, "ranges32 drops the 33rd range on");
        }
        assert_eq!(r.ranges().len(), 100);
        assert_eq!((r.bytes(), sum(&r)), (100 * 100, 100 * 100));
        assert!(r.ranges.capacity() > cap, "grew past the preallocated 32");
        assert_eq!(textbook.ranges().len(), MAX_RANGES);
        let mut out = [(0, 0); 4];
        assert_eq!(r.sack_blocks(&mut out), 4);
        assert_eq!(out, [(19_900, 20_000), (19_700, 19_800), (19_500, 19_600), (19_300, 19_400)]);
        // Filling hole 50 (bytes 10_000..10_100) bridges ranges 49 and 50: that range first.
        r.insert_bounded(10_000, 10_100, BIG, usize::MAX, BIG);
        assert_eq!(r.sack_blocks(&mut out), 4);
        assert_eq!(out, [(9_900, 10_200), (19_900, 20_000), (19_700, 19_800), (19_500, 19_600)]);
        assert_eq!(r.ranges().len(), 99);
        // Fill every hole from the bottom: each pops the next range.
        let mut next = 0u64;
        for k in 0..100u64 {
            let (s, e) = (200 * k, 200 * k + 100);
            if s < next {
                continue;
            }
            assert_eq!(s, next);
            next = r.pop_contiguous(e).unwrap_or(e);
            assert_eq!(r.bytes(), sum(&r));
        }
        assert_eq!(next, 20_000);
        assert!(r.is_empty() && r.bytes() == 0);
    }

    /// Linux's `tcp_prune_ofo_queue`: a segment that does not fit the buffer prunes held data
    /// above it from the highest sequence down, a goal's worth per round, never below it;
    /// the prune forgets the SACK recency (`tcp_sack_reset`).
    #[test]
    fn rcvbuf_prunes_from_the_highest_sequence_when_the_buffer_is_exceeded() {
        let mut r = Reassembly::default();
        // 10 ranges of 100 B at 1000 + 200k: 1000 B held, the buffer's budget exactly.
        for k in 0..10u64 {
            assert!(r.insert_bounded(1000 + 200 * k, 1100 + 200 * k, 1000, usize::MAX, 125).held);
        }
        assert_eq!(r.bytes(), 1000);
        // 100 B more at the bottom: 100 B must go; the goal is 125 B (buffer / 8), so the top
        // range (100 B) and 25 B of the one below it are pruned.
        let got = r.insert_bounded(500, 600, 1000, usize::MAX, 125);
        assert_eq!(got, BoundedInsert { held: true, pruned: 125 });
        assert_eq!(r.ranges().first(), Some(&(500, 600)));
        assert_eq!(r.ranges().last(), Some(&(2600, 2675)), "pruned from the top");
        assert_eq!((r.ranges().len(), r.bytes(), sum(&r)), (10, 975, 975));
        let mut out = [(0, 0); 4];
        assert_eq!(r.sack_blocks(&mut out), 4);
        assert_eq!(out[0], (500, 600), "recency restarted with the segment that triggered the ACK");
        assert_eq!(out[1..], [(1000, 1100), (1200, 1300), (1400, 1500)], "then from the lowest");
        // A segment above all held data cannot prune anything below it: dropped.
        let got = r.insert_bounded(5000, 5200, 1000, usize::MAX, 125);
        assert_eq!(got, BoundedInsert { held: false, pruned: 0 });
        // Nor one that needs more than everything above it (90 B into a 950 B budget with
        // 975 B held and 75 B above): prunes all of that, then drops.
        let got = r.insert_bounded(2505, 2595, 950, usize::MAX, 125);
        assert_eq!(got, BoundedInsert { held: false, pruned: 75 });
        assert_eq!(r.ranges().last(), Some(&(2400, 2500)));
        // A segment touching the range above it would merge with it: that range is not
        // "above" the segment, so it is not pruned (the segment is dropped instead).
        let got = r.insert_bounded(2300, 2400, 950, usize::MAX, 125);
        assert_eq!(got, BoundedInsert { held: false, pruned: 0 });
        assert_eq!(r.ranges().last(), Some(&(2400, 2500)));
        // Duplicates of held data always fit.
        assert_eq!(r.insert_bounded(1000, 1100, 900, usize::MAX, 125), BoundedInsert { held: true, pruned: 0 });
        // A zero budget (unread data fills the buffer) holds nothing new.
        assert!(!r.insert_bounded(300, 400, 0, usize::MAX, 125).held);
    }

    /// The range cap stands for Linux's per-skb memory: tiny segments in separate ranges fill
    /// it before the bytes do, and the queue prunes from the top as for bytes.
    #[test]
    fn rcvbuf_range_cap_prunes_like_memory() {
        let mut r = Reassembly::default();
        for k in 0..4u64 {
            assert!(r.insert_bounded(10 * k + 10, 10 * k + 11, BIG, 4, 1).held);
        }
        let got = r.insert_bounded(1, 2, BIG, 4, 1);
        assert_eq!(got, BoundedInsert { held: true, pruned: 1 });
        assert_eq!(r.ranges(), &[(1, 2), (10, 11), (20, 21), (30, 31)]);
        assert!(r.insert_bounded(11, 12, BIG, 4, 1).held, "merging needs no slot");
        assert!(!r.insert_bounded(40, 41, BIG, 4, 1).held, "highest: nothing above to prune");
    }

    /// While the budget is not reached, the bounded queue behaves exactly as the 32-range one
    /// does below 32 ranges: same ranges, same SACK blocks, same byte count, on a
    /// pseudo-random mix of overlapping, adjacent and duplicate segments and deliveries.
    #[test]
    fn bounded_and_ranges32_agree_below_their_limits() {
        let (mut a, mut b) = (Reassembly::default(), Reassembly::default());
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = 0u64;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let s = next + 1 + x % 3000;
            let e = s + 1 + (x >> 20) % 400;
            if a.ranges().len() < MAX_RANGES - 1 {
                assert!(a.insert(s, e));
                assert!(b.insert_bounded(s, e, BIG, usize::MAX, BIG).held);
            }
            if x % 5 == 0 {
                next = a.ranges().first().map_or(next, |r| r.0);
                assert_eq!(a.pop_contiguous(next), b.pop_contiguous(next));
                next += 1;
            }
            assert_eq!(a.ranges(), b.ranges());
            assert_eq!((a.bytes(), b.bytes()), (sum(&a), sum(&a)));
            let (mut oa, mut ob) = ([(0, 0); 4], [(0, 0); 4]);
            assert_eq!((a.sack_blocks(&mut oa), oa), (b.sack_blocks(&mut ob), ob));
        }
    }

    #[test]
    fn bounded_capacity() {
        let mut r = Reassembly::default();
        let cap = r.ranges.capacity();
        for k in 0..MAX_RANGES as u64 {
            assert!(r.insert(10 * k + 100, 10 * k + 105));
        }
        assert!(!r.insert(1000, 1001));
        assert!(r.insert(101, 103)); // inside an existing range: fine
        assert_eq!(r.ranges.capacity(), cap);
        assert_eq!(r.pop_contiguous(100), Some(105));
    }
}
