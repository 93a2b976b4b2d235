//! `udp-cbr`: constant-bit-rate datagrams from one node to another (open-ended unless given
//! a `duration`).

use super::build::BuildCx;
use super::metrics::{duration_s, per_s, DatagramMetrics, FlowCost, FlowMetrics};
use super::{AppCtx, Application, Flow, FlowRecord, KindSpec};
use crate::scenario::ScenarioError;
use crate::stack::{SockId, Socket, SocketEvent, Stack};
use wattlab_core::{Duration, Endpoint, Time};

/// `kind = "udp-cbr"`.
pub const KIND: KindSpec = KindSpec {
    name: "udp-cbr",
    keys: &["name", "from", "to", "rate", "packet_size", "port", "start", "duration"],
    required: &["from", "to", "rate"],
    build,
};

/// A CBR flow from its `[[flow]]`: the sink on `to` (port 9 by default), the source on `from`.
fn build(cx: &mut BuildCx) -> Result<(Flow, FlowRecord), ScenarioError> {
    let a = cx.node("from", cx.cfg.from.as_ref())?;
    let b = cx.node("to", cx.cfg.to.as_ref())?;
    cx.path(a, b, "to", false);
    let size = cx.cfg.packet_size.map(|s| s.bytes()).unwrap_or(1024);
    if size == 0 || size > 65_507 {
        return Err(cx.error("packet_size", "must be 1..=65507 bytes"));
    }
    let rate = cx.cfg.rate.ok_or_else(|| cx.error("rate", "udp-cbr needs `rate`"))?;
    let start = cx.start();
    let stop = cx.cfg.duration.map(|d| start + d.get()).unwrap_or(Time::MAX);
    let port = cx.cfg.port.unwrap_or(9);
    let owner = cx.index as u32;
    let sink = cx.stack.bind_datagram(b, Endpoint::new(cx.addrs[b as usize], port), owner);
    let Some(sink) = sink else { return Err(cx.error("port", "two UDP flows to the same node and port")) };
    let src = Endpoint::new(cx.addrs[a as usize], 10_000 + cx.index as u16);
    let source = cx.stack.bind_datagram(a, src, owner).ok_or_else(|| cx.error("from", format!("port {} of the sender is taken", src.port)))?;
    let record = FlowRecord {
        name: cx.name(),
        kind: KIND.name,
        sender: cx.node_names[a as usize].clone(),
        receiver: cx.node_names[b as usize].clone(),
        start,
        finite: cx.cfg.duration.is_some(),
        ..Default::default()
    };
    let interval = Duration::transmission(size, rate.bps());
    let dst = Endpoint::new(cx.addrs[b as usize], port);
    Ok((Flow::Cbr(Cbr::new(a, source, sink, dst, interval, size as u32, stop)), record))
}

/// A constant-bit-rate source and its sink.
pub struct Cbr {
    /// The sender's node.
    node: u32,
    source: SockId,
    sink: SockId,
    dst: Endpoint,
    interval: Duration,
    size: u32,
    stop: Time,
}

impl Cbr {
    /// `size`-byte datagrams from socket `source` (on `node`) to `dst` (socket `sink`) every
    /// `interval` until `stop`.
    pub fn new(node: u32, source: SockId, sink: SockId, dst: Endpoint, interval: Duration, size: u32, stop: Time) -> Cbr {
        Cbr { node, source, sink, dst, interval, size, stop }
    }

    fn datagrams(stack: &Stack, s: SockId) -> (u64, u64) {
        match &stack.sockets[s as usize].socket {
            Socket::Datagram(d) => (d.sent, d.received),
            _ => (0, 0),
        }
    }
}

impl Application for Cbr {
    fn on_wake(&mut self, cx: &mut AppCtx) {
        if cx.now >= self.stop {
            cx.finish();
            return;
        }
        let ip_id = cx.stack.next_ip_id(self.node);
        cx.stack.datagram(self.source).send_to(self.dst, self.size, ip_id);
        cx.drive(self.source);
        cx.wake_at(cx.now + self.interval);
    }

    fn on_socket(&mut self, cx: &mut AppCtx, s: SockId, ev: SocketEvent) {
        if let (true, SocketEvent::Datagram(p)) = (s == self.sink, ev) {
            cx.record.bytes_delivered += p.payload_len as u64;
        }
    }

    fn metrics(&self, stack: &Stack, record: &FlowRecord, end: Time) -> FlowMetrics {
        let st = stack.stats(self.source);
        FlowMetrics::Datagram(DatagramMetrics {
            throughput_bps: per_s(st.wire_bytes, duration_s(record, end)),
            sender_wire_bytes: st.wire_bytes,
            sender_wire_packets: st.wire_packets,
            datagrams_sent: Self::datagrams(stack, self.source).0,
            datagrams_received: Self::datagrams(stack, self.sink).1,
        })
    }

    fn cost(&self, record: &FlowRecord, _path_rate_bps: f64, horizon_s: f64) -> FlowCost {
        let start = record.start.as_nanos() as f64 / 1e9;
        let stop = (self.stop.as_nanos() as f64 / 1e9).min(horizon_s);
        let packets = (stop - start).max(0.0) / (self.interval.as_nanos().max(1) as f64 / 1e9);
        FlowCost { packets, seconds: stop - start, open_ended: stop >= horizon_s, ..FlowCost::default() }
    }
}
