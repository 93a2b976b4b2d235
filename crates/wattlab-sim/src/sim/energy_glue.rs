//! Flow energy glue: which radios are at each flow's ends, packets' flow tags, and the
//! flow-energy table at the end of a run (the model is in `crate::flow_energy`).

use super::Simulation;
use crate::flow_energy::{fj_to_j, fj_to_nj, tag_of, FlowEnergyTable, FlowTag, NO_FLOW};
use std::collections::HashMap;
use wattlab_core::energy::{own_bucket, tail_bucket};
use wattlab_core::{Packet, Time};

impl Simulation {
    /// Finds each flow's end radios and has them attribute frames and keep marks (before the
    /// run, so the meters keep every interval).
    pub(crate) fn setup_flow_energy(&mut self) {
        let by_name: HashMap<&str, u32> = self.net.nodes.iter().enumerate().map(|(i, n)| (n.name.as_str(), i as u32)).collect();
        let mut radio_of = vec![None; self.net.nodes.len()];
        for (i, r) in self.radios.iter().enumerate() {
            radio_of[r.node as usize] = Some(i as u32);
        }
        let radio = |name: &str| by_name.get(name).and_then(|&n| radio_of[n as usize]);
        let ends: Vec<[Option<u32>; 2]> = self.records.iter().map(|r| [radio(&r.sender), radio(&r.receiver)]).collect();
        for r in ends.iter().flatten().flatten() {
            self.radios[*r as usize].enable_flow_energy();
        }
        self.flow_energy.on = ends.iter().flatten().any(Option::is_some);
        self.flow_energy.ends = ends;
    }

    /// Flow `f` completed at `now`: its end radios mark the instant.
    pub(crate) fn mark_flow_done(&mut self, now: Time, f: u32) {
        let Some(&[a, b]) = self.flow_energy.ends.get(f as usize) else { return };
        for r in [a, b.filter(|&b| Some(b) != a)].into_iter().flatten() {
            self.radios[r as usize].mark_flow(now, f);
        }
    }

    /// The tag of `p` if the radios attribute frames (else [`NO_FLOW`], at no cost).
    pub(crate) fn flow_tag(&mut self, p: &Packet) -> FlowTag {
        if !self.flow_energy.on {
            return NO_FLOW;
        }
        self.flow_energy.tags.tag(p, &self.stack.sockets)
    }

    /// The flow-energy table at the end of the run (`end`), from each radio's meters.
    pub(crate) fn flow_energy_table(&self, results: &[Vec<crate::radio::MeterEnergy>], end: Time) -> FlowEnergyTable {
        let mut t = FlowEnergyTable::default();
        let marks: Vec<HashMap<u32, usize>> =
            self.radios.iter().map(|r| r.marked().iter().enumerate().map(|(k, &(f, _))| (f, k)).collect()).collect();
        for (f, rec) in self.records.iter().enumerate() {
            let Some(&[a, b]) = self.flow_energy.ends.get(f) else { continue };
            let ends = [(a, "sender", &rec.sender), (b.filter(|&b| Some(b) != a), "receiver", &rec.receiver)];
            for (r, side, node) in ends.into_iter().filter_map(|(r, s, n)| r.map(|r| (r, s, n))) {
                let mark = marks[r as usize].get(&(f as u32));
                for m in &results[r as usize] {
                    let fj = mark.and_then(|&k| m.energy.marks.get(k)).and_then(|e| e.energy_fj);
                    let bucket = |b: u32| m.energy.by_owner.get(b as usize).copied().unwrap_or(0);
                    let (own, tail) = (bucket(own_bucket(tag_of(f as u32))), bucket(tail_bucket(tag_of(f as u32))));
                    let unattributed = bucket(own_bucket(NO_FLOW)) + bucket(tail_bucket(NO_FLOW));
                    // The buckets sum to the meter's exact total (`RadioMeter::energy_by_owner`).
                    let total: u128 = m.energy.by_owner.iter().sum();
                    let others = total - own - tail - unattributed;
                    t.flow.push(rec.name.clone());
                    t.node.push(node.clone());
                    t.side.push(side);
                    t.policy.push(m.name.clone());
                    t.basis.push(m.basis);
                    t.completed_at_s.push(rec.completed_at.filter(|&c| c <= end).map_or(f64::NAN, Time::as_secs_f64));
                    t.to_completion_j.push(fj.map_or(f64::NAN, fj_to_j));
                    t.to_completion_nj.push(fj.map(fj_to_nj));
                    t.own_j.push(fj_to_j(own));
                    t.tail_j.push(fj_to_j(tail));
                    t.other_flows_j.push(fj_to_j(others));
                    t.unattributed_j.push(fj_to_j(unattributed));
                    t.run_total_j.push(fj_to_j(total));
                    t.own_nj.push(fj_to_nj(own));
                    t.tail_nj.push(fj_to_nj(tail));
                    t.other_flows_nj.push(fj_to_nj(others));
                    t.unattributed_nj.push(fj_to_nj(unattributed));
                    t.run_total_nj.push(fj_to_nj(total));
                }
            }
        }
        t
    }
}
