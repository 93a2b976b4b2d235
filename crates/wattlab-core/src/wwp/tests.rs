//! WWP tests: the spec checks of notes §18.2, Table 1's effort overhead, a seeded property
//! test and end-to-end transfers through an in-test network loop.

use super::fuzz::established_pair;
use super::level::{first_level, level_from_probe_rtt, level_from_wave_time};
use super::*;
use crate::engine::Engine;
use crate::time::{Duration, Time};
use crate::wire::wwp::{decode_wwp, encode_wwp, pack_nack_list, WwpHeader, WwpType};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A segment from the peer (default ports 1 → 1).
fn seg(kind: WwpType, seq: u16, level: u8, wave_id: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let h = WwpHeader { src_port: 1, dst_port: 1, seq: seq & 0xfff, kind, level, wave_id: wave_id & 0x3f };
    encode_wwp(&h, payload, &mut out);
    out
}

fn nack_seg(kind: WwpType, seq: u16, level: u8, wave_id: u8, list: &[u16]) -> Vec<u8> {
    let mut p = Vec::new();
    pack_nack_list(list.iter().copied(), &mut p);
    seg(kind, seq, level, wave_id, &p)
}

/// Everything `ep` wants to send now, decoded as (type, seq, level, wave id, NACK list).
fn drain(ep: &mut WwpEndpoint, now: Time) -> Vec<(WwpType, u16, u8, u8, Vec<u16>)> {
    let mut buf = Vec::new();
    let mut v = Vec::new();
    while ep.poll_segment(now, &mut buf).is_some() {
        let s = decode_wwp(&buf).expect("endpoints emit valid segments");
        v.push((s.header.kind, s.header.seq, s.header.level, s.header.wave_id, s.nack_list().collect()));
    }
    v
}

#[test]
fn wave_sizes_are_0_12_24_36() {
    let cfg = WwpConfig::default();
    assert_eq!([0, 1, 2, 3].map(|l| cfg.wave_size(l)), [0, 12, 24, 36]);
}

#[test]
fn baseline_times_at_40_kb_per_s() {
    let mut cfg = WwpConfig::default();
    let bt = cfg.baseline_throughput;
    assert_eq!(bt, 40_960);
    assert_eq!(cfg.baseline_time(3, bt), ms(875));
    assert_eq!(cfg.baseline_time(2, bt), ms(575));
    assert_eq!(cfg.baseline_time(1, bt), ms(275));
    cfg.baseline_span = BaselineSpan::WholeWave;
    assert_eq!(cfg.baseline_time(3, bt), ms(900));
    assert_eq!(cfg.baseline_time(2, bt), ms(600));
    assert_eq!(cfg.baseline_time(1, bt), ms(300));
    assert_eq!(WwpConfig::default().rec_t, Duration::from_secs(2));
    assert_eq!(WwpConfig::default().send_t, Duration::from_secs(1));
}

#[test]
fn band_rule_with_closed_upper_bounds() {
    let b = ms(100);
    assert_eq!(level_from_wave_time(ms(100), b), 3);
    assert_eq!(level_from_wave_time(ms(101), b), 2);
    assert_eq!(level_from_wave_time(ms(200), b), 2);
    assert_eq!(level_from_wave_time(ms(300), b), 1);
    assert_eq!(level_from_wave_time(ms(301), b), 0);
    assert_eq!(level_from_probe_rtt(ms(20), ms(20), 0.2, 3), 3);
    assert_eq!(level_from_probe_rtt(ms(30), ms(20), 0.2, 3), 2);
    assert_eq!(level_from_probe_rtt(ms(30), ms(20), 0.2, 1), 1);
    assert_eq!(level_from_probe_rtt(ms(61), ms(20), 0.2, 3), 0);
    let cfg = WwpConfig::default();
    assert_eq!(first_level(ms(20), ms(21), false, &cfg), Some(3));
    assert_eq!(first_level(ms(20), ms(21), true, &cfg), Some(1));
    assert_eq!(first_level(ms(20), ms(90), false, &cfg), Some(1));
    assert_eq!(first_level(ms(250), ms(250), false, &cfg), Some(2));
    assert_eq!(first_level(ms(20), ms(600), false, &cfg), None);
}

/// B after a handshake with A (isn_a), and the wave id / first sequence number it expects.
fn receiver_b(isn_a: u16) -> (WwpEndpoint, Time, u8) {
    let (_, b, now) = established_pair(&WwpConfig::default(), isn_a, 7);
    assert_eq!(b.state(), WwpState::Established);
    (b, now, (isn_a as u8) & 0x3f)
}

/// Feed B a wave of `level` with sequence indices `seqs` (relative to `isn`), 10 ms apart.
fn feed_wave(b: &mut WwpEndpoint, t: Time, isn: u16, level: u8, wid: u8, seqs: impl IntoIterator<Item = u16>) -> Time {
    let mut t = t;
    for n in seqs {
        b.handle_segment(t, &seg(WwpType::Data, isn.wrapping_add(n), level, wid, &[n as u8; 1024])).unwrap();
        t += ms(10);
    }
    t
}

#[test]
fn rec_t_terminated_waves_go_3_to_1_2_to_0_1_to_0() {
    for (level, next) in [(3u8, 1u8), (2, 0), (1, 0)] {
        let (mut b, now, wid) = receiver_b(100);
        let w = 12 * u16::from(level);
        let t0 = now + ms(5);
        feed_wave(&mut b, t0, 100, level, wid, (0..w).filter(|&n| n != 3));
        assert!(drain(&mut b, t0 + ms(1500)).is_empty(), "no N-S_ACK before REC_T");
        assert_eq!(b.poll_timeout(), Some(t0 + Duration::from_secs(2)));
        b.handle_timeout(t0 + Duration::from_secs(2));
        let out = drain(&mut b, t0 + Duration::from_secs(2));
        assert_eq!(out.len(), 1, "one N-S_ACK per wave");
        let (kind, _, lvl, nwid, list) = &out[0];
        assert_eq!((*kind, *lvl, *nwid), (WwpType::NsAck, next, (wid + 1) & 63), "level {level}");
        assert_eq!(list, &vec![103, 100 + w], "missing segment, then the terminator");
        assert_eq!(b.stats().rec_t_expiries, 1);
    }
}

#[test]
fn lossless_on_time_wave_goes_to_3() {
    let (mut b, now, wid) = receiver_b(4000);
    // 36 segments in 350 ms, well inside B(3) = 875 ms; the level-1 wave is also on time.
    for start_level in [1u8, 3] {
        let mut b2 = b.clone();
        let w = 12 * u16::from(start_level);
        feed_wave(&mut b2, now, 4000, start_level, wid, 0..w);
        let out = drain(&mut b2, now + ms(400));
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].0, out[0].2), (WwpType::NsAck, 3));
        assert_eq!(out[0].4, vec![(4000 + w) & 0xfff], "nothing missing: only the terminator");
    }
    // A slow level-3 wave (36 segments over 1.4 s, T ≈ 1.4 s ∈ (B, 2B]) goes to 2.
    let mut t = now;
    for n in 0..36u16 {
        b.handle_segment(t, &seg(WwpType::Data, 4000 + n, 3, wid, &[0; 1024])).unwrap();
        t += ms(40);
    }
    assert_eq!(drain(&mut b, t)[0].2, 2);
}

#[test]
fn nack_terminator_is_the_next_new_sequence_when_the_tail_is_lost() {
    let (mut b, now, wid) = receiver_b(4090);
    // Wave 1 (level 3): the last three segments are lost; sequence numbers wrap past 4095.
    let t = feed_wave(&mut b, now, 4090, 3, wid, 0..33);
    b.handle_timeout(now + Duration::from_secs(2));
    let out = drain(&mut b, t + Duration::from_secs(2));
    let wire = |n: u16| (4090 + n) & 0xfff;
    assert_eq!(out[0].4, vec![wire(33), wire(34), wire(35), wire(36)]);
    assert_eq!(out[0].2, 1, "REC_T at level 3 gives level 1");
    // Wave 2 (level 1): the three retransmissions first, then 9 new; its tail (two new) lost.
    let wid2 = out[0].3;
    let t2 = now + Duration::from_secs(3);
    feed_wave(&mut b, t2, 4090, 1, wid2, [33, 34, 35, 36, 37, 38, 39, 40, 41, 42]);
    b.handle_timeout(t2 + Duration::from_secs(2));
    let out = drain(&mut b, t2 + Duration::from_secs(2));
    assert_eq!(out[0].4, vec![wire(43), wire(44), wire(45)], "terminator 45 = 36 + 12 − 3");
}

#[test]
fn sender_builds_waves_retransmissions_first_and_segments_are_1030_bytes() {
    let cfg = WwpConfig::default();
    let (mut a, _b, now) = established_pair(&cfg, 10, 20);
    assert_eq!(a.send_level(), 3);
    assert_eq!(a.write(&vec![1u8; 100 * 1024]), 40 * 1024, "the sender buffer holds 40 segments");
    let mut buf = Vec::new();
    let mut seqs = Vec::new();
    while let Some(t) = a.poll_segment(now, &mut buf) {
        assert_eq!((t.kind, t.len), (WwpType::Data, 1030));
        seqs.push(decode_wwp(&buf).unwrap().header.seq);
    }
    assert_eq!(seqs, (10..46).collect::<Vec<_>>());
    // N-S_ACK: 12 and 15 missing, next level 2: the wave is 12, 15, then 22 new (46..68)...
    let wid = ((10u8 & 63) + 1) & 63;
    a.handle_segment(now + ms(50), &nack_seg(WwpType::NsAck, 0, 2, wid, &[12, 15, 46])).unwrap();
    assert_eq!(a.write(&vec![2u8; 100 * 1024]), 34 * 1024, "acknowledged segments before 12 freed");
    let out = drain(&mut a, now + ms(50));
    let data: Vec<u16> = out.iter().filter(|s| s.0 == WwpType::Data).map(|s| s.1).collect();
    let mut want = vec![12, 15];
    want.extend(46..68);
    assert_eq!(data, want);
    assert!(out.iter().all(|s| s.2 == 2 && s.3 == wid));
}

#[test]
fn sender_falls_back_to_the_highest_feasible_level_and_waits_below_12() {
    let cfg = WwpConfig::default();
    let (mut a, _b, now) = established_pair(&cfg, 0, 0);
    a.write(&vec![0u8; 11 * 1024]);
    assert!(drain(&mut a, now).is_empty(), "fewer than 12 segments: wait");
    a.write(&vec![0u8; 14 * 1024]);
    let out = drain(&mut a, now);
    assert_eq!(out.len(), 24);
    assert!(out.iter().all(|s| s.2 == 2), "25 segments at level 3 requested: a level-2 wave");
}

#[test]
fn probe_cycle_ignores_stale_ns_acks_and_duplicate_probe_acks() {
    let cfg = WwpConfig::default();
    let (mut a, _b, now) = established_pair(&cfg, 64, 0);
    a.write(&vec![0u8; 36 * 1024]);
    assert_eq!(drain(&mut a, now).len(), 36);
    let next_wid = 1u8; // wave 0 (64 & 63) was sent
    // SEND_T expires: PROBE1 with level 0 and the next wave id.
    let t1 = now + Duration::from_secs(1);
    assert_eq!(a.poll_timeout(), Some(t1));
    a.handle_timeout(t1);
    let p1 = drain(&mut a, t1);
    assert_eq!(p1.len(), 1);
    let (kind, id1, lvl, wid, _) = p1[0].clone();
    assert_eq!((kind, lvl, wid), (WwpType::Probe1, 0, next_wid));
    // SEND_T again without PROBE_ACK: a fresh id.
    let t2 = t1 + Duration::from_secs(1);
    a.handle_timeout(t2);
    let id2 = drain(&mut a, t2)[0].1;
    assert_ne!(id1, id2);
    // The late N-S_ACK of the wave is ignored now.
    let stale = a.stats().stale_ignored;
    a.handle_segment(t2 + ms(10), &nack_seg(WwpType::NsAck, 0, 3, next_wid, &[100])).unwrap();
    assert_eq!(a.stats().stale_ignored, stale + 1);
    assert_eq!(a.send_state(), SendState::Probing);
    // A PROBE_ACK for the first PROBE1 of this cycle is good: PROBE2 echoes its id.
    a.handle_segment(t2 + ms(20), &seg(WwpType::ProbeAck, id1, 0, next_wid, &[])).unwrap();
    let p2 = drain(&mut a, t2 + ms(20));
    assert_eq!((p2[0].0, p2[0].1), (WwpType::Probe2, id1));
    // Duplicate PROBE_ACKs (same or the other id) are ignored.
    for id in [id1, id2] {
        a.handle_segment(t2 + ms(30), &seg(WwpType::ProbeAck, id, 0, next_wid, &[])).unwrap();
        assert!(drain(&mut a, t2 + ms(30)).is_empty());
    }
    assert_eq!(a.stats().stale_ignored, stale + 3);
    // A P-S_ACK with another id is stale; the right one ends the cycle with level 1.
    a.handle_segment(t2 + ms(40), &nack_seg(WwpType::PsAck, id2, 1, next_wid, &[100])).unwrap();
    assert_eq!(a.send_state(), SendState::Probing);
    a.handle_segment(t2 + ms(40), &nack_seg(WwpType::PsAck, id1, 1, next_wid, &[64 + 30, 100])).unwrap();
    assert_eq!(a.send_state(), SendState::Ready);
    assert_eq!(a.stats().probe_cycles, 1);
    // ... and a late N-S_ACK after the cycle changes nothing either.
    a.handle_segment(t2 + ms(45), &nack_seg(WwpType::NsAck, 0, 3, next_wid, &[100])).unwrap();
    assert_eq!(a.send_level(), 1);
}

#[test]
fn probe2_timeout_abandons_the_cycle_and_level_0_pauses_before_probing() {
    let cfg = WwpConfig::default();
    let (mut a, _b, now) = established_pair(&cfg, 0, 0);
    a.write(&vec![0u8; 36 * 1024]);
    drain(&mut a, now);
    // N-S_ACK with level 0: pause 1 s, then PROBE1.
    a.handle_segment(now + ms(100), &nack_seg(WwpType::NsAck, 0, 0, 1, &[36])).unwrap();
    assert_eq!(a.send_state(), SendState::Pause { until: now + ms(1100) });
    assert!(drain(&mut a, now + ms(100)).is_empty());
    a.write(&vec![0u8; 36 * 1024]);
    a.handle_timeout(now + ms(1100));
    let p = drain(&mut a, now + ms(1100));
    assert_eq!(p[0].0, WwpType::Probe1);
    a.handle_segment(now + ms(1200), &seg(WwpType::ProbeAck, p[0].1, 0, 1, &[])).unwrap();
    assert_eq!(drain(&mut a, now + ms(1200))[0].0, WwpType::Probe2);
    a.handle_timeout(now + ms(2200));
    let again = drain(&mut a, now + ms(2200));
    assert_eq!(again[0].0, WwpType::Probe1, "P-S_ACK missing: a new cycle");
    assert_ne!(again[0].1, p[0].1);
    assert_eq!(a.stats().probe_cycles, 2);
}

#[test]
fn receiver_answers_probes_with_rtt_and_ignores_probe1_during_a_wave() {
    let (mut b, now, wid) = receiver_b(0);
    b.handle_segment(now, &seg(WwpType::Probe1, 77, 0, wid, &[])).unwrap();
    let out = drain(&mut b, now);
    assert_eq!((out[0].0, out[0].1), (WwpType::ProbeAck, 77));
    b.handle_segment(now + ms(20), &seg(WwpType::Probe2, 77, 0, wid, &[])).unwrap();
    let out = drain(&mut b, now + ms(20));
    assert_eq!((out[0].0, out[0].1, out[0].2), (WwpType::PsAck, 77, 3), "RTT 20 ms = the handshake's");
    assert_eq!(out[0].4, vec![0], "nothing missing, terminator = first segment");
    // Once a DATA of the next wave arrived, PROBE1s are ignored.
    b.handle_segment(now + ms(30), &seg(WwpType::Data, 0, 3, wid, &[0; 1024])).unwrap();
    b.handle_segment(now + ms(40), &seg(WwpType::Probe1, 78, 0, wid, &[])).unwrap();
    assert!(drain(&mut b, now + ms(40)).is_empty());
}

/// A lossy level-3 wave (segment 3 lost) and the sender's PROBE1 at SEND_T (1 s), before REC_T
/// (2 s): answered under the paper's literal rule (the default), whose PROBE2 then ends the wave
/// with a P-S_ACK listing the lost segment (and no N-S_ACK at REC_T); ignored under the
/// alternative reading, `ProbeInWave::Ignore`.
#[test]
fn literal_probe_rule_answers_probe1_during_a_lossy_wave_and_probe2_ends_it() {
    assert_eq!(WwpConfig::default().probe_in_wave, ProbeInWave::Answer, "the paper's literal rule is the default");
    let ignore = WwpConfig { probe_in_wave: ProbeInWave::Ignore, ..WwpConfig::default() };
    for (cfg, answers) in [(ignore, false), (WwpConfig::default(), true)] {
        let (_, mut b, now) = established_pair(&cfg, 100, 7);
        let wid = 100u8 & 0x3f;
        let next = (wid + 1) & 63;
        let t0 = now + ms(5);
        feed_wave(&mut b, t0, 100, 3, wid, (0..36).filter(|&n| n != 3));
        let tp = t0 + Duration::from_secs(1);
        b.handle_segment(tp, &seg(WwpType::Probe1, 500, 0, next, &[])).unwrap();
        let out = drain(&mut b, tp);
        b.handle_segment(tp + ms(20), &seg(WwpType::Probe2, 500, 0, next, &[])).unwrap();
        let out2 = drain(&mut b, tp + ms(20));
        let rec_t = t0 + Duration::from_secs(2);
        b.handle_timeout(rec_t);
        let out3 = drain(&mut b, rec_t);
        if !answers {
            assert!(out.is_empty() && out2.is_empty(), "probes ignored while the wave arrives");
            assert_eq!(out3.len(), 1, "REC_T ends the wave");
            assert_eq!((out3[0].0, out3[0].2, &out3[0].4), (WwpType::NsAck, 1, &vec![103, 136]));
            assert_eq!((b.stats().rec_t_expiries, b.stats().probe_ended_waves), (1, 0));
            continue;
        }
        assert_eq!((out.len(), out[0].0, out[0].1), (1, WwpType::ProbeAck, 500));
        assert_eq!(out2.len(), 1);
        let (kind, id, level, nwid, list) = &out2[0];
        assert_eq!((*kind, *id, *level, *nwid), (WwpType::PsAck, 500, 3, next), "level from the 20 ms RTT");
        assert_eq!(list, &vec![103, 136], "the lost segment, then the terminator");
        assert!(out3.is_empty(), "the wave is over: no N-S_ACK at REC_T");
        assert_eq!((b.stats().rec_t_expiries, b.stats().probe_ended_waves), (0, 1));
        // Once DATA of the probed wave arrives, PROBE1s naming it are ignored again.
        let t1 = tp + ms(40);
        b.handle_segment(t1, &seg(WwpType::Data, 103, 3, next, &[3; 1024])).unwrap();
        b.handle_segment(t1 + ms(1), &seg(WwpType::Probe1, 501, 0, next, &[])).unwrap();
        assert!(drain(&mut b, t1 + ms(1)).is_empty());
    }
}

/// Table 1 of the paper: (original data, receiver overhead, sender bytes, published EO).
const TABLE1: [(&str, u64, u64, u64, f64); 14] = [
    ("1.1 TCP", 881_996, 15_928, 936_202, 0.08),
    ("1.2 WWP", 6_387_712, 1_617, 6_507_656, 0.019),
    ("2.1 TCP", 811_096, 14_828, 861_428, 0.08),
    ("2.2 WWP", 5_551_104, 1_662, 5_803_805, 0.046),
    ("3.1 TCP", 333_230, 6_068, 425_712, 0.296),
    ("3.2 WWP", 143_360, 590, 185_645, 0.299),
    ("4.1 TCP", 506_226, 9_128, 530_686, 0.066),
    ("4.2 WWP", 5_408_768, 1_459, 5_556_645, 0.028),
    ("5.1 TCP", 479_284, 8_628, 530_686, 0.125),
    ("5.2 WWP", 5_581_824, 1_789, 5_816_213, 0.042),
    ("6.1 TCP", 1_024_200, 14_908, 1_093_168, 0.081),
    ("6.2 WWP", 1_119_232, 763, 1_185_978, 0.06),
    ("7.1 TCP", 1_024_000, 14_628, 1_044_276, 0.034),
    ("7.2 WWP", 23_012_352, 4_694, 23_189_859, 0.007),
];

#[test]
fn effort_overhead_recomputed_from_table_1_matches_all_14_values() {
    for (test, orig, recv, sender, eo) in TABLE1 {
        let recomputed = crate::metrics::effort_overhead(sender, recv, orig).unwrap();
        assert!((recomputed - eo).abs() <= 0.001, "{test}: {recomputed:.4} vs {eo}");
    }
    // The derived Total column of the notes.
    assert_eq!(TABLE1.map(|r| r.3 + r.2)[13], 23_194_553);
    assert_eq!(TABLE1.map(|r| r.3 + r.2)[0], 952_130);
}

// ---------------------------------------------------------------------------------------------
// An in-test network: two endpoints, a rate-limited link per direction with a fixed delay and a
// deterministic drop rule.

type DropRule = Box<dyn FnMut(bool, u64, WwpType) -> bool>;

struct Net {
    a: WwpEndpoint,
    b: WwpEndpoint,
    now: Time,
    delay: Duration,
    rate: u64,
    /// (arrival, to_b, bytes)
    flight: Vec<(Time, bool, Vec<u8>)>,
    link_free: [Time; 2],
    sent: [u64; 2],
    drop: DropRule,
    src: Vec<u8>,
    src_pos: usize,
    sink: Vec<u8>,
    close_when_written: bool,
}

impl Net {
    fn new(a: WwpEndpoint, b: WwpEndpoint, delay: Duration, rate: u64, drop: DropRule) -> Net {
        Net {
            a,
            b,
            now: Time::ZERO,
            delay,
            rate,
            flight: Vec::new(),
            link_free: [Time::ZERO; 2],
            sent: [0; 2],
            drop,
            src: Vec::new(),
            src_pos: 0,
            sink: Vec::new(),
            close_when_written: true,
        }
    }

    fn pump(&mut self) {
        let mut buf = Vec::new();
        // Application: A writes, B reads.
        if self.src_pos < self.src.len() {
            self.src_pos += self.a.write(&self.src[self.src_pos..]);
            if self.src_pos == self.src.len() && self.close_when_written {
                self.a.close();
                self.b.close();
            }
        }
        let mut tmp = [0u8; 3000];
        loop {
            let n = self.b.read(&mut tmp);
            if n == 0 {
                break;
            }
            self.sink.extend_from_slice(&tmp[..n]);
        }
        for to_b in [true, false] {
            loop {
                let ep = if to_b { &mut self.a } else { &mut self.b };
                let Some(t) = ep.poll_segment(self.now, &mut buf) else { break };
                let d = usize::from(!to_b);
                let idx = self.sent[d];
                self.sent[d] += 1;
                let start = self.link_free[d].max(self.now);
                let done = start + Duration::transmission(t.len as u64, self.rate * 8);
                self.link_free[d] = done;
                if !(self.drop)(to_b, idx, t.kind) {
                    self.flight.push((done + self.delay, to_b, buf.clone()));
                }
            }
        }
    }

    /// Run until `done` or `limit`; returns whether `done` held.
    fn run(&mut self, limit: Time, done: impl Fn(&Net) -> bool) -> bool {
        loop {
            self.pump();
            if done(self) {
                return true;
            }
            let next = [
                self.flight.iter().map(|f| f.0).min(),
                self.a.poll_timeout(),
                self.b.poll_timeout(),
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(next) = next else { return false };
            if next > limit {
                return false;
            }
            self.now = self.now.max(next);
            let now = self.now;
            let mut i = 0;
            while i < self.flight.len() {
                if self.flight[i].0 <= now {
                    let (_, to_b, bytes) = self.flight.swap_remove(i);
                    let ep = if to_b { &mut self.b } else { &mut self.a };
                    ep.handle_segment(now, &bytes).unwrap();
                } else {
                    i += 1;
                }
            }
            for ep in [&mut self.a, &mut self.b] {
                if ep.poll_timeout().is_some_and(|t| t <= now) {
                    ep.handle_timeout(now);
                }
            }
        }
    }
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + i / 1024) as u8).collect()
}

#[test]
fn handshake_survives_the_loss_of_any_one_of_its_six_messages() {
    let order = [
        (true, WwpType::Syn),
        (false, WwpType::SynAck1),
        (true, WwpType::SynAck1),
        (false, WwpType::Syn),
        (true, WwpType::SynAck2),
        (false, WwpType::DWait),
    ];
    for (lost, &lost_msg) in order.iter().enumerate() {
        let cfg = WwpConfig::default();
        let a = WwpEndpoint::connect(cfg.clone(), 5, Time::ZERO).unwrap();
        let b = WwpEndpoint::listen(cfg, 9, Time::ZERO).unwrap();
        let mut seen = 0;
        let drop: DropRule = Box::new(move |to_b, _, kind| {
            let is_hs = matches!(kind, WwpType::Syn | WwpType::SynAck1 | WwpType::SynAck2 | WwpType::DWait);
            if !is_hs {
                return false;
            }
            seen += 1;
            seen - 1 == lost && (to_b, kind) == lost_msg
        });
        let mut net = Net::new(a, b, ms(10), 1_000_000, drop);
        let ok = net.run(Time::ZERO + Duration::from_secs(10), |n| {
            n.a.state() == WwpState::Established && n.b.state() == WwpState::Established
        });
        assert!(ok, "message {} ({:?}) lost: A {:?} B {:?}", lost + 1, lost_msg, net.a.state(), net.b.state());
        // A loss before B's decision repeats a message and forces level 1; a lost D_WAIT comes
        // after it and is simply sent again with the level B chose.
        let want = if lost == 5 { 3 } else { 1 };
        assert_eq!(net.a.send_level(), want, "lost message {}", lost + 1);
    }
    // Without loss the first level follows the RTT (20 ms ≪ the 500 ms threshold).
    let (a, b, _) = established_pair(&WwpConfig::default(), 5, 9);
    assert_eq!((a.send_level(), b.send_level()), (3, 3));
}

#[test]
fn handshake_is_postponed_after_two_lost_syns_and_abandoned_above_the_threshold() {
    let cfg = WwpConfig::default();
    let a = WwpEndpoint::connect(cfg.clone(), 5, Time::ZERO).unwrap();
    let b = WwpEndpoint::listen(cfg.clone(), 9, Time::ZERO).unwrap();
    let mut net = Net::new(a, b, ms(10), 1_000_000, Box::new(|to_b, _, k| to_b && k == WwpType::Syn));
    net.run(Time::ZERO + Duration::from_secs(10), |n| matches!(n.a.state(), WwpState::Failed(_)));
    assert_eq!(net.a.state(), WwpState::Failed(WwpFailure::Handshake(HandshakeFailure::Postponed)));
    assert_eq!(net.a.stats().sent(WwpType::Syn), 2, "one retry");

    let a = WwpEndpoint::connect(cfg.clone(), 5, Time::ZERO).unwrap();
    let b = WwpEndpoint::listen(cfg, 9, Time::ZERO).unwrap();
    let mut net = Net::new(a, b, ms(300), 1_000_000, Box::new(|_, _, _| false));
    net.run(Time::ZERO + Duration::from_secs(10), |n| matches!(n.a.state(), WwpState::Failed(_)));
    assert_eq!(net.a.state(), WwpState::Failed(WwpFailure::Handshake(HandshakeFailure::Abandoned)));
}

fn transfer(isn_a: u16, bytes: usize, delay: Duration, drop: DropRule, limit_s: u64) -> Net {
    let cfg = WwpConfig::default();
    let a = WwpEndpoint::connect(cfg.clone(), isn_a, Time::ZERO).unwrap();
    let b = WwpEndpoint::listen(cfg, 2000, Time::ZERO).unwrap();
    let mut net = Net::new(a, b, delay, 100 * 1024, drop);
    net.src = pattern(bytes);
    let ok = net.run(Time::ZERO + Duration::from_secs(limit_s), |n| {
        n.a.state() == WwpState::Closed && n.b.state() == WwpState::Closed
    });
    assert!(
        ok,
        "transfer stuck at {}: A {:?}/{:?}, B {:?}, {} of {} bytes",
        net.now,
        net.a.state(),
        net.a.send_state(),
        net.b.state(),
        net.sink.len(),
        bytes
    );
    assert_eq!(net.sink.len(), bytes);
    assert!(net.sink == net.src, "data intact");
    net
}

#[test]
fn end_to_end_200_kb_with_fixed_delay_and_every_10th_segment_dropped() {
    let net = transfer(
        321,
        200 * 1024 + 100,
        ms(25),
        Box::new(|_, idx, _| idx % 10 == 9),
        3600,
    );
    let (sa, sb) = (net.a.stats(), net.b.stats());
    assert_eq!(sb.delivered_bytes, 200 * 1024 + 100);
    assert_eq!(sa.original_data_bytes, 200 * 1024 + 100);
    assert!(sa.retransmitted_segments > 0 && sb.nacked_segments > 0);
    assert!(sa.sender_bytes > sa.original_data_bytes);
    assert!(sb.receiver_overhead_bytes > 0);
    assert!(sa.probe_cycles > 0, "losses lead to level 0 and probing");
    assert!(sb.rec_t_expiries > 0);
    assert!(sa.waves_sent.iter().sum::<u64>() > 0);
}

#[test]
fn end_to_end_lossless_transfer_stays_at_level_3() {
    let net = transfer(0, 400 * 1024, ms(10), Box::new(|_, _, _| false), 600);
    let s = net.a.stats();
    assert_eq!(s.retransmitted_segments, 0);
    assert_eq!(s.probe_cycles, 0);
    assert!(s.waves_sent[3] >= 10, "{:?}", s.waves_sent);
    assert_eq!(net.b.stats().level_decisions[0..3], [0, 0, 0]);
}

#[test]
fn twelve_bit_wrap_around_transfer() {
    // 4600 segments from ISN 4000: the wire numbers wrap through 4095 → 0 early, and the
    // unwrapped index later passes 4096 (a full lap); every 37th segment A → B is lost.
    transfer(4000, 4600 * 1024, ms(5), Box::new(|to_b, idx, _| to_b && idx % 37 == 36), 36_000);
}

#[test]
fn full_duplex_both_directions_deliver() {
    let cfg = WwpConfig::default();
    let (mut a, mut b, mut now) = established_pair(&cfg, 1, 2);
    let (da, db) = (pattern(50 * 1024), pattern(30 * 1024 + 5));
    let (mut pa, mut pb) = (0, 0);
    let (mut ra, mut rb) = (Vec::new(), Vec::new());
    let mut buf = Vec::new();
    let mut tmp = [0u8; 2048];
    for _ in 0..20_000 {
        pa += a.write(&da[pa..]);
        pb += b.write(&db[pb..]);
        if pa == da.len() {
            a.close();
        }
        if pb == db.len() {
            b.close();
        }
        while a.poll_segment(now, &mut buf).is_some() {
            b.handle_segment(now + ms(5), &buf).unwrap();
        }
        while b.poll_segment(now, &mut buf).is_some() {
            a.handle_segment(now + ms(5), &buf).unwrap();
        }
        loop {
            let n = a.read(&mut tmp);
            ra.extend_from_slice(&tmp[..n]);
            let m = b.read(&mut tmp);
            rb.extend_from_slice(&tmp[..m]);
            if n + m == 0 {
                break;
            }
        }
        if a.state() == WwpState::Closed && b.state() == WwpState::Closed {
            break;
        }
        now += ms(10);
        a.handle_timeout(now);
        b.handle_timeout(now);
    }
    assert_eq!((a.state(), b.state()), (WwpState::Closed, WwpState::Closed));
    assert!(rb == da && ra == db);
}

// ---------------------------------------------------------------------------------------------
// Property tests: a seeded loop (wattlab-core has no proptest dev-dependency).

struct SplitMix(u64);
impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn property_decoder_and_receiver_on_arbitrary_bytes() {
    let mut rng = SplitMix(0x5eed_0004);
    for _ in 0..300 {
        let len = rng.below(400) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        crate::wire::wwp::decode_wwp(&bytes).ok();
        super::fuzz::exercise(&bytes);
    }
}

#[test]
fn property_receiver_delivers_in_order_without_duplicates() {
    let mut rng = SplitMix(0x0004_0018);
    let isn_a = 4000u16;
    for round in 0..40 {
        let (_, mut b, mut now) = established_pair(&WwpConfig::default(), isn_a, 1);
        let wid0 = (isn_a as u8) & 63;
        let mut next_read = 0u32;
        let mut tmp = [0u8; 1024];
        for _ in 0..600 {
            let n = rng.below(400) as u16;
            let kinds = [WwpType::Data, WwpType::Data, WwpType::Data, WwpType::Probe1, WwpType::Probe2, WwpType::Fin, WwpType::NsAck];
            let kind = kinds[rng.below(kinds.len() as u64) as usize];
            let mut payload = [0u8; 1024];
            payload[..4].copy_from_slice(&u32::from(n).to_be_bytes());
            let bytes = match kind {
                WwpType::Data => seg(kind, isn_a.wrapping_add(n), rng.below(4) as u8, wid0.wrapping_add(rng.below(4) as u8), &payload),
                WwpType::NsAck => nack_seg(kind, 0, 3, 0, &[rng.below(4096) as u16]),
                WwpType::Fin if rng.below(10) != 0 => continue,
                _ => seg(kind, isn_a.wrapping_add(n), 0, wid0.wrapping_add(rng.below(4) as u8), &[]),
            };
            now += ms(rng.below(300));
            b.handle_segment(now, &bytes).unwrap();
            if b.poll_timeout().is_some_and(|t| t <= now) {
                b.handle_timeout(now);
            }
            drain(&mut b, now);
            if rng.below(3) == 0 {
                while b.read(&mut tmp) == 1024 {
                    let got = u32::from_be_bytes(tmp[..4].try_into().unwrap());
                    assert_eq!(got, next_read, "round {round}: in order, no duplicates");
                    next_read += 1;
                }
            }
        }
        assert!(b.stats().delivered_bytes == u64::from(next_read) * 1024);
    }
}

#[test]
fn config_validation() {
    assert!(WwpConfig::default().validate().is_ok());
    let bad = WwpConfig { send_buffer_segments: 30, ..WwpConfig::default() };
    assert!(bad.validate().is_err(), "a level-3 wave must fit");
    let bad = WwpConfig { recv_buffer_segments: 20, ..WwpConfig::default() };
    assert!(WwpEndpoint::listen(bad, 0, Time::ZERO).is_err());
}

#[test]
fn each_state_has_its_report_name() {
    // The names the simulator's columns and the live host's report print (`WwpState::name`).
    let names = [WwpState::Handshaking, WwpState::Established, WwpState::Closed, WwpState::Failed(WwpFailure::Idle)].map(WwpState::name);
    assert_eq!(names, ["handshaking", "established", "closed", "failed"]);
}
