//! Cut a time window out of a classic pcap capture: the records whose timestamps fall in
//! `[start, end)`, copied byte for byte after the file header (tcpdump's µs or ns timestamps,
//! either byte order). The live testbed costs the flows' window of a capture that also spans
//! its set-up this way (`client_window.pcap`).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use crate::error::{Location, TraceError};

/// Bytes of a classic pcap file header and of a record header.
const FILE_HEADER: usize = 24;
const RECORD_HEADER: usize = 16;

/// The byte order and timestamp unit (ns per sub-second unit) of a classic pcap magic number.
fn magic_format(magic: [u8; 4]) -> Option<(bool, u64)> {
    match magic {
        [0xd4, 0xc3, 0xb2, 0xa1] => Some((false, 1_000)),
        [0xa1, 0xb2, 0xc3, 0xd4] => Some((true, 1_000)),
        [0x4d, 0x3c, 0xb2, 0xa1] => Some((false, 1)),
        [0xa1, 0xb2, 0x3c, 0x4d] => Some((true, 1)),
        _ => None,
    }
}

/// Reads up to `buf.len()` bytes; returns how many (fewer only at the end of the file).
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Copies the file header of the classic pcap `src` and its records with timestamps in
/// `[start_ns, end_ns)` (ns since the epoch) to `dst`; returns how many records were kept.
/// A last record cut short by the end of the file is copied as far as it goes (a capture
/// stopped mid-write), as the analyzer reads it. Errors name the file and byte offset.
pub fn trim_pcap(src: &Path, dst: &Path, start_ns: u64, end_ns: u64) -> Result<u64, TraceError> {
    let name = src.display().to_string();
    let at = |offset: u64, packet: Option<u64>| Location { file: name.clone(), packet, offset };
    // Records are not decoded, so errors name byte offsets only.
    let io_err = |offset: u64, source| TraceError::Io { at: at(offset, None), source };
    let mut r = BufReader::with_capacity(1 << 16, File::open(src).map_err(|e| io_err(0, e))?);
    let mut header = [0u8; FILE_HEADER];
    let got = read_full(&mut r, &mut header).map_err(|e| io_err(0, e))?;
    if got < 4 {
        return Err(TraceError::Truncated { at: at(0, None), what: "pcap file header", need: FILE_HEADER as u64, have: got as u64 });
    }
    let magic = [header[0], header[1], header[2], header[3]];
    let Some((big, unit_ns)) = magic_format(magic) else {
        if magic == [0x0a, 0x0d, 0x0d, 0x0a] {
            return Err(TraceError::Corrupt {
                at: at(0, None),
                what: "capture format",
                detail: "a pcapng file: only classic pcap captures (tcpdump -w) can be trimmed".into(),
            });
        }
        return Err(TraceError::BadMagic { at: at(0, None), magic: u32::from_be_bytes(magic) });
    };
    if got < FILE_HEADER {
        return Err(TraceError::Truncated { at: at(0, None), what: "pcap file header", need: FILE_HEADER as u64, have: got as u64 });
    }
    let out_name = dst.display().to_string();
    let out_err = |source| TraceError::Io { at: Location { file: out_name.clone(), packet: None, offset: 0 }, source };
    let mut w = BufWriter::with_capacity(1 << 16, File::create(dst).map_err(out_err)?);
    w.write_all(&header).map_err(out_err)?;
    let u32_at = |b: &[u8], i: usize| {
        let x = [b[i], b[i + 1], b[i + 2], b[i + 3]];
        if big {
            u32::from_be_bytes(x)
        } else {
            u32::from_le_bytes(x)
        }
    };
    let (mut offset, mut kept) = (FILE_HEADER as u64, 0u64);
    let mut rec = [0u8; RECORD_HEADER];
    let mut body = Vec::new();
    loop {
        let n = read_full(&mut r, &mut rec).map_err(|e| io_err(offset, e))?;
        if n < RECORD_HEADER {
            break; // the end (or a record header cut short: nothing to copy)
        }
        let (sec, frac, incl) = (u64::from(u32_at(&rec, 0)), u64::from(u32_at(&rec, 4)), u32_at(&rec, 8) as usize);
        body.resize(incl, 0);
        let n = read_full(&mut r, &mut body).map_err(|e| io_err(offset, e))?;
        let t = sec * 1_000_000_000 + frac * unit_ns;
        if (start_ns..end_ns).contains(&t) {
            w.write_all(&rec).and_then(|()| w.write_all(&body[..n])).map_err(out_err)?;
            kept += 1;
        }
        if n < incl {
            break;
        }
        offset += (RECORD_HEADER + incl) as u64;
    }
    w.flush().map_err(out_err)?;
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A little-endian µs pcap with records at the given (s, µs) and `len` bytes each.
    fn capture(records: &[(u32, u32, usize)]) -> Vec<u8> {
        let mut b = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0];
        b.extend([0u8; 8]);
        b.extend(65535u32.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        for &(s, us, len) in records {
            b.extend(s.to_le_bytes());
            b.extend(us.to_le_bytes());
            b.extend((len as u32).to_le_bytes());
            b.extend((len as u32).to_le_bytes());
            b.extend(std::iter::repeat_n(s as u8, len));
        }
        b
    }

    #[test]
    fn keeps_the_window_byte_for_byte() {
        let dir = std::env::temp_dir().join(format!("wattlab-trim-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (src, dst) = (dir.join("in.pcap"), dir.join("out.pcap"));
        std::fs::write(&src, capture(&[(1, 0, 10), (2, 5, 20), (3, 0, 30), (4, 0, 5)])).unwrap();
        // [2.000005 s, 4 s): the second and third records.
        let kept = trim_pcap(&src, &dst, 2_000_005_000, 4_000_000_000).unwrap();
        assert_eq!(kept, 2);
        assert_eq!(std::fs::read(&dst).unwrap(), capture(&[(2, 5, 20), (3, 0, 30)]));
        // A last record cut short is copied as far as it goes.
        let mut cut = capture(&[(1, 0, 10), (2, 0, 20)]);
        cut.truncate(cut.len() - 5);
        std::fs::write(&src, &cut).unwrap();
        assert_eq!(trim_pcap(&src, &dst, 0, u64::MAX).unwrap(), 2);
        assert_eq!(std::fs::read(&dst).unwrap(), cut);
        // Not a pcap: the error names the file and the magic number.
        std::fs::write(&src, b"hello world, not a capture").unwrap();
        let e = trim_pcap(&src, &dst, 0, 1).unwrap_err().to_string();
        assert!(e.contains("in.pcap") && e.contains("not a pcap"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
