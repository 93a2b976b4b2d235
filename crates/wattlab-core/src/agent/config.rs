//! Parameters of the client-centered agent, with seed 000's values as defaults.
//!
//! Where the seed's text lost a formula (notes/000.md marks them **\[R\]**) the reading chosen
//! is documented at the field and can be changed here.

use crate::time::Duration;
use std::fmt;

/// How the end of a shaped burst is detected (seed 000 §III-D.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BurstDetection {
    /// No packet for this long: the burst is over.
    Fixed(Duration),
    /// No packet for (IA_avg + 4·IA_dev) × max(1, packets still missing of W) **\[R\]**.
    Dynamic,
    /// Active burst detection: a window probe sent D after each open ACK; its response marks
    /// the end of the next burst (the seed's method, its default).
    Active,
}

impl BurstDetection {
    /// Name in reports: `fixed`, `dynamic`, `active`.
    pub fn name(self) -> &'static str {
        match self {
            BurstDetection::Fixed(_) => "fixed",
            BurstDetection::Dynamic => "dynamic",
            BurstDetection::Active => "active",
        }
    }
}

/// Everything the agent can be tuned by.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentConfig {
    /// End-of-burst detection method.
    pub detection: BurstDetection,
    /// Shape congestion avoidance into bursts with closed/open ACKs (mechanism 4). Off: the
    /// agent only sleeps between slow-start stages and in think times.
    pub shaping: bool,
    /// Bandwidth of the wireless hop, for the saturation test (mechanism 8); `None` disables
    /// the test.
    pub link_rate_bps: Option<u64>,
    /// Saturated when W ≥ this fraction of the wireless bandwidth-delay product...
    pub saturation_fraction: f64,
    /// ...for this many consecutive bursts.
    pub saturation_bursts: u32,
    /// Revert to plain TCP after this many consecutive windows with a loss (no in-order window).
    pub lossy_windows_to_revert: u32,
    /// Initial server bandwidth estimate B of D = W / B (100 Mb/s: Fast Ethernet).
    pub server_rate_bps: u64,
    /// Step by which D grows on a mid-burst or piggy-backed probe response.
    pub probe_delay_step: Duration,
    /// Floor of D.
    pub probe_delay_floor: Duration,
    /// Clean bursts in a row before D shrinks (by half the mean gap between the last data
    /// packet and the probe response).
    pub clean_bursts_to_shrink: u32,
    /// The RTT cache (mechanism 11): sleep through connection set-up and the request's round
    /// trip when the site was seen earlier in the same page.
    pub rtt_cache: bool,
    /// Sleep only if it lasts at least this long (shorter sleeps cost more in transitions than
    /// they save; the host sets it from the device profile's break-even time).
    pub min_sleep: Duration,
    /// Wake this long before a predicted arrival (the timestamp clock's 1 ms granularity).
    pub wake_guard: Duration,
    /// The dynamic threshold is at least this many RTT deviations: RTT variation stretches a
    /// burst with gaps the inter-arrival average has rarely seen (0 = the seed's formula alone).
    pub dynamic_var_floor: f64,
    /// Wake this many RTT deviations before one minimum RTT after an open ACK: the minimum of
    /// a few samples overestimates the base RTT when the RTT varies.
    pub wake_var_factor: f64,
    /// Multiplier k of VAR in the slow-start stage prediction: start = t_first_ack + SRTT −
    /// k·VAR, end = t_last_ack + SRTT + k·VAR **\[R\]** (seed: k = 1).
    pub stage_var_factor: f64,
    /// T_idle = this × the largest gap between two data packets of one stage (≈ the largest
    /// gap between the client's ACKs, which acknowledge every second packet) **\[R\]**.
    pub idle_gap_factor: f64,
    /// Floor of T_idle.
    pub idle_floor: Duration,
    /// A stage that holds fewer than this fraction × twice the previous stage's packets ends
    /// slow start ("packets per stage stop doubling").
    pub doubling_fraction: f64,
    /// Timestamp clock rate of the client's TCP (1000 Hz for Linux and wattlab's model); the
    /// agent stamps its own probes and ACKs with this clock, learned from outgoing packets.
    pub ts_clock_hz: u64,
    /// Stay awake this long after any packet that is not TCP (UDP, ICMP), in or out, and after
    /// the last non-TCP session closes: the agent predicts only TCP, so other traffic keeps the
    /// radio up as a driver's idle timeout would (iwlwifi's rx/tx data timeouts: 100 ms).
    pub other_traffic_hold: Duration,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            detection: BurstDetection::Active,
            shaping: true,
            link_rate_bps: None,
            saturation_fraction: 0.9,
            saturation_bursts: 3,
            lossy_windows_to_revert: 3,
            server_rate_bps: 100_000_000,
            probe_delay_step: Duration::from_millis(1),
            probe_delay_floor: Duration::from_millis(3),
            clean_bursts_to_shrink: 10,
            rtt_cache: true,
            min_sleep: Duration::from_millis(3),
            wake_guard: Duration::from_millis(1),
            wake_var_factor: 1.0,
            dynamic_var_floor: 4.0,
            stage_var_factor: 1.0,
            idle_gap_factor: 2.0,
            idle_floor: Duration::from_millis(2),
            doubling_fraction: 0.75,
            ts_clock_hz: 1000,
            other_traffic_hold: Duration::from_millis(100),
        }
    }
}

/// A configuration value out of range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentConfigError(pub String);

impl fmt::Display for AgentConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AgentConfigError {}

impl AgentConfig {
    /// Check every field; the error names the field and the valid range.
    pub fn validate(&self) -> Result<(), AgentConfigError> {
        let err = |m: &str| Err(AgentConfigError(m.to_string()));
        if !(self.saturation_fraction > 0.0 && self.saturation_fraction <= 1.0) {
            return err("saturation_fraction must be in (0, 1]");
        }
        if self.saturation_bursts == 0
            || self.lossy_windows_to_revert == 0
            || self.clean_bursts_to_shrink == 0
        {
            return err("saturation_bursts, lossy_windows_to_revert and clean_bursts_to_shrink must be at least 1");
        }
        if self.server_rate_bps == 0 || self.link_rate_bps == Some(0) {
            return err("server_rate and link_rate must be positive");
        }
        if !(self.stage_var_factor >= 0.0 && self.stage_var_factor.is_finite()) {
            return err("stage_var_factor must be a finite number ≥ 0");
        }
        if !(self.wake_var_factor >= 0.0 && self.wake_var_factor.is_finite()) {
            return err("wake_var_factor must be a finite number ≥ 0");
        }
        if !(self.dynamic_var_floor >= 0.0 && self.dynamic_var_floor.is_finite()) {
            return err("dynamic_var_floor must be a finite number ≥ 0");
        }
        if !(self.idle_gap_factor >= 1.0 && self.idle_gap_factor.is_finite()) {
            return err("idle_gap_factor must be a finite number ≥ 1");
        }
        if !(self.doubling_fraction > 0.0 && self.doubling_fraction <= 1.0) {
            return err("doubling_fraction must be in (0, 1]");
        }
        if self.ts_clock_hz == 0 || self.ts_clock_hz > 1_000_000_000 {
            return err("ts_clock_hz must be in 1..=1e9");
        }
        if let BurstDetection::Fixed(t) = self.detection {
            if t == Duration::ZERO {
                return err("a fixed burst threshold must be positive");
            }
        }
        Ok(())
    }
}
