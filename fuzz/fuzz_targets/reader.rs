//! libFuzzer target: any bytes through the capture reader, to the end of the stream.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wattlab_trace::TraceReader;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut r) = TraceReader::new(data, "fuzz.pcap") {
        let mut n = 0usize;
        while let Some(p) = r.next_packet() {
            if p.is_err() {
                assert!(r.next_packet().is_none(), "the reader went on after an error");
                break;
            }
            n += 1;
            assert!(n <= data.len(), "more packets than bytes");
        }
    }
});
