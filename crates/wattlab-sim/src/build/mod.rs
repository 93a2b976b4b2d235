//! Turning a parsed [`Scenario`] into a runnable [`Simulation`], one concern per module:
//! the network (`topology`), 802.11 BSSs (`wlan`), radios and power management (`power`), the
//! flows (`flows`, through the applications' registry), routes and captures (`paths`).
//! Every reference error points back at the scenario line that made it.

mod flows;
mod paths;
mod power;
mod settings;
mod topology;
mod tunnel;
mod wlan;
mod wlan_link;
mod wlan_phy;

use crate::engine::Scheduler;
use crate::net::{DropCounters, Network};
use crate::rng::RngStreams;
use crate::provenance::Provenance;
use crate::scenario::{ParsedScenario, Scenario, ScenarioError, ScenarioSource};
use crate::series::TimeSeries;
use crate::sim::Simulation;
use crate::stack::{Stack, TxPath};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use toml::Spanned;
use wattlab_core::{Duration, Time};

pub use power::{profile_files, scenario_dir, POLICY_NAMES};

/// Options that come from the command line rather than the scenario file.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Directory for pcap files (required if any capture is requested).
    pub out_dir: Option<PathBuf>,
    /// Extra captures, `node:iface`, added to the scenario's.
    pub pcaps: Vec<String>,
    /// Force time series on.
    pub timeseries: bool,
    /// Set by another thread to stop the set-up (Ctrl-C while a binding waits for it): the
    /// build then ends with [`interrupted`] between its steps.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// The error a cancelled set-up ends with (see [`BuildOptions::cancel`]).
pub fn interrupted(origin: &str) -> ScenarioError {
    ScenarioError::general(origin, None, "interrupted while setting up the scenario")
}

/// Where errors point: the scenario's file name and text.
pub(crate) struct Ctx<'a> {
    pub(crate) origin: &'a str,
    pub(crate) source: &'a str,
}

impl Ctx<'_> {
    /// An error at the span of `at`, under `key`.
    pub(crate) fn err<T>(&self, at: &Spanned<T>, key: &str, msg: impl Into<String>) -> ScenarioError {
        let span = at.span();
        let span = (span.end > span.start).then_some(span);
        ScenarioError::at_span(self.origin, self.source, span, Some(key.to_string()), msg)
    }
}

/// Build a simulation from a parsed scenario whose spans point into `source`, read from
/// `origin` with no overrides; `seed` overrides the scenario's.
pub fn build(scn: &Scenario, source: &str, origin: &str, seed: Option<u64>, opts: &BuildOptions) -> Result<Simulation, ScenarioError> {
    let provenance = Provenance::new(source, origin, &[], seed.unwrap_or(scn.simulation.seed));
    build_with(scn, source, origin, provenance, opts)
}

/// Build a simulation from a parsed scenario whose spans point into `source`; errors name
/// `origin`. The run's seed is `provenance.seed`, and the provenance is the summary's as given.
pub fn build_with(scn: &Scenario, source: &str, origin: &str, provenance: Provenance, opts: &BuildOptions) -> Result<Simulation, ScenarioError> {
    let cx = Ctx { origin, source };
    // Each step is linear in the scenario's size; a cancel is seen between them.
    let go_on = || match &opts.cancel {
        Some(c) if c.load(Ordering::Relaxed) => Err(interrupted(origin)),
        _ => Ok(()),
    };
    crate::scenario::ranges::check(scn, source, origin)?;
    crate::scenario::names::check(scn, source, origin)?;
    let seed = provenance.seed;
    let streams = RngStreams::new(seed);

    go_on()?;
    let mut t = topology::build(scn, &cx, &streams)?;
    go_on()?;
    // A scenario read from a file names profile files relative to its directory.
    let scenario_dir = power::scenario_dir(&provenance.scenario);
    let profiles = power::profiles(scn, &cx, scenario_dir)?;
    let mut provenance = provenance;
    provenance.profile_files = profiles.files.clone();
    let wlans = wlan::build_wlans(scn, &cx, &streams, &mut t, &profiles.by_node)?;
    let mut radios = power::radios(scn, &cx, &mut t, &wlans, profiles)?;
    let overrides = paths::route_overrides(scn, &cx, &t)?;
    let mut stack = Stack::new(t.nodes.len(), streams.stream("tcp-isn"));
    for (path, n) in stack.tx_paths.iter_mut().zip(&scn.nodes) {
        *path = TxPath::new(n.tx_time.map(|d| d.get()).unwrap_or(Duration::ZERO));
    }
    stack.paced = stack.tx_paths.iter().any(TxPath::paced);
    go_on()?;
    let f = flows::build(scn, &cx, &t, &mut stack, &streams)?;
    power::check_psna_modes(scn, &cx, &t, &wlans)?;
    let flow_err = |i: usize, key: &str, msg: String| flows::flow_error(&cx, i, key, msg);
    let mut needs = f.paths.clone();
    needs.extend(tunnel::path_needs(scn, &cx, &t, &wlans)?);
    go_on()?;
    let routes = paths::flow_routes(&t.nodes, &t.adjacency, &overrides, &needs, scn, &cx, &flow_err)?;
    go_on()?;
    let (pcaps, air) = paths::captures(scn, opts, &cx, &mut t, &wlans)?;
    let mut provenance = provenance;
    if air.iter().any(Option::is_some) || (!pcaps.is_empty() && scn.output.pcap_epoch.is_some()) {
        provenance.pcap_epoch = Some(paths::pcap_epoch(scn, &cx)?.1);
    } else if !pcaps.is_empty() {
        provenance.pcap_epoch = Some("1970-01-01T00:00:00Z".to_string());
    }
    let mut wlans = wlans;
    for (w, a) in wlans.iter_mut().zip(air) {
        // A BSS reports first attempts only to capture them at their senders.
        w.bss.set_report_transmits(w.sta_iface.iter().any(|&i| t.ifaces[i as usize].pcap.is_some()));
        if a.is_some() {
            w.bss.enable_air_log();
        }
        w.air = a.map(Box::new);
    }

    let timeseries = (scn.output.timeseries || opts.timeseries).then(TimeSeries::default);
    if timeseries.is_some() {
        radios.iter_mut().for_each(crate::radio::Radio::enable_timelines);
    }
    let unfinished = f.records.iter().filter(|r| r.finite).count();
    let nflows = f.flows.len();
    let net = Network {
        nodes: t.nodes,
        ifaces: t.ifaces,
        channels: t.channels,
        media: t.media,
        routes,
        addr_to_node: t.addr_to_node,
        pcaps,
        drops: DropCounters::default(),
        fatal_error: None,
        arena: Default::default(),
    };
    let mut sim = Simulation {
        sched: Scheduler::new(),
        scenario_name: scn.name.clone().unwrap_or_else(|| origin.to_string()),
        provenance,
        seed,
        net,
        wlans,
        hops: t.hops,
        radios,
        flow_energy: Default::default(),
        stack,
        flows: f.flows,
        records: f.records,
        flow_wake_at: vec![None; nflows],
        flow_dscp: flow_dscp(scn),
        mboxes: Vec::new(),
        mboxes_dirty: false,
        agent_sessions: Vec::new(),
        work: Vec::with_capacity(64),
        horizon: Time(scn.simulation.duration.0),
        stop_when_done: scn.simulation.stop_when_done && unfinished > 0,
        unfinished_flows: unfinished,
        done_at: None,
        timeseries,
        sample_interval: scn.output.sample_interval.get().max(Duration::from_micros(1)),
        interrupted: false,
    };
    power::attach_agents(&mut sim, scn, &cx)?;
    power::agent_sessions(&mut sim);
    tunnel::attach_tunnels(&mut sim, scn, &cx)?;
    sim.setup_flow_energy();
    Ok(sim)
}

/// Each flow's DSCP, indexed like the flows; empty if none sets one.
fn flow_dscp(scn: &Scenario) -> Vec<u8> {
    if scn.flows.iter().all(|f| f.dscp.unwrap_or(0) == 0) {
        return Vec::new();
    }
    scn.flows.iter().map(|f| f.dscp.unwrap_or(0)).collect()
}

impl Simulation {
    /// Build a simulation from scenario text. `origin` names the file in errors; `seed`
    /// overrides the scenario's; `overrides` are `key=value` settings.
    pub fn from_toml(text: &str, origin: &str, seed: Option<u64>, overrides: &[String], opts: &BuildOptions) -> Result<Simulation, ScenarioError> {
        let parsed = ScenarioSource::from_text(text, origin).with_overrides(overrides.to_vec()).parse()?;
        let seed = seed.unwrap_or(parsed.scenario.simulation.seed);
        Simulation::from_parsed(&parsed, &parsed.scenario, origin, Provenance::of(&parsed.source, seed), opts)
    }

    /// Build `scn`, the scenario of `parsed` or one made from it (its baseline), with this
    /// provenance. `origin` names it in errors; an error's line is in the user's file.
    pub fn from_parsed(
        parsed: &ParsedScenario,
        scn: &Scenario,
        origin: &str,
        provenance: Provenance,
        opts: &BuildOptions,
    ) -> Result<Simulation, ScenarioError> {
        let (text, overrides) = (&parsed.source.text, &parsed.source.overrides);
        build_with(scn, text, origin, provenance, opts).map_err(|mut e| {
            if !overrides.is_empty() {
                // Errors name the overrides, and the line of the key in the user's file when
                // it is written there (an overridden value has no place of its own).
                e.origin = crate::scenario::load::with_overrides(origin, overrides);
                e.line = None;
                e.column = None;
            }
            e.located_in(text)
        })
    }
}
