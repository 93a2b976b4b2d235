//! Times parsing, set-up and the estimate of one scenario file (a profiling aid).
fn main() {
    let path = std::env::args().nth(1).expect("usage: validate_timing FILE");
    let text = std::fs::read_to_string(&path).unwrap();
    let t0 = std::time::Instant::now();
    let scn = wattlab_sim::scenario::parse(&text, &path).unwrap();
    let t1 = std::time::Instant::now();
    let sim = wattlab_sim::build::build(&scn, &text, &path, None, &Default::default()).unwrap();
    let t2 = std::time::Instant::now();
    let w = sim.estimate().warnings();
    let t3 = std::time::Instant::now();
    println!("parse {:.3}s build {:.3}s estimate {:.3}s warnings {}", (t1 - t0).as_secs_f64(), (t2 - t1).as_secs_f64(), (t3 - t2).as_secs_f64(), w.len());
}
