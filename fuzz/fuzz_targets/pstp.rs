//! libFuzzer target: any bytes through the PS-TP decoder (round trip) and, cut into
//! datagrams, into a daemon and a mobile mid-transfer (wattlab_core::psna::fuzz::exercise).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wattlab_core::psna::fuzz::exercise(data);
});
