//! The paper's energy unit and index (§II.3, §IV): "seconds of battery lifetime" lost against
//! the laptop on standby with the card off, the power-saving index in KB per battery-second,
//! and the reduction against a baseline.
//!
//! Conversion (notes §3.2): the Sony BTP-31 pack holds 10.8 V × 4.05 Ah = 157 464 J; on
//! standby with the card off it lasts 11 520 s, so the base load is 157 464 / 11 520 =
//! 13.66875 W. A card that draws `E` joules on top of that load ends the battery `E / P_base`
//! seconds earlier (P_base·T + E = E_batt), whatever its power profile: one battery-second is
//! 13.66875 J. KB are 1000 bytes and Kbps 1024 bit/s, the convention Table 1's rows fit.

/// Battery energy in joules (10.8 V × 4050 mAh).
pub const BATTERY_J: f64 = 10.8 * 4.05 * 3600.0;
/// Standby lifetime with the card off, in seconds (the reference).
pub const REFERENCE_LIFETIME_S: f64 = 11_520.0;
/// Base load of the laptop on standby with the card off, in watts (≈ 13.67 W).
pub const BASE_POWER_W: f64 = BATTERY_J / REFERENCE_LIFETIME_S;

/// Seconds of battery lifetime a card energy of `card_j` joules costs.
pub fn battery_seconds(card_j: f64) -> f64 {
    card_j / BASE_POWER_W
}

/// Card energy in joules that costs `seconds` of battery lifetime.
pub fn card_joules(seconds: f64) -> f64 {
    seconds * BASE_POWER_W
}

/// Battery lifetime in seconds when the card spends `card_j` joules before the battery dies.
pub fn lifetime_s(card_j: f64) -> f64 {
    REFERENCE_LIFETIME_S - battery_seconds(card_j)
}

/// The power-saving index: KB (1000 bytes) delivered per second of battery lifetime.
pub fn power_saving_index(bytes: u64, battery_s: f64) -> f64 {
    bytes as f64 / 1000.0 / battery_s
}

/// Percentage by which `value` is below `baseline` (100·(1 − value/baseline)).
pub fn reduction_percent(baseline: f64, value: f64) -> f64 {
    100.0 * (1.0 - value / baseline)
}

/// Throughput in the paper's Kbps (1024 bit/s) of `bytes` over `secs`.
pub fn paper_kbps(bytes: u64, secs: f64) -> f64 {
    bytes as f64 * 8.0 / 1024.0 / secs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn battery_and_base_power() {
        assert!(close(BATTERY_J, 157_464.0, 1e-6));
        assert!(close(BASE_POWER_W, 13.668_75, 1e-9));
        // Card idle on: 1320 s of the 11 520 (lifetime ≈ 10 200 s) is 18 043 J, ≈ 1.77 W.
        assert!(close(card_joules(1320.0), 18_042.75, 1e-6));
        assert!(close(card_joules(1320.0) / 10_200.0, 1.769, 1e-3));
        assert!(close(lifetime_s(card_joules(1320.0)), 10_200.0, 1e-9));
        assert!(close(battery_seconds(card_joules(19.0)), 19.0, 1e-12));
    }

    /// Tables 1-2: consumption, lifetime, index, gain and reduction for A and B.
    #[test]
    fn tables_1_and_2() {
        let (a, b) = (25_446_000u64, 2_519_000u64);
        // Lifetimes 11 520 − consumption.
        for (cons, life) in [(1515.0, 10_005.0), (19.0, 11_501.0), (1367.0, 10_153.0), (8.0, 11_512.0)] {
            assert!(close(lifetime_s(card_joules(cons)), life, 1e-9));
        }
        let idx = [
            power_saving_index(a, 1515.0),
            power_saving_index(a, 19.0),
            power_saving_index(b, 1367.0),
            power_saving_index(b, 8.0),
        ];
        assert!(close(idx[0], 16.8, 0.005)); // 16.796
        assert!(close(idx[1], 1339.26, 0.005));
        assert!(close(idx[2], 1.84, 0.005)); // 1.8427
        assert!(close(idx[3], 314.875, 1e-9)); // printed 314.8
        assert!(close(idx[1] / idx[0], 79.74, 0.005)); // "about 80 times"
        assert!(close(idx[3] / idx[2], 170.88, 0.005)); // "about 171 times"
        assert!(close(reduction_percent(1515.0, 19.0), 98.75, 0.005));
        assert!(close(reduction_percent(1367.0, 8.0), 99.41, 0.005));
        // Throughput in the paper's units: 19.87 Kbps and the 130 s / 13 s PSNA bursts.
        assert!(close(paper_kbps(a, 10_005.0), 19.87, 0.005));
        assert!(close(a as f64 * 8.0 / 1024.0 / 1525.48, 130.3, 0.05));
        assert!(close(b as f64 * 8.0 / 1024.0 / 1525.48, 12.9, 0.05));
    }
}
