//! The result columns each kind of flow adds to the common ones: a TCP flow reports TCP's
//! counters, a datagram flow its datagrams, so a new transport reports its own metrics.

use super::FlowRecord;
use crate::stack::{SockId, Socket, Stack};
use serde::Serialize;
use wattlab_core::Time;

/// A flow's own columns.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum FlowMetrics {
    /// Bulk transfers over TCP.
    Tcp(TcpMetrics),
    /// Constant-bit-rate datagrams.
    Datagram(DatagramMetrics),
    /// Echo requests and replies.
    Ping(PingMetrics),
    /// Web browsing (TCP counters summed over its connections, and its pages).
    Web(WebMetrics),
    /// UDP request/response.
    UdpRr(UdpRrMetrics),
    /// A Wave & Wait Protocol transfer.
    Wwp(super::wwp_bulk::WwpMetrics),
    /// A PSNA transfer (seed 001).
    Psna(super::psna::PsnaMetrics),
    /// A stop-and-wait echo.
    Echo(super::echo::EchoMetrics),
}

/// Seed 004's byte counts of a transfer, at the transport layer (transport header + payload;
/// IP headers, and the UDP header WWP is carried in here, excluded: see `docs/wwp.md`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct EffortColumns {
    /// Application bytes delivered to the receiving application ("original data").
    pub original_data_bytes: u64,
    /// Transport bytes the data sender emitted: headers, payload, retransmissions, handshake.
    pub sender_bytes: u64,
    /// Transport bytes the data receiver emitted (ACKs / N-S_ACKs, handshake...).
    pub receiver_overhead_bytes: u64,
    /// sender_bytes + receiver_overhead_bytes.
    pub total_bytes: u64,
    /// (total − original) / original (null when nothing was delivered).
    pub effort_overhead: Option<f64>,
}

impl EffortColumns {
    /// The columns of a transfer that delivered `original` bytes.
    pub fn new(original: u64, sender: u64, receiver: u64) -> EffortColumns {
        EffortColumns {
            original_data_bytes: original,
            sender_bytes: sender,
            receiver_overhead_bytes: receiver,
            total_bytes: sender + receiver,
            effort_overhead: wattlab_core::metrics::effort_overhead(sender, receiver, original).ok(),
        }
    }
}

/// What a flow's TCP connections did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TcpMetrics {
    /// Connection established (s).
    pub connected_s: Option<f64>,
    /// IP bytes the data sender put on the wire (headers and retransmissions included), in
    /// bits/s of flow duration.
    pub throughput_bps: f64,
    /// IP bytes sent by the data sender.
    pub sender_wire_bytes: u64,
    /// Packets sent by the data sender.
    pub sender_wire_packets: u64,
    /// IP bytes sent by the data receiver's transport (ACKs, handshake, the request):
    /// seed 004's receiver overhead.
    pub receiver_wire_bytes: u64,
    /// Packets sent by the data receiver.
    pub receiver_wire_packets: u64,
    /// Retransmitted segments.
    pub retransmitted_segments: u64,
    /// Retransmitted payload bytes.
    pub retransmitted_bytes: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits.
    pub fast_retransmits: u64,
    /// Zero-window probes sent by the data sender.
    pub persist_probes: u64,
    /// Smoothed RTT at the end (ms), as the data sender measured it.
    pub final_srtt_ms: Option<f64>,
    /// Seed 004's counts: TCP header + payload (wire bytes − 20 B of IP header per packet).
    #[serde(flatten)]
    pub effort: EffortColumns,
    /// Mean of the data sender's RTT samples over the flow (ms; RFC 6298 samples, 1 ms
    /// resolution with timestamps).
    pub mean_rtt_ms: Option<f64>,
}

/// What a datagram flow did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DatagramMetrics {
    /// IP bytes the sender put on the wire, in bits/s of flow duration.
    pub throughput_bps: f64,
    /// IP bytes sent by the sender.
    pub sender_wire_bytes: u64,
    /// Packets sent by the sender.
    pub sender_wire_packets: u64,
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// Datagrams the receiving application got.
    pub datagrams_received: u64,
    /// Datagrams sent and not received by the run's end: sent − received (ns-3 FlowMonitor's
    /// lostPackets; one still in flight when the run stopped counts as lost).
    pub datagrams_lost: u64,
    /// datagrams_lost / datagrams_sent (null if none was sent).
    pub loss_ratio: Option<f64>,
    /// Datagrams that arrived after one with a higher sequence number (iperf's out-of-order).
    pub datagrams_out_of_order: u64,
    /// One-way delay and jitter of the received datagrams.
    #[serde(flatten)]
    pub delay: super::delay::DelayColumns,
}

/// What a ping flow measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PingMetrics {
    /// Requests sent.
    pub datagrams_sent: u64,
    /// Replies received.
    pub datagrams_received: u64,
    /// Round-trip times (ms), in order of arrival.
    pub rtt_ms: Vec<f64>,
}

/// What a udp-rr flow measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct UdpRrMetrics {
    /// Requests sent.
    pub requests: u64,
    /// Requests answered (a response arrived, however late).
    pub responses: u64,
    /// Requests never answered.
    pub lost: u64,
    /// Requests the server answered (requests lost on the way back = served − responses).
    pub served: u64,
    /// Mean round-trip time (ms) of the answered requests.
    pub rtt_mean_ms: Option<f64>,
    /// Median round-trip time (ms, nearest rank).
    pub rtt_p50_ms: Option<f64>,
    /// 99th-percentile round-trip time (ms, nearest rank).
    pub rtt_p99_ms: Option<f64>,
}

/// What a web flow did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct WebMetrics {
    /// TCP counters: the servers' connections as data senders, the browser's as receivers.
    #[serde(flatten)]
    pub tcp: TcpMetrics,
    /// Page views to make.
    pub pages: u32,
    /// Page views completed.
    pub pages_done: u32,
    /// TCP connections the browser opened.
    pub connections: u32,
}

/// The flow's duration for rates: start to completion, or to `end` if it did not complete.
pub fn duration_s(rec: &FlowRecord, end: Time) -> f64 {
    rec.completed_at.unwrap_or(end).saturating_since(rec.start).as_secs_f64()
}

/// Bits per second of `bytes` over `dur_s` (0 for an empty duration).
pub fn per_s(bytes: u64, dur_s: f64) -> f64 {
    if dur_s > 0.0 {
        bytes as f64 * 8.0 / dur_s
    } else {
        0.0
    }
}

impl TcpMetrics {
    /// The metrics of data sender `senders` (summed) and receivers `receivers` over the
    /// flow's duration; the last sender's SRTT is reported.
    pub fn of(stack: &Stack, senders: &[SockId], receivers: &[SockId], rec: &FlowRecord, end: Time) -> TcpMetrics {
        let mut m = TcpMetrics { connected_s: rec.connected_at.map(|t| t.as_secs_f64()), ..TcpMetrics::default() };
        for &s in senders {
            let slot = &stack.sockets[s as usize];
            m.sender_wire_bytes += slot.stats.wire_bytes;
            m.sender_wire_packets += slot.stats.wire_packets;
            if let Socket::Tcp(c) = &slot.socket {
                let st = c.stats();
                m.retransmitted_segments += st.retransmitted_segments;
                m.retransmitted_bytes += st.bytes_retransmitted;
                m.timeouts += st.timeouts;
                m.fast_retransmits += st.fast_retransmits;
                m.persist_probes += st.persist_probes_sent;
                m.final_srtt_ms = c.srtt().map(|d| d.as_secs_f64() * 1e3);
            }
        }
        let (mut n, mut sum) = (0u64, 0u64);
        for &s in senders {
            if let Socket::Tcp(c) = &stack.sockets[s as usize].socket {
                n += c.stats().rtt_samples;
                sum = sum.saturating_add(c.stats().rtt_sample_sum_ns);
            }
        }
        m.mean_rtt_ms = (n > 0).then(|| sum as f64 / n as f64 / 1e6);
        for &s in receivers {
            let st = stack.stats(s);
            m.receiver_wire_bytes += st.wire_bytes;
            m.receiver_wire_packets += st.wire_packets;
        }
        m.throughput_bps = per_s(m.sender_wire_bytes, duration_s(rec, end));
        let ip = u64::from(wattlab_core::packet::IPV4_HEADER_LEN);
        let (snd, rcv) = (m.sender_wire_bytes - ip * m.sender_wire_packets, m.receiver_wire_bytes - ip * m.receiver_wire_packets);
        m.effort = EffortColumns::new(rec.bytes_delivered, snd, rcv);
        m
    }
}

/// Segments per byte of TCP payload, with one ACK every two segments: 1.5 / 1448.
const TCP_PACKETS_PER_BYTE: f64 = 1.5 / 1448.0;

/// A flow's expected cost, for the estimate before a run (`crate::estimate`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowCost {
    /// Packets it puts on the network (each crosses its path's links).
    pub packets: f64,
    /// Seconds it lasts from its start.
    pub seconds: f64,
    /// It runs until the scenario's stop time.
    pub open_ended: bool,
    /// Timer expiries that send nothing by themselves (a protocol timer set very short fires
    /// on its own, one event each), and the keys that bound them.
    pub timers: f64,
    /// The settings that bound `timers` (for the warning), empty if none.
    pub timer_keys: &'static str,
    /// Bytes the flow holds during the run and in its result tables (buffers, rows), and
    /// what bounds them.
    pub memory: f64,
    /// The settings that bound `memory` (for the warning), empty if none.
    pub memory_keys: &'static str,
}

impl FlowCost {
    /// A TCP transfer of the record's target bytes, no faster than `rate_bps`, before the
    /// stop time `horizon_s`; `extra_s` adds waiting time (think times).
    pub fn tcp(record: &FlowRecord, rate_bps: f64, horizon_s: f64, extra_s: f64) -> FlowCost {
        let start = record.start.as_nanos() as f64 / 1e9;
        let bytes = (record.target_bytes.unwrap_or(0) as f64).min(rate_bps / 8.0 * (horizon_s - start).max(0.0));
        // At 1 Mb/s or better, plus the waiting.
        FlowCost { packets: bytes * TCP_PACKETS_PER_BYTE + 10.0, seconds: bytes * 8.0 / 1e6 + extra_s + 5.0, ..FlowCost::default() }
    }
}
