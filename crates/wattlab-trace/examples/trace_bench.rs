//! Parse-and-account benchmark: writes a pcap of N realistic TCP packets (default 1,000,000;
//! data segments of mixed sizes one way, ACKs the other) to a temp file, then reads it with
//! [`TraceReader`] into per-address totals, best of 3.
//!
//! `cargo run --release -p wattlab-trace --example trace_bench -- 1000000`

use std::fs::File;
use std::io::BufWriter;
use std::time::{Duration, Instant};

use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
#[path = "support/bench.rs"]
mod bench;

use bench::read_packets;

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .map_or(1_000_000, |s| s.parse().expect("N"));
    let path =
        std::env::temp_dir().join(format!("wattlab-trace-bench-{}.pcap", std::process::id()));
    let header = PcapHeader {
        datalink: DataLink::ETHERNET,
        ts_resolution: TsResolution::NanoSecond,
        snaplen: 262_144,
        ..Default::default()
    };
    let mut w =
        PcapWriter::with_header(BufWriter::new(File::create(&path).unwrap()), header).unwrap();
    let sizes = [1448usize, 1448, 1448, 512, 1448, 96, 1448, 1448, 0];
    let zeros = vec![0u8; 1448];
    let (mut seq, mut frame) = (1u32, Vec::new());
    for i in 0..n {
        frame.clear();
        let down = i % 3 != 2; // two data segments per ACK
        let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
        let len = if down {
            sizes[(i % sizes.len() as u64) as usize]
        } else {
            0
        };
        let b = if down {
            b.ipv4([93, 184, 216, 34], [192, 168, 1, 20], 64)
                .tcp(443, 51000, seq, 502)
                .ack(1)
        } else {
            b.ipv4([192, 168, 1, 20], [93, 184, 216, 34], 64)
                .tcp(51000, 443, 1, 2000)
                .ack(seq)
        };
        b.write(&mut frame, &zeros[..len]).unwrap();
        seq = seq.wrapping_add(len as u32);
        w.write_packet(&PcapPacket::new(
            Duration::from_nanos(i * 10_000),
            frame.len() as u32,
            &frame,
        ))
        .unwrap();
    }
    drop(w);
    let size = std::fs::metadata(&path).unwrap().len();
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let (packets, addresses) = read_packets(&path);
        let s = t.elapsed().as_secs_f64();
        assert_eq!((packets, addresses), (n, 2));
        best = best.min(s);
    }
    std::fs::remove_file(&path).unwrap();
    println!(
        "{n} packets, {:.1} MB: best of 3 {:.3} s = {:.2} M packets/s, {:.0} MB/s",
        size as f64 / 1e6,
        best,
        n as f64 / best / 1e6,
        size as f64 / best / 1e6
    );
}
