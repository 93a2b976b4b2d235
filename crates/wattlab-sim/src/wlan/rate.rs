//! Rate control: which rate a sender uses on each attempt of a frame to one receiver.
//!
//! - **Constant**: the configured rate (`rate = "54Mbps"`, or wt-phy's `mcs`), every attempt.
//! - **Ideal**: the highest rate whose decoded bit error rate at the link's SNR is at most
//!   1e-6 — ns-3's `IdealWifiManager` (its `BerThreshold` default). The SNR of a link is
//!   static (positions do not move), so the choice is made once per link; the receiver's SNR
//!   is known to the sender without feedback, as in ns-3.
//! - **Minstrel-HT** as Linux ships it (`net/mac80211/rc80211_minstrel_ht.c`, kernels 4.x to
//!   5.10, before the 5.11 rewrite of its sampling), applied to the PHY's rate set:
//!   statistics per rate, updated every 50 ms (`update_interval` 100 ms, halved by
//!   minstrel_ht); success probability smoothed by an EWMA keeping 96/128 of the old value
//!   (`EWMA_LEVEL`/`EWMA_DIV`); expected throughput = probability (0 below 10 %, capped at
//!   90 %) over the airtime of an average 1200-byte MPDU (`AVG_PKT_SIZE`) with its ACK and
//!   DIFS; the two max-throughput rates and the max-probability rate (the highest-throughput
//!   rate among those above 75 % success, otherwise the most reliable one) form the
//!   multi-rate-retry chain `max_tp[0]`, `max_tp[1]`, `max_prob`; one frame in
//!   `16 + 2·avg A-MPDU length` (18 without aggregation) is a sample: a rate taken in turn
//!   from a random permutation drawn once (minstrel's sample table), skipped if it is the
//!   current chain's or already above 95 % success; a sample faster than `max_tp[0]` goes
//!   first in the chain, a slower one second (minstrel_ht's "sample_slow").
//!
//! Simplifications (docs/wlan.md): retry counts are 2 per chain entry, then `max_prob` until
//! the MAC's retry limit (Linux derives them from a 6 ms segment budget, at least 2); the
//! chain changes only between frames (after an acknowledged attempt); the rate set is one
//! group (the PHY's rates for one width, NSS and GI; Linux samples across groups); a
//! station starts with no statistics at the lowest rate.

use crate::rng::StreamRng;
use rand::seq::SliceRandom;
use wattlab_core::wlan::error_model::{chunk_success_rate, mode_of, Mode};
use wattlab_core::wlan::phy::mcs::valid_mcs;
use wattlab_core::wlan::phy::{Modulation, ACK_BYTES};
use wattlab_core::wlan::{Mcs, PhyProfile};
use wattlab_core::wlan::propagation::db_to_ratio;
use wattlab_core::wlan::TxVector;
use wattlab_core::Time;

/// Which algorithm picks a sender's rates (`rate = ...` in a scenario).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateAlgorithm {
    /// The configured rate for every attempt.
    Constant,
    /// The highest rate whose decoded BER at the link's SNR is ≤ [`IDEAL_BER`].
    Ideal,
    /// Linux's Minstrel-HT (module comment).
    MinstrelHt,
}

impl RateAlgorithm {
    /// Names accepted by `rate = "..."` for the algorithms.
    pub const NAMES: [&'static str; 2] = ["ideal", "minstrel-ht"];

    /// The algorithm called `name`.
    pub fn parse(name: &str) -> Option<RateAlgorithm> {
        match name {
            "ideal" => Some(RateAlgorithm::Ideal),
            "minstrel-ht" => Some(RateAlgorithm::MinstrelHt),
            _ => None,
        }
    }
}

/// MPDU size of Minstrel's throughput estimate (`AVG_PKT_SIZE`).
const MINSTREL_MPDU_BYTES: u32 = 1200;

/// Decoded bit error rate the ideal choice stays under (ns-3 `IdealWifiManager::BerThreshold`).
pub const IDEAL_BER: f64 = 1e-6;

/// The rates a controller chooses among, slowest first, with what it needs of each.
#[derive(Clone, Debug)]
pub struct RateSet {
    /// How each rate is sent.
    pub tx: Vec<TxVector>,
    /// Its modulation and coding (for the error model).
    pub modes: Vec<Mode>,
    /// Airtime of a 1200-byte MPDU at this rate with its ACK, SIFS and DIFS, µs (Minstrel's
    /// throughput denominator).
    pub exchange_us: Vec<f64>,
    /// Channel width of each rate, MHz (its noise bandwidth).
    pub width_mhz: Vec<f64>,
    /// The first `group` rates are the algorithms' choices; later ones are stations' constants.
    pub group: usize,
}

/// `tx` with MCS `mcs` (same format, NSS, width and GI).
fn with_mcs(tx: TxVector, mcs: u8) -> TxVector {
    match tx {
        TxVector::Ht(m) => TxVector::Ht(Mcs { mcs, ..m }),
        TxVector::Vht(m) => TxVector::Vht(Mcs { mcs, ..m }),
        TxVector::He(m) => TxVector::He(Mcs { mcs, ..m }),
        legacy => legacy,
    }
}

impl RateSet {
    /// The rates a controller of a BSS on `phy` chooses among, slowest first: a legacy PHY's
    /// OFDM rates, or the MCSs of `nominal`'s group (its NSS, width and GI) on HT/VHT/HE. None
    /// if the error model covers none (DSSS/CCK).
    pub fn for_bss(phy: &PhyProfile, nominal: TxVector) -> Option<RateSet> {
        let tx: Vec<TxVector> = match nominal {
            TxVector::Legacy { .. } => phy.rates_kbps.iter().map(|&kbps| TxVector::Legacy { kbps }).collect(),
            TxVector::Ht(m) | TxVector::Vht(m) | TxVector::He(m) => valid_mcs(phy.format, m.nss, m.width_mhz)
                .into_iter()
                .map(|mcs| with_mcs(nominal, mcs))
                .filter(|&t| phy.check_tx(t).is_ok())
                .collect(),
        };
        let mut set = RateSet { tx: Vec::new(), modes: Vec::new(), exchange_us: Vec::new(), width_mhz: Vec::new(), group: 0 };
        for t in tx {
            set.push(phy, t)?;
        }
        set.group = set.len();
        Some(set)
    }

    /// Adds `tx` (a station's constant rate outside the group) and returns its index.
    pub fn add(&mut self, phy: &PhyProfile, tx: TxVector) -> Option<usize> {
        if let Some(i) = self.index_of(tx) {
            return Some(i);
        }
        self.push(phy, tx)?;
        Some(self.len() - 1)
    }

    fn push(&mut self, phy: &PhyProfile, t: TxVector) -> Option<()> {
        self.modes.push(mode_of(t, phy.modulation == Modulation::Ofdm)?);
        let us = (phy.ppdu_duration(MINSTREL_MPDU_BYTES, t) + phy.sifs + phy.frame_duration(ACK_BYTES, phy.response_kbps(t)) + phy.difs()).as_nanos() as f64 / 1e3;
        self.exchange_us.push(us);
        self.width_mhz.push(match t {
            TxVector::Legacy { .. } => 20.0,
            TxVector::Ht(m) | TxVector::Vht(m) | TxVector::He(m) => m.width_mhz as f64,
        });
        self.tx.push(t);
        Some(())
    }

    /// Index of `tx` in the set.
    pub fn index_of(&self, tx: TxVector) -> Option<usize> {
        self.tx.iter().position(|&t| t == tx)
    }

    /// Number of rates.
    pub fn len(&self) -> usize {
        self.tx.len()
    }

    /// True if there is no rate.
    pub fn is_empty(&self) -> bool {
        self.tx.is_empty()
    }

    /// Index of the ideal rate of the group when rate `r` has an SNR of `snr_db(r)`: the
    /// highest whose decoded BER is ≤ [`IDEAL_BER`] (the lowest if none is).
    pub fn ideal(&self, snr_db: impl Fn(usize) -> f64) -> usize {
        // The success probability of one bit is 1 − BER.
        (0..self.group).rev().find(|&r| 1.0 - chunk_success_rate(self.modes[r], db_to_ratio(snr_db(r)), 1) <= IDEAL_BER).unwrap_or(0)
    }
}

/// What one sender→receiver link uses.
#[derive(Clone, Debug)]
pub enum RateControl {
    /// This rate index for every attempt (constant, or ideal on a static link).
    Fixed(usize),
    /// Minstrel-HT's state.
    Minstrel(Box<Minstrel>),
}

impl RateControl {
    /// Rate index of attempt `attempt` (0 = first) of the current frame.
    #[inline]
    pub fn rate(&self, attempt: u32) -> usize {
        match self {
            RateControl::Fixed(r) => *r,
            RateControl::Minstrel(m) => m.rate(attempt),
        }
    }

    /// Feedback of one PPDU sent at rate `rate`: `attempted` MPDUs, `acked` of them acknowledged.
    #[inline]
    pub fn report(&mut self, now: Time, rate: usize, attempted: u32, acked: u32) {
        if let RateControl::Minstrel(m) = self {
            m.report(now, rate, attempted, acked);
        }
    }
}

/// Statistics of one rate.
#[derive(Clone, Copy, Debug, Default)]
struct RateStats {
    /// MPDUs attempted and acknowledged in the current interval.
    attempts: u32,
    successes: u32,
    /// EWMA of the success probability (None before the first interval with attempts).
    prob: Option<f64>,
}

/// Minstrel-HT's state for one link (module comment).
#[derive(Clone, Debug)]
pub struct Minstrel {
    stats: Vec<RateStats>,
    exchange_us: Vec<f64>,
    max_tp: [usize; 2],
    max_prob: usize,
    /// The multi-rate-retry chain of the current frame: (rate, tries).
    chain: [(usize, u32); 3],
    /// Frames until the next sample.
    sample_wait: u32,
    sample_table: Vec<u8>,
    sample_pos: usize,
    next_update: Time,
    /// MPDUs and PPDUs reported in the current interval, and minstrel_ht's EWMA of their
    /// ratio (`avg_ampdu_len`, 1 without aggregation): samples are 16 + 2·that MPDUs apart.
    ampdu_mpdus: u32,
    ampdu_ppdus: u32,
    avg_ampdu_len: f64,
    /// The current chain is a sample's.
    sampling: bool,
    /// Frames sent as samples (for tests and reports).
    pub samples: u64,
}

/// Minstrel's statistics interval (minstrel_ht: `update_interval` / 2).
const UPDATE_INTERVAL: wattlab_core::Duration = wattlab_core::Duration::from_millis(50);
/// Weight of the old value in the EWMA (EWMA_LEVEL / EWMA_DIV = 96 / 128).
const EWMA_OLD: f64 = 96.0 / 128.0;
/// Tries per chain entry before the next (Linux: at least 2).
const TRIES: u32 = 2;
/// Frames between samples without aggregation (16 + 2 × average A-MPDU length of 1).
const SAMPLE_INTERVAL: u32 = 18;

impl Minstrel {
    /// A fresh controller over `rates`, its sample table drawn from `rng`.
    pub fn new(rates: &RateSet, rng: &mut StreamRng) -> Minstrel {
        let n = rates.group;
        let mut sample_table: Vec<u8> = (0..n as u8).collect();
        sample_table.shuffle(rng);
        let mut m = Minstrel {
            stats: vec![RateStats::default(); n],
            exchange_us: rates.exchange_us[..n].to_vec(),
            max_tp: [0; 2],
            max_prob: 0,
            chain: [(0, TRIES); 3],
            sample_wait: 0,
            sample_table,
            sample_pos: 0,
            next_update: Time::ZERO + UPDATE_INTERVAL,
            ampdu_mpdus: 0,
            ampdu_ppdus: 0,
            avg_ampdu_len: 1.0,
            sampling: false,
            samples: 0,
        };
        m.next_chain(1);
        m
    }

    /// Rate of attempt `attempt` of the current frame: down the chain, then `max_prob`.
    #[inline]
    pub fn rate(&self, attempt: u32) -> usize {
        let mut left = attempt;
        for &(r, tries) in &self.chain {
            if left < tries {
                return r;
            }
            left -= tries;
        }
        self.max_prob
    }

    /// Expected throughput of rate `r` (MPDUs per µs, scaled): minstrel's `tp_avg`.
    fn throughput(&self, r: usize) -> f64 {
        match self.stats[r].prob {
            Some(p) if p >= 0.1 => p.min(0.9) / self.exchange_us[r],
            _ => 0.0,
        }
    }

    fn prob(&self, r: usize) -> f64 {
        self.stats[r].prob.unwrap_or(0.0)
    }

    /// Feedback of one PPDU (see [`RateControl::report`]).
    pub fn report(&mut self, now: Time, rate: usize, attempted: u32, acked: u32) {
        let s = &mut self.stats[rate];
        s.attempts += attempted;
        s.successes += acked;
        self.ampdu_mpdus += attempted;
        self.ampdu_ppdus += 1;
        if now >= self.next_update {
            self.update_stats();
            self.next_update = now + UPDATE_INTERVAL;
        }
        if acked > 0 {
            self.next_chain(attempted);
        }
    }

    /// True if the current chain is a sample's (the aggregating MAC then sends one MPDU
    /// alone, as minstrel_ht's probes go unaggregated).
    pub fn sampling(&self) -> bool {
        self.sampling
    }

    /// The end of a statistics interval: fold the counts into the EWMAs and pick the rates.
    fn update_stats(&mut self) {
        if self.ampdu_ppdus > 0 {
            let cur = self.ampdu_mpdus as f64 / self.ampdu_ppdus as f64;
            self.avg_ampdu_len = EWMA_OLD * self.avg_ampdu_len + (1.0 - EWMA_OLD) * cur;
            (self.ampdu_mpdus, self.ampdu_ppdus) = (0, 0);
        }
        for s in &mut self.stats {
            if s.attempts > 0 {
                let cur = s.successes as f64 / s.attempts as f64;
                s.prob = Some(match s.prob {
                    Some(old) => EWMA_OLD * old + (1.0 - EWMA_OLD) * cur,
                    None => cur,
                });
                s.attempts = 0;
                s.successes = 0;
            }
        }
        let n = self.stats.len();
        // Highest throughput first; ties go to the faster rate (as minstrel's sort by tp, then
        // by index within a group).
        let mut best = [0usize, 0usize];
        let mut tp = [-1.0f64, -1.0];
        for r in 0..n {
            let t = self.throughput(r);
            if t >= tp[0] {
                (best[1], tp[1]) = (best[0], tp[0]);
                (best[0], tp[0]) = (r, t);
            } else if t >= tp[1] {
                (best[1], tp[1]) = (r, t);
            }
        }
        self.max_tp = best;
        // max_prob: among rates above 75 %, the highest throughput; else the most reliable.
        let reliable = (0..n).filter(|&r| self.prob(r) > 0.75).max_by(|&a, &b| self.throughput(a).total_cmp(&self.throughput(b)));
        self.max_prob = reliable.unwrap_or_else(|| (0..n).max_by(|&a, &b| self.prob(a).total_cmp(&self.prob(b))).unwrap_or(0));
    }

    /// The chain of the next frame after one of `mpdus` MPDUs: the regular one, or a sample
    /// every [`SAMPLE_INTERVAL`] frames (16 + 2·mean A-MPDU length MPDUs under aggregation).
    fn next_chain(&mut self, mpdus: u32) {
        self.chain = [(self.max_tp[0], TRIES), (self.max_tp[1], TRIES), (self.max_prob, TRIES)];
        self.sampling = false;
        if self.sample_wait > 0 {
            self.sample_wait = self.sample_wait.saturating_sub(mpdus);
            return;
        }
        // minstrel_ht: 16 + 2 × MINSTREL_TRUNC(avg_ampdu_len); 18 without aggregation.
        self.sample_wait = SAMPLE_INTERVAL - 2 + 2 * self.avg_ampdu_len as u32 - 1;
        let n = self.sample_table.len();
        for _ in 0..n {
            let r = self.sample_table[self.sample_pos] as usize;
            self.sample_pos = (self.sample_pos + 1) % n;
            if r == self.max_tp[0] || r == self.max_tp[1] || r == self.max_prob || self.prob(r) > 0.95 {
                continue;
            }
            self.samples += 1;
            self.sampling = true;
            // A slower sample goes after one try of max_tp[0], so it costs little when it fails.
            self.chain = if self.exchange_us[r] > self.exchange_us[self.max_tp[0]] {
                [(self.max_tp[0], 1), (r, 1), (self.max_prob, TRIES)]
            } else {
                [(r, 1), (self.max_tp[0], TRIES), (self.max_prob, TRIES)]
            };
            return;
        }
    }

    /// The current max-throughput rate (index).
    pub fn max_tp(&self) -> usize {
        self.max_tp[0]
    }

    /// The current max-probability rate (index).
    pub fn max_prob(&self) -> usize {
        self.max_prob
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use wattlab_core::wlan::error_model::{frame_error_rate, ofdm_mode};
    use wattlab_core::wlan::phy::PHY_80211A;
    use wattlab_core::Duration;

    /// 802.11a's eight rates.
    fn rates_80211a() -> RateSet {
        RateSet::for_bss(&PHY_80211A, TxVector::Legacy { kbps: 54_000 }).unwrap()
    }

    #[test]
    fn rate_sets_of_the_phys() {
        let a = rates_80211a();
        assert_eq!(a.len(), 8);
        assert_eq!(a.modes[7], ofdm_mode(54_000).unwrap());
        // 1200 B at 54 Mb/s: 20 + 4·ceil(9622/216) = 200 us, + 16 + ACK 28 + DIFS 34.
        assert_eq!(a.exchange_us[7], 278.0);
        assert_eq!(a.index_of(TxVector::Legacy { kbps: 24_000 }), Some(4));
        assert!(RateSet::for_bss(&wattlab_core::wlan::phy::PHY_80211B, TxVector::Legacy { kbps: 11_000 }).is_none());
        // HE at 80 MHz, 2 streams: MCS 0-11 of that group, 20 MHz noise bandwidth not used.
        let he = wattlab_core::wlan::find_phy("80211ax").unwrap();
        let m = Mcs { mcs: 7, nss: 2, width_mhz: 80, gi_ns: 800 };
        let mut set = RateSet::for_bss(&he, TxVector::He(m)).unwrap();
        assert_eq!((set.len(), set.group, set.width_mhz[0]), (12, 12, 80.0));
        assert_eq!(set.tx[11], TxVector::He(Mcs { mcs: 11, ..m }));
        // A station's constant at another width joins after the group.
        let other = TxVector::He(Mcs { mcs: 5, nss: 1, width_mhz: 20, gi_ns: 800 });
        assert_eq!(set.add(&he, other), Some(12));
        assert_eq!((set.group, set.width_mhz[12]), (12, 20.0));
    }

    /// Sends `frames` 1500-byte frames over a link at `snr_db(t)` (one frame per ms) with up
    /// to 8 attempts each; returns the rate index of each frame's first attempt.
    fn drive(m: &mut RateControl, snr_db: impl Fn(f64) -> f64, frames: usize, start_ms: u64) -> Vec<usize> {
        let set = rates_80211a();
        let mut rng = StreamRng::seed_from_u64(7);
        let mut first = Vec::with_capacity(frames);
        for k in 0..frames {
            let t_ms = start_ms + k as u64;
            let now = Time::ZERO + Duration::from_millis(t_ms);
            first.push(m.rate(0));
            for attempt in 0..8 {
                let r = m.rate(attempt);
                let ok = rng.random::<f64>() >= frame_error_rate(set.modes[r], snr_db(t_ms as f64), 1500);
                m.report(now, r, 1, ok as u32);
                if ok {
                    break;
                }
            }
        }
        first
    }

    /// The rate of highest expected goodput at `snr_db` (1500-byte frames): what a rate
    /// controller should converge to.
    fn best_rate(snr_db: f64) -> usize {
        let set = rates_80211a();
        (0..set.len()).max_by(|&a, &b| {
            let g = |r: usize| (1.0 - frame_error_rate(set.modes[r], snr_db, 1500)) / set.exchange_us[r];
            g(a).total_cmp(&g(b))
        }).unwrap()
    }

    fn minstrel() -> RateControl {
        RateControl::Minstrel(Box::new(Minstrel::new(&rates_80211a(), &mut StreamRng::seed_from_u64(1))))
    }

    fn mode_share(v: &[usize], r: usize) -> f64 {
        v.iter().filter(|&&x| x == r).count() as f64 / v.len() as f64
    }

    #[test]
    fn ideal_picks_the_highest_rate_under_the_ber_threshold() {
        let set = rates_80211a();
        // 54 Mb/s needs ~ 22-23 dB (PER 10 % at 22.3 dB for 1500 B); at 30 dB it is chosen,
        // at 3 dB nothing works and the lowest rate is used.
        assert_eq!(set.ideal(|_| 30.0), 7);
        assert_eq!(set.ideal(|_| 3.0), 0);
        let mid = set.ideal(|_| 15.0);
        assert!((3..=5).contains(&mid), "{mid}");
        // The chosen rate's BER is under 1e-6 and the next one's is not.
        let ber = |r: usize, s: f64| 1.0 - chunk_success_rate(set.modes[r], db_to_ratio(s), 1);
        assert!(ber(mid, 15.0) <= IDEAL_BER && ber(mid + 1, 15.0) > IDEAL_BER);
    }

    #[test]
    fn minstrel_converges_to_the_best_rate_on_a_fixed_link() {
        for snr in [30.0, 19.0, 12.0] {
            let mut m = minstrel();
            let first = drive(&mut m, |_| snr, 3000, 0);
            let best = best_rate(snr);
            // Over the last second, the best rate carries most first attempts (the rest are
            // samples, one frame in 18).
            let tail = &first[2000..];
            assert!(mode_share(tail, best) > 0.85, "SNR {snr}: best {best}, share {:.2}", mode_share(tail, best));
            let RateControl::Minstrel(ref mm) = m else { unreachable!() };
            assert_eq!(mm.max_tp(), best, "SNR {snr}");
        }
    }

    #[test]
    fn minstrel_drops_when_the_link_degrades() {
        let mut m = minstrel();
        drive(&mut m, |_| 30.0, 2000, 0);
        let RateControl::Minstrel(ref mm) = m else { unreachable!() };
        assert_eq!(mm.max_tp(), 7);
        // The link falls to 14 dB: 54 Mb/s now fails; within half a second Minstrel is at the
        // new best rate.
        let first = drive(&mut m, |_| 14.0, 1500, 2000);
        let best = best_rate(14.0);
        assert!(best < 5, "{best}");
        assert!(mode_share(&first[500..], best) > 0.85, "share {:.2}", mode_share(&first[500..], best));
    }

    #[test]
    fn minstrel_samples_other_rates() {
        let mut m = minstrel();
        let first = drive(&mut m, |_| 30.0, 3600, 0);
        let RateControl::Minstrel(ref mm) = m else { unreachable!() };
        // One frame in 18 is a sample unless every other rate is above 95 %: at 30 dB every
        // rate is, so once the statistics are in, sampling skips them all.
        assert!(mm.samples >= 8, "{}", mm.samples);
        // At 19 dB the faster rates fail often: they keep being sampled (~ 1 in 18 frames).
        let mut m2 = minstrel();
        let first2 = drive(&mut m2, |_| 19.0, 3600, 0);
        let RateControl::Minstrel(ref mm2) = m2 else { unreachable!() };
        let share = mm2.samples as f64 / 3600.0;
        assert!((0.03..0.07).contains(&share), "{share}");
        let best = best_rate(19.0);
        assert!(first2[1000..].iter().any(|&r| r > best), "no faster rate sampled");
        assert!(first.len() == 3600);
    }
}
