//! Congestion-window arithmetic, one variant per algorithm, behind an enum (no `dyn`).
//!
//! Algorithms: Tahoe (4.3BSD-Tahoe as ns-2 `Agent/TCP`), Reno (RFC 5681), NewReno (RFC 6582),
//! Vegas ([`vegas`]), Westwood+ ([`westwood`]), CUBIC ([`cubic`], RFC 9438; Linux's arithmetic in [`cubic_linux`]) and the ACK-loss-aware
//! Reno of Hashimoto et al. ([`ackloss`]). All keep their
//! window in an [`Aimd`] so slow start and the Reno-style recovery arithmetic exist once.
//!
//! Division of labour: this module only decides *how big* `cwnd` and `ssthresh` are;
//! [`super::recovery`] decides *when* the connection is in loss recovery and *which* segment
//! to retransmit. The connection calls these hooks:
//!
//! - [`CongestionControl::on_ack_arrival`] first, for every new or duplicate ACK, in and out of
//!   recovery, with an [`AckInfo`] (time, positions, RTT samples): measurement — Vegas's
//!   per-RTT epochs and BaseRTT, Westwood+'s bandwidth estimate, CUBIC's SRTT;
//! - [`CongestionControl::on_ack`] for every ACK of new data outside recovery (flight before
//!   the ACK) — growth: slow start, congestion avoidance, the CUBIC curve;
//! - [`CongestionControl::on_enter_recovery`] on fast retransmit: returns the new ssthresh
//!   (FlightSize/2, BWE·RTTmin for Westwood+, β·cwnd for CUBIC);
//!   [`CongestionControl::enter_sack_recovery`] wraps it for RFC 6675 (cwnd = ssthresh, no
//!   inflation);
//! - [`CongestionControl::on_dup_ack`] for each further duplicate ACK in recovery (Reno window
//!   inflation; an RFC 6675 SACK variant would ignore it and use the scoreboard's pipe);
//! - [`CongestionControl::on_partial_ack`] for NewReno partial ACKs (partial deflation);
//! - [`CongestionControl::on_exit_recovery`] when recovery ends;
//! - [`CongestionControl::on_timeout`] on RTO expiry (loss window);
//! - Vegas's fine-grained retransmission check (Brakmo & Peterson §3.1), a no-op for every
//!   other algorithm: [`CongestionControl::on_segment_sent`] records each segment's send time,
//!   [`CongestionControl::fine_timeout_expired`] is asked on the first and second duplicate ACK
//!   (true: retransmit snd_una now and call [`CongestionControl::on_early_retransmit`] instead
//!   of `on_enter_recovery`), [`CongestionControl::resend_after_retransmit`] on new ACKs.
//!
//! Queries [`CongestionControl::uses_fast_recovery`] (false for Tahoe: fast retransmit, then
//! slow start from snd_una) and [`CongestionControl::recovery_style`] (Reno ends recovery at
//! the first new ACK, NewReno at a full ACK) let new algorithms be added as a variant plus
//! match arms without touching the connection. When SACK was negotiated the connection uses
//! [`RecoveryStyle::Sack`] whatever the algorithm (as Linux does: the algorithm only sizes the
//! window), unless `uses_fast_recovery` is false — Tahoe ignores SACK for recovery and keeps
//! go-back-N after its fast retransmit.

pub mod ackloss;
mod aimd;
pub mod cubic;
pub mod cubic_linux;
pub mod hystart;
pub mod vegas;
pub mod vegas_ns2;
pub mod westwood;

pub use ackloss::AckLoss;
pub use aimd::{Aimd, ABC_LIMIT_SEGMENTS};
pub use cubic::Cubic;
pub use cubic_linux::{CubicVariant, LinuxCubic, UnknownCubicVariant};
pub use hystart::{HyStart, HyStartMode, UnknownHyStart};
pub use vegas::Vegas;
pub use vegas_ns2::{UnknownVegasRetransmit, VegasRetransmit};
pub use westwood::Westwood;

use super::config::CongestionControlKind;
use crate::time::{Duration, Time};

/// How loss recovery proceeds after a fast retransmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryStyle {
    /// RFC 5681: the first ACK of new data ends fast recovery.
    Reno,
    /// RFC 6582: partial ACKs retransmit the next hole; a full ACK (covering `recover`) ends it.
    NewReno,
    /// RFC 6675: a SACK scoreboard decides what is lost and the pipe estimate how much may be
    /// sent; chosen by the connection when SACK was negotiated (never by `recovery_style`).
    Sack,
}

/// What the connection knows about one new or duplicate ACK, for measurement hooks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckInfo {
    /// Arrival time (ns).
    pub now: Time,
    /// Cumulative ACK as an unwrapped position (= snd_una after this ACK).
    pub ack: u64,
    /// snd_nxt when the ACK arrived, before anything it lets us send (marks Vegas epochs).
    pub snd_nxt: u64,
    /// Data bytes newly acknowledged (0 for a duplicate ACK).
    pub bytes_acked: u32,
    /// A duplicate ACK by RFC 5681 §2.
    pub is_dup: bool,
    /// The RFC 6298 sample this ACK gave (timestamps: 1 ms ticks), if any.
    pub rtt: Option<Duration>,
    /// Nanosecond RTT of the one segment the connection times per RTT (Karn's rule applies),
    /// if this ACK covered it: the timestamp clock is too coarse for delay-based control.
    pub fine_rtt: Option<Duration>,
    /// RFC 6298 smoothed RTT after this ACK.
    pub srtt: Option<Duration>,
}

/// The congestion controller of one connection.
#[derive(Clone, Debug)]
pub enum CongestionControl {
    /// 4.3BSD Tahoe: fast retransmit, then slow start from one segment (no fast recovery).
    Tahoe(Aimd),
    /// RFC 5681 Reno.
    Reno(Aimd),
    /// RFC 6582 NewReno (same window arithmetic as Reno, different recovery).
    NewReno(Aimd),
    /// Vegas: delay-based avoidance keeping α..β segments queued.
    Vegas(Vegas),
    /// Westwood+: ssthresh from the bandwidth estimate after a loss.
    Westwood(Westwood),
    /// CUBIC (RFC 9438).
    Cubic(Cubic),
    /// Reno that also halves on persistent ACK loss (Hashimoto et al., thesis Ch. 2).
    AckLoss(AckLoss),
}

impl CongestionControl {
    /// Controller of `kind` for segments of `mss` bytes, starting at `initial_cwnd` segments.
    pub fn new(kind: CongestionControlKind, mss: u32, initial_cwnd: u32) -> Self {
        let a = Aimd::new(mss, initial_cwnd);
        match kind {
            CongestionControlKind::Tahoe => CongestionControl::Tahoe(a),
            CongestionControlKind::Reno => CongestionControl::Reno(a),
            CongestionControlKind::NewReno => CongestionControl::NewReno(a),
            CongestionControlKind::Vegas => CongestionControl::Vegas(Vegas::new(a)),
            CongestionControlKind::Westwood => CongestionControl::Westwood(Westwood::new(a)),
            CongestionControlKind::Cubic => CongestionControl::Cubic(Cubic::new(a)),
            CongestionControlKind::AckLoss => CongestionControl::AckLoss(AckLoss::new(a)),
        }
    }

    /// Which algorithm this is.
    pub fn kind(&self) -> CongestionControlKind {
        match self {
            CongestionControl::Tahoe(_) => CongestionControlKind::Tahoe,
            CongestionControl::Reno(_) => CongestionControlKind::Reno,
            CongestionControl::NewReno(_) => CongestionControlKind::NewReno,
            CongestionControl::Vegas(_) => CongestionControlKind::Vegas,
            CongestionControl::Westwood(_) => CongestionControlKind::Westwood,
            CongestionControl::Cubic(_) => CongestionControlKind::Cubic,
            CongestionControl::AckLoss(_) => CongestionControlKind::AckLoss,
        }
    }

    fn aimd(&self) -> &Aimd {
        match self {
            CongestionControl::Tahoe(a) | CongestionControl::Reno(a) | CongestionControl::NewReno(a) => a,
            CongestionControl::Vegas(v) => &v.aimd,
            CongestionControl::Westwood(w) => &w.aimd,
            CongestionControl::Cubic(c) => &c.aimd,
            CongestionControl::AckLoss(s) => &s.aimd,
        }
    }

    fn aimd_mut(&mut self) -> &mut Aimd {
        match self {
            CongestionControl::Tahoe(a) | CongestionControl::Reno(a) | CongestionControl::NewReno(a) => a,
            CongestionControl::Vegas(v) => &mut v.aimd,
            CongestionControl::Westwood(w) => &mut w.aimd,
            CongestionControl::Cubic(c) => &mut c.aimd,
            CongestionControl::AckLoss(s) => &mut s.aimd,
        }
    }

    /// Vegas state, if this is Vegas.
    pub fn vegas(&self) -> Option<&Vegas> {
        match self {
            CongestionControl::Vegas(v) => Some(v),
            _ => None,
        }
    }

    /// Westwood+ state, if this is Westwood+.
    pub fn westwood(&self) -> Option<&Westwood> {
        match self {
            CongestionControl::Westwood(w) => Some(w),
            _ => None,
        }
    }

    /// CUBIC state, if this is CUBIC.
    pub fn cubic(&self) -> Option<&Cubic> {
        match self {
            CongestionControl::Cubic(c) => Some(c),
            _ => None,
        }
    }

    /// ACK-loss-aware state, if this is `ackloss`.
    pub fn ackloss(&self) -> Option<&AckLoss> {
        match self {
            CongestionControl::AckLoss(s) => Some(s),
            _ => None,
        }
    }

    /// An ACK older than snd_una arrived (ACK reordering): `ackloss` un-counts one lost ACK;
    /// a no-op for the other algorithms.
    pub fn on_old_ack(&mut self) {
        if let CongestionControl::AckLoss(s) = self {
            s.on_old_ack();
        }
    }

    /// Congestion window in bytes.
    pub fn cwnd(&self) -> u32 {
        self.aimd().cwnd
    }

    /// Set cwnd during loss recovery (PRR's cwnd = pipe + sndcnt, RFC 6937 §3.1); the
    /// controller's own state (ssthresh, W_max, ...) is left alone.
    pub fn set_recovery_cwnd(&mut self, cwnd: u32) {
        self.aimd_mut().cwnd = cwnd;
    }

    /// Restart after idle ([`super::idle_restart`]): set cwnd and ssthresh; the controller's
    /// own state (W_max, epoch, ...) is left alone, as Linux's CUBIC ignores
    /// `CA_EVENT_CWND_RESTART`.
    pub fn set_after_idle(&mut self, cwnd: u32, ssthresh: u32) {
        let a = self.aimd_mut();
        a.cwnd = cwnd.max(a.mss);
        a.ssthresh = ssthresh;
    }

    /// Slow-start threshold in bytes (`u32::MAX` until the first loss).
    pub fn ssthresh(&self) -> u32 {
        self.aimd().ssthresh
    }

    /// Byte-counting limit L = max(2, `ack_every`) segments: a receiver that ACKs every m > 2
    /// segments (seed 002's burst transmission) still lets slow start double per RTT.
    pub fn set_abc_limit(&mut self, ack_every: u32) {
        self.aimd_mut().abc_limit = ack_every.max(aimd::ABC_LIMIT_SEGMENTS);
    }

    /// Choose CUBIC's slow-start exit ([`hystart`]); a no-op for the other algorithms (Linux's
    /// HyStart is part of its CUBIC module).
    pub fn set_hystart(&mut self, mode: HyStartMode) {
        if let CongestionControl::Cubic(c) = self {
            c.set_hystart(mode);
        }
    }

    /// Choose CUBIC's window arithmetic ([`cubic_linux`]); a no-op for the other algorithms.
    pub fn set_cubic_variant(&mut self, variant: CubicVariant) {
        if let CongestionControl::Cubic(c) = self {
            c.set_variant(variant);
        }
    }

    /// Set the segment size once the handshake fixed it; rescales the initial window.
    pub fn set_mss(&mut self, mss: u32, initial_cwnd: u32) {
        self.aimd_mut().set_mss(mss, initial_cwnd);
        if let CongestionControl::Vegas(v) = self {
            v.set_mss(mss);
        }
    }

    /// Vegas's fine-grained retransmission rules (see [`vegas_ns2`]); ignored by the others.
    pub fn set_vegas_retransmit(&mut self, mode: VegasRetransmit) {
        if let CongestionControl::Vegas(v) = self {
            v.set_retransmit(mode);
        }
    }

    /// Vegas `ns2` mode, a duplicate ACK during fast recovery: resend snd_una if it outlived
    /// the fine timeout again (backing it off, see [`vegas_ns2`]); false for everything else.
    pub fn ns2_resend_in_recovery(&mut self, now: Time, dupacks: u32) -> bool {
        match self {
            CongestionControl::Vegas(v) => v.ns2_resend_in_recovery(now, dupacks),
            _ => false,
        }
    }

    /// The segment [pos, end) was sent at `now` (`retransmission`: resent): Vegas records send
    /// times for its fine-grained timeout (§3.1), CUBIC's HyStart for its RTT samples; a no-op
    /// for the other algorithms.
    pub fn on_segment_sent(&mut self, now: Time, pos: u64, end: u64, retransmission: bool) {
        match self {
            CongestionControl::Vegas(v) => v.on_segment_sent(now, pos, end, retransmission),
            CongestionControl::Cubic(c) => c.on_segment_sent(now, end, retransmission),
            _ => {}
        }
    }

    /// New data leaves with nothing in flight, `since_last_send` after the previous data
    /// segment (Linux's `CA_EVENT_TX_START`): CUBIC shifts its epoch by the idle time
    /// ([`Cubic::on_tx_start`]); a no-op for the other algorithms.
    pub fn on_tx_start(&mut self, now: Time, since_last_send: Duration) {
        if let CongestionControl::Cubic(c) = self {
            c.on_tx_start(now, since_last_send);
        }
    }

    /// On a first or second duplicate ACK: Vegas's segment at snd_una is older than its
    /// fine-grained timeout and should be retransmitted now (§3.1); false for other algorithms.
    pub fn fine_timeout_expired(&self, now: Time) -> bool {
        match self {
            CongestionControl::Vegas(v) => v.dup_ack_expired(now),
            _ => false,
        }
    }

    /// Fast recovery entered because [`Self::fine_timeout_expired`] said so (Vegas reduces to
    /// 3/4 of min(cwnd, `flight`), see [`vegas`]); returns the new ssthresh.
    pub fn on_early_retransmit(&mut self, flight: u32, dupacks: u32) -> u32 {
        match self {
            CongestionControl::Vegas(v) => v.on_early_retransmit(flight, dupacks),
            _ => self.on_enter_recovery(flight, dupacks),
        }
    }

    /// A new ACK (after [`Self::on_ack_arrival`]): within the first two after a duplicate-ACK
    /// retransmission, Vegas asks to resend snd_una if it expired too (§3.1); no window change.
    pub fn resend_after_retransmit(&mut self, now: Time) -> bool {
        match self {
            CongestionControl::Vegas(v) => v.new_ack_expired(now),
            _ => false,
        }
    }

    /// The connection resent snd_una on [`Self::resend_after_retransmit`]'s advice (a counter).
    pub fn count_resend_after_retransmit(&mut self) {
        if let CongestionControl::Vegas(v) = self {
            v.count_worried_retransmit();
        }
    }

    /// Whether a fast retransmit is followed by fast recovery (not for Tahoe).
    pub fn uses_fast_recovery(&self) -> bool {
        !matches!(self, CongestionControl::Tahoe(_))
    }

    /// Which partial-ACK handling loss recovery uses (Tahoe never recovers: Reno, unused).
    pub fn recovery_style(&self) -> RecoveryStyle {
        match self {
            CongestionControl::Tahoe(_) | CongestionControl::Reno(_) | CongestionControl::AckLoss(_) => RecoveryStyle::Reno,
            CongestionControl::NewReno(_)
            | CongestionControl::Vegas(_)
            | CongestionControl::Westwood(_)
            | CongestionControl::Cubic(_) => RecoveryStyle::NewReno,
        }
    }

    /// Every new or duplicate ACK, before any other hook: measurement only.
    pub fn on_ack_arrival(&mut self, ack: &AckInfo) {
        match self {
            CongestionControl::Vegas(v) => v.on_ack_arrival(ack),
            CongestionControl::Westwood(w) => w.on_ack_arrival(ack),
            CongestionControl::Cubic(c) => c.on_ack_arrival(ack),
            CongestionControl::AckLoss(s) => s.on_ack_arrival(ack),
            CongestionControl::Tahoe(_) | CongestionControl::Reno(_) | CongestionControl::NewReno(_) => {}
        }
    }

    /// New data ACKed outside loss recovery: window growth.
    pub fn on_ack(&mut self, now: Time, bytes_acked: u32, _rtt: Option<Duration>, bytes_in_flight: u32) {
        match self {
            CongestionControl::Tahoe(a)
            | CongestionControl::Reno(a)
            | CongestionControl::NewReno(a)
            | CongestionControl::Westwood(Westwood { aimd: a, .. })
            | CongestionControl::AckLoss(AckLoss { aimd: a, .. }) => a.on_ack(bytes_acked),
            CongestionControl::Vegas(v) => v.on_ack(bytes_acked, bytes_in_flight),
            CongestionControl::Cubic(c) => c.on_ack(now, bytes_acked),
        }
    }

    /// A further duplicate ACK during fast recovery: inflate by one SMSS (RFC 5681 §3.2 step 4).
    pub fn on_dup_ack(&mut self, _bytes_in_flight: u32) {
        self.aimd_mut().inflate();
    }

    /// Fast retransmit: set ssthresh and the recovery window (RFC 5681 §3.2 steps 2–3; Tahoe:
    /// one segment); returns the new ssthresh.
    pub fn on_enter_recovery(&mut self, flight: u32, dupacks: u32) -> u32 {
        match self {
            CongestionControl::Tahoe(a) => {
                a.collapse(a.halve(flight));
                a.ssthresh
            }
            CongestionControl::Reno(a) | CongestionControl::NewReno(a) => a.enter_fast_recovery(a.halve(flight), dupacks),
            CongestionControl::Vegas(v) => v.on_enter_recovery(flight, dupacks),
            CongestionControl::Westwood(w) => w.on_enter_recovery(flight, dupacks),
            CongestionControl::Cubic(c) => c.on_enter_recovery(dupacks),
            CongestionControl::AckLoss(s) => s.on_enter_recovery(flight, dupacks),
        }
    }

    /// RFC 6675 §5 step 2 fast retransmit: ssthresh from [`Self::on_enter_recovery`] (so each
    /// algorithm keeps its own reduction), then cwnd = ssthresh with no dup-ACK inflation, as
    /// the scoreboard's pipe replaces it. Returns the new ssthresh.
    pub fn enter_sack_recovery(&mut self, flight: u32) -> u32 {
        let ssthresh = self.on_enter_recovery(flight, 0);
        let a = self.aimd_mut();
        a.cwnd = ssthresh.max(a.mss);
        ssthresh
    }

    /// NewReno partial ACK: deflate by the data ACKed, add back one SMSS if that was at least
    /// one SMSS (RFC 6582 §3.2 step 5).
    pub fn on_partial_ack(&mut self, bytes_acked: u32) {
        self.aimd_mut().partial_ack(bytes_acked);
    }

    /// Recovery over: deflate (to ssthresh; Westwood+ to min(ssthresh, cwnd before the loss)).
    pub fn on_exit_recovery(&mut self, _bytes_in_flight: u32) {
        match self {
            CongestionControl::Tahoe(a) | CongestionControl::Reno(a) | CongestionControl::NewReno(a) => a.deflate(),
            CongestionControl::Vegas(v) => v.on_exit_recovery(),
            CongestionControl::Westwood(w) => w.on_exit_recovery(),
            CongestionControl::Cubic(c) => c.on_exit_recovery(),
            CongestionControl::AckLoss(s) => s.on_exit_recovery(),
        }
    }

    /// Retransmission timeout at `now`: new ssthresh, cwnd = loss window of one SMSS (RFC 5681
    /// §3.1; Vegas `ns2`: two).
    pub fn on_timeout(&mut self, now: Time, flight: u32) {
        match self {
            CongestionControl::Tahoe(a) | CongestionControl::Reno(a) | CongestionControl::NewReno(a) => {
                a.collapse(a.halve(flight))
            }
            CongestionControl::Vegas(v) => v.on_timeout(now, flight),
            CongestionControl::Westwood(w) => w.on_timeout(flight),
            CongestionControl::Cubic(c) => c.on_timeout(),
            CongestionControl::AckLoss(s) => s.on_timeout(flight),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_recovery_sets_cwnd_to_ssthresh() {
        let mut cc = CongestionControl::new(CongestionControlKind::NewReno, 1000, 10);
        assert_eq!(cc.enter_sack_recovery(10_000), 5000);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (5000, 5000));
    }

    #[test]
    fn slow_start_then_avoidance() {
        let mut cc = CongestionControl::new(CongestionControlKind::NewReno, 1000, 2);
        assert_eq!(cc.cwnd(), 2000);
        cc.on_ack(Time::ZERO, 2000, None, 2000); // delayed ACK of 2 segments: +2 SMSS (L = 2)
        assert_eq!(cc.cwnd(), 4000);
        cc.on_timeout(Time::ZERO, 8000);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, 4000));
        for _ in 0..3 {
            cc.on_ack(Time::ZERO, 1000, None, 1000);
        }
        assert_eq!(cc.cwnd(), 4000); // reached ssthresh: now avoidance
        for _ in 0..4 {
            cc.on_ack(Time::ZERO, 1000, None, 4000);
        }
        assert_eq!(cc.cwnd(), 5000); // one cwnd of ACKed bytes = +1 SMSS
    }

    #[test]
    fn fast_recovery_arithmetic() {
        let mut cc = CongestionControl::new(CongestionControlKind::Reno, 1000, 10);
        assert_eq!(cc.on_enter_recovery(10_000, 3), 5000);
        assert_eq!(cc.cwnd(), 8000);
        cc.on_dup_ack(10_000);
        assert_eq!(cc.cwnd(), 9000);
        cc.on_partial_ack(3000);
        assert_eq!(cc.cwnd(), 7000);
        cc.on_exit_recovery(0);
        assert_eq!(cc.cwnd(), 5000);
        assert_eq!(cc.on_enter_recovery(1000, 3), 2000); // floor of 2 SMSS
    }
}

#[cfg(test)]
mod family_tests {
    use super::*;

    #[test]
    fn tahoe_collapses_to_one_segment_without_fast_recovery() {
        let mut cc = CongestionControl::new(CongestionControlKind::Tahoe, 1000, 10);
        assert!(!cc.uses_fast_recovery());
        assert_eq!(cc.on_enter_recovery(10_000, 3), 5000);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, 5000));
        cc.on_ack(Time::ZERO, 1000, None, 1000);
        assert_eq!(cc.cwnd(), 2000, "slow start again");
    }

    #[test]
    fn every_kind_builds_the_matching_variant() {
        for kind in CongestionControlKind::ALL {
            let cc = CongestionControl::new(kind, 1448, 2);
            assert_eq!(cc.kind(), kind);
            assert_eq!((cc.cwnd(), cc.ssthresh()), (2896, u32::MAX));
            assert_eq!(cc.uses_fast_recovery(), kind != CongestionControlKind::Tahoe);
        }
    }
}
