//! Turning a parsed [`Scenario`] into a runnable [`Simulation`]: names resolved, addresses
//! assigned, interfaces and channels created, routes computed, applications attached.
//! Every reference error points back at the scenario line that made it.

use crate::app::{App, FlowRecord};
use crate::engine::Scheduler;
use crate::hop_power::{HopHost, HopPower, HopPowerMode, HOP_POWER_SAVE_NAMES};
use crate::impairment::{Jitter, LossProcess};
use crate::link::{Channel, ChannelParams, Medium, QueueLimit};
use crate::output::TimeSeries;
use crate::pcap::PcapSink;
use crate::radio::Radio;
use crate::rng::RngStreams;
use crate::scenario::{
    DirectionConfig, FlowConfig, JitterConfig, LossConfig, NodeKind, QueueConfig, ReaderConfig, Scenario,
    ScenarioError, TcpSettings,
};
use crate::sim::{DropCounters, Iface, Listener, Node, Simulation};
use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use toml::Spanned;
use wattlab_core::energy::{builtin_profile, builtin_profile_names, AccountingPolicy};
use wattlab_core::tcp::{CongestionControlKind, TcpConfig};
use wattlab_core::wire::mac_for_node;
use wattlab_core::{Duration, Time};

/// Options that come from the command line rather than the scenario file.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Directory for pcap files (required if any capture is requested).
    pub out_dir: Option<PathBuf>,
    /// Extra captures, `node:iface`, added to the scenario's.
    pub pcaps: Vec<String>,
    /// Force time series on.
    pub timeseries: bool,
}

/// Congestion-control names accepted in scenarios: every `CongestionControlKind::name()`
/// (aliases "westwood+" and "new-reno" are accepted too but not listed).
pub const CC_NAMES: &[&str] = &[
    "tahoe", "reno", "newreno", "sack", "vegas", "westwood", "cubic",
];

/// The scenario name `sack`: ns-2's `Sack1` sender, i.e. Reno's window arithmetic with SACK
/// negotiated, so recovery follows RFC 6675 (see `tcp.sack` to add SACK to any algorithm).
const SACK_NAME: &str = "sack";

/// Accounting policy names accepted in scenarios.
pub const POLICY_NAMES: &[&str] = &["always-on", "oracle"];

/// Where errors point: the scenario's file name and text.
pub(crate) struct Ctx<'a> {
    pub(crate) origin: &'a str,
    pub(crate) source: &'a str,
}

impl Ctx<'_> {
    /// An error at the span of `at`, under `key`.
    pub(crate) fn err<T>(&self, at: &Spanned<T>, key: &str, msg: impl Into<String>) -> ScenarioError {
        let span = at.span();
        let span = (span.end > span.start).then_some(span);
        ScenarioError::at_span(self.origin, self.source, span, Some(key.to_string()), msg)
    }
}

/// Build a simulation from a parsed scenario.
pub fn build(
    scn: &Scenario,
    source: &str,
    origin: &str,
    seed: Option<u64>,
    opts: &BuildOptions,
) -> Result<Simulation, ScenarioError> {
    let cx = Ctx { origin, source };
    crate::scenario::ranges::check(scn, source, origin)?;
    crate::scenario::names::check(scn, source, origin)?;
    let seed = seed.unwrap_or(scn.simulation.seed);
    let streams = RngStreams::new(seed);

    // Nodes.
    if scn.nodes.is_empty() {
        return Err(ScenarioError::general(origin, Some("node".into()), "the scenario has no [[node]]"));
    }
    let mut nodes = Vec::new();
    let mut by_name: HashMap<String, u32> = HashMap::new();
    let mut addr_to_node = HashMap::new();
    for (i, n) in scn.nodes.iter().enumerate() {
        let name = n.name.get_ref().clone();
        if name.is_empty() || name.contains(':') {
            return Err(cx.err(&n.name, &format!("node[{i}].name"), "a node name must be non-empty and contain no ':'"));
        }
        if by_name.insert(name.clone(), i as u32).is_some() {
            return Err(cx.err(&n.name, &format!("node[{i}].name"), format!("duplicate node name `{name}`")));
        }
        let addr = n.address.unwrap_or_else(|| Ipv4Addr::new(10, 0, ((i + 1) >> 8) as u8, ((i + 1) & 0xff) as u8));
        if addr_to_node.insert(addr, i as u32).is_some() {
            return Err(cx.err(&n.name, &format!("node[{i}].address"), format!("address {addr} is used twice")));
        }
        nodes.push(Node { name, kind: n.kind, addr, ifaces: Vec::new(), next_port: 49152, next_ip_id: 1 });
    }
    let flow_err = |i: usize, field: &str, msg: String| {
        let key = format!("flow[{i}].{field}");
        match crate::scenario::locate::locate_key(source, &key) {
            Some(span) => ScenarioError::at_span(origin, source, Some(span), Some(key), msg),
            None => {
                let line = crate::scenario::locate::locate_in_array(source, "flow", i, field);
                ScenarioError { origin: origin.to_string(), line, column: None, key: Some(key), message: msg }
            }
        }
    };
    let lookup_flow = |i: usize, field: &str, name: &str| -> Result<u32, ScenarioError> {
        by_name.get(name).copied().ok_or_else(|| {
            let known: Vec<&str> = scn.nodes.iter().map(|n| n.name.get_ref().as_str()).collect();
            flow_err(i, field, format!("unknown node `{name}` (nodes: {})", known.join(", ")))
        })
    };
    let lookup = |s: &Spanned<String>, key: &str| -> Result<u32, ScenarioError> {
        by_name.get(s.get_ref()).copied().ok_or_else(|| {
            let known: Vec<&str> = scn.nodes.iter().map(|n| n.name.get_ref().as_str()).collect();
            cx.err(s, key, format!("unknown node `{}` (nodes: {})", s.get_ref(), known.join(", ")))
        })
    };

    // Links and wireless hops become interfaces and channels.
    let mut ifaces: Vec<Iface> = Vec::new();
    let mut channels: Vec<Channel> = Vec::new();
    let mut media: Vec<Medium> = Vec::new();
    let mut adjacency: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nodes.len()]; // (neighbour, iface)
    let mut wireless_iface_of: HashMap<u32, u32> = HashMap::new();
    let mut hops: Vec<HopHost> = Vec::new();

    struct Dir<'d> {
        rate: u64,
        overhead: Duration,
        delay: Duration,
        queue: QueueConfig,
        imp: &'d DirectionConfig,
        medium: Option<u32>,
    }
    let add_pair = |nodes: &mut Vec<Node>,
                        ifaces: &mut Vec<Iface>,
                        channels: &mut Vec<Channel>,
                        a: u32,
                        b: u32,
                        prefix: &str,
                        link_name: &str,
                        key: &str,
                        ab: Dir,
                        ba: Dir|
     -> Result<(u32, u32), ScenarioError> {
        let ia = ifaces.len() as u32;
        let ib = ia + 1;
        for (node, this, peer) in [(a, ia, ib), (b, ib, ia)] {
            let count = nodes[node as usize].ifaces.iter().filter(|&&k| ifaces[k as usize].name.starts_with(prefix)).count();
            ifaces.push(Iface {
                node,
                name: format!("{prefix}{count}"),
                tx: 0,
                peer,
                mac: mac_for_node(this),
                radio: None,
                pcap: None,
                wlan: None,
            });
            nodes[node as usize].ifaces.push(this);
        }
        for (from, to, d, dir_name) in [(ia, ib, ab, "a_to_b"), (ib, ia, ba, "b_to_a")] {
            let ch = channels.len() as u32;
            ifaces[from as usize].tx = ch;
            let from_n = &nodes[ifaces[from as usize].node as usize].name;
            let to_n = &nodes[ifaces[to as usize].node as usize].name;
            let name = format!("{link_name}:{from_n}->{to_n}");
            let limit = queue_limit(&d.queue).map_err(|m| ScenarioError::general(cx.origin, Some(format!("{key}.queue")), m))?;
            let (loss, jitter) = impairments(d.imp).map_err(|m| ScenarioError::general(cx.origin, Some(format!("{key}.{dir_name}")), m))?;
            let params = ChannelParams { rate_bps: d.rate, overhead: d.overhead, delay: d.delay, queue: limit, loss, jitter, reorder: d.imp.reorder };
            let mut channel = Channel::new(name, from, to, params, &streams);
            channel.medium = d.medium;
            channels.push(channel);
        }
        Ok((ia, ib))
    };

    for (i, l) in scn.links.iter().enumerate() {
        let key = format!("link[{i}]");
        let a = lookup(&l.a, &format!("{key}.a"))?;
        let b = lookup(&l.b, &format!("{key}.b"))?;
        if a == b {
            return Err(cx.err(&l.b, &format!("{key}.b"), "a link must join two different nodes"));
        }
        let name = l.name.clone().unwrap_or_else(|| format!("{}-{}", l.a.get_ref(), l.b.get_ref()));
        let mk = |imp| Dir { rate: l.rate.bps(), overhead: Duration::ZERO, delay: l.delay.get(), queue: l.queue, imp, medium: None };
        let (ia, ib) = add_pair(&mut nodes, &mut ifaces, &mut channels, a, b, "eth", &name, &key, mk(&l.a_to_b), mk(&l.b_to_a))?;
        adjacency[a as usize].push((b, ia));
        adjacency[b as usize].push((a, ib));
    }
    for (i, w) in scn.wireless.iter().enumerate() {
        let key = format!("wireless[{i}]");
        let ap = lookup(&w.ap, &format!("{key}.ap"))?;
        let sta = lookup(&w.station, &format!("{key}.station"))?;
        if nodes[ap as usize].kind != NodeKind::Ap {
            return Err(cx.err(&w.ap, &format!("{key}.ap"), format!("node `{}` is not of kind \"ap\"", w.ap.get_ref())));
        }
        if ap == sta {
            return Err(cx.err(&w.station, &format!("{key}.station"), "the station must differ from the AP"));
        }
        if wireless_iface_of.contains_key(&sta) {
            return Err(cx.err(&w.station, &format!("{key}.station"), "this station already has a wireless hop"));
        }
        let name = w.name.clone().unwrap_or_else(|| format!("{}-{}", w.ap.get_ref(), w.station.get_ref()));
        let medium = w.half_duplex.then(|| {
            let ch = channels.len() as u32;
            media.push(Medium { channels: [ch, ch + 1], busy_with: None, next_turn: 0 });
            media.len() as u32 - 1
        });
        let overhead = w.mac_overhead.map(|d| d.get()).unwrap_or(Duration::ZERO);
        let delay = w.delay.map(|d| d.get()).unwrap_or(Duration::from_micros(1));
        let mk = |imp| Dir { rate: w.rate.bps(), overhead, delay, queue: w.queue, imp, medium };
        let (ia, ib) = add_pair(&mut nodes, &mut ifaces, &mut channels, ap, sta, "wlan", &name, &key, mk(&w.down), mk(&w.up))?;
        adjacency[ap as usize].push((sta, ia));
        adjacency[sta as usize].push((ap, ib));
        wireless_iface_of.insert(sta, ib);
        hops.push(hop_power(&cx, w, &key, i as u32, name, sta, ifaces[ia as usize].tx, ifaces[ib as usize].tx, &mut channels)?);
    }

    let mut wlans = crate::build_wlan::build_wlans(
        scn,
        &cx,
        &streams,
        &by_name,
        &mut nodes,
        &mut ifaces,
        &mut adjacency,
        &mut wireless_iface_of,
    )?;

    // Radios.
    let mut radios = Vec::new();
    for (i, n) in scn.nodes.iter().enumerate() {
        let Some(r) = &n.radio else { continue };
        let key = format!("node[{i}].radio");
        let profile = builtin_profile(r.profile.get_ref()).ok_or_else(|| {
            cx.err(&r.profile, &format!("{key}.profile"), format!(
                "unknown device profile `{}` (known: {})",
                r.profile.get_ref(),
                builtin_profile_names().join(", ")
            ))
        })?;
        let Some(&iface) = wireless_iface_of.get(&(i as u32)) else {
            return Err(cx.err(&n.name, &key, "a radio needs a [[wireless]] hop or a [[wlan]] with this node as station"));
        };
        let mut policies = Vec::new();
        for p in &r.policies {
            let policy = match p.get_ref().as_str() {
                "always-on" => AccountingPolicy::AlwaysOn,
                "oracle" => AccountingPolicy::Oracle,
                other => {
                    return Err(cx.err(p, &format!("{key}.policies"), format!(
                        "unknown accounting policy `{other}` (known: {})",
                        POLICY_NAMES.join(", ")
                    )))
                }
            };
            policies.push((p.get_ref().clone(), policy));
        }
        ifaces[iface as usize].radio = Some(radios.len());
        let mut radio = Radio::new(i as u32, profile, &policies, Time::ZERO);
        if let Some((b, sta)) = ifaces[iface as usize].wlan {
            crate::build_wlan::attach_radio(&mut wlans[b as usize], sta, &mut radio);
        }
        // (An 802.11 interface has no channel of its own: `tx` is unused there.)
        let hop = if ifaces[iface as usize].wlan.is_some() { None } else { channels[ifaces[iface as usize].tx as usize].hop };
        if let Some(h) = hop {
            // The station's real energy under its hop's power saving; ideal PSM wakes for free.
            let mode = hops[h as usize].power.mode();
            let profile = if mode == HopPowerMode::IdealPsm { radio.profile.without_wakeup_cost() } else { radio.profile.clone() };
            radio.add_mac_meter(mode.name(), &profile, Time::ZERO);
        }
        radios.push(radio);
    }

    // Route overrides; the routes themselves are built once the flows say which paths exist.
    let mut route_overrides = HashMap::new();
    for (i, r) in scn.routes.iter().enumerate() {
        let key = format!("route[{i}]");
        let at = lookup(&r.node, &format!("{key}.node"))?;
        let dst = lookup(&r.destination, &format!("{key}.destination"))?;
        let via = lookup(&r.via, &format!("{key}.via"))?;
        let iface = adjacency[at as usize].iter().find(|(n, _)| *n == via).map(|(_, i)| *i).ok_or_else(|| {
            cx.err(&r.via, &format!("{key}.via"), format!("`{}` is not a neighbour of `{}`", r.via.get_ref(), r.node.get_ref()))
        })?;
        if at == dst {
            return Err(cx.err(&r.destination, &format!("{key}.destination"), "a route from a node to itself is never used"));
        }
        if route_overrides.insert((at, dst), (iface, via, i)).is_some() {
            return Err(cx.err(&r.node, &format!("{key}.node"), format!(
                "a second route at `{}` for destination `{}`",
                r.node.get_ref(),
                r.destination.get_ref()
            )));
        }
    }
    // Paths the flows' packets take: (from, to, flow, key of the far end, both ways).
    let mut needs: Vec<(u32, u32, usize, &'static str, bool)> = Vec::new();

    // Flows.
    let mut apps = Vec::new();
    let mut app_node = Vec::new();
    let mut app_tcp = Vec::new();
    let mut flows = Vec::new();
    let mut listeners = Vec::new();
    let mut udp_sinks = HashMap::new();
    let mut pings = HashMap::new();
    let mut webs = Vec::new();
    let mut unfinished = 0;
    for (i, f) in scn.flows.iter().enumerate() {
        match f {
            FlowConfig::BulkDownload { name, client, server, bytes, request, port, start, tcp, reader } => {
                let c = lookup_flow(i, "client", client)?;
                let s = lookup_flow(i, "server", server)?;
                needs.push((c, s, i, "server", true));
                let cfg = tcp_config(tcp).map_err(|(field, m)| flow_err(i, field, m))?;
                let start = start.map(|d| Time(d.0)).unwrap_or(Time::ZERO);
                let request = request.map(|r| r.bytes()).unwrap_or(100).max(1);
                flows.push(FlowRecord {
                    name: name.clone().unwrap_or_else(|| format!("flow{i}")),
                    kind: "bulk-download",
                    sender: server.clone(),
                    receiver: client.clone(),
                    target_bytes: Some(bytes.bytes()),
                    start,
                    ..Default::default()
                });
                let rd = make_reader(reader, cfg.recv_buffer as u64, start);
                apps.push(App::DownloadClient { flow: i, request, reader: rd });
                app_node.push(c);
                app_tcp.push(Some(cfg.clone()));
                apps.push(App::DownloadServer { flow: i, request, response: bytes.bytes(), got: 0, responded: false });
                app_node.push(s);
                app_tcp.push(None);
                listeners.push(Listener {
                    node: s,
                    port: port.unwrap_or(80),
                    client: nodes[c as usize].addr,
                    app: apps.len() as u32 - 1,
                    config: cfg,
                    taken: false,
                });
                unfinished += 1;
            }
            FlowConfig::BulkUpload { name, client, server, bytes, port, start, tcp, reader } => {
                let c = lookup_flow(i, "client", client)?;
                let s = lookup_flow(i, "server", server)?;
                needs.push((c, s, i, "server", true));
                let cfg = tcp_config(tcp).map_err(|(field, m)| flow_err(i, field, m))?;
                let start = start.map(|d| Time(d.0)).unwrap_or(Time::ZERO);
                flows.push(FlowRecord {
                    name: name.clone().unwrap_or_else(|| format!("flow{i}")),
                    kind: "bulk-upload",
                    sender: client.clone(),
                    receiver: server.clone(),
                    target_bytes: Some(bytes.bytes()),
                    start,
                    ..Default::default()
                });
                apps.push(App::UploadClient { flow: i, bytes: bytes.bytes() });
                app_node.push(c);
                app_tcp.push(Some(cfg.clone()));
                let rd = make_reader(reader, cfg.recv_buffer as u64, start);
                apps.push(App::UploadServer { flow: i, reader: rd });
                app_node.push(s);
                app_tcp.push(None);
                listeners.push(Listener {
                    node: s,
                    port: port.unwrap_or(5001),
                    client: nodes[c as usize].addr,
                    app: apps.len() as u32 - 1,
                    config: cfg,
                    taken: false,
                });
                unfinished += 1;
            }
            FlowConfig::UdpCbr { name, from, to, rate, packet_size, port, start, duration } => {
                let a = lookup_flow(i, "from", from)?;
                let b = lookup_flow(i, "to", to)?;
                needs.push((a, b, i, "to", false));
                let size = packet_size.map(|s| s.bytes()).unwrap_or(1024);
                if size == 0 || size > 65_507 {
                    return Err(flow_err(i, "packet_size", "must be 1..=65507 bytes".into()));
                }
                let start = start.map(|d| Time(d.0)).unwrap_or(Time::ZERO);
                let stop = duration.map(|d| start + d.get()).unwrap_or(Time::MAX);
                let port = port.unwrap_or(9);
                flows.push(FlowRecord {
                    name: name.clone().unwrap_or_else(|| format!("flow{i}")),
                    kind: "udp-cbr",
                    sender: from.clone(),
                    receiver: to.clone(),
                    target_bytes: None,
                    start,
                    ..Default::default()
                });
                if udp_sinks.insert((b, port), i).is_some() {
                    return Err(flow_err(i, "port", "two UDP flows to the same node and port".into()));
                }
                apps.push(App::CbrSource {
                    flow: i,
                    interval: Duration::transmission(size, rate.bps()),
                    size: size as u32,
                    stop,
                    src_port: 10_000 + i as u16,
                    dst_port: port,
                });
                app_node.push(a);
                app_tcp.push(None);
                if duration.is_some() {
                    unfinished += 1;
                }
            }
            FlowConfig::Ping { name, from, to, count, interval, packet_size, port, start } => {
                let a = lookup_flow(i, "from", from)?;
                let b = lookup_flow(i, "to", to)?;
                needs.push((a, b, i, "to", true));
                let size = packet_size.map(|s| s.bytes()).unwrap_or(56);
                if size == 0 || size > 65_507 {
                    return Err(flow_err(i, "packet_size", "must be 1..=65507 bytes".into()));
                }
                let count = count.unwrap_or(10);
                if count == 0 || count > 65_535 {
                    return Err(flow_err(i, "count", "must be 1..=65535 requests".into()));
                }
                let interval = interval.map(|d| d.get()).unwrap_or(Duration::from_secs(1));
                if interval == Duration::ZERO {
                    return Err(flow_err(i, "interval", "must be positive".into()));
                }
                let port = port.unwrap_or(7);
                let src_port = 20_000 + i as u16;
                flows.push(FlowRecord {
                    name: name.clone().unwrap_or_else(|| format!("flow{i}")),
                    kind: "ping",
                    sender: from.clone(),
                    receiver: to.clone(),
                    target_bytes: None,
                    start: start.map(|d| Time(d.0)).unwrap_or(Time::ZERO),
                    ..Default::default()
                });
                if pings.insert((b, port), (i, true)).is_some() || udp_sinks.contains_key(&(b, port)) {
                    return Err(flow_err(i, "port", "two UDP flows to the same node and port".into()));
                }
                pings.insert((a, src_port), (i, false));
                apps.push(App::PingSource { flow: i, interval, size: size as u32, count, src_port, dst_port: port });
                app_node.push(a);
                app_tcp.push(None);
                unfinished += 1;
            }
            FlowConfig::Web(w) => {
                // Located at the flow's top-level key, named by the full dotted key.
                let web_err = |e: crate::web::WebConfigError| {
                    // At the value itself when it is written, else at its top-level key's line.
                    let key = format!("flow[{i}].{}", e.key);
                    match crate::scenario::locate::locate_key(source, &key) {
                        Some(span) => ScenarioError::at_span(origin, source, Some(span), Some(key), e.message),
                        None => ScenarioError { key: Some(key), ..flow_err(i, e.field, e.message) },
                    }
                };
                let spec = crate::web::WebSpec::from_config(w).map_err(web_err)?;
                let c = lookup_flow(i, "client", &w.client)?;
                let servers = w.servers.iter().map(|s| lookup_flow(i, "servers", s)).collect::<Result<Vec<_>, _>>()?;
                needs.extend(servers.iter().map(|&s| (c, s, i, "servers", true)));
                let cfg = tcp_config(&w.tcp).map_err(|(field, m)| flow_err(i, field, m))?;
                let name = w.name.clone().unwrap_or_else(|| format!("flow{i}"));
                let work = crate::web::generate(&spec, &streams, &name);
                let web = webs.len() as u32;
                let client_app = apps.len() as u32;
                apps.push(App::WebClient { flow: i, web });
                app_node.push(c);
                app_tcp.push(Some(cfg.clone()));
                for &s in &servers {
                    apps.push(App::WebServer { flow: i, web });
                    app_node.push(s);
                    app_tcp.push(None);
                    let app = apps.len() as u32 - 1;
                    let client = nodes[c as usize].addr;
                    listeners.push(Listener { node: s, port: spec.port, client, app, config: cfg.clone(), taken: false });
                }
                let state = crate::web::WebFlow::new(i, client_app, c, servers, &spec, cfg, work);
                flows.push(FlowRecord {
                    name,
                    kind: "web",
                    sender: w.servers.join(","),
                    receiver: w.client.clone(),
                    target_bytes: Some(state.target_bytes()),
                    start: w.start.map(|d| Time(d.0)).unwrap_or(Time::ZERO),
                    web: Some(web),
                    ..Default::default()
                });
                webs.push(state);
                unfinished += 1;
            }
        }
    }
    // A web server's listener takes every connection from its client: no other flow may
    // share its (server, port, client).
    for (a, la) in listeners.iter().enumerate() {
        let App::WebServer { flow, .. } = apps[la.app as usize] else { continue };
        if listeners.iter().enumerate().any(|(b, lb)| b != a && (lb.node, lb.port, lb.client) == (la.node, la.port, la.client)) {
            let server = &nodes[la.node as usize].name;
            return Err(flow_err(flow, "port", format!(
                "another flow of the same client also uses `{server}` port {}: give this web flow another `port`",
                la.port
            )));
        }
    }

    let routes = flow_routes(&nodes, &adjacency, &route_overrides, &needs, scn, &cx, &flow_err)?;

    // Captures.
    let mut pcaps = Vec::new();
    let mut wanted: Vec<String> = scn.output.pcap.clone();
    wanted.extend(opts.pcaps.iter().cloned());
    for spec in wanted {
        let (node_name, if_name) = spec.split_once(':').ok_or_else(|| {
            ScenarioError::general(origin, Some("output.pcap".into()), format!("`{spec}` is not of the form node:iface"))
        })?;
        let node = by_name.get(node_name).copied().ok_or_else(|| {
            ScenarioError::general(origin, Some("output.pcap".into()), format!("unknown node `{node_name}` in `{spec}`"))
        })?;
        let iface = nodes[node as usize].ifaces.iter().copied().find(|&k| ifaces[k as usize].name == if_name).ok_or_else(|| {
            let names: Vec<&str> = nodes[node as usize].ifaces.iter().map(|&k| ifaces[k as usize].name.as_str()).collect();
            ScenarioError::general(origin, Some("output.pcap".into()), format!(
                "node `{node_name}` has no interface `{if_name}` (it has: {})",
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ))
        })?;
        if ifaces[iface as usize].pcap.is_some() {
            continue;
        }
        let dir = opts.out_dir.clone().ok_or_else(|| {
            ScenarioError::general(origin, Some("output.pcap".into()), "captures need an output directory (--out DIR)")
        })?;
        let path = dir.join(format!("{node_name}-{if_name}.pcap"));
        let sink = PcapSink::create(&path, scn.output.pcap_snaplen)
            .map_err(|e| ScenarioError::general(origin, Some("output.pcap".into()), e.to_string()))?;
        ifaces[iface as usize].pcap = Some(pcaps.len());
        pcaps.push((path.display().to_string(), sink));
    }

    let timeseries = (scn.output.timeseries || opts.timeseries).then(TimeSeries::default);
    if timeseries.is_some() {
        radios.iter_mut().for_each(Radio::enable_timelines);
    }
    let napps = apps.len();
    let mut sim = Simulation {
        sched: Scheduler::new(),
        scenario_name: scn.name.clone().unwrap_or_else(|| origin.to_string()),
        provenance: crate::provenance::Provenance::new(source, origin, &[], seed),
        seed,
        nodes,
        ifaces,
        channels,
        media,
        routes,
        wlans,
        hops,
        addr_to_node,
        conns: Vec::new(),
        conn_index: HashMap::new(),
        listeners,
        udp_sinks,
        pings,
        apps,
        app_node,
        app_conn: vec![None; napps],
        app_wake_at: vec![None; napps],
        app_tcp,
        flows,
        webs,
        radios,
        pcaps,
        isn_rng: streams.stream("tcp-isn"),
        horizon: Time(scn.simulation.duration.0),
        stop_when_done: scn.simulation.stop_when_done && unfinished > 0,
        unfinished_flows: unfinished,
        done_at: None,
        timeseries,
        sample_interval: scn.output.sample_interval.get().max(Duration::from_micros(1)),
        drops: DropCounters::default(),
        io_error: None,
        agents: Vec::new(),
        agents_dirty: false,
        interrupted: false,
    };
    attach_agents(&mut sim, scn, &cx)?;
    Ok(sim)
}

/// Puts every `[[wireless]]` hop with `power_save = "cc"` under a client-centered agent.
fn attach_agents(sim: &mut Simulation, scn: &Scenario, cx: &Ctx) -> Result<(), ScenarioError> {
    for (i, w) in scn.wireless.iter().enumerate() {
        let key = format!("wireless[{i}]");
        let cc = w.power_save.as_ref().is_some_and(|s| s.get_ref() == "cc");
        if !cc {
            if w.agent.is_some() {
                return Err(ScenarioError::general(cx.origin, Some(format!("{key}.agent")), "an agent needs power_save = \"cc\""));
            }
            continue;
        }
        let hop = &sim.hops[i];
        let (node, iface) = (hop.station, sim.channels[hop.up as usize].from);
        let profile = sim.ifaces[iface as usize].radio.map(|r| sim.radios[r].profile.clone());
        let cfg = crate::agent_host::agent_config(w.agent.as_ref(), w.rate.bps(), profile.as_ref(), cx.origin, &format!("{key}.agent"))?;
        let agent = wattlab_core::agent::CcAgent::new(cfg).map_err(|e| ScenarioError::general(cx.origin, Some(format!("{key}.agent")), e.0))?;
        sim.set_hop_external(i as u32, "cc");
        sim.agents.push(crate::agent_host::AgentHost { hop: i as u32, node, iface, agent, timer_at: None, log: Vec::new() });
    }
    Ok(())
}

/// The power management of `[[wireless]]` hop `w` (`key` = `wireless[i]`); a hop that saves
/// power marks its channels `down` (AP → station) and `up`.
#[allow(clippy::too_many_arguments)]
fn hop_power(
    cx: &Ctx,
    w: &crate::scenario::WirelessConfig,
    key: &str,
    index: u32,
    name: String,
    station: u32,
    down: u32,
    up: u32,
    channels: &mut [Channel],
) -> Result<HopHost, ScenarioError> {
    let mode = match &w.power_save {
        None => HopPowerMode::Cam,
        // The agent takes the hop to external mode once the simulation exists (attach_agents).
        Some(s) if s.get_ref() == "cc" => HopPowerMode::Cam,
        Some(s) => HopPowerMode::parse(s.get_ref()).ok_or_else(|| {
            cx.err(s, &format!("{key}.power_save"), format!("unknown power-save mode `{}` (known: {HOP_POWER_SAVE_NAMES})", s.get_ref()))
        })?,
    };
    let beacon = match &w.beacon_interval {
        None => Duration::from_millis(100),
        Some(b) if b.get_ref().0 == 0 => return Err(cx.err(b, &format!("{key}.beacon_interval"), "must be positive")),
        Some(b) => b.get_ref().get(),
    };
    if mode != HopPowerMode::Cam {
        // Only power-managed hops reach the simulator's hooks: `cam` runs exactly as before.
        channels[down as usize].hop = Some(index);
        channels[up as usize].hop = Some(index);
    }
    Ok(HopHost { name, station, power: HopPower::new(mode, beacon), down, up })
}

/// The routes of every flow's paths (`crate::routing`), or an error at the flow (or the
/// `[[route]]`) that makes a path impossible: a flow to itself, unconnected ends, a route loop,
/// a host in the middle, more hops than the TTL.
fn flow_routes(
    nodes: &[Node],
    adjacency: &[Vec<(u32, u32)>],
    overrides: &HashMap<(u32, u32), (u32, u32, usize)>,
    needs: &[(u32, u32, usize, &'static str, bool)],
    scn: &Scenario,
    cx: &Ctx,
    flow_err: &dyn Fn(usize, &str, String) -> ScenarioError,
) -> Result<crate::routing::Routes, ScenarioError> {
    use crate::routing::{Need, RouteError};
    let name = |n: u32| nodes[n as usize].name.as_str();
    let field_of = |flow: usize| needs.iter().find(|w| w.2 == flow).map_or("to", |w| w.3);
    let mut list = Vec::with_capacity(needs.len() * 2);
    for &(a, b, flow, field, both) in needs {
        if a == b {
            return Err(flow_err(flow, field, format!("both ends of the flow are `{}`: a flow needs two different nodes", name(a))));
        }
        list.push(Need { src: a, dst: b, flow });
        if both {
            list.push(Need { src: b, dst: a, flow });
        }
    }
    let kinds: Vec<NodeKind> = nodes.iter().map(|n| n.kind).collect();
    crate::routing::build(adjacency, &kinds, overrides, &list).map_err(|e| match e {
        RouteError::Unreachable { flow, src, dst } => flow_err(flow, field_of(flow), format!(
            "`{}` cannot reach `{}`: no chain of [[link]], [[wireless]] or [[wlan]] joins them",
            name(src),
            name(dst)
        )),
        RouteError::Loop { flow, cycle, route } => {
            let path: Vec<&str> = cycle.iter().map(|&n| name(n)).collect();
            let msg = format!("the routes make a loop ({}): packets of flow {flow} would never arrive", path.join(" -> "));
            match route {
                Some(r) => cx.err(&scn.routes[r].via, &format!("route[{r}].via"), msg),
                None => flow_err(flow, field_of(flow), msg),
            }
        }
        RouteError::ThroughHost { flow, host, path } => {
            let path: Vec<&str> = path.iter().map(|&n| name(n)).collect();
            flow_err(flow, field_of(flow), format!(
                "the path {} -> {} passes through `{}`, a host, which does not forward: make it kind = \"router\"",
                path.join(" -> "),
                name(host),
                name(host)
            ))
        }
        RouteError::TooLong { flow, hops } => flow_err(flow, field_of(flow), format!(
            "the path has {hops} hops, more than the IP TTL of 64 lets a packet cross"
        )),
    })
}

fn queue_limit(q: &QueueConfig) -> Result<QueueLimit, String> {
    match (q.packets, q.bytes) {
        (Some(0), _) => Err("queue capacity must be at least 1 packet".into()),
        (Some(n), None) => Ok(QueueLimit::Packets(n)),
        (None, Some(b)) if b.bytes() >= 1500 => Ok(QueueLimit::Bytes(b.bytes())),
        (None, Some(_)) => Err("queue capacity in bytes must hold at least one 1500-byte packet".into()),
        (Some(_), Some(_)) => Err("give the queue capacity in packets or in bytes, not both".into()),
        (None, None) => Ok(QueueLimit::Packets(100)),
    }
}

fn probability(p: f64, what: &str) -> Result<f64, String> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{what} = {p} is not a probability in [0, 1]"))
    }
}

/// The loss process of a `loss` table, its probabilities checked.
pub(crate) fn loss_process(l: Option<&LossConfig>) -> Result<LossProcess, String> {
    Ok(match l {
        None => LossProcess::None,
        Some(LossConfig::Bernoulli { p }) => LossProcess::Bernoulli { p: probability(*p, "loss.p")? },
        Some(LossConfig::GilbertElliott { p_good_to_bad, p_bad_to_good, loss_good, loss_bad }) => {
            LossProcess::GilbertElliott {
                p_good_to_bad: probability(*p_good_to_bad, "loss.p_good_to_bad")?,
                p_bad_to_good: probability(*p_bad_to_good, "loss.p_bad_to_good")?,
                loss_good: probability(*loss_good, "loss.loss_good")?,
                loss_bad: probability(*loss_bad, "loss.loss_bad")?,
                bad: false,
            }
        }
    })
}

fn impairments(d: &DirectionConfig) -> Result<(LossProcess, Jitter), String> {
    let loss = loss_process(d.loss.as_ref())?;
    let jitter = match &d.jitter {
        None => Jitter::None,
        Some(JitterConfig::Constant { value }) => Jitter::Uniform { min: value.get(), max: value.get() },
        Some(JitterConfig::Uniform { min, max }) => {
            if max < min {
                return Err("jitter.max is smaller than jitter.min".into());
            }
            Jitter::Uniform { min: min.get(), max: max.get() }
        }
        Some(JitterConfig::Gamma { shape, scale }) => {
            if !(*shape > 0.0 && shape.is_finite()) || scale.0 == 0 {
                return Err(format!("gamma jitter needs shape > 0 and scale > 0 (got shape {shape})"));
            }
            Jitter::gamma(*shape, scale.get()).ok_or("invalid gamma parameters")?
        }
    };
    Ok((loss, jitter))
}

/// TCP settings of a flow; errors are (field, message) for the caller to locate.
pub(crate) fn tcp_config(t: &TcpSettings) -> Result<TcpConfig, (&'static str, String)> {
    let mut c = TcpConfig::default();
    if let Some(cc) = &t.cc {
        c.congestion_control = match CongestionControlKind::from_name(cc) {
            Ok(kind) => kind,
            Err(_) if cc.eq_ignore_ascii_case(SACK_NAME) => {
                c.sack = true;
                CongestionControlKind::Reno
            }
            Err(_) => {
                return Err(("tcp", format!("unknown congestion control `{cc}` (known: {})", CC_NAMES.join(", "))))
            }
        };
    }
    if let Some(m) = t.mss {
        if m < 88 {
            return Err(("tcp", "tcp.mss must be at least 88 bytes".into()));
        }
        c.mss = m;
    }
    if let Some(b) = t.recv_buffer {
        if b.bytes() < 1 || b.bytes() > u32::MAX as u64 {
            return Err(("tcp", "tcp.recv_buffer must be between 1 byte and 4 GiB".into()));
        }
        c.recv_buffer = b.bytes() as u32;
    }
    if let Some(s) = t.window_scale {
        if s > 14 {
            return Err(("tcp", "tcp.window_scale must be 0..=14 (RFC 7323)".into()));
        }
        c.window_scale = Some(s);
    }
    if c.window_scale.is_none() && c.recv_buffer > 65_535 {
        return Err(("tcp", "tcp.recv_buffer above 65535 bytes needs tcp.window_scale".into()));
    }
    if let Some(v) = t.timestamps {
        c.timestamps = v;
    }
    if let Some(v) = t.delayed_ack {
        c.delayed_ack = v;
    }
    if let Some(v) = t.delayed_ack_timeout {
        c.delayed_ack_timeout = v.get();
    }
    if let Some(v) = t.initial_cwnd {
        if v == 0 {
            return Err(("tcp", "tcp.initial_cwnd must be at least 1 segment".into()));
        }
        c.initial_cwnd = v;
    }
    if let Some(v) = t.min_rto {
        c.min_rto = v.get();
    }
    if let Some(v) = t.sack {
        if !v && t.cc.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(SACK_NAME)) {
            return Err(("tcp", "cc = \"sack\" needs SACK: remove tcp.sack = false".into()));
        }
        c.sack = v;
    }
    Ok(c)
}

fn make_reader(r: &ReaderConfig, buffer: u64, start: Time) -> crate::app::Reader {
    let pause = r.pause.map(|[a, b]| (start + a.get(), start + b.get()));
    Simulation::reader(r.rate.map(|x| x.bps()), pause, buffer, start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_congestion_control_name_is_accepted_and_listed() {
        for kind in CongestionControlKind::ALL {
            assert!(CC_NAMES.contains(&kind.name()), "{} missing from CC_NAMES", kind.name());
            for name in [kind.name().to_string(), kind.name().to_uppercase()] {
                let t = TcpSettings { cc: Some(name), ..Default::default() };
                assert_eq!(tcp_config(&t).map(|c| c.congestion_control), Ok(kind));
            }
        }
        let t = TcpSettings { cc: Some("Westwood+".into()), ..Default::default() };
        assert_eq!(tcp_config(&t).map(|c| c.congestion_control), Ok(CongestionControlKind::Westwood));
        let t = TcpSettings { cc: Some("bbr9".into()), ..Default::default() };
        let (field, msg) = tcp_config(&t).expect_err("unknown name");
        assert_eq!(field, "tcp");
        assert_eq!(msg, format!("unknown congestion control `bbr9` (known: {})", CC_NAMES.join(", ")));
        assert!(msg.contains("tahoe, reno, newreno, sack, vegas, westwood, cubic"), "{msg}");
    }

    #[test]
    fn sack_is_reno_arithmetic_with_sack_negotiated() {
        let t = TcpSettings { cc: Some("SACK".into()), ..Default::default() };
        let c = tcp_config(&t).unwrap();
        assert_eq!((c.congestion_control, c.sack), (CongestionControlKind::Reno, true));
        let t = TcpSettings { cc: Some("cubic".into()), sack: Some(true), ..Default::default() };
        assert!(tcp_config(&t).unwrap().sack);
        let t = TcpSettings { cc: Some("sack".into()), sack: Some(false), ..Default::default() };
        assert!(tcp_config(&t).is_err());
    }
}
