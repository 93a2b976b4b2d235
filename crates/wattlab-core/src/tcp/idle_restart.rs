//! Congestion-window restart after idle, as Linux runs it (option `slow_start_after_idle`,
//! Linux's `net.ipv4.tcp_slow_start_after_idle = 1`, the default).
//!
//! RFC 5681 §4.1 restarts a sender that was idle longer than the RTO from the restart window
//! RW = min(IW, cwnd); RFC 2861 §3 instead halves cwnd once per RTO of idle time. Linux does
//! both (`tcp_cwnd_restart` in `net/ipv4/tcp_output.c`): when the application queues new data
//! (`tcp_skb_entail` → `tcp_slow_start_after_idle_check`) while no segment is in flight
//! (`packets_out == 0`) and more than one RTO has passed since the last data segment was sent
//! (`lsndtime`, set for every data segment, retransmissions included, in
//! `tcp_event_data_sent`):
//!
//! 1. ssthresh = `tcp_current_ssthresh()` = max(ssthresh, ¾·cwnd) (unchanged while in a
//!    window reduction; RFC 2861 §3 "ssthresh is set to the maximum of its current value and
//!    three quarters of cwnd");
//! 2. restart_cwnd = min(initial window, cwnd);
//! 3. for each k = 1, 2, … with idle > k·RTO, while cwnd > restart_cwnd: cwnd = cwnd / 2;
//! 4. cwnd = max(cwnd, restart_cwnd).
//!
//! So an idle period just over k RTOs halves cwnd k times, never below min(IW, cwnd). Linux's
//! cwnd is a segment count and each halving is `>> 1` (an odd count rounds down: 5 → 2), so
//! the model halves whole segments too: a restarted window of 2.5 segments would let a third,
//! partial segment out in the first flight where Linux sends 2 (the web agent's first stage,
//! docs/live.md). The model's byte cwnd is first rounded down to whole segments, as Linux's
//! `snd_cwnd` has no fraction; an idle period that halves nothing leaves it as it was. Linux's second RFC 2861 mechanism, the decay of a
//! window the application did not use for an RTO while data is in flight
//! (`tcp_cwnd_application_limited`), is not modelled (see [`super::profile::LINUX_NOT_MODELLED`]).

use crate::time::Duration;

/// What the connection knows when it sends new data with nothing in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Idle {
    /// Time since the last data segment was sent (Linux's `now - lsndtime`).
    pub idle: Duration,
    /// The current retransmission timeout (`icsk_rto`).
    pub rto: Duration,
    /// Initial window in bytes (`tcp_init_cwnd` × MSS).
    pub initial_window: u32,
    /// The segment size cwnd counts in (bytes, ≥ 1).
    pub mss: u32,
    /// The sender is in a window reduction (loss recovery): ssthresh is left alone.
    pub in_reduction: bool,
}

/// The (cwnd, ssthresh) after the restart, in bytes, or `None` when the idle period was not
/// longer than the RTO (nothing changes).
pub fn restart(cwnd: u32, ssthresh: u32, at: Idle) -> Option<(u32, u32)> {
    if at.idle <= at.rto || at.rto == Duration::ZERO {
        return None;
    }
    let mss = at.mss.max(1);
    let segs = cwnd / mss; // Linux's snd_cwnd: whole segments
    let ssthresh = if at.in_reduction { ssthresh } else { ssthresh.max(((segs >> 1) + (segs >> 2)).saturating_mul(mss)) };
    let restart = (at.initial_window / mss).min(segs);
    let mut w = segs;
    let mut left = at.idle;
    // Bounded: w halves on every pass, so at most 32 passes before w <= restart.
    loop {
        left -= at.rto; // saturating
        if left == Duration::ZERO || w <= restart {
            break;
        }
        w >>= 1;
    }
    let cwnd = if w == segs { cwnd } else { w.max(restart).saturating_mul(mss) };
    Some((cwnd.max(mss), ssthresh))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1448;

    fn at(idle_ms: u64, rto_ms: u64) -> Idle {
        Idle { idle: Duration::from_millis(idle_ms), rto: Duration::from_millis(rto_ms), initial_window: 10 * MSS, mss: MSS, in_reduction: false }
    }

    #[test]
    fn idle_not_longer_than_the_rto_changes_nothing() {
        assert_eq!(restart(80 * MSS, 40 * MSS, at(199, 200)), None);
        assert_eq!(restart(80 * MSS, 40 * MSS, at(200, 200)), None, "Linux's test is idle > RTO");
    }

    #[test]
    fn each_rto_of_idle_halves_cwnd_once() {
        // 160 segments, IW 10: k RTOs and a bit halve k times (160, 80, 40, 20, then 10 = IW).
        for (k, want) in [(1, 80), (2, 40), (3, 20), (4, 10), (5, 10), (30, 10)] {
            let (cwnd, _) = restart(160 * MSS, u32::MAX, at(200 * k + 1, 200)).unwrap();
            assert_eq!(cwnd, want * MSS, "{k} RTOs");
        }
        // Exactly k RTOs is k - 1 halvings (the loop's `delta -= rto > 0`), 2.5 RTOs two.
        assert_eq!(restart(160 * MSS, u32::MAX, at(400, 200)).unwrap().0, 80 * MSS);
        assert_eq!(restart(160 * MSS, u32::MAX, at(500, 200)).unwrap().0, 40 * MSS);
    }

    #[test]
    fn the_floor_is_min_of_initial_window_and_cwnd() {
        // Halving stops at IW: 12 segments after a long idle → 6 would undershoot, IW = 10 holds.
        assert_eq!(restart(12 * MSS, u32::MAX, at(10_000, 200)).unwrap().0, 10 * MSS);
        // A window already below IW stays where it is (restart_cwnd = cwnd).
        assert_eq!(restart(4 * MSS, u32::MAX, at(10_000, 200)).unwrap().0, 4 * MSS);
        // A halving may land between IW and the last value: 24 → 12 (> 10) → 10.
        assert_eq!(restart(24 * MSS, u32::MAX, at(601, 200)).unwrap().0, 10 * MSS);
    }

    #[test]
    fn halving_counts_whole_segments_as_linux() {
        // Linux's `cwnd >>= 1` on a segment count: 5 → 2 (not 2.5 segments), 27 → 13 → 6.
        let iw2 = |idle_ms| Idle { initial_window: 2 * MSS, ..at(idle_ms, 200) };
        assert_eq!(restart(5 * MSS, u32::MAX, iw2(201)).unwrap().0, 2 * MSS);
        assert_eq!(restart(27 * MSS, u32::MAX, iw2(201)).unwrap().0, 13 * MSS);
        assert_eq!(restart(27 * MSS, u32::MAX, iw2(401)).unwrap().0, 6 * MSS);
        // A fraction of a segment is dropped with the halving (Linux has none to keep).
        assert_eq!(restart(5 * MSS + 700, u32::MAX, iw2(201)).unwrap().0, 2 * MSS);
        // Nothing halved (the window is at the floor already): the window stays, fraction too.
        assert_eq!(restart(2 * MSS + 700, u32::MAX, iw2(10_000)).unwrap().0, 2 * MSS + 700);
        // ssthresh = max(ssthresh, (cwnd >> 1) + (cwnd >> 2)) in segments: 27 → 13 + 6 = 19.
        assert_eq!(restart(27 * MSS, 10 * MSS, iw2(401)).unwrap().1, 19 * MSS);
    }

    #[test]
    fn ssthresh_is_raised_to_three_quarters_of_the_old_cwnd() {
        let (_, ss) = restart(80 * MSS, 20 * MSS, at(1_000, 200)).unwrap();
        assert_eq!(ss, 60 * MSS, "max(20, 3/4 · 80) segments");
        let (_, ss) = restart(80 * MSS, 70 * MSS, at(1_000, 200)).unwrap();
        assert_eq!(ss, 70 * MSS, "a higher ssthresh stays");
        assert_eq!(restart(80 * MSS, u32::MAX, at(1_000, 200)).unwrap().1, u32::MAX, "slow start's infinite one stays");
        let (_, ss) = restart(80 * MSS, 20 * MSS, Idle { in_reduction: true, ..at(1_000, 200) }).unwrap();
        assert_eq!(ss, 20 * MSS, "in a window reduction tcp_current_ssthresh is ssthresh");
    }
}
