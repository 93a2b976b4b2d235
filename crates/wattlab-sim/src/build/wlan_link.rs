//! The distance part of a `[[wlan]]`: `rate` (a constant or an algorithm), `[wlan.propagation]`
//! and the members' `position`s, built into a [`Link`] (docs/wlan.md, "Distance, errors and
//! rate control"), with errors at the scenario line.

use super::Ctx;
use crate::rng::RngStreams;
use crate::scenario::{NodeConfig, RateSetting, Scenario, ScenarioError, WlanConfig};
use crate::wlan::rate::{RateAlgorithm, RateSet};
use crate::wlan::{Link, MacConfig};
use rand_distr::{Distribution, StandardNormal};
use toml::Spanned;
use wattlab_core::wlan::propagation::{Position, Propagation};
use wattlab_core::wlan::PhyProfile;

/// What a `rate` setting asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RateChoice {
    /// This data rate, kb/s (checked against the PHY).
    Constant(u32),
    /// A rate-control algorithm.
    Algorithm(RateAlgorithm),
}

/// Reads `rate` (at `key`) for `phy`: a rate the PHY has, or an algorithm's name.
pub(crate) fn rate_choice(cx: &Ctx, r: &Spanned<RateSetting>, key: &str, phy: &PhyProfile) -> Result<RateChoice, ScenarioError> {
    match r.get_ref() {
        RateSetting::Constant(rate) => {
            let kbps = phy.check_rate((rate.bps() / 1000) as u32).map_err(|e| cx.err(r, key, e.0))?;
            Ok(RateChoice::Constant(kbps))
        }
        RateSetting::Named(name) => RateAlgorithm::parse(name).map(RateChoice::Algorithm).ok_or_else(|| {
            let why = crate::scenario::units::Rate::parse(name).err().unwrap_or_default();
            cx.err(r, key, format!("`{name}` is neither a rate nor a rate-control algorithm ({why}; algorithms: {})", RateAlgorithm::NAMES.join(", ")))
        }),
    }
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
/// their rate choices `choices` (the BSS's or a `[[wlan.station]]`'s), the MAC's settings.
pub(crate) fn build_link(cx: &Ctx, scn: &Scenario, w: &WlanConfig, key: &str, name: &str, nodes: &[u32], choices: &[RateChoice], cfg: &MacConfig, streams: &RngStreams) -> Result<Option<Link>, ScenarioError> {
    let Some(p) = &w.propagation else { return Ok(None) };
    let pkey = format!("{key}.propagation");
    let (prop, threshold) = propagation(cx, p, &pkey)?;
    let rates = RateSet::for_phy(&cfg.phy).ok_or_else(|| {
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
    let constant = |kbps: u32| rates.index_of(wattlab_core::wlan::TxVector::Legacy { kbps }).expect("a checked rate of the PHY");
    let choices: Vec<(RateAlgorithm, usize)> = choices
        .iter()
        .map(|c| match *c {
            RateChoice::Constant(kbps) => (RateAlgorithm::Constant, constant(kbps)),
            RateChoice::Algorithm(a) => (a, 0),
        })
        .collect();
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
    let width_mhz = 20.0;
    Ok(Some(Link::new(prop, threshold, width_mhz, rates, &positions, shadow, &choices, &mut rng)))
}
