//! `wattlab._core` bindings of the core's vocabularies: what the power modes and accounting
//! policies are called (the name registry, `wattlab_core::power`) and the one parser of mode
//! names; the radio's states, the bases of a radio row and the flow kinds. Python lists none of
//! them itself.

use crate::guard;
use pyo3::create_exception;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use wattlab_core::energy::RadioState;
use wattlab_core::power::{Basis, PolicyName, PowerMode};

create_exception!(
    _core,
    UnknownNameError,
    crate::WattlabError,
    "A power-mode or accounting-policy name the registry does not know; the message lists the valid ones."
);

/// A mode as a dict: name (canonical for a parsed mode, the pattern for a kind), family,
/// pattern, regex, changes_traffic, basis, doc, parameters (a dict of the values in the name,
/// e.g. {"percent": 50}, for a parsed mode; a list of {name, letter, min, max, doc} for a kind).
fn describe<'py>(py: Python<'py>, m: PowerMode, with_values: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", if with_values { m.to_string() } else { m.pattern().to_string() })?;
    d.set_item("family", m.family())?;
    d.set_item("pattern", m.pattern())?;
    d.set_item("regex", m.regex())?;
    d.set_item("changes_traffic", m.changes_traffic())?;
    d.set_item("basis", m.basis().as_str())?;
    d.set_item("doc", m.doc())?;
    if with_values {
        let values = PyDict::new(py);
        for (p, v) in m.params().iter().zip(m.param_values()) {
            values.set_item(p.name, v)?;
        }
        d.set_item("parameters", values)?;
    } else {
        let params = PyList::empty(py);
        for p in m.params() {
            let pd = PyDict::new(py);
            pd.set_item("name", p.name)?;
            pd.set_item("letter", p.letter.to_string())?;
            pd.set_item("min", p.min)?;
            pd.set_item("max", p.max)?;
            pd.set_item("doc", p.doc)?;
            params.append(pd)?;
        }
        d.set_item("parameters", params)?;
    }
    Ok(d)
}

/// Every kind of station power mode, in help order: dicts of name, family, pattern (`bsd-P`),
/// regex (the accepted names exactly), changes_traffic, basis, doc and parameters.
#[pyfunction]
fn power_modes(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    guard(|| {
        let out = PyList::empty(py);
        for m in PowerMode::KINDS {
            out.append(describe(py, m, false)?)?;
        }
        Ok(out)
    })
}

/// Parse a power-mode name: a dict of its canonical name, family, parameters' values
/// (`{"percent": 50}` for `bsd-50`), changes_traffic, basis...; raises `UnknownNameError`
/// listing the valid names.
#[pyfunction]
fn parse_power_mode<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let m: PowerMode = name.parse().map_err(|e: wattlab_core::power::ParseNameError| UnknownNameError::new_err(e.to_string()))?;
        describe(py, m, true)
    })
}

/// The accounting policies' names, in help order (they never change the traffic).
#[pyfunction]
fn accounting_policies() -> PyResult<Vec<&'static str>> {
    guard(|| Ok(PolicyName::ALL.map(PolicyName::as_str).to_vec()))
}

/// The radio's states, least power first (`off`, `sleep`, `idle`, `idle_high`, `rx`, `tx`):
/// the names the radio tables' columns and the timelines use.
#[pyfunction]
fn radio_states() -> PyResult<Vec<&'static str>> {
    guard(|| Ok(RadioState::ALL.map(RadioState::as_str).to_vec()))
}

/// The states in which the radio is awake (can send or receive), least power first.
#[pyfunction]
fn awake_states() -> PyResult<Vec<&'static str>> {
    guard(|| Ok(RadioState::ALL.into_iter().filter(|s| s.is_awake()).map(RadioState::as_str).collect()))
}

/// What a radio row can be (its `basis`): `accounting` (a policy costing the run's traffic)
/// or `mode` (the power mode that drove the radio).
#[pyfunction]
fn radio_bases() -> PyResult<Vec<&'static str>> {
    guard(|| Ok(Basis::ALL.map(Basis::as_str).to_vec()))
}

/// The kinds a scenario's `[[flow]]` can be, in the registry's order.
#[pyfunction]
fn flow_kinds() -> PyResult<Vec<&'static str>> {
    guard(|| Ok(wattlab_sim::apps::KINDS.iter().map(|k| k.name).collect()))
}

/// Add the registry's functions and its error to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(power_modes, m)?)?;
    m.add_function(wrap_pyfunction!(parse_power_mode, m)?)?;
    m.add_function(wrap_pyfunction!(accounting_policies, m)?)?;
    m.add_function(wrap_pyfunction!(radio_states, m)?)?;
    m.add_function(wrap_pyfunction!(awake_states, m)?)?;
    m.add_function(wrap_pyfunction!(radio_bases, m)?)?;
    m.add_function(wrap_pyfunction!(flow_kinds, m)?)?;
    m.add("UnknownNameError", m.py().get_type::<UnknownNameError>())?;
    Ok(())
}
