//! Saturation throughput and the single-flow TCP maximum with A-MPDU aggregation and immediate
//! Block Ack under EDCA: Bianchi's model ([`super::bianchi`]) with an aggregate per success,
//! and the collision-free TCP maximum ([`super::capacity`]) with data and TCP-ACK A-MPDUs.
//!
//! The exchange is the one wattlab's QoS MAC simulates (`crates/wattlab-sim/src/wlan/ampdu.rs`):
//!
//! - **Contents.** A-MPDU of `N` MPDUs (IEEE 802.11-2020 §9.7.1): each subframe is a 4-byte
//!   delimiter and a QoS data MPDU (MAC header 26, LLC/SNAP 8, FCS 4 around the IP packet),
//!   padded to a multiple of 4 bytes except the last. `N` is the largest count within the Block
//!   Ack window (64, HE 256), the A-MPDU length limit (HT 65 535 B, VHT 1 048 575 B, HE
//!   6 500 631 B), aPPDUMaxTime (5.484 ms) and, when the AC has one, the TXOP limit (the PPDU,
//!   SIFS and the Block Ack within it) ([`mpdus_per_ampdu`]). One MPDU always goes.
//! - **Success.** `Ts = PPDU(A-MPDU) + δ + SIFS + BA + δ + AIFS`: the compressed Block Ack
//!   (32 bytes with a 64-bit bitmap, 56 with 256 bits; §9.3.1.8) is a non-HT PPDU at the
//!   control response rate of the data ([`PhyProfile::response_kbps`]), and the others resume
//!   counting `AIFS = SIFS + AIFSN × slot` after it (§10.23.2.4).
//! - **Collision.** `Tc = PPDU + δ + EIFS − DIFS + AIFS` (§10.3.2.3.7, §10.23.2.4): everyone,
//!   the colliders included, defers EIFS after a PPDU it could not decode, where
//!   `EIFS − DIFS = SIFS + ACK at the lowest basic rate`; a collider's Block Ack timeout ends
//!   within it, so all resume together (the simulator uses exactly this, not a separate
//!   BlockAckTimeout).
//! - **Backoff.** A counter drawn from `0..=CW` means transmitting that many slots after AIFS
//!   (the simulator's count-down, DCF's: EDCA's rule that a slot boundary either decrements or
//!   transmits, which adds a slot per access in ns-3, is not modelled); `CW` doubles from
//!   `CWmin` up to `CWmax` and stays there, with no retry limit (Bianchi's assumption).
//! - **Channel.** Ideal: no frame errors, no capture; losses are collisions only; all stations
//!   send the same A-MPDU.
//!
//! The Block Ack agreement (ADDBA Request/Response, once per originator) is not counted: it
//! costs a few hundred µs once per run.

use super::bianchi::{saturation_throughput, serialize_nanos, BianchiResult};
use super::phy::{backoff_stages, PhyProfile, TxVector, DATA_OVERHEAD_BYTES, QOS_EXTRA_BYTES};
use crate::time::Duration;

/// An A-MPDU subframe's delimiter (IEEE 802.11-2020 §9.7.1).
pub const DELIMITER_BYTES: u32 = 4;
/// A compressed Block Ack with a 64-bit bitmap: FC 2, duration 2, RA 6, TA 6, BA control 2,
/// starting sequence control 2, bitmap 8, FCS 4 (IEEE 802.11-2020 §9.3.1.8.2).
pub const BLOCK_ACK_64_BYTES: u32 = 32;
/// The same with a 256-bit bitmap (IEEE 802.11ax-2021 §9.3.1.8.2).
pub const BLOCK_ACK_256_BYTES: u32 = 56;
/// aPPDUMaxTime of HT-mixed, VHT and HE PPDUs (802.11-2020 Tables 19-25 and 21-29;
/// 802.11ax-2021 Table 27-54).
pub const PPDU_MAX_TIME: Duration = Duration::from_micros(5_484);
/// MAC header with QoS Control (26), FCS (4) and LLC/SNAP (8) around an IP packet.
pub const QOS_DATA_OVERHEAD_BYTES: u32 = DATA_OVERHEAD_BYTES + QOS_EXTRA_BYTES;

/// The limits an A-MPDU must respect (802.11-2020 §10.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AmpduLimits {
    /// Block Ack window: most MPDUs in one A-MPDU.
    pub ba_window: u32,
    /// Longest A-MPDU, bytes (the recipient's Maximum A-MPDU Length Exponent).
    pub max_ampdu_bytes: u32,
    /// Longest PPDU (aPPDUMaxTime; serialized in nanoseconds).
    #[serde(serialize_with = "serialize_nanos")]
    pub max_ppdu_time: Duration,
    /// TXOP limit of the AC, zero for none (one A-MPDU per access; serialized in nanoseconds).
    #[serde(serialize_with = "serialize_nanos")]
    pub txop_limit: Duration,
}

impl AmpduLimits {
    /// HT: 64-MPDU Block Ack window, exponent 3 (65 535 B), no TXOP limit (AC_BE).
    pub const HT: AmpduLimits =
        AmpduLimits { ba_window: 64, max_ampdu_bytes: 65_535, max_ppdu_time: PPDU_MAX_TIME, txop_limit: Duration::ZERO };
    /// VHT: 64-MPDU window, exponent 7 (1 048 575 B).
    pub const VHT: AmpduLimits =
        AmpduLimits { ba_window: 64, max_ampdu_bytes: 1_048_575, max_ppdu_time: PPDU_MAX_TIME, txop_limit: Duration::ZERO };
    /// HE: 256-MPDU window, exponent 3 with the HE extension (6 500 631 B).
    pub const HE: AmpduLimits =
        AmpduLimits { ba_window: 256, max_ampdu_bytes: 6_500_631, max_ppdu_time: PPDU_MAX_TIME, txop_limit: Duration::ZERO };

    /// Bytes of the compressed Block Ack for this window (a 256-bit bitmap above 64 MPDUs).
    pub fn block_ack_bytes(&self) -> u32 {
        if self.ba_window > 64 {
            BLOCK_ACK_256_BYTES
        } else {
            BLOCK_ACK_64_BYTES
        }
    }
}

/// The EDCA parameters of one access category (802.11-2020 §10.23.2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EdcaAccess {
    /// AIFS = SIFS + `aifsn` slots.
    pub aifsn: u32,
    /// CWmin (the counter is drawn from `0..=cw`).
    pub cw_min: u32,
    /// CWmax.
    pub cw_max: u32,
}

impl EdcaAccess {
    /// AC_BE of the default EDCA Parameter Set on `phy` (802.11-2020 Table 9-155): AIFSN 3,
    /// CW aCWmin–aCWmax.
    pub fn best_effort(phy: &PhyProfile) -> EdcaAccess {
        EdcaAccess { aifsn: 3, cw_min: phy.cw_min, cw_max: phy.cw_max }
    }

    /// `SIFS + aifsn × slot`.
    pub fn aifs(&self, phy: &PhyProfile) -> Duration {
        phy.sifs + Duration::from_nanos(self.aifsn as u64 * phy.slot.as_nanos())
    }

    /// The deferral after a PPDU that was not received correctly: `EIFS − DIFS + AIFS`.
    pub fn eifs(&self, phy: &PhyProfile) -> Duration {
        phy.eifs() - phy.difs() + self.aifs(phy)
    }

    /// Bianchi's `m`: doublings from `cw_min + 1` to `cw_max + 1`.
    pub fn backoff_stages(&self) -> u32 {
        backoff_stages(self.cw_min, self.cw_max)
    }
}

/// Everything that fixes the airtime of an aggregated exchange on one link: the PHY, the TX
/// vector of the data (both directions), the EDCA parameters, the A-MPDU limits and the
/// one-way propagation delay `δ`.
#[derive(Clone, Copy, Debug)]
pub struct AmpduLink<'a> {
    /// PHY timing (slot, SIFS, EIFS, PPDU durations).
    pub phy: &'a PhyProfile,
    /// How the data PPDUs are sent.
    pub tx: TxVector,
    /// EDCA parameters of the senders' AC.
    pub access: EdcaAccess,
    /// A-MPDU limits.
    pub limits: AmpduLimits,
    /// One-way propagation delay.
    pub propagation: Duration,
}

impl AmpduLink<'_> {
    /// Most MPDUs of `mpdu_bytes` in one A-MPDU ([`mpdus_per_ampdu`]).
    pub fn mpdus_per_ampdu(&self, mpdu_bytes: u32) -> u32 {
        mpdus_per_ampdu(self.phy, self.tx, mpdu_bytes, &self.limits)
    }

    /// The exchange of an A-MPDU of `mpdus` MPDUs of `mpdu_bytes`:
    /// `Ts = PPDU + δ + SIFS + BA + δ + AIFS`, `Tc = PPDU + δ + EIFS − DIFS + AIFS`.
    pub fn exchange(&self, mpdus: u32, mpdu_bytes: u32) -> AmpduExchange {
        let (phy, d) = (self.phy, self.propagation);
        let psdu_bytes = ampdu_bytes(mpdus, mpdu_bytes);
        let ppdu = phy.ppdu_duration(psdu_bytes, self.tx);
        let block_ack = block_ack_duration(phy, self.tx, &self.limits);
        AmpduExchange {
            mpdus,
            psdu_bytes,
            ppdu,
            block_ack,
            ts: ppdu + d + phy.sifs + block_ack + d + self.access.aifs(phy),
            tc: ppdu + d + self.access.eifs(phy),
        }
    }

    /// Channel time of an access that sends `mpdus` MPDUs of `mpdu_bytes` with nothing
    /// contending: `Ts` (which ends with AIFS) + the mean backoff `CWmin/2` slots (the counter
    /// is uniform in `0..=CWmin` and never doubles).
    fn access_time(&self, mpdus: u32, mpdu_bytes: u32) -> Duration {
        self.exchange(mpdus, mpdu_bytes).ts + self.phy.mean_backoff(self.access.cw_min)
    }
}

/// Bytes of an A-MPDU of `n ≥ 1` MPDUs of `mpdu_bytes` each: `n` delimiters and MPDUs, every
/// subframe but the last padded to a multiple of 4 bytes.
pub fn ampdu_bytes(n: u32, mpdu_bytes: u32) -> u32 {
    assert!(n >= 1, "an A-MPDU has at least one MPDU");
    (DELIMITER_BYTES + mpdu_bytes).next_multiple_of(4) * (n - 1) + DELIMITER_BYTES + mpdu_bytes
}

/// Airtime of the Block Ack answering a PPDU sent with `tx`.
pub fn block_ack_duration(phy: &PhyProfile, tx: TxVector, limits: &AmpduLimits) -> Duration {
    phy.frame_duration(limits.block_ack_bytes(), phy.response_kbps(tx))
}

/// Most MPDUs of `mpdu_bytes` one A-MPDU sent with `tx` may carry: within the Block Ack window,
/// the byte limit, aPPDUMaxTime and the TXOP limit (which must hold the PPDU, SIFS and the
/// Block Ack). At least 1: a lone MPDU goes even if it breaks a limit.
pub fn mpdus_per_ampdu(phy: &PhyProfile, tx: TxVector, mpdu_bytes: u32, limits: &AmpduLimits) -> u32 {
    let response = phy.sifs + block_ack_duration(phy, tx, limits);
    let time_limit = if limits.txop_limit > Duration::ZERO {
        limits.max_ppdu_time.min(if limits.txop_limit > response { limits.txop_limit - response } else { Duration::ZERO })
    } else {
        limits.max_ppdu_time
    };
    let fits = |n: u32| {
        let bytes = ampdu_bytes(n, mpdu_bytes);
        bytes <= limits.max_ampdu_bytes && phy.ppdu_duration(bytes, tx) <= time_limit
    };
    // The PPDU duration grows with n, so the largest n that fits is found by bisection.
    let (mut lo, mut hi) = (1, limits.ba_window.max(1));
    if fits(hi) {
        return hi;
    }
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Airtimes of one A-MPDU exchange.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct AmpduExchange {
    /// MPDUs in the A-MPDU.
    pub mpdus: u32,
    /// Bytes of the A-MPDU (the PSDU).
    pub psdu_bytes: u32,
    /// Airtime of its PPDU (serialized in nanoseconds).
    #[serde(serialize_with = "serialize_nanos")]
    pub ppdu: Duration,
    /// Airtime of the Block Ack (serialized in nanoseconds).
    #[serde(serialize_with = "serialize_nanos")]
    pub block_ack: Duration,
    /// Busy time of a success, up to the end of AIFS (serialized in nanoseconds).
    #[serde(serialize_with = "serialize_nanos")]
    pub ts: Duration,
    /// Busy time of a collision, up to the end of EIFS (serialized in nanoseconds).
    #[serde(serialize_with = "serialize_nanos")]
    pub tc: Duration,
}

/// Saturation throughput of `n` stations with aggregation.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct AggregateSaturation {
    /// The A-MPDU exchange every station makes.
    pub exchange: AmpduExchange,
    /// Bianchi's steady state with that exchange (throughput counts IP bytes).
    pub bianchi: BianchiResult,
}

/// Saturation throughput of `n` stations each sending A-MPDUs of `ip_bytes` IP packets as
/// large as the limits allow on `link`, on an ideal channel.
///
/// Bianchi's eq. (13) with `E[P] = N × 8 × ip_bytes`, `W = cw_min + 1`, `m` from `cw_max`,
/// and `Ts`, `Tc` from [`AmpduLink::exchange`]; `normalized` is against the data rate.
pub fn saturation(link: &AmpduLink<'_>, ip_bytes: u32, n: u32) -> AggregateSaturation {
    saturation_of(link, ip_bytes, 1, ip_bytes + QOS_DATA_OVERHEAD_BYTES, n)
}

/// The same with A-MSDU: each MPDU carries as many `ip_bytes` packets as an A-MSDU of at most
/// `max_amsdu` bytes holds ([`super::amsdu`]; one packet goes as a plain MPDU), and the
/// A-MPDU as many of those MPDUs as its limits allow.
pub fn saturation_amsdu(link: &AmpduLink<'_>, ip_bytes: u32, n: u32, max_amsdu: u32) -> AggregateSaturation {
    let msdus = super::amsdu::msdus_per_amsdu(ip_bytes, max_amsdu);
    saturation_of(link, ip_bytes, msdus, super::amsdu::mpdu_bytes(msdus, ip_bytes), n)
}

/// Bianchi's throughput of `n` stations sending A-MPDUs of `mpdu` bytes MPDUs, each with
/// `msdus` packets of `ip_bytes`.
fn saturation_of(link: &AmpduLink<'_>, ip_bytes: u32, msdus: u32, mpdu: u32, n: u32) -> AggregateSaturation {
    let mpdus = link.mpdus_per_ampdu(mpdu);
    let exchange = link.exchange(mpdus, mpdu);
    let bianchi = saturation_throughput(
        n,
        link.access.cw_min + 1,
        link.access.backoff_stages(),
        link.phy.slot,
        exchange.ts,
        exchange.tc,
        8 * ip_bytes as u64 * msdus as u64 * mpdus as u64,
        link.phy.data_rate_bps(link.tx),
    );
    AggregateSaturation { exchange, bianchi }
}

/// Collision-free throughput of one TCP flow with aggregation in both directions.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct AggregateTcpCapacity {
    /// Segments per data A-MPDU.
    pub data_mpdus: u32,
    /// Mean TCP ACKs per ACK A-MPDU (those of one data A-MPDU).
    pub acks_per_ampdu: f64,
    /// Goodput if only the data A-MPDUs used the channel, bit/s.
    pub mac_only_bps: f64,
    /// Goodput with one ACK A-MPDU per data A-MPDU, bit/s.
    pub tcp_bps: f64,
    /// Channel time of one data exchange, AIFS and mean backoff included (ns).
    #[serde(serialize_with = "serialize_nanos")]
    pub data_exchange: Duration,
    /// Mean channel time of one ACK exchange, AIFS and mean backoff included (ns).
    #[serde(serialize_with = "serialize_nanos")]
    pub ack_exchange: Duration,
}

/// The maximum goodput of one TCP flow whose data goes from a station to the AP in A-MPDUs as
/// large as `limits` allow, and whose TCP ACKs (one `ack_ip_bytes` packet per
/// `segments_per_ack` segments) come back from the AP in A-MPDUs: `payload_bytes` of TCP
/// payload per `data_ip_bytes` segment, both directions on `link` (the AP with `ap_access`).
///
/// The cycle: the station sends a full data A-MPDU (its window keeps ≥ N segments queued),
/// the AP then sends the TCP ACKs of the previous data A-MPDU in one A-MPDU (they reach it
/// while the next data PPDU is on the air, so each ACK A-MPDU carries one data A-MPDU's ACKs:
/// `⌊(i+1)N/b⌋ − ⌊iN/b⌋` in cycle `i`, whose mean over `b` cycles is taken). Each access pays
/// AIFS and the mean backoff `CWmin/2` slots, nothing collides, nothing is lost:
/// `tcp_bps = 8·N·payload / (T_data + mean T_ack)`, `mac_only_bps = 8·N·payload / T_data`.
pub fn tcp_max_throughput(
    link: &AmpduLink<'_>,
    ap_access: EdcaAccess,
    payload_bytes: u32,
    data_ip_bytes: u32,
    ack_ip_bytes: u32,
    segments_per_ack: u32,
) -> AggregateTcpCapacity {
    assert!(segments_per_ack >= 1, "a TCP ACK covers at least one segment");
    let data_mpdu = data_ip_bytes + QOS_DATA_OVERHEAD_BYTES;
    let ack_mpdu = ack_ip_bytes + QOS_DATA_OVERHEAD_BYTES;
    let ap = AmpduLink { access: ap_access, ..*link };
    let n = link.mpdus_per_ampdu(data_mpdu);
    let data_exchange = link.access_time(n, data_mpdu);
    let b = segments_per_ack;
    let ack_limit = ap.mpdus_per_ampdu(ack_mpdu);
    let (mut ack_ns, mut acks, mut accesses) = (0u64, 0u32, 0u64);
    for i in 0..b {
        let count = (i + 1) * n / b - i * n / b;
        acks += count;
        // More ACKs than one A-MPDU holds (or none) never happens with real limits; split them.
        let mut left = count;
        while left > 0 {
            let k = left.min(ack_limit);
            ack_ns += ap.access_time(k, ack_mpdu).as_nanos();
            accesses += 1;
            left -= k;
        }
    }
    let ack_exchange = Duration::from_nanos(ack_ns / accesses.max(1));
    let bits = 8.0 * payload_bytes as f64 * n as f64;
    let cycle = data_exchange.as_secs_f64() + ack_ns as f64 * 1e-9 / b as f64;
    AggregateTcpCapacity {
        data_mpdus: n,
        acks_per_ampdu: acks as f64 / accesses.max(1) as f64,
        mac_only_bps: bits / data_exchange.as_secs_f64(),
        tcp_bps: bits / cycle,
        data_exchange,
        ack_exchange,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wlan::phy::{Mcs, PHY_80211A, PHY_80211AX};

    const A54: TxVector = TxVector::Legacy { kbps: 54_000 };

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    /// 802.11a at 54 Mb/s under HT's limits, AC_BE, propagation `d`.
    fn a54(d: Duration) -> AmpduLink<'static> {
        AmpduLink { phy: &PHY_80211A, tx: A54, access: EdcaAccess::best_effort(&PHY_80211A), limits: AmpduLimits::HT, propagation: d }
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn subframes_are_padded_but_the_last() {
        // 1538-byte MPDU: subframe 1542, padded to 1544.
        assert_eq!(ampdu_bytes(1, 1538), 1542);
        assert_eq!(ampdu_bytes(2, 1538), 1544 + 1542);
        assert_eq!(ampdu_bytes(23, 1538), 1544 * 22 + 1542);
        // A multiple of 4 needs no padding: 4 + 1536 = 1540.
        assert_eq!(ampdu_bytes(3, 1536), 3 * 1540);
        // 78-byte TCP ACK MPDU: 82, padded to 84.
        assert_eq!(ampdu_bytes(12, 78), 84 * 11 + 82);
    }

    #[test]
    fn edca_best_effort_timing() {
        let be = EdcaAccess::best_effort(&PHY_80211A);
        // AIFS[BE] = 16 + 3 × 9 = 43 µs; EIFS − DIFS + AIFS = (16 + 44 + 34) − 34 + 43 = 103 µs.
        assert_eq!(be.aifs(&PHY_80211A), us(43));
        assert_eq!(be.eifs(&PHY_80211A), us(103));
        assert_eq!(be.backoff_stages(), 6);
        assert_eq!(EdcaAccess { aifsn: 3, cw_min: 15, cw_max: 63 }.backoff_stages(), 2);
    }

    /// A-MPDUs of 1500-byte IP packets in 54 Mb/s OFDM PPDUs under HT's limits (a
    /// hypothetical PHY, so that every number below can be checked with a pencil).
    /// PPDU(psdu) = 20 + 4 × ⌈(16 + 8 psdu + 6) / 216⌉ µs ≤ 5484 needs ≤ 1366 symbols, so
    /// 8 psdu ≤ 1366 × 216 − 22 = 295 034, psdu ≤ 36 879 B; psdu(N) = 1544 N − 2, so N = 23
    /// (35 510 B, 1316 symbols, 5284 µs); N = 24 (37 054 B) needs 1373 symbols, 5512 µs.
    #[test]
    fn mpdu_count_by_hand() {
        let mpdu = 1500 + QOS_DATA_OVERHEAD_BYTES;
        assert_eq!(mpdu, 1538);
        assert_eq!(mpdus_per_ampdu(&PHY_80211A, A54, mpdu, &AmpduLimits::HT), 23);
        assert_eq!(PHY_80211A.ppdu_duration(ampdu_bytes(23, mpdu), A54), us(5284));
        assert_eq!(PHY_80211A.ppdu_duration(ampdu_bytes(24, mpdu), A54), us(5512));
        // The window binds first when it is small.
        let small = AmpduLimits { ba_window: 8, ..AmpduLimits::HT };
        assert_eq!(mpdus_per_ampdu(&PHY_80211A, A54, mpdu, &small), 8);
        // The byte limit: 20 000 B hold ⌊(20 000 + 2) / 1544⌋ = 12 MPDUs (18 526 B; 13 are 20 070).
        let bytes = AmpduLimits { max_ampdu_bytes: 20_000, ..AmpduLimits::HT };
        assert_eq!(mpdus_per_ampdu(&PHY_80211A, A54, mpdu, &bytes), 12);
        // A TXOP limit of 2 ms holds PPDU + SIFS 16 + BA 32: PPDU ≤ 1952 µs = 483 symbols,
        // 8 psdu ≤ 483 × 216 − 22 = 104 306, psdu ≤ 13 038 B: N = 8 (12 350 B).
        let txop = AmpduLimits { txop_limit: us(2_000), ..AmpduLimits::HT };
        assert_eq!(mpdus_per_ampdu(&PHY_80211A, A54, mpdu, &txop), 8);
        // A lone MPDU goes even past every limit.
        let tiny = AmpduLimits { max_ppdu_time: us(10), ..AmpduLimits::HT };
        assert_eq!(mpdus_per_ampdu(&PHY_80211A, A54, mpdu, &tiny), 1);
    }

    /// Same configuration, δ = 0. Block Ack (32 B at 24 Mb/s): ⌈278 / 96⌉ = 3 symbols, 32 µs.
    /// Ts = 5284 + 16 + 32 + 43 = 5375 µs; Tc = 5284 + 103 = 5387 µs. n = 1: one A-MPDU per
    /// 7.5 × 9 + 5375 = 5442.5 µs carries 23 × 12 000 bits: 50.712 816 720 257 23 Mb/s.
    #[test]
    fn saturation_by_hand() {
        let s = saturation(&a54(Duration::ZERO), 1500, 1);
        assert_eq!(s.exchange.mpdus, 23);
        assert_eq!(s.exchange.block_ack, us(32));
        assert_eq!((s.exchange.ts, s.exchange.tc), (us(5375), us(5387)));
        assert!(close(s.bianchi.throughput_bps, 276_000.0 / 5442.5e-6, 1e-12), "{}", s.bianchi.throughput_bps);
        // δ = 1 µs: Ts + 2, Tc + 1.
        let s = saturation(&a54(us(1)), 1500, 1);
        assert_eq!((s.exchange.ts, s.exchange.tc), (us(5377), us(5388)));
        // n > 1: the fixed point of bianchi.rs with W = 16, m = 6 and these Ts, Tc, σ = 9 µs;
        // eq. (13) evaluated by hand from its τ for n = 10.
        let s = saturation(&a54(Duration::ZERO), 1500, 10);
        let (tau, _) = super::super::bianchi::solve_tau(10, 16, 6);
        let ptr = 1.0 - (1.0 - tau).powi(10);
        let ps = 10.0 * tau * (1.0 - tau).powi(9) / ptr;
        let slot = (1.0 - ptr) * 9e-6 + ptr * ps * 5375e-6 + ptr * (1.0 - ps) * 5387e-6;
        assert!(close(s.bianchi.throughput_bps, ps * ptr * 276_000.0 / slot, 1e-12));
        // Aggregation amortises the overheads (39.70 Mb/s against 27.19 unaggregated at n = 10),
        // though each collision now wastes a 5.3 ms PPDU.
        assert!((s.bianchi.throughput_bps / 1e6 - 39.696_412_74).abs() < 1e-6, "{}", s.bianchi.throughput_bps);
        // A BA window of 256 asks for the 56-byte Block Ack: ⌈(16 + 448 + 6) / 96⌉ = 5 symbols.
        let he = AmpduLimits { ba_window: 256, ..AmpduLimits::HT };
        assert_eq!(block_ack_duration(&PHY_80211A, A54, &he), us(40));
    }

    /// One TCP flow, same PHY, BE on both sides, δ = 0, MSS 1460 in 1500-byte packets, 40-byte
    /// ACKs every 2 segments. Data: T = 43 + 67.5 + 5284 + 16 + 32 = 5442.5 µs for 23
    /// segments. ACKs: 11 and 12 in alternate cycles; 78-byte MPDUs in 84-byte subframes:
    /// 922 B, ⌈7398 / 216⌉ = 35 symbols, 160 µs; 1006 B, ⌈8070 / 216⌉ = 38 symbols, 172 µs;
    /// exchanges 43 + 67.5 + PPDU + 16 + 32 = 318.5 and 330.5 µs, mean 324.5.
    /// mac_only = 23 × 11 680 / 5442.5 µs = 49.359 669 269 637 12 Mb/s;
    /// tcp = 268 640 / 5767 µs = 46.582 278 480 145 66 Mb/s.
    #[test]
    fn tcp_by_hand() {
        let be = EdcaAccess::best_effort(&PHY_80211A);
        let c = tcp_max_throughput(&a54(Duration::ZERO), be, 1460, 1500, 40, 2);
        assert_eq!(c.data_mpdus, 23);
        assert_eq!(c.data_exchange, Duration::from_nanos(5_442_500));
        assert_eq!(c.ack_exchange, Duration::from_nanos(324_500));
        assert!(close(c.acks_per_ampdu, 11.5, 1e-12));
        assert!(close(c.mac_only_bps, 268_640.0 / 5442.5e-6, 1e-12), "{}", c.mac_only_bps);
        assert!(close(c.tcp_bps, 268_640.0 / 5767e-6, 1e-12), "{}", c.tcp_bps);
        // An ACK per segment: 23 ACKs, 84 × 22 + 82 = 1930 B, ⌈15 462 / 216⌉ = 72 symbols,
        // 308 µs; exchange 466.5 µs; tcp = 268 640 / 5909 µs.
        let c = tcp_max_throughput(&a54(Duration::ZERO), be, 1460, 1500, 40, 1);
        assert_eq!(c.ack_exchange, Duration::from_nanos(466_500));
        assert!(close(c.tcp_bps, 268_640.0 / 5909e-6, 1e-12), "{}", c.tcp_bps);
        assert!(c.tcp_bps < c.mac_only_bps);
    }

    /// A-MSDU of 100-byte IP packets, same 54 Mb/s link, HT limits (A-MSDU ≤ 4065 B in an
    /// A-MPDU), δ = 0. Without A-MSDU: 138-byte MPDUs in 144-byte subframes, the 64-MPDU window
    /// binds: 63 × 144 + 142 = 9214 B, ⌈(22 + 73 712) / 216⌉ = 342 symbols, 1388 µs; Ts = 1388
    /// + 16 + 32 + 43 = 1479 µs, 64 × 800 bits per 1546.5 µs. With it: 32 packets per A-MSDU
    /// (122 + 31 × 124 = 3966 B), MPDU 3996 B in a 4000-byte subframe; 4000 N ≤ 36 879 B gives
    /// N = 9 (36 000 B, ⌈288 022 / 216⌉ = 1334 symbols, 5356 µs); Ts = 5447 µs, 288 × 800 bits
    /// per 5514.5 µs: 41.78 against 33.11 Mb/s (+26.2 %).
    #[test]
    fn amsdu_saturation_by_hand() {
        let link = a54(Duration::ZERO);
        let plain = saturation(&link, 100, 1);
        assert_eq!((plain.exchange.mpdus, plain.exchange.psdu_bytes, plain.exchange.ppdu), (64, 9214, us(1388)));
        assert!(close(plain.bianchi.throughput_bps, 51_200.0 / 1546.5e-6, 1e-12), "{}", plain.bianchi.throughput_bps);
        let s = saturation_amsdu(&link, 100, 1, crate::wlan::amsdu::HT_AMPDU_AMSDU_BYTES);
        assert_eq!((s.exchange.mpdus, s.exchange.psdu_bytes, s.exchange.ppdu, s.exchange.ts), (9, 36_000, us(5356), us(5447)));
        assert!(close(s.bianchi.throughput_bps, 230_400.0 / 5514.5e-6, 1e-12), "{}", s.bianchi.throughput_bps);
        // An A-MSDU limit below two subframes leaves plain MPDUs: the same as without.
        let one = saturation_amsdu(&link, 100, 1, 200);
        assert_eq!(one.bianchi.throughput_bps, plain.bianchi.throughput_bps);
    }

    /// 802.11ax, HE-MCS 7 (64-QAM 5/6), 20 MHz, 1 stream, 0.8 µs GI: N_DBPS = 234 × 6 × 5/6 =
    /// 1170 bits per 13.6 µs symbol (86.03 Mb/s); preamble 36 + 7.2 µs (one 2x HE-LTF).
    /// 37 MPDUs of 1538 B: 57 126 B, 8 × 57 126 + 16 = 457 024 bits, ⌈/1170⌉ = 391 symbols
    /// (pre-FEC padding a = 3, no LDPC extra segment): 43.2 + 5317.6 = 5360.8 µs. 38 MPDUs:
    /// 58 670 B, 402 symbols, 5510.4 µs > 5484. Block Ack 56 B at 24 Mb/s (MCS 7's non-HT
    /// reference 54 Mb/s): 40 µs. Ts = 5360.8 + 16 + 40 + 43 = 5459.8 µs, Tc = 5360.8 + 103 =
    /// 5463.8 µs; n = 1: 37 × 12 000 bits per 67.5 + 5459.8 µs = 80.328 551 Mb/s.
    #[test]
    fn he_mcs7_20mhz_by_hand() {
        let tx = TxVector::He(Mcs { mcs: 7, nss: 1, width_mhz: 20, gi_ns: 800 });
        let link = AmpduLink { phy: &PHY_80211AX, tx, access: EdcaAccess::best_effort(&PHY_80211AX), limits: AmpduLimits::HE, propagation: Duration::ZERO };
        assert_eq!(PHY_80211AX.ppdu_duration(ampdu_bytes(38, 1538), tx), Duration::from_nanos(5_510_400));
        let s = saturation(&link, 1500, 1);
        assert_eq!((s.exchange.mpdus, s.exchange.psdu_bytes), (37, 57_126));
        assert_eq!(s.exchange.ppdu, Duration::from_nanos(5_360_800));
        assert_eq!(s.exchange.block_ack, us(40));
        assert_eq!((s.exchange.ts, s.exchange.tc), (Duration::from_nanos(5_459_800), Duration::from_nanos(5_463_800)));
        assert!(close(s.bianchi.throughput_bps, 444_000.0 / 5527.3e-6, 1e-12), "{}", s.bianchi.throughput_bps);
    }
}
