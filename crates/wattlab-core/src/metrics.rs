//! Transport metrics the seeds use, in one place: goodput and throughput, overhead, WWP's
//! effort overhead (seed 004), Jain's fairness index, seed 002's fairness–utilisation index
//! F(X, C) and its sliding-window form, and seed 003's extra energy expenditure (3E).
//!
//! Everything is a pure function of measured quantities, so the simulator, the trace analyzer
//! and the Python API all compute the same numbers. Inputs that make an index meaningless
//! (negative rates, NaN, an empty set of flows, a zero capacity) are errors with a reason,
//! never a silent NaN.

use std::fmt;

/// Why a metric cannot be computed from the given inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricError(pub String);

impl fmt::Display for MetricError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MetricError {}

fn err<T>(msg: impl Into<String>) -> Result<T, MetricError> {
    Err(MetricError(msg.into()))
}

/// A finite, non-negative measured quantity, or an error naming it.
fn quantity(name: &str, v: f64) -> Result<f64, MetricError> {
    if !v.is_finite() || v < 0.0 {
        return err(format!("{name} must be a finite number ≥ 0, got {v}"));
    }
    Ok(v)
}

fn positive(name: &str, v: f64) -> Result<f64, MetricError> {
    if !v.is_finite() || v <= 0.0 {
        return err(format!("{name} must be a finite number > 0, got {v}"));
    }
    Ok(v)
}

fn rates(name: &str, xs: &[f64]) -> Result<(), MetricError> {
    if xs.is_empty() {
        return err(format!("{name}: no flows"));
    }
    for (i, &x) in xs.iter().enumerate() {
        quantity(&format!("{name}[{i}]"), x)?;
    }
    Ok(())
}

/// Goodput (seed 003 eq. 1): original application bytes delivered per second of connection
/// time, in bits per second.
pub fn goodput_bps(original_bytes: u64, seconds: f64) -> Result<f64, MetricError> {
    Ok(original_bytes as f64 * 8.0 / positive("connection time", seconds)?)
}

/// Throughput: every byte the sender put on the wire (headers and retransmissions included)
/// per second, in bits per second.
pub fn throughput_bps(wire_bytes: u64, seconds: f64) -> Result<f64, MetricError> {
    Ok(wire_bytes as f64 * 8.0 / positive("connection time", seconds)?)
}

/// Overhead (seed 003 §5.8, after the group's earlier work): (total − original) / original.
pub fn overhead(total_bytes: u64, original_bytes: u64) -> Result<f64, MetricError> {
    if original_bytes == 0 {
        return err("overhead: no original data was delivered (division by zero)");
    }
    Ok((total_bytes as f64 - original_bytes as f64) / original_bytes as f64)
}

/// WWP's effort overhead (seed 004 §13): (sender bytes + receiver overhead − original) /
/// original, where the receiver overhead is every byte the receiver's transport emits
/// (ACKs, handshake). The transport effort of both ends per byte delivered.
pub fn effort_overhead(sender_bytes: u64, receiver_overhead_bytes: u64, original_bytes: u64) -> Result<f64, MetricError> {
    overhead(sender_bytes.saturating_add(receiver_overhead_bytes), original_bytes)
}

/// Jain's fairness index (Σx)² / (n·Σx²), in [1/n, 1]; 1 when all flows get the same.
/// All-zero allocations are perfectly (if uselessly) fair: 1.
pub fn jain_index(xs: &[f64]) -> Result<f64, MetricError> {
    rates("Jain's index", xs)?;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if sq == 0.0 {
        return Ok(1.0);
    }
    Ok(sum * sum / (xs.len() as f64 * sq))
}

/// Seed 002's fairness–utilisation index (Eq. 2.10): F(X, C) = C² / (nΣx² − 2CΣx + 2C²).
/// 1 only when every flow gets C/n; equal to Jain's index when Σx = C.
pub fn fairness_utilization_index(xs: &[f64], capacity: f64) -> Result<f64, MetricError> {
    rates("F(X, C)", xs)?;
    let c = positive("capacity C", capacity)?;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    Ok(f_from_sums(xs.len() as f64, sum, sq, c))
}

/// F(X, C) from n, Σx and Σx². The denominator n·Σx² − 2CΣx + 2C² = n·Σ(x − C/n)² + C² is
/// positive for C > 0, so the ratio is always defined.
fn f_from_sums(n: f64, sum: f64, sq: f64, c: f64) -> f64 {
    c * c / (n * sq - 2.0 * c * sum + 2.0 * c * c)
}

/// Sliding-window form of F(X, C) (seed 002 Eq. 2.12, after Koksal et al.): flow i's rate over
/// every window of `window` consecutive intervals, F of those rates, averaged over all window
/// positions (sliding by one interval). `bytes[i][k]` is what flow i delivered in interval k;
/// every interval lasts `interval_s`; `capacity` is in bits per second.
pub fn sliding_window_index(bytes: &[&[u64]], interval_s: f64, window: usize, capacity: f64) -> Result<f64, MetricError> {
    if bytes.is_empty() {
        return err("sliding-window index: no flows");
    }
    positive("interval", interval_s)?;
    positive("capacity C", capacity)?;
    let len = bytes[0].len();
    if let Some((i, b)) = bytes.iter().enumerate().find(|(_, b)| b.len() != len) {
        return err(format!("sliding-window index: flow {i} has {} intervals, flow 0 has {len}", b.len()));
    }
    if window == 0 || window > len {
        return err(format!("sliding-window index: window of {window} intervals does not fit in {len}"));
    }
    let n = bytes.len() as f64;
    let secs = window as f64 * interval_s;
    // Running window sums: O(flows × intervals), no allocation beyond one vector per call.
    let mut sums: Vec<u64> = bytes.iter().map(|b| b[..window].iter().sum()).collect();
    let mut total = 0.0;
    let positions = len - window + 1;
    for pos in 0..positions {
        if pos > 0 {
            for (s, b) in sums.iter_mut().zip(bytes) {
                *s = *s + b[pos + window - 1] - b[pos - 1];
            }
        }
        let (mut sum, mut sq) = (0.0, 0.0);
        for &s in &sums {
            let x = s as f64 * 8.0 / secs;
            sum += x;
            sq += x * x;
        }
        total += f_from_sums(n, sum, sq, capacity);
    }
    Ok(total / positions as f64)
}

/// Seed 002's bottleneck capacity for the testbed's F(X, C) and SWM: 29.60 Mb/s, the MAC-level
/// maximum of 802.11a at 54 Mb/s with a 1460-byte MTU (after Jun et al.), in bits per second.
pub const SEED002_CAPACITY_BPS: f64 = 29.60e6;

/// Population variance (1/n)·Σ(x − x̄)² of the allocations (seed 002 Sect. 2.4 quotes 2.25,
/// 4.0 and 9.0 for Table 2.1's cases 4–6).
pub fn population_variance(xs: &[f64]) -> Result<f64, MetricError> {
    rates("variance", xs)?;
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    Ok(xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n)
}

/// Coefficient of variation COV = sqrt(variance)/x̄ (seed 002 Eq. 2.9), so that Jain's index is
/// 1/(1 + COV²) (Eq. 2.8). All-zero allocations have COV 0.
pub fn coefficient_of_variation(xs: &[f64]) -> Result<f64, MetricError> {
    let var = population_variance(xs)?;
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    Ok(if mean == 0.0 { 0.0 } else { var.sqrt() / mean })
}

/// Seed 002's f(X, C) = (1/n)·Σ(x − C/n)² (Eq. 2.6): the variance about the fair and fully
/// used share x_f = C/n instead of about the mean.
pub fn fair_share_variance(xs: &[f64], capacity: f64) -> Result<f64, MetricError> {
    rates("f(X, C)", xs)?;
    let c = positive("capacity C", capacity)?;
    let n = xs.len() as f64;
    let xf = c / n;
    Ok(xs.iter().map(|x| (x - xf) * (x - xf)).sum::<f64>() / n)
}

/// Seed 002's g(X, C) = sqrt(f(X, C))/x_f (Eq. 2.7), so that F(X, C) = 1/(1 + g²) (Eq. 2.10).
pub fn fair_share_cov(xs: &[f64], capacity: f64) -> Result<f64, MetricError> {
    let f = fair_share_variance(xs, capacity)?;
    Ok(f.sqrt() / (capacity / xs.len() as f64))
}

/// Seed 002's AP buffer estimate (Eq. 2.11), in packets: B_est = (cwnd_overflow − T·minRTT/8)/MSS,
/// from the cwnd (bytes) at the first data loss of a single flow, the throughput T (bits/s)
/// just before it and the smallest RTT (s): the window beyond the bandwidth-delay product sat
/// in the AP's queue.
pub fn ap_buffer_estimate(cwnd_overflow_bytes: f64, throughput_bps: f64, min_rtt_s: f64, mss_bytes: f64) -> Result<f64, MetricError> {
    let w = quantity("cwnd_overflow", cwnd_overflow_bytes)?;
    let t = quantity("throughput T", throughput_bps)?;
    let rtt = quantity("minRTT", min_rtt_s)?;
    let mss = positive("MSS", mss_bytes)?;
    Ok((w - t * rtt / 8.0) / mss)
}

/// [`sliding_window_index`] for each window size in `windows` (in intervals): the SWM curve
/// from short-term to long-term fairness (seed 002 Figs. 2.10–2.11).
pub fn sliding_window_indices(bytes: &[&[u64]], interval_s: f64, windows: &[usize], capacity: f64) -> Result<Vec<f64>, MetricError> {
    windows.iter().map(|&w| sliding_window_index(bytes, interval_s, w, capacity)).collect()
}

/// The two weights of seed 003's 3E index: α on effort without return (transmit power), b on
/// unused capacity (idle power).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EeeWeights {
    /// Weight of (Thr − Goodput): the transmit power, normalised.
    pub alpha: f64,
    /// Weight of (Thr_max − Thr): the idle power, normalised.
    pub b: f64,
}

impl Default for EeeWeights {
    /// The paper's values, normalised to the Lucent OriNOCO card: α = 1, b = 0.45.
    fn default() -> Self {
        EeeWeights { alpha: 1.0, b: 0.45 }
    }
}

impl EeeWeights {
    /// Checked weights: both finite and ≥ 0, not both zero, and b ≤ α (the paper ties α to
    /// P_Tx and b to P_idle, and no NIC idles at more power than it transmits).
    pub fn new(alpha: f64, b: f64) -> Result<Self, MetricError> {
        if !alpha.is_finite() || alpha < 0.0 {
            return err(format!("3E weight α must be a finite number ≥ 0 (it stands for the transmit power), got {alpha}"));
        }
        if !b.is_finite() || b < 0.0 {
            return err(format!("3E weight b must be a finite number ≥ 0 (it stands for the idle power), got {b}"));
        }
        if alpha == 0.0 && b == 0.0 {
            return err("3E weights α and b are both 0: the index would be 0 for every protocol");
        }
        if b > alpha {
            return err(format!(
                "3E weight b = {b} exceeds α = {alpha}: b stands for the idle power and α for the transmit power, \
                 and idle power is below transmit power on every NIC"
            ));
        }
        Ok(EeeWeights { alpha, b })
    }

    /// Weights from a device's powers, normalised to α = 1: b = P_idle / P_tx
    /// (0.532 for the OriNOCO with idle = 82 % of receive, against the paper's 0.45).
    pub fn from_powers(tx_w: f64, idle_w: f64) -> Result<Self, MetricError> {
        let tx = positive("transmit power", tx_w)?;
        let idle = quantity("idle power", idle_w)?;
        EeeWeights::new(1.0, idle / tx)
    }
}

fn check_eee_inputs(thr_max: f64) -> Result<f64, MetricError> {
    positive("Thr_max", thr_max)
}

/// Extra energy expenditure of one flow (seed 003 eq. 3):
/// 3E = α·(Thr − G)/Thr_max + b·(Thr_max − Thr)/Thr_max. Lower is better.
///
/// Thr above Thr_max (a measurement at the edge of its noise) makes the second term negative;
/// it is kept as measured, not clamped, so the caller can see it.
pub fn eee(throughput: f64, goodput: f64, thr_max: f64, w: EeeWeights) -> Result<f64, MetricError> {
    let thr = quantity("throughput", throughput)?;
    let g = quantity("goodput", goodput)?;
    let m = check_eee_inputs(thr_max)?;
    Ok(w.alpha * (thr - g) / m + w.b * (m - thr) / m)
}

/// System 3E (seed 003 §4, the printed formula): α·Σ(Thr_i − G_i)/Thr_max +
/// b·(Thr_max − ΣThr_i)/Thr_max — one idle term for the shared channel, not a sum of per-flow
/// indices (see notes/003.md §5.7).
pub fn eee_system(flows: &[(f64, f64)], thr_max: f64, w: EeeWeights) -> Result<f64, MetricError> {
    if flows.is_empty() {
        return err("system 3E: no flows");
    }
    let m = check_eee_inputs(thr_max)?;
    let (mut waste, mut total) = (0.0, 0.0);
    for (i, &(thr, g)) in flows.iter().enumerate() {
        waste += quantity(&format!("throughput[{i}]"), thr)? - quantity(&format!("goodput[{i}]"), g)?;
        total += thr;
    }
    Ok(w.alpha * waste / m + w.b * (m - total) / m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// Seed 002 Table 2.1 (C = 30 Mb/s, n = 10): all 8 cases, Jain and F(X, C), to the two
    /// decimals the thesis prints.
    #[test]
    fn seed002_table_2_1() {
        let rep = |v: f64, n: usize| std::iter::repeat_n(v, n).collect::<Vec<_>>();
        let cat = |a: Vec<f64>, b: &[f64]| a.into_iter().chain(b.iter().copied()).collect::<Vec<_>>();
        let cases: Vec<(Vec<f64>, f64, f64)> = vec![
            (rep(3.0, 10), 1.00, 1.00),
            (rep(2.0, 10), 1.00, 0.90),
            (rep(1.0, 10), 1.00, 0.69),
            (cat(rep(1.0, 9), &[6.0]), 0.50, 0.67),
            (cat(rep(1.0, 8), &[6.0, 6.0]), 0.50, 0.64),
            (cat(rep(2.0, 9), &[12.0]), 0.50, 0.50),
            (vec![1., 1., 1., 1., 1., 1., 2., 3., 3., 6.], 0.62, 0.73),
            (vec![1., 1., 1., 3., 3., 3., 3., 4., 5., 6.], 0.78, 0.78),
        ];
        // Half a unit of the last printed digit; case 7's Jain is exactly 0.625, printed 0.62.
        let tol = 0.005 + 1e-9;
        for (i, (xs, jain, f)) in cases.iter().enumerate() {
            let j = jain_index(xs).unwrap();
            let p = fairness_utilization_index(xs, 30.0).unwrap();
            assert!(close(j, *jain, tol), "case {}: Jain {j:.4} vs {jain}", i + 1);
            assert!(close(p, *f, tol), "case {}: F {p:.4} vs {f}", i + 1);
        }
    }

    #[test]
    fn jain_example_and_scale_invariance() {
        let a = jain_index(&[10.0, 30.0, 40.0]).unwrap();
        let b = jain_index(&[100.0, 300.0, 400.0]).unwrap();
        assert!(close(a, 0.82, 0.005), "{a}");
        assert!(close(a, b, 1e-12));
        assert!(close(jain_index(&[5.0, 0.0, 0.0, 0.0]).unwrap(), 0.25, 1e-12)); // 1/n floor
    }

    /// Seed 002 Sect. 2.4: the variances of Table 2.1's cases 4, 5 and 6 (all with Jain 0.50).
    #[test]
    fn seed002_variances_of_cases_4_to_6() {
        let rep = |v: f64, n: usize| std::iter::repeat_n(v, n).collect::<Vec<_>>();
        let mut c4 = rep(1.0, 9);
        c4.push(6.0);
        let mut c5 = rep(1.0, 8);
        c5.extend([6.0, 6.0]);
        let mut c6 = rep(2.0, 9);
        c6.push(12.0);
        for (xs, var) in [(c4, 2.25), (c5, 4.0), (c6, 9.0)] {
            let v = population_variance(&xs).unwrap();
            assert!(close(v, var, 1e-12), "{v} vs {var}");
            // Eq. 2.8: Jain = 1/(1 + COV²) = 0.5 for all three.
            let cov = coefficient_of_variation(&xs).unwrap();
            assert!(close(1.0 / (1.0 + cov * cov), jain_index(&xs).unwrap(), 1e-12));
            assert!(close(jain_index(&xs).unwrap(), 0.5, 1e-12));
        }
    }

    #[test]
    fn f_is_one_over_one_plus_g_squared() {
        let xs = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 3.0, 3.0, 6.0];
        let g = fair_share_cov(&xs, 30.0).unwrap();
        assert!(close(1.0 / (1.0 + g * g), fairness_utilization_index(&xs, 30.0).unwrap(), 1e-12));
        // f about x_f = 3: (6·4 + 1 + 0 + 0 + 9)/10 = 3.4.
        assert!(close(fair_share_variance(&xs, 30.0).unwrap(), 3.4, 1e-12));
    }

    /// Seed 002 Table 2.3: B_est from Eq. 2.11 with MSS = 1500 B, T in b/s and minRTT in s.
    #[test]
    fn seed002_table_2_3_ap_buffers() {
        let rows = [(0.975e-3, 21.8e6, 118_003.0, 76.9), (0.563e-3, 19.6e6, 76_719.0, 50.2), (0.674e-3, 20.2e6, 366_826.0, 243.4)];
        for (rtt, t, cwnd, b) in rows {
            let est = ap_buffer_estimate(cwnd, t, rtt, 1500.0).unwrap();
            assert!(close(est, b, 0.05), "{est:.3} vs {b}");
            assert_eq!(format!("{est:.1}"), format!("{b:.1}"));
        }
        assert!(ap_buffer_estimate(1.0, 1.0, 1.0, 0.0).unwrap_err().0.contains("MSS"));
    }

    #[test]
    fn sliding_window_curve_rises_from_short_to_long_windows() {
        let a: Vec<u64> = (0..12).map(|k| if k % 4 < 2 { 1000 } else { 0 }).collect();
        let b: Vec<u64> = (0..12).map(|k| if k % 4 >= 2 { 1000 } else { 0 }).collect();
        let flows = [a.as_slice(), b.as_slice()];
        let curve = sliding_window_indices(&flows, 1.0, &[1, 2, 4], 8000.0).unwrap();
        assert!(close(curve[0], 0.5, 1e-12) && close(curve[2], 1.0, 1e-12), "{curve:?}");
        assert!(curve[0] < curve[1] && curve[1] < curve[2], "{curve:?}");
        assert_eq!(SEED002_CAPACITY_BPS, 29.6e6);
    }

    #[test]
    fn f_equals_jain_at_full_utilisation() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        assert!(close(fairness_utilization_index(&xs, 10.0).unwrap(), jain_index(&xs).unwrap(), 1e-12));
    }

    #[test]
    fn sliding_window_index_of_alternating_flows() {
        // Two flows take turns at the full capacity of 8 kb/s (1000 B per 1 s interval).
        let a: Vec<u64> = (0..10).map(|k| if k % 2 == 0 { 1000 } else { 0 }).collect();
        let b: Vec<u64> = (0..10).map(|k| if k % 2 == 1 { 1000 } else { 0 }).collect();
        let flows = [a.as_slice(), b.as_slice()];
        // Short windows see one flow at a time: F = 1/n; two-interval windows see perfect sharing.
        assert!(close(sliding_window_index(&flows, 1.0, 1, 8000.0).unwrap(), 0.5, 1e-12));
        assert!(close(sliding_window_index(&flows, 1.0, 2, 8000.0).unwrap(), 1.0, 1e-12));
        assert!(sliding_window_index(&flows, 1.0, 11, 8000.0).is_err());
    }

    /// Seed 003's worked examples with T_max = 100 (notes/003.md §5.5), including the tie of
    /// example 3 at the paper's own b = 0.45 and the strict order at b = 0.4.
    #[test]
    fn seed003_eee_examples() {
        let w = EeeWeights::default();
        let e = |t: f64, g: f64, w: EeeWeights| eee(t, g, 100.0, w).unwrap();
        assert!(close(e(100.0, 80.0, w), 0.20, 1e-12) && close(e(100.0, 60.0, w), 0.40, 1e-12));
        assert!(close(e(80.0, 60.0, w), 0.29, 1e-12) && close(e(60.0, 40.0, w), 0.38, 1e-12));
        assert!(close(e(40.0, 39.0, w), e(60.0, 50.0, w), 1e-12), "example 3 is a tie at b = 0.45");
        assert!(close(e(40.0, 39.0, w), 0.28, 1e-12));
        let w4 = EeeWeights::new(1.0, 0.4).unwrap();
        assert!(e(40.0, 39.0, w4) < e(60.0, 50.0, w4));
        // Ideal protocol: Thr = Thr_max, 40 B of headers per 1024 B segment → 3E = 0.039·α.
        let ideal = eee(100.0, 100.0 * 984.0 / 1024.0, 100.0, w).unwrap();
        assert!(close(ideal, 40.0 / 1024.0, 1e-12));
    }

    #[test]
    fn system_eee_uses_one_idle_term() {
        let w = EeeWeights::default();
        let s = eee_system(&[(40.0, 39.0), (60.0, 50.0)], 100.0, w).unwrap();
        assert!(close(s, (1.0 + 10.0) / 100.0, 1e-12)); // channel full: no idle term
        assert!(close(eee_system(&[(40.0, 39.0)], 100.0, w).unwrap(), eee(40.0, 39.0, 100.0, w).unwrap(), 1e-12));
    }

    #[test]
    fn invalid_inputs_are_rejected_with_reasons() {
        assert!(EeeWeights::new(-1.0, 0.45).unwrap_err().0.contains("α"));
        assert!(EeeWeights::new(1.0, f64::NAN).unwrap_err().0.contains("b"));
        assert!(EeeWeights::new(0.0, 0.0).is_err());
        assert!(EeeWeights::new(0.4, 0.45).unwrap_err().0.contains("idle"));
        assert!(eee(1.0, 1.0, 0.0, EeeWeights::default()).unwrap_err().0.contains("Thr_max"));
        assert!(jain_index(&[]).is_err());
        assert!(jain_index(&[1.0, -1.0]).unwrap_err().0.contains("[1]"));
        assert!(overhead(10, 0).is_err());
        let w = EeeWeights::from_powers(1.425, 0.7585).unwrap();
        assert!(close(w.b, 0.532, 0.001));
    }

    #[test]
    fn seed004_effort_overhead() {
        // Seed 004 Table 1, test 1.1 (TCP): EO 0.0795, printed as 0.08.
        let eo = effort_overhead(936_202, 15_928, 881_996).unwrap();
        assert!(close(eo, 0.0795, 0.0001), "{eo}");
        assert!(close(overhead(1100, 1000).unwrap(), 0.1, 1e-12));
    }
}
