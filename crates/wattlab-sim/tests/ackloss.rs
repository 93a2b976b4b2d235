//! Issue 20 smoke test: a scenario with `tcp = { cc = "ackloss" }` (the ACK-loss-aware Reno of
//! seed 002 Ch. 2) builds and runs on an 802.11a BSS with upstream and downstream flows, and
//! every flow moves data.

use wattlab_sim::{BuildOptions, Simulation};

fn scenario(cc: &str) -> String {
    let mut s = String::from(
        r#"
name = "ackloss-smoke"
[simulation]
duration = "8s"
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
    let clients = ["u0", "u1", "d0", "d1"];
    for c in clients {
        s += &format!("[[node]]\nname = \"{c}\"\nkind = \"host\"\n");
    }
    s += "[[wlan]]\nap = \"ap\"\nstations = [\"u0\", \"u1\", \"d0\", \"d1\"]\nphy = \"80211a\"\nrate = \"54Mbps\"\nap_queue = 30\n";
    for (i, c) in clients.iter().enumerate() {
        let kind = if c.starts_with('u') { "bulk-upload" } else { "bulk-download" };
        s += &format!(
            "[[flow]]\nname = \"{c}\"\nkind = \"{kind}\"\nclient = \"{c}\"\nserver = \"server\"\nbytes = \"1GB\"\nport = {}\n\
             tcp = {{ cc = \"{cc}\", delayed_ack = false, recv_buffer = \"512KB\", window_scale = 4 }}\n",
            5001 + i
        );
    }
    s
}

#[test]
fn ackloss_scenario_runs_and_every_flow_moves_data() {
    let opts = BuildOptions { out_dir: None, pcaps: vec![], timeseries: false, ..Default::default() };
    let sim = Simulation::from_toml(&scenario("ackloss"), "ackloss.toml", Some(1), &[], &opts).expect("scenario builds");
    let out = sim.run().expect("run succeeds");
    assert_eq!(out.summary.flows.len(), 4);
    for f in &out.summary.flows {
        assert!(f.bytes_delivered > 100_000, "flow {:?} delivered only {} B", f.name, f.bytes_delivered);
        // The per-flow mean RTT (seed 002 Fig. 2.7): at least the 40 ms of the wired path.
        let rtt = f.tcp().mean_rtt_ms.expect("RTT samples");
        assert!((40.0..2000.0).contains(&rtt), "flow {:?}: mean RTT {rtt} ms", f.name);
    }
}
