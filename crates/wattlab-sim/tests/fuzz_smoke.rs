//! A short fuzzing run in the test suite (seconds): mutated scenarios and random overrides
//! through the loader, the builder and a bounded run, and random bytes through the wire
//! decoders. Nothing may panic; errors carry a message and a line inside the text. The long
//! campaigns use the same code: `cargo run --release -p wattlab-sim --example fuzz`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use wattlab_sim::fuzz::{mutate, overrides, scenario_step, Outcome, Rng, CORPUS};

#[test]
fn the_corpus_itself_builds() {
    for text in CORPUS {
        assert_eq!(scenario_step(text, &[], 1_000), Outcome::Built, "{text}");
    }
}

#[test]
fn mutated_scenarios_and_random_overrides_never_panic() {
    let mut rng = Rng::new(16);
    let (mut built, mut refused) = (0, 0);
    for i in 0..1500 {
        let text = mutate(&mut rng);
        let sets = if i % 4 == 0 { overrides(&mut rng) } else { Vec::new() };
        match catch_unwind(AssertUnwindSafe(|| scenario_step(&text, &sets, 20_000))) {
            Ok(Outcome::Built) => built += 1,
            Ok(Outcome::Refused) => refused += 1,
            Err(_) => panic!("input {i} panicked (--set {sets:?}):\n{text}"),
        }
    }
    // The mutator must reach both sides, or it tests nothing.
    assert!(built > 50 && refused > 500, "built {built}, refused {refused}");
}

#[test]
fn random_bytes_never_panic_the_wire_decoders() {
    let mut rng = Rng::new(7);
    for _ in 0..100_000 {
        let len = rng.below(100);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        if len > 0 && rng.below(2) == 0 {
            bytes[0] = 0x45;
        }
        wattlab_core::wire::fuzz::exercise(&bytes);
    }
}
