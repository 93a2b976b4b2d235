//! libFuzzer target: any bytes as the UDP payload of a tunnel packet: the SCTP decoders, their
//! round trip, and a tunnel endpoint, which drops and counts what does not decode
//! (wattlab_core::wire::fuzz::exercise_sctp).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wattlab_core::wire::fuzz::exercise_sctp(data);
});
