//! EDCA TXOPs with several exchanges (IEEE 802.11-2020 §10.23.2.8, "Multiple frame
//! transmission in an EDCA TXOP").
//!
//! An AC whose TXOP limit is not zero (AC_VI and AC_VO by default) holds the medium for up to
//! that long once it wins it: after each successful exchange it starts the next one SIFS
//! later, without a backoff, if the next exchange fits entirely in what is left of the TXOP
//! (its frames and responses, with the propagation delays). The medium stays busy in the SIFS
//! gap, so no one else can start (everyone else waits at least AIFS ≥ SIFS + one slot). A
//! failed exchange ends the TXOP: the AC backs off as after any failure (the standard's PIFS
//! recovery within a TXOP is not modelled). A-MPDUs in a TXOP are sized to the time left.
//! The backoff drawn after the TXOP's last exchange is the AC's post-backoff.

use super::dcf::Head;
use super::{Body, Bss, ExchangeKind, MacTimer, StaId};
use wattlab_core::wlan::phy::{ACK_BYTES, RTS_BYTES};
use wattlab_core::{Duration, Time};

impl Bss {
    /// Station `sta` won the medium at `now` with the AC that holds its access: it obtains a
    /// TXOP if the AC has a TXOP limit.
    pub(crate) fn begin_txop(&mut self, now: Time, sta: StaId) {
        let limit = self.stas[sta as usize].edcaf_ref().txop_limit;
        self.txop = (limit > Duration::ZERO).then_some((sta, now + limit));
    }

    /// The TXOP time `sta` has left at `now` for its next exchange: the rest of its TXOP, or
    /// the AC's whole limit when it has none running (zero: no limit, one exchange).
    pub(crate) fn txop_left(&self, now: Time, sta: StaId) -> Duration {
        match self.txop {
            Some((holder, end)) if holder == sta && end > now => end - now,
            _ => self.stas[sta as usize].edcaf_ref().txop_limit,
        }
    }

    /// After a successful exchange `kind` ended at `now`: if its sender holds a TXOP and its
    /// AC's next exchange fits in it, keeps the medium and starts that exchange SIFS later
    /// ([`MacTimer::Burst`]). True if it does.
    pub(crate) fn continue_txop(&mut self, now: Time, kind: &ExchangeKind) -> bool {
        let Some((holder, end)) = self.txop else { return false };
        let sender = match *kind {
            // The ADDBA handshake is an access of its own (management frames), as before.
            ExchangeKind::Frame { sta, .. } | ExchangeKind::Ampdu { sta, .. } => sta,
            _ => return false,
        };
        if sender != holder {
            return false;
        }
        let Some(Head::Frame(i)) = self.head(holder) else { return false };
        let start = now + self.cfg.phy.sifs;
        if start + self.min_exchange_time(holder, i) > end {
            return false;
        }
        // Keep the medium: no contention timer may fire in the gap.
        self.busy = true;
        self.access_at = None;
        self.access_gen = self.access_gen.wrapping_add(1);
        self.stas[holder as usize].stats.txop_continuations += 1;
        self.timer(start, MacTimer::Burst { gen: self.exchange_gen });
        true
    }

    /// SIFS after an exchange of a TXOP: the holder starts its next exchange (or, if it has
    /// nothing it may send any more, the TXOP ends and the medium is idle).
    pub(crate) fn on_burst(&mut self, now: Time) {
        let holder = self.txop.map(|(sta, _)| sta);
        match holder {
            Some(sta) if self.head(sta).is_some() => self.start_exchange(now, sta),
            _ => {
                self.txop = None;
                self.busy = false;
                self.idle_since = now;
                self.grid_origin = self.grid_after(now, true);
                self.contend(now);
            }
        }
    }

    /// The shortest exchange `sta` could start with the frame at `i` of its queue: the
    /// ADDBA handshake, or an A-MPDU of that MPDU alone and its Block Ack, or the frame and
    /// its ACK; RTS/CTS first where the frame would use them.
    fn min_exchange_time(&self, sta: StaId, i: usize) -> Duration {
        let f = &self.stas[sta as usize].queue[i];
        let (d, sifs, to) = (self.cfg.propagation, self.cfg.phy.sifs, f.to);
        let (data, response, rts) = if self.aggregates() && matches!(f.body, Body::Data(_)) {
            if !self.has_agreement(sta, to) {
                let (frame, ack) = (self.control_airtime(sta, to, super::ampdu::ADDBA_BYTES), self.control_airtime(sta, to, ACK_BYTES));
                return frame + ack + frame + ack + sifs + sifs + sifs + d + d + d + d;
            }
            let psdu = super::ampdu::with_subframe(0, self.head_mpdu_bytes(sta, i));
            let rts = self.cfg.rts_threshold.is_some_and(|t| psdu > t);
            (self.data_airtime(sta, to, psdu), self.control_airtime(sta, to, self.block_ack_bytes()), rts)
        } else {
            (self.data_airtime(sta, to, self.mpdu_len(f)), self.control_airtime(sta, to, ACK_BYTES), self.uses_rts(f))
        };
        let protect = if rts { self.control_airtime(sta, to, RTS_BYTES) + self.control_airtime(sta, to, ACK_BYTES) + sifs + sifs + d + d } else { Duration::ZERO };
        protect + data + sifs + response + d + d
    }
}
