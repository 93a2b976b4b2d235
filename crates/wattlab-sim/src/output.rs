//! Results of a run: the JSON summary (flows, radios, links) and columnar time series.
//!
//! Nothing here depends on the wall clock, so the same scenario and seed give the same bytes.

use crate::wlan::rate_use::{RateSummary, RateUse};
use crate::apps::Application;
use crate::middlebox::Middlebox;
use crate::net::DropCounters;
use crate::sim::{Progress, Simulation};
use serde::Serialize;
pub use crate::series::{FlowSeries, QueueSeries, RadioSeries, TimeSeries};
use wattlab_core::energy::{EnergyReport, RadioState};
use wattlab_core::Time;

/// Per-flow results: the columns every flow has, then its kind's own.
#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    /// Flow name.
    pub name: String,
    /// Application kind.
    pub kind: String,
    /// Node that sends the data.
    pub sender: String,
    /// Node that receives it.
    pub receiver: String,
    /// Bytes the flow had to deliver (null for open-ended flows).
    pub target_bytes: Option<u64>,
    /// Application bytes delivered to the receiving application.
    pub bytes_delivered: u64,
    /// True if the flow completed.
    pub completed: bool,
    /// Start time (s).
    pub start_s: f64,
    /// Completion time from start (s): when the receiver had the last byte.
    pub completion_time_s: Option<f64>,
    /// Application bytes per second of flow duration, in bits/s.
    pub goodput_bps: f64,
    /// The kind's own columns (TCP counters, datagrams, round-trip times, pages...).
    #[serde(flatten)]
    pub metrics: crate::apps::FlowMetrics,
}

impl FlowSummary {
    /// Its TCP counters (all zero for a flow that is not over TCP).
    pub fn tcp(&self) -> &crate::apps::metrics::TcpMetrics {
        use crate::apps::metrics::TcpMetrics;
        static NONE: TcpMetrics = TcpMetrics {
            connected_s: None,
            throughput_bps: 0.0,
            sender_wire_bytes: 0,
            sender_wire_packets: 0,
            receiver_wire_bytes: 0,
            receiver_wire_packets: 0,
            retransmitted_segments: 0,
            retransmitted_bytes: 0,
            timeouts: 0,
            fast_retransmits: 0,
            persist_probes: 0,
            final_srtt_ms: None,
            effort: crate::apps::metrics::EffortColumns {
                original_data_bytes: 0,
                sender_bytes: 0,
                receiver_overhead_bytes: 0,
                total_bytes: 0,
                effort_overhead: None,
            },
            mean_rtt_ms: None,
        };
        match &self.metrics {
            crate::apps::FlowMetrics::Tcp(t) => t,
            crate::apps::FlowMetrics::Web(w) => &w.tcp,
            _ => &NONE,
        }
    }

    /// Datagrams its receiving application got (udp-cbr and ping flows; None for other kinds).
    pub fn datagrams_received(&self) -> Option<u64> {
        match &self.metrics {
            crate::apps::FlowMetrics::Datagram(d) => Some(d.datagrams_received),
            crate::apps::FlowMetrics::Ping(p) => Some(p.datagrams_received),
            _ => None,
        }
    }

    /// Round-trip times of a ping flow (ms); empty for other kinds.
    pub fn rtt_ms(&self) -> &[f64] {
        match &self.metrics {
            crate::apps::FlowMetrics::Ping(p) => &p.rtt_ms,
            _ => &[],
        }
    }

    /// A web flow's own columns.
    pub fn web(&self) -> Option<&crate::apps::metrics::WebMetrics> {
        match &self.metrics {
            crate::apps::FlowMetrics::Web(w) => Some(w),
            _ => None,
        }
    }

    /// (sent, received) datagrams of a datagram or ping flow; (0, 0) for other kinds.
    pub fn datagrams(&self) -> (u64, u64) {
        match &self.metrics {
            crate::apps::FlowMetrics::Datagram(d) => (d.datagrams_sent, d.datagrams_received),
            crate::apps::FlowMetrics::Ping(p) => (p.datagrams_sent, p.datagrams_received),
            _ => (0, 0),
        }
    }
}

/// Counters of one station of a BSS.
#[derive(Clone, Debug, Serialize)]
pub struct WlanStationSummary {
    /// Node name.
    pub node: String,
    /// `ap` or `station`.
    pub role: &'static str,
    /// Power management (`cam`, `psm`, `bsd-50`...), as the scenario requested it.
    pub power_save: String,
    /// Under TWT: the wake duration the AP's TWT Setup response carried and both ends
    /// followed, µs (the requested one rounded up to the element's unit; JSON only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub twt_wake_duration_us: Option<u32>,
    /// Counters.
    #[serde(flatten)]
    pub stats: crate::wlan::StaStats,
    /// Frames still queued at the end.
    pub queued_at_end: u64,
    /// Mean MPDUs per A-MPDU (`ampdu_mpdus / ampdus`; 0 without aggregation).
    pub ampdu_mean: f64,
    /// Mean MSDUs per MPDU of those A-MPDUs (`ampdu_msdus / ampdu_mpdus`; 1 without A-MSDU, 0
    /// without aggregation).
    pub msdus_per_mpdu: f64,
    /// Data MPDU attempts on the station's link, both directions (the AP's row: all its own).
    pub rate_mpdus: u64,
    /// MPDU-weighted mean PHY rate of those attempts, Mb/s (0 without any).
    pub rate_mbps_mean: f64,
    /// The rate most of them went at, Mb/s (0 without any).
    pub rate_mode_mbps: f64,
    /// Its MCS (-1 for a legacy rate or without data MPDUs).
    pub mcs_mode: i32,
    /// Mean PHY rate of the station's own (uplink) data MPDUs, Mb/s (0 without any).
    pub rate_up_mbps: f64,
    /// Mean PHY rate of the AP's (downlink) data MPDUs to the station, Mb/s (0 without any).
    pub rate_down_mbps: f64,
    /// Fraction of the run the station's own exchanges held the medium (`airtime_ns` over the
    /// run; a collided frame counts for each sender).
    pub airtime_share: f64,
    /// Its own transmissions per access category.
    #[serde(flatten)]
    pub ac: AcColumns,
}

/// A station's own transmissions per EDCA access category (`vo_*`, `vi_*`, `be_*`, `bk_*`;
/// under DCF everything is `be_*`): data frames delivered, their IP bytes, the airtime of the
/// exchanges the AC started (s), and their mean access delay (ms): from reaching the head of
/// the AC's queue (the previous frame's departure, or its arrival if later) to the
/// acknowledgement, retries included; 0 without frames.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AcColumns {
    /// AC_VO: data frames delivered.
    pub vo_frames: u64,
    /// AC_VO: IP bytes delivered.
    pub vo_bytes: u64,
    /// AC_VO: airtime of its exchanges, s.
    pub vo_airtime_s: f64,
    /// AC_VO: mean access delay, ms.
    pub vo_access_delay_ms: f64,
    /// AC_VI: data frames delivered.
    pub vi_frames: u64,
    /// AC_VI: IP bytes delivered.
    pub vi_bytes: u64,
    /// AC_VI: airtime of its exchanges, s.
    pub vi_airtime_s: f64,
    /// AC_VI: mean access delay, ms.
    pub vi_access_delay_ms: f64,
    /// AC_BE: data frames delivered.
    pub be_frames: u64,
    /// AC_BE: IP bytes delivered.
    pub be_bytes: u64,
    /// AC_BE: airtime of its exchanges, s.
    pub be_airtime_s: f64,
    /// AC_BE: mean access delay, ms.
    pub be_access_delay_ms: f64,
    /// AC_BK: data frames delivered.
    pub bk_frames: u64,
    /// AC_BK: IP bytes delivered.
    pub bk_bytes: u64,
    /// AC_BK: airtime of its exchanges, s.
    pub bk_airtime_s: f64,
    /// AC_BK: mean access delay, ms.
    pub bk_access_delay_ms: f64,
}

impl AcColumns {
    /// The columns of per-AC counters `acs` (ACI order).
    pub fn of(acs: &[crate::wlan::AcStats; 4]) -> AcColumns {
        use crate::wlan::Ac;
        let col = |ac: Ac| {
            let a = acs[ac as usize];
            let delay = if a.frames > 0 { a.delay_ns as f64 / a.frames as f64 / 1e6 } else { 0.0 };
            (a.frames, a.bytes, a.airtime_ns as f64 / 1e9, delay)
        };
        let (vo, vi, be, bk) = (col(Ac::Vo), col(Ac::Vi), col(Ac::Be), col(Ac::Bk));
        AcColumns {
            vo_frames: vo.0, vo_bytes: vo.1, vo_airtime_s: vo.2, vo_access_delay_ms: vo.3,
            vi_frames: vi.0, vi_bytes: vi.1, vi_airtime_s: vi.2, vi_access_delay_ms: vi.3,
            be_frames: be.0, be_bytes: be.1, be_airtime_s: be.2, be_access_delay_ms: be.3,
            bk_frames: bk.0, bk_bytes: bk.1, bk_airtime_s: bk.2, bk_access_delay_ms: bk.3,
        }
    }
}

/// Results of one 802.11 BSS.
#[derive(Clone, Debug, Serialize)]
pub struct WlanSummary {
    /// BSS name.
    pub name: String,
    /// PHY profile.
    pub phy: String,
    /// Data rate (bits/s).
    pub rate_bps: u64,
    /// Fraction of the run the medium carried frames.
    pub utilization: f64,
    /// Counters of the whole BSS.
    #[serde(flatten)]
    pub stats: crate::wlan::BssStats,
    /// Per station, the AP first.
    pub stations: Vec<WlanStationSummary>,
}

/// What a radio row costs: this run's traffic under an accounting policy, or the radio as the
/// run's power mode drove it (the name registry's [`wattlab_core::power::Basis`]).
pub use wattlab_core::power::Basis as RadioBasis;

/// Energy of one radio under one accounting policy, or in the run's power mode.
#[derive(Clone, Debug, Serialize)]
pub struct RadioSummary {
    /// Node the radio belongs to.
    pub node: String,
    /// Device profile.
    pub profile: String,
    /// Accounting policy or power mode.
    pub policy: String,
    /// Which of the two the row is.
    pub basis: RadioBasis,
    /// Total energy (J).
    pub energy_j: f64,
    /// The full report: time and energy per state, transitions.
    pub report: EnergyReport,
}

/// The states of a radio row's columns, in the order the radios table has shown them
/// (`time_tx_s`, `energy_tx_j`, then rx, idle, idle_high, sleep, off).
pub const RADIO_TABLE_STATES: [RadioState; 6] =
    [RadioState::Tx, RadioState::Rx, RadioState::Idle, RadioState::IdleHigh, RadioState::Sleep, RadioState::Off];

/// The radios table: one flat row per [`RadioSummary`] (node, profile, policy, basis,
/// energy_j, duration_s, time and energy per state in [`RADIO_TABLE_STATES`]' order, then the
/// transitions and the clipped activity), its columns named with their units.
#[derive(Clone, Debug, Default)]
pub struct RadioTable(pub Vec<RadioSummary>);

impl Serialize for RadioTable {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for r in &self.0 {
            seq.serialize_element(&RadioRow(r))?;
        }
        seq.end()
    }
}

/// One radio's row of the [`RadioTable`].
struct RadioRow<'a>(&'a RadioSummary);

impl Serialize for RadioRow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (r, rep) = (self.0, &self.0.report);
        let s_of = |ns: u64| ns as f64 / 1e9;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("node", &r.node)?;
        m.serialize_entry("profile", &r.profile)?;
        m.serialize_entry("policy", &r.policy)?;
        m.serialize_entry("basis", &r.basis)?;
        m.serialize_entry("energy_j", &r.energy_j)?;
        m.serialize_entry("duration_s", &s_of(rep.duration_ns))?;
        for state in RADIO_TABLE_STATES {
            let e = rep.state(state);
            m.serialize_entry(&format!("time_{state}_s"), &s_of(e.time_ns))?;
            m.serialize_entry(&format!("energy_{state}_j"), &(e.energy_nj as f64 / 1e9))?;
        }
        m.serialize_entry("transitions", &rep.transitions.count)?;
        m.serialize_entry("transition_time_s", &s_of(rep.transitions.time_ns))?;
        m.serialize_entry("transition_energy_j", &(rep.transitions.energy_nj as f64 / 1e9))?;
        m.serialize_entry("clipped_activity_s", &s_of(rep.clipped_activity_ns))?;
        m.end()
    }
}

/// One row per station of every BSS (the AP first): the BSS's name, PHY and rate, then the
/// station's counters (`wlan_stations`; the BSS-wide counters are the `wlans` table).
#[derive(Clone, Debug, Serialize)]
pub struct WlanStationRow {
    /// BSS name.
    pub wlan: String,
    /// The station's counters.
    #[serde(flatten)]
    pub station: WlanStationSummary,
}

/// A BSS's row of the `wlans` table: its summary without the stations.
#[derive(Clone, Debug, Serialize)]
pub struct WlanRow {
    /// BSS name.
    pub name: String,
    /// PHY profile.
    pub phy: String,
    /// Data rate (bits/s).
    pub rate_bps: u64,
    /// Fraction of the run the medium carried frames.
    pub utilization: f64,
    /// Counters of the whole BSS.
    #[serde(flatten)]
    pub stats: crate::wlan::BssStats,
}

impl WlanSummary {
    /// The BSS's row of the `wlans` table and its stations' rows.
    pub fn rows(&self) -> (WlanRow, impl Iterator<Item = WlanStationRow> + '_) {
        let row = WlanRow { name: self.name.clone(), phy: self.phy.clone(), rate_bps: self.rate_bps, utilization: self.utilization, stats: self.stats.clone() };
        (row, self.stations.iter().map(|s| WlanStationRow { wlan: self.name.clone(), station: s.clone() }))
    }
}

/// Per-channel (link direction) counters.
#[derive(Clone, Debug, Serialize)]
pub struct LinkSummary {
    /// `link:from->to`.
    pub name: String,
    /// Rate (bits/s).
    pub rate_bps: u64,
    /// Counters.
    #[serde(flatten)]
    pub stats: crate::net::link::ChannelStats,
    /// Fraction of the run the transmitter was busy.
    pub utilization: f64,
}

/// Power management of one `[[wireless]]` hop (hops in `cam` are not listed).
#[derive(Clone, Debug, Serialize)]
pub struct WirelessPowerSummary {
    /// Hop name.
    pub name: String,
    /// The station's node.
    pub station: String,
    /// Mode: `ideal-psm`, `bsd-50`, `external`...
    pub power_save: String,
    /// Beacon interval (s).
    pub beacon_interval_s: f64,
    /// Counters.
    #[serde(flatten)]
    pub stats: wattlab_core::power::StationStats,
    /// The station was awake when the run ended.
    pub awake_at_end: bool,
}

/// The JSON summary of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Scenario name.
    pub scenario: String,
    /// What made the run: scenario path and hash, overrides, seed, version.
    pub provenance: crate::provenance::Provenance,
    /// Seed used.
    pub seed: u64,
    /// Simulated time the results cover (s).
    pub end_time_s: f64,
    /// True if every finite flow of a fixed size (`bytes`) completed before the time limit
    /// (never for an interrupted run); background flows (cross traffic) and streams (udp-cbr,
    /// ping: their `completed` says whether every datagram arrived) do not count.
    pub completed: bool,
    /// True if the run was stopped before its end (Ctrl-C): the results cover `end_time_s`.
    pub interrupted: bool,
    /// Events processed.
    pub events: u64,
    /// Flows.
    pub flows: Vec<FlowSummary>,
    /// Radios, one entry per (radio, policy).
    pub radios: Vec<RadioSummary>,
    /// Link directions.
    pub links: Vec<LinkSummary>,
    /// Power-managed `[[wireless]]` hops.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wireless: Vec<WirelessPowerSummary>,
    /// Client-centered agents.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<crate::middlebox::cc_agent::AgentSummary>,
    /// 802.11 basic service sets.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wlans: Vec<WlanSummary>,
    /// SCTP tunnel endpoints (`[[tunnel]]`), two per tunnel.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tunnels: Vec<crate::middlebox::tunnel::TunnelSummary>,
    /// Packets dropped outside links.
    pub drops: DropCounters,
}

/// Everything a run produces.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// The summary.
    pub summary: Summary,
    /// Sampled series, if requested.
    pub timeseries: Option<TimeSeries>,
    /// Names of the channels, indexed as in the time series.
    pub channel_names: Vec<String>,
    /// Flow names, indexed as in the time series.
    pub flow_names: Vec<String>,
    /// Pcap files written.
    pub pcap_files: Vec<String>,
    /// Page views of web flows (empty without web flows).
    pub pages: crate::apps::web::PageTable,
    /// Objects of web flows' page views (empty without web flows).
    pub objects: crate::apps::web::ObjectTable,
    /// Log of the client-centered agents, by column.
    pub agent_events: AgentEventTable,
    /// Every socket's counters, by column.
    pub sockets: SocketTable,
    /// Each flow's energy at its end radios, per meter: up to its completion, and attributed.
    pub flow_energy: crate::flow_energy::FlowEnergyTable,
}

/// One row per socket the run opened (TCP connections, UDP and ping sockets), in the order
/// they were opened: what each sent, received and dropped.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SocketTable {
    /// Flow index (as in `RunOutput::flow_names`) of the application that owns it.
    pub flow: Vec<u32>,
    /// Node it runs on.
    pub node: Vec<String>,
    /// Transport: `tcp`, `udp` or `icmp` (a ping socket).
    pub protocol: Vec<&'static str>,
    /// Local endpoint, `addr:port` (a ping socket's port is its echo identifier).
    pub local: Vec<String>,
    /// Remote endpoint of a connection, `addr:port` (none for datagram sockets).
    pub remote: Vec<Option<String>>,
    /// Packets it sent.
    pub packets_out: Vec<u64>,
    /// IP bytes it sent (headers and retransmissions included).
    pub bytes_out: Vec<u64>,
    /// Packets the demultiplexer handed it.
    pub packets_in: Vec<u64>,
    /// IP bytes of those packets.
    pub bytes_in: Vec<u64>,
    /// Packets it received and discarded (see `Socket::drops`).
    pub drops: Vec<u64>,
}

impl SocketTable {
    /// The table of every socket in `stack`; `node_name` names a node.
    pub fn of(stack: &crate::stack::Stack, node_name: &dyn Fn(u32) -> String) -> SocketTable {
        let mut t = SocketTable::default();
        let ep = |e: wattlab_core::Endpoint| format!("{}:{}", e.addr, e.port);
        for slot in &stack.sockets {
            t.flow.push(slot.owner);
            t.node.push(node_name(slot.node));
            t.protocol.push(slot.socket.protocol_name());
            t.local.push(ep(slot.socket.local()));
            t.remote.push(slot.socket.remote().map(ep));
            t.packets_out.push(slot.stats.wire_packets);
            t.bytes_out.push(slot.stats.wire_bytes);
            t.packets_in.push(slot.stats.packets_in);
            t.bytes_in.push(slot.stats.bytes_in);
            t.drops.push(slot.socket.drops());
        }
        t
    }
}

/// The agents' decisions, one row per event (stage ends, bursts, open ACKs, probes, sleeps).
#[derive(Clone, Debug, Default, Serialize)]
pub struct AgentEventTable {
    /// Time (s).
    pub time_s: Vec<f64>,
    /// Station node.
    pub node: Vec<String>,
    /// Connection number (-1: the radio).
    pub conn: Vec<i64>,
    /// Event, e.g. `burst-end packets=44 by=probe-response`.
    pub event: Vec<String>,
}

impl Summary {
    /// The summary as pretty JSON (deterministic: fixed field order, shortest float repr).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

impl Simulation {
    /// Runs until every flow is done (or the scenario's stop time), then collects the results.
    pub fn run(self) -> Result<RunOutput, String> {
        self.run_controlled(u64::MAX, &mut |_| true)
    }

    /// Runs in slices of at most `slice` events, asking `control` between slices whether to go
    /// on (it sees the progress so far; a Ctrl-C check, a progress bar, a wall-time limit).
    /// When it says stop, the results collected so far are returned marked `interrupted` and
    /// not `completed`, covering simulated time up to the last event processed.
    pub fn run_controlled(mut self, slice: u64, control: &mut dyn FnMut(&Progress) -> bool) -> Result<RunOutput, String> {
        self.run_slices(slice, control);
        if let Some(e) = self.net.fatal_error.take() {
            return Err(e);
        }
        collect(self)
    }
}

/// Gather the results of a finished simulation.
pub(crate) fn collect(mut sim: Simulation) -> Result<RunOutput, String> {
    let end = sim.end_time();
    let agents = agent_summaries(&mut sim, end);
    let mut agent_events = AgentEventTable::default();
    for m in &sim.mboxes {
        let Middlebox::Cc(h) = &m.mbox else { continue };
        for e in &h.log {
            agent_events.time_s.push(e.at.as_secs_f64());
            agent_events.node.push(sim.net.nodes[h.node as usize].name.clone());
            agent_events.conn.push(e.conn.map_or(-1, i64::from));
            agent_events.event.push(e.kind.to_string());
        }
    }
    let secs = |t: Time| t.as_secs_f64();
    let flows = sim
        .flows
        .iter()
        .zip(&sim.records)
        .map(|(f, r)| {
            let dur = r.completed_at.unwrap_or(end).saturating_since(r.start).as_secs_f64();
            FlowSummary {
                name: r.name.clone(),
                kind: r.kind.to_string(),
                sender: r.sender.clone(),
                receiver: r.receiver.clone(),
                target_bytes: r.target_bytes,
                bytes_delivered: r.bytes_delivered,
                completed: r.completed_at.is_some(),
                start_s: secs(r.start),
                completion_time_s: r.completed_at.map(|t| t.saturating_since(r.start).as_secs_f64()),
                goodput_bps: crate::apps::metrics::per_s(r.bytes_delivered, dur),
                metrics: f.metrics(&sim.stack, r, end),
            }
        })
        .collect();
    // Each meter closed once at the end: its report, attribution and marks.
    let results: Vec<_> = sim.radios.iter().map(|r| r.results(end)).collect();
    let flow_energy = sim.flow_energy_table(&results, end);
    let mut radios = Vec::new();
    for (r, meters) in sim.radios.iter().zip(results) {
        for m in meters {
            radios.push(RadioSummary {
                node: sim.net.nodes[r.node as usize].name.clone(),
                profile: r.profile.name().to_string(),
                policy: m.name,
                basis: m.basis,
                energy_j: m.energy.report.energy_j(),
                report: m.energy.report,
            });
        }
    }
    let run_ns = end.as_nanos().max(1) as f64;
    let links = sim
        .net
        .channels
        .iter()
        .map(|c| {
            let mut stats = c.stats.clone();
            // A frame still on the air at the end counts only up to the end, as in the radio.
            if c.in_tx.is_some() {
                stats.busy_ns -= c.tx_end.saturating_since(end).0.min(stats.busy_ns);
            }
            LinkSummary { name: c.name.clone(), rate_bps: c.rate_bps, utilization: stats.busy_ns as f64 / run_ns, stats }
        })
        .collect();
    let wlans = sim
        .wlans
        .iter()
        .map(|w| {
            let b = &w.bss;
            WlanSummary {
                name: b.name.clone(),
                phy: b.cfg.phy.name.to_string(),
                rate_bps: b.cfg.phy.data_rate_bps(b.cfg.tx),
                utilization: b.stats.busy_ns.min(end.as_nanos()) as f64 / run_ns,
                stats: b.stats.clone(),
                stations: b
                    .stas
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (i, s, station_rates(&b.stas, i)))
                    .map(|(i, s, (all, up, down))| WlanStationSummary {
                        node: s.cfg.name.clone(),
                        role: if i == 0 { "ap" } else { "station" },
                        power_save: s.cfg.power_save.name(),
                        twt_wake_duration_us: match s.power.mode() {
                            wattlab_core::power::PowerSave::Twt(a) => Some(a.duration_us),
                            _ => None,
                        },
                        stats: s.stats.clone(),
                        queued_at_end: s.queue.len() as u64,
                        ampdu_mean: if s.stats.ampdus > 0 { s.stats.ampdu_mpdus as f64 / s.stats.ampdus as f64 } else { 0.0 },
                        msdus_per_mpdu: if s.stats.ampdu_mpdus > 0 { s.stats.ampdu_msdus as f64 / s.stats.ampdu_mpdus as f64 } else { 0.0 },
                        rate_mpdus: all.mpdus,
                        rate_mbps_mean: all.mean_mbps,
                        rate_mode_mbps: all.mode_mbps,
                        mcs_mode: all.mcs_mode,
                        rate_up_mbps: up.mean_mbps,
                        rate_down_mbps: down.mean_mbps,
                        airtime_share: s.stats.airtime_ns.min(end.as_nanos()) as f64 / run_ns,
                        ac: AcColumns::of(&s.ac_stats),
                    })
                    .collect(),
            }
        })
        .collect();
    let wireless = sim
        .hops
        .iter()
        .filter(|h| h.power.mode().saves_power())
        .map(|h| WirelessPowerSummary {
            name: h.name.clone(),
            station: sim.net.nodes[h.station as usize].name.clone(),
            power_save: h.power.mode().name(),
            beacon_interval_s: h.power.beacon_interval().as_secs_f64(),
            stats: h.power.stats_at(end),
            awake_at_end: h.power.is_awake(),
        })
        .collect();
    let summary = Summary {
        scenario: sim.scenario_name.clone(),
        provenance: sim.provenance.clone(),
        seed: sim.seed,
        end_time_s: secs(end),
        completed: !sim.interrupted && sim.records.iter().all(|f| !f.finite || f.target_bytes.is_none() || f.completed_at.is_some()),
        interrupted: sim.interrupted,
        events: sim.sched.processed(),
        flows,
        radios,
        links,
        wireless,
        agents,
        wlans,
        tunnels: tunnel_summaries(&sim),
        drops: sim.net.drops.clone(),
    };
    let (mut pages, mut objects) = (crate::apps::web::PageTable::default(), crate::apps::web::ObjectTable::default());
    let node_name = |n: u32| sim.net.nodes[n as usize].name.clone();
    for (i, f) in sim.flows.iter().enumerate() {
        if let crate::apps::Flow::Web(w) = f {
            crate::apps::web::tables::append(i as u32, w, &node_name, &mut pages, &mut objects);
        }
    }
    let sockets = SocketTable::of(&sim.stack, &node_name);
    let mut timeseries = sim.timeseries;
    if let Some(ts) = timeseries.as_mut() {
        let rows: usize = sim.radios.iter().flat_map(|r| r.timelines()).map(|(_, t)| t.len()).sum();
        let r = &mut ts.radio;
        r.node
            .try_reserve_exact(rows)
            .and(r.policy.try_reserve_exact(rows))
            .and(r.time_s.try_reserve_exact(rows))
            .and(r.state.try_reserve_exact(rows))
            .map_err(|_| format!("out of memory for the radio time series ({rows} state changes): leave time series off or shorten the run"))?;
        for r in &sim.radios {
            let node = &sim.net.nodes[r.node as usize].name;
            for (policy, timeline) in r.timelines() {
                let r = &mut ts.radio;
                for &(t, state) in timeline {
                    r.node.push(node.clone());
                    r.policy.push(policy.to_string());
                    r.time_s.push(t.as_secs_f64());
                    r.state.push(state.as_str());
                }
            }
        }
    }
    let mut pcap_files = Vec::new();
    for (path, sink) in sim.net.pcaps {
        sink.finish().map_err(|e| e.to_string())?;
        pcap_files.push(path);
    }
    for cap in sim.wlans.iter_mut().filter_map(|w| w.air.take()) {
        cap.sink.finish().map_err(|e| e.to_string())?;
        pcap_files.push(cap.path);
    }
    Ok(RunOutput {
        summary,
        timeseries,
        channel_names: sim.net.channels.iter().map(|c| c.name.clone()).collect(),
        flow_names: sim.records.iter().map(|f| f.name.clone()).collect(),
        pcap_files,
        pages,
        objects,
        agent_events,
        sockets,
        flow_energy,
    })
}

/// The tunnel endpoints' counters at the end of the run.
fn tunnel_summaries(sim: &Simulation) -> Vec<crate::middlebox::tunnel::TunnelSummary> {
    let tunnels = sim.mboxes.iter().filter_map(|m| match &m.mbox {
        Middlebox::Tunnel(t) => Some(t),
        Middlebox::Cc(_) => None,
    });
    tunnels
        .map(|t| crate::middlebox::tunnel::TunnelSummary {
            tunnel: t.name.clone(),
            side: t.side,
            node: sim.net.nodes[t.node as usize].name.clone(),
            stats: t.endpoint.stats().clone(),
        })
        .collect()
}

/// The agents' summaries at the end of the run.
fn agent_summaries(sim: &mut Simulation, end: Time) -> Vec<crate::middlebox::cc_agent::AgentSummary> {
    let mut v = Vec::new();
    for m in &mut sim.mboxes {
        let Middlebox::Cc(h) = &mut m.mbox else { continue };
        h.agent.finish(end);
        v.push(crate::middlebox::cc_agent::AgentSummary {
            hop: h.link.clone(),
            node: sim.net.nodes[h.node as usize].name.clone(),
            detection: h.agent.config().detection.name(),
            stats: *h.agent.stats(),
        });
    }
    v
}

/// Rate summaries of member `i` of a BSS's stations (AP first): (both directions, uplink,
/// downlink); the AP's "both" and downlink are over every station's downlink.
fn station_rates(stas: &[crate::wlan::Sta], i: usize) -> (RateSummary, RateSummary, RateSummary) {
    if i > 0 {
        let [up, down] = &stas[i].rate_use;
        return (up.merged(down).summary(), up.summary(), down.summary());
    }
    let down = stas[1..].iter().fold(RateUse::default(), |acc, s| acc.merged(&s.rate_use[1])).summary();
    (down, RateUse::default().summary(), down)
}
