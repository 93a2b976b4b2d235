//! Issue 20: the prioritised-AP baseline (`ap_priority = "fukuda-oie"` in `[[wlan]]`). In a
//! 5 up + 5 down 802.11a BSS with Reno, the AP wins the medium more often and the downstream
//! flows get more of the air than with plain DCF.

use wattlab_sim::{BuildOptions, Simulation};

fn scenario(extra: &str) -> String {
    let ups: Vec<String> = (0..5).map(|i| format!("u{i}")).collect();
    let downs: Vec<String> = (0..5).map(|i| format!("d{i}")).collect();
    let mut s = String::from(
        r#"
name = "ap-priority"
[simulation]
duration = "30s"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[link]]
a = "server"
b = "ap"
rate = "100Mbps"
delay = "20ms"
queue = { packets = 10000 }
"#,
    );
    for c in ups.iter().chain(&downs) {
        s += &format!("[[node]]\nname = \"{c}\"\nkind = \"host\"\n");
    }
    let list: Vec<String> = ups.iter().chain(&downs).map(|c| format!("\"{c}\"")).collect();
    s += &format!("[[wlan]]\nap = \"ap\"\nstations = [{}]\nphy = \"80211a\"\nrate = \"54Mbps\"\nap_queue = 100\n{extra}\n", list.join(", "));
    for (i, c) in ups.iter().chain(&downs).enumerate() {
        let kind = if c.starts_with('u') { "bulk-upload" } else { "bulk-download" };
        s += &format!(
            "[[flow]]\nname = \"{c}\"\nkind = \"{kind}\"\nclient = \"{c}\"\nserver = \"server\"\nbytes = \"1GB\"\nport = {}\n\
             tcp = {{ cc = \"reno\", delayed_ack = false, recv_buffer = \"512KB\", window_scale = 4 }}\n",
            5001 + i
        );
    }
    s
}

/// (AP's share of successful frames, downstream share of delivered bytes).
fn run(extra: &str) -> (f64, f64) {
    let opts = BuildOptions { out_dir: None, pcaps: vec![], timeseries: false, ..Default::default() };
    let sim = Simulation::from_toml(&scenario(extra), "ap-priority.toml", Some(1), &[], &opts).expect("scenario builds");
    let out = sim.run().expect("run succeeds");
    let w = &out.summary.wlans[0];
    assert_eq!(w.stations[0].role, "ap");
    let ap = w.stations[0].stats.frames_sent as f64;
    let all: f64 = w.stations.iter().map(|s| s.stats.frames_sent as f64).sum();
    let (mut up, mut down) = (0.0, 0.0);
    for f in &out.summary.flows {
        if f.name.starts_with('u') {
            up += f.bytes_delivered as f64;
        } else {
            down += f.bytes_delivered as f64;
        }
    }
    (ap / all, down / (up + down))
}

#[test]
fn prioritised_ap_gives_downstream_flows_more_of_the_air() {
    let (ap0, down0) = run("");
    let (ap1, down1) = run("ap_priority = \"fukuda-oie\"");
    let (ap2, down2) = run("ap_priority = \"pifs\"");
    eprintln!(
        "AP share of frames: DCF {ap0:.3}, pifs {ap2:.3}, fukuda-oie {ap1:.3}; \
         downstream share of bytes: {down0:.3}, {down2:.3}, {down1:.3}"
    );
    assert!(down0 < 0.1, "DCF starves the downstream flows: {down0:.3}");
    assert!(ap1 > ap0 + 0.1, "AP wins more often: {ap0:.3} → {ap1:.3}");
    // Without backoff the AP drains its queue: downstream flows get about half the bytes.
    assert!((down1 - 0.5).abs() < 0.1, "downstream share {down0:.3} → {down1:.3}");
    // A one-slot head start alone helps the AP but not enough to stop the starvation.
    assert!(ap2 > ap0 && down2 < 0.2, "pifs: AP {ap2:.3}, downstream {down2:.3}");
}

#[test]
fn bad_ap_priority_is_located() {
    let opts = BuildOptions { out_dir: None, pcaps: vec![], timeseries: false, ..Default::default() };
    for (extra, words) in [
        ("ap_priority = \"edca\"", "unknown AP priority preset `edca`"),
        ("ap_priority = { aifs_slots = 0 }", "aifs_slots = 0"),
        ("ap_priority = { cw_min = 10 }", "2^k − 1"),
    ] {
        let e = match Simulation::from_toml(&scenario(extra), "x.toml", Some(1), &[], &opts) {
            Ok(_) => panic!("{extra} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains("wlan[0].ap_priority") && e.contains(words), "{extra}: {e}");
    }
}

