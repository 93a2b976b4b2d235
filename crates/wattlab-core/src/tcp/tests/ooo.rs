//! The out-of-order bound (option `ooo_limit`) driven through a connection pair.

use super::*;
use crate::tcp::ooo_limit::OooLimit;

const MSS: u32 = 1448;

/// Linux's loss recovery (SACK, RACK-TLP, PRR) with the given bound on both ends.
fn cfg(ooo_limit: OooLimit, initial_cwnd: u32) -> TcpConfig {
    TcpConfig { ooo_limit, rack: true, tlp: true, prr: true, initial_cwnd, ..sack_cfg() }
}

/// A 300-segment initial window over a 200 ms RTT with every third segment lost (100 holes):
/// with `rcvbuf` the receiver holds all 200 segments that arrive and the sender resends the
/// 100 holes and nothing else; with `ranges32` the receiver drops what would need a 33rd
/// range, and those segments are sent again too.
#[test]
fn a_hundred_holes_cost_a_hundred_retransmissions_with_rcvbuf() {
    let run = |limit: OooLimit| {
        let c = cfg(limit, 300);
        let mut h = Harness::new(c.clone(), c, 10, 20, ms(100));
        h.rate_bps = Some(50_000_000);
        h.drops.extend((0..100).map(|k| (A_TO_B, 2 + 3 * k)));
        let h = transfer(h, 1_000_000, Time::from_secs_f64(60.0));
        assert_eq!(h.b.stats().bytes_read, 1_000_000, "{limit:?} completes");
        h
    };
    let linux = run(OooLimit::Rcvbuf);
    let (a, b) = (linux.a.stats(), linux.b.stats());
    assert_eq!((a.retransmitted_segments, a.timeouts), (100, 0), "{a:?}");
    assert_eq!((b.ooo_dropped_segments, b.duplicate_bytes_received, b.ooo_prunes), (0, 0, 0), "{b:?}");
    let textbook = run(OooLimit::Ranges32);
    let (ta, tb) = (textbook.a.stats(), textbook.b.stats());
    // Ranges 1..=32 hold segments 3..=97; the 67 segments above that arrive are dropped.
    assert!(tb.ooo_dropped_segments >= 67, "{tb:?}");
    assert!(ta.retransmitted_segments >= 100 + 67, "{ta:?}");
    let done = |h: &Harness| h.log.iter().rev().find(|s| s.dir == B_TO_A).map(|s| s.at);
    assert!(done(&linux) < done(&textbook), "keeping what arrived is faster");
}

/// A receiver reneges (RFC 2018 §8): it SACKs segments 30..=35, which it never holds (they
/// are lost), so once segment 20's retransmission fills the hole below them the cumulative ACK
/// stops at 30, inside SACKed data. With `rcvbuf` the sender detects that as Linux does
/// (`tcp_check_sack_reneging`: the timer set to max(SRTT/2, 10 ms); at the timeout the
/// scoreboard is cleared) and resends the six segments after one short timeout. With
/// `ranges32`, whose receivers never renege, the sender trusts the SACK: it never resends
/// the segments by recovery, and each timeout (backed off) resends only the head one.
#[test]
fn a_reneging_receiver_is_detected_and_the_data_resent() {
    let run = |limit: OooLimit| {
        let c = cfg(limit, 10);
        let mut h = Harness::new(c.clone(), c, 10, 20, ms(20));
        h.rate_bps = Some(20_000_000);
        h.drops.push((A_TO_B, 20));
        h.drops.extend((30..=35).map(|n| (A_TO_B, n)));
        let seg = |n: u32| 10 + 1 + (n - 1) * MSS; // wire seq of a's n-th segment
        h.fake_b_sack = Some((36, seg(30), seg(36)));
        let h = transfer(h, 300_000, Time::from_secs_f64(120.0));
        assert_eq!(h.b.stats().bytes_read, 300_000, "{limit:?} completes");
        h
    };
    let linux = run(OooLimit::Rcvbuf);
    let a = linux.a.stats();
    assert_eq!((a.sack_renegings, a.timeouts), (1, 1), "{a:?}");
    let seq30 = 10 + 1 + 29 * MSS;
    let sent = linux.data_sent_at(A_TO_B, seq30);
    assert_eq!(sent.len(), 2, "segment 30 is resent once: {sent:?}");
    let textbook = run(OooLimit::Ranges32);
    let ta = textbook.a.stats();
    assert_eq!(ta.sack_renegings, 0);
    assert!(ta.timeouts >= 6, "one backed-off timeout per reneged segment: {ta:?}");
    let resent = |h: &Harness| h.data_sent_at(A_TO_B, seq30)[1];
    assert!(resent(&linux) < resent(&textbook), "{:?} vs {:?}", resent(&linux), resent(&textbook));
}
