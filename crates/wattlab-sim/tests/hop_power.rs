//! Power saving on the simple `[[wireless]]` hop (seed 000's IP-level emulation of 802.11 PSM
//! and BSD): RTT rounding, transfer time and energy against CAM, BSD's bounded slowdown,
//! determinism, scenario errors.

use wattlab_sim::{BuildOptions, Simulation, Summary};

/// server ──(100 Mb/s, `one_way`)── ap ~~(20 Mb/s DummyNet-like hop, `hop_extra`)~~ client
fn scenario(one_way: &str, hop_extra: &str, flows: &str) -> String {
    format!(
        r#"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
radio = {{ profile = "wavelan-dsss", policies = ["always-on", "oracle"] }}
[[link]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "{one_way}"
[[wireless]]
name = "hop"
ap = "ap"
station = "client"
rate = "20Mbps"
{hop_extra}
{flows}
"#
    )
}

fn run(text: &str) -> Summary {
    let sim = Simulation::from_toml(text, "hop.toml", Some(3), &[], &BuildOptions::default()).expect("scenario builds");
    sim.run().expect("run succeeds").summary
}

fn energy(s: &Summary, policy: &str) -> f64 {
    s.radios.iter().find(|r| r.policy == policy).unwrap_or_else(|| panic!("no `{policy}` meter")).energy_j
}

fn sleep_s(s: &Summary, policy: &str) -> f64 {
    let r = s.radios.iter().find(|r| r.policy == policy).unwrap();
    r.report.sleep.time_ns as f64 * 1e-9
}

fn ping(count: u32, interval: &str) -> String {
    format!("[[flow]]\nkind = \"ping\"\nfrom = \"client\"\nto = \"server\"\ncount = {count}\ninterval = \"{interval}\"\n")
}

const DOWNLOAD_1MB: &str = "[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"1MB\"\n";

#[test]
fn ideal_psm_rounds_ping_rtts_up_to_the_beacon() {
    for (one_way, expect_ms) in [("15ms", 100.0), ("65ms", 200.0)] {
        let cam = run(&scenario(one_way, "", &ping(5, "1s")));
        let s = run(&scenario(one_way, "power_save = \"ideal-psm\"", &ping(5, "1s")));
        let base = &cam.flows[0].rtt_ms();
        let rtts = &s.flows[0].rtt_ms();
        assert_eq!(rtts.len(), 5, "{rtts:?}");
        println!("path {one_way}: cam {base:?} ideal-psm {rtts:?}");
        for (&r, &b) in rtts.iter().zip(base.iter()) {
            // The reply waits for the next beacon, then crosses the hop (one 84-byte frame).
            assert!(r >= expect_ms && r < expect_ms + 1.0, "path {one_way}: RTT {r} ms (cam {b} ms)");
            assert!(b < expect_ms - 60.0, "cam RTT {b} ms");
        }
        let w = &s.wireless[0];
        assert_eq!(w.power_save, "ideal-psm");
        assert_eq!((w.stats.bursts, w.stats.packets_held, w.stats.packets_released), (5, 5, 5));
        assert_eq!(w.stats.dropped_asleep, 0);
        // Dozing between the request and the beacon and between pings: most of the run.
        let run_s = s.end_time_s;
        assert!(w.stats.doze_ns as f64 * 1e-9 > 0.85 * run_s, "{w:?} over {run_s} s");
        assert!((sleep_s(&s, "ideal-psm") - w.stats.doze_ns as f64 * 1e-9).abs() < 1e-6, "meter and counter agree");
        // Ideal PSM's wake-ups are free: no transition energy in its meter.
        let r = s.radios.iter().find(|r| r.policy == "ideal-psm").unwrap();
        assert_eq!(r.report.transitions.energy_nj, 0);
        assert!(r.report.transitions.count >= 10);
    }
}

#[test]
fn ideal_psm_download_completes_slower_for_less_energy() {
    let cam = run(&scenario("30ms", "", DOWNLOAD_1MB));
    let s = run(&scenario("30ms", "power_save = \"ideal-psm\"", DOWNLOAD_1MB));
    let (fc, fp) = (&cam.flows[0], &s.flows[0]);
    assert!(fc.completed && fp.completed);
    assert_eq!(fp.bytes_delivered, 1_000_000);
    let (tc, tp) = (fc.completion_time_s.unwrap(), fp.completion_time_s.unwrap());
    let (e_cam, e_psm) = (energy(&cam, "always-on"), energy(&s, "ideal-psm"));
    let w = &s.wireless[0];
    println!("cam {tc:.3} s {e_cam:.3} J; ideal-psm {tp:.3} s {e_psm:.3} J; {w:?}");
    assert!(tp > tc * 1.2, "PSM rounds every RTT up to 100 ms: {tp} s vs {tc} s");
    assert!(e_psm < e_cam, "ideal PSM {e_psm} J vs CAM always-on {e_cam} J");
    assert!(w.stats.bursts >= 10 && w.stats.packets_released >= 690, "{w:?}");
    assert_eq!(w.stats.packets_held, w.stats.packets_released, "nothing left held at the end");
    assert_eq!(fp.tcp().retransmitted_segments, 0, "the AP queue holds a whole window");
}

#[test]
fn bsd_download_runs_at_cam_speed_and_never_sleeps() {
    let cam = run(&scenario("30ms", "", DOWNLOAD_1MB));
    let s = run(&scenario("30ms", "power_save = \"bsd-50\"", DOWNLOAD_1MB));
    let (tc, tb) = (cam.flows[0].completion_time_s.unwrap(), s.flows[0].completion_time_s.unwrap());
    let w = &s.wireless[0];
    println!("cam {tc:.4} s; bsd-50 {tb:.4} s; {w:?}");
    assert_eq!(s.flows[0].bytes_delivered, 1_000_000);
    assert!((tb - tc).abs() <= 0.01 * tc, "BSD {tb} s vs CAM {tc} s");
    // ACKs every few ms keep the 200 ms active window open from the SYN to the last byte.
    assert_eq!(w.stats.dozes, 0, "{w:?}");
    assert_eq!(sleep_s(&s, "bsd-50"), 0.0);
    let r = s.radios.iter().find(|r| r.policy == "bsd-50").unwrap();
    let a = s.radios.iter().find(|r| r.policy == "always-on").unwrap();
    // Never asleep = always-on: same idle and receive time. (The mode meter's last frame may
    // run a few µs past the end of the run, which the policy meter clips: compare loosely.)
    assert_eq!((r.report.idle.time_ns, r.report.rx.time_ns), (a.report.idle.time_ns, a.report.rx.time_ns));
    assert_eq!(r.report.transitions.count, 0);
    assert!((r.energy_j - a.energy_j).abs() < 1e-4 * a.energy_j, "{} J vs {} J", r.energy_j, a.energy_j);
}

#[test]
fn bsd_sleeps_between_pings_within_its_bounded_slowdown() {
    // RTT 30 ms: the reply comes back inside the 200 ms active window.
    let cam = run(&scenario("15ms", "", &ping(5, "2s")));
    let s = run(&scenario("15ms", "power_save = \"bsd-50\"", &ping(5, "2s")));
    let (base, rtts) = (&cam.flows[0].rtt_ms(), &s.flows[0].rtt_ms());
    let w = &s.wireless[0];
    println!("30 ms path: cam {base:?}; bsd-50 {rtts:?}; {w:?}; run {} s", s.end_time_s);
    assert_eq!(rtts.len(), 5);
    for (&r, &b) in rtts.iter().zip(base.iter()) {
        assert!(r <= 1.5 * b + 100.0, "RTT {r} ms vs {b} ms");
    }
    // Between pings it dozes, waking at beacons 0.3, 0.4, 0.6, 0.9, 1.3, 1.9 s after each.
    assert!(w.stats.dozes >= 4 * 6, "{w:?}");
    let doze = w.stats.doze_ns as f64 * 1e-9;
    assert!(doze > 0.8 * s.end_time_s, "dozed {doze} s of {} s", s.end_time_s);
    assert!(energy(&s, "bsd-50") < 0.4 * energy(&s, "always-on"));
    // BSD pays the profile's 2 ms wake-up at every wake-up (unlike ideal PSM).
    let r = s.radios.iter().find(|r| r.policy == "bsd-50").unwrap();
    assert!(r.report.transitions.energy_nj > 0 && r.report.short_dormant_intervals == 0, "{:?}", r.report.transitions);

    // RTT 300 ms, beyond the window: the reply is held until a wake-up, and BSD-50 bounds the
    // delay to 50 % of the idle time (≈ the RTT) plus a beacon.
    let cam = run(&scenario("150ms", "", &ping(5, "2s")));
    let s = run(&scenario("150ms", "power_save = \"bsd-50\"", &ping(5, "2s")));
    let (base, rtts) = (&cam.flows[0].rtt_ms(), &s.flows[0].rtt_ms());
    println!("300 ms path: cam {base:?}; bsd-50 {rtts:?}; {:?}", s.wireless[0]);
    assert_eq!(rtts.len(), 5);
    for (&r, &b) in rtts.iter().zip(base.iter()) {
        assert!(r > b + 50.0, "the reply should wait for a wake-up: {r} ms vs {b} ms");
        assert!(r <= 1.5 * b + 100.0, "BSD bound: {r} ms vs {b} ms");
    }
    assert_eq!(s.wireless[0].stats.bursts, 5);
}

#[test]
fn same_scenario_and_seed_give_the_same_summary() {
    for mode in ["ideal-psm", "bsd-20"] {
        let text = scenario(
            "30ms",
            &format!("power_save = \"{mode}\"\nbeacon_interval = \"50ms\"\ndown = {{ loss = {{ model = \"bernoulli\", p = 0.01 }} }}"),
            &format!("{DOWNLOAD_1MB}{}", ping(4, "0.7s")),
        );
        let a = run(&text).to_json();
        assert_eq!(a, run(&text).to_json(), "{mode}");
        assert!(a.contains("\"beacon_interval_s\": 0.05"), "{a}");
    }
}

#[test]
fn hops_without_power_saving_report_no_wireless_section() {
    let s = run(&scenario("15ms", "power_save = \"cam\"", &ping(2, "1s")));
    assert!(s.wireless.is_empty());
    assert!(!s.to_json().contains("\"wireless\""));
    assert_eq!(s.radios.len(), 2, "no mode meter for CAM");
}

#[test]
fn a_station_without_a_radio_saves_power_without_a_meter() {
    let text = scenario("15ms", "power_save = \"ideal-psm\"", &ping(3, "1s")).replace(
        "radio = { profile = \"wavelan-dsss\", policies = [\"always-on\", \"oracle\"] }\n",
        "",
    );
    let s = run(&text);
    assert!(s.radios.is_empty());
    assert!(s.flows[0].rtt_ms().iter().all(|&r| (100.0..101.0).contains(&r)), "{:?}", s.flows[0].rtt_ms());
    assert_eq!(s.wireless[0].stats.bursts, 3);
}

#[test]
fn bad_power_save_settings_name_the_line_and_the_valid_modes() {
    let text = scenario("15ms", "power_save = \"bsd-0\"", &ping(1, "1s"));
    let e = Simulation::from_toml(&text, "hop.toml", None, &[], &BuildOptions::default()).err().expect("rejected");
    let msg = e.to_string();
    let line = text.lines().position(|l| l.contains("bsd-0")).unwrap() + 1;
    assert!(msg.contains(&format!("hop.toml:{line}")), "{msg}");
    assert!(msg.contains("wireless[0].power_save") && msg.contains("unknown power-save mode `bsd-0`"), "{msg}");
    assert!(msg.contains("cam, psm, ideal-psm, bsd-P"), "{msg}");
    for bad in ["PSM", "bsd-1001", "bsd-", "BSD-50", "uapsd", "ext"] {
        let text = scenario("15ms", &format!("power_save = \"{bad}\""), &ping(1, "1s"));
        assert!(Simulation::from_toml(&text, "hop.toml", None, &[], &BuildOptions::default()).is_err(), "{bad}");
    }
    let text = scenario("15ms", "power_save = \"bsd-10\"\nbeacon_interval = \"0ms\"", &ping(1, "1s"));
    let msg = Simulation::from_toml(&text, "hop.toml", None, &[], &BuildOptions::default()).err().expect("rejected").to_string();
    assert!(msg.contains("wireless[0].beacon_interval") && msg.contains("out of range: must be \"1ms\"..=\"60s\""), "{msg}");
    let text = scenario("15ms", "beacon_intervall = \"50ms\"", &ping(1, "1s"));
    let msg = Simulation::from_toml(&text, "hop.toml", None, &[], &BuildOptions::default()).err().expect("rejected").to_string();
    assert!(msg.contains("beacon_intervall"), "unknown keys stay rejected: {msg}");
}

#[test]
fn an_80211_station_with_a_radio_and_no_wired_link_builds() {
    // Regression: the power-saving hook looked up the channel of every radio's interface, and
    // an 802.11 interface has none (an index into an empty channel list panicked).
    let text = r#"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "sta"
kind = "host"
radio = { profile = "wavelan-dsss", policies = ["always-on"] }
[[wlan]]
ap = "ap"
stations = ["sta"]
phy = "80211b"
rate = "11Mbps"
[[flow]]
kind = "bulk-upload"
client = "sta"
server = "ap"
bytes = "100kB"
"#;
    let s = run(text);
    assert!(s.completed);
    assert_eq!(s.radios.len(), 1);
}

#[test]
fn psm_wakes_for_every_beacon_and_pays_for_it() {
    // 802.11 PSM at the IP level: the same RTT rounding as the ideal version, but the station
    // wakes for every beacon, held packets or not, each wake-up costing the profile's 2 ms.
    let ideal = run(&scenario("15ms", "power_save = \"ideal-psm\"", &ping(5, "1s")));
    let psm = run(&scenario("15ms", "power_save = \"psm\"", &ping(5, "1s")));
    for (&r, &i) in psm.flows[0].rtt_ms().iter().zip(ideal.flows[0].rtt_ms()) {
        assert!((r - i).abs() < 1.0, "psm RTT {r} ms vs ideal {i} ms");
    }
    let w = &psm.wireless[0];
    assert_eq!(w.power_save, "psm");
    let beacons = (psm.end_time_s / 0.1).floor() as u64;
    assert!(w.stats.dozes + 1 >= beacons, "{} dozes for {beacons} beacons", w.stats.dozes);
    let (e_psm, e_ideal) = (energy(&psm, "psm"), energy(&ideal, "ideal-psm"));
    let r = psm.radios.iter().find(|r| r.policy == "psm").unwrap();
    assert!(r.report.transitions.energy_nj > 0);
    // ~10 wake-ups a second × 2 ms of idle power (minus sleep): about 23 mW more on average.
    let extra_mw = (e_psm - e_ideal) / psm.end_time_s * 1e3;
    assert!(extra_mw > 15.0 && extra_mw < 40.0, "psm costs {extra_mw:.1} mW more than ideal PSM");
}
