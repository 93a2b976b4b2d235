//! The distance part of a `[[wlan]]`: `rate` (a constant or an algorithm), `[wlan.propagation]`
//! and the members' `position`s, built into a [`Link`] (docs/wlan.md, "Distance, errors and
//! rate control"), with errors at the scenario line.

use super::Ctx;
use crate::rng::RngStreams;
use crate::scenario::{NodeConfig, RateSetting, Scenario, ScenarioError, TxKeys, WlanConfig};
use crate::wlan::rate::{RateAlgorithm, RateSet};
use crate::wlan::{Link, MacConfig};
use rand_distr::{Distribution, StandardNormal};
use toml::Spanned;
use wattlab_core::wlan::propagation::{Position, Propagation};
use wattlab_core::wlan::phy::mcs::valid_mcs;
use wattlab_core::wlan::{PhyFormat, PhyProfile, TxVector};

/// The rate-control algorithm `rate` names, if it names one (a bit rate: None); an unknown
/// name is an error at `key`.
pub(crate) fn algorithm(cx: &Ctx, r: Option<&Spanned<RateSetting>>, key: &str) -> Result<Option<RateAlgorithm>, ScenarioError> {
    match r.map(|r| (r, r.get_ref())) {
        Some((at, RateSetting::Named(name))) => RateAlgorithm::parse(name).map(Some).ok_or_else(|| {
            cx.err(at, key, format!("`{name}` is neither a rate nor a rate-control algorithm (algorithms: {}; a constant rate is a bit rate such as \"54Mbps\" on 802.11a/b/g, or mcs/nss/width/gi on 802.11n/ac/ax)", RateAlgorithm::NAMES.join(", ")))
        }),
        _ => Ok(None),
    }
}

/// `keys` without a `rate` that names an algorithm (what remains sets a constant rate).
pub(crate) fn without_algorithm(keys: TxKeys<'_>) -> TxKeys<'_> {
    match keys.rate.map(|r| r.get_ref()) {
        Some(RateSetting::Named(_)) => TxKeys { rate: None, ..keys },
        _ => keys,
    }
}

/// The nominal TxVector of a BSS under rate control (what a CC agent assumes and the group
/// Minstrel-HT chooses in): a legacy PHY's fastest rate, or on HT/VHT/HE the fastest MCS of
/// the NSS, width and GI that `keys` give (an `mcs` is refused: the algorithm picks it).
pub(crate) fn nominal(cx: &Ctx, phy: &PhyProfile, keys: TxKeys<'_>, key: &str, phy_at: &Spanned<String>) -> Result<TxVector, ScenarioError> {
    if phy.format == PhyFormat::Legacy {
        return Ok(TxVector::Legacy { kbps: *phy.rates_kbps.last().expect("every PHY has rates") });
    }
    if let Some(m) = keys.mcs {
        return Err(cx.err(m, &format!("{key}.mcs"), "a rate-control algorithm picks the MCS: write nss, width and gi for its group, not mcs"));
    }
    let nss = keys.nss.map_or(1, |n| *n.get_ref());
    let width = keys.width.map_or(20, |w| w.get_ref().0);
    let top = valid_mcs(phy.format, nss, width).last().copied().unwrap_or(0);
    let mcs = Spanned::new(0..0, top);
    super::wlan_phy::tx_vector(cx, phy, TxKeys { mcs: Some(&mcs), ..keys }, None, key, phy_at)
}

/// A node's `position` as a point (None if it has none), or an error at it.
pub(crate) fn position(cx: &Ctx, node: &NodeConfig, key: &str) -> Result<Option<Position>, ScenarioError> {
    let Some(p) = &node.position else { return Ok(None) };
    let v = p.get_ref();
    if !(2..=3).contains(&v.len()) || v.iter().any(|c| !c.is_finite()) {
        return Err(cx.err(p, key, format!("position must be [x, y] or [x, y, z] in metres (finite numbers), not {v:?}")));
    }
    Ok(Some(Position { x: v[0], y: v[1], z: v.get(2).copied().unwrap_or(0.0) }))
}

/// Checks every node's `position` (also those no BSS uses).
pub(crate) fn check_positions(scn: &Scenario, cx: &Ctx) -> Result<(), ScenarioError> {
    for (i, n) in scn.nodes.iter().enumerate() {
        position(cx, n, &format!("node[{i}].position"))?;
    }
    Ok(())
}

/// The link budget of `[wlan.propagation]` `p` (at `key`), defaults filled in, checked.
fn propagation(cx: &Ctx, p: &Spanned<crate::scenario::PropagationSettings>, key: &str) -> Result<(Propagation, f64), ScenarioError> {
    let s = p.get_ref();
    if let Some(m) = &s.model {
        if m != "log-distance" {
            return Err(cx.err(p, &format!("{key}.model"), format!("unknown propagation model `{m}` (known: log-distance)")));
        }
    }
    let d = Propagation::default();
    let prop = Propagation {
        reference_distance_m: s.reference_distance_m.unwrap_or(d.reference_distance_m),
        reference_loss_db: s.reference_loss_db.unwrap_or(d.reference_loss_db),
        exponent: s.exponent.unwrap_or(d.exponent),
        shadowing_sigma_db: s.shadowing_sigma_db.unwrap_or(d.shadowing_sigma_db),
        tx_power_dbm: s.tx_power_dbm.unwrap_or(d.tx_power_dbm),
        noise_figure_db: s.noise_figure_db.unwrap_or(d.noise_figure_db),
    };
    prop.check().map_err(|m| cx.err(p, key, m))?;
    // No capture: a threshold no SINR reaches.
    let threshold = match (s.capture.unwrap_or(true), s.capture_threshold_db) {
        (false, _) => f64::INFINITY,
        (true, None) => 10.0,
        (true, Some(t)) if t.is_finite() && t >= 0.0 => t,
        (true, Some(t)) => return Err(cx.err(p, &format!("{key}.capture_threshold_db"), format!("capture_threshold_db = {t} must be a finite number ≥ 0 dB"))),
    };
    Ok((prop, threshold))
}

/// The [`Link`] of BSS `w` (None without `[wlan.propagation]`): members `nodes` (AP first),
/// each with its rate choice (the algorithm, and the constant TxVector a `Constant` uses),
/// the MAC's settings.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_link(cx: &Ctx, scn: &Scenario, w: &WlanConfig, key: &str, name: &str, nodes: &[u32], choices: &[(RateAlgorithm, TxVector)], cfg: &MacConfig, streams: &RngStreams) -> Result<Option<Link>, ScenarioError> {
    let Some(p) = &w.propagation else { return Ok(None) };
    let pkey = format!("{key}.propagation");
    let (prop, threshold) = propagation(cx, p, &pkey)?;
    let mut rates = RateSet::for_bss(&cfg.phy, cfg.tx).ok_or_else(|| {
        cx.err(&w.phy, &format!("{key}.phy"), format!("[wlan.propagation] needs an OFDM PHY: the error model (NIST, Pei & Henderson 2010) does not cover {} (DSSS/CCK)", cfg.phy.name))
    })?;
    let mut positions = Vec::with_capacity(nodes.len());
    for &n in nodes {
        let node = &scn.nodes[n as usize];
        let at = position(cx, node, &format!("node[{n}].position"))?.ok_or_else(|| {
            cx.err(&node.name, &format!("node[{n}].position"), format!("node `{}` needs a position = [x, y] (metres): [[wlan]] `{name}` has [wlan.propagation]", node.name.get_ref()))
        })?;
        positions.push(at);
    }
    let mut indexed = Vec::with_capacity(choices.len());
    for &(alg, tx) in choices {
        let r = rates.add(&cfg.phy, tx).expect("a checked OFDM rate of the PHY");
        indexed.push((alg, r));
    }
    let sigma = prop.shadowing_sigma_db;
    let member = |i: usize| scn.nodes[nodes[i] as usize].name.get_ref().clone();
    // One draw per unordered pair, from a stream named after the pair: adding a station does
    // not change the others' shadowing.
    let shadow = |a: usize, b: usize| -> f64 {
        if sigma == 0.0 {
            return 0.0;
        }
        let mut rng = streams.stream(&format!("shadowing:{name}:{}:{}", member(a), member(b)));
        StandardNormal.sample(&mut rng)
    };
    let mut rng = streams.stream(&format!("rate-control:{name}"));
    Ok(Some(Link::new(prop, threshold, rates, &positions, shadow, &indexed, &mut rng)))
}
