//! The stop-and-wait echo (`kind = "echo"`, the smallest datagram engine) end to end in the
//! simulator, through the one engine socket: exact round-trip times on a clean link, every
//! echo intact (its payload is a pattern, so the bytes cross whole), retransmissions over a
//! lossy one, and a flow that fails when its server never answers.

use wattlab_sim::{BuildOptions, RunOutput, Simulation};

#[path = "support/two_hosts.rs"]
mod two_hosts;
use two_hosts::scenario;

fn run(text: &str) -> RunOutput {
    let opts = BuildOptions { timeseries: false, ..Default::default() };
    Simulation::from_toml(text, "echo.toml", Some(7), &[], &opts).expect("scenario builds").run().expect("run succeeds")
}

fn flow_json(out: &RunOutput) -> serde_json::Value {
    serde_json::to_value(&out.summary.flows[0]).unwrap()
}

const FLOW: &str = "[[flow]]\nkind = \"echo\"\nname = \"e\"\nfrom = \"c\"\nto = \"s\"\ncount = 20\nrequest = \"1000B\"\ninterval = \"5ms\"\ntimeout = \"200ms\"";

#[test]
fn every_request_comes_back_whole_with_the_links_round_trip_time() {
    let out = run(&scenario(0.0, FLOW));
    let f = flow_json(&out);
    let n = |k: &str| f[k].as_u64().unwrap_or_else(|| panic!("{k}: {f}"));
    assert_eq!((f["kind"].as_str(), f["completed"].as_bool()), (Some("echo"), Some(true)), "{f}");
    assert_eq!((n("requests"), n("echoes"), n("served"), n("retransmissions")), (20, 20, 20, 0), "{f}");
    assert_eq!(n("bytes_delivered"), 20 * 1000);
    // RTT = 2 × 10 ms + two serializations of 1028 B at 100 Mb/s (82.24 µs each).
    let rtt = 20.0 + 2.0 * 0.08224;
    assert!((f["rtt_mean_ms"].as_f64().unwrap() - rtt).abs() < 1e-6, "{f}");
    // 20 exchanges, 5 ms apart: done at 20 × RTT + 19 × 5 ms.
    let done = f["completion_time_s"].as_f64().unwrap();
    assert!((done - (20.0 * rtt + 95.0) / 1e3).abs() < 1e-6, "{done}");
    // The socket table names the engine, and nothing was refused: the pattern past the
    // inline header crossed whole (a kept datagram), or the engine would have counted it bad.
    let t = &out.sockets;
    assert_eq!(t.protocol, vec!["echo", "echo"]);
    assert_eq!(t.drops, vec![0, 0]);
    assert_eq!(t.local[0], "10.0.0.2:7");
}

#[test]
fn lost_requests_are_retransmitted_and_the_flow_still_completes() {
    let out = run(&scenario(0.2, &FLOW.replace("count = 20", "count = 100")));
    let f = flow_json(&out);
    let n = |k: &str| f[k].as_u64().unwrap();
    assert_eq!(f["completed"].as_bool(), Some(true), "{f}");
    assert_eq!((n("requests"), n("echoes")), (100, 100));
    // Every loss is a request (the way back is clean), and each costs one retransmission.
    assert_eq!(n("retransmissions"), out.summary.links[0].stats.losses, "{f}");
    assert!((10..=40).contains(&n("retransmissions")), "20 % of ~125 sends: {f}");
}

#[test]
fn a_server_that_never_answers_fails_the_flow() {
    let out = run(&scenario(1.0, FLOW));
    let f = flow_json(&out);
    assert_eq!(f["completed"].as_bool(), Some(false), "{f}");
    assert_eq!((f["requests"].as_u64(), f["retransmissions"].as_u64(), f["echoes"].as_u64()), (Some(1), Some(5), Some(0)), "{f}");
}

#[test]
fn bad_settings_name_their_key() {
    let opts = BuildOptions::default();
    let e = Simulation::from_toml(&scenario(0.0, &FLOW.replace("1000B", "4B")), "echo.toml", Some(7), &[], &opts).err().expect("refused").to_string();
    assert!(e.contains("request") && e.contains("8..=65507"), "{e}");
    let e = Simulation::from_toml(&scenario(0.0, &FLOW.replace("count = 20", "count = 0")), "echo.toml", Some(7), &[], &opts).err().expect("refused").to_string();
    assert!(e.contains("count"), "{e}");
}
