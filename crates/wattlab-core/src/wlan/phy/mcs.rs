//! HT, VHT and HE modulation and coding schemes: what each MCS index means, how many data bits
//! an OFDM symbol carries at a width and stream count, and which combinations exist.
//!
//! Sources: IEEE 802.11-2020 19.5 (HT-MCS tables, equal modulation), 21.5 (VHT-MCS tables),
//! IEEE 802.11ax-2021 27.5 (HE-MCS tables); data subcarriers per width from Table 19-6 (HT),
//! Table 21-5 (VHT) and 27.3.12 (HE RU sizes: 242, 484, 996, 2×996 tones).

use super::{Band, PhyError, PhyFormat};

/// Rate parameters of one HT, VHT or HE PPDU (the MCS part of ns-3's `WifiTxVector`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mcs {
    /// Modulation and coding index of each stream: 0–7 for HT (the HT-MCS index is
    /// `8 × (nss − 1) + mcs`, equal modulation), 0–9 for VHT, 0–11 for HE.
    pub mcs: u8,
    /// Spatial streams, 1–4.
    pub nss: u8,
    /// Channel width, MHz: 20, 40, 80 or 160.
    pub width_mhz: u16,
    /// Guard interval, ns: 800 or 400 (HT, VHT); 800, 1600 or 3200 (HE).
    pub gi_ns: u16,
}

/// Bits per subcarrier per stream (N_BPSCS) and coding rate (numerator, denominator) of MCS
/// 0–11: BPSK 1/2, QPSK 1/2, QPSK 3/4, 16-QAM 1/2, 16-QAM 3/4, 64-QAM 2/3, 64-QAM 3/4,
/// 64-QAM 5/6, 256-QAM 3/4, 256-QAM 5/6, 1024-QAM 3/4, 1024-QAM 5/6 (the same per-stream
/// modulations in HT, VHT and HE).
const MODULATION: [(u32, u32, u32); 12] =
    [(1, 1, 2), (2, 1, 2), (2, 3, 4), (4, 1, 2), (4, 3, 4), (6, 2, 3), (6, 3, 4), (6, 5, 6), (8, 3, 4), (8, 5, 6), (10, 3, 4), (10, 5, 6)];

/// Non-HT reference rate (kb/s) of MCS 0–11 (802.11-2020 §10.6.6.5.2): the 802.11a rate with
/// the same modulation and coding rate; 64-QAM 5/6 and every higher constellation map to 54 Mb/s.
const NON_HT_REFERENCE_KBPS: [u32; 12] = [6_000, 12_000, 18_000, 24_000, 36_000, 48_000, 54_000, 54_000, 54_000, 54_000, 54_000, 54_000];

/// Stream counts the profiles accept (1–4; 802.11ac/ax allow up to 8, rarely built).
pub const MAX_NSS: u8 = 4;

impl Mcs {
    /// N_BPSCS, R = num / den of this MCS.
    pub(crate) fn modulation(&self) -> (u32, u32, u32) {
        MODULATION[self.mcs as usize]
    }

    /// "64-QAM 5/6", for messages and tables.
    pub fn modulation_name(&self) -> String {
        let (bits, num, den) = self.modulation();
        let m = match bits {
            1 => "BPSK".to_string(),
            2 => "QPSK".to_string(),
            b => format!("{}-QAM", 1u32 << b),
        };
        format!("{m} {num}/{den}")
    }

    /// The non-HT reference rate of this MCS, kb/s (§10.6.6.5.2).
    pub fn non_ht_reference_kbps(&self) -> u32 {
        NON_HT_REFERENCE_KBPS[self.mcs as usize]
    }

    /// Coded bits per OFDM symbol N_CBPS = N_SD × N_BPSCS × N_SS for `n_sd` data subcarriers.
    pub(crate) fn coded_bits(&self, n_sd: u32) -> u32 {
        n_sd * self.modulation().0 * self.nss as u32
    }

    /// Data bits per OFDM symbol N_DBPS = N_CBPS × R (rounded down: HE-MCS 10/11 at 996 and
    /// 2×996 tones give a fraction, which 802.11ax-2021's tables round down).
    pub(crate) fn data_bits(&self, n_sd: u32) -> u32 {
        let (_, num, den) = self.modulation();
        self.coded_bits(n_sd) * num / den
    }
}

/// Data subcarriers N_SD of `format` at `width_mhz` (0 if the format has no such width).
pub(crate) fn data_subcarriers(format: PhyFormat, width_mhz: u16) -> u32 {
    match (format, width_mhz) {
        (PhyFormat::Ht | PhyFormat::Vht, 20) => 52,
        (PhyFormat::Ht | PhyFormat::Vht, 40) => 108,
        (PhyFormat::Vht, 80) => 234,
        (PhyFormat::Vht, 160) => 468,
        (PhyFormat::He, 20) => 234,
        (PhyFormat::He, 40) => 468,
        (PhyFormat::He, 80) => 980,
        (PhyFormat::He, 160) => 1960,
        _ => 0,
    }
}

/// Highest MCS index of each format.
fn max_mcs(format: PhyFormat) -> u8 {
    match format {
        PhyFormat::Ht => 7,
        PhyFormat::Vht => 9,
        PhyFormat::He => 11,
        PhyFormat::Legacy => 0,
    }
}

/// Channel widths `format` may use in `band`: HT 20/40, VHT 20–160 (5 GHz only), HE 20–160
/// (20/40 in 2.4 GHz).
pub fn widths(format: PhyFormat, band: Band) -> &'static [u16] {
    match (format, band) {
        (PhyFormat::Ht, Band::Ghz2_4 | Band::Ghz5) => &[20, 40],
        (PhyFormat::Vht, Band::Ghz5) => &[20, 40, 80, 160],
        (PhyFormat::He, Band::Ghz2_4) => &[20, 40],
        (PhyFormat::He, Band::Ghz5 | Band::Ghz6) => &[20, 40, 80, 160],
        _ => &[],
    }
}

/// Guard intervals of `format`, ns.
pub fn guard_intervals(format: PhyFormat) -> &'static [u16] {
    match format {
        PhyFormat::Ht | PhyFormat::Vht => &[800, 400],
        PhyFormat::He => &[800, 1600, 3200],
        PhyFormat::Legacy => &[],
    }
}

/// VHT (MCS, NSS, width) combinations 802.11-2020 21.5 excludes (for 1–4 streams), because
/// N_DBPS or N_CBPS is not a multiple of the number of BCC encoders there: MCS 9 at 20 MHz
/// with 1, 2 or 4 streams, MCS 6 at 80 MHz with 3, MCS 9 at 160 MHz with 3.
fn vht_excluded(mcs: u8, nss: u8, width_mhz: u16) -> bool {
    matches!((mcs, nss, width_mhz), (9, 1 | 2 | 4, 20) | (6, 3, 80) | (9, 3, 160))
}

/// MCS indices of `format` valid with `nss` streams at `width_mhz`.
pub fn valid_mcs(format: PhyFormat, nss: u8, width_mhz: u16) -> Vec<u8> {
    (0..=max_mcs(format)).filter(|&m| !(format == PhyFormat::Vht && vht_excluded(m, nss, width_mhz))).collect()
}

/// `[0, 1, 2, 5]` → `0-2, 5`.
pub fn ranges(v: &[u8]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if j == i { v[i].to_string() } else { format!("{}-{}", v[i], v[j]) });
        i = j + 1;
    }
    out.join(", ")
}

fn list(v: &[u16]) -> String {
    v.iter().map(u16::to_string).collect::<Vec<_>>().join(", ")
}

/// `m` if `format` in `band` can send it, else an error that says what is valid.
pub fn check(name: &str, format: PhyFormat, band: Band, m: Mcs) -> Result<Mcs, PhyError> {
    let err = |s: String| Err(PhyError(s));
    let ws = widths(format, band);
    if ws.is_empty() {
        return err(format!("{name} does not operate in the {band} band"));
    }
    if !ws.contains(&m.width_mhz) {
        return err(format!("{name} has no {} MHz channels in the {band} band (widths: {} MHz)", m.width_mhz, list(ws)));
    }
    if !(1..=MAX_NSS).contains(&m.nss) {
        return err(format!("{name}: {} spatial streams is not modelled (nss: 1-{MAX_NSS})", m.nss));
    }
    let gis = guard_intervals(format);
    if !gis.contains(&m.gi_ns) {
        return err(format!("{name} has no {} ns guard interval (gi: {} ns)", m.gi_ns, list(gis)));
    }
    let valid = valid_mcs(format, m.nss, m.width_mhz);
    if !valid.contains(&m.mcs) {
        let ss = if m.nss == 1 { "stream" } else { "streams" };
        return err(format!(
            "{name} has no MCS {} at {} MHz with {} {ss} (valid MCS at {} MHz, {} SS: {})",
            m.mcs,
            m.width_mhz,
            m.nss,
            m.width_mhz,
            m.nss,
            ranges(&valid)
        ));
    }
    Ok(m)
}
