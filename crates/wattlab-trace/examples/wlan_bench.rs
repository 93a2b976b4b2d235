//! 802.11 reader benchmark: writes a radiotap pcap of N frames shaped like a monitor capture
//! of a download (per 4 frames: three QoS data frames carrying IPv4/TCP at HT MCS 7 in an
//! A-MPDU, then a Block Ack; a beacon every 100), then reads it best of 3, frame by frame
//! (`next_wlan`, with the PM/retry bits and TIM touched) and as IP packets (`next_packet`
//! into per-address totals).
//!
//! `cargo run --release -p wattlab-trace --example wlan_bench -- 1000000`

use std::time::Instant;

#[path = "support/bench.rs"]
mod bench;
#[path = "support/wlan_frames.rs"]
mod wlan_frames;

use bench::read_packets;
use wlan_frames::{ipv4_tcp_down, mac, mac_header, radiotap, RadiotapPcap, RtPhy};
use wattlab_trace::TraceReader;

/// Frame by frame: (frames, frames with PM or retry, DTIM beacons buffering for AID 1).
/// Not inlined, so that `valgrind --toggle-collect='*read_frames*'` can count its instructions.
#[inline(never)]
fn read_frames(path: &std::path::Path) -> (u64, u64, u64) {
    let mut r = TraceReader::open(path).unwrap();
    let (mut frames, mut dozing, mut dtims) = (0u64, 0u64, 0u64);
    while let Some(f) = r.next_wlan() {
        let f = f.unwrap();
        frames += 1;
        dozing += u64::from(f.mac.power_mgmt() || f.mac.retry());
        if f.mac.frame_type() == 0 {
            dtims += u64::from(f.tim().is_some_and(|t| t.dtim_count == 0 && t.has_aid(1)));
        }
    }
    (frames, dozing, dtims)
}

fn main() {
    let n: u64 = std::env::args().nth(1).map_or(1_000_000, |s| s.parse().expect("N"));
    let path = std::env::temp_dir().join(format!("wattlab-wlan-bench-{}.pcap", std::process::id()));
    let mut w = RadiotapPcap::create(&path);
    let sizes = [1448usize, 1448, 512, 1448, 96, 1448, 0];
    let mut frame = Vec::new();
    let (mut data_frames, mut seq) = (0u64, 1u32);
    for i in 0..n {
        frame.clear();
        let tsft = 1_000_000 + i * 250;
        if i % 100 == 99 {
            // Beacon with a TIM: DTIM period 3, AID 1 buffered.
            frame.extend(radiotap(tsft, RtPhy::None));
            frame.extend(mac_header([0x80, 0], mac(0xff), mac(1), false));
            frame.extend_from_slice(&[0; 8]);
            frame.extend_from_slice(&[100, 0, 0x11, 0x04]);
            frame.extend_from_slice(&[0, 7, b'w', b'a', b't', b't', b'l', b'a', b'b', 5, 4, 0, 3, 0, 2]);
        } else if i % 4 == 3 {
            // Block Ack from the client.
            frame.extend(radiotap(tsft, RtPhy::None));
            frame.extend_from_slice(&[0x94, 0, 0x2c, 0, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2]);
            frame.extend_from_slice(&[0x05, 0, 0x10, 0]);
            frame.extend_from_slice(&[0xff; 8]);
        } else {
            // QoS data down: LLC/SNAP, IPv4 (20), TCP (20), payload.
            let len = sizes[(data_frames % sizes.len() as u64) as usize];
            data_frames += 1;
            frame.extend(radiotap(tsft, RtPhy::Mcs(7, (i / 4) as u32)));
            frame.extend(mac_header([0x88, 0x02], mac(2), mac(1), true));
            ipv4_tcp_down(&mut frame, seq, len);
            seq = seq.wrapping_add(len as u32);
        }
        frame.extend_from_slice(&[0; 4]); // FCS (not checked: the radiotap flags say it is good)
        w.record(1_704_067_200 * 1_000_000 + i * 250, &frame);
    }
    drop(w);
    let size = std::fs::metadata(&path).unwrap().len();
    let (mut best_frames, mut best_ip) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        let t = Instant::now();
        let counts = read_frames(&path);
        best_frames = best_frames.min(t.elapsed().as_secs_f64());
        assert_eq!(counts, (n, 0, n / 100));
        let t = Instant::now();
        let (packets, addresses) = read_packets(&path);
        best_ip = best_ip.min(t.elapsed().as_secs_f64());
        assert_eq!((packets, addresses), (data_frames, 2));
    }
    std::fs::remove_file(&path).unwrap();
    println!(
        "{n} radiotap frames ({data_frames} IPv4/TCP data), {:.1} MB: next_wlan best of 3 {:.3} s = {:.2} M frames/s; \
         next_packet best of 3 {:.3} s = {:.2} M frames/s ({:.0} MB/s)",
        size as f64 / 1e6,
        best_frames,
        n as f64 / best_frames / 1e6,
        best_ip,
        n as f64 / best_ip / 1e6,
        size as f64 / best_ip / 1e6
    );
}
