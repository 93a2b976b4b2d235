//! RACK-TLP (RFC 8985, options `rack` and `tlp`) driven through a connection pair.

use super::*;

const MSS: u64 = 1448;

fn cfg(rack: bool, tlp: bool) -> TcpConfig {
    TcpConfig { rack, tlp, ..sack_cfg() }
}

fn pair(rack: bool, tlp: bool) -> Harness {
    let c = cfg(rack, tlp);
    let mut h = Harness::new(c.clone(), c, 10, 20, ms(20));
    h.rate_bps = Some(20_000_000);
    h
}

/// Run until b has read `bytes` (returns when), then close both sides and finish.
fn until_read(h: &mut Harness, bytes: u64) -> Time {
    let limit = Time::from_secs_f64(120.0);
    h.run_while(limit, |h| h.b.stats().bytes_read < bytes);
    let done = h.now;
    assert_eq!(h.b.stats().bytes_read, bytes, "the transfer completes");
    h.a.close();
    h.run_until(limit);
    assert_eq!((h.a.state(), h.b.state()), (TcpState::Closed, TcpState::Closed));
    done
}

/// When the first retransmission left a.
fn first_retransmission(h: &Harness) -> Option<Time> {
    let mut seen = std::collections::HashSet::new();
    h.sent(A_TO_B).filter(|s| s.pkt.payload_len > 0).find(|s| !seen.insert(hdr(&s.pkt).seq)).map(|s| s.at)
}

/// RFC 8985 §7's motivating case: the last three segments of a transfer are lost, so no
/// duplicate ACK ever arrives. Without TLP the sender waits for the RTO (cwnd collapses to one
/// segment); with TLP it resends the last segment 2·SRTT after the last ACK, the probe's SACK
/// lets RACK mark the two before it lost, and SACK recovery repairs them: no RTO.
#[test]
fn tlp_repairs_a_tail_drop_without_an_rto() {
    let bytes = 40 * MSS;
    let run = |rack, tlp| {
        let mut h = pair(rack, tlp);
        h.drops.extend([(A_TO_B, 38), (A_TO_B, 39), (A_TO_B, 40)]);
        h.a.send(bytes);
        let done = until_read(&mut h, bytes);
        (done, h)
    };
    let (t_plain, plain) = run(false, false);
    let (t_tlp, tlp) = run(true, true);
    assert_eq!(plain.a.stats().timeouts, 1, "{:?}", plain.a.stats());
    let (s, r) = (tlp.a.stats(), tlp.a.rack_stats());
    assert_eq!(s.timeouts, 0, "{s:?} {r:?}");
    assert_eq!((r.tlp_probes, r.tlp_new_data), (1, 0), "one probe, of the last segment: {r:?}");
    assert_eq!(r.marked_lost, 2, "the probe's SACK marks 38 and 39: {r:?}");
    assert_eq!((s.sack_recoveries, s.retransmitted_segments), (1, 3), "{s:?}");
    assert_eq!(tlp.b.stats().duplicate_bytes_received, 0);
    // The probe left 2·SRTT (~2 × 41 ms) after the last ACK, well before the 200 ms RTO.
    let probe = first_retransmission(&tlp).unwrap();
    let rto = first_retransmission(&plain).unwrap();
    assert!(probe + ms(60) < rto, "probe at {probe}, RTO retransmission at {rto}");
    assert!(t_tlp + ms(60) < t_plain, "TLP {t_tlp} vs RTO {t_plain}");
    // TLP without RACK: the probe's SACK of one segment is too little for RFC 6675's IsLost
    // (more than 2 segments SACKed above a hole), so the RTO still fires; the repair needs
    // RACK's time-based marking (Linux runs both).
    let (_, tlp_only) = run(false, true);
    assert_eq!(tlp_only.a.rack_stats().tlp_probes, 1);
    assert_eq!(tlp_only.a.stats().timeouts, 1, "{:?}", tlp_only.a.stats());
}

/// A tail loss of one segment with more data queued: the probe carries new data (§7.3), whose
/// SACK lets RACK mark the lost segment.
#[test]
fn tlp_probes_with_new_data_when_the_window_allows() {
    let mut h = pair(true, true);
    h.drops.push((A_TO_B, 20));
    h.a.send(20 * MSS);
    // The application queues more only after the 20 segments left (a pause of a request).
    let limit = Time::from_secs_f64(10.0);
    h.run_while(limit, |h| h.data_count[A_TO_B] < 20);
    h.a.send(5 * MSS);
    let done = until_read(&mut h, 25 * MSS);
    let (s, r) = (h.a.stats(), h.a.rack_stats());
    assert!(done < Time::from_secs_f64(1.0));
    assert_eq!(s.timeouts, 0, "{s:?} {r:?}");
    assert!(r.tlp_probes <= 1 && s.retransmitted_segments == 1, "{s:?} {r:?}");
}

/// RFC 8985 §3.3.2 / §6.2: the retransmission of a hole is lost too. RFC 6675 cannot see that
/// (HighRxt has passed it) and waits for the RTO; RACK marks the retransmission lost by its
/// own send time once data sent after it is SACKed, and resends it in the same recovery.
#[test]
fn rack_detects_a_lost_retransmission_without_an_rto() {
    let bytes = 3_000_000;
    let run = |rack: bool| {
        let holes = [(A_TO_B, 60), (A_TO_B, 64), (A_TO_B, 68)];
        // Find the data-segment number of the second retransmission by a dry run.
        let mut dry = pair(rack, rack);
        dry.drops.extend(holes);
        dry.a.send(bytes);
        until_read(&mut dry, bytes);
        let mut seen = std::collections::HashSet::new();
        let second_rtx = dry
            .sent(A_TO_B)
            .filter(|s| s.pkt.payload_len > 0)
            .enumerate()
            .filter(|(_, s)| !seen.insert(hdr(&s.pkt).seq))
            .nth(1)
            .map(|(i, _)| i as u64 + 1)
            .unwrap();
        let mut h = pair(rack, rack);
        h.drops.extend(holes);
        h.drops.push((A_TO_B, second_rtx));
        h.a.send(bytes);
        let done = until_read(&mut h, bytes);
        (done, h)
    };
    let (_, rfc6675) = run(false);
    let (_, rack) = run(true);
    assert_eq!(rfc6675.a.stats().timeouts, 1, "{:?}", rfc6675.a.stats());
    let (s, r) = (rack.a.stats(), rack.a.rack_stats());
    assert_eq!(s.timeouts, 0, "{s:?} {r:?}");
    assert_eq!(r.lost_retransmissions, 1, "{r:?}");
    assert_eq!((s.sack_recoveries, s.retransmitted_segments), (1, 4), "three holes + the lost retransmission: {s:?}");
    assert_eq!(rack.b.stats().duplicate_bytes_received, 0, "nothing resent that had arrived");
    // The second hole's second retransmission: RACK sends it about one RTT after the first
    // (measured 354 ms into the run), RFC 6675 at the RTO (542 ms). (Completion time is not
    // compared: the RTO's ssthresh comes from the flight at the timeout, larger than the
    // recovery's, so the RTO run happens to finish first over this unbounded queue.)
    let resent = |h: &Harness| {
        let mut seen = std::collections::HashSet::new();
        let rtx: Vec<_> = h.sent(A_TO_B).filter(|s| s.pkt.payload_len > 0).filter(|s| !seen.insert(hdr(&s.pkt).seq)).map(|s| (hdr(&s.pkt).seq, s.at)).collect();
        let again = rtx.iter().find(|x| rtx.iter().filter(|y| y.0 == x.0).count() == 2).unwrap().0;
        rtx.iter().filter(|x| x.0 == again).nth(1).unwrap().1
    };
    let (t_rack, t_6675) = (resent(&rack), resent(&rfc6675));
    assert!(t_rack + ms(150) < t_6675, "RACK {t_rack} vs RFC 6675 + RTO {t_6675}");
}

/// Run `h` until b read `bytes`, delaying the arrival of the k-th data segment a sends (1-based,
/// retransmissions count) by `extra` for each (k, extra) in `delayed`: reordering.
fn run_reordered(h: &mut Harness, bytes: u64, delayed: &[(u64, Duration)]) {
    let limit = Time::from_secs_f64(60.0);
    let mut k = 0u64;
    while h.b.stats().bytes_read < bytes {
        h.app();
        let n0 = h.in_flight.len();
        h.transmit_all();
        for e in h.in_flight[n0..].iter_mut() {
            if e.2 == A_TO_B && e.3.payload_len > 0 {
                k += 1;
                if let Some(&(_, d)) = delayed.iter().find(|x| x.0 == k) {
                    e.0 += d;
                }
            }
        }
        if !h.step(limit) {
            break;
        }
    }
    assert_eq!(h.b.stats().bytes_read, bytes);
}

/// RFC 8985 §3.3.3 / §6.2 step 4: reordering within the reordering window (min_RTT/4, here
/// ~10 ms) is not loss. First a segment is overtaken by one other (neither detector reacts, but
/// RACK learns that the path reorders: reordering_seen); then every 40th segment sent arrives
/// 3 ms late, overtaken by ~5 segments. The DupThresh detector (RFC 6675) fast-retransmits each
/// one spuriously (the receiver gets both copies) and halves its window; RACK waits out the
/// window and retransmits nothing. (With 5 ms, RACK too marks two of them: the sender stalls
/// while the late segment holds snd_una, the queue drains, and segments sent ≥ 10 ms after it
/// overtake it — RACK's window is in send time, not in path delay.)
#[test]
fn reordering_within_the_window_is_not_loss_for_rack_but_is_for_dupthresh() {
    let bytes = 2_000_000;
    let mut delayed = vec![(30u64, Duration::from_micros(900))];
    delayed.extend((100..1300).step_by(40).map(|k| (k, ms(3))));
    let run = |rack: bool| {
        let mut h = pair(rack, rack);
        h.a.send(bytes);
        run_reordered(&mut h, bytes, &delayed);
        h
    };
    let dupthresh = run(false);
    let rack = run(true);
    let (sd, bd) = (dupthresh.a.stats(), dupthresh.b.stats());
    let (sr, br, r) = (rack.a.stats(), rack.b.stats(), rack.a.rack_stats());
    assert!(r.reordering_seen == 1, "{r:?}");
    assert_eq!((sr.retransmitted_segments, br.duplicate_bytes_received, sr.sack_recoveries), (0, 0, 0), "{sr:?} {r:?}");
    assert!(sd.sack_recoveries >= 10, "each 5 ms delay is a spurious recovery: {sd:?}");
    // A spurious copy arrives wholly old: the receiver answers it as an unacceptable segment.
    assert!(sd.retransmitted_segments >= 10 && bd.unacceptable_segments_acked >= 10, "{sd:?} {bd:?}");
    assert_eq!(br.unacceptable_segments_acked, 0);
    assert!(rack.now < dupthresh.now, "no window halvings: RACK finishes first");
}

/// Without SACK neither option does anything (RACK and TLP need it, as in Linux): the run is
/// segment for segment the plain one.
#[test]
fn rack_and_tlp_need_sack() {
    let run = |rack: bool| {
        let c = TcpConfig { rack, tlp: rack, ..big_window() };
        let mut h = Harness::new(c.clone(), c, 10, 20, ms(20));
        h.rate_bps = Some(20_000_000);
        h.drops.extend([(A_TO_B, 60), (A_TO_B, 64), (A_TO_B, 300)]);
        transfer(h, 1_000_000, Time::from_secs_f64(60.0))
    };
    let (off, on) = (run(false), run(true));
    assert_eq!(on.a.stats(), off.a.stats());
    assert_eq!(on.log, off.log);
    assert_eq!(on.a.rack_stats().tlp_probes, 0);
}

/// Random loss (2 % and 10 % of data segments, 1 % of ACKs): RACK-TLP completes with no more
/// RTOs than RFC 6675 (far fewer at 10 %), and resends nothing the receiver held (SACK tells
/// both what arrived; on a FIFO path without reordering RACK has nothing to mistake).
#[test]
fn random_losses_rack_tlp_needs_no_more_timeouts_than_rfc6675() {
    for one_in in [50, 10] {
        let (plain, plain_b, dropped) = random_loss_run(cfg(false, false), cfg(false, false), one_in);
        let (rack, rack_b, _) = random_loss_run(cfg(true, true), cfg(true, true), one_in);
        assert!(rack.timeouts <= plain.timeouts, "1 in {one_in}: rack {rack:?}\n6675 {plain:?}");
        assert_eq!((rack_b.duplicate_bytes_received, rack_b.unacceptable_segments_acked), (0, 0), "no spurious copy");
        assert_eq!(plain_b.duplicate_bytes_received, 0);
        if one_in == 10 {
            // Measured: 20 RTOs against 57; RACK repairs lost retransmissions and TLP tail
            // losses that RFC 6675 leaves to the timer.
            assert!(2 * rack.timeouts < plain.timeouts, "rack {rack:?}\n6675 {plain:?}");
        }
        assert!(rack.retransmitted_segments <= dropped + dropped / 10, "{rack:?} for {dropped} drops");
    }
}


/// `rto_rearm` (the head-resend rule): at a 300 ms RTT Linux's RTO (SRTT + rttvar ≥ rto_min) is about two RTTs. A
/// hole's retransmission is lost too; RACK resends it about one RTT later. Under RFC 6298 the
/// RTO still runs from the last ACK of new data before the hole and expires before the second
/// retransmission's ACK returns: a spurious timeout that resends it again. Linux
/// re-arms the RTO when it resends the head (`tcp_xmit_retransmit_queue`): no timeout.
#[test]
fn linux_rearms_the_rto_when_it_resends_the_head() {
    use crate::tcp::{RtoRearm, TcpProfile};
    let bytes = 1_500_000;
    let run = |restart: RtoRearm| {
        // The exact timer: on the jiffies wheel (`rto_timer = "linux"`) RFC 6298's timer here
        // fires up to 32 ms later, after the second retransmission's ACK (measured: no
        // timeout either way), which would hide the rule this test is about.
        let c = TcpConfig { rto_rearm: restart, rto_timer: crate::tcp::RtoTimer::Exact, ..TcpProfile::Linux.config() };
        let mk = || {
            let mut h = Harness::new(c.clone(), c.clone(), 10, 20, ms(150));
            h.rate_bps = Some(20_000_000);
            h
        };
        let hole = (A_TO_B, 300);
        let mut dry = mk();
        dry.drops.push(hole);
        dry.a.send(bytes);
        until_read(&mut dry, bytes);
        let first_rtx = first_resent_index(&dry);
        let mut h = mk();
        h.drops.extend([hole, (A_TO_B, first_rtx)]);
        h.a.send(bytes);
        until_read(&mut h, bytes);
        h
    };
    let rfc = run(RtoRearm::Rfc6298);
    let linux = run(RtoRearm::Linux);
    let (s, r) = (linux.a.stats(), linux.a.rack_stats());
    assert_eq!(s.timeouts, 0, "{s:?} {r:?}");
    assert_eq!(r.lost_retransmissions, 1, "{r:?}");
    assert_eq!(linux.b.stats().duplicate_bytes_received, 0, "nothing resent that had arrived");
    assert_eq!(rfc.a.stats().timeouts, 1, "{:?} {:?}", rfc.a.stats(), rfc.a.rack_stats());
    // The timeout fired with the second retransmission in flight: it is resent once more, and
    // the window restarts from one segment, so the transfer ends later.
    assert!(rfc.a.stats().retransmitted_segments > s.retransmitted_segments, "{:?}", rfc.a.stats());
}
