//! libFuzzer target: any bytes through the wire decoders, and what decodes re-encoded
//! (wattlab_core::wire::fuzz::exercise).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wattlab_core::wire::fuzz::exercise(data);
});
