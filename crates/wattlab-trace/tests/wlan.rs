//! 802.11 captures (issue 31 item 1): radiotap (127), plain 802.11 (105), PPI (192) and AVS
//! (163) records, read frame by frame (`next_wlan`) and as IP packets (`next_packet`), checked
//! field by field against tshark where it is installed (skipped with the reason where not), and
//! against hand-read values of the generated captures in tests/data/wlan (see its README).

#[path = "support/fuzz.rs"]
mod fuzz;

use std::path::{Path, PathBuf};
use std::process::Command;

use wattlab_trace::wlan::{Action, FrameKind};
use wattlab_trace::{SkipReason, TraceError, TraceReader, Transport};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/wlan").join(name)
}

/// tshark's `-T fields` output for `fields`, one row per frame; `None` (with the reason on
/// stderr) where tshark is missing.
fn tshark_fields(path: &Path, fields: &[&str]) -> Option<Vec<Vec<String>>> {
    let mut args = vec!["-r".to_string(), path.display().to_string(), "-T".into(), "fields".into()];
    args.extend(["-E".into(), "separator=|".into()]);
    for f in fields {
        args.extend(["-e".to_string(), f.to_string()]);
    }
    match Command::new("tshark").args(&args).output() {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8(o.stdout).unwrap();
            Some(text.lines().map(|l| l.split('|').map(str::to_string).collect()).collect())
        }
        Ok(o) => panic!("tshark failed on {}: {}", path.display(), String::from_utf8_lossy(&o.stderr)),
        Err(e) => {
            eprintln!("skipped the tshark comparison: tshark cannot be run ({e})");
            None
        }
    }
}

/// What the reader says of each frame, in tshark's spelling: type_subtype, retry, PM,
/// protected, HT MCS, VHT MCS, VHT NSS, HE MCS, A-MPDU reference, signal, frequency, DTIM
/// period, AID, action category, TSFT.
fn reader_rows(path: &Path) -> (Vec<(u64, Vec<String>)>, wattlab_trace::Stats) {
    let mut r = TraceReader::open(path).unwrap();
    let mut rows = Vec::new();
    let opt = |v: Option<String>| v.unwrap_or_default();
    while let Some(f) = r.next_wlan() {
        let f = f.unwrap();
        let (m, p) = (f.mac, f.phy);
        let bit = |b: bool| u8::from(b).to_string();
        rows.push((
            f.index,
            vec![
                format!("{:#06x}", m.type_subtype()),
                bit(m.retry()),
                bit(m.power_mgmt()),
                bit(m.protected()),
                opt(p.mcs.map(|x| x.index.to_string())),
                opt(p.vht.map(|x| x.mcs().to_string())),
                opt(p.vht.map(|x| x.nss().to_string())),
                opt(p.he.and_then(|x| x.mcs()).map(|x| format!("{x:#06x}"))),
                opt(p.ampdu.map(|x| x.reference.to_string())),
                opt(p.antenna_signal_dbm.map(|x| x.to_string())),
                opt(p.channel.map(|x| x.0.to_string())),
                opt(f.tim().map(|t| t.dtim_period.to_string())),
                opt(f.assoc_aid().map(|a| format!("{a:#06x}"))),
                opt(f.action().map(|a| match a {
                    Action::AddbaRequest | Action::AddbaResponse | Action::Delba => "3".to_string(),
                    Action::TwtSetup | Action::TwtTeardown | Action::TwtInformation => "22".to_string(),
                    Action::Other { category, .. } => category.to_string(),
                })),
                opt(p.tsft.map(|x| x.to_string())),
            ],
        ));
    }
    (rows, *r.stats())
}

const TSHARK_FIELDS: [&str; 15] = [
    "wlan.fc.type_subtype",
    "wlan.fc.retry",
    "wlan.fc.pwrmgt",
    "wlan.fc.protected",
    "radiotap.mcs.index",
    "radiotap.vht.mcs.0",
    "radiotap.vht.nss.0",
    "radiotap.he.data_3.data_mcs",
    "radiotap.ampdu.reference",
    "radiotap.dbm_antsignal",
    "radiotap.channel.freq",
    "wlan.tim.dtim_period",
    "wlan.fixed.aid",
    "wlan.fixed.category_code",
    "radiotap.mactime",
];

/// Every frame of the radiotap capture, field by field, as tshark reads it; the bad-FCS frame
/// is skipped and counted, and the frame count equals tshark's.
#[test]
fn radiotap_frames_agree_with_tshark() {
    let path = data("radiotap.pcap");
    let (rows, stats) = reader_rows(&path);
    assert_eq!(stats.records, 25);
    assert_eq!(rows.len(), 24);
    assert_eq!(stats.skipped.packets(SkipReason::BadFcs), 1);
    assert_eq!(stats.wlan.frames(), 24);
    assert_eq!((stats.wlan.management, stats.wlan.control, stats.wlan.data), (9, 6, 9));
    assert_eq!(stats.wlan.retries, 1);
    let Some(t) = tshark_fields(&path, &TSHARK_FIELDS) else { return };
    assert_eq!(t.len() as u64, stats.records, "tshark's frame count");
    for (index, row) in &rows {
        assert_eq!(row, &t[*index as usize], "frame {} (tshark numbers from 1)", index + 1);
    }
}

/// The same frames without radiotap or FCS (link type 105).
#[test]
fn plain_80211_frames_agree_with_tshark() {
    let path = data("ieee80211.pcap");
    let (rows, stats) = reader_rows(&path);
    assert_eq!((stats.records, rows.len()), (24, 24));
    assert!(rows.iter().all(|(_, r)| r[4..11].iter().all(String::is_empty)), "no PHY fields");
    let Some(t) = tshark_fields(&path, &TSHARK_FIELDS) else { return };
    assert_eq!(t.len(), 24);
    for (index, row) in &rows {
        assert_eq!(row, &t[*index as usize], "frame {}", index + 1);
    }
}

/// Hand-read values of tests/data/wlan/radiotap.pcap (make_captures.py says what each frame is).
#[test]
fn radiotap_fields_by_hand() {
    let mut r = TraceReader::open(data("radiotap.pcap")).unwrap();
    let mut kinds = Vec::new();
    while let Some(f) = r.next_wlan() {
        let f = f.unwrap();
        let k = f.mac.kind();
        kinds.push(k);
        match f.index {
            0 => {
                let tim = f.tim().expect("a beacon's TIM");
                assert_eq!((tim.dtim_count, tim.dtim_period), (0, 3));
                assert!(tim.group_buffered() && tim.has_aid(1) && !tim.has_aid(2));
                assert_eq!(f.phy.rate_500k, Some(12));
                assert_eq!(f.phy.tsft, Some(1_000_000));
                // 78-byte record: 23-byte radiotap header, 55-byte MPDU with its FCS.
                assert_eq!(f.mpdu_len, 55);
                assert_eq!(f.bytes.len(), 51);
            }
            5 => assert_eq!(f.assoc_aid(), Some(1)),
            6 => assert_eq!(f.action(), Some(Action::AddbaRequest)),
            7 => assert_eq!(f.action(), Some(Action::AddbaResponse)),
            8 => assert_eq!(f.action(), Some(Action::TwtSetup)),
            14 => assert_eq!(f.mac.duration & 0x3fff, 1, "PS-Poll carries the AID"),
            15 => assert!(f.mac.power_mgmt() && f.mac.is_null() && f.mac.to_ds()),
            17 => {
                let m = f.phy.mcs.unwrap();
                assert_eq!((m.index, m.width_mhz(), m.short_gi(), m.nss()), (15, Some(40), Some(true), Some(2)));
                assert_eq!(f.phy.ampdu.unwrap().reference, 7);
                assert_eq!(f.mac.tid(), Some(5));
            }
            18 => assert!(f.mac.retry()),
            20 => assert!(f.mac.protected() && f.body().len() == 128),
            21 => assert!(f.mac.amsdu()),
            22 => {
                let v = f.phy.vht.unwrap();
                assert_eq!((v.mcs(), v.nss(), v.width_mhz(), v.short_gi()), (9, 2, Some(80), Some(true)));
            }
            23 => {
                let h = f.phy.he.unwrap();
                assert_eq!((h.format(), h.mcs(), h.gi_ns(), h.width_mhz(), h.nsts()), (0, Some(7), Some(1600), Some(20), Some(2)));
            }
            _ => {}
        }
    }
    use FrameKind as K;
    assert_eq!(
        kinds,
        [
            K::Beacon, K::ProbeRequest, K::ProbeResponse, K::Auth, K::AssocRequest, K::AssocResponse, K::Action, K::Action,
            K::Action, K::Rts, K::Cts, K::Ack, K::BlockAckReq, K::BlockAck, K::PsPoll, K::Null, K::QosNull, K::QosData,
            K::QosData, K::Data, K::QosData, K::QosData, K::QosData, K::QosData
        ]
    );
}

/// The IP packets of a monitor capture: one per unprotected data frame, one per A-MSDU
/// subframe; management, control and null frames are "not IP", the encrypted one "protected".
#[test]
fn radiotap_ip_packets_equal_tsharks() {
    let path = data("radiotap.pcap");
    let mut r = TraceReader::open(&path).unwrap();
    let mut lens = Vec::new();
    let mut wire = std::collections::BTreeMap::new();
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        assert!(matches!(p.transport, Transport::Udp(_)));
        lens.push((p.index, p.ip_len));
        *wire.entry(p.index).or_insert(0usize) += p.orig_len as usize;
    }
    // The A-MSDU's two packets share their record's wire length: they sum to it.
    let recs = radiotap_records();
    for (index, bytes) in wire {
        assert_eq!(bytes, recs[index as usize].len(), "record {index}");
    }
    assert_eq!(lens, [(17, 1028), (18, 1028), (19, 128), (21, 329), (21, 528), (22, 1428), (23, 1228)]);
    let s = r.stats();
    assert_eq!((s.records, s.packets), (25, 7));
    assert_eq!(s.skipped.packets(SkipReason::Protected), 1);
    assert_eq!(s.skipped.packets(SkipReason::BadFcs), 1);
    assert_eq!(s.skipped.packets(SkipReason::NotIp), 17, "9 management, 6 control, 2 null");
    assert_eq!(s.wlan.amsdu_subframes, 2);
    if let Some(t) = tshark_fields(&path, &["ip.len"]) {
        let theirs: Vec<u32> = t.iter().flat_map(|row| row[0].split(',').filter(|s| !s.is_empty()).map(|s| s.parse().unwrap())).collect();
        assert_eq!(theirs, lens.iter().map(|l| l.1).collect::<Vec<_>>());
    }
    // Frames and packets in one pass: every record accounted for once.
    let mut r = TraceReader::open(&path).unwrap();
    let (mut ip, mut skipped) = (0, 0);
    while let Some(f) = r.next_frame() {
        match f.unwrap() {
            wattlab_trace::Frame::Ip(_) => ip += 1,
            wattlab_trace::Frame::Skipped(_) => skipped += 1,
        }
    }
    assert_eq!((ip, skipped), (7, 19));
}

/// A classic pcap of `link` with the given records (µs, little-endian).
fn pcap(link: u32, recs: &[Vec<u8>]) -> Vec<u8> {
    let mut v = Vec::new();
    for w in [0xa1b2_c3d4u32] {
        v.extend_from_slice(&w.to_le_bytes());
    }
    v.extend_from_slice(&2u16.to_le_bytes());
    v.extend_from_slice(&4u16.to_le_bytes());
    v.extend_from_slice(&[0; 8]);
    v.extend_from_slice(&65535u32.to_le_bytes());
    v.extend_from_slice(&link.to_le_bytes());
    for (i, r) in recs.iter().enumerate() {
        v.extend_from_slice(&(1_704_067_200u32 + i as u32).to_le_bytes());
        v.extend_from_slice(&0u32.to_le_bytes());
        v.extend_from_slice(&(r.len() as u32).to_le_bytes());
        v.extend_from_slice(&(r.len() as u32).to_le_bytes());
        v.extend_from_slice(r);
    }
    v
}

/// The records of tests/data/wlan/radiotap.pcap, as (header, frame) bytes.
fn radiotap_records() -> Vec<Vec<u8>> {
    let b = std::fs::read(data("radiotap.pcap")).unwrap();
    let mut at = 24;
    let mut out = Vec::new();
    while at + 16 <= b.len() {
        let n = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        out.push(b[at + 16..at + 16 + n].to_vec());
        at += 16 + n;
    }
    out
}

fn read_all(bytes: &[u8]) -> (u64, Option<TraceError>) {
    let mut r = TraceReader::new(bytes, "x.pcap").unwrap();
    let mut n = 0;
    while let Some(f) = r.next_wlan() {
        match f {
            Ok(_) => n += 1,
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}

/// A radiotap header whose field runs past its length, or whose version is not 0, is an
/// error naming the packet, its byte offset and the field's offset; a record cut by the
/// snaplen inside the header is a counted skip.
#[test]
fn malformed_radiotap_is_an_error_with_the_offset() {
    let mut recs = radiotap_records();
    // Record 1: shrink it_len from 23 to 12 so that the TSFT field (bytes 8–15) runs past it.
    recs[1][2] = 12;
    let (n, e) = read_all(&pcap(127, &recs));
    assert_eq!(n, 1);
    let msg = e.expect("an error").to_string();
    let rec1 = 24 + 16 + recs[0].len();
    assert!(msg.starts_with(&format!("x.pcap: packet 1 at byte offset {rec1}: corrupt radiotap header: ")), "{msg}");
    assert!(msg.contains(&format!("byte 8 of the header, file offset {}", rec1 + 16 + 8)), "{msg}");
    let mut recs = radiotap_records();
    recs[3][0] = 1;
    let e = read_all(&pcap(127, &recs)).1.expect("an error").to_string();
    assert!(e.contains("packet 3 at byte offset") && e.contains("version is not 0 (byte 0 of the header"), "{e}");
    // The same record through next_packet: the same error, and nothing after it.
    let bytes = pcap(127, &recs);
    let mut r = TraceReader::new(&bytes[..], "x.pcap").unwrap();
    let mut seen = Vec::new();
    while let Some(p) = r.next_frame() {
        seen.push(p.is_ok());
    }
    assert_eq!(seen, [true, true, true, false]);
    // Cut inside the header by the snaplen: skipped as a cut header, reading goes on.
    let mut recs = radiotap_records();
    recs[2].truncate(10);
    let mut bytes = pcap(127, &recs);
    let at = 24 + 16 + recs[0].len() + 16 + recs[1].len();
    bytes[at + 12..at + 16].copy_from_slice(&200u32.to_le_bytes()); // orig_len > incl_len
    let mut r = TraceReader::new(&bytes[..], "x.pcap").unwrap();
    let mut n = 0;
    while let Some(f) = r.next_wlan() {
        f.unwrap();
        n += 1;
    }
    assert_eq!(n, 23);
    assert_eq!(r.stats().skipped.packets(SkipReason::HeaderCut), 1);
}

/// PPI (192) with an 802.11-common field, and AVS (163): their PHY fields, and tshark's count.
#[test]
fn ppi_and_avs_headers() {
    let frames: Vec<Vec<u8>> = radiotap_records().iter().map(|r| r[usize::from(r[2])..r.len() - 4].to_vec()).collect();
    // PPI: 8-byte header, one 802.11-common field (type 2, 20 bytes): FCS absent, 54 Mb/s,
    // 2437 MHz, -60 dBm.
    let ppi: Vec<Vec<u8>> = frames[..24]
        .iter()
        .map(|f| {
            let mut v = vec![0u8, 0, 32, 0, 105, 0, 0, 0, 2, 0, 20, 0];
            v.extend_from_slice(&77u64.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
            v.extend_from_slice(&108u16.to_le_bytes());
            v.extend_from_slice(&2437u16.to_le_bytes());
            v.extend_from_slice(&0x00a0u16.to_le_bytes());
            v.extend_from_slice(&[0, 0, (-60i8) as u8, 0]);
            v.extend_from_slice(f);
            v
        })
        .collect();
    // AVS v1: 64 bytes, big-endian: channel 6, 11 Mb/s (110 × 100 kb/s), signal -55 dBm.
    let avs: Vec<Vec<u8>> = frames[..24]
        .iter()
        .map(|f| {
            let mut v = Vec::new();
            for w in [0x8021_1001u32, 64] {
                v.extend_from_slice(&w.to_be_bytes());
            }
            v.extend_from_slice(&5u64.to_be_bytes());
            v.extend_from_slice(&6u64.to_be_bytes());
            for w in [4u32, 6, 110, 0, 0, 2, (-55i32) as u32, (-95i32) as u32, 1, 1] {
                v.extend_from_slice(&w.to_be_bytes());
            }
            v.extend_from_slice(f);
            v
        })
        .collect();
    for (link, recs, rate, freq, signal) in [(192, ppi, 108, 2437, -60), (163, avs, 22, 2437, -55)] {
        let bytes = pcap(link, &recs);
        let mut r = TraceReader::new(&bytes[..], "x.pcap").unwrap();
        let mut n = 0;
        while let Some(f) = r.next_wlan() {
            let f = f.unwrap();
            assert_eq!((f.phy.rate_500k, f.phy.channel.map(|c| c.0), f.phy.antenna_signal_dbm), (Some(rate), Some(freq), Some(signal)));
            assert_eq!(f.mpdu_len as usize, frames[f.index as usize].len() + 4);
            n += 1;
        }
        assert_eq!(n, 24, "link type {link}");
        let path = std::env::temp_dir().join(format!("wattlab-wlan-{link}-{}.pcap", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        if let Some(t) = tshark_fields(&path, &["wlan.fc.type_subtype"]) {
            assert_eq!(t.len(), 24, "tshark's frame count, link type {link}");
            let (rows, _) = reader_rows(&path);
            for (i, row) in rows {
                assert_eq!(row[0], t[i as usize][0], "link {link}, frame {}", i + 1);
            }
        }
        std::fs::remove_file(&path).ok();
    }
}

/// A record whose original length is u32::MAX (a capture header's claim, found by the fuzz
/// smoke run) is read without overflow, in both seeds (radiotap without FCS, plain 802.11).
#[test]
fn a_huge_original_length_does_not_overflow() {
    for seed in fuzz::wlan_seeds() {
        let mut bytes = seed.clone();
        let le = bytes[..4] == [0xd4, 0xc3, 0xb2, 0xa1] || bytes[..4] == [0x4d, 0x3c, 0xb2, 0xa1];
        let max = if le { u32::MAX.to_le_bytes() } else { u32::MAX.to_be_bytes() };
        bytes[36..40].copy_from_slice(&max); // the first record's orig_len
        assert!(fuzz::check_wlan(&bytes).unwrap() > 0, "the other frames are still read");
    }
}

/// The 802.11 reader over mutated radiotap and 802.11 captures (a smoke run: 20,000 inputs or
/// 5 s; `examples/fuzz_trace.rs -- --wlan` runs 10^6): no panic, no reading past an error,
/// frames counted as yielded.
#[test]
fn wlan_fuzz_smoke_run() {
    match fuzz::run_wlan(31, 20_000, 5.0) {
        Ok((inputs, frames)) => {
            eprintln!("802.11 fuzz smoke run: {inputs} inputs, {frames} frames");
            assert!(inputs >= 1000 && frames > 0);
        }
        Err((input, why)) => {
            let path = std::env::temp_dir().join("wattlab-fuzz-wlan-failure.bin");
            std::fs::write(&path, &input).unwrap();
            panic!("{why} (input saved to {})", path.display());
        }
    }
}
