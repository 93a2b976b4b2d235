//! The toy power mode `beacon-doze` end to end (issue 28's proof that a mode is its own core
//! module plus a registry entry): on a `[[wlan]]` station and on the `[[wireless]]` hop, bursty
//! downloads with idle time between them. It does the same work as CAM (every byte, every flow
//! completed) for less energy than CAM, and a burst faster than PSM.

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
a = "server"
b = "ap"
rate = "100Mbps"
delay = "10ms"
"#;

/// Five 300 kB downloads four seconds apart over a 2 Mb/s radio behind a 100 Mb/s wire:
/// bursts that queue at the AP, and idle time between them.
fn flows() -> String {
    (0..5)
        .map(|i| format!("[[flow]]\nkind = \"bulk-download\"\nclient = \"client\"\nserver = \"server\"\nbytes = \"300kB\"\nstart = \"{}s\"\n", 1 + 4 * i))
        .collect()
}

fn wlan(mode: &str) -> String {
    format!("{HEAD}[[wlan]]\nap = \"ap\"\nstations = [\"client\"]\nphy = \"80211b\"\nrate = \"2Mbps\"\npower_save = {mode:?}\n{}", flows())
}

fn hop(mode: &str) -> String {
    format!("{HEAD}[[wireless]]\nap = \"ap\"\nstation = \"client\"\nrate = \"2Mbps\"\npower_save = {mode:?}\n{}", flows())
}

fn run(text: &str) -> Summary {
    let sim = Simulation::from_toml(text, "bd.toml", Some(11), &[], &BuildOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    sim.run().unwrap_or_else(|e| panic!("{e}")).summary
}

/// The station's energy as the run's power mode drove its radio (CAM: always on), J.
fn energy(s: &Summary, mode: &str) -> f64 {
    let policy = if mode == "cam" { "always-on" } else { mode };
    s.radios.iter().find(|r| r.policy == policy).unwrap_or_else(|| panic!("no `{policy}` meter")).energy_j
}

/// Bytes delivered and completion of every flow.
fn work(s: &Summary) -> Vec<(u64, bool)> {
    s.flows.iter().map(|f| (f.bytes_delivered, f.completed)).collect()
}

/// Mean completion time of the downloads, s.
fn mean_time(s: &Summary) -> f64 {
    s.flows.iter().map(|f| f.completion_time_s.expect("completed")).sum::<f64>() / s.flows.len() as f64
}

fn compare(medium: &str, text: impl Fn(&str) -> String) -> [(f64, f64); 3] {
    let runs = ["cam", "psm", "beacon-doze"].map(|m| (m, run(&text(m))));
    let cam_work = work(&runs[0].1);
    assert!(cam_work.iter().all(|&(b, done)| b == 300_000 && done), "{medium}: {cam_work:?}");
    for (m, s) in &runs {
        assert_eq!(work(s), cam_work, "{medium} {m}: the same work as CAM");
    }
    let out = runs.each_ref().map(|(m, s)| (energy(s, m), mean_time(s)));
    eprintln!("{medium}: cam / psm / beacon-doze: {out:?}");
    out
}

/// Less energy than CAM for the same work; slower than CAM (a burst waits for a beacon) but
/// faster than PSM, which holds what arrives during a burst until the next beacon (and polls
/// frame by frame in a BSS) where beacon-doze stays awake while anything is queued.
fn check(medium: &str, text: impl Fn(&str) -> String) {
    let [(cam_j, cam_t), (_, psm_t), (bd_j, bd_t)] = compare(medium, text);
    assert!(bd_j < 0.8 * cam_j, "{medium}: beacon-doze {bd_j} J vs CAM {cam_j} J");
    assert!(bd_t >= cam_t, "{medium}: never faster than always awake");
    assert!(bd_t < psm_t, "{medium}: beacon-doze {bd_t} s vs PSM {psm_t} s");
}

#[test]
fn in_a_bss_it_does_cams_work_for_less_energy_and_faster_than_psm() {
    check("[[wlan]]", wlan);
}

#[test]
fn on_the_hop_it_does_cams_work_for_less_energy_and_faster_than_psm() {
    check("[[wireless]]", hop);
}
