//! The simulation: nodes, interfaces, channels and host stacks, driven by one event queue.
//!
//! Packets move as `Copy` structs through [`Channel`]s; TCP connections are the sans-IO
//! `wattlab_core::tcp` state machines, polled after every input; applications and radios hang
//! off nodes. The loop is single-threaded and allocation-free per packet once queues are warm.

use crate::app::{App, AppId, FlowRecord, Reader};
use crate::build;
use crate::engine::Scheduler;
use crate::link::{Channel, ChannelId, IfaceId, Medium};
use crate::output::{RunOutput, TimeSeries};
use crate::pcap::PcapSink;
use crate::radio::Radio;
use crate::rng::StreamRng;
use crate::scenario::NodeKind;
use rand::Rng;
use std::collections::HashMap;
use std::net::Ipv4Addr;
use wattlab_core::energy::Activity;
use wattlab_core::packet::{TcpFlags, Transport, UdpHeader};
use wattlab_core::tcp::{TcpConfig, TcpConnection, TcpEvent};
use wattlab_core::{Duration, Endpoint, Packet, Time};

/// A node: host, router or access point.
pub struct Node {
    /// Name from the scenario.
    pub name: String,
    /// What it is.
    pub kind: NodeKind,
    /// Its IPv4 address.
    pub addr: Ipv4Addr,
    /// Its interfaces.
    pub ifaces: Vec<IfaceId>,
    /// Next ephemeral port for outgoing connections.
    pub next_port: u16,
    /// IP id counter for datagrams the node originates.
    pub next_ip_id: u16,
}

/// A network interface: one end of a link or of a wireless hop.
pub struct Iface {
    /// Owning node.
    pub node: u32,
    /// Name, e.g. `eth0` or `wlan0`.
    pub name: String,
    /// Channel this interface transmits on.
    pub tx: ChannelId,
    /// Interface at the other end.
    pub peer: IfaceId,
    /// MAC address (for pcap).
    pub mac: [u8; 6],
    /// Radio fed by this interface's airtime (wireless interfaces of nodes with a radio).
    pub radio: Option<usize>,
    /// Capture of this interface, if requested.
    pub pcap: Option<usize>,
    /// BSS and station id, for an interface on an 802.11 channel (`tx` is then unused).
    pub wlan: Option<(u16, crate::wlan::StaId)>,
}

/// A TCP connection and where it lives.
pub struct ConnSlot {
    /// The protocol state machine.
    pub conn: TcpConnection,
    /// Node it runs on.
    pub node: u32,
    /// Application that owns it.
    pub app: AppId,
    /// Time of the timer event currently scheduled for it, if any.
    pub timer_at: Option<Time>,
    /// IP bytes it handed to the network (headers and retransmissions included).
    pub wire_bytes: u64,
    /// Packets it handed to the network.
    pub wire_packets: u64,
    /// What its application said about requests and responses (client-side agent input).
    pub hints: crate::web::ConnHints,
}

/// A passive open waiting for a flow's client.
pub struct Listener {
    /// Server node.
    pub node: u32,
    /// Listening port.
    pub port: u16,
    /// Address of the client this listener accepts.
    pub client: Ipv4Addr,
    /// Server application.
    pub app: AppId,
    /// TCP settings of the server side.
    pub config: TcpConfig,
    /// Already accepted its connection.
    pub taken: bool,
}

/// Events of the simulation.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A channel finished serializing its packet.
    TxDone(ChannelId),
    /// The head of a channel's pipe reaches the far end.
    Arrive(ChannelId),
    /// A connection's timer, scheduled for `at`.
    ConnTimer {
        /// Connection index.
        conn: u32,
        /// Deadline this event was scheduled for (stale if the connection moved it).
        at: Time,
    },
    /// An application wants to run (start, read tick, next datagram).
    AppWake(AppId),
    /// Take a time-series sample.
    Sample,
    /// A timer of an 802.11 MAC.
    Wlan {
        /// BSS index.
        bss: u16,
        /// Which timer.
        timer: crate::wlan::MacTimer,
    },
    /// A timer of a client-centered agent, scheduled for `at`.
    Agent {
        /// Agent index.
        agent: u32,
        /// Deadline this event was scheduled for (stale if the agent moved it).
        at: Time,
    },
    /// A power-management timer of a `[[wireless]]` hop.
    Hop {
        /// Hop index (position of its `[[wireless]]`).
        hop: u32,
        /// Which timer.
        timer: crate::hop_power::HopTimer,
    },
}

/// Counters that belong to no link or flow.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct DropCounters {
    /// Packets to an address no node has, or with no route.
    pub unroutable: u64,
    /// Packets whose TTL ran out.
    pub ttl_expired: u64,
    /// TCP segments for no connection and no listener.
    pub no_socket: u64,
    /// Packets addressed elsewhere arriving at a host (hosts do not forward).
    pub not_forwarded: u64,
}

/// A built scenario, ready to run.
pub struct Simulation {
    pub(crate) sched: Scheduler<Event>,
    pub(crate) scenario_name: String,
    /// What made this run (scenario, overrides, seed, version).
    pub(crate) provenance: crate::provenance::Provenance,
    pub(crate) seed: u64,
    pub(crate) nodes: Vec<Node>,
    pub(crate) ifaces: Vec<Iface>,
    pub(crate) channels: Vec<Channel>,
    pub(crate) media: Vec<Medium>,
    /// (outgoing interface, next-hop node) by (node, destination node), on the flows' paths.
    pub(crate) routes: crate::routing::Routes,
    /// 802.11 basic service sets.
    pub(crate) wlans: Vec<crate::wlan_host::WlanHost>,
    /// `[[wireless]]` hops' power management, indexed like the `[[wireless]]` sections.
    pub(crate) hops: Vec<crate::hop_power::HopHost>,
    pub(crate) addr_to_node: HashMap<Ipv4Addr, u32>,
    pub(crate) conns: Vec<ConnSlot>,
    pub(crate) conn_index: HashMap<(u32, Endpoint, Endpoint), u32>,
    pub(crate) listeners: Vec<Listener>,
    pub(crate) udp_sinks: HashMap<(u32, u16), usize>,
    /// Ping endpoints: (node, port) → (flow, true at the responder).
    pub(crate) pings: HashMap<(u32, u16), (usize, bool)>,
    pub(crate) apps: Vec<App>,
    pub(crate) app_node: Vec<u32>,
    pub(crate) app_conn: Vec<Option<u32>>,
    pub(crate) app_wake_at: Vec<Option<Time>>,
    /// TCP settings of client-side connections, per app.
    pub(crate) app_tcp: Vec<Option<TcpConfig>>,
    pub(crate) flows: Vec<FlowRecord>,
    /// Web flows' state (`crate::web`).
    pub(crate) webs: Vec<crate::web::WebFlow>,
    pub(crate) radios: Vec<Radio>,
    pub(crate) pcaps: Vec<(String, PcapSink)>,
    pub(crate) isn_rng: StreamRng,
    pub(crate) horizon: Time,
    pub(crate) stop_when_done: bool,
    pub(crate) unfinished_flows: usize,
    pub(crate) done_at: Option<Time>,
    pub(crate) timeseries: Option<TimeSeries>,
    pub(crate) sample_interval: Duration,
    pub(crate) drops: DropCounters,
    pub(crate) io_error: Option<String>,
    /// Client-centered agents (stations with `power_save = "cc"`).
    pub(crate) agents: Vec<crate::agent_host::AgentHost>,
    /// An agent saw input during the current event: flush its outputs after it.
    pub(crate) agents_dirty: bool,
    /// The run was stopped by its controller before its end (`run_controlled`).
    pub(crate) interrupted: bool,
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
enum Slice {
    /// The run is over: every flow done, or an I/O error.
    Over,
    /// No more events up to the time asked for.
    Reached,
    /// The slice's event budget is spent; more events are due.
    Paused,
}

impl Simulation {
    /// Build a simulation from scenario text. `origin` names the file in errors; `seed`
    /// overrides the scenario's seed; `overrides` are `key=value` settings.
    pub fn from_toml(
        text: &str,
        origin: &str,
        seed: Option<u64>,
        overrides: &[String],
        opts: &build::BuildOptions,
    ) -> Result<Simulation, crate::scenario::ScenarioError> {
        let (scenario, generated) = crate::scenario::parse_effective(text, origin, overrides)?;
        let mut sim = match &generated {
            None => build::build(&scenario, text, origin, seed, opts).map_err(|e| e.located_in(text))?,
            // Spans point into the generated text: errors name the overrides, and the line of
            // the key in the user's file when it is written there.
            Some(g) => build::build(&scenario, g, origin, seed, opts).map_err(|mut e| {
                e.origin = crate::scenario::load::with_overrides(origin, overrides);
                e.line = None;
                e.column = None;
                e.located_in(text)
            })?,
        };
        sim.provenance = crate::provenance::Provenance::new(text, origin, overrides, sim.seed);
        Ok(sim)
    }

    /// Run until every flow is done (or the scenario's stop time), then collect the results.
    pub fn run(self) -> Result<RunOutput, String> {
        self.run_controlled(u64::MAX, &mut |_| true)
    }

    /// Run in slices of at most `slice` events, asking `control` between slices whether to go
    /// on (it sees the progress so far; a Ctrl-C check, a progress bar, a wall-time limit).
    /// When it says stop, the results collected so far are returned marked `interrupted` and
    /// not `completed`, covering simulated time up to the last event processed. The slices
    /// cost one comparison per event: a run's events and bytes do not depend on them.
    pub fn run_controlled(mut self, slice: u64, control: &mut dyn FnMut(&Progress) -> bool) -> Result<RunOutput, String> {
        self.start_run();
        while self.run_slice(self.horizon, slice.max(1)) == Slice::Paused {
            let p = Progress { now: self.sched.now(), horizon: self.horizon, events: self.sched.processed() };
            if !control(&p) {
                self.interrupted = true;
                break;
            }
        }
        if let Some(e) = self.io_error.take() {
            return Err(e);
        }
        crate::output::collect(self)
    }

    /// Schedules what happens at t = 0: applications, sampling, MACs, hop power management.
    pub(crate) fn start_run(&mut self) {
        for app in 0..self.apps.len() as AppId {
            let start = self.flows[self.apps[app as usize].flow()].start;
            if !matches!(self.apps[app as usize], App::DownloadServer { .. } | App::UploadServer { .. } | App::WebServer { .. }) {
                self.schedule_app(app, start);
            }
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
    fn run_slice(&mut self, until: Time, max_events: u64) -> Slice {
        let stop_at = self.sched.processed().saturating_add(max_events);
        while let Some((now, ev)) = self.sched.pop_until(until.min(self.horizon)) {
            match ev {
                Event::TxDone(ch) => self.on_tx_done(now, ch),
                Event::Arrive(ch) => self.on_arrive(now, ch),
                Event::ConnTimer { conn, at } => self.on_conn_timer(now, conn, at),
                Event::AppWake(app) => self.on_app_wake(now, app),
                Event::Sample => self.on_sample(now),
                Event::Wlan { bss, timer } => self.on_wlan_timer(now, bss, timer),
                Event::Hop { hop, timer } => self.on_hop_timer(now, hop, timer),
                Event::Agent { agent, at } => self.on_agent_timer(now, agent, at),
            }
            if self.agents_dirty {
                self.flush_agents(now);
            }
            if self.done_at.is_some() || self.io_error.is_some() {
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

    // ---- links ------------------------------------------------------------------------

    /// Hand `p` to the node's routing: out of the interface towards its destination, past
    /// the node's client-centered agent if it has one there.
    fn send_from(&mut self, node: u32, p: Packet) {
        self.send_routed(node, p, true);
    }

    /// Send a packet a node's agent injected (it does not pass the agent again).
    pub(crate) fn route_and_send(&mut self, node: u32, p: Packet) {
        self.send_routed(node, p, false);
    }

    fn send_routed(&mut self, node: u32, mut p: Packet, through_agent: bool) {
        let Some(&dst) = self.addr_to_node.get(&p.dst) else {
            self.drops.unroutable += 1;
            return;
        };
        let Some((iface, next_hop)) = self.routes.next_hop(node, dst) else {
            self.drops.unroutable += 1;
            return;
        };
        if through_agent && !self.agents.is_empty() && !self.agent_outgoing(self.sched.now(), node, iface, &mut p) {
            return;
        }
        if let Some((bss, sta)) = self.ifaces[iface as usize].wlan {
            self.wlan_send(bss as usize, sta, next_hop, p);
            return;
        }
        let ch = self.ifaces[iface as usize].tx;
        self.enqueue(ch, p);
    }

    fn enqueue(&mut self, ch: ChannelId, p: Packet) {
        let c = &mut self.channels[ch as usize];
        if c.enqueue(p).is_err() {
            return;
        }
        if let Some(h) = c.hop {
            self.hop_on_enqueue(self.sched.now(), h, ch);
        }
        self.kick(ch);
    }

    /// True if `ch` has work and may start it (a power-saving AP may be holding).
    fn can_start(&self, ch: ChannelId) -> bool {
        self.channels[ch as usize].ready() && self.hop_may_send(ch)
    }

    /// Start a transmission on `ch` (or its medium) if it is free and has work.
    pub(crate) fn kick(&mut self, ch: ChannelId) {
        match self.channels[ch as usize].medium {
            None => {
                if self.can_start(ch) {
                    self.start_tx(ch);
                }
            }
            Some(m) => {
                let medium = &self.media[m as usize];
                if medium.busy_with.is_some() {
                    return;
                }
                let [a, b] = medium.channels;
                let ready = [self.can_start(a), self.can_start(b)];
                if let Some(next) = self.media[m as usize].pick(ready) {
                    self.media[m as usize].busy_with = Some(next);
                    self.start_tx(next);
                }
            }
        }
    }

    fn start_tx(&mut self, ch: ChannelId) {
        let now = self.sched.now();
        let c = &mut self.channels[ch as usize];
        let Some((end, &p)) = c.start_tx(now) else { return };
        let (from, to, hop) = (c.from, c.to, c.hop);
        self.sched.schedule(end, Event::TxDone(ch));
        self.capture(from, now, &p, true);
        if let Some(h) = hop {
            self.hop_on_tx_start(h, ch);
        }
        if let Some(r) = self.ifaces[from as usize].radio {
            self.radios[r].activity(now, end, Activity::Tx);
        }
        if let Some(r) = self.ifaces[to as usize].radio {
            if hop.is_none() || self.hop_receiver_hears(ch) {
                self.radios[r].activity(now, end, Activity::Rx);
            }
        }
    }

    fn on_tx_done(&mut self, now: Time, ch: ChannelId) {
        let c = &mut self.channels[ch as usize];
        let Some(sent) = c.finish_tx(now) else { return };
        if let Ok(at) = sent {
            self.sched.schedule(at, Event::Arrive(ch));
        }
        let hop = c.hop;
        if let Some(m) = c.medium {
            self.media[m as usize].busy_with = None;
        }
        self.kick(ch);
        if let Some(h) = hop {
            self.hop_on_tx_done(now, h, ch);
        }
    }

    fn on_arrive(&mut self, now: Time, ch: ChannelId) {
        let c = &mut self.channels[ch as usize];
        let Some((_, p)) = c.pipe.pop_front() else { return };
        let hop = c.hop;
        let to = c.to;
        if !self.agents.is_empty() && !self.agent_incoming(now, self.ifaces[to as usize].node, to, &p) {
            // The agent's radio sleeps: lost (the hop, dozing too, counts it).
            if let Some(h) = hop {
                self.hop_accepts(h, ch);
                self.hop_on_arrived(now, h, ch);
            }
            return;
        }
        if let Some(h) = hop {
            if !self.hop_accepts(h, ch) {
                // A dozing station's interface never sees it: no delivery, no capture.
                self.hop_on_arrived(now, h, ch);
                return;
            }
        }
        let c = &mut self.channels[ch as usize];
        c.stats.packets_delivered += 1;
        let to = c.to;
        self.capture(to, now, &p, false);
        let node = self.ifaces[to as usize].node;
        self.receive(now, node, p);
        if let Some(h) = hop {
            self.hop_on_arrived(now, h, ch);
        }
    }

    fn capture(&mut self, iface: IfaceId, t: Time, p: &Packet, outgoing: bool) {
        let peer = self.ifaces[self.ifaces[iface as usize].peer as usize].mac;
        self.capture_with_peer(iface, t, p, outgoing, peer);
    }

    /// Writes `p` to the interface's capture, if any, with `peer` as the other MAC address.
    pub(crate) fn capture_with_peer(&mut self, iface: IfaceId, t: Time, p: &Packet, outgoing: bool, peer: [u8; 6]) {
        let i = &self.ifaces[iface as usize];
        let Some(k) = i.pcap else { return };
        let (src, dst) = if outgoing { (i.mac, peer) } else { (peer, i.mac) };
        if let Err(e) = self.pcaps[k].1.write(t, p, src, dst) {
            self.io_error.get_or_insert_with(|| format!("writing capture {}: {e}", self.pcaps[k].0));
        }
    }

    // ---- nodes ------------------------------------------------------------------------

    pub(crate) fn receive(&mut self, now: Time, node: u32, mut p: Packet) {
        if p.dst == self.nodes[node as usize].addr {
            self.deliver_local(now, node, p);
            return;
        }
        if self.nodes[node as usize].kind == NodeKind::Host {
            self.drops.not_forwarded += 1;
            return;
        }
        if p.ttl <= 1 {
            self.drops.ttl_expired += 1;
            return;
        }
        p.ttl -= 1;
        self.send_from(node, p);
    }

    fn deliver_local(&mut self, now: Time, node: u32, p: Packet) {
        match p.transport {
            Transport::Tcp(h) => {
                let key = (node, p.dst_endpoint(), p.src_endpoint());
                let c = match self.conn_index.get(&key) {
                    Some(&c) => c,
                    None => {
                        let is_syn = h.flags.contains(TcpFlags::SYN) && !h.flags.contains(TcpFlags::ACK);
                        match is_syn.then(|| self.accept(node, &p)).flatten() {
                            Some(c) => c,
                            None => {
                                self.drops.no_socket += 1;
                                return;
                            }
                        }
                    }
                };
                self.conns[c as usize].conn.handle_segment(now, &p);
                self.drive(now, c);
            }
            Transport::Udp(h) => {
                if let Some(&flow) = self.udp_sinks.get(&(node, h.dst_port)) {
                    let f = &mut self.flows[flow];
                    f.datagrams_received += 1;
                    f.bytes_delivered += p.payload_len as u64;
                } else if let Some(&(flow, responder)) = self.pings.get(&(node, h.dst_port)) {
                    self.on_ping(now, node, flow, responder, &p, h);
                }
            }
            Transport::Other { .. } => {}
        }
    }

    /// Create the server side of a connection for an incoming SYN, if a listener wants it.
    fn accept(&mut self, node: u32, syn: &Packet) -> Option<u32> {
        let local = syn.dst_endpoint();
        let l = self
            .listeners
            .iter()
            .position(|l| !l.taken && l.node == node && l.port == local.port && l.client == syn.src)?;
        let app = self.listeners[l].app;
        // A web server accepts every connection of its client; the others accept one.
        self.listeners[l].taken = !matches!(self.apps[app as usize], App::WebServer { .. });
        let isn = self.isn_rng.random::<u32>();
        let conn = TcpConnection::listen(self.listeners[l].config.clone(), local, isn);
        let c = self.add_conn(conn, node, app, local, syn.src_endpoint());
        let flow = self.apps[app as usize].flow();
        match self.apps[app as usize] {
            App::DownloadServer { .. } => self.flows[flow].data_conn = Some(c),
            App::WebServer { web, .. } => self.web_accepted(web, c, syn.src_endpoint()),
            _ => self.flows[flow].recv_conn = Some(c),
        }
        Some(c)
    }

    pub(crate) fn add_conn(&mut self, conn: TcpConnection, node: u32, app: AppId, local: Endpoint, remote: Endpoint) -> u32 {
        let c = self.conns.len() as u32;
        let hints = Default::default();
        self.conns.push(ConnSlot { conn, node, app, timer_at: None, wire_bytes: 0, wire_packets: 0, hints });
        self.conn_index.insert((node, local, remote), c);
        self.app_conn[app as usize] = Some(c);
        c
    }

    // ---- TCP driving ------------------------------------------------------------------

    /// Flush a connection's output, run its application on its events, re-arm its timer.
    pub(crate) fn drive(&mut self, now: Time, c: u32) {
        loop {
            let node = self.conns[c as usize].node;
            while let Some(p) = self.conns[c as usize].conn.poll_transmit(now) {
                let slot = &mut self.conns[c as usize];
                slot.wire_bytes += p.ip_len() as u64;
                slot.wire_packets += 1;
                self.send_from(node, p);
            }
            let mut any = false;
            while let Some(ev) = self.conns[c as usize].conn.poll_event() {
                any = true;
                self.on_tcp_event(now, c, ev);
            }
            if !any {
                break;
            }
        }
        let slot = &mut self.conns[c as usize];
        if let Some(t) = slot.conn.poll_timeout() {
            let t = t.max(now);
            if slot.timer_at.is_none_or(|s| t < s) {
                slot.timer_at = Some(t);
                self.sched.schedule(t, Event::ConnTimer { conn: c, at: t });
            }
        }
    }

    fn on_conn_timer(&mut self, now: Time, c: u32, at: Time) {
        let slot = &mut self.conns[c as usize];
        if slot.timer_at != Some(at) {
            return; // superseded by an earlier deadline that already ran
        }
        slot.timer_at = None;
        if slot.conn.poll_timeout().is_some_and(|t| t <= now) {
            slot.conn.handle_timeout(now);
        }
        self.drive(now, c);
    }

    // ---- applications -----------------------------------------------------------------

    pub(crate) fn schedule_app(&mut self, app: AppId, at: Time) {
        let slot = &mut self.app_wake_at[app as usize];
        if slot.is_none_or(|s| at < s) {
            *slot = Some(at);
            self.sched.schedule(at, Event::AppWake(app));
        }
    }

    fn on_app_wake(&mut self, now: Time, app: AppId) {
        if self.app_wake_at[app as usize] != Some(now) {
            return; // an earlier wake replaced this one
        }
        self.app_wake_at[app as usize] = None;
        match self.apps[app as usize].clone() {
            App::DownloadClient { .. } | App::UploadClient { .. } if self.app_conn[app as usize].is_none() => {
                self.open_connection(now, app);
            }
            App::DownloadClient { .. } | App::UploadServer { .. } => {
                if let Some(c) = self.app_conn[app as usize] {
                    self.app_read(now, app, c);
                    self.drive(now, c);
                }
            }
            App::CbrSource { flow, interval, size, stop, src_port, dst_port } => {
                if now >= stop {
                    self.finish_flow(now, flow);
                    return;
                }
                let node = self.app_node[app as usize];
                let dst = self.flow_peer_addr(flow);
                let n = &mut self.nodes[node as usize];
                let mut p = Packet::udp(n.addr, dst, UdpHeader { src_port, dst_port }, size);
                p.ip_id = n.next_ip_id;
                n.next_ip_id = n.next_ip_id.wrapping_add(1);
                self.flows[flow].datagrams_sent += 1;
                self.send_from(node, p);
                self.schedule_app(app, now + interval);
            }
            App::PingSource { flow, interval, size, count, src_port, dst_port } => {
                let seq = self.flows[flow].ping_sent.len() as u32;
                if seq >= count {
                    self.finish_flow(now, flow); // replies still missing after PING_WAIT
                    return;
                }
                let node = self.app_node[app as usize];
                let dst = self.flow_peer_addr(flow);
                let mut p = Packet::udp(self.nodes[node as usize].addr, dst, UdpHeader { src_port, dst_port }, size);
                p.ip_id = seq as u16;
                let f = &mut self.flows[flow];
                f.ping_sent.push(now);
                f.datagrams_sent += 1;
                self.send_from(node, p);
                let next = if seq + 1 < count { interval } else { crate::app::PING_WAIT };
                self.schedule_app(app, now + next);
            }
            App::WebClient { web, .. } => self.web_wake(now, web),
            _ => {}
        }
    }

    /// A ping request reached its responder (answer it) or a reply reached the pinger.
    fn on_ping(&mut self, now: Time, node: u32, flow: usize, responder: bool, p: &Packet, h: UdpHeader) {
        if responder {
            let addr = self.nodes[node as usize].addr;
            let mut reply = Packet::udp(addr, p.src, UdpHeader { src_port: h.dst_port, dst_port: h.src_port }, p.payload_len);
            reply.ip_id = p.ip_id;
            self.send_from(node, reply);
            return;
        }
        let f = &mut self.flows[flow];
        let Some(&sent) = f.ping_sent.get(p.ip_id as usize) else { return };
        f.datagrams_received += 1;
        f.bytes_delivered += p.payload_len as u64;
        f.rtts.push(now - sent);
        if f.rtts.len() == f.ping_sent.len() && f.datagrams_sent == f.ping_sent.len() as u64 {
            let expected = match self.apps.iter().find(|a| a.flow() == flow) {
                Some(App::PingSource { count, .. }) => *count as usize,
                _ => 0,
            };
            if f.rtts.len() == expected {
                self.finish_flow(now, flow);
            }
        }
    }

    fn flow_peer_addr(&self, flow: usize) -> Ipv4Addr {
        let name = &self.flows[flow].receiver;
        self.nodes.iter().find(|n| &n.name == name).map(|n| n.addr).unwrap_or(Ipv4Addr::UNSPECIFIED)
    }

    fn open_connection(&mut self, now: Time, app: AppId) {
        let node = self.app_node[app as usize];
        let flow = self.apps[app as usize].flow();
        let Some(l) = self.listeners.iter().find(|l| self.apps[l.app as usize].flow() == flow) else { return };
        let remote = Endpoint::new(self.nodes[l.node as usize].addr, l.port);
        let local = self.ephemeral_endpoint(node);
        let isn = self.isn_rng.random::<u32>();
        let config = self.app_tcp[app as usize].clone().unwrap_or_default();
        let conn = TcpConnection::connect(config, local, remote, isn, now);
        let c = self.add_conn(conn, node, app, local, remote);
        match self.apps[app as usize] {
            App::DownloadClient { .. } => self.flows[flow].recv_conn = Some(c),
            _ => self.flows[flow].data_conn = Some(c),
        }
        self.drive(now, c);
    }

    /// The node's address with its next ephemeral port, for an outgoing connection.
    pub(crate) fn ephemeral_endpoint(&mut self, node: u32) -> Endpoint {
        let n = &mut self.nodes[node as usize];
        let local = Endpoint::new(n.addr, n.next_port);
        n.next_port = if n.next_port == u16::MAX { 49152 } else { n.next_port + 1 };
        local
    }

    fn on_tcp_event(&mut self, now: Time, c: u32, ev: TcpEvent) {
        let app = self.conns[c as usize].app;
        if let App::WebClient { web, .. } | App::WebServer { web, .. } = self.apps[app as usize] {
            return self.web_tcp_event(now, c, web, ev);
        }
        let flow = self.apps[app as usize].flow();
        let conn = &mut self.conns[c as usize].conn;
        match (&mut self.apps[app as usize], ev) {
            (App::DownloadClient { request, .. }, TcpEvent::Connected) => {
                self.flows[flow].connected_at = Some(now);
                conn.send(*request);
            }
            (App::UploadClient { bytes, .. }, TcpEvent::Connected) => {
                self.flows[flow].connected_at = Some(now);
                conn.send(*bytes);
                conn.close();
            }
            (App::DownloadServer { request, response, got, responded, .. }, TcpEvent::Readable) => {
                *got += conn.read(u64::MAX);
                if *got >= *request && !*responded {
                    *responded = true;
                    conn.send(*response);
                    conn.close();
                }
            }
            (App::DownloadClient { .. } | App::UploadServer { .. }, TcpEvent::Readable) => self.app_read(now, app, c),
            (App::DownloadClient { .. } | App::UploadServer { .. }, TcpEvent::PeerFin) => {
                self.app_read(now, app, c);
                self.conns[c as usize].conn.close();
            }
            _ => {}
        }
    }

    /// Let a reading application consume what its reader allows; note completion.
    fn app_read(&mut self, now: Time, app: AppId, c: u32) {
        let flow = self.apps[app as usize].flow();
        let conn = &mut self.conns[c as usize].conn;
        let (n, next) = match &mut self.apps[app as usize] {
            App::DownloadClient { reader, .. } | App::UploadServer { reader, .. } => reader.read(now, conn),
            _ => return,
        };
        self.flows[flow].bytes_delivered += n;
        if let Some(t) = next {
            self.schedule_app(app, t);
        }
        let f = &self.flows[flow];
        if f.completed_at.is_none() && f.target_bytes.is_some_and(|t| f.bytes_delivered >= t) {
            if matches!(self.apps[app as usize], App::DownloadClient { .. }) {
                // The whole response is in: the client closes its side too.
                self.conns[c as usize].conn.close();
            }
            self.finish_flow(now, flow);
        }
    }

    pub(crate) fn finish_flow(&mut self, now: Time, flow: usize) {
        if self.flows[flow].completed_at.is_some() {
            return;
        }
        self.flows[flow].completed_at = Some(now);
        self.unfinished_flows = self.unfinished_flows.saturating_sub(1);
        if self.unfinished_flows == 0 && self.stop_when_done {
            self.done_at = Some(now);
        }
    }

    // ---- sampling ---------------------------------------------------------------------

    fn on_sample(&mut self, now: Time) {
        let Some(ts) = self.timeseries.as_mut() else { return };
        for (i, f) in self.flows.iter().enumerate() {
            let Some(c) = f.data_conn else { continue };
            let snd = &self.conns[c as usize].conn;
            let adv = f.recv_conn.map(|r| self.conns[r as usize].conn.advertised_window()).unwrap_or(0);
            ts.push_flow(now, i as u32, snd, adv, f.bytes_delivered);
        }
        for (i, c) in self.channels.iter().enumerate() {
            ts.push_queue(now, i as u32, c.queue.len() as u32, c.queue.bytes());
        }
        self.sched.schedule(now + self.sample_interval, Event::Sample);
    }

    /// Number of events processed.
    pub fn events(&self) -> u64 {
        self.sched.processed()
    }

    /// A fresh reader for an application (used while building).
    pub(crate) fn reader(rate: Option<u64>, pause: Option<(Time, Time)>, buffer: u64, start: Time) -> Reader {
        Reader::new(rate, pause, buffer, start)
    }
}
