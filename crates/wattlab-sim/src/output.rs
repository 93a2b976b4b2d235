//! Results of a run: the JSON summary (flows, radios, links) and columnar time series.
//!
//! Nothing here depends on the wall clock, so the same scenario and seed give the same bytes.

use crate::sim::{DropCounters, Simulation};
use serde::Serialize;
use wattlab_core::energy::EnergyReport;
use wattlab_core::tcp::TcpConnection;
use wattlab_core::Time;

/// Per-flow results.
#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    /// Flow name.
    pub name: String,
    /// Application kind.
    pub kind: String,
    /// Node that sends the bulk data.
    pub sender: String,
    /// Node that receives it.
    pub receiver: String,
    /// Bytes the flow had to deliver (null for open-ended flows).
    pub target_bytes: Option<u64>,
    /// Application bytes delivered to the receiving application.
    pub bytes_delivered: u64,
    /// True if every byte was delivered.
    pub completed: bool,
    /// Start time (s).
    pub start_s: f64,
    /// Connection established (s), TCP only.
    pub connected_s: Option<f64>,
    /// Completion time from start (s): when the receiver had the last byte.
    pub completion_time_s: Option<f64>,
    /// Application bytes per second of flow duration, in bits/s.
    pub goodput_bps: f64,
    /// IP bytes the data sender put on the wire (headers and retransmissions included), in
    /// bits/s of flow duration.
    pub throughput_bps: f64,
    /// IP bytes sent by the data sender.
    pub sender_wire_bytes: u64,
    /// Packets sent by the data sender.
    pub sender_wire_packets: u64,
    /// IP bytes sent by the data receiver's transport (ACKs, handshake, the request):
    /// seed 004's receiver overhead.
    pub receiver_wire_bytes: u64,
    /// Packets sent by the data receiver.
    pub receiver_wire_packets: u64,
    /// Retransmitted segments.
    pub retransmitted_segments: u64,
    /// Retransmitted payload bytes.
    pub retransmitted_bytes: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits.
    pub fast_retransmits: u64,
    /// Zero-window probes sent by the data sender.
    pub persist_probes: u64,
    /// Smoothed RTT at the end (ms), as the data sender measured it.
    pub final_srtt_ms: Option<f64>,
    /// UDP datagrams sent.
    pub datagrams_sent: u64,
    /// UDP datagrams received.
    pub datagrams_received: u64,
    /// Ping: round-trip times (ms), in order of arrival.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rtt_ms: Vec<f64>,
    /// Web: page views to make.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<u32>,
    /// Web: page views completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages_done: Option<u32>,
    /// Web: TCP connections the browser opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connections: Option<u32>,
}

/// Counters of one station of a BSS.
#[derive(Clone, Debug, Serialize)]
pub struct WlanStationSummary {
    /// Node name.
    pub node: String,
    /// `ap` or `station`.
    pub role: &'static str,
    /// Power management (`cam`, `psm`, `bsd-50`...).
    pub power_save: String,
    /// Counters.
    #[serde(flatten)]
    pub stats: crate::wlan::StaStats,
    /// Frames still queued at the end.
    pub queued_at_end: u64,
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

/// Per-channel (link direction) counters.
#[derive(Clone, Debug, Serialize)]
pub struct LinkSummary {
    /// `link:from->to`.
    pub name: String,
    /// Rate (bits/s).
    pub rate_bps: u64,
    /// Counters.
    #[serde(flatten)]
    pub stats: crate::link::ChannelStats,
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
    pub stats: crate::hop_power::HopPowerStats,
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
    /// True if every finite flow completed (never for an interrupted run).
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
    pub agents: Vec<crate::agent_host::AgentSummary>,
    /// 802.11 basic service sets.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub wlans: Vec<WlanSummary>,
    /// Packets dropped outside links.
    pub drops: DropCounters,
}

/// Sampled series: three tables stored by column. Each table's fields are its DataFrame's
/// columns, in order, named with their units (`wattlab-py` converts any such struct
/// generically: a field added here appears in Python with no other change).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TimeSeries {
    /// Sender state of every flow, every sample interval.
    pub flows: FlowSeries,
    /// Queue length of every channel (link direction), every sample interval.
    pub queues: QueueSeries,
    /// State changes of every radio under every policy or mode.
    pub radio: RadioSeries,
}

/// Flow samples, by column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowSeries {
    /// Time (s).
    pub time_s: Vec<f64>,
    /// Flow index (as in `RunOutput::flow_names`; Python shows the name).
    pub flow: Vec<u32>,
    /// Congestion window of the data sender (bytes).
    pub cwnd: Vec<u32>,
    /// Slow-start threshold (bytes).
    pub ssthresh: Vec<u32>,
    /// Receiver window as the data sender last saw it (bytes).
    pub peer_window: Vec<u32>,
    /// Window the receiver currently advertises (bytes).
    pub advertised_window: Vec<u32>,
    /// Bytes in flight.
    pub in_flight: Vec<u32>,
    /// Smoothed RTT (ms; NaN before the first sample).
    pub srtt_ms: Vec<f64>,
    /// Current retransmission timeout of the data sender (ms).
    pub rto_ms: Vec<f64>,
    /// Application bytes delivered to the receiver so far.
    pub delivered: Vec<u64>,
}

/// Queue samples, by column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct QueueSeries {
    /// Time (s).
    pub time_s: Vec<f64>,
    /// Channel index (as in `RunOutput::channel_names`; Python shows the link's name).
    pub link: Vec<u32>,
    /// Queue length (packets).
    pub packets: Vec<u32>,
    /// Queue length (bytes).
    pub bytes: Vec<u64>,
}

/// Radio state changes, by column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RadioSeries {
    /// Node name.
    pub node: Vec<String>,
    /// Accounting policy or power mode.
    pub policy: Vec<String>,
    /// Time (s).
    pub time_s: Vec<f64>,
    /// The state entered.
    pub state: Vec<&'static str>,
}

impl TimeSeries {
    /// Append a sample of a flow's sender state.
    pub fn push_flow(&mut self, t: Time, flow: u32, snd: &TcpConnection, advertised: u32, delivered: u64) {
        let f = &mut self.flows;
        f.time_s.push(t.as_secs_f64());
        f.flow.push(flow);
        f.cwnd.push(snd.cwnd());
        f.ssthresh.push(snd.ssthresh());
        f.peer_window.push(snd.peer_window());
        f.advertised_window.push(advertised);
        f.in_flight.push(snd.bytes_in_flight());
        f.srtt_ms.push(snd.srtt().map(|d| d.as_secs_f64() * 1e3).unwrap_or(f64::NAN));
        f.rto_ms.push(snd.rto().as_secs_f64() * 1e3);
        f.delivered.push(delivered);
    }

    /// Append a sample of a channel's queue.
    pub fn push_queue(&mut self, t: Time, channel: u32, packets: u32, bytes: u64) {
        let q = &mut self.queues;
        q.time_s.push(t.as_secs_f64());
        q.link.push(channel);
        q.packets.push(packets);
        q.bytes.push(bytes);
    }
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
    pub pages: crate::web::PageTable,
    /// Objects of web flows' page views (empty without web flows).
    pub objects: crate::web::ObjectTable,
    /// Log of the client-centered agents, by column.
    pub agent_events: AgentEventTable,
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

/// Gather the results of a finished simulation.
pub(crate) fn collect(mut sim: Simulation) -> Result<RunOutput, String> {
    let end = sim.end_time();
    let agents = sim.agent_summaries(end);
    let mut agent_events = AgentEventTable::default();
    for a in &sim.agents {
        for e in &a.log {
            agent_events.time_s.push(e.at.as_secs_f64());
            agent_events.node.push(sim.nodes[a.node as usize].name.clone());
            agent_events.conn.push(e.conn.map_or(-1, i64::from));
            agent_events.event.push(e.kind.to_string());
        }
    }
    let secs = |t: Time| t.as_secs_f64();
    let flows = sim
        .flows
        .iter()
        .map(|f| {
            let snd = f.data_conn.map(|c| &sim.conns[c as usize]);
            let stats = snd.map(|s| s.conn.stats().clone()).unwrap_or_default();
            let until = f.completed_at.unwrap_or(end);
            let dur = until.saturating_since(f.start).as_secs_f64();
            let per_s = |x: u64| if dur > 0.0 { x as f64 * 8.0 / dur } else { 0.0 };
            let wire_bytes = snd.map(|s| s.wire_bytes).unwrap_or(0);
            let rcv = f.recv_conn.map(|c| &sim.conns[c as usize]);
            let mut row = FlowSummary {
                name: f.name.clone(),
                kind: f.kind.to_string(),
                sender: f.sender.clone(),
                receiver: f.receiver.clone(),
                target_bytes: f.target_bytes,
                bytes_delivered: f.bytes_delivered,
                completed: f.completed_at.is_some(),
                start_s: secs(f.start),
                connected_s: f.connected_at.map(secs),
                completion_time_s: f.completed_at.map(|t| t.saturating_since(f.start).as_secs_f64()),
                goodput_bps: per_s(f.bytes_delivered),
                throughput_bps: per_s(wire_bytes),
                sender_wire_bytes: wire_bytes,
                sender_wire_packets: snd.map(|s| s.wire_packets).unwrap_or(0),
                receiver_wire_bytes: rcv.map(|s| s.wire_bytes).unwrap_or(0),
                receiver_wire_packets: rcv.map(|s| s.wire_packets).unwrap_or(0),
                retransmitted_segments: stats.retransmitted_segments,
                retransmitted_bytes: stats.bytes_retransmitted,
                timeouts: stats.timeouts,
                fast_retransmits: stats.fast_retransmits,
                persist_probes: stats.persist_probes_sent,
                final_srtt_ms: snd.and_then(|s| s.conn.srtt()).map(|d| d.as_secs_f64() * 1e3),
                datagrams_sent: f.datagrams_sent,
                datagrams_received: f.datagrams_received,
                rtt_ms: f.rtts.iter().map(|d| d.as_secs_f64() * 1e3).collect(),
                pages: None,
                pages_done: None,
                connections: None,
            };
            if let Some(w) = f.web {
                crate::web::summarize(&sim, w, &mut row);
            }
            row
        })
        .collect();
    let mut radios = Vec::new();
    for r in &sim.radios {
        for (policy, basis, report) in r.reports(end) {
            radios.push(RadioSummary {
                node: sim.nodes[r.node as usize].name.clone(),
                profile: r.profile.name().to_string(),
                policy,
                basis,
                energy_j: report.energy_j(),
                report,
            });
        }
    }
    let run_ns = end.as_nanos().max(1) as f64;
    let links = sim
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
                rate_bps: b.cfg.rate_kbps as u64 * 1000,
                utilization: b.stats.busy_ns.min(end.as_nanos()) as f64 / run_ns,
                stats: b.stats.clone(),
                stations: b
                    .stas
                    .iter()
                    .enumerate()
                    .map(|(i, s)| WlanStationSummary {
                        node: s.cfg.name.clone(),
                        role: if i == 0 { "ap" } else { "station" },
                        power_save: s.cfg.power_save.name(),
                        stats: s.stats.clone(),
                        queued_at_end: s.queue.len() as u64,
                    })
                    .collect(),
            }
        })
        .collect();
    let wireless = sim
        .hops
        .iter()
        .filter(|h| h.power.mode() != crate::hop_power::HopPowerMode::Cam)
        .map(|h| WirelessPowerSummary {
            name: h.name.clone(),
            station: sim.nodes[h.station as usize].name.clone(),
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
        completed: !sim.interrupted && sim.flows.iter().all(|f| f.target_bytes.is_none() || f.completed_at.is_some()),
        interrupted: sim.interrupted,
        events: sim.sched.processed(),
        flows,
        radios,
        links,
        wireless,
        agents,
        wlans,
        drops: sim.drops.clone(),
    };
    let (pages, objects) = crate::web::tables(&sim);
    let mut timeseries = sim.timeseries;
    if let Some(ts) = timeseries.as_mut() {
        for r in &sim.radios {
            let node = &sim.nodes[r.node as usize].name;
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
    for (path, sink) in sim.pcaps {
        sink.finish().map_err(|e| e.to_string())?;
        pcap_files.push(path);
    }
    Ok(RunOutput {
        summary,
        timeseries,
        channel_names: sim.channels.iter().map(|c| c.name.clone()).collect(),
        flow_names: sim.flows.iter().map(|f| f.name.clone()).collect(),
        pcap_files,
        pages,
        objects,
        agent_events,
    })
}
