//! `wattlab._core` bindings of `wattlab_core::metrics`: plain floats and lists in, a float
//! out, `ValueError` with the core's reason on bad input (and `InternalError`, never a panic).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use crate::guard;
use wattlab_core::metrics::{self, EeeWeights, MetricError};

fn value_error(e: MetricError) -> PyErr {
    PyValueError::new_err(e.0)
}

/// Checked 3E weights (α, b).
fn weights(alpha: f64, b: f64) -> PyResult<EeeWeights> {
    EeeWeights::new(alpha, b).map_err(value_error)
}

/// Jain's fairness index of the allocations `xs`.
#[pyfunction]
fn jain_index(xs: Vec<f64>) -> PyResult<f64> {
    guard(|| metrics::jain_index(&xs).map_err(value_error))
}

/// Seed 002's fairness–utilisation index F(X, C).
#[pyfunction]
fn fairness_utilization_index(xs: Vec<f64>, capacity: f64) -> PyResult<f64> {
    guard(|| metrics::fairness_utilization_index(&xs, capacity).map_err(value_error))
}

/// Sliding-window F(X, C): `bytes[i][k]` = bytes flow i delivered in interval k.
#[pyfunction]
fn sliding_window_index(bytes: Vec<Vec<u64>>, interval_s: f64, window: usize, capacity: f64) -> PyResult<f64> {
    guard(|| {
        let rows: Vec<&[u64]> = bytes.iter().map(|r| r.as_slice()).collect();
        metrics::sliding_window_index(&rows, interval_s, window, capacity).map_err(value_error)
    })
}

/// Sliding-window F(X, C) for each window size (in intervals).
#[pyfunction]
fn sliding_window_indices(bytes: Vec<Vec<u64>>, interval_s: f64, windows: Vec<usize>, capacity: f64) -> PyResult<Vec<f64>> {
    guard(|| {
        let rows: Vec<&[u64]> = bytes.iter().map(|r| r.as_slice()).collect();
        metrics::sliding_window_indices(&rows, interval_s, &windows, capacity).map_err(value_error)
    })
}

/// Population variance of the allocations `xs`.
#[pyfunction]
fn population_variance(xs: Vec<f64>) -> PyResult<f64> {
    guard(|| metrics::population_variance(&xs).map_err(value_error))
}

/// Coefficient of variation sqrt(variance)/mean of `xs`.
#[pyfunction]
fn coefficient_of_variation(xs: Vec<f64>) -> PyResult<f64> {
    guard(|| metrics::coefficient_of_variation(&xs).map_err(value_error))
}

/// Seed 002's f(X, C): variance about the fair share C/n.
#[pyfunction]
fn fair_share_variance(xs: Vec<f64>, capacity: f64) -> PyResult<f64> {
    guard(|| metrics::fair_share_variance(&xs, capacity).map_err(value_error))
}

/// Seed 002's g(X, C) = sqrt(f(X, C))/(C/n).
#[pyfunction]
fn fair_share_cov(xs: Vec<f64>, capacity: f64) -> PyResult<f64> {
    guard(|| metrics::fair_share_cov(&xs, capacity).map_err(value_error))
}

/// Seed 002's AP buffer estimate B_est (Eq. 2.11), in packets.
#[pyfunction]
fn ap_buffer_estimate(cwnd_overflow_bytes: f64, throughput_bps: f64, min_rtt_s: f64, mss_bytes: f64) -> PyResult<f64> {
    guard(|| metrics::ap_buffer_estimate(cwnd_overflow_bytes, throughput_bps, min_rtt_s, mss_bytes).map_err(value_error))
}

/// (total − original) / original.
#[pyfunction]
fn overhead(total_bytes: u64, original_bytes: u64) -> PyResult<f64> {
    guard(|| metrics::overhead(total_bytes, original_bytes).map_err(value_error))
}

/// WWP's effort overhead (sender bytes + receiver overhead − original) / original.
#[pyfunction]
fn effort_overhead(sender_bytes: u64, receiver_overhead_bytes: u64, original_bytes: u64) -> PyResult<f64> {
    guard(|| metrics::effort_overhead(sender_bytes, receiver_overhead_bytes, original_bytes).map_err(value_error))
}

/// Seed 003's 3E of one flow.
#[pyfunction]
#[pyo3(signature = (throughput, goodput, thr_max, alpha=1.0, b=0.45))]
fn eee(throughput: f64, goodput: f64, thr_max: f64, alpha: f64, b: f64) -> PyResult<f64> {
    guard(|| metrics::eee(throughput, goodput, thr_max, weights(alpha, b)?).map_err(value_error))
}

/// Seed 003's system 3E of flows given as (throughput, goodput) pairs.
#[pyfunction]
#[pyo3(signature = (flows, thr_max, alpha=1.0, b=0.45))]
fn eee_system(flows: Vec<(f64, f64)>, thr_max: f64, alpha: f64, b: f64) -> PyResult<f64> {
    guard(|| metrics::eee_system(&flows, thr_max, weights(alpha, b)?).map_err(value_error))
}

/// Validate 3E weights; returns them as a tuple.
#[pyfunction]
fn eee_weights(alpha: f64, b: f64) -> PyResult<(f64, f64)> {
    guard(|| weights(alpha, b).map(|w| (w.alpha, w.b)))
}

/// Add the metric functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(jain_index, m)?)?;
    m.add_function(wrap_pyfunction!(fairness_utilization_index, m)?)?;
    m.add_function(wrap_pyfunction!(sliding_window_index, m)?)?;
    m.add_function(wrap_pyfunction!(sliding_window_indices, m)?)?;
    m.add_function(wrap_pyfunction!(population_variance, m)?)?;
    m.add_function(wrap_pyfunction!(coefficient_of_variation, m)?)?;
    m.add_function(wrap_pyfunction!(fair_share_variance, m)?)?;
    m.add_function(wrap_pyfunction!(fair_share_cov, m)?)?;
    m.add_function(wrap_pyfunction!(ap_buffer_estimate, m)?)?;
    m.add("SEED002_CAPACITY_BPS", metrics::SEED002_CAPACITY_BPS)?;
    m.add_function(wrap_pyfunction!(overhead, m)?)?;
    m.add_function(wrap_pyfunction!(effort_overhead, m)?)?;
    m.add_function(wrap_pyfunction!(eee, m)?)?;
    m.add_function(wrap_pyfunction!(eee_system, m)?)?;
    m.add_function(wrap_pyfunction!(eee_weights, m)?)?;
    Ok(())
}
