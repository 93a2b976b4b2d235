//! The downloaded data: a deterministic pseudo-random byte stream of a given length and key,
//! generated as it is sent and never stored. The server streams it, the orchestrator computes
//! its SHA-256 with `wattlab-live payload` (the same generator, streamed), and the client
//! hashes what arrived: a run is verified when the two digests and lengths agree.
//!
//! Byte `i` is byte `i % 8` (little-endian) of SplitMix64's output `i / 8` for the state
//! `key`: any position can be generated without the bytes before it, and the stream costs
//! nothing to hold whatever its length.

use std::io::Read;

use sha2::{Digest, Sha256};

/// SplitMix64's increment (the golden ratio in 64-bit fixed point).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// Output `index` of SplitMix64 started at state `key`.
fn word(key: u64, index: u64) -> u64 {
    let mut z = key.wrapping_add(index.wrapping_add(1).wrapping_mul(GAMMA));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A payload of `len` bytes for `key`, read from its start; implements [`Read`].
#[derive(Clone, Debug)]
pub struct Payload {
    key: u64,
    len: u64,
    pos: u64,
}

impl Payload {
    /// The stream of `len` bytes keyed by `key` (a run's scenario seed).
    pub fn new(key: u64, len: u64) -> Payload {
        Payload { key, len, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> u64 {
        self.len - self.pos
    }

    /// Fills `buf` with the bytes from position `pos` on.
    fn fill_at(&self, pos: u64, buf: &mut [u8]) {
        let mut i = 0;
        while i < buf.len() {
            let p = pos + i as u64;
            let off = (p % 8) as usize;
            let take = (8 - off).min(buf.len() - i);
            buf[i..i + take].copy_from_slice(&word(self.key, p / 8).to_le_bytes()[off..off + take]);
            i += take;
        }
    }
}

impl Read for Payload {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (buf.len() as u64).min(self.remaining()) as usize;
        self.fill_at(self.pos, &mut buf[..n]);
        self.pos += n as u64;
        Ok(n)
    }
}

/// Lowercase hex of a digest.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 (hex) of the payload of `len` bytes for `key`, computed while generating it.
pub fn sha256(key: u64, len: u64) -> String {
    let mut p = Payload::new(key, len);
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = p.read(&mut buf).unwrap_or(0);
        if n == 0 {
            return hex(&h.finalize());
        }
        h.update(&buf[..n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(key: u64, len: u64, chunk: usize) -> Vec<u8> {
        let mut p = Payload::new(key, len);
        let mut out = Vec::new();
        let mut buf = vec![0u8; chunk];
        loop {
            let n = p.read(&mut buf).unwrap();
            if n == 0 {
                return out;
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    #[test]
    fn the_stream_does_not_depend_on_how_it_is_read() {
        let whole = bytes(7, 100_003, 1 << 20);
        assert_eq!(whole.len(), 100_003);
        for chunk in [1, 3, 8, 13, 4096] {
            assert_eq!(bytes(7, 100_003, chunk), whole, "chunk {chunk}");
        }
        assert_eq!(sha256(7, 100_003), hex(&Sha256::digest(&whole)));
    }

    #[test]
    fn keys_give_different_streams_and_lengths_are_exact() {
        assert_ne!(bytes(1, 64, 64), bytes(2, 64, 64));
        assert_eq!(bytes(1, 5, 64), bytes(1, 64, 64)[..5]);
        assert!(bytes(1, 0, 64).is_empty());
        assert_eq!(sha256(1, 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        // Not a constant or short pattern: every byte value occurs in 64 KiB.
        let b = bytes(3, 65536, 65536);
        assert!((0..=255u8).all(|v| b.contains(&v)));
    }

    #[test]
    fn a_huge_payload_costs_nothing_to_hold_and_ends_at_its_length() {
        let mut p = Payload::new(9, 100_000_000_000);
        p.pos = p.len - 10;
        let mut buf = [0u8; 64];
        assert_eq!(p.read(&mut buf).unwrap(), 10);
        assert_eq!(p.read(&mut buf).unwrap(), 0);
        let tail = Payload::new(9, u64::MAX);
        let mut b = [0u8; 8];
        tail.fill_at(u64::MAX - 8, &mut b); // the last whole word: no overflow
    }
}
