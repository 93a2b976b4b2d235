//! `wwp-bulk`: a bulk transfer over the Wave & Wait Protocol (seed 004), as the paper's test
//! protocol: the sender's application writes `packet_size`-byte messages (1024 B) whenever
//! the WWP sender buffer has room for one, for `bytes` or until `duration` or the end of the
//! run (a [`WwpSource`], the socket's [`Feed`], run before forming each wave); the receiver's
//! application reads everything at once. One WWP endpoint per side, on an engine socket each
//! ([`crate::stack::EngineSocket`]); the columns are seed 004's byte counts and WWP's own
//! counters ([`WwpMetrics`]).

use super::build::BuildCx;
use super::metrics::{EffortColumns, FlowCost, FlowMetrics};
use super::{AppCtx, Application, Flow, FlowRecord};
use crate::scenario::{ScenarioError, WwpBulkFlow};
use crate::stack::{Feed, SockId, SocketEvent, Stack};
use rand::Rng;
use serde::Serialize;
use wattlab_core::packet::{IPV4_HEADER_LEN, UDP_HEADER_LEN};
use wattlab_core::wire::WWP_HEADER_LEN;
use wattlab_core::wwp::{WwpEndpoint, WwpEvent, WwpState};
use wattlab_core::{Endpoint, Time};

/// Default UDP port of the receiver.
pub const DEFAULT_PORT: u16 = 9400;
/// Largest message: a UDP payload over IPv4.
const MAX_MESSAGE: u64 = 65_507;

/// A wwp-bulk flow from its `[[flow]]`: the receiver listens on `to:port`, the sender on
/// `from` opens at `start`.
pub(super) fn build(cx: &mut BuildCx, f: &WwpBulkFlow) -> Result<(Flow, FlowRecord), ScenarioError> {
    let a = cx.node("from", &f.from)?;
    let b = cx.node("to", &f.to)?;
    cx.path(a, b, "to", true);
    let cfg = f.wwp.clone().unwrap_or_default().config().map_err(|(k, m)| cx.error(&format!("wwp.{k}"), m))?;
    let message = f.packet_size.map(|s| s.bytes()).unwrap_or(1024);
    if !(1..=MAX_MESSAGE).contains(&message) {
        return Err(cx.error("packet_size", format!("must be 1..={MAX_MESSAGE} bytes")));
    }
    if f.bytes.is_some_and(|b| b.bytes() == 0) {
        return Err(cx.error("bytes", "must be at least 1 byte (leave it out for a continuous stream)"));
    }
    check_message_fits(cx, f, &cfg, message)?;
    if f.duration.is_some_and(|d| d.0 == 0) {
        return Err(cx.error("duration", "must be positive"));
    }
    let start = cx.start();
    let stop = f.duration.map(|d| start + d.get()).unwrap_or(Time::MAX);
    let port = cx.cfg.port.unwrap_or(DEFAULT_PORT);
    let name = cx.name();
    let mut rng = cx.streams.stream(&format!("wwp:{name}:isn"));
    let (isn_a, isn_b) = (rng.random::<u16>() & 0x0fff, rng.random::<u16>() & 0x0fff);
    let dst = Endpoint::new(cx.addrs[b as usize], port);
    let src = Endpoint::new(cx.addrs[a as usize], 30_000 + cx.index as u16);
    let costs = WwpCostInputs::of(&cfg);
    let ep_a = WwpEndpoint::connect(cfg.clone(), isn_a, start).map_err(|e| cx.error("wwp", e.to_string()))?;
    let ep_b = WwpEndpoint::listen(cfg, isn_b, start).map_err(|e| cx.error("wwp", e.to_string()))?;
    let owner = cx.index as u32;
    let left = f.bytes.map_or(u64::MAX, |b| b.bytes());
    let source = WwpSource { message: message as usize, left, until: stop, written: 0, closed: false };
    let rx = cx.stack.bind_engine(b, dst, Some(src), ep_b, None, owner).ok_or_else(|| cx.error("port", "two UDP flows to the same node and port"))?;
    let tx = cx
        .stack
        .bind_engine(a, src, Some(dst), ep_a, Some(Box::new(source)), owner)
        .ok_or_else(|| cx.error("from", format!("port {} of the sender is taken", src.port)))?;
    let target = f.bytes.map(|b| b.bytes());
    let record = FlowRecord { target_bytes: target, finite: target.is_some(), ..cx.record(a, b, start) };
    let mut flow = WwpBulk::new(tx, rx, stop);
    flow.costs = costs;
    Ok((Flow::Wwp(flow), record))
}

/// The application writes whole messages, each once the sender buffer has room for it: a
/// message larger than the whole buffer (`send_buffer_segments` × `segment_size`) would wait
/// forever and the flow deliver nothing, so it is refused. The error is at the key that was
/// written: `packet_size`, else `wwp.segment_size`, else `wwp.send_buffer_segments`.
fn check_message_fits(cx: &BuildCx, f: &WwpBulkFlow, cfg: &wattlab_core::wwp::WwpConfig, message: u64) -> Result<(), ScenarioError> {
    let room = u64::from(cfg.send_buffer_segments) * u64::from(cfg.segment_size);
    let first = f.bytes.map_or(message, |b| b.bytes().min(message));
    if first <= room {
        return Ok(());
    }
    let wwp = f.wwp.as_ref();
    let key = if f.packet_size.is_some() {
        "packet_size"
    } else if wwp.is_some_and(|w| w.segment_size.is_some()) {
        "wwp.segment_size"
    } else {
        "wwp.send_buffer_segments"
    };
    Err(cx.error(key, format!(
        "a {first}-byte message never fits the WWP sender buffer of send_buffer_segments × segment_size = {} × {} = {room} B: \
         the application writes whole messages, so the flow would deliver nothing; lower packet_size or raise wwp.segment_size \
         or wwp.send_buffer_segments",
        cfg.send_buffer_segments, cfg.segment_size
    )))
}

/// What a continuous source writes: zeros (the simulator carries no payload bytes).
static ZEROS: [u8; 65_536] = [0; 65_536];

/// An application that writes `message`-byte messages whenever the sender buffer has room for
/// one, `left` bytes in all, none at or after `until`, then closes. The socket runs it before
/// forming each wave, so a freed buffer is refilled at once, as the paper's application blocked
/// on the sender's semaphore would; otherwise a wave would leave with the buffer's remainder.
#[derive(Clone, Copy, Debug)]
pub struct WwpSource {
    /// Bytes per write.
    pub message: usize,
    /// Bytes still to write (`u64::MAX`: until `until`).
    pub left: u64,
    /// No write at or after this time.
    pub until: Time,
    /// Bytes written so far.
    pub written: u64,
    /// The source closed the connection.
    pub closed: bool,
}

impl Feed<WwpEndpoint> for WwpSource {
    /// Writes whole messages while there is room; closes when it is done.
    fn feed(&mut self, ep: &mut WwpEndpoint, now: Time) {
        if self.closed {
            return;
        }
        while now < self.until && self.left > 0 {
            let n = (self.message as u64).min(self.left) as usize;
            if ep.writable() < n {
                break;
            }
            let w = ep.write(&ZEROS[..n]) as u64;
            self.written += w;
            self.left -= w;
        }
        if now >= self.until || self.left == 0 {
            self.closed = true;
            ep.close();
        }
    }
}

/// A WWP sender writing messages and a receiver reading them.
pub struct WwpBulk {
    tx: SockId,
    rx: SockId,
    /// Scratch for reading.
    scratch: Vec<u8>,
    started: bool,
    stop: Time,
    /// What the cost estimate needs of the flow's WWP settings.
    costs: WwpCostInputs,
}

/// The WWP settings the cost estimate reads: timers that fire on their own, segment size and
/// buffers.
#[derive(Clone, Copy, Debug)]
struct WwpCostInputs {
    /// Expiries per second of the sender's SEND_T, the receiver's REC_T and the pause, at most.
    timer_rate: f64,
    /// Bytes per DATA packet on the wire (IP, UDP, WWP headers and the payload).
    packet_bytes: f64,
    /// Both endpoints' send and receive buffers, in bytes.
    buffers: f64,
}

impl WwpCostInputs {
    fn of(cfg: &wattlab_core::wwp::WwpConfig) -> WwpCostInputs {
        let per_s = |d: wattlab_core::Duration| 1e9 / d.as_nanos().max(1) as f64;
        let seg = f64::from(cfg.segment_size);
        let headers = (IPV4_HEADER_LEN + UDP_HEADER_LEN) as f64 + WWP_HEADER_LEN as f64;
        WwpCostInputs {
            timer_rate: per_s(cfg.send_t) + per_s(cfg.rec_t) + per_s(cfg.pause),
            packet_bytes: seg + headers,
            // Each endpoint holds a sender and a receiver (`wattlab_core::wwp`).
            buffers: 2.0 * (f64::from(cfg.send_buffer_segments) + f64::from(cfg.recv_buffer_segments)) * seg,
        }
    }
}

impl Default for WwpCostInputs {
    fn default() -> Self {
        WwpCostInputs::of(&wattlab_core::wwp::WwpConfig::default())
    }
}

impl WwpBulk {
    /// A transfer from socket `tx` (its source set) to socket `rx`; the source stops at `stop`.
    pub fn new(tx: SockId, rx: SockId, stop: Time) -> WwpBulk {
        WwpBulk { tx, rx, scratch: vec![0; 64 * 1024], started: false, stop, costs: WwpCostInputs::default() }
    }

    /// Lets the source write (and close when done), then flushes the sender.
    fn fill(&mut self, cx: &mut AppCtx) {
        cx.stack.engine_socket(self.tx).feed(cx.now);
        cx.drive(self.tx);
    }

    /// Reads what arrived; closes the receiving side once the peer finished.
    fn read(&mut self, cx: &mut AppCtx) {
        let ep = cx.stack.engine::<WwpEndpoint>(self.rx);
        loop {
            let n = ep.read(&mut self.scratch);
            if n == 0 {
                break;
            }
            cx.record.bytes_delivered += n as u64;
        }
        if ep.peer_finished() && !matches!(ep.state(), WwpState::Closed) {
            ep.close();
        }
        cx.drive(self.rx);
    }

    /// The flow completes when every byte is in and both ends have closed.
    fn check_done(&self, cx: &mut AppCtx) {
        let r = &*cx.record;
        let closed = |s: SockId, st: &Stack| st.engine_ref::<WwpEndpoint>(s).state() == WwpState::Closed;
        if r.completed_at.is_none() && r.target_bytes.is_some_and(|t| r.bytes_delivered >= t) && closed(self.tx, cx.stack) && closed(self.rx, cx.stack) {
            cx.finish();
        }
    }
}

impl Application for WwpBulk {
    fn on_wake(&mut self, cx: &mut AppCtx) {
        if !self.started {
            self.started = true;
            if self.stop < Time::MAX {
                cx.wake_at(self.stop);
            }
            cx.drive(self.tx);
            cx.drive(self.rx);
            return;
        }
        self.fill(cx);
    }

    fn on_socket(&mut self, cx: &mut AppCtx, s: SockId, ev: SocketEvent) {
        let SocketEvent::Engine = ev else { return };
        let Some(ev) = cx.stack.take_event::<WwpEndpoint>(s) else { return };
        match (s == self.tx, ev) {
            (true, WwpEvent::Connected) => {
                cx.record.connected_at = Some(cx.now);
                self.fill(cx);
            }
            (true, WwpEvent::Writable) => self.fill(cx),
            (false, WwpEvent::Readable | WwpEvent::PeerFinished) => self.read(cx),
            (_, WwpEvent::Closed) => self.check_done(cx),
            _ => {}
        }
    }

    fn metrics(&self, stack: &Stack, record: &FlowRecord, _end: Time) -> FlowMetrics {
        let mut m = WwpMetrics::of(stack, self.tx, self.rx);
        m.connected_s = record.connected_at.map(|t| t.as_secs_f64());
        FlowMetrics::Wwp(m)
    }

    fn cost(&self, record: &FlowRecord, path_rate_bps: f64, horizon_s: f64) -> FlowCost {
        let start = record.start.as_nanos() as f64 / 1e9;
        let end = if self.stop == Time::MAX { horizon_s } else { (self.stop.as_nanos() as f64 / 1e9).min(horizon_s) };
        let secs = (end - start).max(0.0);
        let bytes = (path_rate_bps / 8.0 * secs).min(record.target_bytes.map_or(f64::MAX, |t| t as f64));
        let c = &self.costs;
        FlowCost {
            packets: bytes / c.packet_bytes * 1.05 + 10.0,
            seconds: secs,
            open_ended: record.target_bytes.is_none(),
            // A timer set very short (SEND_T = 1 ns) fires on its own all the flow long.
            timers: secs * c.timer_rate,
            timer_keys: "raise wwp.send_t, wwp.rec_t or wwp.pause",
            memory: c.buffers,
            memory_keys: "lower wwp.segment_size, wwp.send_buffer_segments or wwp.recv_buffer_segments",
        }
    }
}

/// What a wwp-bulk flow did: seed 004's byte counts and the protocol's counters.
#[derive(Clone, Debug, Default, Serialize)]
pub struct WwpMetrics {
    /// Connection established (s), at the sender.
    pub connected_s: Option<f64>,
    /// Seed 004's counts: WWP header + payload (the UDP and IP headers excluded).
    #[serde(flatten)]
    pub effort: EffortColumns,
    /// IP bytes the sender put on the wire (IP, UDP and WWP headers included).
    pub sender_wire_bytes: u64,
    /// IP bytes the receiver put on the wire.
    pub receiver_wire_bytes: u64,
    /// Payload bytes the sender sent for the first time.
    pub first_sent_bytes: u64,
    /// DATA segments sent again.
    pub retransmitted_segments: u64,
    /// Payload bytes of those retransmissions.
    pub retransmitted_bytes: u64,
    /// Waves sent at level 1, 2 and 3.
    pub waves_l1: u64,
    /// Waves at level 2.
    pub waves_l2: u64,
    /// Waves at level 3.
    pub waves_l3: u64,
    /// The receiver's next-level decisions: level 0 (pause and probe).
    pub decisions_l0: u64,
    /// Decisions for level 1.
    pub decisions_l1: u64,
    /// Decisions for level 2.
    pub decisions_l2: u64,
    /// Decisions for level 3.
    pub decisions_l3: u64,
    /// Waves the receiver ended by REC_T.
    pub rec_t_expiries: u64,
    /// Probe cycles the sender started.
    pub probe_cycles: u64,
    /// PROBE1 and PROBE2 segments sent.
    pub probes_sent: u64,
    /// Segments the receiver NACKed.
    pub nacked_segments: u64,
    /// Duplicate DATA segments the receiver got.
    pub duplicate_segments: u64,
    /// The sender's state at the end (`handshaking`, `established`, `closed`, `failed`).
    pub sender_state: &'static str,
    /// The receiver's state at the end.
    pub receiver_state: &'static str,
    /// Both ends closed cleanly (every byte delivered and both FINs acknowledged).
    pub closed: bool,
}

impl WwpMetrics {
    /// The columns of the transfer from socket `tx` to socket `rx`.
    pub fn of(stack: &Stack, tx: SockId, rx: SockId) -> WwpMetrics {
        let (a, b) = (stack.engine_ref::<WwpEndpoint>(tx), stack.engine_ref::<WwpEndpoint>(rx));
        let (sa, sb) = (a.stats(), b.stats());
        WwpMetrics {
            connected_s: None,
            effort: EffortColumns::new(sb.delivered_bytes, sa.sender_bytes, sb.receiver_overhead_bytes),
            sender_wire_bytes: stack.stats(tx).wire_bytes,
            receiver_wire_bytes: stack.stats(rx).wire_bytes,
            first_sent_bytes: sa.original_data_bytes,
            retransmitted_segments: sa.retransmitted_segments,
            retransmitted_bytes: sa.retransmitted_bytes,
            waves_l1: sa.waves_sent[1],
            waves_l2: sa.waves_sent[2],
            waves_l3: sa.waves_sent[3],
            decisions_l0: sb.level_decisions[0],
            decisions_l1: sb.level_decisions[1],
            decisions_l2: sb.level_decisions[2],
            decisions_l3: sb.level_decisions[3],
            rec_t_expiries: sb.rec_t_expiries,
            probe_cycles: sa.probe_cycles,
            probes_sent: sa.probes_sent,
            nacked_segments: sb.nacked_segments,
            duplicate_segments: sb.duplicate_segments,
            sender_state: a.state().name(),
            receiver_state: b.state().name(),
            closed: a.state() == WwpState::Closed && b.state() == WwpState::Closed,
        }
    }
}
