//! Classic pcap output of simulated packets, readable by tcpdump and Wireshark.
//!
//! Files are libpcap format 2.4 (not pcapng) with link type Ethernet (`LINKTYPE_ETHERNET` = 1)
//! or, for a monitor's view of an 802.11 channel, radiotap (`LINKTYPE_IEEE802_11_RADIOTAP` =
//! 127, frames from `wlan::radiotap`), and nanosecond timestamps (magic `0xa1b23c4d`, written
//! in native byte order). A packet at simulated [`Time`] `t` gets the timestamp `epoch + t`
//! (ns since the Unix epoch; `output.pcap_epoch`, 0 for [`PcapSink::new`]); pcap's 32-bit
//! seconds field ends in 2106. Ethernet frames are Ethernet II without FCS, encoded by
//! [`wattlab_core::wire`].
//!
//! With a snaplen, each record holds at most `snaplen` bytes while its original length is the
//! full frame, as libpcap writes truncated captures. Note that pcap-file 2.0's
//! `PcapReader::next_packet` rejects such records (it wrongly requires `orig_len <= snaplen`);
//! read truncated files with `next_raw_packet` or any libpcap-based tool.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use wattlab_core::wire::{self, WireError};
use wattlab_core::packet::PacketArena;
use wattlab_core::{Packet, Time};

/// Snaplen recorded in the file header when the caller asks for full packets (0): tcpdump's
/// default, larger than any Ethernet frame carrying IPv4 (14 + 65535 bytes).
pub const FULL_SNAPLEN: u32 = 262_144;

/// Failure to create or write a pcap file; every message names the destination.
#[derive(Debug, thiserror::Error)]
pub enum PcapError {
    /// The file could not be created.
    #[error("cannot create pcap file {}: {source}", path.display())]
    Create {
        /// Path that was being created.
        path: PathBuf,
        /// Underlying I/O error.
        source: io::Error,
    },
    /// Writing the file header or a packet record failed.
    #[error("cannot write pcap {}: {source}", dest.display())]
    Write {
        /// File path, or `<writer>` when writing to an in-memory or generic writer.
        dest: PathBuf,
        /// Underlying pcap-file error (usually I/O).
        source: pcap_file::PcapError,
    },
    /// Flushing buffered records failed.
    #[error("cannot flush pcap {}: {source}", dest.display())]
    Flush {
        /// File path, or `<writer>` when writing to an in-memory or generic writer.
        dest: PathBuf,
        /// Underlying I/O error.
        source: io::Error,
    },
    /// The packet cannot be encoded as bytes.
    #[error("cannot encode packet at {t} for pcap {}: {source}", dest.display())]
    Encode {
        /// File path, or `<writer>` when writing to an in-memory or generic writer.
        dest: PathBuf,
        /// Timestamp of the packet.
        t: Time,
        /// What is wrong with the packet.
        source: WireError,
    },
    /// The timestamp does not fit pcap's 32-bit seconds field.
    #[error("timestamp {t} is beyond pcap's 32-bit seconds field (pcap {})", dest.display())]
    Timestamp {
        /// File path, or `<writer>` when writing to an in-memory or generic writer.
        dest: PathBuf,
        /// The offending time.
        t: Time,
    },
}

/// A pcap writer for simulated packets: Ethernet link type, nanosecond timestamps, optional
/// snaplen; reuses one scratch buffer, so writing allocates nothing once it has grown.
pub struct PcapSink<W: Write = BufWriter<File>> {
    writer: PcapWriter<W>,
    /// Bytes kept per record; 0 keeps whole frames.
    snaplen: u32,
    /// Frame bytes of the packet being written; cleared, never shrunk.
    scratch: Vec<u8>,
    packets: u64,
    /// Named in error messages.
    dest: PathBuf,
    /// Added to every timestamp: the run's start, ns since the Unix epoch.
    epoch_ns: u64,
}

impl PcapSink<BufWriter<File>> {
    /// Create (or truncate) the pcap file at `path`; `snaplen` 0 keeps whole packets.
    pub fn create(path: &Path, snaplen: u32) -> Result<Self, PcapError> {
        Self::create_link(path, snaplen, DataLink::ETHERNET, 0)
    }

    /// Create (or truncate) a pcap file of link type `link` at `path` whose timestamps start
    /// at `epoch_ns` (ns since the Unix epoch).
    pub fn create_link(path: &Path, snaplen: u32, link: DataLink, epoch_ns: u64) -> Result<Self, PcapError> {
        let file = File::create(path)
            .map_err(|source| PcapError::Create { path: path.to_path_buf(), source })?;
        Self::with_dest(BufWriter::new(file), snaplen, path.to_path_buf(), link, epoch_ns)
    }
}

impl<W: Write> PcapSink<W> {
    /// A sink writing pcap bytes to any writer (e.g. a `Vec<u8>` in tests); `snaplen` 0 keeps
    /// whole packets.
    pub fn new(writer: W, snaplen: u32) -> Result<Self, PcapError> {
        Self::with_dest(writer, snaplen, PathBuf::from("<writer>"), DataLink::ETHERNET, 0)
    }

    /// [`PcapSink::new`] of link type `link`, timestamps from `epoch_ns`.
    pub fn new_link(writer: W, snaplen: u32, link: DataLink, epoch_ns: u64) -> Result<Self, PcapError> {
        Self::with_dest(writer, snaplen, PathBuf::from("<writer>"), link, epoch_ns)
    }

    fn with_dest(writer: W, snaplen: u32, dest: PathBuf, datalink: DataLink, epoch_ns: u64) -> Result<Self, PcapError> {
        let header = PcapHeader {
            version_major: 2,
            version_minor: 4,
            ts_correction: 0,
            ts_accuracy: 0,
            snaplen: if snaplen == 0 { FULL_SNAPLEN } else { snaplen },
            datalink,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::native(),
        };
        let writer = PcapWriter::with_header(writer, header)
            .map_err(|source| PcapError::Write { dest: dest.clone(), source })?;
        Ok(PcapSink { writer, snaplen, scratch: Vec::new(), packets: 0, dest, epoch_ns })
    }

    /// Append `pkt`, sent at `t`, as an Ethernet frame from `src_mac` to `dst_mac`.
    pub fn write(&mut self, t: Time, pkt: &Packet, src_mac: [u8; 6], dst_mac: [u8; 6]) -> Result<(), PcapError> {
        self.write_in(t, pkt, &PacketArena::with_slots(1), src_mac, dst_mac)
    }

    /// [`PcapSink::write`] for packets that may encapsulate others (a tunnel's, kept in
    /// `arena`): the inner packet is written as IPv4 bytes inside the outer one.
    pub fn write_in(
        &mut self,
        t: Time,
        pkt: &Packet,
        arena: &PacketArena,
        src_mac: [u8; 6],
        dst_mac: [u8; 6],
    ) -> Result<(), PcapError> {
        self.write_with(t, |buf| wire::encode_ethernet_in(pkt, arena, src_mac, dst_mac, buf))
    }

    /// Appends the frame `encode` writes into the (cleared) buffer, sent at `t`.
    pub fn write_with(&mut self, t: Time, encode: impl FnOnce(&mut Vec<u8>) -> Result<(), WireError>) -> Result<(), PcapError> {
        let nanos = t.as_nanos().saturating_add(self.epoch_ns);
        if nanos / 1_000_000_000 > u64::from(u32::MAX) {
            return Err(PcapError::Timestamp { dest: self.dest.clone(), t });
        }
        self.scratch.clear();
        encode(&mut self.scratch).map_err(|source| PcapError::Encode { dest: self.dest.clone(), t, source })?;
        // Frames are at most a few headers + 65535 bytes (A-MSDUs 11454), so the length
        // always fits in u32.
        let orig_len = u32::try_from(self.scratch.len()).unwrap_or(u32::MAX);
        let captured = match self.snaplen {
            0 => orig_len,
            snap => orig_len.min(snap),
        } as usize;
        let record = PcapPacket::new(
            std::time::Duration::from_nanos(nanos),
            orig_len,
            &self.scratch[..captured],
        );
        self.writer
            .write_packet(&record)
            .map_err(|source| PcapError::Write { dest: self.dest.clone(), source })?;
        self.packets += 1;
        Ok(())
    }

    /// Packets written so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Flush and close, returning the number of packets written.
    pub fn finish(self) -> Result<u64, PcapError> {
        self.finish_into_inner().map(|(n, _)| n)
    }

    /// Flush and return the packet count and the underlying writer.
    pub fn finish_into_inner(self) -> Result<(u64, W), PcapError> {
        let mut w = self.writer.into_writer();
        // Explicit flush: BufWriter's drop would swallow a write error (e.g. disk full).
        w.flush().map_err(|source| PcapError::Flush { dest: self.dest, source })?;
        Ok((self.packets, w))
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;
    use std::process::Command;
    use std::sync::atomic::{AtomicU32, Ordering};

    use pcap_file::pcap::PcapReader;
    use wattlab_core::packet::{TcpOptions, Timestamps, UdpHeader};
    use wattlab_core::time::Duration;
    use wattlab_core::wire::{decode_ethernet, mac_for_node};
    use wattlab_core::{TcpFlags, TcpHeader};

    use super::*;

    const A: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
    const B: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);

    /// A temp file path removed on drop, unique per process and test.
    struct TempPath(PathBuf);
    impl TempPath {
        fn new(name: &str) -> TempPath {
            static N: AtomicU32 = AtomicU32::new(0);
            let n = N.fetch_add(1, Ordering::Relaxed);
            let file = format!("wattlab-pcap-{}-{n}-{name}.pcap", std::process::id());
            TempPath(std::env::temp_dir().join(file))
        }
    }
    impl Drop for TempPath {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// SYN, SYN-ACK, a data segment and a UDP datagram, with their send times.
    fn trace() -> Vec<(Time, Packet)> {
        let syn_opts = TcpOptions {
            mss: Some(1460),
            window_scale: Some(7),
            sack_permitted: true,
            timestamps: Some(Timestamps { tsval: 1000, tsecr: 0 }),
            ..Default::default()
        };
        let syn = TcpHeader {
            src_port: 40000,
            dst_port: 80,
            seq: 100,
            flags: TcpFlags::SYN,
            window: 64240,
            options: syn_opts,
            ..Default::default()
        };
        let synack = TcpHeader {
            src_port: 80,
            dst_port: 40000,
            seq: 900,
            ack: 101,
            flags: TcpFlags::SYN | TcpFlags::ACK,
            window: 65160,
            options: TcpOptions {
                timestamps: Some(Timestamps { tsval: 5, tsecr: 1000 }),
                ..syn_opts
            },
        };
        let data = TcpHeader {
            src_port: 40000,
            dst_port: 80,
            seq: 101,
            ack: 901,
            flags: TcpFlags::ACK | TcpFlags::PSH,
            window: 502,
            options: TcpOptions {
                timestamps: Some(Timestamps { tsval: 1020, tsecr: 5 }),
                ..Default::default()
            },
        };
        let t0 = Time::ZERO + Duration::from_millis(1500) + Duration::from_nanos(123);
        vec![
            (t0, Packet::tcp(A, B, syn, 0)),
            (t0 + Duration::from_millis(20), Packet::tcp(B, A, synack, 0)),
            (
                t0 + Duration::from_millis(40) + Duration::from_nanos(1),
                Packet::tcp(A, B, data, 1448),
            ),
            (
                Time(3_000_000_000),
                Packet::udp(A, B, UdpHeader { src_port: 5000, dst_port: 5001 }, 333),
            ),
        ]
    }

    fn write_trace<W: Write>(sink: &mut PcapSink<W>) {
        for (t, p) in trace() {
            sink.write(
                t,
                &p,
                mac_for_node(p.src.octets()[3].into()),
                mac_for_node(p.dst.octets()[3].into()),
            )
            .unwrap();
        }
    }

    #[test]
    fn file_round_trip_with_nanosecond_timestamps() {
        let path = TempPath::new("roundtrip");
        let mut sink = PcapSink::create(&path.0, 0).unwrap();
        write_trace(&mut sink);
        assert_eq!(sink.packets(), 4);
        assert_eq!(sink.finish().unwrap(), 4);

        let mut reader = PcapReader::new(File::open(&path.0).unwrap()).unwrap();
        let h = reader.header();
        assert_eq!(h.datalink, DataLink::ETHERNET);
        assert_eq!(h.ts_resolution, TsResolution::NanoSecond);
        assert_eq!((h.version_major, h.version_minor), (2, 4));
        assert_eq!(h.snaplen, FULL_SNAPLEN);
        let mut n = 0;
        for (t, p) in trace() {
            let rec = reader.next_packet().unwrap().unwrap();
            assert_eq!(rec.timestamp.as_nanos(), u128::from(t.as_nanos()));
            assert_eq!(rec.orig_len, 14 + p.ip_len());
            assert_eq!(rec.data.len(), rec.orig_len as usize);
            assert_eq!(decode_ethernet(&rec.data).unwrap(), p);
            n += 1;
        }
        assert!(reader.next_packet().is_none());
        assert_eq!(n, 4);
    }

    #[test]
    fn snaplen_truncates_but_keeps_original_length() {
        let mut sink = PcapSink::new(Vec::new(), 96).unwrap();
        write_trace(&mut sink);
        let (count, bytes) = sink.finish_into_inner().unwrap();
        assert_eq!(count, 4);

        let mut reader = PcapReader::new(&bytes[..]).unwrap();
        assert_eq!(reader.header().snaplen, 96);
        for (t, p) in trace() {
            // Raw records: pcap-file's checked reader rejects orig_len > snaplen.
            let rec = reader.next_raw_packet().unwrap().unwrap();
            let full = 14 + p.ip_len();
            assert_eq!(rec.orig_len, full);
            assert_eq!(rec.incl_len, full.min(96));
            assert_eq!(rec.data.len(), rec.incl_len as usize);
            assert_eq!(
                u64::from(rec.ts_sec) * 1_000_000_000 + u64::from(rec.ts_frac),
                t.as_nanos()
            );
            // The payload length comes from the IP header, so truncated frames decode fully.
            assert_eq!(decode_ethernet(&rec.data).unwrap(), p);
        }
    }

    #[test]
    fn scratch_buffer_stops_growing() {
        let mut sink = PcapSink::new(io::sink(), 0).unwrap();
        write_trace(&mut sink);
        let cap = sink.scratch.capacity();
        let ptr = sink.scratch.as_ptr();
        write_trace(&mut sink);
        assert_eq!((sink.scratch.capacity(), sink.scratch.as_ptr()), (cap, ptr));
    }

    #[test]
    fn errors_name_the_destination() {
        let bad = std::env::temp_dir().join("wattlab-no-such-dir-7f3a").join("x.pcap");
        let e = PcapSink::create(&bad, 0).err().unwrap();
        assert!(e.to_string().contains(&*bad.to_string_lossy()), "{e}");

        let mut sink = PcapSink::new(Vec::new(), 0).unwrap();
        let (_, p) = trace()[0];
        let e = sink.write(Time(u64::MAX), &p, [0; 6], [0; 6]).unwrap_err();
        assert!(matches!(e, PcapError::Timestamp { .. }), "{e}");
        let mut big = p;
        big.payload_len = 70_000;
        let e = sink.write(Time::ZERO, &big, [0; 6], [0; 6]).unwrap_err();
        assert!(e.to_string().contains("65535"), "{e}");
        assert_eq!(sink.finish().unwrap(), 0);
    }

    /// Cross-check with tcpdump when it is installed (CI installs it); skipped otherwise.
    #[test]
    fn tcpdump_reads_the_file() {
        let path = TempPath::new("tcpdump");
        let mut sink = PcapSink::create(&path.0, 0).unwrap();
        write_trace(&mut sink);
        sink.finish().unwrap();
        let out = match Command::new("tcpdump").arg("-nn").arg("-r").arg(&path.0).output() {
            Ok(out) => out,
            Err(e) => {
                eprintln!("skipping tcpdump cross-check: cannot run tcpdump ({e})");
                return;
            }
        };
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "tcpdump failed: {}", String::from_utf8_lossy(&out.stderr));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        for want in [
            "10.0.0.1.40000 > 10.0.0.2.80: Flags [S]",
            "options [mss 1460,sackOK,TS val 1000 ecr 0,nop,wscale 7]",
            "length 0",
        ] {
            assert!(lines[0].contains(want), "missing {want:?} in {}", lines[0]);
        }
        assert!(lines[1].contains("Flags [S.]"), "{}", lines[1]);
        for want in ["Flags [P.]", "options [nop,nop,TS val 1020 ecr 5]", "length 1448"] {
            assert!(lines[2].contains(want), "missing {want:?} in {}", lines[2]);
        }
        assert!(
            lines[3].contains("10.0.0.1.5000 > 10.0.0.2.5001: UDP, length 333"),
            "{}",
            lines[3]
        );
        // With -v tcpdump verifies TCP checksums and prints "(correct)" or "(incorrect -> ..)".
        let verbose = Command::new("tcpdump").arg("-nn").arg("-v").arg("-r").arg(&path.0).output();
        if let Ok(v) = verbose {
            let v = String::from_utf8_lossy(&v.stdout);
            assert!(!v.contains("incorrect"), "tcpdump reports a bad checksum:\n{v}");
            assert_eq!(v.matches("(correct)").count(), 3, "TCP checksums verified:\n{v}");
        }
    }
}
