//! The SCTP tunnel's energy and delay over aggregate rate and burst size m, against the same
//! four TCP flows without the tunnel under CAM and under 802.11 PSM (docs/tunnel.md quotes
//! it): `cargo run --release -p wattlab-sim --example tunnel_sweep [SEED]`.
//! Every run is `scenarios/tunnel-4flows.toml` (then `tunnel-3up.toml`) with the flows' read
//! rates and m substituted.

use wattlab_sim::{BuildOptions, Simulation, Summary};

const SCENARIO: &str = include_str!("../../../scenarios/tunnel-4flows.toml");
/// Fig. 4.5a's traffic: three upstream flows of 150 kB/s, otherwise the same.
const UPSTREAM: &str = include_str!("../../../scenarios/tunnel-3up.toml");

/// `base`, its flows' 900 kb/s read rates set to `rate_kbps` if given: with the tunnel and
/// burst `m`, or without it in `mode`.
fn text(base: &str, rate_kbps: Option<u32>, tunnel: Option<u32>, mode: &str) -> String {
    let mut t = base.to_string();
    if let Some(r) = rate_kbps {
        t = t.replace("reader = { rate = \"900kbps\" }", &format!("reader = {{ rate = \"{r}kbps\" }}"));
    }
    match tunnel {
        Some(m) => t = t.replace("burst = 5", &format!("burst = {m}")),
        None => {
            let start = t.find("\n[[tunnel]]").expect("tunnel section");
            let end = start + t[start..].find("\n[[flow]]").expect("flows follow");
            t.replace_range(start..end, "");
            t = t.replace("power_save = \"u-apsd\"", &format!("power_save = {mode:?}"));
        }
    }
    t
}

fn run(text: &str, seed: u64) -> Summary {
    let sim = Simulation::from_toml(text, "tunnel-4flows.toml", Some(seed), &[], &BuildOptions::default()).expect("builds");
    sim.run().expect("runs").summary
}

/// Client radio power (W) under the run's power mode, aggregate goodput (kB/s), mean TCP RTT (ms).
fn measure(s: &Summary) -> (f64, f64, f64) {
    let radio = s.radios.iter().filter(|r| r.node == "client").find(|r| r.policy != "always-on");
    let radio = radio.or_else(|| s.radios.iter().find(|r| r.node == "client")).expect("client radio");
    let goodput: f64 = s.flows.iter().map(|f| f.goodput_bps / 8e3).sum();
    let rtts: Vec<f64> = s.flows.iter().filter_map(|f| f.tcp().mean_rtt_ms).collect();
    (radio.energy_j / s.end_time_s, goodput, rtts.iter().sum::<f64>() / rtts.len().max(1) as f64)
}

fn main() {
    let seed: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    println!("| aggregate (kB/s) | setup | client radio power (W) | saving vs CAM | goodput (kB/s) | mean TCP RTT (ms) |");
    println!("|---|---|---|---|---|---|");
    for per_flow_kbps in [300u32, 600, 900, 1200, 1800] {
        let agg = f64::from(per_flow_kbps) * 4.0 / 8.0;
        let cam = measure(&run(&text(SCENARIO, Some(per_flow_kbps), None, "cam"), seed));
        let mut rows = vec![("no tunnel, CAM".to_string(), cam)];
        rows.push(("no tunnel, PSM".to_string(), measure(&run(&text(SCENARIO, Some(per_flow_kbps), None, "psm"), seed))));
        for m in [1u32, 2, 5, 10] {
            rows.push((format!("tunnel m = {m}, U-APSD"), measure(&run(&text(SCENARIO, Some(per_flow_kbps), Some(m), ""), seed))));
        }
        for (name, (p, g, rtt)) in rows {
            println!("| {agg:.0} | {name} | {p:.3} | {:.1} % | {g:.1} | {rtt:.1} |", 100.0 * (1.0 - p / cam.0));
        }
    }
    println!("\nThree upstream flows of 150 kB/s (Fig. 4.5a's traffic):\n");
    println!("| setup | client radio power (W) | saving vs CAM | goodput (kB/s) | mean TCP RTT (ms) |");
    println!("|---|---|---|---|---|");
    let up = |tunnel: Option<u32>, mode: &str| text(UPSTREAM, None, tunnel, mode);
    let cam = measure(&run(&up(None, "cam"), seed));
    let mut rows = vec![("no tunnel, CAM".to_string(), cam)];
    rows.push(("no tunnel, PSM".to_string(), measure(&run(&up(None, "psm"), seed))));
    for m in [1u32, 2, 5, 10] {
        rows.push((format!("tunnel m = {m}, U-APSD"), measure(&run(&up(Some(m), ""), seed))));
    }
    for (name, (p, g, rtt)) in rows {
        println!("| {name} | {p:.3} | {:.1} % | {g:.1} | {rtt:.1} |", 100.0 * (1.0 - p / cam.0));
    }
}
