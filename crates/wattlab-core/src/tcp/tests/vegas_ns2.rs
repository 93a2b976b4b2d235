//! Vegas with ns-2's fine-grained retransmission (`vegas_retransmit = Ns2`, see
//! `cc/vegas_ns2.rs`), driven through a connection pair.

use super::*;
use cc::VegasRetransmit;

/// The sender's config: Vegas with the given retransmission rules.
fn vegas(mode: VegasRetransmit) -> TcpConfig {
    TcpConfig { congestion_control: CongestionControlKind::Vegas, vegas_retransmit: mode, ..Default::default() }
}

/// 1 Mb/s, 20 ms each way, to a receiver that ACKs every segment (ns-2's `TCPSink`) and
/// offers `window` segments.
fn pair(mode: VegasRetransmit, window: u32) -> Harness {
    let cb = TcpConfig { recv_buffer: window * 1448, delayed_ack: false, ..Default::default() };
    let mut h = Harness::new(vegas(mode), cb, 10, 20, ms(20));
    h.rate_bps = Some(1_000_000);
    h
}

/// The n (1-based, A_TO_B data count) of a's first retransmission when `drops` are applied.
fn first_retransmission_index(mode: VegasRetransmit, window: u32, drops: &[u64]) -> u64 {
    let mut h = pair(mode, window);
    h.drops.extend(drops.iter().map(|&n| (A_TO_B, n)));
    let h = transfer(h, 200_000, Time::from_secs_f64(60.0));
    let mut seen = std::collections::HashSet::new();
    let data: Vec<_> = h.sent(A_TO_B).filter(|s| s.pkt.payload_len > 0).collect();
    let i = data.iter().position(|s| !seen.insert(hdr(&s.pkt).seq)).expect("a retransmission");
    i as u64 + 1
}

#[test]
fn a_duplicate_ack_after_the_fine_timeout_retransmits_before_the_third() {
    let mut h = pair(VegasRetransmit::Ns2, 3);
    h.drops.push((A_TO_B, 30));
    let h = transfer(h, 200_000, Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, 200_000);
    let s = h.a.stats();
    let v = h.a.congestion_control().vegas().expect("vegas");
    assert_eq!(v.retransmit_mode(), VegasRetransmit::Ns2);
    assert_eq!((s.timeouts, s.retransmitted_segments, v.early_retransmits()), (0, 1, 1), "{s:?}");
    assert!(s.dup_acks_received <= 2, "retransmitted before a third duplicate: {s:?}");
    // ns-2's timeout is ≈ (SRTT + 2·mdev)·17/16: over a ~75 ms path, far below an RTO.
    let fine = v.fine_timeout().expect("fine timeout");
    assert!(fine > ms(40) && fine < ms(200), "{fine}");
}

#[test]
fn a_lost_retransmission_is_resent_on_a_later_duplicate_ack_where_rfc_times_out() {
    // 12-segment window: one loss brings ~11 duplicate ACKs; the retransmission is lost too.
    let (w, first) = (12, 40);
    let mut runs = Vec::new();
    for mode in [VegasRetransmit::Rfc, VegasRetransmit::Ns2] {
        let k = first_retransmission_index(mode, w, &[first]);
        let mut h = pair(mode, w);
        h.drops.extend([(A_TO_B, first), (A_TO_B, k)]);
        let h = transfer(h, 200_000, Time::from_secs_f64(60.0));
        assert_eq!(h.b.stats().bytes_read, 200_000);
        let v = h.a.congestion_control().vegas().expect("vegas").clone();
        runs.push((h.a.stats().clone(), v));
    }
    let (rfc, ns2) = (&runs[0], &runs[1]);
    assert_eq!(rfc.0.timeouts, 1, "rfc: the lost retransmission waits for the RTO: {:?}", rfc.0);
    assert_eq!(ns2.0.timeouts, 0, "ns2: resent on a duplicate ACK: {:?}", ns2.0);
    assert_eq!(ns2.1.recovery_retransmits(), 1, "{:?}", ns2.0);
    assert_eq!(rfc.1.recovery_retransmits(), 0);
}

#[test]
fn after_an_rto_the_window_restarts_at_two_segments() {
    // Drop a whole window's tail so nothing but the RTO can repair it (no duplicate ACKs).
    for (mode, want) in [(VegasRetransmit::Rfc, 1448), (VegasRetransmit::Ns2, 2 * 1448)] {
        let mut h = pair(mode, 3);
        h.drops.extend([(A_TO_B, 30), (A_TO_B, 31), (A_TO_B, 32)]);
        h.a.send(200_000);
        h.a.close();
        let mut after_rto = None;
        h.run_while(Time::from_secs_f64(60.0), |h| {
            if h.a.stats().timeouts == 1 && after_rto.is_none() {
                after_rto = Some(h.a.cwnd());
            }
            true
        });
        assert_eq!(after_rto, Some(want), "{mode:?}");
    }
}

#[test]
fn the_second_loss_is_resent_on_the_first_new_ack() {
    let mut h = pair(VegasRetransmit::Ns2, 3);
    h.drops.extend([(A_TO_B, 30), (A_TO_B, 31)]);
    let h = transfer(h, 200_000, Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, 200_000);
    let s = h.a.stats();
    assert_eq!((s.timeouts, s.retransmitted_segments), (0, 2), "{s:?}");
}

#[test]
fn the_option_is_ignored_by_other_algorithms_and_rfc_is_the_default() {
    let log = |ca: TcpConfig| {
        let cb = TcpConfig { recv_buffer: 12 * 1448, ..Default::default() };
        let mut h = Harness::new(ca, cb, 10, 20, ms(20));
        h.rate_bps = Some(1_000_000);
        h.drops.extend([(A_TO_B, 30), (A_TO_B, 45), (A_TO_B, 46), (B_TO_A, 7)]);
        let h = transfer(h, 150_000, Time::from_secs_f64(60.0));
        assert_eq!(h.b.stats().bytes_read, 150_000);
        h.log.clone()
    };
    for kind in [CongestionControlKind::Tahoe, CongestionControlKind::NewReno, CongestionControlKind::Cubic] {
        let base = TcpConfig { congestion_control: kind, ..Default::default() };
        let ns2 = TcpConfig { vegas_retransmit: VegasRetransmit::Ns2, ..base.clone() };
        assert_eq!(log(base), log(ns2), "{kind}");
    }
    assert_eq!(TcpConfig::default().vegas_retransmit, VegasRetransmit::Rfc);
    assert_eq!(log(vegas(VegasRetransmit::Rfc)), log(TcpConfig { congestion_control: CongestionControlKind::Vegas, ..Default::default() }));
    assert_ne!(log(vegas(VegasRetransmit::Rfc)), log(vegas(VegasRetransmit::Ns2)), "ns2 changes Vegas's packets here");
}
