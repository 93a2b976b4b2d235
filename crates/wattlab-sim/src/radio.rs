//! A node's wireless NIC as the simulator sees it: every transmit and receive interval of its
//! wireless interface goes to one [`PolicyMeter`] per accounting policy, so a single run is
//! costed under always-on, oracle and any other accounting policy at once. A station whose
//! MAC manages power (PSM, BSD, U-APSD...) also has a meter driven by the MAC's own doze and
//! wake decisions: that one is what the station really spent.

use wattlab_core::power::Basis as RadioBasis;
use wattlab_core::energy::{
    AccountingPolicy, Activity, DeviceProfile, EnergyReport, PolicyMeter, RadioMeter, RadioState,
};
use wattlab_core::power::PowerMode;
use wattlab_core::Time;

/// A meter that follows the MAC: awake (idle) or dozing, plus the activity intervals.
pub struct MacMeter {
    /// Policy name in reports (the power-save mode, e.g. `psm`, `bsd-50`).
    pub name: String,
    meter: RadioMeter,
    awake: bool,
    /// End of the latest activity: state changes before it are deferred to it.
    busy_until: Time,
}

impl MacMeter {
    fn activity(&mut self, start: Time, end: Time, kind: Activity) {
        let start = start.max(self.busy_until).max(self.meter.last_change());
        if end <= start {
            return;
        }
        self.meter.set_state(start, kind.state());
        self.meter.set_state(end, if self.awake { RadioState::Idle } else { RadioState::Sleep });
        self.busy_until = end;
    }

    fn set_awake(&mut self, at: Time, awake: bool) {
        self.awake = awake;
        let at = at.max(self.busy_until).max(self.meter.last_change());
        self.meter.set_state(at, if awake { RadioState::Idle } else { RadioState::Sleep });
    }
}

/// The radio of one node.
pub struct Radio {
    /// Node index.
    pub node: u32,
    /// Device profile.
    pub profile: DeviceProfile,
    /// (policy name, meter) pairs.
    pub meters: Vec<(String, PolicyMeter)>,
    /// The MAC-driven meter of a power-saving station.
    pub mac_meter: Option<MacMeter>,
    /// Total transmit time in ns (for cross-checks).
    pub tx_ns: u64,
    /// Total receive time in ns.
    pub rx_ns: u64,
}

impl Radio {
    /// A radio with the given profile and policies, starting at `start`.
    pub fn new(node: u32, profile: DeviceProfile, policies: &[(String, AccountingPolicy)], start: Time) -> Radio {
        let meters = policies
            .iter()
            .map(|(name, p)| (name.clone(), PolicyMeter::new(*p, &profile, start)))
            .collect();
        Radio { node, profile, meters, mac_meter: None, tx_ns: 0, rx_ns: 0 }
    }

    /// Adds a meter that follows the MAC's doze/wake decisions, reported as `name`, using
    /// `profile` (the node's, or a variant of it).
    pub fn add_mac_meter(&mut self, name: String, profile: &DeviceProfile, start: Time) {
        self.mac_meter =
            Some(MacMeter { name, meter: RadioMeter::new(profile, start, RadioState::Idle), awake: true, busy_until: start });
    }

    /// Record that the radio transmits or receives during `[start, end)`.
    pub fn activity(&mut self, start: Time, end: Time, kind: Activity) {
        match kind {
            Activity::Tx => self.tx_ns += (end - start).0,
            Activity::Rx => self.rx_ns += (end - start).0,
            Activity::Wait => {}
        }
        for (_, m) in &mut self.meters {
            m.activity(start, end, kind);
        }
        if let Some(m) = self.mac_meter.as_mut() {
            m.activity(start, end, kind);
        }
    }

    /// The MAC woke the radio up (`awake`) or put it to doze at `at`.
    pub fn set_awake(&mut self, at: Time, awake: bool) {
        if let Some(m) = self.mac_meter.as_mut() {
            m.set_awake(at, awake);
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
        let mut v: Vec<(String, RadioBasis, EnergyReport)> =
            self.meters.iter().map(|(n, m)| (n.clone(), m.policy().name().basis(), m.report(end))).collect();
        if let Some(m) = &self.mac_meter {
            let mut r = m.meter.report(end);
            r.policy = Some(m.name.clone());
            // MAC meters are named by the registry (`psm`, `bsd-50`, `cc`); a name it does not
            // know would be a mode the registry misses, which changes the traffic.
            let basis = m.name.parse::<PowerMode>().map_or(RadioBasis::Mode, PowerMode::basis);
            v.push((m.name.clone(), basis, r));
        }
        v
    }
}
