//! RACK-TLP glue of [`TcpConnection`] (RFC 8985; the algorithm is [`crate::tcp::rack`]).
//!
//! The connection calls these at places marked `RACK:`: every data segment sent is recorded,
//! every ACK updates RACK and runs its loss detection, the reordering timer and the PTO live
//! beside the RTO. With `rack` on, loss is marked by RACK only (no DupThresh count, no
//! RFC 6675 `IsLost`), as Linux since 4.18: recovery starts when RACK marks a segment lost,
//! and in recovery `pipe` and the next retransmission come from RACK's marks. PRR paces the
//! sending as before. Both options need SACK (Linux's TLP and RACK do too).

use super::TcpConnection;
use crate::packet::{Packet, TcpHeader};
use crate::tcp::rack::{AckSendTimes, RackStats};
use crate::tcp::rto_rearm::{self, RtoRearm};
use crate::tcp::rtt_sample::RttSample;
use crate::tcp::scoreboard::NextSeg;
use crate::time::Time;

impl TcpConnection {
    /// RACK-TLP's counters.
    pub fn rack_stats(&self) -> &RackStats {
        self.rack.stats()
    }

    /// At the handshake: RACK and TLP run if configured and SACK recovery is on; the record of
    /// send times is also kept for `rto_rearm = "linux"`'s SACK rule and for
    /// `rtt_sample = "linux"` (which times segments with or without SACK).
    pub(super) fn rack_setup(&mut self) {
        let sack = self.sack_recovery_enabled();
        self.rack_on = self.cfg.rack && sack;
        self.tlp_on = self.cfg.tlp && sack;
        self.rearm_sack = sack && self.cfg.rto_rearm == RtoRearm::Linux;
        self.linux_rtt = self.cfg.rtt_sample == RttSample::Linux;
        self.ack_times = self.rearm_sack || self.linux_rtt;
        self.rack_track = self.rack_on || self.tlp_on || self.ack_times;
        if self.rack_track {
            self.rack.reserve();
        }
    }

    /// Linux's send times of the segments this ACK (cumulative point `ack`) newly acknowledges
    /// or SACKs, read while RACK's records are still as before it (they are applied in
    /// `rack_on_ack`); one walk for `rto_rearm` and `rtt_sample`.
    #[inline(never)]
    pub(super) fn ack_send_times(&self, h: &TcpHeader, ack: u64) -> AckSendTimes {
        let (blocks, n) = self.unwrapped_sack_blocks(h);
        self.rack.ack_send_times(ack, &blocks[..n])
    }

    /// The ACK's SACK blocks unwrapped against snd_una (those that make sense), and their count.
    fn unwrapped_sack_blocks(&self, h: &TcpHeader) -> ([(u64, u64); crate::packet::MAX_SACK_BLOCKS], usize) {
        let mut blocks = [(0u64, 0u64); crate::packet::MAX_SACK_BLOCKS];
        let mut n = 0;
        for b in h.options.sack_blocks() {
            let s = self.tx.unwrap(b.left, self.snd_una);
            let e = self.tx.unwrap(b.right, self.snd_una);
            if s >= 0 && e > s && n < blocks.len() {
                blocks[n] = (s as u64, e as u64);
                n += 1;
            }
        }
        (blocks, n)
    }

    /// A data segment `[pos, end)` left; `new_data`: it was not a retransmission.
    pub(super) fn rack_on_sent(&mut self, now: Time, pos: u64, end: u64, new_data: bool) {
        self.rack.on_sent(pos, end, now);
        if new_data && self.tlp_on {
            self.tlp_arm(now); // §7.2: (re)start the PTO after new data
        }
    }

    /// After an ACK was processed (snd_una already moved; `una0` was it before; `new_sack`:
    /// it SACKed new data; `payload_len`: its data; `first_sackt`: Linux's, from
    /// [`Self::ack_send_times`] before the ACK, when `rto_rearm = "linux"` runs with SACK):
    /// RACK update and loss detection, TLP loss detection and the PTO.
    pub(super) fn rack_on_ack(&mut self, now: Time, h: &TcpHeader, una0: u64, new_sack: bool, payload_len: u32, first_sackt: Option<Time>) {
        let (blocks, n) = self.unwrapped_sack_blocks(h);
        self.rack.on_ack(now, self.snd_una, &blocks[..n]);
        if self.rearm_sack && self.snd_una == una0 && rto_rearm::sack_restarts_timer(first_sackt, self.rack.head_xmit()) {
            // Linux's tcp_clean_rtx_queue: a SACK of data sent before the head's last
            // transmission shows the repair progressing: FLAG_SET_XMIT_TIMER, RTO from now.
            self.rto_at = Some(self.rtt.rto_deadline(now));
        }
        if self.rack_on {
            self.rack_detect(now, false);
        }
        if self.tlp_on {
            let pure_dup = self.snd_una == una0 && !new_sack && payload_len == 0;
            if self.rack.tlp_on_ack(self.snd_una, pure_dup) && !self.recovery.in_recovery() {
                // §7.4: the probe repaired a loss: reduce as for one (Linux: CWR, cwnd = ssthresh).
                let flight = self.flight_size();
                self.cc.enter_sack_recovery(flight);
            }
            if self.snd_una > una0 {
                self.tlp_arm(now); // §7.2: restart the PTO on a cumulative ACK
            }
        }
    }

    /// RACK_detect_loss (from an ACK, or the reordering timer): start SACK recovery when it
    /// marks a segment lost (Linux's `tcp_time_to_recover`: `lost_out`).
    fn rack_detect(&mut self, now: Time, timer: bool) {
        let recovering = self.recovery.in_recovery() || self.sb.rto_marked();
        let wnd = self.rack.reo_wnd(recovering, self.cfg.dupack_threshold, self.rtt.srtt());
        if timer {
            self.rack.on_reo_timeout(now, wnd);
        } else {
            self.rack.detect_loss(now, wnd);
        }
        if self.rack.lost_bytes() > 0
            && !recovering
            && self.snd_una < self.snd_max
            && self.recovery.enter_on_sack_loss(self.snd_una, self.snd_max)
        {
            self.enter_sack_recovery();
        }
    }

    /// Handle the reordering timer and the PTO if due.
    pub(super) fn rack_on_timer(&mut self, now: Time) {
        if self.rack.take_reo_timer(now) && self.rack_on {
            self.rack_detect(now, true);
        }
        if self.rack.take_pto(now) && self.tlp_on {
            self.tlp_fire(now);
        }
    }

    /// A TLP may be scheduled (§7.2, Linux's `tcp_schedule_loss_probe`): data outstanding, no
    /// episode in progress, not in recovery (nor after an RTO), nothing SACKed.
    fn tlp_allowed(&self) -> bool {
        self.snd_una < self.snd_max
            && self.rack.tlp_episode().is_none()
            && !self.recovery.in_recovery()
            && !self.sb.rto_marked()
            && self.sb.ranges().is_empty()
            && self.can_send_state()
    }

    /// Arm the PTO (§7.2): 2·SRTT (1 s before any sample), plus the worst-case delayed-ACK
    /// time when one segment is in flight (RFC 8985's WCDelAckT = 200 ms; Linux adds
    /// `tcp_rto_min`, here `min_rto`), never later than the RTO; cancelled if not allowed.
    fn tlp_arm(&mut self, now: Time) {
        if !self.tlp_allowed() {
            self.rack.set_pto(None);
            return;
        }
        let mut pto = match self.rtt.srtt() {
            Some(srtt) => srtt.saturating_mul(2),
            None => self.cfg.initial_rto,
        };
        if self.flight_size() as u64 <= self.eff_mss as u64 + 1 {
            pto += self.cfg.min_rto;
        }
        let mut at = now + pto;
        if let Some(rto) = self.rto_at {
            at = at.min(rto);
        }
        self.rack.set_pto(Some(at));
    }

    /// The PTO fired (§7.3): send one new segment if the peer's window allows (whatever
    /// cwnd), else resend the last segment; the RTO restarts from the probe.
    fn tlp_fire(&mut self, now: Time) {
        if !self.tlp_allowed() {
            return;
        }
        let data_end = self.data_end();
        let right = self.snd_una + self.snd_wnd as u64;
        let len = (self.seg_mss() as u64).min(data_end.saturating_sub(self.snd_nxt));
        if self.snd_nxt == self.snd_max && len > 0 && self.snd_nxt + len <= right {
            self.tlp_new_pending = true;
        } else if let Some((start, _)) = self.rack.last_segment() {
            self.retransmit_at = Some(start);
            self.rack.on_probe_sent(self.snd_max, true);
            self.rto_at = Some(self.rtt.rto_deadline(now)); // the RTO restarts from the probe
        }
    }

    /// Send the pending new-data probe (called by `next_segment`).
    pub(super) fn tlp_send_new(&mut self, now: Time) -> Option<Packet> {
        self.tlp_new_pending = false;
        let len = (self.seg_mss() as u64).min(self.data_end().saturating_sub(self.snd_nxt));
        if len == 0 || !self.can_send_state() {
            return None;
        }
        self.rto_at = Some(self.rtt.rto_deadline(now)); // the RTO restarts from the probe (§7.3)
        let p = self.emit_from(now, self.snd_nxt, len, true);
        self.rack.on_probe_sent(self.snd_max, false);
        self.rack.set_pto(None);
        Some(p)
    }

    /// `pipe` in SACK recovery: from RACK's marks with `rack`, else RFC 6675's `SetPipe()`.
    pub(super) fn recovery_pipe(&mut self) -> u64 {
        self.sb.advance(self.snd_una, self.snd_max);
        if self.rack_on {
            self.rack.pipe()
        } else {
            self.sb.pipe()
        }
    }

    /// `NextSeg()` with `rack`: the lowest segment RACK marked lost, else new data (Linux
    /// retransmits only marked segments: no RFC 6675 rule 3); else the scoreboard's.
    pub(super) fn recovery_next_seg(&self, mss: u64, new_data: bool) -> Option<NextSeg> {
        if !self.rack_on {
            return self.sb.next_seg(mss, new_data);
        }
        if let Some((start, len)) = self.rack.next_lost(mss) {
            return Some(NextSeg::Retransmit { start, len });
        }
        new_data.then_some(NextSeg::NewData)
    }
}
