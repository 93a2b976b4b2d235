//! A node's wireless NIC as the simulator sees it: every transmit and receive interval of its
//! wireless interface goes to one [`PolicyMeter`] per accounting policy, so a single run is
//! costed under always-on, oracle and any other accounting policy at once.

use wattlab_core::energy::{AccountingPolicy, Activity, DeviceProfile, EnergyReport, PolicyMeter};
use wattlab_core::Time;

/// The radio of one node.
pub struct Radio {
    /// Node index.
    pub node: u32,
    /// Device profile.
    pub profile: DeviceProfile,
    /// (policy name, meter) pairs.
    pub meters: Vec<(String, PolicyMeter)>,
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
        Radio { node, profile, meters, tx_ns: 0, rx_ns: 0 }
    }

    /// Record that the radio transmits or receives during `[start, end)`.
    pub fn activity(&mut self, start: Time, end: Time, kind: Activity) {
        match kind {
            Activity::Tx => self.tx_ns += (end - start).0,
            Activity::Rx => self.rx_ns += (end - start).0,
        }
        for (_, m) in &mut self.meters {
            m.activity(start, end, kind);
        }
    }

    /// Record every state change of every policy (for the radio time series).
    pub fn enable_timelines(&mut self) {
        for (_, m) in &mut self.meters {
            m.enable_timeline();
        }
    }

    /// Energy reports per policy, accounting until `end`.
    pub fn reports(&self, end: Time) -> Vec<(String, EnergyReport)> {
        self.meters.iter().map(|(n, m)| (n.clone(), m.report(end))).collect()
    }
}
