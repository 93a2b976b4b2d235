//! Building the paths: `[[route]]` overrides, the routes of the flows' paths, and captures.

use super::topology::Topology;
use super::{BuildOptions, Ctx};
use crate::net::pcap::PcapSink;
use crate::wlan::radiotap::{AirCapture, AirContext};
use crate::scenario::schema::{PcapLink, DEFAULT_PCAP_EPOCH};
use crate::net::Node;
use crate::scenario::{NodeKind, Scenario, ScenarioError};
use std::collections::HashMap;

/// A path the flows' packets take: (from, to, flow, key of the far end, both ways).
pub(crate) type PathNeed = (u32, u32, usize, &'static str, bool);

/// `[[route]]` entries: (node, destination) → (interface, next hop, entry index).
pub(crate) type RouteOverrides = HashMap<(u32, u32), (u32, u32, usize)>;

/// The `[[route]]` entries, checked: each names neighbours, no route to itself, no duplicate.
pub(crate) fn route_overrides(scn: &Scenario, cx: &Ctx, t: &Topology) -> Result<RouteOverrides, ScenarioError> {
    let mut route_overrides = HashMap::new();
    for (i, r) in scn.routes.iter().enumerate() {
        let key = format!("route[{i}]");
        let at = t.lookup(cx, scn, &r.node, &format!("{key}.node"))?;
        let dst = t.lookup(cx, scn, &r.destination, &format!("{key}.destination"))?;
        let via = t.lookup(cx, scn, &r.via, &format!("{key}.via"))?;
        let iface = t.adjacency[at as usize].iter().find(|(n, _)| *n == via).map(|(_, i)| *i).ok_or_else(|| {
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
    Ok(route_overrides)
}

/// The routes of every flow's paths (`crate::routing`), or an error at the flow (or the
/// `[[route]]`) that makes a path impossible: a flow to itself, unconnected ends, a route loop,
/// a host in the middle, more hops than the TTL.
pub(crate) fn flow_routes(
    nodes: &[Node],
    adjacency: &[Vec<(u32, u32)>],
    overrides: &HashMap<(u32, u32), (u32, u32, usize)>,
    needs: &[(u32, u32, usize, &'static str, bool)],
    scn: &Scenario,
    cx: &Ctx,
    flow_err: &dyn Fn(usize, &str, String) -> ScenarioError,
) -> Result<crate::net::routing::Routes, ScenarioError> {
    use crate::net::routing::{Need, RouteError};
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
    crate::net::routing::build(adjacency, &kinds, overrides, &list).map_err(|e| match e {
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

/// The start of the captures' timestamps, ns since the Unix epoch: `output.pcap_epoch`, or
/// [`DEFAULT_PCAP_EPOCH`], and its RFC 3339 text (for the provenance).
pub(crate) fn pcap_epoch(scn: &Scenario, cx: &Ctx) -> Result<(u64, String), ScenarioError> {
    let text = scn.output.pcap_epoch.map(|d| d.to_string()).unwrap_or_else(|| DEFAULT_PCAP_EPOCH.to_string());
    let err = |msg: &str| ScenarioError::general(cx.origin, Some("output.pcap_epoch".into()), format!("`{text}`: {msg}"));
    let d: toml::value::Datetime = text.parse().map_err(|_| err("not a TOML date-time"))?;
    let Some(date) = d.date else { return Err(err("needs a date (e.g. 2026-11-27T18:00:00Z)")) };
    let (secs, nanos, offset_min) = match (d.time, d.offset) {
        (None, _) => (0i64, 0u32, 0i64),
        (Some(_), None) => return Err(err("needs a time zone offset (e.g. Z or +01:00)")),
        (Some(t), Some(o)) => {
            let off = match o {
                toml::value::Offset::Z => 0,
                toml::value::Offset::Custom { minutes } => i64::from(minutes),
            };
            (i64::from(t.hour) * 3600 + i64::from(t.minute) * 60 + i64::from(t.second), t.nanosecond, off)
        }
    };
    let days = days_from_civil(i64::from(date.year), i64::from(date.month), i64::from(date.day));
    let unix = days * 86_400 + secs - offset_min * 60;
    // pcap's 32-bit seconds: the run must start between 1970 and 2106.
    if !(0..i64::from(u32::MAX)).contains(&unix) {
        return Err(err("must lie between 1970-01-01 and 2106-02-07 (pcap's 32-bit seconds)"));
    }
    Ok((unix as u64 * 1_000_000_000 + u64::from(nanos), text))
}

/// Days from 1970-01-01 to the proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Opens the captures the scenario and the command line ask for (`node:iface`): Ethernet
/// captures of interfaces, and with `pcap_link = "radiotap"` one capture of the air of each
/// 802.11 interface's BSS (returned by BSS index).
pub(crate) fn captures(
    scn: &Scenario,
    opts: &BuildOptions,
    cx: &Ctx,
    t: &mut Topology,
    wlans: &[crate::sim::WlanHost],
) -> Result<(Vec<(String, PcapSink)>, Vec<Option<AirCapture>>), ScenarioError> {
    let origin = cx.origin;
    let mut pcaps = Vec::new();
    let mut air: Vec<Option<AirCapture>> = wlans.iter().map(|_| None).collect();
    let wanted_any = !scn.output.pcap.is_empty() || !opts.pcaps.is_empty();
    let epoch_ns = if wanted_any { pcap_epoch(scn, cx)?.0 } else { 0 };
    // Ethernet captures keep the Unix epoch unless one is set (their readers compare
    // timestamps with simulated times); radiotap captures start on a real date.
    let ethernet_epoch_ns = if scn.output.pcap_epoch.is_some() { epoch_ns } else { 0 };
    let mut wanted: Vec<String> = scn.output.pcap.clone();
    wanted.extend(opts.pcaps.iter().cloned());
    for spec in wanted {
        let (node_name, if_name) = spec.split_once(':').ok_or_else(|| {
            ScenarioError::general(origin, Some("output.pcap".into()), format!("`{spec}` is not of the form node:iface"))
        })?;
        let node = t.by_name.get(node_name).copied().ok_or_else(|| {
            ScenarioError::general(origin, Some("output.pcap".into()), format!("unknown node `{node_name}` in `{spec}`"))
        })?;
        let ifaces = &t.ifaces;
        let iface = t.nodes[node as usize].ifaces.iter().copied().find(|&k| ifaces[k as usize].name == if_name).ok_or_else(|| {
            let names: Vec<&str> = t.nodes[node as usize].ifaces.iter().map(|&k| ifaces[k as usize].name.as_str()).collect();
            ScenarioError::general(origin, Some("output.pcap".into()), format!(
                "node `{node_name}` has no interface `{if_name}` (it has: {})",
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            ))
        })?;
        if t.ifaces[iface as usize].pcap.is_some() {
            continue;
        }
        let dir = opts.out_dir.clone().ok_or_else(|| {
            ScenarioError::general(origin, Some("output.pcap".into()), "captures need an output directory (--out DIR)")
        })?;
        let path = dir.join(format!("{node_name}-{if_name}.pcap"));
        if scn.output.pcap_link == PcapLink::Radiotap {
            let Some((b, _)) = t.ifaces[iface as usize].wlan else {
                return Err(ScenarioError::general(origin, Some("output.pcap_link".into()), format!(
                    "`{spec}`: a radiotap capture records an 802.11 channel, and `{if_name}` of `{node_name}` is not on a [[wlan]] (capture it with pcap_link = \"ethernet\")"
                )));
            };
            if let Some(other) = &air[b as usize] {
                return Err(ScenarioError::general(origin, Some("output.pcap".into()), format!(
                    "`{spec}` is on the same channel as {}: one radiotap capture holds every frame of a BSS", other.path
                )));
            }
            let host = &wlans[b as usize];
            let sink = PcapSink::create_link(&path, scn.output.pcap_snaplen, pcap_file::DataLink::IEEE802_11_RADIOTAP, epoch_ns)
                .map_err(|e| ScenarioError::general(origin, Some("output.pcap".into()), e.to_string()))?;
            let macs = host.sta_iface.iter().map(|&i| t.ifaces[i as usize].mac).collect();
            let ctx = air_context(&host.bss, macs);
            air[b as usize] = Some(AirCapture {
                path: path.display().to_string(),
                sink,
                cx: ctx,
                #[cfg(test)]
                logged: Vec::new(),
            });
            continue;
        }
        let sink = PcapSink::create_link(&path, scn.output.pcap_snaplen, pcap_file::DataLink::ETHERNET, ethernet_epoch_ns)
            .map_err(|e| ScenarioError::general(origin, Some("output.pcap".into()), e.to_string()))?;
        t.ifaces[iface as usize].pcap = Some(pcaps.len());
        pcaps.push((path.display().to_string(), sink));
    }
    Ok((pcaps, air))
}

/// The frames' context of `bss` with its stations' MAC addresses `macs`.
fn air_context(bss: &crate::wlan::Bss, macs: Vec<[u8; 6]>) -> AirContext {
    let cfg = &bss.cfg;
    AirContext {
        macs,
        band: cfg.phy.band,
        beacon_interval_tu: (cfg.beacon_interval.as_nanos() / 1_024_000).min(u64::from(u16::MAX)) as u16,
        ssid: bss.name.bytes().take(32).collect(),
        basic_rates_kbps: cfg.phy.basic_rates_kbps.to_vec(),
        ba_window: cfg.qos.and_then(|q| q.aggregation).map_or(64, |a| a.ba_window as u16),
        broadcast_twt: broadcast_schedules(bss),
    }
}

/// The broadcast TWT schedules of `bss`'s members, one per Broadcast TWT ID in ascending ID
/// order (members of one ID agree on it: `build/wlan.rs` checks).
fn broadcast_schedules(bss: &crate::wlan::Bss) -> Vec<wattlab_core::power::TwtAgreement> {
    let mut by_id = std::collections::BTreeMap::new();
    for s in &bss.stas {
        if let wattlab_core::power::PowerSave::Twt(a) = s.power.mode() {
            if let Some(id) = a.broadcast {
                by_id.entry(id).or_insert(a);
            }
        }
    }
    by_id.into_values().collect()
}
