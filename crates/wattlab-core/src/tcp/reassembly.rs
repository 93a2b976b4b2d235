//! Out-of-order receive queue: a sorted list of disjoint byte ranges (payload by length only).
//!
//! The list is preallocated with a fixed capacity and never grows, so steady-state operation
//! allocates nothing. When it is full a range that would need a new slot is dropped (the
//! sender will retransmit it), as a real stack drops segments under memory pressure.
//!
//! For SACK (RFC 2018 §4) the queue also remembers which ranges were most recently added to,
//! as a fixed array of representative positions (newest first): the first SACK block must
//! contain the segment that triggered the ACK and the following ones repeat the most recently
//! reported blocks. Held ranges are never discarded before they are delivered, so the
//! receiver never reneges on a SACK (RFC 2018 §8 allows it; we do not model it).

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
}

impl Default for Reassembly {
    fn default() -> Self {
        Reassembly { ranges: Vec::with_capacity(MAX_RANGES), recent: [0; RECENT_RANGES], recent_len: 0 }
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
        self.ranges.iter().map(|&(s, e)| e - s).sum()
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
        // First range whose end reaches `start` (could merge with us).
        let i = self.ranges.partition_point(|&(_, e)| e < start);
        // Ranges i..j overlap or touch [start, end).
        let j = i + self.ranges[i..].partition_point(|&(s, _)| s <= end);
        if i == j {
            if self.ranges.len() >= MAX_RANGES {
                return false;
            }
            self.ranges.insert(i, (start, end));
        } else {
            let s = start.min(self.ranges[i].0);
            let e = end.max(self.ranges[j - 1].1);
            self.ranges[i] = (s, e);
            self.ranges.drain(i + 1..j);
        }
        true
    }

    /// Remove and return the end of the range that begins at or before `pos` (data now
    /// contiguous with the in-order stream); ranges entirely below `pos` are discarded.
    pub fn pop_contiguous(&mut self, pos: u64) -> Option<u64> {
        let mut out = None;
        while let Some(&(s, e)) = self.ranges.first() {
            if s > pos {
                break;
            }
            if e > pos {
                out = Some(e.max(out.unwrap_or(0)));
            }
            self.ranges.remove(0);
        }
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
