//! The simulation: the layers (network, host stack, flows, middleboxes, MACs, station power,
//! radios) and the one event queue that drives them.
//!
//! ```text
//!   flows (apps/)   ── AppCtx: sockets, outputs ──┐
//!   host stack (stack/): sockets, demux            │  sim/ glues the layers: it owns the
//!   middleboxes (middlebox/): packet in → verdict  │  event queue, hands each layer its
//!   station power (power/), 802.11 MAC (wlan/)     │  events, and carries out what the
//!   network (net/): nodes, channels, routes, pcap ─┘  layers ask for, in order
//!   engine: (time, sequence)-ordered event queue
//! ```
//!
//! No layer imports this module: each is a state machine driven through a narrow interface.
//! The loop is single-threaded and allocation-free per packet once queues are warm.

mod app_glue;
mod energy_glue;
mod mbox_glue;
mod net_glue;
mod power_glue;
mod stack_glue;
mod wlan_glue;

#[cfg(test)]
mod tests;

pub use wlan_glue::{WlanHost, NO_STA};

use crate::apps::{AppOutput, Flow, FlowId, FlowRecord};
use crate::engine::Scheduler;
use crate::middlebox::MiddleboxSlot;
use crate::net::link::ChannelId;
use crate::net::Network;
use crate::power::hop::HopHost;
use crate::radio::Radio;
use crate::series::TimeSeries;
use crate::stack::{SockId, Stack};
use wattlab_core::{Duration, Time};

/// Whose timer an [`Event::Timer`] is (timers are cancelled lazily: an event whose `at` is no
/// longer its owner's deadline is stale and ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerOwner {
    /// A socket's (TCP retransmission, delayed ACK, persist).
    Socket(SockId),
    /// A flow's wake-up.
    Flow(FlowId),
    /// A middlebox's.
    Middlebox(u32),
}

/// Events of the simulation.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A channel finished serializing its packet.
    TxDone(ChannelId),
    /// The head of a channel's pipe reaches the far end.
    Arrive(ChannelId),
    /// A timer of a socket, a flow or a middlebox, scheduled for `at`.
    Timer {
        /// Whose.
        owner: TimerOwner,
        /// The deadline it was scheduled for.
        at: Time,
    },
    /// A timer of an 802.11 MAC.
    Mac {
        /// BSS index.
        bss: u16,
        /// Which timer.
        timer: crate::wlan::MacTimer,
    },
    /// A deadline of a `[[wireless]]` hop's station power machine (stale if it moved).
    Station {
        /// Hop index (position of its `[[wireless]]`).
        hop: u32,
    },
    /// Take a time-series sample.
    Sample,
    /// Middlebox `m` releases the packets it held whose processing time is over.
    Release(u32),
}

/// A built scenario, ready to run.
pub struct Simulation {
    pub(crate) sched: Scheduler<Event>,
    pub(crate) scenario_name: String,
    /// What made this run (scenario, overrides, seed, version).
    pub(crate) provenance: crate::provenance::Provenance,
    pub(crate) seed: u64,
    /// Nodes, interfaces, channels, routes, captures.
    pub(crate) net: Network,
    /// 802.11 basic service sets.
    pub(crate) wlans: Vec<WlanHost>,
    /// `[[wireless]]` hops' power management, indexed like the `[[wireless]]` sections.
    pub(crate) hops: Vec<HopHost>,
    pub(crate) radios: Vec<Radio>,
    /// Each flow's end radios, and the flow tags of packets (`crate::flow_energy`).
    pub(crate) flow_energy: crate::flow_energy::FlowEnergy,
    /// Every node's sockets.
    pub(crate) stack: Stack,
    /// The flows, by index.
    pub(crate) flows: Vec<Flow>,
    /// Their common records.
    pub(crate) records: Vec<FlowRecord>,
    /// Each flow's pending wake-up.
    pub(crate) flow_wake_at: Vec<Option<Time>>,
    /// Each flow's DSCP (`dscp` in `[[flow]]`), stamped on its sockets' packets; empty when
    /// every flow keeps 0, so the common case costs one length check per packet.
    pub(crate) flow_dscp: Vec<u8>,
    /// Middleboxes (the CC agents), by index.
    pub(crate) mboxes: Vec<MiddleboxSlot>,
    /// A middlebox saw input during the current event: collect its output after it.
    pub(crate) mboxes_dirty: bool,
    /// Flows of datagrams with an end at a node that has a CC agent (`app_glue`): each is a
    /// session of that agent from the flow's start to its end.
    pub(crate) agent_sessions: Vec<AgentSession>,
    /// Outputs of the flows' handlers waiting to be carried out (a stack: see `app_glue`).
    pub(crate) work: Vec<AppOutput>,
    pub(crate) horizon: Time,
    pub(crate) stop_when_done: bool,
    pub(crate) unfinished_flows: usize,
    pub(crate) done_at: Option<Time>,
    pub(crate) timeseries: Option<TimeSeries>,
    pub(crate) sample_interval: Duration,
    /// The run was stopped by its controller before its end (`run_controlled`).
    pub(crate) interrupted: bool,
}

/// A flow of datagrams seen by the CC agent (middlebox `mbox`) at one of its ends.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AgentSession {
    /// The flow.
    pub flow: FlowId,
    /// The agent's middlebox.
    pub mbox: u32,
    /// Opened at the flow's first wake-up.
    pub open: bool,
    /// Closed when the flow completed or gave up.
    pub closed: bool,
}

/// How far a run has got, as its controller sees it between slices.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Simulated time of the last event processed.
    pub now: Time,
    /// The scenario's stop time (`[simulation] duration`); the run may end earlier.
    pub horizon: Time,
    /// Events processed so far.
    pub events: u64,
}

/// How a slice of the event loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slice {
    /// The run is over: every flow done, or an I/O error.
    Over,
    /// No more events up to the time asked for.
    Reached,
    /// The slice's event budget is spent; more events are due.
    Paused,
}

impl Simulation {
    /// Runs in slices of at most `slice` events, asking `control` between slices whether to
    /// go on (it sees the progress so far: a Ctrl-C check, a progress bar, a wall-time limit).
    /// When it says stop, the run is marked interrupted. The slices cost one comparison per
    /// event: a run's events and bytes do not depend on them.
    pub(crate) fn run_slices(&mut self, slice: u64, control: &mut dyn FnMut(&Progress) -> bool) {
        self.start_run();
        while self.run_slice(self.horizon, slice.max(1)) == Slice::Paused {
            let p = Progress { now: self.sched.now(), horizon: self.horizon, events: self.sched.processed() };
            if !control(&p) {
                self.interrupted = true;
                break;
            }
        }
    }

    /// Schedules what happens at t = 0: flows, sampling, MACs, hop power management.
    pub(crate) fn start_run(&mut self) {
        for f in 0..self.flows.len() as FlowId {
            let start = self.records[f as usize].start;
            self.schedule_flow(f, start);
        }
        if self.timeseries.is_some() {
            self.sched.schedule(Time::ZERO, Event::Sample);
        }
        self.start_wlans(Time::ZERO);
        self.start_hops(Time::ZERO);
    }

    /// Runs the event loop to its end without collecting results (tests).
    #[cfg(test)]
    pub(crate) fn run_loop(&mut self) {
        self.start_run();
        self.run_until(self.horizon);
    }

    /// Processes the events due up to `until` (and the stop time); false once the run is over
    /// (every flow done, or an I/O error). Lets a caller act between events (tests).
    #[cfg(test)]
    pub(crate) fn run_until(&mut self, until: Time) -> bool {
        self.run_slice(until, u64::MAX) != Slice::Over
    }

    /// Processes at most `max_events` of the events due up to `until` (and the stop time).
    pub(crate) fn run_slice(&mut self, until: Time, max_events: u64) -> Slice {
        let stop_at = self.sched.processed().saturating_add(max_events);
        while let Some((now, ev)) = self.sched.pop_until(until.min(self.horizon)) {
            match ev {
                Event::TxDone(ch) => self.on_tx_done(now, ch),
                Event::Arrive(ch) => self.on_arrive(now, ch),
                Event::Timer { owner, at } => match owner {
                    TimerOwner::Socket(s) => self.on_socket_timer(now, s, at),
                    TimerOwner::Flow(f) => self.on_flow_timer(now, f, at),
                    TimerOwner::Middlebox(m) => self.on_mbox_timer(now, m, at),
                },
                Event::Mac { bss, timer } => self.on_wlan_timer(now, bss, timer),
                Event::Station { hop } => self.on_hop_timer(now, hop),
                Event::Sample => self.on_sample(now),
                Event::Release(m) => self.on_mbox_release(now, m),
            }
            // Delivering a tunnel's inner packets can make the node send into a middlebox
            // again at the same instant; bounded, as every loop here is.
            for _ in 0..64 {
                if !self.mboxes_dirty {
                    break;
                }
                self.flush_middleboxes(now);
            }
            if self.done_at.is_some() || self.net.fatal_error.is_some() {
                return Slice::Over;
            }
            if self.sched.processed() >= stop_at {
                return Slice::Paused;
            }
        }
        Slice::Reached
    }

    /// The time the results cover: when the last flow finished, else the stop time or the
    /// last event.
    pub(crate) fn end_time(&self) -> Time {
        if self.interrupted {
            return self.sched.now();
        }
        self.done_at.unwrap_or_else(|| if self.sched.pending() > 0 { self.horizon } else { self.sched.now() })
    }

    /// Samples every flow's data sender and every channel's queue.
    fn on_sample(&mut self, now: Time) {
        let Some(ts) = self.timeseries.as_mut() else { return };
        // Every flow may be sampled: reserving for all keeps the pushes below from allocating.
        if let Err(e) = ts.reserve_sample(self.flows.len(), self.net.channels.len()) {
            self.net.fatal_error.get_or_insert(e);
            return;
        }
        for (i, f) in self.flows.iter().enumerate() {
            use crate::apps::Application;
            let Some((snd, rcv)) = f.sampled() else { continue };
            let adv = rcv.map(|r| self.stack.tcp_ref(r).advertised_window()).unwrap_or(0);
            ts.push_flow(now, i as u32, self.stack.tcp_ref(snd), adv, self.records[i].bytes_delivered);
        }
        for (i, c) in self.net.channels.iter().enumerate() {
            ts.push_queue(now, i as u32, c.queue.len() as u32, c.queue.bytes());
        }
        self.sched.schedule(now + self.sample_interval, Event::Sample);
    }

    /// Number of events processed.
    pub fn events(&self) -> u64 {
        self.sched.processed()
    }
}
