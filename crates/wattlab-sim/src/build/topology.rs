//! Building the network: nodes, `[[link]]`s and `[[wireless]]` hops as interfaces and channels.

use super::settings::{impairments, queue_limit};
use super::Ctx;
use crate::net::link::{Channel, ChannelParams, Medium};
use crate::net::{Iface, Node};
use crate::power::hop::HopHost;
use crate::rng::RngStreams;
use crate::scenario::{DirectionConfig, NodeKind, QueueConfig, Scenario, ScenarioError};
use std::collections::HashMap;
use std::net::Ipv4Addr;
use toml::Spanned;
use wattlab_core::wire::mac_for_node;
use wattlab_core::Duration;

/// Prefix of the interfaces of `[[link]]`s.
pub(crate) const ETH_PREFIX: &str = "eth";
/// Prefix of wireless interfaces (`[[wireless]]` hops and `[[wlan]]`s).
pub(crate) const WLAN_PREFIX: &str = "wlan";

/// The network as built so far, and the lookups the other builders need.
pub(crate) struct Topology {
    pub nodes: Vec<Node>,
    pub by_name: HashMap<String, u32>,
    pub addr_to_node: rustc_hash::FxHashMap<Ipv4Addr, u32>,
    pub ifaces: Vec<Iface>,
    pub channels: Vec<Channel>,
    pub media: Vec<Medium>,
    /// Per node: (neighbour, interface to it).
    pub adjacency: Vec<Vec<(u32, u32)>>,
    /// The wireless interface of each station.
    pub wireless_iface_of: HashMap<u32, u32>,
    /// `[[wireless]]` hops' power management, in file order.
    pub hops: Vec<HopHost>,
    /// Per node: interfaces named so far by prefix (`eth`, `wlan`), so naming the next one
    /// does not scan the node's interfaces (a hub of N links would make set-up quadratic).
    iface_counts: Vec<[u32; 2]>,
}

/// One direction of a link or hop, before it is a channel.
struct Dir<'d> {
    rate: u64,
    overhead: Duration,
    delay: Duration,
    queue: QueueConfig,
    imp: &'d DirectionConfig,
    medium: Option<u32>,
}

impl Topology {
    /// The node named by `s` (`key` locates the error).
    pub(crate) fn lookup(&self, cx: &Ctx, scn: &Scenario, s: &Spanned<String>, key: &str) -> Result<u32, ScenarioError> {
        self.by_name.get(s.get_ref()).copied().ok_or_else(|| {
            let known: Vec<&str> = scn.nodes.iter().map(|n| n.name.get_ref().as_str()).collect();
            cx.err(s, key, format!("unknown node `{}` (nodes: {})", s.get_ref(), known.join(", ")))
        })
    }

    /// The next interface name of `node` with `prefix` (`eth0`, `eth1`, ... in creation order).
    pub(crate) fn next_iface_name(&mut self, node: u32, prefix: &'static str) -> String {
        let kind = usize::from(prefix == WLAN_PREFIX);
        debug_assert!(prefix == WLAN_PREFIX || prefix == ETH_PREFIX, "{prefix}");
        let count = &mut self.iface_counts[node as usize][kind];
        let name = format!("{prefix}{count}");
        *count += 1;
        name
    }

    /// Two interfaces `prefix`N on `a` and `b` joined by two channels (`ab`, `ba`).
    #[allow(clippy::too_many_arguments)]
    fn add_pair(&mut self, cx: &Ctx, streams: &RngStreams, a: u32, b: u32, prefix: &'static str, link_name: &str, key: &str, ab: Dir, ba: Dir) -> Result<(u32, u32), ScenarioError> {
        let ia = self.ifaces.len() as u32;
        let ib = ia + 1;
        for (node, this, peer) in [(a, ia, ib), (b, ib, ia)] {
            let name = self.next_iface_name(node, prefix);
            self.ifaces.push(Iface {
                node,
                name,
                tx: 0,
                peer,
                mac: mac_for_node(this),
                radio: None,
                pcap: None,
                wlan: None,
                middlebox: None,
            });
            self.nodes[node as usize].ifaces.push(this);
        }
        for (from, to, d, dir_name) in [(ia, ib, ab, "a_to_b"), (ib, ia, ba, "b_to_a")] {
            let ch = self.channels.len() as u32;
            self.ifaces[from as usize].tx = ch;
            let from_n = &self.nodes[self.ifaces[from as usize].node as usize].name;
            let to_n = &self.nodes[self.ifaces[to as usize].node as usize].name;
            let name = format!("{link_name}:{from_n}->{to_n}");
            let limit = queue_limit(&d.queue).map_err(|m| ScenarioError::general(cx.origin, Some(format!("{key}.queue")), m))?;
            let (loss, jitter) =
                impairments(d.imp).map_err(|m| ScenarioError::general(cx.origin, Some(format!("{key}.{dir_name}")), m))?;
            let params = ChannelParams { rate_bps: d.rate, overhead: d.overhead, delay: d.delay, queue: limit, loss, jitter, reorder: d.imp.reorder };
            let mut channel = Channel::new(name, from, to, params, streams);
            channel.medium = d.medium;
            self.channels.push(channel);
        }
        self.adjacency[a as usize].push((b, ia));
        self.adjacency[b as usize].push((a, ib));
        Ok((ia, ib))
    }
}

/// The nodes, their addresses, and the `[[link]]`s and `[[wireless]]` hops between them.
pub(crate) fn build(scn: &Scenario, cx: &Ctx, streams: &RngStreams) -> Result<Topology, ScenarioError> {
    let mut t = nodes(scn, cx)?;
    for (i, l) in scn.links.iter().enumerate() {
        let key = format!("link[{i}]");
        let a = t.lookup(cx, scn, &l.a, &format!("{key}.a"))?;
        let b = t.lookup(cx, scn, &l.b, &format!("{key}.b"))?;
        if a == b {
            return Err(cx.err(&l.b, &format!("{key}.b"), "a link must join two different nodes"));
        }
        let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a.get_ref(), l.b.get_ref()));
        let mk = |imp| Dir { rate: l.rate.bps(), overhead: Duration::ZERO, delay: l.delay.get(), queue: l.queue, imp, medium: None };
        t.add_pair(cx, streams, a, b, ETH_PREFIX, &name, &key, mk(&l.a_to_b), mk(&l.b_to_a))?;
    }
    for (i, w) in scn.wireless.iter().enumerate() {
        let key = format!("wireless[{i}]");
        let ap = t.lookup(cx, scn, &w.ap, &format!("{key}.ap"))?;
        let sta = t.lookup(cx, scn, &w.station, &format!("{key}.station"))?;
        if t.nodes[ap as usize].kind != NodeKind::Ap {
            return Err(cx.err(&w.ap, &format!("{key}.ap"), format!("node `{}` is not of kind \"ap\"", w.ap.get_ref())));
        }
        if ap == sta {
            return Err(cx.err(&w.station, &format!("{key}.station"), "the station must differ from the AP"));
        }
        if t.wireless_iface_of.contains_key(&sta) {
            return Err(cx.err(&w.station, &format!("{key}.station"), "this station already has a wireless hop"));
        }
        let name = w.name.clone().unwrap_or_else(|| format!("{}-{}", w.ap.get_ref(), w.station.get_ref()));
        let medium = w.half_duplex.then(|| {
            let ch = t.channels.len() as u32;
            t.media.push(Medium { channels: [ch, ch + 1], busy_with: None, next_turn: 0 });
            t.media.len() as u32 - 1
        });
        let overhead = w.mac_overhead.map(|d| d.get()).unwrap_or(Duration::ZERO);
        let delay = w.delay.map(|d| d.get()).unwrap_or(Duration::from_micros(1));
        let mk = |imp| Dir { rate: w.rate.bps(), overhead, delay, queue: w.queue, imp, medium };
        let (ia, ib) = t.add_pair(cx, streams, ap, sta, WLAN_PREFIX, &name, &key, mk(&w.down), mk(&w.up))?;
        t.wireless_iface_of.insert(sta, ib);
        let (down, up) = (t.ifaces[ia as usize].tx, t.ifaces[ib as usize].tx);
        let hop = super::power::hop(cx, w, &key, i as u32, name, sta, down, up, &mut t.channels)?;
        t.hops.push(hop);
    }
    Ok(t)
}

/// The nodes, each with its address (`10.0.0.N` by default).
fn nodes(scn: &Scenario, cx: &Ctx) -> Result<Topology, ScenarioError> {
    if scn.nodes.is_empty() {
        return Err(ScenarioError::general(cx.origin, Some("node".into()), "the scenario has no [[node]]"));
    }
    let mut t = Topology {
        nodes: Vec::new(),
        by_name: HashMap::new(),
        addr_to_node: Default::default(),
        ifaces: Vec::new(),
        channels: Vec::new(),
        media: Vec::new(),
        adjacency: vec![Vec::new(); scn.nodes.len()],
        wireless_iface_of: HashMap::new(),
        hops: Vec::new(),
        iface_counts: vec![[0; 2]; scn.nodes.len()],
    };
    for (i, n) in scn.nodes.iter().enumerate() {
        let name = n.name.get_ref().clone();
        if name.is_empty() || name.contains(':') {
            return Err(cx.err(&n.name, &format!("node[{i}].name"), "a node name must be non-empty and contain no ':'"));
        }
        if t.by_name.insert(name.clone(), i as u32).is_some() {
            return Err(cx.err(&n.name, &format!("node[{i}].name"), format!("duplicate node name `{name}`")));
        }
        // 10.0.0.N counting on into 10.1.0.0 and beyond: the N-th node's default address is
        // 10.0.0.0 + N, unique for every node a scenario can hold (not only the first 65535).
        let addr = n.address.unwrap_or_else(|| Ipv4Addr::from(u32::from(Ipv4Addr::new(10, 0, 0, 0)) + (i as u32 + 1)));
        if t.addr_to_node.insert(addr, i as u32).is_some() {
            return Err(cx.err(&n.name, &format!("node[{i}].address"), format!("address {addr} is used twice")));
        }
        t.nodes.push(Node { name, kind: n.kind, addr, ifaces: Vec::new() });
    }
    Ok(t)
}
