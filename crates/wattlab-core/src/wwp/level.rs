//! The receiver's level decisions: the T/B band rule after a wave, the probe RTT rule after a
//! probe cycle, and the handshake's first-level rule.

use super::config::WwpConfig;
use crate::time::Duration;

/// Next level from the measured wave time `t` against the baseline `b` (closed upper bounds):
/// t ≤ B → 3, ≤ 2B → 2, ≤ 3B → 1, otherwise 0.
pub fn level_from_wave_time(t: Duration, b: Duration) -> u8 {
    let (t, b) = (t.as_nanos() as u128, b.as_nanos() as u128);
    if t <= b {
        3
    } else if t <= 2 * b {
        2
    } else if t <= 3 * b {
        1
    } else {
        0
    }
}

/// Next level from a probe RTT against the smallest RTT seen (`base`), capped at `cap`:
/// ≤ base·(1+ε) → 3, ≤ 2·base → 2, ≤ 3·base → 1, otherwise 0.
pub fn level_from_probe_rtt(rtt: Duration, base: Duration, epsilon: f64, cap: u8) -> u8 {
    let (r, b) = (rtt.as_secs_f64(), base.as_secs_f64());
    let level = if r <= b * (1.0 + epsilon) {
        3
    } else if r <= 2.0 * b {
        2
    } else if r <= 3.0 * b {
        1
    } else {
        0
    };
    level.min(cap)
}

/// The handshake's first level from RTT1 and RTT2, or `None` to abandon (the paper's
/// algorithm): equal RTTs below the threshold give a level by RTT (≤ ⅓ threshold → 3,
/// ≤ ⅔ → 2, else 1); unequal RTTs whose maximum is below the threshold give level 1; a
/// handshake that needed a retransmission (`repeated`) is forced to level 1.
pub fn first_level(rtt1: Duration, rtt2: Duration, repeated: bool, cfg: &WwpConfig) -> Option<u8> {
    let (lo, hi) = if rtt1 <= rtt2 { (rtt1, rtt2) } else { (rtt2, rtt1) };
    if hi >= cfg.rtt_threshold {
        return None;
    }
    let equal = (hi - lo).as_secs_f64() <= lo.as_secs_f64() * cfg.rtt_equal_tolerance;
    if !equal || repeated {
        return Some(1);
    }
    let (h, th) = (hi.as_nanos() as u128, cfg.rtt_threshold.as_nanos() as u128);
    Some(if 3 * h <= th {
        3
    } else if 3 * h <= 2 * th {
        2
    } else {
        1
    })
}
