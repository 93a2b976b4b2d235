//! libFuzzer target: any bytes as a scenario file, loaded, built, estimated and run for a
//! bounded number of events (wattlab_sim::fuzz::scenario_bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wattlab_sim::fuzz::scenario_bytes(data);
});
