//! The PHY of a `[[wlan]]`: its profile (`phy`, `band`, `packet_padding`, `short_preamble`)
//! and the constant [`TxVector`] of the BSS and of each station (`rate` for the legacy PHYs;
//! `mcs`, `nss`, `width`, `gi` for 802.11n/ac/ax), checked with errors at the scenario line
//! that list what is valid.

use super::Ctx;
use crate::scenario::{RateSetting, ScenarioError, TxKeys, WlanConfig};
use toml::Spanned;
use wattlab_core::wlan::phy::mcs::{ranges, valid_mcs};
use wattlab_core::wlan::phy::{find_phy, format_rate, phy_names, PhyError};
use wattlab_core::wlan::{Band, Mcs, PhyFormat, PhyProfile, TxVector};

/// The PHY profile of `[[wlan]]` `w` (section `key`) in its band.
pub(super) fn profile(cx: &Ctx, w: &WlanConfig, key: &str) -> Result<PhyProfile, ScenarioError> {
    let phy = find_phy(w.phy.get_ref()).ok_or_else(|| {
        cx.err(&w.phy, &format!("{key}.phy"), format!("unknown PHY `{}` (known: {})", w.phy.get_ref(), phy_names().join(", ")))
    })?;
    let mut phy = phy.with_short_preamble(w.short_preamble);
    if let Some(b) = &w.band {
        let k = format!("{key}.band");
        let band = Band::parse(b.get_ref())
            .ok_or_else(|| cx.err(b, &k, format!("unknown band `{}` (bands: {})", b.get_ref(), Band::NAMES.join(", "))))?;
        phy = phy.with_band(band).map_err(|e| cx.err(b, &k, e.0))?;
    }
    if let Some(p) = &w.packet_padding {
        let k = format!("{key}.packet_padding");
        if phy.format != PhyFormat::He {
            return Err(cx.err(p, &k, format!("packet_padding is an 802.11ax (HE) setting; {} has no packet extension", phy.name)));
        }
        let ns = p.get_ref().get().as_nanos();
        let us = u8::try_from(ns / 1_000).ok().filter(|_| ns % 1_000 == 0).unwrap_or(u8::MAX);
        phy = phy.with_he_packet_padding(us).map_err(|_| cx.err(p, &k, "nominal packet padding is \"0us\", \"8us\" or \"16us\""))?;
    }
    Ok(phy)
}

/// The constant TxVector that keys `t` (of section `key`) give on `phy`, over `base` (the
/// BSS's, for a `[[wlan.station]]`); `phy_at` is where to point when a needed key is missing.
pub(super) fn tx_vector(cx: &Ctx, phy: &PhyProfile, t: TxKeys<'_>, base: Option<TxVector>, key: &str, phy_at: &Spanned<String>) -> Result<TxVector, ScenarioError> {
    if phy.format == PhyFormat::Legacy {
        return legacy(cx, phy, t, base, key, phy_at);
    }
    if let Some(r) = t.rate {
        let msg = match r.get_ref() {
            RateSetting::Bitrate(_) => format!("{} sends data at an MCS: write mcs (and nss, width, gi) instead of a rate", phy.name),
            RateSetting::Named(n) => format!("unknown rate setting `{n}` (known: a constant MCS, written as mcs, nss, width, gi)"),
        };
        return Err(cx.err(r, &format!("{key}.rate"), msg));
    }
    let base = match base {
        Some(TxVector::Ht(m) | TxVector::Vht(m) | TxVector::He(m)) => Some(m),
        _ => None,
    };
    let mut m = base.unwrap_or(Mcs { mcs: u8::MAX, nss: 1, width_mhz: 20, gi_ns: 800 });
    if let Some(n) = t.nss {
        m.nss = *n.get_ref();
    }
    if let Some(w) = t.width {
        m.width_mhz = w.get_ref().0;
    }
    if let Some(g) = t.gi {
        let ns = g.get_ref().get().as_nanos();
        m.gi_ns = u16::try_from(ns).unwrap_or(u16::MAX);
    }
    if let Some(i) = t.mcs {
        m.mcs = *i.get_ref();
        // HT-MCS 8-31: equal modulation on (index / 8 + 1) streams.
        if phy.format == PhyFormat::Ht && m.mcs >= 8 {
            let k = format!("{key}.mcs");
            if m.mcs > 31 {
                return Err(cx.err(i, &k, format!("802.11n has no HT-MCS {} (0-7 per stream with nss, or 0-31; unequal modulation 32-76 is not modelled)", m.mcs)));
            }
            let nss = m.mcs / 8 + 1;
            if t.nss.is_some_and(|n| *n.get_ref() != nss) {
                return Err(cx.err(i, &k, format!("HT-MCS {} is {nss} streams but nss = {}: write mcs = {} with nss, or the HT-MCS alone", m.mcs, m.nss, m.mcs % 8)));
            }
            (m.mcs, m.nss) = (m.mcs % 8, nss);
        }
    }
    let tx = match phy.format {
        PhyFormat::Ht => TxVector::Ht(m),
        PhyFormat::Vht => TxVector::Vht(m),
        _ => TxVector::He(m),
    };
    if m.mcs == u8::MAX {
        let valid = valid_mcs(phy.format, m.nss, m.width_mhz);
        let msg = format!("{} needs `mcs` (at {} MHz, {} SS: {})", phy.name, m.width_mhz, m.nss, ranges(&valid));
        return Err(cx.err(phy_at, &format!("{key}.mcs"), msg));
    }
    phy.check_tx(tx).map_err(|e| located(cx, t, e, key, phy_at))
}

/// A legacy PHY's `rate`, over `base`; the MCS keys are refused.
fn legacy(cx: &Ctx, phy: &PhyProfile, t: TxKeys<'_>, base: Option<TxVector>, key: &str, phy_at: &Spanned<String>) -> Result<TxVector, ScenarioError> {
    let refuse = |k: &str, at: Option<std::ops::Range<usize>>| {
        at.map(|span| cx.err(&Spanned::new(span, ()), &format!("{key}.{k}"), format!("{} is a legacy PHY: it takes `rate` (e.g. \"{}\"), not {k}", phy.name, format_rate(*phy.rates_kbps.last().unwrap_or(&0)))))
    };
    let spans = [("mcs", t.mcs.map(Spanned::span)), ("nss", t.nss.map(Spanned::span)), ("width", t.width.map(Spanned::span)), ("gi", t.gi.map(Spanned::span))];
    if let Some(e) = spans.into_iter().find_map(|(k, at)| refuse(k, at)) {
        return Err(e);
    }
    let rates = phy.rates_kbps.iter().map(|&r| format_rate(r)).collect::<Vec<_>>().join(", ");
    match (t.rate, base) {
        (Some(r), _) => match r.get_ref() {
            RateSetting::Bitrate(b) => phy
                .check_rate((b.bps() / 1000) as u32)
                .map(|kbps| TxVector::Legacy { kbps })
                .map_err(|e| cx.err(r, &format!("{key}.rate"), e.0)),
            RateSetting::Named(n) => Err(cx.err(r, &format!("{key}.rate"), format!("unknown rate setting `{n}` ({} rates: {rates})", phy.name))),
        },
        (None, Some(b)) => Ok(b),
        (None, None) => Err(cx.err(phy_at, &format!("{key}.rate"), format!("{} needs a `rate` (one of {rates})", phy.name))),
    }
}

/// `e` pointed at the key it is about (`width`, `nss`, `gi` or `mcs`, if written here), else
/// at the PHY.
fn located(cx: &Ctx, t: TxKeys<'_>, e: PhyError, key: &str, phy_at: &Spanned<String>) -> ScenarioError {
    let about = if e.0.contains("MHz channels") {
        ("width", t.width.map(Spanned::span))
    } else if e.0.contains("spatial streams") {
        ("nss", t.nss.map(Spanned::span))
    } else if e.0.contains("guard interval") {
        ("gi", t.gi.map(Spanned::span))
    } else {
        ("mcs", t.mcs.map(Spanned::span))
    };
    match about {
        (k, Some(span)) => cx.err(&Spanned::new(span, ()), &format!("{key}.{k}"), e.0),
        (k, None) => cx.err(phy_at, &format!("{key}.{k}"), e.0),
    }
}
