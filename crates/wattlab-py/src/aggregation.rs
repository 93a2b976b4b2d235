//! `wattlab._core` bindings of the aggregation models (`wattlab_core::wlan::aggregation`):
//! Bianchi's saturation throughput and the single-flow TCP maximum with A-MPDU, Block Ack and
//! EDCA, for one PHY configuration (`phy`, `mcs`, `nss`, `width`, `gi`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use wattlab_core::wlan::aggregation::{self, AmpduExchange, AmpduLimits, AmpduLink, EdcaAccess};
use wattlab_core::wlan::phy::{Mcs, PhyFormat, PhyProfile, TxVector};
use wattlab_core::Duration;

use crate::guard;

fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// The PHY `phy` and the HT/VHT/HE vector of `mcs`, `nss`, `width`, `gi`, checked, with the
/// A-MPDU limits of its format.
fn configuration(phy: &str, mcs: u8, nss: u8, width: u16, gi: u16) -> PyResult<(PhyProfile, TxVector, AmpduLimits)> {
    let profile = crate::find_phy(phy)?;
    let m = Mcs { mcs, nss, width_mhz: width, gi_ns: gi };
    let (tx, limits) = match profile.format {
        PhyFormat::Ht => (TxVector::Ht(m), AmpduLimits::HT),
        PhyFormat::Vht => (TxVector::Vht(m), AmpduLimits::VHT),
        PhyFormat::He => (TxVector::He(m), AmpduLimits::HE),
        PhyFormat::Legacy => {
            return Err(value_error(format!("{} does not aggregate: A-MPDU needs 802.11n, 802.11ac or 802.11ax", profile.name)))
        }
    };
    let tx = profile.check_tx(tx).map_err(|e| value_error(e.0))?;
    Ok((profile, tx, limits))
}

/// AC_BE of the default EDCA set, or the CW given.
fn access(phy: &PhyProfile, aifsn: u32, cw_min: Option<u32>, cw_max: Option<u32>) -> PyResult<EdcaAccess> {
    let be = EdcaAccess::best_effort(phy);
    let a = EdcaAccess { aifsn, cw_min: cw_min.unwrap_or(be.cw_min), cw_max: cw_max.unwrap_or(be.cw_max) };
    if a.aifsn < 1 || a.cw_min < 1 || a.cw_max < a.cw_min || !(a.cw_min + 1).is_power_of_two() || !(a.cw_max + 1).is_power_of_two() {
        return Err(value_error(format!(
            "EDCA parameters must have AIFSN >= 1 and 1 <= CWmin <= CWmax, each 2^k - 1 (got AIFSN {}, CW {}-{})",
            a.aifsn, a.cw_min, a.cw_max
        )));
    }
    Ok(a)
}

fn us(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e3
}

fn put_exchange(d: &Bound<'_, PyDict>, e: &AmpduExchange) -> PyResult<()> {
    d.set_item("mpdus", e.mpdus)?;
    d.set_item("psdu_bytes", e.psdu_bytes)?;
    d.set_item("ppdu_us", us(e.ppdu))?;
    d.set_item("block_ack_us", us(e.block_ack))?;
    d.set_item("ts_us", us(e.ts))?;
    d.set_item("tc_us", us(e.tc))?;
    Ok(())
}

/// Bianchi's saturation throughput of `n` stations sending A-MPDUs of `ip_bytes` packets with
/// immediate Block Ack under EDCA (dict: mpdus, ppdu_us, ts_us, tc_us, tau, p, throughput_bps...).
#[pyfunction]
#[pyo3(signature = (phy, mcs, nss, width, gi, n, ip_bytes=1500, aifsn=3, cw_min=None, cw_max=None, propagation_ns=0))]
#[allow(clippy::too_many_arguments)] // the configuration, spelled out
fn bianchi_ampdu<'py>(
    py: Python<'py>,
    phy: &str,
    mcs: u8,
    nss: u8,
    width: u16,
    gi: u16,
    n: u32,
    ip_bytes: u32,
    aifsn: u32,
    cw_min: Option<u32>,
    cw_max: Option<u32>,
    propagation_ns: u64,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let (profile, tx, limits) = configuration(phy, mcs, nss, width, gi)?;
        let edca = access(&profile, aifsn, cw_min, cw_max)?;
        if n == 0 {
            return Err(value_error("n must be at least 1 station"));
        }
        if !(1..=65_000).contains(&ip_bytes) {
            return Err(value_error(format!("ip_bytes must be 1..=65000 (got {ip_bytes})")));
        }
        let link = AmpduLink { phy: &profile, tx, access: edca, limits, propagation: Duration(propagation_ns) };
        let s = aggregation::saturation(&link, ip_bytes, n);
        let d = PyDict::new(py);
        put_exchange(&d, &s.exchange)?;
        d.set_item("tau", s.bianchi.tau)?;
        d.set_item("p", s.bianchi.p)?;
        d.set_item("throughput_bps", s.bianchi.throughput_bps)?;
        d.set_item("normalized", s.bianchi.normalized)?;
        d.set_item("data_rate_bps", profile.data_rate_bps(tx))?;
        d.set_item("ba_window", limits.ba_window)?;
        d.set_item("aifs_us", us(edca.aifs(&profile)))?;
        d.set_item("eifs_us", us(edca.eifs(&profile)))?;
        Ok(d)
    })
}

/// The collision-free maximum of one TCP flow with data A-MPDUs up and TCP-ACK A-MPDUs down
/// (dict: mac_only_bps, tcp_bps, data_mpdus, acks_per_ampdu, data_exchange_us, ack_exchange_us).
#[pyfunction]
#[pyo3(signature = (phy, mcs, nss, width, gi, payload_bytes, data_ip_bytes, ack_ip_bytes, segments_per_ack=2, aifsn=3, cw_min=None, cw_max=None))]
#[allow(clippy::too_many_arguments)] // the configuration, spelled out
fn tcp_capacity_ampdu<'py>(
    py: Python<'py>,
    phy: &str,
    mcs: u8,
    nss: u8,
    width: u16,
    gi: u16,
    payload_bytes: u32,
    data_ip_bytes: u32,
    ack_ip_bytes: u32,
    segments_per_ack: u32,
    aifsn: u32,
    cw_min: Option<u32>,
    cw_max: Option<u32>,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let (profile, tx, limits) = configuration(phy, mcs, nss, width, gi)?;
        let edca = access(&profile, aifsn, cw_min, cw_max)?;
        if segments_per_ack == 0 {
            return Err(value_error("segments_per_ack must be at least 1"));
        }
        if payload_bytes == 0 || payload_bytes > data_ip_bytes || data_ip_bytes > 65_000 || ack_ip_bytes == 0 || ack_ip_bytes > 65_000 {
            return Err(value_error("need 0 < payload_bytes <= data_ip_bytes <= 65000 and 0 < ack_ip_bytes <= 65000"));
        }
        let link = AmpduLink { phy: &profile, tx, access: edca, limits, propagation: Duration::ZERO };
        let c = aggregation::tcp_max_throughput(&link, edca, payload_bytes, data_ip_bytes, ack_ip_bytes, segments_per_ack);
        let d = PyDict::new(py);
        d.set_item("data_mpdus", c.data_mpdus)?;
        d.set_item("acks_per_ampdu", c.acks_per_ampdu)?;
        d.set_item("mac_only_bps", c.mac_only_bps)?;
        d.set_item("tcp_bps", c.tcp_bps)?;
        d.set_item("data_exchange_us", us(c.data_exchange))?;
        d.set_item("ack_exchange_us", us(c.ack_exchange))?;
        d.set_item("data_rate_bps", profile.data_rate_bps(tx))?;
        Ok(d)
    })
}

/// Adds the aggregation models to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bianchi_ampdu, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_capacity_ampdu, m)?)?;
    Ok(())
}
