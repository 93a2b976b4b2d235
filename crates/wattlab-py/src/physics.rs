//! `wattlab._core` bindings of the core's physics, so Python derives none of it: 802.11 frame
//! timing (`wattlab_core::wlan::phy`, `capacity`), a profile's break-even time
//! (`energy::break_even_time`) and a recorded state timeline costed by the meter
//! (`energy::cost_timeline`: energy per owner and up to instants). Thin: contiguous 1-D
//! buffers in (numpy arrays, read through the buffer protocol, no numpy crate) and native-endian
//! `bytearray`s out (`wattlab.physics` broadcasts its arguments and reads the results with
//! `numpy.frombuffer`), every formula in the core.

use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict};
use wattlab_core::energy::{break_even_time, cost_timeline, find_builtin_profile, DeviceProfile, RadioState};
use wattlab_core::wlan::capacity::exchange_duration;
use wattlab_core::wlan::phy::{self, Band, Modulation, PhyFormat, PhyProfile, Preamble, TxVector};
use wattlab_core::{Duration, Time};

use crate::guard;

fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// The PHY called `name`, with short DSSS preambles if asked.
fn phy_named(name: &str, short_preamble: bool) -> PyResult<PhyProfile> {
    Ok(crate::find_phy(name)?.with_short_preamble(short_preamble))
}

/// `bytes` as u32, or an error naming the argument and the row.
fn byte_counts(what: &str, v: &[i64]) -> PyResult<Vec<u32>> {
    v.iter()
        .enumerate()
        .map(|(i, &b)| u32::try_from(b).map_err(|_| value_error(format!("{what}[{i}] = {b}: a byte count must be 0 to {}", u32::MAX))))
        .collect()
}

/// Rates as kb/s, each one of `phy`'s data rates.
fn rates(phy: &PhyProfile, v: &[i64]) -> PyResult<Vec<u32>> {
    v.iter()
        .enumerate()
        .map(|(i, &r)| {
            let r32 = u32::try_from(r).map_err(|_| value_error(format!("rate_kbps[{i}] = {r} is not a rate")))?;
            phy.check_rate(r32).map_err(|e| value_error(format!("rate_kbps[{i}]: {e}")))
        })
        .collect()
}

fn same_len(a: usize, b: usize) -> PyResult<()> {
    if a == b {
        Ok(())
    } else {
        Err(value_error(format!("arrays of different lengths ({a} and {b}): broadcast them first")))
    }
}

/// The values of a 1-D buffer of `T` (a numpy array of the matching dtype), copied out.
fn values<T: Element + Copy>(py: Python<'_>, what: &str, b: &PyBuffer<T>) -> PyResult<Vec<T>> {
    if b.dimensions() > 1 {
        return Err(value_error(format!("{what} must be one-dimensional (flatten it first)")));
    }
    b.to_vec(py)
}

/// Native-endian bytes of `v` (read back with `numpy.frombuffer(…, dtype)`).
fn bytes_of<'py, T: Copy, const N: usize>(py: Python<'py>, v: impl Iterator<Item = T>, to: fn(T) -> [u8; N]) -> Bound<'py, PyByteArray> {
    PyByteArray::new(py, &v.flat_map(to).collect::<Vec<u8>>())
}

fn ns_array(py: Python<'_>, v: impl Iterator<Item = Duration>) -> Bound<'_, PyByteArray> {
    bytes_of(py, v.map(|d| d.as_nanos() as i64), i64::to_ne_bytes)
}

/// `airtime(phy, bytes, rate)` of each (bytes, rate) pair of two same-length arrays, in ns.
fn per_frame<'py>(
    py: Python<'py>,
    phy: &str,
    short_preamble: bool,
    (what, bytes): (&str, PyBuffer<i64>),
    rate_kbps: PyBuffer<i64>,
    airtime: impl Fn(&PhyProfile, u32, u32) -> Duration,
) -> PyResult<Bound<'py, PyByteArray>> {
    let p = phy_named(phy, short_preamble)?;
    let (b, r) = (byte_counts(what, &values(py, what, &bytes)?)?, rates(&p, &values(py, "rate_kbps", &rate_kbps)?)?);
    same_len(b.len(), r.len())?;
    Ok(ns_array(py, b.iter().zip(&r).map(|(&b, &r)| airtime(&p, b, r))))
}

/// Names of the built-in PHY profiles (`802.11b`, `dsss-2mbps`, `802.11a`, `802.11g`,
/// `802.11n`, `802.11ac`, `802.11ax`).
#[pyfunction]
fn phy_names() -> PyResult<Vec<&'static str>> {
    guard(|| Ok(phy::phy_names()))
}

/// A PHY's timing as the core has it: name, description, modulation (`dsss`/`ofdm`),
/// preamble (`long`/`short`), slot_ns, sifs_ns, difs_ns, eifs_ns, signal_extension_ns,
/// cw_min, cw_max, backoff_stages, rates_kbps, basic_rates_kbps.
#[pyfunction]
#[pyo3(signature = (name, short_preamble = false))]
fn phy_profile<'py>(py: Python<'py>, name: &str, short_preamble: bool) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let p = phy_named(name, short_preamble)?;
        let d = PyDict::new(py);
        d.set_item("name", p.name)?;
        d.set_item("description", p.description)?;
        d.set_item("modulation", match p.modulation {
            Modulation::Dsss => "dsss",
            Modulation::Ofdm => "ofdm",
        })?;
        d.set_item("preamble", match p.preamble {
            Preamble::Long => "long",
            Preamble::Short => "short",
        })?;
        d.set_item("slot_ns", p.slot.as_nanos())?;
        d.set_item("sifs_ns", p.sifs.as_nanos())?;
        d.set_item("difs_ns", p.difs().as_nanos())?;
        d.set_item("eifs_ns", p.eifs().as_nanos())?;
        d.set_item("signal_extension_ns", p.signal_extension.as_nanos())?;
        d.set_item("cw_min", p.cw_min)?;
        d.set_item("cw_max", p.cw_max)?;
        d.set_item("backoff_stages", p.backoff_stages())?;
        d.set_item("rates_kbps", p.rates_kbps.to_vec())?;
        d.set_item("basic_rates_kbps", p.basic_rates_kbps.to_vec())?;
        d.set_item("format", format!("{:?}", p.format).to_lowercase())?;
        d.set_item("band", p.band.to_string())?;
        Ok(d)
    })
}

/// The HT/VHT/HE TxVector (`mcs`, `nss`, `width_mhz`, `gi_ns`) of PHY `phy` in `band`
/// (default: the profile's) with `packet_padding_us` of HE nominal packet padding, checked.
fn mcs_vector(phy: &str, band: Option<&str>, packet_padding_us: u8, m: phy::Mcs) -> PyResult<(PhyProfile, TxVector)> {
    let mut p = phy_named(phy, false)?;
    if let Some(b) = band {
        let b = Band::parse(b).ok_or_else(|| value_error(format!("unknown band `{b}` (bands: {})", Band::NAMES.join(", "))))?;
        p = p.with_band(b).map_err(|e| value_error(e.0))?;
    }
    if packet_padding_us != 0 {
        p = p.with_he_packet_padding(packet_padding_us).map_err(|e| value_error(e.0))?;
    }
    let tx = match p.format {
        PhyFormat::Ht => TxVector::Ht(m),
        PhyFormat::Vht => TxVector::Vht(m),
        PhyFormat::He => TxVector::He(m),
        PhyFormat::Legacy => return Err(value_error(format!("{} is a legacy PHY: it has rates, not MCSs", p.name))),
    };
    let tx = p.check_tx(tx).map_err(|e| value_error(e.0))?;
    Ok((p, tx))
}

/// Airtime (ns) of HT/VHT/HE PPDUs carrying PSDUs of `psdu_bytes` with one MCS (802.11n/ac/ax).
#[pyfunction]
#[pyo3(signature = (phy, psdu_bytes, mcs, nss = 1, width_mhz = 20, gi_ns = 800, band = None, packet_padding_us = 0))]
#[allow(clippy::too_many_arguments)]
fn ppdu_durations_ns<'py>(
    py: Python<'py>,
    phy: &str,
    psdu_bytes: PyBuffer<i64>,
    mcs: u8,
    nss: u8,
    width_mhz: u16,
    gi_ns: u16,
    band: Option<&str>,
    packet_padding_us: u8,
) -> PyResult<Bound<'py, PyByteArray>> {
    guard(|| {
        let (p, tx) = mcs_vector(phy, band, packet_padding_us, phy::Mcs { mcs, nss, width_mhz, gi_ns })?;
        let b = byte_counts("psdu_bytes", &values(py, "psdu_bytes", &psdu_bytes)?)?;
        Ok(ns_array(py, b.iter().map(|&b| p.ppdu_duration(b, tx))))
    })
}

/// One HT/VHT/HE MCS on `phy`: data_rate_bps, response_kbps (the non-HT rate of its ACK),
/// modulation ("64-QAM 5/6").
#[pyfunction]
#[pyo3(signature = (phy, mcs, nss = 1, width_mhz = 20, gi_ns = 800, band = None))]
fn mcs_info<'py>(py: Python<'py>, phy: &str, mcs: u8, nss: u8, width_mhz: u16, gi_ns: u16, band: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let m = phy::Mcs { mcs, nss, width_mhz, gi_ns };
        let (p, tx) = mcs_vector(phy, band, 0, m)?;
        let d = PyDict::new(py);
        d.set_item("data_rate_bps", p.data_rate_bps(tx))?;
        d.set_item("response_kbps", p.response_kbps(tx))?;
        d.set_item("modulation", m.modulation_name())?;
        Ok(d)
    })
}

/// Frame sizes the core's MAC uses (bytes): data_overhead (MAC header + FCS + LLC/SNAP around
/// an IP packet), qos_extra, ack (also CTS), rts, ps_poll, null_frame, beacon.
#[pyfunction]
fn wlan_frame_bytes(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    guard(|| {
        let d = PyDict::new(py);
        for (k, v) in [
            ("data_overhead", phy::DATA_OVERHEAD_BYTES),
            ("qos_extra", phy::QOS_EXTRA_BYTES),
            ("ack", phy::ACK_BYTES),
            ("rts", phy::RTS_BYTES),
            ("ps_poll", phy::PS_POLL_BYTES),
            ("null_frame", phy::NULL_FRAME_BYTES),
            ("beacon", phy::BEACON_BYTES),
        ] {
            d.set_item(k, v)?;
        }
        Ok(d)
    })
}

/// Rate (kb/s) of the control frames answering a frame sent at `data_kbps`: the highest basic
/// rate not above it.
#[pyfunction]
fn control_rate_kbps(phy: &str, data_kbps: u32) -> PyResult<u32> {
    guard(|| {
        let p = phy_named(phy, false)?;
        p.check_rate(data_kbps).map_err(|e| value_error(e.to_string()))?;
        Ok(p.control_rate(data_kbps))
    })
}

/// Airtime (ns) of PPDUs carrying MPDUs of `mpdu_bytes` (MAC header and FCS included) at
/// `rate_kbps` (one of the PHY's rates), preamble, PLCP header and signal extension included.
#[pyfunction]
#[pyo3(signature = (phy, mpdu_bytes, rate_kbps, short_preamble = false))]
fn frame_durations_ns<'py>(
    py: Python<'py>,
    phy: &str,
    mpdu_bytes: PyBuffer<i64>,
    rate_kbps: PyBuffer<i64>,
    short_preamble: bool,
) -> PyResult<Bound<'py, PyByteArray>> {
    guard(|| per_frame(py, phy, short_preamble, ("mpdu_bytes", mpdu_bytes), rate_kbps, |p, b, r| p.frame_duration(b, r)))
}

/// Airtime (ns) of data frames carrying IP packets of `ip_bytes` at `rate_kbps` (the MAC
/// header, FCS and LLC/SNAP added as the simulator adds them).
#[pyfunction]
#[pyo3(signature = (phy, ip_bytes, rate_kbps, short_preamble = false))]
fn data_durations_ns<'py>(
    py: Python<'py>,
    phy: &str,
    ip_bytes: PyBuffer<i64>,
    rate_kbps: PyBuffer<i64>,
    short_preamble: bool,
) -> PyResult<Bound<'py, PyByteArray>> {
    guard(|| per_frame(py, phy, short_preamble, ("ip_bytes", ip_bytes), rate_kbps, |p, b, r| p.data_duration(b, r)))
}

/// Airtime (ns) of the MAC ACK (or CTS) answering a frame sent at each `data_kbps`.
#[pyfunction]
#[pyo3(signature = (phy, data_kbps, short_preamble = false))]
fn ack_durations_ns<'py>(py: Python<'py>, phy: &str, data_kbps: PyBuffer<i64>, short_preamble: bool) -> PyResult<Bound<'py, PyByteArray>> {
    guard(|| {
        let p = phy_named(phy, short_preamble)?;
        let r = rates(&p, &values(py, "data_kbps", &data_kbps)?)?;
        Ok(ns_array(py, r.iter().map(|&r| p.ack_duration(r))))
    })
}

/// Channel time (ns) of one collision-free data + MAC ACK exchange per `ip_bytes` packet at
/// `rate_kbps`: DIFS + mean backoff (cw_min/2 slots) + data + δ + SIFS + ACK + δ, δ =
/// `propagation_ns` (`wattlab_core::wlan::capacity::exchange_duration`).
#[pyfunction]
#[pyo3(signature = (phy, ip_bytes, rate_kbps, propagation_ns = 0, short_preamble = false))]
fn exchange_durations_ns<'py>(
    py: Python<'py>,
    phy: &str,
    ip_bytes: PyBuffer<i64>,
    rate_kbps: PyBuffer<i64>,
    propagation_ns: u64,
    short_preamble: bool,
) -> PyResult<Bound<'py, PyByteArray>> {
    let delta = Duration::from_nanos(propagation_ns);
    guard(|| per_frame(py, phy, short_preamble, ("ip_bytes", ip_bytes), rate_kbps, |p, b, r| exchange_duration(p, r, b, delta)))
}

/// The radio states in the core's order: a state's code in [`radio_timeline_energy`] is its
/// position here.
#[pyfunction]
fn radio_states() -> PyResult<Vec<&'static str>> {
    guard(|| Ok(RadioState::ALL.map(RadioState::as_str).to_vec()))
}

fn profile_named(name: &str) -> PyResult<DeviceProfile> {
    find_builtin_profile(name).map_err(|e| value_error(e.to_string()))
}

fn break_even(p: &DeviceProfile) -> Option<u64> {
    let t = break_even_time(p);
    (t != Duration::MAX).then_some(t.as_nanos())
}

/// The built-in profile's break-even time (ns): the shortest idle gap worth sleeping through,
/// as the `oracle` policy uses it (`energy::break_even_time`); None if sleep saves nothing.
#[pyfunction]
fn break_even_ns(profile: &str) -> PyResult<Option<u64>> {
    guard(|| Ok(break_even(&profile_named(profile)?)))
}

/// The break-even time (ns) of a radio given by its idle and sleep powers (µW) and its idle →
/// sleep (`down`) and sleep → idle (`up`) transitions (ns, µW); None if sleep saves nothing.
#[pyfunction]
fn break_even_ns_of(idle_uw: u64, sleep_uw: u64, down_ns: u64, down_uw: u64, up_ns: u64, up_uw: u64) -> PyResult<Option<u64>> {
    guard(|| {
        let mut powers = [0u64; RadioState::COUNT];
        powers[RadioState::Idle.index()] = idle_uw;
        powers[RadioState::Sleep.index()] = sleep_uw;
        let p = DeviceProfile::from_powers("custom", "break_even_ns_of", "", powers, Default::default());
        let p = p
            .with_transition(RadioState::Idle, RadioState::Sleep, Duration::from_nanos(down_ns), down_uw, "")
            .and_then(|p| p.with_transition(RadioState::Sleep, RadioState::Idle, Duration::from_nanos(up_ns), up_uw, ""))
            .map_err(value_error)?;
        Ok(break_even(&p))
    })
}

/// Costs a radio state timeline (`time_ns`, `state` codes in [`radio_states`] order; the first
/// row is the start and initial state) up to `end_ns` with a built-in profile (its wake-ups
/// from sleep free with `free_wakeups`, as ideal PSM's meter has them). Returns a dict:
/// energy_j, energy_nj, short_dormant_intervals, by_owner_j (per owner, if `owner` gives one
/// per row; the meter's attribution: a wake-up is paid by the owner that needed the radio
/// awake) and at_j (energy up to each of `at_ns`, NaN after the end).
#[pyfunction]
#[pyo3(signature = (profile, time_ns, state, end_ns, owner = None, at_ns = None, free_wakeups = false))]
#[allow(clippy::too_many_arguments)]
fn radio_timeline_energy<'py>(
    py: Python<'py>,
    profile: &str,
    time_ns: PyBuffer<i64>,
    state: PyBuffer<u8>,
    end_ns: i64,
    owner: Option<PyBuffer<u32>>,
    at_ns: Option<PyBuffer<i64>>,
    free_wakeups: bool,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let mut prof = profile_named(profile)?;
        if free_wakeups {
            prof = prof.without_wakeup_cost();
        }
        let instant = |what: &str, i: usize, t: i64| {
            u64::try_from(t).map(Time).map_err(|_| value_error(format!("{what}[{i}] = {t} ns is before 1970 (negative)")))
        };
        let (times, states) = (values(py, "time_ns", &time_ns)?, values(py, "state", &state)?);
        same_len(times.len(), states.len())?;
        let changes = times
            .iter()
            .zip(&states)
            .enumerate()
            .map(|(i, (&t, &s))| {
                let s = RadioState::ALL.get(s as usize).copied().ok_or_else(|| {
                    value_error(format!("state[{i}] = {s} is not a radio state code (0 to {})", RadioState::COUNT - 1))
                })?;
                Ok((instant("time_ns", i, t)?, s))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let owners = owner.as_ref().map(|o| values(py, "owner", o)).transpose()?;
        let instants = match &at_ns {
            Some(a) => values(py, "at_ns", a)?.iter().enumerate().map(|(i, &t)| instant("at_ns", i, t)).collect::<PyResult<Vec<_>>>()?,
            None => Vec::new(),
        };
        let end = instant("end_ns", 0, end_ns)?;
        let run = py
            .allow_threads(|| cost_timeline(&prof, &changes, owners.as_deref(), &instants, end))
            .map_err(|e| value_error(e.to_string()))?;
        let d = PyDict::new(py);
        d.set_item("energy_j", run.report.total_energy_j)?;
        d.set_item("energy_nj", run.report.total_energy_nj)?;
        d.set_item("short_dormant_intervals", run.report.short_dormant_intervals)?;
        let fj = |x: u128| x as f64 * 1e-15;
        d.set_item("by_owner_j", bytes_of(py, run.by_owner.iter().map(|&x| fj(x)), f64::to_ne_bytes))?;
        d.set_item("at_j", bytes_of(py, run.marks.iter().map(|m| m.energy_fj.map_or(f64::NAN, fj)), f64::to_ne_bytes))?;
        Ok(d)
    })
}

/// Add the physics functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(phy_names, m)?)?;
    m.add_function(wrap_pyfunction!(phy_profile, m)?)?;
    m.add_function(wrap_pyfunction!(wlan_frame_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(control_rate_kbps, m)?)?;
    m.add_function(wrap_pyfunction!(ppdu_durations_ns, m)?)?;
    m.add_function(wrap_pyfunction!(mcs_info, m)?)?;
    m.add_function(wrap_pyfunction!(frame_durations_ns, m)?)?;
    m.add_function(wrap_pyfunction!(data_durations_ns, m)?)?;
    m.add_function(wrap_pyfunction!(ack_durations_ns, m)?)?;
    m.add_function(wrap_pyfunction!(exchange_durations_ns, m)?)?;
    m.add_function(wrap_pyfunction!(radio_states, m)?)?;
    m.add_function(wrap_pyfunction!(break_even_ns, m)?)?;
    m.add_function(wrap_pyfunction!(break_even_ns_of, m)?)?;
    m.add_function(wrap_pyfunction!(radio_timeline_energy, m)?)?;
    Ok(())
}
