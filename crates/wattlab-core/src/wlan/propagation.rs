//! Distance and signal strength: static positions, log-distance path loss with optional
//! log-normal shadowing, transmit power and the receiver's noise floor, giving the SNR of a
//! link for a channel width.
//!
//! - Path loss (Rappaport, *Wireless Communications*, 2nd ed., §4.9.1, Eq. 4.68):
//!   `L(d) = L0 + 10 n log10(d / d0)` dB. The defaults are ns-3's
//!   `LogDistancePropagationLossModel`: `d0` = 1 m, `L0` = 46.6777 dB (free-space loss at 1 m
//!   for 5.15 GHz, Friis: `20 log10(4π d0 / λ)`) and `n` = 3. Below `d0` the loss is `L0`
//!   (ns-3 returns no loss at all there; a client at 0.5 m is no louder than at 1 m here).
//! - Shadowing (Rappaport §4.9.2): a zero-mean Gaussian in dB of standard deviation `σ`,
//!   one value per link, drawn once by the caller from the scenario's seeded streams (the
//!   core draws nothing): the same for both directions of a link.
//! - Noise floor: thermal noise `kTB` at T = 290 K over the channel width `B`
//!   (−174.0 dBm/Hz, i.e. −100.96 dBm in 20 MHz) plus the receiver's noise figure; ns-3's
//!   default noise figure is 7 dB (`YansWifiPhy::RxNoiseFigure`).
//! - Transmit power default 16.0206 dBm (40 mW), ns-3's `WifiPhy::TxPowerStart`.

/// Boltzmann's constant, J/K (SI 2019, exact).
const BOLTZMANN: f64 = 1.380649e-23;
/// Reference temperature of the noise figure, K (IEEE's 290 K).
const NOISE_TEMPERATURE_K: f64 = 290.0;

/// A node's position, metres.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Position {
    /// East, m.
    pub x: f64,
    /// North, m.
    pub y: f64,
    /// Height, m.
    pub z: f64,
}

impl Position {
    /// Straight-line distance to `other`, m.
    pub fn distance(&self, other: &Position) -> f64 {
        ((self.x - other.x).powi(2) + (self.y - other.y).powi(2) + (self.z - other.z).powi(2)).sqrt()
    }
}

/// Log-distance path loss and the link budget of one channel (every node the same radio).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Propagation {
    /// Reference distance `d0`, m.
    pub reference_distance_m: f64,
    /// Loss at `d0`, dB.
    pub reference_loss_db: f64,
    /// Path-loss exponent `n`.
    pub exponent: f64,
    /// Standard deviation of the log-normal shadowing, dB (0: none).
    pub shadowing_sigma_db: f64,
    /// Transmit power of every node, dBm.
    pub tx_power_dbm: f64,
    /// Receiver noise figure, dB.
    pub noise_figure_db: f64,
}

impl Default for Propagation {
    /// ns-3's defaults (module comment): 1 m, 46.6777 dB, n = 3, no shadowing, 16.0206 dBm, 7 dB.
    fn default() -> Self {
        Propagation {
            reference_distance_m: 1.0,
            reference_loss_db: 46.6777,
            exponent: 3.0,
            shadowing_sigma_db: 0.0,
            tx_power_dbm: 16.0206,
            noise_figure_db: 7.0,
        }
    }
}

/// Free-space (Friis) loss at `distance_m` for a carrier of `frequency_hz`, dB.
pub fn friis_loss_db(distance_m: f64, frequency_hz: f64) -> f64 {
    let lambda = 299_792_458.0 / frequency_hz;
    20.0 * (4.0 * std::f64::consts::PI * distance_m / lambda).log10()
}

/// Thermal noise `kTB` over `width_mhz` at 290 K, dBm.
pub fn thermal_noise_dbm(width_mhz: f64) -> f64 {
    10.0 * (BOLTZMANN * NOISE_TEMPERATURE_K * width_mhz * 1e6 * 1e3).log10()
}

/// dB → linear ratio.
pub fn db_to_ratio(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

/// Linear ratio → dB.
pub fn ratio_to_db(ratio: f64) -> f64 {
    10.0 * ratio.log10()
}

impl Propagation {
    /// Path loss at `distance_m` without shadowing, dB (`L0` below `d0`).
    pub fn path_loss_db(&self, distance_m: f64) -> f64 {
        let d = distance_m.max(self.reference_distance_m);
        self.reference_loss_db + 10.0 * self.exponent * (d / self.reference_distance_m).log10()
    }

    /// Shadowing of a link in dB from one standard-normal draw `z` (0 when σ = 0).
    pub fn shadowing_db(&self, z: f64) -> f64 {
        self.shadowing_sigma_db * z
    }

    /// Power received over `distance_m` with `shadowing_db` of extra loss, dBm.
    pub fn rx_power_dbm(&self, distance_m: f64, shadowing_db: f64) -> f64 {
        self.tx_power_dbm - self.path_loss_db(distance_m) - shadowing_db
    }

    /// Noise floor of a receiver on a `width_mhz` channel: kTB plus the noise figure, dBm.
    pub fn noise_dbm(&self, width_mhz: f64) -> f64 {
        thermal_noise_dbm(width_mhz) + self.noise_figure_db
    }

    /// SNR of a frame received at `rx_dbm` on a `width_mhz` channel, dB.
    pub fn snr_db(&self, rx_dbm: f64, width_mhz: f64) -> f64 {
        rx_dbm - self.noise_dbm(width_mhz)
    }

    /// SINR of a frame received at `rx_dbm` while others arrive with `interference_mw` in total
    /// (milliwatts), on a `width_mhz` channel, dB.
    pub fn sinr_db(&self, rx_dbm: f64, interference_mw: f64, width_mhz: f64) -> f64 {
        let noise_mw = db_to_ratio(self.noise_dbm(width_mhz));
        rx_dbm - ratio_to_db(noise_mw + interference_mw)
    }

    /// Why these settings are not physical, if they are not.
    pub fn check(&self) -> Result<(), String> {
        let finite = [self.reference_distance_m, self.reference_loss_db, self.exponent, self.shadowing_sigma_db, self.tx_power_dbm, self.noise_figure_db];
        if finite.iter().any(|v| !v.is_finite()) {
            return Err("every propagation setting must be a finite number".into());
        }
        if self.reference_distance_m <= 0.0 {
            return Err(format!("reference_distance = {} m must be positive", self.reference_distance_m));
        }
        if !(1.0..=8.0).contains(&self.exponent) {
            return Err(format!("exponent = {} is outside 1..8 (2 = free space, 2.7-6 indoors and urban, Rappaport Table 4.2)", self.exponent));
        }
        if self.shadowing_sigma_db < 0.0 {
            return Err(format!("shadowing_sigma = {} dB must be ≥ 0", self.shadowing_sigma_db));
        }
        if self.noise_figure_db < 0.0 {
            return Err(format!("noise_figure = {} dB must be ≥ 0", self.noise_figure_db));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns3_reference_loss_is_friis_at_one_metre_for_5_15_ghz() {
        // ns-3's ReferenceLoss default, 46.6777 dB, is Friis at 1 m and 5.15 GHz (ns-3 took
        // c = 3e8 m/s; the exact c gives 46.684 dB).
        assert!((friis_loss_db(1.0, 5.15e9) - Propagation::default().reference_loss_db).abs() < 0.01);
    }

    #[test]
    fn log_distance_loss_by_hand() {
        let p = Propagation::default();
        // n = 3: 30 dB per decade.
        assert!((p.path_loss_db(10.0) - 76.6777).abs() < 1e-9);
        assert!((p.path_loss_db(100.0) - 106.6777).abs() < 1e-9);
        assert_eq!(p.path_loss_db(0.5), p.path_loss_db(1.0));
        let free = Propagation { exponent: 2.0, ..p };
        assert!((free.path_loss_db(4.0) - (46.6777 + 20.0 * 4f64.log10())).abs() < 1e-9);
        // Shadowing adds σ·z dB of loss.
        let sh = Propagation { shadowing_sigma_db: 4.0, ..p };
        assert!((sh.rx_power_dbm(10.0, sh.shadowing_db(-0.5)) - (16.0206 - 76.6777 + 2.0)).abs() < 1e-9);
    }

    #[test]
    fn noise_floor_and_snr() {
        // kTB at 290 K: −173.98 dBm/Hz; 20 MHz: −100.96 dBm; 40 MHz 3.01 dB more.
        assert!((thermal_noise_dbm(20.0) - (-100.9649)).abs() < 1e-3);
        assert!((thermal_noise_dbm(40.0) - thermal_noise_dbm(20.0) - 3.0103).abs() < 1e-3);
        let p = Propagation::default();
        // 10 m, 20 MHz: 16.0206 − 76.6777 − (−100.9649 + 7) = 33.31 dB.
        let snr = p.snr_db(p.rx_power_dbm(10.0, 0.0), 20.0);
        assert!((snr - 33.3078).abs() < 1e-3, "{snr}");
        // An interferer as strong as the noise costs 3 dB.
        let noise_mw = db_to_ratio(p.noise_dbm(20.0));
        assert!((p.sinr_db(-60.0, noise_mw, 20.0) - (p.snr_db(-60.0, 20.0) - 3.0103)).abs() < 1e-3);
    }

    #[test]
    fn settings_are_checked() {
        assert!(Propagation::default().check().is_ok());
        assert!(Propagation { exponent: 0.5, ..Default::default() }.check().unwrap_err().contains("exponent"));
        assert!(Propagation { shadowing_sigma_db: -1.0, ..Default::default() }.check().unwrap_err().contains("shadowing_sigma"));
        assert!(Propagation { reference_distance_m: 0.0, ..Default::default() }.check().is_err());
        assert!(Propagation { tx_power_dbm: f64::NAN, ..Default::default() }.check().is_err());
    }

    #[test]
    fn distance_in_three_dimensions() {
        let a = Position { x: 0.0, y: 0.0, z: 0.0 };
        assert_eq!(a.distance(&Position { x: 3.0, y: 4.0, z: 0.0 }), 5.0);
        assert_eq!(a.distance(&Position { x: 1.0, y: 2.0, z: 2.0 }), 3.0);
    }
}
