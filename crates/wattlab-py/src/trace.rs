//! `_core.trace_energy`: the trace analyzer, as plain Python objects (the `wattlab.trace`
//! package builds DataFrames, tables, files and plots from them).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wattlab_core::energy::{find_builtin_profile, resolve_profile as resolve_profile_spec, DeviceProfile, PsmParams};
use wattlab_core::power::PolicyName;
use wattlab_core::Duration;
use wattlab_trace::airtime::Airtime;
use crate::Table;
use wattlab_trace::energy::{analyze, ClientChoice, EnergyOptions, TimelineOutput, DEFAULT_MAX_CONNECTIONS, MAX_MAX_CONNECTIONS};
use wattlab_trace::energybox::EnergyBoxConfig;
use wattlab_trace::energybox_engine::EngineOutcome;
use wattlab_trace::policy_spec::{PolicyKind, PolicySpec, SpecContext, ENERGYBOX};
use wattlab_trace::timecheck::{TimeIssue, TimeLimits, TimeReport};
use wattlab_trace::observed::{parse_mac, ObservedOutcome};
use wattlab_trace::SkipReason;

/// The `observed` policy's counts as a dict (field names as [`ObservedOutcome`]'s).
fn pythonize_observed<'py>(py: Python<'py>, o: &ObservedOutcome) -> PyResult<Bound<'py, PyDict>> {
    let x = PyDict::new(py);
    x.set_item("client_mac", &o.client_mac)?;
    x.set_item("ap_mac", o.ap_mac.as_deref())?;
    x.set_item("aid", o.aid)?;
    x.set_item("broadcast_twt_id", o.broadcast_twt_id)?;
    x.set_item("broadcast_twt_window_us", o.broadcast_twt_window_us)?;
    for (k, v) in [
        ("tx_frames", o.tx_frames),
        ("tx_retries", o.tx_retries),
        ("tx_responses", o.tx_responses),
        ("responses_inferred", o.responses_inferred),
        ("rx_frames", o.rx_frames),
        ("beacons", o.beacons),
        ("group_frames", o.group_frames),
        ("overheard", o.overheard),
        ("ppdus", o.ppdus),
        ("ampdus", o.ampdus),
        ("phy_fallback", o.phy_fallback),
        ("pm_set", o.pm_set),
        ("pm_clear", o.pm_clear),
        ("nulls", o.nulls),
        ("ps_polls", o.ps_polls),
        ("eosp", o.eosp),
        ("twt_setups", o.twt_setups),
        ("twt_agreements", o.twt_agreements),
        ("service_periods", o.service_periods),
        ("woke_to_receive", o.woke_to_receive),
        ("dozes", o.dozes),
        ("start_ns", o.start_ns),
        ("end_ns", o.end_ns),
    ] {
        x.set_item(k, v)?;
    }
    Ok(x)
}

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

/// Copies the records of the classic pcap `src` with timestamps in `[start_ns, end_ns)` to
/// `dst` (`wattlab_trace::trim::trim_pcap`); returns how many. Raises `TraceError` naming
/// the file and byte offset.
#[pyfunction]
pub fn trace_trim_pcap(py: Python<'_>, src: PathBuf, dst: PathBuf, start_ns: u64, end_ns: u64) -> PyResult<u64> {
    guarded("capture trimmer", || py.allow_threads(|| wattlab_trace::trim::trim_pcap(&src, &dst, start_ns, end_ns)).map_err(err))
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
        // The scenario's rule (`wattlab_core::energy::resolve_profile`): a path if it ends in
        // .toml or has a separator, else a built-in name.
        (Some(p), None) => resolve_profile_spec(p, None).map_err(err),
    }
}

/// Cost a capture's radio energy under power policies. Returns a dict: `capture` (what was
/// read and how the client was chosen), `profile`, `tables` (Arrow `Table`s, see
/// `wattlab_trace::tables`: `energy`, `states`, `connections`, `attribution`, `throughput`,
/// `timeline`), `bin_s` (the throughput bins' width), `policies` (one dict each: label, name,
/// model, EnergyBox's engine's outcome, `timeline_file`, state changes), `notes`.
/// `max_gap_s` and `accept_odd_times` set the timestamp checks (`capture["time_checks"]`;
/// `warnings` lists what a result built on odd timestamps rests on). A panic (a bug) is
/// raised as `TraceError`, never as pyo3's `PanicException`.
#[pyfunction]
#[pyo3(signature = (path, client=None, profile=None, energybox=Vec::new(), policies=Vec::new(), phy=None, transitions=None, bin_s=0.05, timeline="memory", tail_s=None, max_gap_s=None, accept_odd_times=false, max_connections=None, client_mac=None))]
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
    max_connections: Option<i64>,
    client_mac: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    guarded("trace analyzer", || {
        trace_energy_unguarded(
            py, path, client, profile, energybox, policies, phy, transitions, bin_s, timeline, tail_s, max_gap_s,
            accept_odd_times, max_connections, client_mac,
        )
    })
}

/// What a policy's row is, next to EnergyBox's model (the `model` column).
fn model_of(spec: &PolicySpec, files: bool, eb_mode: bool, definition: Option<&PolicySpec>) -> &'static str {
    match &spec.kind {
        PolicyKind::EnergyBox(_) => "EnergyBox (engine)",
        _ if !files => "wattlab",
        _ if eb_mode && definition.is_some_and(|d| d.kind == spec.kind && d.count == spec.count) => "EnergyBox (definition)",
        _ => "wattlab (EnergyBox settings)",
    }
}

/// EnergyBox's engine's own numbers and artifacts, for the `energybox` row.
fn engine_dict<'py>(py: Python<'py>, o: &EngineOutcome) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("energy_j", o.energy_j)?;
    d.set_item("printed_j", o.printed_j)?;
    d.set_item("time_psm_s", o.time_s[0])?;
    d.set_item("time_cam_s", o.time_s[1])?;
    d.set_item("time_camh_s", o.time_s[2])?;
    d.set_item("frames", o.frames)?;
    d.set_item("windows", o.windows)?;
    d.set_item("high_windows", o.high_windows)?;
    d.set_item("frames_out_of_order", o.frames_out_of_order)?;
    let x = &o.artifacts;
    let a = PyDict::new(py);
    a.set_item("late_streak_ends", x.late_streak_ends)?;
    a.set_item("backwards_steps", x.backwards_steps)?;
    a.set_item("bridged_windows", x.bridged_windows)?;
    a.set_item("streak_to_last_packet_s", x.streak_to_last_packet_s)?;
    a.set_item("partial_window_bytes", x.partial_window_bytes)?;
    a.set_item("partial_window_high", x.partial_window_high)?;
    a.set_item("truncated_times", x.truncated_times)?;
    d.set_item("artifacts", a)?;
    Ok(d)
}

/// A sentence on what EnergyBox's engine did differently from its model's definition.
fn artifacts_note(label: &str, o: &EngineOutcome) -> String {
    let x = &o.artifacts;
    let w = &o.settings;
    let mut parts = Vec::new();
    if x.late_streak_ends > 0 {
        parts.push(format!(
            "{} CAMH streak{} closed 1 ms after {} window ({} of them after the next state point: time runs back)",
            x.late_streak_ends,
            if x.late_streak_ends == 1 { "" } else { "s" },
            if x.late_streak_ends == 1 { "its" } else { "their" },
            x.backwards_steps
        ));
    }
    if x.bridged_windows > 0 {
        parts.push(format!(
            "{} low window{} without packets kept in CAMH",
            x.bridged_windows,
            if x.bridged_windows == 1 { "" } else { "s" }
        ));
    }
    if x.streak_to_last_packet_s > 0.0 {
        parts.push(format!("CAMH {:.3} s past the last high window, to the last packet", x.streak_to_last_packet_s));
    }
    if x.partial_window_high {
        parts.push(format!(
            "the last, partial window ({} bytes, above the {} threshold) never counted",
            x.partial_window_bytes, w.threshold
        ));
    }
    if x.truncated_times > 0 {
        parts.push(format!("{} frame times 1 µs early (its double parsing)", x.truncated_times));
    }
    if o.frames_out_of_order > 0 {
        parts.push(format!(
            "{} frames earlier than the frame before them, costed in file order (EnergyBox's result on such a capture is not checked)",
            o.frames_out_of_order
        ));
    }
    let what = if parts.is_empty() { "no departure from its model's definition on this capture".to_string() } else { parts.join("; ") };
    format!(
        "{label}: EnergyBox's own number, {:.4} J as it prints it ({} frames, every frame of the capture); its engine: {what} (docs/trace.md)",
        o.printed_j, o.frames
    )
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
    max_connections: Option<i64>,
    client_mac: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let client_mac = client_mac.map(|m| parse_mac(m).map_err(|e| err(format!("client_mac: {e}")))).transpose()?;
    let max_connections = match max_connections {
        None => DEFAULT_MAX_CONNECTIONS,
        Some(n) if (1..=i64::from(MAX_MAX_CONNECTIONS)).contains(&n) => n as u32,
        Some(n) => return Err(err(format!("max_connections {n} is out of range (1 to {MAX_MAX_CONNECTIONS})"))),
    };
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
    // EnergyBox's model: its files, and packets without airtime (its definition).
    let eb_mode = emulate && airtime == Airtime::Instant;
    if emulate {
        notes.push(format!(
            "EnergyBox emulation: airtime {airtime} (packets take no airtime; --phy to change), {} s costed after the last packet \
             (--tail), adaptive-psm over fixed windows counting frame lengths (adaptive-psm:window=sliding,bytes=ip to change)",
            tail.as_secs_f64()
        ));
        let missing = eb.missing_network_keys();
        if eb.has_device() && !missing.is_empty() {
            notes.push(format!(
                "EnergyBox files without {}: its engine (the energybox row) uses EnergyBox's defaults (200 ms, 50 ms, 3000 bytes)",
                missing.join(", ")
            ));
        }
    }
    let psm = match airtime {
        Airtime::Phy { phy, .. } => PsmParams::for_phy(&phy),
        Airtime::Link { .. } | Airtime::Instant => PsmParams::default(),
    };
    let transitions_path = transitions.map(PathBuf::from);
    let cx = SpecContext { psm: Some(psm), energybox: Some(&eb), transitions: transitions_path.as_deref() };
    let mut names = policies;
    if names.is_empty() && emulate {
        // EnergyBox's files: the rows its model defines, its engine's own number first.
        if eb.has_device() {
            names.push(ENERGYBOX.into());
        }
        names.push("adaptive-psm".into());
    } else if names.is_empty() {
        // The default set predates `ideal-sleep` (seed 002's model-matching rule), which is
        // asked for by name.
        names = PolicyName::ALL.into_iter().filter(|p| *p != PolicyName::IdealSleep).map(|p| p.to_string()).collect();
        if transitions.is_some() {
            names.push("replay".into());
        }
    }
    let specs = names.iter().map(|s| PolicySpec::parse(s, &cx)).collect::<Result<Vec<_>, _>>().map_err(err)?;
    let definition = PolicySpec::parse("adaptive-psm", &cx).ok();
    let models: Vec<&str> = specs.iter().map(|s| model_of(s, emulate, eb_mode, definition.as_ref())).collect();
    let outside: Vec<&str> =
        specs.iter().zip(&models).filter(|(_, m)| eb_mode && m.starts_with("wattlab")).map(|(s, _)| s.label.as_str()).collect();
    if !outside.is_empty() {
        notes.push(format!(
            "EnergyBox's model defines PSM, CAM and CAMH only (no airtime, no tx/rx, no beacons): {} {} costed with its powers \
             for reference, labelled `wattlab (EnergyBox settings)`; no row is a share of always-on in this mode",
            outside.join(", "),
            if outside.len() == 1 { "is" } else { "are" }
        ));
    }
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
        max_connections,
        client_mac,
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
        ClientChoice::Busiest { ties, skipped, undercount } => {
            cap.set_item("choice", "busiest")?;
            cap.set_item("ties", ties.iter().map(|t| t.to_string()).collect::<Vec<_>>())?;
            cap.set_item("choice_skipped", skipped.iter().map(|t| t.to_string()).collect::<Vec<_>>())?;
            cap.set_item("choice_undercount", undercount)?;
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
    cap.set_item("energybox_mode", eb_mode)?;
    cap.set_item("max_connections", a.max_connections)?;
    cap.set_item("connections_evicted", a.connections_evicted)?;
    let lc = &a.stats.length_capped;
    let capped = PyDict::new(py);
    capped.set_item("packets", lc.packets)?;
    capped.set_item("excess_bytes", lc.excess_bytes)?;
    capped.set_item("first_packet", lc.first.map(|f| f.0))?;
    capped.set_item("first_offset", lc.first.map(|f| f.1))?;
    cap.set_item("length_capped", capped)?;
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

    // Tables: Rust structs of columns (or rows), converted generically (table.rs).
    let tables = wattlab_trace::tables::tables(&mut a, &models, eb_mode);
    let labels = Arc::new(tables.labels);
    let t = PyDict::new(py);
    t.set_item("energy", Table::new(tables.energy))?;
    t.set_item("states", Table::new(tables.states))?;
    t.set_item("connections", Table::new(tables.connections))?;
    t.set_item("attribution", Table::new(tables.attribution))?;
    t.set_item("throughput", Table::new(tables.throughput))?;
    t.set_item("timeline", Table::with_names(tables.timeline, vec![("policy", labels)]))?;
    out.set_item("tables", t)?;
    out.set_item("bin_s", tables.bin_s)?;
    let elided: u64 = a.policies.iter().map(|p| p.timeline_elided_beacons).sum();
    let pols = PyList::empty(py);
    for (p, model) in std::mem::take(&mut a.policies).into_iter().zip(&models) {
        let d = PyDict::new(py);
        d.set_item("label", &p.label)?;
        d.set_item("name", p.name)?;
        d.set_item("model", *model)?;
        match &p.energybox {
            Some(o) => {
                d.set_item("energybox", engine_dict(py, o)?)?;
                notes.push(artifacts_note(&p.label, o));
            }
            None => d.set_item("energybox", py.None())?,
        }
        d.set_item("timeline_file", p.timeline_file.as_ref().map(|f| f.display().to_string()))?;
        d.set_item("timeline_elided_beacons", p.timeline_elided_beacons)?;
        d.set_item("state_changes", p.state_changes)?;
        match &p.twt {
            Some(w) => {
                let x = PyDict::new(py);
                x.set_item("interval_s", w.interval_ns as f64 / 1e9)?;
                x.set_item("duration_s", w.duration_ns as f64 / 1e9)?;
                x.set_item("offset_s", w.offset_ns as f64 / 1e9)?;
                x.set_item("service_periods", w.service_periods)?;
                x.set_item("received", w.received)?;
                x.set_item("held", w.held)?;
                x.set_item("delay_mean_s", w.delay_mean_ns / 1e9)?;
                x.set_item("delay_p95_s", w.delay_p95_ns as f64 / 1e9)?;
                x.set_item("delay_max_s", w.delay_max_ns as f64 / 1e9)?;
                x.set_item("deferred_sends", w.deferred_sends)?;
                x.set_item("deferred_send_s", w.deferred_send_ns as f64 / 1e9)?;
                x.set_item("last_end_ns", w.last_end_ns)?;
                x.set_item("late_end_s", w.late_end_ns as f64 / 1e9)?;
                d.set_item("twt", x)?;
                if w.late_end_ns > w.interval_ns {
                    notes.push(format!(
                        "{}: the service periods cannot carry the capture's received traffic: held packets pile up and the \
                         last is delivered {:.3} s after the capture's last packet (delay max {:.3} s); a real sender would \
                         slow down instead (the simulator's twt power mode models that)",
                        p.label,
                        w.late_end_ns as f64 / 1e9,
                        w.delay_max_ns as f64 / 1e9
                    ));
                }
            }
            None => d.set_item("twt", py.None())?,
        }
        match &p.observed {
            Some(o) => {
                let x = pythonize_observed(py, o)?;
                d.set_item("observed", x)?;
            }
            None => d.set_item("observed", py.None())?,
        }
        pols.append(d)?;
    }
    out.set_item("policies", pols)?;
    if let ClientChoice::Busiest { ties, skipped, undercount } = &a.choice {
        if !ties.is_empty() {
            notes.push(format!(
                "client {} chosen as the busiest address, tied with {}: pass --client to choose",
                a.client,
                ties.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
            ));
        }
        if !skipped.is_empty() {
            notes.push(format!(
                "client {}: busier multicast, broadcast or unspecified addresses passed over ({}): they cannot be a client",
                a.client,
                skipped.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
            ));
        }
        if *undercount > 0 {
            notes.push(format!(
                "client {} chosen among more than {} addresses in bounded memory: each address's bytes are known to within \
                 {undercount} bytes; pass --client to be sure",
                a.client, a.max_connections
            ));
        }
    }
    if a.connections_evicted > 0 {
        notes.push(format!(
            "{} connections of the client beyond the {} kept (the least recently used) are folded into one `other` row, \
             packets, bytes and energy (--max-connections to keep more)",
            a.connections_evicted, a.max_connections
        ));
    }
    if let (n @ 1.., Some((i, off))) = (a.stats.length_capped.packets, a.stats.length_capped.first) {
        notes.push(format!(
            "{n} IP packets claim a length beyond what their frame carries (first: packet {i} at byte offset {off}): costed at \
             what the frame carries, {} bytes less than their headers claim",
            a.stats.length_capped.excess_bytes
        ));
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
