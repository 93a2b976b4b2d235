//! `udp-rr`: UDP request/response (netperf's UDP_RR). A client sends requests of `request`
//! bytes to a server, which answers each with `response` bytes; the client measures round-trip
//! times and counts what was lost. Open loop with an `interval` (a request every interval,
//! answered or not), closed loop without (the next request when the response arrives, or when
//! `timeout` passes without it).
//!
//! Every datagram starts with the application's 8-byte header, carried as the packet's
//! protocol header (so it is on the wire in a pcap):
//!
//! | bytes | field |
//! |---|---|
//! | 0 | type: 1 request, 2 response |
//! | 1 | reserved (0) |
//! | 2..4 | response size the request asks for (bytes, big-endian) |
//! | 4..8 | request id (big-endian), echoed by the response |

use super::build::BuildCx;
use super::metrics::{FlowCost, FlowMetrics, UdpRrMetrics};
use super::{AppCtx, Application, Flow, FlowRecord};
use crate::scenario::{ScenarioError, UdpRrFlow};
use crate::stack::{SockId, SocketEvent, Stack};
use wattlab_core::packet::{Body, ProtoHeader};
use wattlab_core::{Duration, Endpoint, Packet, Time};

/// Length of the application header at the start of every request and response.
pub const HEADER_LEN: u32 = 8;
/// Header type of a request.
const REQUEST: u8 = 1;
/// Header type of a response.
const RESPONSE: u8 = 2;
/// Largest UDP payload over IPv4.
const MAX_PAYLOAD: u64 = 65_507;

/// The application header: a request or response, the response size asked for, the id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RrHeader {
    /// True for a response.
    pub response: bool,
    /// Response bytes the request asks for (the response repeats it).
    pub response_len: u16,
    /// Request id.
    pub id: u32,
}

impl RrHeader {
    /// The header as the packet's protocol header.
    pub fn encode(self) -> ProtoHeader {
        let mut b = [0u8; HEADER_LEN as usize];
        b[0] = if self.response { RESPONSE } else { REQUEST };
        b[2..4].copy_from_slice(&self.response_len.to_be_bytes());
        b[4..8].copy_from_slice(&self.id.to_be_bytes());
        ProtoHeader::new(&b).expect("8 bytes fit")
    }

    /// The header a packet carries, if it is a udp-rr request or response.
    pub fn decode(p: &Packet) -> Option<RrHeader> {
        let b: [u8; HEADER_LEN as usize] = p.proto_header().try_into().ok()?;
        let response = match b[0] {
            REQUEST => false,
            RESPONSE => true,
            _ => return None,
        };
        Some(RrHeader { response, response_len: u16::from_be_bytes([b[2], b[3]]), id: u32::from_be_bytes([b[4], b[5], b[6], b[7]]) })
    }
}

/// A udp-rr flow from its `[[flow]]`: the server on `to` (port 9007 by default), the client on
/// `from`.
pub(super) fn build(cx: &mut BuildCx, f: &UdpRrFlow) -> Result<(Flow, FlowRecord), ScenarioError> {
    let a = cx.node("from", &f.from)?;
    let b = cx.node("to", &f.to)?;
    cx.path(a, b, "to", true);
    let size = |key: &str, v: Option<crate::scenario::units::Size>| -> Result<u32, ScenarioError> {
        let n = v.map(|s| s.bytes()).unwrap_or(64);
        if !(u64::from(HEADER_LEN)..=MAX_PAYLOAD).contains(&n) {
            return Err(cx.error(key, format!("must be {HEADER_LEN}..={MAX_PAYLOAD} bytes (the 8-byte header included)")));
        }
        Ok(n as u32)
    };
    let request = size("request", f.request)?;
    let response = size("response", f.response)?;
    let count = f.count.unwrap_or(100);
    if count == 0 {
        return Err(cx.error("count", "must be at least 1 request"));
    }
    let interval = f.interval.map(|d| d.get());
    if interval == Some(Duration::ZERO) {
        return Err(cx.error("interval", "must be positive (leave it out for a closed loop)"));
    }
    let timeout = f.timeout.map(|d| d.get()).unwrap_or(Duration::from_secs(1));
    if timeout == Duration::ZERO {
        return Err(cx.error("timeout", "must be positive"));
    }
    let start = cx.start();
    let stop = f.duration.map(|d| start + d.get()).unwrap_or(Time::MAX);
    let port = cx.cfg.port.unwrap_or(9007);
    let owner = cx.index as u32;
    let dst = Endpoint::new(cx.addrs[b as usize], port);
    let server = cx.stack.bind_datagram(b, dst, owner).ok_or_else(|| cx.error("port", "two UDP flows to the same node and port"))?;
    let src = Endpoint::new(cx.addrs[a as usize], 30_000 + cx.index as u16);
    let client = cx.stack.bind_datagram(a, src, owner).ok_or_else(|| cx.error("from", format!("port {} of the client is taken", src.port)))?;
    let record = FlowRecord { finite: true, ..cx.record(a, b, start) };
    let nodes = [a, b];
    let sizes = [request, response];
    Ok((Flow::UdpRr(UdpRr::new(nodes, [client, server], dst, sizes, count, interval, timeout, stop)), record))
}

/// A request/response client and its server.
pub struct UdpRr {
    nodes: [u32; 2],
    client: SockId,
    server: SockId,
    dst: Endpoint,
    request: u32,
    response: u32,
    count: u32,
    interval: Option<Duration>,
    timeout: Duration,
    stop: Time,
    /// When each request left (index = request id).
    sent_at: Vec<Time>,
    /// Round-trip time of each request answered (index = request id).
    rtt: Vec<Option<Duration>>,
    /// Requests answered.
    responses: u64,
    /// Requests the server answered.
    served: u64,
    /// Open loop: when the next request is due.
    next_at: Time,
}

impl UdpRr {
    /// `count` requests of `sizes[0]` bytes from socket `socks[0]` (on `nodes[0]`) to `dst`
    /// (socket `socks[1]` on `nodes[1]`), answered with `sizes[1]` bytes; one per `interval`,
    /// or closed loop; a request unanswered after `timeout` is given up; none after `stop`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(nodes: [u32; 2], socks: [SockId; 2], dst: Endpoint, sizes: [u32; 2], count: u32, interval: Option<Duration>, timeout: Duration, stop: Time) -> UdpRr {
        let n = (count as usize).min(1 << 16);
        UdpRr {
            nodes,
            client: socks[0],
            server: socks[1],
            dst,
            request: sizes[0],
            response: sizes[1],
            count,
            interval,
            timeout,
            stop,
            sent_at: Vec::with_capacity(n),
            rtt: Vec::with_capacity(n),
            responses: 0,
            served: 0,
            next_at: Time::ZERO,
        }
    }

    fn send_request(&mut self, cx: &mut AppCtx) {
        let id = self.sent_at.len() as u32;
        self.sent_at.push(cx.now);
        self.rtt.push(None);
        let h = RrHeader { response: false, response_len: self.response as u16, id };
        let ip_id = cx.stack.next_ip_id(self.nodes[0]);
        cx.stack.datagram(self.client).send_body(self.dst, Body::with_header(h.encode()), self.request, ip_id);
        cx.drive(self.client);
    }

    /// Sends what is due, finishes when nothing is left to wait for, else asks for a wake-up.
    fn step(&mut self, cx: &mut AppCtx) {
        let now = cx.now;
        let sent = self.sent_at.len() as u64;
        let more = sent < u64::from(self.count) && now < self.stop;
        let last = self.sent_at.last().copied();
        if more {
            let due = match self.interval {
                Some(_) => now >= self.next_at,
                // Closed loop: when the last request was answered or given up.
                None => last.is_none_or(|t| self.rtt.last().is_some_and(Option::is_some) || now >= t + self.timeout),
            };
            if due {
                self.send_request(cx);
                if let Some(iv) = self.interval {
                    self.next_at = now + iv;
                }
                return self.step(cx);
            }
        }
        let waiting = last.filter(|_| self.responses < sent).map(|t| t + self.timeout);
        let next = match (more, self.interval) {
            (true, Some(_)) => Some(self.next_at),
            (true, None) => last.map(|t| t + self.timeout),
            (false, _) => waiting.filter(|&t| t > now),
        };
        match next {
            Some(t) => cx.wake_at(t),
            None => cx.finish(),
        }
    }

    /// Round-trip times of the answered requests, in ms, sorted.
    fn sorted_rtts_ms(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self.rtt.iter().flatten().map(|d| d.as_secs_f64() * 1e3).collect();
        v.sort_by(f64::total_cmp);
        v
    }
}

/// The nearest-rank `q`-quantile of sorted values (`None` if there are none).
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let n = sorted.len();
    (n > 0).then(|| sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1])
}

impl Application for UdpRr {
    fn on_wake(&mut self, cx: &mut AppCtx) {
        self.step(cx);
    }

    fn on_socket(&mut self, cx: &mut AppCtx, s: SockId, ev: SocketEvent) {
        let SocketEvent::Datagram(p) = ev else { return };
        let Some(h) = RrHeader::decode(&p) else { return };
        if s == self.server && !h.response {
            self.served += 1;
            let reply = RrHeader { response: true, ..h };
            let len = u32::from(h.response_len).max(HEADER_LEN);
            let ip_id = cx.stack.next_ip_id(self.nodes[1]);
            cx.stack.datagram(s).send_body(p.src_endpoint(), Body::with_header(reply.encode()), len, ip_id);
            cx.drive(s);
            return;
        }
        if s != self.client || !h.response {
            return;
        }
        let (Some(&sent), Some(slot)) = (self.sent_at.get(h.id as usize), self.rtt.get_mut(h.id as usize)) else { return };
        if slot.is_some() {
            return; // a duplicate
        }
        *slot = Some(cx.now - sent);
        self.responses += 1;
        cx.record.bytes_delivered += u64::from(p.payload_len);
        if cx.record.completed_at.is_none() {
            self.step(cx);
        }
    }

    fn metrics(&self, _stack: &Stack, _record: &FlowRecord, _end: Time) -> FlowMetrics {
        let rtts = self.sorted_rtts_ms();
        let requests = self.sent_at.len() as u64;
        FlowMetrics::UdpRr(UdpRrMetrics {
            requests,
            responses: self.responses,
            lost: requests - self.responses,
            served: self.served,
            rtt_mean_ms: (!rtts.is_empty()).then(|| rtts.iter().sum::<f64>() / rtts.len() as f64),
            rtt_p50_ms: quantile(&rtts, 0.5),
            rtt_p99_ms: quantile(&rtts, 0.99),
        })
    }

    fn cost(&self, record: &FlowRecord, _path_rate_bps: f64, horizon_s: f64) -> FlowCost {
        let n = f64::from(self.count);
        let start = record.start.as_nanos() as f64 / 1e9;
        let pace = self.interval.unwrap_or(Duration::from_millis(1)).as_secs_f64();
        let seconds = (n * pace + self.timeout.as_secs_f64()).min((horizon_s - start).max(0.0));
        FlowCost { packets: 2.0 * n, seconds, ..FlowCost::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;
    use wattlab_core::packet::UdpHeader;

    #[test]
    fn the_header_round_trips_and_strangers_are_ignored() {
        let h = RrHeader { response: true, response_len: 1400, id: 0xdead_beef };
        let (a, b) = (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
        let p = Packet::udp_with(a, b, UdpHeader::default(), Body::with_header(h.encode()), 100);
        assert_eq!(p.proto_header(), &[2, 0, 0x05, 0x78, 0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(RrHeader::decode(&p), Some(h));
        assert_eq!(RrHeader::decode(&Packet::udp(a, b, UdpHeader::default(), 100)), None);
        let odd = Packet::udp_with(a, b, UdpHeader::default(), Body::with_header(ProtoHeader::new(&[9; 8]).unwrap()), 8);
        assert_eq!(RrHeader::decode(&odd), None);
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!((quantile(&v, 0.5), quantile(&v, 0.99), quantile(&v, 1.0)), (Some(50.0), Some(99.0), Some(100.0)));
        assert_eq!((quantile(&[7.0], 0.99), quantile(&[], 0.5)), (Some(7.0), None));
    }
}
