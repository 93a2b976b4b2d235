//! Seed 002 Ch. 4's SCTP tunnel (`wattlab_core::tunnel`) as two middleboxes: one on a
//! `[[wlan]]` station's interface, one on its AP's interface in the BSS (`[[tunnel]]`).
//!
//! Every TCP packet the client sends, and every TCP packet the AP sends to the client, is
//! taken out of the path (the middlebox absorbs it) and carried in a DATA chunk of the
//! association: the outer packet is UDP 9899 → 9899 (RFC 6951; or SCTP straight over IP with
//! `encapsulation = "ip"`, which tcpdump decodes too) whose body is the SCTP header
//! bytes inline (common header, SACK, DATA header: at most 48 bytes, so SACKs report at most
//! what fits) and the inner packet as an encapsulated packet in the network's arena. The peer
//! absorbs the outer packet once it is received (captured, counted) and hands the inner one on:
//! to the client's stack, or forward from the AP. The client's explicit U-APSD triggers are
//! SACK-only packets: in U-APSD any uplink frame is a trigger.

use crate::net::link::IfaceId;
use serde::Serialize;
use std::net::Ipv4Addr;
use wattlab_core::agent::Verdict;
use wattlab_core::packet::{Body, PacketArena, ProtoHeader, UdpHeader};
use wattlab_core::tunnel::{Endpoint, FlowKey, TunnelStats};
use wattlab_core::wire::sctp::{decode_sctp_headers, encode_sctp_headers, pad4, IPPROTO_SCTP, SCTP_UDP_PORT};
use wattlab_core::{Packet, Time, Transport};

/// Which end of the tunnel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// On the wireless client.
    Client,
    /// On the access point.
    Ap,
}

/// One tunnel endpoint on a node's interface.
pub struct TunnelHost {
    /// Its node.
    pub node: u32,
    /// The interface it sits on.
    pub iface: IfaceId,
    /// The `[[tunnel]]` name (reports).
    pub name: String,
    /// Which end.
    pub side: Side,
    /// This node's address (the outer packets' source).
    pub local: Ipv4Addr,
    /// The other end's address.
    pub peer: Ipv4Addr,
    /// The client's address: TCP packets from it (client side) or to it (AP side) go in.
    pub client: Ipv4Addr,
    /// The SCTP endpoint.
    pub endpoint: Endpoint<Packet>,
    /// SCTP over UDP 9899 (RFC 6951, the default) or straight over IP (protocol 132).
    pub over_udp: bool,
    scratch: Vec<u8>,
}

/// One endpoint's line in the run's summary.
#[derive(Clone, Debug, Serialize)]
pub struct TunnelSummary {
    /// `[[tunnel]]` name.
    pub tunnel: String,
    /// Which end.
    pub side: Side,
    /// Node name.
    pub node: String,
    /// Counters.
    #[serde(flatten)]
    pub stats: TunnelStats,
}

impl TunnelHost {
    /// An endpoint on `iface` of `node`.
    pub fn new(node: u32, iface: IfaceId, name: String, side: Side, addrs: [Ipv4Addr; 3], endpoint: Endpoint<Packet>) -> TunnelHost {
        let [local, peer, client] = addrs;
        TunnelHost { node, iface, name, side, local, peer, client, endpoint, over_udp: true, scratch: Vec::with_capacity(64) }
    }

    fn carries(&self, p: &Packet) -> bool {
        matches!(p.transport, Transport::Tcp(_))
            && match self.side {
                Side::Client => p.src == self.client,
                Side::Ap => p.dst == self.client,
            }
    }

    fn is_ours(&self, p: &Packet) -> bool {
        let sctp = match p.transport {
            Transport::Udp(h, _) => self.over_udp && h.dst_port == SCTP_UDP_PORT,
            Transport::Other { protocol, .. } => !self.over_udp && protocol == IPPROTO_SCTP,
            _ => false,
        };
        sctp && p.src == self.peer && p.dst == self.local
    }

    /// A packet leaving through the interface: inner TCP packets go into the tunnel.
    pub fn on_outgoing(&mut self, now: Time, p: &Packet) -> Verdict {
        if !self.carries(p) {
            return Verdict::Pass;
        }
        self.endpoint.send(now, FlowKey::of_packet(p), p.ip_len(), *p);
        Verdict::Drop
    }

    /// A packet received on the interface: true if it was a tunnel packet (absorbed).
    pub fn consume_incoming(&mut self, now: Time, p: &Packet, arena: &PacketArena) -> bool {
        if !self.is_ours(p) {
            return false;
        }
        let Ok(h) = decode_sctp_headers(p.proto_header()) else {
            self.endpoint.count_malformed();
            return true;
        };
        let inner = h.data.and_then(|_| p.body().and_then(|b| b.encap).and_then(|id| arena.get(id).copied()));
        let _ = self.endpoint.handle_packet(now, &h, inner); // dropped packets are counted there
        true
    }

    /// The next outer packet to send; its inner packet is stored in `arena`.
    pub fn poll_transmit(&mut self, now: Time, arena: &mut PacketArena) -> Option<Packet> {
        let t = self.endpoint.poll_transmit(now)?;
        self.scratch.clear();
        encode_sctp_headers(&t.header, &mut self.scratch);
        // Fits by construction: the endpoint's max_header_bytes is the inline room.
        let header = ProtoHeader::new(&self.scratch)?;
        let encap = t.inner.map(|i| arena.insert(i));
        let data = t.inner.map_or(0, |i| pad4(i.ip_len() as usize));
        let payload = (self.scratch.len() + data) as u32;
        let body = Body { header, encap, kept: false };
        if !self.over_udp {
            let transport = Transport::Other { protocol: IPPROTO_SCTP, body };
            return Some(Packet { src: self.local, dst: self.peer, ip_id: 0, ttl: 64, dscp: 0, transport, payload_len: payload });
        }
        let udp = UdpHeader { src_port: SCTP_UDP_PORT, dst_port: SCTP_UDP_PORT };
        Some(Packet::udp_with(self.local, self.peer, udp, body, payload))
    }

    /// The next inner packet that came out of the tunnel, in order within its flow.
    pub fn poll_deliver(&mut self) -> Option<Packet> {
        self.endpoint.poll_deliver().map(|(_, p)| p)
    }
}
