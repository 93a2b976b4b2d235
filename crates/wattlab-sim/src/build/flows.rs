//! Building the flows: each `[[flow]]` (read and checked by its kind, `crate::scenario::flow`)
//! handed to its kind's builder (`crate::apps::build`).

use super::paths::PathNeed;
use super::topology::Topology;
use super::Ctx;
use crate::apps::build::BuildCx;
use crate::apps::{Flow, FlowRecord};
use crate::rng::RngStreams;
use crate::scenario::locate::{locate_in_array, locate_key};
use crate::scenario::{Scenario, ScenarioError};
use crate::stack::Stack;
use std::net::Ipv4Addr;

/// The flows of a scenario, their records, and the paths their packets take.
pub(crate) struct Flows {
    pub flows: Vec<Flow>,
    pub records: Vec<FlowRecord>,
    pub paths: Vec<PathNeed>,
}

/// An error at `flow[i].KEY` (KEY may be dotted: `think.shape`), at the key's line and column
/// when it is written in the file, else at the flow's line.
pub(crate) fn flow_error(cx: &Ctx, i: usize, key: &str, msg: String) -> ScenarioError {
    let full = format!("flow[{i}].{key}");
    match locate_key(cx.source, &full) {
        Some(span) => ScenarioError::at_span(cx.origin, cx.source, Some(span), Some(full), msg),
        None => {
            let top = key.split('.').next().unwrap_or(key);
            let line = locate_in_array(cx.source, "flow", i, top);
            ScenarioError { origin: cx.origin.to_string(), line, column: None, key: Some(full), message: msg }
        }
    }
}

/// Every flow of `scn`, its sockets and listeners added to `stack`.
pub(crate) fn build(scn: &Scenario, cx: &Ctx, t: &Topology, stack: &mut Stack, streams: &RngStreams) -> Result<Flows, ScenarioError> {
    let names: Vec<String> = t.nodes.iter().map(|n| n.name.clone()).collect();
    let addrs: Vec<Ipv4Addr> = t.nodes.iter().map(|n| n.addr).collect();
    let lookup = |name: &str| t.by_name.get(name).copied();
    let err = |i: usize, key: &str, msg: String| flow_error(cx, i, key, msg);
    let ap_of = |n: u32| t.wireless_iface_of.get(&n).map(|&i| t.ifaces[t.ifaces[i as usize].peer as usize].node);
    let mut out = Flows { flows: Vec::new(), records: Vec::new(), paths: Vec::new() };
    let mut psna_cards = crate::apps::psna::Cards::default();
    for (i, cfg) in scn.flows.iter().enumerate() {
        let mut bcx = BuildCx {
            index: i, cfg, nodes: &lookup, node_names: &names, addrs: &addrs, stack, streams, paths: &mut out.paths, ap_of: &ap_of, err: &err,
            psna_cards: &mut psna_cards,
        };
        let (flow, record) = crate::apps::build(&mut bcx)?;
        out.flows.push(flow);
        out.records.push(record);
    }
    check_listeners(stack, t, &err)?;
    Ok(out)
}

/// A listener that takes every connection of its client (a web server's) may share its
/// (server, port, client) with no other.
fn check_listeners(stack: &Stack, t: &Topology, err: &dyn Fn(usize, &str, String) -> ScenarioError) -> Result<(), ScenarioError> {
    let ls = &stack.listeners;
    // Listeners per (server, port, client), counted once: comparing every pair was quadratic.
    let mut count: std::collections::HashMap<_, u32> = std::collections::HashMap::with_capacity(ls.len());
    for l in ls {
        *count.entry((l.node, l.port, l.client)).or_default() += 1;
    }
    for la in ls {
        if !la.many {
            continue;
        }
        if count[&(la.node, la.port, la.client)] > 1 {
            let server = &t.nodes[la.node as usize].name;
            return Err(err(la.owner as usize, "port", format!(
                "another flow of the same client also uses `{server}` port {}: give this web flow another `port`",
                la.port
            )));
        }
    }
    Ok(())
}
