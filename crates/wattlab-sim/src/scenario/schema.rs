//! The scenario file schema (TOML). Documented for users in `docs/scenario.md`.
//!
//! Every struct denies unknown keys, so a typo is an error naming the file, line and key
//! instead of a silently ignored setting.

use super::power_save::PowerSaveConfig;
use super::flow::FlowConfig;
use super::units::{Dur, Rate, Size};
use serde::{Deserialize, Serialize};
use std::net::Ipv4Addr;
use toml::Spanned;

/// A whole scenario file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Short name, used in reports.
    #[serde(default)]
    pub name: Option<String>,
    /// Free-text description.
    #[serde(default)]
    pub description: Option<String>,
    /// Run control: seed, stop time.
    #[serde(default)]
    pub simulation: SimulationConfig,
    /// Nodes: hosts, routers, access points (`[[node]]`).
    #[serde(rename = "node", default)]
    pub nodes: Vec<NodeConfig>,
    /// Point-to-point links (`[[link]]`).
    #[serde(rename = "link", default)]
    pub links: Vec<LinkConfig>,
    /// Simple wireless last hops between an access point and a station (`[[wireless]]`).
    #[serde(default)]
    pub wireless: Vec<WirelessConfig>,
    /// 802.11 basic service sets: an AP and its stations on one DCF channel (`[[wlan]]`).
    #[serde(default)]
    pub wlan: Vec<WlanConfig>,
    /// Static routes that override the computed shortest paths (`[[route]]`).
    #[serde(rename = "route", default)]
    pub routes: Vec<RouteConfig>,
    /// Traffic: applications and their transport settings (`[[flow]]`), each read by its kind
    /// in a second stage ([`super::flow::read_flows`], called by the loader).
    #[serde(rename = "flow", default, deserialize_with = "super::flow::read_later")]
    pub flows: Vec<FlowConfig>,
    /// SCTP tunnels between a `[[wlan]]` station and its AP (`[[tunnel]]`, seed 002 Ch. 4).
    #[serde(rename = "tunnel", default)]
    pub tunnels: Vec<TunnelSettings>,
    /// What to write besides the summary.
    #[serde(default)]
    pub output: OutputConfig,
}

/// Run control.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimulationConfig {
    /// Seed of every random stream (overridden by `--seed`).
    pub seed: u64,
    /// Hard stop: simulated time after which the run ends, done or not.
    pub duration: Dur,
    /// End the run as soon as every finite flow has completed.
    pub stop_when_done: bool,
}

impl Default for SimulationConfig {
    fn default() -> Self {
        SimulationConfig { seed: 1, duration: Dur(3_600_000_000_000), stop_when_done: true }
    }
}

/// What a node is.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKind {
    /// An end host: runs applications, does not forward.
    Host,
    /// A router: forwards by static routes.
    Router,
    /// An access point: a router with a wireless interface.
    Ap,
}

/// One node.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    /// Unique name.
    pub name: Spanned<String>,
    /// host, router or ap.
    pub kind: NodeKind,
    /// IPv4 address; assigned as 10.0.0.N (N = position + 1) if absent.
    #[serde(default)]
    pub address: Option<Ipv4Addr>,
    /// The wireless NIC whose energy is measured (stations only).
    #[serde(default)]
    pub radio: Option<RadioConfig>,
    /// Where the node is, `[x, y]` or `[x, y, z]` in metres (a `[[wlan]]` with
    /// `[wlan.propagation]` needs one for every member).
    #[serde(default)]
    pub position: Option<Spanned<Vec<f64>>>,
    /// Time each packet the node's own sockets send takes to leave it, one at a time (the
    /// host's transmit path; forwarded packets are not affected); what waits stays in the
    /// socket (Linux's TSQ), so a TCP decides each segment as it leaves (`stack::TxPath`).
    /// Absent or 0: every packet leaves at once.
    #[serde(default)]
    pub tx_time: Option<Dur>,
}

/// A node's radio: device profile and the power policies to account it under.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RadioConfig {
    /// Device profile name (see `wattlab profiles`).
    pub profile: Spanned<String>,
    /// Accounting policies; each is reported separately from the same run.
    #[serde(default = "default_policies")]
    pub policies: Vec<Spanned<String>>,
    /// Transition costs replacing or adding to the profile's (e.g. a cost per off → on cycle
    /// the profile's source does not give); every meter of the radio uses them.
    #[serde(default)]
    pub transitions: Vec<Spanned<RadioTransitionConfig>>,
}

/// One transition cost of a radio override: `from` → `to` takes `duration` at `power_mw`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RadioTransitionConfig {
    /// State left: `off`, `sleep` or `idle`.
    pub from: String,
    /// State entered: `idle`, or `off`/`sleep` from `idle`.
    pub to: String,
    /// How long the transition takes (carved out of the dormant interval).
    pub duration: Dur,
    /// Power drawn meanwhile, milliwatts.
    pub power_mw: f64,
}

fn default_policies() -> Vec<Spanned<String>> {
    ["always-on", "oracle"].iter().map(|s| Spanned::new(0..0, s.to_string())).collect()
}

/// A DropTail queue limit: exactly one of `packets` or `bytes`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct QueueConfig {
    /// Capacity in packets.
    #[serde(default)]
    pub packets: Option<u32>,
    /// Capacity in bytes (IP length).
    #[serde(default)]
    pub bytes: Option<Size>,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig { packets: Some(100), bytes: None }
    }
}

/// Impairments of one direction of a link.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionConfig {
    /// Packet loss process.
    #[serde(default)]
    pub loss: Option<LossConfig>,
    /// Extra random delay per packet.
    #[serde(default)]
    pub jitter: Option<JitterConfig>,
    /// Let jitter reorder packets (default: no, packets keep their order).
    #[serde(default)]
    pub reorder: bool,
}

/// A loss process.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LossConfig {
    /// Independent loss with probability `p`.
    Bernoulli {
        /// Loss probability per packet, in [0, 1].
        p: f64,
    },
    /// Gilbert–Elliott two-state chain, stepped per packet.
    GilbertElliott {
        /// P(good → bad) per packet.
        p_good_to_bad: f64,
        /// P(bad → good) per packet.
        p_bad_to_good: f64,
        /// Loss probability in the good state (default 0).
        #[serde(default)]
        loss_good: f64,
        /// Loss probability in the bad state (default 1).
        #[serde(default = "one")]
        loss_bad: f64,
    },
    /// Deterministic drop of every n-th packet (seed 004's VDROP), optionally in on/off phases.
    EveryNth {
        /// Drop one packet in `n` (n ≥ 2; 20 % is 5).
        n: u32,
        /// Length of a dropping phase (default: drop throughout).
        #[serde(default)]
        on: Option<Dur>,
        /// Length of a no-drop phase (default: equal to `on`).
        #[serde(default)]
        off: Option<Dur>,
        /// Where in the on/off cycle (which starts with `on`) the run starts (default 0s).
        #[serde(default)]
        offset: Option<Dur>,
    },
}

fn one() -> f64 {
    1.0
}

/// Delay jitter added to the propagation delay.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case", deny_unknown_fields)]
pub enum JitterConfig {
    /// A constant extra delay.
    Constant {
        /// The extra delay.
        value: Dur,
    },
    /// Uniform extra delay in [min, max].
    Uniform {
        /// Smallest extra delay.
        min: Dur,
        /// Largest extra delay.
        max: Dur,
    },
    /// Gamma-distributed extra delay (seed 000's peak-hour model).
    Gamma {
        /// Shape k > 0.
        shape: f64,
        /// Scale θ (a duration); mean = k·θ.
        scale: Dur,
    },
}

/// A full-duplex point-to-point link.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Name used in reports (default `a-b`).
    #[serde(default)]
    pub name: Option<String>,
    /// One end (node name).
    pub a: Spanned<String>,
    /// Other end (node name).
    pub b: Spanned<String>,
    /// Rate of each direction.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Transmit queue of each end.
    #[serde(default)]
    pub queue: QueueConfig,
    /// Impairments from a to b.
    #[serde(default)]
    pub a_to_b: DirectionConfig,
    /// Impairments from b to a.
    #[serde(default)]
    pub b_to_a: DirectionConfig,
}

/// A simple wireless last hop: one shared channel between an AP and one station.
/// Airtime per frame = `mac_overhead` + IP length · 8 / `rate`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WirelessConfig {
    /// Name used in reports (default `ap-station`).
    #[serde(default)]
    pub name: Option<String>,
    /// The access point (node of kind `ap`).
    pub ap: Spanned<String>,
    /// The station (a host).
    pub station: Spanned<String>,
    /// PHY rate.
    pub rate: Rate,
    /// Fixed per-frame MAC/PHY overhead (preamble, headers, inter-frame spaces, ACK); 0 = a
    /// DummyNet-like pipe, as seed 000 emulated.
    #[serde(default)]
    pub mac_overhead: Option<Dur>,
    /// Propagation delay (default 1 µs).
    #[serde(default)]
    pub delay: Option<Dur>,
    /// One transmitter at a time, AP and station sharing the channel (default true).
    #[serde(default = "yes")]
    pub half_duplex: bool,
    /// Transmit queue at each end.
    #[serde(default)]
    pub queue: QueueConfig,
    /// Impairments AP → station.
    #[serde(default)]
    pub down: DirectionConfig,
    /// Impairments station → AP.
    #[serde(default)]
    pub up: DirectionConfig,
    /// The station's power management, emulated at the IP level as seed 000 did: a mode's
    /// name (`power_save = "psm"`) or a table with its settings (docs/scenario.md).
    #[serde(default)]
    pub power_save: PowerSaveConfig,
    /// Older spelling of `power_save.beacon_interval` (moved there by `power_save::normalize`).
    #[serde(default)]
    pub beacon_interval: Option<Dur>,
    /// Older spelling of `power_save.listen_interval`.
    #[serde(default)]
    pub listen_interval: Option<u32>,
    /// Older spelling of `power_save.uapsd_trigger_interval`.
    #[serde(default)]
    pub uapsd_trigger_interval: Option<Dur>,
    /// Older spelling of `power_save.uapsd_max_sp`.
    #[serde(default)]
    pub uapsd_max_sp: Option<u32>,
    /// Older spelling of `power_save.agent`.
    #[serde(default)]
    pub agent: Option<AgentSettings>,
}

/// `agent = { ... }` of a `[[wireless]]`, `[[wlan]]` or `[[wlan.station]]`: seed 000's
/// client-centered agent (see docs/agent.md).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    /// End-of-burst detection: `active` (default), `dynamic` or `fixed`.
    #[serde(default)]
    pub detection: Option<String>,
    /// Quiet time that ends a burst with `detection = "fixed"` (default 10 ms).
    #[serde(default)]
    pub fixed_threshold: Option<Dur>,
    /// Shape congestion avoidance with closed/open ACKs (default true).
    #[serde(default)]
    pub shaping: Option<bool>,
    /// Per-site RTT cache (default true).
    #[serde(default)]
    pub rtt_cache: Option<bool>,
    /// Wireless bandwidth for the saturation test (default: the hop's rate).
    #[serde(default)]
    pub link_rate: Option<Rate>,
    /// Initial server bandwidth estimate B of D = W / B (default 100 Mb/s).
    #[serde(default)]
    pub server_rate: Option<Rate>,
    /// Shortest sleep worth taking (default: the radio profile's break-even time).
    #[serde(default)]
    pub min_sleep: Option<Dur>,
    /// Wake this long before a predicted arrival (default 1 ms).
    #[serde(default)]
    pub wake_guard: Option<Dur>,
    /// Wake this many RTT deviations before the next burst's earliest arrival (default 1).
    #[serde(default)]
    pub wake_var_factor: Option<f64>,
    /// Floor of the dynamic threshold in RTT deviations (default 4; 0 = the seed's formula).
    #[serde(default)]
    pub dynamic_var_floor: Option<f64>,
    /// Floor of the probe delay D (default 3 ms).
    #[serde(default)]
    pub probe_delay_floor: Option<Dur>,
    /// Saturated when W reaches this fraction of the bandwidth-delay product (default 0.9).
    #[serde(default)]
    pub saturation_fraction: Option<f64>,
    /// VAR multiplier of the slow-start stage prediction (default 1).
    #[serde(default)]
    pub stage_var_factor: Option<f64>,
    /// Revert to plain TCP after this many consecutive windows with a loss (default 3, the
    /// seed's "no in-order window for 3 consecutive windows").
    #[serde(default)]
    pub lossy_windows_to_revert: Option<u32>,
    /// Time a packet reaching the station spends in the agent before the stack gets it (a
    /// userspace agent's NFQUEUE round trip; default 0).
    #[serde(default)]
    pub incoming_delay: Option<Dur>,
    /// Time a packet the station sends spends in the agent before the interface gets it
    /// (default 0).
    #[serde(default)]
    pub outgoing_delay: Option<Dur>,
}

fn yes() -> bool {
    true
}

/// A retry limit: a number of retries, or `"unlimited"`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum RetryLimit {
    /// Retries after the first attempt.
    Count(u32),
    /// `"unlimited"` (Bianchi's model).
    Keyword(String),
}

/// An 802.11 basic service set: the AP and its stations share one channel under DCF.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WlanConfig {
    /// Name used in reports (default `wlanN`).
    #[serde(default)]
    pub name: Option<String>,
    /// The access point (node of kind `ap`).
    pub ap: Spanned<String>,
    /// The client stations (hosts).
    pub stations: Spanned<Vec<String>>,
    /// PHY profile: 802.11a, 802.11g, 802.11b, dsss-2mbps, 802.11n, 802.11ac or 802.11ax
    /// (also written without dots).
    pub phy: Spanned<String>,
    /// Data rate of every data frame: one of a legacy PHY's rates (`"54Mbps"`), or a
    /// rate-control algorithm (`"ideal"`, `"minstrel-ht"`; needs `[wlan.propagation]`).
    #[serde(default)]
    pub rate: Option<Spanned<RateSetting>>,
    /// Frequency band of an 802.11n/ac/ax BSS: "2.4GHz", "5GHz" (default) or "6GHz".
    #[serde(default)]
    pub band: Option<Spanned<String>>,
    /// HE receivers' nominal packet padding (802.11ax): "0us" (default), "8us" or "16us".
    #[serde(default)]
    pub packet_padding: Option<Spanned<Dur>>,
    /// MCS index (802.11n/ac/ax): HT 0-7 per stream (or the HT-MCS 0-31), VHT 0-9, HE 0-11.
    #[serde(default)]
    pub mcs: Option<Spanned<u8>>,
    /// Spatial streams, 1-4 (default 1).
    #[serde(default)]
    pub nss: Option<Spanned<u8>>,
    /// Channel width, MHz: 20 (default), 40, 80, 160; `80` or `"80MHz"`.
    #[serde(default)]
    pub width: Option<Spanned<ChannelWidth>>,
    /// Guard interval: "800ns" (default), "400ns" (HT/VHT short GI), "1.6us", "3.2us" (HE).
    #[serde(default)]
    pub gi: Option<Spanned<Dur>>,
    /// Short DSSS preambles (802.11b only; default long).
    #[serde(default)]
    pub short_preamble: bool,
    /// Use RTS/CTS for frames (MPDU) longer than this (default: never).
    #[serde(default)]
    pub rts_threshold: Option<Size>,
    /// A-MSDU inside A-MPDU (802.11n/ac/ax): several packets per MPDU (default false).
    #[serde(default)]
    pub amsdu: Option<Spanned<bool>>,
    /// Largest A-MSDU in bytes (default: the most the PHY format allows; sets `amsdu`).
    #[serde(default)]
    pub amsdu_max: Option<Spanned<u32>>,
    /// Retries of frames sent without RTS (default 7), or "unlimited".
    #[serde(default)]
    pub retry_limit: Option<Spanned<RetryLimit>>,
    /// Retries of frames sent with RTS (default 4), or "unlimited".
    #[serde(default)]
    pub long_retry_limit: Option<Spanned<RetryLimit>>,
    /// The AP's transmit buffer, shared by all stations' frames (default 100 packets).
    #[serde(default)]
    pub ap_queue: Option<u32>,
    /// Each station's transmit queue (default 100 packets).
    #[serde(default)]
    pub station_queue: Option<u32>,
    /// How the AP picks its next frame: "fifo" (default), "fair-class" (fair queueing between
    /// power-saving and regular stations, seed 000) or "fair-station".
    #[serde(default)]
    pub ap_queueing: Option<Spanned<String>>,
    /// Weight of the power-saving class under "fair-class" (regular stations weigh 1;
    /// default 1): its share of a backlogged AP is w / (1 + w).
    #[serde(default)]
    pub ap_power_save_weight: Option<Spanned<f64>>,
    /// Propagation delay between any two stations (default 0).
    #[serde(default)]
    pub propagation_delay: Option<Dur>,
    /// Cost of overhearing others' frames: "rx" (default) or "idle".
    #[serde(default)]
    pub overhearing: Option<Spanned<String>>,
    /// Beacon interval (default 102.4 ms).
    #[serde(default)]
    pub beacon_interval: Option<Dur>,
    /// Send beacons (default: when a station uses PSM or BSD).
    #[serde(default)]
    pub beacons: Option<bool>,
    /// Power management of every station unless overridden: a mode's name or a table with
    /// its settings (docs/scenario.md).
    #[serde(default)]
    pub power_save: PowerSaveConfig,
    /// Older spelling of `power_save.agent` (moved there by `power_save::normalize`).
    #[serde(default)]
    pub agent: Option<AgentSettings>,
    /// Older spelling of `power_save.listen_interval`.
    #[serde(default)]
    pub listen_interval: Option<u32>,
    /// Older spelling of `power_save.ideal_psm_interval`.
    #[serde(default)]
    pub ideal_psm_interval: Option<Dur>,
    /// Older spelling of `power_save.uapsd_trigger_interval`.
    #[serde(default)]
    pub uapsd_trigger_interval: Option<Dur>,
    /// Older spelling of `power_save.uapsd_max_sp`.
    #[serde(default)]
    pub uapsd_max_sp: Option<u32>,
    /// Frame errors AP → station (every station unless overridden).
    #[serde(default)]
    pub down_loss: Option<LossConfig>,
    /// Frame errors station → AP.
    #[serde(default)]
    pub up_loss: Option<LossConfig>,
    /// Where the loss processes act: "frame" (each attempt; the MAC retransmits) or
    /// "packet" (each delivered packet, above the MAC's retransmissions).
    #[serde(default)]
    pub loss_layer: Option<Spanned<String>>,
    /// Per-station overrides (`[[wlan.station]]`).
    #[serde(rename = "station", default)]
    pub station_overrides: Vec<WlanStationConfig>,
    /// Channel-access priority of the AP: a preset name ("fukuda-oie") or a table
    /// `{ aifs_slots, cw_min, cw_max }` (default: none, the AP contends like a station).
    #[serde(default)]
    pub ap_priority: Option<Spanned<ApPrioritySetting>>,
    /// Distance, path loss, SNR-driven frame errors and capture (`[wlan.propagation]`;
    /// default: none, every member hears every other perfectly).
    #[serde(default)]
    pub propagation: Option<Spanned<PropagationSettings>>,
}

/// `[wlan.propagation]`: the link budget of a BSS (docs/wlan.md, "Distance, errors and rate
/// control"). Every setting defaults to ns-3's.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropagationSettings {
    /// Path-loss model: `"log-distance"` (the only one, default).
    #[serde(default)]
    pub model: Option<String>,
    /// Path-loss exponent (default 3).
    #[serde(default)]
    pub exponent: Option<f64>,
    /// Reference distance, m (default 1).
    #[serde(default)]
    pub reference_distance_m: Option<f64>,
    /// Loss at the reference distance, dB (default 46.6777: free space at 1 m, 5.15 GHz).
    #[serde(default)]
    pub reference_loss_db: Option<f64>,
    /// Standard deviation of log-normal shadowing, dB, one draw per link (default 0: none).
    #[serde(default)]
    pub shadowing_sigma_db: Option<f64>,
    /// Transmit power of every member, dBm (default 16.0206).
    #[serde(default)]
    pub tx_power_dbm: Option<f64>,
    /// Receiver noise figure, dB (default 7).
    #[serde(default)]
    pub noise_figure_db: Option<f64>,
    /// Capture the strongest frame of a collision when its SINR allows (default true).
    #[serde(default)]
    pub capture: Option<bool>,
    /// SINR a colliding frame needs to be captured, dB (default 10, ns-2's CPThresh).
    #[serde(default)]
    pub capture_threshold_db: Option<f64>,
}

/// `[[tunnel]]`: seed 002's SCTP tunnel carrying every TCP packet between a `[[wlan]]` station
/// and the rest of the network through its AP, in bursts of `burst` (docs/tunnel.md).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TunnelSettings {
    /// Name in reports (default `tunnelN`).
    #[serde(default)]
    pub name: Option<String>,
    /// The client: a station of a `[[wlan]]` (the AP end sits on its AP).
    pub client: Spanned<String>,
    /// Burst size m (default 5).
    #[serde(default)]
    pub burst: Option<u32>,
    /// How the SCTP packets travel: "udp" (port 9899, RFC 6951; default) or "ip" (IP protocol
    /// 132, as native SCTP).
    #[serde(default)]
    pub encapsulation: Option<Spanned<String>>,
    /// The inlet releases this long after its first buffered packet (default 20 ms).
    #[serde(default)]
    pub inlet_timeout: Option<Dur>,
    /// Longest a SACK waits for DATA to ride on (default 200 ms, RFC 9260).
    #[serde(default)]
    pub sack_delay: Option<Dur>,
    /// RTO.Min (default 1 s, RFC 9260).
    #[serde(default)]
    pub rto_min: Option<Dur>,
    /// RTO.Initial (default 1 s, RFC 9260).
    #[serde(default)]
    pub rto_initial: Option<Dur>,
    /// Start the association with RFC 9260's four-way handshake, the client initiating at
    /// time zero (default true); false: pre-established.
    #[serde(default)]
    pub handshake: Option<bool>,
    /// Max.Burst (RFC 9260 §6.1 D): at most this many new DATA packets per output
    /// opportunity; 0 = no limit (default 0; the RFC's value is 4).
    #[serde(default)]
    pub max_burst: Option<u32>,
    /// Explicit U-APSD triggers from the estimator of Eqs. 4.15–4.17 (default: when the
    /// client's power_save is `u-apsd`; only then allowed).
    #[serde(default)]
    pub trigger: Option<bool>,
    /// Weight α of the newest slot in the estimator (default 0.3).
    #[serde(default)]
    pub trigger_alpha: Option<f64>,
    /// Measurement slot H (default 50 ms).
    #[serde(default)]
    pub trigger_slot: Option<Dur>,
    /// Shortest trigger interval (default max(2 ms, the radio's wake latency); not below it).
    #[serde(default)]
    pub trigger_min: Option<Dur>,
    /// Longest trigger interval (default and most: the BSS's beacon interval).
    #[serde(default)]
    pub trigger_max: Option<Dur>,
}

/// `ap_priority` in `[[wlan]]`: a preset or explicit parameters.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum ApPrioritySetting {
    /// A named preset (`fukuda-oie`).
    Preset(String),
    /// Explicit parameters; missing ones default to the PHY's (AIFS = DIFS = 2 slots).
    Custom(ApPriorityTable),
}

/// Explicit `ap_priority` parameters.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApPriorityTable {
    /// Slots after SIFS the AP defers (1 = PIFS, 2 = DIFS).
    #[serde(default)]
    pub aifs_slots: Option<u32>,
    /// The AP's CW_min.
    #[serde(default)]
    pub cw_min: Option<u32>,
    /// The AP's CW_max.
    #[serde(default)]
    pub cw_max: Option<u32>,
}

/// Settings of one station that differ from its BSS's.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WlanStationConfig {
    /// The station (one of the BSS's `stations`).
    pub node: Spanned<String>,
    /// Its power management, over the BSS's: a mode's name or a table (what it writes wins).
    #[serde(default)]
    pub power_save: PowerSaveConfig,
    /// Older spelling of `power_save.agent` (moved there by `power_save::normalize`).
    #[serde(default)]
    pub agent: Option<AgentSettings>,
    /// Older spelling of `power_save.listen_interval`.
    #[serde(default)]
    pub listen_interval: Option<u32>,
    /// Frame errors AP → this station.
    #[serde(default)]
    pub down_loss: Option<LossConfig>,
    /// Frame errors this station → AP.
    #[serde(default)]
    pub up_loss: Option<LossConfig>,
    /// Its transmit queue.
    #[serde(default)]
    pub queue: Option<u32>,
    /// Its data rate (both directions of its link), over the BSS's: a legacy rate, or a
    /// rate-control algorithm (needs `[wlan.propagation]`).
    #[serde(default)]
    pub rate: Option<Spanned<RateSetting>>,
    /// MCS index (802.11n/ac/ax): HT 0-7 per stream (or the HT-MCS 0-31), VHT 0-9, HE 0-11.
    #[serde(default)]
    pub mcs: Option<Spanned<u8>>,
    /// Spatial streams, 1-4 (default 1).
    #[serde(default)]
    pub nss: Option<Spanned<u8>>,
    /// Channel width, MHz: 20 (default), 40, 80, 160; `80` or `"80MHz"`.
    #[serde(default)]
    pub width: Option<Spanned<ChannelWidth>>,
    /// Guard interval: "800ns" (default), "400ns" (HT/VHT short GI), "1.6us", "3.2us" (HE).
    #[serde(default)]
    pub gi: Option<Spanned<Dur>>,
}

/// The rate keys of a `[[wlan]]` or a `[[wlan.station]]`, borrowed.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxKeys<'a> {
    /// `rate`.
    pub rate: Option<&'a Spanned<RateSetting>>,
    /// `mcs`.
    pub mcs: Option<&'a Spanned<u8>>,
    /// `nss`.
    pub nss: Option<&'a Spanned<u8>>,
    /// `width`.
    pub width: Option<&'a Spanned<ChannelWidth>>,
    /// `gi`.
    pub gi: Option<&'a Spanned<Dur>>,
}

impl WlanConfig {
    /// Its rate keys.
    pub fn tx_keys(&self) -> TxKeys<'_> {
        TxKeys { rate: self.rate.as_ref(), mcs: self.mcs.as_ref(), nss: self.nss.as_ref(), width: self.width.as_ref(), gi: self.gi.as_ref() }
    }
}

impl WlanStationConfig {
    /// Its rate keys (each over its BSS's).
    pub fn tx_keys(&self) -> TxKeys<'_> {
        TxKeys { rate: self.rate.as_ref(), mcs: self.mcs.as_ref(), nss: self.nss.as_ref(), width: self.width.as_ref(), gi: self.gi.as_ref() }
    }
}

/// How data frames pick their rate: a legacy PHY's bit rate, or the name of a rate setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RateSetting {
    /// A fixed non-HT rate (`"54Mbps"`), for the legacy PHYs.
    Bitrate(Rate),
    /// A word (no leading digit): the name of a rate-control algorithm (`"ideal"`,
    /// `"minstrel-ht"`), checked when the BSS is built.
    Named(String),
}

impl RateSetting {
    /// A rate with a unit if `s` starts with a digit, else a setting's name.
    pub fn parse(s: &str) -> Result<RateSetting, String> {
        if s.trim_start().starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            Rate::parse(s).map(RateSetting::Bitrate)
        } else {
            Ok(RateSetting::Named(s.trim().to_string()))
        }
    }
}

impl<'de> Deserialize<'de> for RateSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A bare number is a rate without a unit: Rate's own error says so.
        match toml::Value::deserialize(d)? {
            toml::Value::String(s) => RateSetting::parse(&s),
            toml::Value::Integer(i) => Rate::parse(&i.to_string()).map(RateSetting::Bitrate),
            toml::Value::Float(f) => Rate::parse(&f.to_string()).map(RateSetting::Bitrate),
            other => Err(format!("expected a rate such as \"54Mbps\", found {}", other.type_str())),
        }
        .map_err(serde::de::Error::custom)
    }
}

/// A channel width in MHz, written `80` or `"80MHz"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelWidth(pub u16);

impl<'de> Deserialize<'de> for ChannelWidth {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bad = |v: &dyn std::fmt::Display| format!("`{v}` is not a channel width (20, 40, 80 or 160, or \"80MHz\")");
        match toml::Value::deserialize(d)? {
            toml::Value::Integer(i) => u16::try_from(i).map(ChannelWidth).map_err(|_| bad(&i)),
            toml::Value::String(s) => {
                let t = s.trim();
                let n = t.strip_suffix("MHz").or_else(|| t.strip_suffix("mhz")).unwrap_or(t).trim();
                n.parse::<u16>().map(ChannelWidth).map_err(|_| bad(&s))
            }
            other => Err(bad(&other)),
        }
        .map_err(serde::de::Error::custom)
    }
}

/// A static route: at `node`, packets for `destination` leave towards neighbour `via`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteConfig {
    /// Where the route is installed.
    pub node: Spanned<String>,
    /// Destination node.
    pub destination: Spanned<String>,
    /// Next-hop neighbour.
    pub via: Spanned<String>,
}

/// Extra outputs.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    /// Write sampled time series (cwnd, windows, queues) and the radio state timeline.
    pub timeseries: bool,
    /// Sampling interval of the time series.
    pub sample_interval: Dur,
    /// Interfaces to capture, as `node:iface` (e.g. `client:wlan0`).
    pub pcap: Vec<String>,
    /// Bytes captured per packet (0 = whole packet).
    pub pcap_snaplen: u32,
    /// What the captures record: `ethernet` (each interface's IP packets in Ethernet frames)
    /// or `radiotap` (an 802.11 interface's channel as a monitor hears it).
    pub pcap_link: PcapLink,
    /// The date and time the run starts (a TOML date-time with an offset, or a date): pcap
    /// timestamps are this plus the simulated time. Default [`DEFAULT_PCAP_EPOCH`].
    pub pcap_epoch: Option<toml::value::Datetime>,
}

/// Radiotap captures' default start (Ethernet captures keep the Unix epoch unless one is set),
/// 2000-01-01T00:00:00Z: a real date, a whole number
/// of 102.4 ms beacon intervals after the Unix epoch (so beacon instants keep their phase).
pub const DEFAULT_PCAP_EPOCH: &str = "2000-01-01T00:00:00Z";

/// Link type of a capture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PcapLink {
    /// Ethernet II frames of the interface's IP packets (pcap link type 1).
    #[default]
    Ethernet,
    /// Radiotap + 802.11 frames of every station of the interface's BSS (link type 127).
    Radiotap,
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            timeseries: false,
            sample_interval: Dur(10_000_000),
            pcap: Vec::new(),
            pcap_snaplen: 0,
            pcap_link: PcapLink::Ethernet,
            pcap_epoch: None,
        }
    }
}
