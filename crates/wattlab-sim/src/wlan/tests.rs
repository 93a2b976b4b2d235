//! MAC tests driven by a plain timer loop (no simulator), checked against hand-computed
//! 802.11 timings.

use super::*;
use crate::rng::RngStreams;
use std::net::Ipv4Addr;
use wattlab_core::packet::UdpHeader;
use wattlab_core::wlan::phy::{PHY_80211A, PHY_80211B};

/// A BSS with a timer loop and a log of everything it reported.
pub(crate) struct Harness {
    pub bss: Bss,
    timers: Vec<(Time, u64, MacTimer)>,
    seq: u64,
    pub now: Time,
    pub delivered: Vec<(Time, StaId, StaId, Packet)>,
    pub activity: Vec<(StaId, Time, Time, Activity)>,
    pub power: Vec<(StaId, Time, bool)>,
    /// First attempts reported (`MacOutput::Transmit`): sender, receiver, IP length.
    pub transmits: Vec<(StaId, StaId, u32)>,
    /// Re-queue a frame at the sender whenever one of its frames is delivered (saturation).
    pub saturate: bool,
    pub saturate_size: u32,
    /// Called after every timer with the BSS (invariant checks).
    pub inspect: Option<fn(&Bss)>,
}

pub(crate) fn udp(len: u32) -> Packet {
    Packet::udp(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), UdpHeader::default(), len - 28)
}

pub(crate) fn mac(phy: wattlab_core::wlan::PhyProfile, rate_kbps: u32) -> MacConfig {
    MacConfig {
        phy,
        tx: wattlab_core::wlan::TxVector::Legacy { kbps: rate_kbps },
        rts_threshold: None,
        short_retry_limit: Some(7),
        long_retry_limit: Some(4),
        propagation: Duration::ZERO,
        overhearing: Overhearing::Rx,
        beacon_interval: Duration::from_micros(102_400),
        beacons: false,
        beacon_bytes: wattlab_core::wlan::phy::BEACON_BYTES,
        loss_layer: LossLayer::Frame,
        ap_queueing: ApQueueing::Fifo,
        ap_power_save_weight: 1.0,
        ap_priority: None,
        qos: None,
    }
}

pub(crate) fn sta(node: u32, mode: PowerSave) -> StaConfig {
    StaConfig {
        node,
        name: format!("n{node}"),
        queue_limit: 100,
        power_save: mode,
        wake_latency: Duration::from_millis(1),
        loss_down: LossProcess::None,
        loss_up: LossProcess::None,
        has_radio: true,
        tx: None,
    }
}

impl Harness {
    pub fn new(cfg: MacConfig, stas: Vec<StaConfig>, seed: u64) -> Harness {
        let streams = RngStreams::new(seed);
        let rngs = (0..stas.len()).map(|i| (streams.stream(&format!("b{i}")), streams.stream(&format!("l{i}")))).collect();
        let mut bss = Bss::new("bss".into(), cfg, stas, rngs);
        bss.start(Time::ZERO);
        let mut h = Harness {
            bss,
            timers: Vec::new(),
            seq: 0,
            now: Time::ZERO,
            delivered: Vec::new(),
            activity: Vec::new(),
            power: Vec::new(),
            transmits: Vec::new(),
            saturate: false,
            saturate_size: 1500,
            inspect: None,
        };
        h.drain();
        h
    }

    pub fn send(&mut self, from: StaId, to: StaId, len: u32) -> bool {
        let ok = self.bss.enqueue(self.now, from, to, udp(len));
        self.drain();
        ok
    }

    /// Hands `packet` to the MAC at `from`, for `to` (a packet of the test's making: a DSCP).
    pub fn send_packet(&mut self, from: StaId, to: StaId, packet: Packet) -> bool {
        let ok = self.bss.enqueue(self.now, from, to, packet);
        self.drain();
        ok
    }

    fn drain(&mut self) {
        while let Some(o) = self.bss.poll_output() {
            match o {
                MacOutput::Timer { at, timer } => {
                    self.seq += 1;
                    self.timers.push((at, self.seq, timer));
                }
                MacOutput::Deliver { sta, from, packet } => {
                    self.delivered.push((self.now, sta, from, packet));
                    if self.saturate {
                        let size = self.saturate_size;
                        self.bss.enqueue(self.now, from, sta, udp(size));
                    }
                }
                MacOutput::Activity { sta, start, end, kind, .. } => self.activity.push((sta, start, end, kind)),
                MacOutput::Power { sta, at, state } => self.power.push((sta, at, state == PowerState::Awake)),
                MacOutput::Transmit { sta, to, packet } => self.transmits.push((sta, to, packet.ip_len())),
                MacOutput::AirFrames => {}
            }
        }
    }

    /// Runs timers up to `until`.
    pub fn run_until(&mut self, until: Time) {
        while let Some(k) = (0..self.timers.len()).min_by_key(|&k| (self.timers[k].0, self.timers[k].1)) {
            if self.timers[k].0 > until {
                break;
            }
            let (at, _, t) = self.timers.swap_remove(k);
            self.now = at;
            self.bss.handle_timer(at, t);
            self.drain();
            if let Some(f) = self.inspect {
                f(&self.bss);
            }
        }
        self.now = until;
    }

    pub fn time_in(&self, sta: StaId, kind: Activity) -> Duration {
        Duration::from_nanos(self.activity.iter().filter(|a| a.0 == sta && a.3 == kind).map(|a| (a.2 - a.1).as_nanos()).sum())
    }
}

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

#[test]
fn one_frame_exchange_has_the_standard_timing() {
    let mut h = Harness::new(mac(PHY_80211A, 54_000), vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 1);
    h.run_until(Time(1_000_000)); // idle 1 ms: immediate access
    h.send(1, AP, 1500);
    h.run_until(Time(10_000_000));
    // Access at the next slot boundary after DIFS (the medium has been idle long enough).
    let t0 = Time(1_000_000) + Duration::from_nanos(((1_000_000 - 34_000u64).div_ceil(9_000) * 9_000) - (1_000_000 - 34_000));
    assert_eq!(h.delivered.len(), 1);
    assert_eq!(h.delivered[0].0, t0 + us(248), "delivered when the data frame ends");
    // Station: tx 248 us (data), rx 28 us (ACK); AP the reverse.
    assert_eq!(h.time_in(1, Activity::Tx), us(248));
    assert_eq!(h.time_in(1, Activity::Rx), us(28));
    assert_eq!(h.time_in(AP, Activity::Rx), us(248));
    assert_eq!(h.time_in(AP, Activity::Tx), us(28));
    assert_eq!(h.bss.stats.busy_ns, (us(248 + 16 + 28)).as_nanos());
}

#[test]
fn retry_limit_drops_and_counts() {
    let mut st = sta(1, PowerSave::Cam);
    st.loss_up = LossProcess::Bernoulli { p: 1.0 };
    let mut h = Harness::new(mac(PHY_80211B, 11_000), vec![sta(0, PowerSave::Cam), st], 2);
    h.send(1, AP, 1000);
    h.run_until(Time(1_000_000_000));
    let s = &h.bss.stas[1].stats;
    assert_eq!(s.attempts, 8, "first attempt + 7 retries");
    assert_eq!(s.retry_drops, 1);
    assert_eq!(s.frame_errors, 8);
    assert!(h.delivered.is_empty());
    assert_eq!(h.bss.queue_len(1), 0);
}

#[test]
fn packet_layer_loss_acts_once_per_packet_above_the_retransmissions() {
    let mut cfg = mac(PHY_80211B, 11_000);
    cfg.loss_layer = LossLayer::Packet;
    let mut st = sta(1, PowerSave::Cam);
    st.loss_up = LossProcess::Bernoulli { p: 0.25 };
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), st], 3);
    for k in 0..2000u64 {
        h.send(1, AP, 1000);
        h.run_until(Time((k + 1) * 5_000_000));
    }
    let s = &h.bss.stas[1].stats;
    // The MAC sends each frame once and gets its ACK; a quarter of the packets vanish above it.
    assert_eq!((s.attempts, s.frame_errors, s.retry_drops, s.frames_sent), (2000, 0, 0, 2000));
    assert_eq!(s.packet_errors + h.delivered.len() as u64, 2000);
    let rate = s.packet_errors as f64 / 2000.0;
    assert!((rate - 0.25).abs() < 0.03, "packet loss rate {rate}");
}

#[test]
fn saturated_stations_collide_and_share_the_channel() {
    let n = 5;
    let mut cfg = mac(PHY_80211A, 54_000);
    cfg.short_retry_limit = None;
    let stas = (0..=n).map(|i| sta(i, PowerSave::Cam)).collect();
    let mut h = Harness::new(cfg, stas, 3);
    h.saturate = true;
    for s in 1..=n as StaId {
        h.send(s, AP, 1500);
        h.send(s, AP, 1500);
    }
    h.run_until(Time(5_000_000_000));
    assert!(h.bss.stats.collisions > 100, "collisions: {}", h.bss.stats.collisions);
    let per: Vec<f64> = (1..=n as usize).map(|s| h.bss.stas[s].stats.frames_sent as f64).collect();
    let jain = per.iter().sum::<f64>().powi(2) / (per.len() as f64 * per.iter().map(|x| x * x).sum::<f64>());
    assert!(jain > 0.99, "long-run fair access: {per:?}, Jain {jain}");
}

/// Saturation throughput of `n` stations sending `ip_bytes` packets to the AP for `secs`.
fn saturation(phy: wattlab_core::wlan::PhyProfile, rate: u32, n: u32, secs: u64, seed: u64) -> f64 {
    let mut cfg = mac(phy, rate);
    cfg.short_retry_limit = None; // Bianchi: backoff stays at the last stage, no drops
    let stas = (0..=n).map(|i| sta(i, PowerSave::Cam)).collect();
    let mut h = Harness::new(cfg, stas, seed);
    h.saturate = true;
    for s in 1..=n as StaId {
        h.send(s, AP, 1500);
        h.send(s, AP, 1500);
    }
    // Measure after a 0.5 s warm-up.
    h.run_until(Time(500_000_000));
    let before = h.delivered.len();
    h.run_until(Time(500_000_000 + secs * 1_000_000_000));
    ((h.delivered.len() - before) as f64 * 1500.0 * 8.0) / secs as f64
}

#[test]
fn saturation_throughput_matches_bianchi_within_5_percent() {
    use wattlab_core::wlan::bianchi::basic_access;
    for (phy, rate) in [(PHY_80211A, 54_000), (PHY_80211B, 11_000)] {
        for n in [1u32, 5, 10, 20] {
            let sim = saturation(phy, rate, n, 10, 7 + n as u64);
            let model = basic_access(&phy, rate, 1500, n, Duration::ZERO).throughput_bps;
            let err = (sim - model).abs() / model;
            assert!(err < 0.05, "{} n={n}: sim {:.3} Mb/s, Bianchi {:.3} Mb/s ({:.1} %)", phy.name, sim / 1e6, model / 1e6, err * 100.0);
        }
    }
}

#[test]
fn psm_buffers_until_the_beacon_and_polls() {
    let mut cfg = mac(PHY_80211B, 11_000);
    cfg.beacons = true;
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Psm { listen_interval: 1 })], 4);
    assert_eq!(h.power, vec![(1, Time::ZERO, false)], "PSM station dozes at start");
    h.run_until(Time(10_000_000));
    h.send(AP, 1, 500);
    h.run_until(Time(100_000_000));
    assert!(h.delivered.is_empty(), "buffered while dozing");
    h.run_until(Time(200_000_000));
    assert_eq!(h.delivered.len(), 1);
    let beacon = Time(102_400_000);
    // Beacon at PIFS after TBTT: 1 Mb/s, 100 bytes = 192 + 800 us; then the PS-Poll wins
    // after DIFS + backoff; the data follows SIFS after it.
    assert!(h.delivered[0].0 > beacon + us(992) && h.delivered[0].0 < beacon + us(3000), "{:?}", h.delivered[0].0);
    assert_eq!(h.bss.stas[1].stats.ps_polls, 1);
    // Woke for the beacon, dozed after the delivery.
    assert_eq!(h.power[1], (1, beacon, true));
    assert!(!h.power[2].2 && h.power[2].1 > h.delivered[0].0);
}

#[test]
fn uapsd_uplink_frames_trigger_the_release_of_buffered_frames() {
    let mode = PowerSave::Uapsd { trigger_interval: None, max_sp: 0 };
    let mut h = Harness::new(mac(PHY_80211A, 54_000), vec![sta(0, PowerSave::Cam), sta(1, mode)], 5);
    h.run_until(Time(1_000_000));
    h.send(AP, 1, 1000);
    h.send(AP, 1, 1000);
    h.run_until(Time(50_000_000));
    assert!(h.delivered.is_empty(), "buffered until a trigger");
    h.send(1, AP, 100); // the trigger: any uplink data frame
    h.run_until(Time(100_000_000));
    let down: Vec<_> = h.delivered.iter().filter(|d| d.1 == 1).collect();
    assert_eq!(down.len(), 2, "the whole buffer is released in one service period");
    // Woke (after its 1 ms wake-up latency) to send, dozed once the service period ended.
    let last = h.power.last().unwrap();
    assert!(!last.2 && last.1 >= down[1].0);
    assert_eq!(h.power.iter().filter(|p| p.2).count(), 1);
}

#[test]
fn uapsd_periodic_qos_null_triggers() {
    let mode = PowerSave::Uapsd { trigger_interval: Some(Duration::from_millis(20)), max_sp: 0 };
    let mut h = Harness::new(mac(PHY_80211A, 54_000), vec![sta(0, PowerSave::Cam), sta(1, mode)], 6);
    h.run_until(Time(5_000_000));
    h.send(AP, 1, 1000);
    h.run_until(Time(30_000_000));
    assert_eq!(h.delivered.len(), 1, "released by the QoS-Null sent at 20 ms");
    assert!(h.delivered[0].0 > Time(20_000_000) && h.delivered[0].0 < Time(23_000_000));
    assert_eq!(h.bss.stas[1].stats.null_frames, 1);
}

#[test]
fn rts_cts_protects_long_frames() {
    let mut cfg = mac(PHY_80211B, 11_000);
    cfg.rts_threshold = Some(500);
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 8);
    h.send(1, AP, 1500); // at t = 0: access right after DIFS (50 us)
    h.send(1, AP, 400); // short frame: no RTS
    h.run_until(Time(100_000_000));
    // RTS (20 B at 2 Mb/s: 192 + 80 us) + SIFS + CTS (192 + 56) + SIFS + data (1310 us).
    assert_eq!(h.delivered[0].0, Time::ZERO + us(50 + 272 + 10 + 248 + 10 + 1310));
    // Long frame: RTS + data sent, CTS + ACK received; short frame: data sent, ACK received.
    let short = PHY_80211B.data_duration(400, 11_000);
    assert_eq!(h.time_in(1, Activity::Tx), us(272 + 1310) + short);
    assert_eq!(h.time_in(1, Activity::Rx), us(248 + 248 + 248));
}

/// The AP queues 80 frames for station 1, then 20 for station 2, and sends them all; returns
/// how many deliveries it took to finish station 2's frames.
fn deliveries_until_station_2_is_served(q: ApQueueing) -> usize {
    let mut cfg = mac(PHY_80211A, 54_000);
    cfg.ap_queueing = q;
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam), sta(2, PowerSave::Cam)], 3);
    for _ in 0..80 {
        assert!(h.send(AP, 1, 1500));
    }
    for _ in 0..20 {
        assert!(h.send(AP, 2, 1500));
    }
    h.run_until(Time(1_000_000_000));
    assert_eq!(h.delivered.len(), 100);
    h.delivered.iter().rposition(|d| d.1 == 2).unwrap() + 1
}

#[test]
fn fair_queueing_serves_a_late_station_alongside_a_backlogged_one() {
    assert_eq!(deliveries_until_station_2_is_served(ApQueueing::Fifo), 100);
    // Station 2's 20 frames alternate with station 1's: done within the first 40 (± the frame
    // on the air when it arrived).
    assert!(deliveries_until_station_2_is_served(ApQueueing::FairStation) <= 41);
}

#[test]
fn a_full_fair_buffer_makes_room_for_the_short_class() {
    for (q, admitted) in [(ApQueueing::Fifo, false), (ApQueueing::FairStation, true)] {
        let mut cfg = mac(PHY_80211A, 54_000);
        cfg.ap_queueing = q;
        let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam), sta(2, PowerSave::Cam)], 3);
        for _ in 0..100 {
            h.send(AP, 1, 1500);
        }
        assert!(!h.send(AP, 1, 1500), "{q:?}: station 1 is the longest class, its frame is refused");
        assert_eq!(h.send(AP, 2, 1500), admitted, "{q:?}");
        assert_eq!(h.bss.stas[AP as usize].stats.queue_drops, 2, "{q:?}: one drop each time");
        h.run_until(Time(1_000_000_000));
        assert_eq!(h.delivered.iter().filter(|d| d.1 == 2).count(), admitted as usize, "{q:?}");
    }
}

/// Successful frames of the AP and of all stations together, after `secs` of saturation with
/// `n` stations sending upstream and the AP sending to each of them.
fn up_down_wins(prio: Option<ApPriority>, n: u32, secs: u64) -> (u64, u64) {
    let mut cfg = mac(PHY_80211A, 54_000);
    cfg.ap_priority = prio;
    let stas = (0..=n).map(|i| sta(i, PowerSave::Cam)).collect();
    let mut h = Harness::new(cfg, stas, 11);
    h.saturate = true;
    for s in 1..=n as StaId {
        h.send(s, AP, 1500);
        h.send(AP, s, 1500);
    }
    h.run_until(Time(secs * 1_000_000_000));
    let ap = h.bss.stas[AP as usize].stats.frames_sent;
    let others = (1..=n as usize).map(|s| h.bss.stas[s].stats.frames_sent).sum();
    (ap, others)
}

#[test]
fn prioritised_ap_defers_pifs_instead_of_difs() {
    let mut cfg = mac(PHY_80211A, 54_000);
    cfg.ap_priority = ApPriority::preset("pifs", &PHY_80211A);
    assert_eq!(cfg.ap_priority, Some(ApPriority { aifs_slots: 1, cw_min: 15, cw_max: 1023 }));
    assert_eq!(ApPriority::preset("fukuda-oie", &PHY_80211A), Some(ApPriority { aifs_slots: 1, cw_min: 0, cw_max: 0 }));
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 1);
    h.send(AP, 1, 1500);
    h.run_until(Time(10_000_000));
    // Medium idle since 0, the AP's frame queued at 0 with no backoff pending: it goes at
    // PIFS = SIFS + 1 slot = 25 µs (a station would wait DIFS = 34 µs), data 248 µs.
    assert_eq!(h.delivered.len(), 1);
    assert_eq!(h.delivered[0].0, Time(0) + us(25 + 248));
    // A station's first frame still waits DIFS.
    let mut cfg = mac(PHY_80211A, 54_000);
    cfg.ap_priority = ApPriority::preset("fukuda-oie", &PHY_80211A);
    let mut h = Harness::new(cfg, vec![sta(0, PowerSave::Cam), sta(1, PowerSave::Cam)], 1);
    h.send(1, AP, 1500);
    h.run_until(Time(10_000_000));
    assert_eq!(h.delivered[0].0, Time(0) + us(34 + 248));
    assert!(ApPriority::preset("edca", &PHY_80211A).is_none());
}

#[test]
fn prioritised_ap_wins_the_medium_more_often() {
    let n = 5;
    let (ap0, st0) = up_down_wins(None, n, 5);
    let (ap1, st1) = up_down_wins(ApPriority::preset("pifs", &PHY_80211A), n, 5);
    let share0 = ap0 as f64 / (ap0 + st0) as f64;
    let share1 = ap1 as f64 / (ap1 + st1) as f64;
    // DCF: the AP is one of n + 1 contenders (1/6); with a one-slot head start in every idle
    // period it wins clearly more often.
    assert!((share0 - 1.0 / 6.0).abs() < 0.03, "DCF AP share {share0:.3}");
    assert!(share1 > share0 + 0.1, "AP share {share0:.3} → {share1:.3}");
    // Without backoff (fukuda-oie) a saturated AP takes the medium at every idle period, and
    // never collides: the stations start counting only after DIFS.
    let (ap2, st2) = up_down_wins(ApPriority::preset("fukuda-oie", &PHY_80211A), n, 5);
    assert_eq!(st2, 0, "a saturated AP without backoff starves the stations");
    assert!(ap2 > ap0 + st0, "and sends more than the whole DCF BSS did (no collisions, no backoff)");
    eprintln!("AP share of successes: DCF {share0:.3}, PIFS {share1:.3}");
}

/// Start of every transmission by `sta` in the harness's log.
pub(crate) fn tx_starts(h: &Harness, sta: StaId) -> Vec<Time> {
    h.activity.iter().filter(|a| a.0 == sta && a.3 == Activity::Tx).map(|a| a.1).collect()
}

/// The first backoff station `i`'s stream draws from CW 15 (its first draw: it has not
/// contended before), computed beside the MAC from the same seed.
pub(crate) fn first_backoff(seed: u64, i: StaId) -> u64 {
    use rand::Rng;
    crate::rng::RngStreams::new(seed).stream(&format!("b{i}")).random_range(0..=15u32) as u64
}

#[test]
fn a_frame_draws_a_backoff_only_if_the_medium_is_busy_at_arrival() {
    // 802.11a 54 Mb/s: slot 9 µs, DIFS 34 µs; a 1500-byte frame's exchange is 248 µs of data,
    // SIFS 16 µs and a 28 µs ACK = 292 µs. Seed 3 gives stations 2 and 3 non-zero first draws,
    // so the test tells a backoff from immediate access.
    let seed = 3;
    let (b2, b3) = (first_backoff(seed, 2), first_backoff(seed, 3));
    assert!(b2 > 0 && b3 > 0, "seed must draw non-zero backoffs: {b2}, {b3}");
    let stas = (0..=4).map(|i| sta(i, PowerSave::Cam)).collect();
    let mut h = Harness::new(mac(PHY_80211A, 54_000), stas, seed);
    // 1. Idle since the start: station 1 goes at the next grid point after DIFS, 1006 µs.
    h.run_until(Time(1_000_000));
    h.send(1, AP, 1500);
    let t1 = Time::ZERO + us(34 + 108 * 9);
    // 2. Station 2's frame arrives while station 1's exchange holds the medium: it defers
    //    DIFS after the exchange ends and counts its backoff b2 (not the first slot).
    h.run_until(t1 + us(100));
    h.send(2, AP, 1500);
    let end1 = t1 + us(292);
    let t2 = end1 + us(34 + 9 * b2);
    // 3. Station 3's frame arrives 20 µs after station 2's exchange ends: the medium is idle
    //    (for less than DIFS), so no backoff: it goes when DIFS is over (§10.3.4.2). Before
    //    the fix it drew b3 here.
    let end2 = t2 + us(292);
    h.run_until(end2 + us(20));
    h.send(3, AP, 1500);
    let t3 = end2 + us(34);
    // 4. Station 4's arrives exactly DIFS after station 3's exchange ends: immediate access.
    let end3 = t3 + us(292);
    h.run_until(end3 + us(34));
    h.send(4, AP, 1500);
    h.run_until(Time(100_000_000));
    assert_eq!(tx_starts(&h, 1), vec![t1]);
    assert_eq!(tx_starts(&h, 2), vec![t2], "busy at arrival: DIFS + {b2} slots");
    assert_eq!(tx_starts(&h, 3), vec![t3], "idle 20 µs < DIFS at arrival: at DIFS, no backoff");
    assert_eq!(tx_starts(&h, 4), vec![end3 + us(34)], "idle for DIFS at arrival: no backoff");
    assert_eq!((h.bss.stats.collisions, h.delivered.len()), (0, 4));
}

#[test]
fn frames_arriving_during_one_exchange_no_longer_collide_in_the_first_slot() {
    // Before the fix every station whose frame arrived during a busy medium went in the first
    // slot after DIFS, so two such stations always collided. Now each draws its own backoff;
    // over many rounds they collide about as often as two fresh draws from CW 15 coincide.
    let stas = (0..=3).map(|i| sta(i, PowerSave::Cam)).collect();
    let mut h = Harness::new(mac(PHY_80211A, 54_000), stas, 5);
    let rounds = 400u64;
    for r in 0..rounds {
        let t = Time((r + 1) * 10_000_000);
        h.run_until(t);
        h.send(1, AP, 1500); // idle for long: immediate access
        h.run_until(t + us(40)); // station 1 is on the air
        h.send(2, AP, 1500);
        h.send(3, AP, 1500);
    }
    h.run_until(Time((rounds + 2) * 10_000_000));
    let c = h.bss.stats.collisions as f64 / rounds as f64;
    // Fresh draws of 2 and 3 from CW 15 coincide with probability 1/16 (post-backoffs of
    // earlier rounds have run out in the 10 ms gaps); 0.0625 ± 4 σ over 400 rounds.
    assert!(c < 0.0625 + 4.0 * (0.0625f64 * 0.9375 / 400.0).sqrt(), "collision rate per round {c}");
    assert!(c > 0.0, "some rounds still collide");
    assert_eq!(h.delivered.len() as u64, 3 * rounds);
}
