//! Links with distance: each station's received power from every other (static positions,
//! `wattlab_core::wlan::propagation`), frame errors drawn from the SNR → PER model
//! (`wattlab_core::wlan::error_model`), the rate controllers of every AP ↔ station
//! direction (`super::rate`), and capture in collisions.
//!
//! Only a BSS built with `[wlan.propagation]` has a [`Link`]; without one, the MAC's
//! behaviour and random draws are those of a channel without distance.
//!
//! **Capture** (ns-2's rule, which the thesis of seed 002 ran, with the error model on top):
//! in a collision, the frame with the highest SINR at its receiver — its power over the sum
//! of the other colliders' at that receiver plus the noise — is received if that SINR is at
//! least `capture_threshold_db` (default 10 dB, ns-2's `CPThresh`) and its PER at that SINR
//! spares it (one draw per MPDU, in place of the draw at its SNR). Its exchange then runs as
//! if it had won alone (SIFS, ACK), and the others fail. Simplifications: a receiver that is
//! itself transmitting captures nothing; only data and Null frames are captured (not
//! PS-Polls); at most one frame per collision; a frame is captured only if every other frame
//! ends before its ACK starts (an ACK overlapping a longer frame is not modelled); arrival
//! order does not matter (all colliders start in the same slot).
//!
//! On the aggregating MAC an A-MPDU is captured by the same rule (`Bss::capture_ampdu`); its
//! MPDUs that start while another collider is still on the air are drawn at the SINR, the
//! later ones at the SNR (docs/wlan.md).

use super::rate::{Minstrel, RateControl, RateSet};
use super::{Bss, StaId, AP};
use crate::rng::StreamRng;
use rand::Rng;
use wattlab_core::wlan::error_model::{coded_error, ofdm_mode, uncoded_ber, Mode};
use wattlab_core::wlan::propagation::{db_to_ratio, Position, Propagation};
use wattlab_core::wlan::TxVector;
use wattlab_core::Time;

/// `ln(1 − P_e)`: the log of a decoded bit's success probability with `mode` at `snr_db`
/// (−∞ for a link that does not exist).
fn ln_bit_success(mode: Mode, snr_db: f64) -> f64 {
    (1.0 - coded_error(uncoded_ber(mode.constellation, db_to_ratio(snr_db)), mode.code_rate)).ln()
}

/// A frame received despite a collision (module comment).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Captured {
    /// Its sender.
    pub sta: StaId,
    /// Its SINR at the receiver while the others are on the air, dB.
    pub sinr_db: f64,
    /// When the last other frame of the collision ends (its sender's end).
    pub until: Time,
}

/// A BSS's links: received powers, error probabilities, rate controllers, capture.
#[derive(Clone, Debug)]
pub struct Link {
    /// The link budget's settings.
    pub propagation: Propagation,
    /// SINR a frame needs to survive a collision, dB.
    pub capture_threshold_db: f64,
    /// Rates the controllers choose among, slowest first.
    pub rates: RateSet,
    /// Number of members (AP first).
    n: usize,
    /// Received power at `to` of a frame from `from`, mW: `rx_mw[from * n + to]`.
    rx_mw: Vec<f64>,
    /// Received power of each link, dBm: `rx_dbm[from * n + to]`.
    rx_dbm: Vec<f64>,
    /// `ln(1 − P_e)` per bit of each AP ↔ station direction and rate:
    /// `[(dir_index(from, to)) * rates + r]`.
    ln_bit_success: Vec<f64>,
    /// Rate controller of each direction, indexed by [`Link::dir_index`].
    control: Vec<RateControl>,
    /// A captured frame: its sender, the SINR (dB) at which its next frame-error draw is made,
    /// and (A-MPDUs) when the last interfering frame ends: an MPDU starting after it is drawn
    /// at the link's SNR.
    pub(crate) captured: Option<Captured>,
}

impl Link {
    /// The links of members at `positions` (AP first): shadowing per unordered pair from one
    /// standard-normal draw each of `shadow` (`shadow(a, b)`, a < b), the rate controller of
    /// both directions between the AP and station i by `choices[i]` (its algorithm, and the
    /// rate index a `Constant` one uses), Minstrel's sample tables from `rng`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        propagation: Propagation,
        capture_threshold_db: f64,
        rates: RateSet,
        positions: &[Position],
        mut shadow: impl FnMut(usize, usize) -> f64,
        choices: &[(super::rate::RateAlgorithm, usize)],
        rng: &mut StreamRng,
    ) -> Link {
        use super::rate::RateAlgorithm as A;
        let n = positions.len();
        let mut rx_mw = vec![0.0; n * n];
        let mut rx_dbm = vec![f64::NEG_INFINITY; n * n];
        for a in 0..n {
            for b in a + 1..n {
                let sh = propagation.shadowing_db(shadow(a, b));
                let dbm = propagation.rx_power_dbm(positions[a].distance(&positions[b]), sh);
                for (f, t) in [(a, b), (b, a)] {
                    rx_mw[f * n + t] = db_to_ratio(dbm);
                    rx_dbm[f * n + t] = dbm;
                }
            }
        }
        let mut link = Link { propagation, capture_threshold_db, rates, n, rx_mw, rx_dbm, ln_bit_success: Vec::new(), control: Vec::new(), captured: None };
        let dirs = 2 * n;
        let nr = link.rates.len();
        link.ln_bit_success = vec![0.0; dirs * nr];
        link.control = Vec::with_capacity(dirs);
        for d in 0..dirs {
            let (from, to) = Self::dir_ends(d);
            let valid = from < n && to < n && from != to;
            // SNR at rate r: the noise floor is that of r's channel width.
            let snr = |link: &Link, r: usize| if valid { link.rx_dbm[from * n + to] - link.propagation.noise_dbm(link.rates.width_mhz[r]) } else { f64::NEG_INFINITY };
            for r in 0..nr {
                link.ln_bit_success[d * nr + r] = ln_bit_success(link.rates.modes[r], snr(&link, r));
            }
            let (alg, constant) = choices.get(to.max(from)).copied().unwrap_or((A::Constant, 0));
            link.control.push(match alg {
                A::Constant => RateControl::Fixed(constant),
                A::Ideal => RateControl::Fixed(if valid { link.rates.ideal(|r| snr(&link, r)) } else { 0 }),
                A::MinstrelHt => RateControl::Minstrel(Box::new(Minstrel::new(&link.rates, rng))),
            });
        }
        link
    }

    /// Index of the direction `from` → `to` (one end is the AP): 2·sta for uplink, 2·sta + 1
    /// for downlink.
    #[inline]
    fn dir_index(from: StaId, to: StaId) -> usize {
        if from == AP { 2 * to as usize + 1 } else { 2 * from as usize }
    }

    /// The ends of direction `d` (the inverse of [`Link::dir_index`]).
    fn dir_ends(d: usize) -> (usize, usize) {
        if d % 2 == 1 { (AP as usize, d / 2) } else { (d / 2, AP as usize) }
    }

    /// SNR of the link `from` → `to` at rate index `r`'s channel width, dB.
    pub fn snr_db(&self, from: StaId, to: StaId, r: usize) -> f64 {
        self.rx_dbm[from as usize * self.n + to as usize] - self.propagation.noise_dbm(self.rates.width_mhz[r])
    }

    /// Received power at `to` of `from`'s frames, mW.
    fn rx_mw(&self, from: StaId, to: StaId) -> f64 {
        self.rx_mw[from as usize * self.n + to as usize]
    }

    /// Rate index of attempt `attempt` from `from` to `to`.
    #[inline]
    fn rate_index(&self, from: StaId, to: StaId, attempt: u32) -> usize {
        self.control[Self::dir_index(from, to)].rate(attempt)
    }

    /// How `from` sends attempt `attempt` of its current frame to `to`.
    #[inline]
    pub fn tx_vector(&self, from: StaId, to: StaId, attempt: u32) -> TxVector {
        self.rates.tx[self.rate_index(from, to, attempt)]
    }

    /// The rate controller of `from` → `to` (reports, tests).
    pub fn control(&self, from: StaId, to: StaId) -> &RateControl {
        &self.control[Self::dir_index(from, to)]
    }

    /// Probability that an MPDU of `bytes` from `from` to `to` at rate index `r` is lost,
    /// at the link's SNR or at `sinr_db` if given.
    fn mpdu_error(&self, from: StaId, to: StaId, r: usize, bytes: u32, sinr_db: Option<f64>) -> f64 {
        let bits = 8.0 * bytes as f64;
        match sinr_db {
            None => 1.0 - (self.ln_bit_success[Self::dir_index(from, to) * self.rates.len() + r] * bits).exp(),
            Some(s) => 1.0 - (ln_bit_success(self.rates.modes[r], s) * bits).exp(),
        }
    }

    /// Probability that a control or management frame of `bytes` from `from` to `to` at the
    /// non-HT rate `kbps` (a Block Ack, BlockAckReq, ADDBA frame) is lost, at the link's SNR
    /// in 20 MHz (a non-HT duplicate on a wider channel has the same SNR per 20 MHz). 0 for a
    /// rate the error model does not cover (DSSS/CCK).
    fn control_error(&self, from: StaId, to: StaId, kbps: u32, bytes: u32) -> f64 {
        let Some(mode) = ofdm_mode(kbps) else { return 0.0 };
        let snr = self.rx_dbm[from as usize * self.n + to as usize] - self.propagation.noise_dbm(20.0);
        1.0 - (ln_bit_success(mode, snr) * 8.0 * bytes as f64).exp()
    }

    /// SINR at `to` of `from`'s frame sent at rate index `r` while every other sender in
    /// `senders` transmits, dB.
    fn sinr_db(&self, from: StaId, to: StaId, r: usize, senders: &[StaId]) -> f64 {
        let interference: f64 = senders.iter().filter(|&&s| s != from && s != to).map(|&s| self.rx_mw(s, to)).sum();
        self.propagation.sinr_db(self.rx_dbm[from as usize * self.n + to as usize], interference, self.rates.width_mhz[r])
    }
}

impl Bss {
    /// Attaches links with distance to this BSS (`[wlan.propagation]`).
    pub fn with_link(mut self, link: Link) -> Bss {
        self.link = Some(Box::new(link));
        self
    }

    /// The BSS's links, if it has positions.
    pub fn link(&self) -> Option<&Link> {
        self.link.as_deref()
    }

    /// How `from` sends to `to` on its current attempt, when the BSS has links.
    #[inline]
    pub(crate) fn link_tx_vector(&self, from: StaId, to: StaId) -> Option<TxVector> {
        let link = self.link.as_deref()?;
        Some(link.tx_vector(from, to, self.link_attempt(from, to)))
    }

    /// Attempt index of `from`'s current transmission to `to` in its rate controller's
    /// retry chain: the frame's retry count, or on the aggregating MAC the link's PPDUs in a
    /// row without a Block Ack (a whole A-MPDU goes at one rate, and one that got no Block
    /// Ack goes again down the chain, as a Linux driver retries an aggregate).
    #[inline]
    fn link_attempt(&self, from: StaId, to: StaId) -> u32 {
        if self.aggregates() {
            let (sta, dir) = if from == AP { (to, 1) } else { (from, 0) };
            self.stas[sta as usize].ppdu_fails[dir]
        } else {
            self.stas[from as usize].edcaf_ref().retries
        }
    }

    /// True if `from`'s rate controller for `to` is sampling a rate on its current frame.
    pub(crate) fn link_sampling(&self, from: StaId, to: StaId) -> bool {
        self.link.as_deref().is_some_and(|l| matches!(l.control(from, to), RateControl::Minstrel(m) if m.sampling()))
    }

    /// One MPDU of an A-MPDU from `from` to `to`: draws its loss at the PPDU's rate (no
    /// feedback yet: [`Bss::ppdu_feedback`] reports the whole PPDU), at `sinr_db` if it
    /// overlaps the other frames of a collision its A-MPDU was captured from. False without
    /// links.
    pub(crate) fn link_mpdu_lost(&mut self, from: StaId, to: StaId, bytes: u32, sinr_db: Option<f64>) -> bool {
        let attempt = self.link_attempt(from, to);
        let Some(link) = self.link.as_deref_mut() else { return false };
        let r = link.rate_index(from, to, attempt);
        let p = link.mpdu_error(from, to, r, bytes, sinr_db);
        let s = &mut self.stas[if from == AP { to } else { from } as usize];
        s.loss_rng.random::<f64>() < p
    }

    /// Draws the loss of a control or management frame of `bytes` that `from` sends `to` at
    /// the non-HT rate `kbps` (Block Ack, BlockAckReq, ADDBA Request/Response and their
    /// ACKs), from the link's error model and the station end's frame-error stream. False
    /// (and no draw) without links: such frames are then error-free, as ACKs are.
    pub(crate) fn link_control_lost(&mut self, from: StaId, to: StaId, kbps: u32, bytes: u32) -> bool {
        let Some(link) = self.link.as_deref() else { return false };
        let p = link.control_error(from, to, kbps, bytes);
        let s = &mut self.stas[if from == AP { to } else { from } as usize];
        s.loss_rng.random::<f64>() < p
    }

    /// Feedback of one A-MPDU from `from` to `to` to its rate controller, as Linux's
    /// minstrel_ht gets it from a driver's A-MPDU status: `attempted` MPDUs at the PPDU's
    /// rate, `acked` of them in the Block Ack; then the link's PPDU failure count moves.
    pub(crate) fn ppdu_feedback(&mut self, now: Time, from: StaId, to: StaId, attempted: u32, acked: u32) {
        let attempt = self.link_attempt(from, to);
        if let Some(link) = self.link.as_deref_mut() {
            let r = link.rate_index(from, to, attempt);
            link.control[Link::dir_index(from, to)].report(now, r, attempted, acked);
        }
        let (sta, dir) = if from == AP { (to, 1) } else { (from, 0) };
        let fails = &mut self.stas[sta as usize].ppdu_fails[dir];
        *fails = if acked > 0 { 0 } else { *fails + 1 };
    }

    /// The error model's part of a frame attempt's fate: draws the loss of an MPDU of `bytes`
    /// from `from` to `to` at the rate of this attempt (at its SNR, or at the SINR it was
    /// captured with), and reports the attempt, lost if `already_lost` or by this draw, to
    /// the rate controller. False (and no draw) without links.
    pub(crate) fn link_lost(&mut self, now: Time, from: StaId, to: StaId, bytes: u32, already_lost: bool) -> bool {
        let attempt = self.link_attempt(from, to);
        let Some(link) = self.link.as_deref_mut() else { return false };
        let r = link.rate_index(from, to, attempt);
        let sinr = link.captured.take().filter(|c| c.sta == from).map(|c| c.sinr_db);
        let p = link.mpdu_error(from, to, r, bytes, sinr);
        let s = &mut self.stas[if from == AP { to } else { from } as usize];
        let lost = s.loss_rng.random::<f64>() < p;
        link.control[Link::dir_index(from, to)].report(now, r, 1, (!lost && !already_lost) as u32);
        lost
    }

    /// Attempt index (0 = first) of `frame` at `sta`: its retry count if it is the frame
    /// being retried, else 0 (the counter is stale until the frame's first attempt).
    fn attempt_of(&self, sta: StaId, frame: &super::Frame) -> u32 {
        let s = &self.stas[sta as usize];
        let e = s.edcaf_ref();
        if e.retry_id == frame.id { e.retries } else { 0 }
    }

    /// Airtime of what `v` sends first in a collision (its RTS, PS-Poll or data frame) at
    /// the rate of its coming attempt.
    fn collider_airtime(&self, link: &Link, v: StaId, head: super::dcf::Head) -> wattlab_core::Duration {
        use super::dcf::Head;
        match head {
            Head::Frame(i) => {
                let f = self.stas[v as usize].queue[i];
                let tx = link.tx_vector(v, f.to, self.attempt_of(v, &f));
                let phy = &self.cfg.phy;
                if self.uses_rts(&f) {
                    phy.frame_duration(wattlab_core::wlan::phy::RTS_BYTES, phy.response_kbps(tx))
                } else {
                    phy.ppdu_duration(Self::mpdu_bytes(&f), tx)
                }
            }
            Head::Poll | Head::Trigger(_) => self.head_duration(v, head),
        }
    }

    /// The capture hook of a collision among `winners`: the winner whose frame is received
    /// despite the others (module comment), with the collision's losers' attempts counted
    /// and failed and their feedback given to their rate controllers. None if no frame is
    /// captured (the collision's colliders are then reported failed to their controllers)
    /// or the BSS has no links (nothing done).
    pub(crate) fn capture(&mut self, now: Time, winners: &[StaId]) -> Option<StaId> {
        use super::dcf::Head;
        let link = self.link.as_deref()?;
        if self.aggregates() {
            return self.capture_ampdu(now, winners);
        }
        let mut best: Option<(StaId, f64)> = None;
        for &w in winners {
            let Some(Head::Frame(i)) = self.head(w) else { continue };
            let frame = self.stas[w as usize].queue[i];
            if winners.contains(&frame.to) || self.uses_rts(&frame) {
                continue;
            }
            let r = link.rate_index(w, frame.to, self.attempt_of(w, &frame));
            let sinr = link.sinr_db(w, frame.to, r, winners);
            if sinr >= link.capture_threshold_db && best.is_none_or(|(_, b)| sinr > b) {
                best = Some((w, sinr));
            }
        }
        // The others must end before the captured frame's ACK would start.
        let captured = best.filter(|&(w, _)| {
            let Some(head) = self.head(w) else { return false };
            let limit = self.collider_airtime(link, w, head) + self.cfg.phy.sifs;
            winners.iter().filter(|&&v| v != w).all(|&v| self.head(v).is_some_and(|h| self.collider_airtime(link, v, h) <= limit))
        });
        let Some((w, sinr)) = captured else {
            for &v in winners {
                if let Some(Head::Frame(i)) = self.head(v) {
                    let f = self.stas[v as usize].queue[i];
                    let attempt = self.attempt_of(v, &f);
                    let link = self.link.as_deref_mut().expect("checked above");
                    let r = link.rate_index(v, f.to, attempt);
                    link.control[Link::dir_index(v, f.to)].report(now, r, 1, 0);
                }
            }
            return None;
        };
        for &v in winners {
            if v != w {
                self.collision_loser(now, v);
            }
        }
        self.link.as_deref_mut().expect("checked above").captured = Some(Captured { sta: w, sinr_db: sinr, until: now });
        self.stats.captures += 1;
        Some(w)
    }

    /// [`Bss::capture`] on the aggregating MAC: the A-MPDU with the highest SINR at its
    /// receiver at the start of the collision (every collider starts in the same slot, so
    /// its preamble is received if that SINR reaches the threshold) is captured. The others
    /// are settled at once as collided (their A-MPDUs fail whole); their airtimes say until
    /// when the captured A-MPDU's MPDUs are drawn at the SINR ([`Captured::until`]). Only an
    /// A-MPDU under an agreement, owing no BlockAckReq, without RTS (`rts_threshold` unset)
    /// is captured.
    fn capture_ampdu(&mut self, now: Time, winners: &[StaId]) -> Option<StaId> {
        let link = self.link.as_deref()?;
        if self.cfg.rts_threshold.is_some() {
            return None;
        }
        let mut best: Option<(StaId, f64)> = None;
        for &w in winners {
            let Some(i) = self.aggregated_head(w) else { continue };
            let to = self.stas[w as usize].queue[i].to;
            if winners.contains(&to) || !self.sends_ampdu(w, to) {
                continue;
            }
            let r = link.rate_index(w, to, self.link_attempt(w, to));
            let sinr = link.sinr_db(w, to, r, winners);
            if sinr >= link.capture_threshold_db && best.is_none_or(|(_, b)| sinr > b) {
                best = Some((w, sinr));
            }
        }
        let (w, sinr) = best?;
        let mut until = now;
        for &v in winners {
            if v != w {
                until = until.max(now + self.aggregate_loser(now, v));
            }
        }
        self.link.as_deref_mut().expect("checked above").captured = Some(Captured { sta: w, sinr_db: sinr, until });
        self.stats.captures += 1;
        Some(w)
    }

    /// A loser of a collision on the aggregating MAC: what it sent (A-MPDU, ADDBA Request,
    /// BlockAckReq; a PS-Poll or Null frame as on the DCF) is counted, costs its airtime and
    /// fails now. Returns its airtime.
    fn aggregate_loser(&mut self, now: Time, v: StaId) -> wattlab_core::Duration {
        let Some(i) = self.aggregated_head(v) else { return self.collision_loser(now, v) };
        let dur = self.charge_collided_aggregate(now, v, i);
        self.aggregate_collided(now, v);
        dur
    }

    /// A collision's loser: its attempt is counted, shows as a collision, costs its airtime,
    /// fails, and tells its rate controller. Returns its airtime.
    fn collision_loser(&mut self, now: Time, v: StaId) -> wattlab_core::Duration {
        use super::dcf::Head;
        let Some(head) = self.head(v) else { return wattlab_core::Duration::ZERO };
        let (id, tag, to, rts) = match head {
            Head::Frame(i) => {
                let f = self.stas[v as usize].queue[i];
                self.note_attempt(v, &f);
                (Some(f.id), f.tag, Some(f.to), self.uses_rts(&f))
            }
            Head::Poll | Head::Trigger(_) => {
                self.stas[v as usize].stats.attempts += 1;
                (None, 0, None, false)
            }
        };
        // After note_attempt, so the airtime is at this attempt's rate.
        let dur = self.head_duration(v, head);
        self.stas[v as usize].stats.collisions += 1;
        let shape = self.head_shape(v, head);
        self.ppdu_activity(v, now, now + dur, wattlab_core::energy::Activity::Tx, tag, shape);
        self.log_head(v, head, now, dur);
        if let (Some(to), Some(link)) = (to, self.link.as_deref_mut()) {
            let r = link.rate_index(v, to, self.stas[v as usize].edcaf_ref().retries);
            link.control[Link::dir_index(v, to)].report(now, r, 1, 0);
        }
        self.frame_failed(now, v, id, rts);
        dur
    }
}

#[cfg(test)]
mod tests {
    use super::super::rate::{RateAlgorithm, RateSet};
    use super::super::tests::{mac, sta, Harness};
    use super::super::{PowerSave, StaId, AP};
    use super::*;
    use rand::SeedableRng;
    use wattlab_core::wlan::phy::PHY_80211A;

    fn at(x: f64) -> Position {
        Position { x, y: 0.0, z: 0.0 }
    }

    /// A BSS of 802.11a stations at `distances` (m) from the AP, each sending saturated
    /// 1500-byte frames up for `secs`, the rate chosen by `alg` (constant: 54 Mb/s), capture
    /// at `threshold_db`, no retry limit unless `limit`.
    fn run(distances: &[f64], alg: RateAlgorithm, threshold_db: f64, limit: Option<u32>, secs: u64, seed: u64) -> Harness {
        let mut cfg = mac(PHY_80211A, 54_000);
        cfg.short_retry_limit = limit;
        let n = distances.len();
        let stas = (0..=n as u32).map(|i| sta(i, PowerSave::Cam)).collect();
        let mut h = Harness::new(cfg, stas, seed);
        let rates = RateSet::for_bss(&PHY_80211A, wattlab_core::wlan::TxVector::Legacy { kbps: 54_000 }).unwrap();
        let positions: Vec<Position> = std::iter::once(at(0.0)).chain(distances.iter().map(|&d| at(d))).collect();
        let choices = vec![(alg, 7); n + 1];
        let link = Link::new(Propagation::default(), threshold_db, rates, &positions, |_, _| 0.0, &choices, &mut StreamRng::seed_from_u64(seed));
        let bss = std::mem::replace(&mut h.bss, Bss::new("x".into(), mac(PHY_80211A, 54_000), vec![], vec![]));
        h.bss = bss.with_link(link);
        h.saturate = true;
        for s in 1..=n as StaId {
            h.send(s, AP, 1500);
            h.send(s, AP, 1500);
        }
        h.run_until(Time::ZERO + wattlab_core::Duration::from_secs(secs));
        h
    }

    fn sent(h: &Harness, s: usize) -> u64 {
        h.bss.stas[s].stats.frames_sent
    }

    #[test]
    fn the_near_station_captures_collisions_with_the_far_one() {
        // 1 m against 10 m: 30 dB apart (n = 3), far above the 10 dB threshold.
        let h = run(&[1.0, 10.0], RateAlgorithm::Constant, 10.0, None, 5, 1);
        assert!(h.bss.stats.captures > 100, "captures {}", h.bss.stats.captures);
        assert_eq!(h.bss.stats.captures, h.bss.stas[2].stats.collisions, "every collision is captured by the near one");
        assert_eq!(h.bss.stas[1].stats.collisions, 0);
        assert!(sent(&h, 1) as f64 > 1.05 * sent(&h, 2) as f64, "near {} far {}", sent(&h, 1), sent(&h, 2));
        // Without capture the two share the channel equally.
        let h = run(&[1.0, 10.0], RateAlgorithm::Constant, f64::INFINITY, None, 5, 1);
        assert_eq!(h.bss.stats.captures, 0);
        let (a, b) = (sent(&h, 1) as f64, sent(&h, 2) as f64);
        assert!((a / b - 1.0).abs() < 0.05, "near {a} far {b}");
    }

    #[test]
    fn equally_strong_frames_are_not_captured() {
        let h = run(&[5.0, 5.0], RateAlgorithm::Constant, 10.0, None, 2, 2);
        assert!(h.bss.stats.collisions > 20);
        assert_eq!(h.bss.stats.captures, 0);
    }

    #[test]
    fn frame_errors_follow_the_snr_and_the_ideal_rate_avoids_them() {
        // 60 m: SNR 9.9 dB. 54 Mb/s needs ~ 22 dB: every attempt fails and frames are dropped.
        let h = run(&[60.0], RateAlgorithm::Constant, 10.0, Some(7), 1, 3);
        let s = &h.bss.stas[1].stats;
        assert_eq!(s.frames_sent, 0);
        // Both queued frames: 8 attempts each, then dropped (nothing re-queues them).
        assert_eq!((s.attempts, s.frame_errors, s.retry_drops), (16, 16, 2));
        // The ideal rate there is 9 or 12 Mb/s, whose PER at 9.9 dB is small.
        let h = run(&[60.0], RateAlgorithm::Ideal, 10.0, Some(7), 1, 3);
        let r = h.bss.link().unwrap().control(1, AP).rate(0);
        assert!((1..=2).contains(&r), "ideal rate index {r}");
        let s = &h.bss.stas[1].stats;
        assert!(s.frames_sent > 500 && (s.frame_errors as f64) < 0.01 * s.attempts as f64, "{s:?}");
        // Close by, nothing is lost at 54 Mb/s.
        let h = run(&[3.0], RateAlgorithm::Constant, 10.0, Some(7), 1, 3);
        assert_eq!(h.bss.stas[1].stats.frame_errors, 0);
    }

    #[test]
    fn minstrel_finds_each_stations_rate_in_the_bss() {
        // 1 m: 54 Mb/s. 40 m: SNR 15.2 dB, where 24 Mb/s (16-QAM 1/2) is the best.
        let h = run(&[1.0, 40.0], RateAlgorithm::MinstrelHt, 10.0, Some(7), 3, 4);
        let link = h.bss.link().unwrap();
        let tp = |s: StaId| match link.control(s, AP) {
            RateControl::Minstrel(m) => m.max_tp(),
            RateControl::Fixed(_) => unreachable!(),
        };
        assert_eq!(tp(1), 7);
        assert_eq!(tp(2), 4);
        assert!(sent(&h, 2) > 1000, "far station delivers: {}", sent(&h, 2));
    }

    #[test]
    fn he_rates_follow_the_distance_too() {
        // 802.11ax, HE-MCS 0-11 at 20 MHz, 1 SS: at 5 m (SNR 42 dB) 1024-QAM 5/6 works; at
        // 60 m (SNR 10 dB) Minstrel-HT and the ideal choice settle on a low MCS.
        let he = wattlab_core::wlan::find_phy("80211ax").unwrap();
        let nominal = wattlab_core::wlan::TxVector::He(wattlab_core::wlan::Mcs { mcs: 11, nss: 1, width_mhz: 20, gi_ns: 800 });
        for alg in [RateAlgorithm::MinstrelHt, RateAlgorithm::Ideal] {
            let mut cfg = mac(he, 54_000);
            cfg.tx = nominal;
            let stas = (0..=2).map(|i| sta(i, PowerSave::Cam)).collect();
            let mut h = Harness::new(cfg, stas, 5);
            let rates = RateSet::for_bss(&he, nominal).unwrap();
            assert_eq!((rates.nominal.clone(), rates.choices), (0..12, 36));
            let link = Link::new(Propagation::default(), 10.0, rates, &[at(0.0), at(5.0), at(60.0)], |_, _| 0.0, &[(alg, 11); 3], &mut StreamRng::seed_from_u64(5));
            let bss = std::mem::replace(&mut h.bss, Bss::new("x".into(), mac(PHY_80211A, 54_000), vec![], vec![]));
            h.bss = bss.with_link(link);
            h.saturate = true;
            for s in 1..=2 {
                h.send(s, AP, 1500);
                h.send(s, AP, 1500);
            }
            h.run_until(Time::ZERO + wattlab_core::Duration::from_secs(3));
            let link = h.bss.link().unwrap();
            let best = |s: StaId| match link.control(s, AP) {
                RateControl::Minstrel(m) => m.max_tp(),
                RateControl::Fixed(r) => *r,
            };
            // Ideal takes MCS 11. Minstrel-HT, over the GI groups 0.8/1.6/3.2 us, settles in
            // the 0.8 us group at MCS 11 or 10: collisions between the two saturated stations
            // keep both rates' success near minstrel's 90 % cap, where their throughput
            // estimates differ by ~1 % (seed 5: MCS 11 at 89.6 %, MCS 10 at 96.6 %).
            let near = link.rates.tx[best(1)];
            let ok = match alg {
                RateAlgorithm::Ideal => best(1) == 11,
                _ => matches!(near, wattlab_core::wlan::TxVector::He(m) if m.mcs >= 10 && (m.nss, m.width_mhz, m.gi_ns) == (1, 20, 800)),
            };
            assert!(ok, "{alg:?}: near {near:?}");
            let far = link.rates.tx[best(2)];
            assert!(matches!(far, wattlab_core::wlan::TxVector::He(m) if (1..=3).contains(&m.mcs) && m.nss == 1), "{alg:?}: far {far:?}");
            assert!(sent(&h, 2) > 500, "{alg:?}: {}", sent(&h, 2));
        }
    }

    #[test]
    fn same_seed_same_result() {
        let a = run(&[1.0, 10.0, 30.0], RateAlgorithm::MinstrelHt, 10.0, Some(7), 1, 9);
        let b = run(&[1.0, 10.0, 30.0], RateAlgorithm::MinstrelHt, 10.0, Some(7), 1, 9);
        let key = |h: &Harness| (h.delivered.len(), h.bss.stats.captures, h.bss.stats.collisions, (1..4).map(|s| h.bss.stas[s].stats.frame_errors).collect::<Vec<_>>());
        assert_eq!(key(&a), key(&b));
    }
}
