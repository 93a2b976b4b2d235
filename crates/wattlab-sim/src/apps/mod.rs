//! Applications: one module per kind of `[[flow]]`, behind one interface ([`Application`]).
//!
//! A flow is one application instance with its endpoints on several nodes (a download's
//! client and server, a browser and its web servers). It owns sockets in the host stack and
//! acts only through an [`AppCtx`]: it reads and writes its sockets directly, and everything
//! with a side effect elsewhere (flushing a socket into the network, a wake-up, its completion,
//! a hint for a client-side agent) is recorded as an [`AppOutput`], in order, and carried out by
//! the simulation once the handler returns. Results come back as a common [`FlowRecord`] plus
//! the kind's own columns ([`FlowMetrics`]).
//!
//! To add a kind: its settings struct in `crate::scenario::flow` (read and range-checked
//! there), then here a module with its builder and its [`Application`] impl, a variant of
//! [`Flow`], an arm in [`build`], and its test.

pub mod build;
pub mod bulk;
pub mod cbr;
pub mod delay;
pub mod echo;
pub mod metrics;
pub mod ping;
pub mod psna;
pub mod reader;
pub mod tcp_keys;
pub mod udp_rr;
pub mod web;
pub mod wwp_bulk;

pub use metrics::{FlowCost, FlowMetrics};

use crate::net::Network;
use crate::scenario::{FlowSettings, ScenarioError};
use crate::stack::{SockId, SocketEvent, Stack};
use wattlab_core::{Endpoint, Time};

/// Index of a flow (the position of its `[[flow]]`).
pub type FlowId = u32;

/// What every flow records, whatever its kind.
#[derive(Clone, Debug, Default)]
pub struct FlowRecord {
    /// Name in reports.
    pub name: String,
    /// Kind (`bulk-download`, `udp-cbr`, ...).
    pub kind: &'static str,
    /// Node that sends the data.
    pub sender: String,
    /// Node that receives it.
    pub receiver: String,
    /// Bytes the flow must deliver (None: runs until stopped).
    pub target_bytes: Option<u64>,
    /// When the flow starts.
    pub start: Time,
    /// When its first connection was established (TCP flows).
    pub connected_at: Option<Time>,
    /// When it completed.
    pub completed_at: Option<Time>,
    /// Application bytes delivered to the receiving application.
    pub bytes_delivered: u64,
    /// True if the run waits for this flow to complete.
    pub finite: bool,
    /// When it gave up (it will never complete; the run no longer waits for it).
    pub failed_at: Option<Time>,
}

/// Something a flow did that the simulation carries out after its handler.
#[derive(Clone, Copy, Debug)]
pub enum AppOutput {
    /// Flush the socket: send what it queued, deliver its events, re-arm its timer.
    Drive(SockId),
    /// Wake the flow at this time.
    Wake(Time),
    /// The flow is complete.
    Finished,
    /// A hint for the client-side agents of a node.
    Hint(Hint),
    /// The flow failed: it will never complete, the run no longer waits for it.
    Failed,
    /// A driver's command to the station radio of node `node`: on (wake) or off (no power).
    Radio {
        /// The station's node.
        node: u32,
        /// On (true) or off.
        on: bool,
    },
}

/// What a client application knows that a client-side agent (seed 000's CC) may use.
#[derive(Clone, Copy, Debug)]
pub enum Hint {
    /// A new page starts on `node`: agents there forget their per-site RTT cache.
    NewPage {
        /// The browser's node.
        node: u32,
    },
    /// The response arriving on socket `sock` is `bytes` long (header + body).
    ResponseSize {
        /// The client-side socket.
        sock: SockId,
        /// Response bytes.
        bytes: u64,
    },
}

/// A flow's view of the simulation while one of its handlers runs.
pub struct AppCtx<'a> {
    /// The current time.
    pub now: Time,
    /// The flow whose handler runs (the owner of the sockets it opens).
    pub flow: FlowId,
    /// The host stack (the flow's sockets, new connections).
    pub stack: &'a mut Stack,
    /// The network (read-only: node addresses).
    pub net: &'a Network,
    /// The flow's common record.
    pub record: &'a mut FlowRecord,
    out: &'a mut Vec<AppOutput>,
}

impl<'a> AppCtx<'a> {
    /// A context for one handler; outputs are appended to `out`.
    pub fn new(
        now: Time,
        flow: FlowId,
        stack: &'a mut Stack,
        net: &'a Network,
        record: &'a mut FlowRecord,
        out: &'a mut Vec<AppOutput>,
    ) -> Self {
        AppCtx { now, flow, stack, net, record, out }
    }

    /// Flush socket `s` into the network once the handler returns.
    pub fn drive(&mut self, s: SockId) {
        self.out.push(AppOutput::Drive(s));
    }

    /// Wake this flow at `at`.
    pub fn wake_at(&mut self, at: Time) {
        self.out.push(AppOutput::Wake(at));
    }

    /// The flow is complete.
    pub fn finish(&mut self) {
        self.out.push(AppOutput::Finished);
    }

    /// The flow failed and will never complete.
    pub fn fail(&mut self) {
        self.out.push(AppOutput::Failed);
    }

    /// Switch the station radio of node `node` on or off (its `power_save` must be a driven
    /// mode, `psna` or `external`; other modes ignore it).
    pub fn radio(&mut self, node: u32, on: bool) {
        self.out.push(AppOutput::Radio { node, on });
    }

    /// Tell the client-side agents something.
    pub fn hint(&mut self, h: Hint) {
        self.out.push(AppOutput::Hint(h));
    }

    /// The endpoint of node `n` at `port`.
    pub fn endpoint(&self, n: u32, port: u16) -> Endpoint {
        Endpoint::new(self.net.addr(n), port)
    }
}

/// The interface every kind of flow implements.
pub trait Application {
    /// The flow's wake-up: at its start, then whenever it asked ([`AppCtx::wake_at`]).
    fn on_wake(&mut self, cx: &mut AppCtx);
    /// An event of one of its sockets.
    fn on_socket(&mut self, cx: &mut AppCtx, sock: SockId, ev: SocketEvent);
    /// One of its listeners accepted `sock` from `remote` (`tag`: the listener's).
    fn on_accept(&mut self, _cx: &mut AppCtx, _sock: SockId, _tag: u32, _remote: Endpoint) {}
    /// The kind's own result columns at the end of the run (`end`).
    fn metrics(&self, stack: &Stack, record: &FlowRecord, end: Time) -> FlowMetrics;
    /// The connection that sends the flow's data and the one that receives it, for time
    /// series (None: nothing to sample).
    fn sampled(&self) -> Option<(SockId, Option<SockId>)> {
        None
    }
    /// Its expected cost, given the slowest link of its path and the stop time (a TCP transfer
    /// of its target bytes unless the kind says otherwise).
    fn cost(&self, record: &FlowRecord, path_rate_bps: f64, horizon_s: f64) -> FlowCost {
        FlowCost::tcp(record, path_rate_bps, horizon_s, 0.0)
    }
}

/// A flow of any kind.
pub enum Flow {
    /// `bulk-download` or `bulk-upload`.
    Bulk(bulk::Bulk),
    /// `udp-cbr`.
    Cbr(cbr::Cbr),
    /// `ping`.
    Ping(ping::Ping),
    /// `web`.
    Web(Box<web::Web>),
    /// `udp-rr`.
    UdpRr(udp_rr::UdpRr),
    /// `wwp-bulk`.
    Wwp(wwp_bulk::WwpBulk),
    /// `psna-read` or `psna-send`.
    Psna(Box<psna::Psna>),
    /// `echo`.
    Echo(echo::Echo),
}

macro_rules! each_kind {
    ($self:ident, $f:ident => $body:expr) => {
        match $self {
            Flow::Bulk($f) => $body,
            Flow::Cbr($f) => $body,
            Flow::Ping($f) => $body,
            Flow::Web($f) => $body,
            Flow::UdpRr($f) => $body,
            Flow::Wwp($f) => $body,
            Flow::Psna($f) => $body,
            Flow::Echo($f) => $body,
        }
    };
}

impl Application for Flow {
    fn on_wake(&mut self, cx: &mut AppCtx) {
        each_kind!(self, f => f.on_wake(cx))
    }
    fn on_socket(&mut self, cx: &mut AppCtx, sock: SockId, ev: SocketEvent) {
        each_kind!(self, f => f.on_socket(cx, sock, ev))
    }
    fn on_accept(&mut self, cx: &mut AppCtx, sock: SockId, tag: u32, remote: Endpoint) {
        each_kind!(self, f => f.on_accept(cx, sock, tag, remote))
    }
    fn metrics(&self, stack: &Stack, record: &FlowRecord, end: Time) -> FlowMetrics {
        each_kind!(self, f => f.metrics(stack, record, end))
    }
    fn sampled(&self) -> Option<(SockId, Option<SockId>)> {
        each_kind!(self, f => f.sampled())
    }
    fn cost(&self, record: &FlowRecord, path_rate_bps: f64, horizon_s: f64) -> FlowCost {
        each_kind!(self, f => f.cost(record, path_rate_bps, horizon_s))
    }
}

/// Turns a `[[flow]]` into its flow and record, by its kind (its sockets and listeners into
/// the stack).
pub fn build(cx: &mut build::BuildCx) -> Result<(Flow, FlowRecord), ScenarioError> {
    let cfg = cx.cfg;
    match &cfg.settings {
        FlowSettings::BulkDownload(f) => bulk::build(cx, f, bulk::Direction::Download),
        FlowSettings::BulkUpload(f) => bulk::build(cx, f, bulk::Direction::Upload),
        FlowSettings::UdpCbr(f) => cbr::build(cx, f),
        FlowSettings::Ping(f) => ping::build(cx, f),
        FlowSettings::Web(f) => web::build(cx, f),
        FlowSettings::UdpRr(f) => udp_rr::build(cx, f),
        FlowSettings::WwpBulk(f) => wwp_bulk::build(cx, f),
        FlowSettings::PsnaRead(f) => psna::build(cx, f, wattlab_core::psna::Direction::Read),
        FlowSettings::PsnaSend(f) => psna::build(cx, f, wattlab_core::psna::Direction::Send),
        FlowSettings::Echo(f) => echo::build(cx, f),
    }
}
