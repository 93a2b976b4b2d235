//! The analysis as result tables, each a struct of columns (or rows) named with their units:
//! what the Python `TraceEnergy` shows as DataFrames, computed here so that Python only
//! converts them (the bindings hand them over as Arrow).
//!
//! - `energy`: one row per policy: label, name, model, energy (J), its share of the first
//!   `always-on` row's (NaN in EnergyBox's model, which has no always-on), duration, EnergyBox's
//!   printed total (the `energybox` row), average power, time and energy per state busiest
//!   first, transitions, beacons, the replay counters and a `twt` row's held packets, added
//!   delay (mean, p95, max, ms), deferred sends and service periods (NaN on other rows);
//! - `states`: the same times and energies in long form (the transitions as a state);
//! - `connections`: the client's connections, with their protocol's name and the client;
//! - `attribution`: per (policy, connection): own, tail, their total and its share of the
//!   policy's energy;
//! - `throughput`: the bins with traffic, from the run's start (s), bytes and Mb/s each way;
//! - `timeline`: every policy's state changes, in s from the run's start.
//!
//! For EnergyBox's engine (the `energybox` row) the times in PSM, CAM and CAMH and the energy are
//! its own doubles, not the report's ns and nJ.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use std::net::IpAddr;

use wattlab_core::energy::{EnergyReport, RadioState};

use crate::energy::{fj_to_j, Connection, EnergyAnalysis, PolicyOutcome};

/// The states of the energy and states tables' columns: busiest first.
pub fn states_busiest_first() -> impl Iterator<Item = RadioState> {
    RadioState::ALL.into_iter().rev()
}

/// Seconds of `ns` nanoseconds (as Python divides an int by 1e9).
fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// Joules of `nj` nanojoules.
fn joules(nj: u64) -> f64 {
    nj as f64 / 1e9
}

/// One policy's time (s) and energy (J) in a state: EnergyBox's engine's own figures for
/// the states its model has (PSM = sleep, CAM = idle, CAMH = idle_high), else the report's.
fn state_figures(p: &PolicyOutcome, s: RadioState) -> (f64, f64) {
    let e = p.report.state(s);
    let exact = p.energybox.as_ref().and_then(|eb| match s {
        RadioState::Sleep => Some(eb.time_s[0]),
        RadioState::Idle => Some(eb.time_s[1]),
        RadioState::IdleHigh => Some(eb.time_s[2]),
        _ => None,
    });
    match exact {
        Some(t) => (t, e.energy_j),
        None => (secs(e.time_ns), joules(e.energy_nj)),
    }
}

/// A policy's energy (J): EnergyBox's engine's own, or the exact total.
pub fn policy_energy_j(p: &PolicyOutcome) -> f64 {
    p.energybox.as_ref().map_or_else(|| fj_to_j(p.report.total_energy_fj), |eb| eb.energy_j)
}

/// The energy table: one row per policy (see the module's documentation).
#[derive(Clone, Debug, Default)]
pub struct EnergyTable {
    rows: Vec<EnergyRow>,
}

/// One policy's row of the [`EnergyTable`].
#[derive(Clone, Debug)]
struct EnergyRow {
    label: String,
    name: &'static str,
    model: String,
    energy_j: f64,
    vs_always_on: f64,
    energybox_j: f64,
    report: EnergyReport,
    states: Vec<(RadioState, f64, f64)>,
    beacons: u64,
    rx_while_dormant: u64,
    busy_while_dormant: u64,
    timeline_elided_beacons: u64,
    twt: Option<crate::twt::TwtOutcome>,
}

impl Serialize for EnergyTable {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.rows.len()))?;
        for r in &self.rows {
            seq.serialize_element(r)?;
        }
        seq.end()
    }
}

impl Serialize for EnergyRow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let rep = &self.report;
        let dur = secs(rep.duration_ns);
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("policy", &self.label)?;
        m.serialize_entry("name", self.name)?;
        m.serialize_entry("model", &self.model)?;
        m.serialize_entry("energy_j", &self.energy_j)?;
        m.serialize_entry("vs_always_on", &self.vs_always_on)?;
        m.serialize_entry("duration_s", &dur)?;
        m.serialize_entry("energybox_j", &self.energybox_j)?;
        m.serialize_entry("avg_power_mw", &if dur > 0.0 { self.energy_j / dur * 1e3 } else { 0.0 })?;
        for (state, t, e) in &self.states {
            m.serialize_entry(&format!("time_{state}_s"), t)?;
            m.serialize_entry(&format!("energy_{state}_j"), e)?;
        }
        m.serialize_entry("transitions", &rep.transitions.count)?;
        m.serialize_entry("time_transitions_s", &secs(rep.transitions.time_ns))?;
        m.serialize_entry("energy_transitions_j", &joules(rep.transitions.energy_nj))?;
        m.serialize_entry("beacons", &self.beacons)?;
        m.serialize_entry("short_dormant_intervals", &rep.short_dormant_intervals)?;
        m.serialize_entry("clipped_activity_s", &secs(rep.clipped_activity_ns))?;
        m.serialize_entry("rx_while_dormant", &self.rx_while_dormant)?;
        m.serialize_entry("busy_while_dormant", &self.busy_while_dormant)?;
        m.serialize_entry("timeline_elided_beacons", &self.timeline_elided_beacons)?;
        // What a `twt` row did to the packets (NaN elsewhere: the others keep the capture's).
        let w = self.twt.as_ref();
        let ms = |f: fn(&crate::twt::TwtOutcome) -> f64| w.map_or(f64::NAN, |w| f(w) / 1e6);
        m.serialize_entry("held_packets", &w.map_or(f64::NAN, |w| w.held as f64))?;
        m.serialize_entry("delay_mean_ms", &ms(|w| w.delay_mean_ns))?;
        m.serialize_entry("delay_p95_ms", &ms(|w| w.delay_p95_ns as f64))?;
        m.serialize_entry("delay_max_ms", &ms(|w| w.delay_max_ns as f64))?;
        m.serialize_entry("deferred_sends", &w.map_or(f64::NAN, |w| w.deferred_sends as f64))?;
        m.serialize_entry("service_periods", &w.map_or(f64::NAN, |w| w.service_periods as f64))?;
        m.end()
    }
}

/// Times and energies per (policy, state), the transitions as a state named `transitions`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StatesTable {
    /// The policy's label.
    pub policy: Vec<String>,
    /// The state (or `transitions`).
    pub state: Vec<&'static str>,
    /// Time in it (s).
    pub time_s: Vec<f64>,
    /// Energy in it (J).
    pub energy_j: Vec<f64>,
}

/// The client's connections, one row each (see [`Connection`]), with the name of their
/// protocol (`tcp`, `udp`, `icmp`, `icmpv6`, else its number; `other` for the evicted ones'
/// row) and the client's address (`local`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ConnectionTable {
    /// 1-based id (the `other` row's is the id after the last kept one).
    pub id: Vec<u32>,
    /// The protocol's name.
    pub proto: Vec<String>,
    /// The client.
    pub local: Vec<String>,
    /// IP protocol number (0 for the `other` row).
    pub protocol: Vec<u8>,
    /// The client's port (0 if none).
    pub local_port: Vec<u16>,
    /// The peer.
    pub remote: Vec<String>,
    /// The peer's port (0 if none).
    pub remote_port: Vec<u16>,
    /// Packets sent by the client.
    pub packets_up: Vec<u64>,
    /// Packets received.
    pub packets_down: Vec<u64>,
    /// IP bytes sent.
    pub bytes_up: Vec<u64>,
    /// IP bytes received.
    pub bytes_down: Vec<u64>,
    /// First packet, ns since the epoch.
    pub first_ns: Vec<u64>,
    /// Last packet, ns since the epoch.
    pub last_ns: Vec<u64>,
    /// Connections the row stands for.
    pub connections: Vec<u64>,
}

impl ConnectionTable {
    /// The table of `rows`, the connections of `client`; the row with id `other` is the
    /// evicted connections'.
    pub fn of(rows: &[Connection], client: IpAddr, other: u32) -> ConnectionTable {
        let mut t = ConnectionTable::default();
        for c in rows {
            // Every field of the row, in order (a field added to Connection fails to compile here).
            let Connection {
                id,
                protocol,
                local_port,
                remote,
                remote_port,
                packets_up,
                packets_down,
                bytes_up,
                bytes_down,
                first_ns,
                last_ns,
                connections,
            } = *c;
            t.id.push(id);
            t.proto.push(if id == other { "other".into() } else { protocol_name(protocol) });
            t.local.push(client.to_string());
            t.protocol.push(protocol);
            t.local_port.push(local_port);
            t.remote.push(remote.to_string());
            t.remote_port.push(remote_port);
            t.packets_up.push(packets_up);
            t.packets_down.push(packets_down);
            t.bytes_up.push(bytes_up);
            t.bytes_down.push(bytes_down);
            t.first_ns.push(first_ns);
            t.last_ns.push(last_ns);
            t.connections.push(connections);
        }
        t
    }
}

/// The name of an IP protocol number (its number if it has none here).
pub fn protocol_name(protocol: u8) -> String {
    match protocol {
        1 => "icmp".into(),
        6 => "tcp".into(),
        17 => "udp".into(),
        58 => "icmpv6".into(),
        p => p.to_string(),
    }
}

/// The energy each connection caused under each policy, one row per (policy, connection).
#[derive(Clone, Debug, Default, Serialize)]
pub struct AttributionTable {
    /// The policy's label.
    pub policy: Vec<String>,
    /// Connection id (0: before the first packet).
    pub connection: Vec<u32>,
    /// Its frames and the wake-ups they needed (J).
    pub own_j: Vec<f64>,
    /// The radio's time after its frames until the next frame (J).
    pub tail_j: Vec<f64>,
    /// own + tail (J).
    pub total_j: Vec<f64>,
    /// total / the policy's energy (NaN if the policy spent none).
    pub share: Vec<f64>,
}

/// The throughput bins with traffic (bins without any are left out).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ThroughputTable {
    /// The bin's start, s from the run's start.
    pub start_s: Vec<f64>,
    /// IP bytes sent by the client in the bin.
    pub bytes_up: Vec<u64>,
    /// IP bytes received.
    pub bytes_down: Vec<u64>,
    /// Mb/s sent (10⁶ bit/s).
    pub mbps_up: Vec<f64>,
    /// Mb/s received.
    pub mbps_down: Vec<f64>,
}

/// Every policy's state changes, in order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TimelineTable {
    /// The policy, as an index into [`TraceTables::labels`] (the bindings show its label).
    pub policy: Vec<u32>,
    /// When the state was entered, s from the run's start.
    pub time_s: Vec<f64>,
    /// The state entered.
    pub state: Vec<RadioState>,
}

/// The result tables of an analysis.
#[derive(Clone, Debug, Default)]
pub struct TraceTables {
    /// One row per policy.
    pub energy: EnergyTable,
    /// Long form of the energy table's states.
    pub states: StatesTable,
    /// The client's connections.
    pub connections: ConnectionTable,
    /// Energy per (policy, connection).
    pub attribution: AttributionTable,
    /// Throughput bins.
    pub throughput: ThroughputTable,
    /// Bin width (s).
    pub bin_s: f64,
    /// State changes (policies kept in memory).
    pub timeline: TimelineTable,
    /// The policies' labels, indexed by [`TimelineTable::policy`].
    pub labels: Vec<String>,
}

/// The tables of `a`, whose policies' rows are labelled with `models` (see the bindings'
/// `model` column); `eb_mode`: EnergyBox's model, which has no always-on. The timelines are
/// moved out of `a`.
pub fn tables(a: &mut EnergyAnalysis, models: &[&str], eb_mode: bool) -> TraceTables {
    let start = a.start_ns;
    let base = if eb_mode { None } else { a.policies.iter().find(|p| p.name == "always-on").map(policy_energy_j) };
    let mut t = TraceTables::default();
    for (i, p) in a.policies.iter_mut().enumerate() {
        let e = policy_energy_j(p);
        let states: Vec<(RadioState, f64, f64)> = states_busiest_first().map(|s| {
            let (time, energy) = state_figures(p, s);
            (s, time, energy)
        }).collect();
        for &(s, time, energy) in &states {
            t.states.policy.push(p.label.clone());
            t.states.state.push(s.as_str());
            t.states.time_s.push(time);
            t.states.energy_j.push(energy);
        }
        let tr = &p.report.transitions;
        t.states.policy.push(p.label.clone());
        t.states.state.push("transitions");
        t.states.time_s.push(secs(tr.time_ns));
        t.states.energy_j.push(joules(tr.energy_nj));
        t.energy.rows.push(EnergyRow {
            label: p.label.clone(),
            name: p.name,
            model: models.get(i).copied().unwrap_or("wattlab").to_string(),
            energy_j: e,
            vs_always_on: match base {
                Some(b) if b != 0.0 => e / b,
                _ => f64::NAN,
            },
            energybox_j: p.energybox.as_ref().map_or(f64::NAN, |eb| eb.printed_j),
            report: p.report.clone(),
            states,
            beacons: p.beacons,
            rx_while_dormant: p.rx_while_dormant,
            busy_while_dormant: p.busy_while_dormant,
            timeline_elided_beacons: p.timeline_elided_beacons,
            twt: p.twt.clone(),
        });
        for (k, &(own, tail)) in p.by_connection.iter().enumerate() {
            let (own, tail) = (fj_to_j(own), fj_to_j(tail));
            t.attribution.policy.push(p.label.clone());
            t.attribution.connection.push(k as u32);
            t.attribution.own_j.push(own);
            t.attribution.tail_j.push(tail);
            t.attribution.total_j.push(own + tail);
        }
        let tl = std::mem::take(&mut p.timeline);
        t.timeline.policy.extend(std::iter::repeat_n(i as u32, tl.len()));
        t.timeline.time_s.extend(tl.time_ns.iter().map(|&ns| secs(ns.wrapping_sub(start))));
        t.timeline.state.extend(tl.state);
        t.labels.push(p.label.clone());
    }
    // A connection's share of its policy's energy (the first policy of that label's).
    for (k, label) in t.attribution.policy.iter().enumerate() {
        let total = t.energy.rows.iter().find(|r| &r.label == label).map_or(f64::NAN, |r| r.energy_j);
        t.attribution.share.push(if total > 0.0 { t.attribution.total_j[k] / total } else { f64::NAN });
    }
    t.connections = ConnectionTable::of(&a.connections, a.client, a.max_connections + 1);
    let bin_s = secs(a.bin_ns);
    let offset = (i128::from(a.throughput_origin_ns) - i128::from(start)) as f64 / 1e9;
    for &(k, [up, down]) in &a.throughput {
        t.throughput.start_s.push(offset + k as f64 * bin_s);
        t.throughput.bytes_up.push(up);
        t.throughput.bytes_down.push(down);
        t.throughput.mbps_up.push((up * 8) as f64 / bin_s / 1e6);
        t.throughput.mbps_down.push((down * 8) as f64 / bin_s / 1e6);
    }
    t.bin_s = bin_s;
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_table_has_every_field_of_a_connection_and_the_two_names() {
        let c = Connection { id: 1, protocol: 6, ..Connection::default() };
        let other = Connection { id: 2, protocol: 0, ..Connection::default() };
        let t = ConnectionTable::of(&[c, other], "10.0.0.3".parse().unwrap(), 2);
        assert_eq!(t.proto, ["tcp", "other"]);
        assert_eq!(t.local, ["10.0.0.3", "10.0.0.3"]);
        let row = serde_json::to_value(Connection::default()).unwrap();
        let table = serde_json::to_value(&t).unwrap();
        let mut want: Vec<&str> = row.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        want.insert(1, "proto");
        want.insert(2, "local");
        let got: Vec<&str> = table.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut want_sorted = want.clone();
        want_sorted.sort();
        let mut got_sorted = got.clone();
        got_sorted.sort();
        assert_eq!(got_sorted, want_sorted);
    }

    #[test]
    fn protocols_are_named_and_others_numbered() {
        assert_eq!([1, 6, 17, 58, 132].map(protocol_name), ["icmp", "tcp", "udp", "icmpv6", "132"]);
    }
}
