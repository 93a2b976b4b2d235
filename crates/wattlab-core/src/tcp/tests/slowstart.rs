//! CUBIC's slow-start exits (`hystart`) and receive-window autotuning (`autotune`) on a
//! connection pair.

use super::*;
use crate::tcp::cc::HyStartMode;

/// A 20 Mb/s bottleneck (unbounded FIFO) with 20 ms each way: the BDP is 100 kB (69 segments of
/// 1448 B). Returns a's ssthresh and SRTT after `secs` of a bulk send (the SRTT measures the
/// standing queue), and the pair.
fn cubic_over_bottleneck(hystart: HyStartMode, secs: f64) -> (u32, Duration, Harness) {
    let cfg = TcpConfig { congestion_control: CongestionControlKind::Cubic, hystart, initial_cwnd: 10, ..big_window() };
    let mut h = Harness::new(cfg, big_window(), 10, 20, ms(20));
    h.rate_bps = Some(20_000_000);
    h.a.send(100_000_000);
    h.run_until(Time::from_secs_f64(secs));
    let srtt = h.a.srtt().expect("srtt");
    (h.a.ssthresh(), srtt, h)
}

#[test]
fn linux_hystart_leaves_slow_start_near_the_bdp_before_the_queue_grows() {
    let (off, off_srtt, _) = cubic_over_bottleneck(HyStartMode::Off, 3.0);
    assert_eq!(off, u32::MAX, "without HyStart slow start runs on into the (unbounded) queue");
    let (ss, srtt, h) = cubic_over_bottleneck(HyStartMode::Linux, 3.0);
    let bdp = 20_000_000 / 8 * 40 / 1000; // 100 kB
    assert!(ss >= bdp / 2 && ss <= 3 * bdp, "ssthresh {ss} B vs BDP {bdp} B");
    let hs = h.a.congestion_control().cubic().and_then(|c| c.hystart()).expect("hystart").stats();
    assert_eq!(hs.train_exits + hs.delay_exits, 1, "{hs:?}");
    // The standing queue is far shorter: SRTT within a few RTTs of the 40 ms base.
    assert!(srtt.as_nanos() * 4 < off_srtt.as_nanos(), "SRTT {srtt:?} with HyStart vs {off_srtt:?} without");
    assert_eq!(h.a.stats().retransmitted_segments, 0);
}

#[test]
fn hystart_pp_uses_css_then_leaves_slow_start() {
    let (ss, srtt, h) = cubic_over_bottleneck(HyStartMode::HyStartPlusPlus, 3.0);
    let (_, off_srtt, _) = cubic_over_bottleneck(HyStartMode::Off, 3.0);
    let hs = h.a.congestion_control().cubic().and_then(|c| c.hystart()).expect("hystart").stats();
    assert!(hs.css_entries >= 1, "{hs:?}");
    assert_eq!(hs.delay_exits, 1, "five CSS rounds end slow start: {hs:?}");
    assert!(ss < u32::MAX);
    assert!(srtt < off_srtt, "SRTT {srtt:?} with HyStart++ vs {off_srtt:?} without");
}

/// b's advertised window (bytes) in each 40 ms RTT of a bulk transfer to it, the largest seen.
fn windows_per_rtt(autotune: bool, ceiling: u32) -> (Vec<u64>, Harness) {
    let a_cfg = TcpConfig { initial_cwnd: 10, ..big_window() };
    let b_cfg = TcpConfig { autotune, recv_buffer: ceiling, window_scale: Some(10), mss: 1460, ..Default::default() };
    let mut h = Harness::new(a_cfg, b_cfg, 10, 20, ms(20));
    h.a.send(8_000_000);
    h.a.close();
    h.run_until(Time::from_secs_f64(20.0));
    assert_eq!(h.b.stats().bytes_read, 8_000_000);
    let rtt = ms(40);
    let mut per_rtt: Vec<u64> = Vec::new();
    for s in h.sent(B_TO_A) {
        let Some(hh) = s.pkt.tcp_header() else { continue };
        if hh.flags.contains(TcpFlags::SYN) {
            continue;
        }
        let i = (s.at.as_nanos() / rtt.as_nanos()) as usize;
        if per_rtt.len() <= i {
            per_rtt.resize(i + 1, 0);
        }
        per_rtt[i] = per_rtt[i].max((hh.window as u64) << 10);
    }
    per_rtt.retain(|&w| w > 0);
    (per_rtt, h)
}

#[test]
fn autotuned_window_doubles_per_rtt_while_the_reader_keeps_up_and_stops_at_the_ceiling() {
    let ceiling = 4 << 20;
    let (w, _) = windows_per_rtt(true, ceiling);
    assert!(w[0] <= 65_536 + 1024, "starts near 64 KB: {w:?}");
    let at_ceiling = w.iter().position(|&x| x + 1024 >= ceiling as u64).expect("reaches the ceiling");
    // 64 KB → 4 MiB is 6 doublings: a sender in slow start gets there in 6..=10 RTTs.
    assert!((6..=10).contains(&at_ceiling), "{at_ceiling} RTTs: {w:?}");
    for pair in w[1..at_ceiling].windows(2) {
        let g = pair[1] as f64 / pair[0] as f64;
        assert!((1.2..=3.0).contains(&g), "growth {g:.2} per RTT: {w:?}");
    }
    assert!(w.iter().all(|&x| x <= ceiling as u64 + 1024), "never above the ceiling");
    // Off: the whole buffer from the first ACK.
    let (w, _) = windows_per_rtt(false, ceiling);
    assert!(w[0] + 1024 >= ceiling as u64, "{w:?}");
}

#[test]
fn linux_hystart_counts_rounds_below_the_low_window_so_the_train_starts_with_a_burst() {
    // The live grid's 20 Mb/s, 20 ms path with the linux profile (3 MiB window): Linux's
    // hystart_update ends a round (an ACK past its snd_nxt) before its low-window test, so
    // each round starts with the ACK that follows an RTT's gap and the ACK train runs
    // unbroken for (delay_min + ack delay)/2 = 10.8 ms: slow start ends near the 34-segment
    // BDP, as live Linux did (flight ~39 segments, 2026-11-28 grid seed 1). Counting rounds
    // only from cwnd 16 put their starts before a gap and the exit at 84 segments.
    for every_segment in [false, true] {
        let mut cfg = crate::tcp::TcpProfile::Linux.config();
        (cfg.autotune, cfg.recv_buffer, cfg.window_scale) = (false, 3 << 20, Some(6));
        let mut b = cfg.clone();
        b.delayed_ack = !every_segment;
        let mut h = Harness::new(cfg, b, 10, 20, ms(10));
        h.rate_bps = Some(20_000_000);
        h.a.send(100_000_000);
        h.run_until(Time::from_secs_f64(1.0));
        let hs = h.a.congestion_control().cubic().and_then(|c| c.hystart()).expect("hystart").stats();
        let ss = h.a.ssthresh() / 1448;
        assert_eq!((hs.train_exits, hs.delay_exits), (1, 0), "ACK every segment: {every_segment}");
        assert!((30..=45).contains(&ss), "ssthresh {ss} segments (ACK every segment: {every_segment})");
    }
}

/// b's pure ACKs and a's data segments in `[from, to)`.
fn acks_and_segments(h: &Harness, from: Time, to: Time) -> (usize, usize) {
    let inside = |t: Time| t >= from && t < to;
    let acks = h.sent(B_TO_A).filter(|s| s.pkt.payload_len == 0 && inside(s.at)).count();
    let segs = h.sent(A_TO_B).filter(|s| s.pkt.payload_len > 0 && inside(s.at)).count();
    (acks, segs)
}

/// Linux's `tcp_grow_window` sets `icsk_ack.quick |= 1` whenever a segment raises
/// rcv_ssthresh: while the autotuned window grows, the receiver ACKs every segment (as the
/// live testbed's captures show in slow start), and once the window has reached its ceiling
/// it is back to one ACK per two segments. Without `quick_ack`, one per two throughout
/// (after the 16 quick ACKs of the start).
#[test]
fn a_growing_window_is_acked_segment_by_segment() {
    let run = |quick_ack: bool| {
        let a_cfg = TcpConfig { initial_cwnd: 10, ..big_window() };
        let b_cfg = TcpConfig { autotune: true, quick_ack, recv_buffer: 512 << 10, window_scale: Some(10), mss: 1460, ..Default::default() };
        let mut h = Harness::new(a_cfg, b_cfg, 10, 20, ms(20));
        h.a.send(8_000_000);
        h.a.close();
        h.run_until(Time::from_secs_f64(20.0));
        assert_eq!(h.b.stats().bytes_read, 8_000_000);
        // The first four RTTs of data (10, 20, 40, 78 segments arriving from 40 ms on, their
        // ACKs 20 ms later: the window grows all along, by the segments that find room under
        // the clamp autotuning raises once per RTT), and a stretch at the 512 KiB ceiling
        // (reached in the fifth).
        let growing = acks_and_segments(&h, Time::ZERO + ms(40), Time::ZERO + ms(200));
        let at_ceiling = acks_and_segments(&h, Time::from_secs_f64(0.6), Time::from_secs_f64(0.9));
        (growing, at_ceiling)
    };
    let ((acks, segs), (acks_c, segs_c)) = run(true);
    assert!(segs >= 140, "{segs} segments in the first RTTs");
    // By hand: 10 quick ACKs, then 13 of 20, 38 of 40, 69 of 78 (a segment that finds the
    // clamp already reached waits for its partner); the live captures show 10, ~16 and ~39.
    let r = acks as f64 / segs as f64;
    assert!(r >= 0.8, "nearly every segment ACKed while the window grows: {acks} ACKs for {segs}");
    assert!(segs_c >= 100, "{segs_c} segments at the ceiling");
    let r = acks_c as f64 / segs_c as f64;
    assert!((0.45..=0.6).contains(&r), "one ACK per two segments at the ceiling: {acks_c}/{segs_c}");
    let ((acks_off, segs_off), _) = run(false);
    let r = acks_off as f64 / segs_off as f64;
    assert!(r <= 0.6, "without quick_ack one ACK per two segments: {acks_off}/{segs_off}");
}
