//! The receiving half of an endpoint: which TSNs arrived (cumulative TSN and the ones above
//! it), duplicates to report, per-stream in-order delivery, and the SACK that says so.

use crate::wire::sctp::{SackChunk, MAX_DUP_TSNS, MAX_GAP_BLOCKS};
use std::collections::VecDeque;

/// TSN `a` precedes `b` in serial-number arithmetic (RFC 1982, 32 bits).
pub(super) fn tsn_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// SSN `a` precedes `b` (16-bit serial arithmetic).
fn ssn_lt(a: u16, b: u16) -> bool {
    (a.wrapping_sub(b) as i16) < 0
}

/// What became of an arriving DATA chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Arrival {
    /// New and next in TSN order.
    InOrder,
    /// New, above a missing TSN.
    Gap,
    /// Already received.
    Duplicate,
    /// Too far ahead of the cumulative TSN, or no room to hold it: dropped, not acknowledged.
    Refused,
}

/// Receiver state.
#[derive(Debug)]
pub(super) struct Receiver<T> {
    /// Last TSN received in sequence.
    pub cum: u32,
    /// TSNs received above `cum`, ascending.
    above: Vec<u32>,
    dups: [u32; MAX_DUP_TSNS],
    n_dups: usize,
    /// Next SSN expected per stream.
    next_ssn: Vec<u16>,
    /// Chunks waiting for an earlier SSN of their stream: (sid, ssn, inner).
    held: Vec<(u16, u16, T)>,
    max_held: usize,
    /// Farthest TSN accepted past `cum` (the advertised window in bytes: at least one byte per
    /// chunk, so a safe bound on chunks in flight).
    window: u32,
    /// Inner packets ready, in delivery order.
    pub ready: VecDeque<(u16, T)>,
}

impl<T> Receiver<T> {
    pub fn new(initial_tsn: u32, max_held: usize, window: u32) -> Receiver<T> {
        Receiver {
            cum: initial_tsn.wrapping_sub(1),
            above: Vec::with_capacity(64),
            dups: [0; MAX_DUP_TSNS],
            n_dups: 0,
            next_ssn: Vec::new(),
            held: Vec::with_capacity(64),
            max_held,
            window,
            ready: VecDeque::with_capacity(64),
        }
    }

    /// A DATA chunk (tsn, sid, ssn) carrying `inner` arrived. At most once: a TSN at or below
    /// `cum` or already above it is a duplicate and its inner packet is dropped.
    pub fn on_data(&mut self, tsn: u32, sid: u16, ssn: u16, inner: T) -> Arrival {
        if !tsn_lt(self.cum, tsn) || self.above.binary_search_by(|t| cmp(*t, tsn)).is_ok() {
            if self.n_dups < MAX_DUP_TSNS {
                self.dups[self.n_dups] = tsn;
                self.n_dups += 1;
            }
            return Arrival::Duplicate;
        }
        if tsn.wrapping_sub(self.cum) > self.window || self.held.len() >= self.max_held {
            return Arrival::Refused;
        }
        let sid_i = usize::from(sid);
        if self.next_ssn.len() <= sid_i {
            self.next_ssn.resize(sid_i + 1, 0);
        }
        if ssn_lt(ssn, self.next_ssn[sid_i]) {
            // An SSN already delivered under a new TSN: a peer that broke the rules.
            return Arrival::Refused;
        }
        let kind = if tsn == self.cum.wrapping_add(1) {
            self.cum = tsn;
            let mut n = 0;
            while n < self.above.len() && self.above[n] == self.cum.wrapping_add(1) {
                self.cum = self.above[n];
                n += 1;
            }
            self.above.drain(..n);
            Arrival::InOrder
        } else {
            let at = self.above.partition_point(|t| tsn_lt(*t, tsn));
            self.above.insert(at, tsn);
            Arrival::Gap
        };
        if ssn == self.next_ssn[sid_i] {
            self.ready.push_back((sid, inner));
            self.next_ssn[sid_i] = ssn.wrapping_add(1);
            self.release_held(sid);
        } else {
            self.held.push((sid, ssn, inner));
        }
        kind
    }

    /// Moves the held chunks of `sid` that are now in order to `ready`.
    fn release_held(&mut self, sid: u16) {
        let sid_i = usize::from(sid);
        while let Some(i) = self.held.iter().position(|&(s, n, _)| s == sid && n == self.next_ssn[sid_i]) {
            let (s, n, inner) = self.held.swap_remove(i);
            self.ready.push_back((s, inner));
            self.next_ssn[sid_i] = n.wrapping_add(1);
        }
    }

    /// The SACK for the current state, with at most `entries` gap blocks and duplicate TSNs
    /// (gaps first, lowest first); the reported duplicates are forgotten.
    pub fn sack(&mut self, a_rwnd: u32, entries: usize) -> SackChunk {
        let mut s = SackChunk { cum_tsn: self.cum, a_rwnd, ..SackChunk::default() };
        let mut room = entries;
        let mut i = 0;
        while i < self.above.len() && room > 0 && usize::from(s.n_gaps) < MAX_GAP_BLOCKS {
            let start = self.above[i].wrapping_sub(self.cum);
            let mut j = i;
            while j + 1 < self.above.len() && self.above[j + 1] == self.above[j].wrapping_add(1) {
                j += 1;
            }
            let end = self.above[j].wrapping_sub(self.cum);
            if end > u32::from(u16::MAX) {
                break; // beyond what a gap block can say
            }
            s.gaps[usize::from(s.n_gaps)] = (start as u16, end as u16);
            s.n_gaps += 1;
            room -= 1;
            i = j + 1;
        }
        let d = self.n_dups.min(room);
        s.dups[..d].copy_from_slice(&self.dups[..d]);
        s.n_dups = d as u8;
        self.n_dups = 0;
        s
    }
}

fn cmp(a: u32, b: u32) -> std::cmp::Ordering {
    if a == b {
        std::cmp::Ordering::Equal
    } else if tsn_lt(a, b) {
        std::cmp::Ordering::Less
    } else {
        std::cmp::Ordering::Greater
    }
}
