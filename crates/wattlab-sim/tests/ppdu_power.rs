//! Issue 29 item 5 / issue 30 item 3: the radio meter charges each PPDU with the profile's
//! power for its channel width and spatial streams (`[[ppdu_power]]`), else the single tx/rx
//! powers; and a scenario names a profile file by path, relative to the scenario file.

use std::path::{Path, PathBuf};
use wattlab_core::energy::RadioState;
use wattlab_sim::{BuildOptions, Simulation};

/// Profile powers (mW): sleep 10, idle 100, rx 200, tx 300; `extra` appended (PPDU entries).
fn profile(extra: &str) -> String {
    format!(
        "name = \"test-phone\"\ndescription = \"test\"\nsource = \"made up for a test\"\n\n\
         [power_mw]\noff = 0\nsleep = 10.0\nidle = 100.0\nrx = 200.0\ntx = 300.0\n{extra}"
    )
}

/// A `[[ppdu_power]]` entry.
fn entry(width: u16, nss: u8, tx: f64, rx: f64) -> String {
    format!("\n[[ppdu_power]]\nwidth_mhz = {width}\nnss = {nss}\ntx_mw = {tx}\nrx_mw = {rx}\nsource = \"test\"\n")
}

/// One 802.11ax station (40 MHz, 2 SS, HE-MCS 7) downloading for 1 s, its radio costed
/// always-on with the profile named `profile`.
fn scenario(profile: &str) -> String {
    format!(
        "[simulation]\nduration = \"1s\"\n\
         [[node]]\nname = \"server\"\nkind = \"host\"\n\
         [[node]]\nname = \"ap\"\nkind = \"ap\"\n\
         [[node]]\nname = \"c\"\nkind = \"host\"\nradio = {{ profile = \"{profile}\", policies = [\"always-on\"] }}\n\
         [[link]]\na = \"server\"\nb = \"ap\"\nrate = \"1Gbps\"\ndelay = \"2ms\"\n\
         [[wlan]]\nap = \"ap\"\nstations = [\"c\"]\nphy = \"802.11ax\"\nband = \"5GHz\"\nwidth = 40\nnss = 2\nmcs = 7\n\
         [[flow]]\nkind = \"bulk-download\"\nclient = \"c\"\nserver = \"server\"\nbytes = \"2MB\"\nport = 5001\n"
    )
}

/// The scenario file at `scn`, built as `wattlab run FILE` builds it (its path the origin).
fn build(scn: &Path) -> Result<Simulation, wattlab_sim::scenario::ScenarioError> {
    let text = std::fs::read_to_string(scn).unwrap();
    Simulation::from_toml(&text, scn.to_str().unwrap(), Some(1), &[], &BuildOptions::default())
}

/// A fresh directory for this test's files.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wattlab-ppdu-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes the scenario naming `profile_text` as `phone.toml` beside it, runs it, and returns
/// the always-on row's (tx time ns, tx energy fJ-exact in nJ, rx time ns, rx nJ, total nJ).
fn run(d: &Path, profile_text: &str) -> (u64, u64, u64, u64, u64) {
    std::fs::write(d.join("phone.toml"), profile_text).unwrap();
    let scn = d.join("scn.toml");
    std::fs::write(&scn, scenario("phone.toml")).unwrap();
    let sim = build(&scn).expect("scenario builds");
    let out = sim.run().expect("run");
    let r = &out.summary.radios.iter().find(|r| r.policy == "always-on").expect("always-on row").report;
    let (tx, rx) = (r.state(RadioState::Tx), r.state(RadioState::Rx));
    (tx.time_ns, tx.energy_nj, rx.time_ns, rx.energy_nj, r.total_energy_nj)
}

#[test]
fn each_ppdu_is_charged_the_power_for_its_width_and_streams() {
    let d = dir("charge");
    let single = run(&d, &profile(""));
    let (tx_ns, tx_nj, rx_ns, rx_nj, _) = single;
    assert!(tx_ns > 0 && rx_ns > 0, "{single:?}");
    // Without a table: the single powers (exact integer nJ up to rounding).
    assert!(tx_nj.abs_diff(tx_ns * 300 / 1000) <= 1 && rx_nj.abs_diff(rx_ns * 200 / 1000) <= 1, "{single:?}");

    // Every PPDU shape priced the same, other than the single powers: the whole tx and rx
    // times at those powers (data PPDUs are 40 MHz / 2 SS, control frames non-HT 20 MHz / 1 SS).
    let both = run(&d, &profile(&(entry(40, 2, 900.0, 500.0) + &entry(20, 1, 900.0, 500.0))));
    assert_eq!((both.0, both.2), (tx_ns, rx_ns), "the traffic does not change");
    assert!(both.1.abs_diff(tx_ns * 900 / 1000) <= 1 && both.3.abs_diff(rx_ns * 500 / 1000) <= 1, "{both:?}");

    // Only the data shape priced: the data PPDUs (most of the received airtime of a download)
    // cost more, the non-HT control frames (the station's ACKs are most of its tx) stay at
    // the single powers; strictly between the two runs above.
    let data = run(&d, &profile(&entry(40, 2, 900.0, 500.0)));
    assert!(single.1 < data.1 && data.1 < both.1, "tx: {single:?} {data:?} {both:?}");
    assert!(single.3 < data.3 && data.3 < both.3, "rx: {single:?} {data:?} {both:?}");

    // An entry for a shape this BSS never sends changes nothing, byte for byte.
    let other = run(&d, &profile(&entry(80, 1, 900.0, 500.0)));
    assert_eq!(other, single);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_profile_file_is_found_beside_the_scenario_and_recorded() {
    let d = dir("path");
    std::fs::create_dir_all(d.join("profiles")).unwrap();
    std::fs::write(d.join("profiles/mine.toml"), profile("")).unwrap();
    let scn = d.join("scn.toml");
    std::fs::write(&scn, scenario("profiles/mine.toml")).unwrap();
    // Run from another directory: the path is the scenario's, not the process's.
    let sim = build(&scn).expect("builds");
    let out = sim.run().expect("run");
    let r = out.summary.radios.iter().find(|r| r.policy == "always-on").unwrap();
    assert_eq!(r.profile, "test-phone");
    let files = &out.summary.provenance.profile_files;
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].contains("profiles/mine.toml sha256:"), "{files:?}");

    // A bad file: the scenario's key, and the profile file's line and key.
    std::fs::write(d.join("profiles/mine.toml"), profile("").replace("tx = 300.0", "tx = \"loud\"")).unwrap();
    let e = build(&scn).err().expect("refused").to_string();
    assert!(e.contains("node[2].radio.profile") && e.contains("mine.toml: line 10") && e.contains("power_mw.tx"), "{e}");
    // A missing one, and a name that is neither built in nor a path.
    std::fs::remove_file(d.join("profiles/mine.toml")).unwrap();
    let e = build(&scn).err().expect("refused").to_string();
    assert!(e.contains("mine.toml") && e.contains("cannot read profile"), "{e}");
    std::fs::write(&scn, scenario("myphone")).unwrap();
    let e = build(&scn).err().expect("refused").to_string();
    assert!(e.contains("unknown device profile `myphone`") && e.contains("samsung-galaxy-s2") && e.contains(".toml"), "{e}");
    std::fs::remove_dir_all(&d).unwrap();
}
