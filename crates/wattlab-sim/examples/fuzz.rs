//! Dependency-free mutation fuzzing of the scenario loader and the wire decoders, on the
//! stable toolchain: `cargo run --release -p wattlab-sim --example fuzz -- scenario 100000 [SEED]`
//! or `... -- wire 1000000 [SEED]` or `... -- sctp 1000000 [SEED]`. A panic is reported with the input that caused it, written
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
            "sctp" => {
                // A valid tunnel packet, then a few bytes changed: the chunk parser is reached.
                let bytes = sctp_mutant(&mut rng);
                let r = catch_unwind(|| wattlab_core::wire::fuzz::exercise_sctp(&bytes));
                if r.is_err() {
                    std::fs::write(format!("fuzz-crash-{crashes}.bin"), &bytes).ok();
                }
                r.map(|()| true)
            }
            other => {
                eprintln!("unknown target `{other}` (scenario, wire or sctp)");
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

/// A tunnel packet (SACK with gap blocks and duplicates, DATA) with up to four bytes mutated,
/// truncated at a random length one time in four.
fn sctp_mutant(rng: &mut Rng) -> Vec<u8> {
    use wattlab_core::wire::sctp::{encode_sctp, Cookie, DataChunk, Handshake, SackChunk, SctpHeader, DATA_FLAGS_WHOLE};
    let mut sack = SackChunk { cum_tsn: rng.next_u64() as u32, a_rwnd: 65536, n_gaps: rng.below(4) as u8, n_dups: rng.below(3) as u8, ..SackChunk::default() };
    for i in 0..usize::from(sack.n_gaps) {
        sack.gaps[i] = (1 + 2 * i as u16, 1 + 2 * i as u16);
    }
    let len = 1 + rng.below(60) as u32;
    let h = SctpHeader {
        src_port: 9899,
        dst_port: 9899,
        vtag: 0x5741_0001,
        // COOKIE ECHO and COOKIE ACK may lead a packet with SACK and DATA (RFC 9260 §5.1).
        control: match rng.below(8) {
            0 => Some(Handshake::CookieAck),
            1 => Some(Handshake::CookieEcho(Cookie([0x5a; 12]))),
            _ => None,
        },
        sack: (rng.below(2) == 0).then_some(sack),
        data: (rng.below(4) != 0).then_some(DataChunk { tsn: rng.next_u64() as u32, sid: rng.below(4) as u16, ssn: 0, ppid: 0, flags: DATA_FLAGS_WHOLE, len }),
    };
    let data = vec![0x45; h.data.map_or(0, |d| d.len as usize)];
    let mut b = Vec::new();
    encode_sctp(&h, &data, &mut b).expect("a valid packet encodes");
    for _ in 0..rng.below(5) {
        let i = rng.below(b.len());
        b[i] = rng.next_u64() as u8;
    }
    if rng.below(4) == 0 {
        b.truncate(rng.below(b.len() + 1));
    }
    b
}
