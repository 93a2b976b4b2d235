//! Running the flows' handlers and carrying out what they asked for.
//!
//! A handler records its side effects as [`AppOutput`]s; they are carried out right after it
//! returns, in order, depth first: an output may run another handler (flushing a socket hands
//! its events to its flow), whose outputs are carried out before the rest of the first
//! handler's. `self.work` is that stack, reused: no allocation per event once warm.

use super::{Event, Simulation, TimerOwner};
use crate::apps::{AppCtx, AppOutput, Application, FlowId, Hint};
use crate::middlebox::AppHint;
use crate::stack::{SockId, SocketEvent};
use wattlab_core::power::Command;
use wattlab_core::{Endpoint, Time};

/// Which handler of a flow to run.
#[derive(Clone, Copy)]
pub(crate) enum Call {
    /// Its wake-up.
    Wake,
    /// An event of its socket.
    Socket(SockId, SocketEvent),
    /// Its listener (tagged) accepted a socket from a remote end.
    Accept(SockId, u32, Endpoint),
}

impl Simulation {
    /// Runs handler `call` of flow `f` at `now`, then carries out its outputs.
    pub(crate) fn run_flow(&mut self, now: Time, f: FlowId, call: Call) {
        if !self.agent_sessions.is_empty() {
            self.agent_session(now, f, true);
        }
        let base = self.work.len();
        {
            let mut cx = AppCtx::new(now, f, &mut self.stack, &self.net, &mut self.records[f as usize], &mut self.work);
            let flow = &mut self.flows[f as usize];
            match call {
                Call::Wake => flow.on_wake(&mut cx),
                Call::Socket(s, ev) => flow.on_socket(&mut cx, s, ev),
                Call::Accept(s, tag, remote) => flow.on_accept(&mut cx, s, tag, remote),
            }
        }
        // First output on top, so that popping carries them out in order.
        self.work[base..].reverse();
        while self.work.len() > base {
            let o = self.work.pop().expect("above base");
            self.apply(now, f, o);
        }
    }

    fn apply(&mut self, now: Time, f: FlowId, o: AppOutput) {
        match o {
            AppOutput::Drive(s) => self.drive(now, s),
            AppOutput::Wake(at) => self.schedule_flow(f, at),
            AppOutput::Finished => self.finish_flow(now, f),
            AppOutput::Hint(h) => self.hint(now, h),
            AppOutput::Failed => self.fail_flow(now, f),
            AppOutput::Radio { node, on } => self.radio_command(now, node, on),
        }
    }

    /// Wakes flow `f` at `at`, unless an earlier wake-up is already due.
    pub(crate) fn schedule_flow(&mut self, f: FlowId, at: Time) {
        let slot = &mut self.flow_wake_at[f as usize];
        if slot.is_none_or(|s| at < s) {
            *slot = Some(at);
            self.sched.schedule(at, Event::Timer { owner: TimerOwner::Flow(f), at });
        }
    }

    pub(super) fn on_flow_timer(&mut self, now: Time, f: FlowId, at: Time) {
        if self.flow_wake_at[f as usize] != Some(at) {
            return; // an earlier wake replaced this one
        }
        self.flow_wake_at[f as usize] = None;
        self.run_flow(now, f, Call::Wake);
    }

    /// Flow `f` completed at `now`; the run ends when the last finite flow has.
    pub(crate) fn finish_flow(&mut self, now: Time, f: FlowId) {
        let r = &mut self.records[f as usize];
        if r.completed_at.is_some() {
            return;
        }
        r.completed_at = Some(now);
        self.agent_session(now, f, false);
        self.mark_flow_done(now, f);
        self.unfinished_flows = self.unfinished_flows.saturating_sub(1);
        if self.unfinished_flows == 0 && self.stop_when_done {
            self.done_at = Some(now);
        }
    }

    /// Flow `f` gave up at `now`: the run no longer waits for it.
    pub(crate) fn fail_flow(&mut self, now: Time, f: FlowId) {
        let r = &mut self.records[f as usize];
        if r.completed_at.is_some() || r.failed_at.is_some() || !r.finite {
            return;
        }
        r.failed_at = Some(now);
        self.agent_session(now, f, false);
        self.unfinished_flows = self.unfinished_flows.saturating_sub(1);
        if self.unfinished_flows == 0 && self.stop_when_done {
            self.done_at = Some(now);
        }
    }

    /// Flow `f` runs (`open`: its first handler is about to run) or is over: the CC agents at
    /// its ends open or close its session, once each.
    fn agent_session(&mut self, now: Time, f: FlowId, open: bool) {
        for i in 0..self.agent_sessions.len() {
            let s = self.agent_sessions[i];
            if s.flow != f || s.closed || s.open == open {
                continue;
            }
            // A session closes only after it opened (`s.open == open` skipped the others).
            if open {
                self.agent_sessions[i].open = true;
            } else {
                self.agent_sessions[i].closed = true;
            }
            if self.mboxes[s.mbox as usize].mbox.on_hint(now, AppHint::Session { open }) {
                self.mboxes_dirty = true;
            }
        }
    }

    /// An application switches the station radio of `node` on (wake) or off (no power).
    fn radio_command(&mut self, now: Time, node: u32, on: bool) {
        let cmd = if on { Command::Wake } else { Command::Off };
        let ifaces = self.net.nodes[node as usize].ifaces.clone();
        for i in ifaces {
            let iface = &self.net.ifaces[i as usize];
            if iface.wlan.is_some() || self.net.channels[iface.tx as usize].hop.is_some() {
                self.iface_command(now, i, cmd);
            }
        }
    }

    /// Hands an application's hint to the middleboxes of its node.
    fn hint(&mut self, now: Time, h: Hint) {
        if self.mboxes.is_empty() {
            return;
        }
        let (node, hint) = match h {
            Hint::NewPage { node } => (node, AppHint::NewPage),
            Hint::ResponseSize { sock, bytes } => {
                let slot = &self.stack.sockets[sock as usize];
                let c = self.stack.tcp_ref(sock);
                (slot.node, AppHint::ResponseSize { local: c.local(), remote: c.remote(), bytes })
            }
        };
        for m in self.mboxes.iter_mut().filter(|m| m.mbox.node() == node) {
            if m.mbox.on_hint(now, hint) {
                self.mboxes_dirty = true;
            }
        }
    }
}
