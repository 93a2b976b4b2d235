//! HT/VHT/HE rates and PPDU durations against hand computation from the standard's formulas.

use super::*;
use crate::time::Duration;

fn m(mcs: u8, nss: u8, width_mhz: u16, gi_ns: u16) -> Mcs {
    Mcs { mcs, nss, width_mhz, gi_ns }
}

fn ns(n: u64) -> Duration {
    Duration::from_nanos(n)
}

/// `phy` in `band`, `tx` checked valid, then its PPDU airtime for `bytes`.
fn airtime(phy: PhyProfile, band: Band, bytes: u32, tx: TxVector) -> Duration {
    let p = phy.with_band(band).unwrap();
    p.ppdu_duration(bytes, p.check_tx(tx).unwrap())
}

#[test]
fn ht_durations_by_hand() {
    let g5 = Band::Ghz5;
    // HT-mixed preamble: L-STF 8 + L-LTF 8 + L-SIG 4 + HT-SIG 8 + HT-STF 4 + 4 per HT-LTF.
    // MCS 7, 1 SS, 20 MHz, 800 ns, 1538 B: N_DBPS = 52 x 6 x 5/6 = 260, N_ES = 1;
    // N_SYM = ceil((8 x 1538 + 16 + 6) / 260) = ceil(12326 / 260) = 48 -> 192 us; 36 + 192 = 228.
    assert_eq!(airtime(PHY_80211N, g5, 1538, TxVector::Ht(m(7, 1, 20, 800))), us(228));
    // MCS 7, 1 SS, 40 MHz, 400 ns: N_DBPS = 108 x 6 x 5/6 = 540; N_SYM = ceil(12326 / 540) = 23;
    // 3.6 x 23 = 82.8 us rounded up to 4 us: 4 x ceil(20.7) = 84; 36 + 84 = 120.
    assert_eq!(airtime(PHY_80211N, g5, 1538, TxVector::Ht(m(7, 1, 40, 400))), us(120));
    // ... and in 2.4 GHz the 6 us signal extension follows: 126.
    assert_eq!(airtime(PHY_80211N, Band::Ghz2_4, 1538, TxVector::Ht(m(7, 1, 40, 400))), us(126));
    // HT-MCS 15 (MCS 7, 2 SS), 40 MHz, 800 ns: N_DBPS = 1080 (270 Mb/s, N_ES = 1);
    // N_SYM = ceil(12326 / 1080) = 12 -> 48 us; preamble 32 + 2 HT-LTFs x 4 = 40; total 88.
    assert_eq!(airtime(PHY_80211N, g5, 1538, TxVector::Ht(m(7, 2, 40, 800))), us(88));
    // HT-MCS 21 (64-QAM 2/3, 3 SS), 40 MHz, 800 ns, 1000 B: N_DBPS = 108 x 6 x 3 x 2/3 = 1296
    // (324 Mb/s > 300: N_ES = 2); N_SYM = ceil((8000 + 16 + 12) / 1296) = ceil(6.19) = 7 -> 28;
    // 3 SS -> 4 HT-LTFs: preamble 32 + 16 = 48; total 76.
    assert_eq!(airtime(PHY_80211N, g5, 1000, TxVector::Ht(m(5, 3, 40, 800))), us(76));
    // MCS 0, 1 SS, 20 MHz, 800 ns, 100 B: N_DBPS = 26; N_SYM = ceil(822 / 26) = 32 -> 128; 164.
    assert_eq!(airtime(PHY_80211N, g5, 100, TxVector::Ht(m(0, 1, 20, 800))), us(164));
}

#[test]
fn vht_durations_by_hand() {
    let g5 = Band::Ghz5;
    // VHT SU preamble: 8 + 8 + 4 + VHT-SIG-A 8 + VHT-STF 4 + 4 per VHT-LTF + VHT-SIG-B 4.
    // MCS 9, 2 SS, 80 MHz, 400 ns, 1538 B: N_DBPS = 234 x 8 x 2 x 5/6 = 3120,
    // N_ES = ceil(3120 / 2160) = 2; N_SYM = ceil((12304 + 16 + 12) / 3120) = ceil(3.95) = 4;
    // 4 x ceil(3.6 x 4 / 4) = 16 us; preamble 36 + 2 x 4 = 44; total 60.
    assert_eq!(airtime(PHY_80211AC, g5, 1538, TxVector::Vht(m(9, 2, 80, 400))), us(60));
    // MCS 8, 1 SS, 20 MHz, 800 ns: N_DBPS = 52 x 8 x 3/4 = 312; N_SYM = ceil(12326 / 312) = 40
    // -> 160; preamble 40; total 200.
    assert_eq!(airtime(PHY_80211AC, g5, 1538, TxVector::Vht(m(8, 1, 20, 800))), us(200));
    // MCS 7, 4 SS, 160 MHz, 800 ns, 1164 B: N_DBPS = 468 x 6 x 4 x 5/6 = 9360, N_ES = 6 (the
    // standard's exception; 5 would leave N_CBPS = 11232 indivisible). 8 x 1164 + 16 + 36 = 9364
    // > 9360 -> N_SYM = 2 (with N_ES = 5 it would be 9358 -> 1) -> 8 us; preamble 36 + 16 = 52; 60.
    assert_eq!(airtime(PHY_80211AC, g5, 1164, TxVector::Vht(m(7, 4, 160, 800))), us(60));
    // MCS 0, 1 SS, 20 MHz, 400 ns, 40 B: N_SYM = ceil((320 + 22) / 26) = 14;
    // 4 x ceil(3.6 x 14 / 4) = 4 x ceil(12.6) = 52; preamble 40; total 92.
    assert_eq!(airtime(PHY_80211AC, g5, 40, TxVector::Vht(m(0, 1, 20, 400))), us(92));
}

#[test]
fn he_tb_durations_by_hand() {
    let g5 = Band::Ghz5;
    let tb = |bytes, tx| PHY_80211AX.with_band(g5).unwrap().tb_ppdu_duration(bytes, tx);
    // HE TB (802.11ax-2021 27.4.3, Table 27-12): 20 + RL-SIG 4 + HE-SIG-A 8 + HE-STF 8 = 40 us
    // before the HE-LTFs, 4 us more than HE SU; no 0.8 us GI (the trigger's GI And HE-LTF
    // Type), so a 0.8 us station answers with 2x HE-LTF + 1.6 us GI.
    // MCS 7, 1 SS, 20 MHz, 0.8 -> 1.6 us, 1538 B: N_SYM = 11, a = 3 as for HE SU (above);
    // 40 + (6.4 + 1.6) + 11 x 14.4 = 206.4 us (HE SU: 192.8 us).
    assert_eq!(tb(1538, TxVector::He(m(7, 1, 20, 800))), ns(206_400));
    assert_eq!(airtime(PHY_80211AX, g5, 1538, TxVector::He(m(7, 1, 20, 800))), ns(192_800));
    // 1.6 us GI kept: the same PPDU as above; HE SU with 1.6 us: 36 + 8 + 158.4 = 202.4 us.
    assert_eq!(tb(1538, TxVector::He(m(7, 1, 20, 1600))), ns(206_400));
    assert_eq!(airtime(PHY_80211AX, g5, 1538, TxVector::He(m(7, 1, 20, 1600))), ns(202_400));
    // MCS 0, 1 SS, 20 MHz, 3.2 us, 100 B (HE SU 180 us, above): only the HE-STF differs, 184 us.
    assert_eq!(tb(100, TxVector::He(m(0, 1, 20, 3200))), us(184));
    // A non-HE vector is timed as its own PPDU (only HE stations are triggered).
    let legacy = TxVector::Legacy { kbps: 6_000 };
    assert_eq!(tb(100, legacy), PHY_80211AX.with_band(g5).unwrap().ppdu_duration(100, legacy));
    assert_eq!((he::tb_gi_ns(800), he::tb_gi_ns(1600), he::tb_gi_ns(3200)), (1600, 1600, 3200));
}

#[test]
fn he_durations_by_hand() {
    let g5 = Band::Ghz5;
    // HE SU: 20 (L-STF, L-LTF, L-SIG) + RL-SIG 4 + HE-SIG-A 8 + HE-STF 4 = 36 us, then HE-LTFs
    // (2x: 6.4 + GI; 4x with 3.2 us GI: 12.8 + 3.2), data symbols of 12.8 us + GI, PE.
    //
    // MCS 7, 1 SS, 20 MHz, 0.8 us, 1538 B: N_CBPS = 234 x 6 = 1404, N_DBPS = 1170,
    // N_CBPS,short = 60 x 6 = 360, N_DBPS,short = 300. Bits 8 x 1538 + 16 = 12320:
    // N_SYM,init = ceil(12320 / 1170) = 11, N_excess = 12320 - 10 x 1170 = 620,
    // a_init = ceil(620 / 300) = 3. N_pld = 10 x 1170 + 3 x 300 = 12600,
    // N_avbits = 10 x 1404 + 3 x 360 = 15120. LDPC: N_CW = ceil(12600 / 1620) = 8, L = 1944,
    // N_shrt = 12960 - 12600 = 360, N_punc = 15552 - 15120 - 360 = 72 <= 0.1 x 8 x 1944 / 6
    // = 259.2: no extra symbol. 36 + 7.2 + 11 x 13.6 = 192.8 us.
    assert_eq!(airtime(PHY_80211AX, g5, 1538, TxVector::He(m(7, 1, 20, 800))), ns(192_800));
    // MCS 11, 2 SS, 80 MHz, 0.8 us, 1538 B: N_CBPS = 980 x 10 x 2 = 19600,
    // N_DBPS = floor(19600 x 5/6) = 16333, N_DBPS,short = 240 x 10 x 2 x 5/6 = 4000.
    // N_SYM,init = 1, N_excess = 12320, a_init = min(ceil(3.08), 4) = 4: N_pld = 16333,
    // N_avbits = 19600; N_CW = ceil(16333 / 1620) = 11, N_shrt = 17820 - 16333 = 1487,
    // N_punc = 21384 - 19600 - 1487 = 297 <= 0.1 x 21384 / 6 = 356.4: no extra.
    // 36 + 2 x 7.2 + 13.6 = 64.0 us.
    let he11 = TxVector::He(m(11, 2, 80, 800));
    assert_eq!(airtime(PHY_80211AX, g5, 1538, he11), us(64));
    // ... with 16 us nominal packet padding, a = 4 -> T_PE = 16: 80.0 us; with 8 us -> 8: 72.
    let padded = |pad| PHY_80211AX.with_he_packet_padding(pad).unwrap().ppdu_duration(1538, he11);
    assert_eq!((padded(16), padded(8)), (us(80), us(72)));
    // MCS 0, 1 SS, 20 MHz, 3.2 us, 100 B: N_CBPS = 234, N_DBPS = 117, short 60 / 30.
    // Bits 816: N_SYM,init = ceil(816 / 117) = 7, N_excess = 816 - 702 = 114,
    // a_init = ceil(114 / 30) = 4: N_pld = 819, N_avbits = 7 x 234 = 1638 (1297..1944: one
    // 1944-bit codeword). N_shrt = 972 - 819 = 153, N_punc = 1944 - 1638 - 153 = 153 >
    // 0.1 x 1944 x 1/2 = 97.2 and N_shrt = 153 < 1.2 x 153 x 1 = 183.6: LDPC extra symbol,
    // a_init = 4 -> N_SYM = 8, a = 1. 36 + 1 x (12.8 + 3.2) + 8 x 16.0 = 180 us;
    // with 16 us nominal padding T_PE = 4 x 1 = 4: 184; with 8 us: 8 - 4 x 3 < 0 -> 0: 180.
    let he0 = TxVector::He(m(0, 1, 20, 3200));
    assert_eq!(airtime(PHY_80211AX, g5, 100, he0), us(180));
    assert_eq!(PHY_80211AX.with_he_packet_padding(16).unwrap().ppdu_duration(100, he0), us(184));
    assert_eq!(PHY_80211AX.with_he_packet_padding(8).unwrap().ppdu_duration(100, he0), us(180));
    assert_eq!(he::symbols_and_padding(100, &m(0, 1, 20, 3200)), (8, 1));
    // MCS 5, 2 SS, 40 MHz, 1.6 us, 500 B, 2.4 GHz: N_CBPS = 468 x 6 x 2 = 5616,
    // N_DBPS = 3744, short 1440 / 960. Bits 4016: N_SYM,init = 2, N_excess = 272, a_init = 1;
    // N_pld = 3744 + 960 = 4704, N_avbits = 5616 + 1440 = 7056; N_CW = ceil(4704 / 1296) = 4,
    // N_shrt = 5184 - 4704 = 480, N_punc = 7776 - 7056 - 480 = 240 <= 0.1 x 7776 / 3 = 259.2:
    // no extra. 36 + 2 x (6.4 + 1.6) + 2 x 14.4 + 6 (signal extension) = 86.8 us.
    assert_eq!(airtime(PHY_80211AX, Band::Ghz2_4, 500, TxVector::He(m(5, 2, 40, 1600))), ns(86_800));
    // MCS 9, 1 SS, 160 MHz, 0.8 us, 3000 B, 6 GHz: N_CBPS = 1960 x 8 = 15680,
    // N_DBPS = floor(13066.7) = 13066, short 492 x 8 = 3936 / 3280. Bits 24016:
    // N_SYM,init = 2, N_excess = 10950, a_init = 4: N_pld = 26132, N_avbits = 31360;
    // N_CW = ceil(26132 / 1620) = 17, N_shrt = 27540 - 26132 = 1408,
    // N_punc = 33048 - 31360 - 1408 = 280 <= 0.1 x 33048 / 6 = 550.8: no extra.
    // 36 + 7.2 + 2 x 13.6 = 70.4 us.
    assert_eq!(airtime(PHY_80211AX, Band::Ghz6, 3000, TxVector::He(m(9, 1, 160, 800))), ns(70_400));
}

#[test]
fn rate_tables() {
    let rate = |p: PhyProfile, tx| p.data_rate_bps(tx);
    // 802.11-2020 19.5: MCS 7, 20 MHz, 800 ns = 65 Mb/s; 40 MHz, 400 ns = 150 Mb/s;
    // HT-MCS 31 (4 SS) 40 MHz 400 ns = 600 Mb/s.
    assert_eq!(rate(PHY_80211N, TxVector::Ht(m(7, 1, 20, 800))), 65_000_000);
    assert_eq!(rate(PHY_80211N, TxVector::Ht(m(7, 1, 40, 400))), 150_000_000);
    assert_eq!(rate(PHY_80211N, TxVector::Ht(m(7, 4, 40, 400))), 600_000_000);
    // 21.5: VHT-MCS 9, 80 MHz, 2 SS, 400 ns = 3120 / 3.6 us = 866.7 Mb/s; 160 MHz 1 SS same.
    assert_eq!(rate(PHY_80211AC, TxVector::Vht(m(9, 2, 80, 400))), 866_666_667);
    assert_eq!(rate(PHY_80211AC, TxVector::Vht(m(9, 1, 160, 400))), 866_666_667);
    assert_eq!(rate(PHY_80211AC, TxVector::Vht(m(0, 1, 20, 800))), 6_500_000);
    // 802.11ax-2021 27.5: HE-MCS 11, 80 MHz, 2 SS, 0.8 us = 16333 / 13.6 us = 1201.0 Mb/s;
    // HE-MCS 7, 20 MHz, 1 SS, 0.8 us = 1170 / 13.6 = 86.0 Mb/s; HE-MCS 11, 160 MHz, 2 SS =
    // 2402 Mb/s; HE-MCS 0, 20 MHz, 3.2 us = 117 / 16 us = 7.3 Mb/s; HE-MCS 11 80 MHz 1 SS = 600.4.
    assert_eq!(rate(PHY_80211AX, TxVector::He(m(11, 2, 80, 800))) / 100_000, 12_009);
    assert_eq!(rate(PHY_80211AX, TxVector::He(m(7, 1, 20, 800))) / 100_000, 860);
    assert_eq!(rate(PHY_80211AX, TxVector::He(m(11, 2, 160, 800))) / 100_000, 24_019);
    assert_eq!(rate(PHY_80211AX, TxVector::He(m(0, 1, 20, 3200))), 7_312_500);
    assert_eq!(rate(PHY_80211AX, TxVector::He(m(11, 1, 80, 800))) / 100_000, 6_004);
    assert_eq!(m(11, 1, 20, 800).modulation_name(), "1024-QAM 5/6");
    assert_eq!(m(0, 1, 20, 800).modulation_name(), "BPSK 1/2");
}

#[test]
fn responses_go_at_the_basic_rate_below_the_non_ht_reference_rate() {
    // Reference rates: MCS 0 -> 6, MCS 2 (QPSK 3/4) -> 18, MCS 7 and up -> 54 Mb/s; basic rates
    // 6, 12, 24: the ACK goes at 6, 12 and 24 Mb/s.
    assert_eq!(PHY_80211N.response_kbps(TxVector::Ht(m(0, 2, 40, 800))), 6_000);
    assert_eq!(PHY_80211AC.response_kbps(TxVector::Vht(m(2, 1, 80, 400))), 12_000);
    assert_eq!(PHY_80211AX.response_kbps(TxVector::He(m(11, 2, 80, 800))), 24_000);
    // The ACK itself is a non-HT OFDM frame: 20 + 4 x ceil(134 / 96) = 28 us at 24 Mb/s, + 6 us
    // signal extension in 2.4 GHz.
    let ax24 = PHY_80211AX.with_band(Band::Ghz2_4).unwrap();
    assert_eq!(ax24.frame_duration(ACK_BYTES, 24_000), us(34));
    assert_eq!((ax24.sifs, ax24.difs(), PHY_80211AX.sifs, PHY_80211AX.difs()), (us(10), us(28), us(16), us(34)));
}

#[test]
fn invalid_combinations_are_refused_with_what_is_valid() {
    let err = |p: PhyProfile, tx| p.check_tx(tx).unwrap_err().0;
    let e = err(PHY_80211AC, TxVector::Vht(m(9, 1, 20, 800)));
    assert_eq!(e, "802.11ac has no MCS 9 at 20 MHz with 1 stream (valid MCS at 20 MHz, 1 SS: 0-8)");
    assert!(PHY_80211AC.check_tx(TxVector::Vht(m(9, 3, 20, 800))).is_ok());
    assert!(err(PHY_80211AC, TxVector::Vht(m(9, 4, 20, 800))).contains("0-8"));
    assert!(err(PHY_80211AC, TxVector::Vht(m(6, 3, 80, 400))).ends_with("(valid MCS at 80 MHz, 3 SS: 0-5, 7-9)"));
    assert!(err(PHY_80211AC, TxVector::Vht(m(9, 3, 160, 800))).contains("0-8"));
    assert!(err(PHY_80211N, TxVector::Ht(m(8, 1, 20, 800))).contains("0-7"));
    assert!(err(PHY_80211N, TxVector::Ht(m(7, 1, 80, 800))).contains("widths: 20, 40 MHz"));
    assert!(err(PHY_80211AX, TxVector::He(m(7, 1, 20, 400))).contains("gi: 800, 1600, 3200 ns"));
    assert!(err(PHY_80211AX, TxVector::He(m(12, 1, 20, 800))).contains("0-11"));
    assert!(err(PHY_80211AX, TxVector::He(m(7, 5, 20, 800))).contains("nss: 1-4"));
    assert!(err(PHY_80211AX, TxVector::Vht(m(7, 1, 20, 800))).contains("does not send Vht"));
    let ax24 = PHY_80211AX.with_band(Band::Ghz2_4).unwrap();
    assert!(err(ax24, TxVector::He(m(7, 1, 80, 800))).contains("no 80 MHz channels in the 2.4 GHz band (widths: 20, 40 MHz)"));
    assert!(PHY_80211AC.with_band(Band::Ghz2_4).unwrap_err().0.contains("bands: 5 GHz"));
    assert!(PHY_80211N.with_band(Band::Ghz6).unwrap_err().0.contains("bands: 2.4 GHz, 5 GHz"));
    assert!(PHY_80211A.with_band(Band::Ghz2_4).is_err() && PHY_80211G.with_band(Band::Ghz2_4).is_ok());
    assert!(PHY_80211AX.check_rate(54_000).unwrap_err().0.contains("give mcs, nss, width and gi"));
    assert!(PHY_80211AX.with_he_packet_padding(4).is_err());
    assert_eq!(Band::parse("2.4 GHz"), Some(Band::Ghz2_4));
    assert_eq!((Band::parse("5"), Band::parse("6GHz"), Band::parse("60")), (Some(Band::Ghz5), Some(Band::Ghz6), None));
}

/// Every valid VHT combination (1-4 streams) divides evenly among its BCC encoders, and every
/// excluded one would not under the rate rule, so the exclusion list is the standard's rule.
#[test]
fn vht_exclusions_follow_the_encoder_rule() {
    for width in [20u16, 40, 80, 160] {
        for nss in 1..=4u8 {
            let valid = mcs::valid_mcs(PhyFormat::Vht, nss, width);
            for i in 0..=9u8 {
                let x = m(i, nss, width, 800);
                let n_sd = mcs::data_subcarriers(PhyFormat::Vht, width);
                let (_, num, den) = x.modulation();
                let n_cbps = x.coded_bits(n_sd);
                let exact = (n_cbps * num).is_multiple_of(den);
                let n_dbps = n_cbps * num / den;
                if valid.contains(&i) {
                    let n_es = ht::bcc_encoders(PhyFormat::Vht, &x);
                    assert!(exact && n_dbps.is_multiple_of(n_es) && n_cbps.is_multiple_of(n_es), "{x:?}: N_ES {n_es}");
                } else {
                    let n_es = n_dbps.div_ceil(2160);
                    assert!(!exact || !n_dbps.is_multiple_of(n_es) || !n_cbps.is_multiple_of(n_es), "{x:?} is excluded but divides");
                }
            }
        }
    }
    for nss in 1..=4u8 {
        for width in [20u16, 40] {
            for i in 0..=7u8 {
                let x = m(i, nss, width, 800);
                let n_cbps = x.coded_bits(mcs::data_subcarriers(PhyFormat::Ht, width));
                let n_es = ht::bcc_encoders(PhyFormat::Ht, &x);
                let (_, num, den) = x.modulation();
                assert!((n_cbps * num).is_multiple_of(den) && n_cbps.is_multiple_of(n_es) && (n_cbps * num / den).is_multiple_of(n_es), "{x:?}");
            }
        }
    }
}

#[test]
fn legacy_profiles_keep_their_band_and_timing() {
    for p in [PHY_80211B, PHY_DSSS_2MBPS, PHY_80211A, PHY_80211G] {
        assert_eq!(p.format, PhyFormat::Legacy);
        assert_eq!(p.with_band(p.band).unwrap(), p);
        assert_eq!(p.ppdu_duration(1536, TxVector::Legacy { kbps: p.rates_kbps[0] }), p.frame_duration(1536, p.rates_kbps[0]));
    }
}
