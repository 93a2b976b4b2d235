//! Loss-recovery bookkeeping: duplicate-ACK counting, fast retransmit and the NewReno `recover`
//! point (RFC 5681 §3.2, RFC 6582 §3.2), which is also RFC 6675's RecoveryPoint for the SACK
//! style. Window arithmetic lives in [`super::cc`]; the SACK scoreboard in [`super::scoreboard`].
//!
//! Positions are unwrapped sequence offsets (see [`super::seq::SeqSpace`]).

use super::cc::RecoveryStyle;
use super::named_option::named_option;

named_option! {
    /// When SACK loss recovery may start again after the last one (`TcpConfig::recovery_point`).
    pub enum RecoveryPoint("recovery_point") {
        /// RFC 6675 §5 / RFC 6582: only on a cumulative ACK *beyond* RecoveryPoint (the
        /// highest sequence sent when the last recovery or timeout began).
        #[default]
        Rfc6675 = "rfc6675",
        /// Linux 6.18: once snd_una reaches `high_seq` the sender is back in Open
        /// (`tcp_try_undo_recovery`, "SACK TCP is safe"; `tcp_process_loss` after an RTO), so
        /// a segment lost at exactly the old recovery point starts a new recovery at once.
        Linux = "linux",
    }
    aliases { "rfc" => Rfc6675 }
    /// A name that matches no [`RecoveryPoint`].
    error UnknownRecoveryPoint;
}

/// What to do on a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAckAction {
    /// Nothing yet (below the threshold, or the `recover` check forbids a new recovery).
    None,
    /// Fast retransmit the segment at snd_una and enter fast recovery.
    FastRetransmit,
    /// Already in recovery: inflate the window (not for the SACK style, whose pipe estimate
    /// replaces window inflation: RFC 6675 §5).
    Inflate,
}

/// What to do on an ACK of new data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewAckAction {
    /// Not in recovery: normal window growth.
    Normal,
    /// NewReno partial ACK: retransmit the segment at the new snd_una, deflate partially.
    /// `first` is true for the first partial ACK of this recovery (restart the RTO only then).
    PartialAck {
        /// First partial ACK of this recovery episode.
        first: bool,
    },
    /// Recovery is over: deflate to ssthresh.
    ExitRecovery,
    /// SACK recovery continues (RFC 6675 §5 (B)): cwnd stays, the scoreboard's pipe decides
    /// what may be sent.
    StayInRecovery,
}

/// Duplicate-ACK counter and recovery state.
#[derive(Clone, Debug, Default)]
pub struct LossRecovery {
    dupacks: u32,
    in_recovery: bool,
    /// Highest position sent when recovery (or the last timeout) started (exclusive end).
    recover: u64,
    partial_acks: u32,
    /// The SACK style may start at an ACK equal to `recover` ([`RecoveryPoint::Linux`]).
    sack_at_point: bool,
}

impl LossRecovery {
    /// A counter whose SACK recovery restarts by `rule`.
    pub fn new(rule: RecoveryPoint) -> Self {
        LossRecovery { sack_at_point: rule == RecoveryPoint::Linux, ..Default::default() }
    }

    /// Consecutive duplicate ACKs seen.
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }

    /// True during fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// The NewReno `recover` point.
    pub fn recover(&self) -> u64 {
        self.recover
    }

    /// A duplicate ACK (RFC 5681 §2 definition) for `ack` arrived while `snd_max` was sent.
    pub fn on_dup_ack(
        &mut self,
        ack: u64,
        snd_max: u64,
        threshold: u32,
        style: RecoveryStyle,
        fast_recovery: bool,
    ) -> DupAckAction {
        self.dupacks = self.dupacks.saturating_add(1);
        if self.in_recovery {
            return if fast_recovery && style != RecoveryStyle::Sack { DupAckAction::Inflate } else { DupAckAction::None };
        }
        if self.dupacks != threshold.max(1) {
            return DupAckAction::None;
        }
        if !self.may_start(ack, style, fast_recovery) {
            return DupAckAction::None;
        }
        self.recover = snd_max;
        // Without fast recovery there is no recovery state: the retransmission is followed by
        // slow start, and further duplicates of this episode just count (and are ignored).
        self.in_recovery = fast_recovery;
        self.partial_acks = 0;
        DupAckAction::FastRetransmit
    }

    /// RFC 6582 §3.2 step 2 / RFC 6675 §5: only start a new recovery if the ACK covers more
    /// than `recover` (RecoveryPoint), so one window of losses causes one window reduction.
    /// Without fast recovery (Tahoe) the same check is ns-2's `bug_fix_`: after a fast
    /// retransmit or an RTO the sender goes back to snd_una, and the duplicate ACKs that the
    /// resent copies of already-received segments provoke must not trigger another one.
    /// With [`RecoveryPoint::Linux`] the SACK style may also start at `ack == recover`.
    fn may_start(&self, ack: u64, style: RecoveryStyle, fast_recovery: bool) -> bool {
        (style == RecoveryStyle::Reno && fast_recovery)
            || ack > self.recover
            || self.recover == 0
            || (self.sack_at_point && style == RecoveryStyle::Sack && ack == self.recover)
    }

    /// SACK loss detection without DupThresh duplicate ACKs (RFC 6675 §5: `IsLost(HighACK+1)`):
    /// enter recovery if allowed; returns true if it did.
    pub fn enter_on_sack_loss(&mut self, ack: u64, snd_max: u64) -> bool {
        if self.in_recovery || !self.may_start(ack, RecoveryStyle::Sack, true) {
            return false;
        }
        self.recover = snd_max;
        self.in_recovery = true;
        self.partial_acks = 0;
        true
    }

    /// Vegas's fine-grained timeout expired on a duplicate ACK below DupThresh (Brakmo &
    /// Peterson §3.1): enter recovery as on a fast retransmit if the `recover` check allows
    /// (one window reduction per window of losses); returns true if it did.
    pub fn enter_on_fine_timeout(&mut self, ack: u64, snd_max: u64, style: RecoveryStyle) -> bool {
        if self.in_recovery || !self.may_start(ack, style, true) {
            return false;
        }
        self.recover = snd_max;
        self.in_recovery = true;
        self.partial_acks = 0;
        true
    }

    /// An ACK advancing snd_una to `ack` arrived.
    pub fn on_new_ack(&mut self, ack: u64, style: RecoveryStyle) -> NewAckAction {
        if !self.in_recovery {
            self.dupacks = 0;
            return NewAckAction::Normal;
        }
        match style {
            RecoveryStyle::NewReno if ack < self.recover => {
                // Partial ACK: stay in recovery; dupacks keep counting from zero.
                self.dupacks = 0;
                self.partial_acks += 1;
                NewAckAction::PartialAck { first: self.partial_acks == 1 }
            }
            // RFC 6675 §5 (A): only a cumulative ACK covering RecoveryPoint ends recovery.
            RecoveryStyle::Sack if ack < self.recover => {
                self.dupacks = 0;
                NewAckAction::StayInRecovery
            }
            _ => {
                self.in_recovery = false;
                self.dupacks = 0;
                NewAckAction::ExitRecovery
            }
        }
    }

    /// Retransmission timeout: leave recovery, remember the highest sent position (RFC 6582 §4).
    pub fn on_timeout(&mut self, snd_max: u64) {
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = snd_max;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A SACK recovery that began with 10 000 bytes sent, ended by a cumulative ACK of exactly
    /// 10 000 (RecoveryPoint); then a loss is detected at that ACK.
    fn after_recovery(rule: RecoveryPoint) -> LossRecovery {
        let mut r = LossRecovery::new(rule);
        assert!(r.enter_on_sack_loss(5_000, 10_000));
        assert_eq!(r.on_new_ack(10_000, RecoveryStyle::Sack), NewAckAction::ExitRecovery);
        r
    }

    #[test]
    fn rfc6675_waits_for_an_ack_beyond_the_recovery_point() {
        let mut r = after_recovery(RecoveryPoint::Rfc6675);
        assert!(!r.enter_on_sack_loss(10_000, 14_000), "HighACK must exceed RecoveryPoint");
        assert!(r.enter_on_sack_loss(10_001, 14_000));
    }

    #[test]
    fn linux_starts_again_at_the_recovery_point() {
        let mut r = after_recovery(RecoveryPoint::Linux);
        assert!(r.enter_on_sack_loss(10_000, 14_000), "Open once snd_una reaches high_seq");
        assert_eq!(r.recover(), 14_000);
        assert!(!r.enter_on_sack_loss(10_000, 15_000), "not twice in one recovery");
        // Below the point (an ACK inside the old window) still starts nothing.
        let mut r = LossRecovery::new(RecoveryPoint::Linux);
        r.on_timeout(20_000);
        assert!(!r.enter_on_sack_loss(19_999, 21_000));
        assert!(r.enter_on_sack_loss(20_000, 21_000), "after an RTO too (tcp_process_loss)");
    }

    #[test]
    fn linux_rule_leaves_the_reno_and_newreno_dupack_styles_alone() {
        for style in [RecoveryStyle::NewReno, RecoveryStyle::Sack] {
            let mut r = LossRecovery::new(RecoveryPoint::Linux);
            r.on_timeout(10_000);
            for _ in 0..2 {
                assert_eq!(r.on_dup_ack(10_000, 12_000, 3, style, true), DupAckAction::None);
            }
            let want = if style == RecoveryStyle::Sack { DupAckAction::FastRetransmit } else { DupAckAction::None };
            assert_eq!(r.on_dup_ack(10_000, 12_000, 3, style, true), want, "{style:?}");
        }
        assert_eq!(RecoveryPoint::from_name("linux"), Ok(RecoveryPoint::Linux));
        assert!(RecoveryPoint::from_name("bsd").unwrap_err().to_string().contains("unknown recovery_point `bsd` (known: rfc6675, linux)"));
    }
}
