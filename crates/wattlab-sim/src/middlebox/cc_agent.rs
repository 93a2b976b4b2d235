//! Seed 000's client-centered agent (`wattlab_core::agent`) as a middlebox on a station's
//! wireless interface (`power_save = "cc"`, on a `[[wireless]]` hop or a `[[wlan]]` station):
//! every packet the station sends passes [`CcAgent::on_outgoing`], every packet reaching it
//! passes [`CcAgent::on_incoming`] (a hop) or [`CcAgent::on_received`] (a BSS), the agent's own
//! packets go out of the node, and its radio commands drive the station's power machine in
//! external mode (its meter `cc` follows the agent). On a hop a sleeping station loses what
//! arrives; in a BSS the AP holds it (PM bit), and what the MAC delivers an awake radio heard.

use crate::net::link::IfaceId;
use crate::scenario::{AgentSettings, ScenarioError};
use serde::Serialize;
use wattlab_core::agent::{AgentConfig, AgentEvent, AgentStats, BurstDetection, CcAgent};
use wattlab_core::energy::{break_even_time, DeviceProfile};
use wattlab_core::Duration;

/// Detection names accepted in `agent.detection`.
pub const DETECTION_NAMES: &str = "active, dynamic, fixed";

/// One station's agent.
pub struct CcHost {
    /// The station's node.
    pub node: u32,
    /// The station's wireless interface.
    pub iface: IfaceId,
    /// The name of its `[[wireless]]` hop or `[[wlan]]` BSS (reports).
    pub link: String,
    /// The agent.
    pub agent: CcAgent,
    /// Its log, with the time of each entry.
    pub log: Vec<AgentEvent>,
}

/// Summary of one agent in the run's JSON.
#[derive(Clone, Debug, Serialize)]
pub struct AgentSummary {
    /// The station's `[[wireless]]` hop or `[[wlan]]` BSS, by name.
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
