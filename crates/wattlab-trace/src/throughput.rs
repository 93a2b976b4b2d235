//! The client's throughput in bins of capture time, kept sparse: only bins with traffic take
//! memory, so a capture's time span (a gap of years, 1 µs bins over an hour) costs nothing;
//! memory grows with the bins that hold packets, at most one per packet.

use std::collections::BTreeMap;

/// Bytes up and down per bin, by signed bin index from an origin (a packet earlier than the
/// origin, in a capture whose clock goes backwards, falls in a negative bin).
#[derive(Clone, Debug, Default)]
pub struct ThroughputBins {
    /// Bins in increasing index order (packets come in time order, nearly always).
    ordered: Vec<(i64, [u64; 2])>,
    /// Bins of packets that came after a later bin was opened (out of order), merged at the end.
    late: BTreeMap<i64, [u64; 2]>,
}

/// How many of the latest bins are searched for an out-of-order packet's bin before it goes
/// to the side map.
const LOOK_BACK: usize = 8;

impl ThroughputBins {
    /// The bin of instant `t_ns` for bins of `bin_ns` (> 0) from `origin_ns`.
    pub fn index(t_ns: u64, origin_ns: u64, bin_ns: u64) -> i64 {
        let d = i128::from(t_ns) - i128::from(origin_ns);
        // |d| < 2^64 and bin_ns ≥ 1: the quotient fits an i64 unless bin_ns is 1 or 2 ns
        // over centuries; clamp rather than wrap.
        let k = d.div_euclid(i128::from(bin_ns.max(1)));
        k.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }

    /// Adds `bytes` in direction `dir` (0 up, 1 down) to bin `k`.
    pub fn add(&mut self, k: i64, dir: usize, bytes: u64) {
        match self.ordered.last_mut() {
            Some((i, b)) if *i == k => b[dir] = b[dir].saturating_add(bytes),
            Some((i, _)) if *i > k => {
                let n = self.ordered.len();
                match self.ordered[n.saturating_sub(LOOK_BACK)..].iter_mut().find(|e| e.0 == k) {
                    Some(e) => e.1[dir] = e.1[dir].saturating_add(bytes),
                    None => {
                        let e = self.late.entry(k).or_default();
                        e[dir] = e[dir].saturating_add(bytes);
                    }
                }
            }
            _ => {
                let mut b = [0, 0];
                b[dir] = bytes;
                self.ordered.push((k, b));
            }
        }
    }

    /// Bins with traffic, in increasing index order (each index once).
    pub fn finish(self) -> Vec<(i64, [u64; 2])> {
        if self.late.is_empty() {
            return self.ordered;
        }
        let mut out = Vec::with_capacity(self.ordered.len() + self.late.len());
        let mut late = self.late.into_iter().peekable();
        for (k, b) in self.ordered {
            while let Some((j, c)) = late.next_if(|&(j, _)| j < k) {
                out.push((j, c));
            }
            match late.next_if(|&(j, _)| j == k) {
                Some((_, c)) => out.push((k, [b[0].saturating_add(c[0]), b[1].saturating_add(c[1])])),
                None => out.push((k, b)),
            }
        }
        out.extend(late);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_bins_sum_out_of_order_packets_into_one_sorted_series() {
        assert_eq!(ThroughputBins::index(150, 100, 10), 5);
        assert_eq!(ThroughputBins::index(95, 100, 10), -1);
        assert_eq!(ThroughputBins::index(u64::MAX, 0, 1), i64::MAX);
        let mut b = ThroughputBins::default();
        for (k, dir, bytes) in [(0, 0, 1), (0, 1, 2), (5, 1, 3), (3, 0, 4), (40, 0, 1), (5, 0, 5)] {
            b.add(k, dir, bytes);
        }
        for k in 41..60 {
            b.add(k, 1, 1);
        }
        b.add(5, 1, 10); // more than LOOK_BACK bins back: the side map, merged with bin 5
        b.add(-7, 0, 9);
        let v = b.finish();
        assert_eq!(&v[..5], &[(-7, [9, 0]), (0, [1, 2]), (3, [4, 0]), (5, [5, 13]), (40, [1, 0])]);
        assert_eq!(v.len(), 5 + 19);
        assert!(v.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
