//! The aggregating MAC against the analytic model it is checked with
//! (`wattlab_core::wlan::aggregation`): saturated stations on an ideal channel, 802.11ax.

use super::tests::{mac, sta, Harness};
use super::*;
use wattlab_core::wlan::aggregation::{saturation, AmpduLimits, AmpduLink, EdcaAccess};
use wattlab_core::wlan::phy::{Mcs, PHY_80211AX};
use wattlab_core::wlan::TxVector;

/// HE-MCS 7, 20 MHz, 1 stream, 0.8 µs GI (86.0 Mb/s): 37 MPDUs per A-MPDU (aPPDUMaxTime binds).
const HE_MCS7_20: TxVector = TxVector::He(Mcs { mcs: 7, nss: 1, width_mhz: 20, gi_ns: 800 });
/// HE-MCS 11, 80 MHz, 1 stream, 0.8 µs GI (600.4 Mb/s): 256 MPDUs (the Block Ack window binds).
const HE_MCS11_80: TxVector = TxVector::He(Mcs { mcs: 11, nss: 1, width_mhz: 80, gi_ns: 800 });

/// Saturated throughput (IP bits/s) of `n` stations sending 1500-byte packets to the AP with
/// `tx` on 802.11ax, AC_BE, aggregating within HE's limits, no retry limit, over `secs` after
/// a one-second warm-up; and the collision probability per attempt.
fn simulate(tx: TxVector, n: usize, secs: u64, seed: u64) -> (f64, f64) {
    let mut cfg = mac(PHY_80211AX, 0);
    cfg.tx = tx;
    cfg.qos = Some(QosConfig::standard(&PHY_80211AX, Some(Aggregation::HE)));
    cfg.short_retry_limit = None; // Bianchi: no retry limit
    cfg.long_retry_limit = None;
    let mut stas: Vec<StaConfig> = (0..=n as u32).map(|i| sta(i, PowerSave::Cam)).collect();
    for s in stas.iter_mut() {
        // Room for the 300 queued and the A-MPDU the harness re-queues when it is delivered
        // (before the sender removes it): never fewer than a full A-MPDU waiting.
        s.queue_limit = 1000;
    }
    let mut h = Harness::new(cfg, stas, seed);
    h.saturate = true;
    for s in 1..=n as StaId {
        for _ in 0..300 {
            h.send(s, AP, 1500);
        }
    }
    h.run_until(Time(1_000_000_000));
    let before = h.delivered.len();
    let attempts0: u64 = (1..=n).map(|s| h.bss.stas[s].stats.attempts).sum();
    let coll0: u64 = (1..=n).map(|s| h.bss.stas[s].stats.collisions).sum();
    h.run_until(Time((1 + secs) * 1_000_000_000));
    let bits = (h.delivered.len() - before) as f64 * 1500.0 * 8.0;
    let attempts: u64 = (1..=n).map(|s| h.bss.stas[s].stats.attempts).sum::<u64>() - attempts0;
    let coll: u64 = (1..=n).map(|s| h.bss.stas[s].stats.collisions).sum::<u64>() - coll0;
    (bits / secs as f64, coll as f64 / attempts.max(1) as f64)
}

#[test]
fn he_saturation_matches_bianchi_with_aggregation_within_3_percent() {
    let access = EdcaAccess::best_effort(&PHY_80211AX);
    for (tx, n) in [1usize, 5, 10, 20].map(|n| (HE_MCS7_20, n)).into_iter().chain([(HE_MCS11_80, 1), (HE_MCS11_80, 10)]) {
        let link = AmpduLink { phy: &PHY_80211AX, tx, access, limits: AmpduLimits::HE, propagation: Duration::ZERO };
        let model = saturation(&link, 1500, n as u32);
        let (sim, p) = simulate(tx, n, 30, 11);
        let gap = (sim - model.bianchi.throughput_bps) / model.bianchi.throughput_bps;
        println!(
            "{tx:?} n={n} ({mpdus} MPDUs): sim {:.3} Mb/s, model {:.3} Mb/s ({:+.2} %), p sim {p:.3} model {:.3}",
            sim / 1e6,
            model.bianchi.throughput_bps / 1e6,
            100.0 * gap,
            model.bianchi.p,
            mpdus = model.exchange.mpdus
        );
        assert!(gap.abs() < 0.03, "n={n}: {:+.2} %", 100.0 * gap);
        assert!((p - model.bianchi.p).abs() < 0.05, "n={n}: p {p} vs {}", model.bianchi.p);
    }
}
