//! Dependency-free mutation fuzzing of the scenario loader and the wire decoders, on the
//! stable toolchain: `cargo run --release -p wattlab-sim --example fuzz -- scenario 100000 [SEED]`
//! or `... -- wire 1000000 [SEED]`. A panic is reported with the input that caused it, written
//! to `fuzz-crash-N.toml` / `.bin` in the current directory, and the exit code is 1.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;
use wattlab_sim::fuzz::{mutate, overrides, scenario_step, Outcome, Rng};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = args.first().map(String::as_str).unwrap_or("scenario");
    let iterations: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    std::panic::set_hook(Box::new(|_| {})); // reported below, with the input
    let mut rng = Rng::new(seed);
    let t0 = Instant::now();
    let (mut built, mut refused, mut crashes) = (0u64, 0u64, 0u64);
    for i in 0..iterations {
        let result = match target {
            "scenario" => {
                let text = mutate(&mut rng);
                let sets = if rng.below(4) == 0 { overrides(&mut rng) } else { Vec::new() };
                let r = catch_unwind(AssertUnwindSafe(|| scenario_step(&text, &sets, 20_000)));
                if r.is_err() {
                    std::fs::write(format!("fuzz-crash-{crashes}.toml"), format!("# --set {sets:?}\n{text}")).ok();
                }
                r.map(|o| o == Outcome::Built)
            }
            "wire" => {
                let len = rng.below(100);
                let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                if len > 0 && rng.below(2) == 0 {
                    bytes[0] = 0x45;
                }
                let r = catch_unwind(|| wattlab_core::wire::fuzz::exercise(&bytes));
                if r.is_err() {
                    std::fs::write(format!("fuzz-crash-{crashes}.bin"), &bytes).ok();
                }
                r.map(|()| true)
            }
            other => {
                eprintln!("unknown target `{other}` (scenario or wire)");
                std::process::exit(2);
            }
        };
        match result {
            Ok(true) => built += 1,
            Ok(false) => refused += 1,
            Err(_) => {
                eprintln!("iteration {i}: panic (input saved as fuzz-crash-{crashes})");
                crashes += 1;
            }
        }
    }
    println!(
        "{target}: {iterations} inputs in {:.1} s (seed {seed}): {built} accepted, {refused} refused, {crashes} panics",
        t0.elapsed().as_secs_f64()
    );
    std::process::exit(i32::from(crashes > 0));
}
