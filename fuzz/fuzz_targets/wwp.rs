//! libFuzzer target: any bytes through the WWP header decoder (round trip) and, cut into
//! segments, into an established WWP receiver (wattlab_core::wwp::fuzz::exercise).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wattlab_core::wwp::fuzz::exercise(data);
});
