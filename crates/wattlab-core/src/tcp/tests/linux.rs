//! Linux's loss recovery options (PRR, ...) driven through a connection pair.

use super::*;

/// What a's sending looked like during its one SACK recovery after a single drop.
#[derive(Debug)]
struct RecoveryShape {
    /// Data segments (new or resent) a sent while in recovery, fast retransmit included.
    sent: usize,
    /// Most consecutive ACKs in recovery that a answered with nothing.
    longest_silence: usize,
    /// Recovery length, fast retransmit to the ACK that ended it.
    length: Duration,
    /// FlightSize at entry, ssthresh and cwnd at the exit (bytes).
    flight_at_entry: u32,
    ssthresh: u32,
    cwnd_at_exit: u32,
}

fn one_drop_recovery(prr: bool) -> (RecoveryShape, Harness) {
    let cfg = TcpConfig { prr, ..sack_cfg() };
    let mut h = Harness::new(cfg.clone(), cfg, 10, 20, ms(20));
    h.rate_bps = Some(20_000_000);
    h.drops.push((A_TO_B, 60));
    h.a.send(3_000_000);
    let limit = Time::from_secs_f64(60.0);
    h.run_while(limit, |h| !h.a.in_recovery());
    let t0 = h.now;
    let flight_at_entry = h.a.bytes_in_flight();
    h.run_while(limit, |h| h.a.in_recovery());
    let t1 = h.now;
    let shape_ssthresh = h.a.ssthresh();
    let cwnd_at_exit = h.a.cwnd();
    // A sends in response to an ACK at the instant it arrives (the harness has no host delay).
    let sends: Vec<Time> = h.sent(A_TO_B).filter(|s| s.pkt.payload_len > 0 && s.at >= t0 && s.at < t1).map(|s| s.at).collect();
    // ACKs arrive one serialization (the reverse link is idle) and one delay after they left.
    let acks = h.sent(B_TO_A).map(|s| s.at + Duration::transmission(s.pkt.ip_len() as u64, 20_000_000) + h.delay);
    let acks = acks.filter(|&t| t > t0 && t < t1);
    let (mut run, mut longest_silence) = (0, 0);
    for t in acks {
        run = if sends.contains(&t) { 0 } else { run + 1 };
        longest_silence = longest_silence.max(run);
    }
    h.a.close();
    h.run_until(limit);
    assert_eq!(h.b.stats().bytes_read, 3_000_000, "same work done");
    assert_eq!(h.a.stats().timeouts, 0);
    let shape = RecoveryShape {
        sent: sends.len(),
        longest_silence,
        length: t1 - t0,
        flight_at_entry,
        ssthresh: shape_ssthresh,
        cwnd_at_exit,
    };
    (shape, h)
}

/// RFC 6937 §1/§5: after one loss RFC 6675 sends nothing until pipe has drained from
/// FlightSize to ssthresh (cwnd = ssthresh at once), then one segment per ACK; PRR sends one
/// segment per two ACKs from the start. Both reduce to the same ssthresh, send as much in
/// recovery, and do the same work. Here FlightSize = 61 segments, ssthresh = 30.5.
#[test]
fn prr_spreads_the_window_reduction_over_the_recovery_rtt() {
    let (rfc6675, _) = one_drop_recovery(false);
    let (prr, h) = one_drop_recovery(true);
    let mss = 1448;
    assert_eq!((prr.flight_at_entry, prr.ssthresh), (61 * mss, 61 * mss / 2), "{prr:?}");
    assert_eq!((rfc6675.flight_at_entry, rfc6675.ssthresh), (prr.flight_at_entry, prr.ssthresh), "same window reduction");
    assert_eq!((prr.cwnd_at_exit, rfc6675.cwnd_at_exit), (prr.ssthresh, prr.ssthresh));
    assert_eq!((prr.length, prr.sent), (rfc6675.length, rfc6675.sent), "same recovery, same segments sent");
    // RFC 6675: silent for (FlightSize − ssthresh)/SMSS ≈ 30 deliveries, less the ACKs that
    // arrived before recovery and the SACKed-above rule's head start (measured: 28).
    assert!(rfc6675.longest_silence >= 25, "{rfc6675:?}");
    // PRR: a send on every second ACK; 2 in a row unanswered only where byte rounding carries.
    assert!(prr.longest_silence <= 2, "{prr:?}");
    assert_eq!(h.a.stats().sack_recoveries, 1);
}

/// B's pure ACKs sent in `[from, from + 49 ms)` (one burst: data arrives 20 ms after `from`).
fn acks_sent(h: &Harness, from: Time) -> usize {
    h.sent(B_TO_A).filter(|s| s.pkt.payload_len == 0 && s.at >= from && s.at < from + ms(49)).count()
}

/// Linux's quick-ACK mode (`tcp_incr_quickack`): the first data starts a run of
/// min(rcv_wnd / 2·MSS, 16) = 16 immediate ACKs; a silence longer than the RTO starts another
/// (max(left, 16) = 16); otherwise every second segment. Three bursts of 10 segments each
/// arriving together, the second after 1 s idle, the third 50 ms later: by hand 10, 10, then
/// 6 quick + 4 / 2 = 8 ACKs; delayed ACKs alone give 5 each.
#[test]
fn quick_ack_answers_the_first_16_segments_and_again_after_a_silence() {
    let run = |quick_ack: bool| {
        let cfg = TcpConfig { quick_ack, initial_cwnd: 10, ..big_window() };
        let mut h = Harness::new(cfg.clone(), cfg, 10, 20, ms(20));
        h.run_until(Time::ZERO + ms(100)); // handshake
        let mut counts = Vec::new();
        for at in [100, 1100, 1150] {
            let t = Time::ZERO + ms(at);
            h.run_until(t);
            h.a.send(10 * 1448);
            h.run_until(t + ms(49));
            counts.push(acks_sent(&h, t));
        }
        assert_eq!(h.b.stats().bytes_read, 30 * 1448);
        counts
    };
    assert_eq!(run(true), [10, 10, 8]);
    assert_eq!(run(false), [5, 5, 5]);
}

/// Linux's cwnd restart after idle (`slow_start_after_idle`, `tcp_cwnd_restart`): a first
/// burst of 100 segments from IW 10 leaves cwnd at 110 segments (slow start adds every ACKed
/// byte); the next send after an idle just over k RTOs (200 ms, the clamp: RTT 40 ms) finds it
/// halved k times in whole segments as Linux — 55, 27, 13, then the floor min(IW, cwnd) = 10 — and slow start's
/// infinite ssthresh unchanged. An idle of exactly one RTO, or the option off, changes nothing.
#[test]
fn idle_restart_halves_cwnd_per_rto_down_to_the_initial_window() {
    const MSS: u32 = 1448;
    let run = |on: bool, idle_ms: u64| {
        let cfg = TcpConfig { slow_start_after_idle: on, initial_cwnd: 10, ..big_window() };
        let mut h = Harness::new(cfg.clone(), cfg, 10, 20, ms(20));
        h.run_until(Time::ZERO + ms(100)); // handshake
        h.a.send(100 * MSS as u64);
        h.run_while(Time::ZERO + ms(2000), |h| h.a.bytes_in_flight() > 0 || h.a.unacked_bytes() > 0);
        assert_eq!(h.a.bytes_in_flight(), 0);
        assert_eq!(h.a.rto(), ms(200));
        let before = h.a.cwnd();
        let last = h.sent(A_TO_B).filter(|s| s.pkt.payload_len > 0).map(|s| s.at).max().unwrap();
        let t = last + ms(idle_ms);
        assert!(t >= h.now);
        h.run_until(t);
        h.a.send(200 * MSS as u64);
        h.run_until(t + ms(1)); // the burst left, its first ACK is 40 ms away
        let after = (h.a.cwnd(), h.a.ssthresh(), h.a.stats().idle_restarts);
        let burst_start = h.sent(A_TO_B).filter(|s| s.at >= t && s.pkt.payload_len > 0).count();
        h.run_until(t + ms(5000));
        assert_eq!(h.b.stats().bytes_read, 300 * MSS as u64);
        (before, after, burst_start)
    };
    let (before, (cwnd, ss, n), burst) = run(false, 10_000);
    assert_eq!(before, 110 * MSS, "slow start from IW 10 over 100 ACKed segments");
    assert_eq!((cwnd, ss, n, burst), (before, u32::MAX, 0, 110), "option off: the window is kept");
    assert_eq!(run(true, 200).1, (110 * MSS, u32::MAX, 0), "idle = RTO is not longer than the RTO");
    assert_eq!(run(true, 150).1, (110 * MSS, u32::MAX, 0), "idle < RTO");
    for (k, want) in [(1, 55 * MSS), (2, 27 * MSS), (3, 13 * MSS), (4, 10 * MSS), (50, 10 * MSS)] {
        let (_, (cwnd, ss, n), burst) = run(true, 200 * k + 1);
        assert_eq!((cwnd, ss, n), (want, u32::MAX, 1), "idle {k} RTOs + 1 ms");
        assert_eq!(burst as u32, want / MSS, "the burst after the idle period is the restarted window");
    }
}

/// Linux's CUBIC after idle (`cubic_idle_shift`, `cubictcp_cwnd_event(CA_EVENT_TX_START)`):
/// after a loss put CUBIC in congestion avoidance, a sender that ran dry and sends again 2 s
/// after its last data segment finds its epoch start moved later by exactly that time (the
/// kernel's `now - lsndtime`); with the option off the epoch stays and the window, whose t now
/// includes the idle time, grows faster over the next round trips.
#[test]
fn cubic_idle_shift_moves_the_epoch_by_the_time_since_the_last_send() {
    const MSS: u64 = 1448;
    let run = |shift: bool| {
        let cfg = TcpConfig { congestion_control: CongestionControlKind::Cubic, cubic_idle_shift: shift, ..sack_cfg() };
        let mut h = Harness::new(cfg.clone(), cfg, 10, 20, ms(20));
        h.rate_bps = Some(20_000_000);
        h.drops.push((A_TO_B, 60));
        h.a.send(600 * MSS);
        h.run_while(Time::ZERO + ms(5000), |h| h.a.bytes_in_flight() > 0 || h.a.unacked_bytes() > 0);
        assert_eq!(h.b.stats().bytes_read, 600 * MSS);
        let cubic = |h: &Harness| h.a.congestion_control().cubic().unwrap().epoch_start();
        let epoch = cubic(&h).expect("congestion avoidance after the loss");
        let last = h.sent(A_TO_B).filter(|s| s.pkt.payload_len > 0).map(|s| s.at).max().unwrap();
        let t = last + ms(2000);
        h.run_until(t);
        let cwnd = h.a.cwnd();
        h.a.send(2000 * MSS);
        h.run_until(t + ms(1));
        let after = cubic(&h).unwrap();
        h.run_until(t + ms(200)); // about 4 round trips (RTT 40 ms plus queueing)
        (epoch, last, t, after, cwnd, h.a.cwnd())
    };
    let (epoch, last, t, after, cwnd0, cwnd1) = run(true);
    assert!(epoch < last && after < t);
    assert_eq!(after, epoch + (t - last), "epoch shifted by now - lsndtime");
    let (epoch_off, _, _, after_off, cwnd0_off, cwnd1_off) = run(false);
    assert_eq!((epoch_off, cwnd0_off), (epoch, cwnd0), "the same run up to the idle period");
    assert_eq!(after_off, epoch_off, "option off: the epoch stays");
    assert!(cwnd1_off > cwnd1, "without the shift t counts the idle 2 s: {cwnd1_off} vs {cwnd1} (from {cwnd0})");
}

/// Data segments A sent in its first flight (before any ACK came back), and which had PSH.
fn first_flight_push(push_window_end: bool) -> Vec<bool> {
    let cfg = TcpConfig { push_window_end, initial_cwnd: 10, ..big_window() };
    let mut h = Harness::new(cfg.clone(), cfg, 10, 20, ms(20));
    h.run_until(Time::ZERO + ms(100)); // handshake
    h.a.send(100 * 1448);
    h.run_until(Time::ZERO + ms(139)); // the first ACK is back at 140 ms
    h.sent(A_TO_B).filter(|s| s.pkt.payload_len > 0).map(|s| hdr(&s.pkt).flags.contains(TcpFlags::PSH)).collect()
}

/// `push_window_end`: the segment that fills the window (the 10th of IW 10) carries PSH and
/// the others do not; off, no segment before the data's end does.
#[test]
fn push_window_end_marks_the_segment_that_fills_the_window() {
    let on = first_flight_push(true);
    assert_eq!(on.len(), 10);
    assert_eq!(on.iter().filter(|&&p| p).count(), 1, "{on:?}");
    assert!(on[9], "{on:?}");
    assert!(first_flight_push(false).iter().all(|&p| !p));
}

/// B's pure ACKs of a 12-segment first flight whose last segment A marks with PSH, and when
/// the last of them left (relative to the burst's start).
fn odd_flight_acks(ack_pushed: bool) -> (usize, Duration) {
    let a = TcpConfig { push_window_end: true, initial_cwnd: 12, ..big_window() };
    let b = TcpConfig { ack_pushed, ..big_window() }; // no quick-ACK: every second segment
    let mut h = Harness::new(a, b, 10, 20, ms(50));
    h.run_until(Time::ZERO + ms(200));
    let t = h.now;
    h.a.send(100 * 1448);
    h.run_until(t + ms(139)); // the second flight reaches B at t + 150 ms
    let acks: Vec<Time> = h.sent(B_TO_A).filter(|s| s.pkt.payload_len == 0 && s.at >= t).map(|s| s.at).collect();
    (acks.len(), acks.last().map_or(Duration::ZERO, |&l| l - t))
}

/// `ack_pushed` (Linux's `ICSK_ACK_PUSHED` + `__tcp_cleanup_rbuf`): B ACKs the flight's first
/// segment alone and then every second one, so the 12th is left over; it carries PSH and is
/// read at once, so B ACKs it on arrival (6 ACKs, the last ~50 ms after the send: one-way delay 50 ms);
/// without the rule it waits for the 40 ms delayed-ACK timer (the 6th ACK ~90 ms after).
#[test]
fn ack_pushed_acks_a_pushed_odd_segment_at_the_read() {
    let (n_on, last_on) = odd_flight_acks(true);
    let (n_off, last_off) = odd_flight_acks(false);
    assert_eq!((n_on, n_off), (7, 7));
    assert!(last_on < ms(55), "{last_on:?}");
    assert!(last_off >= ms(88) && last_off < ms(95), "{last_off:?}");
}

/// B's duplicate ACKs (pure ACKs carrying SACK blocks) while A repairs one drop at 100 Mb/s
/// (a segment every 0.12 ms), and the shortest gap between two of them after the first three.
fn dupacks_after_one_drop(sack_compress: bool) -> (usize, Duration) {
    let cfg = TcpConfig { sack_compress, ..sack_cfg() };
    let mut h = Harness::new(cfg.clone(), cfg, 10, 20, ms(20));
    h.rate_bps = Some(100_000_000);
    h.drops.push((A_TO_B, 60));
    h.a.send(3_000_000);
    h.run_until(Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, 3_000_000, "same work done");
    assert_eq!(h.a.stats().timeouts, 0);
    let dup: Vec<Time> = h.sent(B_TO_A).filter(|s| s.pkt.payload_len == 0 && hdr(&s.pkt).options.sack_len > 0).map(|s| s.at).collect();
    let gap = dup.windows(2).skip(2).map(|w| w[1] - w[0]).min().unwrap_or(Duration::MAX);
    (dup.len(), gap)
}

/// `sack_compress` (Linux's `__tcp_ack_snd_check`): with out-of-order data held, B sends the
/// first 3 duplicate ACKs at once and then one per min(1 ms, RTT/20) = 1 ms (RTT 40 ms), so
/// A hears of the segments behind the hole in fewer, larger SACKs (~8 segments per held ACK)
/// and the repair still ends without a timeout; off, every out-of-order segment gets its own
/// duplicate ACK.
#[test]
fn sack_compress_holds_duplicate_acks_after_the_first_three() {
    let (n_off, gap_off) = dupacks_after_one_drop(false);
    let (n_on, gap_on) = dupacks_after_one_drop(true);
    assert!(n_off >= 30, "one duplicate ACK per segment behind the hole: {n_off}");
    assert!(n_on >= 4 && n_on * 4 < n_off, "{n_on} vs {n_off}");
    assert!(gap_off < ms(1), "{gap_off:?}");
    assert!(gap_on >= ms(1), "held at least the 1 ms timer: {gap_on:?}");
}
