//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995), parameters and slow-start exit as
//! ns-2's `Agent/TCP/Vegas` (α = 1, β = 3, γ = 1 segments).
//!
//! Modelling choices:
//! - RTT samples are the connection's fine-grained (nanosecond) sample of the one segment it
//!   times per RTT ([`super::AckInfo::fine_rtt`]) — Brakmo's own "distinguished segment"
//!   method (§3.2). The 1 ms timestamp samples are too coarse: at 10 Mb/s one segment of queue
//!   is 1.2 ms of delay, so α = 1 would be below the clock's resolution.
//! - BaseRTT = the smallest sample ever seen (Brakmo; Linux instead resets it after losses).
//! - An epoch is one window: it starts at an ACK with mark = snd_nxt and ends at the first ACK
//!   beyond the mark (Linux `beg_snd_nxt`, ns-2 `v_begseq_`). The epoch's RTT is the *minimum*
//!   of its samples (Linux; ns-2 averages) — with one timed segment per RTT there is usually
//!   exactly one; with none, the epoch's duration stands in (ns-2's fallback).
//! - Diff = (cwnd/BaseRTT − cwnd/RTT)·BaseRTT = cwnd·(RTT − BaseRTT)/RTT segments, i.e. the
//!   sender's own packets queued at the bottleneck; not rounded (ns-2 rounds to an integer).
//! - Congestion avoidance (§3.2): Diff < α → +1 SMSS over the next RTT (byte-counted, only
//!   while the window is used: ns-2's `cwnd − flight ≤ 2`); Diff > β → −1 SMSS at once; else hold.
//! - Slow start (§3.3): grow only every other RTT; at the end of each non-growing RTT, if
//!   Diff > γ leave slow start as ns-2 does: cwnd −= cwnd/8 (floor 2 SMSS), ssthresh = 2 SMSS
//!   ("vegas ssthresh is used only during slow-start"). A −1 SMSS step also lowers ssthresh
//!   to cwnd if needed (Linux `tcp_vegas_ssthresh`), so after a loss (ssthresh = cwnd) Vegas's
//!   own decreases never fall back into slow start.
//! - Losses (§3.1, "new retransmission mechanism", as ns-2 `tcp-vegas.cc`): Vegas records the
//!   send time of every segment in flight (a ring reused for the connection's life) and keeps
//!   a fine-grained timeout = SRTT + max(G, 4·RTTVAR) (RFC 6298 arithmetic) over nanosecond
//!   samples of every ACK, none retransmitted (Karn) — but once the peer has ACKed two
//!   segments at once (it delays ACKs) only such ACKs, since a one-segment ACK may include the
//!   delayed-ACK wait, which made the timeout ~3× the immediate dupACK's RTT — with G = 1 ms and no 200 ms/1 s minimum. On the first or second duplicate ACK, if the segment at snd_una was
//!   sent longer ago than that timeout, it is retransmitted at once and fast recovery starts
//!   (NewReno's `recover` point still allows one reduction per window). That reduction is
//!   ns-2's: window w = min(cwnd, FlightSize), new cwnd = 2 SMSS if w ≤ 3 SMSS, w/2 if the lost
//!   segment was itself a retransmission, else w − w/4. On the first and second new ACK after
//!   any dupACK-triggered retransmission (this one or the 3-dupACK one), the new snd_una
//!   segment is resent too if it expired, without another reduction (ns-2 `v_worried_`).
//!   The 3-dupACK fast retransmit (FlightSize/2) and the RTO are unchanged (RFC 5681/6582);
//!   ns-2's other variations (fine-timeout backoff, cwnd = 2 after an RTO) are `ns2` mode's,
//!   and with SACK recovery (RFC 6675) the fine-grained check is not used. Vegas pauses its
//!   delay control during recovery and starts a fresh epoch after it.
//! - `vegas_retransmit = ns2` replaces these loss rules by ns-2.35's own (timeout formula,
//!   checks on every duplicate ACK, back-off, window cuts, cwnd = 2 after an RTO): see
//!   [`super::vegas_ns2`].

use crate::tcp::rtt::SmoothedRtt;
use super::aimd::Aimd;
use super::AckInfo;
use super::vegas_ns2::{ns2_cut, Ns2FineTimer, VegasRetransmit};
use crate::time::{Duration, Time};
use std::collections::VecDeque;

/// Lower bound of the queue Vegas keeps, in segments (ns-2 `v_alpha_`).
pub const VEGAS_ALPHA: f64 = 1.0;
/// Upper bound of the queue Vegas keeps, in segments (ns-2 `v_beta_`).
pub const VEGAS_BETA: f64 = 3.0;
/// Queue that ends slow start, in segments (ns-2 `v_gamma_`).
pub const VEGAS_GAMMA: f64 = 1.0;

/// Floor of the fine-grained timeout's variance term: RFC 6298's clock granularity G, taken as
/// the 1 ms timestamp tick (the clock itself is in nanoseconds; no 200 ms/1 s minimum).
pub const VEGAS_FINE_RTO_GRANULARITY: Duration = Duration::from_millis(1);
/// New ACKs after a dupACK-triggered retransmission on which Vegas checks snd_una's segment
/// against the fine-grained timeout (Brakmo §3.1: "the first or second non-duplicate ACK").
pub const VEGAS_WORRIED_ACKS: u8 = 2;

/// One segment in flight: its end position and when it was last sent (Brakmo §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SentSegment {
    end: u64,
    sent_at: Time,
    retransmitted: bool,
}

/// Vegas state: Reno window arithmetic plus the per-RTT delay comparison.
#[derive(Clone, Debug)]
pub struct Vegas {
    pub(super) aimd: Aimd,
    base_rtt: Option<Duration>,
    /// snd_nxt when the epoch began; `None` = start one at the next ACK.
    mark: Option<u64>,
    epoch_start: Time,
    epoch_rtt: Option<Duration>,
    /// Slow start grows in this RTT (alternates, Brakmo §3.3).
    ss_grow: bool,
    /// Congestion avoidance grows in this RTT (Diff < α at the last epoch end).
    ca_grow: bool,
    /// In fast recovery: no Vegas decisions.
    in_loss: bool,
    diff: Option<f64>,
    /// Segments in flight, oldest first; reserved once for a 64 KiB window (it grows only if
    /// window scaling lets more be in flight), so no allocation per packet.
    sent: VecDeque<SentSegment>,
    /// RFC 6298 SRTT and RTTVAR of the fine-grained samples.
    fine: SmoothedRtt,
    /// The peer has ACKed two segments at once: it delays ACKs, so one-segment ACKs are no
    /// longer RTT samples.
    peer_delays_acks: bool,
    /// New ACKs left on which to check snd_una's segment for expiry (ns-2 `v_worried_`).
    worried: u8,
    early_retransmits: u64,
    worried_retransmits: u64,
    /// Which loss rules apply (`Rfc` default; `Ns2` = [`super::vegas_ns2`]).
    mode: VegasRetransmit,
    /// ns-2's fine timeout (used only in `Ns2` mode).
    ns2: Ns2FineTimer,
    /// ns-2 `t_cwnd_changed_`: when the window was last cut (`Ns2` mode).
    cut_at: Option<Time>,
    /// `Ns2` mode: retransmissions on duplicate ACKs during recovery (the head expired again).
    recovery_retransmits: u64,
    /// Arrival time of the ACK being processed (set by `on_ack_arrival`).
    ack_now: Time,
}

impl Vegas {
    pub(super) fn new(aimd: Aimd) -> Self {
        let cap = sent_capacity(aimd.mss);
        Vegas {
            aimd,
            base_rtt: None,
            mark: None,
            epoch_start: Time::ZERO,
            epoch_rtt: None,
            ss_grow: true,
            ca_grow: false,
            in_loss: false,
            diff: None,
            sent: VecDeque::with_capacity(cap),
            fine: SmoothedRtt::default(),
            peer_delays_acks: false,
            worried: 0,
            early_retransmits: 0,
            worried_retransmits: 0,
            mode: VegasRetransmit::Rfc,
            ns2: Ns2FineTimer::default(),
            cut_at: None,
            recovery_retransmits: 0,
            ack_now: Time::ZERO,
        }
    }

    /// Select the fine-grained retransmission rules (before the first segment).
    pub(super) fn set_retransmit(&mut self, mode: VegasRetransmit) {
        self.mode = mode;
    }

    /// The loss rules in force.
    pub fn retransmit_mode(&self) -> VegasRetransmit {
        self.mode
    }

    /// `Ns2` mode: retransmissions on duplicate ACKs during recovery because snd_una's
    /// segment outlived the (backed-off) fine timeout again.
    pub fn recovery_retransmits(&self) -> u64 {
        self.recovery_retransmits
    }

    pub(super) fn set_mss(&mut self, mss: u32) {
        let want = sent_capacity(mss);
        self.sent.reserve(want.saturating_sub(self.sent.len()));
    }

    /// Fine-grained retransmission timeout, once a sample exists (§3.1; RFC 6298 arithmetic).
    pub fn fine_timeout(&self) -> Option<Duration> {
        if self.mode == VegasRetransmit::Ns2 {
            return self.ns2.timeout();
        }
        let srtt = self.fine.srtt()?;
        Some(Duration(srtt.0 + (4 * self.fine.rttvar().0).max(VEGAS_FINE_RTO_GRANULARITY.0)))
    }

    /// Retransmissions triggered on a first or second duplicate ACK by the fine-grained timeout.
    pub fn early_retransmits(&self) -> u64 {
        self.early_retransmits
    }

    /// Retransmissions triggered on a new ACK after a retransmission by the fine-grained timeout.
    pub fn worried_retransmits(&self) -> u64 {
        self.worried_retransmits
    }

    /// A segment [pos, end) left (a retransmission if `pos` was sent before): record its time.
    pub(super) fn on_segment_sent(&mut self, now: Time, pos: u64, end: u64, retransmission: bool) {
        if retransmission {
            // Every recorded segment overlapping [pos, end) was sent again now.
            let mut start = 0;
            for s in self.sent.iter_mut() {
                if s.end > pos && start < end {
                    s.sent_at = now;
                    s.retransmitted = true;
                }
                start = s.end;
                if start >= end {
                    break;
                }
            }
        }
        if self.sent.back().is_none_or(|s| end > s.end) {
            self.sent.push_back(SentSegment { end, sent_at: now, retransmitted: false });
        }
    }

    /// The segment at snd_una was sent longer ago than the fine-grained timeout.
    fn head_expired(&self, now: Time) -> bool {
        match (self.sent.front(), self.fine_timeout()) {
            (Some(s), Some(t)) => now.saturating_since(s.sent_at) >= t,
            _ => false,
        }
    }

    /// First or second duplicate ACK (§3.1): should snd_una be retransmitted now?
    pub(super) fn dup_ack_expired(&self, now: Time) -> bool {
        self.head_expired(now)
    }

    /// Fast recovery entered by the fine-grained check: ns-2's reduction (see the module
    /// docs); returns the new ssthresh.
    pub(super) fn on_early_retransmit(&mut self, flight: u32, dupacks: u32) -> u32 {
        if self.mode == VegasRetransmit::Ns2 {
            self.early_retransmits += 1;
            return self.ns2_dup_retransmit(self.ack_now, dupacks);
        }
        let mss = self.aimd.mss;
        let w = flight.min(self.aimd.cwnd);
        let again = self.sent.front().is_some_and(|s| s.retransmitted);
        let target = if w <= 3 * mss {
            2 * mss
        } else if again {
            w / 2
        } else {
            w - w / 4
        };
        self.in_loss = true;
        self.worried = VEGAS_WORRIED_ACKS;
        self.early_retransmits += 1;
        self.aimd.enter_fast_recovery(target, dupacks)
    }

    /// `Ns2` mode: a duplicate ACK retransmits snd_una (fine timeout or DupThresh): back the
    /// fine timeout off, cut the window if not cut since that segment was sent, check the next
    /// one or two new ACKs; returns ssthresh.
    fn ns2_dup_retransmit(&mut self, now: Time, dupacks: u32) -> u32 {
        let (again, sent_at) = self.sent.front().map_or((false, now), |s| (s.retransmitted, s.sent_at));
        self.ns2.back_off(again);
        self.worried = (self.sent.len() as u8).min(VEGAS_WORRIED_ACKS);
        let a = &mut self.aimd;
        // The un-inflated window: ssthresh holds it during recovery.
        let w = if self.in_loss { a.ssthresh } else { a.cwnd };
        self.in_loss = true;
        match ns2_cut(w, a.mss, again, sent_at, self.cut_at) {
            Some(target) => {
                self.cut_at = Some(now);
                a.enter_fast_recovery(target, dupacks)
            }
            None => a.enter_fast_recovery(w, dupacks),
        }
    }

    /// `Ns2` mode, a duplicate ACK during recovery: if snd_una's segment outlived the fine
    /// timeout (again), resend it (ns-2 checks every duplicate ACK); true if so.
    pub(super) fn ns2_resend_in_recovery(&mut self, now: Time, dupacks: u32) -> bool {
        if self.mode != VegasRetransmit::Ns2 || !self.in_loss || !self.head_expired(now) {
            return false;
        }
        self.recovery_retransmits += 1;
        self.ns2_dup_retransmit(now, dupacks);
        true
    }

    /// A new ACK (after `on_ack_arrival`): within the first two after a retransmission, should
    /// the new snd_una segment be resent because it expired (§3.1)? No window change.
    pub(super) fn new_ack_expired(&mut self, now: Time) -> bool {
        if self.worried == 0 {
            return false;
        }
        self.worried -= 1;
        if self.head_expired(now) {
            true
        } else {
            self.worried = 0; // ns-2: nothing expired, stop worrying
            false
        }
    }

    /// The connection resent snd_una because [`Self::new_ack_expired`] said so.
    pub(super) fn count_worried_retransmit(&mut self) {
        self.worried_retransmits += 1;
    }

    /// Drop ACKed segments; an ACK ending exactly at a segment none of whose covered segments
    /// was retransmitted is a fine-grained sample (Karn).
    fn on_new_ack_sent_times(&mut self, now: Time, ack: u64) {
        let mut last = None;
        let mut clean = true;
        let mut covered = 0;
        while let Some(s) = self.sent.front().copied().filter(|s| s.end <= ack) {
            self.sent.pop_front();
            clean &= !s.retransmitted;
            last = Some(s);
            covered += 1;
        }
        // A receiver that ever ACKs two segments at once delays its ACKs (RFC 5681 §4.2); from
        // then on only such ACKs are samples, because a one-segment ACK may have waited for
        // the delayed-ACK timer — a wait the immediate duplicate ACKs this timeout is compared
        // against never contain. A receiver that ACKs every segment gives a sample per ACK.
        if self.mode == VegasRetransmit::Ns2 {
            // ns-2: the ACKed segment, if sent once, whatever the receiver's ACK policy.
            if let Some(s) = last.filter(|s| !s.retransmitted && s.end == ack) {
                self.ns2.sample(now.saturating_since(s.sent_at));
            }
            return;
        }
        if covered >= 2 {
            self.peer_delays_acks = true;
        }
        if let (Some(s), true, true) = (last, clean, covered >= 2 || !self.peer_delays_acks) {
            if s.end == ack {
                self.fine_sample(now.saturating_since(s.sent_at));
            }
        }
    }

    /// RFC 6298 §2.2–2.3 on a nanosecond sample.
    fn fine_sample(&mut self, r: Duration) {
        self.fine.sample(r);
    }

    /// Smallest RTT seen (BaseRTT).
    pub fn base_rtt(&self) -> Option<Duration> {
        self.base_rtt
    }

    /// Diff of the last completed epoch, in segments.
    pub fn diff(&self) -> Option<f64> {
        self.diff
    }

    pub(super) fn on_ack_arrival(&mut self, a: &AckInfo) {
        self.ack_now = a.now;
        if let Some(r) = a.fine_rtt.filter(|r| r.0 > 0) {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.epoch_rtt = Some(self.epoch_rtt.map_or(r, |e| e.min(r)));
        }
        if !a.is_dup {
            self.on_new_ack_sent_times(a.now, a.ack);
        }
        if a.is_dup || self.in_loss {
            return;
        }
        match self.mark {
            Some(m) if a.ack <= m => return,
            Some(_) => self.end_epoch(a.now),
            None => {}
        }
        self.mark = Some(a.snd_nxt);
        self.epoch_start = a.now;
        self.epoch_rtt = None;
    }

    /// Once per RTT: compare expected and actual rate (Brakmo §3.2) and pick the next step.
    fn end_epoch(&mut self, now: Time) {
        let rtt = self.epoch_rtt.unwrap_or_else(|| now.saturating_since(self.epoch_start));
        if rtt.0 == 0 {
            return;
        }
        let base = *self.base_rtt.get_or_insert(rtt);
        let a = &mut self.aimd;
        let cwnd_segs = a.cwnd as f64 / a.mss as f64;
        let diff = cwnd_segs * (rtt.as_secs_f64() - base.as_secs_f64()) / rtt.as_secs_f64();
        self.diff = Some(diff);
        if a.in_slow_start() {
            self.ss_grow = !self.ss_grow;
            if self.ss_grow && diff > VEGAS_GAMMA {
                // ns-2: "slow-down a bit to ensure the net is not so congested".
                a.cwnd = (a.cwnd - a.cwnd / 8).max(2 * a.mss);
                a.ssthresh = 2 * a.mss;
                self.ss_grow = false;
                self.ca_grow = false;
            }
        } else if diff > VEGAS_BETA {
            a.cwnd = a.cwnd.saturating_sub(a.mss).max(2 * a.mss);
            // Stay in avoidance (Linux `tcp_vegas_ssthresh`): after a loss ssthresh = cwnd,
            // and a Vegas decrease must not look like a reason to slow-start.
            a.ssthresh = a.ssthresh.min(a.cwnd);
            self.ca_grow = false;
        } else {
            self.ca_grow = diff < VEGAS_ALPHA;
        }
        if !self.ca_grow {
            a.ca_bytes = 0;
        }
    }

    pub(super) fn on_ack(&mut self, bytes_acked: u32, bytes_in_flight: u32) {
        let a = &mut self.aimd;
        if a.in_slow_start() {
            if self.ss_grow {
                a.slow_start(bytes_acked);
            }
        } else if self.ca_grow && bytes_in_flight.saturating_add(2 * a.mss) >= a.cwnd {
            a.congestion_avoidance(bytes_acked);
        }
    }

    pub(super) fn on_enter_recovery(&mut self, flight: u32, dupacks: u32) -> u32 {
        if self.mode == VegasRetransmit::Ns2 {
            return self.ns2_dup_retransmit(self.ack_now, dupacks); // ns-2 cuts the same way on DupThresh
        }
        self.in_loss = true;
        self.worried = VEGAS_WORRIED_ACKS; // ns-2 checks after every dupACK retransmission
        let ssthresh = self.aimd.halve(flight);
        self.aimd.enter_fast_recovery(ssthresh, dupacks)
    }

    pub(super) fn on_exit_recovery(&mut self) {
        self.aimd.deflate();
        self.restart();
    }

    pub(super) fn on_timeout(&mut self, now: Time, flight: u32) {
        self.worried = 0;
        let ssthresh = self.aimd.halve(flight);
        self.aimd.collapse(ssthresh);
        if self.mode == VegasRetransmit::Ns2 {
            self.aimd.cwnd = 2 * self.aimd.mss; // ns-2 `v_slowstart_`
            self.cut_at = Some(now);
        }
        self.restart();
    }

    fn restart(&mut self) {
        self.in_loss = false;
        self.mark = None;
        self.ss_grow = true;
        self.ca_grow = false;
    }
}

/// Ring capacity for a 64 KiB window of `mss`-byte segments, plus slack for a FIN and small
/// segments.
fn sent_capacity(mss: u32) -> usize {
    (65_535 / mss.max(1)) as usize + 8
}

#[cfg(test)]
mod tests {
    use super::super::{CongestionControl, CongestionControlKind, VegasRetransmit};
    use super::*;

    const MSS: u32 = 1000;

    /// One synthetic round trip: the window [ack, ack + cwnd) is ACKed one SMSS at a time over
    /// `rtt`, each ACK releasing one new segment; the first ACK carries the sample of the
    /// segment timed in this round (as the connection's one timed segment per RTT).
    fn round(cc: &mut CongestionControl, now: &mut Time, ack: &mut u64, rtt: Duration) {
        let segs = (cc.cwnd() / MSS).max(1) as u64;
        let end = *ack + segs * MSS as u64;
        for i in 0..segs {
            *now += Duration(rtt.0 / segs);
            *ack += MSS as u64;
            let info = AckInfo {
                now: *now,
                ack: *ack,
                snd_nxt: end + i * MSS as u64,
                bytes_acked: MSS,
                is_dup: false,
                rtt: None,
                fine_rtt: (i == 0).then_some(rtt),
                srtt: Some(rtt),
            };
            cc.on_ack_arrival(&info);
            cc.on_ack(*now, MSS, None, (segs * MSS as u64) as u32);
        }
    }

    fn in_avoidance(cwnd_segs: u32) -> CongestionControl {
        let mut cc = CongestionControl::new(CongestionControlKind::Vegas, MSS, cwnd_segs);
        // A fast retransmit and its end put the sender in congestion avoidance at cwnd_segs.
        cc.on_enter_recovery(2 * cwnd_segs * MSS, 3);
        cc.on_exit_recovery(0);
        assert_eq!(cc.cwnd(), cwnd_segs * MSS);
        cc
    }

    #[test]
    fn avoidance_moves_one_segment_per_rtt_toward_the_alpha_beta_band() {
        let base = Duration::from_millis(100);
        let mut now = Time::ZERO;
        let mut ack = 1;
        // Diff = 0 (no queue): +1 SMSS per RTT.
        let mut cc = in_avoidance(20);
        for _ in 0..5 {
            round(&mut cc, &mut now, &mut ack, base);
        }
        let c = cc.cwnd();
        for _ in 0..4 {
            round(&mut cc, &mut now, &mut ack, base);
        }
        assert_eq!(cc.cwnd(), c + 4 * MSS, "Diff < α: one SMSS per RTT");

        // RTT with Diff = 20·(1 − 100/133.3) = 5 > β: −1 SMSS per RTT.
        let mut cc = in_avoidance(20);
        round(&mut cc, &mut now, &mut ack, base); // BaseRTT
        let slow = Duration::from_secs_f64(0.1 / 0.75);
        round(&mut cc, &mut now, &mut ack, slow);
        let c = cc.cwnd();
        for _ in 0..3 {
            round(&mut cc, &mut now, &mut ack, slow);
        }
        assert_eq!(cc.cwnd(), c - 3 * MSS, "Diff > β: one SMSS less per RTT");
        let d = cc.vegas().and_then(Vegas::diff).expect("diff");
        assert!(d > VEGAS_BETA, "{d}");

        // Diff = 2 (between α and β): hold.
        let mut cc = in_avoidance(20);
        round(&mut cc, &mut now, &mut ack, base);
        let mid = Duration::from_secs_f64(0.1 / 0.9);
        round(&mut cc, &mut now, &mut ack, mid);
        let c = cc.cwnd();
        for _ in 0..5 {
            round(&mut cc, &mut now, &mut ack, mid);
        }
        assert_eq!(cc.cwnd(), c, "α ≤ Diff ≤ β: hold");
        assert_eq!(cc.vegas().and_then(Vegas::base_rtt), Some(base));
    }

    #[test]
    fn slow_start_grows_every_other_rtt_and_exits_on_gamma() {
        let mut cc = CongestionControl::new(CongestionControlKind::Vegas, MSS, 2);
        let (mut now, mut ack) = (Time::ZERO, 1u64);
        let base = Duration::from_millis(100);
        let mut w = Vec::new();
        for _ in 0..6 {
            round(&mut cc, &mut now, &mut ack, base);
            w.push(cc.cwnd() / MSS);
        }
        // Round 1 grows (the first epoch); each epoch's decision is taken at the first ACK of
        // the next round, so growth alternates round by round.
        assert_eq!(w, vec![4, 4, 8, 8, 16, 16], "{w:?}");
        // A queue shows up: Diff = 16·(1 − 100/125) = 3.2 > γ at the end of the hold RTT.
        let before = cc.cwnd();
        round(&mut cc, &mut now, &mut ack, Duration::from_millis(125));
        assert_eq!(cc.cwnd(), before - before / 8, "leaves slow start with cwnd − cwnd/8");
        assert_eq!(cc.ssthresh(), 2 * MSS);
    }

    /// Vegas with ns-2's rules, `segs` segments of MSS sent at 0, 1, 2 … ms, the first ACKed
    /// at 100 ms (one fine sample of 100 ms: timeout (100 + 2·18.75)·17/16 ms).
    fn ns2_after_one_sample(segs: u64) -> (CongestionControl, u64) {
        let mut cc = CongestionControl::new(CongestionControlKind::Vegas, MSS, segs as u32);
        cc.set_vegas_retransmit(VegasRetransmit::Ns2);
        for i in 0..segs {
            cc.on_segment_sent(Time(i * 1_000_000), 1 + i * MSS as u64, 1 + (i + 1) * MSS as u64, false);
        }
        let ack = 1 + MSS as u64;
        cc.on_ack_arrival(&info(Time(100_000_000), ack, false));
        (cc, ack)
    }

    fn info(now: Time, ack: u64, is_dup: bool) -> AckInfo {
        AckInfo { now, ack, snd_nxt: ack + 20 * MSS as u64, bytes_acked: if is_dup { 0 } else { MSS }, is_dup, rtt: None, fine_rtt: None, srtt: None }
    }

    const NS2_TIMEOUT_NS: u64 = 146_093_750; // (100 + 37.5)·17/16 ms

    #[test]
    fn ns2_duplicate_acks_retransmit_only_once_the_head_outlived_the_fine_timeout() {
        let (mut cc, ack) = ns2_after_one_sample(10);
        let v = cc.vegas().expect("vegas");
        assert_eq!(v.fine_timeout(), Some(Duration(NS2_TIMEOUT_NS)));
        // The head (sent at 1 ms) is 1 ns short of the timeout: nothing.
        let early = Time(1_000_000 + NS2_TIMEOUT_NS - 1);
        cc.on_ack_arrival(&info(early, ack, true));
        assert!(!cc.fine_timeout_expired(early));
        let at = Time(1_000_000 + NS2_TIMEOUT_NS);
        cc.on_ack_arrival(&info(at, ack, true));
        assert!(cc.fine_timeout_expired(at), "on the second duplicate, at the timeout");
        // First loss of a 10-segment window: cut by a quarter, timeout backed off ×9/8.
        let ss = cc.on_early_retransmit(9 * MSS, 2);
        assert_eq!((ss, cc.cwnd()), (10 * MSS - 10 * MSS / 4, 10 * MSS - 10 * MSS / 4 + 2 * MSS));
        let t = cc.vegas().and_then(Vegas::fine_timeout).expect("timeout");
        assert!(t.0.abs_diff(NS2_TIMEOUT_NS + NS2_TIMEOUT_NS / 8) <= 1, "{t}");
        // The retransmission leaves now; later duplicates before its timeout change nothing.
        cc.on_segment_sent(at, ack, ack + MSS as u64, true);
        let later = Time(at.0 + t.0 - 1);
        assert!(!cc.ns2_resend_in_recovery(later, 3));
        // At its timeout it goes again: ×2 (a retransmission), but no second cut (the window
        // was cut when it was sent, not before).
        let again = Time(at.0 + t.0);
        assert!(cc.ns2_resend_in_recovery(again, 4));
        assert_eq!(cc.ssthresh(), ss, "cut once");
        let t2 = cc.vegas().and_then(Vegas::fine_timeout).expect("timeout");
        assert!(t2.0.abs_diff(2 * t.0) <= 1, "{t2} {t}");
        assert_eq!(cc.vegas().map(Vegas::recovery_retransmits), Some(1));
    }

    #[test]
    fn ns2_small_windows_fall_to_two_segments_and_the_dupthresh_retransmit_cuts_by_a_quarter() {
        let (mut cc, ack) = ns2_after_one_sample(3);
        cc.on_ack_arrival(&info(Time(105_000_000), ack, true));
        assert_eq!(cc.on_enter_recovery(2 * MSS, 3), 2 * MSS, "≤ 3 segments → 2");
        let (mut cc, ack) = ns2_after_one_sample(16);
        cc.on_ack_arrival(&info(Time(105_000_000), ack, true));
        assert_eq!(cc.on_enter_recovery(15 * MSS, 3), 12 * MSS, "DupThresh: −1/4, not FlightSize/2");
    }

    #[test]
    fn ns2_checks_the_first_and_second_new_ack_after_a_retransmission() {
        let (mut cc, ack) = ns2_after_one_sample(10);
        let at = Time(1_000_000 + NS2_TIMEOUT_NS);
        cc.on_ack_arrival(&info(at, ack, true));
        cc.on_early_retransmit(9 * MSS, 1);
        cc.on_segment_sent(at, ack, ack + MSS as u64, true);
        // 1st new ACK (the retransmission arrived) 100 ms later: the next head (sent at 2 ms)
        // is older than the backed-off timeout: resend it.
        let t1 = Time(at.0 + 100_000_000);
        cc.on_ack_arrival(&info(t1, ack + MSS as u64, false));
        assert!(cc.resend_after_retransmit(t1), "1st new ACK, expired head");
        cc.on_segment_sent(t1, ack + MSS as u64, ack + 2 * MSS as u64, true);
        // 2nd new ACK: the head (sent at 3 ms) expired too.
        let t2 = Time(t1.0 + 1_000_000);
        cc.on_ack_arrival(&info(t2, ack + 2 * MSS as u64, false));
        assert!(cc.resend_after_retransmit(t2), "2nd new ACK, expired head");
        // A 3rd new ACK is not checked, however old the head.
        let t3 = Time(t2.0 + 1_000_000);
        cc.on_ack_arrival(&info(t3, ack + 3 * MSS as u64, false));
        assert!(!cc.resend_after_retransmit(t3), "only the first two");
    }

    #[test]
    fn ns2_a_fresh_head_on_the_first_new_ack_ends_the_checks() {
        let (mut cc, ack) = ns2_after_one_sample(10);
        let at = Time(1_000_000 + NS2_TIMEOUT_NS);
        cc.on_ack_arrival(&info(at, ack, true));
        cc.on_early_retransmit(9 * MSS, 1);
        cc.on_segment_sent(at, ack, ack + MSS as u64, true);
        // Resend the rest as fresh (sent now): on the 1st new ACK the head has not expired.
        for i in 1..9u64 {
            cc.on_segment_sent(at, ack + i * MSS as u64, ack + (i + 1) * MSS as u64, true);
        }
        let t1 = Time(at.0 + 50_000_000);
        cc.on_ack_arrival(&info(t1, ack + MSS as u64, false));
        assert!(!cc.resend_after_retransmit(t1));
        let t2 = Time(t1.0 + 500_000_000);
        cc.on_ack_arrival(&info(t2, ack + 2 * MSS as u64, false));
        assert!(!cc.resend_after_retransmit(t2), "a head that had not expired stops the checks");
    }
}
