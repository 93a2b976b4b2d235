//! Radiotap captures of simulated BSSs, one per power mode and PHY format, dissected by
//! tshark (skipped, with the reason, where it is missing): no malformed packet, and each
//! frame's type/subtype, PM, retry, More Data, MCS, A-MPDU reference, bad-FCS flag and length
//! equal what the MAC logged; beacons' TIMs; timestamps from the epoch.

use crate::wlan::{AirFrame, AirKind};
use crate::{BuildOptions, Simulation};
use std::path::{Path, PathBuf};
use std::process::Command;
use wattlab_core::wlan::TxVector;

/// A server, an AP and a client station on `phy` in `mode`: pings, then a 200 kB download.
fn scenario(phy: &str, mode: &str, extra: &str) -> String {
    let trigger = if mode == "u-apsd" { "uapsd_trigger_interval = \"100ms\"\n" } else { "" };
    format!(
        r#"
[simulation]
duration = "6s"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
radio = {{ profile = "wavelan-dsss", policies = ["always-on"] }}
[[link]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "10ms"
[[wlan]]
name = "bss"
ap = "ap"
stations = ["client"]
{phy}power_save = "{mode}"
{trigger}{extra}
[[flow]]
kind = "ping"
from = "client"
to = "server"
count = 4
interval = "500ms"
[[flow]]
kind = "bulk-download"
client = "client"
server = "server"
bytes = "200kB"
start = "3s"
"#
    )
}

/// A fresh directory for one test's captures.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wattlab-radiotap-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `text` with a radiotap capture of the client's interface into `dir`: the frames the
/// MAC logged and the capture's path.
fn capture(text: &str, dir: &Path, overrides: &[String]) -> (Vec<AirFrame>, PathBuf) {
    let opts = BuildOptions { out_dir: Some(dir.to_path_buf()), pcaps: vec!["client:wlan0".into()], ..Default::default() };
    let mut o = vec!["output.pcap_link=\"radiotap\"".to_string()];
    o.extend_from_slice(overrides);
    let mut sim = Simulation::from_toml(text, "radiotap.toml", Some(5), &o, &opts).unwrap_or_else(|e| panic!("{e}"));
    sim.run_loop();
    assert!(sim.net.fatal_error.is_none(), "{:?}", sim.net.fatal_error);
    let cap = sim.wlans[0].air.take().expect("a radiotap capture");
    cap.sink.finish().unwrap();
    (cap.logged, PathBuf::from(cap.path))
}

/// tshark's `-T fields` output of `path` (one row per frame, tab-separated), or None (with
/// the reason printed) where tshark cannot run.
fn tshark(path: &Path, fields: &[&str]) -> Option<Vec<Vec<String>>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-r").arg(path).args(["-n", "-T", "fields", "-E", "occurrence=f"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipping the tshark check: cannot run tshark ({e})");
            return None;
        }
    };
    assert!(out.status.success(), "tshark failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    Some(text.lines().map(|l| l.split('\t').map(str::to_string).collect()).collect())
}

/// Wireshark's type/subtype code of a frame the MAC logged (`(type << 4) | subtype`).
fn type_subtype(f: &AirFrame) -> u16 {
    match f.kind {
        AirKind::Data if f.qos => 0x28,
        AirKind::Data => 0x20,
        AirKind::Null => 0x2c,
        AirKind::Ack => 0x1d,
        AirKind::Rts => 0x1b,
        AirKind::Cts => 0x1c,
        AirKind::PsPoll => 0x1a,
        AirKind::Beacon => 0x08,
        AirKind::BlockAck => 0x19,
        AirKind::BlockAckReq => 0x18,
        AirKind::AddBaRequest | AirKind::AddBaResponse | AirKind::TwtSetup => 0x0d,
        AirKind::Trigger => 0x12,
    }
}

/// The MCS the frame's radiotap header should show (None for a non-HT PPDU).
fn mcs(f: &AirFrame) -> Option<u8> {
    match f.tx {
        TxVector::Legacy { .. } => None,
        TxVector::Ht(m) => Some(8 * (m.nss - 1) + m.mcs),
        TxVector::Vht(m) | TxVector::He(m) => Some(m.mcs),
    }
}

/// A number tshark prints in decimal or (some fields) as `0x` hex.
fn num(v: &str) -> u32 {
    match v.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).unwrap(),
        None => v.parse().unwrap(),
    }
}

fn flag(v: &str) -> bool {
    matches!(v, "1" | "True" | "true")
}

const FIELDS: [&str; 15] = [
    "frame.time_epoch",
    "wlan.fc.type_subtype",
    "wlan.fc.pwrmgt",
    "wlan.fc.retry",
    "wlan.fc.moredata",
    "radiotap.mcs.index",
    "radiotap.vht.mcs.0",
    "radiotap.he.data_3.data_mcs",
    "radiotap.ampdu.reference",
    "radiotap.flags.badfcs",
    "frame.len",
    "radiotap.length",
    "_ws.malformed",
    "_ws.expert.message",
    "radiotap.mactime",
];

/// Wireshark 4.0's one complaint about a broadcast TWT element: its TWT dissector knows only
/// the Individual TWT Parameter Set (at least 15 octets), while an element of one Broadcast
/// TWT Parameter Set is 10 (Control 1 + set 9, 802.11ax-2021 §9.4.2.199). Tolerated on
/// exactly the frames that carry one (beacons of a BSS with schedules, broadcast TWT Setup).
const BROADCAST_TWT_LENGTH_NOTE: &str = "Tag Length 10 wrong, must be >= 15";

/// True for a frame carrying a broadcast TWT element.
fn carries_broadcast_twt(f: &AirFrame) -> bool {
    match f.kind {
        AirKind::Beacon => f.mpdu_bytes > wattlab_core::wlan::phy::BEACON_BYTES,
        AirKind::TwtSetup => f.twt.is_some_and(|a| a.broadcast.is_some()),
        _ => false,
    }
}

/// Checks the capture at `path` frame by frame against `logged`; returns the counts of
/// (A-MPDU MPDUs, retries, PM bits set, frames with bad FCS).
fn check(name: &str, logged: &[AirFrame], path: &Path) -> Option<(usize, usize, usize, usize)> {
    let rows = tshark(path, &FIELDS)?;
    assert_eq!(rows.len(), logged.len(), "{name}: one record per logged frame");
    let (mut ampdu, mut retries, mut pm, mut bad) = (0, 0, 0, 0);
    let mut refs = std::collections::HashMap::new();
    for (k, (r, f)) in rows.iter().zip(logged).enumerate() {
        let at = format!("{name}: frame {} ({:?} {}→{})", k + 1, f.kind, f.from, f.to);
        let tolerated = carries_broadcast_twt(f) && r[13] == BROADCAST_TWT_LENGTH_NOTE;
        assert!(r[12].is_empty() || tolerated, "{at}: malformed: {r:?}");
        let ts: f64 = r[0].parse().unwrap();
        // Stamped at the PPDU's end (a receiving host's stamp), in time order.
        let want_ts = 946_684_800.0 + (f.start + f.dur).as_nanos() as f64 * 1e-9;
        assert!(k == 0 || ts >= rows[k - 1][0].parse::<f64>().unwrap(), "{at}: time {ts} before the previous record's");
        // TSFT: the PPDU's first bit, µs of the BSS's TSF (0 at the run's start).
        assert_eq!(r[14].parse::<u64>().unwrap(), f.start.as_nanos() / 1_000, "{at}: TSFT");
        assert!((ts - want_ts).abs() < 2e-6, "{at}: time {ts} vs {want_ts}");
        assert_eq!(num(&r[1]), u32::from(type_subtype(f)), "{at}: type/subtype");
        // tshark shows the Frame Control flags of data, management and PS-Poll frames.
        if !matches!(f.kind, AirKind::Ack | AirKind::Rts | AirKind::Cts | AirKind::BlockAck | AirKind::BlockAckReq | AirKind::Trigger | AirKind::Beacon) {
            assert_eq!(flag(&r[2]), f.pm, "{at}: PM");
            assert_eq!(flag(&r[3]), f.retry, "{at}: retry");
            assert_eq!(flag(&r[4]), f.more_data, "{at}: More Data");
        }
        let shown = [&r[5], &r[6], &r[7]].into_iter().find(|v| !v.is_empty()).map(|v| num(v) as u8);
        assert_eq!(shown, mcs(f), "{at}: MCS");
        let reference = (!r[8].is_empty()).then(|| r[8].parse::<u32>().unwrap());
        assert_eq!(reference, f.ampdu.map(|a| a.0), "{at}: A-MPDU reference");
        if let Some((reference, _)) = f.ampdu {
            ampdu += 1;
            *refs.entry(reference).or_insert(0) += 1;
        }
        assert_eq!(flag(&r[9]), f.lost, "{at}: bad FCS");
        // The 802.11 frame is the model's MPDU less its FCS.
        let len: u32 = r[10].parse::<u32>().unwrap() - r[11].parse::<u32>().unwrap();
        assert_eq!(len + 4, f.mpdu_bytes, "{at}: MPDU length");
        retries += usize::from(f.retry);
        pm += usize::from(f.pm);
        bad += usize::from(f.lost);
    }
    // Each A-MPDU's MPDUs share its reference, the last flagged once.
    for f in logged.iter().filter(|f| f.ampdu.is_some_and(|a| a.1)) {
        assert!(refs.remove(&f.ampdu.unwrap().0).is_some(), "{name}: one last MPDU per reference");
    }
    assert!(refs.is_empty(), "{name}: A-MPDUs without a last MPDU: {refs:?}");
    Some((ampdu, retries, pm, bad))
}

/// Counts of each frame kind the MAC logged.
fn kinds(logged: &[AirFrame]) -> std::collections::BTreeMap<String, usize> {
    let mut m = std::collections::BTreeMap::new();
    for f in logged {
        *m.entry(format!("{:?}", f.kind)).or_insert(0) += 1;
    }
    m
}

const LEGACY: &str = "phy = \"802.11a\"\nrate = \"54Mbps\"\n";
const HT: &str = "phy = \"802.11n\"\nmcs = 7\n";
const VHT: &str = "phy = \"802.11ac\"\nmcs = 8\n";
const HE: &str = "phy = \"802.11ax\"\nmcs = 7\nwidth = 20\ngi = \"800ns\"\n";

#[test]
fn every_power_mode_dissects_cleanly_and_matches_the_mac() {
    let dir = temp_dir("modes");
    let cases = [
        ("cam-legacy", LEGACY, "cam", "rts_threshold = \"500B\"\n"),
        ("cam-he", HE, "cam", ""),
        ("psm-legacy", LEGACY, "psm", ""),
        ("psm-ht", HT, "psm", ""),
        ("adaptive-vht", VHT, "adaptive-psm:timeout=50ms", ""),
        ("uapsd-he", HE, "u-apsd", ""),
        ("twt-he", HE, "twt:interval=100ms,duration=4000us", ""),
        ("twt-trigger-he", HE, "twt:interval=100ms,duration=4000us,trigger=true", ""),
    ];
    for (name, phy, mode, extra) in cases {
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).unwrap();
        let (logged, path) = capture(&scenario(phy, mode, extra), &sub, &[]);
        let k = kinds(&logged);
        eprintln!("{name}: {} frames {k:?}", logged.len());
        let Some((ampdu, retries, pm, bad)) = check(name, &logged, &path) else { return };
        eprintln!("{name}: {ampdu} MPDUs in A-MPDUs, {retries} retries, {pm} PM bits, {bad} bad FCS");
        let n = |kind: &str| k.get(kind).copied().unwrap_or(0);
        assert!(n("Data") > 100 && n("Ack") + n("BlockAck") > 20, "{name}: {k:?}");
        // The AP beacons when a station listens to them (PSM, adaptive PSM here).
        let listens = !matches!(mode, "cam" | "u-apsd") && !mode.starts_with("twt");
        assert!(!listens || n("Beacon") > 20, "{name}: {k:?}");
        match mode {
            "cam" => assert_eq!(pm, 0, "{name}: CAM never sets PM"),
            "psm" => {
                assert!(n("PsPoll") > 0, "{name}: PSM polls");
                let station = logged.iter().filter(|f| f.from != 0 && !matches!(f.kind, AirKind::Ack | AirKind::Cts | AirKind::BlockAck | AirKind::BlockAckReq | AirKind::Rts));
                assert!(station.clone().all(|f| f.pm), "{name}: every PSM station frame has PM set");
            }
            m if m.starts_with("adaptive") => {
                // Back to PS mode with a PM = 1 Null after each idle timeout; its own data
                // frames (PM = 0) return it to active mode (docs/wlan.md, adaptive PSM).
                assert!(logged.iter().any(|f| f.kind == AirKind::Null && f.pm), "{name}: PM = 1 Nulls");
                assert!(logged.iter().filter(|f| f.from != 0 && f.kind == AirKind::Data).all(|f| !f.pm), "{name}: data with PM = 0");
            }
            "u-apsd" => assert!(n("Null") > 0 && pm > 0, "{name}: QoS-Null triggers with PM"),
            m if m.contains("trigger") => assert!(n("Trigger") > 0 && n("TwtSetup") == 2, "{name}: {k:?}"),
            _ => assert_eq!(n("TwtSetup"), 2, "{name}: request and response"),
        }
        if phy == HE {
            assert!(ampdu > 100, "{name}: A-MPDUs");
            assert!(n("AddBaRequest") > 0 && n("AddBaResponse") > 0, "{name}: {k:?}");
        }
        if !extra.is_empty() {
            assert!(n("Rts") > 0 && n("Cts") > 0, "{name}: RTS/CTS above the threshold");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The TIM of each beacon lists the station while the AP holds frames for it (PSM): tshark's
/// partial virtual bitmap has AID 1's bit exactly in the beacons the MAC logged with it.
#[test]
fn beacons_carry_the_tim_of_held_frames() {
    let dir = temp_dir("tim");
    let (logged, path) = capture(&scenario(LEGACY, "psm", ""), &dir, &[]);
    let Some(rows) = tshark(&path, &["wlan.fc.type_subtype", "wlan.tim.dtim_count", "wlan.tim.dtim_period", "wlan.tim.partial_virtual_bitmap"]) else { return };
    let beacons: Vec<&AirFrame> = logged.iter().filter(|f| f.kind == AirKind::Beacon).collect();
    let shown: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == "0x0008").collect();
    assert_eq!(shown.len(), beacons.len());
    let mut set = 0;
    for (r, b) in shown.iter().zip(&beacons) {
        assert_eq!((r[1].as_str(), r[2].as_str()), ("0", "1"), "DTIM count 0 of period 1");
        let bitmap = u8::from_str_radix(&r[3][..2], 16).unwrap();
        assert_eq!(bitmap & 0x02 != 0, b.bits.contains(&1), "beacon at {}: {r:?}", b.start);
        set += usize::from(b.bits.contains(&1));
    }
    assert!(set > 0, "some beacon announces held frames");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The epoch sets the timestamps (`output.pcap_epoch`), is recorded in the provenance, and a
/// wired interface cannot be captured as radiotap.
#[test]
fn epoch_and_errors() {
    let dir = temp_dir("epoch");
    let text = scenario(LEGACY, "cam", "");
    let (logged, path) = capture(&text, &dir, &["output.pcap_epoch=2026-11-27T18:00:00+01:00".into()]);
    let bytes = std::fs::read(&path).unwrap();
    let mut r = pcap_file::pcap::PcapReader::new(&bytes[..]).unwrap();
    assert_eq!(r.header().datalink, pcap_file::DataLink::IEEE802_11_RADIOTAP);
    let first = r.next_packet().unwrap().unwrap();
    assert_eq!(first.timestamp.as_nanos(), 1_795_798_800_000_000_000 + u128::from((logged[0].start + logged[0].dur).as_nanos()));
    let opts = BuildOptions { out_dir: Some(dir.clone()), pcaps: vec!["server:eth0".into()], ..Default::default() };
    let e = Simulation::from_toml(&text, "r.toml", None, &["output.pcap_link=\"radiotap\"".into()], &opts).err().unwrap().to_string();
    assert!(e.contains("output.pcap_link") && e.contains("not on a [[wlan]]"), "{e}");
    for (bad, why) in [("2026-11-27T18:00:00", "time zone"), ("1960-01-01", "between 1970")] {
        let e = Simulation::from_toml(&text, "r.toml", None, &[format!("output.pcap_epoch={bad}")], &opts).err().unwrap().to_string();
        assert!(e.contains("output.pcap_epoch") && e.contains(why), "{e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A trigger-enabled TWT station's answers to the AP's Basic Triggers are HE TB PPDUs in
/// the capture (radiotap HE data1 PPDU format 3, HE_TRIG), at the GI the model times them
/// with (the trigger asks 1.6 µs for a station using 0.8 µs: data5 GI code 1); every other HE
/// PPDU is HE SU (format 0) at its own 0.8 µs (code 0).
#[test]
fn trigger_answers_are_he_tb_ppdus() {
    let dir = temp_dir("tb");
    let (logged, path) = capture(&scenario(HE, "twt:interval=100ms,duration=4000us,trigger=true", ""), &dir, &[]);
    let Some(rows) = tshark(&path, &["radiotap.he.data_1.ppdu_format", "radiotap.he.data_5.gi"]) else { return };
    assert_eq!(rows.len(), logged.len());
    let (mut tb, mut su) = (0, 0);
    for (r, f) in rows.iter().zip(&logged) {
        if !matches!(f.tx, TxVector::He(_)) {
            assert!(!f.tb && r[0].is_empty(), "{:?} at {}: {r:?}", f.kind, f.start);
            continue;
        }
        // The station sends nothing but answers to triggers (and its TWT Setup, non-HT).
        assert_eq!(f.tb, f.from != crate::wlan::AP, "{:?} at {}", f.kind, f.start);
        let want = if f.tb { (3, 1) } else { (0, 0) };
        assert_eq!((num(&r[0]), num(&r[1])), want, "{:?} from {} at {}", f.kind, f.from, f.start);
        tb += usize::from(f.tb);
        su += usize::from(!f.tb);
    }
    eprintln!("{tb} HE TB and {su} HE SU MPDUs");
    assert!(tb > 50 && su > 50, "{tb} TB, {su} SU");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The 802.11 frame of each record of the capture at `path` (radiotap header stripped).
fn frames_of(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    let mut r = pcap_file::pcap::PcapReader::new(&bytes[..]).unwrap();
    let mut out = Vec::new();
    while let Some(p) = r.next_packet() {
        let d = p.unwrap().data;
        let rt = usize::from(u16::from_le_bytes([d[2], d[3]]));
        out.push(d[rt..].to_vec());
    }
    out
}

/// The bodies of the elements with ID `id` in `ies` (a frame's tagged parameters).
fn elements(mut ies: &[u8], id: u8) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    while ies.len() >= 2 {
        let n = usize::from(ies[1]);
        assert!(ies.len() >= 2 + n, "element {} overruns the frame", ies[0]);
        if ies[0] == id {
            found.push(ies[2..2 + n].to_vec());
        }
        ies = &ies[2 + n..];
    }
    found
}

/// A station joining broadcast TWT schedule 5 (100 ms interval, 4000 µs SPs at 3000 µs
/// offset): the capture dissects cleanly with every length equal to the model's (beacons
/// 12 bytes longer: one TWT element of one Broadcast TWT Parameter Set) and Wireshark 4.0's
/// only note on them its length check for individual TWT; the elements' bytes are the
/// hand-computed ones (negotiation type 2 in beacons, 3 in TWT Setup frames): Request Type (Accept = 4 → 0x08, Last 0x20, unannounced 0x40,
/// exponent 1 → 0x400 since 100 000 µs = 50 000 · 2^1), wake duration ⌈4000/256⌉ = 16,
/// mantissa 50 000, Broadcast TWT Info ID 5 << 3 | persistence 255 << 8 = 0xff28, and the
/// Target Wake Time bits 10-25 of the next SP's TSF.
#[test]
fn broadcast_twt_setup_and_beacons_carry_its_parameter_set() {
    let dir = temp_dir("btwt");
    let text = scenario(HE, "twt:interval=100ms,duration=4000us,offset=3000us,broadcast=5", "");
    let (logged, path) = capture(&text, &dir, &[]);
    let Some(_) = check("btwt", &logged, &path) else { return };
    let k = kinds(&logged);
    assert!(k["Beacon"] > 20 && k["TwtSetup"] == 2, "{k:?}");
    let beacon = logged.iter().find(|f| f.kind == AirKind::Beacon).unwrap();
    assert_eq!(beacon.mpdu_bytes, wattlab_core::wlan::phy::BEACON_BYTES + 3 + 9, "the model's beacon grows by the element");
    let Some(rows) = tshark(&path, &["_ws.expert.message"]) else { return };
    let noted = rows.iter().zip(&logged).filter(|(r, _)| r[0] == BROADCAST_TWT_LENGTH_NOTE);
    assert!(noted.clone().all(|(_, f)| carries_broadcast_twt(f)) && noted.count() == k["Beacon"] + 2);
    // The next SP at or after `t` µs: 3000 + k · 100 000.
    let next_sp = |t: u64| (0u64..).map(|k| 3_000 + k * 100_000).find(|&sp| sp >= t).unwrap();
    let set = |req: u16, t: u64| -> Vec<u8> {
        let mut v = req.to_le_bytes().to_vec();
        v.extend_from_slice(&(((next_sp(t) >> 10) & 0xffff) as u16).to_le_bytes());
        v.push(16);
        v.extend_from_slice(&50_000u16.to_le_bytes());
        v.extend_from_slice(&0xff28u16.to_le_bytes());
        v
    };
    let mut setups = 0;
    for (bytes, f) in frames_of(&path).iter().zip(&logged) {
        let t = f.start.as_nanos() / 1_000;
        match f.kind {
            AirKind::Beacon => {
                let twt = elements(&bytes[36..], 216);
                assert_eq!(twt.len(), 1, "one TWT element");
                let mut want = vec![2 << 2];
                want.extend(set(0x0468, t));
                assert_eq!(twt[0], want, "beacon at {t} µs");
            }
            AirKind::TwtSetup => {
                assert_eq!(&bytes[24..27], &[22, 6, 1], "Unprotected S1G action, TWT Setup, dialog token");
                let twt = elements(&bytes[27..], 216);
                // The station requests (Requester 1, Request TWT 0); the AP accepts.
                let req = if f.from == crate::wlan::AP { 0x0468 } else { 0x0461 };
                let mut want = vec![3 << 2];
                want.extend(set(req, t));
                assert_eq!(twt, vec![want], "setup from {} at {t} µs", f.from);
                setups += 1;
            }
            _ => {}
        }
    }
    assert_eq!(setups, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Schedules beyond one element's 28 sets open a second element: the beacon's TWT bytes
/// are what `broadcast_twt_beacon_bytes` charges for 1, 28 and 31 schedules, the Last
/// Broadcast Parameter Set bit set once per element.
#[test]
fn broadcast_twt_elements_are_as_long_as_the_model_charges() {
    let a = wattlab_core::power::TwtAgreement::new(100, 4000, false).unwrap();
    for n in [1u8, 28, 31] {
        let schedules: Vec<_> = (1..=n).map(|id| a.with_broadcast(id).unwrap()).collect();
        let e = super::broadcast_twt_elements(&schedules, 0);
        assert_eq!(e.len() as u32, crate::wlan::broadcast_twt_beacon_bytes(u32::from(n)), "{n} schedules");
        let bodies = elements(&e, 216);
        assert_eq!(bodies.len(), if n > 28 { 2 } else { 1 });
        let mut ids = Vec::new();
        for b in &bodies {
            let lasts: Vec<bool> = b[1..].chunks(9).map(|s| s[0] & 0x20 != 0).collect();
            assert_eq!(lasts.iter().filter(|&&l| l).count(), 1);
            assert!(lasts[lasts.len() - 1]);
            ids.extend(b[1..].chunks(9).map(|s| s[7] >> 3));
        }
        assert_eq!(ids, (1..=n).collect::<Vec<u8>>());
    }
}

/// A wake duration beyond the 256 µs unit's 255 × 256 = 65280 µs is written in TUs with the
/// Control's Wake Duration Unit bit (B5), rounded up (it was written as 65280 µs): 100 ms is
/// 98 TU (100352 µs), 261120 µs 255 TU; 65280 µs stays 255 × 256 µs, 4000 µs 16 × 256 µs. In
/// a beacon, one schedule needing TUs puts the element's sets in TUs.
#[test]
fn long_wake_durations_are_written_in_tus() {
    use wattlab_core::power::TwtAgreement;
    for (d, unit_bit, field) in [(4000, false, 16u8), (65_280, false, 255), (65_281, true, 64), (100_000, true, 98), (261_120, true, 255)] {
        let a = TwtAgreement::new(1000, d, false).unwrap();
        assert_eq!((super::needs_tu(&a), super::wake_duration(&a, super::needs_tu(&a))), (unit_bit, field), "{d} µs");
        let b = a.with_broadcast(1).unwrap();
        let e = super::broadcast_twt_elements(&[b, TwtAgreement::new(1000, 4000, false).unwrap().with_broadcast(2).unwrap()], 0);
        let body = &elements(&e, 216)[0];
        assert_eq!(body[0] & 0x20 != 0, unit_bit);
        // Set 1's duration octet, then set 2's (4000 µs: 16 × 256 µs, or 4 TU).
        assert_eq!((body[1 + 4], body[1 + 9 + 4]), (field, if unit_bit { 4 } else { 16 }), "{d} µs");
    }
}
