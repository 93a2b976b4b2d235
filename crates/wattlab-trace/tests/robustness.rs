//! Errors on broken files, and a seeded mutation fuzz over the reader: never a panic, always
//! the end of the stream.

mod common;

use std::io::Read;
use std::time::Instant;

use common::*;
use pcap_file::{DataLink, Endianness, TsResolution};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use wattlab_trace::*;

fn sample_pcap() -> Vec<u8> {
    let frames: Vec<(u64, Vec<u8>)> = (0..4u32)
        .map(|i| {
            (
                u64::from(i) * 1000,
                ethernet(&ipv4_tcp(
                    [10, 0, 0, 1],
                    [10, 0, 0, 2],
                    (1, 2),
                    i,
                    0,
                    10 * i as usize,
                )),
            )
        })
        .collect();
    pcap(
        DataLink::ETHERNET,
        TsResolution::NanoSecond,
        Endianness::Little,
        &frames,
    )
}

fn sample_pcapng() -> Vec<u8> {
    let v4 = ipv4_tcp([10, 0, 0, 1], [10, 0, 0, 2], (1, 2), 0, 0, 20);
    pcapng(
        Endianness::Big,
        vec![idb(DataLink::ETHERNET, Some(9)), idb(DataLink::RAW, None)],
        &[
            (0, 5, ethernet(&v4)),
            (1, 6, v4.clone()),
            (0, 7, arp()),
            (1, 8, v4),
        ],
    )
}

/// Read everything; the packets yielded and the error, if any.
fn drain(bytes: &[u8]) -> Result<(u64, Option<TraceError>), TraceError> {
    let mut r = TraceReader::new(bytes, "f.pcap")?;
    let mut n = 0;
    while let Some(p) = r.next_packet() {
        match p {
            Ok(_) => n += 1,
            Err(e) => {
                assert!(r.next_packet().is_none(), "stream ends after an error");
                return Ok((n, Some(e)));
            }
        }
    }
    Ok((n, None))
}

#[test]
fn truncated_mid_record_names_packet_and_offset() {
    let bytes = sample_pcap();
    // Record 0 starts at 24; its frame is 54 bytes, so record 1 starts at 24 + 16 + 54 = 94.
    let (n, e) = drain(&bytes[..94 + 16 + 10]).unwrap();
    assert_eq!(n, 1);
    let e = e.unwrap();
    let TraceError::Truncated {
        ref at, need, have, ..
    } = e
    else {
        panic!("{e}")
    };
    assert_eq!(
        (at.packet, at.offset, need, have),
        (Some(1), 94, 16 + 64, 26)
    );
    assert_eq!(
        e.to_string(),
        "f.pcap: packet 1 at byte offset 94: truncated file: the packet record needs 80 bytes but only 26 remain"
    );
    // Cut inside a record header.
    let (_, e) = drain(&bytes[..94 + 7]).unwrap();
    assert!(
        matches!(e, Some(TraceError::Truncated { what: "packet record header", ref at, .. }) if at.offset == 94)
    );
}

#[test]
fn truncated_file_header_and_bad_magic() {
    let bytes = sample_pcap();
    for cut in [0, 3, 10, 23] {
        let e = TraceReader::new(&bytes[..cut], "f.pcap").err().unwrap();
        assert!(
            matches!(e, TraceError::Truncated { ref at, .. } if at.offset == 0 && at.packet.is_none()),
            "{cut}: {e}"
        );
    }
    let mut bad = bytes.clone();
    bad[0] = b'G';
    let e = TraceReader::new(&bad[..], "f.pcap").err().unwrap();
    assert!(
        matches!(e, TraceError::BadMagic { magic, .. } if magic >> 24 == u32::from(b'G')),
        "{e}"
    );
    assert!(e.to_string().contains("not a pcap or pcapng file"), "{e}");
    let ng = sample_pcapng();
    let e = TraceReader::new(&ng[..20], "f.pcapng").err().unwrap();
    assert!(matches!(e, TraceError::Truncated { .. }), "{e}");
    // A pcapng block cut in the middle: the packet's index and its block's offset.
    let mut r = TraceReader::new(&ng[..ng.len() - 8], "f.pcapng").unwrap();
    let mut last = None;
    while let Some(p) = r.next_packet() {
        last = Some(p);
    }
    let e = last.unwrap().unwrap_err();
    assert!(
        matches!(e, TraceError::Truncated { ref at, .. } if at.packet == Some(3)),
        "{e}"
    );
}

#[test]
fn unknown_link_type_and_corrupt_lengths() {
    let mut bytes = sample_pcap();
    bytes[20..24].copy_from_slice(&147u32.to_le_bytes()); // LINKTYPE_USER0
    let e = TraceReader::new(&bytes[..], "f.pcap").err().unwrap();
    let TraceError::UnknownLinkType {
        number, ref name, ..
    } = e
    else {
        panic!("{e}")
    };
    assert_eq!(number, 147);
    assert!(
        e.to_string().contains("unsupported link type") && e.to_string().contains("(147)"),
        "{e} {name}"
    );

    let mut bytes = sample_pcap();
    bytes[24 + 8..24 + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    let (n, e) = drain(&bytes).unwrap();
    assert_eq!(n, 0);
    assert!(
        matches!(e, Some(TraceError::Corrupt { ref at, .. }) if at.packet == Some(0) && at.offset == 24)
    );

    let mut ng = sample_pcapng();
    let shb_len = u32::from_be_bytes([ng[4], ng[5], ng[6], ng[7]]) as usize;
    ng[shb_len + 7] = 13; // the first IDB's length: not a multiple of 4
    let (_, e) = drain(&ng).unwrap();
    assert!(
        matches!(e, Some(TraceError::Corrupt { ref at, .. }) if at.offset == shb_len as u64),
        "{e:?}"
    );
}

#[test]
fn empty_capture_is_zero_packets() {
    let empty = pcap(
        DataLink::ETHERNET,
        TsResolution::MicroSecond,
        Endianness::Big,
        &[],
    );
    assert_eq!(empty.len(), 24);
    assert_eq!(drain(&empty).unwrap().0, 0);
    let ng = pcapng(Endianness::Little, vec![], &[]);
    assert_eq!(drain(&ng).unwrap().0, 0);
    let mut r = TraceReader::new(&ng[..], "e").unwrap();
    assert_eq!(busiest_address(&mut r).unwrap(), None);
}

#[test]
fn open_names_a_missing_file() {
    let e = TraceReader::open("/nonexistent/wattlab/x.pcap")
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .starts_with("/nonexistent/wattlab/x.pcap: byte offset 0: cannot read"),
        "{e}"
    );
}

/// Thousands of seeded mutations of valid captures: byte flips, truncations and corrupted
/// length fields. Each read must end (no panic, no endless loop) within its bytes.
#[test]
fn mutated_captures_never_panic() {
    let seeds = [sample_pcap(), sample_pcapng(), {
        let mut b = sample_pcap();
        b[0..4].copy_from_slice(&[0xa1, 0xb2, 0xc3, 0xd4]); // big-endian µs magic over LE fields
        b
    }];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
    let start = Instant::now();
    let (mut errors, mut packets) = (0u64, 0u64);
    for round in 0..6000 {
        let mut b = seeds[round % seeds.len()].clone();
        match rng.random_range(0..4) {
            0 => {
                for _ in 0..rng.random_range(1..8) {
                    let i = rng.random_range(0..b.len());
                    b[i] ^= 1 << rng.random_range(0..8);
                }
            }
            1 => b.truncate(rng.random_range(0..b.len())),
            2 => {
                // Overwrite an aligned 32-bit word (length fields are aligned) with a nasty value.
                let i = rng.random_range(0..b.len() / 4) * 4;
                let v: u32 =
                    [0, 1, 12, 0xffff_ffff, 0x8000_0000, rng.random()][rng.random_range(0..6)];
                b[i..i + 4].copy_from_slice(&v.to_le_bytes());
            }
            _ => {
                let i = rng.random_range(0..b.len());
                let byte = rng.random();
                b.insert(i, byte);
            }
        }
        match drain(&b) {
            Ok((n, e)) => {
                packets += n;
                errors += u64::from(e.is_some());
                assert!(n <= 4, "more packets than records");
            }
            Err(_) => errors += 1,
        }
    }
    assert!(
        errors > 1000 && packets > 1000,
        "mutations exercise both paths: {errors} errors, {packets} packets"
    );
    assert!(
        start.elapsed().as_secs() < 20,
        "fuzz took {:?}",
        start.elapsed()
    );
}

/// A reader that generates a long capture on the fly: the same record over and over.
struct Endless {
    header: Vec<u8>,
    record: Vec<u8>,
    pos: usize,
    left: u64,
}

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            let src = if !self.header.is_empty() {
                &mut self.header
            } else if self.left > 0 {
                &mut self.record
            } else {
                break;
            };
            let k = (src.len() - self.pos).min(buf.len() - n);
            buf[n..n + k].copy_from_slice(&src[self.pos..self.pos + k]);
            n += k;
            self.pos += k;
            if self.pos == src.len() {
                self.pos = 0;
                if !self.header.is_empty() {
                    self.header.clear();
                } else {
                    self.left -= 1;
                }
            }
        }
        Ok(n)
    }
}

/// 300,000 packets (about 460 MB) stream through without the reader holding more than its
/// fixed buffer: the stats are counters, and the capture is never held in memory.
#[test]
fn memory_stays_flat_over_a_long_capture() {
    let frame = ethernet(&ipv4_tcp([10, 0, 0, 1], [10, 0, 0, 2], (1, 2), 0, 0, 1448));
    let whole = pcap(
        DataLink::ETHERNET,
        TsResolution::MicroSecond,
        Endianness::Little,
        &[(0, frame)],
    );
    let n = 300_000u64;
    let src = Endless {
        header: whole[..24].to_vec(),
        record: whole[24..].to_vec(),
        pos: 0,
        left: n,
    };
    let mut r = TraceReader::new(src, "endless").unwrap();
    let mut totals = AddressTotals::new();
    let mut count = 0;
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        assert_eq!(p.index, count);
        totals.add(&p);
        count += 1;
    }
    assert_eq!(count, n);
    assert_eq!(totals.len(), 2);
    assert_eq!(
        totals.get("10.0.0.1".parse().unwrap()).unwrap().bytes,
        n * 1488
    );
    assert!(
        r.buffer_capacity() <= 256 << 10,
        "buffer grew to {}",
        r.buffer_capacity()
    );
}
