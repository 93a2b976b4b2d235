//! Static routes: shortest paths by hop count, `[[route]]` overrides, and the check that every
//! flow's packets can reach the other end.
//!
//! Only the next hops that packets use are stored: for each flow, the path from each end to
//! the other is walked at build time (one breadth-first search per destination, O(N + E)),
//! and each node on it keeps a (destination → next hop) entry. Memory is linear in the total
//! path length (at most 64 hops per path: the IP TTL), never N × N; a 20,000-node tree builds
//! in milliseconds.
//!
//! The next hop is the one a breadth-first search from the sending node would pick: the first
//! neighbour, in the order links were declared, that is one hop closer to the destination. So
//! ties between equal-cost paths are broken exactly as the all-pairs tables of earlier
//! versions did, and every run keeps its bytes.

use crate::scenario::NodeKind;
use std::collections::{HashMap, VecDeque};

/// The IP TTL of every packet wattlab sends (`Packet::tcp`, `Packet::udp`).
const TTL: usize = 64;

/// Next hops by (node, destination).
#[derive(Clone, Debug, Default)]
pub struct Routes {
    /// Per node: (destination, outgoing interface, next-hop node), sorted by destination.
    table: Vec<Vec<(u32, u32, u32)>>,
}

impl Routes {
    /// The (interface, next-hop node) out of `node` towards `dst`, if a path uses it.
    #[inline]
    pub fn next_hop(&self, node: u32, dst: u32) -> Option<(u32, u32)> {
        let t = self.table.get(node as usize)?;
        let i = t.binary_search_by_key(&dst, |e| e.0).ok()?;
        Some((t[i].1, t[i].2))
    }

    /// Entries stored, over all nodes (the table's size).
    pub fn len(&self) -> usize {
        self.table.iter().map(Vec::len).sum()
    }

    /// True if no route is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn insert(&mut self, node: u32, dst: u32, iface: u32, next: u32) {
        let t = &mut self.table[node as usize];
        match t.binary_search_by_key(&dst, |e| e.0) {
            Ok(i) => t[i] = (dst, iface, next),
            Err(i) => t.insert(i, (dst, iface, next)),
        }
    }
}

/// A path a flow needs: from `src` to `dst`, for the flow at `flow` (index of `[[flow]]`).
#[derive(Clone, Copy, Debug)]
pub struct Need {
    /// Sending node.
    pub src: u32,
    /// Receiving node.
    pub dst: u32,
    /// The flow that needs it.
    pub flow: usize,
}

/// Why a flow's packets would not arrive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteError {
    /// No link path joins the two nodes.
    Unreachable {
        /// The flow.
        flow: usize,
        /// Its sender and receiver.
        src: u32,
        /// Receiver.
        dst: u32,
    },
    /// Following the next hops comes back to a node (`[[route]]` entries make a loop).
    Loop {
        /// The flow.
        flow: usize,
        /// The nodes of the loop, first repeated at the end.
        cycle: Vec<u32>,
        /// The `[[route]]` entry (index) that sends into the loop, if one does.
        route: Option<usize>,
    },
    /// The path forwards through a host, which does not forward.
    ThroughHost {
        /// The flow.
        flow: usize,
        /// The host in the middle.
        host: u32,
        /// The path up to it.
        path: Vec<u32>,
    },
    /// The path has more hops than the IP TTL allows.
    TooLong {
        /// The flow.
        flow: usize,
        /// Links on the path.
        hops: usize,
    },
}

/// Builds the routes the `needs` use, with `overrides` ((node, destination) → (interface,
/// next hop, `[[route]]` index)) taking precedence at their node; checks every path.
pub fn build(
    adjacency: &[Vec<(u32, u32)>],
    kinds: &[NodeKind],
    overrides: &HashMap<(u32, u32), (u32, u32, usize)>,
    needs: &[Need],
) -> Result<Routes, RouteError> {
    let n = adjacency.len();
    let mut routes = Routes { table: vec![Vec::new(); n] };
    let mut keys: Vec<&(u32, u32)> = overrides.keys().collect();
    keys.sort_unstable();
    for k in keys {
        let (iface, next, _) = overrides[k];
        routes.insert(k.0, k.1, iface, next);
    }
    // One search per destination, its distances dropped before the next: O(N) memory.
    let mut order: Vec<&Need> = needs.iter().collect();
    order.sort_by_key(|w| (w.dst, w.flow, w.src));
    let mut dist: Vec<u32> = Vec::new();
    let mut current = None;
    for need in order {
        if current != Some(need.dst) {
            distances_to(adjacency, need.dst, &mut dist);
            current = Some(need.dst);
        }
        walk(adjacency, kinds, overrides, &dist, &mut routes, need)?;
    }
    Ok(routes)
}

/// Hop counts from every node to `dst` (u32::MAX: unreachable), into `dist`.
fn distances_to(adjacency: &[Vec<(u32, u32)>], dst: u32, dist: &mut Vec<u32>) {
    dist.clear();
    dist.resize(adjacency.len(), u32::MAX);
    dist[dst as usize] = 0;
    let mut q = VecDeque::from([dst]);
    while let Some(v) = q.pop_front() {
        for &(nb, _) in &adjacency[v as usize] {
            if dist[nb as usize] == u32::MAX {
                dist[nb as usize] = dist[v as usize] + 1;
                q.push_back(nb);
            }
        }
    }
}

/// Follows (and fills in) the next hops from `need.src` to `need.dst`.
fn walk(
    adjacency: &[Vec<(u32, u32)>],
    kinds: &[NodeKind],
    overrides: &HashMap<(u32, u32), (u32, u32, usize)>,
    dist: &[u32],
    routes: &mut Routes,
    need: &Need,
) -> Result<(), RouteError> {
    let (src, dst, flow) = (need.src, need.dst, need.flow);
    let mut path = vec![src];
    let mut v = src;
    while v != dst {
        let hop = match routes.next_hop(v, dst) {
            Some(h) => h,
            None => {
                if dist[v as usize] == u32::MAX {
                    return Err(RouteError::Unreachable { flow, src, dst });
                }
                let want = dist[v as usize] - 1;
                let &(next, iface) = adjacency[v as usize]
                    .iter()
                    .find(|(nb, _)| dist[*nb as usize] == want)
                    .expect("a node at distance d > 0 has a neighbour at d - 1");
                routes.insert(v, dst, iface, next);
                (iface, next)
            }
        };
        v = hop.1;
        if let Some(at) = path.iter().position(|&p| p == v) {
            let mut cycle = path[at..].to_vec();
            cycle.push(v);
            let route = cycle.windows(2).find_map(|w| overrides.get(&(w[0], dst)).map(|o| o.2));
            return Err(RouteError::Loop { flow, cycle, route });
        }
        if v != dst && kinds[v as usize] == NodeKind::Host {
            return Err(RouteError::ThroughHost { flow, host: v, path });
        }
        path.push(v);
        if path.len() - 1 > TTL {
            return Err(RouteError::TooLong { flow, hops: path.len() - 1 });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line a - b - c - d (routers in the middle), links in that order.
    fn line(n: u32) -> (Vec<Vec<(u32, u32)>>, Vec<NodeKind>) {
        let mut adj = vec![Vec::new(); n as usize];
        for i in 0..n - 1 {
            adj[i as usize].push((i + 1, 2 * i));
            adj[i as usize + 1].push((i, 2 * i + 1));
        }
        let mut kinds = vec![NodeKind::Router; n as usize];
        kinds[0] = NodeKind::Host;
        kinds[n as usize - 1] = NodeKind::Host;
        (adj, kinds)
    }

    #[test]
    fn paths_are_stored_only_where_used_and_both_ways() {
        let (adj, kinds) = line(4);
        let needs = [Need { src: 0, dst: 3, flow: 0 }, Need { src: 3, dst: 0, flow: 0 }];
        let r = build(&adj, &kinds, &HashMap::new(), &needs).unwrap();
        assert_eq!(r.next_hop(0, 3), Some((0, 1)));
        assert_eq!(r.next_hop(1, 3), Some((2, 2)));
        assert_eq!(r.next_hop(3, 0), Some((5, 2)));
        assert_eq!(r.next_hop(1, 2), None, "no flow goes to node 2");
        assert_eq!(r.len(), 6);
    }

    #[test]
    fn equal_cost_ties_go_to_the_first_declared_neighbour() {
        // 0 - 1 - 3 and 0 - 2 - 3: two shortest paths; 0 lists 2 first.
        let adj = vec![vec![(2, 10), (1, 11)], vec![(0, 12), (3, 13)], vec![(0, 14), (3, 15)], vec![(1, 16), (2, 17)]];
        let kinds = vec![NodeKind::Host, NodeKind::Router, NodeKind::Router, NodeKind::Host];
        let r = build(&adj, &kinds, &HashMap::new(), &[Need { src: 0, dst: 3, flow: 0 }, Need { src: 3, dst: 0, flow: 0 }]).unwrap();
        assert_eq!(r.next_hop(0, 3), Some((10, 2)));
        assert_eq!(r.next_hop(3, 0), Some((16, 1)));
    }

    #[test]
    fn unreachable_loops_hosts_and_long_paths_are_errors() {
        let (mut adj, kinds) = line(4);
        // Cut the link 1 - 2.
        adj[1].retain(|e| e.0 != 2);
        adj[2].retain(|e| e.0 != 1);
        let e = build(&adj, &kinds, &HashMap::new(), &[Need { src: 0, dst: 3, flow: 7 }]).unwrap_err();
        assert_eq!(e, RouteError::Unreachable { flow: 7, src: 0, dst: 3 });

        let (adj, kinds) = line(4);
        // At 2, send packets for 3 back to 1: 1 -> 2 -> 1.
        let overrides = HashMap::from([((2, 3), (3, 1, 5))]);
        let e = build(&adj, &kinds, &overrides, &[Need { src: 0, dst: 3, flow: 0 }]).unwrap_err();
        assert_eq!(e, RouteError::Loop { flow: 0, cycle: vec![1, 2, 1], route: Some(5) });

        let (adj, mut kinds) = line(4);
        kinds[1] = NodeKind::Host;
        let e = build(&adj, &kinds, &HashMap::new(), &[Need { src: 0, dst: 3, flow: 0 }]).unwrap_err();
        assert_eq!(e, RouteError::ThroughHost { flow: 0, host: 1, path: vec![0] });

        let (adj, kinds) = line(66);
        let e = build(&adj, &kinds, &HashMap::new(), &[Need { src: 0, dst: 65, flow: 0 }]).unwrap_err();
        assert_eq!(e, RouteError::TooLong { flow: 0, hops: 65 });
        let (adj, kinds) = line(65);
        assert!(build(&adj, &kinds, &HashMap::new(), &[Need { src: 0, dst: 64, flow: 0 }]).is_ok());
    }
}
