//! Building power management and energy metering: the hops' power-save modes, the radios and
//! their meters, and the client-centered agents (middleboxes on the stations' interfaces).

use super::topology::Topology;
use super::Ctx;
use crate::middlebox::cc_agent::{agent_config, CcHost};
use crate::middlebox::{Middlebox, MiddleboxSlot};
use crate::net::link::Channel;
use crate::power::hop::{HopHost, HopPower, HopPowerMode, HOP_POWER_SAVE_NAMES};
use crate::radio::Radio;
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::{Simulation, WlanHost};
use wattlab_core::energy::{builtin_profile, builtin_profile_names, AccountingPolicy};
use wattlab_core::{Duration, Time};

/// Accounting policy names accepted in scenarios.
pub const POLICY_NAMES: &[&str] = &["always-on", "oracle"];

/// The power management of `[[wireless]]` hop `w` (`key` = `wireless[i]`); a hop that saves
/// power marks its channels `down` (AP → station) and `up`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn hop(
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

/// The radios of the nodes that have one, each fed by its wireless interface, with a meter per
/// accounting policy and one for the hop's power-save mode.
pub(crate) fn radios(scn: &Scenario, cx: &Ctx, t: &mut Topology, wlans: &mut [WlanHost]) -> Result<Vec<Radio>, ScenarioError> {
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
        let Some(&iface) = t.wireless_iface_of.get(&(i as u32)) else {
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
        t.ifaces[iface as usize].radio = Some(radios.len());
        let mut radio = Radio::new(i as u32, profile, &policies, Time::ZERO);
        if let Some((b, sta)) = t.ifaces[iface as usize].wlan {
            super::wlan::attach_radio(&mut wlans[b as usize], sta, &mut radio);
        }
        // (An 802.11 interface has no channel of its own: `tx` is unused there.)
        let hop = if t.ifaces[iface as usize].wlan.is_some() { None } else { t.channels[t.ifaces[iface as usize].tx as usize].hop };
        if let Some(h) = hop {
            // The station's real energy under its hop's power saving; ideal PSM wakes for free.
            let mode = t.hops[h as usize].power.mode();
            let profile = if mode == HopPowerMode::IdealPsm { radio.profile.without_wakeup_cost() } else { radio.profile.clone() };
            radio.add_mac_meter(mode.name(), &profile, Time::ZERO);
        }
        radios.push(radio);
    }
    Ok(radios)
}

/// Puts every `[[wireless]]` hop with `power_save = "cc"` under a client-centered agent: a
/// middlebox on the station's interface that drives the hop in external mode.
pub(crate) fn attach_agents(sim: &mut Simulation, scn: &Scenario, cx: &Ctx) -> Result<(), ScenarioError> {
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
        let (node, iface) = (hop.station, sim.net.channels[hop.up as usize].from);
        let profile = sim.net.ifaces[iface as usize].radio.map(|r| sim.radios[r].profile.clone());
        let cfg = agent_config(w.agent.as_ref(), w.rate.bps(), profile.as_ref(), cx.origin, &format!("{key}.agent"))?;
        let agent = wattlab_core::agent::CcAgent::new(cfg).map_err(|e| ScenarioError::general(cx.origin, Some(format!("{key}.agent")), e.0))?;
        sim.set_hop_external(i as u32, "cc");
        sim.net.ifaces[iface as usize].middlebox = Some(sim.mboxes.len() as u32);
        sim.mboxes.push(MiddleboxSlot { mbox: Middlebox::Cc(CcHost { node, iface, agent, log: Vec::new() }), timer_at: None });
    }
    Ok(())
}
