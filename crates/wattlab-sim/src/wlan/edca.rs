//! EDCA access parameters (IEEE 802.11-2020 §10.23.2) and the QoS MAC's settings.
//!
//! A QoS MAC contends with EDCA: each access category (AC) waits its own AIFS
//! (`SIFS + AIFSN × slot`) and draws from its own contention window. The MAC keeps the one
//! slot grid of DCF: the grid starts at the shortest AIFS of the BSS and each contender counts
//! its backoff only after its own AIFS, `AIFSN − shortest AIFSN` slots later — the same
//! mechanism as the prioritised AP's head start (`ApPriority`), which is the special case of an
//! AP with a shorter AIFS. DCF itself is AIFSN 2 (DIFS) for everyone.
//!
//! Each station keeps one queue per AC (classified from the packet's DSCP, [`Ac::of_dscp`]),
//! each with its own EDCAF (`Edcaf`: backoff, contention window, retries).

use wattlab_core::wlan::phy::PhyFormat;
use wattlab_core::wlan::PhyProfile;
use wattlab_core::Duration;

/// An access category (802.11-2020 Table 10-1), in ACI order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ac {
    /// Best effort (ACI 0).
    Be = 0,
    /// Background (ACI 1).
    Bk = 1,
    /// Video (ACI 2).
    Vi = 2,
    /// Voice (ACI 3).
    Vo = 3,
}

/// One AC's access parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AcParams {
    /// Slots after SIFS the AC defers (AIFS = SIFS + AIFSN × slot).
    pub aifsn: u32,
    /// CWmin (2^k − 1).
    pub cw_min: u32,
    /// CWmax (2^k − 1).
    pub cw_max: u32,
    /// TXOP limit; zero: one MSDU or A-MPDU per access.
    pub txop_limit: Duration,
}

/// The EDCA parameters of a BSS: what the AP announces to its stations (the EDCA Parameter
/// Set element) and what the AP uses itself, per AC in ACI order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdcaSet {
    /// Non-AP stations' parameters.
    pub sta: [AcParams; 4],
    /// The AP's own parameters.
    pub ap: [AcParams; 4],
}

/// Shorthand for a row of the tables below.
const fn ac(aifsn: u32, cw_min: u32, cw_max: u32, txop_us: u64) -> AcParams {
    AcParams { aifsn, cw_min, cw_max, txop_limit: Duration::from_micros(txop_us) }
}

impl Ac {
    /// Every AC in ACI order (the index of each in per-AC arrays).
    pub const ALL: [Ac; 4] = [Ac::Be, Ac::Bk, Ac::Vi, Ac::Vo];
    /// Indices of the ACs from the highest priority to the lowest (802.11-2020 Table 10-1).
    pub const BY_PRIORITY: [usize; 4] = [Ac::Vo as usize, Ac::Vi as usize, Ac::Be as usize, Ac::Bk as usize];
    /// Short lower-case name (`vo`, `vi`, `be`, `bk`), as in result columns.
    pub const NAMES: [&'static str; 4] = ["be", "bk", "vi", "vo"];

    /// The AC of user priority `up` (802.11-2020 Table 10-1: UP 1, 2 → AC_BK; 0, 3 → AC_BE;
    /// 4, 5 → AC_VI; 6, 7 → AC_VO).
    pub const fn of_up(up: u8) -> Ac {
        match up & 7 {
            1 | 2 => Ac::Bk,
            0 | 3 => Ac::Be,
            4 | 5 => Ac::Vi,
            _ => Ac::Vo,
        }
    }

    /// The AC of a packet with DiffServ code point `dscp`, through its user priority
    /// ([`up_of_dscp`]).
    pub const fn of_dscp(dscp: u8) -> Ac {
        Ac::of_up(up_of_dscp(dscp))
    }
}

/// The 802.11 user priority of DSCP `dscp`, as RFC 8325 ("Mapping Diffserv to IEEE 802.11",
/// §4.3, Figure 1) recommends, with RFC 8622 §8's Lower-Effort PHB: CS7 (56) → 0 (reserved,
/// §4.2.1); CS6 (48) → 7; EF (46) and VOICE-ADMIT (44) → 6; CS5 (40) → 5; AF4x (34, 36, 38),
/// CS4 (32), AF3x (26, 28, 30) and CS3 (24) → 4; AF2x (18, 20, 22) → 3; CS2 (16) → 0; AF1x
/// (10, 12, 14) → 0; CS1 (8) and LE (1) → 1; DF (0) and every other code point → 0 (§4.3:
/// unused code points map to UP 0).
pub const fn up_of_dscp(dscp: u8) -> u8 {
    match dscp {
        48 => 7,
        44 | 46 => 6,
        40 => 5,
        24 | 26 | 28 | 30 | 32 | 34 | 36 | 38 => 4,
        18 | 20 | 22 => 3,
        1 | 8 => 1,
        _ => 0,
    }
}

impl EdcaSet {
    /// Preset names (`edca = "..."`).
    pub const PRESETS: [&'static str; 2] = ["standard", "hostapd"];

    /// IEEE 802.11-2020 Table 9-155 (default EDCA Parameter Set, dot11OCBActivated false) on
    /// `phy` (aCWmin, aCWmax of its clause): BK AIFSN 7, CW aCWmin–aCWmax; BE AIFSN 3, the
    /// same CW; VI AIFSN 2, CW (aCWmin+1)/2−1 – aCWmin, TXOP 4.096 ms (6.016 ms on DSSS); VO
    /// AIFSN 2, CW (aCWmin+1)/4−1 – (aCWmin+1)/2−1, TXOP 2.080 ms (3.264 ms on DSSS). The
    /// table's AP column differs only in AIFSN 1 for VI and VO.
    pub fn standard(phy: &PhyProfile) -> EdcaSet {
        let (cmin, cmax) = (phy.cw_min, phy.cw_max);
        let (vi_txop, vo_txop) = match phy.modulation {
            wattlab_core::wlan::phy::Modulation::Dsss => (6_016, 3_264),
            _ => (4_096, 2_080),
        };
        let half = (cmin + 1) / 2 - 1;
        let quarter = (cmin + 1) / 4 - 1;
        let sta = [ac(3, cmin, cmax, 0), ac(7, cmin, cmax, 0), ac(2, half, cmin, vi_txop), ac(2, quarter, half, vo_txop)];
        let mut ap = sta;
        ap[Ac::Vi as usize].aifsn = 1;
        ap[Ac::Vo as usize].aifsn = 1;
        EdcaSet { sta, ap }
    }

    /// hostapd's defaults (hostapd.conf, `wmm_ac_*` announced to stations and
    /// `tx_queue_data*` for the AP itself), as most Linux-based APs ship them: stations get
    /// the standard's table with TXOP VI 3.008 ms and VO 1.504 ms (802.11-2012's values); the
    /// AP uses BE AIFSN 3, CW 15–63; BK AIFSN 7, CW 15–1023; VI AIFSN 1, CW 7–15, TXOP
    /// 3.008 ms; VO AIFSN 1, CW 3–7, TXOP 1.504 ms. hostapd's numbers assume aCWmin 15.
    pub fn hostapd() -> EdcaSet {
        let sta = [ac(3, 15, 1023, 0), ac(7, 15, 1023, 0), ac(2, 7, 15, 3_008), ac(2, 3, 7, 1_504)];
        let ap = [ac(3, 15, 63, 0), ac(7, 15, 1023, 0), ac(1, 7, 15, 3_008), ac(1, 3, 7, 1_504)];
        EdcaSet { sta, ap }
    }

    /// The preset `name` on `phy`.
    pub fn preset(name: &str, phy: &PhyProfile) -> Option<EdcaSet> {
        match name {
            "standard" => Some(EdcaSet::standard(phy)),
            "hostapd" => Some(EdcaSet::hostapd()),
            _ => None,
        }
    }

    /// The parameters of AC `ac` for the AP (`ap`) or a station.
    pub fn params(&self, ap: bool, ac: Ac) -> AcParams {
        if ap {
            self.ap[ac as usize]
        } else {
            self.sta[ac as usize]
        }
    }
}

/// A-MPDU limits of a PHY (802.11-2020 §10.12; the analytic model's type, so the two agree):
/// Block Ack window, maximum A-MPDU length, aPPDUMaxTime and a TXOP limit that, when not
/// zero, bounds the exchange together with the AC's own (the tighter one holds).
pub use wattlab_core::wlan::aggregation::AmpduLimits as Aggregation;

/// The QoS MAC: EDCA, and A-MPDU with immediate Block Ack when `aggregation` is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QosConfig {
    /// EDCA parameters (AP and stations).
    pub edca: EdcaSet,
    /// A-MPDU limits (None: every data frame alone, with a normal ACK).
    pub aggregation: Option<Aggregation>,
    /// Largest A-MSDU in bytes (None: one MSDU per MPDU); only with `aggregation`.
    pub amsdu: Option<u32>,
}

impl QosConfig {
    /// EDCA with the standard's parameters on `phy`, aggregating within `aggregation`.
    pub fn standard(phy: &PhyProfile, aggregation: Option<Aggregation>) -> QosConfig {
        QosConfig { edca: EdcaSet::standard(phy), aggregation, amsdu: None }
    }

    /// The QoS MAC of `phy`'s format: none for the legacy PHYs (they keep DCF), EDCA with the
    /// standard's parameters and A-MPDU within the format's limits for HT, VHT and HE.
    pub fn for_phy(phy: &PhyProfile) -> Option<QosConfig> {
        let aggregation = match phy.format {
            PhyFormat::Legacy => return None,
            PhyFormat::Ht => Aggregation::HT,
            PhyFormat::Vht => Aggregation::VHT,
            PhyFormat::He => Aggregation::HE,
        };
        Some(QosConfig::standard(phy, Some(aggregation)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wattlab_core::wlan::phy::{PHY_80211A, PHY_80211B};

    #[test]
    fn standard_table_on_ofdm_and_dsss() {
        let e = EdcaSet::standard(&PHY_80211A);
        assert_eq!(e.sta[Ac::Be as usize], ac(3, 15, 1023, 0));
        assert_eq!(e.sta[Ac::Bk as usize], ac(7, 15, 1023, 0));
        assert_eq!(e.sta[Ac::Vi as usize], ac(2, 7, 15, 4_096));
        assert_eq!(e.sta[Ac::Vo as usize], ac(2, 3, 7, 2_080));
        assert_eq!((e.ap[Ac::Vi as usize].aifsn, e.ap[Ac::Vo as usize].aifsn, e.ap[Ac::Be as usize]), (1, 1, e.sta[0]));
        let b = EdcaSet::standard(&PHY_80211B);
        assert_eq!(b.sta[Ac::Vi as usize], ac(2, 15, 31, 6_016));
        assert_eq!(b.sta[Ac::Vo as usize], ac(2, 7, 15, 3_264));
        assert_eq!(EdcaSet::preset("hostapd", &PHY_80211A).unwrap().ap[0], ac(3, 15, 63, 0));
        assert!(EdcaSet::preset("wmm", &PHY_80211A).is_none());
    }

    #[test]
    fn each_phy_format_gets_its_mac() {
        use wattlab_core::wlan::phy::{PHY_80211AC, PHY_80211AX, PHY_80211G, PHY_80211N};
        for legacy in [PHY_80211A, PHY_80211B, PHY_80211G] {
            assert_eq!(QosConfig::for_phy(&legacy), None, "{} keeps DCF", legacy.name);
        }
        for (phy, agg) in [(PHY_80211N, Aggregation::HT), (PHY_80211AC, Aggregation::VHT), (PHY_80211AX, Aggregation::HE)] {
            let q = QosConfig::for_phy(&phy).unwrap();
            assert_eq!((q.aggregation, q.edca), (Some(agg), EdcaSet::standard(&phy)), "{}", phy.name);
        }
        assert_eq!((Aggregation::HE.ba_window, Aggregation::VHT.max_ampdu_bytes), (256, 1_048_575));
        assert_eq!(Aggregation::HT.max_ppdu_time, Duration::from_micros(5_484));
    }
}
