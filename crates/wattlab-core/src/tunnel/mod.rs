//! Seed 002 Ch. 4's SCTP tunnel between a client and its AP, as sans-IO endpoints: every IP
//! packet of the client's TCP flows rides in a DATA chunk of one SCTP association (one stream
//! per flow), released in bursts of m so the client's radio wakes once per burst.
//!
//! An [`Endpoint`] is driven with the time and returns what to send; it has no clock, no
//! socket and no random numbers, so the simulator drives it in simulated time and a live
//! process with its own clock and a UDP socket (RFC 6951, port 9899):
//!
//! - [`Endpoint::send`]: an inner packet to carry (its flow key, length, and a handle `T` the
//!   caller chooses: the simulator's [`crate::Packet`], a live process's buffer index).
//! - [`Endpoint::handle_packet`] / [`Endpoint::handle_datagram`]: a tunnel packet arrived
//!   (decoded header + inner handle, or the UDP payload's bytes).
//! - [`Endpoint::poll_transmit`]: the next SCTP packet to send ([`Transmit`]: its header for
//!   [`crate::wire::sctp`] and the inner packet it carries).
//! - [`Endpoint::poll_deliver`]: the next inner packet to hand on, per stream in order.
//! - [`Endpoint::poll_timeout`] / [`Endpoint::handle_timeout`]: retransmission, delayed SACK,
//!   inlet and trigger timers.
//!
//! The protocol subset and its choices are in docs/tunnel.md: the association starts with RFC
//! 9260's four-way handshake (INIT, INIT ACK, COOKIE ECHO, COOKIE ACK; the client initiates)
//! or is pre-established from [`TunnelConfig`]'s tags and TSNs, RFC 9260 SACKs,
//! T3-rtx with the RFC's RTO rules, fast retransmit on three miss indications, association-wide
//! congestion control (§7.2), Max.Burst (§6.1, off by default), and the burst rule.

mod bytes;
mod config;
mod endpoint;
mod recv;
mod trigger;
#[cfg(test)]
mod tests;

pub use bytes::{InnerPacket, TunnelEngine};
pub use config::{TriggerConfig, TunnelConfig};
pub use endpoint::Endpoint;
pub use trigger::TriggerEstimator;

use crate::packet::{Packet, Transport};
use crate::wire::sctp::SctpHeader;
use std::net::Ipv4Addr;

/// An inner flow: its two IPv4 endpoints (ordered, so both directions of a connection are one
/// flow) and the IP protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowKey {
    /// The lower (address, port) of the two ends.
    pub a: (Ipv4Addr, u16),
    /// The higher one.
    pub b: (Ipv4Addr, u16),
    /// IP protocol number.
    pub protocol: u8,
}

impl FlowKey {
    /// The flow of a 5-tuple, either direction.
    pub fn new(src: (Ipv4Addr, u16), dst: (Ipv4Addr, u16), protocol: u8) -> FlowKey {
        let (a, b) = if src <= dst { (src, dst) } else { (dst, src) };
        FlowKey { a, b, protocol }
    }

    /// The flow of a simulator packet (ports 0 for protocols without them).
    pub fn of_packet(p: &Packet) -> FlowKey {
        let (s, d) = (p.src_endpoint(), p.dst_endpoint());
        let ports = matches!(p.transport, Transport::Tcp(_) | Transport::Udp(..));
        let (sp, dp) = if ports { (s.port, d.port) } else { (0, 0) };
        FlowKey::new((p.src, sp), (p.dst, dp), p.protocol())
    }

    /// The flow of an IPv4 packet's bytes (a live process's TUN read); `None` if it is not IPv4.
    pub fn of_ipv4_bytes(b: &[u8]) -> Option<FlowKey> {
        if b.len() < 20 || b[0] >> 4 != 4 {
            return None;
        }
        let ihl = usize::from(b[0] & 0x0f) * 4;
        let proto = b[9];
        let src = Ipv4Addr::new(b[12], b[13], b[14], b[15]);
        let dst = Ipv4Addr::new(b[16], b[17], b[18], b[19]);
        let (sp, dp) = match (proto, b.get(ihl..ihl + 4)) {
            (6 | 17, Some(p)) => (u16::from_be_bytes([p[0], p[1]]), u16::from_be_bytes([p[2], p[3]])),
            _ => (0, 0),
        };
        Some(FlowKey::new((src, sp), (dst, dp), proto))
    }
}

/// One SCTP packet to send: its chunks and the inner packet its DATA chunk carries.
#[derive(Clone, Debug, PartialEq)]
pub struct Transmit<T> {
    /// Common header, SACK and DATA chunk headers.
    pub header: SctpHeader,
    /// The inner packet (present exactly when `header.data` is).
    pub inner: Option<T>,
    /// True if this packet was sent as an explicit U-APSD trigger.
    pub trigger: bool,
}

/// Why an arriving tunnel packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Bytes that do not decode (bad CRC, truncated chunk, bad lengths, unknown chunk).
    Malformed,
    /// Wrong verification tag or ports, a handshake chunk the state does not expect, a cookie
    /// that is not ours, or DATA/SACK before the association is established.
    NotOurs,
    /// A stream id beyond `max_streams`, or a DATA chunk without its inner packet.
    BadData,
}

/// Counters of one endpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TunnelStats {
    /// Inner packets given to [`Endpoint::send`].
    pub inner_in: u64,
    /// Inner packets handed on by [`Endpoint::poll_deliver`].
    pub inner_delivered: u64,
    /// SCTP packets sent.
    pub packets_sent: u64,
    /// SCTP packets accepted.
    pub packets_received: u64,
    /// DATA chunks sent for the first time.
    pub data_sent: u64,
    /// DATA chunks retransmitted after a T3-rtx timeout.
    pub timeout_retransmissions: u64,
    /// DATA chunks fast-retransmitted.
    pub fast_retransmissions: u64,
    /// T3-rtx timeouts.
    pub timeouts: u64,
    /// Fast recoveries entered.
    pub fast_recoveries: u64,
    /// SACK chunks sent, and how many of them rode on DATA.
    pub sacks_sent: u64,
    /// SACK chunks that rode on a DATA chunk.
    pub sacks_piggybacked: u64,
    /// Duplicate DATA chunks received (not delivered again).
    pub duplicate_data: u64,
    /// Inlet releases because m packets were buffered.
    pub released_full: u64,
    /// Inlet releases because the timeout expired.
    pub released_timeout: u64,
    /// Inlet releases because m packets were received (the burst rule).
    pub released_burst_rule: u64,
    /// Inner packets released from the inlet.
    pub inlet_released: u64,
    /// Their summed wait in the inlet, arrival to release (ns): the mean buffering delay is
    /// `inlet_wait_ns / inlet_released`.
    pub inlet_wait_ns: u64,
    /// Explicit U-APSD triggers sent.
    pub triggers: u64,
    /// Arriving packets dropped as malformed (decode errors).
    pub dropped_malformed: u64,
    /// Arriving packets dropped for a wrong tag or port, a handshake chunk out of place, or
    /// DATA/SACK before the association is established.
    pub dropped_not_ours: u64,
    /// Arriving DATA dropped for a bad stream id or a missing inner packet.
    pub dropped_bad_data: u64,
    /// DATA chunks beyond the receive window or the reorder buffer, dropped unacknowledged.
    pub dropped_window: u64,
    /// Handshake chunks sent (INIT, INIT ACK, COOKIE ECHO, COOKIE ACK; 0 when pre-established).
    pub handshake_sent: u64,
    /// INITs and COOKIE ECHOs sent again after T1 expired.
    pub handshake_retransmissions: u64,
    /// When the association became established by the handshake (ns of the caller's clock;
    /// 0 when pre-established).
    pub established_ns: u64,
    /// The initiator gave up after Max.Init.Retransmits.
    pub handshake_failed: bool,
    /// Output opportunities that Max.Burst ended with new DATA still waiting.
    pub max_burst_limited: u64,
}
