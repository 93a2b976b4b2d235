//! The network layer: nodes and their interfaces, the channels that join them (point-to-point
//! links and the simple wireless hop), routes, and captures (ns-3's Node, NetDevice, Channel).
//!
//! Packets move through it as `Copy` structs. It knows nothing of sockets, applications,
//! middleboxes or power saving: the simulation (`crate::sim`) joins it to those layers.

pub mod impairment;
pub mod link;
pub mod pcap;
pub mod routing;

use crate::scenario::NodeKind;

use link::{Channel, ChannelId, IfaceId, Medium};
use pcap::PcapSink;

use rustc_hash::FxHashMap;
use std::net::Ipv4Addr;
use wattlab_core::{Packet, Time};

/// Index of a station in its BSS (`crate::wlan`; the AP is station 0).
pub type StaId = u16;

/// A node: host, router or access point.
pub struct Node {
    /// Name from the scenario.
    pub name: String,
    /// What it is.
    pub kind: NodeKind,
    /// Its IPv4 address.
    pub addr: Ipv4Addr,
    /// Its interfaces.
    pub ifaces: Vec<IfaceId>,
}

/// A network interface: one end of a link, of a wireless hop, or a station of a BSS.
pub struct Iface {
    /// Owning node.
    pub node: u32,
    /// Name, e.g. `eth0` or `wlan0`.
    pub name: String,
    /// Channel this interface transmits on (unused on an 802.11 interface).
    pub tx: ChannelId,
    /// Interface at the other end (an 802.11 station's: the AP's).
    pub peer: IfaceId,
    /// MAC address (for pcap).
    pub mac: [u8; 6],
    /// Radio fed by this interface's airtime (wireless interfaces of nodes with a radio).
    pub radio: Option<usize>,
    /// Capture of this interface, if requested.
    pub pcap: Option<usize>,
    /// BSS and station id, for an interface on an 802.11 channel.
    pub wlan: Option<(u16, StaId)>,
    /// The middlebox every packet through this interface passes, if any.
    pub middlebox: Option<u32>,
}

/// Counters that belong to no link or flow.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct DropCounters {
    /// Packets to an address no node has, or with no route.
    pub unroutable: u64,
    /// Packets whose TTL ran out.
    pub ttl_expired: u64,
    /// Packets for no socket and no listener.
    pub no_socket: u64,
    /// Packets addressed elsewhere arriving at a host (hosts do not forward).
    pub not_forwarded: u64,
}

/// Nodes, interfaces, channels, routes and captures.
pub struct Network {
    /// Nodes, by index.
    pub nodes: Vec<Node>,
    /// Interfaces, by index.
    pub ifaces: Vec<Iface>,
    /// Channels (one per link direction), by index.
    pub channels: Vec<Channel>,
    /// Half-duplex media (the two directions of a hop share one).
    pub media: Vec<Medium>,
    /// Next hops along the flows' paths.
    pub routes: routing::Routes,
    /// Node of each address.
    pub addr_to_node: FxHashMap<Ipv4Addr, u32>,
    /// Open captures: (path, sink).
    pub pcaps: Vec<(String, PcapSink)>,
    /// Packets dropped outside links.
    pub drops: DropCounters,
    /// The first error that ends the run: a capture that cannot be written, or memory the
    /// time series cannot get (an allocation failure must not abort the process).
    pub fatal_error: Option<String>,
    /// Packets that tunnels encapsulate (the outer packets carry handles into it).
    pub arena: wattlab_core::packet::PacketArena,
}

impl Network {
    /// Where `node` sends a packet for `dst`: (interface, next-hop node), or `None` if the
    /// address is unknown or no route leads there.
    pub fn route(&self, node: u32, dst: Ipv4Addr) -> Option<(IfaceId, u32)> {
        let &to = self.addr_to_node.get(&dst)?;
        self.routes.next_hop(node, to)
    }

    /// The address of node `n`.
    pub fn addr(&self, n: u32) -> Ipv4Addr {
        self.nodes[n as usize].addr
    }

    /// Writes `p` to `iface`'s capture, if any; `outgoing` sets the direction and `peer` is the
    /// MAC address at the other end.
    // Inlined test, out-of-line write: most interfaces have no capture, and every packet
    // crossing one asks.
    #[inline]
    pub fn capture(&mut self, iface: IfaceId, t: Time, p: &Packet, outgoing: bool, peer: [u8; 6]) {
        if let Some(k) = self.ifaces[iface as usize].pcap {
            self.write_capture(k, iface, t, p, outgoing, peer);
        }
    }

    /// Writes `p` to capture `k` of `iface` (see [`Network::capture`]).
    #[cold]
    #[inline(never)]
    fn write_capture(&mut self, k: usize, iface: IfaceId, t: Time, p: &Packet, outgoing: bool, peer: [u8; 6]) {
        let i = &self.ifaces[iface as usize];
        let (src, dst) = if outgoing { (i.mac, peer) } else { (peer, i.mac) };
        if let Err(e) = self.pcaps[k].1.write_in(t, p, &self.arena, src, dst) {
            self.fatal_error.get_or_insert_with(|| format!("writing capture {}: {e}", self.pcaps[k].0));
        }
    }

    /// [`Network::capture`] with the MAC address of the interface's peer.
    #[inline]
    pub fn capture_at_peer(&mut self, iface: IfaceId, t: Time, p: &Packet, outgoing: bool) {
        if self.ifaces[iface as usize].pcap.is_none() {
            return;
        }
        let peer = self.ifaces[self.ifaces[iface as usize].peer as usize].mac;
        self.capture(iface, t, p, outgoing, peer);
    }
}
