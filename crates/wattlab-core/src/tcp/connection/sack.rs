//! SACK glue of [`TcpConnection`]: SACK blocks on outgoing ACKs (RFC 2018 §4) and RFC 6675
//! loss recovery driven by the [`Scoreboard`](crate::tcp::scoreboard::Scoreboard).
//!
//! A child module of `connection` so it can use the connection's private state; the
//! connection calls these methods at a handful of marked places (ACK processing, RTO, output).
//! D-SACK (RFC 2883) is neither sent nor interpreted.

use super::TcpConnection;
use crate::packet::{Packet, SackBlock, TcpHeader, TcpOptions, MAX_SACK_BLOCKS};
use crate::tcp::cc::RecoveryStyle;
use crate::tcp::ooo_limit::OooLimit;
use crate::tcp::prr::PrrAck;
use crate::tcp::scoreboard::NextSeg;
use crate::time::Time;

impl TcpConnection {
    /// SACK drives loss recovery: negotiated, and the controller uses fast recovery at all
    /// (a Tahoe-like controller ignores SACK for recovery).
    pub(super) fn sack_recovery_enabled(&self) -> bool {
        self.sack_ok && self.cc.uses_fast_recovery()
    }

    /// The recovery style in force: [`RecoveryStyle::Sack`] whenever SACK recovery is enabled,
    /// whatever the window arithmetic (as Linux), else the controller's own style.
    pub(super) fn recovery_style(&self) -> RecoveryStyle {
        if self.sack_recovery_enabled() {
            RecoveryStyle::Sack
        } else {
            self.cc.recovery_style()
        }
    }

    // ------------------------------------------------------------------ receiver (RFC 2018)

    /// Most SACK blocks that fit in 40 option bytes next to what every segment carries:
    /// 3 with timestamps (12 + 2 + 2 + 3·8 = 40), 4 without (RFC 2018 §3).
    fn sack_block_limit(&self) -> usize {
        if self.ts_ok {
            3
        } else {
            MAX_SACK_BLOCKS
        }
    }

    /// Option bytes the SACK blocks of our next segment take (0 when nothing is held out of
    /// order); data segments shrink by this much so headers plus payload still fit the MSS,
    /// like Linux's `tcp_current_mss`.
    pub(super) fn sack_option_len(&self) -> u32 {
        if !self.sack_ok || self.ooo.is_empty() {
            return 0;
        }
        let n = self.ooo.ranges().len().min(self.sack_block_limit()) as u32;
        4 + 8 * n // NOP NOP kind len, 8 bytes a block
    }

    /// Put SACK blocks on an ACK while out-of-order data is held (RFC 2018 §4): the block
    /// containing the most recent segment first, then the most recently reported others, in
    /// the peer's wire sequence numbers.
    pub(super) fn add_sack_blocks(&mut self, options: &mut TcpOptions) {
        if !self.sack_ok || self.ooo.is_empty() {
            return;
        }
        let mut blocks = [(0u64, 0u64); MAX_SACK_BLOCKS];
        let limit = self.sack_block_limit();
        let n = self.ooo.sack_blocks(&mut blocks[..limit]);
        for (slot, &(s, e)) in options.sack.iter_mut().zip(&blocks[..n]) {
            *slot = SackBlock { left: self.rx.wire(s), right: self.rx.wire(e) };
        }
        options.sack_len = n as u8;
        self.stats.sack_blocks_sent += n as u64;
    }

    // ------------------------------------------------------------------ sender (RFC 6675)

    /// `Update()` with an ACK for position `ack` (RFC 6675 §5): records its SACK blocks.
    /// Returns true if it SACKed previously unSACKed data (RFC 6675 §2 duplicate ACK).
    pub(super) fn sack_update(&mut self, h: &TcpHeader, ack: u64) -> bool {
        let (tx, una) = (self.tx, self.snd_una);
        let blocks = h.options.sack_blocks().iter().filter_map(move |b| {
            let s = tx.unwrap(b.left, una);
            let e = tx.unwrap(b.right, una);
            (s >= 0 && e > s).then_some((s as u64, e as u64))
        });
        self.sb.update(ack, self.snd_max, blocks)
    }

    /// Enter RFC 6675 §5 loss recovery (the dup-ACK trigger or `IsLost(HighACK+1)`):
    /// RecoveryPoint was set by the caller; ssthresh = cwnd = the controller's reduction
    /// (step 2); retransmit the first segment at HighACK (step 3); the rest follows the pipe.
    pub(super) fn enter_sack_recovery(&mut self) {
        let flight = self.flight_size();
        let prior_cwnd = self.cc.cwnd();
        self.cc.enter_sack_recovery(flight);
        self.sb.start_recovery();
        if self.cfg.prr {
            // RecoverFS = FlightSize (RFC 6937 §3.1) or the cwnd before the cut (Linux).
            self.prr.start(self.cfg.prr_variant, flight as u64, prior_cwnd as u64);
        }
        // RACK: the first segment it marked (the head, unless the head is a probe in flight).
        let head = if self.rack_on { self.rack.next_lost(1).map_or(self.snd_una, |l| l.0) } else { self.snd_una };
        self.rack.set_pto(None); // TLP: recovery takes over (RFC 8985 §7.2)
        self.rack.end_tlp_episode();
        self.retransmit_at = Some(head);
        self.rtt_timing = None; // Karn
        self.stats.fast_retransmits += 1;
        self.stats.sack_recoveries += 1;
    }

    /// PRR (RFC 6937 §3.1) on an ACK during SACK recovery: cwnd = pipe + sndcnt, so
    /// `sack_transmit` sends exactly sndcnt more (rounded to segments; the remainder carries
    /// over through prr_delivered − prr_out); Linux's variant may leave cwnd as it was.
    pub(super) fn prr_on_ack(&mut self, ack: PrrAck) {
        let pipe = self.recovery_pipe();
        if let Some(sndcnt) = self.prr.on_ack(ack, pipe, self.cc.ssthresh() as u64, self.eff_mss as u64) {
            self.cc.set_recovery_cwnd((pipe + sndcnt).min(u32::MAX as u64) as u32);
        }
    }

    /// After an ACK was processed: start recovery if the scoreboard deems the first
    /// unacknowledged segment lost even without DupThresh duplicate ACKs (RFC 6675 §5).
    pub(super) fn sack_check_loss(&mut self) {
        if self.snd_una < self.snd_max
            && !self.recovery.in_recovery()
            && self.sb.is_lost(self.snd_una)
            && !self.sb.is_sacked(self.snd_una)
            && self.recovery.enter_on_sack_loss(self.snd_una, self.snd_max)
        {
            self.enter_sack_recovery();
        }
    }

    /// Retransmission timeout (RFC 6675 §5.1): keep the scoreboard (unless the receiver
    /// reneged, `ooo_limit = rcvbuf` only) and mark every unSACKed octet below HighData
    /// lost, so the holes are resent first and SACKed data never; the caller retransmits the
    /// head and cwnd/pipe pace the rest.
    pub(super) fn sack_on_rto(&mut self) {
        self.sb.advance(self.snd_una, self.snd_max);
        if self.cfg.ooo_limit == OooLimit::Rcvbuf {
            self.ooo_reneged_at_rto(); // OOO: a receiver that pruned SACKed data
        }
        self.sb.on_rto();
        if self.rack_track {
            self.rack.on_rto(); // RACK: every unSACKed segment lost; PTO and episode end
        }
    }

    /// `rto_restart = "linux"`: SACK recovery (or the recovery after an RTO) just resent the
    /// first unacknowledged segment; re-arm the RTO from now unless RACK's reordering timer is
    /// pending (Linux's `tcp_xmit_retransmit_queue`, which shares one timer between the two).
    pub(super) fn rto_restart_on_head_resend(&mut self, now: Time) {
        if self.sack_pipe_mode() && self.rack.reo_timer().is_none() {
            self.rto_at = Some(self.rtt.rto_deadline(now));
        }
    }

    /// Sending is paced by pipe and driven by `NextSeg()`: during SACK recovery, and after an
    /// RTO until the data outstanding at the timeout is acknowledged.
    pub(super) fn sack_pipe_mode(&self) -> bool {
        self.sack_recovery_enabled() && (self.recovery.in_recovery() || self.sb.rto_marked())
    }

    /// Room for new data in pipe mode: cwnd − pipe, and the peer's window from snd_una.
    pub(super) fn sack_usable(&mut self) -> u64 {
        let room = (self.cc.cwnd() as u64).saturating_sub(self.recovery_pipe());
        let right = self.snd_una + self.snd_wnd as u64;
        room.min(right.saturating_sub(self.snd_nxt))
    }

    /// RFC 6675 §5 (C): while cwnd − pipe ≥ 1 SMSS, send what `NextSeg()` says — lost holes
    /// first, then new data the peer's window allows, then other unSACKed data below the
    /// highest SACK.
    pub(super) fn sack_transmit(&mut self, now: Time) -> Option<Packet> {
        let mss = self.seg_mss() as u64;
        if (self.cc.cwnd() as u64) < self.recovery_pipe() + mss {
            return None;
        }
        let data_end = self.data_end();
        let stream_end = data_end + self.fin_queued as u64;
        let right = self.snd_una + self.snd_wnd as u64;
        let new_data = self.snd_nxt < stream_end && (self.snd_nxt >= data_end || self.snd_nxt < right);
        let mut next = self.recovery_next_seg(mss, new_data);
        if next == Some(NextSeg::NewData) {
            if let Some(p) = self.try_send(now) {
                return Some(p);
            }
            next = self.recovery_next_seg(mss, false); // sender SWS held new data back: rule 3
        }
        let Some(NextSeg::Retransmit { start, len }) = next else { return None };
        // Respect the peer's receive window (the head segment may always be resent).
        if start > self.snd_una && start + len > right {
            return None;
        }
        let len = len.min(data_end.saturating_sub(start)); // the FIN is added by emit_from
        Some(self.emit_from(now, start, len, false))
    }
}
