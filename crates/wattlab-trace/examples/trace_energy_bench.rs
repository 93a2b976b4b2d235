//! Energy-analysis benchmark: writes a pcap of N TCP packets (default 1,000,000) of a client
//! downloading over 16 connections in bursts (two data segments of mixed sizes per ACK, 500 µs
//! apart, then a gap of 2 ms to 400 ms), then costs it with [`analyze`] under always-on,
//! oracle, psm and adaptive-psm on the default PHY (802.11g at 54 Mb/s), timelines off, best
//! of 3. Prints packets, wall time, packets/s (and the reader's share), the four energies, the
//! peak RSS (VmHWM) and the heap allocations of one analysis (a counting allocator: the hot
//! path must allocate nothing per packet).
//!
//! `cargo run --release -p wattlab-trace --example trace_energy_bench -- 1000000`
//! `... -- 5000000 --write FILE` writes the capture only (for whole-process measurements).

#[path = "support/bench.rs"]
mod bench;

use std::fs::File;
use std::io::BufWriter;
use std::time::{Duration, Instant};

use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, TsResolution};
use wattlab_trace::energy::analyze;
use wattlab_trace::TraceReader;

/// The system allocator, counting allocations.
struct Counting;

static ALLOCATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const CLIENT: [u8; 4] = [192, 168, 1, 20];
const SERVER: [u8; 4] = [93, 184, 216, 34];

/// Writes the capture; returns its size in bytes.
fn generate(path: &std::path::Path, n: u64) -> u64 {
    let header = PcapHeader {
        datalink: DataLink::ETHERNET,
        ts_resolution: TsResolution::NanoSecond,
        snaplen: 262_144,
        ..Default::default()
    };
    let mut w = PcapWriter::with_header(BufWriter::new(File::create(path).unwrap()), header).unwrap();
    let sizes = [1448usize, 1448, 1448, 512, 1448, 96, 1448, 1448, 0];
    let gaps_us = [2_000u64, 20_000, 150_000, 400_000];
    let zeros = vec![0u8; 1448];
    let mut seq = [1u32; 16];
    let mut frame = Vec::new();
    let mut t_ns = 1_700_000_000_000_000_000u64;
    for i in 0..n {
        let burst = i / 96;
        let conn = (burst % 16) as usize;
        if i > 0 && i % 96 == 0 {
            t_ns += gaps_us[(burst % 4) as usize] * 1000;
        } else {
            t_ns += 500_000;
        }
        frame.clear();
        let down = i % 3 != 2; // two data segments per ACK
        let len = if down { sizes[(i % sizes.len() as u64) as usize] } else { 0 };
        let port = 51_000 + conn as u16;
        let b = PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]);
        let b = if down {
            b.ipv4(SERVER, CLIENT, 64).tcp(443, port, seq[conn], 502).ack(1)
        } else {
            b.ipv4(CLIENT, SERVER, 64).tcp(port, 443, 1, 2000).ack(seq[conn])
        };
        b.write(&mut frame, &zeros[..len]).unwrap();
        seq[conn] = seq[conn].wrapping_add(len as u32);
        w.write_packet(&PcapPacket::new(Duration::from_nanos(t_ns), frame.len() as u32, &frame)).unwrap();
    }
    drop(w);
    std::fs::metadata(path).unwrap().len()
}

fn main() {
    let (n, file) = bench::size_and_file(1_000_000);
    if let Some(path) = file {
        let size = generate(&path, n);
        println!("{n} packets, {:.1} MB: {}", size as f64 / 1e6, path.display());
        return;
    }
    let path = std::env::temp_dir().join(format!("wattlab-trace-energy-bench-{}.pcap", std::process::id()));
    let size = generate(&path, n);
    let rss_before = bench::vm_hwm_kb();
    let opts = bench::four_policies(CLIENT);
    // The reader alone, for the share of the analysis proper.
    let mut read_best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let mut r = TraceReader::open(&path).unwrap();
        let mut k = 0u64;
        while let Some(p) = r.next_packet() {
            k += u64::from(p.unwrap().ip_len > 0);
        }
        read_best = read_best.min(t.elapsed().as_secs_f64());
        assert_eq!(k, n);
    }
    let mut best = f64::MAX;
    let mut last = None;
    let mut allocations = 0;
    for _ in 0..3 {
        let before = ALLOCATIONS.load(std::sync::atomic::Ordering::Relaxed);
        let t = Instant::now();
        let a = analyze(&path, &opts).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        allocations = ALLOCATIONS.load(std::sync::atomic::Ordering::Relaxed) - before;
        assert_eq!(a.packets_up + a.packets_down, n);
        last = Some(a);
    }
    std::fs::remove_file(&path).unwrap();
    let a = last.unwrap();
    println!(
        "{n} packets, {:.1} MB, {:.1} s of capture, {} connections: best of 3 {:.3} s = {:.2} M packets/s",
        size as f64 / 1e6,
        (a.end_ns - a.start_ns) as f64 / 1e9,
        a.connections.len(),
        best,
        n as f64 / best / 1e6
    );
    println!("  of which reading alone (best of 3): {read_best:.3} s; costing: {:.3} s", best - read_best);
    for o in &a.policies {
        println!(
            "  {:<13} {:>10.4} J  (sleep {:>8.3} s, {} transitions, clipped {:.3} ms)",
            o.label,
            o.report.energy_j(),
            o.report.sleep.time_ns as f64 / 1e9,
            o.report.transitions.count,
            o.report.clipped_activity_ns as f64 / 1e6
        );
    }
    println!(
        "  deferred sends: {} ({:.3} s); peak RSS (VmHWM) {} kB before the analysis, {} kB after",
        a.deferred_packets,
        a.deferred_ns as f64 / 1e9,
        rss_before,
        bench::vm_hwm_kb()
    );
    println!(
        "  heap allocations in one analysis: {allocations} ({:.4} per packet; the throughput bins, timelines and \
         attribution vectors grow geometrically)",
        allocations as f64 / n as f64
    );
}
