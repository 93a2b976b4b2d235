//! The event queue: a 4-ary min-heap ordered by (time, insertion sequence).
//!
//! The sequence number is the stable tie-break that makes simultaneous events run in the
//! order they were scheduled, whatever the heap's internal layout: the basis of determinism.
//! Keys are unique, so any correct heap pops the same order; 4 children per node halve the
//! depth of a binary heap and keep a node's children in one or two cache lines, and `pop`
//! moves the hole to the bottom before placing the last entry (few comparisons, as
//! `std`'s `BinaryHeap` does), which is where most of the queue's time goes.

use wattlab_core::Time;

/// Children per node.
const ARITY: usize = 4;

/// An entry in the queue: fires `event` at `time`.
#[derive(Clone, Copy)]
struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    /// The order key: time first, then the sequence (one branch-free 128-bit comparison).
    #[inline(always)]
    fn key(&self) -> u128 {
        ((self.time.0 as u128) << 64) | self.seq as u128
    }
}

/// A deterministic discrete-event scheduler (events are `Copy`: entries move by value).
pub struct Scheduler<E> {
    heap: Vec<Entry<E>>,
    next_seq: u64,
    now: Time,
    processed: u64,
}

impl<E: Copy> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> Scheduler<E> {
    /// An empty scheduler at time zero.
    pub fn new() -> Self {
        Scheduler { heap: Vec::with_capacity(1024), next_seq: 0, now: Time::ZERO, processed: 0 }
    }

    /// Current simulation time (the time of the last event popped).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `event` at `time`; times in the past run at `now` (never backwards).
    #[inline]
    pub fn schedule(&mut self, time: Time, event: E) {
        let time = time.max(self.now);
        let e = Entry { time, seq: self.next_seq, event };
        self.next_seq += 1;
        self.heap.push(e);
        self.sift_up(self.heap.len() - 1, e);
    }

    /// Pop the next event if it is due no later than `until`, advancing the clock to it.
    #[inline]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.heap.first()?.time > until {
            return None;
        }
        let e = self.pop_min();
        self.now = e.time;
        self.processed += 1;
        Some((e.time, e.event))
    }

    /// Time of the next pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|e| e.time)
    }

    /// Number of events processed so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Number of events still queued.
    pub fn pending(&self) -> usize {
        self.heap.len()
    }

    /// Places `e` at `hole` or above it, moving larger parents down.
    #[inline(always)]
    fn sift_up(&mut self, mut hole: usize, e: Entry<E>) {
        let key = e.key();
        while hole > 0 {
            let parent = (hole - 1) / ARITY;
            if self.heap[parent].key() <= key {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = e;
    }

    /// Removes and returns the smallest entry (the heap is not empty).
    #[inline]
    fn pop_min(&mut self) -> Entry<E> {
        let last = self.heap.pop().expect("pop_min on an empty heap");
        let Some(&top) = self.heap.first() else { return last };
        // Move the hole at the root down to a leaf along the smallest children, then put the
        // former last entry there and let it rise: it usually belongs near the bottom.
        let n = self.heap.len();
        let mut hole = 0;
        loop {
            let first = hole * ARITY + 1;
            let best = if first + ARITY <= n {
                // A full node (the common case): a tournament of the four, no loop.
                let c: &[Entry<E>; ARITY] = self.heap[first..first + ARITY].try_into().expect("four children");
                let (k0, k1, k2, k3) = (c[0].key(), c[1].key(), c[2].key(), c[3].key());
                let (a, ka) = if k1 < k0 { (1, k1) } else { (0, k0) };
                let (b, kb) = if k3 < k2 { (3, k3) } else { (2, k2) };
                first + if kb < ka { b } else { a }
            } else if first < n {
                let mut best = first;
                for c in first + 1..n {
                    if self.heap[c].key() < self.heap[best].key() {
                        best = c;
                    }
                }
                best
            } else {
                break;
            };
            self.heap[hole] = self.heap[best];
            hole = best;
        }
        self.sift_up(hole, last);
        top
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simultaneous_events_keep_insertion_order() {
        let mut s = Scheduler::new();
        s.schedule(Time(10), 'b');
        s.schedule(Time(5), 'a');
        s.schedule(Time(10), 'c');
        s.schedule(Time(10), 'd');
        let order: Vec<char> = std::iter::from_fn(|| s.pop_until(Time::MAX).map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
        assert_eq!(s.now(), Time(10));
        assert_eq!(s.processed(), 4);
    }

    #[test]
    fn never_goes_backwards_and_respects_horizon() {
        let mut s = Scheduler::new();
        s.schedule(Time(100), 1);
        assert_eq!(s.pop_until(Time(50)), None);
        assert_eq!(s.pop_until(Time(100)), Some((Time(100), 1)));
        s.schedule(Time(20), 2); // in the past: runs now
        assert_eq!(s.pop_until(Time::MAX), Some((Time(100), 2)));
    }

    /// The heap pops exactly the (time, sequence) order of a sorted reference, through
    /// interleaved pushes and pops of many equal and distinct times (a pseudo-random mix).
    #[test]
    fn pops_in_time_then_insertion_order_under_interleaving() {
        let mut s = Scheduler::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let (mut x, mut id, mut popped) = (0x9E37_79B9_7F4A_7C15u64, 0u64, Vec::new());
        for round in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 3 != 0 || round < 50 {
                // Times in the future of `now`, often equal to each other.
                let t = s.now().0 + x % 64;
                s.schedule(Time(t), id);
                reference.push((t, id));
                id += 1;
            } else if let Some((t, e)) = s.pop_until(Time::MAX) {
                popped.push((t.0, e));
            }
        }
        while let Some((t, e)) = s.pop_until(Time::MAX) {
            popped.push((t.0, e));
        }
        // Each popped event is the smallest (time, id) pending when it was popped; with times
        // never in the past this is the sorted order of everything scheduled.
        reference.sort();
        assert_eq!(popped.len(), reference.len());
        assert_eq!(popped, reference);
        assert_eq!(s.pending(), 0);
    }
}
