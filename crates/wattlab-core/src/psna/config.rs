//! PSNA parameters: the paper's values where it gives them (α = 0.9, ≥ 10 packets per sample,
//! the sample mean for the first 10 samples), and every choice it leaves open as a field with
//! its default (`docs/psna.md` gives the reasons).

use crate::time::Duration;

/// The AP↔FH throughput estimator (paper §III, Eq. 3).
#[derive(Clone, Debug, PartialEq)]
pub struct EstimatorConfig {
    /// EWMA weight of the previous estimate, 0 < α < 1 (paper: 0.9).
    pub alpha: f64,
    /// Data packets an interval Δ_i must contain before it yields a sample (paper: 10).
    pub min_packets: u32,
    /// Samples averaged by the sample mean before the EWMA takes over (paper: 10).
    pub mean_samples: u32,
    /// Bytes per FH packet, to count packets from byte counts (unspecified; 1460).
    pub fh_segment_size: u32,
}

impl Default for EstimatorConfig {
    fn default() -> Self {
        EstimatorConfig { alpha: 0.9, min_packets: 10, mean_samples: 10, fh_segment_size: 1460 }
    }
}

/// The AP daemon's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct DaemonConfig {
    /// The throughput estimator.
    pub estimator: EstimatorConfig,
    /// DATA payload bytes per download chunk (unspecified; 1400: 1418-byte messages fit a
    /// 1500-byte MTU over UDP/IPv4).
    pub chunk_size: u16,
    /// Largest object one transfer may buffer (unspecified; 64 MiB).
    pub max_object: u64,
    /// Longest Residual_Time sent (unspecified; 1 h, the notes' cap on a sleep).
    pub max_residual: Duration,
    /// A transfer the mobile has not contacted for this long is dropped, its FH connection
    /// aborted (unspecified; 2 h, longer than `max_residual`).
    pub abandon_after: Duration,
    /// A finished transfer is kept this long to answer duplicates (unspecified; 60 s).
    pub linger: Duration,
}

impl Default for DaemonConfig {
    fn default() -> Self {
        DaemonConfig {
            estimator: EstimatorConfig::default(),
            chunk_size: 1400,
            max_object: 64 << 20,
            max_residual: Duration::from_secs(3600),
            abandon_after: Duration::from_secs(7200),
            linger: Duration::from_secs(60),
        }
    }
}

/// The mobile host's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct MobileConfig {
    /// DATA payload bytes per upload chunk (unspecified; 1400).
    pub chunk_size: u16,
    /// Retransmission timeout of a request (unspecified; 100 ms ≫ a WLAN round trip).
    pub rto: Duration,
    /// Retransmissions of one request before the transfer fails (unspecified; 10).
    pub max_retries: u32,
    /// While on and waiting for a deferred answer (the first Residual_Time, OK to send), poll
    /// again after this long, in case the daemon's answer was lost (unspecified; 5 s).
    pub wait_poll_interval: Duration,
    /// Longest the radio stays on waiting for a first Residual_Time; after it the mobile sleeps
    /// as long as it waited and polls (unspecified; 600 s).
    pub max_wait_on: Duration,
    /// A Residual_Time shorter than this keeps the radio on (wait, then poll) instead of
    /// switching it off (unspecified; 0: always off, as in Figs. 8-9).
    pub min_sleep: Duration,
    /// Time from switching the radio on to sending the Poll (association; 0: the host's radio
    /// model is ready at the instant it is switched on).
    pub resume_delay: Duration,
}

impl Default for MobileConfig {
    fn default() -> Self {
        MobileConfig {
            chunk_size: 1400,
            rto: Duration::from_millis(100),
            max_retries: 10,
            wait_poll_interval: Duration::from_secs(5),
            max_wait_on: Duration::from_secs(600),
            min_sleep: Duration::ZERO,
            resume_delay: Duration::ZERO,
        }
    }
}

/// Why a PSNA configuration is unusable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid PSNA configuration: {0}")]
pub struct PsnaConfigError(pub &'static str);

impl EstimatorConfig {
    /// Check the parameters.
    pub fn validate(&self) -> Result<(), PsnaConfigError> {
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(PsnaConfigError("alpha must be in (0, 1)"));
        }
        if self.min_packets == 0 || self.fh_segment_size == 0 {
            return Err(PsnaConfigError("min_packets and fh_segment_size must be positive"));
        }
        Ok(())
    }
}

impl DaemonConfig {
    /// Check the parameters.
    pub fn validate(&self) -> Result<(), PsnaConfigError> {
        self.estimator.validate()?;
        if self.chunk_size == 0 || self.max_residual < Duration::from_millis(1) {
            return Err(PsnaConfigError("chunk_size and max_residual (≥ 1 ms) must be positive"));
        }
        if self.abandon_after <= self.max_residual {
            return Err(PsnaConfigError("abandon_after must exceed max_residual (a sleeping mobile is not gone)"));
        }
        Ok(())
    }
}

impl MobileConfig {
    /// Check the parameters.
    pub fn validate(&self) -> Result<(), PsnaConfigError> {
        if self.chunk_size == 0 {
            return Err(PsnaConfigError("chunk_size must be positive"));
        }
        if self.rto == Duration::ZERO || self.wait_poll_interval == Duration::ZERO || self.max_wait_on == Duration::ZERO {
            return Err(PsnaConfigError("rto, wait_poll_interval and max_wait_on must be positive"));
        }
        Ok(())
    }
}
