//! `wattlab._core`: the Python face of the Rust core. Thin by design: it converts arguments,
//! calls `wattlab-sim`/`wattlab-core`, and hands results back as plain Python objects; the
//! Python package builds DataFrames, tables and files from them.

mod aggregation;
mod guard;
mod metrics;
mod physics;
mod power;
mod psna;
mod savings;
mod table;
mod trace;

use pyo3::create_exception;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use wattlab_core::energy::{builtin_profiles, RadioState};
use wattlab_sim::output::TimeSeries;
use wattlab_sim::{BuildOptions, Progress, Simulation};

pub(crate) use table::Table;

pub(crate) use guard::{guard, InternalError, WattlabError};

create_exception!(_core, ScenarioError, WattlabError, "A scenario file is invalid: see .origin, .line, .column, .key, .message.");
create_exception!(_core, SimulationError, WattlabError, "A run failed while executing (e.g. a capture file could not be written).");

/// Events per slice of a run between two looks at the wall clock (~2 ms of simulation).
const SLICE_EVENTS: u64 = 1 << 14;
/// How often a running simulation checks for Ctrl-C (and other signals) and reports progress.
const CHECK_EVERY: Duration = Duration::from_millis(100);
/// Progress is reported only for runs that take longer than this.
const PROGRESS_AFTER: Duration = Duration::from_millis(500);

/// Turn a located scenario error into a Python `ScenarioError` with attributes.
fn scenario_error(py: Python<'_>, e: wattlab_sim::scenario::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let value = err.value(py);
    let _ = value.setattr("origin", e.origin.clone());
    let _ = value.setattr("line", e.line);
    let _ = value.setattr("column", e.column);
    let _ = value.setattr("key", e.key.clone());
    let _ = value.setattr("message", e.message.clone());
    err
}

/// Runs `sim` with the GIL released, taking it back every [`CHECK_EVERY`] to check for signals
/// (Ctrl-C) and to call `progress(sim_time_s, end_s, events)` once the run has taken
/// [`PROGRESS_AFTER`]. A signal handler's exception (KeyboardInterrupt) or the callback's own
/// stops the run: its results so far come back marked interrupted, with the exception.
fn run_checked(py: Python<'_>, sim: Simulation, progress: Option<Py<PyAny>>) -> PyResult<(wattlab_sim::RunOutput, f64, Option<PyErr>)> {
    let t0 = Instant::now();
    let mut next_check = t0 + CHECK_EVERY;
    let mut stopped_by: Option<PyErr> = None;
    let out = py.allow_threads(|| {
        sim.run_controlled(SLICE_EVENTS, &mut |p: &Progress| {
            let now = Instant::now();
            if now < next_check {
                return true;
            }
            next_check = now + CHECK_EVERY;
            Python::with_gil(|py| {
                let result = py.check_signals().and_then(|()| match &progress {
                    Some(cb) if now - t0 >= PROGRESS_AFTER => {
                        let args = (p.now.as_nanos() as f64 / 1e9, p.horizon.as_nanos() as f64 / 1e9, p.events);
                        cb.call1(py, args).map(|_| ())
                    }
                    _ => Ok(()),
                });
                result.map_err(|e| stopped_by = Some(e)).is_ok()
            })
        })
    });
    let wall = t0.elapsed().as_secs_f64();
    let out = out.map_err(SimulationError::new_err)?;
    Ok((out, wall, stopped_by))
}

/// How often a binding waiting for a scenario's set-up checks for Ctrl-C.
const SETUP_CHECK_EVERY: Duration = Duration::from_millis(50);
/// Stack of the set-up thread: the main thread's usual 8 MiB, which the TOML parser's
/// recursion limit was set against (a spawned thread would get 2 MiB).
const SETUP_STACK_BYTES: usize = 8 << 20;

/// Build a simulation from scenario text, or raise `ScenarioError` (see [`off_thread`]).
#[allow(clippy::too_many_arguments)]
fn build(
    py: Python<'_>,
    text: &str,
    origin: &str,
    seed: Option<u64>,
    overrides: &[String],
    out_dir: Option<String>,
    pcaps: Vec<String>,
    timeseries: bool,
) -> PyResult<Simulation> {
    let cancel = Arc::new(AtomicBool::new(false));
    let opts = BuildOptions { out_dir: out_dir.map(PathBuf::from), pcaps, timeseries, cancel: Some(cancel.clone()) };
    let (text, origin, overrides) = (text.to_string(), origin.to_string(), overrides.to_vec());
    off_thread(py, cancel, move || Simulation::from_toml(&text, &origin, seed, &overrides, &opts))
}

/// Run a scenario's set-up `job` (parse, build) on its own thread with the GIL released while
/// this one checks for signals every [`SETUP_CHECK_EVERY`], as a run does: Ctrl-C raises
/// KeyboardInterrupt at once (`cancel` tells the set-up to stop and its result is dropped),
/// whatever the scenario's size. A scenario error is raised as `ScenarioError`.
fn off_thread<T: Send + 'static>(
    py: Python<'_>,
    cancel: Arc<AtomicBool>,
    job: impl FnOnce() -> Result<T, wattlab_sim::scenario::ScenarioError> + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("wattlab-setup".into())
        .stack_size(SETUP_STACK_BYTES)
        .spawn(move || {
            let _ = tx.send(job());
        })
        .map_err(|e| SimulationError::new_err(format!("cannot start the scenario's set-up: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver goes into the GIL-free closure and comes back out (it is Send, not Sync).
        let (back, got) = py.allow_threads(move || {
            let got = rx.recv_timeout(SETUP_CHECK_EVERY);
            (rx, got)
        });
        rx = back;
        match got {
            Ok(built) => return built.map_err(|e| scenario_error(py, e)),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    cancel.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
            // The set-up panicked: re-raise it here, where `guard` makes it an InternalError.
            Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
                Err(payload) => std::panic::resume_unwind(payload),
                Ok(()) => return Err(InternalError::new_err("the scenario's set-up ended without a result")),
            },
        }
    }
}

/// Check a scenario without running it; raises `ScenarioError` if it is invalid. Returns the
/// warnings a run of it would give (a huge estimated cost), as a list of strings.
#[pyfunction]
#[pyo3(signature = (text, origin, overrides=Vec::new()))]
fn validate(py: Python<'_>, text: &str, origin: &str, overrides: Vec<String>) -> PyResult<Vec<String>> {
    guard(|| build(py, text, origin, None, &overrides, None, Vec::new(), false).map(|sim| sim.estimate().warnings()))
}

/// The cost estimate of a run of the scenario, without running it (see the simulator's
/// `estimate` module): a dict of `events` (expected), `rows` (time-series rows if recorded)
/// and `seconds` (simulated time assumed); raises `ScenarioError` if it is invalid.
#[pyfunction]
#[pyo3(signature = (text, origin, overrides=Vec::new()))]
fn estimate<'py>(py: Python<'py>, text: &str, origin: &str, overrides: Vec<String>) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let e = build(py, text, origin, None, &overrides, None, Vec::new(), false)?.estimate();
        let d = PyDict::new(py);
        d.set_item("events", e.events)?;
        d.set_item("rows", e.rows)?;
        d.set_item("seconds", e.seconds)?;
        Ok(d)
    })
}

/// Read a scenario file (a regular file of at most 16 MiB of UTF-8); raises `ScenarioError`
/// naming the file and what is wrong (missing, a directory, a device, too large, not UTF-8).
#[pyfunction]
fn read_scenario(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    guard(|| wattlab_sim::scenario::read_file(&path).map_err(|e| scenario_error(py, e)))
}

/// Run a scenario: `text` read from `origin` (a file's path if `from_file`, else the name
/// given to the text) with `overrides`, parsed once; with `baseline` (False: never, None: when
/// a station uses a power mode, True: required, a `ScenarioError` if none does) also its
/// baseline, the same scenario and seed with power saving off, and the savings at equal work.
///
/// Returns a dict: `run` (the run's results, see below), `effective_scenario` (the TOML that
/// ran), `baseline` (the baseline's results or None), `baseline_scenario` (its TOML or None),
/// `savings` (an Arrow [`Table`], columns `SAVINGS_COLUMNS`, no rows without a baseline) and
/// `lost_work` (what the run did not deliver against the baseline, in words, or None). A run's
/// results: `summary_json` (str), `tables` (each result table by name, an Arrow [`Table`]: see
/// [`run_tables`]), `pcap_files`, `wall_time_s`, `warnings` (the cost estimate's, the run's
/// also passed to `on_warning` before it starts) and `interrupt` (the exception that stopped
/// the run early, e.g. KeyboardInterrupt, or None; the baseline does not run after an
/// interrupted run).
#[pyfunction]
#[pyo3(signature = (text, origin, from_file=false, seed=None, overrides=Vec::new(), baseline=Some(false), out_dir=None, pcaps=Vec::new(), timeseries=false, progress=None, on_warning=None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    text: String,
    origin: String,
    from_file: bool,
    seed: Option<u64>,
    overrides: Vec<String>,
    baseline: Option<bool>,
    out_dir: Option<String>,
    pcaps: Vec<String>,
    timeseries: bool,
    progress: Option<Py<PyAny>>,
    on_warning: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    use wattlab_sim::savings::RunWork;
    use wattlab_sim::scenario::{Origin, ScenarioSource};
    use wattlab_sim::{BaselineChoice, RunPlan};
    guard(|| {
        let origin = if from_file { Origin::Path(PathBuf::from(origin)) } else { Origin::Name(origin) };
        let source = ScenarioSource { text, origin, overrides };
        let choice = match baseline {
            Some(false) => BaselineChoice::Never,
            None => BaselineChoice::IfPowerMode,
            Some(true) => BaselineChoice::Required,
        };
        let cancel = Arc::new(AtomicBool::new(false));
        let opts = BuildOptions { out_dir: out_dir.map(PathBuf::from), pcaps, timeseries, cancel: Some(cancel.clone()) };
        // Parsed once, on the set-up thread: the run, its baseline and the savings all use it.
        let (plan, sim) = off_thread(py, cancel.clone(), move || {
            let plan = Arc::new(RunPlan::new(source, seed, choice)?);
            let sim = plan.build_run(&opts)?;
            Ok((plan, sim))
        })?;
        let d = PyDict::new(py);
        d.set_item("effective_scenario", plan.effective_text())?;
        d.set_item("baseline_scenario", plan.baseline_text())?;
        d.set_item("baseline", py.None())?;
        d.set_item("savings", Table::new(Vec::<wattlab_sim::savings::SavingsRow>::new()))?;
        d.set_item("lost_work", py.None())?;
        let run = run_one(py, sim, progress.as_ref().map(|p| p.clone_ref(py)), on_warning)?;
        let stopped = run.interrupt.is_some();
        let run_work = RunWork::from(&run.out.summary);
        d.set_item("run", output_dict(py, run)?)?;
        if stopped {
            return Ok(d);
        }
        let base_opts = BuildOptions { timeseries, cancel: Some(cancel.clone()), ..Default::default() };
        let base_sim = off_thread(py, cancel, move || plan.build_baseline(&base_opts).transpose())?;
        if let Some(sim) = base_sim {
            let base = run_one(py, sim, progress, None)?;
            let base_work = RunWork::from(&base.out.summary);
            d.set_item("baseline", output_dict(py, base)?)?;
            d.set_item("savings", Table::new(wattlab_sim::savings::savings(&run_work, &base_work)))?;
            d.set_item("lost_work", wattlab_sim::savings::lost_work(&run_work, &base_work))?;
        }
        Ok(d)
    })
}

/// The results of one run, with its cost warnings and what stopped it early, if anything.
struct RunResults {
    out: wattlab_sim::RunOutput,
    warnings: Vec<String>,
    wall: f64,
    interrupt: Option<PyErr>,
}

/// Run `sim`: its cost estimate's warnings go to `on_warning` first; then [`run_checked`].
fn run_one(py: Python<'_>, sim: Simulation, progress: Option<Py<PyAny>>, on_warning: Option<Py<PyAny>>) -> PyResult<RunResults> {
    let warnings = sim.estimate().warnings();
    if let Some(w) = &on_warning {
        for msg in &warnings {
            w.call1(py, (msg.as_str(),))?;
        }
    }
    let (out, wall, interrupt) = run_checked(py, sim, progress)?;
    Ok(RunResults { out, warnings, wall, interrupt })
}

/// One run's results as the dict [`run`] documents.
fn output_dict<'py>(py: Python<'py>, r: RunResults) -> PyResult<Bound<'py, PyDict>> {
    let RunResults { out, warnings, wall, interrupt } = r;
    let d = PyDict::new(py);
    d.set_item("warnings", warnings)?;
    d.set_item("interrupt", interrupt.map(|e| e.into_value(py)))?;
    d.set_item("summary_json", out.summary.to_json())?;
    d.set_item("wall_time_s", wall)?;
    d.set_item("pcap_files", &out.pcap_files)?;
    d.set_item("tables", run_tables(py, out)?)?;
    Ok(d)
}

/// A run's result tables, by name, each a [`Table`] (Arrow, converted on first use): the
/// summary's `flows`, `radios` (flat: time and energy per state), `links`, `agents`,
/// `tunnels`, `wlans`, `wlan_stations`; `pages`, `objects`, `agent_events`, `sockets`,
/// `flow_energy`; with time series, `timeseries_flows`, `timeseries_queues` and
/// `timeseries_radio`. Index columns show the names they index (`flow`, `link`).
fn run_tables(py: Python<'_>, out: wattlab_sim::RunOutput) -> PyResult<Bound<'_, PyDict>> {
    let wattlab_sim::RunOutput { summary, timeseries, channel_names, flow_names, pages, objects, agent_events, sockets, flow_energy, .. } = out;
    let flow = || vec![("flow", Arc::new(flow_names.clone()))];
    let t = PyDict::new(py);
    let (mut wlans, mut stations) = (Vec::new(), Vec::new());
    for w in &summary.wlans {
        let (row, sta) = w.rows();
        wlans.push(row);
        stations.extend(sta);
    }
    t.set_item("flows", Table::new(summary.flows))?;
    t.set_item("radios", Table::new(wattlab_sim::output::RadioTable(summary.radios)))?;
    t.set_item("links", Table::new(summary.links))?;
    t.set_item("agents", Table::new(summary.agents))?;
    t.set_item("tunnels", Table::new(summary.tunnels))?;
    t.set_item("wlans", Table::new(wlans))?;
    t.set_item("wlan_stations", Table::new(stations))?;
    t.set_item("pages", Table::with_names(pages, flow()))?;
    t.set_item("objects", Table::with_names(objects, flow()))?;
    t.set_item("agent_events", Table::new(agent_events))?;
    t.set_item("sockets", Table::with_names(sockets, flow()))?;
    t.set_item("flow_energy", Table::new(flow_energy))?;
    if let Some(TimeSeries { flows, queues, radio }) = timeseries {
        t.set_item("timeseries_flows", Table::with_names(flows, flow()))?;
        t.set_item("timeseries_queues", Table::with_names(queues, vec![("link", Arc::new(channel_names))]))?;
        t.set_item("timeseries_radio", Table::new(radio))?;
    }
    Ok(t)
}

/// The scenario that runs, as TOML: `text` itself without overrides, else its table with the
/// overrides applied (comments lost); raises `ScenarioError` for a bad override or scenario.
/// One parse, as a run's ([`ScenarioSource`](wattlab_sim::scenario::ScenarioSource)).
#[pyfunction]
#[pyo3(signature = (text, origin, overrides=Vec::new()))]
fn effective_scenario(py: Python<'_>, text: &str, origin: &str, overrides: Vec<String>) -> PyResult<String> {
    use wattlab_sim::scenario::ScenarioSource;
    guard(|| {
        let parsed = ScenarioSource::from_text(text, origin).with_overrides(overrides).parse().map_err(|e| scenario_error(py, e))?;
        Ok(parsed.effective_text().to_string())
    })
}

/// How many times the TOML parser has read scenario text in this process (for the tests that
/// check a run parses its scenario once).
#[pyfunction]
fn _document_parses() -> u64 {
    wattlab_sim::scenario::document_parses()
}

/// A scenario quantity's kind and value in SI units, parsed as the scenario loader parses it:
/// `"5ms"` → `("duration", 0.005)` (seconds), `"10Mbps"` → `("rate", 1e7)` (bit/s), `"1MB"` →
/// `("size", 1e6)` (bytes); None for text that is none of these (a bare number included: its
/// unit depends on the key). What the study tables' numeric companion columns hold.
#[pyfunction]
fn quantity(text: &str) -> PyResult<Option<(&'static str, f64)>> {
    use wattlab_sim::scenario::units::{Dur, Rate, Size};
    guard(|| {
        if text.trim().parse::<f64>().is_ok() {
            return Ok(None);
        }
        Ok(if let Ok(d) = Dur::parse(text) {
            Some(("duration", d.get().0 as f64 / 1e9))
        } else if let Ok(r) = Rate::parse(text) {
            Some(("rate", r.bps() as f64))
        } else if let Ok(s) = Size::parse(text) {
            Some(("size", s.bytes() as f64))
        } else {
            None
        })
    })
}

/// Run a scenario `repeat` times and report wall time and events per second of each run
/// (through the same Ctrl-C checks as `run`: what they cost is in the numbers).
#[pyfunction]
#[pyo3(name = "bench", signature = (text, origin, repeat=3, seed=None))]
fn bench_scenario<'py>(py: Python<'py>, text: &str, origin: &str, repeat: usize, seed: Option<u64>) -> PyResult<Bound<'py, PyList>> {
    guard(|| bench_inner(py, text, origin, repeat, seed))
}

fn bench_inner<'py>(py: Python<'py>, text: &str, origin: &str, repeat: usize, seed: Option<u64>) -> PyResult<Bound<'py, PyList>> {
    let runs = PyList::empty(py);
    for _ in 0..repeat.max(1) {
        let sim = build(py, text, origin, seed, &[], None, Vec::new(), false)?;
        let (out, wall, stopped_by) = run_checked(py, sim, None)?;
        if let Some(e) = stopped_by {
            return Err(e);
        }
        let d = PyDict::new(py);
        d.set_item("wall_time_s", wall)?;
        d.set_item("events", out.summary.events)?;
        d.set_item("events_per_s", out.summary.events as f64 / wall.max(1e-12))?;
        d.set_item("summary_json", out.summary.to_json())?;
        runs.append(d)?;
    }
    Ok(runs)
}

/// Device profiles as a list of dicts (name, description, source, powers in mW per state,
/// transitions, per-(width, NSS) PPDU powers, derived-value notes): the built-in ones, or
/// those `specs` name (built-in names or profile TOML files, relative paths from the current
/// directory). A bad file raises `ValueError` naming the file, line and key.
#[pyfunction]
#[pyo3(signature = (specs=None))]
fn profiles<'py>(py: Python<'py>, specs: Option<Vec<String>>) -> PyResult<Bound<'py, PyList>> {
    guard(|| profiles_inner(py, specs))
}

fn profiles_inner<'py>(py: Python<'py>, specs: Option<Vec<String>>) -> PyResult<Bound<'py, PyList>> {
    let list = match specs {
        None => builtin_profiles(),
        Some(specs) => specs
            .iter()
            .map(|s| wattlab_core::energy::resolve_profile(s, None))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?,
    };
    let out = PyList::empty(py);
    for p in list {
        let d = PyDict::new(py);
        d.set_item("name", p.name())?;
        d.set_item("description", p.description())?;
        d.set_item("source", p.source())?;
        d.set_item("phy", p.phy())?;
        let powers = PyDict::new(py);
        for s in [RadioState::Tx, RadioState::Rx, RadioState::IdleHigh, RadioState::Idle, RadioState::Sleep, RadioState::Off] {
            powers.set_item(s.as_str(), p.power_mw(s))?;
        }
        d.set_item("power_mw", powers)?;
        let transitions = PyList::empty(py);
        for t in p.transitions() {
            let td = PyDict::new(py);
            td.set_item("from", t.from.as_str())?;
            td.set_item("to", t.to.as_str())?;
            td.set_item("duration_us", t.duration.as_nanos() as f64 / 1e3)?;
            td.set_item("power_mw", t.power_uw as f64 / 1e3)?;
            td.set_item("source", &t.source)?;
            transitions.append(td)?;
        }
        d.set_item("transitions", transitions)?;
        let ppdu = PyList::empty(py);
        for e in p.ppdu_powers() {
            let pd = PyDict::new(py);
            pd.set_item("width_mhz", e.width_mhz)?;
            pd.set_item("nss", e.nss)?;
            pd.set_item("tx_mw", e.tx_uw.map(|w| w as f64 / 1e3))?;
            pd.set_item("rx_mw", e.rx_uw.map(|w| w as f64 / 1e3))?;
            pd.set_item("source", &e.source)?;
            ppdu.append(pd)?;
        }
        d.set_item("ppdu_power", ppdu)?;
        d.set_item("derived", p.derived().clone())?;
        out.append(d)?;
    }
    Ok(out)
}

pub(crate) fn find_phy(name: &str) -> PyResult<wattlab_core::wlan::PhyProfile> {
    wattlab_core::wlan::find_phy(name).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "unknown PHY `{name}` (known: {})",
            wattlab_core::wlan::phy_names().join(", ")
        ))
    })
}

/// Bianchi's (2000) saturation throughput of `n` stations sending `ip_bytes` packets with
/// basic access, with the timings of wattlab's MAC (dict: tau, p, throughput_bps, ...).
#[pyfunction]
#[pyo3(signature = (phy, rate_kbps, ip_bytes, n, propagation_ns=0))]
fn bianchi<'py>(py: Python<'py>, phy: &str, rate_kbps: u32, ip_bytes: u32, n: u32, propagation_ns: u64) -> PyResult<Bound<'py, PyDict>> {
    guard(|| bianchi_inner(py, phy, rate_kbps, ip_bytes, n, propagation_ns))
}

fn bianchi_inner<'py>(py: Python<'py>, phy: &str, rate_kbps: u32, ip_bytes: u32, n: u32, propagation_ns: u64) -> PyResult<Bound<'py, PyDict>> {
    let phy = find_phy(phy)?;
    phy.check_rate(rate_kbps).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.0))?;
    if n == 0 {
        return Err(pyo3::exceptions::PyValueError::new_err("n must be at least 1 station"));
    }
    let r = wattlab_core::wlan::bianchi::basic_access(&phy, rate_kbps, ip_bytes, n, wattlab_core::Duration(propagation_ns));
    let d = PyDict::new(py);
    d.set_item("tau", r.tau)?;
    d.set_item("p", r.p)?;
    d.set_item("throughput_bps", r.throughput_bps)?;
    d.set_item("normalized", r.normalized)?;
    d.set_item("ts_us", r.ts.as_nanos() as f64 / 1e3)?;
    d.set_item("tc_us", r.tc.as_nanos() as f64 / 1e3)?;
    Ok(d)
}

/// The collision-free maximum of one TCP flow over one DCF hop (dict: mac_only_bps, tcp_bps).
#[pyfunction]
#[pyo3(signature = (phy, rate_kbps, payload_bytes, data_ip_bytes, ack_ip_bytes, segments_per_ack=1))]
fn tcp_capacity<'py>(
    py: Python<'py>,
    phy: &str,
    rate_kbps: u32,
    payload_bytes: u32,
    data_ip_bytes: u32,
    ack_ip_bytes: u32,
    segments_per_ack: u32,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| tcp_capacity_inner(py, phy, rate_kbps, payload_bytes, data_ip_bytes, ack_ip_bytes, segments_per_ack))
}

fn tcp_capacity_inner<'py>(
    py: Python<'py>,
    phy: &str,
    rate_kbps: u32,
    payload_bytes: u32,
    data_ip_bytes: u32,
    ack_ip_bytes: u32,
    segments_per_ack: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let phy = find_phy(phy)?;
    phy.check_rate(rate_kbps).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.0))?;
    if segments_per_ack == 0 {
        return Err(pyo3::exceptions::PyValueError::new_err("segments_per_ack must be at least 1"));
    }
    let c = wattlab_core::wlan::capacity::tcp_max_throughput(
        &phy,
        rate_kbps,
        payload_bytes,
        data_ip_bytes,
        ack_ip_bytes,
        segments_per_ack,
        wattlab_core::Duration::ZERO,
    );
    let d = PyDict::new(py);
    d.set_item("mac_only_bps", c.mac_only_bps)?;
    d.set_item("tcp_bps", c.tcp_bps)?;
    d.set_item("data_exchange_us", c.data_exchange.as_nanos() as f64 / 1e3)?;
    d.set_item("ack_exchange_us", c.ack_exchange.as_nanos() as f64 / 1e3)?;
    Ok(d)
}

/// The native module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(read_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(_document_parses, m)?)?;
    m.add_function(wrap_pyfunction!(effective_scenario, m)?)?;
    savings::register(m)?;
    m.add_function(wrap_pyfunction!(quantity, m)?)?;
    m.add_function(wrap_pyfunction!(bench_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(profiles, m)?)?;
    m.add_function(wrap_pyfunction!(bianchi, m)?)?;
    m.add_function(wrap_pyfunction!(tcp_capacity, m)?)?;
    aggregation::register(m)?;
    m.add_function(wrap_pyfunction!(trace::trace_energy, m)?)?;
    m.add_function(wrap_pyfunction!(trace::_trace_guard_selftest, m)?)?;
    m.add_function(wrap_pyfunction!(trace::trace_trim_pcap, m)?)?;
    m.add("TraceError", m.py().get_type::<trace::TraceError>())?;
    metrics::register(m)?;
    physics::register(m)?;
    power::register(m)?;
    psna::register(m)?;
    m.add_class::<Table>()?;
    m.add_function(wrap_pyfunction!(table::table_columns, m)?)?;
    m.add_function(wrap_pyfunction!(table::_table_selftest, m)?)?;
    m.add("WattlabError", m.py().get_type::<WattlabError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("MAX_SCENARIO_BYTES", wattlab_sim::scenario::MAX_SCENARIO_BYTES)?;
    m.add_function(wrap_pyfunction!(guard::_panic_for_tests, m)?)?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__commit__", wattlab_sim::provenance::commit())?;
    Ok(())
}
