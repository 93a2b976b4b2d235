//! The event queue: a binary heap ordered by (time, insertion sequence).
//!
//! The sequence number is the stable tie-break that makes simultaneous events run in the
//! order they were scheduled, whatever the heap's internal layout: the basis of determinism.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use wattlab_core::Time;

/// An entry in the queue: fires `event` at `time`.
struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// A deterministic discrete-event scheduler.
pub struct Scheduler<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: Time,
    processed: u64,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Scheduler<E> {
    /// An empty scheduler at time zero.
    pub fn new() -> Self {
        Scheduler { heap: BinaryHeap::with_capacity(1024), next_seq: 0, now: Time::ZERO, processed: 0 }
    }

    /// Current simulation time (the time of the last event popped).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `event` at `time`; times in the past run at `now` (never backwards).
    pub fn schedule(&mut self, time: Time, event: E) {
        let time = time.max(self.now);
        self.heap.push(Entry { time, seq: self.next_seq, event });
        self.next_seq += 1;
    }

    /// Pop the next event if it is due no later than `until`, advancing the clock to it.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        if self.heap.peek()?.time > until {
            return None;
        }
        let e = self.heap.pop()?;
        self.now = e.time;
        self.processed += 1;
        Some((e.time, e.event))
    }

    /// Time of the next pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Number of events processed so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Number of events still queued.
    pub fn pending(&self) -> usize {
        self.heap.len()
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
}
