//! Building power management and energy metering: the hops' power-save modes, the radios and
//! their meters, and the client-centered agents (middleboxes on the stations' interfaces).

use super::topology::Topology;
use super::Ctx;
use crate::middlebox::cc_agent::{agent_config, CcHost};
use crate::middlebox::delay::Hold;
use crate::middlebox::{Middlebox, MiddleboxSlot};
use crate::net::link::{Channel, IfaceId};
use crate::power::hop::HopHost;
use crate::radio::Radio;
use crate::scenario::schema::RadioTransitionConfig;
use crate::scenario::{AgentSettings, Scenario, ScenarioError};
use crate::sim::{AgentSession, Simulation, WlanHost};
use std::path::Path;
use toml::Spanned;
use wattlab_core::energy::{builtin_profile_names, is_profile_path, profile_path, resolve_profile, AccountingPolicy, DeviceProfile, ProfileError, RadioState};
use wattlab_core::power::{Driver, MacCaps, PowerMode, PowerSave, StationPower};
use wattlab_core::{Duration, Time};

/// Accounting policy names accepted in scenarios.
pub const POLICY_NAMES: &[&str] = &["always-on", "oracle", "ideal-sleep"];

/// A `power_save` value (`key`) through the registry: every section's unknown names get the
/// registry's one message, at the value's line and column.
pub(crate) fn power_mode(cx: &Ctx, s: &Spanned<String>, key: &str) -> Result<PowerMode, ScenarioError> {
    s.get_ref().parse::<PowerMode>().map_err(|e| cx.err(s, key, e.to_string()))
}

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
    let ps = &w.power_save;
    let mode = match &ps.mode {
        None => PowerMode::Cam,
        Some(s) => match power_mode(cx, s, &ps.key(key, "mode"))? {
            // A broadcast schedule is the AP's, announced in beacons: the hop has neither.
            PowerMode::Twt(a) if a.broadcast.is_some() => {
                let msg = format!("`{}`: broadcast TWT needs a [[wlan]] (an AP announcing its schedules in beacons); on the hop give the agreement without `,broadcast=`", s.get_ref());
                return Err(cx.err(s, &ps.key(key, "mode"), msg));
            }
            m => m,
        },
    };
    let beacon = ps.beacon_interval.map_or(Duration::from_millis(100), |b| b.get());
    // The hop's ideal PSM releases at its beacon instants unless told otherwise.
    let settings = ps.settings(beacon);
    let save = PowerSave::from_mode(mode, &settings);
    if save.saves_power() {
        // Only power-managed hops reach the simulator's hooks: `cam` runs exactly as before.
        channels[down as usize].hop = Some(index);
        channels[up as usize].hop = Some(index);
    }
    Ok(HopHost { name, station, power: StationPower::new(save, MacCaps::HOP, beacon), down, up, timer_at: None })
}

/// `profile` with a scenario's transition override (states by name, power finite and ≥ 0).
fn with_transition(profile: &DeviceProfile, t: &RadioTransitionConfig) -> Result<DeviceProfile, String> {
    let state = |s: &str| s.parse::<RadioState>().map_err(|e| e.to_string());
    if !(t.power_mw.is_finite() && t.power_mw >= 0.0) {
        return Err(format!("power_mw = {}: must be a finite power ≥ 0", t.power_mw));
    }
    let source = format!("scenario override: {} -> {} takes {} at {} mW", t.from, t.to, Duration(t.duration.0), t.power_mw);
    profile.with_transition(state(&t.from)?, state(&t.to)?, Duration(t.duration.0), (t.power_mw * 1e3).round() as u64, &source)
}

/// The scenario's radio profiles: one per node (None for a node without a radio), and the
/// profile files read, each as `PATH sha256:HEX` (for the run's provenance).
pub(crate) struct Profiles {
    /// Every node's profile, with the scenario's transition overrides.
    pub(crate) by_node: Vec<Option<DeviceProfile>>,
    /// The profile files the scenario names by path, in node order, each once.
    pub(crate) files: Vec<String>,
    /// How each node's profile is named for tools that read it again (the live run's
    /// costing): the built-in name, or the profile file's absolute path.
    pub(crate) specs: Vec<Option<String>>,
}

/// Every node's radio profile (None for a node without a radio), with the scenario's
/// transition overrides: known before the BSSs are built, so that each station's power machine
/// is built once, with its radio's wake latency. `radio.profile` is a built-in profile's name
/// or a profile file's path (relative to `scenario_dir`, the scenario file's directory, when
/// the scenario came from a file; else to the current directory).
pub(crate) fn profiles(scn: &Scenario, cx: &Ctx, scenario_dir: Option<&Path>) -> Result<Profiles, ScenarioError> {
    let mut out = Profiles { by_node: Vec::with_capacity(scn.nodes.len()), files: profile_files(scn, scenario_dir), specs: Vec::new() };
    for (i, n) in scn.nodes.iter().enumerate() {
        let Some(r) = &n.radio else {
            out.by_node.push(None);
            out.specs.push(None);
            continue;
        };
        let key = format!("node[{i}].radio");
        let spec = r.profile.get_ref();
        let mut profile = resolve_profile(spec, scenario_dir).map_err(|e| {
            let msg = match e {
                ProfileError::UnknownProfile { .. } => format!(
                    "unknown device profile `{spec}` (known: {}; or the path of a profile file ending in .toml)",
                    builtin_profile_names().join(", ")
                ),
                e => format!("profile file: {e}"),
            };
            cx.err(&r.profile, &format!("{key}.profile"), msg)
        })?;
        if is_profile_path(spec) {
            let path = profile_path(spec, scenario_dir);
            out.specs.push(Some(std::fs::canonicalize(&path).unwrap_or(path).display().to_string()));
        } else {
            out.specs.push(Some(spec.clone()));
        }
        for (j, t) in r.transitions.iter().enumerate() {
            profile = with_transition(&profile, t.get_ref()).map_err(|m| cx.err(t, &format!("{key}.transitions[{j}]"), m))?;
        }
        out.by_node.push(Some(profile));
    }
    Ok(out)
}

/// A profile file as provenance names it: `PATH sha256:HEX` (of its bytes; of nothing if it
/// cannot be read).
fn profile_file_entry(path: &Path) -> String {
    let text = std::fs::read(path).unwrap_or_default();
    format!("{} sha256:{}", path.display(), crate::provenance::sha256_hex(&text))
}

/// The directory a scenario from `origin` names its profile files relative to: the scenario
/// file's (when `origin` is the path of a file), else None (the current directory).
pub fn scenario_dir(origin: &str) -> Option<&Path> {
    let path = Path::new(origin);
    path.is_file().then(|| path.parent()).flatten()
}

/// The profile files `scn`'s radios name by path (relative ones under `scenario_dir`), each
/// once, in node order, as `PATH sha256:HEX`: what a run's results depend on beyond the
/// scenario's text (a study's run key hashes them, so an edited profile file is run again).
pub fn profile_files(scn: &Scenario, scenario_dir: Option<&Path>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in scn.nodes.iter().filter_map(|n| n.radio.as_ref()) {
        let spec = r.profile.get_ref();
        if is_profile_path(spec) {
            let entry = profile_file_entry(&profile_path(spec, scenario_dir));
            if !out.contains(&entry) {
                out.push(entry);
            }
        }
    }
    out
}

/// How long a radio of `profile` takes to wake from sleep (its sleep → idle transition).
pub(crate) fn wake_latency(profile: &DeviceProfile) -> Duration {
    profile.transition(RadioState::Sleep, RadioState::Idle).map(|t| t.duration).unwrap_or(Duration::ZERO)
}

/// The radios of the nodes that have one (`profiles`), each fed by its wireless interface,
/// with a meter per accounting policy and one for the station's power-save mode.
pub(crate) fn radios(scn: &Scenario, cx: &Ctx, t: &mut Topology, wlans: &[WlanHost], profiles: Profiles) -> Result<Vec<Radio>, ScenarioError> {
    let mut radios = Vec::new();
    for (((i, n), profile), spec) in scn.nodes.iter().enumerate().zip(profiles.by_node).zip(profiles.specs) {
        let (Some(r), Some(profile), Some(spec)) = (&n.radio, profile, spec) else { continue };
        let key = format!("node[{i}].radio");
        let Some(&iface) = t.wireless_iface_of.get(&(i as u32)) else {
            return Err(cx.err(&n.name, &key, "a radio needs a [[wireless]] hop or a [[wlan]] with this node as station"));
        };
        let mut policies = Vec::new();
        for p in &r.policies {
            let policy = match p.get_ref().as_str() {
                "always-on" => AccountingPolicy::AlwaysOn,
                "oracle" => AccountingPolicy::Oracle,
                "ideal-sleep" => AccountingPolicy::IdealSleep,
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
        radio.profile_spec = spec;
        // The station's real energy under its power-save mode: a BSS station's, or its hop's
        // (an 802.11 interface has no channel of its own: `tx` is unused there).
        let mode = match t.ifaces[iface as usize].wlan {
            Some((b, sta)) => Some(wlans[b as usize].bss.stas[sta as usize].cfg.power_save),
            None => t.channels[t.ifaces[iface as usize].tx as usize].hop.map(|h| t.hops[h as usize].power.mode()),
        };
        if let Some(mode) = mode {
            radio.add_mode_meter(mode);
        }
        radios.push(radio);
    }
    Ok(radios)
}

/// Puts a client-centered agent on every station in mode `cc` (`[[wireless]]` hops and
/// `[[wlan]]` stations): a middlebox on the station's interface that drives its power machine.
pub(crate) fn attach_agents(sim: &mut Simulation, scn: &Scenario, cx: &Ctx) -> Result<(), ScenarioError> {
    const CC: PowerSave = PowerSave::External(Driver::Cc);
    for (i, w) in scn.wireless.iter().enumerate() {
        let key = w.power_save.key(&format!("wireless[{i}]"), "agent");
        let hop = &sim.hops[i];
        if hop.power.mode() != CC {
            if w.power_save.agent.is_some() {
                return Err(needs_cc(cx, &key));
            }
            continue;
        }
        let (station, iface, name) = (hop.station, sim.net.channels[hop.up as usize].from, hop.name.clone());
        attach(sim, cx, Agent { name, station, iface, settings: w.power_save.agent.as_ref(), rate_bps: w.rate.bps(), key })?;
    }
    for (b, w) in scn.wlan.iter().enumerate() {
        let mut any = false;
        for sta in 1..sim.wlans[b].bss.stas.len() {
            let s = &sim.wlans[b].bss.stas[sta];
            let over = w.station_overrides.iter().position(|o| o.node.get_ref() == &s.cfg.name);
            let own = over.and_then(|k| w.station_overrides[k].power_save.agent.as_ref().map(|a| (k, a)));
            let station_key = |k: usize| w.station_overrides[k].power_save.key(&format!("wlan[{b}].station[{k}]"), "agent");
            if s.cfg.power_save != CC {
                if let Some((k, _)) = own {
                    return Err(needs_cc(cx, &station_key(k)));
                }
                continue;
            }
            any = true;
            let (station, iface, name) = (s.cfg.node, sim.wlans[b].sta_iface[sta], sim.wlans[b].bss.name.clone());
            // The station's nominal data rate (its own constant setting or the BSS's).
            let cfg = &sim.wlans[b].bss.cfg;
            let rate_bps = cfg.phy.data_rate_bps(s.cfg.tx.unwrap_or(cfg.tx));
            let (settings, key) = match own {
                Some((k, a)) => (Some(a), station_key(k)),
                None => (w.power_save.agent.as_ref(), w.power_save.key(&format!("wlan[{b}]"), "agent")),
            };
            attach(sim, cx, Agent { name, station, iface, settings, rate_bps, key })?;
        }
        if w.power_save.agent.is_some() && !any {
            return Err(needs_cc(cx, &w.power_save.key(&format!("wlan[{b}]"), "agent")));
        }
    }
    Ok(())
}

/// Every flow of datagrams with an end at a node whose station runs a CC agent becomes a
/// session of that agent (the agent shapes only TCP; it stays awake for the rest).
pub(crate) fn agent_sessions(sim: &mut Simulation) {
    for (f, r) in sim.records.iter().enumerate() {
        if !crate::scenario::flow::kind(r.kind).is_some_and(|k| k.datagrams) {
            continue;
        }
        for (m, slot) in sim.mboxes.iter().enumerate() {
            let Middlebox::Cc(h) = &slot.mbox else { continue };
            let node = &sim.net.nodes[h.node as usize].name;
            if *node == r.sender || *node == r.receiver {
                sim.agent_sessions.push(AgentSession { flow: f as u32, mbox: m as u32, open: false, closed: false });
            }
        }
    }
}

fn needs_cc(cx: &Ctx, key: &str) -> ScenarioError {
    ScenarioError::general(cx.origin, Some(key.to_string()), "an agent needs power_save = \"cc\"")
}

/// Where an agent goes and how it is set up.
struct Agent<'a> {
    /// The hop's or the BSS's name (reports).
    name: String,
    station: u32,
    iface: IfaceId,
    settings: Option<&'a AgentSettings>,
    /// The station's link rate (the agent's saturation test).
    rate_bps: u64,
    /// The settings' key, for errors.
    key: String,
}

fn attach(sim: &mut Simulation, cx: &Ctx, a: Agent) -> Result<(), ScenarioError> {
    let profile = sim.net.ifaces[a.iface as usize].radio.map(|r| sim.radios[r].profile.clone());
    let cfg = agent_config(a.settings, a.rate_bps, profile.as_ref(), cx.origin, &a.key)?;
    let agent = wattlab_core::agent::CcAgent::new(cfg).map_err(|e| ScenarioError::general(cx.origin, Some(a.key.clone()), e.0))?;
    sim.net.ifaces[a.iface as usize].middlebox = Some(sim.mboxes.len() as u32);
    let host = CcHost { node: a.station, iface: a.iface, link: a.name, agent, log: Vec::new() };
    let delay = |d: Option<crate::scenario::units::Dur>| d.map_or(Duration::ZERO, |d| d.get());
    let hold = Hold::new(delay(a.settings.and_then(|s| s.incoming_delay)), delay(a.settings.and_then(|s| s.outgoing_delay)));
    sim.mboxes.push(MiddleboxSlot { mbox: Middlebox::Cc(host), timer_at: None, hold });
    Ok(())
}

/// Refuses a `psna-read` / `psna-send` flow whose client does not let the mobile drive its
/// card (`power_save = "psna"`, or `"external"`): under `cam`, `psm` or `u-apsd` the mobile's
/// off commands would be ignored or fought by another power manager, and the run would cost
/// a scheme that did not run. The error is at the `power_save` value that decides the
/// station's mode, or at the flow's `client` when no `power_save` is written.
pub(crate) fn check_psna_modes(scn: &Scenario, cx: &Ctx, t: &Topology, wlans: &[WlanHost]) -> Result<(), ScenarioError> {
    use crate::scenario::FlowSettings;
    const DRIVEN: [PowerSave; 2] = [PowerSave::External(Driver::Psna), PowerSave::External(Driver::Host)];
    for (i, f) in scn.flows.iter().enumerate() {
        let (FlowSettings::PsnaRead(psna) | FlowSettings::PsnaSend(psna)) = &f.settings else { continue };
        let Some(&node) = t.by_name.get(&psna.client) else { continue };
        let Some(&iface) = t.wireless_iface_of.get(&node) else { continue }; // the flow's builder says why
        // The mode and where it is written: [[wlan.station]], then [[wlan]], or [[wireless]].
        let (mode, written): (PowerSave, Option<(&Spanned<String>, String)>) = match t.ifaces[iface as usize].wlan {
            Some((b, sta)) => {
                let w = &scn.wlan[b as usize];
                let name = &t.nodes[node as usize].name;
                let own = w.station_overrides.iter().enumerate().find_map(|(k, o)| {
                    let ps = &o.power_save;
                    (o.node.get_ref() == name).then_some(ps.mode.as_ref().map(|p| (p, ps.key(&format!("wlan[{b}].station[{k}]"), "mode")))).flatten()
                });
                let section = w.power_save.mode.as_ref().map(|p| (p, w.power_save.key(&format!("wlan[{b}]"), "mode")));
                (wlans[b as usize].bss.stas[sta as usize].cfg.power_save, own.or(section))
            }
            None => {
                let Some(h) = t.hops.iter().position(|h| h.station == node) else { continue };
                let w = &scn.wireless[h];
                (t.hops[h].power.mode(), w.power_save.mode.as_ref().map(|p| (p, w.power_save.key(&format!("wireless[{h}]"), "mode"))))
            }
        };
        if DRIVEN.contains(&mode) {
            continue;
        }
        let flow = f.name.clone().unwrap_or_else(|| format!("flow{i}"));
        let why = format!(
            "the {} flow `{flow}` switches its client's card off and on, which needs power_save = \"psna\" (or \"external\"); \
             this station runs \"{}\"",
            f.kind(),
            mode.name()
        );
        return Err(match written {
            Some((at, key)) => cx.err(at, &key, why),
            None => super::flows::flow_error(cx, i, "client", format!("{why} (the default): set power_save = \"psna\" on its [[wlan]] or [[wireless]] hop")),
        });
    }
    Ok(())
}
