//! Tests of the aggregating MAC with links: the BlockAckReq after a dropped MPDU, Block Ack /
//! ADDBA frames lost to the link's error model, capture of an A-MPDU in a collision.

use super::link::Link;
use super::rate::{RateAlgorithm, RateSet};
use super::tests::{mac, sta, Harness};
use super::tests_qos::qos_mac;
use super::*;
use crate::net::impairment::LossProcess;
use crate::rng::StreamRng;
use rand::SeedableRng;
use wattlab_core::energy::Activity;
use wattlab_core::wlan::error_model::{frame_error_rate, ofdm_mode};
use wattlab_core::wlan::phy::PHY_80211A;
use wattlab_core::wlan::propagation::{Position, Propagation};

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

#[test]
fn a_dropped_mpdu_costs_a_block_ack_request_that_frees_the_mpdus_held_behind_it() {
    let mut cfg = qos_mac(Some(Aggregation::HT));
    cfg.short_retry_limit = Some(0); // an MPDU is dropped at its first failure
    let mut st = sta(1, PowerSave::Cam);
    st.loss_up = LossProcess::EveryNth { n: 2, phases: None, count: 0 }; // the 2nd MPDU is lost
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), st], 1);
    for len in [1000, 1001, 1002] {
        h.send(1, AP, len);
    }
    h.run_until(Time(100_000_000));
    let got: Vec<(Time, u32)> = h.delivered.iter().map(|d| (d.0, d.3.ip_len())).collect();
    assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), [1000, 1002]);
    let s = &h.bss.stas[1].stats;
    assert_eq!((s.ampdus, s.retry_drops, s.bars, s.frames_sent), (1, 1, 1, 2), "{s:?}");
    assert_eq!(h.bss.queue_len(1), 0);
    // ADDBA 288 µs (test `ampdu_exchange_has_the_standard_timing_and_content`); A-MPDU of
    // MPDUs of 1038, 1039, 1040 B in 1042 + 1046 + 1044 = 3132 B at 54 Mb/s:
    // ⌈(16 + 25 056 + 6)/216⌉ = 117 symbols = 488 µs; SIFS; Block Ack (32 B at 24 Mb/s) 32 µs;
    // later, at an access of its own and the lowest basic rate: BlockAckReq (24 B at 6 Mb/s:
    // 20 + 4 × ⌈214/24⌉ = 56 µs), SIFS, Block Ack (32 B at 6 Mb/s: 20 + 4 × ⌈278/24⌉ = 68 µs).
    assert_eq!(h.bss.stats.busy_ns, us(288 + 488 + 16 + 32 + 56 + 16 + 68).as_nanos());
    assert_eq!(h.time_in(1, Activity::Tx), us(76 + 44 + 488 + 56));
    assert_eq!(h.time_in(AP, Activity::Tx), us(44 + 76 + 32 + 68));
    // 1002 waited in the reorder buffer until the BlockAckReq was in: the A-MPDU's exchange
    // ended (SIFS + Block Ack), then AIFS (43 µs) and a backoff of whole slots, then the BAR.
    let gap = got[1].0 - got[0].0 - us(16 + 32 + 43 + 56);
    assert!(gap.as_nanos() % 9_000 == 0 && gap <= us(15 * 9), "{gap:?}");
}

/// An aggregating 802.11a BSS of one station at `distance` m from the AP sending saturated
/// `bytes`-byte packets up at 6 Mb/s (its control frames at 6 Mb/s too) for `secs`.
fn far_uploads(distance: f64, bytes: u32, secs: u64, seed: u64) -> Harness {
    let mut cfg = qos_mac(Some(Aggregation::HT));
    cfg.tx = wattlab_core::wlan::TxVector::Legacy { kbps: 6_000 };
    cfg.short_retry_limit = None;
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], seed);
    let rates = RateSet::for_bss(&PHY_80211A, cfg_tx()).unwrap();
    let at = |x: f64| Position { x, y: 0.0, z: 0.0 };
    let link = Link::new(Propagation::default(), f64::INFINITY, rates, &[at(0.0), at(distance)], |_, _| 0.0, &[(RateAlgorithm::Constant, 0); 2], &mut StreamRng::seed_from_u64(seed));
    let bss = std::mem::replace(&mut h.bss, Bss::new("x".into(), mac(PHY_80211A, 6_000), vec![], vec![]));
    h.bss = bss.with_link(link);
    h.saturate = true;
    h.saturate_size = bytes;
    for _ in 0..40 {
        h.send(1, AP, bytes);
    }
    h.run_until(Time::ZERO + Duration::from_secs(secs));
    h
}

fn cfg_tx() -> wattlab_core::wlan::TxVector {
    wattlab_core::wlan::TxVector::Legacy { kbps: 6_000 }
}

#[test]
fn block_acks_are_lost_as_the_links_error_model_says() {
    // Where a 32-byte Block Ack at 6 Mb/s has a PER of ~10 % (100-byte packets: an A-MPDU
    // of ~25 MPDUs of 138 B practically never loses them all).
    let per_ba = |h: &Harness| frame_error_rate(ofdm_mode(6_000).unwrap(), h.bss.link().unwrap().snr_db(AP, 1, 0), 32);
    let mut d = 20.0;
    while per_ba(&far_uploads(d, 100, 0, 1)) < 0.1 {
        d += 0.5;
    }
    let h = far_uploads(d, 100, 6, 2);
    let p = per_ba(&h);
    let s = &h.bss.stas[1].stats;
    let lost = s.ba_lost as f64 / s.ampdus as f64;
    eprintln!("{d} m: Block Ack PER {p:.4}, A-MPDUs without Block Ack {lost:.4} of {}", s.ampdus);
    assert!(s.ampdus > 800 && s.ampdu_mpdus > 15 * s.ampdus, "{s:?}");
    // Slightly more than the PER: an A-MPDU that carries only a few MPDUs sent again (the
    // window held by a hole) sometimes loses them all (0.139 against 0.118 at seed 2).
    assert!(lost > p - 0.02 && lost < p + 0.04, "{d} m: {lost:.3} of the A-MPDUs without Block Ack, PER {p:.3}");
    // Every MPDU still arrives (once), the lost Block Acks only cost retransmissions.
    assert!(s.ba_retries as f64 > 0.5 * p * s.ampdu_mpdus as f64, "{s:?}");
}

#[test]
fn an_addba_set_up_fails_where_its_frames_are_lost() {
    // 400 m: SNR about −5 dB, no 37-byte frame at 6 Mb/s gets through; 5 m: all do.
    let far = far_uploads(400.0, 1500, 1, 3);
    let s = &far.bss.stas[1].stats;
    assert!(far.bss.link().unwrap().snr_db(1, AP, 0) < 0.0);
    assert_eq!((s.ba_setups, s.ampdus), (0, 0), "{s:?}");
    assert!(s.attempts > 5, "the originator tries again: {s:?}");
    assert!(far.delivered.is_empty());
    let near = far_uploads(5.0, 1500, 1, 3);
    assert_eq!(near.bss.stas[1].stats.ba_setups, 1);
    assert!(!near.delivered.is_empty());
}

/// An aggregating 802.11a BSS (54 Mb/s) with saturated uploads of 1500-byte packets from
/// stations at `distances` m, each keeping `backlog[i]` frames queued (a delivered frame is
/// replaced), capture at `threshold_db`, for `secs`.
fn capture_run(distances: &[f64], backlog: &[u32], threshold_db: f64, secs: u64, seed: u64) -> Harness {
    let mut cfg = qos_mac(Some(Aggregation::HT));
    cfg.short_retry_limit = None;
    let mut stas = vec![sta(0, PowerSave::Cam)];
    for (i, &q) in backlog.iter().enumerate() {
        let mut s = sta(i as u32 + 1, PowerSave::Cam);
        // Room for the replacements, queued as the frames they replace are passed up.
        s.queue_limit = 2 * q;
        stas.push(s);
    }
    let mut h = Harness::new(cfg, stas, seed);
    let tx = wattlab_core::wlan::TxVector::Legacy { kbps: 54_000 };
    let rates = RateSet::for_bss(&PHY_80211A, tx).unwrap();
    let at = |x: f64| Position { x, y: 0.0, z: 0.0 };
    let positions: Vec<Position> = std::iter::once(at(0.0)).chain(distances.iter().map(|&d| at(d))).collect();
    let choices = vec![(RateAlgorithm::Constant, 7); positions.len()];
    let link = Link::new(Propagation::default(), threshold_db, rates, &positions, |_, _| 0.0, &choices, &mut StreamRng::seed_from_u64(seed));
    let bss = std::mem::replace(&mut h.bss, Bss::new("x".into(), mac(PHY_80211A, 54_000), vec![], vec![]));
    h.bss = bss.with_link(link);
    h.saturate = true;
    for (i, &q) in backlog.iter().enumerate() {
        for _ in 0..q {
            h.send(i as StaId + 1, AP, 1500);
        }
    }
    h.run_until(Time::ZERO + Duration::from_secs(secs));
    h
}

#[test]
fn the_near_station_captures_a_mpdu_collisions_with_the_far_one() {
    // 1 m and 10 m: 30 dB apart (n = 3), every MPDU of the near A-MPDU survives its SINR.
    let h = capture_run(&[1.0, 10.0], &[100, 100], 10.0, 5, 1);
    let (near, far) = (&h.bss.stas[1].stats, &h.bss.stas[2].stats);
    assert!(h.bss.stats.captures > 50, "captures {}", h.bss.stats.captures);
    // Every collision after the set-ups is captured by the near one (the ADDBA Requests'
    // collisions are not).
    assert!(far.collisions >= h.bss.stats.captures && far.collisions - h.bss.stats.captures <= 3, "{far:?}");
    assert!(near.collisions <= 3 && near.ba_retries == 0, "{near:?}");
    assert!(near.frames_sent as f64 > 1.05 * far.frames_sent as f64, "near {} far {}", near.frames_sent, far.frames_sent);
    // Without capture the two share the channel equally and both lose their A-MPDUs.
    let h = capture_run(&[1.0, 10.0], &[100, 100], f64::INFINITY, 5, 1);
    let (near, far) = (&h.bss.stas[1].stats, &h.bss.stas[2].stats);
    assert_eq!(h.bss.stats.captures, 0);
    assert!(near.ba_lost > 50, "{near:?}");
    assert!((near.frames_sent as f64 / far.frames_sent as f64 - 1.0).abs() < 0.05, "near {} far {}", near.frames_sent, far.frames_sent);
}

#[test]
fn a_captured_a_mpdu_loses_only_the_mpdus_that_overlap_the_other_frame() {
    // 1 m and 3.16 m: SINR 15 dB at the AP, above the 10 dB threshold but far below the
    // ~22 dB 54 Mb/s needs for 1538-byte MPDUs. The far station holds 3 frames: its A-MPDUs
    // (3 × 1544 B, 708 µs) overlap the first 3 MPDUs of the near one's (they start at 20,
    // 249 and 477 µs; the 4th at 708 µs), which fail; the other 20 arrive at the SNR.
    let h = capture_run(&[1.0, 10f64.powf(0.5)], &[100, 3], 10.0, 5, 2);
    let (near, far) = (&h.bss.stas[1].stats, &h.bss.stas[2].stats);
    let captures = h.bss.stats.captures;
    assert!(captures > 50 && far.collisions >= captures, "{captures} {far:?}");
    let per_capture = near.ba_retries as f64 / captures as f64;
    eprintln!("{captures} captures, {} MPDUs of the near station sent again: {per_capture:.2} per capture", near.ba_retries);
    assert!((2.5..=3.5).contains(&per_capture), "{per_capture}: {near:?}");
    // The captured A-MPDUs got their Block Ack (the far PPDU ends long before it).
    assert!(near.ba_lost <= 3, "{near:?}");
}

#[test]
fn a_block_ack_request_is_owed_and_paid_per_access_category() {
    // Station 1 sends three best-effort and three voice packets at once; every second MPDU
    // on its link is lost and dropped at its first failure. Each AC whose A-MPDU lost one
    // owes its own BlockAckReq (one TID per AC) and pays it at its own access: every MPDU
    // not dropped reaches the AP, none stays in a reorder buffer behind a hole (with one debt
    // per station, the AC that did not drop would pay it and the other's held MPDUs would
    // never be passed up).
    let mut cfg = qos_mac(Some(Aggregation::HT));
    cfg.short_retry_limit = Some(0);
    let mut st = sta(1, PowerSave::Cam);
    st.loss_up = LossProcess::EveryNth { n: 2, phases: None, count: 0 };
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), st], 1);
    for (len, dscp) in [(1000, 0), (1001, 0), (1002, 0), (1100, 46), (1101, 46), (1102, 46)] {
        let mut p = super::tests::udp(len);
        p.dscp = dscp;
        h.send_packet(1, AP, p);
    }
    // Every 10 µs: an AC owes a BlockAckReq only while an MPDU of its own was dropped and
    // not yet passed by its recipient's window (with one debt per station the flag of one AC
    // would stand for the other's drop).
    for k in 1..=2_000u64 {
        h.run_until(Time(k * 10_000));
        if matches!(h.bss.exchange.map(|e| e.kind), Some(ExchangeKind::Bar { .. })) {
            continue; // the recipient's window moved, the debt is settled when the BAR ends
        }
        let s = &h.bss.stas[1];
        for ac in 0..4 {
            let held = s.queue.iter().any(|f| f.ac as usize == ac && f.ba.tries == u16::MAX && !f.ba.received);
            assert_eq!(s.bar_up[ac], held, "AC {ac} at {k}0 µs");
        }
    }
    h.run_until(Time(100_000_000));
    let s = &h.bss.stas[1];
    let drops = s.stats.retry_drops;
    let mut got: Vec<u32> = h.delivered.iter().map(|d| d.3.ip_len()).collect();
    got.sort();
    assert_eq!(got.len() as u64 + drops, 6, "delivered {got:?}, {drops} dropped");
    assert!(drops >= 2 && got.iter().any(|&l| l < 1100) && got.iter().any(|&l| l >= 1100), "{got:?}");
    let (be, vo) = (&s.ac_stats[Ac::Be as usize], &s.ac_stats[Ac::Vo as usize]);
    assert!(be.frames > 0 && vo.frames > 0 && be.frames + vo.frames == got.len() as u64, "{be:?} {vo:?}");
    // One BlockAckReq per AC that dropped an MPDU, no debt left, nothing held.
    assert_eq!(s.stats.bars, 2, "{:?}", s.stats);
    assert_eq!((s.bar_up, h.bss.queue_len(1)), ([false; 4], 0));
}
