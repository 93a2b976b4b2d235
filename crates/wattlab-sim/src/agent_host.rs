//! Hosting seed 000's client-centered agent (`wattlab_core::agent`) on a `[[wireless]]`
//! station with `power_save = "cc"`: every packet the station sends over its hop passes
//! [`CcAgent::on_outgoing`], every packet reaching it passes [`CcAgent::on_incoming`], the
//! agent's own packets go out of the same interface, and its radio commands drive the hop in
//! external mode (a dozing station loses what arrives; its meter `cc` follows the agent).

use crate::hop_power::HopPowerStats;
use crate::link::IfaceId;
use crate::scenario::{AgentSettings, ScenarioError};
use crate::sim::{Event, Simulation};
use serde::Serialize;
use wattlab_core::agent::{AgentConfig, AgentEvent, AgentStats, BurstDetection, CcAgent, RadioCommand, Verdict};
use wattlab_core::energy::{break_even_time, DeviceProfile};
use wattlab_core::{Duration, Endpoint, Packet, Time};

/// Detection names accepted in `agent.detection`.
pub const DETECTION_NAMES: &str = "active, dynamic, fixed";

/// One station's agent.
pub struct AgentHost {
    /// The `[[wireless]]` hop it controls.
    pub hop: u32,
    /// The station's node.
    pub node: u32,
    /// The station's interface on the hop.
    pub iface: IfaceId,
    /// The agent.
    pub agent: CcAgent,
    /// Time of the timer event scheduled for it, if any.
    pub timer_at: Option<Time>,
    /// Its log, with the time of each entry.
    pub log: Vec<AgentEvent>,
}

/// Summary of one agent in the run's JSON.
#[derive(Clone, Debug, Serialize)]
pub struct AgentSummary {
    /// Hop name.
    pub hop: String,
    /// Station node.
    pub node: String,
    /// End-of-burst detection configured.
    pub detection: &'static str,
    /// Counters.
    #[serde(flatten)]
    pub stats: AgentStats,
}

/// The agent's configuration from a scenario's `agent = { ... }` (`key` names it in errors).
pub fn agent_config(
    s: Option<&AgentSettings>,
    hop_rate_bps: u64,
    profile: Option<&DeviceProfile>,
    origin: &str,
    key: &str,
) -> Result<AgentConfig, ScenarioError> {
    let mut cfg = AgentConfig { link_rate_bps: Some(hop_rate_bps), ..AgentConfig::default() };
    if let Some(p) = profile {
        // A sleep shorter than the break-even time costs more in transitions than it saves.
        cfg.min_sleep = break_even_time(p).max(Duration::from_millis(1));
    }
    let err = |field: &str, m: String| ScenarioError::general(origin, Some(format!("{key}.{field}")), m);
    if let Some(s) = s {
        if let Some(d) = &s.detection {
            cfg.detection = match d.as_str() {
                "active" => BurstDetection::Active,
                "dynamic" => BurstDetection::Dynamic,
                "fixed" => BurstDetection::Fixed(s.fixed_threshold.map(|t| t.get()).unwrap_or(Duration::from_millis(10))),
                other => return Err(err("detection", format!("unknown detection `{other}` (known: {DETECTION_NAMES})"))),
            };
        }
        if s.fixed_threshold.is_some() && !matches!(cfg.detection, BurstDetection::Fixed(_)) {
            return Err(err("fixed_threshold", "only meaningful with detection = \"fixed\"".into()));
        }
        if let Some(v) = s.shaping {
            cfg.shaping = v;
        }
        if let Some(v) = s.rtt_cache {
            cfg.rtt_cache = v;
        }
        if let Some(r) = s.link_rate {
            cfg.link_rate_bps = Some(r.bps());
        }
        if let Some(r) = s.server_rate {
            cfg.server_rate_bps = r.bps();
        }
        if let Some(d) = s.min_sleep {
            cfg.min_sleep = d.get();
        }
        if let Some(d) = s.wake_guard {
            cfg.wake_guard = d.get();
        }
        if let Some(d) = s.probe_delay_floor {
            cfg.probe_delay_floor = d.get();
        }
        if let Some(v) = s.saturation_fraction {
            cfg.saturation_fraction = v;
        }
        if let Some(v) = s.stage_var_factor {
            cfg.stage_var_factor = v;
        }
        if let Some(v) = s.wake_var_factor {
            cfg.wake_var_factor = v;
        }
        if let Some(v) = s.dynamic_var_floor {
            cfg.dynamic_var_floor = v;
        }
        if let Some(v) = s.lossy_windows_to_revert {
            cfg.lossy_windows_to_revert = v;
        }
    }
    cfg.validate().map_err(|e| ScenarioError::general(origin, Some(key.to_string()), e.0))?;
    Ok(cfg)
}

impl Simulation {
    /// The agent on `node`'s interface `iface`, if any.
    fn agent_on(&self, node: u32, iface: IfaceId) -> Option<usize> {
        self.agents.iter().position(|a| a.node == node && a.iface == iface)
    }

    /// A packet `node` sends out of `iface`: the agent may rewrite or drop it. Returns false
    /// to drop.
    pub(crate) fn agent_outgoing(&mut self, now: Time, node: u32, iface: IfaceId, p: &mut Packet) -> bool {
        let Some(a) = self.agent_on(node, iface) else { return true };
        self.agents_dirty = true;
        self.agents[a].agent.on_outgoing(now, p) == Verdict::Pass
    }

    /// A packet reaching `iface` of `node`: false if the agent's radio sleeps (it is lost).
    pub(crate) fn agent_incoming(&mut self, now: Time, node: u32, iface: IfaceId, p: &Packet) -> bool {
        let Some(a) = self.agent_on(node, iface) else { return true };
        self.agents_dirty = true;
        self.agents[a].agent.on_incoming(now, p) == Verdict::Pass
    }

    /// The response on the client connection `local`–`remote` of `node` is `bytes` long.
    pub(crate) fn agent_expect_response(&mut self, now: Time, node: u32, local: Endpoint, remote: Endpoint, bytes: u64) {
        for a in self.agents.iter_mut().filter(|a| a.node == node) {
            a.agent.expect_response(now, local, remote, bytes);
            self.agents_dirty = true;
        }
    }

    /// A new page starts on `node`: its agents forget their RTT cache.
    pub(crate) fn agent_new_page(&mut self, node: u32) {
        for a in self.agents.iter_mut().filter(|a| a.node == node) {
            a.agent.flush_site_cache();
        }
    }

    /// The timer of agent `a` scheduled for `at` fired.
    pub(crate) fn on_agent_timer(&mut self, now: Time, a: u32, at: Time) {
        let host = &mut self.agents[a as usize];
        if host.timer_at != Some(at) {
            return; // superseded by an earlier deadline
        }
        host.timer_at = None;
        host.agent.handle_timeout(now);
        self.agents_dirty = true;
    }

    /// After an event: send what the agents injected, apply their radio commands, collect
    /// their logs and re-arm their timers.
    pub(crate) fn flush_agents(&mut self, now: Time) {
        self.agents_dirty = false;
        for a in 0..self.agents.len() {
            while let Some(p) = self.agents[a].agent.poll_transmit() {
                let node = self.agents[a].node;
                self.route_and_send(node, p);
            }
            while let Some(cmd) = self.agents[a].agent.poll_radio(now) {
                let hop = self.agents[a].hop;
                self.set_station_awake(now, hop, cmd == RadioCommand::Wake);
            }
            let host = &mut self.agents[a];
            while let Some(e) = host.agent.poll_event() {
                host.log.push(e);
            }
            if let Some(t) = host.agent.poll_timeout() {
                let t = t.max(now);
                if host.timer_at.is_none_or(|s| t < s) {
                    host.timer_at = Some(t);
                    self.sched.schedule(t, Event::Agent { agent: a as u32, at: t });
                }
            }
        }
    }

    /// Summaries of the agents at the end of the run.
    pub(crate) fn agent_summaries(&mut self, end: Time) -> Vec<AgentSummary> {
        let mut v = Vec::new();
        for a in &mut self.agents {
            a.agent.finish(end);
            v.push(AgentSummary {
                hop: self.hops[a.hop as usize].name.clone(),
                node: self.nodes[a.node as usize].name.clone(),
                detection: a.agent.config().detection.name(),
                stats: *a.agent.stats(),
            });
        }
        v
    }

    /// Hop counters of agent-driven hops (for cross-checks).
    #[allow(dead_code)]
    pub(crate) fn agent_hop_stats(&self, a: usize, now: Time) -> HopPowerStats {
        self.hop_power_stats(self.agents[a].hop, now)
    }
}
