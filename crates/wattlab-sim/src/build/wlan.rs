//! Building `[[wlan]]` sections: a [`Bss`] per section, one `wlanN` interface per member,
//! settings checked with errors that point at the scenario line.

use super::power::power_mode;
use super::settings::loss_process;
use super::topology::Topology;
use super::wlan_link;
use crate::wlan::rate::RateAlgorithm;
use super::Ctx;
use crate::net::impairment::LossProcess;
use crate::net::Iface;
use crate::rng::RngStreams;
use crate::scenario::{ApPrioritySetting, NodeKind, PowerSaveConfig, RetryLimit, Scenario, ScenarioError, WlanConfig};
use crate::sim::WlanHost;
use crate::wlan::{ApPriority, ApQueueing, Bss, POWER_SAVE_WEIGHT_RANGE, LossLayer, MacConfig, Overhearing, PowerSave, StaConfig, StaId};
use wattlab_core::power::modes::{TWT_DURATION_UNIT_TU_US, TWT_DURATION_UNIT_US};
use wattlab_core::power::{PowerMode, TwtAgreement};
use toml::Spanned;
use wattlab_core::energy::DeviceProfile;
use wattlab_core::wire::mac_for_node;
use wattlab_core::wlan::phy::BEACON_BYTES;
use wattlab_core::wlan::{PhyFormat, PhyProfile, TxVector};
use std::collections::HashMap;
use wattlab_core::Duration;

/// A BSS station's power-save mode with its settings (`ps`, of section `section`): ideal PSM
/// releases every 100 ms unless told otherwise (paper 000); the BSS's beacons are its MAC's.
/// TWT needs an 802.11ax (HE) PHY: its setup frames and agreements are HE features
/// (802.11ax-2021 §26.8; a non-HE station has no TWT Requester Support capability).
fn power_save(cx: &Ctx, ps: &PowerSaveConfig, section: &str, phy: &PhyProfile) -> Result<PowerSave, ScenarioError> {
    let mode = match &ps.mode {
        None => PowerMode::Cam,
        Some(s) => {
            let key = ps.key(section, "mode");
            let mode = power_mode(cx, s, &key)?;
            if matches!(mode, PowerMode::Twt(_)) && phy.format != PhyFormat::He {
                return Err(cx.err(s, &key, format!("`{}` needs an 802.11ax (HE) PHY: phy = \"{}\" cannot carry TWT; use phy = \"802.11ax\"", s.get_ref(), phy.name)));
            }
            if let PowerMode::Twt(a) = mode {
                check_on_air(cx, s, &key, a)?;
            }
            mode
        }
    };
    if ps.beacon_interval.is_some() {
        let key = ps.key(section, "beacon_interval");
        return Err(ScenarioError::at_key(cx.origin, cx.source, &key, "a [[wlan]]'s beacons are its MAC's: write beacon_interval in the [[wlan]] section itself, not in power_save"));
    }
    Ok(PowerSave::from_mode(mode, &ps.settings(Duration::from_millis(100))))
}

/// The AP answers TWT agreement `a` with its wake duration rounded up to the TWT element's
/// unit ([`TwtAgreement::on_air`]); an error at the mode if that reaches the interval, naming
/// the longest duration that stays below it.
fn check_on_air(cx: &Ctx, s: &Spanned<String>, key: &str, a: TwtAgreement) -> Result<(), ScenarioError> {
    if a.on_air().is_some() {
        return Ok(());
    }
    let unit = a.wake_duration_unit_us();
    let rounded = a.duration_us.div_ceil(unit) * unit;
    let interval_us = a.interval_ms * 1000;
    // The longest representable duration below the interval: 256 µs steps up to 255 of
    // them, TUs beyond.
    let below = interval_us - 1;
    let fits = (below / TWT_DURATION_UNIT_US * TWT_DURATION_UNIT_US).min(255 * TWT_DURATION_UNIT_US).max(below / TWT_DURATION_UNIT_TU_US * TWT_DURATION_UNIT_TU_US);
    Err(cx.err(
        s,
        key,
        format!(
            "`{}`: a TWT element carries the wake duration in units of {unit} us, so the AP would answer with duration={rounded}us, not below the {}ms interval; use duration={fits}us or less",
            s.get_ref(),
            a.interval_ms
        ),
    ))
}

fn retry_limit(cx: &Ctx, r: &Option<Spanned<RetryLimit>>, key: &str, default: u32) -> Result<Option<u32>, ScenarioError> {
    match r.as_ref().map(|s| (s, s.get_ref())) {
        None => Ok(Some(default)),
        Some((_, RetryLimit::Count(n))) => Ok(Some(*n)),
        Some((_, RetryLimit::Keyword(k))) if k == "unlimited" => Ok(None),
        Some((s, RetryLimit::Keyword(k))) => {
            Err(cx.err(s, key, format!("`{k}` is not a retry limit (a number, or \"unlimited\")")))
        }
    }
}

/// Creates the BSSs of the scenario, their interfaces and adjacencies.
/// `profiles` are the nodes' radio profiles (`super::power::profiles`): a station's machine is
/// built here with its radio's wake latency.
pub(crate) fn build_wlans(scn: &Scenario, cx: &Ctx, streams: &RngStreams, t: &mut Topology, profiles: &[Option<DeviceProfile>]) -> Result<Vec<WlanHost>, ScenarioError> {
    let mut hosts = Vec::new();
    super::wlan_link::check_positions(scn, cx)?;
    for (b, w) in scn.wlan.iter().enumerate() {
        let key = format!("wlan[{b}]");
        let name = w.name.clone().unwrap_or_else(|| format!("wlan{b}"));
        let ap = node_of(cx, &t.by_name, Spanned::new(w.ap.span(), ()), &format!("{key}.ap"), w.ap.get_ref())?;
        if t.nodes[ap as usize].kind != NodeKind::Ap {
            return Err(cx.err(&w.ap, &format!("{key}.ap"), format!("node `{}` is not of kind \"ap\"", w.ap.get_ref())));
        }
        let phy = super::wlan_phy::profile(cx, w, &key)?;
        let bss_alg = wlan_link::algorithm(cx, w.rate.as_ref(), &format!("{key}.rate"))?;
        let keys = wlan_link::without_algorithm(w.tx_keys());
        let tx = match bss_alg {
            None => super::wlan_phy::tx_vector(cx, &phy, keys, None, &key, &w.phy)?,
            Some(_) => wlan_link::nominal(cx, &phy, keys, &key, &w.phy)?,
        };
        let members = members(cx, w, &key, ap, t, profiles, (&phy, tx))?;
        let cfg = mac_config(cx, w, &key, &members, phy, tx)?;
        let choices = rate_choices(cx, w, &key, &cfg, &members, bss_alg)?;
        let nodes: Vec<u32> = members.iter().map(|(n, _)| *n).collect();
        let link = wlan_link::build_link(cx, scn, w, &key, &name, &nodes, &choices, &cfg, streams)?;
        let (sta_iface, node_sta) = interfaces(t, b as u16, ap, &members);
        let rngs = members
            .iter()
            .map(|(_, c)| (streams.stream(&format!("backoff:{name}:{}", c.name)), streams.stream(&format!("frame-errors:{name}:{}", c.name))))
            .collect();
        let bss = Bss::new(name, cfg, members.into_iter().map(|(_, c)| c).collect(), rngs);
        let bss = match link {
            Some(l) => bss.with_link(l),
            None => bss,
        };
        hosts.push(WlanHost { bss, sta_iface, node_sta, air: None });
    }
    Ok(hosts)
}

/// The node named `v`, or an error listing the known nodes.
fn node_of(cx: &Ctx, by_name: &HashMap<String, u32>, at: Spanned<()>, key: &str, v: &str) -> Result<u32, ScenarioError> {
    by_name.get(v).copied().ok_or_else(|| {
        let mut known: Vec<&str> = by_name.keys().map(String::as_str).collect();
        known.sort_unstable();
        cx.err(&at, key, format!("unknown node `{v}` (nodes: {})", known.join(", ")))
    })
}

/// A BSS's members, the AP first then the stations in the order given, each with the
/// section's settings and its `[[wlan.station]]` overrides (`bss_tx`: the BSS's PHY and rate,
/// which a station's rate keys override).
fn members(cx: &Ctx, w: &WlanConfig, key: &str, ap: u32, t: &Topology, profiles: &[Option<DeviceProfile>], bss_tx: (&PhyProfile, TxVector)) -> Result<Vec<(u32, StaConfig)>, ScenarioError> {
    let default_mode = power_save(cx, &w.power_save, key, bss_tx.0)?;
    let general = |k: &str, m: String| ScenarioError::general(cx.origin, Some(format!("{key}.{k}")), m);
    let down_loss = loss_process(w.down_loss.as_ref()).map_err(|m| general("down_loss", m))?;
    let up_loss = loss_process(w.up_loss.as_ref()).map_err(|m| general("up_loss", m))?;
    let sta_queue = w.station_queue.unwrap_or(100);
    let ap_queue = w.ap_queue.unwrap_or(100);
    if sta_queue == 0 || ap_queue == 0 {
        return Err(general("ap_queue", "queues must hold at least 1 frame".into()));
    }
    let config = |node: u32, name: &str, queue_limit: u32, power_save: PowerSave, loss: (LossProcess, LossProcess)| StaConfig {
        node,
        name: name.to_string(),
        queue_limit,
        power_save,
        wake_latency: Duration::ZERO,
        loss_down: loss.0,
        loss_up: loss.1,
        has_radio: false,
        tx: None,
    };
    // A station's radio (if it has one) sets how long it takes to wake.
    let station = |node: u32, name: &str, power_save: PowerSave, loss: (LossProcess, LossProcess)| {
        let radio = profiles.get(node as usize).and_then(Option::as_ref);
        StaConfig {
            wake_latency: radio.map_or(Duration::ZERO, super::power::wake_latency),
            has_radio: radio.is_some(),
            ..config(node, name, sta_queue, power_save, loss)
        }
    };
    let mut members = vec![(ap, config(ap, w.ap.get_ref(), ap_queue, PowerSave::Cam, (LossProcess::None, LossProcess::None)))];
    if w.stations.get_ref().is_empty() {
        return Err(cx.err(&w.stations, &format!("{key}.stations"), "a BSS needs at least one station"));
    }
    for st in w.stations.get_ref() {
        let n = node_of(cx, &t.by_name, Spanned::new(w.stations.span(), ()), &format!("{key}.stations"), st)?;
        if n == ap || members.iter().any(|(m, _)| *m == n) {
            return Err(cx.err(&w.stations, &format!("{key}.stations"), format!("`{st}` is listed twice or is the AP")));
        }
        if t.wireless_iface_of.contains_key(&n) {
            return Err(cx.err(&w.stations, &format!("{key}.stations"), format!("`{st}` already has a wireless hop")));
        }
        members.push((n, station(n, st, default_mode, (down_loss.clone(), up_loss.clone()))));
    }
    for (k, o) in w.station_overrides.iter().enumerate() {
        let okey = format!("{key}.station[{k}]");
        let Some(m) = members.iter_mut().skip(1).find(|(_, c)| &c.name == o.node.get_ref()) else {
            return Err(cx.err(&o.node, &format!("{okey}.node"), format!("`{}` is not one of this BSS's stations", o.node.get_ref())));
        };
        m.1.power_save = power_save(cx, &o.power_save.over(&w.power_save), &okey, bss_tx.0)?;
        let general = |k: &str, m: String| ScenarioError::general(cx.origin, Some(format!("{okey}.{k}")), m);
        if o.down_loss.is_some() {
            m.1.loss_down = loss_process(o.down_loss.as_ref()).map_err(|e| general("down_loss", e))?;
        }
        if o.up_loss.is_some() {
            m.1.loss_up = loss_process(o.up_loss.as_ref()).map_err(|e| general("up_loss", e))?;
        }
        if let Some(q) = o.queue {
            m.1.queue_limit = q.max(1);
        }
        // A rate-control algorithm is not a constant rate (rate_choices reads it).
        let keys = wlan_link::without_algorithm(o.tx_keys());
        if keys.rate.is_some() || keys.mcs.is_some() || keys.nss.is_some() || keys.width.is_some() || keys.gi.is_some() {
            let (phy, tx) = bss_tx;
            m.1.tx = Some(super::wlan_phy::tx_vector(cx, phy, keys, Some(tx), &okey, &w.phy)?);
        }
    }
    check_broadcast_schedules(cx, w, key, &members)?;
    Ok(members)
}

/// The Broadcast TWT IDs the stations of a BSS join, each once, in order of first use.
fn broadcast_ids(members: &[(u32, StaConfig)]) -> Vec<(u8, TwtAgreement, &str)> {
    let mut ids: Vec<(u8, TwtAgreement, &str)> = Vec::new();
    for (_, c) in members.iter().skip(1) {
        if let PowerSave::Twt(a @ TwtAgreement { broadcast: Some(id), .. }) = c.power_save {
            if !ids.iter().any(|(i, ..)| *i == id) {
                ids.push((id, a.schedule(), &c.name));
            }
        }
    }
    ids
}

/// Stations naming one Broadcast TWT ID join one schedule of the AP's (802.11ax-2021 §26.8.3:
/// one Broadcast TWT Parameter Set per ID in its beacons): they must name the same interval,
/// duration, offset and flags. The error points at the mode of the station that differs (its
/// `[[wlan.station]]` table's, else the BSS's).
fn check_broadcast_schedules(cx: &Ctx, w: &WlanConfig, key: &str, members: &[(u32, StaConfig)]) -> Result<(), ScenarioError> {
    let ids = broadcast_ids(members);
    for (_, c) in members.iter().skip(1) {
        let PowerSave::Twt(a @ TwtAgreement { broadcast: Some(id), .. }) = c.power_save else { continue };
        let Some((_, first, name)) = ids.iter().find(|(i, ..)| *i == id) else { continue };
        if *first == a.schedule() {
            continue;
        }
        let (ps, section) = match w.station_overrides.iter().enumerate().find(|(_, o)| o.node.get_ref() == &c.name && o.power_save.mode.is_some()) {
            Some((k, o)) => (&o.power_save, format!("{key}.station[{k}]")),
            None => (&w.power_save, key.to_string()),
        };
        let Some(mode) = ps.mode.as_ref() else { continue };
        let announced = PowerMode::Twt(TwtAgreement { broadcast: Some(id), ..*first });
        return Err(cx.err(
            mode,
            &ps.key(&section, "mode"),
            format!("station `{}` joins broadcast TWT {id} as `{}`, but station `{name}` joins it as `{announced}`: the AP announces one schedule per Broadcast TWT ID", c.name, mode.get_ref()),
        ));
    }
    Ok(())
}

/// The MAC settings of a `[[wlan]]` section (PHY `phy` sending at `tx`, retries, beacons, AP
/// queueing).
fn mac_config(cx: &Ctx, w: &WlanConfig, key: &str, members: &[(u32, StaConfig)], phy: PhyProfile, tx: TxVector) -> Result<MacConfig, ScenarioError> {
    let choice = |v: &Option<Spanned<String>>, k: &str, names: [&str; 2]| -> Result<bool, ScenarioError> {
        match v.as_ref().map(|s| (s, s.get_ref().as_str())) {
            None => Ok(true),
            Some((_, x)) if x == names[0] => Ok(true),
            Some((_, x)) if x == names[1] => Ok(false),
            Some((s, x)) => Err(cx.err(s, &format!("{key}.{k}"), format!("`{x}` is not \"{}\" or \"{}\"", names[0], names[1]))),
        }
    };
    let overhearing = if choice(&w.overhearing, "overhearing", ["rx", "idle"])? { Overhearing::Rx } else { Overhearing::Idle };
    let loss_layer = if choice(&w.loss_layer, "loss_layer", ["frame", "packet"])? { LossLayer::Frame } else { LossLayer::Packet };
    let uses_beacons = members.iter().any(|(_, c)| c.power_save.uses_beacons());
    // The AP announces its broadcast TWT schedules in its beacons.
    let schedules = broadcast_ids(members).len() as u32;
    let beacons = w.beacons.unwrap_or(uses_beacons || schedules > 0);
    if uses_beacons && !beacons {
        return Err(ScenarioError::general(cx.origin, Some(format!("{key}.beacons")), "PSM and BSD stations need beacons"));
    }
    if schedules > 0 && !beacons {
        return Err(ScenarioError::general(cx.origin, Some(format!("{key}.beacons")), "broadcast TWT schedules are announced in beacons: a BSS whose stations join one needs beacons"));
    }
    let ap_queueing = match &w.ap_queueing {
        None => ApQueueing::Fifo,
        Some(q) => ApQueueing::parse(q.get_ref()).ok_or_else(|| {
            cx.err(q, &format!("{key}.ap_queueing"), format!("`{}` is not one of {}", q.get_ref(), ApQueueing::NAMES.join(", ")))
        })?,
    };
    let ap_power_save_weight = power_save_weight(cx, w, key, ap_queueing)?;
    let ap_priority = ap_priority(cx, w, key, &phy)?;
    let amsdu = amsdu_limit(cx, w, key, &phy)?;
    let cfg = MacConfig {
        phy,
        tx,
        rts_threshold: w.rts_threshold.map(|s| s.bytes().min(u32::MAX as u64) as u32),
        short_retry_limit: retry_limit(cx, &w.retry_limit, &format!("{key}.retry_limit"), 7)?,
        long_retry_limit: retry_limit(cx, &w.long_retry_limit, &format!("{key}.long_retry_limit"), 4)?,
        propagation: w.propagation_delay.map(|d| d.get()).unwrap_or(Duration::ZERO),
        overhearing,
        beacon_interval: w.beacon_interval.map(|d| d.get()).unwrap_or(Duration::from_micros(102_400)),
        beacons,
        beacon_bytes: BEACON_BYTES + crate::wlan::broadcast_twt_beacon_bytes(schedules),
        loss_layer,
        ap_queueing,
        ap_power_save_weight,
        ap_priority,
        qos: crate::wlan::QosConfig::for_phy(&phy).map(|q| crate::wlan::QosConfig { amsdu, ..q }),
    };
    if cfg.beacon_interval == Duration::ZERO {
        return Err(ScenarioError::general(cx.origin, Some(format!("{key}.beacon_interval")), "must be positive"));
    }
    Ok(cfg)
}

/// `ap_power_save_weight` of `[[wlan]]` `w` (1 if absent): finite, within
/// `POWER_SAVE_WEIGHT_RANGE`, and only with `ap_queueing = "fair-class"` (the only discipline
/// with a power-saving class).
fn power_save_weight(cx: &Ctx, w: &WlanConfig, key: &str, queueing: ApQueueing) -> Result<f64, ScenarioError> {
    let Some(s) = &w.ap_power_save_weight else { return Ok(1.0) };
    let k = format!("{key}.ap_power_save_weight");
    let v = *s.get_ref();
    if !(v.is_finite() && POWER_SAVE_WEIGHT_RANGE.contains(&v)) {
        let (lo, hi) = (POWER_SAVE_WEIGHT_RANGE.start(), POWER_SAVE_WEIGHT_RANGE.end());
        return Err(cx.err(s, &k, format!("{v} is outside {lo}..={hi} (1/1024 to 1024)")));
    }
    if queueing != ApQueueing::FairClass {
        return Err(cx.err(s, &k, format!("needs ap_queueing = \"fair-class\" (it is \"{}\")", queueing.name())));
    }
    Ok(v)
}

/// The rate choice of every member (AP first: the BSS's): the algorithm (`Constant` for a
/// constant rate) and the constant TxVector. A `[[wlan.station]]`'s `rate` algorithm or its
/// own constant rate keys win over the BSS's `bss_alg`; an algorithm needs `[wlan.propagation]`.
fn rate_choices(cx: &Ctx, w: &WlanConfig, key: &str, cfg: &MacConfig, members: &[(u32, StaConfig)], bss_alg: Option<RateAlgorithm>) -> Result<Vec<(RateAlgorithm, TxVector)>, ScenarioError> {
    let needs = |at: &Spanned<crate::scenario::RateSetting>, k: &str| {
        cx.err(at, k, "rate control needs [wlan.propagation] (an SNR per link) and a position for every member of the BSS")
    };
    if let (Some(_), None, Some(r)) = (bss_alg, &w.propagation, &w.rate) {
        return Err(needs(r, &format!("{key}.rate")));
    }
    let bss = (bss_alg.unwrap_or(RateAlgorithm::Constant), cfg.tx);
    let mut choices: Vec<(RateAlgorithm, TxVector)> = members.iter().map(|(_, c)| c.tx.map_or(bss, |tx| (RateAlgorithm::Constant, tx))).collect();
    for (k, o) in w.station_overrides.iter().enumerate() {
        let okey = format!("{key}.station[{k}].rate");
        let Some(alg) = wlan_link::algorithm(cx, o.rate.as_ref(), &okey)? else { continue };
        if w.propagation.is_none() {
            return Err(needs(o.rate.as_ref().expect("an algorithm was named"), &okey));
        }
        if let Some(i) = members.iter().position(|(_, c)| &c.name == o.node.get_ref()) {
            choices[i] = (alg, cfg.tx);
        }
    }
    Ok(choices)
}

/// The largest A-MSDU of `[[wlan]]` `w` (`amsdu`, `amsdu_max`), None without A-MSDU: at most
/// what `phy`'s format allows inside an A-MPDU (`core::wlan::amsdu::max_amsdu_bytes`), which is
/// the default.
fn amsdu_limit(cx: &Ctx, w: &WlanConfig, key: &str, phy: &PhyProfile) -> Result<Option<u32>, ScenarioError> {
    let on = w.amsdu.as_ref().map(|a| *a.get_ref());
    let (at, k) = match (&w.amsdu, &w.amsdu_max) {
        (_, Some(m)) => (m.span(), format!("{key}.amsdu_max")),
        (Some(a), None) => (a.span(), format!("{key}.amsdu")),
        (None, None) => return Ok(None),
    };
    if on == Some(false) {
        return match &w.amsdu_max {
            Some(m) => Err(cx.err(m, &k, "amsdu_max is set but amsdu = false: remove one of them")),
            None => Ok(None),
        };
    }
    let here = toml::Spanned::new(at, ());
    let Some(max) = wattlab_core::wlan::amsdu::max_amsdu_bytes(phy.format, phy.band) else {
        return Err(cx.err(&here, &k, format!("A-MSDU needs the QoS MAC with A-MPDU of 802.11n, 802.11ac or 802.11ax; {} has none", phy.name)));
    };
    match w.amsdu_max.as_ref().map(|m| *m.get_ref()) {
        None => Ok(Some(max)),
        Some(n) if (1..=max).contains(&n) => Ok(Some(n)),
        Some(n) => Err(cx.err(&here, &k, format!("amsdu_max = {n} B: {} in {} allows 1 ..= {max} B inside an A-MPDU (docs/wlan.md, A-MSDU)", phy.name, phy.band))),
    }
}

/// `ap_priority` of `[[wlan]]` `w`: a preset or a table, checked (AIFS 1 or 2 slots, CW_min ≤
/// CW_max, both of the form 2^k − 1).
fn ap_priority(cx: &Ctx, w: &WlanConfig, key: &str, phy: &PhyProfile) -> Result<Option<ApPriority>, ScenarioError> {
    let Some(setting) = &w.ap_priority else { return Ok(None) };
    let k = format!("{key}.ap_priority");
    let p = match setting.get_ref() {
        ApPrioritySetting::Preset(name) => ApPriority::preset(name, phy).ok_or_else(|| {
            cx.err(setting, &k, format!("unknown AP priority preset `{name}` (known: {}; or a table {{ aifs_slots, cw_min, cw_max }})", ApPriority::PRESETS.join(", ")))
        })?,
        ApPrioritySetting::Custom(t) => ApPriority {
            aifs_slots: t.aifs_slots.unwrap_or(2),
            cw_min: t.cw_min.unwrap_or(phy.cw_min),
            cw_max: t.cw_max.unwrap_or(phy.cw_max),
        },
    };
    if !(1..=2).contains(&p.aifs_slots) {
        return Err(cx.err(setting, &k, format!("aifs_slots = {} must be 1 (PIFS) or 2 (DIFS): 0 would collide with SIFS responses", p.aifs_slots)));
    }
    let pow2m1 = |v: u32| (v + 1).is_power_of_two();
    if !pow2m1(p.cw_min) || !pow2m1(p.cw_max) || p.cw_min > p.cw_max {
        return Err(cx.err(setting, &k, format!("cw_min = {} and cw_max = {} must be 2^k − 1 with cw_min ≤ cw_max", p.cw_min, p.cw_max)));
    }
    Ok(Some(p))
}

/// A `wlanN` interface on every member of BSS `b` (stations' peer is the AP's interface) and
/// the adjacencies AP ↔ station: each member's interface, and (node, station id) sorted.
fn interfaces(t: &mut Topology, b: u16, ap: u32, members: &[(u32, StaConfig)]) -> (Vec<u32>, Vec<(u32, StaId)>) {
    let mut sta_iface = Vec::with_capacity(members.len());
    let mut node_sta = Vec::with_capacity(members.len());
    for (sta, (node, _)) in members.iter().enumerate() {
        let this = t.ifaces.len() as u32;
        let name = t.next_iface_name(*node, super::topology::WLAN_PREFIX);
        t.ifaces.push(Iface {
            node: *node,
            name,
            tx: 0,
            peer: sta_iface.first().copied().unwrap_or(this),
            mac: mac_for_node(this),
            radio: None,
            pcap: None,
            wlan: Some((b, sta as StaId)),
            middlebox: None,
        });
        t.nodes[*node as usize].ifaces.push(this);
        sta_iface.push(this);
        node_sta.push((*node, sta as StaId));
    }
    for (sta, (node, _)) in members.iter().enumerate().skip(1) {
        t.adjacency[ap as usize].push((*node, sta_iface[0]));
        t.adjacency[*node as usize].push((ap, sta_iface[sta]));
        t.wireless_iface_of.insert(*node, sta_iface[sta]);
    }
    node_sta.sort_unstable();
    (sta_iface, node_sta)
}
