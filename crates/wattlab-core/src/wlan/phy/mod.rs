//! 802.11 PHY timing: inter-frame spaces, contention windows and the airtime of a frame.
//!
//! One [`PhyProfile`] per PHY family, with the numbers of IEEE 802.11-2020 (clauses 15–21) and
//! IEEE 802.11ax-2021 (clause 27):
//!
//! | profile      | PHY                 | slot | SIFS | DIFS | CW       | preamble + header        |
//! |--------------|---------------------|------|------|------|----------|--------------------------|
//! | `802.11b`    | HR/DSSS 1–11 Mb/s   | 20   | 10   | 50   | 31–1023  | 192 µs long / 96 µs short |
//! | `dsss-2mbps` | DSSS 1–2 Mb/s (1997)| 20   | 10   | 50   | 31–1023  | 192 µs                   |
//! | `802.11a`    | OFDM 6–54 Mb/s      | 9    | 16   | 34   | 15–1023  | 20 µs, then 4 µs symbols |
//! | `802.11g`    | ERP-OFDM 6–54 Mb/s  | 9    | 10   | 28   | 15–1023  | 20 µs + 6 µs extension   |
//! | `802.11n`    | HT (clause 19)      | 9    | 16*  | 34*  | 15–1023  | HT-mixed, [`ht`]         |
//! | `802.11ac`   | VHT (clause 21)     | 9    | 16   | 34   | 15–1023  | VHT SU, [`ht`]           |
//! | `802.11ax`   | HE (clause 27)      | 9    | 16*  | 34*  | 15–1023  | HE SU, [`he`]            |
//!
//! (times in µs; * 5 and 6 GHz: in the 2.4 GHz band ([`PhyProfile::with_band`]) SIFS is 10 µs,
//! DIFS 28 µs and every OFDM PPDU is followed by the 6 µs signal extension.) Each name is
//! printed as written here; a scenario or a capture's `--phy` may also write it without dots
//! (`80211a`), as earlier versions did. The 802.11g signal extension follows every OFDM frame,
//! so its SIFS + extension equals 802.11a's 16 µs and the two profiles give the same exchange
//! durations.
//!
//! HT, VHT and HE profiles send data as [`TxVector::Ht`], [`TxVector::Vht`] or [`TxVector::He`]
//! PPDUs ([`mcs`] has the rate tables) and every control frame, beacon and management frame as
//! a non-HT OFDM PPDU at a basic rate (6, 12, 24 Mb/s; in 2.4 GHz the ERP-OFDM ones, no DSSS
//! rates assumed). Control frames (ACK, CTS, RTS, PS-Poll) go at the highest basic rate not
//! above the data rate, or for an HT/VHT/HE PPDU not above the non-HT reference rate of its
//! MCS (802.11-2020 §10.6.6.5), so an ACK to a 54 Mb/s frame on 802.11a goes at 24 Mb/s.

pub mod he;
pub mod ht;
pub mod mcs;

pub use mcs::Mcs;

use crate::time::Duration;
use std::fmt;

/// MAC header (24 bytes), FCS (4) and LLC/SNAP (8) around an IP packet in a data frame.
pub const DATA_OVERHEAD_BYTES: u32 = 24 + 4 + 8;
/// Extra bytes of a QoS data frame's header (QoS Control field).
pub const QOS_EXTRA_BYTES: u32 = 2;
/// An ACK or CTS frame.
pub const ACK_BYTES: u32 = 14;
/// An RTS frame.
pub const RTS_BYTES: u32 = 20;
/// A PS-Poll frame.
pub const PS_POLL_BYTES: u32 = 20;
/// A (QoS) Null data frame: header, QoS Control and FCS, no body.
pub const NULL_FRAME_BYTES: u32 = 24 + 2 + 4;
/// A typical beacon: header, fixed fields, SSID, rates, DS parameter and a short TIM.
pub const BEACON_BYTES: u32 = 100;

/// Modulation family, which fixes how a frame's duration is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modulation {
    /// DSSS/HR-DSSS (802.11 1997 and 802.11b): preamble and header, then bits at the rate,
    /// rounded up to the microsecond.
    Dsss,
    /// OFDM (802.11a/g): 20 µs preamble and SIGNAL, then 4 µs symbols of
    /// `4 × rate(Mb/s)` data bits, carrying 16 service bits, the frame and 6 tail bits.
    Ofdm,
}

/// DSSS preamble length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preamble {
    /// 144 µs preamble + 48 µs header at 1 Mb/s.
    Long,
    /// 72 µs preamble + 24 µs header (802.11b, not at 1 Mb/s).
    Short,
}

/// How one PPDU is sent: its format and rate parameters (ns-3's `WifiTxVector`).
///
/// The MAC asks the PHY for every airtime through one of these, so a new PPDU format is a new
/// variant here and a case in [`PhyProfile::ppdu_duration`], not a change in the MAC.
/// Check one with [`PhyProfile::check_tx`] before use: the airtime functions assume it valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TxVector {
    /// A DSSS or OFDM (non-HT) PPDU at `kbps`.
    Legacy {
        /// Data rate, kb/s (one of the profile's `rates_kbps`).
        kbps: u32,
    },
    /// An HT-mixed PPDU (802.11n, clause 19), BCC-coded.
    Ht(Mcs),
    /// A VHT SU PPDU (802.11ac, clause 21), BCC-coded.
    Vht(Mcs),
    /// An HE SU PPDU (802.11ax, clause 27), LDPC-coded.
    He(Mcs),
}

impl TxVector {
    /// The channel width and spatial streams the PPDU occupies: what a radio's power depends
    /// on (a device profile's `[[ppdu_power]]`). A non-HT PPDU is 20 MHz, one stream.
    pub const fn shape(self) -> PpduShape {
        match self {
            TxVector::Legacy { .. } => PpduShape::NON_HT,
            TxVector::Ht(m) | TxVector::Vht(m) | TxVector::He(m) => PpduShape { width_mhz: m.width_mhz, nss: m.nss },
        }
    }
}

/// Channel width and spatial streams of one PPDU (the part of its [`TxVector`] a radio's
/// power depends on), reported with each transmit or receive interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PpduShape {
    /// Channel width, MHz.
    pub width_mhz: u16,
    /// Spatial streams.
    pub nss: u8,
}

impl PpduShape {
    /// A non-HT PPDU (DSSS/OFDM data, control frames, beacons): 20 MHz, one stream. (A non-HT
    /// duplicate response on a wider channel is counted as this too.)
    pub const NON_HT: PpduShape = PpduShape { width_mhz: 20, nss: 1 };
}

/// Which PPDU format a profile sends its data in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PhyFormat {
    /// DSSS/OFDM (non-HT) only: `rate = "54Mbps"`.
    Legacy,
    /// HT (802.11n).
    Ht,
    /// VHT (802.11ac).
    Vht,
    /// HE (802.11ax).
    He,
}

/// Frequency band, which fixes SIFS, the signal extension and the channel widths available.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Band {
    /// 2.4 GHz: SIFS 10 µs and a 6 µs signal extension after every OFDM PPDU.
    Ghz2_4,
    /// 5 GHz: SIFS 16 µs.
    Ghz5,
    /// 6 GHz (802.11ax only): SIFS 16 µs.
    Ghz6,
}

impl Band {
    /// Spellings accepted in scenarios.
    pub const NAMES: [&'static str; 3] = ["2.4GHz", "5GHz", "6GHz"];

    /// `"2.4"`, `"2.4GHz"`, `"2.4 GHz"`, `"5"`, `"5GHz"`, `"6"`, `"6GHz"` (case-blind).
    pub fn parse(s: &str) -> Option<Band> {
        let t = s.trim().to_ascii_lowercase();
        let t = t.strip_suffix("ghz").unwrap_or(&t).trim();
        match t {
            "2.4" => Some(Band::Ghz2_4),
            "5" => Some(Band::Ghz5),
            "6" => Some(Band::Ghz6),
            _ => None,
        }
    }
}

impl fmt::Display for Band {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Band::Ghz2_4 => "2.4 GHz",
            Band::Ghz5 => "5 GHz",
            Band::Ghz6 => "6 GHz",
        })
    }
}

/// Timing of one 802.11 PHY.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhyProfile {
    /// Name used in scenarios and printed everywhere, e.g. `802.11a` (see [`find_phy`]).
    pub name: &'static str,
    /// What the standard calls it.
    pub description: &'static str,
    /// Modulation family.
    pub modulation: Modulation,
    /// Slot time.
    pub slot: Duration,
    /// Short inter-frame space.
    pub sifs: Duration,
    /// Smallest contention window (CW is drawn from 0..=cw).
    pub cw_min: u32,
    /// Largest contention window.
    pub cw_max: u32,
    /// Data rates in kb/s.
    pub rates_kbps: &'static [u32],
    /// Basic rate set in kb/s (control frames and beacons).
    pub basic_rates_kbps: &'static [u32],
    /// DSSS preamble (ignored for OFDM).
    pub preamble: Preamble,
    /// Silence after every OFDM frame (802.11g signal extension).
    pub signal_extension: Duration,
    /// PPDU format of its data frames.
    pub format: PhyFormat,
    /// Frequency band (see [`PhyProfile::with_band`]).
    pub band: Band,
    /// HE only: the receivers' nominal packet padding, µs (0, 8 or 16; 802.11ax-2021 27.3.13),
    /// which sets the packet extension after each HE PPDU. Default 0: receivers that declare
    /// no extra processing time (PPE Thresholds absent, Nominal Packet Padding 0 µs).
    pub he_packet_padding_us: u8,
}

/// Shorthand for microseconds in the tables below.
const fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

/// 802.11b HR/DSSS.
pub const PHY_80211B: PhyProfile = PhyProfile {
    name: "802.11b",
    description: "802.11b HR/DSSS, 1/2/5.5/11 Mb/s, long preamble",
    modulation: Modulation::Dsss,
    slot: us(20),
    sifs: us(10),
    cw_min: 31,
    cw_max: 1023,
    rates_kbps: &[1_000, 2_000, 5_500, 11_000],
    basic_rates_kbps: &[1_000, 2_000],
    preamble: Preamble::Long,
    signal_extension: Duration::ZERO,
    format: PhyFormat::Legacy,
    band: Band::Ghz2_4,
    he_packet_padding_us: 0,
};

/// Legacy 802.11 DSSS at 2 Mb/s (seeds 001 and 003, ns-2's default WLAN).
pub const PHY_DSSS_2MBPS: PhyProfile = PhyProfile {
    name: "dsss-2mbps",
    description: "802.11 (1997) DSSS, 1/2 Mb/s, long preamble, control frames at 1 Mb/s",
    modulation: Modulation::Dsss,
    slot: us(20),
    sifs: us(10),
    cw_min: 31,
    cw_max: 1023,
    rates_kbps: &[1_000, 2_000],
    basic_rates_kbps: &[1_000],
    preamble: Preamble::Long,
    signal_extension: Duration::ZERO,
    format: PhyFormat::Legacy,
    band: Band::Ghz2_4,
    he_packet_padding_us: 0,
};

/// 802.11a OFDM.
pub const PHY_80211A: PhyProfile = PhyProfile {
    name: "802.11a",
    description: "802.11a OFDM, 6-54 Mb/s",
    modulation: Modulation::Ofdm,
    slot: us(9),
    sifs: us(16),
    cw_min: 15,
    cw_max: 1023,
    rates_kbps: OFDM_RATES_KBPS,
    basic_rates_kbps: OFDM_BASIC_KBPS,
    preamble: Preamble::Long,
    signal_extension: Duration::ZERO,
    format: PhyFormat::Legacy,
    band: Band::Ghz5,
    he_packet_padding_us: 0,
};

/// 802.11g ERP-OFDM with short slots (no 802.11b stations in the BSS).
pub const PHY_80211G: PhyProfile = PhyProfile {
    name: "802.11g",
    description: "802.11g ERP-OFDM, 6-54 Mb/s, short slot, 6 us signal extension",
    modulation: Modulation::Ofdm,
    slot: us(9),
    sifs: us(10),
    cw_min: 15,
    cw_max: 1023,
    rates_kbps: OFDM_RATES_KBPS,
    basic_rates_kbps: OFDM_BASIC_KBPS,
    preamble: Preamble::Long,
    signal_extension: us(6),
    format: PhyFormat::Legacy,
    band: Band::Ghz2_4,
    he_packet_padding_us: 0,
};

/// Non-HT OFDM rates (802.11a/g; HT/VHT/HE profiles send control and management frames at them).
const OFDM_RATES_KBPS: &[u32] = &[6_000, 9_000, 12_000, 18_000, 24_000, 36_000, 48_000, 54_000];
/// Their basic rate set (the mandatory 6, 12, 24 Mb/s).
const OFDM_BASIC_KBPS: &[u32] = &[6_000, 12_000, 24_000];

/// An HT/VHT/HE profile in 5 GHz: 802.11a's slot, SIFS, CW and basic rates (DCF; EDCA sets its own).
const fn high_throughput(name: &'static str, description: &'static str, format: PhyFormat) -> PhyProfile {
    PhyProfile { name, description, format, ..PHY_80211A }
}

/// 802.11n HT, HT-mixed format, 5 GHz unless [`PhyProfile::with_band`] says 2.4 GHz.
pub const PHY_80211N: PhyProfile = high_throughput("802.11n", "802.11n HT, MCS 0-7 x 1-4 streams, 20/40 MHz, HT-mixed, BCC", PhyFormat::Ht);

/// 802.11ac VHT SU, 5 GHz.
pub const PHY_80211AC: PhyProfile = high_throughput("802.11ac", "802.11ac VHT SU, MCS 0-9 x 1-4 streams, 20-160 MHz, BCC", PhyFormat::Vht);

/// 802.11ax HE SU, 5 GHz unless [`PhyProfile::with_band`] says 2.4 or 6 GHz.
pub const PHY_80211AX: PhyProfile = high_throughput("802.11ax", "802.11ax HE SU, MCS 0-11 x 1-4 streams, 20-160 MHz, LDPC", PhyFormat::He);

/// Every built-in PHY profile.
pub const PHY_PROFILES: [PhyProfile; 7] = [PHY_80211B, PHY_DSSS_2MBPS, PHY_80211A, PHY_80211G, PHY_80211N, PHY_80211AC, PHY_80211AX];

/// The built-in PHY profile called `name`: its name (`802.11a`), or the same without the dots
/// (`80211a`, the spelling of earlier versions, still accepted as input).
pub fn find_phy(name: &str) -> Option<PhyProfile> {
    let undotted = |s: &str| s.chars().filter(|&c| c != '.').collect::<String>();
    PHY_PROFILES.iter().copied().find(|p| p.name == name || (!name.contains('.') && undotted(p.name) == name))
}

/// Names of the built-in PHY profiles.
pub fn phy_names() -> Vec<&'static str> {
    PHY_PROFILES.iter().map(|p| p.name).collect()
}

/// Why a PHY setting was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhyError(pub String);

impl fmt::Display for PhyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PhyError {}

fn rate_list(rates: &[u32]) -> String {
    rates.iter().map(|r| format_rate(*r)).collect::<Vec<_>>().join(", ")
}

/// `5500` → `5.5Mbps`.
pub fn format_rate(kbps: u32) -> String {
    if kbps.is_multiple_of(1000) {
        format!("{}Mbps", kbps / 1000)
    } else {
        format!("{}Mbps", kbps as f64 / 1000.0)
    }
}

impl PhyProfile {
    /// DCF inter-frame space: SIFS + 2 slots.
    pub fn difs(&self) -> Duration {
        self.sifs + self.slot + self.slot
    }

    /// Extended IFS, used after a frame that was not received correctly: SIFS + the ACK at
    /// the lowest basic rate + DIFS (802.11-2020 §10.3.2.3.7).
    pub fn eifs(&self) -> Duration {
        self.sifs + self.frame_duration(ACK_BYTES, self.basic_rates_kbps[0]) + self.difs()
    }

    /// The same profile with short (`true`) or long DSSS preambles.
    pub fn with_short_preamble(mut self, short: bool) -> Self {
        self.preamble = if short { Preamble::Short } else { Preamble::Long };
        self
    }

    /// The same profile in `band`: SIFS 10 µs and the 6 µs signal extension in 2.4 GHz, 16 µs
    /// and none in 5 and 6 GHz. The legacy profiles have their one band; 802.11ac is 5 GHz only,
    /// 802.11n 2.4 or 5 GHz, 802.11ax 2.4, 5 or 6 GHz.
    pub fn with_band(mut self, band: Band) -> Result<Self, PhyError> {
        let allowed = match self.format {
            PhyFormat::Legacy => band == self.band,
            format => !mcs::widths(format, band).is_empty(),
        };
        if !allowed {
            let bands: Vec<String> = [Band::Ghz2_4, Band::Ghz5, Band::Ghz6]
                .into_iter()
                .filter(|&b| if self.format == PhyFormat::Legacy { b == self.band } else { !mcs::widths(self.format, b).is_empty() })
                .map(|b| b.to_string())
                .collect();
            return Err(PhyError(format!("{} does not operate in the {band} band (bands: {})", self.name, bands.join(", "))));
        }
        if self.format != PhyFormat::Legacy {
            let g24 = band == Band::Ghz2_4;
            self.sifs = us(if g24 { 10 } else { 16 });
            self.signal_extension = if g24 { us(6) } else { Duration::ZERO };
        }
        self.band = band;
        Ok(self)
    }

    /// The same profile with HE receivers asking `us` of nominal packet padding (0, 8 or 16).
    pub fn with_he_packet_padding(mut self, us: u8) -> Result<Self, PhyError> {
        if ![0, 8, 16].contains(&us) {
            return Err(PhyError(format!("nominal packet padding {us} us is not 0, 8 or 16 us")));
        }
        self.he_packet_padding_us = us;
        Ok(self)
    }

    /// `tx` if this profile can send it (format, band, width, streams, GI, MCS), else an error
    /// that lists what is valid.
    pub fn check_tx(&self, tx: TxVector) -> Result<TxVector, PhyError> {
        let (format, m) = match tx {
            TxVector::Legacy { kbps } => return self.check_rate(kbps).map(|kbps| TxVector::Legacy { kbps }),
            TxVector::Ht(m) => (PhyFormat::Ht, m),
            TxVector::Vht(m) => (PhyFormat::Vht, m),
            TxVector::He(m) => (PhyFormat::He, m),
        };
        if format != self.format {
            return Err(PhyError(format!("{} does not send {format:?} PPDUs", self.name)));
        }
        mcs::check(self.name, format, self.band, m).map(|_| tx)
    }

    /// Checks that `kbps` is one of this PHY's data rates.
    pub fn check_rate(&self, kbps: u32) -> Result<u32, PhyError> {
        if self.format != PhyFormat::Legacy {
            return Err(PhyError(format!("{} sends data at an MCS: give mcs, nss, width and gi instead of a rate", self.name)));
        }
        if self.rates_kbps.contains(&kbps) {
            Ok(kbps)
        } else {
            Err(PhyError(format!(
                "{} has no rate {} (rates: {})",
                self.name,
                format_rate(kbps),
                rate_list(self.rates_kbps)
            )))
        }
    }

    /// Rate of control frames answering or protecting a frame sent at `data_kbps`: the highest
    /// basic rate not above it (the lowest basic rate if all are above).
    pub fn control_rate(&self, data_kbps: u32) -> u32 {
        self.basic_rates_kbps
            .iter()
            .copied()
            .filter(|&r| r <= data_kbps)
            .max()
            .unwrap_or(self.basic_rates_kbps[0])
    }

    /// Airtime of a PPDU carrying an MPDU of `mpdu_bytes` (MAC header and FCS included) at
    /// `rate_kbps`, including preamble, PLCP header and any signal extension.
    pub fn frame_duration(&self, mpdu_bytes: u32, rate_kbps: u32) -> Duration {
        let bits = 8 * mpdu_bytes as u64;
        match self.modulation {
            Modulation::Dsss => {
                // The short preamble is not defined at 1 Mb/s.
                let plcp = match self.preamble {
                    Preamble::Short if rate_kbps > 1_000 => 96,
                    _ => 192,
                };
                // The PLCP LENGTH field counts whole microseconds.
                let body_us = (bits * 1_000).div_ceil(rate_kbps as u64);
                us(plcp + body_us)
            }
            Modulation::Ofdm => {
                let bits_per_symbol = rate_kbps as u64 * 4 / 1_000;
                let symbols = (16 + bits + 6).div_ceil(bits_per_symbol);
                us(20 + 4 * symbols) + self.signal_extension
            }
        }
    }

    /// Airtime of a PPDU carrying a PSDU of `psdu_bytes` (an MPDU with MAC header and FCS, or
    /// a whole A-MPDU) sent with `tx`.
    /// (For VHT and HE, whose PSDU is always an A-MPDU, `psdu_bytes` is the A-MPDU's length
    /// with its delimiters: a single MPDU travels as an S-MPDU with a 4-byte delimiter.)
    pub fn ppdu_duration(&self, psdu_bytes: u32, tx: TxVector) -> Duration {
        match tx {
            TxVector::Legacy { kbps } => self.frame_duration(psdu_bytes, kbps),
            TxVector::Ht(m) => ht::duration(PhyFormat::Ht, psdu_bytes, &m, self.signal_extension),
            TxVector::Vht(m) => ht::duration(PhyFormat::Vht, psdu_bytes, &m, self.signal_extension),
            TxVector::He(m) => he::duration(psdu_bytes, &m, self.he_packet_padding_us, self.signal_extension),
        }
    }

    /// Airtime of the HE TB PPDU a station sends with `tx` in answer to a Basic Trigger
    /// ([`he::tb_duration`]: HE-STF 4 µs longer than HE SU's, no 0.8 µs GI). Only an HE
    /// station is triggered; any other `tx` is timed as [`Self::ppdu_duration`].
    pub fn tb_ppdu_duration(&self, psdu_bytes: u32, tx: TxVector) -> Duration {
        match tx {
            TxVector::He(m) => he::tb_duration(psdu_bytes, &m, self.he_packet_padding_us, self.signal_extension),
            _ => self.ppdu_duration(psdu_bytes, tx),
        }
    }

    /// Non-HT rate (kb/s) of the control frame (ACK, CTS, Block Ack) answering a PPDU sent with
    /// `tx`: the highest basic rate not above its data rate, or for an HT/VHT/HE PPDU not above
    /// the non-HT reference rate of its MCS (802.11-2020 §10.6.6.5.2).
    pub fn response_kbps(&self, tx: TxVector) -> u32 {
        match tx {
            TxVector::Legacy { kbps } => self.control_rate(kbps),
            TxVector::Ht(m) | TxVector::Vht(m) | TxVector::He(m) => self.control_rate(m.non_ht_reference_kbps()),
        }
    }

    /// Nominal data rate of `tx`, bit/s (rounded to the bit/s for the 3.6 µs and 13.6 µs symbols).
    pub fn data_rate_bps(&self, tx: TxVector) -> u64 {
        match tx {
            TxVector::Legacy { kbps } => kbps as u64 * 1_000,
            TxVector::Ht(m) => ht::data_rate_bps(PhyFormat::Ht, &m),
            TxVector::Vht(m) => ht::data_rate_bps(PhyFormat::Vht, &m),
            TxVector::He(m) => he::data_rate_bps(&m),
        }
    }

    /// Airtime of a data frame carrying an IP packet of `ip_bytes` at `rate_kbps`.
    pub fn data_duration(&self, ip_bytes: u32, rate_kbps: u32) -> Duration {
        self.frame_duration(ip_bytes + DATA_OVERHEAD_BYTES, rate_kbps)
    }

    /// Airtime of the ACK (or CTS) answering a frame sent at `data_kbps`.
    pub fn ack_duration(&self, data_kbps: u32) -> Duration {
        self.frame_duration(ACK_BYTES, self.control_rate(data_kbps))
    }

    /// Airtime of an RTS protecting a frame sent at `data_kbps`.
    pub fn rts_duration(&self, data_kbps: u32) -> Duration {
        self.frame_duration(RTS_BYTES, self.control_rate(data_kbps))
    }

    /// Mean backoff before a frame sent with contention window `cw`: `cw / 2` slots.
    pub fn mean_backoff(&self, cw: u32) -> Duration {
        Duration::from_nanos(self.slot.as_nanos() * cw as u64 / 2)
    }

    /// Number of backoff stages `m` of this PHY's contention window ([`backoff_stages`]).
    pub fn backoff_stages(&self) -> u32 {
        backoff_stages(self.cw_min, self.cw_max)
    }
}

/// Number of backoff stages `m` with `cw_max = 2^m (cw_min + 1) − 1` (Bianchi's `m`).
pub fn backoff_stages(cw_min: u32, cw_max: u32) -> u32 {
    let mut m = 0;
    let mut w = cw_min + 1;
    while w < cw_max + 1 {
        w *= 2;
        m += 1;
    }
    m
}

#[cfg(test)]
mod rate_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interframe_spaces() {
        assert_eq!(PHY_80211B.difs(), us(50));
        assert_eq!(PHY_80211A.difs(), us(34));
        assert_eq!(PHY_80211G.difs(), us(28));
        // 802.11a EIFS: 16 + ACK at 6 Mb/s (20 + 4 x ceil((16 + 112 + 6) / 24) = 44) + 34.
        assert_eq!(PHY_80211A.eifs(), us(16 + 44 + 34));
        // 802.11b EIFS: 10 + ACK at 1 Mb/s (192 + 112) + 50 = 364 us.
        assert_eq!(PHY_80211B.eifs(), us(364));
        assert_eq!(PHY_80211A.backoff_stages(), 6);
        assert_eq!(PHY_80211B.backoff_stages(), 5);
    }

    #[test]
    fn ofdm_durations_by_hand() {
        // 1500-byte IP packet: 1536-byte MPDU, 16 + 12288 + 6 = 12310 bits, 216 per symbol at
        // 54 Mb/s: 57 symbols -> 20 + 228 = 248 us.
        assert_eq!(PHY_80211A.data_duration(1500, 54_000), us(248));
        // ACK for 54 Mb/s data at 24 Mb/s: 134 bits / 96 -> 2 symbols -> 28 us.
        assert_eq!(PHY_80211A.control_rate(54_000), 24_000);
        assert_eq!(PHY_80211A.ack_duration(54_000), us(28));
        // 6 Mb/s data is answered at 6 Mb/s: 134 / 24 -> 6 symbols -> 44 us.
        assert_eq!(PHY_80211A.ack_duration(6_000), us(44));
        // 802.11g adds the 6 us extension to every frame.
        assert_eq!(PHY_80211G.data_duration(1500, 54_000), us(254));
    }

    #[test]
    fn dsss_durations_by_hand() {
        // 1500-byte IP packet at 11 Mb/s: 12288 bits / 11 = 1117.09 -> 1118 us + 192.
        assert_eq!(PHY_80211B.data_duration(1500, 11_000), us(1310));
        // Short preamble: 96 us instead of 192.
        assert_eq!(PHY_80211B.with_short_preamble(true).data_duration(1500, 11_000), us(1214));
        // ... but never at 1 Mb/s.
        assert_eq!(PHY_80211B.with_short_preamble(true).frame_duration(14, 1_000), us(304));
        // ACK to 11 Mb/s data at 2 Mb/s: 192 + 56 = 248 us.
        assert_eq!(PHY_80211B.ack_duration(11_000), us(248));
        // 5.5 Mb/s rounds up to the microsecond: 112 bits / 5.5 = 20.36 -> 21 us.
        assert_eq!(PHY_80211B.frame_duration(14, 5_500), us(192 + 21));
        // Seed 003's channel: 1024-byte packet at 2 Mb/s, ACK at 1 Mb/s.
        assert_eq!(PHY_DSSS_2MBPS.data_duration(1024, 2_000), us(192 + (1060 * 8) / 2));
        assert_eq!(PHY_DSSS_2MBPS.ack_duration(2_000), us(304));
    }

    #[test]
    fn rates_are_checked() {
        assert!(PHY_80211A.check_rate(54_000).is_ok());
        let e = PHY_80211A.check_rate(11_000).unwrap_err();
        assert!(e.0.contains("802.11a has no rate 11Mbps") && e.0.contains("54Mbps"), "{e}");
        assert_eq!(format_rate(5_500), "5.5Mbps");
        assert_eq!(find_phy("80211b").unwrap().cw_min, 31);
        assert_eq!(find_phy("80211n"), Some(PHY_80211N));
        assert_eq!(find_phy("80211ax"), Some(PHY_80211AX));
        assert!(find_phy("80211be").is_none());
    }

    #[test]
    fn each_phy_has_one_printed_name_and_the_undotted_one_is_accepted() {
        assert_eq!(phy_names(), ["802.11b", "dsss-2mbps", "802.11a", "802.11g", "802.11n", "802.11ac", "802.11ax"]);
        for p in PHY_PROFILES {
            assert_eq!(find_phy(p.name), Some(p));
            assert_eq!(find_phy(&p.name.replace('.', "")), Some(p), "{}", p.name);
        }
        // Dots elsewhere are not a spelling of any PHY.
        assert!(find_phy("8.0211a").is_none() && find_phy("802.11").is_none() && find_phy("dsss.2mbps").is_none());
    }
}
