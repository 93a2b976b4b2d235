//! What a live run of a tunnel scenario does (`wattlab-live plan` of a scenario with a
//! `[[tunnel]]`): the scenario is read
//! and built by the simulator's own loader (so a live run and `wattlab run` accept the same
//! file, with the same errors), and its one `[[link]]`, `[[wlan]]`, `[[tunnel]]` and TCP flows
//! become the live run's path, tunnel settings and flows.

use std::path::Path;

use serde::Serialize;
use wattlab_core::power::PowerMode;
use wattlab_core::tunnel::TriggerConfig;
use wattlab_core::wlan::phy::find_phy;
use wattlab_core::Duration;
use wattlab_sim::scenario::{FlowSettings, RateSetting};
use wattlab_sim::BuildOptions;

use super::read_scenario;

/// One TCP flow of a tunnel run.
#[derive(Clone, Debug, Serialize)]
pub struct TunnelFlow {
    /// The flow's name.
    pub name: String,
    /// True if the client sends (bulk-upload), false if it receives (bulk-download).
    pub up: bool,
    /// TCP port of the receiving end.
    pub port: u16,
    /// Start after the run's time 0, seconds.
    pub start_s: f64,
    /// The receiving application's read rate, bytes/s.
    pub read_rate_bytes_s: f64,
}

/// The live view of a tunnel scenario.
#[derive(Clone, Debug, Serialize)]
pub struct TunnelPlan {
    /// `tunnel`: tells the orchestrator which kind of live run this is.
    pub kind: &'static str,
    /// Scenario name.
    pub scenario: String,
    /// Run seed (the payload key).
    pub seed: u64,
    /// The scenario's duration: how long the flows send, seconds.
    pub duration_s: f64,
    /// The client node (the `[[tunnel]]`'s station).
    pub client: String,
    /// The client's radio profile.
    pub profile: Option<String>,
    /// The wired link's rate, bit/s, and one-way delay, µs.
    pub wired_rate_bps: u64,
    /// One-way delay of the wired link, µs.
    pub wired_delay_us: u64,
    /// The BSS's data rate, bit/s.
    pub hop_rate_bps: u64,
    /// Per-frame airtime overhead of the BSS at that rate, µs: DIFS, the mean backoff at
    /// CW_min, the PLCP and MAC header time of a 1500-byte frame beyond its IP bytes, SIFS and
    /// the MAC ACK (the hop's `overhead + bytes · 8 / rate` for one uncontended exchange).
    pub hop_overhead_us: u64,
    /// Beacon interval, µs.
    pub beacon_us: u64,
    /// The client's power saving (`u-apsd` or `cam`).
    pub power_save: String,
    /// Burst size m.
    pub burst: u32,
    /// Inlet timeout, ms.
    pub inlet_timeout_ms: f64,
    /// Explicit triggers: (t_min, t_max) in ms, if on.
    pub trigger_ms: Option<(f64, f64)>,
    /// The TCP flows.
    pub flows: Vec<TunnelFlow>,
}

fn ms(d: Duration) -> f64 {
    d.0 as f64 / 1e6
}

/// Loads `path` with the user's overrides and returns its tunnel plan, or an error naming
/// what does not fit a live tunnel run.
pub fn load(path: &Path, overrides: &[String]) -> Result<TunnelPlan, String> {
    let origin = path.display().to_string();
    let text = read_scenario(path)?;
    let scn = wattlab_sim::scenario::parse_with_overrides(&text, &origin, overrides).map_err(|e| e.to_string())?;
    // Build it: every check `wattlab run` makes applies here too.
    wattlab_sim::build::build(&scn, &text, &origin, None, &BuildOptions::default()).map_err(|e| e.to_string())?;
    let need = |ok: bool, what: &str| if ok { Ok(()) } else { Err(format!("{origin}: a live tunnel run needs {what}")) };
    need(scn.tunnels.len() == 1, "exactly one [[tunnel]]")?;
    need(scn.links.len() == 1 && scn.wireless.is_empty(), "one [[link]] (server ⇄ ap) and no [[wireless]] hop")?;
    need(scn.wlan.len() == 1 && scn.wlan[0].stations.get_ref().len() == 1, "one [[wlan]] with one station")?;
    let (link, wlan, tn) = (&scn.links[0], &scn.wlan[0], &scn.tunnels[0]);
    let client = tn.client.get_ref().clone();
    need(wlan.stations.get_ref()[0] == client, "the [[tunnel]]'s client to be the [[wlan]]'s station")?;
    let phy = find_phy(wlan.phy.get_ref()).ok_or_else(|| format!("{origin}: unknown phy `{}`", wlan.phy.get_ref()))?;
    let rate = match wlan.rate.as_ref().map(|r| r.get_ref()) {
        Some(RateSetting::Bitrate(r)) => r.bps(),
        _ => return Err(format!("{origin}: a live tunnel run needs a legacy PHY (802.11a/b/g) with a `rate` such as \"54Mbps\"")),
    };
    let kbps = (rate / 1000) as u32;
    let airtime = phy.difs() + phy.mean_backoff(phy.cw_min) + phy.data_duration(1500, kbps) + phy.sifs + phy.ack_duration(kbps);
    let bits = Duration::from_nanos(1500 * 8 * 1_000_000_000 / rate);
    let overhead = airtime.0.saturating_sub(bits.0) / 1000;
    let power_save = wlan.power_save.mode_name().unwrap_or("cam").to_string();
    let uapsd = power_save == PowerMode::Uapsd.to_string();
    need(uapsd || power_save == "cam", "the [[wlan]]'s power_save to be \"u-apsd\" or \"cam\"")?;
    let beacon = wlan.beacon_interval.map_or(Duration::from_micros(102_400), |d| d.get());
    // The simulator's defaults (build/tunnel.rs): t_min = max(2 ms, wake latency), t_max = the
    // beacon interval; the profile's wake latency is checked there.
    let trigger = (tn.trigger.unwrap_or(uapsd) && uapsd).then(|| {
        let d = TriggerConfig::default();
        (tn.trigger_min.map_or(ms(d.t_min), |v| ms(v.get())), tn.trigger_max.map_or(ms(beacon), |v| ms(v.get())))
    });
    let mut flows = Vec::with_capacity(scn.flows.len());
    for (i, f) in scn.flows.iter().enumerate() {
        let name = f.name.clone().unwrap_or_else(|| format!("flow{i}"));
        let (up, bulk) = match &f.settings {
            FlowSettings::BulkUpload(b) => (true, b),
            FlowSettings::BulkDownload(b) => (false, b),
            _ => return Err(format!("{origin}: flow `{name}` is `{}`; a live tunnel run carries bulk-upload and bulk-download flows", f.kind())),
        };
        need(bulk.client == client, &format!("flow `{name}`'s client to be the tunnel's `{client}`"))?;
        let read = bulk.reader.as_ref().and_then(|r| r.rate).ok_or_else(|| format!("{origin}: flow `{name}` needs reader.rate (the live receiver reads at it)"))?;
        flows.push(TunnelFlow {
            name,
            up,
            port: f.port.ok_or_else(|| format!("{origin}: flow {i} needs a port"))?,
            start_s: f.start.map_or(0.0, |d| d.get().0 as f64 / 1e9),
            read_rate_bytes_s: read.bps() as f64 / 8.0,
        });
    }
    need(!flows.is_empty(), "at least one flow")?;
    // A profile file is named relative to the scenario's directory: the costing reads it by
    // its absolute path (as a simulated run's plan gives it).
    let profile = scn.nodes.iter().find(|n| n.name.get_ref() == &client).and_then(|n| n.radio.as_ref()).map(|r| {
        let spec = r.profile.get_ref();
        if wattlab_core::energy::is_profile_path(spec) {
            let p = wattlab_core::energy::profile_path(spec, path.parent());
            std::fs::canonicalize(&p).unwrap_or(p).display().to_string()
        } else {
            spec.clone()
        }
    });
    Ok(TunnelPlan {
        kind: "tunnel",
        scenario: scn.name.clone().unwrap_or_default(),
        seed: scn.simulation.seed,
        duration_s: scn.simulation.duration.get().0 as f64 / 1e9,
        client,
        profile,
        wired_rate_bps: link.rate.bps(),
        wired_delay_us: link.delay.get().0 / 1000,
        hop_rate_bps: rate,
        hop_overhead_us: overhead,
        beacon_us: beacon.0 / 1000,
        power_save,
        burst: tn.burst.unwrap_or(5),
        inlet_timeout_ms: tn.inlet_timeout.map_or(20.0, |d| ms(d.get())),
        trigger_ms: trigger,
        flows,
    })
}
