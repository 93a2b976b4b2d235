//! A-MPDU aggregation with immediate Block Ack (IEEE 802.11-2020 §10.12, §10.25).
//!
//! With `qos.aggregation` set, a station that wins the medium with a data frame at the head of
//! its queue sends every eligible MPDU for the same receiver (one TID) in one PPDU:
//!
//! - **Block Ack agreement.** Before its first A-MPDU to a receiver the originator sets one up:
//!   ADDBA Request, SIFS, ACK, SIFS, ADDBA Response, SIFS, ACK (action frames of 37 bytes,
//!   §9.6.5.2–3, at the control response rate) as one exchange of its own access.
//! - **Content.** MPDUs in queue order from the oldest unacknowledged one (the window start),
//!   each sent again while the receiver's Block Ack has not listed it, as long as its sequence
//!   number lies within the window (64, HE 256), the A-MPDU within the PHY's length limit, the
//!   PPDU within aPPDUMaxTime and the AC's TXOP limit (whole exchange) and, to a power-saving
//!   station, within what the AP may release. Each subframe is a 4-byte delimiter and the MPDU
//!   (with its 2-byte QoS Control), padded to 4 bytes except the last (§9.7.1).
//! - **Exchange.** [RTS, SIFS, CTS, SIFS,] A-MPDU, SIFS, compressed Block Ack (§9.3.1.8: 32
//!   bytes with a 64-bit bitmap, 56 with 256 bits) at the control response rate. RTS/CTS when
//!   the PSDU exceeds `rts_threshold`.
//! - **Errors.** Each MPDU is drawn against `Bss::frame_lost` separately. If no MPDU arrives (or
//!   in a collision) no Block Ack comes and every MPDU failed; the originator doubles its CW and
//!   defers EIFS, as after a lost ACK. A Block Ack, even one with holes, resets the CW.
//! - **Retransmission.** Failed MPDUs stay at the head of the queue and go again first in the
//!   next A-MPDU, each with its own retry count (the short or long limit); past it the MPDU is
//!   dropped and the window moves on (the BAR that tells the recipient is not modelled).
//! - **Recipient.** MPDUs are passed up exactly once and in order: one received after a hole
//!   waits in the reorder buffer until the hole is filled or its MPDU dropped. The buffer is
//!   the originator's queue itself (each frame's [`BaState`]), so nothing is allocated per MPDU.
//!
//! [`BaState`]: super::BaState

use super::{AirKind, Body, Bss, ExchangeKind, MacOutput, MacTimer, Sta, StaId, AP, NO_SEQ};
use rand::Rng;
use wattlab_core::wlan::aggregation::DELIMITER_BYTES;
use super::amsdu::MpduSize;
use wattlab_core::wlan::phy::{ACK_BYTES, DATA_OVERHEAD_BYTES, RTS_BYTES};
use wattlab_core::wlan::PpduShape;
use wattlab_core::{Duration, Time};

/// An ADDBA Request or Response action frame: header 24, body 9, FCS 4 (§9.6.5.2–3).
pub const ADDBA_BYTES: u32 = 37;

/// A compressed BlockAckReq (§9.3.1.7): Frame Control 2, Duration 2, RA 6, TA 6, BAR Control
/// 2, Starting Sequence Control 2, FCS 4.
pub const BAR_BYTES: u32 = 24;

/// An A-MPDU about to go on the air.
#[derive(Clone, Copy, Debug)]
struct Plan {
    to: StaId,
    ssn: u32,
    /// MSDUs (queue entries) in flight.
    n: u16,
    /// MPDUs they make (`n` without A-MSDU).
    mpdus: u16,
    psdu: u32,
    tag: u32,
}

/// The error draws of one A-MPDU's MPDUs: where its PPDU starts, the capture it is part of,
/// the bytes before the next MPDU, and the Block Ack bitmap so far.
struct MpduDraws {
    ppdu_start: Time,
    captured: Option<super::link::Captured>,
    offset: u32,
    received: [u64; 4],
}

/// Bytes of an A-MPDU of `psdu` so far once a subframe of an `mpdu`-byte MPDU is added.
pub(crate) fn with_subframe(psdu: u32, mpdu: u32) -> u32 {
    psdu.next_multiple_of(4) + DELIMITER_BYTES + mpdu
}

impl Bss {
    /// True if this MAC sends data frames in A-MPDUs (the QoS MAC with aggregation).
    #[inline]
    pub(crate) fn aggregates(&self) -> bool {
        self.cfg.qos.is_some_and(|q| q.aggregation.is_some())
    }

    /// Whether `from`'s next access for `to` sends an A-MPDU (not an ADDBA Request or a
    /// BlockAckReq).
    pub(crate) fn sends_ampdu(&self, from: StaId, to: StaId) -> bool {
        self.has_agreement(from, to) && !self.bar_owed(from, to)
    }

    /// Whether the Block Ack agreement `from` → `to` of the AC `from`'s access is for exists
    /// (one TID per AC).
    pub(crate) fn has_agreement(&self, from: StaId, to: StaId) -> bool {
        let ac = self.stas[from as usize].cur;
        if from == AP {
            self.stas[to as usize].ba_down[ac]
        } else {
            self.stas[from as usize].ba_up[ac]
        }
    }

    /// Whether the originator of the flow `from` → `to` of the AC of `from`'s access owes
    /// its recipient a BlockAckReq (an MPDU was dropped and the recipient's window has not
    /// moved past it yet).
    fn bar_owed(&self, from: StaId, to: StaId) -> bool {
        let ac = self.stas[from as usize].cur;
        if from == AP {
            self.stas[to as usize].bar_down[ac]
        } else {
            self.stas[from as usize].bar_up[ac]
        }
    }

    /// Sets whether the flow `from` → `to` of the AC of `from`'s access owes a BlockAckReq.
    fn set_bar_owed(&mut self, from: StaId, to: StaId, owed: bool) {
        let ac = self.stas[from as usize].cur;
        if from == AP {
            self.stas[to as usize].bar_down[ac] = owed;
        } else {
            self.stas[from as usize].bar_up[ac] = owed;
        }
    }

    /// Non-HT rate (kb/s) of the Block Ack answering an A-MPDU `from` → `to` (the control
    /// response rate of its data rate, §10.6.6.5.2).
    fn control_kbps(&self, from: StaId, to: StaId) -> u32 {
        self.cfg.phy.response_kbps(self.tx_vector(from, to))
    }

    /// Rate (kb/s) of ADDBA and BlockAckReq frames: the lowest basic rate, as mac80211 sends
    /// every management frame and BlockAckReq (`rate_control_send_low`: frames that are not
    /// data bypass the rate controller), so a set-up does not depend on a data rate that no
    /// feedback has tuned yet; their ACK or Block Ack answers at that rate's response rate.
    fn setup_kbps(&self) -> u32 {
        self.cfg.phy.basic_rates_kbps[0]
    }

    /// Airtime of a frame of `bytes` at the lowest basic rate ([`Bss::setup_kbps`]) and of
    /// one of `response_bytes` answering it.
    fn setup_airtimes(&self, bytes: u32, response_bytes: u32) -> (Duration, Duration) {
        let phy = &self.cfg.phy;
        let kbps = self.setup_kbps();
        (phy.frame_duration(bytes, kbps), phy.frame_duration(response_bytes, phy.control_rate(kbps)))
    }

    /// Next sequence number of the flow `from` → `to` of the AC of `from`'s access.
    fn next_seq(&mut self, from: StaId, to: StaId) -> &mut u32 {
        let ac = self.stas[from as usize].cur;
        if from == AP {
            &mut self.stas[to as usize].seq_down[ac]
        } else {
            &mut self.stas[from as usize].seq_up[ac]
        }
    }

    /// Bytes of the compressed Block Ack of this BSS's window (32, or 56 with 256 bits).
    pub(crate) fn block_ack_bytes(&self) -> u32 {
        self.cfg.qos.and_then(|q| q.aggregation).map_or(wattlab_core::wlan::aggregation::BLOCK_ACK_64_BYTES, |a| a.block_ack_bytes())
    }

    /// `sta` won the medium with the data frame at `head` of its queue: it sets up the Block
    /// Ack agreement, sends the BlockAckReq it owes, or sends an A-MPDU.
    pub(crate) fn start_aggregate(&mut self, now: Time, sta: StaId, head: usize) {
        let to = self.stas[sta as usize].queue[head].to;
        if !self.has_agreement(sta, to) {
            self.start_addba(now, sta, to);
        } else if self.bar_owed(sta, to) {
            self.start_bar(now, sta, to);
        } else {
            self.start_ampdu(now, sta, head);
        }
    }

    /// `sta`'s aggregated attempt from queue position `head` collided: counts it, charges its
    /// airtime and its radio's TX time, and returns that airtime.
    pub(crate) fn charge_collided_aggregate(&mut self, now: Time, sta: StaId, head: usize) -> Duration {
        let (dur, tag, shape) = self.aggregate_attempt(now, sta, head);
        let s = &mut self.stas[sta as usize];
        s.stats.collisions += 1;
        s.stats.airtime_ns += dur.as_nanos();
        s.ac_stats[s.cur].airtime_ns += dur.as_nanos();
        self.ppdu_activity(sta, now, now + dur, wattlab_core::energy::Activity::Tx, tag, shape);
        dur
    }

    /// Duration of what `sta` sends first when it wins with the data frame at `head` (a
    /// collision lasts as long as it): the ADDBA Request, an RTS, or the A-MPDU (its MPDUs are
    /// then attempted and marked in flight), with its tag and the width and streams of its PPDU.
    pub(crate) fn aggregate_attempt(&mut self, now: Time, sta: StaId, head: usize) -> (Duration, u32, PpduShape) {
        let to = self.stas[sta as usize].queue[head].to;
        if !self.has_agreement(sta, to) {
            self.stas[sta as usize].stats.attempts += 1;
            let dur = self.setup_airtimes(ADDBA_BYTES, ACK_BYTES).0;
            self.log_setup(AirKind::AddBaRequest, sta, to, now, dur, ADDBA_BYTES, true);
            return (dur, 0, PpduShape::NON_HT);
        }
        if self.bar_owed(sta, to) {
            let s = &mut self.stas[sta as usize].stats;
            (s.attempts, s.bars) = (s.attempts + 1, s.bars + 1);
            let dur = self.setup_airtimes(BAR_BYTES, ACK_BYTES).0;
            self.log_setup(AirKind::BlockAckReq, sta, to, now, dur, BAR_BYTES, true);
            return (dur, 0, PpduShape::NON_HT);
        }
        let p = self.begin_ampdu(now, sta, head);
        let rts = self.cfg.rts_threshold.is_some_and(|t| p.psdu > t);
        let (dur, shape) = if rts {
            (self.control_airtime(sta, to, RTS_BYTES), PpduShape::NON_HT)
        } else {
            (self.data_airtime(sta, to, p.psdu), self.data_shape(sta, to))
        };
        if rts {
            self.log_control(AirKind::Rts, sta, to, now, dur, RTS_BYTES, true);
        } else {
            self.log_ampdu(sta, to, now, dur, p.ssn, None);
        }
        // It collides: no MPDU of the PPDU is acknowledged (as Linux's rate control sees it).
        self.ppdu_feedback(now, sta, to, p.mpdus as u32, 0);
        (dur, p.tag, shape)
    }

    /// ADDBA Request, ACK, ADDBA Response, ACK, each SIFS apart, at the lowest basic rate
    /// and its response rate. With links each frame may be lost (the link's error model); the
    /// set-up then ends with that frame and fails (the originator tries again from the Request
    /// at a later access).
    fn start_addba(&mut self, now: Time, sta: StaId, to: StaId) {
        self.stas[sta as usize].stats.attempts += 1;
        let (d, sifs) = (self.cfg.propagation, self.cfg.phy.sifs);
        let (kbps, ack_kbps) = (self.setup_kbps(), self.cfg.phy.control_rate(self.setup_kbps()));
        let (frame, ack) = self.setup_airtimes(ADDBA_BYTES, ACK_BYTES);
        let (mut t, mut ok) = (now, true);
        let frames = [(sta, to, frame, ADDBA_BYTES, kbps), (to, sta, ack, ACK_BYTES, ack_kbps), (to, sta, frame, ADDBA_BYTES, kbps), (sta, to, ack, ACK_BYTES, ack_kbps)];
        let kinds = [AirKind::AddBaRequest, AirKind::Ack, AirKind::AddBaResponse, AirKind::Ack];
        for ((from, dest, dur, bytes, kbps), kind) in frames.into_iter().zip(kinds) {
            self.on_air(from, Some(dest), t, dur, 0);
            let lost = self.link_control_lost(from, dest, kbps, bytes);
            self.log_setup(kind, from, dest, t, dur, bytes, lost);
            t = t + dur + d + sifs;
            if lost {
                ok = false;
                break;
            }
        }
        self.occupy(now, t - sifs, ExchangeKind::AddBa { sta, to, ok });
    }

    /// BlockAckReq, SIFS, Block Ack (§10.25.2.6), at the lowest basic rate and its response
    /// rate: tells the recipient that the MPDUs before the originator's window start will not
    /// come again, so it passes up what it held behind them. Either frame may be lost with
    /// links (the link's error model).
    fn start_bar(&mut self, now: Time, sta: StaId, to: StaId) {
        let s = &mut self.stas[sta as usize].stats;
        (s.attempts, s.bars) = (s.attempts + 1, s.bars + 1);
        let (d, sifs) = (self.cfg.propagation, self.cfg.phy.sifs);
        let (kbps, ba_kbps) = (self.setup_kbps(), self.cfg.phy.control_rate(self.setup_kbps()));
        let ba_bytes = self.block_ack_bytes();
        let (bar, ba) = self.setup_airtimes(BAR_BYTES, ba_bytes);
        self.on_air(sta, Some(to), now, bar, 0);
        let received = !self.link_control_lost(sta, to, kbps, BAR_BYTES);
        self.log_setup(AirKind::BlockAckReq, sta, to, now, bar, BAR_BYTES, !received);
        let (end, ok) = if received {
            self.on_air(to, Some(sta), now + bar + d + sifs, ba, 0);
            self.timer(now + bar + d, MacTimer::Delivered { gen: self.exchange_gen.wrapping_add(1) });
            let ok = !self.link_control_lost(to, sta, ba_kbps, ba_bytes);
            self.log_setup(AirKind::BlockAck, to, sta, now + bar + d + sifs, ba, ba_bytes, !ok);
            (now + bar + d + sifs + ba + d, ok)
        } else {
            (now + bar + d, false)
        };
        self.occupy(now, end, ExchangeKind::Bar { sta, to, ok });
    }

    /// Logs a set-up frame of `sta`'s current access (ADDBA, BlockAckReq, their responses)
    /// with its TID and, for Block Ack frames, the flow's starting sequence number.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn log_setup(&mut self, kind: AirKind, from: StaId, to: StaId, start: Time, dur: Duration, bytes: u32, lost: bool) {
        if !self.logs_air() {
            return;
        }
        // Sent at the lowest basic rate, answered at its control rate (as timed).
        let kbps = match kind {
            AirKind::Ack | AirKind::BlockAck => self.cfg.phy.control_rate(self.setup_kbps()),
            _ => self.setup_kbps(),
        };
        if kind == AirKind::Ack {
            return self.push_control(kind, from, to, start, dur, bytes, lost, None, Some(kbps));
        }
        // The flow's originator: the responses go the other way.
        let owner = if matches!(kind, AirKind::AddBaResponse | AirKind::BlockAck) { to } else { from };
        let tid = self.current_tid(owner);
        let (a, b) = if owner == from { (from, to) } else { (to, from) };
        let ssn = self.window_start(a, b);
        self.push_control(kind, from, to, start, dur, bytes, lost, Some((tid, ssn, Vec::new())), Some(kbps));
    }

    /// The first sequence number of `from` → `to`'s flow of its current AC not acknowledged
    /// yet (the originator's window start), 12 bits.
    fn window_start(&mut self, from: StaId, to: StaId) -> u16 {
        let ac = self.stas[from as usize].cur as u8;
        let first = self.stas[from as usize].queue.iter().find(|f| f.to == to && f.ac == ac && !f.ba.acked && f.ba.seq != NO_SEQ).map(|f| f.ba.seq);
        (first.unwrap_or(*self.next_seq(from, to)) & 0x0fff) as u16
    }

    /// The BlockAckReq of `from` (for the TID of its access's AC) reached `to`: its window
    /// moves past the dropped MPDUs, and what it held behind them goes up in order.
    pub(crate) fn bar_received(&mut self, now: Time, from: StaId, to: StaId) {
        let (mut gone, ac) = (0, self.stas[from as usize].cur as u8);
        for f in self.stas[from as usize].queue.iter_mut() {
            // A dropped MPDU the recipient does hold is passed up by the release below.
            if f.to == to && f.ac == ac && f.ba.tries == u16::MAX && !f.ba.received {
                (f.ba.received, f.ba.delivered) = (true, true);
                gone += 1;
            }
        }
        self.stas[from as usize].gone += gone;
        self.release_in_order(now, from, to, ac);
    }

    /// The BlockAckReq exchange is over: with its Block Ack the debt is paid and the
    /// originator backs off as after a success; without it, it tries again with a doubled CW.
    pub(crate) fn bar_done(&mut self, now: Time, sta: StaId, to: StaId, ok: bool) {
        if ok {
            self.set_bar_owed(sta, to, false);
            self.sweep(now, sta);
            self.reset_backoff(sta);
        } else {
            self.widen_backoff(sta);
        }
    }

    /// Picks the A-MPDU `sta` sends now, starting with the data frame at `head`: marks its
    /// MPDUs in flight, numbers new ones, counts their attempts.
    fn begin_ampdu(&mut self, now: Time, sta: StaId, head: usize) -> Plan {
        let agg = self.cfg.qos.and_then(|q| q.aggregation).expect("aggregating MAC");
        let (to, ac) = (self.stas[sta as usize].queue[head].to, self.stas[sta as usize].queue[head].ac);
        let allowance = if sta == AP { self.stas[to as usize].power.ap_allowance() } else { u32::MAX };
        // A rate controller's probe goes alone (minstrel_ht: "sampling might add some overhead
        // (RTS, no aggregation)").
        let allowance = if self.link_sampling(sta, to) { 1 } else { allowance };
        let edca_txop = self.txop_left(now, sta);
        let txop = match (edca_txop, agg.txop_limit) {
            (Duration::ZERO, t) | (t, Duration::ZERO) => t,
            (a, b) => a.min(b),
        };
        // The TXOP limit bounds the whole exchange: PPDU, SIFS and the Block Ack.
        let response = self.cfg.phy.sifs + self.control_airtime(sta, to, self.block_ack_bytes());
        let time_limit = if txop > Duration::ZERO { agg.max_ppdu_time.min(Duration::from_nanos(txop.as_nanos().saturating_sub(response.as_nanos()))) } else { agg.max_ppdu_time };
        let mut next = *self.next_seq(sta, to);
        let first = self.stas[sta as usize].queue[head].ba.seq;
        let ssn = if first == NO_SEQ { next } else { first };
        let window_end = ssn + agg.ba_window as u32;
        let cap = self.psdu_cap(sta, to, time_limit, agg.max_ampdu_bytes);
        let max_amsdu = self.amsdu_limit();
        if max_amsdu > 0 {
            let lim = super::amsdu::FillLimits { to, ac, window_end, cap, allowance, max_amsdu };
            let fill = self.fill_amsdus(sta, head, lim, &mut next);
            *self.next_seq(sta, to) = next;
            return self.count_ampdu(sta, Plan { to, ssn, n: fill.msdus as u16, mpdus: fill.mpdus as u16, psdu: fill.psdu, tag: fill.tag });
        }
        let (mut n, mut psdu, mut tag) = (0u32, 0u32, 0u32);
        let extra = self.data_extra_bytes();
        // One pass over the queue, borrowed apart from the outputs and the AP's fair queue
        // (no index arithmetic per frame).
        let Bss { stas, out, ap_queue, report_transmits, .. } = self;
        let Sta { queue, stats, .. } = &mut stas[sta as usize];
        for f in queue.range_mut(head..) {
            if f.to != to || f.ac != ac || f.ba.acked {
                continue;
            }
            let Body::Data(packet) = &f.body else { break };
            let seq = if f.ba.seq == NO_SEQ { next } else { f.ba.seq };
            if seq >= window_end || n >= allowance {
                break;
            }
            let bytes = with_subframe(psdu, Self::mpdu_bytes(f) + extra);
            if n > 0 && bytes > cap {
                break;
            }
            psdu = bytes;
            if n == 0 {
                tag = f.tag;
            }
            n += 1;
            if f.ba.seq == NO_SEQ {
                next += 1;
            }
            // The MPDU goes out with sequence number `seq`.
            f.ba.seq = seq;
            f.ba.inflight = true;
            f.ba.tries += 1;
            if sta == AP {
                ap_queue.served(f.finish);
            }
            stats.bytes_attempted += packet.ip_len() as u64;
            if f.ba.tries > 1 {
                stats.ba_retries += 1;
            } else if *report_transmits {
                out.push_back(MacOutput::Transmit { sta, to, packet: *packet });
            }
        }
        *self.next_seq(sta, to) = next;
        self.stas[sta as usize].stats.ampdu_msdus += n as u64;
        self.count_ampdu(sta, Plan { to, ssn, n: n as u16, mpdus: n as u16, psdu, tag })
    }

    /// Counts the A-MPDU `p` `sta` is about to send (attempt, MPDUs, rate) and returns it.
    fn count_ampdu(&mut self, sta: StaId, p: Plan) -> Plan {
        self.count_rate(sta, p.to, p.mpdus as u64);
        let s = &mut self.stas[sta as usize].stats;
        s.attempts += 1;
        s.ampdus += 1;
        s.ampdu_mpdus += p.mpdus as u64;
        s.ampdu_hist.add(p.mpdus as u32);
        p
    }

    /// Largest PSDU (bytes) `sta` may send `to` within `max_bytes` and a PPDU of `time_limit`:
    /// found by bisection on the PPDU duration (non-decreasing in the length), and kept for the
    /// next A-MPDU with the same TX vector and limits.
    fn psdu_cap(&mut self, sta: StaId, to: StaId, time_limit: Duration, max_bytes: u32) -> u32 {
        let tx = self.tx_vector(sta, to);
        if let Some((t, l, m, cap)) = self.psdu_cap_cache {
            if (t, l, m) == (tx, time_limit, max_bytes) {
                return cap;
            }
        }
        let (mut lo, mut hi) = (0u32, max_bytes);
        if self.data_airtime(sta, to, hi) > time_limit {
            // Invariant: lo fits (0 bytes always does, or nothing would), hi does not.
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if self.data_airtime(sta, to, mid) <= time_limit {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            hi = lo;
        }
        self.psdu_cap_cache = Some((tx, time_limit, max_bytes, hi));
        hi
    }

    /// [RTS/CTS,] the A-MPDU, and the Block Ack if any MPDU arrived.
    fn start_ampdu(&mut self, now: Time, sta: StaId, head: usize) {
        let p = self.begin_ampdu(now, sta, head);
        let (d, sifs, to) = (self.cfg.propagation, self.cfg.phy.sifs, p.to);
        let mut t = now;
        let rts = self.cfg.rts_threshold.is_some_and(|th| p.psdu > th);
        if rts {
            let (r, c) = (self.control_airtime(sta, to, RTS_BYTES), self.control_airtime(sta, to, ACK_BYTES));
            self.on_air(sta, Some(to), t, r, p.tag);
            self.on_air(to, Some(sta), t + r + d + sifs, c, p.tag);
            self.log_control(AirKind::Rts, sta, to, t, r, RTS_BYTES, false);
            self.log_control(AirKind::Cts, to, sta, t + r + d + sifs, c, ACK_BYTES, false);
            t = t + r + c + d + d + sifs + sifs;
        }
        let data = self.data_airtime(sta, to, p.psdu);
        self.on_air_ppdu(sta, Some(to), t, data, p.tag, self.data_shape(sta, to));
        // Captured from a collision (`link.rs`): the MPDUs that start while another frame is
        // on the air are drawn at the SINR, the later ones at the SNR.
        let captured = self.link.as_deref_mut().and_then(|l| l.captured.take()).filter(|c| c.sta == sta);
        // One error draw per MPDU, in sequence order, once all its MSDUs are counted.
        let mut draws = MpduDraws { ppdu_start: t, captured, offset: 0, received: [0u64; 4] };
        let (len, mut seen, packed) = (self.stas[sta as usize].queue.len(), 0, p.mpdus < p.n);
        let mut mpdu: Option<(u32, MpduSize)> = None;
        for k in head..len {
            if seen == p.n {
                break;
            }
            let f = &self.stas[sta as usize].queue[k];
            if !f.ba.inflight {
                continue;
            }
            seen += 1;
            if !packed {
                // One MSDU per MPDU: no grouping to do.
                let (bit, bytes) = (f.ba.seq - p.ssn, self.mpdu_len(f));
                self.draw_mpdu(now, sta, to, bit, bytes, &mut draws);
                continue;
            }
            let (seq, ip) = (f.ba.seq, Self::mpdu_bytes(f) - DATA_OVERHEAD_BYTES);
            match mpdu {
                Some((s, size)) if s == seq => {
                    mpdu = Some((s, size.with(ip)));
                    continue;
                }
                Some((s, size)) => self.draw_mpdu(now, sta, to, s - p.ssn, size.bytes(), &mut draws),
                None => {}
            }
            mpdu = Some((seq, MpduSize::default().with(ip)));
        }
        if let Some((s, size)) = mpdu {
            self.draw_mpdu(now, sta, to, s - p.ssn, size.bytes(), &mut draws);
        }
        let received = draws.received;
        let any = received != [0; 4];
        let (kbps, ba_bytes) = (self.control_kbps(sta, to), self.block_ack_bytes());
        // A Block Ack that would start while another frame of the collision is still on the
        // air is not received (no capture of it is modelled).
        let ba_start = t + data + d + sifs;
        let ba_clear = captured.is_none_or(|c| c.until + d <= ba_start);
        let ba = any && ba_clear && !self.response_lost() && !self.link_control_lost(to, sta, kbps, ba_bytes);
        self.log_ampdu(sta, to, t, data, p.ssn, Some(received));
        let end = if any {
            let dur = self.control_airtime(sta, to, self.block_ack_bytes());
            self.on_air(to, Some(sta), ba_start, dur, p.tag);
            if self.logs_air() {
                let bits = Self::ba_bits(received);
                let tid = self.current_tid(sta);
                self.push_control(AirKind::BlockAck, to, sta, ba_start, dur, ba_bytes, !ba, Some((tid, (p.ssn & 0x0fff) as u16, bits)), None);
            }
            self.timer(t + data + d, MacTimer::Delivered { gen: self.exchange_gen.wrapping_add(1) });
            t + data + d + sifs + dur + d
        } else {
            t + data + d
        };
        let end = captured.map_or(end, |c| end.max(c.until + d));
        // After every airtime of the exchange is known: the feedback may change the rate.
        let acked = if ba { received.iter().map(|w| w.count_ones()).sum() } else { 0 };
        self.ppdu_feedback(now, sta, to, p.mpdus as u32, acked);
        self.occupy(now, end, ExchangeKind::Ampdu { sta, to, ssn: p.ssn, n: p.n, received, ba, rts });
    }

    /// Draws whether the MPDU of `bytes` at bit `bit` of the A-MPDU `sta` → `to` arrived.
    #[inline]
    fn draw_mpdu(&mut self, now: Time, sta: StaId, to: StaId, bit: u32, bytes: u32, d: &mut MpduDraws) {
        // The MPDU's delimiter starts when the PPDU of the bytes before it would end.
        let sinr = d.captured.filter(|c| d.ppdu_start + self.data_airtime(sta, to, d.offset) < c.until).map(|c| c.sinr_db);
        if d.captured.is_some() {
            d.offset = with_subframe(d.offset, bytes).next_multiple_of(4);
        }
        if !self.mpdu_lost(now, sta, to, bytes, sinr) {
            d.received[bit as usize / 64] |= 1 << (bit % 64);
        }
    }

    /// A deliberately lost Block Ack ([`Bss::lose_responses`]).
    fn response_lost(&mut self) -> bool {
        if self.lose_responses > 0 {
            self.lose_responses -= 1;
            return true;
        }
        false
    }

    /// The A-MPDU is in: the recipient keeps what arrived and passes up what is in order.
    pub(crate) fn on_ampdu_delivered(&mut self, now: Time, sta: StaId, to: StaId, ssn: u32, n: u16, received: [u64; 4]) {
        let mut seen = 0;
        for f in self.stas[sta as usize].queue.iter_mut() {
            if seen == n {
                break;
            }
            if f.ba.inflight {
                seen += 1;
                let bit = (f.ba.seq - ssn) as usize;
                if received[bit / 64] >> (bit % 64) & 1 == 1 {
                    f.ba.received = true;
                }
            }
        }
        let ac = self.stas[sta as usize].cur as u8;
        self.release_in_order(now, sta, to, ac);
    }

    /// Passes up, in sequence order, every MPDU of the flow `from` → `to` of AC `ac` (its
    /// TID) the recipient holds with no hole before it.
    pub(crate) fn release_in_order(&mut self, now: Time, from: StaId, to: StaId, ac: u8) {
        let queue = &self.stas[from as usize].queue;
        // Frames passed up already (waiting for their Block Ack) are skipped by an iterator,
        // without the index arithmetic the loop below pays per frame.
        let start = queue.iter().position(|f| f.to == to && f.ac == ac && !f.ba.delivered).unwrap_or(queue.len());
        for k in start..queue.len() {
            let f = &mut self.stas[from as usize].queue[k];
            if f.to != to || f.ac != ac || f.ba.delivered {
                continue;
            }
            if !f.ba.received {
                break;
            }
            f.ba.delivered = true;
            let body = f.body;
            if f.ba.acked {
                self.stas[from as usize].gone += 1;
            }
            if let Body::Data(packet) = body {
                if !self.packet_lost(now, from, to) {
                    self.out.push_back(MacOutput::Deliver { sta: to, from, packet });
                }
            }
        }
    }

    /// The Block Ack agreement `sta` → `to` is set up; the originator backs off as after a
    /// success.
    pub(crate) fn addba_done(&mut self, sta: StaId, to: StaId) {
        let ac = self.stas[sta as usize].cur;
        if sta == AP {
            self.stas[to as usize].ba_down[ac] = true;
        } else {
            self.stas[sta as usize].ba_up[ac] = true;
        }
        self.stas[sta as usize].stats.ba_setups += 1;
        self.reset_backoff(sta);
    }

    /// The A-MPDU exchange is over: acknowledged MPDUs leave (once passed up), failed ones past
    /// their retry limit are dropped, the rest go again; the CW resets after a Block Ack and
    /// doubles without one. Returns the number of MPDUs acknowledged.
    pub(crate) fn ampdu_done(&mut self, now: Time, sta: StaId, to: StaId, ssn: u32, n: u16, received: [u64; 4], ba: bool, rts: bool) -> u32 {
        let limit = if rts { self.cfg.long_retry_limit } else { self.cfg.short_retry_limit };
        let (mut acked, mut dropped, mut sent, mut gone) = (0u32, 0u32, 0u16, 0u32);
        for f in self.stas[sta as usize].queue.iter_mut() {
            if sent == n {
                break;
            }
            if !f.ba.inflight {
                continue;
            }
            f.ba.inflight = false;
            sent += 1;
            if ba && received[(f.ba.seq - ssn) as usize / 64] >> ((f.ba.seq - ssn) % 64) & 1 == 1 {
                f.ba.acked = true;
                gone += f.ba.delivered as u32;
                acked += 1;
            } else if limit.is_some_and(|l| f.ba.tries as u32 > l) {
                // Dropped: it leaves once the recipient's window moves past it (the
                // BlockAckReq this drop makes the originator owe, `bar_received`).
                f.ba.acked = true;
                f.ba.tries = u16::MAX;
                gone += f.ba.delivered as u32;
                dropped += 1;
            }
        }
        self.stas[sta as usize].gone += gone;
        if sta == AP {
            // A release (service period, burst) is used up once the recipient's Block Ack
            // covers the frame or it is dropped, not when a held frame leaves the queue.
            for _ in 0..acked + dropped {
                self.release_used(to);
            }
        }
        if !ba && sent > 0 {
            self.stas[sta as usize].stats.ba_lost += 1;
        }
        if dropped > 0 {
            self.set_bar_owed(sta, to, true);
        }
        self.sweep(now, sta);
        let s = &mut self.stas[sta as usize];
        s.stats.retry_drops += dropped as u64;
        if ba {
            self.reset_backoff(sta);
        } else {
            self.widen_backoff(sta);
        }
        acked
    }

    /// An access failed: CW doubles (up to CWmax) and a new backoff is drawn.
    pub(crate) fn widen_backoff(&mut self, sta: StaId) {
        let s = &mut self.stas[sta as usize];
        let e = &mut s.acs[s.cur];
        e.cw = (2 * e.cw + 1).min(e.cw_max);
        e.backoff = s.rng.random_range(0..=e.cw);
        e.backoff_active = true;
    }

    /// Index of the data frame `sta` would send in an A-MPDU (or set up an agreement for) if
    /// it won the medium now; None if it would send something else or the MAC does not
    /// aggregate.
    pub(crate) fn aggregated_head(&self, sta: StaId) -> Option<usize> {
        if !self.aggregates() {
            return None;
        }
        match self.head(sta)? {
            super::dcf::Head::Frame(i) if matches!(self.stas[sta as usize].queue[i].body, Body::Data(_)) => Some(i),
            _ => None,
        }
    }

    /// A collision ended: `sta`'s A-MPDU failed as a whole (or its ADDBA Request did).
    pub(crate) fn aggregate_collided(&mut self, now: Time, sta: StaId) {
        let q = &self.stas[sta as usize].queue;
        match q.iter().position(|f| f.ba.inflight) {
            Some(i) => {
                let to = q[i].to;
                // The PSDU was over the threshold if its first MPDU alone was.
                let rts = self.cfg.rts_threshold.is_some_and(|t| self.head_mpdu_bytes(sta, i) > t);
                self.ampdu_done(now, sta, to, 0, u16::MAX, [0; 4], false, rts);
            }
            None => self.widen_backoff(sta),
        }
    }

    /// Removes from `sta`'s queue the MPDUs that are acknowledged and passed up (or dropped).
    /// They are mostly at the front (the oldest of their flow), so the queue is scanned only
    /// while `gone` says some remain behind others (the AP's interleaved receivers).
    fn sweep(&mut self, now: Time, sta: StaId) {
        // MPDUs leaving together were at the head of their AC's queue since the last ones left.
        let since = self.stas[sta as usize].acs.map(|e| e.last_left);
        loop {
            let s = &mut self.stas[sta as usize];
            if s.gone == 0 || !s.queue.front().is_some_and(|f| f.ba.acked && f.ba.delivered) {
                break;
            }
            let f = self.take_frame(sta, 0);
            self.stas[sta as usize].gone -= 1;
            self.left_queue(now, sta, &f, since[f.ac as usize]);
        }
        let mut k = 0;
        while self.stas[sta as usize].gone > 0 && k < self.stas[sta as usize].queue.len() {
            let f = &self.stas[sta as usize].queue[k];
            if f.ba.acked && f.ba.delivered {
                let f = self.take_frame(sta, k);
                self.stas[sta as usize].gone -= 1;
                self.left_queue(now, sta, &f, since[f.ac as usize]);
            } else {
                k += 1;
            }
        }
    }

    /// MPDU `f` left `sta`'s queue at `now`: counted as delivered unless dropped; it had been
    /// at the head of its AC's queue since `head_since` (or its arrival).
    #[inline]
    fn left_queue(&mut self, now: Time, sta: StaId, f: &super::Frame, head_since: Time) {
        let s = &mut self.stas[sta as usize];
        s.acs[f.ac as usize].last_left = now;
        if f.ba.tries != u16::MAX {
            // Read in place, the IP length once: this runs for every MPDU.
            if let Body::Data(p) = &f.body {
                let ip = p.ip_len();
                s.stats.frames_sent += 1;
                s.stats.bytes_sent += ip as u64;
                s.count_ac_delivery(f, ip, head_since, now);
            }
        }
    }

    /// A PS-Poll's answer (one MPDU with a normal ACK) reached station `to`: under an
    /// agreement it joins the recipient's reorder buffer like an aggregated MPDU.
    pub(crate) fn poll_answer_received(&mut self, now: Time, to: StaId, id: u64) {
        if let Some(f) = self.stas[AP as usize].queue.iter_mut().find(|f| f.id == id) {
            f.ba.received = true;
            let ac = f.ac;
            self.release_in_order(now, AP, to, ac);
        }
    }

    /// The PS-Poll's answer was acknowledged: it leaves once passed up.
    pub(crate) fn poll_answer_acked(&mut self, now: Time, to: StaId, id: u64) {
        if let Some(f) = self.stas[AP as usize].queue.iter_mut().find(|f| f.id == id) {
            f.ba.acked = true;
            if f.ba.delivered {
                self.stas[AP as usize].gone += 1;
            }
        }
        self.release_used(to);
        self.sweep(now, AP);
    }
}
