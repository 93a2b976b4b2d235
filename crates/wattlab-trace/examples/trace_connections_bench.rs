//! Memory per connection: writes a capture of N short TCP connections of one client (a
//! 60-byte request up, a 300-byte response down, 2 ms apart, the next connection 5 ms later; client ports
//! cycle over 50,000 and the peer changes every 50,000 connections, so every connection is
//! distinct), then costs it under always-on, oracle, psm and adaptive-psm (802.11g@54,
//! timelines off, client given) with the default `max_connections` and prints the wall time,
//! the connections kept and folded, and the peak RSS (VmHWM).
//!
//! `cargo run --release -p wattlab-trace --example trace_connections_bench -- 2000000`
//! `... -- 2000000 --write FILE` writes the capture only (for whole-process measurements of
//! `wattlab trace energy FILE` under `/usr/bin/time -v`).

#[path = "support/bench.rs"]
mod bench;

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::{Duration, Instant};

use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use wattlab_trace::energy::analyze;

/// The client of the generated capture.
const CLIENT: [u8; 4] = [192, 168, 1, 20];

/// Writes `n` connections to `path`; returns the file's size in bytes.
fn generate(path: &Path, n: u64) -> u64 {
    let header = PcapHeader { datalink: DataLink::ETHERNET, ts_resolution: TsResolution::NanoSecond, ..Default::default() };
    let mut w = PcapWriter::with_header(BufWriter::new(File::create(path).unwrap()), header).unwrap();
    let zeros = [0u8; 300];
    let mut frame = Vec::new();
    for k in 0..n {
        let t = 1_700_000_000_000_000_000u64 + k * 5_000_000;
        let port = 10_000 + (k % 50_000) as u16;
        let peer = (0x0b00_0000u32 + (k / 50_000) as u32).to_be_bytes();
        for (dt, up) in [(0u64, true), (2_000_000, false)] {
            frame.clear();
            let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
            if up {
                b.ipv4(CLIENT, peer, 64).tcp(port, 443, 1, 64_000).ack(1).write(&mut frame, &zeros[..60]).unwrap();
            } else {
                b.ipv4(peer, CLIENT, 64).tcp(443, port, 1, 64_000).ack(61).write(&mut frame, &zeros).unwrap();
            }
            w.write_packet(&PcapPacket::new(Duration::from_nanos(t + dt), frame.len() as u32, &frame)).unwrap();
        }
    }
    drop(w);
    std::fs::metadata(path).unwrap().len()
}

fn main() {
    let (n, file) = bench::size_and_file(1_000_000);
    if let Some(path) = file {
        let size = generate(&path, n);
        println!("{n} connections, {} packets, {:.1} MB: {}", 2 * n, size as f64 / 1e6, path.display());
        return;
    }
    let path = std::env::temp_dir().join(format!("wattlab-trace-connections-bench-{}.pcap", std::process::id()));
    let size = generate(&path, n);
    let rss_before = bench::vm_hwm_kb();
    let opts = bench::four_policies(CLIENT);
    let t = Instant::now();
    let a = analyze(&path, &opts).unwrap();
    let secs = t.elapsed().as_secs_f64();
    std::fs::remove_file(&path).unwrap();
    println!(
        "{n} connections, {} packets, {:.1} MB: {secs:.3} s; {} connection rows ({} folded into `other`, cap {}); \
         peak RSS (VmHWM) {} kB before the analysis, {} kB after",
        a.packets_up + a.packets_down,
        size as f64 / 1e6,
        a.connections.len(),
        a.connections_evicted,
        a.max_connections,
        rss_before,
        bench::vm_hwm_kb()
    );
}
