//! Airtime of HT-mixed (802.11n) and VHT SU (802.11ac) PPDUs, BCC-coded.
//!
//! TXTIME as 802.11-2020 19.4.3 (HT) and 21.4.3 (VHT) define it, with the timing constants
//! of Table 19-6 and Table 21-5 (all in µs):
//!
//! - HT-mixed: L-STF 8 + L-LTF 8 + L-SIG 4 + HT-SIG 8 + HT-STF 4 + 4 per HT-LTF;
//! - VHT SU: L-STF 8 + L-LTF 8 + L-SIG 4 + VHT-SIG-A 8 + VHT-STF 4 + 4 per VHT-LTF + VHT-SIG-B 4;
//! - then N_SYM data symbols of 4 µs (800 ns GI), or with the 400 ns GI 3.6 µs symbols whose
//!   total is rounded up to a multiple of 4 µs: `4 × ⌈3.6 × N_SYM / 4⌉`;
//! - then the 6 µs signal extension in the 2.4 GHz band.
//!
//! N_SYM = ⌈(8 × LENGTH + 16 + 6 × N_ES) / N_DBPS⌉ (BCC, no STBC; 19.3.11.5, 21.3.10.5):
//! 16 SERVICE bits and 6 tail bits per BCC encoder. LDPC (optional in both) is not modelled.
//! N_LTF for 1, 2, 3, 4 streams: 1, 2, 4, 4 (the N_STS → N_LTF tables of 19.3.9 and 21.3.8).

use super::mcs::{data_subcarriers, Mcs};
use super::PhyFormat;
use crate::time::Duration;

/// Training fields (HT-LTF, VHT-LTF, HE-LTF) for `nss` streams.
pub(crate) fn ltf_count(nss: u8) -> u64 {
    match nss {
        1 => 1,
        2 => 2,
        3 | 4 => 4,
        n => (n as u64).next_multiple_of(2),
    }
}

/// BCC encoders N_ES. HT (19.5): one per 300 Mb/s of the 800 ns-GI rate (two above it).
/// VHT (21.5): one per 540 Mb/s of the 800 ns-GI rate (N_DBPS / 2160), raised where N_DBPS or
/// N_CBPS would not divide evenly; for 1–4 streams that is only MCS 7 at 160 MHz, 4 streams
/// (6 encoders instead of 5).
pub(crate) fn bcc_encoders(format: PhyFormat, m: &Mcs) -> u32 {
    let n_dbps = m.data_bits(data_subcarriers(format, m.width_mhz));
    match format {
        // N_DBPS / 4 µs = rate in Mb/s: > 300 Mb/s ⇔ N_DBPS > 1200.
        PhyFormat::Ht => n_dbps.div_ceil(1200),
        _ if (m.mcs, m.nss, m.width_mhz) == (7, 4, 160) => 6,
        _ => n_dbps.div_ceil(2160),
    }
}

/// Airtime of an HT-mixed or VHT SU PPDU carrying `psdu_bytes` with `m`, plus `signal_extension`.
pub(crate) fn duration(format: PhyFormat, psdu_bytes: u32, m: &Mcs, signal_extension: Duration) -> Duration {
    let n_dbps = m.data_bits(data_subcarriers(format, m.width_mhz)) as u64;
    let n_es = bcc_encoders(format, m) as u64;
    let n_sym = (8 * psdu_bytes as u64 + 16 + 6 * n_es).div_ceil(n_dbps);
    // 400 ns GI: 3.6 µs symbols, the data field rounded up to whole 4 µs.
    let data_us = if m.gi_ns == 400 { 4 * (9 * n_sym).div_ceil(10) } else { 4 * n_sym };
    let preamble_us = match format {
        PhyFormat::Ht => 8 + 8 + 4 + 8 + 4 + 4 * ltf_count(m.nss),
        _ => 8 + 8 + 4 + 8 + 4 + 4 * ltf_count(m.nss) + 4,
    };
    Duration::from_micros(preamble_us + data_us) + signal_extension
}

/// Data rate of `m`, bit/s (N_DBPS over a 4 µs or 3.6 µs symbol), rounded to the nearest bit/s.
pub(crate) fn data_rate_bps(format: PhyFormat, m: &Mcs) -> u64 {
    let n_dbps = m.data_bits(data_subcarriers(format, m.width_mhz)) as u64;
    let symbol_ns = if m.gi_ns == 400 { 3_600 } else { 4_000 };
    (n_dbps * 1_000_000_000 + symbol_ns / 2) / symbol_ns
}
