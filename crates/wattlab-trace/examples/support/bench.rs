//! What the energy benchmarks share: the analysis they time and the peak memory they report.
#![allow(dead_code)]

use std::net::{IpAddr, Ipv4Addr};

use wattlab_core::energy::builtin_profile;
use wattlab_trace::airtime::Airtime;
use wattlab_trace::energy::{EnergyOptions, TimelineOutput, DEFAULT_MAX_CONNECTIONS};
use wattlab_trace::policy_spec::{PolicySpec, SpecContext};

/// Client given, always-on, oracle, psm and adaptive-psm on 802.11g@54 (atheros-ar5004),
/// 100 ms throughput bins, no tail, timelines off, the default connection cap.
pub fn four_policies(client: [u8; 4]) -> EnergyOptions {
    let air = Airtime::default_phy();
    let Airtime::Phy { phy, .. } = air else { unreachable!("the default is a PHY") };
    let cx = SpecContext { psm: Some(wattlab_core::energy::PsmParams::for_phy(&phy)), ..SpecContext::default() };
    let labels = ["always-on", "oracle", "psm", "adaptive-psm"];
    EnergyOptions {
        client: Some(IpAddr::V4(Ipv4Addr::from(client))),
        profile: builtin_profile("atheros-ar5004").unwrap(),
        airtime: air,
        policies: labels.iter().map(|l| PolicySpec::parse(l, &cx).unwrap()).collect(),
        bin: wattlab_core::Duration::from_millis(100),
        tail: wattlab_core::Duration::ZERO,
        timeline: TimelineOutput::Off,
        time: wattlab_trace::timecheck::TimeLimits::default(),
        max_connections: DEFAULT_MAX_CONNECTIONS,
        client_mac: None,
    }
}

/// Peak resident set size of this process, kB (Linux; 0 elsewhere).
pub fn vm_hwm_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

/// The command line `N [--write FILE]`: the size (`default` if not given) and the file to
/// write the capture to instead of timing it.
pub fn size_and_file(default: u64) -> (u64, Option<std::path::PathBuf>) {
    let args: Vec<String> = std::env::args().collect();
    let n = args.get(1).map_or(default, |s| s.parse().expect("N"));
    let file = args.iter().position(|a| a == "--write").map(|i| args.get(i + 1).expect("--write FILE").into());
    (n, file)
}

/// Read the capture into per-address totals: (packets, addresses). Not inlined, so that
/// `valgrind --toggle-collect='*read_packets*'` can count its instructions.
#[inline(never)]
pub fn read_packets(path: &std::path::Path) -> (u64, usize) {
    let mut r = wattlab_trace::TraceReader::open(path).unwrap();
    let mut totals = wattlab_trace::AddressTotals::new();
    while let Some(p) = r.next_packet() {
        totals.add(&p.unwrap());
    }
    (r.stats().packets, totals.len())
}
