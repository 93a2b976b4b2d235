//! Middleboxes in the packet path: verdicts on packets through their interface, their timers,
//! and what they ask for once an event is over (packets to send, radio commands, a timer).

use super::{Event, Simulation, TimerOwner};
use crate::middlebox::delay::Onward;
use crate::net::link::IfaceId;
use wattlab_core::agent::Verdict;
use wattlab_core::{Packet, Time};

impl Simulation {
    /// A packet leaving through `iface`: its middlebox may rewrite or drop it. False: drop.
    pub(crate) fn mbox_outgoing(&mut self, now: Time, iface: IfaceId, p: &mut Packet) -> bool {
        let Some(m) = self.net.ifaces[iface as usize].middlebox else { return true };
        self.mboxes_dirty = true;
        self.mboxes[m as usize].mbox.on_outgoing(now, p) == Verdict::Pass
    }

    /// A packet arriving at `iface`: false if its middlebox drops it (its radio sleeps).
    pub(crate) fn mbox_incoming(&mut self, now: Time, iface: IfaceId, p: &Packet) -> bool {
        let Some(m) = self.net.ifaces[iface as usize].middlebox else { return true };
        self.mboxes_dirty = true;
        self.mboxes[m as usize].mbox.on_incoming(now, p) == Verdict::Pass
    }

    /// A packet the MAC behind `iface` received (a BSS: its radio was awake to hear it).
    pub(crate) fn mbox_received(&mut self, now: Time, iface: IfaceId, p: &Packet) {
        let Some(m) = self.net.ifaces[iface as usize].middlebox else { return };
        self.mboxes_dirty = true;
        self.mboxes[m as usize].mbox.on_received(now, p);
    }

    /// A packet `iface` received (captured and counted): true if its middlebox took it.
    pub(crate) fn mbox_consume(&mut self, now: Time, iface: IfaceId, p: &Packet) -> bool {
        let Some(m) = self.net.ifaces[iface as usize].middlebox else { return false };
        let taken = self.mboxes[m as usize].mbox.consume_incoming(now, p, &self.net.arena);
        self.mboxes_dirty |= taken;
        taken
    }

    /// The middlebox on `iface` if it holds packets going up (`up`) or out for a processing
    /// time; checked before a packet is handed over, so the common path copies nothing.
    #[inline]
    pub(crate) fn mbox_holding(&self, iface: IfaceId, up: bool) -> Option<u32> {
        let m = self.net.ifaces[iface as usize].middlebox?;
        self.mboxes[m as usize].hold.holds(up).then_some(m)
    }

    /// Holds `p` in middlebox `m` (from [`Self::mbox_holding`]) for its processing time; it
    /// goes `onward` when [`Event::Release`] fires.
    pub(crate) fn mbox_hold(&mut self, now: Time, m: u32, onward: Onward, p: Packet) {
        let at = self.mboxes[m as usize].hold.push(now, onward, p);
        self.sched.schedule(at, Event::Release(m));
    }

    /// Sends packet `p` that middlebox `m` made itself (an open ACK, a probe, a tunnel packet):
    /// behind the packets it holds for their processing time, if any (one thread: it sends
    /// what it made after their verdicts), else at once past it.
    fn mbox_inject(&mut self, now: Time, m: usize, p: Packet) {
        let node = self.mboxes[m].mbox.node();
        let Some((iface, next_hop)) = self.net.route(node, p.dst) else {
            self.net.drops.unroutable += 1;
            return;
        };
        if !self.mboxes[m].hold.push_behind(now, Onward::Out { iface, next_hop }, p) {
            self.send_on(iface, next_hop, p);
        }
    }

    /// Middlebox `m`'s processing time of its oldest held packets is over: they go on.
    pub(super) fn on_mbox_release(&mut self, now: Time, m: u32) {
        while let Some((onward, p)) = self.mboxes[m as usize].hold.pop_due(now) {
            match onward {
                Onward::Up { node } => self.receive(now, node, p),
                Onward::Out { iface, next_hop } => self.send_on(iface, next_hop, p),
            }
        }
    }

    /// The timer of middlebox `m` scheduled for `at` fired.
    pub(super) fn on_mbox_timer(&mut self, now: Time, m: u32, at: Time) {
        let slot = &mut self.mboxes[m as usize];
        if slot.timer_at != Some(at) {
            return; // superseded by an earlier deadline
        }
        slot.timer_at = None;
        slot.mbox.handle_timeout(now);
        self.mboxes_dirty = true;
    }

    /// After an event: sends what the middleboxes injected, applies their radio commands,
    /// collects their logs and re-arms their timers.
    pub(crate) fn flush_middleboxes(&mut self, now: Time) {
        self.mboxes_dirty = false;
        for m in 0..self.mboxes.len() {
            while let Some(p) = self.mboxes[m].mbox.poll_transmit(now, &mut self.net.arena) {
                self.mbox_inject(now, m, p);
            }
            while let Some(p) = self.mboxes[m].mbox.poll_deliver() {
                let node = self.mboxes[m].mbox.node();
                self.receive(now, node, p);
            }
            while let Some(awake) = self.mboxes[m].mbox.poll_radio(now) {
                let iface = self.mboxes[m].mbox.iface();
                self.set_iface_awake(now, iface, awake);
            }
            let slot = &mut self.mboxes[m];
            slot.mbox.collect_log();
            if let Some(t) = slot.mbox.poll_timeout(now) {
                let t = t.max(now);
                if slot.timer_at.is_none_or(|s| t < s) {
                    slot.timer_at = Some(t);
                    self.sched.schedule(t, Event::Timer { owner: TimerOwner::Middlebox(m as u32), at: t });
                }
            }
        }
    }
}
