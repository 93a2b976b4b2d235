//! One-way delay statistics of a datagram stream, as ns-3's FlowMonitor and iperf report them:
//! mean, min, max and percentiles of the delay, RFC 3550 interarrival jitter (iperf's) and the
//! mean absolute delay variation between consecutive datagrams (FlowMonitor's
//! `jitterSum / (rxPackets − 1)`). Recording a sample allocates nothing: the percentile
//! histogram is allocated once, at the first sample (a stream that never receives costs none).

use hdrhistogram::Histogram;
use serde::Serialize;
use wattlab_core::Duration;

/// Significant decimal digits the percentile histogram keeps: a percentile is within 0.1 %
/// (1/1024) of the exact nearest-rank value (HdrHistogram's guarantee), and never outside the
/// exact minimum and maximum.
pub const SIGNIFICANT_DIGITS: u8 = 3;
/// Largest delay the histogram resolves (2^42 ns, 73 minutes); longer delays count in its
/// top bucket (the mean, min and max stay exact).
const HIGHEST_NS: u64 = 1 << 42;

/// The delay samples of one stream, in the order the datagrams arrived.
#[derive(Default)]
pub struct DelayStats {
    /// Delays for percentiles (allocated at the first sample).
    hist: Option<Box<Histogram<u32>>>,
    n: u64,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
    /// The previous arrival's delay.
    last_ns: Option<u64>,
    /// RFC 3550 §6.4.1 estimator J, in ns: J += (|D(i−1, i)| − J) / 16.
    jitter_ns: f64,
    /// Sum of |delay(i) − delay(i − 1)| over consecutive arrivals (FlowMonitor's jitterSum).
    ipdv_sum_ns: u128,
}

/// The result columns of [`DelayStats`] (ms; null when no datagram arrived, or, for the
/// variation columns, fewer than two).
#[derive(Clone, Debug, Default, Serialize)]
pub struct DelayColumns {
    /// Mean one-way delay: arrival at the receiving application − sending by the source's.
    pub delay_mean_ms: Option<f64>,
    /// Smallest one-way delay.
    pub delay_min_ms: Option<f64>,
    /// Median one-way delay (nearest rank, within 0.1 %).
    pub delay_p50_ms: Option<f64>,
    /// 99th-percentile one-way delay (nearest rank, within 0.1 %).
    pub delay_p99_ms: Option<f64>,
    /// Largest one-way delay.
    pub delay_max_ms: Option<f64>,
    /// RFC 3550 interarrival jitter at the last arrival (what iperf reports).
    pub jitter_ms: Option<f64>,
    /// Mean |delay difference| of consecutive arrivals (ns-3 FlowMonitor's jitterSum / (rx − 1)).
    pub ipdv_mean_ms: Option<f64>,
}

impl DelayStats {
    /// One datagram arrived `delay` after it was sent.
    pub fn record(&mut self, delay: Duration) {
        let d = delay.as_nanos();
        let hist = self.hist.get_or_insert_with(|| {
            Box::new(Histogram::new_with_bounds(1, HIGHEST_NS, SIGNIFICANT_DIGITS).expect("valid histogram bounds"))
        });
        hist.saturating_record(d.clamp(1, HIGHEST_NS));
        if let Some(last) = self.last_ns {
            let diff = d.abs_diff(last);
            self.ipdv_sum_ns += u128::from(diff);
            self.jitter_ns += (diff as f64 - self.jitter_ns) * (1.0 / 16.0); // exact: a power of two
        }
        self.min_ns = if self.n == 0 { d } else { self.min_ns.min(d) };
        self.max_ns = self.max_ns.max(d);
        self.n += 1;
        self.sum_ns += u128::from(d);
        self.last_ns = Some(d);
    }

    /// Samples recorded.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The `q`-quantile in ns (nearest rank), clamped to the exact min and max.
    fn quantile_ns(&self, q: f64) -> Option<u64> {
        let h = self.hist.as_ref()?;
        Some(h.value_at_quantile(q).clamp(self.min_ns, self.max_ns))
    }

    /// The columns.
    pub fn columns(&self) -> DelayColumns {
        let ms = |ns: u64| ns as f64 / 1e6;
        if self.n == 0 {
            return DelayColumns::default();
        }
        let variation = self.n >= 2;
        DelayColumns {
            delay_mean_ms: Some(self.sum_ns as f64 / self.n as f64 / 1e6),
            delay_min_ms: Some(ms(self.min_ns)),
            delay_p50_ms: self.quantile_ns(0.5).map(ms),
            delay_p99_ms: self.quantile_ns(0.99).map(ms),
            delay_max_ms: Some(ms(self.max_ns)),
            jitter_ms: variation.then(|| self.jitter_ns / 1e6),
            ipdv_mean_ms: variation.then(|| self.ipdv_sum_ns as f64 / (self.n - 1) as f64 / 1e6),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(delays_us: &[u64]) -> DelayColumns {
        let mut s = DelayStats::default();
        for &d in delays_us {
            s.record(Duration::from_micros(d));
        }
        s.columns()
    }

    #[test]
    fn a_constant_delay_has_exact_percentiles_and_no_jitter() {
        let c = stats(&[12_345; 1000]);
        for v in [c.delay_mean_ms, c.delay_min_ms, c.delay_p50_ms, c.delay_p99_ms, c.delay_max_ms] {
            assert_eq!(v, Some(12.345));
        }
        assert_eq!((c.jitter_ms, c.ipdv_mean_ms), (Some(0.0), Some(0.0)));
    }

    #[test]
    fn jitter_follows_rfc3550_and_ipdv_the_mean_difference() {
        // Delays 10, 14, 12 ms: differences 4 and 2 ms.
        let c = stats(&[10_000, 14_000, 12_000]);
        // J = 0 + (4 − 0)/16 = 0.25; J = 0.25 + (2 − 0.25)/16 = 0.359375 (ms).
        assert!((c.jitter_ms.unwrap() - 0.359_375).abs() < 1e-12, "{c:?}");
        assert!((c.ipdv_mean_ms.unwrap() - 3.0).abs() < 1e-12);
        assert_eq!((c.delay_min_ms, c.delay_max_ms), (Some(10.0), Some(14.0)));
        assert!((c.delay_mean_ms.unwrap() - 12.0).abs() < 1e-12);
    }

    #[test]
    fn percentiles_are_nearest_rank_within_the_stated_error() {
        // 1..=1000 µs: nearest-rank p50 = 500 µs, p99 = 990 µs.
        let v: Vec<u64> = (1..=1000).collect();
        let c = stats(&v);
        let within = |got: Option<f64>, exact: f64| (got.unwrap() - exact).abs() <= exact / 1024.0;
        assert!(within(c.delay_p50_ms, 0.5), "{c:?}");
        assert!(within(c.delay_p99_ms, 0.99), "{c:?}");
    }

    #[test]
    fn no_arrival_gives_null_columns_and_one_gives_no_variation() {
        let c = stats(&[]);
        assert!(c.delay_mean_ms.is_none() && c.jitter_ms.is_none());
        let c = stats(&[5_000]);
        assert_eq!((c.delay_p99_ms, c.jitter_ms, c.ipdv_mean_ms), (Some(5.0), None, None));
    }
}
