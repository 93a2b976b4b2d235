//! Savings at equal work (`wattlab_sim::savings`) for Python: the work comparison of two summaries (as dicts) for `wattlab.work` and
//! `run --compare`. Python computes no saving itself.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use wattlab_sim::savings::{self, FlowWork, RadioWork, RunWork, WorkDiff, SAVINGS_COLUMNS};

/// `d.get(key)`, None if absent or None.
fn get<'py>(d: &Bound<'py, PyAny>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let v = d.call_method1("get", (key,))?;
    Ok((!v.is_none()).then_some(v))
}

/// The flows of a summary dict (`summary["flows"]`): name, bytes, completed, datagrams, ends.
fn flows_of(summary: &Bound<'_, PyAny>) -> PyResult<Vec<FlowWork>> {
    let mut out = Vec::new();
    for f in summary.get_item("flows")?.try_iter()? {
        let f = f?;
        let text = |k: &str| -> PyResult<String> { Ok(get(&f, k)?.map(|v| v.extract()).transpose()?.unwrap_or_default()) };
        out.push(FlowWork {
            name: f.get_item("name")?.extract()?,
            bytes_delivered: f.get_item("bytes_delivered")?.extract()?,
            completed: f.get_item("completed")?.is_truthy()?,
            datagrams_received: get(&f, "datagrams_received")?.map(|v| v.extract()).transpose()?,
            sender: text("sender")?,
            receiver: text("receiver")?,
        });
    }
    Ok(out)
}

/// What [`RunWork`] needs of a summary dict (flows, radios, completion, tunnels).
fn run_of(summary: &Bound<'_, PyAny>) -> PyResult<RunWork> {
    let flows = flows_of(summary)?;
    // Each flow's end from the run's start: its start plus its completion time.
    let mut completion_ends_s = Vec::new();
    for f in summary.get_item("flows")?.try_iter()? {
        let f = f?;
        let took: Option<f64> = get(&f, "completion_time_s")?.map(|v| v.extract()).transpose()?;
        let start: f64 = get(&f, "start_s")?.map(|v| v.extract()).transpose()?.unwrap_or(0.0);
        completion_ends_s.push(took.map(|t| start + t));
    }
    let mut radios = Vec::new();
    if let Some(rs) = get(summary, "radios")? {
        for r in rs.try_iter()? {
            let r = r?;
            radios.push(RadioWork {
                node: r.get_item("node")?.extract()?,
                profile: get(&r, "profile")?.map(|v| v.extract()).transpose()?.unwrap_or_default(),
                policy: r.get_item("policy")?.extract()?,
                is_mode: get(&r, "basis")?.map(|v| v.extract::<String>()).transpose()?.as_deref() == Some("mode"),
                energy_j: r.get_item("energy_j")?.extract()?,
            });
        }
    }
    Ok(RunWork {
        flows,
        radios,
        completed: get(summary, "completed")?.map(|v| v.is_truthy()).transpose()?.unwrap_or(false),
        end_time_s: get(summary, "end_time_s")?.map(|v| v.extract()).transpose()?.unwrap_or(0.0),
        completion_ends_s,
        has_tunnels: get(summary, "tunnels")?.map(|v| v.is_truthy()).transpose()?.unwrap_or(false),
    })
}

fn diff_dict<'py>(py: Python<'py>, d: &WorkDiff) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("same_work", d.same_work)?;
    out.set_item("lost_bytes", d.lost_bytes)?;
    out.set_item("lost_datagrams", d.lost_datagrams)?;
    out.set_item("flows_not_completed", &d.flows_not_completed)?;
    Ok(out)
}

/// How the work of summary `run` differs from that of summary `base` (dicts as in
/// summary.json): `same_work`, `lost_bytes`, `lost_datagrams` (None without datagram flows)
/// and `flows_not_completed` (see docs/scenario.md, "Savings need the same work").
#[pyfunction]
fn compare_work<'py>(py: Python<'py>, run: &Bound<'py, PyAny>, base: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    crate::guard(|| diff_dict(py, &savings::compare_work(&flows_of(run)?, &flows_of(base)?)))
}

/// What a work difference (a dict with `lost_bytes`, `lost_datagrams`, `flows_not_completed`,
/// such as a savings row) means, in words: "lost 2.79 MB; lost 2,723 datagrams; not completed: s".
#[pyfunction]
fn describe_loss(diff: &Bound<'_, PyAny>) -> PyResult<String> {
    crate::guard(|| {
        let lost_bytes: i64 = diff.get_item("lost_bytes")?.extract()?;
        let dgrams: Option<i64> = get(diff, "lost_datagrams")?.map(|v| v.extract()).transpose()?;
        let not_done: String = diff.get_item("flows_not_completed")?.extract()?;
        Ok(savings::describe_loss(lost_bytes, dgrams, &not_done))
    })
}

/// Application bytes delivered by the flows of summary dict `summary` with an end at `node`.
#[pyfunction]
fn delivered_bytes(summary: &Bound<'_, PyAny>, node: &str) -> PyResult<u64> {
    crate::guard(|| Ok(savings::delivered_bytes(&flows_of(summary)?, node)))
}

/// Energy per MB (10^6 bytes) delivered; None when nothing was.
#[pyfunction]
fn joules_per_mb(energy_j: f64, delivered: u64) -> Option<f64> {
    savings::joules_per_mb(energy_j, delivered)
}

/// When the run of summary dict `summary` finished its last finite flow (s; its end if one
/// did not complete).
#[pyfunction]
fn completion_s(summary: &Bound<'_, PyAny>) -> PyResult<f64> {
    crate::guard(|| Ok(run_of(summary)?.completion_s()))
}

/// One value of `run --compare` against the first: per radio node (its power mode's energy,
/// or always-on's), the energy, the energy per delivered MB and the saving against the first
/// value's (None unless the same work was done); the completion time and slowdown; and the
/// work comparison. A dict: `diff`, `nodes` (list of (node, energy_j, energy_j_per_mb,
/// saving)), `completion_s`, `slowdown`.
#[pyfunction]
fn compare_runs<'py>(py: Python<'py>, run: &Bound<'py, PyAny>, first: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    crate::guard(|| {
        let c = savings::compare_runs(&run_of(run)?, &run_of(first)?);
        let d = PyDict::new(py);
        d.set_item("diff", diff_dict(py, &c.diff)?)?;
        d.set_item("nodes", c.nodes.iter().map(|n| (n.node.clone(), n.energy_j, n.energy_j_per_mb, n.saving)).collect::<Vec<_>>())?;
        d.set_item("completion_s", c.completion_s)?;
        d.set_item("slowdown", c.slowdown)?;
        Ok(d)
    })
}

/// Register the functions and `SAVINGS_COLUMNS`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compare_work, m)?)?;
    m.add_function(wrap_pyfunction!(describe_loss, m)?)?;
    m.add_function(wrap_pyfunction!(delivered_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(joules_per_mb, m)?)?;
    m.add_function(wrap_pyfunction!(completion_s, m)?)?;
    m.add_function(wrap_pyfunction!(compare_runs, m)?)?;
    m.add("SAVINGS_COLUMNS", SAVINGS_COLUMNS.to_vec())?;
    m.add("MB", savings::MB)?;
    m.add("TIME_BOUNDED_TOLERANCE", savings::TIME_BOUNDED_TOLERANCE)?;
    Ok(())
}
