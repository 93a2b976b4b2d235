//! One parser of power-mode names: the registry (`wattlab_core::power`) decides, and every
//! `power_save` key (the `[[wireless]]` hop, a `[[wlan]]` and its `[[wlan.station]]`s) and the
//! radio rows agree with it. A bad name is reported at its file:line:col with its key.

use wattlab_core::power::{Basis, PolicyName, PowerMode, PowerSave, PowerSaveSettings, BSD_PERCENT};
use wattlab_sim::{BuildOptions, Simulation};

/// Names right, wrong and almost right.
const CORPUS: &[&str] = &[
    "cam", "psm", "ideal-psm", "u-apsd", "cc", "psna", "external", "bsd-1", "bsd-10", "bsd-50", "bsd-100", "bsd-999", "bsd-1000",
    "", "CAM", "Psm", "bsd", "bsd-", "bsd-0", "bsd-050", "bsd-+5", "bsd-1001", "bsd-P", "uapsd", "always-on", "oracle",
    "adaptive-psm", " cam",
];

const HEAD: &str = "[[node]]\nname = \"server\"\nkind = \"host\"\n[[node]]\nname = \"ap\"\nkind = \"ap\"\n[[node]]\nname = \"client\"\n\
     kind = \"host\"\nradio = { profile = \"wavelan-dsss\" }\n[[link]]\na = \"server\"\nb = \"ap\"\nrate = \"100Mbps\"\n\
     delay = \"10ms\"\n";
const FLOW: &str = "[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"20kB\"\n";

/// U-APSD's trigger clock (other modes ignore it): without it, what the AP holds waits for
/// the station's next uplink frame, and a download can stall.
const TRIGGER: &str = "uapsd_trigger_interval = \"100ms\"\n";

fn hop_scenario(mode: &str) -> String {
    format!("{HEAD}[[wireless]]\nname = \"hop\"\nap = \"ap\"\nstation = \"client\"\nrate = \"20Mbps\"\n{TRIGGER}power_save = {mode:?}\n{FLOW}")
}

const WLAN: &str = "[[wlan]]\nap = \"ap\"\nstations = [\"client\"]\nphy = \"80211b\"\nrate = \"11Mbps\"\nuapsd_trigger_interval = \"100ms\"\n";

/// The BSS for `mode`: 802.11b, or 802.11ax (HE-MCS 0) for TWT, which needs an HE PHY.
fn wlan(mode: &str) -> String {
    if mode.starts_with("twt:") {
        WLAN.replace("phy = \"80211b\"\nrate = \"11Mbps\"", "phy = \"802.11ax\"\nmcs = 0")
    } else {
        WLAN.to_string()
    }
}

fn wlan_scenario(mode: &str) -> String {
    format!("{HEAD}{}power_save = {mode:?}\n{FLOW}", wlan(mode))
}

fn wlan_station_scenario(mode: &str) -> String {
    format!("{HEAD}{}[[wlan.station]]\nnode = \"client\"\npower_save = {mode:?}\n{FLOW}", wlan(mode))
}

fn builds(text: &str) -> Result<Simulation, String> {
    Simulation::from_toml(text, "names.toml", Some(1), &[], &BuildOptions::default()).map_err(|e| e.to_string())
}

/// Every name the registry accepts: one of each kind and every `bsd-P` edge.
fn registry_names() -> Vec<String> {
    let mut v: Vec<String> = PowerMode::KINDS.iter().map(|m| m.to_string()).collect();
    for p in [*BSD_PERCENT.start(), 10, 100, *BSD_PERCENT.end()] {
        v.push(PowerMode::Bsd { percent: p }.to_string());
    }
    v
}

#[test]
fn every_registry_name_is_accepted_by_every_power_save_key() {
    for name in registry_names() {
        let mode: PowerMode = name.parse().expect("the registry's own name");
        let ps = PowerSave::from_mode(mode, &PowerSaveSettings::default());
        assert_eq!((ps.name(), ps.mode()), (name.clone(), mode));
        for (key, text) in [("[[wireless]]", hop_scenario(&name)), ("[[wlan]]", wlan_scenario(&name)), ("[[wlan.station]]", wlan_station_scenario(&name))] {
            let sim = builds(&text).unwrap_or_else(|e| panic!("{key} power_save = {name:?}: {e}"));
            let out = sim.run().unwrap_or_else(|e| panic!("{key} power_save = {name:?}: {e}"));
            assert_eq!(out.summary.flows[0].bytes_delivered, 20_000, "{key} {name}");
            // The station's radio has a meter named after the mode the run used (`cam` leaves
            // the traffic alone: the accounting policies cost it).
            let metered = out.summary.radios.iter().any(|r| r.policy == name && r.basis == Basis::Mode);
            assert_eq!(metered, mode.changes_traffic(), "{key} {name}");
        }
    }
}

#[test]
fn the_hop_and_the_bss_accept_exactly_what_the_registry_accepts() {
    for &name in CORPUS {
        let known = name.parse::<PowerMode>().is_ok();
        for (key, text) in [("wireless[0].power_save", hop_scenario(name)), ("wlan[0].power_save", wlan_scenario(name)), ("wlan[0].station[0].power_save", wlan_station_scenario(name))] {
            match builds(&text) {
                Ok(_) => assert!(known, "{key} = {name:?} accepted"),
                Err(e) => {
                    assert!(!known, "{key} = {name:?}: {e}");
                    // file:line:col, the key, the registry's one message (with the valid names).
                    let line = text.lines().position(|l| l.starts_with("power_save")).unwrap() + 1;
                    let want = format!("names.toml:{line}:14: key `{key}`: unknown power-save mode `{name}` (known: {})", PowerMode::help());
                    assert_eq!(e, want);
                }
            }
        }
    }
}

#[test]
fn radio_rows_say_accounting_for_policies_and_mode_for_the_mode_the_run_used() {
    for (name, text) in [("bsd-50", hop_scenario("bsd-50")), ("cc", hop_scenario("cc")), ("u-apsd", wlan_scenario("u-apsd")), ("psm", wlan_scenario("psm")), ("cc", wlan_scenario("cc"))] {
        let out = builds(&text).unwrap().run().unwrap();
        let rows: Vec<(&str, Basis)> = out.summary.radios.iter().map(|r| (r.policy.as_str(), r.basis)).collect();
        for (policy, basis) in &rows {
            let want = match policy.parse::<PolicyName>() {
                Ok(p) if *policy != name => p.basis(),
                _ => policy.parse::<PowerMode>().expect("a mode of the registry").basis(),
            };
            assert_eq!(*basis, want, "{name}: {rows:?}");
        }
        assert!(rows.contains(&(name, Basis::Mode)), "{name}: {rows:?}");
        let json = out.summary.to_json();
        assert!(json.contains("\"basis\": \"mode\"") && json.contains("\"basis\": \"accounting\""));
    }
}
