//! Seed 004's impairments in a whole run: VDROP (deterministic every-n-th drop, always or in
//! on/off phases) and VDELAY (uniform [0, D] delay that may reorder), and their scenario errors.

use wattlab_sim::{BuildOptions, Simulation, Summary};

/// server ──(10 Mb/s, 5 ms, `down` impairments towards the client)── client
fn scenario(down: &str) -> String {
    format!(
        r#"
[[node]]
name = "server"
kind = "host"
[[node]]
name = "client"
kind = "host"
[[link]]
a = "server"
b = "client"
rate = "10Mbps"
delay = "5ms"
a_to_b = {down}
[[flow]]
kind = "ping"
from = "server"
to = "client"
count = 400
interval = "100ms"
"#
    )
}

fn run(down: &str) -> Result<Summary, String> {
    let sim = Simulation::from_toml(&scenario(down), "vdrop.toml", Some(1), &[], &BuildOptions::default())
        .map_err(|e| e.to_string())?;
    Ok(sim.run().expect("run succeeds").summary)
}

fn losses(s: &Summary) -> u64 {
    s.links.iter().find(|l| l.name.contains("server->client")).expect("the link").stats.losses
}

#[test]
fn vdrop_always_drops_one_packet_in_n() {
    for (n, expect) in [(5, 80), (3, 133), (20, 20)] {
        let s = run(&format!("{{ loss = {{ model = \"every-nth\", n = {n} }} }}")).unwrap();
        assert_eq!(losses(&s), expect, "n = {n}");
    }
}

#[test]
fn vdrop_in_phases_drops_only_while_on() {
    // 400 echo requests at 10/s = 40 s = two 10 s on phases: 2 × 100 / 5 = 40 drops.
    let s = run("{ loss = { model = \"every-nth\", n = 5, on = \"10s\" } }").unwrap();
    assert_eq!(losses(&s), 40);
    // 2 s phases start off when offset = 2 s: still half the time on.
    let s = run("{ loss = { model = \"every-nth\", n = 5, on = \"2s\", offset = \"2s\" } }").unwrap();
    assert_eq!(losses(&s), 40);
    // Unequal phases: on 1 s out of every 4 s.
    let s = run("{ loss = { model = \"every-nth\", n = 5, on = \"1s\", off = \"3s\" } }").unwrap();
    assert_eq!(losses(&s), 20);
}

#[test]
fn vdelay_adds_a_uniform_delay_in_0_to_d() {
    let s = run("{ jitter = { model = \"uniform\", min = \"0s\", max = \"50ms\" }, reorder = true }").unwrap();
    let json = serde_json::to_value(&s.flows[0]).unwrap();
    let rtts: Vec<f64> = json["rtt_ms"].as_array().expect("ping RTTs").iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(rtts.len(), 400);
    // 2 × 5 ms propagation plus serialisation, plus U[0, 50 ms] on the way out only.
    let (lo, hi) = rtts.iter().fold((f64::MAX, 0.0f64), |(a, b), &r| (a.min(r), b.max(r)));
    let mean = rtts.iter().sum::<f64>() / rtts.len() as f64;
    assert!(lo >= 10.0 && hi <= 60.2, "range {lo}..{hi}");
    assert!((mean - 35.1).abs() < 3.0, "mean {mean} (4 standard errors of U[0, 50] is 2.9 ms)");
    assert!(hi - lo > 45.0, "spread {}", hi - lo);
}

#[test]
fn bad_vdrop_settings_are_located() {
    for (down, needle) in [
        ("{ loss = { model = \"every-nth\", n = 1 } }", "at least 2"),
        ("{ loss = { model = \"every-nth\", n = 5, off = \"2s\" } }", "need loss.on"),
        ("{ loss = { model = \"every-nth\", n = 5, on = \"0s\" } }", "longer than 0s"),
    ] {
        let e = run(down).expect_err(down);
        assert!(e.contains(needle) && e.contains("vdrop.toml"), "{down}: {e}");
    }
}
