//! What the live testbed (`wattlab-live`) takes from a scenario: the path of its download,
//! channel by channel, its TCP settings, agent and radio, read off the *built* simulation so a
//! live run and a simulated run interpret the scenario identically (defaults, units, checks).
//!
//! Live runs support one shape: `server ⇄ [[link]] ⇄ ap ⇄ [[wireless]] ⇄ client` with one
//! `bulk-download` flow from the server to the hop's station.

use std::net::Ipv4Addr;

use crate::net::link::{ChannelId, ChannelParams};
use crate::scenario::{FlowConfig, NodeKind, Scenario};
use crate::sim::Simulation;
use wattlab_core::agent::AgentConfig;
use wattlab_core::energy::DeviceProfile;
use wattlab_core::tcp::TcpConfig;
use wattlab_core::{Duration, Time};

/// Everything a live run of a scenario needs.
#[derive(Clone, Debug)]
pub struct LiveSpec {
    /// Scenario name.
    pub scenario: String,
    /// Seed of the run.
    pub seed: u64,
    /// The scenario's stop time (a live run's time bound derives from it).
    pub horizon: Time,
    /// Client (the hop's station) node name.
    pub client: String,
    /// Server node name.
    pub server: String,
    /// Client address in the scenario.
    pub client_addr: Ipv4Addr,
    /// Server address in the scenario.
    pub server_addr: Ipv4Addr,
    /// Flow name.
    pub flow: String,
    /// Bytes downloaded.
    pub bytes: u64,
    /// Request size.
    pub request: u64,
    /// Server port.
    pub port: u16,
    /// Flow start.
    pub start: Duration,
    /// TCP settings of both ends.
    pub tcp: TcpConfig,
    /// Server → AP.
    pub wired_down: ChannelParams,
    /// AP → server.
    pub wired_up: ChannelParams,
    /// AP → client.
    pub hop_down: ChannelParams,
    /// Client → AP.
    pub hop_up: ChannelParams,
    /// The simulator's names of the four channels (wired down, hop down, hop up, wired up):
    /// they name the channels' loss and jitter streams.
    pub channel_names: [String; 4],
    /// The hop's two directions share one transmitter.
    pub half_duplex: bool,
    /// Hop name.
    pub hop: String,
    /// The hop's power-save mode (`cam`, `ideal-psm`, `cc` for the agent...).
    pub power_save: wattlab_core::power::PowerMode,
    /// Beacon interval of the hop's power-saving modes.
    pub beacon_interval: Duration,
    /// The client-centered agent's configuration (`power_save = "cc"`).
    pub agent: Option<AgentConfig>,
    /// The client's radio profile, if it has a radio.
    pub profile: Option<DeviceProfile>,
}

impl Simulation {
    /// The live testbed's view of this (built) simulation of `scn`; an error says why the
    /// scenario has no live equivalent.
    pub fn live_spec(&self, scn: &Scenario) -> Result<LiveSpec, String> {
        if !self.wlans.is_empty() || self.hops.len() != 1 {
            return Err("a live run needs exactly one [[wireless]] hop and no [[wlan]]".into());
        }
        let flow = match scn.flows.as_slice() {
            [f] if f.kind == crate::apps::bulk::DOWNLOAD.name => f,
            _ => return Err("a live run needs exactly one [[flow]], of kind \"bulk-download\"".into()),
        };
        let FlowConfig { name, client: Some(client), server: Some(server), bytes: Some(bytes), request, port, start, .. } = flow else {
            return Err("the flow needs `client`, `server` and `bytes`".into());
        };
        let hop = &self.hops[0];
        let node_of = |n: &str| self.net.nodes.iter().position(|x| x.name == n).map(|i| i as u32);
        let (Some(c), Some(s)) = (node_of(client), node_of(server)) else {
            return Err("the flow's client or server is not a node".into());
        };
        if hop.station != c {
            return Err(format!("the flow's client `{client}` must be the station of hop `{}`", hop.name));
        }
        let ap = self.net.ifaces[self.net.channels[hop.down as usize].from as usize].node;
        let wired = |from: u32, to: u32| -> Option<ChannelId> {
            self.net.channels.iter().position(|ch| {
                self.net.ifaces[ch.from as usize].node == from && self.net.ifaces[ch.to as usize].node == to
            }).map(|i| i as ChannelId)
        };
        let (Some(down), Some(up)) = (wired(s, ap), wired(ap, s)) else {
            return Err(format!(
                "a live run needs a [[link]] joining the server `{server}` and the AP `{}` directly",
                self.net.nodes[ap as usize].name
            ));
        };
        if self.net.nodes.iter().any(|n| n.kind == NodeKind::Router) || self.net.nodes.len() != 3 {
            return Err("a live run supports three nodes: server, ap and client".into());
        }
        let tcp = crate::apps::build::tcp_config(&flow.tcp_settings()).map_err(|(field, m)| format!("flow `{}`.{field}: {m}", name.as_deref().unwrap_or("flow0")))?;
        let agent = self.mboxes.first().map(|m| {
            let crate::middlebox::Middlebox::Cc(h) = &m.mbox;
            h.agent.config().clone()
        });
        let profile = self.radios.iter().find(|r| r.node == c).map(|r| r.profile.clone());
        let ch = |id: ChannelId| self.net.channels[id as usize].params();
        Ok(LiveSpec {
            scenario: self.scenario_name.clone(),
            seed: self.seed,
            horizon: self.horizon,
            client: client.clone(),
            server: server.clone(),
            client_addr: self.net.nodes[c as usize].addr,
            server_addr: self.net.nodes[s as usize].addr,
            flow: name.clone().unwrap_or_else(|| "flow0".into()),
            bytes: bytes.bytes(),
            request: request.map_or(100, |r| r.bytes()),
            port: port.unwrap_or(80),
            start: start.map_or(Duration::ZERO, |d| d.get()),
            tcp,
            wired_down: ch(down),
            wired_up: ch(up),
            hop_down: ch(hop.down),
            hop_up: ch(hop.up),
            channel_names: [down, hop.down, hop.up, up].map(|id| self.net.channels[id as usize].name.clone()),
            half_duplex: self.net.channels[hop.down as usize].medium.is_some(),
            hop: hop.name.clone(),
            power_save: hop.power.mode().mode(),
            beacon_interval: hop.power.beacon_interval(),
            agent,
            profile,
        })
    }
}
