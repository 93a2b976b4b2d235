//! Cut a time window out of a classic pcap capture: the records whose timestamps fall in
//! `[start, end)`, copied byte for byte after the file header (tcpdump's µs or ns timestamps,
//! either byte order). The live testbed costs the flows' window of a capture that also spans
//! its set-up this way (`client_window.pcap`). Records are framed by the capture reader
//! ([`TraceReader`]), so a capture the analyzer refuses is refused here with the same error.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use crate::error::{Location, TraceError};
use crate::reader::TraceReader;

/// Bytes of a classic pcap file header.
const FILE_HEADER: usize = 24;

/// Copies the file header of the classic pcap `src` and its records with timestamps in
/// `[start_ns, end_ns)` (ns since the epoch) to `dst`; returns how many records were kept.
/// Errors name the file and byte offset.
pub fn trim_pcap(src: &Path, dst: &Path, start_ns: u64, end_ns: u64) -> Result<u64, TraceError> {
    let mut reader = TraceReader::open(src)?;
    let io_err = |file: &Path, source| TraceError::Io { at: Location { file: file.display().to_string(), packet: None, offset: 0 }, source };
    // The reader has checked the header; it is copied as the file has it.
    let mut header = [0u8; FILE_HEADER];
    File::open(src).and_then(|mut f| f.read_exact(&mut header)).map_err(|e| io_err(src, e))?;
    let mut w = BufWriter::with_capacity(1 << 16, File::create(dst).map_err(|e| io_err(dst, e))?);
    w.write_all(&header).map_err(|e| io_err(dst, e))?;
    let mut kept = 0;
    reader.for_each_pcap_record(|t, record| {
        if (start_ns..end_ns).contains(&t) {
            w.write_all(record).map_err(|e| io_err(dst, e))?;
            kept += 1;
        }
        Ok(())
    })?;
    w.flush().map_err(|e| io_err(dst, e))?;
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
        // A last record cut short is refused as the analyzer refuses it, naming its offset.
        let mut cut = capture(&[(1, 0, 10), (2, 0, 20)]);
        cut.truncate(cut.len() - 5);
        std::fs::write(&src, &cut).unwrap();
        let e = trim_pcap(&src, &dst, 0, u64::MAX).unwrap_err().to_string();
        assert!(e.contains("in.pcap: packet 1 at byte offset 50") && e.contains("truncated"), "{e}");
        // Not a pcap: the error names the file and the magic number.
        std::fs::write(&src, b"hello world, not a capture").unwrap();
        let e = trim_pcap(&src, &dst, 0, 1).unwrap_err().to_string();
        assert!(e.contains("in.pcap") && e.contains("not a pcap"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
