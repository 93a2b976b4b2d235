//! Out-of-order receive queue: a sorted list of disjoint byte ranges (payload by length only).
//!
//! The list is preallocated with a fixed capacity and never grows, so steady-state operation
//! allocates nothing. When it is full a range that would need a new slot is dropped (the
//! sender will retransmit it), as a real stack drops segments under memory pressure.

/// Most disjoint out-of-order ranges kept.
pub const MAX_RANGES: usize = 32;

/// Sorted, disjoint, non-adjacent half-open ranges `[start, end)` of unwrapped positions.
#[derive(Clone, Debug)]
pub struct Reassembly {
    ranges: Vec<(u64, u64)>,
}

impl Default for Reassembly {
    fn default() -> Self {
        Reassembly { ranges: Vec::with_capacity(MAX_RANGES) }
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

    /// Add `[start, end)`, merging with overlapping or adjacent ranges.
    /// Returns false if it was dropped for lack of space.
    pub fn insert(&mut self, start: u64, end: u64) -> bool {
        if start >= end {
            return true;
        }
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
