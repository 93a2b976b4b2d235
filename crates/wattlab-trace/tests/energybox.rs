//! EnergyBox emulation: the import of EnergyBox's own files, a timeline computed by hand from
//! EnergyBox's documented Wi-Fi semantics, and EnergyBox's own results on the same captures
//! (`tests/data/energybox/`, produced by running EnergyBox's Wi-Fi engine; see the README there).
//!
//! EnergyBox's semantics: time 0 is the first packet, where the radio goes PSM → CAM; any
//! packet wakes it; a gap longer than `CAM_PSM_INACTIVITY_TIME` returns it to PSM that long
//! after the last packet; the timeline ends that long after the capture's last packet; CAM time
//! inside a `CAM_TIME_WIMDOW` window (end to end from time 0) whose frames (wire lengths) sum to
//! more than `WINDOW_DATA_RATE_THRESHOLD` is CAMH; packets take no airtime; energy is the sum of
//! time × power of the states (watts in the device file).

mod common;

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use common::*;
use pcap_file::{DataLink, Endianness, TsResolution};
use wattlab_core::energy::{EnergyReport, PsmParams};
use wattlab_core::Duration;
use wattlab_trace::airtime::Airtime;
use wattlab_trace::energy::*;
use wattlab_trace::energybox::EnergyBoxConfig;
use wattlab_trace::policy_spec::{PolicySpec, SpecContext};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/energybox").join(name)
}

/// EnergyBox's Samsung Galaxy S2 device file and its default Wi-Fi network settings.
fn samsung_s2() -> EnergyBoxConfig {
    EnergyBoxConfig::load(&[data("samsungS2_wifi.config"), data("wifi_default.config")]).unwrap()
}

/// Costs `capture` as the CLI does with `--energybox` (instant airtime, tail = the
/// inactivity time, the imported policy's defaults), under `policies`.
fn emulate(capture: &Path, client: IpAddr, policies: &[&str]) -> EnergyAnalysis {
    let eb = samsung_s2();
    let cx = SpecContext { psm: Some(PsmParams::default()), energybox: Some(&eb), transitions: None };
    let opts = EnergyOptions {
        client: Some(client),
        profile: eb.profile().unwrap().unwrap(),
        airtime: Airtime::Instant,
        policies: policies.iter().map(|p| PolicySpec::parse(p, &cx).unwrap()).collect(),
        bin: Duration::from_millis(50),
        tail: eb.tail().unwrap(),
        timeline: TimelineOutput::Memory,
        time: wattlab_trace::timecheck::TimeLimits::default(),
        max_connections: DEFAULT_MAX_CONNECTIONS,
        client_mac: None,
    };
    analyze(capture, &opts).unwrap()
}

fn report<'a>(a: &'a EnergyAnalysis, label: &str) -> &'a EnergyReport {
    &a.policies.iter().find(|p| p.label == label).expect("policy").report
}

const CLIENT: [u8; 4] = [10, 0, 0, 2];
const SERVER: [u8; 4] = [10, 0, 0, 1];

/// Ethernet/IPv4/TCP frame of `ip_len` IP bytes (wire length `ip_len + 14`).
fn frame(up: bool, ip_len: usize) -> Vec<u8> {
    let (s, d, p) = if up { (CLIENT, SERVER, (40000, 80)) } else { (SERVER, CLIENT, (80, 40000)) };
    ethernet(&ipv4_tcp(s, d, p, 1, 1, ip_len - 40))
}

/// A capture whose EnergyBox timeline is worked out by hand (S2: PSM 0.03 W, CAM 0.25 W,
/// CAMH 0.45 W; 200 ms, 50 ms windows, 3000 bytes):
///
/// | packets (ms: IP bytes)       | window, wire bytes            | state                 |
/// |------------------------------|-------------------------------|-----------------------|
/// | 0: 40 up, 10: 1500, 20: 1500 | [0, 50): 54 + 2·1514 = 3082   | CAMH [0, 50)          |
/// | 60: 1500, 70: 1500           | [50, 100): 3028 (IP: 3000)    | CAMH [50, 100)        |
/// | (none until 1000)            |                               | CAM [100, 270)        |
/// |                              |                               | PSM [270, 1000)       |
/// | 1000: 40 up                  | [1000, 1050): 54              | CAM [1000, 1200)      |
///
/// Energy: 0.1·0.45 + 0.17·0.25 + 0.73·0.03 + 0.2·0.25 = 0.1594 J. The window [50, 100) is
/// high only because EnergyBox counts wire lengths: counting IP bytes (3000, not above the
/// threshold) gives CAMH [0, 50) and CAM [50, 270): 0.1494 J.
#[test]
fn a_hand_computed_energybox_timeline() {
    let ms = |x: u64| 1_700_000_000_000_000_000 + x * 1_000_000;
    let frames = vec![
        (ms(0), frame(true, 40)),
        (ms(10), frame(false, 1500)),
        (ms(20), frame(false, 1500)),
        (ms(60), frame(false, 1500)),
        (ms(70), frame(false, 1500)),
        (ms(1000), frame(true, 40)),
    ];
    let dir = std::env::temp_dir().join(format!("wattlab-energybox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("hand.pcap");
    std::fs::write(&path, pcap(DataLink::ETHERNET, TsResolution::NanoSecond, Endianness::Little, &frames)).unwrap();
    let a = emulate(&path, IpAddr::V4(Ipv4Addr::from(CLIENT)), &["adaptive-psm", "adaptive-psm:bytes=ip", "always-on"]);
    assert_eq!(a.end_ns - a.start_ns, 1_200_000_000, "the timeline ends 200 ms after the last packet");
    let r = report(&a, "adaptive-psm");
    assert_eq!(
        (r.idle_high.time_ns, r.idle.time_ns, r.sleep.time_ns, r.tx.time_ns + r.rx.time_ns),
        (100_000_000, 370_000_000, 730_000_000, 0)
    );
    assert_eq!(r.total_energy_nj, 159_400_000);
    let ip = report(&a, "adaptive-psm:bytes=ip");
    assert_eq!((ip.idle_high.time_ns, ip.total_energy_nj), (50_000_000, 149_400_000));
    // Always-on over the same 1.2 s: CAM throughout (0.3 J); read as mW it was 0.3 mJ.
    assert_eq!(report(&a, "always-on").total_energy_nj, 300_000_000);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// EnergyBox's own number: the `energybox` policy (its engine, emulated with its artifacts)
/// gives exactly what EnergyBox computed on every capture it was run on: the unrounded sum
/// (bit for bit), the printed "Total Power Used" (4 decimals), the time in each state and
/// the number of packets.
#[test]
fn the_energybox_policy_gives_energybox_own_results_exactly() {
    let refs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("energybox_results.json")).unwrap()).unwrap();
    let captures = refs["captures"].as_object().unwrap();
    assert_eq!(captures.len(), 9);
    for (name, eb) in captures {
        let client: IpAddr = eb["source_ip"].as_str().unwrap().parse().unwrap();
        let a = emulate(&data(name), client, &["energybox", "adaptive-psm"]);
        let p = &a.policies[0];
        let o = p.energybox.as_ref().expect("the engine's outcome");
        let f = |k: &str| eb[k].as_f64().unwrap();
        assert_eq!(o.energy_j, f("power"), "{name}: EnergyBox's unrounded energy");
        assert_eq!(o.printed_j, f("total_power_joules"), "{name}: its printed total");
        assert_eq!(o.time_s, [f("time_in_psm"), f("time_in_cam"), f("time_in_camh")], "{name}: time per state");
        assert_eq!(o.frames, eb["packets"].as_u64().unwrap(), "{name}: packets");
        // The report carries the same energy (fJ) and times (ns).
        assert_eq!(p.report.total_energy_fj, (f("power") * 1e15).round() as u128, "{name}");
        assert_eq!(p.report.idle_high.time_ns, (f("time_in_camh") * 1e9).round() as u64, "{name}");
        // EnergyBox's definition, costed exactly (adaptive-psm), differs only where the engine
        // reports an artifact.
        let def = report(&a, "adaptive-psm").total_energy_fj as f64 * 1e-15;
        let x = o.artifacts;
        let clean = x.late_streak_ends == 0 && x.bridged_windows == 0 && x.streak_to_last_packet_s == 0.0 && !x.partial_window_high;
        if clean {
            assert!((def - o.energy_j).abs() < 1e-6, "{name}: definition {def} vs EnergyBox {}", o.energy_j);
        } else {
            assert!((def - o.energy_j).abs() > 1e-4, "{name}: artifacts {x:?} but no difference");
        }
    }
}

/// Each artifact of EnergyBox's engine on the capture that shows it (`docs/trace.md` lists
/// them with what they do to the number).
#[test]
fn the_engine_reports_each_artifact_where_it_occurs() {
    let refs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(data("energybox_results.json")).unwrap()).unwrap();
    let outcome = |name: &str| {
        let client: IpAddr = refs["captures"][name]["source_ip"].as_str().unwrap().parse().unwrap();
        emulate(&data(name), client, &["energybox"]).policies[0].energybox.clone().unwrap()
    };
    // burst10: one streak, closed 1 ms after its window: 1 ms × (0.45 − 0.25) W.
    let o = outcome("burst10.pcap");
    assert_eq!((o.artifacts.late_streak_ends, o.artifacts.backwards_steps, o.artifacts.bridged_windows), (1, 0, 0));
    // burst10_only / tail_burst: the burst is in the last, partial window, never counted.
    for name in ["burst10_only.pcap", "tail_burst.pcap"] {
        let o = outcome(name);
        assert!(o.artifacts.partial_window_high && o.artifacts.partial_window_bytes > 3000, "{name}: {o:?}");
        assert_eq!(o.high_windows, 0, "{name}");
    }
    // straddle50: the streak of the window [250, 300) ms runs to the last packet (330 ms).
    let o = outcome("straddle50.pcap");
    assert!((o.artifacts.streak_to_last_packet_s - 0.03).abs() < 1e-9, "{o:?}");
    // web10: streaks bridge low windows without packets between a page's bursts, and a
    // closing step lands after the next point (time runs backwards once).
    let o = outcome("web10.pcap");
    assert!(o.artifacts.bridged_windows > 0 && o.artifacts.backwards_steps >= 1, "{o:?}");
    // demo_200KB: the backwards step too.
    assert!(outcome("demo_200KB.pcap").artifacts.backwards_steps >= 1);
}

/// EnergyBox's engine alone (no meter): the run still starts at the first packet and ends
/// the inactivity time after the last, as with the other policies beside it.
#[test]
fn the_engine_alone_spans_the_run() {
    let client: IpAddr = "10.0.0.5".parse().unwrap();
    let alone = emulate(&data("web10.pcap"), client, &["energybox"]);
    let both = emulate(&data("web10.pcap"), client, &["energybox", "adaptive-psm"]);
    assert_eq!((alone.start_ns, alone.end_ns), (both.start_ns, both.end_ns));
    // EnergyBox's own span is in whole µs (its times are truncated to µs).
    assert!((alone.end_ns - alone.start_ns).abs_diff(alone.policies[0].report.duration_ns) < 2_000);
    assert_eq!(alone.throughput, both.throughput);
}
