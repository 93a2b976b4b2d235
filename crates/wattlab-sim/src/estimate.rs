//! A cheap estimate of a run's cost before it starts: events (from rates, sizes, counts,
//! protocol timers, beacons, PSM periods and sampling, over the time the run will last),
//! time-series rows, and the memory its tables and buffers will hold. It is an order of
//! magnitude, not a prediction; it exists to warn before a run that would take hours or fill
//! the memory, and to say which setting makes it so.

use crate::apps::{Application, FlowCost};
use crate::series::{FLOW_ROW_BYTES, QUEUE_ROW_BYTES, RADIO_ROW_BYTES};
use crate::sim::Simulation;
use crate::wlan::Overhearing;
use std::collections::HashMap;

/// Events above which a run is worth a warning: about two minutes at ~8 M events/s.
pub const WARN_EVENTS: f64 = 1e9;
/// Memory above which a run is worth a warning (bytes): more than many machines can spare
/// for one run.
pub const WARN_MEMORY_BYTES: f64 = 2e9;

/// Events per packet per link crossed: transmission end and arrival.
const EVENTS_PER_HOP: f64 = 2.0;
/// Radio state changes per frame a radio sends or hears (into Tx or Rx and back).
const CHANGES_PER_FRAME: f64 = 2.0;

/// The estimate: total events and memory, and the parts that make them, largest first.
#[derive(Clone, Debug, Default)]
pub struct Estimate {
    /// Expected events, in total.
    pub events: f64,
    /// Expected time-series rows (0 without time series): flow and queue samples, radio
    /// state changes.
    pub rows: f64,
    /// Expected memory of the run's tables and buffers (bytes), Python's copy of the tables
    /// included.
    pub memory: f64,
    /// Simulated seconds the estimate assumes the run lasts.
    pub seconds: f64,
    /// (what, events, how to bound it), largest first.
    pub parts: Vec<(String, f64, &'static str)>,
    /// (what, bytes, how to bound it), largest first.
    pub memory_parts: Vec<(String, f64, &'static str)>,
}

impl Estimate {
    /// Warnings for a run this estimate says is huge (none for an ordinary run).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.events > WARN_EVENTS {
            let (what, n, fix) = &self.parts[0];
            out.push(format!(
                "this run is estimated at {:.1e} events over {} s simulated (about {} of simulation at ~8 M events/s); \
                 most come from {what} ({n:.1e}): {fix}",
                self.events,
                (self.seconds * 1e3).round() / 1e3,
                human_wall(self.events / 8e6)
            ));
        }
        if self.memory > WARN_MEMORY_BYTES {
            let (what, n, fix) = &self.memory_parts[0];
            out.push(format!(
                "this run would hold about {} in memory (tables and buffers, their Python copy included); \
                 most for {what} ({}): {fix}",
                human_bytes(self.memory),
                human_bytes(*n)
            ));
        }
        out
    }
}

fn human_wall(s: f64) -> String {
    match s {
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7200.0 => format!("{:.0} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.0} h", s / 3600.0),
        s => format!("{:.0} days", s / 86_400.0),
    }
}

fn human_bytes(b: f64) -> String {
    match b {
        b if b < 1e6 => format!("{:.0} kB", b / 1e3),
        b if b < 1e9 => format!("{:.0} MB", b / 1e6),
        b if b < 1e12 => format!("{:.1} GB", b / 1e9),
        b => format!("{:.1} TB", b / 1e12),
    }
}

impl Simulation {
    /// Estimates the run's events, time-series rows and memory (see the module docs).
    pub fn estimate(&self) -> Estimate {
        let horizon = self.horizon.as_nanos() as f64 / 1e9;
        let ids: HashMap<&str, u32> = self.net.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i as u32)).collect();
        let ends = |flow: usize| {
            let r = &self.records[flow];
            ids.get(r.sender.split(',').next().unwrap_or("")).copied().zip(ids.get(r.receiver.as_str()).copied())
        };
        let hops = |flow: usize| -> f64 {
            let Some((a, b)) = ends(flow) else { return 1.0 };
            self.path_len(a, b).max(self.path_len(b, a)).max(1) as f64
        };
        let mut parts: Vec<(String, f64, &'static str)> = Vec::new();
        let mut memory_parts: Vec<(String, f64, &'static str)> = Vec::new();
        // Packets of each flow (for the radios' state changes).
        let mut flow_packets = Vec::with_capacity(self.flows.len());
        // When the run ends: the stop time, or when its finite flows should be done.
        let mut end = 0.0f64;
        let mut unbounded = !self.stop_when_done;
        for (i, (f, r)) in self.flows.iter().zip(&self.records).enumerate() {
            let start = r.start.as_nanos() as f64 / 1e9;
            // No more than the path's slowest link carries until the stop time.
            let rate = ends(i).map_or(f64::INFINITY, |(s, d)| self.path_rate(s, d));
            let FlowCost { packets, seconds, open_ended, timers, timer_keys, memory, memory_keys } = f.cost(r, rate, horizon);
            unbounded |= open_ended;
            end = end.max(start + seconds);
            let events = packets * (EVENTS_PER_HOP * hops(i) + 1.0);
            parts.push((format!("flow `{}` ({})", r.name, r.kind), events, "lower its rate or size, or shorten [simulation] duration"));
            if timers > 0.0 {
                parts.push((format!("the protocol timers of flow `{}` ({})", r.name, r.kind), timers, timer_keys));
            }
            if memory > 0.0 {
                memory_parts.push((format!("flow `{}` ({})", r.name, r.kind), memory, memory_keys));
            }
            flow_packets.push(packets);
        }
        let seconds = if unbounded || self.flows.is_empty() { horizon } else { end.min(horizon) };
        for w in &self.wlans {
            let b = &w.bss;
            if b.cfg.beacons {
                let n = seconds / (b.cfg.beacon_interval.as_nanos().max(1) as f64 / 1e9) * (2.0 + b.stas.len() as f64);
                parts.push((format!("the beacons of `{}`", b.name), n, "raise its beacon_interval or shorten [simulation] duration"));
            }
            for s in &b.stas {
                if let Some(p) = s.cfg.power_save.period() {
                    let n = seconds / (p.as_nanos().max(1) as f64 / 1e9) * 3.0;
                    parts.push((format!("the power-save period of `{}` in `{}`", s.cfg.name, b.name), n, "raise ideal_psm_interval / uapsd_trigger_interval"));
                }
            }
        }
        for h in &self.hops {
            if h.power.mode().saves_power() {
                let n = seconds / (h.power.beacon_interval().as_nanos().max(1) as f64 / 1e9) * 2.0;
                parts.push((format!("the beacons of hop `{}`", h.name), n, "raise its beacon_interval"));
            }
        }
        let mut rows = 0.0;
        if self.timeseries.is_some() {
            let samples = seconds / (self.sample_interval.as_nanos().max(1) as f64 / 1e9);
            // Every flow may have a sampled connection (they are opened when the flow starts).
            let (flow_rows, queue_rows) = (samples * self.flows.len() as f64, samples * self.net.channels.len() as f64);
            let radio_rows = self.radio_changes(seconds, &flow_packets, &ends);
            rows = flow_rows + queue_rows + radio_rows;
            parts.push(("time-series samples".into(), samples, "raise [output] sample_interval"));
            let fix = "raise [output] sample_interval, shorten the run, or leave time series off";
            memory_parts.push((format!("the time series' flow samples ({flow_rows:.1e} rows)"), flow_rows * FLOW_ROW_BYTES, fix));
            memory_parts.push((format!("the time series' queue samples ({queue_rows:.1e} rows)"), queue_rows * QUEUE_ROW_BYTES, fix));
            memory_parts.push((
                format!("the time series' radio state changes ({radio_rows:.1e} rows)"),
                radio_rows * RADIO_ROW_BYTES,
                "leave time series off (the radio table logs every state change), or shorten the run",
            ));
        }
        parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        memory_parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        let events = parts.iter().map(|p| p.1).sum();
        let memory = memory_parts.iter().map(|p| p.1).sum();
        Estimate { events, rows, memory, seconds, parts, memory_parts }
    }

    /// Radio state changes the time series would log: every frame a radio sends or hears
    /// (the packets of the flows with an end at its node, or at any station of its BSS when
    /// stations overhear) and its beacons, under each of its meters.
    fn radio_changes(&self, seconds: f64, flow_packets: &[f64], ends: &dyn Fn(usize) -> Option<(u32, u32)>) -> f64 {
        // The BSSs each node belongs to (as AP or station).
        let mut bss_of: HashMap<u32, Vec<usize>> = HashMap::new();
        for (k, w) in self.wlans.iter().enumerate() {
            for s in &w.bss.stas {
                bss_of.entry(s.cfg.node).or_default().push(k);
            }
        }
        // Packets to or from each node, and in each BSS.
        let mut at_node: HashMap<u32, f64> = HashMap::new();
        let mut in_bss = vec![0.0; self.wlans.len()];
        for (i, &p) in flow_packets.iter().enumerate() {
            let Some((a, b)) = ends(i) else { continue };
            for n in [a, b] {
                *at_node.entry(n).or_default() += p;
            }
            let mut bsss: Vec<usize> = [a, b].iter().flat_map(|n| bss_of.get(n).into_iter().flatten().copied()).collect();
            bsss.sort_unstable();
            bsss.dedup();
            for k in bsss {
                in_bss[k] += p;
            }
        }
        let mut changes = 0.0;
        for r in &self.radios {
            let meters = (r.meters.len() + usize::from(r.mac_meter.is_some())) as f64;
            let mut frames = at_node.get(&r.node).copied().unwrap_or(0.0);
            for &k in bss_of.get(&r.node).into_iter().flatten() {
                let c = &self.wlans[k].bss.cfg;
                if c.overhearing == Overhearing::Rx {
                    frames = frames.max(in_bss[k]);
                }
                if c.beacons {
                    frames += seconds / (c.beacon_interval.as_nanos().max(1) as f64 / 1e9);
                }
            }
            changes += meters * CHANGES_PER_FRAME * frames;
        }
        changes
    }

    /// The slowest rate (bit/s) from `a` to `b` along the routes (an 802.11 hop at its data
    /// rate), infinite if there is no route.
    fn path_rate(&self, a: u32, b: u32) -> f64 {
        let (mut v, mut n, mut rate) = (a, 0, f64::INFINITY);
        while v != b && n <= 64 {
            let Some((iface, next)) = self.net.routes.next_hop(v, b) else { break };
            let r = match self.net.ifaces[iface as usize].wlan {
                Some((bss, _)) => {
                    let cfg = &self.wlans[bss as usize].bss.cfg;
                    cfg.phy.data_rate_bps(cfg.tx) as f64
                }
                None => self.net.channels[self.net.ifaces[iface as usize].tx as usize].rate_bps as f64,
            };
            rate = rate.min(r);
            v = next;
            n += 1;
        }
        rate
    }

    /// Links crossed from `a` to `b` along the routes (0 if there is no route).
    fn path_len(&self, a: u32, b: u32) -> usize {
        let (mut v, mut n) = (a, 0);
        while v != b && n <= 64 {
            match self.net.routes.next_hop(v, b) {
                Some((_, next)) => v = next,
                None => return n,
            }
            n += 1;
        }
        n
    }
}
