//! Tests of A-MSDU inside A-MPDU (`amsdu.rs`): PPDU durations by hand, retransmission of whole
//! MPDUs, and the throughput it gains on small packets against the analytic model.

use super::tests::{sta, Harness};
use super::tests_qos::qos_mac;
use super::*;
use crate::net::impairment::LossProcess;
use wattlab_core::energy::Activity;
use wattlab_core::wlan::aggregation::{saturation, saturation_amsdu, AmpduLink, EdcaAccess};
use wattlab_core::wlan::amsdu::HT_AMPDU_AMSDU_BYTES;
use wattlab_core::wlan::phy::{PHY_80211A, TxVector};

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

/// An 802.11a BSS at 54 Mb/s under HT's A-MPDU limits with A-MSDUs of at most `amsdu` bytes
/// (None: off), the AP and one station, the station's uplink lossy with `loss`.
fn amsdu_harness(amsdu: Option<u32>, loss: f64, seed: u64) -> Harness {
    let mut cfg = qos_mac(Some(Aggregation::HT));
    cfg.qos.as_mut().unwrap().amsdu = amsdu;
    cfg.short_retry_limit = None;
    let mut st = sta(1, PowerSave::Cam);
    st.queue_limit = 2000;
    if loss > 0.0 {
        st.loss_up = LossProcess::Bernoulli { p: loss };
    }
    Harness::new(cfg, vec![sta(0, PowerSave::Cam), st], seed)
}

/// IP lengths delivered to the AP, in delivery order.
fn delivered_up(h: &Harness) -> Vec<u32> {
    h.delivered.iter().filter(|d| d.1 == AP).map(|d| d.3.ip_len()).collect()
}

#[test]
fn amsdu_exchange_has_the_hand_computed_timing() {
    // (packets of 100 B queued at once, A-MPDU on the air in µs, MPDUs, MSDUs).
    // ADDBA first (288 µs, as in tests_qos), then one A-MPDU, SIFS, Block Ack 32 µs.
    // 10 packets: one A-MSDU of 9 × 124 + 122 = 1238 B, MPDU 26 + 1238 + 4 = 1268 B, A-MPDU
    //   4 + 1268 = 1272 B: ⌈(16 + 10 176 + 6) / 216⌉ = 48 symbols, 20 + 192 = 212 µs.
    //   Without A-MSDU: 9 × 144 + 142 = 1438 B, ⌈11 526 / 216⌉ = 54 symbols, 236 µs.
    // 40 packets: 32 fill the first A-MSDU (122 + 31 × 124 = 3966 ≤ 4065 B; 33 are 4090), MPDU
    //   3996 B in a 4000-byte subframe; 8 in the second (7 × 124 + 122 = 990 B, MPDU 1020 B):
    //   A-MPDU 4000 + 4 + 1020 = 5024 B, ⌈40 214 / 216⌉ = 187 symbols, 768 µs.
    // 6 packets of 1500 B: two per A-MSDU (1524 + 1522 = 3046 B; three are 4570 > 4065),
    //   MPDUs of 3076 B in subframes of 3080 B: 2 × 3080 + 3080 = 9240 B,
    //   ⌈73 942 / 216⌉ = 343 symbols, 1392 µs.
    for (n, len, amsdu, ppdu, mpdus) in [
        (10, 100, Some(HT_AMPDU_AMSDU_BYTES), 212, 1),
        (10, 100, None, 236, 10),
        (40, 100, Some(HT_AMPDU_AMSDU_BYTES), 768, 2),
        (6, 1500, Some(HT_AMPDU_AMSDU_BYTES), 1392, 3),
    ] {
        let mut h = amsdu_harness(amsdu, 0.0, 1);
        let sent: Vec<u32> = (0..n).map(|_| len).inspect(|&l| assert!(h.send(1, AP, l))).collect();
        h.run_until(Time(100_000_000));
        let what = format!("{n} × {len} B, A-MSDU {amsdu:?}");
        assert_eq!(delivered_up(&h), sent, "{what}");
        let s = &h.bss.stas[1].stats;
        assert_eq!((s.ampdus, s.ampdu_mpdus, s.ampdu_msdus, s.frames_sent), (1, mpdus, n as u64, n as u64), "{what}");
        assert_eq!(h.bss.stats.busy_ns, us(288 + ppdu + 16 + 32).as_nanos(), "{what}");
        assert_eq!(h.time_in(1, Activity::Tx), us(76 + 44 + ppdu), "{what}");
    }
}

#[test]
fn a_smaller_amsdu_max_packs_fewer_packets() {
    // 400 B: 122 + 124 = 246 ≤ 400 < 370 + ... : 3 subframes are 122 + 2 × 124 = 370 ≤ 400,
    // 4 are 494: ten packets make MPDUs of 3, 3, 3 and 1 (the last a plain MPDU).
    let mut h = amsdu_harness(Some(400), 0.0, 1);
    for _ in 0..10 {
        h.send(1, AP, 100);
    }
    h.run_until(Time(100_000_000));
    let s = &h.bss.stas[1].stats;
    assert_eq!((s.ampdu_mpdus, s.ampdu_msdus, s.frames_sent), (4, 10, 10));
}

#[test]
fn lost_amsdus_go_again_whole_and_every_packet_arrives_once_in_order() {
    let mut h = amsdu_harness(Some(HT_AMPDU_AMSDU_BYTES), 0.3, 3);
    // Distinct lengths so that order and uniqueness show; small enough to pack 30 or so.
    let sent: Vec<u32> = (0..1200).map(|k| 60 + k % 80).inspect(|&l| assert!(h.send(1, AP, l))).collect();
    h.run_until(Time(10_000_000_000));
    assert_eq!(delivered_up(&h), sent, "exactly once, in order");
    let s = &h.bss.stas[1].stats;
    assert_eq!(s.frames_sent, 1200);
    // Each error costs one MPDU (all its MSDUs), each retransmission one MPDU.
    assert!(s.frame_errors > 0 && s.ba_retries == s.frame_errors, "{s:?}");
    assert!(s.ampdu_msdus > 20 * s.ampdu_mpdus, "packed: {s:?}");
    assert_eq!(h.bss.queue_len(1), 0);
}

#[test]
fn amsdu_raises_saturated_throughput_of_small_packets_as_the_model_says() {
    // One saturated station of 100-byte packets, HT limits on 802.11a at 54 Mb/s. The model
    // (aggregation.rs `amsdu_saturation_by_hand`): 33.11 Mb/s without A-MSDU, 41.78 with it.
    let link = AmpduLink { phy: &PHY_80211A, tx: TxVector::Legacy { kbps: 54_000 }, access: EdcaAccess::best_effort(&PHY_80211A), limits: Aggregation::HT, propagation: Duration::ZERO };
    let mut got = Vec::new();
    for amsdu in [None, Some(HT_AMPDU_AMSDU_BYTES)] {
        let mut h = amsdu_harness(amsdu, 0.0, 6);
        (h.saturate, h.saturate_size) = (true, 100);
        for _ in 0..1000 {
            h.send(1, AP, 100);
        }
        h.run_until(Time(500_000_000));
        let before = h.delivered.len();
        h.run_until(Time(5_500_000_000));
        let sim = (h.delivered.len() - before) as f64 * 100.0 * 8.0 / 5.0;
        let model = match amsdu {
            None => saturation(&link, 100, 1),
            Some(m) => saturation_amsdu(&link, 100, 1, m),
        }
        .bianchi
        .throughput_bps;
        assert!((sim - model).abs() / model < 0.01, "A-MSDU {amsdu:?}: sim {:.2} Mb/s, model {:.2} Mb/s", sim / 1e6, model / 1e6);
        eprintln!("A-MSDU {amsdu:?}: sim {:.3} Mb/s, model {:.3} Mb/s", sim / 1e6, model / 1e6);
        got.push(sim);
    }
    let gain = got[1] / got[0] - 1.0;
    assert!(gain > 0.2, "A-MSDU gains {:.1} % on 100-byte packets", 100.0 * gain);
}
