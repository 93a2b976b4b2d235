//! The AP's transmit queue discipline: FIFO, or fair queueing between classes of stations.
//!
//! The AP keeps one buffer for every station's frames (`ap_queue` frames). Under FIFO it sends
//! the oldest frame whose station may receive. Seed 000 (Sec. 6, Fig. 17) shares the AP
//! between power-saving and regular clients with weighted fair queueing, "because giving
//! either type of client priority could lead to starvation of the other". We use self-clocked
//! fair queueing (Golestani 1994): a frame gets the finish tag `max(V, F_class) + bytes` when
//! it is queued, `V` being the tag of the frame last put on the air, and the AP sends the
//! eligible frame with the smallest tag. Weights are equal unless `ap_power_save_weight` gives
//! the power-saving class of "fair-class" another weight w (regular stations weigh 1): its
//! frames then advance its tags by `bytes / w`, so while both classes are backlogged it gets
//! w / (1 + w) of the AP's bytes (the paper gives no weights). A full buffer drops from the class
//! that holds the most frames (the arriving frame if that is its own), so one class cannot
//! take the whole buffer and starve the other's arrivals.
//!
//! Scans are linear in the queue, like the FIFO's search for the first eligible frame.

use super::{Bss, ExchangeKind, Frame, StaId, AP};
use std::collections::VecDeque;

/// How the AP picks its next frame (`ap_queueing` in `[[wlan]]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ApQueueing {
    /// Oldest eligible frame first; a full buffer drops the arriving frame.
    #[default]
    Fifo,
    /// Fair between two classes: stations that save power and stations that do not (seed 000).
    FairClass,
    /// Fair between stations.
    FairStation,
}

impl ApQueueing {
    /// Names accepted in scenarios.
    pub const NAMES: [&'static str; 3] = ["fifo", "fair-class", "fair-station"];

    /// The discipline of a scenario name.
    pub fn parse(name: &str) -> Option<ApQueueing> {
        match name {
            "fifo" => Some(ApQueueing::Fifo),
            "fair-class" => Some(ApQueueing::FairClass),
            "fair-station" => Some(ApQueueing::FairStation),
            _ => None,
        }
    }

    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            ApQueueing::Fifo => "fifo",
            ApQueueing::FairClass => "fair-class",
            ApQueueing::FairStation => "fair-station",
        }
    }
}

/// Tag units per byte of a class of weight 1: tags are integers, and a weight w costs
/// `round(TAG_UNIT / w)` per byte (exact for powers of two down to 2^-16).
const TAG_UNIT: u64 = 1 << 16;

/// Weights `ap_power_save_weight` accepts (2^±10). Tags stay within u64 for 2^64 / (TAG_UNIT /
/// w) bytes of a class: 2.8·10^14 B at weight 1, 2.7·10^11 B (≈ 11 h of a saturated 54 Mb/s
/// BSS) at the lightest weight 1/1024.
pub const POWER_SAVE_WEIGHT_RANGE: std::ops::RangeInclusive<f64> = (1.0 / 1024.0)..=1024.0;

/// The scheduler's state: virtual time and each class's last finish tag.
#[derive(Clone, Debug)]
pub(crate) struct FairQueue {
    discipline: ApQueueing,
    /// Tag of the frame last put on the air.
    virtual_time: u64,
    /// Finish tag of each class's last queued frame (classes are station ids or 0/1).
    last_finish: Vec<u64>,
    /// Tag units per byte of the power-saving class of `FairClass` (TAG_UNIT: weight 1).
    power_save_cost: u64,
}

impl FairQueue {
    /// A scheduler for a BSS of `stations` members (the AP included); `power_save_weight` is
    /// the power-saving class's weight under `FairClass` (regular stations weigh 1).
    pub(crate) fn new(discipline: ApQueueing, stations: usize, power_save_weight: f64) -> FairQueue {
        let power_save_cost = ((TAG_UNIT as f64 / power_save_weight).round() as u64).max(1);
        FairQueue { discipline, virtual_time: 0, last_finish: vec![0; stations.max(2)], power_save_cost }
    }

    /// True unless the discipline is FIFO.
    pub(crate) fn is_fair(&self) -> bool {
        self.discipline != ApQueueing::Fifo
    }

    /// The finish tag of a frame of `bytes` queued now for a station of class `class`.
    pub(crate) fn tag(&mut self, class: usize, bytes: u32) -> u64 {
        if !self.is_fair() {
            return 0;
        }
        let cost = if self.discipline == ApQueueing::FairClass && class == 1 { self.power_save_cost } else { TAG_UNIT };
        let f = self.virtual_time.max(self.last_finish[class]) + bytes as u64 * cost;
        self.last_finish[class] = f;
        f
    }

    /// A frame with tag `tag` went on the air.
    pub(crate) fn served(&mut self, tag: u64) {
        self.virtual_time = self.virtual_time.max(tag);
    }

    /// The class of frames for station `to`; `saves_power` says whether it dozes.
    pub(crate) fn class_of(&self, to: StaId, saves_power: bool) -> usize {
        match self.discipline {
            ApQueueing::Fifo => 0,
            ApQueueing::FairClass => saves_power as usize,
            ApQueueing::FairStation => to as usize,
        }
    }

    /// Index of the frame to send among those `eligible` allows: the oldest under FIFO, the
    /// smallest tag otherwise (ties: the older).
    pub(crate) fn pick(&self, queue: &VecDeque<Frame>, eligible: impl Fn(&Frame) -> bool) -> Option<usize> {
        if !self.is_fair() {
            return queue.iter().position(eligible);
        }
        queue.iter().enumerate().filter(|(_, f)| eligible(f)).min_by_key(|(_, f)| f.finish).map(|(i, _)| i)
    }

    /// With a full buffer: the index of the frame to drop to make room for a frame of class
    /// `arriving` (None: drop the arriving frame). `class` gives a queued frame's class and
    /// `busy` marks the frame being sent (never dropped).
    pub(crate) fn push_out(
        &self,
        queue: &VecDeque<Frame>,
        arriving: usize,
        class: impl Fn(&Frame) -> usize,
        busy: impl Fn(&Frame) -> bool,
    ) -> Option<usize> {
        if !self.is_fair() {
            return None;
        }
        let mut counts = vec![0u32; self.last_finish.len()];
        for f in queue {
            counts[class(f)] += 1;
        }
        counts[arriving] += 1;
        let longest = (0..counts.len()).max_by_key(|&c| (counts[c], c == arriving))?;
        if longest == arriving {
            return None;
        }
        queue.iter().rposition(|f| class(f) == longest && !busy(f))
    }
}

impl Bss {
    /// The fair-queueing class of the AP's frames for station `to`.
    pub(crate) fn ap_class(&self, to: StaId) -> usize {
        self.ap_queue.class_of(to, self.stas[to as usize].cfg.power_save.saves_power())
    }

    /// The AP's next frame of access category `ac` among those its stations may receive now.
    /// Under fair queueing a frame being retried keeps the medium's turn (802.11 retries the
    /// same frame).
    #[inline(never)]
    pub(crate) fn ap_head(&self, ac: usize) -> Option<usize> {
        let s = &self.stas[AP as usize];
        let e = &s.acs[ac];
        if self.ap_queue.is_fair() && e.retries > 0 {
            let retry = s.queue.iter().position(|f| f.id == e.retry_id && self.ap_may_send(f.to));
            if retry.is_some() {
                return retry;
            }
        }
        if e.queued as usize == s.queue.len() {
            return self.ap_queue.pick(&s.queue, |f| self.ap_may_send(f.to));
        }
        self.ap_queue.pick(&s.queue, |f| f.ac as usize == ac && self.ap_may_send(f.to))
    }

    /// Makes room in the AP's full buffer of AC `ac` for a frame to `to`, dropping from the
    /// class that holds the most frames; false if the arriving frame is the one to drop (it
    /// is counted then).
    pub(crate) fn ap_make_room(&mut self, to: StaId, ac: usize) -> bool {
        let ap = &self.stas[AP as usize];
        if ap.acs[ac].queued < ap.cfg.queue_limit {
            return true;
        }
        let on_air = match self.exchange.as_ref().map(|e| e.kind) {
            Some(ExchangeKind::Frame { sta: AP, frame, .. }) => Some(frame.id),
            Some(ExchangeKind::Poll { response: Some((_, frame)), .. }) => Some(frame.id),
            _ => None,
        };
        let victim = self.ap_queue.push_out(
            &ap.queue,
            self.ap_class(to),
            |f| self.ap_class(f.to),
            // MPDUs in flight or already at the recipient are no longer the AP's to drop.
            |f| {
                let e = &ap.acs[f.ac as usize];
                f.ac as usize != ac || Some(f.id) == on_air || (e.retries > 0 && f.id == e.retry_id) || f.ba.inflight || f.ba.received || f.ba.acked
            },
        );
        let Some(i) = victim else {
            self.stas[AP as usize].stats.queue_drops += 1;
            return false;
        };
        let dropped = self.take_frame(AP, i);
        self.stas[AP as usize].stats.queue_drops += 1;
        self.release_used(dropped.to);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wlan::Body;

    fn frame(to: StaId, id: u64, tag: u64) -> Frame {
        Frame { body: Body::Null(None), to, id, finish: tag, tag: 0, ba: crate::wlan::BaState::NEW, ac: 0, queued_at: wattlab_core::Time::ZERO }
    }

    #[test]
    fn fifo_sends_the_oldest_eligible_and_never_pushes_out() {
        let q = FairQueue::new(ApQueueing::Fifo, 3, 1.0);
        let queue: VecDeque<Frame> = [frame(1, 0, 0), frame(2, 1, 0), frame(1, 2, 0)].into();
        assert_eq!(q.pick(&queue, |_| true), Some(0));
        assert_eq!(q.pick(&queue, |f| f.to == 2), Some(1));
        assert_eq!(q.push_out(&queue, 0, |_| 0, |_| false), None);
    }

    #[test]
    fn equal_classes_alternate_by_bytes() {
        // Class 0 queues 6 frames of 1000 B at once, then class 1 queues 3: service alternates.
        let mut q = FairQueue::new(ApQueueing::FairClass, 3, 1.0);
        let mut queue = VecDeque::new();
        for id in 0..6 {
            let t = q.tag(0, 1000);
            queue.push_back(frame(1, id, t));
        }
        for id in 6..9 {
            let t = q.tag(1, 1000);
            queue.push_back(frame(2, id, t));
        }
        let mut order = Vec::new();
        while let Some(i) = q.pick(&queue, |_| true) {
            let f = queue.remove(i).unwrap();
            q.served(f.finish);
            order.push(f.to);
        }
        assert_eq!(order, [1, 2, 1, 2, 1, 2, 1, 1, 1]);
    }

    #[test]
    fn a_late_class_does_not_claim_credit_for_its_idle_time() {
        let mut q = FairQueue::new(ApQueueing::FairClass, 3, 1.0);
        let mut queue = VecDeque::new();
        for id in 0..4 {
            let t = q.tag(0, 1000);
            queue.push_back(frame(1, id, t));
        }
        // Two frames of class 0 are sent before class 1 arrives.
        for _ in 0..2 {
            let f = queue.pop_front().unwrap();
            q.served(f.finish);
        }
        for id in 4..8 {
            let t = q.tag(1, 1000);
            queue.push_back(frame(2, id, t));
        }
        let mut order = Vec::new();
        while let Some(i) = q.pick(&queue, |_| true) {
            let f = queue.remove(i).unwrap();
            q.served(f.finish);
            order.push(f.to);
        }
        // Class 1 starts at V, not at 0: it does not get four frames in a row.
        assert_eq!(order, [1, 2, 1, 2, 2, 2]);
    }

    #[test]
    fn a_full_buffer_drops_from_the_longest_class() {
        let q = FairQueue::new(ApQueueing::FairStation, 3, 1.0);
        let queue: VecDeque<Frame> = [frame(1, 0, 1), frame(1, 1, 2), frame(1, 2, 3), frame(2, 3, 1)].into();
        let class = |f: &Frame| f.to as usize;
        // Station 2 arrives: station 1 holds more, its newest frame goes.
        assert_eq!(q.push_out(&queue, 2, class, |_| false), Some(2));
        // ...unless that frame is on the air.
        assert_eq!(q.push_out(&queue, 2, class, |f| f.id == 2), Some(1));
        // Station 1 arrives: it is the longest, its own frame is dropped.
        assert_eq!(q.push_out(&queue, 1, class, |_| false), None);
    }

    /// Serves a backlog of 12 frames of 1000 B per class (class 1 saves power) and returns the
    /// classes in the order they went on the air.
    fn service_order(power_save_weight: f64) -> Vec<StaId> {
        let mut q = FairQueue::new(ApQueueing::FairClass, 3, power_save_weight);
        let mut queue = VecDeque::new();
        for id in 0..12 {
            let t = q.tag(0, 1000);
            queue.push_back(frame(1, id, t));
            let t = q.tag(1, 1000);
            queue.push_back(frame(2, 100 + id, t));
        }
        let mut order = Vec::new();
        while let Some(i) = q.pick(&queue, |_| true) {
            let f = queue.remove(i).unwrap();
            q.served(f.finish);
            order.push(f.to);
        }
        order
    }

    #[test]
    fn a_power_save_weight_gives_its_class_that_share_of_a_backlog() {
        // Weight 1: the classes alternate (ties go to the older frame, the regular one).
        assert_eq!(&service_order(1.0)[..6], [1, 2, 1, 2, 1, 2]);
        // Weight 1/3: one power-saving frame per three regular ones while both are backlogged,
        // i.e. w / (1 + w) = 1/4 of the bytes (tags in kB: regular 1, 2, 3, 4, 5, 6, power
        // saving 3, 6; a tie goes to the frame queued first, here the power-saving one).
        let order = service_order(1.0 / 3.0);
        assert_eq!(&order[..8], [1, 1, 2, 1, 1, 1, 2, 1]);
        // Weight 2: two power-saving frames per regular one.
        let order = service_order(2.0);
        assert_eq!(&order[..6], [2, 1, 2, 2, 1, 2]);
        // The weight is a share, not a priority: every frame is sent.
        assert_eq!(order.len(), 24);
    }

    #[test]
    fn weight_one_keeps_the_equal_tags_order() {
        // The scaled tags of weight 1 order frames exactly as unscaled bytes did.
        let mut q = FairQueue::new(ApQueueing::FairClass, 3, 1.0);
        let a = q.tag(0, 1500);
        let b = q.tag(1, 40);
        assert_eq!((a, b), (1500 * TAG_UNIT, 40 * TAG_UNIT));
    }

    #[test]
    fn names_round_trip() {
        for n in ApQueueing::NAMES {
            assert_eq!(ApQueueing::parse(n).unwrap().name(), n);
        }
        assert_eq!(ApQueueing::parse("wfq"), None);
    }
}
