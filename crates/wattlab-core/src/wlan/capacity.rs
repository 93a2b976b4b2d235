//! Theoretical maximum throughput of one flow over one 802.11 DCF link: no collisions, no
//! errors, every frame preceded by DIFS and the mean backoff and answered by a MAC ACK.
//!
//! For the MAC alone this is the figure of J. Jun, P. Peddabachagari and M. Sichitiu,
//! "Theoretical maximum throughput of IEEE 802.11 and its applications", IEEE NCA 2003;
//! [`tcp_max_throughput`] adds the TCP ACKs, which contend for the same channel.

use super::bianchi::serialize_nanos;
use super::phy::PhyProfile;
use crate::time::Duration;

/// Collision-free throughput of a TCP flow over one DCF link.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct TcpCapacity {
    /// Goodput if only data frames used the channel (Jun et al.'s maximum throughput), bit/s.
    pub mac_only_bps: f64,
    /// Goodput with the TCP ACKs' channel time shared among the segments they acknowledge.
    pub tcp_bps: f64,
    /// Channel time of one data segment's exchange ([`exchange_duration`]; serialized in ns).
    #[serde(serialize_with = "serialize_nanos")]
    pub data_exchange: Duration,
    /// Channel time of one TCP ACK's exchange (serialized in nanoseconds).
    #[serde(serialize_with = "serialize_nanos")]
    pub ack_exchange: Duration,
}

/// Channel time of one collision-free exchange carrying an `ip_bytes` IP packet at
/// `rate_kbps`: `DIFS + cw_min/2 slots + DATA + δ + SIFS + ACK + δ`.
///
/// The mean backoff is `cw_min / 2` slots (counter uniform in `0..=cw_min`, never doubled
/// since nothing collides); `δ` (`propagation`) is paid once by the data and once by the ACK.
pub fn exchange_duration(
    phy: &PhyProfile,
    rate_kbps: u32,
    ip_bytes: u32,
    propagation: Duration,
) -> Duration {
    phy.difs()
        + phy.mean_backoff(phy.cw_min)
        + phy.data_duration(ip_bytes, rate_kbps)
        + propagation
        + phy.sifs
        + phy.ack_duration(rate_kbps)
        + propagation
}

/// Maximum goodput of one TCP flow: `payload_bytes` of TCP payload per `data_ip_bytes`
/// segment, one `ack_ip_bytes` TCP ACK (sent back over the same link at the same rate) per
/// `segments_per_ack` segments.
///
/// `mac_only_bps = 8·payload / data_exchange`; `tcp_bps = 8·payload / (data_exchange +
/// ack_exchange / segments_per_ack)`. With 802.11a at 54 Mb/s and 1460-byte payloads in
/// 1500-byte packets, `mac_only_bps` is 11680 bits / 393.5 µs ≈ 29.68 Mb/s.
pub fn tcp_max_throughput(
    phy: &PhyProfile,
    rate_kbps: u32,
    payload_bytes: u32,
    data_ip_bytes: u32,
    ack_ip_bytes: u32,
    segments_per_ack: u32,
    propagation: Duration,
) -> TcpCapacity {
    assert!(segments_per_ack >= 1, "a TCP ACK covers at least one segment");
    let data_exchange = exchange_duration(phy, rate_kbps, data_ip_bytes, propagation);
    let ack_exchange = exchange_duration(phy, rate_kbps, ack_ip_bytes, propagation);
    let bits = 8.0 * payload_bytes as f64;
    let per_segment =
        data_exchange.as_secs_f64() + ack_exchange.as_secs_f64() / segments_per_ack as f64;
    TcpCapacity {
        mac_only_bps: bits / data_exchange.as_secs_f64(),
        tcp_bps: bits / per_segment,
        data_exchange,
        ack_exchange,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wlan::phy::{PHY_80211A, PHY_80211B};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs()
    }

    #[test]
    fn ofdm_54_by_hand() {
        // 802.11a, 54 Mb/s, δ = 0. Data: 1500-byte IP packet, 248 µs; exchange
        // 34 + 7.5 × 9 + 248 + 16 + 28 = 393.5 µs.
        // TCP ACK: 40-byte IP packet, 76-byte MPDU, 16 + 608 + 6 = 630 bits, 3 symbols of
        // 216: 32 µs; exchange 34 + 67.5 + 32 + 16 + 28 = 177.5 µs.
        // mac_only = 11680 / 393.5 µs = 29.682337992376112 Mb/s;
        // one ACK per segment: 11680 / 571 µs = 20.455341506129597 Mb/s;
        // one ACK per two: 11680 / (393.5 + 88.75 = 482.25) µs = 24.219803006739244 Mb/s.
        let us = Duration::from_micros;
        assert_eq!(
            exchange_duration(&PHY_80211A, 54_000, 1500, Duration::ZERO),
            Duration::from_nanos(393_500)
        );
        let c = tcp_max_throughput(&PHY_80211A, 54_000, 1460, 1500, 40, 1, Duration::ZERO);
        assert_eq!(
            (c.data_exchange, c.ack_exchange),
            (Duration::from_nanos(393_500), Duration::from_nanos(177_500))
        );
        assert!(close(c.mac_only_bps, 29_682_337.992_376_11), "{}", c.mac_only_bps);
        assert!(close(c.tcp_bps, 20_455_341.506_129_6), "{}", c.tcp_bps);
        let c = tcp_max_throughput(&PHY_80211A, 54_000, 1460, 1500, 40, 2, Duration::ZERO);
        assert!(close(c.mac_only_bps, 29_682_337.992_376_11), "{}", c.mac_only_bps);
        assert!(close(c.tcp_bps, 24_219_803.006_739_24), "{}", c.tcp_bps);
        // δ = 1 µs is paid twice per exchange.
        assert_eq!(
            exchange_duration(&PHY_80211A, 54_000, 1500, us(1)),
            Duration::from_nanos(395_500)
        );
    }

    #[test]
    fn dsss_11_by_hand() {
        // 802.11b, 11 Mb/s, long preamble: 50 + 15.5 × 20 + 1310 + 10 + 248 = 1928 µs;
        // 11680 / 1928 µs = 6.058091286307054 Mb/s.
        let c = tcp_max_throughput(&PHY_80211B, 11_000, 1460, 1500, 40, 1, Duration::ZERO);
        assert_eq!(c.data_exchange, Duration::from_micros(1928));
        assert!(close(c.mac_only_bps, 6_058_091.286_307_054), "{}", c.mac_only_bps);
    }
}
