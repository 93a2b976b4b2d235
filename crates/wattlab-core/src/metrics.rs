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
