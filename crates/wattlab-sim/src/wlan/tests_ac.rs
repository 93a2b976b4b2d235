//! Tests of the four EDCA access categories: classification, each AC's own AIFS and window,
//! internal collisions, TXOP bursts and the per-AC counters, against hand-computed timings
//! on 802.11a at 54 Mb/s (SIFS 16 µs, slot 9 µs; a 1500-byte QoS data frame 252 µs, its
//! ACK 28 µs).

use super::tests::{sta, udp, Harness};
use super::tests_qos::qos_mac;
use super::*;

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

/// A UDP packet of `len` IP bytes marked with `dscp`.
fn marked(len: u32, dscp: u8) -> Packet {
    let mut p = udp(len);
    p.dscp = dscp;
    p
}

const EF: u8 = 46;
const AF41: u8 = 34;

#[test]
fn dscp_maps_to_user_priority_and_ac_as_rfc_8325_says() {
    // (DSCP, UP, AC): RFC 8325 Figure 1 and 802.11-2020 Table 10-1.
    let table = [
        (0, 0, Ac::Be), (1, 1, Ac::Bk), (8, 1, Ac::Bk), (10, 0, Ac::Be), (16, 0, Ac::Be), (18, 3, Ac::Be),
        (24, 4, Ac::Vi), (26, 4, Ac::Vi), (32, 4, Ac::Vi), (AF41, 4, Ac::Vi), (40, 5, Ac::Vi), (44, 6, Ac::Vo),
        (EF, 6, Ac::Vo), (48, 7, Ac::Vo), (56, 0, Ac::Be), (63, 0, Ac::Be),
    ];
    for (dscp, up, ac) in table {
        assert_eq!((up_of_dscp(dscp), Ac::of_dscp(dscp)), (up, ac), "DSCP {dscp}");
    }
}

/// A CAM station 1 and the AP, EDCA without aggregation, the medium idle for 1 ms.
fn idle_bss() -> Harness {
    let mut h = Harness::new(qos_mac(None), vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 1);
    h.run_until(Time(1_000_000));
    h
}

/// First grid point at or after `t` of a grid starting at SIFS + `aifsn` slots.
fn grid_at(t: u64, aifsn: u64) -> u64 {
    let origin = 16_000 + aifsn * 9_000;
    origin + (t - origin).div_ceil(9_000) * 9_000
}

#[test]
fn voice_waits_its_own_shorter_aifs_and_is_counted_as_voice() {
    for (dscp, aifsn) in [(EF, 2), (0, 3)] {
        let mut h = idle_bss();
        h.send_packet(1, AP, marked(1500, dscp));
        h.run_until(Time(10_000_000));
        // The AC's AIFS (VO: SIFS + 2 slots, BE: + 3) on the BSS's slot grid.
        assert_eq!(h.delivered[0].0, Time(grid_at(1_000_000, aifsn)) + us(252), "DSCP {dscp}");
        let ac = if dscp == EF { Ac::Vo } else { Ac::Be };
        let a = h.bss.stas[1].ac_stats;
        assert_eq!((a[ac as usize].frames, a[ac as usize].bytes), (1, 1500), "DSCP {dscp}");
        assert_eq!(a.iter().map(|a| a.frames).sum::<u64>(), 1);
        assert_eq!(a[ac as usize].airtime_ns, us(252 + 16 + 28).as_nanos());
        // Alone on an idle medium: the access delay is the wait for the grid point, the frame,
        // SIFS and the ACK.
        assert_eq!(a[ac as usize].delay_ns, (h.delivered[0].0 + us(16 + 28) - Time(1_000_000)).as_nanos());
    }
}

#[test]
fn dcf_ignores_the_dscp() {
    let mut h = Harness::new(super::tests::mac(wattlab_core::wlan::phy::PHY_80211A, 54_000), vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 1);
    h.run_until(Time(1_000_000));
    h.send_packet(1, AP, marked(1500, EF));
    h.run_until(Time(10_000_000));
    assert_eq!(h.bss.stas[1].ac_stats[Ac::Be as usize].frames, 1, "one queue: AC_BE");
}

#[test]
fn an_internal_collision_gives_the_txop_to_the_higher_ac() {
    let mut h = idle_bss();
    // VI and VO (both AIFSN 2) with the same backoff pending: they end in the same slot.
    for ac in [Ac::Vi, Ac::Vo] {
        let e = &mut h.bss.stas[1].acs[ac as usize];
        (e.backoff, e.backoff_active) = (2, true);
    }
    h.send_packet(1, AP, marked(1500, AF41));
    h.send_packet(1, AP, marked(1500, EF));
    h.run_until(Time(10_000_000));
    assert_eq!(h.delivered.len(), 2);
    assert_eq!(h.delivered[0].3.dscp, EF, "voice goes first");
    // Both backoffs ran out during the idle millisecond: both go at the next grid point.
    assert_eq!(h.delivered[0].0, Time(grid_at(1_000_000, 1)) + us(252));
    let s = &h.bss.stas[1];
    assert_eq!((s.stats.internal_collisions, s.stats.collisions, h.bss.stats.collisions), (1, 0, 0));
    // VI backed off as after a collision: its window doubled and its frame counts a retry.
    assert_eq!(s.stats.attempts, 2, "no attempt went on the air for the internal collision");
    assert_eq!(s.ac_stats[Ac::Vi as usize].frames, 1);
}

/// Delivery times of `n` 1500-byte frames marked `dscp` queued at once at station 1.
fn burst(n: usize, dscp: u8) -> (Vec<Time>, StaStats) {
    let mut h = idle_bss();
    for _ in 0..n {
        h.send_packet(1, AP, marked(1500, dscp));
    }
    h.run_until(Time(100_000_000));
    (h.delivered.iter().map(|d| d.0).collect(), h.bss.stas[1].stats.clone())
}

#[test]
fn voice_sends_a_txop_of_exchanges_sifs_apart_within_its_limit() {
    // VO's TXOP limit on OFDM is 2.080 ms; an exchange is 252 + 16 + 28 = 296 µs, the next
    // starts SIFS later: every 312 µs. The k-th exchange fits while 312 k + 296 ≤ 2080: six.
    let (t, stats) = burst(8, EF);
    assert_eq!(t.len(), 8);
    let gaps: Vec<u64> = t.windows(2).map(|w| (w[1] - w[0]).as_nanos()).collect();
    assert_eq!(&gaps[..5], &[312_000; 5], "{gaps:?}");
    // The seventh needs a new access: AIFS[VO] and a backoff at least.
    assert!(gaps[5] >= 296_000 + 34_000, "{gaps:?}");
    assert_eq!(gaps[6], 312_000, "{gaps:?}");
    assert_eq!(stats.txop_continuations, 6);
    // Best effort has no TXOP limit: one exchange per access.
    let (t, stats) = burst(3, 0);
    assert!(t.windows(2).all(|w| (w[1] - w[0]).as_nanos() >= 296_000 + 43_000), "{t:?}");
    assert_eq!(stats.txop_continuations, 0);
}

/// Mean access delay (µs) of station 1's AC `ac` next to `n_be` stations saturated with best
/// effort, station 1 sending a 200-byte packet marked `dscp` every 10 ms for 2 s.
fn delay_beside_saturated_be(aggregation: Option<Aggregation>, dscp: u8, n_be: u32) -> f64 {
    let mut stas = vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)];
    stas.extend((2..2 + n_be).map(|i| sta(i, PowerSave::Cam)));
    let mut h = Harness::new(qos_mac(aggregation), stas, 7);
    for ms in 0..2_000u64 {
        for s in 2..2 + n_be as StaId {
            while h.bss.queue_len(s) < 50 {
                h.send(s, AP, 1500);
            }
        }
        if ms % 10 == 0 {
            h.send_packet(1, AP, marked(200, dscp));
        }
        h.run_until(Time((ms + 1) * 1_000_000));
    }
    let a = h.bss.stas[1].ac_stats[Ac::of_dscp(dscp) as usize];
    assert!(a.frames >= 190, "{a:?}");
    a.delay_ns as f64 / a.frames as f64 / 1e3
}

#[test]
fn voice_beside_saturated_best_effort_waits_less_than_best_effort() {
    for aggregation in [None, Some(Aggregation::HT)] {
        let vo = delay_beside_saturated_be(aggregation, EF, 4);
        let be = delay_beside_saturated_be(aggregation, 0, 4);
        eprintln!("aggregation {}: VO {vo:.0} µs, BE {be:.0} µs", aggregation.is_some());
        // VO: AIFS 2 slots and CW 3–7 against BE's 3 slots and CW 15–1023. Both wait for the
        // exchange on the air to end (~half a 296 µs exchange), so the gap is in the rest.
        assert!(vo * 1.5 < be, "aggregation {}: VO {vo:.0} µs vs BE {be:.0} µs", aggregation.is_some());
    }
}
