//! A-MSDU: several MSDUs in one QoS data MPDU (IEEE 802.11-2020 §9.3.2.2), and its limits per
//! PHY format.
//!
//! - **Layout.** The MPDU is the QoS data header (24 + 2 QoS Control, with the A-MSDU Present
//!   bit), the A-MSDU and the FCS (4). Each A-MSDU subframe is a 14-byte header (DA 6, SA 6,
//!   Length 2), the MSDU (LLC/SNAP 8 around the IP packet) and padding to a multiple of 4 bytes,
//!   except the last subframe (§9.3.2.2.2, Figure 9-70).
//! - **One MSDU** travels as a plain QoS data MPDU (no subframe header): an A-MSDU is built only
//!   when two or more MSDUs go together, as Linux's mac80211 (`ieee80211_amsdu_aggregate`) does.
//! - **Limits** ([`max_amsdu_bytes`]). HT: the recipient's Maximum A-MSDU Length, 3839 or 7935
//!   bytes (HT Capabilities, §9.4.2.55.2); under a Block Ack agreement an HT A-MPDU subframe's
//!   MPDU Length field has 12 bits, so an A-MSDU inside it is at most 4095 − 30 = 4065 bytes
//!   (802.11-2012 §8.3.2.2 NOTE 2, as mac80211's `max_amsdu_len` documents it). VHT: the
//!   recipient's Maximum MPDU Length, 3895, 7991 or 11 454 bytes (VHT Capabilities,
//!   §9.4.2.157.2), so the A-MSDU is at most that less the 30 bytes of header and FCS. HE: as
//!   VHT in 5 and 6 GHz; in 2.4 GHz (no VHT capabilities) the HT field decides the MPDU length
//!   (3895 or 7991), as we read 802.11ax-2021 §26.6. The largest declarable value is the
//!   default; a smaller `amsdu_max` models a recipient (or a driver) that declares less.

use super::phy::{Band, PhyFormat, DATA_OVERHEAD_BYTES, QOS_EXTRA_BYTES};

/// An A-MSDU subframe header: DA 6, SA 6, Length 2 (§9.3.2.2.2).
pub const SUBFRAME_HEADER_BYTES: u32 = 14;
/// LLC/SNAP header of an MSDU carrying an IP packet.
pub const LLC_SNAP_BYTES: u32 = 8;
/// QoS data MAC header (26) and FCS (4) around an A-MSDU.
pub const AMSDU_MPDU_OVERHEAD_BYTES: u32 = DATA_OVERHEAD_BYTES - LLC_SNAP_BYTES + QOS_EXTRA_BYTES;
/// Largest A-MSDU inside an HT A-MPDU (a 4095-byte MPDU less header and FCS).
pub const HT_AMPDU_AMSDU_BYTES: u32 = 4095 - AMSDU_MPDU_OVERHEAD_BYTES;
/// HT's Maximum A-MSDU Length values (§9.4.2.55.2).
pub const HT_MAX_AMSDU: [u32; 2] = [3839, 7935];
/// VHT's Maximum MPDU Length values (§9.4.2.157.2).
pub const VHT_MAX_MPDU: [u32; 3] = [3895, 7991, 11_454];

/// Bytes of the A-MSDU subframe of one `ip_bytes` IP packet, padding excluded.
pub fn subframe_bytes(ip_bytes: u32) -> u32 {
    SUBFRAME_HEADER_BYTES + LLC_SNAP_BYTES + ip_bytes
}

/// Bytes of an A-MSDU of `amsdu` bytes so far once the subframe of an `ip_bytes` packet is
/// appended (the previous subframe padded to 4 bytes).
pub fn with_subframe(amsdu: u32, ip_bytes: u32) -> u32 {
    amsdu.next_multiple_of(4) + subframe_bytes(ip_bytes)
}

/// Bytes of an A-MSDU of `n ≥ 1` subframes of `ip_bytes` packets.
pub fn amsdu_bytes(n: u32, ip_bytes: u32) -> u32 {
    assert!(n >= 1, "an A-MSDU has at least one MSDU");
    subframe_bytes(ip_bytes).next_multiple_of(4) * (n - 1) + subframe_bytes(ip_bytes)
}

/// Bytes of the QoS data MPDU carrying `n` packets of `ip_bytes`: a plain MPDU for one, an
/// A-MSDU in header and FCS for more.
pub fn mpdu_bytes(n: u32, ip_bytes: u32) -> u32 {
    if n <= 1 {
        ip_bytes + DATA_OVERHEAD_BYTES + QOS_EXTRA_BYTES
    } else {
        amsdu_bytes(n, ip_bytes) + AMSDU_MPDU_OVERHEAD_BYTES
    }
}

/// Most `ip_bytes` packets in one A-MSDU of at most `max_amsdu` bytes (at least 1: a packet
/// that does not fit goes alone, as a plain MPDU).
pub fn msdus_per_amsdu(ip_bytes: u32, max_amsdu: u32) -> u32 {
    let (one, step) = (subframe_bytes(ip_bytes), subframe_bytes(ip_bytes).next_multiple_of(4));
    if one > max_amsdu {
        1
    } else {
        1 + (max_amsdu - one) / step
    }
}

/// Largest A-MSDU (bytes) a `format` PPDU in `band` may carry inside an A-MPDU (module docs);
/// None for the legacy PHYs (no A-MSDU without the QoS MAC of HT and later).
pub fn max_amsdu_bytes(format: PhyFormat, band: Band) -> Option<u32> {
    match (format, band) {
        (PhyFormat::Legacy, _) => None,
        (PhyFormat::Ht, _) => Some(HT_AMPDU_AMSDU_BYTES),
        (PhyFormat::He, Band::Ghz2_4) => Some(VHT_MAX_MPDU[1] - AMSDU_MPDU_OVERHEAD_BYTES),
        (PhyFormat::Vht | PhyFormat::He, _) => Some(VHT_MAX_MPDU[2] - AMSDU_MPDU_OVERHEAD_BYTES),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_by_hand() {
        // 100-byte IP packet: 14 + 8 + 100 = 122, padded to 124 except the last.
        assert_eq!(subframe_bytes(100), 122);
        assert_eq!(amsdu_bytes(1, 100), 122);
        assert_eq!(amsdu_bytes(3, 100), 124 + 124 + 122);
        assert_eq!(with_subframe(with_subframe(122, 100), 100), amsdu_bytes(3, 100));
        // MPDU: 26 + A-MSDU + 4; one packet is a plain 138-byte MPDU (24 + 2 + 8 + 100 + 4).
        assert_eq!(AMSDU_MPDU_OVERHEAD_BYTES, 30);
        assert_eq!(mpdu_bytes(1, 100), 138);
        assert_eq!(mpdu_bytes(3, 100), 400);
        // A 1500-byte packet: 1522, padded 1524; two of them 3046 B.
        assert_eq!(amsdu_bytes(2, 1500), 3046);
    }

    #[test]
    fn msdus_per_amsdu_by_hand() {
        // 4065 B: 122 + 124 k ≤ 4065 → k = 31, so 32 packets of 100 B (3966 B; 33 are 4090).
        assert_eq!(msdus_per_amsdu(100, 4065), 32);
        assert!(amsdu_bytes(32, 100) <= 4065 && amsdu_bytes(33, 100) > 4065);
        // 1500-byte packets: 2 in 4065 (3046), 7 in 11 424 (6 × 1524 + 1522 = 10 666; 8 are 12 190).
        assert_eq!(msdus_per_amsdu(1500, 4065), 2);
        assert_eq!(msdus_per_amsdu(1500, 11_424), 7);
        // Too big for the limit: alone.
        assert_eq!(msdus_per_amsdu(1500, 1000), 1);
    }

    #[test]
    fn limits_per_format() {
        assert_eq!(max_amsdu_bytes(PhyFormat::Legacy, Band::Ghz5), None);
        assert_eq!(max_amsdu_bytes(PhyFormat::Ht, Band::Ghz2_4), Some(4065));
        assert_eq!(max_amsdu_bytes(PhyFormat::Vht, Band::Ghz5), Some(11_424));
        assert_eq!(max_amsdu_bytes(PhyFormat::He, Band::Ghz6), Some(11_424));
        assert_eq!(max_amsdu_bytes(PhyFormat::He, Band::Ghz2_4), Some(7961));
    }
}
