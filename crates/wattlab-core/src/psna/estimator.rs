//! The AP's throughput estimator (paper §III, Eq. 3): the transfer is cut into intervals Δ_i
//! of at least 10 data packets each, λ_i = DR_i / Δ_i, the estimate is the sample mean of the
//! samples while there are at most 10 of them, then λ̄_n = α·λ̄_{n−1} + (1 − α)·λ_n.
//!
//! Interval boundaries: the first interval starts at the first arrival, whose bytes are not
//! counted (they arrived at its start instant); an interval ends at the arrival that brings it
//! to at least `min_packets` packets, provided time has passed since its start, and the next
//! interval starts there. `docs/psna.md` explains the choice.

use super::config::EstimatorConfig;
use crate::time::{Duration, Time};

/// One sample and the estimate after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The interval's end.
    pub at: Time,
    /// λ_i in bytes per second.
    pub lambda: f64,
    /// λ̄_i in bytes per second.
    pub estimate: f64,
    /// 1-based sample number i.
    pub index: u32,
}

/// The estimator of one transfer's AP↔FH throughput.
#[derive(Clone, Debug)]
pub struct ThroughputEstimator {
    cfg: EstimatorConfig,
    start: Option<Time>,
    bytes: u64,
    packets: u32,
    samples: u32,
    sum: f64,
    estimate: Option<f64>,
}

impl ThroughputEstimator {
    /// A fresh estimator (no sample yet).
    pub fn new(cfg: EstimatorConfig) -> Self {
        ThroughputEstimator { cfg, start: None, bytes: 0, packets: 0, samples: 0, sum: 0.0, estimate: None }
    }

    /// `bytes` arrived (read) or were acknowledged (send) at `now`; counted as
    /// ⌈bytes / fh_segment_size⌉ packets (at least 1).
    pub fn on_bytes(&mut self, now: Time, bytes: u64) -> Option<Sample> {
        let seg = u64::from(self.cfg.fh_segment_size);
        let packets = u32::try_from(bytes.div_ceil(seg).max(1)).unwrap_or(u32::MAX);
        self.on_packets(now, bytes, packets)
    }

    /// `packets` data packets carrying `bytes` arrived at `now`; returns the sample this closes.
    pub fn on_packets(&mut self, now: Time, bytes: u64, packets: u32) -> Option<Sample> {
        let Some(start) = self.start else {
            self.start = Some(now);
            return None;
        };
        self.bytes += bytes;
        self.packets = self.packets.saturating_add(packets);
        if self.packets < self.cfg.min_packets || now <= start {
            return None;
        }
        let lambda = self.bytes as f64 / (now - start).as_secs_f64();
        self.start = Some(now);
        self.bytes = 0;
        self.packets = 0;
        self.samples += 1;
        let estimate = match self.estimate {
            Some(prev) if self.samples > self.cfg.mean_samples => {
                self.cfg.alpha * prev + (1.0 - self.cfg.alpha) * lambda
            }
            _ => {
                self.sum += lambda;
                self.sum / f64::from(self.samples)
            }
        };
        self.estimate = Some(estimate);
        Some(Sample { at: now, lambda, estimate, index: self.samples })
    }

    /// λ̄ in bytes per second, once there is a sample.
    pub fn estimate(&self) -> Option<f64> {
        self.estimate
    }

    /// Samples taken so far.
    pub fn samples(&self) -> u32 {
        self.samples
    }

    /// Time to move `remaining` bytes at λ̄ (None before the first sample).
    pub fn residual(&self, remaining: u64) -> Option<Duration> {
        let rate = self.estimate.filter(|r| *r > 0.0)?;
        Some(Duration::from_secs_f64(remaining as f64 / rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Time {
        Time::ZERO + Duration::from_millis(ms)
    }

    /// A hand-built arrival sequence: 1000-byte packets; interval i (1-based) holds 10 packets
    /// spread evenly over i·100 ms, so λ_i = 10 000 B / (i·0.1 s) = 100 000 / i B/s.
    #[test]
    fn sample_mean_then_ewma_on_a_hand_built_sequence() {
        let cfg = EstimatorConfig { fh_segment_size: 1000, ..EstimatorConfig::default() };
        let mut est = ThroughputEstimator::new(cfg);
        assert_eq!(est.on_bytes(t(0), 1000), None, "the first arrival opens interval 1");
        let mut now = 0;
        let mut got = Vec::new();
        for i in 1..=12u64 {
            for k in 1..=10u64 {
                let at = now + i * 10 * k;
                let s = est.on_bytes(t(at), 1000);
                assert_eq!(s.is_some(), k == 10, "interval {i} closes at its 10th packet");
                got.extend(s);
            }
            now += i * 100;
        }
        let lambda: Vec<f64> = (1..=12).map(|i| 100_000.0 / i as f64).collect();
        for (s, l) in got.iter().zip(&lambda) {
            assert!((s.lambda - l).abs() < 1e-6, "{s:?} vs {l}");
        }
        // Samples 1..=10: the running sample mean. 100 000·H_n / n.
        let h = |n: usize| (1..=n).map(|i| 1.0 / i as f64).sum::<f64>();
        for n in 1..=10 {
            let mean = 100_000.0 * h(n) / n as f64;
            assert!((got[n - 1].estimate - mean).abs() < 1e-6, "n = {n}");
        }
        // Hand-computed: mean of 10 = 29 289.682540; then EWMA with α = 0.9.
        assert!((got[9].estimate - 29_289.682_539_68).abs() < 1e-4);
        let e11 = 0.9 * 29_289.682_539_68 + 0.1 * 100_000.0 / 11.0; // 27 269.805 195
        let e12 = 0.9 * e11 + 0.1 * 100_000.0 / 12.0; // 25 376.158 009
        assert!((got[10].estimate - 27_269.805_194_8).abs() < 1e-4);
        assert!((got[10].estimate - e11).abs() < 1e-6);
        assert!((got[11].estimate - e12).abs() < 1e-6);
        assert!((got[11].estimate - 25_376.158_008_7).abs() < 1e-4);
        assert_eq!(est.samples(), 12);
        assert_eq!(est.residual(25_376), Some(Duration::from_secs_f64(25_376.0 / e12)));
    }

    #[test]
    fn an_interval_needs_ten_packets_and_positive_length() {
        let mut est = ThroughputEstimator::new(EstimatorConfig::default());
        est.on_bytes(t(0), 1460);
        // Nine 1460-byte packets, then one read of 2 920 bytes (2 packets): closes at 11.
        for k in 1..=9 {
            assert_eq!(est.on_bytes(t(k * 100), 1460), None);
        }
        let s = est.on_bytes(t(1000), 2920).unwrap();
        assert!((s.lambda - 11.0 * 1460.0).abs() < 1e-9);
        // Ten packets at one instant do not close an interval of zero length.
        assert_eq!(est.on_packets(t(1000), 14_600, 10), None);
        let s = est.on_packets(t(2000), 1460, 1).unwrap();
        assert!((s.lambda - 16_060.0).abs() < 1e-9);
        assert!(est.residual(0).is_some());
        assert_eq!(ThroughputEstimator::new(EstimatorConfig::default()).residual(5), None);
    }
}
