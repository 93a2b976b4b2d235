//! Tests of the QoS MAC (EDCA, A-MPDU with Block Ack), driven by the plain timer loop of
//! `tests.rs` and checked against hand-computed 802.11 timings.

use super::tests::{mac, sta, Harness};
use super::*;
use wattlab_core::energy::Activity;
use crate::net::impairment::LossProcess;
use wattlab_core::wlan::phy::PHY_80211A;

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

/// 802.11a at 54 Mb/s with EDCA (the standard's parameters), aggregation as given.
pub(crate) fn qos_mac(aggregation: Option<Aggregation>) -> MacConfig {
    let mut cfg = mac(PHY_80211A, 54_000);
    cfg.qos = Some(QosConfig::standard(&PHY_80211A, aggregation));
    cfg
}

#[test]
fn edca_best_effort_waits_aifs_3_and_sends_a_qos_data_frame() {
    let mut h = Harness::new(qos_mac(None), vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 1);
    h.send(1, AP, 1500);
    h.run_until(Time(10_000_000));
    // AIFS[BE] = SIFS + 3 slots = 43 µs; a QoS data frame of 1500 + 36 + 2 bytes at 54 Mb/s:
    // 16 + 12 304 + 6 bits in 58 symbols of 216 bits → 20 + 232 = 252 µs (DCF: 248 µs).
    assert_eq!(h.delivered[0].0, Time::ZERO + us(43 + 252));
    assert_eq!(h.bss.stats.busy_ns, us(252 + 16 + 28).as_nanos());
}

#[test]
fn edca_ap_priority_is_an_aifs_shorter_by_two_slots() {
    let mut cfg = qos_mac(None);
    cfg.ap_priority = ApPriority::preset("fukuda-oie", &PHY_80211A);
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 1);
    assert_eq!((h.bss.base_aifsn, h.bss.stas[0].acs[0].aifs_off, h.bss.stas[1].acs[0].aifs_off), (1, 0, 2));
    h.send(AP, 1, 1500);
    h.run_until(Time(10_000_000));
    // The AP's AIFS = PIFS (25 µs); a station would wait AIFS[BE] = 43 µs.
    assert_eq!(h.delivered[0].0, Time::ZERO + us(25 + 252));
    h.send(1, AP, 1500);
    let t = h.now;
    h.run_until(Time(20_000_000));
    // Idle since the AP's exchange ended long ago: the station goes at its AIFS grid point.
    let d = h.delivered[1].0 - t;
    assert!(d >= us(252) && d < us(252 + 9), "{d:?}");
}

#[test]
fn edca_presets_set_each_contenders_window() {
    let mut cfg = qos_mac(None);
    cfg.qos = Some(QosConfig { edca: EdcaSet::hostapd(), aggregation: None, amsdu: None });
    let h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 1);
    assert_eq!((h.bss.stas[0].acs[0].cw_min, h.bss.stas[0].acs[0].cw_max), (15, 63), "hostapd's AP: BE CW 15–63");
    assert_eq!((h.bss.stas[1].acs[0].cw_min, h.bss.stas[1].acs[0].cw_max), (15, 1023));
    // The grid starts at the shortest AIFS of any AC: the AP's AC_VO, AIFSN 1.
    assert_eq!((h.bss.base_aifsn, h.bss.stas[1].acs[0].aifs_off), (1, 2));
}

/// An aggregating 802.11a BSS with stations `modes` (the AP first, CAM).
fn agg_harness(aggregation: Aggregation, modes: &[PowerSave], seed: u64) -> Harness {
    let mut stas = vec![sta(0, PowerSave::Cam)];
    stas.extend(modes.iter().enumerate().map(|(i, m)| sta(i as u32 + 1, *m)));
    Harness::new(qos_mac(Some(aggregation)), stas, seed)
}

/// HT limits but a PPDU time limit long enough for the byte limit to bind.
const HT_LONG: Aggregation = Aggregation { max_ppdu_time: Duration::from_millis(20), ..Aggregation::HT };

/// Checks that no A-MPDU on the air spans more than the Block Ack window.
fn window_respected(bss: &Bss) {
    if let Some(Exchange { kind: ExchangeKind::Ampdu { sta, ssn, .. } }) = bss.exchange {
        let w = bss.cfg.qos.unwrap().aggregation.unwrap().ba_window;
        for f in bss.stas[sta as usize].queue.iter().filter(|f| f.ba.inflight) {
            assert!(f.ba.seq >= ssn && f.ba.seq < ssn + w, "MPDU {} outside the window [{ssn}, {})", f.ba.seq, ssn + w);
        }
    }
}

/// Sends `n` frames of distinct lengths from `from` to `to` at once; returns their lengths.
fn send_numbered(h: &mut Harness, from: StaId, to: StaId, n: u32) -> Vec<u32> {
    (0..n).map(|k| 1000 + k).inspect(|&len| assert!(h.send(from, to, len))).collect()
}

/// IP lengths delivered to `to`, in delivery order.
fn delivered_to(h: &Harness, to: StaId) -> Vec<u32> {
    h.delivered.iter().filter(|d| d.1 == to).map(|d| d.3.ip_len()).collect()
}

#[test]
fn ampdu_exchange_has_the_standard_timing_and_content() {
    let mut h = agg_harness(Aggregation::HT, &[PowerSave::Cam], 1);
    for _ in 0..10 {
        h.send(1, AP, 1500);
    }
    h.run_until(Time(100_000_000));
    assert_eq!(h.delivered.len(), 10);
    let s = &h.bss.stas[1].stats;
    assert_eq!((s.ba_setups, s.ampdus, s.ampdu_mpdus, s.ampdu_hist.ampdu_8_15), (1, 1, 10, 1));
    // ADDBA at the lowest basic rate: request (37 B at 6 Mb/s: 20 + 4 × ⌈318/24⌉ = 76 µs),
    // SIFS, ACK (14 B: 20 + 4 × ⌈134/24⌉ = 44 µs), SIFS, response 76, SIFS, ACK 44 = 288 µs.
    // A-MPDU: 9 subframes of 4 + 1538 padded to 1544,
    // and a last one of 1542 = 15 438 B → ⌈(16 + 123 504 + 6)/216⌉ = 572 symbols = 2308 µs;
    // SIFS; compressed Block Ack (32 B: 3 symbols) 32 µs.
    assert_eq!(h.bss.stats.busy_ns, us(288 + 2308 + 16 + 32).as_nanos());
    assert!(h.delivered.iter().all(|d| d.0 == h.delivered[0].0), "all ten are passed up when the PPDU ends");
    assert_eq!(h.time_in(1, Activity::Tx), us(76 + 44 + 2308));
    assert_eq!(h.time_in(AP, Activity::Tx), us(44 + 76 + 32));
    assert_eq!(h.bss.queue_len(1), 0);
}

#[test]
fn byte_time_and_txop_limits_bound_the_aggregate() {
    // (aggregation, TXOP of AC_BE, MPDUs per A-MPDU): 42 × 1544 − 2 = 64 846 ≤ 65 535 B; at
    // 5.484 ms 23 MPDUs (5284 µs; 24 would take 5512); with a 2 ms TXOP the PPDU must end
    // 48 µs (SIFS + BA) earlier: 8 MPDUs (1852 µs; 9 take 2080).
    for (agg, txop, per) in [(HT_LONG, 0, 42), (Aggregation::HT, 0, 23), (Aggregation::VHT, 2_000, 8)] {
        let mut cfg = qos_mac(Some(agg));
        cfg.qos.as_mut().unwrap().edca.sta[Ac::Be as usize].txop_limit = us(txop);
        let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 2);
        for _ in 0..per * 2 {
            h.send(1, AP, 1500);
        }
        h.run_until(Time(1_000_000_000));
        let s = &h.bss.stas[1].stats;
        assert_eq!((s.ampdus, s.ampdu_mpdus), (2, 2 * per as u64), "{agg:?} TXOP {txop} µs");
        let longest = h.activity.iter().filter(|a| a.0 == 1 && a.3 == Activity::Tx).map(|a| a.2 - a.1).max().unwrap();
        assert!(longest <= agg.max_ppdu_time && (txop == 0 || longest + us(48) <= us(txop)), "{longest:?}");
    }
}

#[test]
fn lost_mpdus_go_again_from_the_bitmap_and_arrive_once_in_order() {
    for (agg, n) in [(Aggregation::HT, 600), (Aggregation::HE, 1500)] {
        let mut cfg = qos_mac(Some(agg));
        cfg.short_retry_limit = None;
        let mut st = sta(1, PowerSave::Cam);
        st.queue_limit = 2000;
        st.loss_up = LossProcess::Bernoulli { p: 0.3 };
        let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), st], 3);
        h.inspect = Some(window_respected);
        let sent = send_numbered(&mut h, 1, AP, n);
        h.run_until(Time(10_000_000_000));
        assert_eq!(delivered_to(&h, AP), sent, "exactly once, in order");
        let s = &h.bss.stas[1].stats;
        assert!(s.ba_retries > n as u64 / 5 && s.ba_retries == s.frame_errors, "{s:?}");
        assert_eq!(s.frames_sent, n as u64);
        // HE fills more than 64 per A-MPDU (the time limit allows ~23 at 54 Mb/s, so use the
        // window as the check where it binds: with 30 % loss, holes keep MPDUs outstanding).
        assert!(s.ampdu_mpdus / s.ampdus > 10, "{s:?}");
    }
}

#[test]
fn first_attempts_are_reported_once_each_and_not_at_all_when_nobody_captures() {
    // A lost Block Ack sends the ten MPDUs three times: only the first attempt of each is a
    // capture point. Turned off, no packet is reported and the exchanges are the same.
    let mut runs = Vec::new();
    for report in [true, false] {
        let mut h = agg_harness(Aggregation::HT, &[PowerSave::Cam], 4);
        h.bss.set_report_transmits(report);
        h.bss.lose_responses = 2;
        let sent = send_numbered(&mut h, 1, AP, 10);
        h.run_until(Time(100_000_000));
        let expected: Vec<(StaId, StaId, u32)> = if report { sent.iter().map(|&len| (1, AP, len)).collect() } else { vec![] };
        assert_eq!(h.transmits, expected, "report {report}");
        assert_eq!(h.bss.stas[1].stats.ba_retries, 20);
        runs.push((h.activity.clone(), delivered_to(&h, AP), h.bss.stats.busy_ns));
    }
    assert_eq!(runs[0], runs[1]);
    // The legacy DCF reports the same way.
    for report in [true, false] {
        let mut h = Harness::new(mac(PHY_80211A, 54_000), vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 1);
        h.bss.set_report_transmits(report);
        h.send(1, AP, 1500);
        h.run_until(Time(100_000_000));
        assert_eq!(h.delivered.len(), 1);
        assert_eq!(h.transmits.len(), report as usize, "report {report}");
    }
}

#[test]
fn a_lost_block_ack_makes_every_mpdu_go_again_but_each_arrives_once() {
    let mut h = agg_harness(Aggregation::HT, &[PowerSave::Cam], 4);
    h.bss.lose_responses = 2; // the first Block Ack is lost (the ADDBA takes none)
    let sent = send_numbered(&mut h, 1, AP, 10);
    h.run_until(Time(100_000_000));
    let s = &h.bss.stas[1].stats;
    assert_eq!((s.ampdus, s.ba_lost, s.ba_retries), (3, 2, 20), "{s:?}");
    assert_eq!(delivered_to(&h, AP), sent, "passed up at the first PPDU, never again");
    assert_eq!(s.frames_sent, 10);
}

#[test]
fn the_retry_limit_drops_an_mpdu_and_frees_those_held_behind_it() {
    let mut cfg = qos_mac(Some(Aggregation::HT));
    cfg.short_retry_limit = Some(2);
    let mut st = sta(1, PowerSave::Cam);
    st.loss_up = LossProcess::Bernoulli { p: 0.5 };
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), st], 5);
    let sent = send_numbered(&mut h, 1, AP, 60);
    h.run_until(Time(1_000_000_000));
    let s = &h.bss.stas[1].stats;
    let got = delivered_to(&h, AP);
    assert!(s.retry_drops > 0 && s.frames_sent + s.retry_drops == 60, "{s:?}");
    assert_eq!(got.len() as u64, s.frames_sent);
    assert!(got.windows(2).all(|w| w[0] < w[1]), "in order despite the holes");
    assert!(got.iter().all(|l| sent.contains(l)));
    assert_eq!(h.bss.queue_len(1), 0, "nothing left held in the reorder buffer");
}

#[test]
fn saturated_throughput_of_one_station_matches_the_hand_computation() {
    // Per access: AIFS 43 µs + mean backoff 7.5 × 9 µs + A-MPDU of 23 MPDUs (5284 µs) + SIFS +
    // Block Ack 32 µs = 5442.5 µs for 23 × 1500 × 8 bits: 50.71 Mb/s.
    let mut h = agg_harness(Aggregation::HT, &[PowerSave::Cam], 6);
    h.saturate = true;
    for _ in 0..100 {
        h.send(1, AP, 1500);
    }
    h.run_until(Time(500_000_000));
    let before = h.delivered.len();
    h.run_until(Time(10_500_000_000));
    let sim = (h.delivered.len() - before) as f64 * 1500.0 * 8.0 / 10.0;
    let model = 23.0 * 1500.0 * 8.0 / 5442.5e-6;
    assert!((sim - model).abs() / model < 0.01, "sim {:.2} Mb/s, hand {:.2} Mb/s", sim / 1e6, model / 1e6);
    assert_eq!(h.bss.stas[1].stats.ampdu_mpdus, 23 * h.bss.stas[1].stats.ampdus);
}

#[test]
fn collisions_fail_every_mpdu_and_the_bss_shares_the_channel() {
    let n = 5;
    let mut cfg = qos_mac(Some(Aggregation::HT));
    cfg.short_retry_limit = None; // saturation: a dropped frame would not be replaced
    let mut h = Harness::new(cfg, (0..=n as u32).map(|i| sta(i, PowerSave::Cam)).collect(), 7);
    h.inspect = Some(window_respected);
    h.saturate = true;
    for s in 1..=n as StaId {
        for _ in 0..64 {
            h.send(s, AP, 1500);
        }
    }
    // Long enough for binary exponential backoff's short-term unfairness to even out
    // (an access carries 23 MPDUs: ~7000 accesses).
    h.run_until(Time(40_000_000_000));
    assert!(h.bss.stats.collisions > 500);
    let lost: u64 = (1..=n).map(|s| h.bss.stas[s].stats.ba_lost).sum();
    let coll: u64 = (1..=n).map(|s| h.bss.stas[s].stats.collisions).sum();
    // No frame errors: every missing Block Ack is a collision; the others are collisions of
    // the ADDBA requests at the start (no Block Ack expected).
    assert!(lost <= coll && coll - lost <= 2 * n as u64 * 7, "{lost} BA lost, {coll} collisions");
    assert!(lost > 50);
    let per: Vec<f64> = (1..=n).map(|s| h.bss.stas[s].stats.frames_sent as f64).collect();
    let jain = per.iter().sum::<f64>().powi(2) / (per.len() as f64 * per.iter().map(|x| x * x).sum::<f64>());
    let q: Vec<usize> = (1..=n as StaId).map(|s| h.bss.queue_len(s)).collect();
    assert!(jain > 0.99, "{per:?} {q:?} {:?}", h.bss.stas[1].stats);
    // Each station's airtime is about a fifth of all (collided frames count for each sender,
    // so the sum exceeds the busy time).
    let busy: f64 = (1..=n).map(|s| h.bss.stas[s].stats.airtime_ns as f64).sum();
    assert!(busy > h.bss.stats.busy_ns as f64);
    for s in 1..=n {
        let share = h.bss.stas[s].stats.airtime_ns as f64 / busy;
        assert!((share - 0.2).abs() < 0.03, "station {s}: {share}");
    }
}

#[test]
fn the_ap_aggregates_per_receiver() {
    let mut h = agg_harness(Aggregation::HT, &[PowerSave::Cam, PowerSave::Cam], 8);
    let mut sent = [Vec::new(), Vec::new()];
    for k in 0..20u32 {
        let to = 1 + (k % 2) as StaId;
        h.send(AP, to, 1000 + k);
        sent[to as usize - 1].push(1000 + k);
    }
    h.run_until(Time(100_000_000));
    assert_eq!(delivered_to(&h, 1), sent[0]);
    assert_eq!(delivered_to(&h, 2), sent[1]);
    let s = &h.bss.stas[AP as usize].stats;
    assert_eq!((s.ba_setups, s.ampdus, s.ampdu_mpdus), (2, 2, 20), "one agreement and one A-MPDU per receiver");
}

#[test]
fn psm_polls_one_mpdu_at_a_time_on_an_aggregating_mac() {
    let mut cfg = qos_mac(Some(Aggregation::HT));
    cfg.beacons = true;
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Psm { listen_interval: 1 })], 4);
    h.run_until(Time(10_000_000));
    let sent = send_numbered(&mut h, AP, 1, 3);
    h.run_until(Time(100_000_000));
    assert!(h.delivered.is_empty(), "buffered while dozing");
    h.run_until(Time(200_000_000));
    assert_eq!(delivered_to(&h, 1), sent);
    assert_eq!(h.bss.stas[1].stats.ps_polls, 3, "one PS-Poll per MPDU (More Data)");
    assert_eq!(h.bss.stas[AP as usize].stats.ampdus, 0);
    assert!(!h.power.last().unwrap().2, "dozes once the buffer is empty");
}

#[test]
fn uapsd_service_periods_deliver_a_mpdus_within_max_sp() {
    for (max_sp, per) in [(0u32, 6u64), (2, 2)] {
        let mode = PowerSave::Uapsd { trigger_interval: None, max_sp };
        let mut h = agg_harness(Aggregation::HT, &[mode], 5);
        h.run_until(Time(1_000_000));
        let sent = send_numbered(&mut h, AP, 1, 6);
        h.run_until(Time(50_000_000));
        assert!(h.delivered.is_empty(), "buffered until a trigger");
        h.send(1, AP, 100);
        h.run_until(Time(100_000_000));
        let ap = &h.bss.stas[AP as usize].stats;
        assert_eq!((ap.ampdus, ap.ampdu_mpdus), (1, per), "max_sp {max_sp}: one A-MPDU of the service period");
        assert_eq!(delivered_to(&h, 1), sent[..per as usize]);
        assert!(!h.power.last().unwrap().2, "dozes after the service period");
    }
}

#[test]
fn ideal_psm_and_bsd_release_bursts_as_a_mpdus() {
    for mode in [PowerSave::IdealPsm { interval: Duration::from_millis(100) }, PowerSave::Bsd { percent: 50 }] {
        let mut cfg = qos_mac(Some(Aggregation::VHT));
        cfg.beacons = true;
        let mut st = sta(1, mode);
        st.loss_down = LossProcess::Bernoulli { p: 0.2 };
        let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), st], 6);
        h.run_until(Time(10_000_000));
        let sent = send_numbered(&mut h, AP, 1, 30);
        h.run_until(Time(2_000_000_000));
        assert_eq!(delivered_to(&h, 1), sent, "{mode:?}: every frame once, in order");
        // Ideal PSM's burst goes in A-MPDUs (lost MPDUs again from the bitmap); BSD's dozing
        // station fetches by PS-Poll, one MPDU each.
        let ap = &h.bss.stas[AP as usize].stats;
        if matches!(mode, PowerSave::IdealPsm { .. }) {
            assert!(ap.ampdus > 0 && ap.ba_retries > 0, "{mode:?}: {ap:?}");
        } else {
            assert!(h.bss.stas[1].stats.ps_polls >= 30, "{mode:?}");
        }
        assert!(h.bss.stas[1].stats.dozes > 0, "{mode:?}");
    }
}

/// A scenario: `n` stations upload to a wired server through an 802.11a AP (54 Mb/s), Reno,
/// 10 s, with the stations' power mode `mode`.
fn upload_scenario(n: usize, mode: &str) -> String {
    let mut s = String::from(
        "name = \"agg\"\n[simulation]\nduration = \"10s\"\n[[node]]\nname = \"server\"\nkind = \"host\"\n\
         [[node]]\nname = \"ap\"\nkind = \"ap\"\n[[link]]\na = \"server\"\nb = \"ap\"\nrate = \"1Gbps\"\ndelay = \"5ms\"\n\
         queue = { packets = 10000 }\n",
    );
    let names: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
    for c in &names {
        s += &format!("[[node]]\nname = \"{c}\"\nkind = \"host\"\n");
    }
    let list: Vec<String> = names.iter().map(|c| format!("\"{c}\"")).collect();
    s += &format!(
        "[[wlan]]\nap = \"ap\"\nstations = [{}]\nphy = \"80211a\"\nrate = \"54Mbps\"\nap_queue = 400\nstation_queue = 400\npower_save = \"{mode}\"\n",
        list.join(", ")
    );
    for (i, c) in names.iter().enumerate() {
        s += &format!(
            "[[flow]]\nname = \"{c}\"\nkind = \"bulk-upload\"\nclient = \"{c}\"\nserver = \"server\"\nbytes = \"1GB\"\nport = {}\n\
             tcp = {{ cc = \"reno\", recv_buffer = \"1MB\", window_scale = 5 }}\n",
            5001 + i
        );
    }
    s
}

/// Runs `upload_scenario` with the BSS switched to `qos`; (summary of the BSS, bytes delivered).
fn run_uploads(n: usize, mode: &str, qos: Option<QosConfig>) -> (crate::output::WlanSummary, u64) {
    let opts = crate::BuildOptions { out_dir: None, pcaps: vec![], timeseries: false, ..Default::default() };
    let mut sim = crate::Simulation::from_toml(&upload_scenario(n, mode), "agg.toml", Some(1), &[], &opts).expect("scenario builds");
    sim.wlans[0].bss.set_qos(qos);
    let out = sim.run().expect("run succeeds");
    let bytes = out.summary.flows.iter().map(|f| f.bytes_delivered).sum();
    (out.summary.wlans[0].clone(), bytes)
}

#[test]
fn tcp_uploads_run_end_to_end_on_the_aggregating_mac() {
    let qos = Some(QosConfig::standard(&PHY_80211A, Some(Aggregation::HT)));
    for (n, mode) in [(1, "cam"), (5, "cam"), (2, "psm")] {
        let (_, dcf_bytes) = run_uploads(n, mode, None);
        let (agg, agg_bytes) = run_uploads(n, mode, qos);
        let sta = &agg.stations[1];
        assert!(sta.stats.ampdus > 0 && sta.ampdu_mean > 2.0, "{n} {mode}: {sta:?}");
        // The AP aggregates the TCP ACKs; to PSM stations it answers PS-Polls, one MPDU each.
        assert_eq!(agg.stations[0].stats.ampdus > 0, mode == "cam", "{mode}");
        // Aggregation amortises the per-access overhead: clearly more goodput than DCF; under
        // PSM the beacon-rounded RTT bounds both, and aggregation must not stall it.
        let gain = if mode == "cam" { 1.3 } else { 0.95 };
        assert!(agg_bytes as f64 > gain * dcf_bytes as f64, "{n} {mode}: {agg_bytes} vs DCF {dcf_bytes}");
        let share: f64 = agg.stations.iter().map(|s| s.airtime_share).sum();
        // Saturated, the medium is busy most of the run (PSM leaves it idle between beacons).
        assert!(share < 1.2 && (mode != "cam" || share > 0.8), "{mode}: {share}");
        eprintln!("{n} {mode}: DCF {:.1} Mb/s, A-MPDU {:.1} Mb/s (mean {:.1} MPDUs)", dcf_bytes as f64 * 8e-7, agg_bytes as f64 * 8e-7, sta.ampdu_mean);
    }
}

#[test]
fn he_at_high_rates_fills_the_256_window() {
    use wattlab_core::wlan::phy::{Mcs, PHY_80211AX};
    use wattlab_core::wlan::TxVector;
    // HE-MCS 11, 2 streams, 80 MHz, 0.8 µs GI: ~1.2 Gb/s, so 5.484 ms would carry ~530 MPDUs
    // of 1500 B; the 256-MPDU Block Ack window binds.
    let mut cfg = mac(PHY_80211AX, 0);
    cfg.tx = TxVector::He(Mcs { mcs: 11, nss: 2, width_mhz: 80, gi_ns: 800 });
    cfg.qos = QosConfig::for_phy(&PHY_80211AX);
    let mut st = sta(1, PowerSave::Cam);
    st.queue_limit = 1000;
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), st], 9);
    h.inspect = Some(window_respected);
    h.saturate = true;
    for _ in 0..600 {
        h.send(1, AP, 1500);
    }
    h.run_until(Time(200_000_000));
    let s = &h.bss.stas[1].stats;
    assert!(s.ampdus > 10);
    assert_eq!((s.ampdu_mpdus, s.ampdu_hist.ampdu_128_256), (256 * s.ampdus, s.ampdus), "{s:?}");
    // Each exchange: a 256-bit compressed Block Ack (56 B) answers.
    let psdu = 255 * 1544 + 1542;
    let ppdu = h.bss.data_airtime(1, AP, psdu);
    assert!(ppdu < Aggregation::HE.max_ppdu_time, "{ppdu:?}");
    let longest = h.activity.iter().filter(|a| a.0 == 1 && a.3 == Activity::Tx).map(|a| a.2 - a.1).max().unwrap();
    assert_eq!(longest, ppdu);
    assert_eq!(h.bss.block_ack_bytes(), 56);
}

#[test]
fn the_mac_fills_as_many_mpdus_as_the_analytic_model_counts() {
    use wattlab_core::wlan::aggregation::{mpdus_per_ampdu, QOS_DATA_OVERHEAD_BYTES};
    use wattlab_core::wlan::phy::{Mcs, PHY_80211AC, PHY_80211AX, PHY_80211N};
    use wattlab_core::wlan::TxVector;
    let he7 = TxVector::He(Mcs { mcs: 7, nss: 1, width_mhz: 20, gi_ns: 800 });
    let vht9 = TxVector::Vht(Mcs { mcs: 9, nss: 2, width_mhz: 80, gi_ns: 400 });
    let ht7 = TxVector::Ht(Mcs { mcs: 7, nss: 1, width_mhz: 40, gi_ns: 800 });
    let a54 = TxVector::Legacy { kbps: 54_000 };
    let two_ms = Aggregation { txop_limit: us(2_000), ..Aggregation::VHT };
    for (phy, tx, agg) in [
        (PHY_80211A, a54, Aggregation::HT),
        (PHY_80211A, a54, two_ms),
        (PHY_80211N, ht7, Aggregation::HT),
        (PHY_80211AC, vht9, Aggregation::VHT),
        (PHY_80211AX, he7, Aggregation::HE),
    ] {
        let mut cfg = mac(phy, 0);
        cfg.tx = tx;
        cfg.qos = Some(QosConfig::standard(&phy, Some(agg)));
        let mut st = sta(1, PowerSave::Cam);
        st.queue_limit = 600;
        let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), st], 10);
        h.saturate = true;
        for _ in 0..600 {
            h.send(1, AP, 1500);
        }
        h.run_until(Time(300_000_000));
        let s = &h.bss.stas[1].stats;
        let model = mpdus_per_ampdu(&phy, tx, 1500 + QOS_DATA_OVERHEAD_BYTES, &agg) as u64;
        assert!(s.ampdus > 5);
        assert_eq!(s.ampdu_mpdus, model * s.ampdus, "{} {tx:?} {agg:?}: model {model}", phy.name);
    }
}

#[test]
fn a_bss_reports_first_attempts_only_when_one_of_its_interfaces_is_captured() {
    let text = upload_scenario(2, "cam").replace("duration = \"10s\"", "duration = \"200ms\"");
    let dir = std::env::temp_dir().join(format!("wattlab-report-tx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut counts = Vec::new();
    for pcaps in [vec![], vec!["c0:wlan0".to_string()], vec!["ap:wlan0".to_string()]] {
        let opts = crate::BuildOptions { out_dir: Some(dir.clone()), pcaps: pcaps.clone(), timeseries: false, ..Default::default() };
        let sim = crate::Simulation::from_toml(&text, "agg.toml", Some(1), &[], &opts).expect("scenario builds");
        assert_eq!(sim.wlans[0].bss.report_transmits, !pcaps.is_empty(), "{pcaps:?}");
        let out = sim.run().expect("run succeeds");
        counts.push(out.summary.events);
    }
    // The station's capture holds what it sent (its first attempts) as well as what it got.
    let bytes = std::fs::read(dir.join("c0-wlan0.pcap")).expect("station capture");
    // Records after the 24-byte file header: 16-byte record header (original length at 12).
    let (mut at, mut sent) = (24, 0);
    while at + 16 <= bytes.len() {
        let word = |k: usize| u32::from_le_bytes(bytes[at + k..at + k + 4].try_into().unwrap()) as usize;
        sent += (word(12) > 1000) as usize;
        at += 16 + word(8);
    }
    assert!(sent > 50, "{sent} data frames captured at the sender");
    std::fs::remove_dir_all(&dir).ok();
    assert!(counts.iter().all(|&c| c == counts[0]), "capturing changes no event: {counts:?}");
}

/// Not a test: how fast the aggregating MAC runs 10 saturated TCP uploads over HE-MCS 7,
/// 20 MHz, for 60 s (the issue's `wlan-10sta-ax` configuration). `cargo test --release -p
/// wattlab-sim --lib aggregated_uploads_speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn aggregated_uploads_speed() {
    let text = upload_scenario(10, "cam")
        .replace("duration = \"10s\"", "duration = \"60s\"")
        .replace("phy = \"80211a\"\nrate = \"54Mbps\"", "phy = \"802.11ax\"\nmcs = 7\nwidth = 20\ngi = \"800ns\"");
    let opts = crate::BuildOptions { out_dir: None, pcaps: vec![], timeseries: false, ..Default::default() };
    for _ in 0..3 {
        let sim = crate::Simulation::from_toml(&text, "ax.toml", Some(1), &[], &opts).expect("scenario builds");
        let t = std::time::Instant::now();
        let out = sim.run().expect("run succeeds");
        let secs = t.elapsed().as_secs_f64();
        let bytes: u64 = out.summary.flows.iter().map(|f| f.bytes_delivered).sum();
        let w = &out.summary.wlans[0];
        eprintln!(
            "{} events in {secs:.3} s ({:.2} M/s); goodput {:.1} Mb/s; station A-MPDU mean {:.1}, AP {:.1}",
            out.summary.events,
            out.summary.events as f64 / secs / 1e6,
            bytes as f64 * 8.0 / 60e6,
            w.stations[1].ampdu_mean,
            w.stations[0].ampdu_mean
        );
    }
}

#[test]
fn an_80211ax_scenario_runs_on_the_aggregating_mac() {
    let opts = crate::BuildOptions { out_dir: None, pcaps: vec![], timeseries: false, ..Default::default() };
    // (U-APSD without a periodic trigger stalls TCP uploads on DCF as well: the AP holds the
    // ACKs until an uplink frame, and the window waits for them.)
    for (n, mode) in [(2, "cam"), (2, "bsd-50"), (1, "psm")] {
        let text = upload_scenario(n, mode).replace(
            "phy = \"80211a\"\nrate = \"54Mbps\"",
            "phy = \"802.11ax\"\nmcs = 7\nwidth = 20\ngi = \"800ns\"",
        );
        let sim = crate::Simulation::from_toml(&text, "ax.toml", Some(1), &[], &opts).expect("scenario builds");
        assert_eq!(sim.wlans[0].bss.cfg.qos, QosConfig::for_phy(&wattlab_core::wlan::phy::PHY_80211AX));
        let out = sim.run().expect("run succeeds");
        let w = &out.summary.wlans[0];
        let bytes: u64 = out.summary.flows.iter().map(|f| f.bytes_delivered).sum();
        let sta = &w.stations[1];
        assert!(sta.stats.ba_setups == 1 && sta.stats.ampdus > 0 && sta.ampdu_mean > 2.0, "{mode}: {sta:?}");
        // HE-MCS 7 at 20 MHz is 86 Mb/s: aggregated TCP uploads get well above 802.11a's 24
        // Mb/s; PSM's beacon-rounded ACKs hold it far lower but it must not stall.
        let mbps = bytes as f64 * 8.0 / 10e6;
        assert!(if mode == "cam" { mbps > 40.0 } else { mbps > 1.0 }, "{mode}: {mbps:.1} Mb/s");
        eprintln!("802.11ax {n} × {mode}: {mbps:.1} Mb/s, station A-MPDU mean {:.1}", sta.ampdu_mean);
    }
}


#[test]
fn edca_a_frame_arriving_within_its_aifs_goes_at_the_aifs_end_without_backoff() {
    use super::tests::{first_backoff, tx_starts};
    // AIFS[BE] = SIFS + 3 slots = 43 µs; a QoS data frame of 1500 bytes is 252 µs, its
    // exchange 252 + 16 + 28 = 296 µs. Station 2's frame arrives 40 µs after station 1's
    // exchange ends: the medium is idle (for less than its AIFS), so no case of §10.23.2.2's
    // list applies and it goes at AIFS, 43 µs (before the fix it drew a backoff). Station 3's
    // arrives while station 2's exchange holds the medium (case a): AIFS + its backoff.
    let seed = 3;
    let b3 = first_backoff(seed, 3);
    assert!(b3 > 0, "seed 3 draws a non-zero backoff for station 3");
    let stas = (0..=3).map(|i| sta(i, PowerSave::Cam)).collect();
    let mut h = Harness::new(qos_mac(None), stas, seed);
    h.run_until(Time(1_000_000));
    h.send(1, AP, 1500);
    let t1 = Time::ZERO + us(43 + 107 * 9); // grid 43 + k·9 µs, first point ≥ 1000 µs
    let end1 = t1 + us(296);
    h.run_until(end1 + us(40));
    h.send(2, AP, 1500);
    let t2 = end1 + us(43);
    h.run_until(t2 + us(100));
    h.send(3, AP, 1500);
    let t3 = t2 + us(296 + 43 + 9 * b3);
    h.run_until(Time(10_000_000));
    assert_eq!(tx_starts(&h, 1), vec![t1]);
    assert_eq!(tx_starts(&h, 2), vec![t2], "idle at arrival: AIFS, no backoff");
    assert_eq!(tx_starts(&h, 3), vec![t3], "busy at arrival: AIFS + {b3} slots");
    assert_eq!((h.bss.stats.collisions, h.delivered.len()), (0, 3));
}

#[test]
fn aggregating_stations_whose_frames_arrive_during_an_exchange_draw_backoffs() {
    use super::tests::tx_starts;
    // Three HE-style aggregating stations (802.11a timing, HT limits). Stations 1 and 2 set up
    // their Block Ack agreements first; then, while station 3's ADDBA exchange holds the
    // medium, both get a frame. Each must count a backoff of its own after AIFS; the old MAC
    // sent both in the first slot, a certain collision.
    let mut h = agg_harness(Aggregation::HT, &[PowerSave::Cam, PowerSave::Cam, PowerSave::Cam], 4);
    for (k, s) in [(1u64, 1), (21, 2)] {
        h.run_until(Time(k * 1_000_000));
        h.send(s, AP, 1500);
    }
    h.run_until(Time(50_000_000));
    assert_eq!((h.bss.stas[1].ba_up[0], h.bss.stas[2].ba_up[0]), (true, true));
    let (c0, n0) = (h.bss.stats.collisions, tx_starts(&h, 1).len() + tx_starts(&h, 2).len());
    h.send(3, AP, 1500); // ADDBA first
    h.run_until(Time(50_000_000) + us(60));
    assert!(h.bss.busy, "station 3's ADDBA exchange is on the air");
    h.send(1, AP, 1500);
    h.send(2, AP, 1500);
    h.run_until(Time(100_000_000));
    assert_eq!(h.bss.stats.collisions, c0, "the two frames did not collide (seed 4)");
    assert_eq!(tx_starts(&h, 1).len() + tx_starts(&h, 2).len(), n0 + 2);
    assert_eq!(h.delivered.len(), 5);
}
