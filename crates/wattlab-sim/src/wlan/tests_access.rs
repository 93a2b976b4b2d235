//! Channel access at frame arrival, hand-timed: a frame reaching a station with no backoff
//! pending draws one only if the medium is busy at arrival (802.11-2020 §10.3.4.2 for DCF,
//! item a) of §10.23.2.2's list for an EDCAF); at an idle medium it goes at the end of its own
//! IFS (DIFS, AIFS, or EIFS after an errored frame). The basic cases (busy, inside DIFS/AIFS,
//! after it) are in `tests.rs` and `tests_qos.rs`; these are the EIFS and the interrupted-IFS
//! cases.

use super::tests::{first_backoff, mac, sta, tx_starts, Harness};
use super::tests_qos::qos_mac;
use super::*;
use crate::net::impairment::LossProcess;
use wattlab_core::wlan::phy::PHY_80211A;

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

/// The `k`-th backoff (from 0) station `i`'s stream draws, each draw from the window given.
fn nth_backoff(seed: u64, i: StaId, windows: &[u32]) -> u64 {
    use rand::Rng;
    let mut rng = crate::rng::RngStreams::new(seed).stream(&format!("b{i}"));
    windows.iter().map(|&cw| rng.random_range(0..=cw) as u64).last().expect("one window at least")
}

#[test]
fn a_frame_arriving_inside_the_eifs_after_an_errored_frame_goes_at_its_end() {
    // 802.11a 54 Mb/s. Station 1's frames are all lost (no ACK): its exchange ends with the
    // data frame, 248 µs, and everyone then defers EIFS = SIFS + ACK at 6 Mb/s + DIFS
    // = 16 + 44 + 34 = 94 µs (§10.3.2.3.7). Station 2's frame arrives 50 µs into it: idle
    // (longer than DIFS, shorter than EIFS) at arrival, so it goes at EIFS without backoff;
    // station 1 retries EIFS + b1 slots later (b1 from CW 31, > 0 with seed 2).
    let seed = 2;
    let b1 = nth_backoff(seed, 1, &[31]);
    assert!(b1 > 0, "seed must draw a non-zero retry backoff: {b1}");
    let mut lossy = sta(1, PowerSave::Cam);
    lossy.loss_up = LossProcess::Bernoulli { p: 1.0 };
    let stas = vec![sta(0, PowerSave::Cam), lossy, sta(2, PowerSave::Cam)];
    let mut h = Harness::new(mac(PHY_80211A, 54_000), stas, seed);
    assert_eq!(h.bss.cfg.phy.eifs(), us(94));
    h.run_until(Time(1_000_000));
    h.send(1, AP, 1500);
    let t1 = Time::ZERO + us(34 + 108 * 9);
    let end1 = t1 + us(248);
    h.run_until(end1 + us(50));
    h.send(2, AP, 1500);
    h.run_until(Time(2_000_000));
    let t2 = end1 + us(94);
    assert_eq!(tx_starts(&h, 2), vec![t2], "idle inside EIFS at arrival: at EIFS, no backoff");
    let starts1 = tx_starts(&h, 1);
    assert_eq!(starts1[0], t1);
    // The retry: station 2's exchange (292 µs) froze b1 at 0 counted slots; then DIFS + b1.
    assert_eq!(starts1[1], t2 + us(292 + 34 + 9 * b1), "station 1's retry after its backoff");
    assert_eq!(h.bss.stats.collisions, 0);
}

/// A BSS of the AP and stations 1–2 on `cfg` with the AP's access `fukuda-oie` (AIFS = PIFS,
/// CW 0: the AP never backs off), its first two exchanges as in the two interrupted-IFS
/// tests: station 1's frame at 1 ms (idle), then 1 µs after its exchange ends the AP's frame
/// to station 1 and station 2's frame to the AP, both at an idle medium. The AP goes at PIFS
/// and interrupts station 2's DIFS/AIFS. Returns the harness run to 10 ms, the end of the
/// AP's exchange and station 2's first backoff draw.
fn interrupted_ifs(mut cfg: MacConfig, exchange_us: u64, seed: u64) -> (Harness, Time, u64) {
    cfg.ap_priority = ApPriority::preset("fukuda-oie", &PHY_80211A);
    let stas = (0..=2).map(|i| sta(i, PowerSave::Cam)).collect();
    let mut h = Harness::new(cfg, stas, seed);
    let b2 = first_backoff(seed, 2);
    assert!(b2 > 0, "seed must draw a non-zero backoff for station 2: {b2}");
    h.run_until(Time(1_000_000));
    h.send(1, AP, 1500);
    // The grid starts at PIFS = 25 µs (the AP's AIFS): 25 + 109 · 9 = 1006 µs.
    let t1 = Time::ZERO + us(25 + 109 * 9);
    let end1 = t1 + us(exchange_us);
    h.run_until(end1 + us(1));
    h.send(AP, 1, 1500);
    h.send(2, AP, 1500);
    h.run_until(Time(10_000_000));
    assert_eq!(tx_starts(&h, 1)[0], t1, "station 1's data frame (its ACK to the AP follows)");
    let ap_data = end1 + us(25);
    assert!(tx_starts(&h, AP).contains(&ap_data), "the AP's data frame at PIFS");
    (h, ap_data + us(exchange_us), b2)
}

#[test]
fn dcf_a_station_whose_difs_the_medium_does_not_stay_idle_for_draws_a_backoff() {
    // §10.3.4.2: transmit if the medium "remains idle for a period of a DIFS ... Otherwise
    // the random backoff procedure ... shall be followed". Station 2 arrived at an idle
    // medium but the AP took it at PIFS, before station 2's DIFS was over: after the AP's
    // exchange (292 µs) it counts b2 slots after DIFS (the grid starts at PIFS, its DIFS is
    // slot 1 of it).
    let (h, end_ap, b2) = interrupted_ifs(mac(PHY_80211A, 54_000), 292, 4);
    assert_eq!(tx_starts(&h, 2), vec![end_ap + us(34 + 9 * b2)]);
    assert_eq!((h.bss.stats.collisions, h.delivered.len()), (0, 3));
}

#[test]
fn edca_a_station_whose_aifs_the_medium_does_not_stay_idle_for_keeps_a_zero_backoff() {
    // An EDCAF invokes the backoff only in the cases §10.23.2.2 lists; a deferral interrupted
    // by another transmission is not one of them, so station 2 (counter 0) transmits at its
    // AIFS[BE] = 43 µs after the AP's exchange (296 µs), as ns-3's ChannelAccessManager does.
    // Before the fix it drew a backoff on arrival (idle for less than its AIFS).
    let (h, end_ap, _) = interrupted_ifs(qos_mac(None), 296, 4);
    assert_eq!(tx_starts(&h, 2), vec![end_ap + us(43)]);
    assert_eq!((h.bss.stats.collisions, h.delivered.len()), (0, 3));
}
