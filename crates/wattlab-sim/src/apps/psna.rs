//! `psna-read` and `psna-send`: seed 001's Power Saving Network Architecture as one flow with
//! three ends. The **mobile** (`client`) runs a [`PsnaMobile`] on an engine socket and switches
//! its station's radio on and off as the engine commands (the station's `power_save` must be
//! `psna`, or `external`: a driven mode, so the radio is really **off**, with the profile's
//! off ↔ idle transition costs). The **daemon** (`ap`, by default the client's access point)
//! runs a [`PsnaDaemon`] on an engine socket and opens one simulated TCP connection to the
//! fixed host per `FhCommand::Open`, feeding it what the connection does (connected, every
//! segment's bytes, acknowledgements, FIN, reset) and writing a send's relay bytes. The
//! **fixed host** (`server`) serves the object as `bulk-download`'s server does (a request,
//! then `bytes` and FIN) or reads an upload to its end.
//!
//! A send's acknowledgements are read from the AP's connection every [`ACK_POLL`] (TCP has
//! no event per ACK); reads get one `handle_fh_data` call per MSS-sized read, so the
//! estimator counts packets exactly. Columns: [`PsnaMetrics`].

use super::build::BuildCx;
use super::metrics::{FlowCost, FlowMetrics};
use super::{AppCtx, Application, Flow, FlowRecord};
use crate::scenario::{PsnaFlow, ScenarioError};
use crate::stack::{Listener, SockId, SocketEvent, Stack};
use rand::Rng;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use wattlab_core::psna::{
    DaemonEvent, Direction, FhCommand, FhId, MobileEvent, PsnaDaemon, PsnaMobile,
};
use wattlab_core::tcp::{TcpConfig, TcpEvent};
use wattlab_core::{Duration, Endpoint, Time};

/// Default UDP port of the daemon on the AP.
pub const DAEMON_PORT: u16 = 7300;
/// How often a send's AP connection is checked for newly acknowledged bytes.
pub const ACK_POLL: Duration = Duration::from_millis(50);
/// The object's name in requests (short: a READ_REQ fits the packet's inline header).
const OBJECT: &str = "obj";

/// What the simulator writes as payload (it carries no payload bytes).
static ZEROS: [u8; 65_536] = [0; 65_536];

/// Whether a node's card is on, shared by every PSNA flow of that node (on at the start).
///
/// Each transfer has its own mobile; the last one to switch the card decides its state, and a
/// later transfer's mobile starts from that state (a mobile built believing the card on would
/// send its request into a card the previous transfer switched off, and never start).
#[derive(Clone, Debug)]
pub struct Card(Arc<AtomicBool>);

impl Card {
    /// True if the card is on now.
    pub fn is_on(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    fn set(&self, on: bool) {
        self.0.store(on, Ordering::Relaxed);
    }
}

/// The [`Card`] of each node with a PSNA flow, while the flows are built.
#[derive(Debug, Default)]
pub struct Cards(HashMap<u32, Card>);

impl Cards {
    /// The card of node `node` (a new one, on, for its first PSNA flow).
    pub fn of(&mut self, node: u32) -> Card {
        self.0.entry(node).or_insert_with(|| Card(Arc::new(AtomicBool::new(true)))).clone()
    }
}

/// A PSNA flow from its `[[flow]]`: the mobile on `client`, the daemon on `ap` (default: the
/// client's AP), the fixed host on `server`.
pub(super) fn build(cx: &mut BuildCx, f: &PsnaFlow, dir: Direction) -> Result<(Flow, FlowRecord), ScenarioError> {
    let c = cx.node("client", &f.client)?;
    let s = cx.node("server", &f.server)?;
    let a = match &f.ap {
        Some(name) => cx.node("ap", name)?,
        None => (cx.ap_of)(c).ok_or_else(|| {
            cx.error("client", "is not the station of a [[wireless]] hop or a [[wlan]]: name the daemon's node with `ap`")
        })?,
    };
    if a == c || a == s {
        return Err(cx.error(
            "ap",
            "the daemon must run on a node other than the client and the server",
        ));
    }
    cx.path(c, a, "ap", true);
    cx.path(a, s, "server", true);
    let settings = f.psna.clone().unwrap_or_default();
    let cfgs = settings
        .configs()
        .map_err(|(k, m)| cx.error(&if k.is_empty() { "psna".to_string() } else { format!("psna.{k}") }, m))?;
    let tcp = cx.tcp()?;
    let bytes = f.bytes.bytes();
    if bytes == 0 {
        return Err(cx.error(
            "bytes",
            "must be at least 1 byte (PSNA's application knows the object's size)",
        ));
    }
    if bytes > cfgs.daemon.max_object {
        return Err(cx.error(
            "bytes",
            format!(
                "larger than the daemon's buffer (psna.max_object = {} B)",
                cfgs.daemon.max_object
            ),
        ));
    }
    let request = f.request.map(|r| r.bytes()).unwrap_or(100).max(1);
    let port = cx
        .cfg
        .port
        .unwrap_or(if dir == Direction::Read { 80 } else { 5001 });
    let name = cx.name();
    let first_id = cx
        .streams
        .stream(&format!("psna:{name}:id"))
        .random::<u32>();
    let wait_poll = cfgs.mobile.wait_poll_interval;
    let mobile = PsnaMobile::new(cfgs.mobile, first_id, true)
        .map_err(|e| cx.error("psna", e.to_string()))?;
    let daemon = PsnaDaemon::new(cfgs.daemon).map_err(|e| cx.error("psna", e.to_string()))?;
    let owner = cx.index as u32;
    let d_ep = Endpoint::new(
        cx.addrs[a as usize],
        settings.daemon_port.unwrap_or(DAEMON_PORT),
    );
    let m_ep = Endpoint::new(cx.addrs[c as usize], 30_000 + cx.index as u16);
    let d = cx
        .stack
        .bind_engine(a, d_ep, None, daemon, None, owner)
        .ok_or_else(|| {
            cx.error(
                "ap",
                format!(
                    "UDP port {} of the daemon's node is taken (psna.daemon_port)",
                    d_ep.port
                ),
            )
        })?;
    let m = cx
        .stack
        .bind_engine(c, m_ep, Some(d_ep), mobile, None, owner)
        .ok_or_else(|| {
            cx.error(
                "client",
                format!("UDP port {} of the client is taken", m_ep.port),
            )
        })?;
    cx.stack.listen(Listener {
        node: s,
        port,
        client: cx.addrs[a as usize],
        owner,
        tag: 0,
        config: tcp.clone(),
        many: false,
        taken: false,
    });
    let names = (
        cx.node_names[c as usize].clone(),
        cx.node_names[s as usize].clone(),
    );
    let (sender, receiver) = if dir == Direction::Read {
        (names.1, names.0)
    } else {
        names
    };
    let record = FlowRecord {
        name,
        kind: cx.cfg.kind(),
        sender,
        receiver,
        target_bytes: Some(bytes),
        start: cx.start(),
        finite: true,
        ..Default::default()
    };
    let serve = settings
        .fh_stop_after
        .map_or(bytes, |b| b.bytes().min(bytes));
    let fh = Endpoint::new(cx.addrs[s as usize], port);
    let card = cx.psna_cards.of(c);
    let mut flow = Psna::new(dir, c, a, fh, m, d, bytes, serve, request, tcp, card);
    flow.wait_poll = wait_poll;
    Ok((Flow::Psna(Box::new(flow)), record))
}

/// One FH connection the daemon asked for.
struct FhConn {
    fh: FhId,
    sock: SockId,
    dir: Direction,
    /// Bytes handed to TCP (send).
    written: u64,
    /// Bytes the FH acknowledged (send).
    acked: u64,
    /// The daemon is done with it (closed or aborted).
    released: bool,
}

/// A PSNA transfer: mobile, daemon, the daemon's FH connections and the fixed host's end.
pub struct Psna {
    dir: Direction,
    client: u32,
    ap: u32,
    fh_ep: Endpoint,
    mobile: SockId,
    daemon: SockId,
    bytes: u64,
    /// Object bytes the fixed host serves before it stops (read).
    serve: u64,
    request: u64,
    tcp: TcpConfig,
    started: bool,
    fhs: Vec<FhConn>,
    /// The fixed host's accepted connection, its request bytes read, bytes it received.
    server: Option<SockId>,
    server_got: u64,
    server_responded: bool,
    /// The mobile's radio commands (at, on).
    radio: Vec<(Time, bool)>,
    /// Residual_Times the mobile received (at, value).
    mobile_residuals: Vec<(Time, Duration)>,
    /// Residual_Times the daemon announced (at, value).
    announced: Vec<(Time, Duration)>,
    fh_complete: Option<Time>,
    samples: u64,
    last_estimate: Option<f64>,
    error: Option<String>,
    ack_wake: Option<Time>,
    /// The mobile's re-poll period while it waits on (`psna.wait_poll_interval`), for the
    /// cost estimate.
    wait_poll: Duration,
    /// The client's card, shared with its other PSNA flows.
    card: Card,
    /// The card's state when the transfer started (its radio-on time counts from there).
    on_at_start: bool,
}

impl Psna {
    #[allow(clippy::too_many_arguments)]
    fn new(
        dir: Direction,
        client: u32,
        ap: u32,
        fh_ep: Endpoint,
        mobile: SockId,
        daemon: SockId,
        bytes: u64,
        serve: u64,
        request: u64,
        tcp: TcpConfig,
        card: Card,
    ) -> Psna {
        Psna {
            dir,
            client,
            ap,
            fh_ep,
            mobile,
            daemon,
            bytes,
            serve,
            request,
            tcp,
            started: false,
            fhs: Vec::new(),
            server: None,
            server_got: 0,
            server_responded: false,
            radio: Vec::new(),
            mobile_residuals: Vec::new(),
            announced: Vec::new(),
            fh_complete: None,
            samples: 0,
            last_estimate: None,
            error: None,
            ack_wake: None,
            wait_poll: Duration::from_secs(5),
            card,
            on_at_start: true,
        }
    }

    fn start(&mut self, cx: &mut AppCtx) {
        let m = cx.stack.engine::<PsnaMobile>(self.mobile);
        // An earlier transfer on this node may have switched the card off.
        self.on_at_start = self.card.is_on();
        m.card_is(self.on_at_start);
        let r = match self.dir {
            Direction::Read => m.read(cx.now, self.fh_ep, OBJECT, Some(self.bytes)),
            Direction::Send => m.send(cx.now, self.fh_ep, OBJECT, vec![0; self.bytes as usize]),
        };
        if let Err(e) = r {
            self.error = Some(e.to_string());
            cx.fail();
        }
        cx.drive(self.mobile);
    }

    fn on_mobile(&mut self, cx: &mut AppCtx, ev: MobileEvent) {
        match ev {
            MobileEvent::Radio(r) => {
                self.radio.push((r.at, r.on));
                self.card.set(r.on);
                cx.radio(self.client, r.on);
            }
            MobileEvent::Residual { at, residual } => {
                self.mobile_residuals.push((at, residual))
            }
            MobileEvent::Completed { bytes, .. } => {
                if self.dir == Direction::Read {
                    let got = cx
                        .stack
                        .engine::<PsnaMobile>(self.mobile)
                        .take_object()
                        .map_or(bytes, |o| o.len() as u64);
                    cx.record.bytes_delivered = got;
                } else {
                    cx.record.bytes_delivered = self.server_got;
                }
                cx.finish();
            }
            MobileEvent::Failed { error, .. } => {
                self.error = Some(error.to_string());
                cx.fail();
            }
        }
    }

    fn on_daemon(&mut self, cx: &mut AppCtx, ev: DaemonEvent) {
        match ev {
            DaemonEvent::Fh(c) => self.fh_command(cx, c),
            DaemonEvent::Input => self.relay(cx),
            DaemonEvent::Residual { at, residual, .. } => self.announced.push((at, residual)),
            DaemonEvent::FhComplete { at, .. } => self.fh_complete = Some(at),
            DaemonEvent::Sampled { sample, .. } => {
                self.samples += 1;
                self.last_estimate = Some(sample.estimate);
            }
            _ => {}
        }
    }

    fn fh_command(&mut self, cx: &mut AppCtx, c: FhCommand) {
        match c {
            FhCommand::Open {
                fh,
                addr,
                port,
                dir,
                ..
            } => {
                let ap_addr = cx.net.addr(self.ap);
                let sock = cx.stack.connect(
                    cx.now,
                    self.ap,
                    ap_addr,
                    Endpoint::new(addr, port),
                    self.tcp.clone(),
                    cx.flow,
                );
                self.fhs.push(FhConn {
                    fh,
                    sock,
                    dir,
                    written: 0,
                    acked: 0,
                    released: false,
                });
                cx.drive(sock);
            }
            FhCommand::Close(fh) | FhCommand::Abort(fh) => {
                if let Some(f) = self.fhs.iter_mut().find(|f| f.fh == fh && !f.released) {
                    // (A reset is not modelled: the connection is closed gracefully.)
                    f.released = true;
                    let sock = f.sock;
                    cx.stack.tcp(sock).close();
                    cx.drive(sock);
                }
            }
        }
    }

    /// Send: writes the daemon's relay bytes to their connections.
    fn relay(&mut self, cx: &mut AppCtx) {
        for f in self
            .fhs
            .iter_mut()
            .filter(|f| f.dir == Direction::Send && !f.released)
        {
            if cx.stack.tcp_ref(f.sock).state() != wattlab_core::tcp::TcpState::Established {
                continue;
            }
            let n = cx.stack.engine::<PsnaDaemon>(self.daemon).fh_outgoing(f.fh).len();
            if n > 0 {
                cx.stack.tcp(f.sock).send(n as u64);
                cx.stack.engine::<PsnaDaemon>(self.daemon).fh_written(f.fh, n);
                f.written += n as u64;
                cx.drive(f.sock);
            }
        }
        cx.drive(self.daemon);
        self.arm_ack_poll(cx);
    }

    /// Send: tells the daemon what the FH acknowledged since the last look.
    fn check_acked(&mut self, cx: &mut AppCtx) {
        for f in self.fhs.iter_mut().filter(|f| f.dir == Direction::Send) {
            let acked = f.written - cx.stack.tcp_ref(f.sock).unacked_bytes().min(f.written);
            if acked > f.acked {
                cx.stack
                    .engine::<PsnaDaemon>(self.daemon)
                    .handle_fh_acked(cx.now, f.fh, acked - f.acked);
                f.acked = acked;
            }
        }
        cx.drive(self.daemon);
        self.arm_ack_poll(cx);
    }

    fn arm_ack_poll(&mut self, cx: &mut AppCtx) {
        let waiting = self
            .fhs
            .iter()
            .any(|f| f.dir == Direction::Send && f.written > f.acked);
        if waiting && self.ack_wake.is_none_or(|t| t <= cx.now) {
            let t = cx.now + ACK_POLL;
            self.ack_wake = Some(t);
            cx.wake_at(t);
        }
    }

    fn on_fh(&mut self, cx: &mut AppCtx, i: usize, ev: TcpEvent) {
        let (fh, sock, dir) = (self.fhs[i].fh, self.fhs[i].sock, self.fhs[i].dir);
        if dir == Direction::Send {
            // Acknowledgements first: a FIN after the last ACK must find the send complete.
            self.check_acked(cx);
        }
        match ev {
            TcpEvent::Connected => {
                cx.stack
                    .engine::<PsnaDaemon>(self.daemon)
                    .handle_fh_connected(cx.now, fh);
                if dir == Direction::Read {
                    cx.stack.tcp(sock).send(self.request);
                } else {
                    self.relay(cx);
                }
            }
            TcpEvent::Readable | TcpEvent::PeerFin => {
                let mss = u64::from(cx.stack.tcp_ref(sock).effective_mss()).max(1);
                loop {
                    let n = cx.stack.tcp(sock).read(mss) as usize;
                    if n == 0 {
                        break;
                    }
                    cx.stack
                        .engine::<PsnaDaemon>(self.daemon)
                        .handle_fh_data(cx.now, fh, &ZEROS[..n]);
                }
                if ev == TcpEvent::PeerFin {
                    cx.stack
                        .engine::<PsnaDaemon>(self.daemon)
                        .handle_fh_closed(cx.now, fh);
                    if dir == Direction::Send {
                        cx.stack.tcp(sock).close();
                    }
                }
            }
            TcpEvent::Reset | TcpEvent::TimedOut => cx
                .stack
                .engine::<PsnaDaemon>(self.daemon)
                .handle_fh_aborted(cx.now, fh),
            TcpEvent::Closed => {}
        }
        if dir == Direction::Send {
            self.check_acked(cx);
        }
        cx.drive(self.daemon);
        cx.drive(sock);
    }

    fn on_server(&mut self, cx: &mut AppCtx, s: SockId, ev: TcpEvent) {
        match (self.dir, ev) {
            (Direction::Read, TcpEvent::Readable) => {
                self.server_got += cx.stack.tcp(s).read(u64::MAX);
                if self.server_got >= self.request && !self.server_responded {
                    self.server_responded = true;
                    let c = cx.stack.tcp(s);
                    c.send(self.serve);
                    c.close();
                }
            }
            (Direction::Send, TcpEvent::Readable | TcpEvent::PeerFin) => {
                let c = cx.stack.tcp(s);
                self.server_got += c.read(u64::MAX);
                if ev == TcpEvent::PeerFin {
                    c.close();
                }
            }
            _ => {}
        }
        cx.drive(s);
    }

    /// Radio-on time within `[from, to)`, from the card's state at the flow's start.
    fn on_time(&self, start: Time, from: Time, to: Time) -> f64 {
        let overlap = |a: Time, b: Time| {
            let (a, b) = (a.max(from), b.min(to));
            if b > a {
                (b - a).as_secs_f64()
            } else {
                0.0
            }
        };
        let (mut on, mut since, mut total) = (self.on_at_start, start, 0.0);
        for &(at, state) in &self.radio {
            if on && !state {
                total += overlap(since, at);
            }
            if state && !on {
                since = at;
            }
            on = state;
        }
        if on {
            total += overlap(since, to);
        }
        total
    }
}

impl Application for Psna {
    /// The relayed TCP transfer; a re-poll every `wait_poll_interval` at most while it lasts;
    /// the object held whole at the daemon and, for a send, at the mobile.
    fn cost(&self, record: &FlowRecord, path_rate_bps: f64, horizon_s: f64) -> FlowCost {
        let mut c = FlowCost::tcp(record, path_rate_bps, horizon_s, 0.0);
        let secs = (horizon_s - record.start.as_nanos() as f64 / 1e9).max(0.0);
        c.timers = secs * 1e9 / self.wait_poll.as_nanos().max(1) as f64;
        c.timer_keys = "raise psna.wait_poll_interval";
        c.memory = self.bytes as f64 * if self.dir == Direction::Send { 2.0 } else { 1.0 };
        c.memory_keys = "lower bytes (PSNA holds the whole object)";
        c
    }

    fn on_wake(&mut self, cx: &mut AppCtx) {
        if !self.started {
            self.started = true;
            self.start(cx);
            return;
        }
        if self.ack_wake.is_some_and(|t| t <= cx.now) {
            self.ack_wake = None;
            self.check_acked(cx);
        }
    }

    fn on_accept(&mut self, _cx: &mut AppCtx, sock: SockId, _tag: u32, _remote: Endpoint) {
        self.server = Some(sock);
    }

    fn on_socket(&mut self, cx: &mut AppCtx, s: SockId, ev: SocketEvent) {
        match ev {
            SocketEvent::Engine if s == self.mobile => {
                if let Some(e) = cx.stack.take_event::<PsnaMobile>(s) {
                    self.on_mobile(cx, e);
                }
            }
            SocketEvent::Engine if s == self.daemon => {
                if let Some(e) = cx.stack.take_event::<PsnaDaemon>(s) {
                    self.on_daemon(cx, e);
                }
            }
            SocketEvent::Tcp(e) if Some(s) == self.server => self.on_server(cx, s, e),
            SocketEvent::Tcp(e) => {
                if let Some(i) = self.fhs.iter().position(|f| f.sock == s) {
                    self.on_fh(cx, i, e);
                }
            }
            _ => {}
        }
    }

    fn metrics(&self, stack: &Stack, record: &FlowRecord, end: Time) -> FlowMetrics {
        let m = stack.engine_ref::<PsnaMobile>(self.mobile);
        let d = stack.engine_ref::<PsnaDaemon>(self.daemon);
        let stop = record.completed_at.or(record.failed_at).unwrap_or(end);
        let start = record.start;
        // The burst: a read's download from the Residual_Time 0; a send's upload until the
        // first Residual_Time (from the request, the FH connection set-up included).
        let (burst_from, burst_to) = match self.dir {
            Direction::Read => (
                self.mobile_residuals
                    .iter()
                    .find(|r| r.1 == Duration::ZERO)
                    .map(|r| r.0),
                record.completed_at,
            ),
            Direction::Send => (Some(start), self.mobile_residuals.first().map(|r| r.0)),
        };
        let on = self.on_time(start, start, stop);
        let burst_on = match (burst_from, burst_to) {
            (Some(a), Some(b)) => self.on_time(start, a, b),
            _ => 0.0,
        };
        let errors: Vec<f64> = match self.fh_complete {
            Some(done) => self
                .announced
                .iter()
                .filter(|r| r.1 > Duration::ZERO)
                .map(|&(at, r)| ((at + r).as_secs_f64() - done.as_secs_f64()).abs())
                .collect(),
            None => Vec::new(),
        };
        let st = m.stats();
        FlowMetrics::Psna(PsnaMetrics {
            direction: if self.dir == Direction::Read {
                "read"
            } else {
                "send"
            },
            object_bytes: self.bytes,
            error: self.error.clone(),
            failed_s: record
                .failed_at
                .map(|t| t.saturating_since(start).as_secs_f64()),
            requests: st.requests,
            retransmissions: st.retransmissions,
            polls: st.polls,
            sleeps: st.sleeps,
            radio_on_switches: self.radio.iter().filter(|r| r.1).count() as u64,
            radio_off_switches: self.radio.iter().filter(|r| !r.1).count() as u64,
            radio_on_s: on,
            signalling_on_s: on - burst_on,
            burst_s: match (burst_from, burst_to) {
                (Some(a), Some(b)) => Some(b.saturating_since(a).as_secs_f64()),
                _ => None,
            },
            first_residual_s: self
                .mobile_residuals
                .first()
                .map(|r| r.0.saturating_since(start).as_secs_f64()),
            fh_complete_s: self
                .fh_complete
                .map(|t| t.saturating_since(start).as_secs_f64()),
            residuals_announced: self.announced.len() as u64,
            residual_error_mean_s: (!errors.is_empty())
                .then(|| errors.iter().sum::<f64>() / errors.len() as f64),
            residual_error_max_s: errors.iter().copied().reduce(f64::max),
            estimator_samples: self.samples,
            final_estimate_bps: self.last_estimate.map(|b| b * 8.0),
            daemon_polls: d.stats().polls,
            daemon_data_sent: d.stats().data_sent,
            fh_connections: self.fhs.len() as u64,
            fh_bytes_received: if self.dir == Direction::Send {
                self.server_got
            } else {
                0
            },
        })
    }
}

/// What a PSNA transfer did (seed 001's extra metrics; the card's energy is in the radio and
/// flow-energy tables, under the station's `psna` meter).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PsnaMetrics {
    /// `read` or `send`.
    pub direction: &'static str,
    /// The object's size (bytes).
    pub object_bytes: u64,
    /// Why the transfer failed (the mobile's error), if it did.
    pub error: Option<String>,
    /// When it failed (s after the start).
    pub failed_s: Option<f64>,
    /// PS-TP requests the mobile sent (first transmissions).
    pub requests: u64,
    /// Their retransmissions.
    pub retransmissions: u64,
    /// Polls.
    pub polls: u64,
    /// Times the radio was switched off for a Residual_Time.
    pub sleeps: u64,
    /// Radio switched on (off → on transitions).
    pub radio_on_switches: u64,
    /// Radio switched off (on → off transitions).
    pub radio_off_switches: u64,
    /// Radio-on time from the start to completion (or failure, or the run's end), s.
    pub radio_on_s: f64,
    /// Radio-on time outside the data burst (request, waits, polls), s.
    pub signalling_on_s: f64,
    /// The burst: a read's download from Residual_Time 0 to completion, a send's upload from
    /// the request to the first Residual_Time (s).
    pub burst_s: Option<f64>,
    /// The first Residual_Time reached the mobile (s after the start): the initial on-wait.
    pub first_residual_s: Option<f64>,
    /// The object was entirely at the AP (read) or acknowledged by the FH (send), s.
    pub fh_complete_s: Option<f64>,
    /// Non-zero and zero Residual_Times the daemon announced.
    pub residuals_announced: u64,
    /// Mean |announce time + residual − FH completion| over the non-zero ones (s).
    pub residual_error_mean_s: Option<f64>,
    /// Largest such error (s).
    pub residual_error_max_s: Option<f64>,
    /// Throughput samples λ_i the estimator took.
    pub estimator_samples: u64,
    /// The last estimate λ̄, in bits/s.
    pub final_estimate_bps: Option<f64>,
    /// Polls the daemon answered.
    pub daemon_polls: u64,
    /// DATA messages the daemon sent.
    pub daemon_data_sent: u64,
    /// TCP connections the daemon opened to the fixed host.
    pub fh_connections: u64,
    /// Bytes the fixed host's application received (send; 0 for a read).
    pub fh_bytes_received: u64,
}
