//! Energy analysis of an 802.11 capture: writes a radiotap pcap of N frames (default
//! 1,000,000) of a power-saving client downloading (bursts of 24 three-MPDU A-MPDUs at HT
//! MCS 7, each answered by its Block Ack SIFS later; a QoS-Null with PM = 1 after a burst, the
//! AP's beacons every 102.4 TU with the client's AID in the TIM once data waits, a QoS-Null
//! with PM = 0 before the next burst; every frame stamped at its PPDU's end, as a receiving
//! host stamps it, TSFT at its start), then costs it best of 3 with `--policy observed`
//! (`--client-mac`), with the four classic policies (always-on, oracle, psm, adaptive-psm on
//! the default `--phy`), and with all five, timelines off. Prints frames/s for each, the
//! reader's share (frame by frame and as IP packets), what `observed` saw, and the heap
//! allocations of one analysis (a counting allocator: nothing per frame).
//!
//! `cargo run --release -p wattlab-trace --example wlan_energy_bench -- 1000000`
//! `... -- 1000000 --write FILE` writes the capture only (for `wattlab trace energy FILE
//! --client 192.168.1.20 --client-mac 02:00:00:00:00:02 --policy observed`);
//! `... -- 100000 --policies observed` costs under those policies only (comma-separated), for
//! `valgrind --tool=callgrind --toggle-collect='*energy*analyze*'` (three analyses).

#[path = "support/bench.rs"]
mod bench;
#[path = "support/wlan_frames.rs"]
mod wlan_frames;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use wattlab_core::energy::builtin_profile;
use wattlab_core::wlan::aggregation::DELIMITER_BYTES;
use wattlab_core::wlan::phy::{Band, Mcs, TxVector, PHY_80211A, PHY_80211N};
use wattlab_trace::airtime::Airtime;
use wattlab_trace::energy::{analyze, EnergyAnalysis, EnergyOptions};
use wattlab_trace::policy_spec::{PolicySpec, SpecContext};
use wattlab_trace::TraceReader;
use wlan_frames::{ipv4_tcp_down, mac, mac_header, radiotap, RadiotapPcap, RtPhy};

/// The system allocator, counting allocations.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Relaxed);
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const CLIENT_IP: [u8; 4] = [192, 168, 1, 20];
const AP: u8 = 1;
const CLIENT: u8 = 2;
/// 802.11a/n at 5 GHz: SIFS 16 µs, slot 9 µs, DIFS = SIFS + 2 slots.
const SIFS_NS: u64 = 16_000;
const SLOT_NS: u64 = 9_000;
const DIFS_NS: u64 = SIFS_NS + 2 * SLOT_NS;
/// 100 TU.
const BEACON_INTERVAL_NS: u64 = 102_400_000;
const A_MPDUS_PER_BURST: u64 = 24;

/// The capture being written: the medium's clock and what is on the air.
struct Air {
    w: RadiotapPcap,
    /// When the medium is next free, ns since the epoch.
    t: u64,
    t0: u64,
    frames: u64,
    n: u64,
    next_tbtt: u64,
    frame: Vec<u8>,
}

impl Air {
    /// Writes the frames of one PPDU (an A-MPDU's subframes share it) starting at `self.t`,
    /// each stamped at the PPDU's end; the medium is then busy until that end. Returns how
    /// many were written (the capture stops at N frames).
    fn ppdu(&mut self, records: &[Vec<u8>], dur_ns: u64) -> u64 {
        let end = self.t + dur_ns;
        let before = self.frames;
        for r in records {
            if self.frames == self.n {
                break;
            }
            self.frame.clear();
            self.frame.extend_from_slice(r);
            let tsft = (self.t - self.t0) / 1_000;
            // The TSFT field sits right after the 8-byte radiotap header.
            self.frame[8..16].copy_from_slice(&tsft.to_le_bytes());
            self.w.record(end / 1_000, &self.frame);
            self.frames += 1;
        }
        self.t = end;
        self.frames - before
    }

    fn full(&self) -> bool {
        self.frames == self.n
    }
}

/// Airtime of a non-HT frame of `bytes` (FCS included) at `kbps` on 802.11a.
fn legacy_ns(bytes: usize, kbps: u32) -> u64 {
    PHY_80211A.frame_duration(bytes as u32, kbps).as_nanos()
}

/// A frame: radiotap (TSFT filled in when written) + `mac` + FCS.
fn with_fcs(phy: RtPhy, mut mac: Vec<u8>) -> (Vec<u8>, usize) {
    mac.extend_from_slice(&[0; 4]);
    let len = mac.len();
    let mut v = radiotap(0, phy);
    v.extend(mac);
    (v, len)
}

fn control(fc: u8, ra: u8, ta: Option<u8>, tail: &[u8]) -> (Vec<u8>, usize) {
    let mut m = vec![fc, 0, 0x2c, 0];
    m.extend_from_slice(&mac(ra));
    if let Some(ta) = ta {
        m.extend_from_slice(&mac(ta));
    }
    m.extend_from_slice(tail);
    with_fcs(RtPhy::Rate(48), m)
}

/// A frame from `from` that `to` acknowledges SIFS later (24 Mb/s).
fn acked(air: &mut Air, frame: (Vec<u8>, usize), kbps: u32, backoff_slots: u64, to: u8) {
    air.t += DIFS_NS + backoff_slots * SLOT_NS;
    air.ppdu(&[frame.0], legacy_ns(frame.1, kbps));
    air.t += SIFS_NS;
    let ack = control(0xd4, to, None, &[]);
    air.ppdu(&[ack.0], legacy_ns(ack.1, 24_000));
}

fn beacon(air: &mut Air, aid_buffered: bool) {
    let mut m = mac_header([0x80, 0], [0xff; 6], mac(AP), false);
    m.extend_from_slice(&[0; 8]);
    m.extend_from_slice(&[100, 0, 0x11, 0x04]);
    m.extend_from_slice(&[0, 7, b'w', b'a', b't', b't', b'l', b'a', b'b']);
    m.extend_from_slice(&[5, 4, 0, 1, 0, if aid_buffered { 0x02 } else { 0 }]);
    let (f, len) = with_fcs(RtPhy::Rate(12), m);
    air.t = air.t.max(air.next_tbtt);
    air.ppdu(&[f], legacy_ns(len, 6_000));
    air.next_tbtt += BEACON_INTERVAL_NS;
}

/// The client's QoS-Null with PM = `pm`, which the AP acknowledges.
fn null(air: &mut Air, pm: bool, k: u64) {
    let m = mac_header([0xc8, if pm { 0x11 } else { 0x01 }], mac(AP), mac(CLIENT), true);
    acked(air, with_fcs(RtPhy::Rate(48), m), 24_000, k % 16, CLIENT);
}

/// Writes the capture; returns (its size in bytes, data frames, A-MPDUs, bursts).
fn generate(path: &Path, n: u64) -> (u64, u64, u64, u64) {
    let t0 = 1_704_067_200 * 1_000_000_000u64;
    let mut air = Air { w: RadiotapPcap::create(path), t: t0, t0, frames: 0, n, next_tbtt: t0 + 50_000_000, frame: Vec::new() };
    let ht = PHY_80211N.with_band(Band::Ghz5).unwrap();
    let mcs7 = TxVector::Ht(Mcs { mcs: 7, nss: 1, width_mhz: 20, gi_ns: 800 });
    let sizes = [1448usize, 1448, 512, 1448, 96, 1448, 0];
    let gaps_ns = [2_000_000u64, 20_000_000, 150_000_000, 400_000_000];
    let (mut data, mut ampdus, mut bursts, mut seq) = (0u64, 0u64, 0u64, 1u32);
    // The association response gives the AID (1) the TIM is read with.
    let mut assoc = mac_header([0x10, 0], mac(CLIENT), mac(AP), false);
    assoc.extend_from_slice(&[0x11, 0x04, 0, 0, 0x01, 0xc0]);
    acked(&mut air, with_fcs(RtPhy::Rate(48), assoc), 24_000, 3, AP);
    while !air.full() {
        bursts += 1;
        for k in 0..A_MPDUS_PER_BURST {
            if air.full() {
                break;
            }
            if air.t >= air.next_tbtt {
                beacon(&mut air, false);
            }
            air.t += DIFS_NS + (k * 7 % 16) * SLOT_NS;
            ampdus += 1;
            let mut records = Vec::with_capacity(3);
            let mut psdu = 0u32;
            for j in 0..3 {
                let len = sizes[((ampdus * 3 + j) % sizes.len() as u64) as usize];
                let mut m = mac_header([0x88, 0x02], mac(CLIENT), mac(AP), true);
                ipv4_tcp_down(&mut m, seq, len);
                seq = seq.wrapping_add(len as u32);
                let (f, l) = with_fcs(RtPhy::Mcs(7, ampdus as u32), m);
                psdu += if j == 2 { DELIMITER_BYTES + l as u32 } else { (DELIMITER_BYTES + l as u32).next_multiple_of(4) };
                records.push(f);
            }
            data += air.ppdu(&records, ht.ppdu_duration(psdu, mcs7).as_nanos());
            air.t += SIFS_NS;
            let ba = control(0x94, AP, Some(CLIENT), &[0x05, 0, 0x10, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
            air.ppdu(&[ba.0], legacy_ns(ba.1, 24_000));
        }
        // The client dozes; the next burst reaches the AP after a gap and waits for a beacon.
        null(&mut air, true, bursts);
        let arrives = air.t + gaps_ns[(bursts % 4) as usize];
        while air.next_tbtt < arrives && !air.full() {
            beacon(&mut air, false);
        }
        beacon(&mut air, true);
        null(&mut air, false, bursts + 5);
    }
    drop(air.w);
    (std::fs::metadata(path).unwrap().len(), data, ampdus, bursts)
}

/// Best of 3 of `analyze` under `policies`: (seconds, the last analysis, its allocations).
fn time(path: &Path, policies: &[&str]) -> (f64, EnergyAnalysis, u64) {
    let mut opts: EnergyOptions = bench::four_policies(CLIENT_IP);
    // The policies' context as `four_policies` makes it (PSM's timing from the default PHY).
    let Airtime::Phy { phy, .. } = opts.airtime else { unreachable!("the default is a PHY") };
    let cx = SpecContext { psm: Some(wattlab_core::energy::PsmParams::for_phy(&phy)), ..SpecContext::default() };
    opts.policies = policies.iter().map(|l| PolicySpec::parse(l, &cx).unwrap()).collect();
    opts.client_mac = Some(mac(CLIENT));
    opts.profile = builtin_profile("atheros-ar5004").unwrap();
    let (mut best, mut last, mut allocations) = (f64::MAX, None, 0);
    for _ in 0..3 {
        let before = ALLOCATIONS.load(Relaxed);
        let t = Instant::now();
        let a = analyze(path, &opts).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        allocations = ALLOCATIONS.load(Relaxed) - before;
        last = Some(a);
    }
    (best, last.unwrap(), allocations)
}

/// Frames, frame by frame. Not inlined, for `valgrind --toggle-collect='*count_frames*'`.
#[inline(never)]
fn count_frames(path: &Path) -> u64 {
    let mut r = TraceReader::open(path).unwrap();
    let mut k = 0;
    while let Some(f) = r.next_wlan() {
        k += u64::from(f.unwrap().mpdu_len > 0);
    }
    k
}

fn main() {
    let (n, file) = bench::size_and_file(1_000_000);
    if let Some(path) = file {
        let (size, data, _, _) = generate(&path, n);
        println!("{n} frames ({data} IPv4/TCP data), {:.1} MB: {}", size as f64 / 1e6, path.display());
        return;
    }
    let path = std::env::temp_dir().join(format!("wattlab-wlan-energy-bench-{}.pcap", std::process::id()));
    let (size, data, ampdus, bursts) = generate(&path, n);
    let (mut read_wlan, mut read_ip) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        let t = Instant::now();
        assert_eq!(count_frames(&path), n);
        read_wlan = read_wlan.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        assert_eq!(bench::read_packets(&path).0, data);
        read_ip = read_ip.min(t.elapsed().as_secs_f64());
    }
    let args: Vec<String> = std::env::args().collect();
    if let Some(list) = args.iter().position(|a| a == "--policies").and_then(|i| args.get(i + 1)) {
        let policies: Vec<&str> = list.split(',').collect();
        let (t, _, allocations) = time(&path, &policies);
        std::fs::remove_file(&path).unwrap();
        println!("{n} frames, {list}: best of 3 {t:.3} s = {:.2} M frames/s; {allocations} heap allocations in one analysis", n as f64 / t / 1e6);
        return;
    }
    let classic = ["always-on", "oracle", "psm", "adaptive-psm"];
    let (t_obs, a_obs, alloc_obs) = time(&path, &["observed"]);
    let (t_four, _, alloc_four) = time(&path, &classic);
    let (t_all, a_all, alloc_all) = time(&path, &["always-on", "oracle", "psm", "adaptive-psm", "observed"]);
    std::fs::remove_file(&path).unwrap();
    let o = a_obs.policies[0].observed.clone().unwrap();
    println!(
        "{n} radiotap frames ({data} IPv4/TCP data in {ampdus} A-MPDUs, {bursts} bursts), {:.1} MB, {:.1} s of capture",
        size as f64 / 1e6,
        (a_obs.end_ns - a_obs.start_ns) as f64 / 1e9
    );
    let rate = |t: f64| n as f64 / t / 1e6;
    println!("  reading alone, best of 3: next_wlan {read_wlan:.3} s = {:.2} M frames/s; next_packet {read_ip:.3} s = {:.2} M frames/s", rate(read_wlan), rate(read_ip));
    for (label, t, allocations) in [
        ("observed", t_obs, alloc_obs),
        ("four classic policies", t_four, alloc_four),
        ("four + observed", t_all, alloc_all),
    ] {
        println!(
            "  {label:<22} best of 3 {t:.3} s = {:.2} M frames/s; heap allocations in one analysis: {allocations} ({:.4} per frame)",
            rate(t),
            allocations as f64 / n as f64
        );
    }
    for p in &a_all.policies {
        println!("  {:<13} {:>10.4} J  (sleep {:>8.3} s)", p.label, p.report.energy_j(), p.report.sleep.time_ns as f64 / 1e9);
    }
    println!(
        "  observed saw: {} PPDUs ({} A-MPDUs), rx {} frames, tx {} responses, {} dozes, {} beacons, {} inferred responses, {} PHY fallbacks",
        o.ppdus, o.ampdus, o.rx_frames, o.tx_responses, o.dozes, o.beacons, o.responses_inferred, o.phy_fallback
    );
    // The capture is self-consistent: every response is on it (but the last A-MPDU's Block Ack
    // when N frames end the capture before it), every PPDU has PHY fields.
    assert!(o.responses_inferred <= 1 && o.phy_fallback == 0 && o.ampdus == ampdus, "{o:?}");
}
