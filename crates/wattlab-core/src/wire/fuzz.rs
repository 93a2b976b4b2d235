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
    exercise_sctp(data);
}

/// The SCTP decoders and a tunnel endpoint on `data` as a UDP payload (and with its checksum
/// made valid, so the chunk parser is reached): refused and counted or handled, never a panic;
/// what decodes re-encodes to itself.
pub fn exercise_sctp(data: &[u8]) {
    let cfg = crate::tunnel::TunnelConfig::default();
    let mut fixed = data.to_vec();
    if let Some(tag) = fixed.get_mut(4..8) {
        tag.copy_from_slice(&cfg.local_tag.to_be_bytes()); // reach the endpoint's chunk handling
    }
    super::sctp::fill_checksum(&mut fixed);
    for bytes in [data, &fixed[..]] {
        if let Ok(v) = super::sctp::decode_sctp(bytes) {
            let mut again = Vec::with_capacity(bytes.len());
            super::sctp::encode_sctp(&v.header, v.data, &mut again).expect("a decoded packet encodes");
            assert_eq!(super::sctp::decode_sctp(&again), Ok(v), "SCTP round trip of {bytes:02x?}");
        }
        let _ = super::sctp::decode_sctp_headers(bytes);
        // Pre-established (DATA and SACK handling), and both roles of the handshake.
        let pre = crate::tunnel::TunnelConfig { handshake: false, ..cfg.clone() };
        for c in [pre, cfg.clone(), cfg.mirrored()] {
            if let Ok(mut e) = crate::tunnel::Endpoint::<Vec<u8>>::new(c, crate::Time::ZERO) {
                let r = e.handle_datagram(crate::Time::ZERO, bytes, |d| d.to_vec());
                let s = e.stats();
                assert_eq!(r.is_err(), s.dropped_malformed + s.dropped_not_ours + s.dropped_bad_data == 1);
                for _ in 0..64 {
                    if e.poll_transmit(crate::Time::ZERO).is_none() {
                        break;
                    }
                }
            }
        }
    }
}
