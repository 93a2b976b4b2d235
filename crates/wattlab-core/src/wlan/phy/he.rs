//! Airtime of HE SU (802.11ax) PPDUs, LDPC-coded, with pre-FEC padding and packet extension,
//! and of the HE TB PPDU a triggered station answers with ([`tb_duration`]).
//!
//! TXTIME (IEEE 802.11ax-2021 27.4.3) = 20 µs (L-STF, L-LTF, L-SIG) + RL-SIG 4 + HE-SIG-A 8 +
//! HE-STF 4 + N_HE-LTF × (HE-LTF + GI) + N_SYM × (12.8 µs + GI) + T_PE + signal extension
//! (6 µs in 2.4 GHz). Timing constants of Table 27-12.
//!
//! - HE-LTF type per GI (the HE-SIG-A "GI+LTF Size" pairs of an SU PPDU without DCM/STBC):
//!   0.8 µs GI with 2x HE-LTF (6.4 µs), 1.6 µs with 2x, 3.2 µs with 4x (12.8 µs).
//! - LDPC coding: mandatory above 20 MHz and for MCS 10–11 (BCC is allowed only up to 20 MHz,
//!   MCS 9, 4 streams), used by HE devices at every width, so the one code modelled. N_SYM and
//!   the pre-FEC padding factor `a` follow 27.3.12 (pre-FEC padding), including the LDPC extra
//!   symbol segment decided by the LDPC encoding process of 19.3.11.7.5.
//! - Packet extension (27.3.13): T_PE = max(0, nominal − 4 µs × (4 − a)) for the receiver's
//!   nominal packet padding of 0, 8 or 16 µs ([`super::PhyProfile::he_packet_padding_us`]).

use super::ht::ltf_count;
use super::mcs::{data_subcarriers, Mcs};
use super::PhyFormat;
use crate::time::Duration;

/// Data subcarriers of the short (quarter) last-symbol segment N_SD,short per width
/// (27.3.12: RU 242 → 60, 484 → 120, 996 → 240, 2×996 → 492).
fn short_subcarriers(width_mhz: u16) -> u32 {
    match width_mhz {
        20 => 60,
        40 => 120,
        80 => 240,
        _ => 492,
    }
}

/// Whether LDPC encoding of `n_pld` payload bits into `n_avbits` available bits at rate
/// num/den needs the extra symbol segment (802.11-2020 19.3.11.7.5: codewords, shortening and
/// puncturing, and its test on the punctured bits), exactly in integers: every term is scaled by `den`.
fn ldpc_extra_segment(n_pld: u64, n_avbits: u64, num: u64, den: u64) -> bool {
    let parity = den - num; // (1 − R) × den
    // Codeword count and length (the PPDU encoding parameters table of 19.3.11.7.5).
    let fits = |extra: u64| den * n_avbits >= den * n_pld + extra * parity;
    let (n_cw, l_ldpc) = match n_avbits {
        0..=648 => (1, if fits(912) { 1296 } else { 648 }),
        649..=1296 => (1, if fits(1464) { 1944 } else { 1296 }),
        1297..=1944 => (1, 1944),
        1945..=2592 => (2, if fits(2916) { 1944 } else { 1296 }),
        _ => ((n_pld * den).div_ceil(1944 * num), 1944),
    };
    let n_shrt = (n_cw * l_ldpc * num / den).saturating_sub(n_pld);
    let n_punc = (n_cw * l_ldpc).saturating_sub(n_avbits + n_shrt);
    let parity_bits = n_cw * l_ldpc * parity; // N_CW × L_LDPC × (1 − R) × den
    (10 * n_punc * den > parity_bits && 10 * n_shrt * parity < 12 * n_punc * num) || 10 * n_punc * den > 3 * parity_bits
}

/// Data symbols N_SYM and pre-FEC padding factor `a` (1–4) of an HE SU PPDU of `psdu_bytes`
/// (APEP_LENGTH) sent with `m` (27.3.12; m_STBC = 1, N_tail = 0 for LDPC).
pub(crate) fn symbols_and_padding(psdu_bytes: u32, m: &Mcs) -> (u64, u64) {
    let (n_sd, n_sd_short) = (data_subcarriers(PhyFormat::He, m.width_mhz), short_subcarriers(m.width_mhz));
    let (n_cbps, n_dbps) = (m.coded_bits(n_sd) as u64, m.data_bits(n_sd) as u64);
    let (n_cbps_short, n_dbps_short) = (m.coded_bits(n_sd_short) as u64, m.data_bits(n_sd_short) as u64);
    let bits = 8 * psdu_bytes as u64 + 16; // APEP_LENGTH bits + SERVICE
    let n_sym_init = bits.div_ceil(n_dbps);
    let n_excess = bits % n_dbps;
    let a_init = if n_excess == 0 { 4 } else { n_excess.div_ceil(n_dbps_short).min(4) };
    let (dbps_last, cbps_last) = if a_init == 4 { (n_dbps, n_cbps) } else { (a_init * n_dbps_short, a_init * n_cbps_short) };
    let n_pld = (n_sym_init - 1) * n_dbps + dbps_last;
    let n_avbits = (n_sym_init - 1) * n_cbps + cbps_last;
    let (_, num, den) = m.modulation();
    if !ldpc_extra_segment(n_pld, n_avbits, num as u64, den as u64) {
        (n_sym_init, a_init)
    } else if a_init == 4 {
        (n_sym_init + 1, 1)
    } else {
        (n_sym_init, a_init + 1)
    }
}

/// HE-LTF symbol (HE-LTF plus its GI), ns: 2x HE-LTF (6.4 µs) with the 0.8 and 1.6 µs GIs,
/// 4x (12.8 µs) with 3.2 µs.
pub(crate) fn ltf_symbol_ns(gi_ns: u16) -> u64 {
    let ltf = if gi_ns == 3200 { 12_800 } else { 6_400 };
    ltf + gi_ns as u64
}

/// Packet extension T_PE, µs, for nominal packet padding `nominal_us` (0, 8, 16) and pre-FEC
/// padding factor `a` (27.3.13: 16 µs → 4a µs; 8 µs → 0, 0, 4, 8; 0 µs → 0).
pub(crate) fn packet_extension_us(nominal_us: u8, a: u64) -> u64 {
    (nominal_us as u64).saturating_sub(4 * (4 - a))
}

/// Airtime of an HE SU PPDU carrying `psdu_bytes` with `m`, for a receiver asking
/// `padding_us` of nominal packet padding, plus `signal_extension`.
pub(crate) fn duration(psdu_bytes: u32, m: &Mcs, padding_us: u8, signal_extension: Duration) -> Duration {
    ppdu_duration(psdu_bytes, m, HE_STF_NT_US, padding_us, signal_extension)
}

/// HE-STF of an HE SU, ER SU or MU PPDU, µs (T_HE-STF-NT, Table 27-12).
const HE_STF_NT_US: u64 = 4;

/// HE-STF of an HE TB PPDU, µs (T_HE-STF-T, Table 27-12): twice the other formats' (its
/// periodicity is 1.6 µs instead of 0.8 µs, for uplink power and timing set by each sender).
const HE_STF_T_US: u64 = 8;

/// Guard interval of the HE TB PPDU a station set to `gi_ns` sends in answer to a Basic
/// Trigger: an HE TB PPDU has no 0.8 µs GI (the Trigger frame's GI And HE-LTF Type field offers
/// 1x HE-LTF + 1.6 µs, 2x HE-LTF + 1.6 µs and 4x HE-LTF + 3.2 µs, 802.11ax-2021 §9.3.1.22), so
/// the AP is taken to ask for 2x HE-LTF + 1.6 µs GI for a station using 0.8 µs (the same HE-LTF
/// size, the shortest GI it can), and for the station's own GI otherwise.
pub fn tb_gi_ns(gi_ns: u16) -> u16 {
    gi_ns.max(1_600)
}

/// Airtime of an HE TB PPDU (27.4.3: TXTIME as for HE SU with T_HE-STF-T = 8 µs for the
/// HE-STF) carrying `psdu_bytes` with `m` on the whole channel (one station per trigger: its
/// RU is the 242-, 484-, 996- or 2×996-tone RU of the width, the SU PPDU's data subcarriers),
/// at the GI of [`tb_gi_ns`]. N_SYM and the pre-FEC padding factor are the SU PPDU's: the AP
/// knows the station's payload and sets the trigger's UL Length to fit it.
pub(crate) fn tb_duration(psdu_bytes: u32, m: &Mcs, padding_us: u8, signal_extension: Duration) -> Duration {
    let m = Mcs { gi_ns: tb_gi_ns(m.gi_ns), ..*m };
    ppdu_duration(psdu_bytes, &m, HE_STF_T_US, padding_us, signal_extension)
}

/// TXTIME = 20 µs (L-STF, L-LTF, L-SIG) + RL-SIG 4 + HE-SIG-A 8 + HE-STF + HE-LTFs + data
/// symbols + T_PE + signal extension.
fn ppdu_duration(psdu_bytes: u32, m: &Mcs, he_stf_us: u64, padding_us: u8, signal_extension: Duration) -> Duration {
    let (n_sym, a) = symbols_and_padding(psdu_bytes, m);
    let preamble_ns = (20 + 4 + 8 + he_stf_us) * 1_000 + ltf_count(m.nss) * ltf_symbol_ns(m.gi_ns);
    let data_ns = n_sym * (12_800 + m.gi_ns as u64);
    Duration::from_nanos(preamble_ns + data_ns + 1_000 * packet_extension_us(padding_us, a)) + signal_extension
}

/// Data rate of `m`, bit/s: N_DBPS over a 12.8 µs + GI symbol, rounded to the nearest bit/s.
pub(crate) fn data_rate_bps(m: &Mcs) -> u64 {
    let n_dbps = m.data_bits(data_subcarriers(PhyFormat::He, m.width_mhz)) as u64;
    let symbol_ns = 12_800 + m.gi_ns as u64;
    (n_dbps * 1_000_000_000 + symbol_ns / 2) / symbol_ns
}
