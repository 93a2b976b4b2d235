//! Driving sockets: flushing what they queued into the network, handing their events to their
//! flows, and keeping one timer event per socket.

use super::app_glue::Call;
use super::{Event, Simulation, TimerOwner};
use crate::stack::SockId;
use wattlab_core::{Packet, Time};

impl Simulation {
    /// Flushes socket `s`: sends what it queued, hands its events to its flow (whose handlers
    /// may queue more), until it has nothing left; then re-arms its timer. With a paced node in
    /// the scenario, [`Self::drive_paced`] does it (the unpaced path stays as it was).
    pub(crate) fn drive(&mut self, now: Time, s: SockId) {
        if self.stack.paced {
            return self.drive_paced(now, s);
        }
        loop {
            let node = self.stack.sockets[s as usize].node;
            let dscp = self.flow_dscp.get(self.stack.sockets[s as usize].owner as usize).copied();
            while let Some(p) = self.stack.sockets[s as usize].socket.poll_transmit(now) {
                self.emit(s, node, dscp, p);
            }
            if !self.hand_events(now, s) {
                break;
            }
        }
        let due = self.stack.sockets[s as usize].socket.poll_timeout();
        self.arm_socket(now, s, due);
    }

    /// Counts and sends packet `p` of socket `s` from `node`, with the flow's DSCP (`dscp`), as
    /// `IP_TOS` on the socket would set it.
    #[inline(always)]
    fn emit(&mut self, s: SockId, node: u32, dscp: Option<u8>, mut p: Packet) {
        if let Some(d) = dscp {
            p.dscp = d;
        }
        let st = &mut self.stack.sockets[s as usize].stats;
        st.wire_bytes += p.ip_len() as u64;
        st.wire_packets += 1;
        self.send_from(node, p);
    }

    /// Hands socket `s`'s events to its flow (whose handlers may queue more); false when it
    /// had none.
    #[inline(always)]
    fn hand_events(&mut self, now: Time, s: SockId) -> bool {
        let mut any = false;
        while let Some(ev) = self.stack.sockets[s as usize].socket.poll_event() {
            any = true;
            let owner = self.stack.sockets[s as usize].owner;
            self.run_flow(now, owner, Call::Socket(s, ev));
        }
        any
    }

    /// Keeps one timer event for socket `s`: at `due` (not before `now`) if that is earlier
    /// than the one it has.
    #[inline(always)]
    fn arm_socket(&mut self, now: Time, s: SockId, due: Option<Time>) {
        let slot = &mut self.stack.sockets[s as usize];
        if let Some(t) = due {
            let t = t.max(now);
            if slot.timer_at.is_none_or(|x| t < x) {
                slot.timer_at = Some(t);
                self.sched.schedule(t, Event::Timer { owner: TimerOwner::Socket(s), at: t });
            }
        }
    }

    /// [`Self::drive`] when some node's transmit path is paced (`node.tx_time`): only what the
    /// socket's node's path can take now is sent; the socket is driven again when the path is
    /// free (its timer), so a TCP decides each further segment after the ACKs that arrived
    /// meanwhile (Linux's TSQ; `stack::TxPath`). An unpaced node's sockets flush as in `drive`.
    fn drive_paced(&mut self, now: Time, s: SockId) {
        let node = self.stack.sockets[s as usize].node;
        let paced = self.stack.tx_paths[node as usize].paced();
        let mut blocked = false;
        loop {
            let dscp = self.flow_dscp.get(self.stack.sockets[s as usize].owner as usize).copied();
            loop {
                if paced && !self.stack.tx_paths[node as usize].ready(now) {
                    blocked = true;
                    break;
                }
                let Some(p) = self.stack.sockets[s as usize].socket.poll_transmit(now) else {
                    break;
                };
                if paced {
                    self.stack.tx_paths[node as usize].take(now);
                }
                self.emit(s, node, dscp, p);
            }
            if !self.hand_events(now, s) {
                break;
            }
        }
        let free_at = self.stack.tx_paths[node as usize].free_at();
        let due = self.stack.sockets[s as usize].socket.poll_timeout();
        // Blocked on the transmit path: be driven again when it is free.
        let next = if blocked { Some(due.map_or(free_at, |t| t.min(free_at))) } else { due };
        self.arm_socket(now, s, next);
    }

    /// The timer of socket `s` scheduled for `at` fired.
    pub(super) fn on_socket_timer(&mut self, now: Time, s: SockId, at: Time) {
        let slot = &mut self.stack.sockets[s as usize];
        if slot.timer_at != Some(at) {
            return; // superseded by an earlier deadline that already ran
        }
        slot.timer_at = None;
        if slot.socket.poll_timeout().is_some_and(|t| t <= now) {
            slot.socket.handle_timeout(now);
        }
        self.drive(now, s);
    }
}
