//! Which rates a link's data MPDUs went at: fixed-size counters per direction (nothing is
//! allocated per MPDU), summarised per station as the MPDU-weighted mean PHY rate and the
//! most used rate (`rate_mbps_mean`, `rate_mode_mbps`, `mcs_mode` in `wlan_stations`).

use wattlab_core::wlan::TxVector;

/// Distinct rates one direction counts one by one. Minstrel-HT's groups (NSS × width × GI)
/// hold up to 576 rates, but a link uses few beyond its probes: rates past the slots go to
/// an overflow count that keeps the mean exact and takes no part in the mode.
const SLOTS: usize = 64;

/// MPDU counts per rate of one direction (station → AP or AP → station).
#[derive(Clone, Copy, Debug)]
pub struct RateUse {
    /// Data rate of each slot, kb/s (0 = unused).
    kbps: [u32; SLOTS],
    /// MCS of each slot (-1 for a legacy rate).
    mcs: [i8; SLOTS],
    /// Data MPDU attempts sent at each slot's rate.
    mpdus: [u64; SLOTS],
    /// MPDU attempts at rates that found no slot, and the sum of their rates (kb/s × MPDUs).
    overflow_mpdus: u64,
    overflow_kbps_mpdus: f64,
}

impl Default for RateUse {
    fn default() -> RateUse {
        RateUse { kbps: [0; SLOTS], mcs: [0; SLOTS], mpdus: [0; SLOTS], overflow_mpdus: 0, overflow_kbps_mpdus: 0.0 }
    }
}

/// A station's rate summary (`wlan_stations` columns).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSummary {
    /// MPDU-weighted mean PHY data rate, Mb/s (0 without data MPDUs).
    pub mean_mbps: f64,
    /// The rate most MPDUs went at, Mb/s (0 without data MPDUs).
    pub mode_mbps: f64,
    /// Its MCS (-1 for a legacy rate or without data MPDUs).
    pub mcs_mode: i32,
    /// Data MPDU attempts counted.
    pub mpdus: u64,
}

impl RateUse {
    /// Counts `n` data MPDU attempts sent with `tx` at `rate_bps`.
    #[inline]
    pub fn add(&mut self, tx: TxVector, rate_bps: u64, n: u64) {
        let kbps = (rate_bps / 1000) as u32;
        let mcs = match tx {
            TxVector::Legacy { .. } => -1,
            TxVector::Ht(m) | TxVector::Vht(m) | TxVector::He(m) => m.mcs as i8,
        };
        let Some(slot) = self.kbps.iter().position(|&k| k == kbps || k == 0) else {
            self.overflow_mpdus += n;
            self.overflow_kbps_mpdus += kbps as f64 * n as f64;
            return;
        };
        if self.kbps[slot] == 0 {
            (self.kbps[slot], self.mcs[slot]) = (kbps, mcs);
        }
        self.mpdus[slot] += n;
    }

    /// These counts and `other`'s together.
    pub fn merged(&self, other: &RateUse) -> RateUse {
        let mut all = *self;
        for s in (0..SLOTS).filter(|&s| other.kbps[s] > 0) {
            let tx = if other.mcs[s] < 0 {
                TxVector::Legacy {
                    kbps: other.kbps[s],
                }
            } else {
                mcs_tx(other.mcs[s])
            };
            all.add(tx, other.kbps[s] as u64 * 1000, other.mpdus[s]);
        }
        all.overflow_mpdus += other.overflow_mpdus;
        all.overflow_kbps_mpdus += other.overflow_kbps_mpdus;
        all
    }

    /// The summary of these counts.
    pub fn summary(&self) -> RateSummary {
        let all = self;
        let mpdus: u64 = all.mpdus.iter().sum::<u64>() + all.overflow_mpdus;
        if mpdus == 0 {
            return RateSummary {
                mcs_mode: -1,
                ..RateSummary::default()
            };
        }
        let sum: f64 = (0..SLOTS)
            .map(|s| all.kbps[s] as f64 * all.mpdus[s] as f64)
            .sum::<f64>()
            + all.overflow_kbps_mpdus;
        // The most used rate; a tie goes to the faster one.
        let mode = (0..SLOTS)
            .max_by_key(|&s| (all.mpdus[s], all.kbps[s]))
            .expect("slots");
        RateSummary {
            mean_mbps: sum / mpdus as f64 / 1e3,
            mode_mbps: all.kbps[mode] as f64 / 1e3,
            mcs_mode: all.mcs[mode] as i32,
            mpdus,
        }
    }
}

/// A TX vector carrying only `mcs` (for merging counters: only the MCS number is read).
fn mcs_tx(mcs: i8) -> TxVector {
    TxVector::He(wattlab_core::wlan::Mcs {
        mcs: mcs as u8,
        nss: 1,
        width_mhz: 20,
        gi_ns: 800,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_mode_are_mpdu_weighted() {
        let he = |mcs| mcs_tx(mcs);
        let mut up = RateUse::default();
        up.add(he(7), 86_000_000, 30);
        up.add(he(11), 143_400_000, 10);
        let s = up.summary();
        assert_eq!((s.mode_mbps, s.mcs_mode, s.mpdus), (86.0, 7, 40));
        assert!((s.mean_mbps - (86.0 * 30.0 + 143.4 * 10.0) / 40.0).abs() < 1e-9);
        let mut down = RateUse::default();
        down.add(he(11), 143_400_000, 50);
        let both = up.merged(&down).summary();
        assert_eq!((both.mcs_mode, both.mpdus), (11, 90));
        let legacy = {
            let mut r = RateUse::default();
            r.add(TxVector::Legacy { kbps: 54_000 }, 54_000_000, 3);
            r.summary()
        };
        assert_eq!((legacy.mode_mbps, legacy.mcs_mode), (54.0, -1));
        // Past the slots, rates still count in the mean (not in the mode).
        let mut many = RateUse::default();
        for k in 0..SLOTS as u64 + 10 {
            many.add(he(0), (k + 1) * 1_000_000, 1);
        }
        many.add(he(3), 5_000_000, 20);
        let m = many.summary();
        let n = SLOTS as f64 + 10.0;
        assert_eq!((m.mpdus, m.mode_mbps, m.mcs_mode), (SLOTS as u64 + 30, 5.0, 0));
        assert!((m.mean_mbps - (n * (n + 1.0) / 2.0 + 100.0) / (n + 20.0)).abs() < 1e-9, "{}", m.mean_mbps);
        assert_eq!(many.merged(&many).summary().mpdus, 2 * m.mpdus);
        assert_eq!(
            RateUse::default().summary(),
            RateSummary {
                mcs_mode: -1,
                ..RateSummary::default()
            }
        );
    }
}
