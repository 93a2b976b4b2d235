//! What a hostile trial found in the trace analyzer (issue 27, item 9), each as a regression
//! test on a capture generated here: memory per distinct connection and per distinct address
//! (bounded, the rest folded into `other`), the client chosen among multicast and broadcast
//! addresses, and IP lengths claiming more than their frame carries.

#[path = "support/fuzz.rs"]
mod fuzz;

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};

use fuzz::*;
use wattlab_trace::energy::{analyze_bytes, AnalysisError, ClientChoice, EnergyAnalysis, EnergyOptions};
use wattlab_trace::{AddressTotals, TraceReader};

const S: u64 = 1_000_000_000;
const T0: u64 = T0_S as u64 * S;

fn ns_pcap(pkts: &[(u64, Vec<u8>)]) -> Vec<u8> {
    pcap(true, false, &records(pkts, true))
}

fn with(f: impl FnOnce(&mut EnergyOptions)) -> EnergyOptions {
    let mut o = options(false);
    f(&mut o);
    o
}

/// Energy per client port under `label` (own + tail, fJ), and the `other` row's.
fn by_port(a: &EnergyAnalysis, label: &str) -> (HashMap<u16, u128>, u128) {
    let p = a.policies.iter().find(|p| p.label == label).expect("policy");
    let mut m = HashMap::new();
    let mut other = 0;
    for c in &a.connections {
        let (own, tail) = p.by_connection[c.id as usize];
        if c.id == a.max_connections + 1 {
            other = own + tail;
        } else {
            m.insert(c.local_port, own + tail);
        }
    }
    (m, other)
}

/// `n` short UDP exchanges one after the other, each from its own client port: a query up,
/// two answers down, 30 ms apart, the next exchange 120 ms later.
fn short_connections(n: u16) -> Vec<(u64, Vec<u8>)> {
    let mut v = Vec::new();
    for k in 0..n {
        let t = T0 + u64::from(k) * 120_000_000;
        let port = 10_000 + k;
        v.push((t, udp(CLIENT, SERVER, 80, port, 53)));
        v.push((t + 30_000_000, udp(SERVER, CLIENT, 1200, 53, port)));
        v.push((t + 60_000_000, udp(SERVER, CLIENT, 400, 53, port)));
    }
    v
}

/// Many short connections with the table capped at 50: the 1950 least recently used are
/// evicted into one `other` row, counters and energy, exactly: every kept connection costs
/// what it costs with no cap, and `other` what the evicted ones cost, to the femtojoule.
#[test]
fn connections_beyond_the_cap_are_folded_into_other_exactly() {
    let bytes = ns_pcap(&short_connections(2000));
    let free = analyze_bytes(&bytes, "many.pcap", &options(false)).unwrap();
    let capped = analyze_bytes(&bytes, "many.pcap", &with(|o| o.max_connections = 50)).unwrap();
    assert_eq!((free.connections.len(), free.connections_evicted), (2000, 0));
    assert_eq!((capped.connections.len(), capped.connections_evicted, capped.max_connections), (51, 1950, 50));
    let other = capped.connections.last().unwrap();
    assert_eq!((other.id, other.connections, other.remote), (51, 1950, IpAddr::V4(Ipv4Addr::UNSPECIFIED)));
    // Packets and bytes are conserved.
    let sum = |a: &EnergyAnalysis| {
        a.connections.iter().fold((0, 0, 0), |s, c| (s.0 + c.packets_up + c.packets_down, s.1 + c.bytes_up, s.2 + c.bytes_down))
    };
    assert_eq!(sum(&capped), sum(&free));
    assert_eq!(sum(&capped).0, 6000);
    for p in capped.policies.iter().filter(|p| p.energybox.is_none()) {
        let (kept, other) = by_port(&capped, &p.label);
        let (all, _) = by_port(&free, &p.label);
        assert_eq!(kept.len(), 50, "{}", p.label);
        let mut evicted = 0;
        for (port, fj) in &all {
            match kept.get(port) {
                Some(k) => assert_eq!(k, fj, "{}: port {port}", p.label),
                None => evicted += fj,
            }
        }
        assert_eq!(other, evicted, "{}: the other row holds the evicted connections' energy", p.label);
        assert!(other > 0, "{}", p.label);
        // Attribution still sums to the total, and the totals do not change.
        let split: u128 = p.by_connection.iter().map(|&(a, b)| a + b).sum();
        assert_eq!(split, p.report.total_energy_fj, "{}", p.label);
        let same = free.policies.iter().find(|q| q.label == p.label).unwrap();
        assert_eq!(p.report.total_energy_fj, same.report.total_energy_fj, "{}", p.label);
    }
    fuzz::check_invariants(&capped).unwrap();
}

/// Connections that come back after their eviction, interleaved: a new row each time, the
/// `other` row counts every eviction, and nothing is lost or counted twice.
#[test]
fn interleaved_connections_evicted_and_seen_again_conserve_everything() {
    let mut pkts = Vec::new();
    for k in 0..3000u64 {
        let port = 20_000 + (k * 7919 % 97) as u16;
        let t = T0 + k * 3_000_000;
        pkts.push((t, if k % 3 == 0 { udp(CLIENT, SERVER, 100, port, 443) } else { udp(SERVER, CLIENT, 1400, 443, port) }));
    }
    let bytes = ns_pcap(&pkts);
    let free = analyze_bytes(&bytes, "mix.pcap", &options(false)).unwrap();
    let a = analyze_bytes(&bytes, "mix.pcap", &with(|o| o.max_connections = 5)).unwrap();
    assert_eq!(free.connections.len(), 97);
    assert_eq!(a.connections.len(), 6);
    assert!(a.connections_evicted > 97, "connections came back after eviction: {}", a.connections_evicted);
    let packets: u64 = a.connections.iter().map(|c| c.packets_up + c.packets_down).sum();
    assert_eq!(packets, 3000);
    for (p, q) in a.policies.iter().zip(&free.policies) {
        assert_eq!(p.report.total_energy_fj, q.report.total_energy_fj, "{}", p.label);
    }
    fuzz::check_invariants(&a).unwrap();
}

/// Many distinct peers while looking for the client: the address table stays within the cap,
/// the client (in every packet) is still found, and the choice says its counts are a summary.
#[test]
fn the_client_search_keeps_a_bounded_number_of_addresses() {
    let mut pkts = Vec::new();
    for k in 0..5000u32 {
        let peer = (0x0b00_0000 + k).to_be_bytes();
        let t = T0 + u64::from(k) * 1_000_000;
        pkts.push((t, udp(peer, CLIENT, 600, 443, 5000)));
    }
    let bytes = ns_pcap(&pkts);
    let mut totals = AddressTotals::with_cap(64);
    let mut r = TraceReader::new(&bytes[..], "peers.pcap").unwrap();
    while let Some(p) = r.next_packet() {
        totals.add(&p.unwrap());
    }
    assert!(totals.len() <= 64, "{} addresses kept", totals.len());
    assert!(totals.dropped() > 4900 && totals.undercount() > 0);
    let (best, t) = totals.busiest().unwrap();
    assert_eq!(best, IpAddr::V4(Ipv4Addr::from(CLIENT)));
    assert!(t.bytes + totals.undercount() >= 5000 * 600 && t.bytes <= 5000 * 600);
    let a = analyze_bytes(&bytes, "peers.pcap", &with(|o| {
        o.client = None;
        o.max_connections = 64;
    }))
    .unwrap();
    assert_eq!(a.client, IpAddr::V4(Ipv4Addr::from(CLIENT)));
    assert!(matches!(a.choice, ClientChoice::Busiest { undercount: 1.., .. }), "{:?}", a.choice);
    assert_eq!(a.connections.len(), 65);
}

/// Misra–Gries' guarantee on a skewed random stream: every address that carried more than
/// the undercount is kept, and its count is short by at most that much.
#[test]
fn bounded_address_totals_keep_every_heavy_address_within_the_undercount() {
    let mut rng = Rng(7);
    let mut exact: HashMap<IpAddr, u64> = HashMap::new();
    let mut pkts = Vec::new();
    for i in 0..20_000 {
        // A few heavy addresses, a long tail of light ones (each packet to itself).
        let k = if rng.below(3) == 0 { rng.below(5) as u32 } else { 100 + rng.below(5000) as u32 };
        let src = (0x0a00_0000 + k).to_be_bytes();
        let len = 28 + rng.below(1400) as u16;
        pkts.push((T0 + i, udp(src, src, len, 1, 1)));
        *exact.entry(IpAddr::V4(Ipv4Addr::from(src))).or_default() += u64::from(len);
    }
    let bytes = ns_pcap(&pkts);
    let mut totals = AddressTotals::with_cap(40);
    let mut r = TraceReader::new(&bytes[..], "skewed.pcap").unwrap();
    while let Some(p) = r.next_packet() {
        totals.add(&p.unwrap());
    }
    let d = totals.undercount();
    assert!(d > 0);
    let kept: HashMap<IpAddr, u64> = totals.iter().map(|(a, t)| (a, t.bytes)).collect();
    for (a, &b) in &exact {
        if b > d {
            let k = kept.get(a).unwrap_or_else(|| panic!("{a}: {b} bytes > undercount {d}, dropped"));
            assert!(*k <= b && *k + d >= b, "{a}: kept {k}, true {b}, undercount {d}");
        }
    }
}

/// A capture of IPv6 router solicitations and advertisements only (link-local hosts to
/// ff02::2 and ff02::1): the busiest address is a multicast group, which cannot be the
/// client; the busiest host is taken instead, and the group named as passed over.
#[test]
fn a_multicast_group_is_never_taken_for_the_client() {
    let ll = |x: u8| {
        let mut a = [0u8; 16];
        a[0] = 0xfe;
        a[1] = 0x80;
        a[15] = x;
        a
    };
    let mut ff02 = [0u8; 16];
    ff02[0] = 0xff;
    ff02[1] = 0x02;
    ff02[15] = 2;
    let pkts: Vec<(u64, Vec<u8>)> =
        (0..12u8).map(|k| (T0 + u64::from(k) * S, ipv6_udp(ll(1 + k % 3), ff02, 100 + u16::from(k % 3) * 10))).collect();
    let a = analyze_bytes(&ns_pcap(&pkts), "ra.pcap", &with(|o| o.client = None)).unwrap();
    assert!(!a.client.is_multicast() && !a.client.is_unspecified(), "client {}", a.client);
    assert_eq!(a.client, IpAddr::from(ll(3)), "the busiest host: 4 × 168 bytes sent");
    let ClientChoice::Busiest { skipped, .. } = &a.choice else { panic!() };
    assert_eq!(skipped, &vec![IpAddr::from(ff02)]);
}

/// DHCP discovers only (0.0.0.0 to 255.255.255.255): no address can be the client, and the
/// analyzer asks for it instead of costing the broadcast address's radio.
#[test]
fn broadcast_and_unspecified_only_asks_for_the_client() {
    let pkts: Vec<(u64, Vec<u8>)> = (0..5).map(|k| (T0 + k * S, udp([0; 4], [255; 4], 328, 68, 67))).collect();
    let e = analyze_bytes(&ns_pcap(&pkts), "dhcp.pcap", &with(|o| o.client = None)).unwrap_err();
    let AnalysisError::Invalid(m) = e else { panic!("{e}") };
    assert!(m.contains("dhcp.pcap") && m.contains("no unicast address") && m.contains("--client"), "{m}");
    assert!(m.contains("255.255.255.255") && m.contains("0.0.0.0"), "{m}");
    // Given, it is used as given.
    let a = analyze_bytes(&ns_pcap(&pkts), "dhcp.pcap", &with(|o| o.client = Some(IpAddr::from([0u8; 4])))).unwrap();
    assert_eq!(a.packets_up, 5);
}

/// IPv4 total length 65535 on 1500-byte packets and an IPv6 payload length of 65000 on a
/// 200-byte one: costed at what the frames carry (the same energy as the honest capture),
/// counted, and the first named by index and offset. They were costed as 44 frames each.
#[test]
fn ip_lengths_beyond_the_frame_are_capped_to_it_and_counted() {
    let honest = download(60, T0, 5_000_000);
    let mut forged = honest.clone();
    let mut first = None;
    for (i, (_, p)) in forged.iter_mut().enumerate() {
        if p.len() == 1500 && i % 2 == 0 {
            p[2..4].copy_from_slice(&65535u16.to_be_bytes());
            first.get_or_insert(i);
        }
    }
    let n4 = forged.iter().filter(|(_, p)| p[0] >> 4 == 4 && p[2..4] == [0xff, 0xff]).count() as u64;
    let v6 = |payload_field: u16| {
        let mut p = ipv6_udp(SERVER6, CLIENT6, 160);
        p[4..6].copy_from_slice(&payload_field.to_be_bytes());
        p
    };
    let mut h6 = honest.clone();
    h6.push((T0 + 400_000_000, v6(160)));
    forged.push((T0 + 400_000_000, v6(65000)));
    let recs = records(&forged, true);
    let bytes = pcap(true, false, &recs);
    let a = analyze_bytes(&bytes, "forged.pcap", &options(false)).unwrap();
    let b = analyze_bytes(&ns_pcap(&h6), "honest.pcap", &options(false)).unwrap();
    let c = a.stats.length_capped;
    assert_eq!(c.packets, n4 + 1);
    assert_eq!(c.excess_bytes, n4 * (65535 - 1500) + (65000 - 168));
    let i = first.unwrap();
    assert_eq!(c.first, Some((i as u64, pcap_offset(&recs, i))));
    assert_eq!((a.bytes_down, a.oversize_packets), (b.bytes_down, 0));
    for (p, q) in a.policies.iter().zip(&b.policies) {
        assert_eq!(p.report.total_energy_fj, q.report.total_energy_fj, "{}", p.label);
    }
    // The client is on IPv4; the IPv6 packet is another host's, counted all the same.
    assert_eq!(b.stats.length_capped.packets, 0);
}

const CLIENT6: [u8; 16] = [0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
const SERVER6: [u8; 16] = [0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9];

/// An IPv6/UDP packet (no link header) with `payload` bytes of UDP payload.
fn ipv6_udp(src: [u8; 16], dst: [u8; 16], payload: u16) -> Vec<u8> {
    let len = 8 + payload;
    let mut v = vec![0x60, 0, 0, 0];
    v.extend_from_slice(&len.to_be_bytes());
    v.extend_from_slice(&[17, 64]);
    v.extend_from_slice(&src);
    v.extend_from_slice(&dst);
    v.extend_from_slice(&5353u16.to_be_bytes());
    v.extend_from_slice(&5353u16.to_be_bytes());
    v.extend_from_slice(&len.to_be_bytes());
    v.extend_from_slice(&[0, 0]);
    v.resize(40 + usize::from(len), 0);
    v
}
