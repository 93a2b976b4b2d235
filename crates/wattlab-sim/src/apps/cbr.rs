//! `udp-cbr`: constant-bit-rate datagrams from one node to another (open-ended unless given
//! a `duration`), with iperf's and ns-3 FlowMonitor's statistics at the sink: datagrams lost
//! and out of order, one-way delay (mean, min, p50, p99, max) and jitter (`apps::delay`).
//!
//! A stream with a `duration` completes when the sink has every datagram the source sent
//! (at the last arrival); one that lost any is waited for [`DRAIN`] after its last datagram was
//! sent, then given up: not completed. An open-ended stream never completes (the run's stop time
//! ends it). See docs/scenario.md, "udp-cbr".

use super::build::BuildCx;
use super::delay::DelayStats;
use super::metrics::{duration_s, per_s, DatagramMetrics, FlowCost, FlowMetrics};
use super::{AppCtx, Application, Flow, FlowRecord};
use crate::scenario::{CbrFlow, ScenarioError};
use crate::stack::{SockId, SocketEvent, Stack};
use wattlab_core::packet::{Body, ProtoHeader};
use wattlab_core::{Duration, Endpoint, Time};

/// A CBR flow from its `[[flow]]`: the sink on `to` (port 9 by default), the source on `from`.
pub(super) fn build(cx: &mut BuildCx, f: &CbrFlow) -> Result<(Flow, FlowRecord), ScenarioError> {
    let a = cx.node("from", &f.from)?;
    let b = cx.node("to", &f.to)?;
    cx.path(a, b, "to", false);
    let size = f.packet_size.map(|s| s.bytes()).unwrap_or(1024);
    if !(u64::from(HEADER_LEN)..=65_507).contains(&size) {
        return Err(cx.error("packet_size", format!("must be {HEADER_LEN}..=65507 bytes (every datagram starts with iperf's {HEADER_LEN}-byte header: sequence number and send time)")));
    }
    let rate = f.rate;
    let start = cx.start();
    let stop = f.duration.map(|d| start + d.get()).unwrap_or(Time::MAX);
    let port = cx.cfg.port.unwrap_or(9);
    let owner = cx.index as u32;
    let sink = cx.stack.bind_datagram(b, Endpoint::new(cx.addrs[b as usize], port), owner);
    let Some(sink) = sink else { return Err(cx.error("port", "two UDP flows to the same node and port")) };
    let src = Endpoint::new(cx.addrs[a as usize], 10_000 + cx.index as u16);
    let source = cx.stack.bind_datagram(a, src, owner).ok_or_else(|| cx.error("from", format!("port {} of the sender is taken", src.port)))?;
    let record = FlowRecord { finite: f.duration.is_some(), ..cx.record(a, b, start) };
    let interval = Duration::transmission(size, rate.bps());
    let dst = Endpoint::new(cx.addrs[b as usize], port);
    Ok((Flow::Cbr(Cbr::new(a, [source, sink], dst, interval, size as u32, [start, stop])), record))
}

/// Length of the header every datagram starts with (iperf 2's UDP header, big-endian): the
/// sequence number (u32, from 0), then the send time since the run's start in whole seconds
/// (u32) and microseconds (u32).
pub const HEADER_LEN: u32 = 12;

/// How long a stream that lost datagrams is waited for after its last one was sent, before it
/// is given up (not completed): as long as a ping waits for its last reply.
pub const DRAIN: Duration = super::ping::PING_WAIT;

/// Where a stream with a `duration` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The source sends.
    Sending,
    /// The source has stopped; waiting for the datagrams still on the way.
    Draining,
    /// Completed (every datagram arrived) or given up.
    Over,
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
    /// When the source sends its first datagram.
    start: Time,
    stop: Time,
    phase: Phase,
    /// Datagrams the source sent (the next sequence number).
    sent: u64,
    /// Datagrams the sink's application received.
    received: u64,
    /// Highest sequence number received, unwrapped to 64 bits.
    max_seq: Option<u64>,
    /// Arrivals with a lower sequence number than one received before (iperf's out-of-order).
    out_of_order: u64,
    delay: DelayStats,
}

impl Cbr {
    /// `size`-byte datagrams from socket `socks[0]` (on `node`) to `dst` (socket `socks[1]`)
    /// every `interval` from `times[0]` until `times[1]`.
    pub fn new(node: u32, socks: [SockId; 2], dst: Endpoint, interval: Duration, size: u32, times: [Time; 2]) -> Cbr {
        Cbr {
            node,
            source: socks[0],
            sink: socks[1],
            dst,
            interval,
            size,
            start: times[0],
            stop: times[1],
            phase: Phase::Sending,
            sent: 0,
            received: 0,
            max_seq: None,
            out_of_order: 0,
            delay: DelayStats::default(),
        }
    }

    /// The header of datagram `seq` sent at `now`.
    fn header(seq: u64, now: Time) -> ProtoHeader {
        let ns = now.as_nanos();
        let mut b = [0u8; HEADER_LEN as usize];
        b[0..4].copy_from_slice(&(seq as u32).to_be_bytes());
        b[4..8].copy_from_slice(&((ns / 1_000_000_000) as u32).to_be_bytes());
        b[8..12].copy_from_slice(&((ns % 1_000_000_000 / 1_000) as u32).to_be_bytes());
        ProtoHeader::new(&b).expect("12 bytes fit")
    }

    /// The 32-bit sequence number of a received datagram, unwrapped to the 64-bit number
    /// nearest the highest seen (serial-number arithmetic, RFC 1982).
    fn unwrap_seq(&self, seq: u32) -> u64 {
        let Some(max) = self.max_seq else { return u64::from(seq) };
        let cand = (max & !0xFFFF_FFFF) | u64::from(seq);
        if cand + (1 << 31) < max {
            cand + (1 << 32)
        } else if cand > max + (1 << 31) && cand >= 1 << 32 {
            cand - (1 << 32)
        } else {
            cand
        }
    }

    /// The source has stopped and every datagram it sent has arrived.
    fn all_in(&self) -> bool {
        self.phase == Phase::Draining && self.received >= self.sent
    }
}

impl Application for Cbr {
    fn on_wake(&mut self, cx: &mut AppCtx) {
        match self.phase {
            Phase::Over => return,
            Phase::Draining => {
                // DRAIN has passed and datagrams are still missing: lost.
                self.phase = Phase::Over;
                cx.fail();
                return;
            }
            Phase::Sending if cx.now >= self.stop => {
                // A stream of no datagrams (it stops before it starts) is complete at once.
                self.phase = Phase::Over;
                cx.finish();
                return;
            }
            Phase::Sending => {}
        }
        let ip_id = cx.stack.next_ip_id(self.node);
        let body = Body::with_header(Self::header(self.sent, cx.now));
        cx.stack.datagram(self.source).send_body(self.dst, body, self.size, ip_id);
        self.sent += 1;
        cx.drive(self.source);
        if cx.now + self.interval >= self.stop {
            // That was the last one: wait for it (and the others on the way) up to DRAIN.
            self.phase = Phase::Draining;
            cx.wake_at(cx.now + DRAIN);
        } else {
            cx.wake_at(cx.now + self.interval);
        }
    }

    fn on_socket(&mut self, cx: &mut AppCtx, s: SockId, ev: SocketEvent) {
        let (true, SocketEvent::Datagram(p)) = (s == self.sink, ev) else { return };
        cx.record.bytes_delivered += p.payload_len as u64;
        self.received += 1;
        if let Some(b) = p.proto_header().get(..4).and_then(|b| <[u8; 4]>::try_from(b).ok()) {
            let seq = self.unwrap_seq(u32::from_be_bytes(b));
            if self.max_seq.is_some_and(|m| seq < m) {
                self.out_of_order += 1;
            }
            self.max_seq = Some(self.max_seq.map_or(seq, |m| m.max(seq)));
            // The source sends datagram `seq` at exactly start + seq × interval.
            let sent_at = self.start + self.interval.saturating_mul(seq);
            self.delay.record(cx.now.saturating_since(sent_at));
        }
        if self.all_in() {
            self.phase = Phase::Over;
            cx.finish();
        }
    }

    fn metrics(&self, stack: &Stack, record: &FlowRecord, end: Time) -> FlowMetrics {
        let st = stack.stats(self.source);
        let lost = self.sent.saturating_sub(self.received);
        FlowMetrics::Datagram(DatagramMetrics {
            throughput_bps: per_s(st.wire_bytes, duration_s(record, end)),
            sender_wire_bytes: st.wire_bytes,
            sender_wire_packets: st.wire_packets,
            datagrams_sent: self.sent,
            datagrams_received: self.received,
            datagrams_lost: lost,
            loss_ratio: (self.sent > 0).then(|| lost as f64 / self.sent as f64),
            datagrams_out_of_order: self.out_of_order,
            delay: self.delay.columns(),
        })
    }

    fn cost(&self, record: &FlowRecord, _path_rate_bps: f64, horizon_s: f64) -> FlowCost {
        let start = record.start.as_nanos() as f64 / 1e9;
        let stop = (self.stop.as_nanos() as f64 / 1e9).min(horizon_s);
        let packets = (stop - start).max(0.0) / (self.interval.as_nanos().max(1) as f64 / 1e9);
        FlowCost { packets, seconds: stop - start, open_ended: stop >= horizon_s, ..FlowCost::default() }
    }
}
