//! Mutation fuzzer for the capture reader and the trace energy analyzer, with no dependency
//! (no libFuzzer, no nightly): mutates seed captures (pcap in both resolutions and byte orders,
//! pcapng, concatenated sections, a capture with a gap) and runs each input through the reader
//! and the whole analyzer, refusing and accepting odd timestamps, checking the invariants
//! (time conserved, attribution summing to each total, throughput bins summing to the bytes,
//! strict and lax runs agreeing). Stops at the first panic or broken invariant, saves the input
//! and exits 1.
//!
//! `cargo run --release -p wattlab-trace --example fuzz_trace -- [SECONDS] [SEED]`
//! (`-- --wlan [N]`: the 802.11 reader alone over N mutated radiotap/802.11 captures, default 10^6)
//! (default 60 s, seed 1); `-- --replay FILE` runs one saved input; `-- --write-seeds DIR`
//! writes the seed captures (a corpus for the cargo-fuzz targets in `fuzz/`). The test suite runs the
//! same driver for 4 s (`tests/hostile.rs`, `fuzz_driver_smoke_run`).

#[path = "../tests/support/fuzz.rs"]
mod fuzz;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--write-seeds") {
        // Seed corpus for cargo fuzz (fuzz/corpus/<target>).
        let dir = std::path::PathBuf::from(args.get(1).expect("--write-seeds DIR"));
        std::fs::create_dir_all(&dir).expect("corpus directory");
        for (i, s) in fuzz::seeds().iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i}")), s).expect("write a seed");
        }
        return;
    }
    if args.first().map(String::as_str) == Some("--replay") {
        let path = args.get(1).expect("--replay FILE");
        let bytes = std::fs::read(path).expect("readable input");
        match fuzz::check_capture(&bytes) {
            Ok(o) => println!("{path}: {o:?}"),
            Err(why) => {
                eprintln!("{path}: {why}");
                std::process::exit(1);
            }
        }
        return;
    }
    if args.first().map(String::as_str) == Some("--wlan") {
        // The 802.11 reader alone (next_wlan and next_packet) over mutated radiotap/802.11 seeds.
        let n: u64 = args.get(1).map_or(1_000_000, |s| s.parse().expect("N"));
        let start = std::time::Instant::now();
        match fuzz::run_wlan(1, n, f64::INFINITY) {
            Ok((inputs, frames)) => println!(
                "{inputs} mutated 802.11 captures in {:.1} s: {frames} frames read; no panic, no broken invariant",
                start.elapsed().as_secs_f64()
            ),
            Err((input, why)) => {
                let path = std::env::temp_dir().join("wattlab-fuzz-wlan.bin");
                std::fs::write(&path, &input).expect("write the failing input");
                eprintln!("{why}\ninput saved to {}", path.display());
                std::process::exit(1);
            }
        }
        return;
    }
    let seconds: f64 = args.first().map_or(60.0, |s| s.parse().expect("SECONDS"));
    let seed: u64 = args.get(1).map_or(1, |s| s.parse().expect("SEED"));
    let start = std::time::Instant::now();
    match fuzz::run(seed, u64::MAX, seconds) {
        Ok(t) => println!(
            "{} inputs in {:.1} s (seed {seed}): {} analyzed, {} refused for odd timestamps (and costed when accepted), \
             {} stopped the reader with an error; {} packets read; no panic, no broken invariant",
            t.inputs,
            start.elapsed().as_secs_f64(),
            t.analyzed,
            t.odd_times,
            t.read_errors,
            t.packets
        ),
        Err((input, why)) => {
            let path = std::env::temp_dir().join(format!("wattlab-fuzz-{seed}.bin"));
            std::fs::write(&path, &input).expect("write the failing input");
            eprintln!("{why}\ninput saved to {} (replay: --replay {})", path.display(), path.display());
            std::process::exit(1);
        }
    }
}
