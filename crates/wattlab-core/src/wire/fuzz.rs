//! One fuzzing step over the wire decoders, shared by the property tests, the mutation
//! driver (`cargo run -p wattlab-sim --example fuzz`) and `cargo fuzz` targets: arbitrary bytes
//! must decode or be refused, never panic, and what decodes must survive a round trip.

use super::{decode_ethernet, decode_ipv4, encode_ipv4, set_tcp_window};

/// Feed `data` to every decoder (as IPv4, as Ethernet, and past an Ethernet header), rewrite
/// its TCP window, and check that a decoded packet re-encodes to bytes that decode to itself.
/// Panics (the fuzzer's finding) only if a property fails.
pub fn exercise(data: &[u8]) {
    let mut buf = Vec::with_capacity(128);
    for bytes in [data, data.get(14..).unwrap_or_default()] {
        let decoded = decode_ipv4(bytes);
        if let Ok(p) = decoded {
            buf.clear();
            if encode_ipv4(&p, &mut buf).is_ok() {
                let again = decode_ipv4(&buf).expect("an encoded packet decodes");
                assert_eq!(again, p, "round trip of {bytes:02x?}");
            }
        }
        let mut copy = bytes.to_vec();
        if set_tcp_window(&mut copy, 0x1234).is_err() {
            assert_eq!(copy, bytes, "a refused rewrite leaves the bytes untouched");
        }
    }
    let _ = decode_ethernet(data);
}
