//! What a scenario asks of a live run. The scenario is built by the simulator's own loader
//! (same schema, defaults and error messages as `wattlab run`), and the built simulation's
//! [`LiveSpec`] gives the path, TCP settings, agent and radio; the policy picks the hop's
//! power saving (`always-on` = cam, `cc` = the agent, `psm` = idealised PSM at the AP,
//! `adaptive-psm[:timeout=Tms]` = adaptive PSM, by default with mac80211's 100 ms timeout,
//! `twt:interval=Ims,duration=Dus[,offset=Ous]` = 802.11ax individual TWT).

use std::path::Path;

use serde::Serialize;
use wattlab_core::power::{Driver, PowerMode, PowerSave, PowerSaveSettings, TwtAgreement};
use wattlab_core::tcp::CongestionControlKind;
use wattlab_sim::live_spec::{LiveSpec, WebLiveFlow, WwpLiveFlow};
use wattlab_sim::BuildOptions;

use crate::emu::model::PathParams;

pub mod tunnel;

/// What `wattlab-live plan` prints, so the orchestrator asks the core what a scenario needs
/// instead of reading it: for a scenario with a `[[tunnel]]` its tunnel plan (`kind` is
/// `tunnel`; `policy` must be left out or `always-on`: the `[[wlan]]`'s power_save is the
/// client's), otherwise the plan of its one flow under `policy` (`kind` is the flow's).
pub fn describe(path: &Path, policy: Option<LivePolicy>, user_overrides: &[String]) -> Result<serde_json::Value, String> {
    let origin = path.display().to_string();
    let text = read_scenario(path)?;
    let scn = wattlab_sim::scenario::parse_with_overrides(&text, &origin, user_overrides).map_err(|e| e.to_string())?;
    let json = |v: Result<serde_json::Value, serde_json::Error>| v.map_err(|e| e.to_string());
    if !scn.tunnels.is_empty() {
        if let Some(p) = policy.filter(|p| *p != LivePolicy::AlwaysOn) {
            return Err(format!("--policy {p}: a tunnel run's power saving is its [[wlan]]'s power_save (u-apsd or cam); leave --policy out"));
        }
        return json(serde_json::to_value(tunnel::load(path, user_overrides)?));
    }
    let (spec, policy) = load_resolved(path, policy, user_overrides)?;
    json(serde_json::to_value(PlanSummary::of(&spec, policy, user_overrides)?))
}

/// The radio policies a live run can apply. On the command line a policy is its name:
/// `always-on`, `cc`, `psm`, `psna`, `adaptive-psm` (mac80211's 100 ms timeout), or one of the
/// simulator's parameterised power-save names, parsed by the core's registry (the parser of
/// `power_save` in a scenario): `adaptive-psm:timeout=Tms` and
/// `twt:interval=Ims,duration=Dus[,offset=Ous]` (see [`LivePolicy::from_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LivePolicy {
    /// The client's radio is always on; the AP forwards at once.
    AlwaysOn,
    /// Seed 000's client-centered agent on the client (NFQUEUE), the AP forwards at once.
    Cc,
    /// Idealised 802.11 PSM: the AP buffers and releases at each 100 ms beacon.
    Psm,
    /// Adaptive PSM: the AP holds while the station dozes, which it does `timeout_ms` after
    /// its last packet, waking at each beacon.
    AdaptivePsm {
        /// The inactivity timeout, ms (`adaptive-psm` alone: [`ADAPTIVE_TIMEOUT_MS`]).
        timeout_ms: u32,
    },
    /// 802.11ax individual TWT on the hop: the AP holds the station's packets until the
    /// agreement's service periods, the station dozes outside them.
    Twt(TwtAgreement),
    /// Seed 001's PSNA: the mobile of a `psna-read` / `psna-send` flow switches the card off
    /// (the only policy of such a flow, and only for it).
    Psna,
}

impl LivePolicy {
    /// The `[[wireless]] power_save` value that gives this policy in the simulator.
    pub fn power_save(self) -> PowerMode {
        match self {
            LivePolicy::AlwaysOn => PowerMode::Cam,
            LivePolicy::Cc => PowerMode::External(Driver::Cc),
            LivePolicy::Psm => PowerMode::IdealPsm,
            LivePolicy::Psna => PowerMode::External(Driver::Psna),
            LivePolicy::AdaptivePsm { timeout_ms } => PowerMode::AdaptivePsm { timeout_ms },
            LivePolicy::Twt(a) => PowerMode::Twt(a),
        }
    }

    /// The policy's name without its parameters (`always-on`, `cc`, `psm`, `adaptive-psm`,
    /// `twt`, `psna`).
    pub fn family(self) -> &'static str {
        match self {
            LivePolicy::AlwaysOn => "always-on",
            LivePolicy::Cc => "cc",
            LivePolicy::Psm => "psm",
            LivePolicy::Psna => "psna",
            LivePolicy::AdaptivePsm { .. } | LivePolicy::Twt(_) => self.power_save().family(),
        }
    }

    /// The accepted names, for help texts and errors (the ranges are the registry's).
    pub fn help() -> String {
        let ranges = |m: PowerMode| {
            m.params().iter().map(|p| format!("{} = {}..={}", p.letter, p.min, p.max)).collect::<Vec<_>>().join(", ")
        };
        let adaptive = PowerMode::AdaptivePsm { timeout_ms: ADAPTIVE_TIMEOUT_MS };
        let twt = PowerMode::Twt(TwtAgreement::new(100, 8192, false).expect("a valid agreement"));
        format!(
            "always-on, cc, psm, adaptive-psm (timeout {ADAPTIVE_TIMEOUT_MS} ms), adaptive-psm:timeout=Tms ({}), \
             twt:interval=Ims,duration=Dus[,offset=Ous] ({}; D and O below the interval), psna",
            ranges(adaptive),
            ranges(twt)
        )
    }
}

impl std::str::FromStr for LivePolicy {
    type Err = String;

    /// A policy by name: the five plain names, or an `adaptive-psm:` / `twt:` name as the
    /// simulator's `power_save` writes it (the core's registry parses it, so the two accept
    /// exactly the same spellings and ranges). A TWT agreement's `trigger=true` and
    /// `announced=true` are refused: the emulated hop has no frames of its own (no trigger, no
    /// announcement), so on it, as on the simulator's `[[wireless]]` hop, they change nothing.
    fn from_str(s: &str) -> Result<Self, String> {
        let plain = match s {
            "always-on" => Some(LivePolicy::AlwaysOn),
            "cc" => Some(LivePolicy::Cc),
            "psm" => Some(LivePolicy::Psm),
            "psna" => Some(LivePolicy::Psna),
            "adaptive-psm" => Some(LivePolicy::AdaptivePsm { timeout_ms: ADAPTIVE_TIMEOUT_MS }),
            _ => None,
        };
        if let Some(p) = plain {
            return Ok(p);
        }
        match s.parse::<PowerMode>() {
            Ok(PowerMode::AdaptivePsm { timeout_ms }) => Ok(LivePolicy::AdaptivePsm { timeout_ms }),
            Ok(PowerMode::Twt(a)) if a.trigger || a.announced => Err(format!(
                "--policy {s}: trigger=true and announced=true change nothing on the emulated hop (it has no frames \
                 of its own: no trigger, no announcement; as on the simulator's [[wireless]] hop); leave them out"
            )),
            Ok(PowerMode::Twt(a)) if a.broadcast.is_some() => Err(format!(
                "--policy {s}: broadcast TWT needs an AP announcing its schedules in beacons, which the emulated hop \
                 does not have (as the simulator's [[wireless]] hop refuses it); give the agreement without `,broadcast=`"
            )),
            Ok(PowerMode::Twt(a)) => Ok(LivePolicy::Twt(a)),
            _ => Err(format!("unknown live policy `{s}`; expected {}", LivePolicy::help())),
        }
    }
}

impl std::fmt::Display for LivePolicy {
    /// The canonical name: the plain names, and the simulator's for adaptive PSM and TWT
    /// (`adaptive-psm` is written `adaptive-psm:timeout=100ms`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LivePolicy::AdaptivePsm { .. } | LivePolicy::Twt(_) => self.power_save().fmt(f),
            other => f.write_str(other.family()),
        }
    }
}

impl Serialize for LivePolicy {
    /// As its canonical name (`"twt:interval=100ms,duration=8192us"`).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The inactivity timeout of `--policy adaptive-psm` without a timeout, ms: mac80211's default
/// (`ieee80211_recalc_ps` without a PM-QoS latency request; docs/wlan.md, "Adaptive PSM").
pub const ADAPTIVE_TIMEOUT_MS: u32 = 100;

/// True for the flow kinds of seed 001's PSNA.
fn is_psna(f: &wattlab_sim::scenario::FlowConfig) -> bool {
    use wattlab_sim::scenario::FlowSettings;
    matches!(f.settings, FlowSettings::PsnaRead(_) | FlowSettings::PsnaSend(_))
}

/// The policy of a run of `scn`: `asked`, or without it `psna` for a PSNA flow and
/// `always-on` otherwise; a PSNA flow runs only with `psna`, and `psna` only with one.
fn resolve_policy(scn: &wattlab_sim::scenario::Scenario, origin: &str, asked: Option<LivePolicy>) -> Result<LivePolicy, String> {
    let psna = scn.flows.iter().any(is_psna);
    match (asked, psna) {
        (None, true) => Ok(LivePolicy::Psna),
        (None, false) => Ok(LivePolicy::AlwaysOn),
        (Some(LivePolicy::Psna), true) => Ok(LivePolicy::Psna),
        (Some(p), true) => Err(format!("{origin}: --policy {p}: a PSNA flow's radio is switched by its mobile; run it with --policy psna (or no --policy)")),
        (Some(LivePolicy::Psna), false) => Err(format!("{origin}: --policy psna needs a psna-read or psna-send flow")),
        (Some(p), false) => Ok(p),
    }
}

/// The scenario's overrides for `policy`, followed by the user's own `--set` overrides.
pub fn overrides(policy: LivePolicy, user: &[String]) -> Vec<String> {
    let mut v = vec![format!("wireless.0.power_save=\"{}\"", policy.power_save())];
    v.extend(user.iter().cloned());
    v
}

/// Largest scenario file a live run reads (a live scenario has three nodes).
pub const MAX_SCENARIO_BYTES: u64 = 1 << 20;

/// The text of the scenario file at `path`: a regular file of at most [`MAX_SCENARIO_BYTES`]
/// (a directory, FIFO or device such as `/dev/zero` is refused before it is read).
pub fn read_scenario(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let origin = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{origin}: {e}"))?;
    if meta.is_dir() {
        return Err(format!("{origin} is a directory, not a scenario file"));
    }
    if !meta.is_file() {
        return Err(format!("{origin} is not a regular file (a device, FIFO or socket); give a scenario .toml file"));
    }
    if meta.len() > MAX_SCENARIO_BYTES {
        return Err(format!("{origin} is {} bytes; a live scenario is at most {MAX_SCENARIO_BYTES} bytes", meta.len()));
    }
    let mut text = String::new();
    let file = std::fs::File::open(path).map_err(|e| format!("{origin}: {e}"))?;
    file.take(MAX_SCENARIO_BYTES + 1).read_to_string(&mut text).map_err(|e| format!("{origin}: {e}"))?;
    if text.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(format!("{origin} grew beyond {MAX_SCENARIO_BYTES} bytes while it was read"));
    }
    Ok(text)
}

/// Refuses a user override of the hop's `power_save`: the policy sets it.
fn check_user_overrides(user: &[String]) -> Result<(), String> {
    for o in user {
        let key = o.split('=').next().unwrap_or("").trim();
        if key.starts_with("wireless.") && key.ends_with(".power_save") {
            return Err(format!("--set {o}: the hop's power_save is set by --policy ({}), not --set", LivePolicy::help()));
        }
    }
    Ok(())
}

/// Loads `path` with `policy` and the user's overrides, and returns its live view. Errors
/// name only what the user gave: the scenario is read with the user's overrides first, and
/// must have its one `[[wireless]]` hop before the policy's `power_save` is applied to it.
pub fn load(path: &Path, policy: LivePolicy, user_overrides: &[String]) -> Result<LiveSpec, String> {
    load_resolved(path, Some(policy), user_overrides).map(|(spec, _)| spec)
}

/// As [`load`], with the policy the run uses (see [`resolve_policy`]).
pub fn load_resolved(path: &Path, policy: Option<LivePolicy>, user_overrides: &[String]) -> Result<(LiveSpec, LivePolicy), String> {
    let origin = path.display().to_string();
    let text = read_scenario(path)?;
    check_user_overrides(user_overrides)?;
    let users = wattlab_sim::scenario::parse_with_overrides(&text, &origin, user_overrides).map_err(|e| e.to_string())?;
    if users.wireless.len() != 1 {
        return Err(format!("{origin}: a live run needs exactly one [[wireless]] hop (server ⇄ [[link]] ⇄ ap ⇄ [[wireless]] ⇄ client); it has {}", users.wireless.len()));
    }
    let policy = resolve_policy(&users, &origin, policy)?;
    let ov = overrides(policy, user_overrides);
    let scn = wattlab_sim::scenario::parse_with_overrides(&text, &origin, &ov).map_err(|e| e.to_string())?;
    let sim = wattlab_sim::build::build(&scn, &text, &origin, None, &BuildOptions::default()).map_err(|e| e.to_string())?;
    Ok((sim.live_spec(&scn).map_err(|e| format!("{origin}: {e}"))?, policy))
}

/// The emulator's model of the spec's path.
pub fn path_params(spec: &LiveSpec) -> PathParams {
    // Modes the core's station machine runs on the hop as the simulator's hop runs them.
    let own_mode = matches!(spec.power_save, PowerMode::AdaptivePsm { .. } | PowerMode::Twt(_));
    PathParams {
        wired_down: spec.wired_down.clone(),
        hop_down: spec.hop_down.clone(),
        hop_up: spec.hop_up.clone(),
        wired_up: spec.wired_up.clone(),
        half_duplex: spec.half_duplex,
        psm_beacon: (own_mode || spec.power_save == PowerMode::IdealPsm).then_some(spec.beacon_interval),
        uapsd: false,
        // The hop's listen interval is 1 (every beacon instant), the registry's default.
        mode: own_mode.then(|| PowerSave::from_mode(spec.power_save, &PowerSaveSettings::default())),
        seed: spec.seed,
        names: Some(spec.channel_names.clone()),
    }
}

/// The Linux congestion-control module for a scenario's `tcp.cc`, or why there is none.
pub fn linux_cc(kind: CongestionControlKind) -> Result<&'static str, String> {
    Ok(match kind {
        // Linux has one loss-based AIMD module; its recovery is NewReno's (RFC 6582) without
        // SACK and RFC 6675's with it, so both names map to it.
        CongestionControlKind::Reno | CongestionControlKind::NewReno => "reno",
        CongestionControlKind::Cubic => "cubic",
        CongestionControlKind::Vegas => "vegas",
        CongestionControlKind::Westwood => "westwood",
        CongestionControlKind::Tahoe => return Err("Linux has no Tahoe congestion control; use reno, newreno or cubic".into()),
        CongestionControlKind::AckLoss => {
            return Err("Linux has no ACK-loss-aware module (the thesis patched 2.6.28's Reno); use reno".into())
        }
    })
}

/// The plan printed by `wattlab-live plan` for the orchestrator.
#[derive(Debug, Serialize)]
pub struct PlanSummary {
    /// Scenario name.
    pub scenario: String,
    /// Policy.
    pub policy: LivePolicy,
    /// Seed of the emulator's random streams.
    pub seed: u64,
    /// The scenario's stop time, in seconds.
    pub horizon_s: f64,
    /// Client node name.
    pub client: String,
    /// Server node name.
    pub server: String,
    /// Flow name.
    pub flow: String,
    /// Bytes to download.
    pub bytes: u64,
    /// Request size.
    pub request: u64,
    /// Server port.
    pub port: u16,
    /// Flow start, seconds.
    pub start_s: f64,
    /// Scenario congestion control name.
    pub cc: String,
    /// Linux module used for it.
    pub linux_cc: String,
    /// SACK offered.
    pub sack: bool,
    /// Timestamps option.
    pub timestamps: bool,
    /// Window scale shift (None: no scaling).
    pub window_scale: Option<u8>,
    /// Receive buffer = largest advertised window, bytes.
    pub recv_buffer: u32,
    /// The client lets Linux autotune its receive buffer (`tcp.autotune`): no SO_RCVBUF and
    /// no TCP_WINDOW_CLAMP, so `tcp_rcv_space_adjust` runs with the namespace's `tcp_rmem`.
    pub autotune: bool,
    /// Initial congestion window, segments.
    pub initial_cwnd: u32,
    /// Minimum RTO, ms.
    pub min_rto_ms: u64,
    /// cwnd restart after idle (`tcp.slow_start_after_idle`): the testbed's
    /// `net.ipv4.tcp_slow_start_after_idle` on both ends.
    pub slow_start_after_idle: bool,
    /// Maximum segment size.
    pub mss: u16,
    /// Hop name.
    pub hop: String,
    /// Hop rate, bit/s.
    pub hop_rate_bps: u64,
    /// Slowest rate on the way down (wired or hop), bit/s: bounds the transfer time.
    pub down_rate_bps: u64,
    /// Slowest rate on the way up, bit/s: bounds the request's time.
    pub up_rate_bps: u64,
    /// Hop per-frame overhead, ns.
    pub hop_overhead_ns: u64,
    /// Hop power saving in the simulator's terms.
    pub power_save: String,
    /// Beacon interval, ns.
    pub beacon_interval_ns: u64,
    /// Round-trip propagation delay of the path, seconds (no queueing or serialization).
    pub base_rtt_s: f64,
    /// The client's radio profile.
    pub profile: Option<String>,
    /// The scenario changes the profile's transition costs (`radio.transitions`): the live
    /// costing of the capture uses the named profile without them.
    pub profile_overridden: bool,
    /// The agent's end-of-burst detection (`cc` only).
    pub detection: Option<String>,
    /// The scenario overrides this plan was built with (the policy's, then the user's): the
    /// simulator side of `wattlab live compare` runs with exactly these.
    pub overrides: Vec<String>,
    /// The flow's kind: `bulk-download`, `wwp-bulk`, `web`, `psna-read` or `psna-send`.
    pub kind: String,
    /// A `wwp-bulk` flow's live plan.
    pub wwp: Option<WwpPlan>,
    /// A PSNA flow's live plan.
    pub psna: Option<PsnaPlan>,
    /// A web flow's live plan (the simulator's page plan).
    pub web: Option<WebPlan>,
}

/// One page view of a web flow's live plan.
#[derive(Debug, Serialize)]
pub struct WebPlanPage {
    /// Body sizes, bytes, the HTML first.
    pub sizes: Vec<u64>,
    /// Think time after the page, seconds.
    pub think_s: f64,
    /// First view of this page's content.
    pub first_visit: bool,
}

/// What a live run of a `web` flow does: the pages the simulator's web application draws.
#[derive(Debug, Serialize)]
pub struct WebPlan {
    /// Page views in order.
    pub pages: Vec<WebPlanPage>,
    /// Persistent connections to the site at most.
    pub max_connections: u32,
    /// Response header bytes added to each body.
    pub response_header: u64,
    /// Objects (HTML included) over every view.
    pub objects: u64,
    /// Sum of the think times, seconds.
    pub think_total_s: f64,
}

impl WebPlan {
    /// The plan of `flow`.
    pub fn of(flow: &WebLiveFlow) -> WebPlan {
        let pages: Vec<WebPlanPage> = flow
            .pages
            .iter()
            .map(|p| WebPlanPage { sizes: p.sizes.clone(), think_s: p.think.as_secs_f64(), first_visit: p.first_visit })
            .collect();
        WebPlan {
            think_total_s: pages.iter().map(|p| p.think_s).sum(),
            pages,
            max_connections: flow.max_connections,
            response_header: flow.response_header,
            objects: flow.objects(),
        }
    }
}

/// What a live run of a `psna-read` / `psna-send` flow does.
#[derive(Debug, Serialize)]
pub struct PsnaPlan {
    /// `read` or `send`.
    pub direction: String,
    /// The daemon's UDP port on the AP.
    pub daemon_port: u16,
    /// Test hook: the fixed host stops after this many object bytes.
    pub fh_stop_after: Option<u64>,
    /// PS-TP retransmission timeout, s.
    pub rto_s: f64,
    /// Retransmissions before the mobile gives up.
    pub max_retries: u32,
    /// DATA payload per message, bytes.
    pub chunk_size: u16,
    /// EWMA weight α.
    pub alpha: f64,
    /// Data packets per estimator interval.
    pub min_packets: u32,
}

/// What a live run of a `wwp-bulk` flow does.
#[derive(Debug, Serialize)]
pub struct WwpPlan {
    /// The sender's namespace role (`client` = the hop's station, or `server`).
    pub sender: String,
    /// The receiver's namespace role.
    pub receiver: String,
    /// Bytes to send (None: a continuous stream).
    pub bytes: Option<u64>,
    /// How long the sender writes, seconds (None: until `bytes` or the run's end).
    pub duration_s: Option<f64>,
    /// Message size, bytes.
    pub message: u32,
    /// Segment payload, bytes.
    pub segment_size: u16,
    /// Baseline throughput BT, bytes per second.
    pub baseline_throughput: u64,
    /// REC_T, seconds.
    pub rec_t_s: f64,
    /// SEND_T, seconds.
    pub send_t_s: f64,
    /// Pause after level 0, seconds.
    pub pause_s: f64,
}

impl WwpPlan {
    /// The plan of `flow`.
    pub fn of(flow: &WwpLiveFlow) -> WwpPlan {
        let (sender, receiver) = if flow.from_client { ("client", "server") } else { ("server", "client") };
        let c = &flow.config;
        WwpPlan {
            sender: sender.into(),
            receiver: receiver.into(),
            bytes: flow.bytes,
            duration_s: flow.duration.map(|d| d.as_secs_f64()),
            message: flow.message,
            segment_size: c.segment_size,
            baseline_throughput: c.baseline_throughput,
            rec_t_s: c.rec_t.as_secs_f64(),
            send_t_s: c.send_t.as_secs_f64(),
            pause_s: c.pause.as_secs_f64(),
        }
    }
}

impl PlanSummary {
    /// The summary of `spec` under `policy`.
    pub fn of(spec: &LiveSpec, policy: LivePolicy, user_overrides: &[String]) -> Result<PlanSummary, String> {
        let t = &spec.tcp;
        let rtt = spec.wired_down.delay + spec.wired_up.delay + spec.hop_down.delay + spec.hop_up.delay;
        Ok(PlanSummary {
            scenario: spec.scenario.clone(),
            policy,
            seed: spec.seed,
            horizon_s: spec.horizon.as_secs_f64(),
            client: spec.client.clone(),
            server: spec.server.clone(),
            flow: spec.flow.clone(),
            bytes: spec.bytes,
            request: spec.request,
            port: spec.port,
            start_s: spec.start.as_secs_f64(),
            cc: t.congestion_control.name().to_string(),
            linux_cc: linux_cc(t.congestion_control)?.to_string(),
            sack: t.sack,
            timestamps: t.timestamps,
            window_scale: t.window_scale,
            recv_buffer: t.recv_buffer,
            autotune: t.autotune,
            initial_cwnd: t.initial_cwnd,
            min_rto_ms: t.min_rto.0 / 1_000_000,
            slow_start_after_idle: t.slow_start_after_idle,
            mss: t.mss,
            hop: spec.hop.clone(),
            hop_rate_bps: spec.hop_down.rate_bps,
            down_rate_bps: spec.wired_down.rate_bps.min(spec.hop_down.rate_bps),
            up_rate_bps: spec.wired_up.rate_bps.min(spec.hop_up.rate_bps),
            hop_overhead_ns: spec.hop_down.overhead.0,
            power_save: spec.power_save.to_string(),
            beacon_interval_ns: spec.beacon_interval.0,
            base_rtt_s: rtt.as_secs_f64(),
            profile: spec.profile_spec.clone(),
            // The profile as read again (a built-in, or the file), without the scenario's changes.
            profile_overridden: spec.profile.as_ref().zip(spec.profile_spec.as_deref()).is_some_and(|(p, s)| {
                wattlab_core::energy::resolve_profile(s, None).ok().as_ref() != Some(p)
            }),
            detection: spec.agent.as_ref().map(|a| a.detection.name().to_string()),
            overrides: overrides(policy, user_overrides),
            kind: match (&spec.wwp, &spec.psna) {
                _ if spec.web.is_some() => "web",
                (Some(_), _) => "wwp-bulk",
                (_, Some(p)) if p.read => "psna-read",
                (_, Some(_)) => "psna-send",
                _ => "bulk-download",
            }
            .into(),
            wwp: spec.wwp.as_ref().map(WwpPlan::of),
            web: spec.web.as_ref().map(WebPlan::of),
            psna: spec.psna.as_ref().map(|p| PsnaPlan {
                direction: if p.read { "read" } else { "send" }.into(),
                daemon_port: p.daemon_port,
                fh_stop_after: p.fh_stop_after,
                rto_s: p.configs.mobile.rto.as_secs_f64(),
                max_retries: p.configs.mobile.max_retries,
                chunk_size: p.configs.mobile.chunk_size,
                alpha: p.configs.daemon.estimator.alpha,
                min_packets: p.configs.daemon.estimator.min_packets,
            }),
        })
    }
}
