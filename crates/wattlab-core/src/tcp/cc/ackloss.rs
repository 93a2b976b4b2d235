//! ACK-loss-aware TCP (Hashimoto, Hasegawa & Murata; Hashimoto's PhD thesis, Osaka University
//! 2013, Ch. 2, Algorithm 1 and Eqs. 2.1–2.4), on Reno: a sender that counts *lost ACKs* from
//! jumps of the cumulative ACK and halves cwnd when ACK loss persists, so upstream flows back
//! off when the AP's queue drops their ACKs (the cure for upstream/downstream starvation).
//!
//! Per new ACK (jump J = ack − prev_ack bytes, in segments J/MSS):
//! - sb ← (1 − β)·sb + β·J/MSS with β = 1/32 and sb₀ = 2 segments (Eq. 2.3; the printed
//!   `sb ← MSS × 2` is read as 2 segments, the typical delayed-ACK factor);
//! - b_est = max(⌊sb + ½⌋, 1) (Eq. 2.2, rounding half-up; the floor of 1 avoids a division by
//!   zero the thesis does not guard against);
//! - cnt_ack_loss += max(⌊J / (b_est·MSS)⌋ − 1, 0) (Eq. 2.4: the clamp is per ACK, not on the
//!   running sum as Algorithm 1's line 9 prints it, which would let every duplicate ACK
//!   decrement the counter). Without delayed ACK the EWMA settles at b_est = 1 after ~22
//!   ACKs and this is Eq. 2.1.
//!
//! Per RTT (an epoch: from an ACK, with mark = snd_nxt, to the first ACK at or beyond the mark,
//! as Vegas's epochs and a Linux implementation driven by snd_una passing a marker), after the
//! epoch's last ACK is counted:
//! - waiting: if cnt ≥ thresh (1) and no data loss since the wait began, halve: cwnd ←
//!   max(cwnd/2, 1 SMSS), ssthresh ← cwnd (the thesis's ssthresh = cwnd, so it may go below
//!   Reno's 2·SMSS floor); then reset cnt, data_loss and wait;
//! - not waiting: if cnt ≥ thresh or a data loss occurred, wait one more RTT (the count is
//!   *not* reset, so the confirmation RTT adds to it).
//!
//! Other choices where the thesis is silent:
//! - Duplicate ACKs count nothing and do not move the EWMA (their jump is 0).
//! - An ACK older than snd_una ("packet disorder": it was overtaken by a later ACK whose jump
//!   counted it as lost) decrements cnt, floored at 0.
//! - Data loss = entering fast recovery or an RTO. ACKs that acknowledge data the sender was
//!   repairing (from the loss until snd_una passes the highest snd_nxt seen when it was
//!   detected) are not counted and do not move the EWMA: their jump measures the repaired
//!   hole, not lost ACKs. The data-loss flag suppresses any halving at the end of the
//!   following RTT anyway (Algorithm 1).
//! - An epoch ending during fast recovery never halves (Reno's own halving is in progress);
//!   its state is reset as after a data loss.
//! - Growth, fast recovery and RTO are Reno's (RFC 5681) unchanged.

use super::aimd::Aimd;
use super::AckInfo;

/// EWMA gain β of the ACK-jump estimate (thesis: 1/32).
pub const ACKLOSS_BETA: f64 = 1.0 / 32.0;
/// Initial smoothed ACK jump sb₀, in segments (thesis: b = 2).
pub const ACKLOSS_INITIAL_SB: f64 = 2.0;
/// ACK losses within an RTT that start the confirmation RTT (`thresh_ack_losses`; thesis: 1).
pub const ACKLOSS_THRESHOLD: u32 = 1;

/// ACK-loss-aware state: Reno window arithmetic plus Algorithm 1's counters.
#[derive(Clone, Debug)]
pub struct AckLoss {
    pub(super) aimd: Aimd,
    /// Smoothed ACK jump in segments (Eq. 2.3).
    sb: f64,
    /// Previous cumulative ACK position; `None` before the first ACK.
    prev_ack: Option<u64>,
    /// ACK losses counted since the last reset (Algorithm 1 `cnt_ack_loss`).
    cnt: u32,
    /// A data loss was seen since the last reset.
    data_loss: bool,
    /// In the confirmation RTT.
    wait: bool,
    /// End of the current RTT epoch (snd_nxt when it began); `None` = start at the next ACK.
    mark: Option<u64>,
    /// Highest snd_nxt reported by any ACK.
    max_snd_nxt: u64,
    /// ACKs up to here acknowledge data being repaired after a loss: not counted.
    repair_until: Option<u64>,
    /// In fast recovery (between `on_enter_recovery` and `on_exit_recovery`).
    in_recovery: bool,
    /// Halvings caused by ACK loss.
    reductions: u64,
    /// ACK losses counted over the connection's life.
    total_losses: u64,
    /// RTT epochs completed.
    epochs: u64,
}

impl AckLoss {
    pub(super) fn new(aimd: Aimd) -> Self {
        AckLoss {
            aimd,
            sb: ACKLOSS_INITIAL_SB,
            prev_ack: None,
            cnt: 0,
            data_loss: false,
            wait: false,
            mark: None,
            max_snd_nxt: 0,
            repair_until: None,
            in_recovery: false,
            reductions: 0,
            total_losses: 0,
            epochs: 0,
        }
    }

    /// Smoothed ACK jump sb in segments (Eq. 2.3).
    pub fn smoothed_jump(&self) -> f64 {
        self.sb
    }

    /// Estimated segments per ACK b_est = max(⌊sb + ½⌋, 1) (Eq. 2.2).
    pub fn b_est(&self) -> u32 {
        b_est(self.sb)
    }

    /// ACK losses counted since the last reset (`cnt_ack_loss`).
    pub fn ack_losses(&self) -> u32 {
        self.cnt
    }

    /// ACK losses counted over the connection's life.
    pub fn total_ack_losses(&self) -> u64 {
        self.total_losses
    }

    /// In the confirmation RTT (`wait_state`).
    pub fn waiting(&self) -> bool {
        self.wait
    }

    /// A data loss was seen since the last reset (`data_loss`).
    pub fn data_loss(&self) -> bool {
        self.data_loss
    }

    /// Window halvings caused by ACK loss.
    pub fn reductions(&self) -> u64 {
        self.reductions
    }

    /// RTT epochs completed.
    pub fn epochs(&self) -> u64 {
        self.epochs
    }

    pub(super) fn on_ack_arrival(&mut self, a: &AckInfo) {
        self.max_snd_nxt = self.max_snd_nxt.max(a.snd_nxt);
        if a.is_dup {
            return;
        }
        let prev = self.prev_ack.unwrap_or(a.ack.saturating_sub(a.bytes_acked as u64));
        self.prev_ack = Some(a.ack.max(prev));
        let repairing = self.repair_until.is_some_and(|r| prev < r);
        if self.repair_until.is_some_and(|r| a.ack >= r) {
            self.repair_until = None;
        }
        if a.ack > prev && !repairing && !self.in_recovery {
            self.count_jump(a.ack - prev);
        }
        match self.mark {
            None => self.mark = Some(a.snd_nxt),
            Some(m) if a.ack >= m => {
                self.end_rtt();
                self.mark = Some(a.snd_nxt);
            }
            Some(_) => {}
        }
    }

    /// One ACK advanced the cumulative ACK by `jump` bytes: Eqs. 2.3, 2.2 and 2.4.
    fn count_jump(&mut self, jump: u64) {
        let mss = self.aimd.mss as u64;
        self.sb = (1.0 - ACKLOSS_BETA) * self.sb + ACKLOSS_BETA * (jump as f64 / mss as f64);
        let b = b_est(self.sb) as u64;
        let lost = (jump / (b * mss)).saturating_sub(1);
        let lost = lost.min(u32::MAX as u64) as u32;
        self.cnt = self.cnt.saturating_add(lost);
        self.total_losses += lost as u64;
    }

    /// Algorithm 1, "on each RTT".
    fn end_rtt(&mut self) {
        self.epochs += 1;
        if self.wait {
            if self.cnt >= ACKLOSS_THRESHOLD && !self.data_loss && !self.in_recovery {
                let a = &mut self.aimd;
                a.cwnd = (a.cwnd / 2).max(a.mss);
                a.ssthresh = a.cwnd;
                a.ca_bytes = 0;
                self.reductions += 1;
            }
            self.data_loss = false;
            self.cnt = 0;
            self.wait = false;
        } else if self.cnt >= ACKLOSS_THRESHOLD || self.data_loss || self.in_recovery {
            self.wait = true;
        }
    }

    /// An ACK below snd_una arrived: ACK reordering ("packet disorder"), cnt − 1.
    pub(super) fn on_old_ack(&mut self) {
        self.cnt = self.cnt.saturating_sub(1);
    }

    fn on_data_loss(&mut self) {
        self.data_loss = true;
        self.repair_until = Some(self.max_snd_nxt.max(self.prev_ack.unwrap_or(0)));
    }

    pub(super) fn on_enter_recovery(&mut self, flight: u32, dupacks: u32) -> u32 {
        self.on_data_loss();
        self.in_recovery = true;
        let a = &mut self.aimd;
        a.enter_fast_recovery(a.halve(flight), dupacks)
    }

    pub(super) fn on_exit_recovery(&mut self) {
        self.in_recovery = false;
        self.aimd.deflate();
    }

    pub(super) fn on_timeout(&mut self, flight: u32) {
        self.on_data_loss();
        self.in_recovery = false;
        let a = &mut self.aimd;
        a.collapse(a.halve(flight));
    }
}

/// b_est = max(⌊sb + ½⌋, 1) (Eq. 2.2 with the b ≥ 1 guard).
fn b_est(sb: f64) -> u32 {
    ((sb + 0.5).floor() as u32).max(1)
}

#[cfg(test)]
mod tests {
    use super::super::{CongestionControl, CongestionControlKind};
    use super::*;
    use crate::time::Time;

    const MSS: u32 = 1000;

    /// A sender driven ACK by ACK with 10 segments in flight: the ACK of `pos` finds
    /// snd_nxt = pos + 10 segments, so an RTT epoch is 10 ACKs (one per segment).
    struct Drive {
        cc: CongestionControl,
    }

    const WINDOW: u64 = 10 * MSS as u64;

    impl Drive {
        fn new(cwnd_segments: u32) -> Self {
            let mut cc = CongestionControl::new(CongestionControlKind::AckLoss, MSS, cwnd_segments);
            // Start in congestion avoidance so growth is slow and halvings are easy to see.
            if let CongestionControl::AckLoss(s) = &mut cc {
                s.aimd.ssthresh = s.aimd.cwnd;
            }
            Drive { cc }
        }

        fn ack(&mut self, pos: u64, bytes: u32) {
            let a = AckInfo { now: Time::ZERO, ack: pos, snd_nxt: pos + WINDOW, bytes_acked: bytes, is_dup: false, rtt: None, fine_rtt: None, srtt: None };
            self.cc.on_ack_arrival(&a);
        }

        fn s(&self) -> &AckLoss {
            self.cc.ackloss().expect("ackloss")
        }

        /// One RTT: the 10 ACKs of the segments after `from`; `lost` lists ACK indices (0..9)
        /// that never arrive (the last, which ends the epoch, always does). Returns the new
        /// position.
        fn rtt(&mut self, from: u64, lost: &[usize]) -> u64 {
            let mut prev = from;
            for i in 0..10 {
                let pos = from + (i as u64 + 1) * MSS as u64;
                if lost.contains(&i) && i != 9 {
                    continue;
                }
                self.ack(pos, (pos - prev) as u32);
                prev = pos;
            }
            from + WINDOW
        }
    }

    #[test]
    fn ewma_starts_at_two_and_settles_at_one_without_delayed_ack() {
        let mut d = Drive::new(10);
        assert_eq!((d.s().smoothed_jump(), d.s().b_est()), (2.0, 2));
        let mut pos = 1;
        for k in 1..=40u32 {
            pos += MSS as u64;
            d.ack(pos, MSS);
            let expect = 1.0 + (31.0f64 / 32.0).powi(k as i32);
            assert!((d.s().smoothed_jump() - expect).abs() < 1e-12);
            // Rounding half-up: b_est = 2 while sb ≥ 1.5, i.e. for k ≤ 22.
            assert_eq!(d.s().b_est(), if expect >= 1.5 { 2 } else { 1 }, "k = {k}");
        }
        assert_eq!(d.s().total_ack_losses(), 0, "b_est = 2 hides nothing here: jumps of 1 count 0");
        assert_eq!(b_est(0.2), 1, "guard b ≥ 1");
        assert_eq!(b_est(2.5), 3, "half rounds up");
        assert_eq!(b_est(2.499), 2);
    }

    #[test]
    fn jumps_count_lost_acks_with_the_estimated_b() {
        let mut d = Drive::new(10);
        // b_est = 2 initially: a jump of 4 segments = 2 ACKs of 2, one lost (Eq. 2.4).
        d.ack(1 + 4 * MSS as u64, 4 * MSS);
        assert_eq!(d.s().ack_losses(), 1);
        // A jump of 5 segments: ⌊5/2⌋ − 1 = 1 more (sb is now (31·2 + 4)/32 ≈ 2.06, b = 2).
        d.ack(1 + 9 * MSS as u64, 5 * MSS);
        assert_eq!(d.s().ack_losses(), 2);
        // A jump of one segment (delayed-ACK timer) counts nothing (clamped per ACK at 0).
        d.ack(1 + 10 * MSS as u64, MSS);
        assert_eq!(d.s().ack_losses(), 2);
        // Reordering: an old ACK decrements.
        d.cc.on_old_ack();
        assert_eq!(d.s().ack_losses(), 1);
        d.cc.on_old_ack();
        d.cc.on_old_ack();
        assert_eq!(d.s().ack_losses(), 0, "floored at 0");
        // A duplicate ACK counts nothing and leaves sb alone.
        let sb = d.s().smoothed_jump();
        let dup = AckInfo { now: Time::ZERO, ack: 1 + 10 * MSS as u64, snd_nxt: 1 + 20 * MSS as u64, bytes_acked: 0, is_dup: true, rtt: None, fine_rtt: None, srtt: None };
        d.cc.on_ack_arrival(&dup);
        assert_eq!((d.s().ack_losses(), d.s().smoothed_jump()), (0, sb));
    }

    /// Settle the EWMA at b = 1 (no delayed ACK) with loss-free RTTs; returns the position.
    fn settled(d: &mut Drive) -> u64 {
        let mut pos = 1;
        d.ack(pos, 0); // first ACK: starts the first epoch, ending 10 ACKs later
        for _ in 0..4 {
            pos = d.rtt(pos, &[]);
        }
        assert_eq!(d.s().b_est(), 1);
        assert_eq!((d.s().ack_losses(), d.s().waiting()), (0, false));
        pos
    }

    #[test]
    fn halves_when_ack_loss_persists_for_two_rtts() {
        let mut d = Drive::new(20);
        let mut pos = settled(&mut d);
        let cwnd = d.cc.cwnd();
        pos = d.rtt(pos, &[3]);
        assert!(d.s().waiting(), "threshold reached: confirmation RTT");
        assert_eq!(d.s().ack_losses(), 1, "count kept into the confirmation RTT");
        assert_eq!(d.cc.cwnd(), cwnd, "no reduction yet");
        let before = d.cc.cwnd();
        d.rtt(pos, &[5]);
        assert_eq!(d.cc.cwnd(), before / 2, "halved after the confirmation RTT");
        assert_eq!(d.cc.ssthresh(), d.cc.cwnd(), "ssthresh = halved cwnd");
        assert_eq!((d.s().reductions(), d.s().ack_losses(), d.s().waiting()), (1, 0, false), "reset");
    }

    #[test]
    fn one_rtt_of_ack_loss_is_enough_when_the_count_stands() {
        // Algorithm 1 as printed: the count is not reset when the wait begins, so a single
        // RTT of loss followed by a clean RTT still halves (cnt ≥ 1 at the check).
        let mut d = Drive::new(20);
        let mut pos = settled(&mut d);
        pos = d.rtt(pos, &[3]);
        let before = d.cc.cwnd();
        d.rtt(pos, &[]);
        assert_eq!(d.s().reductions(), 1);
        assert_eq!(d.cc.cwnd(), before / 2);
    }

    #[test]
    fn one_rtt_of_loss_undone_by_reordering_does_not_halve() {
        // The "lost" ACK was only late: it arrives below snd_una in the confirmation RTT,
        // the count drops back to 0 and the window is kept.
        let mut d = Drive::new(20);
        let mut pos = settled(&mut d);
        pos = d.rtt(pos, &[3]);
        assert!(d.s().waiting());
        d.cc.on_old_ack();
        let before = d.cc.cwnd();
        d.rtt(pos, &[]);
        assert_eq!(d.s().reductions(), 0);
        assert!(d.cc.cwnd() >= before, "no halving: {} < {before}", d.cc.cwnd());
        assert!(!d.s().waiting(), "state reset after the confirmation RTT");
    }

    #[test]
    fn loss_free_rtts_never_wait_or_halve() {
        let mut d = Drive::new(20);
        let mut pos = settled(&mut d);
        for _ in 0..10 {
            pos = d.rtt(pos, &[]);
            assert!(!d.s().waiting());
        }
        assert_eq!(d.s().reductions(), 0);
        assert_eq!(d.s().epochs(), 14, "one epoch per 10 ACKs");
    }

    #[test]
    fn data_loss_suppresses_the_reaction_for_the_next_rtt() {
        let mut d = Drive::new(20);
        let mut pos = settled(&mut d);
        // ACK loss in this RTT, and a data loss (RTO) in it too.
        pos = d.rtt(pos, &[3]);
        assert!(d.s().waiting());
        d.cc.on_timeout(Time::ZERO, 20 * MSS);
        assert_eq!(d.cc.cwnd(), MSS, "Reno's own RTO reaction");
        assert!(d.s().data_loss());
        // The confirmation RTT sees more ACK loss, but the data loss suppresses halving.
        d.rtt(pos, &[2, 6]);
        assert_eq!(d.s().reductions(), 0, "suppressed after a data loss");
        assert_eq!(d.cc.cwnd(), MSS, "cwnd not halved below Reno's own reaction");
        assert!(!d.s().waiting() && !d.s().data_loss() && d.s().ack_losses() == 0, "reset");
    }

    #[test]
    fn data_loss_alone_starts_a_wait_that_resets_without_halving() {
        let mut d = Drive::new(20);
        let mut pos = settled(&mut d);
        // Fast retransmit in this RTT: Reno halves; the ACKs repairing the hole are not counted.
        let ss = d.cc.on_enter_recovery(20 * MSS, 3);
        assert_eq!(ss, 10 * MSS);
        d.cc.on_exit_recovery(0);
        assert_eq!(d.cc.cwnd(), 10 * MSS);
        pos = d.rtt(pos, &[]);
        assert!(d.s().waiting(), "a data loss starts the wait");
        // ACK loss in the confirmation RTT: still no halving (data_loss = 1).
        pos = d.rtt(pos, &[4]);
        assert_eq!(d.s().reductions(), 0);
        assert!(!d.s().waiting());
        // The next RTT is a fresh start: ACK loss here waits, and persists → halving.
        pos = d.rtt(pos, &[4]);
        assert!(d.s().waiting());
        let before = d.cc.cwnd();
        d.rtt(pos, &[7]);
        assert_eq!(d.s().reductions(), 1);
        assert_eq!(d.cc.cwnd(), before / 2);
    }

    #[test]
    fn repaired_hole_is_not_counted_as_ack_loss() {
        let mut d = Drive::new(20);
        let pos = settled(&mut d);
        d.ack(pos + MSS as u64, MSS); // segment 2 lost; dup ACKs follow, then fast retransmit
        d.cc.on_enter_recovery(10 * MSS, 3);
        // The retransmission's ACK covers the whole window: a jump of 9 segments, not 8 lost ACKs.
        d.ack(pos + 10 * MSS as u64, 9 * MSS);
        d.cc.on_exit_recovery(0);
        assert_eq!(d.s().total_ack_losses(), 0);
    }

    #[test]
    fn cwnd_floor_is_one_segment() {
        let mut d = Drive::new(1);
        let mut pos = 1;
        d.ack(pos, 0);
        for _ in 0..30 {
            pos = d.rtt(pos, &[1, 2, 3]);
        }
        assert!(d.s().reductions() > 0);
        assert!(d.cc.cwnd() >= MSS);
        assert!(d.cc.ssthresh() >= MSS);
    }
}
