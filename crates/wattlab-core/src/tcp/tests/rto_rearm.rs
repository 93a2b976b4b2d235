//! When the retransmission timer restarts (`rto_rearm`): a SACK repair whose first
//! retransmission of snd_una's segment is lost, behind a deep queue.

use super::*;
use crate::tcp::rto_rearm::RtoRearm;

const MSS: u64 = 1448;

/// RACK-TLP sender over a 2 Mb/s bottleneck with an unbounded queue (slow start fills it, so
/// a repair round takes several hundred ms), `rearm` its timer rule; segment 120 is dropped and,
/// if `drop_rtx`, so is its first retransmission (found by a dry run).
fn run(rearm: RtoRearm, drop_rtx: bool) -> (Harness, Time) {
    let bytes = 400 * MSS;
    let make = || {
        let c = TcpConfig { rack: true, tlp: true, prr: true, rto_rearm: rearm, ..sack_cfg() };
        let mut h = Harness::new(c.clone(), c, 10, 20, ms(20));
        h.rate_bps = Some(2_000_000);
        h.drops.push((A_TO_B, 120));
        h
    };
    let finish = |h: &mut Harness| {
        let limit = Time::from_secs_f64(60.0);
        h.a.send(bytes);
        h.run_while(limit, |h| h.b.stats().bytes_read < bytes);
        assert_eq!(h.b.stats().bytes_read, bytes, "the transfer completes");
        h.now
    };
    let mut h = make();
    if drop_rtx {
        let mut dry = make();
        finish(&mut dry);
        let first_rtx = first_resent_index(&dry);
        h.drops.push((A_TO_B, first_rtx));
    }
    let done = finish(&mut h);
    (h, done)
}

/// One segment lost behind a deep queue: the repair (its retransmission waits behind the
/// queue) takes longer than an RTO after the last cumulative ACK. RFC 6298's timer runs out
/// mid-repair and resends what was SACKed-around (go-back over the scoreboard's holes, cwnd
/// from one segment); Linux's, restarted when it resends snd_una's segment
/// (`tcp_xmit_retransmit_queue`) and by the SACKs of data older than that resend
/// (`tcp_clean_rtx_queue`), does not.
#[test]
fn a_long_sack_repair_times_out_only_under_rfc6298_rearming() {
    let (rfc, t_rfc) = run(RtoRearm::Rfc6298, false);
    let (linux, t_linux) = run(RtoRearm::Linux, false);
    let (r, l) = (rfc.a.stats(), linux.a.stats());
    assert_eq!((l.timeouts, l.retransmitted_segments), (0, 1), "{l:?}");
    assert_eq!(r.timeouts, 1, "{r:?}");
    assert!(r.retransmitted_segments > 10, "the timeout resends segments already in flight: {r:?}");
    assert!(t_linux + ms(100) < t_rfc, "linux {t_linux} vs rfc6298 {t_rfc}");
}

/// The first retransmission of snd_una's segment is lost too (as at the grid's 5 Mb/s 90 ms
/// cc shape): RACK resends it once a later retransmission is SACKed, and under Linux's rule
/// that resend restarts the timer, so the repair ends without a timeout.
#[test]
fn a_lost_head_retransmission_is_repaired_without_a_timeout_under_linux_rearming() {
    let (rfc, _) = run(RtoRearm::Rfc6298, true);
    let (linux, _) = run(RtoRearm::Linux, true);
    let (r, l) = (rfc.a.stats(), linux.a.stats());
    assert_eq!(r.timeouts, 1, "{r:?} {:?}", rfc.a.rack_stats());
    assert_eq!((l.timeouts, l.retransmitted_segments), (0, 2), "{l:?} {:?}", linux.a.rack_stats());
    assert_eq!(linux.a.rack_stats().lost_retransmissions, 1, "{:?}", linux.a.rack_stats());
}
