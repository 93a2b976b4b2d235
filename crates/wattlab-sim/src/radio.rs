//! A node's wireless NIC as the simulator sees it: every transmit and receive interval of its
//! wireless interface goes to one [`PolicyMeter`] per accounting policy, so a single run is
//! costed under always-on, oracle and any other accounting policy at once. A station whose
//! MAC manages power (PSM, BSD, U-APSD...) also has a meter driven by the MAC's own doze and
//! wake decisions: that one is what the station really spent.
//!
//! Each interval carries the [`FlowTag`] of its frame, and a radio at a flow's end marks the
//! flow's completion on every meter (`crate::flow_energy` has the rules); both cost nothing
//! unless enabled.

use wattlab_core::power::Basis as RadioBasis;
use crate::flow_energy::{FlowTag, NO_FLOW};
use wattlab_core::energy::{
    own_bucket, tail_bucket, AccountingPolicy, Activity, DeviceProfile, EnergyReport, PolicyMeter, RadioMeter,
    RadioState, RunEnergy,
};
use wattlab_core::power::{PowerMode, PowerSave, PowerState};
use wattlab_core::wlan::PpduShape;
use wattlab_core::Time;

/// A meter that follows the MAC: awake (idle) or dozing, plus the activity intervals.
pub struct MacMeter {
    /// Policy name in reports (the power-save mode, e.g. `psm`, `bsd-50`).
    pub name: String,
    meter: RadioMeter,
    /// The state between activities: idle (awake), sleep (dozing) or off (no power).
    rest: RadioState,
    /// End of the latest activity: state changes before it are deferred to it.
    busy_until: Time,
    /// Flow of the latest activity: the time after it is its tail.
    flow: FlowTag,
}

impl MacMeter {
    /// The radio is busy with `kind` over `[start, end)`, drawing `power_uw` (a PPDU's own
    /// power) or, if `None`, the profile's power for the state.
    fn activity(&mut self, start: Time, end: Time, kind: Activity, flow: FlowTag, power_uw: Option<u64>) {
        let start = start.max(self.busy_until).max(self.meter.last_change());
        if end <= start {
            return;
        }
        self.flow = flow;
        match power_uw {
            Some(p) => self.meter.set_state_at_power(start, kind.state(), own_bucket(flow), p),
            None => self.meter.set_state_owned(start, kind.state(), own_bucket(flow)),
        }
        self.meter.set_state_owned(end, self.rest, tail_bucket(flow));
        self.busy_until = end;
    }

    fn set_rest(&mut self, at: Time, rest: RadioState) {
        self.rest = rest;
        let at = at.max(self.busy_until).max(self.meter.last_change());
        // The power manager's own decision: part of the latest flow's tail.
        self.meter.set_state_owned(at, rest, tail_bucket(self.flow));
    }
}

/// What one meter of a radio says at the end of a run.
pub struct MeterEnergy {
    /// Policy or mode name.
    pub name: String,
    /// What the row costs (the name registry's basis).
    pub basis: RadioBasis,
    /// Report, energy per attribution bucket, marks.
    pub energy: RunEnergy,
}

/// The radio of one node.
pub struct Radio {
    /// Node index.
    pub node: u32,
    /// Device profile.
    pub profile: DeviceProfile,
    /// How the scenario named the profile, for tools that read it again (the live run's
    /// costing): a built-in name, or the profile file's absolute path.
    pub profile_spec: String,
    /// (policy name, meter) pairs.
    pub meters: Vec<(String, PolicyMeter)>,
    /// The MAC-driven meter of a power-saving station.
    pub mac_meter: Option<MacMeter>,
    /// Total transmit time in ns (for cross-checks).
    pub tx_ns: u64,
    /// Total receive time in ns.
    pub rx_ns: u64,
    /// Meters attribute frames to flows and keep marks (the radio is at a flow's end).
    flow_energy: bool,
    /// The profile gives powers per PPDU width and spatial streams (`[[ppdu_power]]`).
    per_ppdu: bool,
    /// The flow and instant of each mark, by mark id (the same on every meter).
    marked: Vec<(u32, Time)>,
}

impl Radio {
    /// A radio with the given profile and policies, starting at `start`.
    pub fn new(node: u32, profile: DeviceProfile, policies: &[(String, AccountingPolicy)], start: Time) -> Radio {
        let meters = policies
            .iter()
            .map(|(name, p)| (name.clone(), PolicyMeter::new(*p, &profile, start)))
            .collect();
        let per_ppdu = !profile.ppdu_powers().is_empty();
        let profile_spec = profile.name().to_string();
        Radio { node, profile, profile_spec, meters, mac_meter: None, tx_ns: 0, rx_ns: 0, flow_energy: false, per_ppdu, marked: Vec::new() }
    }

    /// Attributes frames to flows and keeps marks on every meter (before the run).
    pub fn enable_flow_energy(&mut self) {
        self.flow_energy = true;
        for (_, m) in &mut self.meters {
            m.enable_attribution();
            m.enable_marks();
        }
        if let Some(m) = self.mac_meter.as_mut() {
            m.meter.enable_attribution();
            m.meter.enable_marks();
        }
    }

    /// True if the radio attributes frames to flows ([`Radio::enable_flow_energy`]).
    pub fn attributes(&self) -> bool {
        self.flow_energy
    }

    /// Flow `flow` completed at `now`: every meter marks the instant.
    pub fn mark_flow(&mut self, now: Time, flow: u32) {
        if !self.flow_energy {
            return;
        }
        self.marked.push((flow, now));
        for (_, m) in &mut self.meters {
            m.mark(now);
        }
        if let Some(m) = self.mac_meter.as_mut() {
            m.meter.mark(now);
        }
    }

    /// The marks: (flow, instant), by [`wattlab_core::energy::MarkId`].
    pub fn marked(&self) -> &[(u32, Time)] {
        &self.marked
    }

    /// Adds the meter of the station's power-save mode: named after the mode and costed with
    /// its energy rule (`ideal-psm` wakes for free). None for `cam`, which leaves the traffic
    /// as the accounting policies cost it.
    pub fn add_mode_meter(&mut self, mode: PowerSave) {
        if mode.saves_power() {
            let profile = mode.meter_profile(&self.profile);
            self.add_mac_meter(mode.name(), &profile, Time::ZERO);
        }
    }

    /// Adds a meter that follows the MAC's doze/wake decisions, reported as `name`, using
    /// `profile` (the node's, or a variant of it).
    pub fn add_mac_meter(&mut self, name: String, profile: &DeviceProfile, start: Time) {
        let mut meter = RadioMeter::new(profile, start, RadioState::Idle);
        if self.flow_energy {
            meter.enable_attribution();
            meter.enable_marks();
            // Keep the mark ids the same on every meter.
            for &(_, t) in &self.marked {
                meter.mark(t);
            }
        }
        self.mac_meter = Some(MacMeter { name, meter, rest: RadioState::Idle, busy_until: start, flow: NO_FLOW });
    }

    /// Record that the radio transmits or receives during `[start, end)` a frame of `flow`,
    /// at the profile's single tx/rx power (a `[[wireless]]` hop's frames: no PPDU shape).
    pub fn activity(&mut self, start: Time, end: Time, kind: Activity, flow: FlowTag) {
        self.activity_at(start, end, kind, flow, None);
    }

    /// [`Radio::activity`] for a PPDU of `shape`: charged at the profile's power for its width
    /// and spatial streams ([`DeviceProfile::ppdu_power_uw`]), which is the single tx/rx power
    /// when the profile has no `[[ppdu_power]]` entry for them.
    pub fn ppdu_activity(&mut self, start: Time, end: Time, kind: Activity, flow: FlowTag, shape: PpduShape) {
        // A profile without a table meters exactly as before (no per-interval power).
        let power = (self.per_ppdu && kind != Activity::Wait)
            .then(|| self.profile.ppdu_power_uw(kind.state(), shape.width_mhz, shape.nss));
        self.activity_at(start, end, kind, flow, power);
    }

    fn activity_at(&mut self, start: Time, end: Time, kind: Activity, flow: FlowTag, power_uw: Option<u64>) {
        match kind {
            Activity::Tx => self.tx_ns += (end - start).0,
            Activity::Rx => self.rx_ns += (end - start).0,
            Activity::Wait => {}
        }
        for (_, m) in &mut self.meters {
            m.frame_at_power(start, end, kind, 0, flow, power_uw);
        }
        if let Some(m) = self.mac_meter.as_mut() {
            m.activity(start, end, kind, flow, power_uw);
        }
    }

    /// The MAC woke the radio up (`awake`) or put it to doze at `at`.
    pub fn set_awake(&mut self, at: Time, awake: bool) {
        self.set_power(at, if awake { PowerState::Awake } else { PowerState::Doze });
    }

    /// The station's power machine put the radio in `state` at `at` (off: no power to the
    /// card, with the profile's off ↔ idle transition costs).
    pub fn set_power(&mut self, at: Time, state: PowerState) {
        let rest = match state {
            PowerState::Awake => RadioState::Idle,
            PowerState::Doze => RadioState::Sleep,
            PowerState::Off => RadioState::Off,
        };
        if let Some(m) = self.mac_meter.as_mut() {
            m.set_rest(at, rest);
        }
    }

    /// Record every state change of every policy (for the radio time series).
    pub fn enable_timelines(&mut self) {
        for (_, m) in &mut self.meters {
            m.enable_timeline();
        }
        if let Some(m) = self.mac_meter.as_mut() {
            m.meter.enable_timeline();
        }
    }

    /// State changes per policy, for the time series.
    pub fn timelines(&self) -> Vec<(&str, &[(Time, RadioState)])> {
        let mut v: Vec<(&str, &[(Time, RadioState)])> =
            self.meters.iter().map(|(n, m)| (n.as_str(), m.timeline())).collect();
        if let Some(m) = &self.mac_meter {
            v.push((m.name.as_str(), m.meter.timeline()));
        }
        v
    }

    /// Energy reports per policy, accounting until `end`, each with its basis as the name
    /// registry gives it: an accounting policy's, or that of the mode the MAC meter follows.
    pub fn reports(&self, end: Time) -> Vec<(String, RadioBasis, EnergyReport)> {
        self.results(end).into_iter().map(|m| (m.name, m.basis, m.energy.report)).collect()
    }

    /// Every meter's report, attribution and marks, accounting until `end`.
    pub fn results(&self, end: Time) -> Vec<MeterEnergy> {
        let mut v: Vec<MeterEnergy> = self
            .meters
            .iter()
            .map(|(n, m)| MeterEnergy { name: n.clone(), basis: m.policy().name().basis(), energy: m.run_energy(end) })
            .collect();
        if let Some(m) = &self.mac_meter {
            let mut energy = m.meter.run_energy(end);
            energy.report.policy = Some(m.name.clone());
            // MAC meters are named by the registry (`psm`, `bsd-50`, `cc`); a name it does not
            // know would be a mode the registry misses, which changes the traffic.
            let basis = m.name.parse::<PowerMode>().map_or(RadioBasis::Mode, PowerMode::basis);
            v.push(MeterEnergy { name: m.name.clone(), basis, energy });
        }
        v
    }
}
