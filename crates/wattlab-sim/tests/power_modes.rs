//! Every power mode of the registry on both media: the `[[wireless]]` hop (one station, no
//! contention, an IP-level proxy at the AP; it has a rate, no PHY format) and a `[[wlan]]`
//! station (802.11 DCF, beacons, PS-Polls) on every PHY format: 802.11b, a, n, ac and ax.
//! Each run delivers all the data, and every mode but `cam` sleeps a while; a mode a PHY
//! cannot carry (TWT off HE) is refused with the key and the reason. The `cc` agent on a
//! `[[wlan]]` station saves energy on a download. (`external` needs a host to command it:
//! `src/sim/tests.rs` drives it by hand.)

use wattlab_core::power::PowerMode;
use wattlab_sim::{BuildOptions, Simulation, Summary};

const HEAD: &str = r#"
[simulation]
duration = "60s"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
radio = { profile = "wavelan-dsss", policies = ["always-on"] }
[[link]]
name = "internet"
a = "server"
b = "ap"
rate = "100Mbps"
delay = "10ms"
"#;

/// Pings, then a 200 kB download: idle time to sleep in (after the pings, ~1.5 s, until the
/// download at 3 s), and data to deliver.
const FLOWS: &str = r#"
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
"#;

/// The station's power settings as a medium's section writes them; U-APSD with a trigger
/// clock (without one, held frames wait for the station's next uplink frame).
fn power(mode: &str) -> String {
    let mut s = format!("power_save = {mode:?}\n");
    if mode == "u-apsd" {
        s.push_str("uapsd_trigger_interval = \"100ms\"\n");
    }
    s
}

fn hop(mode: &str) -> String {
    format!("{HEAD}[[wireless]]\nname = \"hop\"\nap = \"ap\"\nstation = \"client\"\nrate = \"11Mbps\"\n{}{FLOWS}", power(mode))
}

/// Every PHY format of `[[wlan]]` with one rate setting each: (name, its keys).
const PHYS: [(&str, &str); 5] = [
    ("802.11b", "phy = \"80211b\"\nrate = \"11Mbps\"\n"),
    ("802.11a", "phy = \"802.11a\"\nrate = \"54Mbps\"\n"),
    ("802.11n", "phy = \"802.11n\"\nmcs = 7\n"),
    ("802.11ac", "phy = \"802.11ac\"\nmcs = 8\n"),
    ("802.11ax", "phy = \"802.11ax\"\nmcs = 7\n"),
];

/// True if `phy` can carry `mode`: TWT needs the HE PHY; every other mode runs everywhere.
fn carries(phy: &str, mode: PowerMode) -> bool {
    !matches!(mode, PowerMode::Twt(_)) || phy == "802.11ax"
}

/// A BSS on `phy_keys` (one of [`PHYS`]) whose station runs `mode`.
fn wlan_on(phy_keys: &str, mode: &str) -> String {
    format!("{HEAD}[[wlan]]\nname = \"bss\"\nap = \"ap\"\nstations = [\"client\"]\n{phy_keys}{}{FLOWS}", power(mode))
}

/// An 802.11b BSS, or an 802.11ax one for the modes that need it (TWT).
fn wlan(mode: &str) -> String {
    let phy = if mode.starts_with("twt:") { PHYS[4].1 } else { PHYS[0].1 };
    wlan_on(phy, mode)
}

fn run(text: &str) -> Summary {
    let sim = Simulation::from_toml(text, "modes.toml", Some(7), &[], &BuildOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    sim.run().unwrap_or_else(|e| panic!("{e}")).summary
}

/// The station's time asleep under the meter named `policy`, seconds.
fn sleep_s(s: &Summary, policy: &str) -> f64 {
    let r = s.radios.iter().find(|r| r.policy == policy).unwrap_or_else(|| panic!("no `{policy}` meter"));
    r.report.sleep.time_ns as f64 * 1e-9
}

fn check_mode(medium: &str, mode: PowerMode, text: &str) {
    let name = mode.to_string();
    let s = run(text);
    let (ping, dl) = (&s.flows[0], &s.flows[1]);
    assert_eq!(dl.bytes_delivered, 200_000, "{medium} {name}: the download delivers every byte");
    assert!(dl.completed, "{medium} {name}");
    // Every mode answers every ping: the agent (`cc`) shapes only TCP and stays awake while
    // the ping flow runs (issue 27; before, it slept and the replies were lost or held).
    assert_eq!(ping.rtt_ms().len(), 4, "{medium} {name}: pings answered: {:?}", ping.rtt_ms());
    if mode == PowerMode::Cam {
        assert_eq!(sleep_s(&s, "always-on"), 0.0);
    } else {
        let slept = sleep_s(&s, &name);
        assert!(slept > 0.5, "{medium} {name}: slept only {slept} s");
    }
}

/// Every mode a scenario runs by itself, once per medium (`psna` is driven by a PSNA flow:
/// `tests/psna.rs`).
fn scenario_modes() -> impl Iterator<Item = PowerMode> {
    use wattlab_core::power::Driver;
    PowerMode::KINDS.into_iter().filter(|m| !matches!(m, PowerMode::External(Driver::Host | Driver::Psna)))
}

#[test]
fn every_mode_runs_sleeps_and_delivers_on_the_wireless_hop() {
    for mode in scenario_modes() {
        check_mode("[[wireless]]", mode, &hop(&mode.to_string()));
    }
}

/// Every mode on every PHY that can carry it; the others refuse it at the key, naming the
/// PHY and what would carry it (the scenario's line is in the message).
#[test]
fn every_mode_runs_sleeps_and_delivers_on_a_wlan_station_of_every_phy() {
    let (mut ran, mut refused) = (0, 0);
    for (phy, keys) in PHYS {
        for mode in scenario_modes() {
            let text = wlan_on(keys, &mode.to_string());
            if carries(phy, mode) {
                check_mode(&format!("[[wlan]] {phy}"), mode, &text);
                ran += 1;
                continue;
            }
            let e = Simulation::from_toml(&text, "modes.toml", None, &[], &BuildOptions::default())
                .err()
                .unwrap_or_else(|| panic!("{phy} accepted {mode}"))
                .to_string();
            let line = text.lines().position(|l| l.starts_with("power_save")).unwrap() + 1;
            assert!(e.contains(&format!("modes.toml:{line}")), "{phy} {mode}: no line {line} in: {e}");
            assert!(e.contains("power_save") && e.contains("needs an 802.11ax (HE) PHY") && e.contains("use phy = \"802.11ax\""), "{phy} {mode}: {e}");
            refused += 1;
        }
    }
    // 8 modes on 5 PHYs, and TWT on 802.11ax only.
    assert_eq!((ran, refused), (8 * 5 + 1, 4));
}

/// Trigger-enabled TWT (uplink only when the AP triggers) carries the pings and the TCP
/// download too: the station's TCP ACKs go in the TB PPDUs of its SPs.
#[test]
fn trigger_enabled_twt_runs_sleeps_and_delivers_on_an_802_11ax_station() {
    let mode: PowerMode = "twt:interval=100ms,duration=8192us,trigger=true".parse().unwrap();
    check_mode("[[wlan]] 802.11ax", mode, &wlan_on(PHYS[4].1, &mode.to_string()));
}

/// Seed 000's download (5 MB, 60 ms RTT, a 64 KB window: ~8.7 Mb/s) to an 802.11a station at
/// 54 Mb/s (~30 Mb/s of TCP): the agent closes and opens the window and sleeps the radio
/// between bursts; the AP holds what reaches it asleep (PM bit).
#[test]
fn the_cc_agent_on_a_wlan_station_saves_energy_on_a_download() {
    let text = |mode: &str, agent: &str| {
        format!(
            "{}[[wlan]]\nname = \"bss\"\nap = \"ap\"\nstations = [\"client\"]\nphy = \"80211a\"\nrate = \"54Mbps\"\n\
             [[wlan.station]]\nnode = \"client\"\npower_save = {mode:?}\n{agent}\n\
             [[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"5MB\"\ntcp = {{ cc = \"reno\" }}\n",
            HEAD.replace("delay = \"10ms\"", "delay = \"30ms\"").replace("\"60s\"", "\"300s\"")
        )
    };
    let cam = run(&text("cam", ""));
    let cc = run(&text("cc", "agent = { detection = \"active\" }"));
    assert_eq!(cc.flows[0].bytes_delivered, 5_000_000, "every byte delivered");
    assert!(cam.completed && cc.completed);
    let energy = |s: &Summary, p: &str| s.radios.iter().find(|r| r.policy == p).unwrap().energy_j;
    let (e_cam, e_cc) = (energy(&cam, "always-on"), energy(&cc, "cc"));
    let t = |s: &Summary| s.flows[0].completion_time_s.unwrap();
    eprintln!("wlan: cam {:.3} s {e_cam:.3} J; cc {:.3} s {e_cc:.3} J", t(&cam), t(&cc));
    assert!(e_cc < 0.7 * e_cam, "cc {e_cc:.3} J against cam {e_cam:.3} J");
    let a = &cc.agents[0];
    assert_eq!((a.hop.as_str(), a.node.as_str()), ("bss", "client"));
    assert!(a.stats.bursts > 20 && a.stats.reverted == 0, "{:?}", a.stats);
    // The AP holds what reaches a sleeping 802.11 station: nothing is lost asleep.
    assert_eq!(a.stats.dropped_asleep, 0);
}

#[test]
fn an_agent_needs_a_cc_station_on_either_medium() {
    let build = |text: String| Simulation::from_toml(&text, "modes.toml", None, &[], &BuildOptions::default()).err().map(|e| e.to_string());
    let hop_agent = hop("psm").replace("power_save = \"psm\"", "power_save = \"psm\"\nagent = {}");
    let e = build(hop_agent).expect("refused");
    assert!(e.contains("wireless[0].agent") && e.contains("an agent needs power_save = \"cc\""), "{e}");
    let wlan_agent = wlan("psm").replace("power_save = \"psm\"", "power_save = \"psm\"\nagent = {}");
    let e = build(wlan_agent).expect("refused");
    assert!(e.contains("wlan[0].agent") && e.contains("an agent needs power_save = \"cc\""), "{e}");
    let station_agent = format!("{}[[wlan.station]]\nnode = \"client\"\nagent = {{}}\n", wlan("cc").replace("power_save = \"cc\"\n", ""));
    let e = build(station_agent).expect("refused");
    assert!(e.contains("wlan[0].station[0].agent") && e.contains("an agent needs power_save = \"cc\""), "{e}");
    // The BSS's agent settings go to its cc stations; a station's own replace them.
    let own = format!("{}[[wlan.station]]\nnode = \"client\"\npower_save = \"cc\"\nagent = {{ detection = \"fixed\" }}\n", wlan("cam"));
    assert_eq!(build(own), None);
    let bss = wlan("cc").replace("power_save = \"cc\"", "power_save = \"cc\"\nagent = { detection = \"dynamic\" }");
    assert_eq!(build(bss), None);
}
