//! One parser of power-mode names: the registry (`wattlab_core::power`) decides, and the
//! `[[wireless]]` hop, the 802.11 BSS and the radio rows agree with it.

use wattlab_core::power::{Basis, PolicyName, PowerMode};
use wattlab_sim::hop_power::HopPowerMode;
use wattlab_sim::wlan::{PowerSave, PowerSaveSettings};
use wattlab_sim::{BuildOptions, Simulation};

/// Names right, wrong and almost right.
const CORPUS: &[&str] = &[
    "cam", "psm", "ideal-psm", "u-apsd", "cc", "external", "bsd-1", "bsd-10", "bsd-50", "bsd-100", "bsd-999", "bsd-1000",
    "", "CAM", "Psm", "bsd", "bsd-", "bsd-0", "bsd-050", "bsd-+5", "bsd-1001", "bsd-P", "uapsd", "always-on", "oracle",
    "adaptive-psm", " cam",
];

fn hop_scenario(mode: &str) -> String {
    format!(
        "[[node]]\nname = \"server\"\nkind = \"host\"\n[[node]]\nname = \"ap\"\nkind = \"ap\"\n[[node]]\nname = \"client\"\n\
         kind = \"host\"\nradio = {{ profile = \"wavelan-dsss\" }}\n[[link]]\na = \"server\"\nb = \"ap\"\nrate = \"100Mbps\"\n\
         delay = \"10ms\"\n[[wireless]]\nname = \"hop\"\nap = \"ap\"\nstation = \"client\"\nrate = \"20Mbps\"\n\
         power_save = {mode:?}\n[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"20kB\"\n"
    )
}

fn wlan_scenario(mode: &str) -> String {
    format!(
        "[[node]]\nname = \"server\"\nkind = \"host\"\n[[node]]\nname = \"ap\"\nkind = \"ap\"\n[[node]]\nname = \"client\"\n\
         kind = \"host\"\nradio = {{ profile = \"wavelan-dsss\" }}\n[[link]]\na = \"server\"\nb = \"ap\"\nrate = \"100Mbps\"\n\
         delay = \"10ms\"\n[[wlan]]\nap = \"ap\"\nstations = [\"client\"]\nphy = \"80211b\"\nrate = \"11Mbps\"\n\
         power_save = {mode:?}\n[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"20kB\"\n"
    )
}

fn builds(text: &str) -> Result<Simulation, String> {
    Simulation::from_toml(text, "names.toml", Some(1), &[], &BuildOptions::default()).map_err(|e| e.to_string())
}

#[test]
fn the_hop_and_the_bss_accept_what_the_registry_accepts() {
    for &name in CORPUS {
        let mode = name.parse::<PowerMode>().ok();
        // What a hop runs: everything but U-APSD (BSS only so far) and the driver-less mode.
        let hop_runs = matches!(mode, Some(m) if !matches!(m, PowerMode::Uapsd | PowerMode::External(_)));
        assert_eq!(HopPowerMode::parse(name).is_some(), hop_runs, "HopPowerMode::parse({name:?})");
        if let Some(h) = HopPowerMode::parse(name) {
            assert_eq!(h.name(), name);
        }
        let hop = builds(&hop_scenario(name));
        // `cc` is the agent's name: the hop is driven externally.
        assert_eq!(hop.is_ok(), hop_runs || name == "cc", "[[wireless]] power_save = {name:?}: {:?}", hop.err());
        if let Err(e) = hop {
            assert!(e.contains("unknown power-save mode"), "{e}");
        }
        let bss_runs = matches!(mode, Some(m) if !matches!(m, PowerMode::External(_)));
        let ps = mode.and_then(|m| PowerSave::from_mode(m, &PowerSaveSettings::default()));
        assert_eq!(ps.is_some(), bss_runs, "PowerSave::from_mode({name:?})");
        if let Some(p) = ps {
            assert_eq!(p.name(), name);
            assert_eq!(p.mode(), mode.unwrap());
        }
        let bss = builds(&wlan_scenario(name));
        assert_eq!(bss.is_ok(), bss_runs, "[[wlan]] power_save = {name:?}: {:?}", bss.err());
    }
}

#[test]
fn radio_rows_say_accounting_for_policies_and_mode_for_the_mode_the_run_used() {
    for (name, text) in [("bsd-50", hop_scenario("bsd-50")), ("cc", hop_scenario("cc")), ("u-apsd", wlan_scenario("u-apsd")), ("psm", wlan_scenario("psm"))] {
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
