//! The `power_save` sub-table (issue 28 point 4): one table for the `[[wireless]]` hop, the
//! `[[wlan]]` BSS and a `[[wlan.station]]`, read the same as the older flat keys; its ranges
//! and mistakes reported at file:line:col with the key as written; the baseline turns it off.

mod common;

use common::{assert_located, error, line_of};
use wattlab_sim::scenario::{parse, parse_with_overrides, without_power_save, PowerSaveConfig};
use wattlab_sim::{BuildOptions, Simulation};

const HEAD: &str = "[simulation]\nduration = \"30s\"\n[[node]]\nname = \"server\"\nkind = \"host\"\n[[node]]\nname = \"ap\"\nkind = \"ap\"\n\
     [[node]]\nname = \"client\"\nkind = \"host\"\nradio = { profile = \"wavelan-dsss\" }\n[[node]]\nname = \"other\"\nkind = \"host\"\n\
     radio = { profile = \"wavelan-dsss\" }\n[[link]]\na = \"server\"\nb = \"ap\"\nrate = \"100Mbps\"\ndelay = \"10ms\"\n";
const FLOWS: &str = "[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"200kB\"\n";

fn hop(lines: &str) -> String {
    let head = HEAD.replace("[[node]]\nname = \"other\"\nkind = \"host\"\nradio = { profile = \"wavelan-dsss\" }\n", "");
    format!("{head}[[wireless]]\nname = \"hop\"\nap = \"ap\"\nstation = \"client\"\nrate = \"20Mbps\"\n{lines}\n{FLOWS}")
}

fn wlan(lines: &str, station: &str) -> String {
    format!(
        "{HEAD}[[wlan]]\nap = \"ap\"\nstations = [\"client\", \"other\"]\nphy = \"80211b\"\nrate = \"11Mbps\"\n{lines}\n\
         [[wlan.station]]\nnode = \"client\"\n{station}\n{FLOWS}\
         [[flow]]\nkind = \"bulk-download\"\nclient = \"other\"\nserver = \"server\"\nbytes = \"100kB\"\n"
    )
}

/// The run's summary as JSON, with the provenance (which names the text's hash) left out.
fn summary(text: &str) -> String {
    let sim = Simulation::from_toml(text, "t.toml", Some(5), &[], &BuildOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let mut s = sim.run().expect("runs").summary;
    s.provenance = Default::default();
    s.to_json()
}

#[test]
fn the_table_runs_exactly_as_the_flat_keys_on_the_hop_and_in_a_bss() {
    let pairs = [
        (
            hop("power_save = \"psm\"\nbeacon_interval = \"50ms\"\nlisten_interval = 2"),
            hop("power_save = { mode = \"psm\", beacon_interval = \"50ms\", listen_interval = 2 }"),
        ),
        (
            hop("power_save = \"u-apsd\"\nuapsd_trigger_interval = \"30ms\"\nuapsd_max_sp = 2"),
            hop("[wireless.power_save]\nmode = \"u-apsd\"\nuapsd_trigger_interval = \"30ms\"\nuapsd_max_sp = 2"),
        ),
        (
            wlan("power_save = \"ideal-psm\"\nideal_psm_interval = \"50ms\"", "power_save = \"psm\"\nlisten_interval = 3"),
            wlan("power_save = { mode = \"ideal-psm\", ideal_psm_interval = \"50ms\" }", "power_save = { mode = \"psm\", listen_interval = 3 }"),
        ),
        // A station's listen interval alone, over its BSS's PSM.
        (wlan("power_save = \"psm\"", "listen_interval = 2"), wlan("power_save = \"psm\"", "power_save = { listen_interval = 2 }")),
    ];
    for (flat, table) in pairs {
        let a = summary(&flat);
        assert_eq!(a, summary(&table), "{table}");
        // The settings matter: the same mode with defaults runs differently.
        assert!(a.contains("\"power_save\": \"psm\"") || a.contains("u-apsd") || a.contains("ideal-psm"), "{a}");
    }
    let defaults = summary(&hop("power_save = \"psm\""));
    assert_ne!(defaults, summary(&hop("power_save = { mode = \"psm\", beacon_interval = \"50ms\", listen_interval = 2 }")));
}

#[test]
fn out_of_range_settings_are_located_under_the_key_as_written() {
    let text = hop("power_save = { mode = \"psm\", listen_interval = 0 }");
    assert_located(&error(&text), &text, "listen_interval", "wireless[0].power_save.listen_interval", "out of range");
    let text = wlan("[wlan.power_save]\nmode = \"u-apsd\"\nuapsd_trigger_interval = \"0s\"", "");
    assert_located(&error(&text), &text, "uapsd_trigger_interval", "wlan[0].power_save.uapsd_trigger_interval", "\"1ms\"..=\"60s\"");
    let text = wlan("power_save = \"psm\"", "power_save = { listen_interval = 70000 }");
    assert_located(&error(&text), &text, "70000", "wlan[0].station[0].power_save.listen_interval", "1..=65535 beacons");
    // The flat spelling keeps its key.
    let text = hop("power_save = \"psm\"\nbeacon_interval = \"0ms\"");
    assert_located(&error(&text), &text, "beacon_interval", "wireless[0].beacon_interval", "out of range");
}

#[test]
fn mistakes_in_the_table_say_what_to_write() {
    // An unknown mode, at the mode's value.
    let text = hop("power_save = { mode = \"psn\" }");
    assert_located(&error(&text), &text, "psn", "wireless[0].power_save.mode", "unknown power-save mode `psn`");
    // An unknown key inside the table names it.
    let e = error(&hop("power_save = { mode = \"psm\", listen = 2 }"));
    assert!(e.message.contains("unknown field `listen`") && e.message.contains("listen_interval"), "{e}");
    assert_eq!(e.line, Some(line_of(&hop("power_save = { mode = \"psm\", listen = 2 }"), "listen")), "{e}");
    // Both forms in one section: write the flat key inside.
    let text = hop("power_save = { mode = \"psm\" }\nlisten_interval = 2");
    assert_located(&error(&text), &text, "listen_interval = 2", "wireless[0].listen_interval", "power_save = { mode = \"psm\", listen_interval = ... }");
    // A BSS's beacons are its MAC's.
    let text = wlan("power_save = { mode = \"psm\", beacon_interval = \"50ms\" }", "");
    assert_located(&error(&text), &text, "beacon_interval", "wlan[0].power_save.beacon_interval", "write beacon_interval in the [[wlan]] section");
    // Neither a name nor a table.
    let e = error(&hop("power_save = 3"));
    assert!(e.message.contains("a power-save mode's name"), "{e}");
}

#[test]
fn the_baseline_turns_the_table_off_and_keeps_the_traffic() {
    let text = wlan("power_save = { mode = \"cc\", agent = { detection = \"fixed\" } }", "power_save = { mode = \"psm\", listen_interval = 2 }");
    let off = without_power_save(&text, "t.toml", &[]).expect("parses").expect("a mode was on");
    assert!(off.contains("wlan.0 (cc)") && off.contains("wlan.0.station.client (psm)"), "{off}");
    let scn = parse(&off, "t.toml").expect("the baseline parses");
    assert_eq!(scn.wlan[0].power_save.mode_name(), Some("cam"));
    assert!(scn.wlan[0].power_save.agent.is_none());
    assert_eq!(scn.wlan[0].station_overrides[0].power_save.mode_name(), Some("cam"));
    // The typed form: the same off switch.
    let scn = parse(&text, "t.toml").expect("parses");
    let ps = scn.wlan[0].power_save.without_power_save();
    assert!(scn.wlan[0].power_save.saves_power() && !ps.saves_power() && ps.agent.is_none());
    assert_eq!(PowerSaveConfig::of("psm").without_power_save().mode_name(), Some("cam"));
    assert_eq!(scn.wlan[0].station_overrides[0].power_save.without_power_save().listen_interval, Some(2));
}

#[test]
fn overrides_reach_either_form_without_losing_the_tables_settings() {
    let table = hop("power_save = { mode = \"u-apsd\", uapsd_trigger_interval = \"30ms\" }");
    // A mode's name replaces the mode only: the trigger clock stays.
    let scn = parse_with_overrides(&table, "t.toml", &["wireless.0.power_save=\"psm\"".into()]).expect("parses");
    assert_eq!(scn.wireless[0].power_save.mode_name(), Some("psm"));
    assert_eq!(scn.wireless[0].power_save.uapsd_trigger_interval.map(|d| d.0), Some(30_000_000));
    // A key inside the short form turns it into a table.
    let short = hop("power_save = \"psm\"");
    let scn = parse_with_overrides(&short, "t.toml", &["wireless.0.power_save.listen_interval=3".into()]).expect("parses");
    assert_eq!((scn.wireless[0].power_save.mode_name(), scn.wireless[0].power_save.listen_interval), (Some("psm"), Some(3)));
    // The older flat key still works as an override.
    let scn = parse_with_overrides(&short, "t.toml", &["wireless.0.listen_interval=4".into()]).expect("parses");
    assert_eq!(scn.wireless[0].power_save.listen_interval, Some(4));
}
