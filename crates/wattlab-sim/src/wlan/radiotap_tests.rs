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

const FIELDS: [&str; 13] = [
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
];

/// Checks the capture at `path` frame by frame against `logged`; returns the counts of
/// (A-MPDU MPDUs, retries, PM bits set, frames with bad FCS).
fn check(name: &str, logged: &[AirFrame], path: &Path) -> Option<(usize, usize, usize, usize)> {
    let rows = tshark(path, &FIELDS)?;
    assert_eq!(rows.len(), logged.len(), "{name}: one record per logged frame");
    let (mut ampdu, mut retries, mut pm, mut bad) = (0, 0, 0, 0);
    let mut refs = std::collections::HashMap::new();
    for (k, (r, f)) in rows.iter().zip(logged).enumerate() {
        let at = format!("{name}: frame {} ({:?} {}→{})", k + 1, f.kind, f.from, f.to);
        assert!(r[12].is_empty(), "{at}: malformed: {r:?}");
        let ts: f64 = r[0].parse().unwrap();
        let want_ts = 946_684_800.0 + f.start.as_nanos() as f64 * 1e-9;
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
    assert_eq!(first.timestamp.as_nanos(), 1_795_798_800_000_000_000 + u128::from(logged[0].start.as_nanos()));
    let opts = BuildOptions { out_dir: Some(dir.clone()), pcaps: vec!["server:eth0".into()], ..Default::default() };
    let e = Simulation::from_toml(&text, "r.toml", None, &["output.pcap_link=\"radiotap\"".into()], &opts).err().unwrap().to_string();
    assert!(e.contains("output.pcap_link") && e.contains("not on a [[wlan]]"), "{e}");
    for (bad, why) in [("2026-11-27T18:00:00", "time zone"), ("1960-01-01", "between 1970")] {
        let e = Simulation::from_toml(&text, "r.toml", None, &[format!("output.pcap_epoch={bad}")], &opts).err().unwrap().to_string();
        assert!(e.contains("output.pcap_epoch") && e.contains(why), "{e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A BSS with a broadcast TWT member cannot be captured as radiotap yet (the writer would
/// label its setup frames and beacons as individual TWT): a clear error, not a wrong capture.
#[test]
fn broadcast_twt_is_refused_with_its_reason() {
    let dir = temp_dir("btwt");
    let text = scenario(HE, "twt:interval=100ms,duration=8192us,broadcast=1", "");
    let opts = BuildOptions { out_dir: Some(dir.clone()), pcaps: vec!["client:wlan0".into()], ..Default::default() };
    let e = Simulation::from_toml(&text, "r.toml", None, &["output.pcap_link=\"radiotap\"".into()], &opts).err().unwrap().to_string();
    assert!(e.contains("output.pcap_link") && e.contains("broadcast TWT"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
