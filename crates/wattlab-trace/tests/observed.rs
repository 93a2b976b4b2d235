//! The `observed` policy (issue 31 item 2) on tests/data/wlan/psm.pcap, a power-save sequence
//! whose every interval is worked out by hand in make_captures.py (`psm_frames`), and its
//! refusals.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use wattlab_core::energy::{builtin_profile, RadioState};
use wattlab_core::Duration;
use wattlab_trace::airtime::Airtime;
use wattlab_trace::energy::{analyze, EnergyAnalysis, EnergyOptions, PolicyOutcome, TimelineOutput, DEFAULT_MAX_CONNECTIONS};
use wattlab_trace::observed::{parse_mac, ppdu_airtime, tx_vector};
use wattlab_trace::policy_spec::{PolicySpec, SpecContext};
use wattlab_trace::TraceReader;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/wlan").join(name)
}

const STA: &str = "02:00:00:00:00:02";
/// The capture's first PPDU starts here (make_captures.py's T_PSM), ns since the epoch.
const T: u64 = (1_704_067_200 + 3600) * 1_000_000_000;

fn options(profile: &str, policies: &[&str], mac: Option<&str>, timeline: TimelineOutput) -> EnergyOptions {
    let cx = SpecContext::default();
    EnergyOptions {
        client: Some("10.0.0.2".parse::<IpAddr>().unwrap()),
        profile: builtin_profile(profile).unwrap(),
        airtime: Airtime::parse("802.11a@54").unwrap(),
        policies: policies.iter().map(|p| PolicySpec::parse(p, &cx).unwrap()).collect(),
        bin: Duration::from_millis(100),
        tail: Duration::ZERO,
        timeline,
        time: wattlab_trace::timecheck::TimeLimits::default(),
        max_connections: DEFAULT_MAX_CONNECTIONS,
        client_mac: mac.map(|m| parse_mac(m).unwrap()),
    }
}

fn observed(a: &EnergyAnalysis) -> &PolicyOutcome {
    a.policies.iter().find(|p| p.name == "observed").expect("observed row")
}

const US: u64 = 1_000;

/// Every state's time, the counts and the energy, as make_captures.py's timeline has them.
#[test]
fn psm_sequence_costs_as_computed_by_hand() {
    let opts = options("wavelan-turbo-2mbps", &["observed", "always-on"], Some(STA), TimelineOutput::Memory);
    let a = analyze(&data("psm.pcap"), &opts).unwrap();
    let p = observed(&a);
    let r = &p.report;
    // tx: Null 32, PS-Poll 28, its ACK 28, PS-Poll 28, the inferred ACK 28, Null 32 µs.
    assert_eq!(r.tx.time_ns, 176 * US);
    // rx: 3 beacons of 100, the AP's 3 ACKs of 28, 2 data frames of 44 µs.
    assert_eq!(r.rx.time_ns, 472 * US);
    // Asleep [1076, 102400), [103388, 204800), [204900, 250000) µs.
    assert_eq!(r.sleep.time_ns, (101_324 + 101_412 + 45_100) * US);
    // Idle: the rest of [0, 250076) µs.
    assert_eq!(r.idle.time_ns, 1_592 * US);
    assert_eq!((r.start_ns, r.end_ns), (T, T + 250_076 * US));
    let profile = &opts.profile;
    let fj: u128 = [(RadioState::Tx, 176), (RadioState::Rx, 472), (RadioState::Idle, 1_592), (RadioState::Sleep, 247_836)]
        .iter()
        .map(|&(s, us)| u128::from(us * US) * u128::from(profile.power_uw(s)))
        .sum();
    assert_eq!(r.total_energy_fj, fj);
    let o = p.observed.as_ref().unwrap();
    assert_eq!((o.ap_mac.as_deref(), o.aid), (Some("02:00:00:00:00:01"), Some(1)));
    assert_eq!((o.tx_frames, o.tx_responses, o.responses_inferred), (4, 1, 1));
    assert_eq!((o.rx_frames, o.beacons, o.overheard), (5, 3, 2));
    assert_eq!((o.pm_set, o.pm_clear, o.nulls, o.ps_polls), (3, 1, 2, 2));
    assert_eq!((o.dozes, o.woke_to_receive, o.phy_fallback, o.ppdus), (3, 0, 0, 15));
    // The timeline: dozing from 1076 µs, awake for the beacon at 102400 µs.
    let tl: Vec<(u64, RadioState)> = p.timeline.iter().map(|(t, s)| ((t - T) / US, s)).collect();
    assert!(tl.contains(&(1_076, RadioState::Sleep)) && tl.contains(&(102_400, RadioState::Rx)), "{tl:?}");
    // Always-on costs the same capture's IP packets awake from its first to its last: more.
    let on = a.policies.iter().find(|p| p.name == "always-on").unwrap();
    assert!(on.report.total_energy_fj > 0 && on.observed.is_none());
}

/// A station that overhears (overhear=rx) pays rx for the others' frames it hears awake; with
/// listen=none it misses the beacons while dozing, and so the second beacon finds it asleep.
#[test]
fn overhearing_and_not_listening_change_what_is_costed() {
    let base = analyze(&data("psm.pcap"), &options("wavelan-turbo-2mbps", &["observed"], Some(STA), TimelineOutput::Off)).unwrap();
    let rx0 = observed(&base).report.rx.time_ns;
    let a = analyze(&data("psm.pcap"), &options("wavelan-turbo-2mbps", &["observed:overhear=rx"], Some(STA), TimelineOutput::Off))
        .unwrap();
    // The overheard data frame (44 µs) and its ACK (28 µs).
    assert_eq!(observed(&a).report.rx.time_ns, rx0 + 72 * US);
    let b = analyze(&data("psm.pcap"), &options("wavelan-turbo-2mbps", &["observed:listen=none"], Some(STA), TimelineOutput::Off))
        .unwrap();
    let o = observed(&b).observed.clone().unwrap();
    // Beacons 2 and 3 are not heard (200 µs less rx); beacon 1 was, awake.
    assert_eq!(observed(&b).report.rx.time_ns, rx0 - 200 * US);
    assert_eq!(o.beacons, 1);
}

/// The airtime of each PHY field set of radiotap.pcap is the simulator's PPDU duration for
/// the TxVector the fields name (hand-computed for HT MCS 15, 40 MHz, short GI).
#[test]
fn tx_vectors_from_radiotap_fields() {
    let mut r = TraceReader::open(data("radiotap.pcap")).unwrap();
    let mut seen = Vec::new();
    while let Some(f) = r.next_wlan() {
        let f = f.unwrap();
        if let Some((phy, tx)) = tx_vector(&f.phy) {
            seen.push((phy.name, format!("{tx:?}"), phy.ppdu_duration(f.mpdu_len, tx).as_nanos()));
        }
    }
    // A 6 Mb/s legacy frame of 55 bytes on 802.11a: 20 + 4 × ceil((16 + 440 + 6) / 24) = 100 µs.
    assert!(seen.iter().any(|s| s.0 == "802.11a" && s.1 == "Legacy { kbps: 6000 }"), "{seen:?}");
    // HT MCS 15 = MCS 7 × 2 streams, 40 MHz, 400 ns GI.
    assert!(seen.iter().any(|s| s.0 == "802.11n" && s.1.contains("mcs: 7, nss: 2, width_mhz: 40, gi_ns: 400")), "{seen:?}");
    assert!(seen.iter().any(|s| s.0 == "802.11ac" && s.1.contains("mcs: 9, nss: 2, width_mhz: 80, gi_ns: 400")));
    assert!(seen.iter().any(|s| s.0 == "802.11ax" && s.1.contains("mcs: 7, nss: 2, width_mhz: 20, gi_ns: 1600")));
}

/// Without --client-mac, or with a station the capture does not hold: a clear error.
#[test]
fn refusals_name_what_is_missing() {
    let e = analyze(&data("psm.pcap"), &options("wavelan-turbo-2mbps", &["observed"], None, TimelineOutput::Off)).unwrap_err();
    assert!(e.to_string().contains("give its MAC address with --client-mac"), "{e}");
    let e = analyze(&data("psm.pcap"), &options("wavelan-turbo-2mbps", &["observed"], Some("02:00:00:00:00:77"), TimelineOutput::Off))
        .unwrap_err();
    assert!(e.to_string().contains("no 802.11 frame to or from 02:00:00:00:00:77"), "{e}");
    assert!(parse_mac("02:00:00:00:00").unwrap_err().contains("not a MAC address"));
    assert!(parse_mac("02:00:00:00:00:zz").is_err());
}

/// tests/data/wlan/twt.pcap (make_captures.py `twt_frames`): the accepted agreement's service
/// periods are where its TWT element and the TSFT put them; the station is awake through each
/// and reads no beacon.
#[test]
fn twt_agreement_from_the_setup_frames_as_computed_by_hand() {
    let a = analyze(&data("twt.pcap"), &options("wavelan-turbo-2mbps", &["observed"], Some(STA), TimelineOutput::Memory)).unwrap();
    let p = observed(&a);
    let r = &p.report;
    const T_TWT: u64 = (1_704_067_200 + 7200) * 1_000_000_000;
    assert_eq!((r.start_ns, r.end_ns), (T_TWT, T_TWT + 120_088 * US));
    // tx: TWT request 40, its ACK of the response 28, the inferred ACK 28, its data 44 µs.
    assert_eq!(r.tx.time_ns, 140 * US);
    // rx: beacon 100, ACK 28, TWT response 40, data 44, ACK 28 µs (not the second beacon).
    assert_eq!(r.rx.time_ns, 240 * US);
    // Asleep from 2084 to the first SP (10000), between the SPs (17952 µs each, five of them)
    // and from the sixth SP's end (112048) to its own send (120000).
    assert_eq!(r.sleep.time_ns, (7_916 + 5 * 17_952 + 7_952) * US);
    assert_eq!(r.idle.time_ns, 14_080 * US);
    let o = p.observed.as_ref().unwrap();
    assert_eq!((o.twt_setups, o.twt_agreements, o.service_periods, o.dozes), (2, 1, 6, 7));
    assert_eq!((o.beacons, o.responses_inferred, o.woke_to_receive), (1, 1, 0));
    let tl: Vec<(u64, RadioState)> = p.timeline.iter().map(|(t, s)| ((t - T_TWT) / US, s)).collect();
    for sp in [10_000, 30_000, 110_000] {
        assert!(tl.contains(&(sp, RadioState::Idle)) && tl.contains(&(sp + 2_048, RadioState::Sleep)) || sp == 110_000, "{tl:?}");
    }
    assert!(tl.contains(&(112_048, RadioState::Sleep)), "{tl:?}");
}

/// radiotap.pcap's two consecutive subframes of A-MPDU 7 (QoS data at HT MCS 15 and its retry)
/// are one PPDU, its PSDU both MPDUs behind 4-byte delimiters, the first padded to 4 bytes.
#[test]
fn an_ampdu_is_one_ppdu_of_its_subframes() {
    let mut r = TraceReader::open(data("radiotap.pcap")).unwrap();
    let mut subframes = Vec::new();
    while let Some(f) = r.next_wlan() {
        let f = f.unwrap();
        if f.phy.ampdu.is_some_and(|a| a.reference == 7) && subframes.len() < 2 {
            subframes.push((f.mpdu_len, tx_vector(&f.phy).unwrap()));
        }
    }
    let [(a, (phy, tx)), (b, _)] = subframes[..] else { panic!("{subframes:?}") };
    let psdu = (4 + a).next_multiple_of(4) + 4 + b;
    let a_mpdu = phy.ppdu_duration(psdu, tx).as_nanos();
    let opts = options("wavelan-turbo-2mbps", &["observed:overhear=rx"], Some(STA), TimelineOutput::Off);
    let an = analyze(&data("radiotap.pcap"), &opts).unwrap();
    let o = observed(&an).observed.clone().unwrap();
    // 24 frames with a good FCS, two of them one PPDU; the A-MSDU later has reference 7 too,
    // but not next to them: a PPDU of its own.
    assert_eq!((o.ppdus, o.ampdus), (23, 2), "{o:?}");
    // The A-MPDU's airtime is less than its two MPDUs sent apart (one preamble).
    assert!(a_mpdu < phy.ppdu_duration(a, tx).as_nanos() + phy.ppdu_duration(b, tx).as_nanos());
}

/// A simulated radiotap capture of a trigger-enabled TWT station (802.11ax, MCS 7, 20 MHz,
/// 0.8 µs GI): each of its QoS-Null answers to a Basic Trigger is marked HE TB (data1 format
/// 3) and timed as one, so it ends SIFS (16 µs) before the AP's ACK starts, as the simulator
/// laid them out (within the TSFT's 1 µs); timed as HE SU it would end 4 µs (the HE-STF) plus
/// the GI difference early.
#[test]
fn he_tb_answers_are_timed_as_tb_ppdus() {
    let dir = std::env::temp_dir().join(format!("wattlab-observed-tb-{}", std::process::id()));
    simulate_he(&dir, "twt:interval=100ms,duration=4000us,trigger=true");
    let mut r = TraceReader::open(dir.join("client-wlan0.pcap")).unwrap();
    let mut frames = Vec::new();
    while let Some(f) = r.next_wlan() {
        let f = f.unwrap();
        frames.push((f.phy, f.mpdu_len));
    }
    let mut checked = 0;
    for w in frames.windows(2) {
        let ((rt, len), (next, _)) = (&w[0], &w[1]);
        if rt.he.is_none_or(|h| h.format() != 3) || rt.ampdu.is_some() {
            continue;
        }
        let (phy, tx) = tx_vector(rt).unwrap();
        // TSFT is whole µs (truncated): the airtime is known to within 1 µs of the gap.
        let room = (next.tsft.unwrap() - rt.tsft.unwrap() - 16) as i64 * 1_000;
        let tb = ppdu_airtime(rt, &phy, *len, tx).as_nanos() as i64;
        assert!((tb - room).abs() < 1_000, "TB {tb} ns vs {room} ns: {rt:?}");
        assert!(room - phy.ppdu_duration(*len, tx).as_nanos() as i64 > 2_000, "HE SU timing would be short");
        checked += 1;
    }
    assert!(checked >= 10, "{checked} single-MPDU TB PPDUs");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs an 802.11ax BSS (MCS 7, 20 MHz, 0.8 µs GI) whose client pings in power-save `mode`,
/// writing a radiotap capture of the channel to `dir`/client-wlan0.pcap.
fn simulate_he(dir: &Path, mode: &str) {
    simulate(dir, "phy = \"802.11ax\"\nmcs = 7\nwidth = 20\ngi = \"800ns\"", mode, "");
}

/// [`simulate_he`] on the PHY `phy` (its `[[wlan]]` keys), with `flow` (a `[[flow]]` table)
/// after the pings.
fn simulate(dir: &Path, phy: &str, mode: &str, flow: &str) {
    let text = format!(
        r#"
[simulation]
duration = "3s"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
[[link]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "10ms"
[[wlan]]
name = "bss"
ap = "ap"
stations = ["client"]
{phy}
power_save = "{mode}"
[[flow]]
kind = "ping"
from = "client"
to = "server"
count = 4
interval = "500ms"
{flow}
"#
    );
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let opts = wattlab_sim::build::BuildOptions { out_dir: Some(dir.to_path_buf()), pcaps: vec!["client:wlan0".into()], ..Default::default() };
    wattlab_sim::Simulation::from_toml(&text, "he.toml", None, &["output.pcap_link=\"radiotap\"".into()], &opts).unwrap().run().unwrap();
}

/// A capture of a broadcast TWT member (its TWT Setup frames carry negotiation type 3; it
/// was refused): costed as a member of schedule 2, its SPs placed from the announcements
/// (100 ms: 100000 mod 1024 = 672, so the beacons narrow the phase window below a TU).
#[test]
fn broadcast_twt_members_are_costed_from_the_announcements() {
    let dir = std::env::temp_dir().join(format!("wattlab-observed-btwt-{}", std::process::id()));
    simulate_he(&dir, "twt:interval=100ms,duration=4000us,broadcast=2");
    let mut o = options("wavelan-dsss", &["observed:listen=none"], Some("02:00:00:00:00:03"), TimelineOutput::Off);
    o.client = None;
    let a = analyze(&dir.join("client-wlan0.pcap"), &o).unwrap();
    let p = a.policies.iter().find(|p| p.name.starts_with("observed")).expect("observed row");
    let x = p.observed.as_ref().expect("observed outcome");
    assert_eq!((x.broadcast_twt_id, x.twt_agreements), (Some(2), 1), "{x:?}");
    // One SP every 100 ms after the setup (at t = 0) to the capture's end (the pings end
    // at 1.6 s: 16); the window narrowed below a TU by the beacons.
    assert_eq!(x.service_periods, (x.end_ns - x.start_ns) / 100_000_000, "{x:?}");
    assert!(x.broadcast_twt_window_us.is_some_and(|w| w < 1023), "{x:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `stamp=start` reads a capture stamped at PPDU starts as the default (`stamp=end`) reads the
/// same capture stamped at PPDU ends: psm.pcap (end stamps) rewritten with each record moved one
/// PPDU earlier (its airtime from its own radiotap fields) costs the same to the fJ, over the
/// same span; read with the default instead, the start-stamped copy is costed differently.
#[test]
fn start_stamps_read_with_stamp_start_cost_as_end_stamps_by_default() {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
    let src = data("psm.pcap");
    let mut airtime = std::collections::HashMap::new();
    let mut r = TraceReader::open(&src).unwrap();
    while let Some(f) = r.next_wlan() {
        let f = f.unwrap();
        assert!(f.phy.ampdu.is_none(), "one MPDU per PPDU in psm.pcap");
        let (phy, tx) = tx_vector(&f.phy).unwrap();
        airtime.insert(f.index, ppdu_airtime(&f.phy, &phy, f.mpdu_len, tx));
    }
    let dst = std::env::temp_dir().join(format!("wattlab-observed-start-{}.pcap", std::process::id()));
    let mut reader = PcapReader::new(std::fs::File::open(&src).unwrap()).unwrap();
    let header = PcapHeader { ts_resolution: pcap_file::TsResolution::NanoSecond, ..reader.header() };
    let mut w = PcapWriter::with_header(std::fs::File::create(&dst).unwrap(), header).unwrap();
    let mut index = 0u64;
    while let Some(p) = reader.next_packet() {
        let p = p.unwrap();
        let back = airtime.get(&index).map_or(0, |d| d.as_nanos());
        let ts = std::time::Duration::from_nanos(p.timestamp.as_nanos() as u64 - back);
        w.write_packet(&PcapPacket::new(ts, p.orig_len, &p.data)).unwrap();
        index += 1;
    }
    drop(w);
    assert!(airtime.len() >= 15 && airtime.values().all(|d| d.as_nanos() > 0), "{airtime:?}");
    let cost = |path: &Path, policy: &str| {
        let a = analyze(path, &options("wavelan-turbo-2mbps", &[policy], Some(STA), TimelineOutput::Off)).unwrap();
        observed(&a).report.clone()
    };
    let (end, start) = (cost(&src, "observed"), cost(&dst, "observed:stamp=start"));
    assert_eq!((start.start_ns, start.end_ns, start.total_energy_fj), (end.start_ns, end.end_ns, end.total_energy_fj));
    assert_eq!((start.sleep.time_ns, start.idle.time_ns, start.rx.time_ns, start.tx.time_ns), (end.sleep.time_ns, end.idle.time_ns, end.rx.time_ns, end.tx.time_ns));
    assert_ne!(cost(&dst, "observed").total_energy_fj, end.total_energy_fj, "the default misreads start stamps");
    std::fs::remove_file(&dst).unwrap();
}

/// A simulated 802.11n download: the client answers each of the AP's A-MPDUs with a Block Ack
/// on the air, which is its response (none inferred; before, every captured Block Ack left an
/// ACK inferred for its A-MPDU as well, one per A-MPDU).
#[test]
fn captured_block_acks_answer_their_ampdus() {
    let dir = std::env::temp_dir().join(format!("wattlab-observed-ba-{}", std::process::id()));
    let bulk = "[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"300kB\"\nstart = \"1s\"";
    simulate(&dir, "phy = \"802.11n\"\nmcs = 7\nwidth = 20", "cam", bulk);
    let mut o = options("wavelan-dsss", &["observed"], Some("02:00:00:00:00:03"), TimelineOutput::Off);
    o.client = None;
    let a = analyze(&dir.join("client-wlan0.pcap"), &o).unwrap();
    let o = observed(&a).observed.clone().unwrap();
    assert!(o.ampdus >= 20, "{o:?}");
    assert_eq!(o.responses_inferred, 0, "{o:?}");
    assert!(o.tx_responses >= o.ampdus / 2, "{o:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
