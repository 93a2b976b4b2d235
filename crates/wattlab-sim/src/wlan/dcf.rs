//! CSMA/CA (DCF): contention on a shared slot grid, frame exchanges, collisions and retries.
//!
//! When the medium goes idle at `t`, every station defers an IFS (DIFS, or EIFS after a frame
//! that failed) and then counts its backoff down on the grid `t + IFS + k·slot`. The station
//! whose counter runs out first transmits; stations that run out in the same slot collide.
//! Everyone else freezes its counter, decremented by the slots that elapsed, until the medium
//! is idle again. A station with no backoff pending whose frame arrives while the medium is
//! idle transmits without backoff at the later of its IFS after the last busy period (DIFS,
//! or EIFS after a failure) and the next grid point (immediate access); one whose frame
//! arrives while the medium is busy, or whose IFS the medium does not stay idle for, draws a
//! backoff first (§10.3.4.2–3). After every exchange
//! the sender draws a new backoff (post-backoff), from CWmin after a success and from a
//! doubled window after a failure, so the model matches Bianchi's assumptions exactly.
//!
//! Each exchange is laid out in full when it starts (RTS/CTS, data, ACK, each separated by
//! SIFS and the propagation delay), its airtimes reported to the radios at once, and two
//! timers fire: `Delivered` when the data frame is in, `ExchangeEnd` when the medium frees.

use super::{Ac, AirKind, Body, Bss, Edcaf, ExchangeKind, Exchange, Frame, LossLayer, MacOutput, MacTimer, Overhearing, Sta, StaId, AP};
use rand::Rng;
use wattlab_core::energy::Activity;
use wattlab_core::wlan::phy::{ACK_BYTES, DATA_OVERHEAD_BYTES, NULL_FRAME_BYTES, PS_POLL_BYTES, QOS_EXTRA_BYTES, RTS_BYTES};
use wattlab_core::wlan::{PpduShape, TxVector};
use wattlab_core::{Duration, Time};

/// What a station would send if it won the medium now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Head {
    /// The frame at this index of its queue.
    Frame(usize),
    /// A PS-Poll.
    Poll,
    /// The AP's Basic Trigger frame to this station (trigger-enabled TWT).
    Trigger(StaId),
}

impl Bss {
    /// MPDU size of a queued frame.
    #[inline]
    pub(crate) fn mpdu_bytes(frame: &Frame) -> u32 {
        // By reference: the packet is not copied to read its length.
        match &frame.body {
            Body::Data(p) => p.ip_len() + DATA_OVERHEAD_BYTES,
            Body::Null(_) => NULL_FRAME_BYTES,
            Body::TwtSetup { broadcast: false } => super::power::TWT_SETUP_BYTES,
            Body::TwtSetup { broadcast: true } => super::power::BROADCAST_TWT_SETUP_BYTES,
        }
    }

    /// MPDU size of a queued frame as this MAC sends it: a QoS data frame carries the 2-byte
    /// QoS Control field (802.11-2020 §9.3.2.1).
    #[inline]
    pub(crate) fn mpdu_len(&self, frame: &Frame) -> u32 {
        match frame.body {
            Body::Data(_) => Self::mpdu_bytes(frame) + self.data_extra_bytes(),
            _ => Self::mpdu_bytes(frame),
        }
    }

    /// Bytes a data MPDU of this MAC carries beyond [`Bss::mpdu_bytes`]: the QoS Control
    /// field on the QoS MAC, none on the legacy one.
    #[inline]
    pub(crate) fn data_extra_bytes(&self) -> u32 {
        if self.cfg.qos.is_some() {
            QOS_EXTRA_BYTES
        } else {
            0
        }
    }

    /// What station `i` would transmit now for the AC that holds its access.
    #[inline(always)]
    pub(crate) fn head(&self, i: StaId) -> Option<Head> {
        self.head_of(i, self.stas[i as usize].cur)
    }

    /// What station `i` would transmit now for access category `ac`, if it may transmit at
    /// all: the first frame of the AC's queue (a PS-Poll goes as AC_BE).
    // Inlined into contention's loop over every station and AC, as the AP's search and the
    // search of a queue shared by several ACs are not.
    #[inline(always)]
    pub(crate) fn head_of(&self, i: StaId, ac: usize) -> Option<Head> {
        let s = &self.stas[i as usize];
        if i == AP {
            // A Basic Trigger (trigger-enabled TWT) goes as AC_BE, before the AP's BE frames.
            if ac == Ac::Be as usize {
                if let Some(t) = self.trigger_due() {
                    return Some(Head::Trigger(t));
                }
            }
            return if s.acs[ac].queued == 0 { None } else { self.ap_head(ac).map(Head::Frame) };
        }
        if !s.awake || s.waking {
            return None;
        }
        if s.poll_pending && ac == Ac::Be as usize {
            return Some(Head::Poll);
        }
        // Under a trigger-enabled agreement the station sends only in answer to a trigger.
        if s.by_trigger && self.responding != Some(i) {
            return None;
        }
        match s.acs[ac].queued as usize {
            0 => None,
            // Every queued frame is of this AC (always so under DCF): the front is its head.
            n if n == s.queue.len() => Some(Head::Frame(0)),
            _ => Self::first_of_ac(s, ac),
        }
    }

    /// The first frame of AC `ac` in a queue that holds frames of other ACs too.
    #[inline(never)]
    fn first_of_ac(s: &Sta, ac: usize) -> Option<Head> {
        s.queue.iter().position(|f| f.ac as usize == ac).map(Head::Frame)
    }

    /// The access categories a contender may have frames in: the four under EDCA, AC_BE
    /// alone under DCF.
    #[inline]
    pub(crate) fn ac_count(&self) -> usize {
        if self.cfg.qos.is_some() { 4 } else { 1 }
    }

    /// Index of the first backoff slot boundary at or after `t` in the current idle period.
    fn slot_at_or_after(&self, t: Time) -> u64 {
        if t <= self.grid_origin {
            return 0;
        }
        (t - self.grid_origin).as_nanos().div_ceil(self.cfg.phy.slot.as_nanos())
    }

    /// Start of the backoff slot grid after the medium goes idle at `now`: the shortest AIFS
    /// of the BSS (SIFS + `base_aifsn` slots; DIFS under DCF), after a failed exchange EIFS −
    /// DIFS + that AIFS (802.11-2020 §10.3.2.3.7, §10.23.2.4).
    pub(crate) fn grid_after(&self, now: Time, clean: bool) -> Time {
        let phy = &self.cfg.phy;
        let extra = if clean { Duration::ZERO } else { phy.eifs() - phy.difs() };
        now + extra + phy.sifs + Duration::from_nanos(self.base_aifsn * phy.slot.as_nanos())
    }

    /// AC `ac` of station `i` may have something to send: frames queued, or on AC_BE a PS-Poll
    /// owed or (at the AP, under trigger-enabled TWT) a Basic Trigger.
    #[inline]
    fn may_send(&self, i: StaId, ac: usize) -> bool {
        let s = &self.stas[i as usize];
        s.acs[ac].queued != 0
            || (ac == Ac::Be as usize && (s.poll_pending || (i == AP && self.any_trigger)))
    }

    /// [`Bss::may_send`] of station `i`'s four ACs as a bit per AC (bit `ac`), with, if
    /// `or_had_head`, the ACs that had a head at the last evaluation: the ACs contention
    /// has to visit, taken in one pass over the station.
    #[inline(always)]
    fn send_mask(&self, i: StaId, or_had_head: bool) -> u32 {
        let s = &self.stas[i as usize];
        let mut m = 0u32;
        for (ac, e) in s.acs.iter().enumerate() {
            m |= ((e.queued != 0 || (or_had_head && e.had_head)) as u32) << ac;
        }
        if s.poll_pending || (i == AP && self.any_trigger) {
            m |= 1 << (Ac::Be as usize);
        }
        m
    }

    /// Grid slot at which AC `ac` of station `i` would transmit, given the current slot
    /// `slot_now`. An AC whose AIFS is longer than the grid's start counts its slots
    /// `aifs_off` later.
    #[inline]
    fn ac_access_slot(&self, i: StaId, ac: usize, slot_now: u64) -> Option<u64> {
        if !self.may_send(i, ac) {
            return None;
        }
        self.head_of(i, ac)?;
        Some(self.ac_access_slot_of(i, ac, slot_now))
    }

    /// Grid slot at which station `i` would transmit (its earliest AC).
    fn access_slot(&self, i: StaId, slot_now: u64) -> Option<u64> {
        if self.ac_count() == 1 {
            // DCF: one queue, AC_BE's (index 0) function, as before EDCA had four.
            self.head_of(i, 0)?;
            return Some(self.ac_access_slot_of(i, 0, slot_now));
        }
        // The earliest of its ACs' slots; an AC with nothing to send is passed over before
        // its head is looked for.
        let mut best: Option<u64> = None;
        let mut todo = self.send_mask(i, false);
        while todo != 0 {
            let ac = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            if self.head_of(i, ac).is_none() {
                continue;
            }
            let k = self.ac_access_slot_of(i, ac, slot_now);
            best = Some(best.map_or(k, |b| b.min(k)));
        }
        best
    }

    /// Internal contention at a station whose access slot came (802.11-2020 §10.23.2.4):
    /// of its ACs whose backoff ended in `slot`, the highest priority one gets the TXOP; the
    /// others back off as after a collision (CW doubled, retry counted). Sets `cur`.
    fn resolve_internal(&mut self, now: Time, i: StaId, slot: u64) {
        if self.ac_count() == 1 {
            self.stas[i as usize].cur = Ac::Be as usize;
            return;
        }
        let mut won = false;
        for ac in Ac::BY_PRIORITY {
            if self.ac_access_slot(i, ac, slot) != Some(slot) {
                continue;
            }
            if !won {
                won = true;
                self.stas[i as usize].cur = ac;
                continue;
            }
            let winner = self.stas[i as usize].cur;
            self.stas[i as usize].cur = ac;
            self.stas[i as usize].stats.internal_collisions += 1;
            match self.head_of(i, ac) {
                // The queued frames were not on the air: their Block Ack state is untouched.
                Some(Head::Frame(_)) if self.aggregates() => self.widen_backoff(i),
                Some(Head::Frame(k)) => {
                    let f = self.stas[i as usize].queue[k];
                    let rts = self.uses_rts(&f);
                    self.frame_failed(now, i, Some(f.id), rts);
                }
                _ => self.frame_failed(now, i, None, false),
            }
            self.stas[i as usize].cur = winner;
        }
    }

    /// [`Bss::ac_access_slot`] of an AC known to have something to send.
    #[inline]
    fn ac_access_slot_of(&self, i: StaId, ac: usize, slot_now: u64) -> u64 {
        let e = &self.stas[i as usize].acs[ac];
        let off = e.aifs_off;
        if e.backoff_active { (e.backoff as u64 + off).max(slot_now) } else { slot_now.max(off) }
    }

    /// AC `ac` of station `i` has something to send (`has`), the medium idle; `after_busy`:
    /// the medium has been busy since the last evaluation. An AC with no backoff pending draws
    /// one only if its frame arrived while the medium was busy (802.11-2020 §10.3.4.2 for DCF,
    /// item a) of §10.23.2.2's list for an EDCAF): a frame arriving at an idle medium goes at
    /// its own IFS after the last busy period (DIFS, AIFS, EIFS after a failure) or the next
    /// grid point, whichever is later. Under DCF the medium must also *remain* idle for that
    /// IFS ("otherwise the random backoff procedure shall be followed"), so a station still
    /// deferring when another transmission starts draws one too; an EDCAF then keeps its zero
    /// counter (no case of §10.23.2.2 applies; ns-3's `ChannelAccessManager` does the same).
    #[inline]
    fn backoff_on_arrival(&mut self, i: StaId, ac: usize, has: bool, after_busy: bool) {
        let dcf = self.cfg.qos.is_none();
        let s = &mut self.stas[i as usize];
        let e = &mut s.acs[ac];
        if after_busy && has && !e.backoff_active && (dcf || !e.had_head) {
            e.backoff = s.rng.random_range(0..=e.cw);
            e.backoff_active = true;
        }
        e.had_head = has;
    }

    /// Under DCF, whether non-AP station `s` (id `i`) has a head: [`Bss::head_of`]'s answer
    /// for AC_BE, the only AC (every frame is of it, so a non-zero count means a front frame).
    #[inline(always)]
    fn dcf_sta_has(s: &Sta, i: StaId, responding: Option<StaId>) -> bool {
        s.awake
            && !s.waking
            && (s.poll_pending || ((!s.by_trigger || responding == Some(i)) && s.acs[0].queued != 0))
    }

    /// [`Bss::ac_access_slot_of`] of an EDCAF already borrowed.
    #[inline(always)]
    fn edcaf_slot(e: &Edcaf, slot_now: u64) -> u64 {
        if e.backoff_active { (e.backoff as u64 + e.aifs_off).max(slot_now) } else { slot_now.max(e.aifs_off) }
    }

    /// DCF's pass of [`Bss::contend`] (one queue per station, AC_BE's function, index 0):
    /// the same decisions as `head_of`, `backoff_on_arrival` and `ac_access_slot_of`, over
    /// the stations by iterator so the hot loop does no indexing. Returns the earliest slot.
    fn contend_dcf(&mut self, after_busy: bool, slot_now: u64) -> Option<u64> {
        let ap_has = self.head_of(AP, 0).is_some();
        let responding = self.responding;
        let mut first: Option<u64> = None;
        for (i, s) in self.stas.iter_mut().enumerate() {
            let has = if i == AP as usize { ap_has } else { Self::dcf_sta_has(s, i as StaId, responding) };
            let e = &mut s.acs[0];
            // backoff_on_arrival under DCF: a frame that arrived while the medium was busy.
            if after_busy && has && !e.backoff_active {
                e.backoff = s.rng.random_range(0..=e.cw);
                e.backoff_active = true;
            }
            e.had_head = has;
            if has {
                let k = Self::edcaf_slot(e, slot_now);
                first = Some(first.map_or(k, |f| f.min(k)));
            }
        }
        first
    }

    /// Re-evaluates contention: arms the access timer for the earliest transmitter.
    pub(crate) fn contend(&mut self, now: Time) {
        if self.busy {
            return;
        }
        // Every station is evaluated, even while a beacon waits, so that a frame arriving then
        // counts as arriving at an idle medium (the beacon then interrupts its IFS).
        let after_busy = self.evaluated_at < self.idle_since;
        self.evaluated_at = now;
        let slot_now = self.slot_at_or_after(now);
        let mut first: Option<u64> = None;
        if self.ac_count() == 1 {
            first = self.contend_dcf(after_busy, slot_now);
        } else {
            for i in 0..self.stas.len() as StaId {
                // Only ACs with something queued, or with a head at the last evaluation, have
                // anything to settle: the others stay as they are (no head, `had_head`
                // false). Settling one AC changes no other AC's fields, so the set is taken
                // once per station (a bit per AC, visited in ACI order as before).
                let mut todo = self.send_mask(i, true);
                while todo != 0 {
                    let ac = todo.trailing_zeros() as usize;
                    todo &= todo - 1;
                    let has = self.head_of(i, ac).is_some();
                    self.backoff_on_arrival(i, ac, has, after_busy);
                    if has {
                        let k = self.ac_access_slot_of(i, ac, slot_now);
                        first = Some(first.map_or(k, |f| f.min(k)));
                    }
                }
            }
        }
        let at = if self.beacon_pending {
            // Beacons wait PIFS (SIFS + slot), shorter than any DIFS: they go first.
            Some(now.max(self.idle_since + self.cfg.phy.sifs + self.cfg.phy.slot))
        } else {
            first.map(|k| self.grid_origin + Duration::from_nanos(k * self.cfg.phy.slot.as_nanos()))
        };
        if at != self.access_at {
            self.access_at = at;
            self.access_gen = self.access_gen.wrapping_add(1);
            if let Some(at) = at {
                self.timer(at, MacTimer::Access { gen: self.access_gen });
            }
        }
    }

    /// The access timer fired: freeze everyone's backoff and start the winners' exchange.
    pub(crate) fn on_access(&mut self, now: Time) {
        self.access_at = None;
        let elapsed = if now > self.grid_origin {
            (now - self.grid_origin).as_nanos() / self.cfg.phy.slot.as_nanos()
        } else {
            0
        };
        if self.beacon_pending {
            self.freeze(elapsed);
            self.start_beacon(now);
            return;
        }
        let mut winners = std::mem::take(&mut self.winners);
        winners.clear();
        if self.ac_count() == 1 {
            // DCF: access_slot's one-AC case, by iterator (see contend_dcf).
            if self.head_of(AP, 0).is_some() && Self::edcaf_slot(&self.stas[AP as usize].acs[0], elapsed) == elapsed {
                winners.push(AP);
            }
            let responding = self.responding;
            for (i, s) in self.stas.iter().enumerate().skip(1) {
                if Self::dcf_sta_has(s, i as StaId, responding) && Self::edcaf_slot(&s.acs[0], elapsed) == elapsed {
                    winners.push(i as StaId);
                }
            }
        } else {
            for i in 0..self.stas.len() as StaId {
                if self.access_slot(i, elapsed) == Some(elapsed) {
                    winners.push(i);
                }
            }
        }
        for &w in &winners {
            self.resolve_internal(now, w, elapsed);
        }
        self.freeze(elapsed);
        match winners.len() {
            0 => {}
            1 => {
                self.begin_txop(now, winners[0]);
                self.start_exchange(now, winners[0]);
            }
            _ => self.start_collision(now, &winners),
        }
        self.winners = winners;
        if !self.busy {
            self.contend(now);
        }
    }

    /// The medium turns busy `elapsed` slots into the grid: counters lose those slots.
    fn freeze(&mut self, elapsed: u64) {
        let n = self.ac_count();
        for s in self.stas.iter_mut() {
            for e in &mut s.acs[..n] {
                if e.backoff_active {
                    // ACs count only the slots after their own (longer) AIFS.
                    let counted = elapsed.saturating_sub(e.aifs_off);
                    e.backoff = e.backoff.saturating_sub(counted.min(u32::MAX as u64) as u32);
                    e.backoff_active = e.backoff > 0;
                }
            }
        }
    }

    /// Reports one frame on the air: `from` transmits, the addressee and the awake
    /// overhearers receive.
    pub(crate) fn on_air(&mut self, from: StaId, to: Option<StaId>, start: Time, dur: Duration, tag: u32) {
        self.on_air_ppdu(from, to, start, dur, tag, PpduShape::NON_HT);
    }

    /// [`Bss::on_air`] for a PPDU of `shape` (a data PPDU's width and spatial streams).
    pub(crate) fn on_air_ppdu(&mut self, from: StaId, to: Option<StaId>, start: Time, dur: Duration, tag: u32, shape: PpduShape) {
        let d = self.cfg.propagation;
        self.ppdu_activity(from, start, start + dur, Activity::Tx, tag, shape);
        for i in 0..self.stas.len() as StaId {
            if i == from || !self.stas[i as usize].awake {
                continue;
            }
            if Some(i) == to || self.cfg.overhearing == Overhearing::Rx {
                self.ppdu_activity(i, start + d, start + d + dur, Activity::Rx, tag, shape);
            }
        }
    }

    /// Width and spatial streams of a data PPDU from `from` to `to` now.
    pub(crate) fn data_shape(&self, from: StaId, to: StaId) -> PpduShape {
        self.tx_vector(from, to).shape()
    }

    /// Marks the medium busy until `end` with exchange `kind`.
    pub(crate) fn occupy(&mut self, now: Time, end: Time, kind: ExchangeKind) {
        let owner = match kind {
            ExchangeKind::Frame { sta, .. } | ExchangeKind::Poll { sta, .. } => Some(sta),
            ExchangeKind::Ampdu { sta, .. } | ExchangeKind::AddBa { sta, .. } | ExchangeKind::Bar { sta, .. } => Some(sta),
            ExchangeKind::Beacon | ExchangeKind::Trigger { .. } => Some(AP),
            ExchangeKind::Collision => None,
        };
        if let Some(sta) = owner {
            let s = &mut self.stas[sta as usize];
            s.stats.airtime_ns += (end - now).as_nanos();
            if !matches!(kind, ExchangeKind::Beacon) {
                s.ac_stats[s.cur].airtime_ns += (end - now).as_nanos();
            }
        }
        self.busy = true;
        self.exchange_gen = self.exchange_gen.wrapping_add(1);
        self.exchange = Some(Exchange { kind });
        self.stats.busy_ns += (end - now).as_nanos();
        self.timer(end, MacTimer::ExchangeEnd { gen: self.exchange_gen });
    }

    /// Counts an attempt; the first attempt of a data frame is the sender's capture point.
    pub(crate) fn note_attempt(&mut self, sta: StaId, frame: &Frame) {
        if sta == AP {
            self.ap_queue.served(frame.finish);
        }
        let s = &mut self.stas[sta as usize];
        s.stats.attempts += 1;
        if let Body::Data(packet) = frame.body {
            s.stats.bytes_attempted += packet.ip_len() as u64;
        }
        let e = s.edcaf();
        if e.retry_id != frame.id {
            e.retry_id = frame.id;
            e.retries = 0;
        }
        if e.retries == 0 && self.report_transmits {
            if let Body::Data(packet) = frame.body {
                self.out.push_back(MacOutput::Transmit { sta, to: frame.to, packet });
            }
        }
        if matches!(frame.body, Body::Data(_)) {
            self.count_rate(sta, frame.to, 1);
        }
    }

    /// Counts `n` data MPDUs `from` sends `to` at the rate of its current attempt (kept at
    /// the station end of the link, per direction).
    #[inline]
    pub(crate) fn count_rate(&mut self, from: StaId, to: StaId, n: u64) {
        let tx = self.tx_vector(from, to);
        let bps = self.cfg.phy.data_rate_bps(tx);
        let (sta, dir) = if from == AP { (to, 1) } else { (from, 0) };
        self.stas[sta as usize].rate_use[dir].add(tx, bps, n);
    }

    /// Draws the frame error of an attempt of an MPDU of `bytes` between `sta` and the AP:
    /// the loss process (frame layer), and with positions the PER at the link's SNR and the
    /// attempt's rate (`link.rs`, which also feeds the rate controller).
    pub(crate) fn frame_lost(&mut self, now: Time, from: StaId, to: StaId, bytes: u32) -> bool {
        let lost = self.cfg.loss_layer == LossLayer::Frame && self.draw_loss(now, from, to);
        let lost = self.link_lost(now, from, to, bytes, lost) || lost;
        if lost {
            self.stas[from as usize].stats.frame_errors += 1;
        }
        lost
    }

    /// [`Bss::frame_lost`] for one MPDU of an A-MPDU: the error model's draw at the PPDU's
    /// rate (at `sinr_db` if given: it overlapped a collision's other frames), its feedback
    /// left to the PPDU's ([`Bss::ppdu_feedback`]).
    pub(crate) fn mpdu_lost(&mut self, now: Time, from: StaId, to: StaId, bytes: u32, sinr_db: Option<f64>) -> bool {
        let lost = self.cfg.loss_layer == LossLayer::Frame && self.draw_loss(now, from, to);
        let lost = self.link_mpdu_lost(from, to, bytes, sinr_db) || lost;
        if lost {
            self.stas[from as usize].stats.frame_errors += 1;
        }
        lost
    }

    /// One draw of the loss process of the direction `from` → `to` (kept by the non-AP end).
    fn draw_loss(&mut self, now: Time, from: StaId, to: StaId) -> bool {
        let s = &mut self.stas[if from == AP { to } else { from } as usize];
        if from == AP {
            s.cfg.loss_down.next_lost(now, &mut s.loss_rng)
        } else {
            s.cfg.loss_up.next_lost(now, &mut s.loss_rng)
        }
    }

    pub(crate) fn uses_rts(&self, frame: &Frame) -> bool {
        self.cfg.rts_threshold.is_some_and(|t| self.mpdu_len(frame) > t)
    }

    /// Logs what `sta` sent first for `head` in a collision (lost) over `[now, now + dur)`.
    #[inline(always)]
    pub(crate) fn log_head(&mut self, sta: StaId, head: Head, now: Time, dur: Duration) {
        if self.logs_air() {
            self.push_head(sta, head, now, dur);
        }
    }

    #[cold]
    #[inline(never)]
    fn push_head(&mut self, sta: StaId, head: Head, now: Time, dur: Duration) {
        match head {
            Head::Poll => self.log_control(AirKind::PsPoll, sta, AP, now, dur, PS_POLL_BYTES, true),
            Head::Trigger(to) => self.log_control(AirKind::Trigger, AP, to, now, dur, super::power::TRIGGER_BYTES, true),
            Head::Frame(i) => {
                let f = self.stas[sta as usize].queue[i];
                if self.uses_rts(&f) {
                    self.log_control(AirKind::Rts, sta, f.to, now, dur, RTS_BYTES, true);
                } else {
                    self.log_frame(sta, &f, now, dur, true);
                }
            }
        }
    }

    pub(crate) fn head_duration(&self, sta: StaId, head: Head) -> Duration {
        match head {
            Head::Poll => self.control_airtime(sta, AP, PS_POLL_BYTES),
            Head::Trigger(to) => self.control_airtime(AP, to, super::power::TRIGGER_BYTES),
            Head::Frame(i) => {
                let f = &self.stas[sta as usize].queue[i];
                if self.uses_rts(f) {
                    self.control_airtime(sta, f.to, RTS_BYTES)
                } else {
                    self.frame_airtime(sta, f)
                }
            }
        }
    }

    /// Width and spatial streams of what `sta` sends first for `head` ([`Bss::head_duration`]'s
    /// PPDU): the data PPDU's, or non-HT for an RTS or a PS-Poll.
    pub(crate) fn head_shape(&self, sta: StaId, head: Head) -> PpduShape {
        match head {
            Head::Frame(i) if !self.uses_rts(&self.stas[sta as usize].queue[i]) => {
                self.frame_shape(sta, &self.stas[sta as usize].queue[i])
            }
            _ => PpduShape::NON_HT,
        }
    }

    /// How `from` sends data to `to` now (the seam where rate control plugs in): the link's
    /// rate controller with `[wlan.propagation]` (`link.rs`), else the constant setting of the
    /// station at the non-AP end of the link, both ways (the AP sends to a station as that
    /// station is configured), else the BSS's.
    pub(crate) fn tx_vector(&self, from: StaId, to: StaId) -> TxVector {
        if let Some(tx) = self.link_tx_vector(from, to) {
            return tx;
        }
        let sta = if from == AP { to } else { from };
        self.stas[sta as usize].cfg.tx.unwrap_or(self.cfg.tx)
    }

    /// Airtime of a single queued frame from `from`: a data or Null frame as a data PPDU, a
    /// management (TWT Setup) frame at the basic rate, as control frames go.
    pub(crate) fn frame_airtime(&self, from: StaId, frame: &Frame) -> Duration {
        match frame.body {
            Body::TwtSetup { .. } => self.control_airtime(from, frame.to, self.mpdu_len(frame)),
            _ => self.data_airtime(from, frame.to, self.mpdu_len(frame)),
        }
    }

    /// Width and spatial streams of `frame`'s PPDU from `from`: a TWT action frame goes at a
    /// basic rate (non-HT), any other frame as data.
    pub(crate) fn frame_shape(&self, from: StaId, frame: &Frame) -> PpduShape {
        match frame.body {
            Body::TwtSetup { .. } => PpduShape::NON_HT,
            _ => self.data_shape(from, frame.to),
        }
    }

    /// Airtime of a data PPDU of `psdu_bytes` from `from` to `to`: an HE TB PPDU while `from`
    /// answers the AP's Basic Trigger (`responding`), else its own (SU) PPDU.
    pub(crate) fn data_airtime(&self, from: StaId, to: StaId, psdu_bytes: u32) -> Duration {
        let tx = self.tx_vector(from, to);
        if self.responding == Some(from) {
            return self.cfg.phy.tb_ppdu_duration(psdu_bytes, tx);
        }
        self.cfg.phy.ppdu_duration(psdu_bytes, tx)
    }

    /// Airtime of a control frame of `bytes` (RTS, CTS, ACK, PS-Poll) that protects, answers or
    /// polls for data from `from` to `to`: at the basic rate answering that data's rate, so an
    /// ACK is timed by the frame it acknowledges, whichever way it goes.
    pub(crate) fn control_airtime(&self, from: StaId, to: StaId, bytes: u32) -> Duration {
        let phy = &self.cfg.phy;
        phy.frame_duration(bytes, phy.response_kbps(self.tx_vector(from, to)))
    }

    /// One station won the medium (or continues its TXOP).
    pub(crate) fn start_exchange(&mut self, now: Time, sta: StaId) {
        match self.head(sta) {
            Some(Head::Frame(i)) => {
                // The aggregating path reads the queue in place; only a single frame is copied.
                if self.aggregates() && matches!(self.stas[sta as usize].queue[i].body, Body::Data(_)) {
                    self.start_aggregate(now, sta, i);
                } else {
                    self.start_frame(now, sta, self.stas[sta as usize].queue[i]);
                }
            }
            Some(Head::Poll) => self.start_poll(now, sta),
            Some(Head::Trigger(to)) => self.start_trigger(now, to),
            None => {}
        }
    }

    /// Data or Null frame, with RTS/CTS if it is long, then SIFS and the ACK.
    fn start_frame(&mut self, now: Time, sta: StaId, frame: Frame) {
        self.note_attempt(sta, &frame);
        let (d, sifs) = (self.cfg.propagation, self.cfg.phy.sifs);
        let to = frame.to;
        let mut t = now;
        let rts = self.uses_rts(&frame);
        if rts {
            // RTS and CTS are short control frames at a basic rate: assumed error-free.
            let (r, c) = (self.control_airtime(sta, to, RTS_BYTES), self.control_airtime(sta, to, ACK_BYTES));
            self.on_air(sta, Some(to), t, r, frame.tag);
            self.on_air(to, Some(sta), t + r + d + sifs, c, frame.tag);
            self.log_control(AirKind::Rts, sta, to, t, r, RTS_BYTES, false);
            self.log_control(AirKind::Cts, to, sta, t + r + d + sifs, c, ACK_BYTES, false);
            t = t + r + c + d + d + sifs + sifs;
        }
        let data = self.frame_airtime(sta, &frame);
        self.on_air_ppdu(sta, Some(to), t, data, frame.tag, self.frame_shape(sta, &frame));
        let ok = !self.frame_lost(now, sta, to, self.mpdu_len(&frame));
        self.log_frame(sta, &frame, t, data, !ok);
        let end = if ok {
            let ack = self.control_airtime(sta, to, ACK_BYTES);
            self.on_air(to, Some(sta), t + data + d + sifs, ack, frame.tag);
            self.log_control(AirKind::Ack, to, sta, t + data + d + sifs, ack, ACK_BYTES, false);
            self.timer(t + data + d, MacTimer::Delivered { gen: self.exchange_gen.wrapping_add(1) });
            t + data + d + sifs + ack + d
        } else {
            t + data + d
        };
        self.occupy(now, end, ExchangeKind::Frame { sta, frame, ok, rts });
    }

    /// PS-Poll; the AP answers after SIFS with one buffered frame (More Data set if others
    /// wait), or with an ACK if it has none.
    fn start_poll(&mut self, now: Time, sta: StaId) {
        self.stas[sta as usize].stats.attempts += 1;
        let (d, sifs) = (self.cfg.propagation, self.cfg.phy.sifs);
        let poll = self.control_airtime(sta, AP, PS_POLL_BYTES);
        self.on_air(sta, Some(AP), now, poll, 0);
        self.log_control(AirKind::PsPoll, sta, AP, now, poll, PS_POLL_BYTES, false);
        let t = now + poll + d + sifs;
        let response = self.stas[AP as usize].queue.iter().position(|f| f.to == sta && !f.ba.acked);
        let (end, response, ok) = match response {
            Some(i) => {
                let frame = self.stas[AP as usize].queue[i];
                // The answer's retry state is its AC's.
                self.stas[AP as usize].cur = frame.ac as usize;
                self.note_attempt(AP, &frame);
                let data = self.data_airtime(AP, sta, self.mpdu_len(&frame));
                self.on_air_ppdu(AP, Some(sta), t, data, frame.tag, self.data_shape(AP, sta));
                let ok = !self.frame_lost(now, AP, sta, self.mpdu_len(&frame));
                self.log_frame(AP, &frame, t, data, !ok);
                if ok {
                    let ack = self.control_airtime(AP, sta, ACK_BYTES);
                    self.on_air(sta, Some(AP), t + data + d + sifs, ack, frame.tag);
                    self.log_control(AirKind::Ack, sta, AP, t + data + d + sifs, ack, ACK_BYTES, false);
                    self.timer(t + data + d, MacTimer::Delivered { gen: self.exchange_gen.wrapping_add(1) });
                    (t + data + d + sifs + ack + d, Some((i, frame)), true)
                } else {
                    (t + data + d, Some((i, frame)), false)
                }
            }
            None => {
                let ack = self.control_airtime(sta, AP, ACK_BYTES);
                self.on_air(AP, Some(sta), t, ack, 0);
                self.log_control(AirKind::Ack, AP, sta, t, ack, ACK_BYTES, false);
                (t + ack + d, None, true)
            }
        };
        self.occupy(now, end, ExchangeKind::Poll { sta, response, ok });
    }

    /// Several stations ended their backoff in the same slot: every frame is lost, unless
    /// one is captured (`link.rs`), whose exchange then goes on as if it had won alone.
    fn start_collision(&mut self, now: Time, winners: &[StaId]) {
        if let Some(w) = self.capture(now, winners) {
            self.begin_txop(now, w);
            self.start_exchange(now, w);
            return;
        }
        let mut longest = Duration::ZERO;
        for &w in winners {
            let Some(head) = self.head(w) else { continue };
            if let Some(i) = self.aggregated_head(w) {
                longest = longest.max(self.charge_collided_aggregate(now, w, i));
                continue;
            }
            if let Head::Frame(i) = head {
                let frame = self.stas[w as usize].queue[i];
                self.note_attempt(w, &frame);
            } else {
                self.stas[w as usize].stats.attempts += 1;
            }
            self.stas[w as usize].stats.collisions += 1;
            let dur = self.head_duration(w, head);
            let s = &mut self.stas[w as usize];
            s.stats.airtime_ns += dur.as_nanos();
            s.ac_stats[s.cur].airtime_ns += dur.as_nanos();
            longest = longest.max(dur);
            let tag = if let Head::Frame(i) = head { self.stas[w as usize].queue[i].tag } else { 0 };
            let shape = self.head_shape(w, head);
            self.ppdu_activity(w, now, now + dur, Activity::Tx, tag, shape);
            self.log_head(w, head, now, dur);
        }
        let d = self.cfg.propagation;
        for i in 0..self.stas.len() as StaId {
            let s = &self.stas[i as usize];
            let hears = s.awake && (i == AP || self.cfg.overhearing == Overhearing::Rx);
            if hears && !winners.contains(&i) {
                self.activity(i, now + d, now + d + longest, Activity::Rx, 0);
            }
        }
        self.stats.collisions += 1;
        self.occupy(now, now + longest + d, ExchangeKind::Collision);
    }

    /// The AP's beacon, at the lowest basic rate.
    fn start_beacon(&mut self, now: Time) {
        self.beacon_pending = false;
        let phy = self.cfg.phy;
        let dur = phy.frame_duration(self.cfg.beacon_bytes, phy.basic_rates_kbps[0]);
        let d = self.cfg.propagation;
        self.activity(AP, now, now + dur, Activity::Tx, 0);
        self.log_beacon(now, dur);
        for i in 1..self.stas.len() as StaId {
            if self.stas[i as usize].awake {
                self.activity(i, now + d, now + d + dur, Activity::Rx, 0);
            }
        }
        self.stats.beacons += 1;
        self.occupy(now, now + dur + d, ExchangeKind::Beacon);
    }

    /// The data frame of the current exchange is in: hand it to the receiver.
    pub(crate) fn on_delivered(&mut self, now: Time) {
        let Some(ex) = self.exchange else { return };
        let (from, frame) = match ex.kind {
            ExchangeKind::Frame { sta, frame, ok: true, .. } => (sta, frame),
            ExchangeKind::Poll { response: Some((_, frame)), ok: true, .. } if self.aggregates() => {
                return self.poll_answer_received(now, frame.to, frame.id);
            }
            ExchangeKind::Poll { response: Some((_, frame)), ok: true, .. } => (AP, frame),
            ExchangeKind::Ampdu { sta, to, ssn, n, received, .. } => return self.on_ampdu_delivered(now, sta, to, ssn, n, received),
            ExchangeKind::Bar { sta, to, .. } => return self.bar_received(now, sta, to),
            _ => return,
        };
        if let Body::Data(packet) = frame.body {
            if self.packet_lost(now, from, frame.to) {
                return;
            }
            self.out.push_back(MacOutput::Deliver { sta: frame.to, from, packet });
        }
    }

    /// Draws the loss of a delivered packet above the MAC (packet-layer loss).
    pub(crate) fn packet_lost(&mut self, now: Time, from: StaId, to: StaId) -> bool {
        let lost = self.cfg.loss_layer == LossLayer::Packet && self.draw_loss(now, from, to);
        if lost {
            self.stas[from as usize].stats.packet_errors += 1;
        }
        lost
    }

    /// The exchange is over: settle retries and backoffs, then contend again.
    pub(crate) fn on_exchange_end(&mut self, now: Time) {
        let Some(ex) = self.exchange.take() else { return };
        self.busy = false;
        self.idle_since = now;
        if let ExchangeKind::Trigger { sta } = ex.kind {
            // SIFS after the trigger: the station's TB PPDU, without contention.
            return self.answer_trigger(now, sta);
        }
        let clean = match ex.kind {
            ExchangeKind::Frame { sta, frame, ok, rts } => {
                if ok {
                    self.frame_done(now, sta, frame.id, true);
                    self.after_success(now, sta, frame);
                } else {
                    self.frame_failed(now, sta, Some(frame.id), rts);
                }
                ok
            }
            ExchangeKind::Poll { sta, response, ok } => {
                if ok {
                    self.poll_done(sta);
                    match response {
                        Some((_, frame)) if self.aggregates() => self.poll_answer_acked(now, sta, frame.id),
                        Some((_, frame)) => {
                            self.frame_done(now, AP, frame.id, false);
                            self.after_success(now, AP, frame);
                        }
                        None => {}
                    }
                    self.stas[sta as usize].poll_pending = self.stas[AP as usize].queue.iter().any(|f| f.to == sta && !f.ba.acked);
                } else {
                    self.frame_failed(now, sta, None, false);
                }
                ok
            }
            ExchangeKind::Ampdu { sta, to, ssn, n, received, ba, rts } => {
                self.ampdu_done(now, sta, to, ssn, n, received, ba, rts);
                if ba && sta != AP {
                    self.uplink_delivered(now, sta, true);
                } else if ba {
                    self.downlink_delivered(now, to);
                }
                ba
            }
            ExchangeKind::AddBa { sta, to, ok } => {
                if ok {
                    self.addba_done(sta, to);
                } else {
                    self.widen_backoff(sta);
                }
                ok
            }
            ExchangeKind::Bar { sta, to, ok } => {
                self.bar_done(now, sta, to, ok);
                ok
            }
            ExchangeKind::Collision => {
                let winners = std::mem::take(&mut self.winners);
                for &w in &winners {
                    if self.aggregates() && (self.aggregated_head(w).is_some() || self.stas[w as usize].queue.iter().any(|f| f.ba.inflight)) {
                        self.aggregate_collided(now, w);
                        continue;
                    }
                    match self.head(w) {
                        Some(Head::Frame(i)) => {
                            let f = self.stas[w as usize].queue[i];
                            let rts = self.uses_rts(&f);
                            self.frame_failed(now, w, Some(f.id), rts);
                        }
                        _ => self.frame_failed(now, w, None, false),
                    }
                }
                self.winners = winners;
                false
            }
            ExchangeKind::Beacon => {
                self.after_beacon(now);
                true
            }
            ExchangeKind::Trigger { .. } => unreachable!("answered above"),
        };
        if clean && !matches!(ex.kind, ExchangeKind::Beacon) {
            self.stats.successes += 1;
        }
        if clean && self.continue_txop(now, &ex.kind) {
            self.after_exchange(now);
            return;
        }
        self.txop = None;
        self.grid_origin = self.grid_after(now, clean);
        self.after_exchange(now);
        self.contend(now);
    }

    /// Removes a delivered frame and starts the sender's post-backoff.
    fn frame_done(&mut self, now: Time, sta: StaId, id: u64, backoff: bool) {
        if let Some(i) = self.stas[sta as usize].queue.iter().position(|f| f.id == id) {
            let f = self.take_frame(sta, i);
            let s = &mut self.stas[sta as usize];
            match f.body {
                Body::Data(p) => {
                    s.stats.frames_sent += 1;
                    s.stats.bytes_sent += p.ip_len() as u64;
                    let since = s.acs[f.ac as usize].last_left;
                    s.count_ac_delivery(&f, p.ip_len(), since, now);
                }
                Body::Null(_) => s.stats.null_frames += 1,
                // Counted in `attempts` and `airtime_ns` (no column of its own).
                Body::TwtSetup { .. } => {}
            }
            s.acs[f.ac as usize].last_left = now;
        }
        let s = &mut self.stas[sta as usize];
        s.edcaf().retries = 0;
        if backoff {
            self.reset_backoff(sta);
        }
    }

    fn poll_done(&mut self, sta: StaId) {
        let s = &mut self.stas[sta as usize];
        s.stats.ps_polls += 1;
        s.edcaf().retries = 0;
        self.reset_backoff(sta);
    }

    /// CW back to CWmin and a fresh post-backoff.
    pub(crate) fn reset_backoff(&mut self, sta: StaId) {
        let s = &mut self.stas[sta as usize];
        let e = &mut s.acs[s.cur];
        e.cw = e.cw_min;
        e.backoff = s.rng.random_range(0..=e.cw);
        e.backoff_active = true;
    }

    /// An attempt failed: double CW, or drop the frame past the retry limit.
    pub(crate) fn frame_failed(&mut self, now: Time, sta: StaId, id: Option<u64>, rts: bool) {
        let limit = if rts { self.cfg.long_retry_limit } else { self.cfg.short_retry_limit };
        let s = &mut self.stas[sta as usize];
        s.edcaf().retries += 1;
        if limit.is_some_and(|l| s.edcaf_ref().retries > l) {
            s.stats.retry_drops += 1;
            match id {
                Some(id) => {
                    if let Some(i) = s.queue.iter().position(|f| f.id == id) {
                        let f = self.take_frame(sta, i);
                        self.stas[sta as usize].acs[f.ac as usize].last_left = now;
                        if sta == AP {
                            self.release_used(f.to);
                        }
                    }
                }
                // A PS-Poll that keeps failing: give up until the next beacon.
                None => s.poll_pending = false,
            }
            self.reset_backoff(sta);
            return;
        }
        self.widen_backoff(sta);
    }
}
