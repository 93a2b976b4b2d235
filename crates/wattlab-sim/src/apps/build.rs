//! What a kind's builder gets to turn its `[[flow]]` into a [`Flow`](super::Flow): node
//! lookups, the host stack (listeners, bound sockets), the RNG streams, the paths its packets
//! need, and errors located at its keys.

use super::FlowRecord;
use crate::rng::RngStreams;
use crate::scenario::{FlowConfig, ScenarioError};
use crate::stack::Stack;
use std::net::Ipv4Addr;
use wattlab_core::tcp::TcpConfig;
use wattlab_core::Time;

use super::tcp_keys::tcp_config;

/// A path the flow's packets take: (from, to, flow index, key of the far end, both ways).
pub type Path = (u32, u32, usize, &'static str, bool);

/// The builder's view of the simulation being built.
pub struct BuildCx<'a> {
    /// Position of the `[[flow]]`.
    pub index: usize,
    /// The flow's settings.
    pub cfg: &'a FlowConfig,
    /// Node index by name.
    pub nodes: &'a dyn Fn(&str) -> Option<u32>,
    /// Every node's name (for errors).
    pub node_names: &'a [String],
    /// Node addresses, by index.
    pub addrs: &'a [Ipv4Addr],
    /// The host stack: listeners and bound sockets.
    pub stack: &'a mut Stack,
    /// Named random streams.
    pub streams: &'a RngStreams,
    /// Paths the flows need routes for.
    pub paths: &'a mut Vec<Path>,
    /// The access point a station node is associated with (its `[[wireless]]` hop's or
    /// `[[wlan]]`'s), if it is one.
    pub ap_of: &'a dyn Fn(u32) -> Option<u32>,
    /// An error at `flow[i].FIELD`.
    pub err: &'a dyn Fn(usize, &str, String) -> ScenarioError,
    /// The PSNA card of each node with a `psna-read`/`psna-send` flow, shared by its flows.
    pub psna_cards: &'a mut super::psna::Cards,
}

impl BuildCx<'_> {
    /// An error at this flow's key `field`.
    pub fn error(&self, field: &str, msg: impl Into<String>) -> ScenarioError {
        (self.err)(self.index, field, msg.into())
    }

    /// The node called `name`, for key `field`.
    pub fn node(&self, field: &str, name: &str) -> Result<u32, ScenarioError> {
        (self.nodes)(name).ok_or_else(|| self.error(field, format!("unknown node `{name}` (nodes: {})", self.node_names.join(", "))))
    }

    /// The flow's name (`flowN` by default).
    pub fn name(&self) -> String {
        self.cfg.name.clone().unwrap_or_else(|| format!("flow{}", self.index))
    }

    /// The flow's start time (0 by default).
    pub fn start(&self) -> Time {
        self.cfg.start.map(|d| Time(d.0)).unwrap_or(Time::ZERO)
    }

    /// The flow's record from node `a` (its sender) to node `b` (its receiver), starting at
    /// `start`: name, kind and nodes filled in, the rest (`target_bytes`, `finite`) the kind's.
    pub fn record(&self, a: u32, b: u32, start: Time) -> FlowRecord {
        FlowRecord {
            name: self.name(),
            kind: self.cfg.kind(),
            sender: self.node_names[a as usize].clone(),
            receiver: self.node_names[b as usize].clone(),
            start,
            ..Default::default()
        }
    }

    /// Packets go from `a` to `b` (and back if `both`); `field` names `b`'s key in errors.
    pub fn path(&mut self, a: u32, b: u32, field: &'static str, both: bool) {
        self.paths.push((a, b, self.index, field, both));
    }

    /// The flow's TCP settings (defaults where not written), checked.
    pub fn tcp(&self) -> Result<TcpConfig, ScenarioError> {
        let written = self.cfg.settings.tcp().cloned().unwrap_or_default();
        tcp_config(&written).map_err(|(field, m)| self.error(field, m))
    }
}
