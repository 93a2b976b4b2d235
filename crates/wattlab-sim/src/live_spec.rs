//! What the live testbed (`wattlab-live`) takes from a scenario: the path of its download,
//! channel by channel, its TCP settings, agent and radio, read off the *built* simulation so a
//! live run and a simulated run interpret the scenario identically (defaults, units, checks).
//!
//! Live runs support one shape: `server ⇄ [[link]] ⇄ ap ⇄ [[wireless]] ⇄ client` with one
//! `bulk-download` flow from the server to the hop's station, one `wwp-bulk` flow between
//! the station and the server (either way; [`WwpLiveFlow`]), or one `web` flow of the station
//! browsing the server ([`WebLiveFlow`]: the simulator's own page plan).

use std::net::Ipv4Addr;

use crate::net::link::{ChannelId, ChannelParams};
use crate::scenario::{FlowConfig, FlowSettings, NodeKind, Scenario, WwpBulkFlow};
use crate::sim::Simulation;
use wattlab_core::agent::AgentConfig;
use wattlab_core::energy::DeviceProfile;
use wattlab_core::tcp::TcpConfig;
use wattlab_core::wwp::WwpConfig;
use wattlab_core::{Duration, Time};

/// A `psna-read` / `psna-send` flow as a live run needs it: the daemon runs in the AP's
/// namespace, the mobile in the client's, the fixed host in the server's.
#[derive(Clone, Debug)]
pub struct PsnaLiveFlow {
    /// `psna-read` (true) or `psna-send`.
    pub read: bool,
    /// The daemon's UDP port on the AP.
    pub daemon_port: u16,
    /// The mobile's and the daemon's parameters (the flow's `psna = {...}` over the defaults).
    pub configs: crate::scenario::psna::PsnaConfigs,
    /// Test hook `psna.fh_stop_after`: the fixed host stops after this many object bytes.
    pub fh_stop_after: Option<u64>,
}

/// A `wwp-bulk` flow as a live run needs it.
#[derive(Clone, Debug)]
pub struct WwpLiveFlow {
    /// The sender (`from`) is the hop's station; otherwise the server sends to it.
    pub from_client: bool,
    /// Bytes to send; `None`: a continuous stream until `duration` or the run's end.
    pub bytes: Option<u64>,
    /// How long the sender writes; `None`: until `bytes` or the run's end.
    pub duration: Option<Duration>,
    /// The application's message size (`packet_size`, default 1024).
    pub message: u32,
    /// The WWP parameters (the flow's `wwp = {...}` over the defaults).
    pub config: WwpConfig,
}

/// One page view of a live `web` flow: the page's body sizes and the think time after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebLivePage {
    /// Body sizes in bytes, the main HTML first (a response is a body plus the header).
    pub sizes: Vec<u64>,
    /// Think time after the page completes.
    pub think: Duration,
    /// First view of this page (its content was drawn here).
    pub first_visit: bool,
}

/// A `web` flow as a live run needs it: the page plan the simulator's web application draws
/// (`apps::web::generate`, same spec, seed and stream names), and the browser's settings.
#[derive(Clone, Debug)]
pub struct WebLiveFlow {
    /// Page views in order.
    pub pages: Vec<WebLivePage>,
    /// Persistent connections per site at most.
    pub max_connections: u32,
    /// Request size, bytes.
    pub request: u64,
    /// Response header size, bytes (added to every body).
    pub response_header: u64,
}

impl WebLiveFlow {
    /// Response bytes (bodies and headers) over every page view: what the client must read.
    pub fn target_bytes(&self) -> u64 {
        self.pages.iter().flat_map(|p| p.sizes.iter()).map(|s| s + self.response_header).sum()
    }

    /// Objects (HTML included) over every page view.
    pub fn objects(&self) -> u64 {
        self.pages.iter().map(|p| p.sizes.len() as u64).sum()
    }
}

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
    /// How the scenario names that profile (a built-in name, or the file's absolute path),
    /// for the live run's costing of its capture, which reads it again.
    pub profile_spec: Option<String>,
    /// The flow's WWP side, if it is a `wwp-bulk` flow (then `bytes` is 0 for a stream,
    /// `request` 0, and `tcp` the defaults, unused).
    pub wwp: Option<WwpLiveFlow>,
    /// The flow's PSNA side, if it is a `psna-read` / `psna-send` flow (`bytes`, `request`,
    /// `port`, `start` and `tcp` are the flow's; `tcp` is the AP–FH connection's).
    pub psna: Option<PsnaLiveFlow>,
    /// The flow's web side, if it is a `web` flow (then `bytes` is every response's bytes,
    /// `request` the request size, `port` the servers' port).
    pub web: Option<WebLiveFlow>,
}

impl Simulation {
    /// The live testbed's view of this (built) simulation of `scn`; an error says why the
    /// scenario has no live equivalent.
    pub fn live_spec(&self, scn: &Scenario) -> Result<LiveSpec, String> {
        if !self.wlans.is_empty() || self.hops.len() != 1 {
            return Err("a live run needs exactly one [[wireless]] hop and no [[wlan]]".into());
        }
        let only = "a live run needs exactly one [[flow]], of kind \"bulk-download\", \"wwp-bulk\", \"web\", \"psna-read\" or \"psna-send\"";
        let [flow] = scn.flows.as_slice() else { return Err(only.into()) };
        // The TCP transfer's ends and size; a PSNA flow's own settings, and whether it reads.
        let (client, server, bytes, request, psna) = match &flow.settings {
            FlowSettings::BulkDownload(b) => (&b.client, &b.server, b.bytes, b.request, None),
            FlowSettings::PsnaRead(p) => (&p.client, &p.server, p.bytes, p.request, Some((p, true))),
            FlowSettings::PsnaSend(p) => (&p.client, &p.server, p.bytes, p.request, Some((p, false))),
            FlowSettings::WwpBulk(w) => return self.wwp_live_spec(flow, w),
            FlowSettings::Web(w) => {
                let [server] = w.servers.as_slice() else {
                    return Err(format!(
                        "flow `{}`: a live web flow browses one server (the testbed has one server namespace); it has {} ({})",
                        flow.name.as_deref().unwrap_or("flow0"),
                        w.servers.len(),
                        w.servers.join(", ")
                    ));
                };
                (&w.client, server, crate::scenario::units::Size(0), w.request, None)
            }
            _ => return Err(only.into()),
        };
        let name = &flow.name;
        let written = flow.settings.tcp().cloned().unwrap_or_default();
        let tcp = crate::apps::build::tcp_config(&written).map_err(|(field, m)| format!("flow `{}`.{field}: {m}", name.as_deref().unwrap_or("flow0")))?;
        if written.timer_tick.is_some() {
            return Err(format!("flow `{}`.tcp.timer_tick: a live run uses Linux's TCP, whose retransmission timer is fine-grained; remove the coarse timer", name.as_deref().unwrap_or("flow0")));
        }
        if written.quick_ack == Some(false) {
            return Err(format!("flow `{}`.tcp.quick_ack: a live run uses Linux's TCP, whose receiver always starts in quick-ACK mode; remove quick_ack = false", name.as_deref().unwrap_or("flow0")));
        }
        for (key, off, what) in [
            ("rack", written.rack == Some(false), "marks losses with RACK (net.ipv4.tcp_recovery = 1)"),
            ("tlp", written.tlp == Some(false), "sends tail loss probes (net.ipv4.tcp_early_retrans = 3)"),
        ] {
            if off {
                return Err(format!("flow `{}`.tcp.{key}: a live run uses Linux's TCP, which {what}, and the testbed does not change that sysctl; remove {key} = false", name.as_deref().unwrap_or("flow0")));
            }
        }
        for (key, off, what) in [
            ("ack_pushed", written.ack_pushed == Some(false), "ACKs pushed data when the application's read empties the queue (__tcp_cleanup_rbuf)"),
            ("push_window_end", written.push_window_end == Some(false), "marks PSH on the segment that fills its window (the testbed's server, measured)"),
        ] {
            if off {
                return Err(format!("flow `{}`.tcp.{key}: a live run uses Linux's TCP, which {what}; that cannot be turned off; remove {key} = false", name.as_deref().unwrap_or("flow0")));
            }
        }
        if written.prr == Some(false) {
            return Err(format!("flow `{}`.tcp.prr: a live run uses Linux's TCP, which always reduces its window by PRR (RFC 6937) in recovery; remove prr = false", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(v) = written.prr_variant.as_deref().filter(|_| tcp.prr_variant != wattlab_core::tcp::PrrVariant::Linux) {
            return Err(format!("flow `{}`.tcp.prr_variant: a live run uses Linux's TCP, whose PRR follows `tcp_cwnd_reduction` (`linux`); `{v}` is not available there", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(v) = written.recovery_point.as_deref().filter(|_| tcp.recovery_point != wattlab_core::tcp::RecoveryPoint::Linux) {
            return Err(format!("flow `{}`.tcp.recovery_point: a live run uses Linux's TCP, which is back in Open once snd_una reaches the recovery point (`linux`); `{v}` is not available there", name.as_deref().unwrap_or("flow0")));
        }
        if written.cubic_idle_shift == Some(false) && tcp.congestion_control == wattlab_core::tcp::CongestionControlKind::Cubic {
            return Err(format!("flow `{}`.tcp.cubic_idle_shift: a live run uses Linux's CUBIC, which always shifts its growth epoch after idle (CA_EVENT_TX_START); remove cubic_idle_shift = false", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(r) = written.rto_rearm.as_deref().filter(|_| tcp.rto_rearm != wattlab_core::tcp::RtoRearm::Linux) {
            return Err(format!("flow `{}`.tcp.rto_rearm: a live run uses Linux's TCP, which also restarts its retransmission timer when it resends snd_una's segment and on SACKs of older data (`linux`); `{r}` is not available there", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(r) = written.rto_timer.as_deref().filter(|_| tcp.rto_timer != wattlab_core::tcp::RtoTimer::Linux) {
            return Err(format!("flow `{}`.tcp.rto_timer: a live run uses Linux's TCP, whose retransmission timer fires on the kernel's jiffies timer wheel (`linux`); `{r}` is not available there", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(r) = written.rtt_sample.as_deref().filter(|_| tcp.rtt_sample != wattlab_core::tcp::RttSample::Linux) {
            return Err(format!("flow `{}`.tcp.rtt_sample: a live run uses Linux's TCP, which times every ACK by the send times of the segments it acknowledges or SACKs (`linux`); `{r}` is not available there", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(r) = written.in_flight.as_deref().filter(|_| tcp.in_flight != wattlab_core::tcp::InFlight::Linux) {
            return Err(format!("flow `{}`.tcp.in_flight: a live run uses Linux's TCP, which leaves SACKed segments out of its flight in every state (`linux`, tcp_packets_in_flight); `{r}` is not available there", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(r) = written.rto.as_deref().filter(|_| tcp.rto != wattlab_core::tcp::RtoMode::Linux) {
            return Err(format!("flow `{}`.tcp.rto: a live run uses Linux's TCP, whose retransmission timeout is its own estimator (`linux`: SRTT + rttvar, rttvar ≥ rto_min); `{r}` is not available there", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(h) = written.hystart.as_deref().filter(|_| tcp.hystart != wattlab_core::tcp::HyStartMode::Linux) {
            return Err(format!("flow `{}`.tcp.hystart: a live run uses Linux's CUBIC, whose slow-start exit is its HyStart (`linux`); `{h}` is not available there (Linux has no HyStart++, and HyStart is switched off only host-wide, by the tcp_cubic module's `hystart` parameter)", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(v) = written.cubic.as_deref().filter(|_| tcp.cubic != wattlab_core::tcp::CubicVariant::Linux) {
            return Err(format!("flow `{}`.tcp.cubic: a live run uses Linux's CUBIC, whose window arithmetic is `linux` (tcp_cubic.c); `{v}` is not available there", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(m) = written.vegas_retransmit.as_deref().filter(|_| tcp.vegas_retransmit != wattlab_core::tcp::cc::VegasRetransmit::Rfc) {
            return Err(format!("flow `{}`.tcp.vegas_retransmit: a live run uses Linux's Vegas, which keeps Linux's loss recovery (no Vegas fine-grained retransmission); `{m}` is not available there", name.as_deref().unwrap_or("flow0")));
        }
        if let Some(m) = written.ooo_limit.as_deref().filter(|_| tcp.ooo_limit != wattlab_core::tcp::OooLimit::Rcvbuf) {
            return Err(format!("flow `{}`.tcp.ooo_limit: a live run uses Linux's TCP, whose out-of-order queue is bounded by the receive buffer's memory and whose scoreboard by nothing (`rcvbuf`); `{m}` is not available there", name.as_deref().unwrap_or("flow0")));
        }
        let mut spec = self.path_spec(client, server)?;
        spec.flow = name.clone().unwrap_or_else(|| "flow0".into());
        spec.bytes = bytes.bytes();
        spec.request = request.map_or(100, |r| r.bytes().max(1));
        spec.port = flow.port.unwrap_or(if matches!(flow.settings, FlowSettings::PsnaSend(_)) { 5001 } else { 80 });
        spec.start = flow.start.map_or(Duration::ZERO, |d| d.get());
        spec.tcp = tcp;
        if let FlowSettings::Web(w) = &flow.settings {
            let web = self.web_live_flow(flow, w, &spec.flow)?;
            spec.bytes = web.target_bytes();
            spec.request = web.request;
            spec.port = flow.port.unwrap_or(crate::apps::web::DEFAULT_PORT);
            spec.web = Some(web);
        }
        if let Some((p, psna_read)) = psna {
            let fname = spec.flow.clone();
            let settings = p.psna.clone().unwrap_or_default();
            let configs = settings.configs().map_err(|(k, m)| format!("flow `{fname}`.psna.{k}: {m}"))?;
            spec.psna = Some(PsnaLiveFlow {
                read: psna_read,
                daemon_port: settings.daemon_port.unwrap_or(crate::apps::psna::DAEMON_PORT),
                configs,
                fh_stop_after: settings.fh_stop_after.map(|b| b.bytes()),
            });
        }
        Ok(spec)
    }

    /// The page plan of a `web` flow named `name`, drawn as the simulator's build draws it
    /// (`apps::web::generate` on the run's seed; the streams are named by the flow).
    fn web_live_flow(&self, flow: &FlowConfig, w: &crate::scenario::WebFlow, name: &str) -> Result<WebLiveFlow, String> {
        use crate::apps::web::{generate, WebSpec};
        let spec = WebSpec::from_config(w, flow.port).map_err(|e| format!("flow `{name}`.{}: {}", e.key, e.message))?;
        let streams = crate::rng::RngStreams::new(self.seed);
        let work = generate(&spec, &streams, name).map_err(|m| format!("flow `{name}`.pages: {m}"))?;
        let pages = work
            .views
            .iter()
            .map(|v| WebLivePage { sizes: work.contents[v.content as usize].sizes.clone(), think: v.think, first_visit: v.first_visit })
            .collect();
        Ok(WebLiveFlow { pages, max_connections: spec.max_connections, request: spec.request, response_header: spec.response_header })
    }

    /// The live view of a `wwp-bulk` flow: the station is the client, the other end the server.
    fn wwp_live_spec(&self, flow: &FlowConfig, w: &WwpBulkFlow) -> Result<LiveSpec, String> {
        let name = flow.name.clone().unwrap_or_else(|| "flow0".into());
        let (from, to) = (&w.from, &w.to);
        let station = &self.net.nodes[self.hops[0].station as usize].name;
        if from != station && to != station {
            return Err(format!("flow `{name}`: a live WWP flow runs between the hop's station `{station}` and the server; it goes from `{from}` to `{to}`"));
        }
        let from_client = from == station;
        let (client, server) = if from_client { (from, to) } else { (to, from) };
        let config = match &w.wwp {
            Some(w) => w.config().map_err(|(key, m)| format!("flow `{name}`.wwp.{key}: {m}"))?,
            None => WwpConfig::default(),
        };
        let mut spec = self.path_spec(client, server)?;
        spec.flow = name;
        spec.bytes = w.bytes.map_or(0, |b| b.bytes());
        spec.request = 0;
        spec.port = flow.port.unwrap_or(crate::apps::wwp_bulk::DEFAULT_PORT);
        spec.start = flow.start.map_or(Duration::ZERO, |d| d.get());
        spec.wwp = Some(WwpLiveFlow {
            from_client,
            bytes: w.bytes.map(|b| b.bytes()),
            duration: w.duration.map(|d| d.get()),
            message: w.packet_size.map_or(1024, |p| p.bytes() as u32),
            config,
        });
        Ok(spec)
    }

    /// The path between `client` (the hop's station) and `server`, with an empty flow.
    fn path_spec(&self, client: &str, server: &str) -> Result<LiveSpec, String> {
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
        if self.mboxes.iter().any(|m| matches!(m.mbox, crate::middlebox::Middlebox::Tunnel(_))) {
            return Err("a live run does not yet run the SCTP tunnel ([[tunnel]]): simulate it".into());
        }
        let agent = self.mboxes.iter().find_map(|m| match &m.mbox {
            crate::middlebox::Middlebox::Cc(h) => Some(h.agent.config().clone()),
            crate::middlebox::Middlebox::Tunnel(_) => None,
        });
        let profile = self.radios.iter().find(|r| r.node == c).map(|r| r.profile.clone());
        let profile_spec = self.radios.iter().find(|r| r.node == c).map(|r| r.profile_spec.clone());
        let ch = |id: ChannelId| self.net.channels[id as usize].params();
        Ok(LiveSpec {
            scenario: self.scenario_name.clone(),
            seed: self.seed,
            horizon: self.horizon,
            client: client.to_string(),
            server: server.to_string(),
            client_addr: self.net.nodes[c as usize].addr,
            server_addr: self.net.nodes[s as usize].addr,
            flow: String::new(),
            bytes: 0,
            request: 0,
            port: 0,
            start: Duration::ZERO,
            tcp: TcpConfig::default(),
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
            profile_spec,
            wwp: None,
            psna: None,
            web: None,
        })
    }
}
