//! `twt:interval=I,duration=D[,offset=O]`: a capture costed as if the client had an individual
//! 802.11ax TWT agreement (IEEE 802.11ax-2021 §26.8.2), the rules of the simulator's `twt`
//! mode (`wattlab_core::power::modes::twt`) applied to the capture's packets:
//!
//! - service periods (SPs) of `D` every `I`, the first at the run's start plus `O`;
//! - the AP holds every packet for the client until an SP is open and the radio is free, and
//!   delivers them in order, back to back; a delivery starts only inside an SP and, once
//!   started, completes (an exchange under way at the SP's end finishes); what is left waits for
//!   the next SP;
//! - the client sends its own packets when the capture has them (it wakes to send), after any
//!   exchange its radio is in (counted as deferred);
//! - the radio is awake through every SP and dozes outside them but for its own frames (the
//!   core's [`AccountingPolicy::Twt`](wattlab_core::energy::AccountingPolicy::Twt) meter).
//!
//! Every packet is delivered: the work is the capture's. Reported: how long each received
//! packet was held (mean, p95, max over all received packets), how many were held, the
//! deferred sends, the SPs, and when the last packet was delivered. What the shift would do to
//! the traffic itself (TCP answering later, its window) is not modelled: the simulator's
//! `power_save = "twt:..."` is. Announced agreements (the AP waits for a frame of the station
//! in each SP) are not costed here.
//!
//! Memory: the packets held at once (one wake interval's downlink traffic, more if the SPs
//! cannot carry it); nothing is allocated per packet once the queue has grown to that.

use std::collections::VecDeque;

use hdrhistogram::Histogram;
use serde::Serialize;

use wattlab_core::energy::TwtSchedule;
use wattlab_core::Time;

/// Significant digits of the delay histogram: the p95 is within 0.1 % (1/1024) of the exact
/// nearest-rank value, and never outside the exact minimum and maximum.
const SIGNIFICANT_DIGITS: u8 = 3;
/// Largest delay the histogram resolves (2^42 ns, 73 minutes); longer ones count in its top
/// bucket (the mean and max stay exact).
const HIGHEST_NS: u64 = 1 << 42;

/// A received packet the AP holds: what is needed to place it later.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Held {
    /// Where its first interval started in the capture.
    pub start: Time,
    /// Its capture time (its data frame's end).
    pub t: Time,
    /// IP length.
    pub ip_len: u32,
    /// Broadcast or multicast.
    pub group: bool,
    /// Bytes the policy's window counts.
    pub bytes: u64,
    /// Its connection (attribution).
    pub owner: u32,
}

/// What a `twt` policy did to the capture's packets.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TwtOutcome {
    /// The agreement's wake interval, ns.
    pub interval_ns: u64,
    /// Its SP length, ns.
    pub duration_ns: u64,
    /// The first SP's offset from the run's start, ns.
    pub offset_ns: u64,
    /// SPs that started within the costed run.
    pub service_periods: u64,
    /// Received packets (unicast and group-addressed).
    pub received: u64,
    /// Of them, delivered later than the capture has them (held outside an SP or behind
    /// held ones).
    pub held: u64,
    /// Mean time a received packet was held, over all received packets, ns.
    pub delay_mean_ns: f64,
    /// 95th percentile (nearest rank, within 0.1 %), ns.
    pub delay_p95_ns: u64,
    /// Longest, ns.
    pub delay_max_ns: u64,
    /// Sent packets that waited for the radio to finish a delivery (or an earlier send).
    pub deferred_sends: u64,
    /// Their total wait, ns.
    pub deferred_send_ns: u64,
    /// End of the last interval under the agreement (the last delivery, or send), ns since
    /// the epoch.
    pub last_end_ns: u64,
    /// How much later than the capture's own last interval that is, ns: beyond an interval,
    /// the SPs could not carry the capture's downlink and the held packets piled up.
    pub late_end_ns: u64,
}

/// One `twt` policy's placement of packets: the AP's queue and the client radio's schedule.
pub(crate) struct TwtShift {
    schedule: TwtSchedule,
    /// The run's start (the SPs' origin, with the offset).
    origin: Time,
    /// Received packets held, in arrival order.
    queue: VecDeque<Held>,
    /// End of the latest interval placed.
    radio_end: Time,
    hist: Option<Box<Histogram<u32>>>,
    received: u64,
    held: u64,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
    deferred: u64,
    deferred_ns: u64,
}

impl TwtShift {
    /// The placement for `schedule`, the run starting at `origin`.
    pub fn new(schedule: TwtSchedule, origin: Time) -> TwtShift {
        TwtShift {
            schedule,
            origin,
            queue: VecDeque::new(),
            radio_end: origin,
            hist: None,
            received: 0,
            held: 0,
            sum_ns: 0,
            min_ns: u64::MAX,
            max_ns: 0,
            deferred: 0,
            deferred_ns: 0,
        }
    }

    /// A received packet reaches the AP (its capture place): it joins the queue.
    pub fn hold(&mut self, h: Held) {
        self.queue.push_back(h);
    }

    /// The next held packet whose delivery starts at or before `now`, with that start; it is
    /// then the caller's to place ([`TwtShift::placed`]).
    pub fn due(&mut self, now: Time) -> Option<(Held, Time)> {
        let h = *self.queue.front()?;
        let at = self.schedule.next_open(self.origin, h.start.max(self.radio_end));
        if at > now {
            return None;
        }
        self.queue.pop_front();
        let d = (at - h.start).as_nanos();
        self.received += 1;
        self.held += u64::from(d > 0);
        self.sum_ns += u128::from(d);
        self.min_ns = self.min_ns.min(d);
        self.max_ns = self.max_ns.max(d);
        let hist = self.hist.get_or_insert_with(|| {
            Box::new(Histogram::new_with_bounds(1, HIGHEST_NS, SIGNIFICANT_DIGITS).expect("valid histogram bounds"))
        });
        hist.saturating_record(d.clamp(1, HIGHEST_NS));
        Some((h, at))
    }

    /// Where a packet the client sends at `t` goes: at `t`, or when the radio is free.
    pub fn send_at(&mut self, t: Time) -> Time {
        if self.radio_end > t {
            self.deferred += 1;
            self.deferred_ns += (self.radio_end - t).as_nanos();
            return self.radio_end;
        }
        t
    }

    /// The packet just placed keeps the radio busy until `end`.
    pub fn placed(&mut self, end: Time) {
        self.radio_end = self.radio_end.max(end);
    }

    /// End of the latest interval placed.
    pub fn end(&self) -> Time {
        self.radio_end
    }

    /// The outcome, for the run ending at `end`, the capture's own intervals ending at
    /// `capture_end`.
    pub fn outcome(&self, end: Time, capture_end: Time) -> TwtOutcome {
        let s = &self.schedule;
        let first = self.origin + s.offset;
        let service_periods =
            if end < first { 0 } else { (end - first).as_nanos() / s.interval.as_nanos().max(1) + 1 };
        let p95 = self.hist.as_ref().map_or(0, |h| h.value_at_quantile(0.95).clamp(self.min_ns, self.max_ns));
        TwtOutcome {
            interval_ns: s.interval.as_nanos(),
            duration_ns: s.duration.as_nanos(),
            offset_ns: s.offset.as_nanos(),
            service_periods,
            received: self.received,
            held: self.held,
            delay_mean_ns: if self.received == 0 { 0.0 } else { self.sum_ns as f64 / self.received as f64 },
            delay_p95_ns: p95,
            delay_max_ns: self.max_ns,
            deferred_sends: self.deferred,
            deferred_send_ns: self.deferred_ns,
            last_end_ns: self.radio_end.as_nanos(),
            late_end_ns: self.radio_end.saturating_since(capture_end).as_nanos(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wattlab_core::Duration;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    /// 100 packets held 100, 99, ..., 1 ms (instants, SP at 1 s): the mean and max exact, the
    /// p95 the nearest rank (95 ms) within 0.1 %.
    #[test]
    fn delays_are_counted_over_every_received_packet() {
        let w = TwtSchedule { interval: Duration::from_secs(1), duration: Duration::from_millis(1), offset: Duration::ZERO };
        let mut s = TwtShift::new(w, Time::ZERO);
        // One in SP 0, delivered at once.
        s.hold(Held { start: ms(0), t: ms(0), ip_len: 100, group: false, bytes: 100, owner: 1 });
        for k in (1..=100).rev() {
            s.hold(Held { start: ms(1000 - k), t: ms(1000 - k), ip_len: 100, group: false, bytes: 100, owner: 1 });
        }
        let mut got = Vec::new();
        while let Some((h, at)) = s.due(ms(5000)) {
            s.placed(at);
            got.push((at - h.start).as_nanos() / 1_000_000);
        }
        assert_eq!(got[0], 0);
        assert_eq!(got[1..], (1..=100).rev().collect::<Vec<u64>>()[..]);
        let o = s.outcome(ms(1000), ms(999));
        assert_eq!(o.late_end_ns, 1_000_000);
        assert_eq!((o.received, o.held, o.service_periods, o.delay_max_ns), (101, 100, 2, 100_000_000));
        assert!((o.delay_mean_ns - 5050e6 / 101.0).abs() < 1.0);
        // Nearest rank ceil(0.95 × 101) = 96th smallest: 95 ms.
        assert!((o.delay_p95_ns as f64 - 95e6).abs() <= 95e6 / 1024.0, "{o:?}");
        // A packet not yet due stays held.
        s.hold(Held { start: ms(1500), t: ms(1500), ip_len: 100, group: false, bytes: 100, owner: 1 });
        assert!(s.due(ms(1999)).is_none());
        assert_eq!(s.due(ms(2000)).map(|(_, at)| at), Some(ms(2000)));
    }
}
