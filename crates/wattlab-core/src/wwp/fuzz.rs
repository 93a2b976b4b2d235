//! One property step over the WWP decoder and receiver, shared by the unit tests and the
//! `cargo fuzz` target `wwp`: arbitrary bytes must decode or be refused without panicking,
//! what decodes re-encodes to the same bytes, and an established endpoint fed the bytes as
//! segments neither panics nor delivers more than it was sent.

use super::config::WwpConfig;
use super::endpoint::WwpEndpoint;
use crate::engine::Engine;
use crate::time::{Duration, Time};
use crate::wire::wwp::{decode_wwp, encode_wwp, finish_wwp};

/// Two endpoints (A active with `isn_a`, B passive with `isn_b`) after a lossless handshake
/// over a 10 ms one-way delay, and the instant it finished.
pub fn established_pair(cfg: &WwpConfig, isn_a: u16, isn_b: u16) -> (WwpEndpoint, WwpEndpoint, Time) {
    let mut now = Time::ZERO;
    let mut a = WwpEndpoint::connect(cfg.clone(), isn_a, now).expect("valid config");
    let mut b = WwpEndpoint::listen(cfg.clone(), isn_b, now).expect("valid config");
    let mut buf = Vec::new();
    for _ in 0..8 {
        let mut moved = false;
        now += Duration::from_millis(10);
        while a.poll_segment(now, &mut buf).is_some() {
            let _ = b.handle_segment(now, &buf);
            moved = true;
        }
        now += Duration::from_millis(10);
        while b.poll_segment(now, &mut buf).is_some() {
            let _ = a.handle_segment(now, &buf);
            moved = true;
        }
        if !moved {
            break;
        }
    }
    (a, b, now)
}

/// Feed `data` to the decoder (round trip) and, cut into segments by its own length bytes with
/// checksums repaired, to an established receiver; panics only if a property fails.
pub fn exercise(data: &[u8]) {
    if let Ok(seg) = decode_wwp(data) {
        let mut again = Vec::new();
        encode_wwp(&seg.header, seg.payload, &mut again);
        assert_eq!(again, data, "a decoded WWP segment re-encodes to its bytes");
    }
    let cfg = WwpConfig::default();
    let (_, mut b, mut now) = established_pair(&cfg, 0xffa, 0x123);
    let mut rest = data;
    let mut seg = Vec::new();
    let mut out = Vec::new();
    let mut sink = [0u8; 4096];
    let mut delivered = 0usize;
    let mut sent_payload = 0usize;
    while let Some((&n, tail)) = rest.split_first() {
        let take = usize::from(n).min(tail.len());
        seg.clear();
        seg.extend_from_slice(&tail[..take]);
        rest = &tail[take..];
        finish_wwp(&mut seg);
        if let Ok(s) = decode_wwp(&seg) {
            sent_payload += s.payload.len();
        }
        now += Duration::from_millis(u64::from(n % 64) * 20);
        let _ = b.handle_segment(now, &seg);
        if b.poll_timeout().is_some_and(|t| t <= now) {
            b.handle_timeout(now);
        }
        while b.poll_segment(now, &mut out).is_some() {
            assert!(decode_wwp(&out).is_ok(), "the endpoint emits decodable segments");
        }
        delivered += b.read(&mut sink);
    }
    assert!(delivered <= sent_payload, "delivered {delivered} bytes of {sent_payload} received");
}
