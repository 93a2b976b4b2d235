//! Seed 001's energy units for Python (`wattlab._core.psna_units()` and friends): the paper's
//! "seconds of battery lifetime", its power-saving index and Kbps, exactly as
//! `wattlab_core::psna::units` computes them (docs/psna.md, "Energy units").

use pyo3::prelude::*;
use pyo3::types::PyDict;
use wattlab_core::psna::units;

use crate::guard::guard;

/// The constants: battery_j (157 464 J), reference_lifetime_s (11 520 s), base_power_w
/// (13.66875 W, one battery-second in joules).
#[pyfunction]
fn psna_units(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    guard(|| {
        let d = PyDict::new(py);
        d.set_item("battery_j", units::BATTERY_J)?;
        d.set_item("reference_lifetime_s", units::REFERENCE_LIFETIME_S)?;
        d.set_item("base_power_w", units::BASE_POWER_W)?;
        Ok(d)
    })
}

/// Seconds of battery lifetime a card energy of `card_j` joules costs.
#[pyfunction]
fn psna_battery_seconds(card_j: f64) -> PyResult<f64> {
    guard(|| Ok(units::battery_seconds(card_j)))
}

/// The power-saving index: KB (1000 B) delivered per battery-second.
#[pyfunction]
fn psna_index(bytes: u64, battery_s: f64) -> PyResult<f64> {
    guard(|| Ok(units::power_saving_index(bytes, battery_s)))
}

/// Throughput in the paper's Kbps (1024 bit/s).
#[pyfunction]
fn psna_paper_kbps(bytes: u64, secs: f64) -> PyResult<f64> {
    guard(|| Ok(units::paper_kbps(bytes, secs)))
}

/// Add the functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(psna_units, m)?)?;
    m.add_function(wrap_pyfunction!(psna_battery_seconds, m)?)?;
    m.add_function(wrap_pyfunction!(psna_index, m)?)?;
    m.add_function(wrap_pyfunction!(psna_paper_kbps, m)?)?;
    Ok(())
}
