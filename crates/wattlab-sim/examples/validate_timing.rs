//! Times parsing, set-up and the cost estimate of one scenario file, and prints the estimate
//! (a profiling aid: `cargo run --release --example validate_timing FILE`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: validate_timing FILE");
    let text = std::fs::read_to_string(&path).unwrap();
    let t0 = std::time::Instant::now();
    let scn = wattlab_sim::scenario::parse(&text, &path).unwrap();
    let t1 = std::time::Instant::now();
    let sim = wattlab_sim::build::build(&scn, &text, &path, None, &Default::default()).unwrap();
    let t2 = std::time::Instant::now();
    let est = sim.estimate();
    let t3 = std::time::Instant::now();
    println!("parse {:.3}s build {:.3}s estimate {:.3}s", (t1 - t0).as_secs_f64(), (t2 - t1).as_secs_f64(), (t3 - t2).as_secs_f64());
    println!("estimate: {:.3e} events, {:.3e} rows, {:.3e} bytes", est.events, est.rows, est.memory);
    for (what, bytes, _) in &est.memory_parts {
        println!("  {what}: {bytes:.3e} B");
    }
    for w in est.warnings() {
        println!("warning: {w}");
    }
}
