//! The reference benchmarks (`python/wattlab/bench/`, `wattlab bench`) run the same events as
//! before the power-model work: same scenario, same event count (docs/benchmarks.md). Slow in
//! a debug build: `cargo test --release -p wattlab-sim --test bench_events -- --ignored`.

use wattlab_sim::{BuildOptions, Simulation};

fn events(name: &str) -> u64 {
    let path = format!("{}/../../python/wattlab/bench/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let sim = Simulation::from_toml(&text, &path, None, &[], &BuildOptions::default()).unwrap();
    sim.run().unwrap().summary.events
}

#[test]
#[ignore = "seconds in release, minutes in debug"]
fn the_reference_benchmarks_keep_their_event_counts() {
    for (name, want) in [("cc-agent-100mb", 461_848), ("tcp-100mb", 428_666), ("web-100-cc", 19_888), ("wlan-10sta-tcp", 936_488), ("wlan-10sta-ax", 1_014_764)] {
        assert_eq!(events(name), want, "{name}");
    }
}
