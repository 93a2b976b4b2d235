//! `_core.trace_energy`: the trace analyzer, as plain Python objects (the `wattlab.trace`
//! package builds DataFrames, tables, files and plots from them).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use wattlab_core::energy::{find_builtin_profile, DeviceProfile, PsmParams};
use wattlab_core::power::PolicyName;
use wattlab_core::Duration;
use wattlab_trace::airtime::Airtime;
use crate::Columns;
use wattlab_trace::energy::{analyze, ClientChoice, EnergyOptions, TimelineOutput};
use wattlab_trace::energybox::EnergyBoxConfig;
use wattlab_trace::policy_spec::{PolicySpec, SpecContext};
use wattlab_trace::timecheck::{TimeIssue, TimeLimits, TimeReport};
use wattlab_trace::SkipReason;

pyo3::create_exception!(_core, TraceError, crate::guard::WattlabError, "A capture, a profile, a policy or a transitions file cannot be used; the message says which and where.");

fn err(msg: impl ToString) -> PyErr {
    TraceError::new_err(msg.to_string())
}

/// Runs `f`, turning a panic (a wattlab bug: no input should reach one) into a `TraceError`
/// that says so, instead of pyo3's `PanicException`, which `except Exception` does not catch.
fn guarded<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    crate::guard::guard_with(f, |msg| {
        err(format!("internal error in wattlab's {what} (a wattlab bug, please report it with the capture and the options): {msg}"))
    })
}

/// A finite number of seconds in `[lo, hi]`, or an error naming the option and the range.
fn seconds(name: &str, x: f64, lo: f64, hi: f64, range: &str) -> PyResult<Duration> {
    if !(x.is_finite() && (lo..=hi).contains(&x)) {
        return Err(err(format!("{name} {x} s is out of range ({range})")));
    }
    Ok(Duration::from_secs_f64(x))
}

/// For the tests of [`guarded`]: panics inside the guard, as a bug would.
#[pyfunction]
pub fn _trace_guard_selftest() -> PyResult<()> {
    guarded("trace analyzer", || -> PyResult<()> { panic!("deliberate panic (guard self-test)") })
}

/// A timestamp issue as a dict: count, first packet index and byte offset, worst step (ns).
fn issue<'py>(py: Python<'py>, i: &TimeIssue) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("count", i.count)?;
    d.set_item("first_packet", i.first.map(|f| f.index))?;
    d.set_item("first_offset", i.first.map(|f| f.offset))?;
    d.set_item("worst_ns", i.worst_ns)?;
    Ok(d)
}

/// The timestamp checks' findings and limits as a dict (`capture["time_checks"]`).
fn time_checks<'py>(py: Python<'py>, r: &TimeReport, l: &TimeLimits) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("checked", r.checked)?;
    d.set_item("reordered", r.reordered)?;
    d.set_item("reordered_worst_ns", r.reordered_worst_ns)?;
    d.set_item("backward", issue(py, &r.backward)?)?;
    d.set_item("gaps", issue(py, &r.gaps)?)?;
    d.set_item("fractions", issue(py, &r.fractions)?)?;
    d.set_item("reorder_ns", l.reorder.as_nanos())?;
    d.set_item("max_gap_ns", l.max_gap.as_nanos())?;
    d.set_item("accepted", l.accept && !r.is_clean())?;
    Ok(d)
}

/// The device profile: a built-in name, a profile TOML file, or EnergyBox files' powers.
fn resolve_profile(profile: Option<&str>, eb: &EnergyBoxConfig) -> PyResult<DeviceProfile> {
    let imported = eb.profile().map_err(err)?;
    match (profile, imported) {
        (Some(p), Some(_)) => Err(err(format!(
            "both --profile {p} and EnergyBox power settings given; use one (the EnergyBox files' POWER_IN_* keys make a profile)"
        ))),
        (None, Some(p)) => Ok(p),
        (None, None) => Ok(find_builtin_profile("atheros-ar5004").map_err(err)?),
        (Some(p), None) => {
            let path = Path::new(p);
            if p.ends_with(".toml") || path.is_file() {
                let text = std::fs::read_to_string(path).map_err(|e| err(format!("{p}: cannot read profile: {e}")))?;
                DeviceProfile::from_toml_str(&text, p).map_err(err)
            } else {
                find_builtin_profile(p).map_err(err)
            }
        }
    }
}

/// Cost a capture's radio energy under power policies. Returns a dict: `capture` (what was
/// read and how the client was chosen), `profile`, `policies` (one dict each: label, name,
/// `report_json`, beacons, rx_while_dormant, busy_while_dormant, `timeline` table or
/// `timeline_file`), `connections` and `attribution` (tables), `throughput` (bin width,
/// origin and the `bins` table), `notes`; each table a `Columns`.
/// `max_gap_s` and `accept_odd_times` set the timestamp checks (`capture["time_checks"]`;
/// `warnings` lists what a result built on odd timestamps rests on). A panic (a bug) is
/// raised as `TraceError`, never as pyo3's `PanicException`.
#[pyfunction]
#[pyo3(signature = (path, client=None, profile=None, energybox=Vec::new(), policies=Vec::new(), phy=None, transitions=None, bin_s=0.05, timeline="memory", tail_s=None, max_gap_s=None, accept_odd_times=false))]
#[allow(clippy::too_many_arguments)]
pub fn trace_energy<'py>(
    py: Python<'py>,
    path: &str,
    client: Option<&str>,
    profile: Option<&str>,
    energybox: Vec<String>,
    policies: Vec<String>,
    phy: Option<&str>,
    transitions: Option<&str>,
    bin_s: f64,
    timeline: &str,
    tail_s: Option<f64>,
    max_gap_s: Option<f64>,
    accept_odd_times: bool,
) -> PyResult<Bound<'py, PyDict>> {
    guarded("trace analyzer", || {
        trace_energy_unguarded(
            py, path, client, profile, energybox, policies, phy, transitions, bin_s, timeline, tail_s, max_gap_s,
            accept_odd_times,
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn trace_energy_unguarded<'py>(
    py: Python<'py>,
    path: &str,
    client: Option<&str>,
    profile: Option<&str>,
    energybox: Vec<String>,
    policies: Vec<String>,
    phy: Option<&str>,
    transitions: Option<&str>,
    bin_s: f64,
    timeline: &str,
    tail_s: Option<f64>,
    max_gap_s: Option<f64>,
    accept_odd_times: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let client: Option<IpAddr> = client
        .map(|c| c.trim().parse().map_err(|_| err(format!("client `{c}` is not an IPv4 or IPv6 address"))))
        .transpose()?;
    let eb = EnergyBoxConfig::load(&energybox).map_err(err)?;
    let profile = resolve_profile(profile, &eb)?;
    // With EnergyBox files the defaults are EnergyBox's model: packets as instants, and the
    // run costed until an inactivity timeout after the last packet.
    let emulate = !eb.is_empty();
    let mut notes = eb.all_notes();
    let airtime = match phy {
        Some(p) => Airtime::parse(p).map_err(err)?,
        None if emulate => Airtime::Instant,
        None => Airtime::default_phy(),
    };
    let tail = match tail_s {
        Some(t) => seconds("tail", t, 0.0, 86_400.0, "0 to 1 day")?,
        None if emulate => eb.tail().unwrap_or(Duration::ZERO),
        None => Duration::ZERO,
    };
    let bin = seconds("throughput bin", bin_s, 1e-6, 86_400.0, "1 µs to 1 day")?;
    let mut time = TimeLimits { accept: accept_odd_times, ..TimeLimits::default() };
    if let Some(g) = max_gap_s {
        time.max_gap = seconds("maximum gap", g, 1.0, 1e10, "1 s to 10¹⁰ s")?;
    }
    if emulate {
        notes.push(format!(
            "EnergyBox emulation: airtime {airtime} (packets take no airtime; --phy to change), {} s costed after the last packet \
             (--tail), adaptive-psm over fixed windows counting frame lengths (adaptive-psm:window=sliding,bytes=ip to change)",
            tail.as_secs_f64()
        ));
    }
    let psm = match airtime {
        Airtime::Phy { phy, .. } => PsmParams::for_phy(&phy),
        Airtime::Link { .. } | Airtime::Instant => PsmParams::default(),
    };
    let transitions_path = transitions.map(PathBuf::from);
    let cx = SpecContext { psm: Some(psm), energybox: Some(&eb), transitions: transitions_path.as_deref() };
    let mut names = policies;
    if names.is_empty() {
        // The default set predates `ideal-sleep` (seed 002's model-matching rule), which is
        // asked for by name.
        names = PolicyName::ALL.into_iter().filter(|p| *p != PolicyName::IdealSleep).map(|p| p.to_string()).collect();
        if transitions.is_some() {
            names.push("replay".into());
        }
    }
    let specs = names.iter().map(|s| PolicySpec::parse(s, &cx)).collect::<Result<Vec<_>, _>>().map_err(err)?;
    let timeline = match timeline {
        "memory" => TimelineOutput::Memory,
        "off" => TimelineOutput::Off,
        dir => TimelineOutput::Csv(PathBuf::from(dir)),
    };
    let opts = EnergyOptions {
        client,
        profile: profile.clone(),
        airtime,
        policies: specs,
        bin,
        tail,
        timeline,
        time,
    };
    let mut a = py.allow_threads(|| analyze(Path::new(path), &opts)).map_err(err)?;

    let out = PyDict::new(py);
    let cap = PyDict::new(py);
    cap.set_item("path", &a.path)?;
    cap.set_item("format", format!("{:?}", a.format))?;
    cap.set_item("client", a.client.to_string())?;
    match &a.choice {
        ClientChoice::Given => {
            cap.set_item("choice", "given")?;
            cap.set_item("ties", PyList::empty(py))?;
        }
        ClientChoice::Busiest { ties } => {
            cap.set_item("choice", "busiest")?;
            cap.set_item("ties", ties.iter().map(|t| t.to_string()).collect::<Vec<_>>())?;
        }
    }
    let ranked = PyList::empty(py);
    for (addr, t) in &a.ranked {
        ranked.append((addr.to_string(), t.bytes, t.packets))?;
    }
    cap.set_item("ranked", ranked)?;
    cap.set_item("records", a.stats.records)?;
    cap.set_item("ip_packets", a.stats.packets)?;
    let skipped = PyDict::new(py);
    for r in SkipReason::ALL {
        skipped.set_item(r.name(), a.stats.skipped.packets(r))?;
    }
    cap.set_item("skipped", skipped)?;
    for (k, v) in [
        ("start_ns", a.start_ns),
        ("end_ns", a.end_ns),
        ("tail_ns", a.tail_ns),
        ("packets_up", a.packets_up),
        ("packets_down", a.packets_down),
        ("bytes_up", a.bytes_up),
        ("bytes_down", a.bytes_down),
        ("group_down", a.group_down),
        ("foreign_packets", a.foreign_packets),
        ("oversize_packets", a.oversize_packets),
        ("deferred_packets", a.deferred_packets),
        ("deferred_ns", a.deferred_ns),
        ("fragments", a.stats.fragments),
        ("undecoded", a.stats.undecoded),
    ] {
        cap.set_item(k, v)?;
    }
    cap.set_item("airtime", a.airtime.to_string())?;
    cap.set_item("time_checks", time_checks(py, &a.time, &a.time_limits)?)?;
    out.set_item("capture", cap)?;

    let prof = PyDict::new(py);
    prof.set_item("name", profile.name())?;
    prof.set_item("source", profile.source())?;
    let powers = PyDict::new(py);
    for s in wattlab_core::energy::RadioState::ALL {
        powers.set_item(s.as_str(), profile.power_mw(s))?;
    }
    prof.set_item("power_mw", powers)?;
    out.set_item("profile", prof)?;

    // Tables: Rust structs of columns (or rows), converted generically (columns.rs).
    out.set_item("attribution", Columns::new(a.attribution()))?;
    let t = PyDict::new(py);
    t.set_item("bin_ns", a.bin_ns)?;
    t.set_item("origin_ns", a.throughput_origin_ns)?;
    t.set_item("bins", Columns::new(a.throughput_table()))?;
    out.set_item("throughput", t)?;
    out.set_item("connections", Columns::rows(std::mem::take(&mut a.connections)))?;
    let elided: u64 = a.policies.iter().map(|p| p.timeline_elided_beacons).sum();
    let pols = PyList::empty(py);
    for p in std::mem::take(&mut a.policies) {
        let d = PyDict::new(py);
        d.set_item("label", &p.label)?;
        d.set_item("name", p.name)?;
        d.set_item("report_json", serde_json::to_string(&p.report).map_err(err)?)?;
        d.set_item("total_energy_fj", p.report.total_energy_fj)?;
        d.set_item("beacons", p.beacons)?;
        d.set_item("rx_while_dormant", p.rx_while_dormant)?;
        d.set_item("busy_while_dormant", p.busy_while_dormant)?;
        d.set_item("timeline_file", p.timeline_file.as_ref().map(|f| f.display().to_string()))?;
        d.set_item("timeline_elided_beacons", p.timeline_elided_beacons)?;
        d.set_item("timeline", Columns::new(p.timeline))?;
        pols.append(d)?;
    }
    out.set_item("policies", pols)?;
    if let ClientChoice::Busiest { ties } = &a.choice {
        if !ties.is_empty() {
            notes.push(format!(
                "client {} chosen as the busiest address, tied with {}: pass --client to choose",
                a.client,
                ties.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    if elided > 0 {
        notes.push(format!(
            "timelines: {elided} beacons of long dozing gaps are not shown one by one (after the first {} of a gap, \
             the timeline shows one dormant stretch up to the gap's last beacon); the energy and beacon counts include them all",
            wattlab_core::energy::policy::TIMELINE_BEACONS_PER_GAP
        ));
    }
    out.set_item("notes", notes)?;
    out.set_item("warnings", a.time_warnings())?;
    Ok(out)
}
