//! Linux's RTT samples (`rtt_sample`), flight outside recovery (`in_flight`) and RTO timer
//! wheel (`rto_timer`) on a connection: one data segment lost from a SACK sender.

use super::*;
use crate::tcp::in_flight::InFlight;
use crate::tcp::rto_timer::RtoTimer;
use crate::tcp::rtt_sample::RttSample;

const MSS: u64 = 1448;

/// A SACK sender over a 20 ms one-way path (no bottleneck) that loses its `drop`-th data
/// segment; `c` adjusts its config. Returns the finished run.
fn one_loss(drop: u64, c: impl Fn(TcpConfig) -> TcpConfig) -> Harness {
    let cfg = c(sack_cfg());
    let mut h = Harness::new(cfg.clone(), cfg, 10, 20, ms(20));
    h.drops.push((A_TO_B, drop));
    let bytes = 300 * MSS;
    h.a.send(bytes);
    h.run_while(Time::from_secs_f64(60.0), |h| h.b.stats().bytes_read < bytes);
    assert_eq!(h.b.stats().bytes_read, bytes, "the transfer completes");
    h
}

/// Linux times SACK-only ACKs too (`tcp_sacktag_one`'s first_sackt): with one loss, every
/// duplicate ACK SACKs a never-retransmitted segment, so Linux takes exactly one sample more
/// per duplicate ACK than RFC 7323's TSecr rule (the sending is the same: no timeout).
#[test]
fn sack_only_acks_give_rtt_samples_only_under_linux() {
    let rfc = one_loss(40, |c| c);
    let linux = one_loss(40, |c| TcpConfig { rtt_sample: RttSample::Linux, ..c });
    let (r, l) = (rfc.a.stats(), linux.a.stats());
    assert_eq!((r.timeouts, l.timeouts), (0, 0));
    assert_eq!(r.dup_acks_received, l.dup_acks_received, "the same exchange");
    assert!(l.dup_acks_received >= 3, "{l:?}");
    assert_eq!(l.rtt_samples, r.rtt_samples + l.dup_acks_received, "rfc {r:?}\nlinux {l:?}");
    // The samples are the send times' µs ages, not whole-ms TSecr echoes: on this fixed
    // 40 ms path (no queue) a SACK sample is 40 ms, a cumulative one 40 ms plus any ACK delay.
    let mean_ns = l.rtt_sample_sum_ns / l.rtt_samples;
    assert!((40_000_000..80_000_000).contains(&mean_ns), "{mean_ns}");
}

/// Linux leaves SACKed segments out of the flight before recovery starts (Disorder): each of
/// the duplicate ACKs before the fast retransmit lets one new segment go, where RFC 5681's
/// FlightSize (SACKed data included) holds the cwnd-limited sender.
#[test]
fn sacked_segments_free_the_window_before_recovery_only_under_linux() {
    let sent_before_rtx = |h: &Harness| {
        let first = first_resent_index(h);
        first - 1 // data segments before the first retransmission
    };
    let rfc = one_loss(40, |c| c);
    let linux = one_loss(40, |c| TcpConfig { in_flight: InFlight::Linux, ..c });
    let (r, l) = (sent_before_rtx(&rfc), sent_before_rtx(&linux));
    // Three duplicate ACKs start recovery (DupThresh); the two before it each free a segment.
    assert_eq!(l, r + 2, "rfc5681 {r}, linux {l}");
    assert_eq!((rfc.a.stats().timeouts, linux.a.stats().timeouts), (0, 0));
}

/// Linux's RTO fires on the jiffies wheel: never before now + RTO, and for an RTO of 252 ms
/// to 2 s up to 32 ms after. The tail segment lost (no ACK follows it): the timeout repairs it.
/// Linux's estimator on an 80 ms path: RTO ≈ 80 + 200 ms (level 1 of the wheel).
#[test]
fn the_tail_timeout_fires_on_the_jiffies_wheel_under_linux() {
    let tail = |timer: RtoTimer| {
        let cfg = TcpConfig { rto_timer: timer, rto: crate::tcp::RtoMode::Linux, ..sack_cfg() };
        let mut h = Harness::new(cfg.clone(), cfg, 10, 20, ms(40));
        let n = 5; // 5 segments fit the initial window: all sent at once; the last is lost
        h.drops.push((A_TO_B, n));
        h.a.send(n * MSS);
        h.run_while(Time::from_secs_f64(10.0), |h| h.b.stats().bytes_read < n * MSS);
        assert_eq!(h.a.stats().timeouts, 1);
        let (seq, _) = nth_data(&h, n as usize);
        let at = h.data_sent_at(A_TO_B, seq);
        (at[0], at[1])
    };
    let (sent, exact) = tail(RtoTimer::Exact);
    let (sent_l, wheel) = tail(RtoTimer::Linux);
    assert_eq!(sent, sent_l);
    let rto = exact.saturating_since(sent);
    let late = wheel.saturating_since(exact);
    assert!(wheel > exact, "exact {exact}, wheel {wheel}");
    assert!(rto >= ms(252) && late <= ms(36), "rto {rto:?}, late {late:?}");
    // The wheel's tick: a whole number of 4 ms jiffies, on level 1's 32 ms grid.
    assert_eq!(wheel.as_nanos() % 32_000_000, 0, "{wheel}");
}
