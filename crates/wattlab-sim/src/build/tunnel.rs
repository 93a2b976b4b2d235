//! `[[tunnel]]`: a tunnel endpoint on a `[[wlan]]` station's interface and one on its AP's,
//! sharing one association, started by the client's INIT at time zero or pre-established
//! (docs/tunnel.md).

use super::paths::PathNeed;
use super::topology::Topology;
use super::Ctx;
use crate::middlebox::tunnel::{Side, TunnelHost};
use crate::middlebox::delay::Hold;
use crate::middlebox::{Middlebox, MiddleboxSlot};
use crate::scenario::{Scenario, ScenarioError, TunnelSettings};
use crate::sim::{Event, Simulation, TimerOwner, WlanHost, NO_STA};
use crate::wlan::StaId;
use wattlab_core::packet::{IPV4_HEADER_LEN, PROTO_HEADER_MAX, TCP_HEADER_LEN, UDP_HEADER_LEN};
use wattlab_core::wire::MAX_IPV4_LEN;
use wattlab_core::power::PowerSave;
use wattlab_core::tunnel::{Endpoint, TriggerConfig, TunnelConfig};
use wattlab_core::{Duration, Time};

/// The paths the tunnels' outer packets take (client ↔ AP), for the route tables: routes are
/// kept only along needed paths. Also refuses a client that is not a `[[wlan]]` station.
pub(crate) fn path_needs(scn: &Scenario, cx: &Ctx, t: &Topology, wlans: &[WlanHost]) -> Result<Vec<PathNeed>, ScenarioError> {
    let mut needs = Vec::with_capacity(scn.tunnels.len());
    for (i, tn) in scn.tunnels.iter().enumerate() {
        let node = t.lookup(cx, scn, &tn.client, &format!("tunnel[{i}].client"))?;
        let (b, _) = station_of(wlans, node).ok_or_else(|| not_station(cx, tn, i))?;
        // The flow index past the flows: errors name the tunnel's client in any case.
        needs.push((node, wlans[b].bss.stas[0].cfg.node, scn.flows.len() + i, "client", true));
    }
    Ok(needs)
}

/// The BSS and station id of `node`, if it is a station (not the AP) of a `[[wlan]]`.
fn station_of(wlans: &[WlanHost], node: u32) -> Option<(usize, StaId)> {
    wlans.iter().enumerate().find_map(|(b, w)| {
        let sta = w.sta_of(node);
        (sta != NO_STA && sta != 0).then_some((b, sta))
    })
}

fn not_station(cx: &Ctx, t: &TunnelSettings, i: usize) -> ScenarioError {
    let msg = format!("`{}` is not a station of a [[wlan]]: the tunnel runs between a station and its AP", t.client.get_ref());
    cx.err(&t.client, &format!("tunnel[{i}].client"), msg)
}

/// Attaches every `[[tunnel]]`'s two endpoints.
pub(crate) fn attach_tunnels(sim: &mut Simulation, scn: &Scenario, cx: &Ctx) -> Result<(), ScenarioError> {
    for (i, t) in scn.tunnels.iter().enumerate() {
        let key = |f: &str| format!("tunnel[{i}].{f}");
        let name = t.name.clone().unwrap_or_else(|| format!("tunnel{i}"));
        let client = t.client.get_ref();
        let node = sim.net.nodes.iter().position(|n| &n.name == client).ok_or_else(|| cx.err(&t.client, &key("client"), format!("unknown node `{client}`")))?
            as u32;
        let (b, sta) = station_of(&sim.wlans, node).ok_or_else(|| not_station(cx, t, i))?;
        let (sta_if, ap_if) = (sim.wlans[b].sta_iface[sta as usize], sim.wlans[b].sta_iface[0]);
        for iface in [sta_if, ap_if] {
            if sim.net.ifaces[iface as usize].middlebox.is_some() {
                return Err(cx.err(&t.client, &key("client"), "its station or AP interface already has a middlebox (one tunnel per BSS, no CC agent with it)"));
            }
        }
        let bss = &sim.wlans[b].bss;
        let sta_cfg = &bss.stas[sta as usize].cfg;
        let trigger = trigger_config(t, sta_cfg.power_save, sta_cfg.wake_latency, bss.cfg.beacon_interval, cx, &key)?;
        let cfg = TunnelConfig {
            burst: t.burst.unwrap_or(5),
            inlet_timeout: t.inlet_timeout.map_or(Duration::from_millis(20), |d| d.get()),
            sack_delay: t.sack_delay.map_or(Duration::from_millis(200), |d| d.get()),
            rto_min: t.rto_min.map_or(Duration::from_secs(1), |d| d.get()),
            rto_initial: t.rto_initial.map_or(Duration::from_secs(1), |d| d.get()),
            handshake: t.handshake.unwrap_or(true),
            max_burst: t.max_burst.unwrap_or(0),
            max_header_bytes: PROTO_HEADER_MAX,
            trigger,
            ..TunnelConfig::default()
        };
        let over_udp = match t.encapsulation.as_ref().map(|e| e.get_ref().as_str()) {
            None | Some("udp") => true,
            Some("ip") => false,
            Some(other) => {
                let at = t.encapsulation.as_ref().expect("matched Some");
                return Err(cx.err(at, &key("encapsulation"), format!("unknown encapsulation `{other}` (known: udp, ip)")));
            }
        };
        check_inner_sizes(scn, cx, &cfg, over_udp, client, &name)?;
        let general = |e: String| ScenarioError::general(cx.origin, Some(format!("tunnel[{i}]")), e);
        let client_ep = Endpoint::new(cfg.clone(), Time::ZERO).map_err(general)?;
        let ap_ep = Endpoint::new(cfg.mirrored(), Time::ZERO).map_err(general)?;
        let ap_node = sim.wlans[b].bss.stas[0].cfg.node;
        let (ca, aa) = (sim.net.addr(node), sim.net.addr(ap_node));
        let hosts = [
            TunnelHost::new(node, sta_if, name.clone(), Side::Client, [ca, aa, ca], client_ep),
            TunnelHost::new(ap_node, ap_if, name, Side::Ap, [aa, ca, ca], ap_ep),
        ];
        for mut h in hosts {
            h.over_udp = over_udp;
            let m = sim.mboxes.len() as u32;
            sim.net.ifaces[h.iface as usize].middlebox = Some(m);
            // The client's INIT is due at time zero: the association starts before the flows.
            let due = h.endpoint.poll_timeout(Time::ZERO);
            sim.mboxes.push(MiddleboxSlot { mbox: Middlebox::Tunnel(h), timer_at: due, hold: Hold::new(Duration::ZERO, Duration::ZERO) });
            if let Some(at) = due {
                sim.sched.schedule(at, Event::Timer { owner: TimerOwner::Middlebox(m), at });
            }
        }
    }
    Ok(())
}

/// The estimator's settings, checked against the station: t_min not below its wake latency,
/// t_max not above the beacon interval; only for a `u-apsd` station.
fn trigger_config(
    t: &TunnelSettings,
    mode: PowerSave,
    wake: Duration,
    beacon: Duration,
    cx: &Ctx,
    key: &dyn Fn(&str) -> String,
) -> Result<Option<TriggerConfig>, ScenarioError> {
    let uapsd = matches!(mode, PowerSave::Uapsd { .. });
    let err = |f: &str, m: String| ScenarioError::general(cx.origin, Some(key(f)), m);
    if !t.trigger.unwrap_or(uapsd) {
        return Ok(None);
    }
    if !uapsd {
        return Err(err("trigger", "explicit triggers need the client's power_save = \"u-apsd\"".into()));
    }
    let d = TriggerConfig::default();
    let c = TriggerConfig {
        alpha: t.trigger_alpha.unwrap_or(d.alpha),
        slot: t.trigger_slot.map_or(d.slot, |v| v.get()),
        t_min: t.trigger_min.map_or(d.t_min.max(wake), |v| v.get()),
        t_max: t.trigger_max.map_or(beacon, |v| v.get()),
    };
    if c.t_min < wake {
        return Err(err("trigger_min", format!("{} is below the radio's wake latency {wake}: shorter intervals only add load", c.t_min)));
    }
    if c.t_max > beacon {
        return Err(err("trigger_max", format!("{} exceeds the beacon interval {beacon}: the beacon already delivers by then", c.t_max)));
    }
    if !(c.alpha > 0.0 && c.alpha <= 1.0) {
        return Err(err("trigger_alpha", format!("{} is not in (0, 1]", c.alpha)));
    }
    if c.t_min > c.t_max || c.slot.as_nanos() == 0 {
        return Err(err("trigger_min", "must be at most trigger_max, and trigger_slot positive".into()));
    }
    Ok(Some(c))
}

/// Refuses a TCP flow of the tunnel's client whose largest segment would make an outer packet
/// over IPv4's 65535 bytes: the inner IPv4 packet (20 + 20 + MSS: a data segment's payload and
/// options together never exceed the MSS) inside the SCTP headers [`TunnelConfig::max_packet_len`]
/// counts, over UDP (8) or straight over IPv4 (20). Captures could not write such a packet,
/// and no IPv4 network could carry it.
fn check_inner_sizes(scn: &Scenario, cx: &Ctx, cfg: &TunnelConfig, over_udp: bool, client: &str, tunnel: &str) -> Result<(), ScenarioError> {
    let outer = |mss: u32| {
        let inner = (IPV4_HEADER_LEN + TCP_HEADER_LEN + mss) as usize;
        IPV4_HEADER_LEN as usize + if over_udp { UDP_HEADER_LEN as usize } else { 0 } + cfg.max_packet_len(inner)
    };
    for (i, f) in scn.flows.iter().enumerate() {
        let Some(mss) = f.settings.tcp().and_then(|t| t.mss) else { continue }; // the default fits
        let mss = u32::from(mss);
        if !f.settings.tcp_ends().contains(&client) || outer(mss) <= MAX_IPV4_LEN as usize {
            continue;
        }
        let most = (0..mss).rev().find(|&m| outer(m) <= MAX_IPV4_LEN as usize).unwrap_or(0);
        let how = if over_udp { "SCTP over UDP" } else { "SCTP over IPv4" };
        return Err(super::flows::flow_error(cx, i, "tcp.mss", format!(
            "through the [[tunnel]] `{tunnel}` ({how}) a full segment makes an outer IPv4 packet of up to {} B \
             (its inner packet of {} B inside IPv4{} and SCTP headers), more than IPv4's {MAX_IPV4_LEN} B: \
             tcp.mss must be at most {most} B for a flow of `{client}`",
            outer(mss),
            IPV4_HEADER_LEN + TCP_HEADER_LEN + mss,
            if over_udp { " + UDP" } else { "" },
        )));
    }
    Ok(())
}
