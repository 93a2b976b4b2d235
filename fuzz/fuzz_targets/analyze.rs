//! libFuzzer target: any bytes through the reader and the whole trace energy analyzer
//! (client found, every accounting policy, odd timestamps refused and accepted), checking
//! the invariants of `tests/support/fuzz.rs`.
#![no_main]

#[path = "../../tests/support/fuzz.rs"]
mod support;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(why) = support::check_capture(data) {
        panic!("{why}");
    }
});
