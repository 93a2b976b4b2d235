//! `ping`: ICMP echo requests from a ping socket on one node, answered at once by the other
//! node's stack; the round-trip times are recorded.

use super::build::BuildCx;
use super::metrics::{FlowCost, FlowMetrics, PingMetrics};
use super::{AppCtx, Application, Flow, FlowRecord};
use crate::scenario::{PingFlow, ScenarioError};
use crate::stack::{SockId, SocketEvent, Stack};
use std::net::Ipv4Addr;
use wattlab_core::{Duration, Endpoint, Time};

/// A ping flow from its `[[flow]]`: a ping socket on `from` whose echo identifier is `port`
/// (default 20000 + the flow's index); `to` answers in its stack.
pub(super) fn build(cx: &mut BuildCx, f: &PingFlow) -> Result<(Flow, FlowRecord), ScenarioError> {
    let a = cx.node("from", &f.from)?;
    let b = cx.node("to", &f.to)?;
    cx.path(a, b, "to", true);
    let size = f.packet_size.map(|s| s.bytes()).unwrap_or(56);
    if size == 0 || size > 65_507 {
        return Err(cx.error("packet_size", "must be 1..=65507 bytes"));
    }
    let count = f.count.unwrap_or(10);
    if count == 0 || count > 65_535 {
        return Err(cx.error("count", "must be 1..=65535 requests"));
    }
    let interval = f.interval.map(|d| d.get()).unwrap_or(Duration::from_secs(1));
    if interval == Duration::ZERO {
        return Err(cx.error("interval", "must be positive"));
    }
    let id = cx.cfg.port.unwrap_or(20_000 + cx.index as u16);
    let owner = cx.index as u32;
    let src = Endpoint::new(cx.addrs[a as usize], id);
    let pinger = cx.stack.bind_ping(a, src, owner).ok_or_else(|| cx.error("port", format!("echo identifier {id} is taken on the pinger's node")))?;
    let record = FlowRecord { finite: true, ..cx.record(a, b, cx.start()) };
    Ok((Flow::Ping(Ping::new(a, pinger, cx.addrs[b as usize], interval, size as u32, count)), record))
}

/// How long a ping flow waits for replies after its last request.
pub const PING_WAIT: Duration = Duration::from_secs(2);

/// A pinger (the other end's stack answers).
pub struct Ping {
    node: u32,
    pinger: SockId,
    dst: Ipv4Addr,
    interval: Duration,
    size: u32,
    count: u32,
    /// When each request left (index = the echo's sequence number).
    sent_at: Vec<Time>,
    rtts: Vec<Duration>,
}

impl Ping {
    /// `count` echo requests of `size` bytes from ping socket `pinger` (on `node`) to `dst`,
    /// one per `interval`.
    pub fn new(node: u32, pinger: SockId, dst: Ipv4Addr, interval: Duration, size: u32, count: u32) -> Ping {
        Ping { node, pinger, dst, interval, size, count, sent_at: Vec::with_capacity(count as usize), rtts: Vec::with_capacity(count as usize) }
    }
}

impl Application for Ping {
    fn on_wake(&mut self, cx: &mut AppCtx) {
        let seq = self.sent_at.len() as u32;
        if seq >= self.count {
            cx.finish(); // replies still missing after PING_WAIT
            return;
        }
        self.sent_at.push(cx.now);
        let ip_id = cx.stack.next_ip_id(self.node);
        cx.stack.datagram(self.pinger).send_echo(self.dst, seq as u16, self.size, ip_id);
        cx.drive(self.pinger);
        let next = if seq + 1 < self.count { self.interval } else { PING_WAIT };
        cx.wake_at(cx.now + next);
    }

    fn on_socket(&mut self, cx: &mut AppCtx, s: SockId, ev: SocketEvent) {
        let SocketEvent::Datagram(p) = ev else { return };
        let Some((_, seq)) = p.icmp_message().and_then(|m| m.echo()) else { return };
        if s != self.pinger {
            return;
        }
        let Some(&sent) = self.sent_at.get(usize::from(seq)) else { return };
        cx.record.bytes_delivered += p.payload_len as u64;
        self.rtts.push(cx.now - sent);
        if self.rtts.len() == self.count as usize {
            cx.finish();
        }
    }

    fn metrics(&self, stack: &Stack, _record: &FlowRecord, _end: Time) -> FlowMetrics {
        let (sent, received) = match &stack.sockets[self.pinger as usize].socket {
            crate::stack::Socket::Datagram(d) => (d.sent, d.received),
            _ => (0, 0),
        };
        FlowMetrics::Ping(PingMetrics { datagrams_sent: sent, datagrams_received: received, rtt_ms: self.rtts.iter().map(|d| d.as_secs_f64() * 1e3).collect() })
    }

    fn cost(&self, _record: &FlowRecord, _path_rate_bps: f64, _horizon_s: f64) -> FlowCost {
        let n = f64::from(self.count);
        FlowCost { packets: 2.0 * n, seconds: n * self.interval.as_nanos() as f64 / 1e9 + 2.0, ..FlowCost::default() }
    }
}
