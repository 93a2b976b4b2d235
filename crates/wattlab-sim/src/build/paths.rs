//! Building the paths: `[[route]]` overrides, the routes of the flows' paths, and captures.

use super::topology::Topology;
use super::{BuildOptions, Ctx};
use crate::net::pcap::PcapSink;
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

/// Opens the captures the scenario and the command line ask for (`node:iface`).
pub(crate) fn captures(scn: &Scenario, opts: &BuildOptions, cx: &Ctx, t: &mut Topology) -> Result<Vec<(String, PcapSink)>, ScenarioError> {
    let origin = cx.origin;
    let mut pcaps = Vec::new();
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
        let sink = PcapSink::create(&path, scn.output.pcap_snaplen)
            .map_err(|e| ScenarioError::general(origin, Some("output.pcap".into()), e.to_string()))?;
        t.ifaces[iface as usize].pcap = Some(pcaps.len());
        pcaps.push((path.display().to_string(), sink));
    }
    Ok(pcaps)
}
