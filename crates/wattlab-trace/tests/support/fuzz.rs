//! Hostile captures, and a dependency-free mutation fuzzer for the capture reader and the
//! trace energy analyzer. Shared by the tests (`tests/hostile.rs`), the fuzz driver
//! (`examples/fuzz_trace.rs`) and the cargo-fuzz targets (`fuzz/`), each of which includes
//! this file with `#[path]`.
#![allow(dead_code)]

use wattlab_core::energy::builtin_profile;
use wattlab_core::Duration;
use wattlab_trace::airtime::Airtime;
use wattlab_trace::energy::{analyze_bytes, AnalysisError, EnergyAnalysis, EnergyOptions, TimelineOutput};
use wattlab_trace::energybox::EnergyBoxConfig;
use wattlab_trace::policy_spec::{PolicySpec, SpecContext};
use wattlab_trace::timecheck::TimeLimits;
use wattlab_trace::TraceReader;

/// The client of the generated captures.
pub const CLIENT: [u8; 4] = [10, 0, 0, 2];
/// Its peer.
pub const SERVER: [u8; 4] = [10, 0, 0, 9];
/// A multicast group (received by the client, not acknowledged).
pub const GROUP: [u8; 4] = [224, 0, 0, 251];

/// 2024-01-01 00:00:00 UTC, s.
pub const T0_S: u32 = 1_704_067_200;

/// An IPv4/UDP packet of `total_len` bytes (≥ 28), checksums left 0.
pub fn udp(src: [u8; 4], dst: [u8; 4], total_len: u16, sport: u16, dport: u16) -> Vec<u8> {
    let total_len = total_len.max(28);
    let mut v = vec![0x45, 0];
    v.extend_from_slice(&total_len.to_be_bytes());
    v.extend_from_slice(&[0, 0, 0, 0, 64, 17, 0, 0]);
    v.extend_from_slice(&src);
    v.extend_from_slice(&dst);
    v.extend_from_slice(&sport.to_be_bytes());
    v.extend_from_slice(&dport.to_be_bytes());
    v.extend_from_slice(&(total_len - 20).to_be_bytes());
    v.extend_from_slice(&[0, 0]);
    v.resize(usize::from(total_len), 0);
    v
}

/// A downlink packet of `len` bytes.
pub fn down(len: u16) -> Vec<u8> {
    udp(SERVER, CLIENT, len, 6000, 5000)
}

/// An uplink packet of `len` bytes.
pub fn up(len: u16) -> Vec<u8> {
    udp(CLIENT, SERVER, len, 5000, 6000)
}

/// One pcap record: the raw seconds and sub-second fields, and the frame.
#[derive(Clone, Debug)]
pub struct Rec {
    /// `ts_sec`.
    pub sec: u32,
    /// `ts_usec` or `ts_nsec`, as written (may be out of range).
    pub frac: u32,
    /// The frame (link type RAW: an IP packet).
    pub data: Vec<u8>,
}

/// The record of a packet at `ns` since the epoch (µs or ns resolution).
pub fn rec(ns: u64, nanos: bool, data: Vec<u8>) -> Rec {
    let sec = (ns / 1_000_000_000) as u32;
    let frac = if nanos { (ns % 1_000_000_000) as u32 } else { (ns % 1_000_000_000 / 1000) as u32 };
    Rec { sec, frac, data }
}

/// A classic pcap of link type RAW (101): µs or ns resolution, either byte order. Record `i`
/// starts at byte `24 + Σ_{j<i} (16 + len_j)`.
pub fn pcap(nanos: bool, big: bool, recs: &[Rec]) -> Vec<u8> {
    let w32 = |v: &mut Vec<u8>, x: u32| v.extend_from_slice(&if big { x.to_be_bytes() } else { x.to_le_bytes() });
    let w16 = |v: &mut Vec<u8>, x: u16| v.extend_from_slice(&if big { x.to_be_bytes() } else { x.to_le_bytes() });
    let mut v = Vec::new();
    w32(&mut v, if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 });
    w16(&mut v, 2);
    w16(&mut v, 4);
    w32(&mut v, 0);
    w32(&mut v, 0);
    w32(&mut v, 65_535);
    w32(&mut v, 101);
    for r in recs {
        w32(&mut v, r.sec);
        w32(&mut v, r.frac);
        w32(&mut v, r.data.len() as u32);
        w32(&mut v, r.data.len() as u32);
        v.extend_from_slice(&r.data);
    }
    v
}

/// The byte offset of record `i` of a pcap built from `recs`.
pub fn pcap_offset(recs: &[Rec], i: usize) -> u64 {
    24 + recs[..i].iter().map(|r| 16 + r.data.len() as u64).sum::<u64>()
}

/// One pcapng section (little-endian): a section header, one RAW interface with ns
/// resolution (`if_tsresol` = 9), and enhanced packet blocks at the given ns timestamps.
pub fn pcapng_section(packets: &[(u64, Vec<u8>)]) -> Vec<u8> {
    let block = |v: &mut Vec<u8>, kind: u32, body: &[u8]| {
        let len = 12 + body.len().div_ceil(4) * 4;
        v.extend_from_slice(&kind.to_le_bytes());
        v.extend_from_slice(&(len as u32).to_le_bytes());
        v.extend_from_slice(body);
        v.resize(v.len() + (len - 12 - body.len()), 0);
        v.extend_from_slice(&(len as u32).to_le_bytes());
    };
    let mut v = Vec::new();
    let mut shb = 0x1a2b_3c4du32.to_le_bytes().to_vec();
    shb.extend_from_slice(&1u16.to_le_bytes());
    shb.extend_from_slice(&0u16.to_le_bytes());
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    block(&mut v, 0x0a0d_0d0a, &shb);
    let mut idb = 101u16.to_le_bytes().to_vec();
    idb.extend_from_slice(&[0, 0]);
    idb.extend_from_slice(&0u32.to_le_bytes());
    // if_tsresol (code 9, length 1) = 9: nanoseconds; then opt_endofopt.
    idb.extend_from_slice(&[9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
    block(&mut v, 1, &idb);
    for (ts, data) in packets {
        let mut epb = 0u32.to_le_bytes().to_vec();
        epb.extend_from_slice(&((ts >> 32) as u32).to_le_bytes());
        epb.extend_from_slice(&(*ts as u32).to_le_bytes());
        epb.extend_from_slice(&(data.len() as u32).to_le_bytes());
        epb.extend_from_slice(&(data.len() as u32).to_le_bytes());
        epb.extend_from_slice(data);
        block(&mut v, 6, &epb);
    }
    v
}

/// `n` packets of a small download from `t0_ns`, `spacing_ns` apart: two 1500-byte data
/// packets per 40-byte acknowledgment, and a multicast packet now and then.
pub fn download(n: usize, t0_ns: u64, spacing_ns: u64) -> Vec<(u64, Vec<u8>)> {
    (0..n)
        .map(|k| {
            let data = match k % 7 {
                2 | 5 => up(40),
                6 => udp(SERVER, GROUP, 200, 5353, 5353),
                _ => down(1500),
            };
            (t0_ns + k as u64 * spacing_ns, data)
        })
        .collect()
}

/// Records of `packets` at their ns times.
pub fn records(packets: &[(u64, Vec<u8>)], nanos: bool) -> Vec<Rec> {
    packets.iter().map(|(t, d)| rec(*t, nanos, d.clone())).collect()
}

/// The generated 802.11 captures (tests/data/wlan): radiotap (127) and plain 802.11 (105).
pub fn wlan_seeds() -> Vec<Vec<u8>> {
    vec![
        include_bytes!("../../../../tests/data/wlan/radiotap.pcap").to_vec(),
        include_bytes!("../../../../tests/data/wlan/ieee80211.pcap").to_vec(),
    ]
}

/// Reads `bytes` frame by frame as an 802.11 capture ([`TraceReader::next_wlan`], with every
/// body helper) and as IP packets; an `Err` is a broken invariant (a panic propagates).
pub fn check_wlan(bytes: &[u8]) -> Result<u64, String> {
    let Ok(mut r) = TraceReader::new(bytes, "fuzz.pcap") else { return Ok(0) };
    let mut frames = 0u64;
    while let Some(f) = r.next_wlan() {
        let Ok(f) = f else {
            if r.next_wlan().is_some() {
                return Err("next_wlan went on after an error".into());
            }
            break;
        };
        frames += 1;
        if f.body_at > f.bytes.len() + 4 || frames > bytes.len() as u64 {
            return Err(format!("frame {} has its body at {} of {} bytes", f.index, f.body_at, f.bytes.len()));
        }
        let _ = (f.tim().map(|t| t.has_aid(7)), f.assoc_aid(), f.action(), f.elements().map(Iterator::count));
        let _ = (f.phy.mcs.map(|m| (m.nss(), m.width_mhz())), f.phy.vht.map(|v| v.width_mhz()), f.phy.he.map(|h| (h.gi_ns(), h.width_mhz())));
    }
    if r.stats().wlan.frames() != frames {
        return Err(format!("{frames} frames yielded, {} counted", r.stats().wlan.frames()));
    }
    let mut r = TraceReader::new(bytes, "fuzz.pcap").map_err(|e| format!("opened once, not twice: {e}"))?;
    let mut packets = 0u64;
    while let Some(p) = r.next_packet() {
        if p.is_err() {
            if r.next_packet().is_some() {
                return Err("next_packet went on after an error".into());
            }
            break;
        }
        packets += 1;
        if packets > bytes.len() as u64 {
            return Err("more packets than bytes".into());
        }
    }
    Ok(frames)
}

/// Mutates the 802.11 seeds for `iterations` inputs or `seconds`, whichever ends first,
/// through [`check_wlan`]; returns (inputs, frames read), or the first failing input.
pub fn run_wlan(seed: u64, iterations: u64, seconds: f64) -> Result<(u64, u64), (Vec<u8>, String)> {
    let seeds = wlan_seeds();
    let mut rng = Rng(seed);
    let start = std::time::Instant::now();
    let (mut inputs, mut frames) = (0u64, 0u64);
    while inputs < iterations && start.elapsed().as_secs_f64() < seconds {
        let base = &seeds[rng.below(seeds.len() as u64) as usize];
        let input = mutate(&mut rng, base);
        match std::panic::catch_unwind(|| check_wlan(&input)) {
            Ok(Ok(n)) => frames += n,
            Ok(Err(why)) => return Err((input, why)),
            Err(p) => {
                let msg = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
                return Err((input, format!("panic: {}", msg.unwrap_or_default())));
            }
        }
        inputs += 1;
    }
    Ok((inputs, frames))
}

/// Seed captures for mutation: pcap in both resolutions and byte orders, pcapng, and the
/// 802.11 captures.
pub fn seeds() -> Vec<Vec<u8>> {
    let t0 = u64::from(T0_S) * 1_000_000_000;
    let pkts = download(24, t0, 7_000_000);
    let mut gap = pkts.clone();
    gap[12].0 += 3_600_000_000_000;
    for p in &mut gap[13..] {
        p.0 += 3_600_000_000_000;
    }
    vec![
        pcap(true, false, &records(&pkts, true)),
        pcap(false, true, &records(&pkts, false)),
        pcap(false, false, &records(&gap, false)),
        pcapng_section(&pkts),
        [pcapng_section(&pkts[..10]), pcapng_section(&pkts[10..])].concat(),
    ]
    .into_iter()
    .chain(wlan_seeds())
    .collect()
}

/// A small deterministic generator (SplitMix64), so the fuzzer needs no dependency.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 if `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

/// Values that break length and time fields.
const NASTY: [u32; 10] = [0, 1, 12, 16, 999_999, 1_000_000, 999_999_999, 2_000_000_000, 0x8000_0000, 0xffff_ffff];

/// Byte offsets of the timestamp fields of a capture's records (pcap: seconds, sub-second;
/// pcapng enhanced packet blocks: high, low word) and whether the file is big-endian, as far
/// as the structure can be walked.
pub fn time_fields(b: &[u8]) -> (Vec<usize>, bool) {
    let u32_at = |at: usize, big: bool| {
        b.get(at..at + 4).map(|x| {
            let w = [x[0], x[1], x[2], x[3]];
            if big {
                u32::from_be_bytes(w)
            } else {
                u32::from_le_bytes(w)
            }
        })
    };
    let mut out = Vec::new();
    let Some(magic) = u32_at(0, true) else { return (out, false) };
    if magic == 0x0a0d_0d0a {
        let big = u32_at(8, true) == Some(0x1a2b_3c4d);
        let mut at = 0;
        while let (Some(kind), Some(len)) = (u32_at(at, big), u32_at(at + 4, big)) {
            if kind == 6 {
                out.extend([at + 12, at + 16]);
            }
            if len < 12 || len % 4 != 0 {
                break;
            }
            at += len as usize;
        }
        out.retain(|&at| at + 4 <= b.len());
        return (out, big);
    }
    let big = matches!(magic, 0xa1b2_c3d4 | 0xa1b2_3c4d);
    let mut at = 24;
    while let Some(incl) = u32_at(at + 8, big) {
        out.extend([at, at + 4]);
        at += 16 + incl as usize;
    }
    out.retain(|&at| at + 4 <= b.len());
    (out, big)
}

/// A mutation of `seed`: bit flips, a truncation, an aligned word set to a nasty value (length
/// and timestamp fields are aligned), inserted or deleted bytes, a duplicated or swapped
/// chunk (records out of order), or several of these.
pub fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(3) {
        if b.is_empty() {
            b.push(rng.next() as u8);
        }
        let n = b.len() as u64;
        match rng.below(9) {
            7 | 8 => {
                // A record's timestamp field: a nasty value, a random one, or nudged.
                let (fields, big) = time_fields(&b);
                if let Some(&at) = fields.get(rng.below(fields.len() as u64) as usize) {
                    let old = u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
                    let old = if big { old.swap_bytes() } else { old };
                    let v = match rng.below(4) {
                        0 => NASTY[rng.below(NASTY.len() as u64) as usize],
                        1 => rng.next() as u32,
                        2 => old.wrapping_sub(1 + rng.below(3000) as u32),
                        _ => old.wrapping_add(1 + rng.below(100_000) as u32),
                    };
                    b[at..at + 4].copy_from_slice(&if big { v.to_be_bytes() } else { v.to_le_bytes() });
                }
            }
            0 => {
                for _ in 0..1 + rng.below(8) {
                    let i = rng.below(n) as usize;
                    b[i] ^= 1 << rng.below(8);
                }
            }
            1 => b.truncate(rng.below(n) as usize),
            2 | 3 => {
                if b.len() >= 4 {
                    let i = rng.below(n / 4) as usize * 4;
                    let v = if rng.below(3) == 0 { rng.next() as u32 } else { NASTY[rng.below(NASTY.len() as u64) as usize] };
                    let bytes = if rng.below(2) == 0 { v.to_le_bytes() } else { v.to_be_bytes() };
                    b[i..i + 4].copy_from_slice(&bytes);
                }
            }
            4 => {
                let i = rng.below(n + 1) as usize;
                for _ in 0..1 + rng.below(8) {
                    b.insert(i, rng.next() as u8);
                }
            }
            5 => {
                let i = rng.below(n) as usize;
                let k = (1 + rng.below(16) as usize).min(b.len() - i);
                b.drain(i..i + k);
            }
            _ => {
                // Copy a chunk somewhere else (a record written twice, or out of order).
                let i = rng.below(n) as usize;
                let k = (1 + rng.below(200) as usize).min(b.len() - i);
                let chunk = b[i..i + k].to_vec();
                let at = rng.below(b.len() as u64 + 1) as usize;
                b.splice(at..at, chunk);
            }
        }
    }
    b
}

/// EnergyBox's Samsung Galaxy S2 device file and its default Wi-Fi settings, as text.
pub fn energybox_s2() -> EnergyBoxConfig {
    let mut eb = EnergyBoxConfig::default();
    eb.add_text("TYPE=DeviceWifi\nPOWER_IN_PSM=0.03\nPOWER_IN_CAM=0.25\nPOWER_IN_CAMH=0.45\n", "s2.config").expect("valid");
    eb.add_text("TYPE=Wifi\nCAM_PSM_INACTIVITY_TIME=200\nCAM_TIME_WIMDOW=50\nWINDOW_DATA_RATE_THRESHOLD=3000\n", "wifi.config")
        .expect("valid");
    eb
}

/// Analysis options for the client [`CLIENT`] over every accounting policy (adaptive PSM over sliding and fixed
/// windows) and EnergyBox's engine, 802.11g airtime, timelines in memory (so their bounded logging is exercised).
pub fn options(accept: bool) -> EnergyOptions {
    let eb = energybox_s2();
    let cx = SpecContext { energybox: Some(&eb), ..SpecContext::default() };
    let plain = SpecContext::default();
    let labels = ["always-on", "oracle", "psm", "adaptive-psm", "adaptive-psm:windows=fixed,bytes=frame", "energybox"];
    EnergyOptions {
        client: Some(std::net::IpAddr::from(CLIENT)),
        profile: builtin_profile("atheros-ar5004").expect("built-in profile"),
        airtime: Airtime::default_phy(),
        // EnergyBox's files only for its engine: the other policies keep wattlab's defaults.
        policies: labels
            .iter()
            .map(|l| PolicySpec::parse(l, if *l == "energybox" { &cx } else { &plain }).expect("valid spec"))
            .collect(),
        bin: Duration::from_millis(50),
        tail: Duration::from_millis(100),
        timeline: TimelineOutput::Memory,
        time: TimeLimits { accept, ..TimeLimits::default() },
        max_connections: wattlab_trace::energy::DEFAULT_MAX_CONNECTIONS,
        client_mac: None,
    }
}

/// What one input gave.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Packets the reader yielded.
    pub packets: u64,
    /// The reader ended with an error.
    pub read_error: bool,
    /// The analysis succeeded without accepting odd times.
    pub analyzed: bool,
    /// The analysis refused the timestamps.
    pub odd_times: bool,
}

/// Checks what an analysis must satisfy whatever its input: time conserved, attribution
/// summing to each total, throughput bins in order summing to the bytes.
pub fn check_invariants(a: &EnergyAnalysis) -> Result<(), String> {
    if a.end_ns < a.start_ns {
        return Err(format!("end {} before start {}", a.end_ns, a.start_ns));
    }
    for o in &a.policies {
        if let Some(e) = &o.energybox {
            // EnergyBox's engine: every record is a frame; its energy is its states' times
            // at their powers (up to the order of its floating-point sums).
            let p = e.settings.power_w;
            let sum: f64 = (0..3).map(|i| e.time_s[i] * p[i]).sum();
            if e.frames != a.stats.records || !e.energy_j.is_finite() || (sum - e.energy_j).abs() > 1e-9 * (1.0 + e.energy_j.abs()) {
                return Err(format!("{}: EnergyBox's engine: {e:?} over {} records", o.label, a.stats.records));
            }
            continue;
        }
        let r = &o.report;
        let states: u128 = [&r.off, &r.sleep, &r.idle, &r.idle_high, &r.rx, &r.tx].iter().map(|s| u128::from(s.time_ns)).sum();
        if states + u128::from(r.transitions.time_ns) != u128::from(r.duration_ns) || r.duration_ns != a.end_ns - a.start_ns {
            return Err(format!("{}: time not conserved: {r:?}", o.label));
        }
        let split: u128 = o.by_connection.iter().map(|&(own, tail)| own + tail).sum();
        if split != r.total_energy_fj {
            return Err(format!("{}: attribution {split} fJ != total {} fJ", o.label, r.total_energy_fj));
        }
    }
    if !a.throughput.windows(2).all(|w| w[0].0 < w[1].0) {
        return Err("throughput bins out of order".into());
    }
    let (u, d) = a.throughput.iter().fold((0u64, 0u64), |(u, d), (_, b)| (u + b[0], d + b[1]));
    if (u, d) != (a.bytes_up, a.bytes_down) {
        return Err(format!("throughput {u}/{d} bytes != {}/{}", a.bytes_up, a.bytes_down));
    }
    Ok(())
}

/// Reads `bytes` to the end, then analyzes them refusing and accepting odd times; an `Err`
/// is a broken invariant (a panic propagates: the caller catches it).
pub fn check_capture(bytes: &[u8]) -> Result<Outcome, String> {
    let mut out = Outcome::default();
    if let Ok(mut r) = TraceReader::new(bytes, "fuzz.pcap") {
        let mut records = 0;
        while let Some(p) = r.next_packet() {
            match p {
                Ok(_) => out.packets += 1,
                Err(_) => {
                    out.read_error = true;
                    if r.next_packet().is_some() {
                        return Err("the reader went on after an error".into());
                    }
                    break;
                }
            }
            records += 1;
            if records > bytes.len() {
                return Err("more packets than bytes".into());
            }
        }
    }
    // The client is found (a pass more, over the mutated bytes).
    let (mut strict_opts, mut lax_opts) = (options(false), options(true));
    strict_opts.client = None;
    lax_opts.client = None;
    // Few connections kept: evictions (and their energy folded into `other`) on most inputs.
    strict_opts.max_connections = 3;
    lax_opts.max_connections = 3;
    let strict = analyze_bytes(bytes, "fuzz.pcap", &strict_opts);
    let lax = analyze_bytes(bytes, "fuzz.pcap", &lax_opts);
    match (&strict, &lax) {
        (Ok(a), Ok(b)) => {
            out.analyzed = true;
            check_invariants(a)?;
            if !a.time.is_clean() || a.time != b.time {
                return Err("a clean analysis differs in its time checks".into());
            }
            let (ea, eb): (Vec<u128>, Vec<u128>) =
                a.policies.iter().zip(&b.policies).map(|(x, y)| (x.report.total_energy_fj, y.report.total_energy_fj)).unzip();
            if ea != eb {
                return Err("accepting odd times changed a clean capture's result".into());
            }
        }
        (Err(AnalysisError::OddTimes { report, .. }), Ok(b)) => {
            out.odd_times = true;
            check_invariants(b)?;
            if report.is_clean() || **report != b.time || b.time_warnings().is_empty() {
                return Err(format!("refused for odd times {report:?}, but accepted with {:?}", b.time));
            }
        }
        // Refused for its timestamps; costed anyway, the file turned out broken further on.
        (Err(AnalysisError::OddTimes { .. }), Err(_)) => out.odd_times = true,
        (Ok(_), Err(e)) => return Err(format!("accepting odd times failed a clean capture: {e}")),
        (Err(_), Ok(_)) => return Err("an analysis failed only without odd times accepted".into()),
        (Err(_), Err(_)) => {}
    }
    Ok(out)
}

/// Totals of a fuzzing run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    /// Inputs tried.
    pub inputs: u64,
    /// Inputs analyzed (clean timestamps).
    pub analyzed: u64,
    /// Inputs refused for their timestamps (and analyzed when accepted).
    pub odd_times: u64,
    /// Inputs the reader stopped on with an error.
    pub read_errors: u64,
    /// Packets read in all.
    pub packets: u64,
}

/// Mutates the seeds for `iterations` inputs or `seconds`, whichever ends first; returns the
/// totals, or the first input that broke an invariant or panicked with what happened.
pub fn run(seed: u64, iterations: u64, seconds: f64) -> Result<Totals, (Vec<u8>, String)> {
    let seeds = seeds();
    let mut rng = Rng(seed);
    let start = std::time::Instant::now();
    let mut t = Totals::default();
    while t.inputs < iterations && start.elapsed().as_secs_f64() < seconds {
        let base = &seeds[rng.below(seeds.len() as u64) as usize];
        let input = mutate(&mut rng, base);
        let result = std::panic::catch_unwind(|| check_capture(&input));
        let o = match result {
            Ok(Ok(o)) => o,
            Ok(Err(why)) => return Err((input, why)),
            Err(p) => {
                let msg = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
                return Err((input, format!("panic: {}", msg.unwrap_or_default())));
            }
        };
        t.inputs += 1;
        t.analyzed += u64::from(o.analyzed);
        t.odd_times += u64::from(o.odd_times);
        t.read_errors += u64::from(o.read_error);
        t.packets += o.packets;
    }
    Ok(t)
}
