//! A cheap estimate of a run's cost before it starts: events (from rates, sizes, counts,
//! beacons, PSM periods and sampling, over the time the run will last) and time-series rows.
//! It is an order of magnitude, not a prediction; it exists to warn before a run that would
//! take hours or fill the memory, and to say which setting makes it so.

use crate::apps::{Application, FlowCost};
use crate::sim::Simulation;
use crate::wlan::PowerSave;
use std::collections::HashMap;

/// Events above which a run is worth a warning: about two minutes at ~8 M events/s.
pub const WARN_EVENTS: f64 = 1e9;
/// Time-series rows above which a run is worth a warning: several GB of samples.
pub const WARN_ROWS: f64 = 5e7;

/// Events per packet per link crossed: transmission end and arrival.
const EVENTS_PER_HOP: f64 = 2.0;

/// The estimate: total events and the parts that make it, largest first.
#[derive(Clone, Debug, Default)]
pub struct Estimate {
    /// Expected events, in total.
    pub events: f64,
    /// Expected time-series rows (0 without time series).
    pub rows: f64,
    /// Simulated seconds the estimate assumes the run lasts.
    pub seconds: f64,
    /// (what, events, how to bound it), largest first.
    pub parts: Vec<(String, f64, &'static str)>,
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
        if self.rows > WARN_ROWS {
            out.push(format!(
                "the time series would hold about {:.1e} rows (several GB): raise [output] sample_interval or shorten the run",
                self.rows
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

impl Simulation {
    /// Estimates the run's events and time-series rows (see the module docs).
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
        // When the run ends: the stop time, or when its finite flows should be done.
        let mut end = 0.0f64;
        let mut unbounded = !self.stop_when_done;
        for (i, (f, r)) in self.flows.iter().zip(&self.records).enumerate() {
            let start = r.start.as_nanos() as f64 / 1e9;
            // No more than the path's slowest link carries until the stop time.
            let rate = ends(i).map_or(f64::INFINITY, |(s, d)| self.path_rate(s, d));
            let FlowCost { packets, seconds, open_ended } = f.cost(r, rate, horizon);
            unbounded |= open_ended;
            end = end.max(start + seconds);
            let events = packets * (EVENTS_PER_HOP * hops(i) + 1.0);
            parts.push((format!("flow `{}` ({})", r.name, r.kind), events, "lower its rate or size, or shorten [simulation] duration"));
        }
        let seconds = if unbounded || self.flows.is_empty() { horizon } else { end.min(horizon) };
        for w in &self.wlans {
            let b = &w.bss;
            if b.cfg.beacons {
                let n = seconds / (b.cfg.beacon_interval.as_nanos().max(1) as f64 / 1e9) * (2.0 + b.stas.len() as f64);
                parts.push((format!("the beacons of `{}`", b.name), n, "raise its beacon_interval or shorten [simulation] duration"));
            }
            for s in &b.stas {
                let period = match s.cfg.power_save {
                    PowerSave::IdealPsm { interval } => Some(interval),
                    PowerSave::Uapsd { trigger_interval: Some(t), .. } => Some(t),
                    _ => None,
                };
                if let Some(p) = period {
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
            rows = samples * (self.flows.len() + self.net.channels.len()) as f64;
            parts.push(("time-series samples".into(), samples, "raise [output] sample_interval"));
        }
        parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        let events = parts.iter().map(|p| p.1).sum();
        Estimate { events, rows, seconds, parts }
    }

    /// The slowest rate (bit/s) from `a` to `b` along the routes (an 802.11 hop at its data
    /// rate), infinite if there is no route.
    fn path_rate(&self, a: u32, b: u32) -> f64 {
        let (mut v, mut n, mut rate) = (a, 0, f64::INFINITY);
        while v != b && n <= 64 {
            let Some((iface, next)) = self.net.routes.next_hop(v, b) else { break };
            let r = match self.net.ifaces[iface as usize].wlan {
                Some((bss, _)) => f64::from(self.wlans[bss as usize].bss.cfg.rate_kbps) * 1e3,
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
