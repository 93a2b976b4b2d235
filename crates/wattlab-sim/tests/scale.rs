//! Building a large topology is linear in nodes and links (issue 16 item 5): routes are kept
//! only along the flows' paths, never as an N × N table. Alone in its test binary, so the
//! process's peak memory is this test's.

use std::time::Instant;
use wattlab_sim::{BuildOptions, Simulation};

/// A tree: router r0 at the root, n/100 routers below it, hosts hanging off the routers, and
/// one download across it.
fn tree(n: usize) -> String {
    let routers = n / 100;
    let mut s = String::from("[simulation]\nduration = \"10s\"\n");
    for r in 0..routers {
        s += &format!("[[node]]\nname = \"r{r}\"\nkind = \"router\"\n");
    }
    for h in 0..n - routers {
        s += &format!("[[node]]\nname = \"h{h}\"\nkind = \"host\"\n");
    }
    for r in 1..routers {
        s += &format!("[[link]]\na = \"r0\"\nb = \"r{r}\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n");
    }
    for h in 0..n - routers {
        s += &format!("[[link]]\na = \"r{}\"\nb = \"h{h}\"\nrate = \"100Mbps\"\ndelay = \"1ms\"\n", h % routers);
    }
    s + &format!("[[flow]]\nkind = \"bulk-download\"\nclient = \"h0\"\nserver = \"h{}\"\nbytes = \"100kB\"\n", n - routers - 1)
}

/// Peak resident memory of this process (VmHWM), in MB.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<f64>().ok()? / 1024.0)
}

#[test]
fn a_20000_node_tree_builds_and_runs_in_linear_memory() {
    let text = tree(20_000);
    let t0 = Instant::now();
    let sim = Simulation::from_toml(&text, "tree.toml", None, &[], &BuildOptions::default()).expect("valid");
    let built = t0.elapsed().as_secs_f64();
    let out = sim.run().expect("runs");
    assert!(out.summary.completed);
    // All-pairs tables took 4.7 GB and 15 s here; routes along the one path take kilobytes.
    assert!(built < 10.0, "built in {built:.1} s");
    if let Some(mb) = peak_rss_mb() {
        assert!(mb < 600.0, "peak memory {mb:.0} MB");
    }
}
