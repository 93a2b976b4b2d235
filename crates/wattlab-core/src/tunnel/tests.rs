//! Two endpoints over a simulated lossy, duplicating, reordering path, through real SCTP bytes.

use super::*;
use crate::wire::sctp::{encode_sctp, fill_checksum};
use crate::{Duration, Time};
use proptest::prelude::*;

/// An inner packet: flow number and sequence number within the flow.
type Inner = (u8, u32);

fn inner_bytes((flow, seq): Inner, len: u32) -> Vec<u8> {
    let mut b = vec![0u8; len as usize];
    b[0] = flow;
    b[1..5].copy_from_slice(&seq.to_be_bytes());
    b
}

fn parse_inner(b: &[u8]) -> Inner {
    (b[0], u32::from_be_bytes([b[1], b[2], b[3], b[4]]))
}

fn key(flow: u8) -> FlowKey {
    FlowKey::new((std::net::Ipv4Addr::new(10, 0, 0, 1), 40000 + u16::from(flow)), (std::net::Ipv4Addr::new(10, 0, 0, 9), 80), 6)
}

/// xorshift64*: the harness's own deterministic randomness.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// Path impairments while `until` has not passed; clean afterwards.
#[derive(Clone, Copy, Debug)]
struct Impair {
    loss: f64,
    dup: f64,
    /// Extra random delay up to this (reorders packets).
    jitter_ms: u64,
    until: Time,
}

struct Harness {
    eps: [Endpoint<Inner>; 2],
    /// In flight: (arrival, to endpoint, bytes).
    wire: Vec<(Time, usize, Vec<u8>)>,
    delivered: [Vec<(u16, Inner)>; 2],
    rng: Rng,
    impair: Impair,
    now: Time,
    buf: Vec<u8>,
}

const LEN: u32 = 60;

/// The default settings, pre-established (the unit tests that drive packets by hand).
fn pre() -> TunnelConfig {
    TunnelConfig { handshake: false, ..TunnelConfig::default() }
}
const DELAY: Duration = Duration::from_millis(5);

impl Harness {
    fn new(cfg: TunnelConfig, impair: Impair, seed: u64) -> Harness {
        let b = cfg.mirrored();
        Harness {
            eps: [Endpoint::new(cfg, Time::ZERO).unwrap(), Endpoint::new(b, Time::ZERO).unwrap()],
            wire: Vec::new(),
            delivered: [Vec::new(), Vec::new()],
            rng: Rng(seed | 1),
            impair,
            now: Time::ZERO,
            buf: Vec::new(),
        }
    }

    /// Sends what both endpoints want to send now, through the impaired path.
    fn flush(&mut self) {
        for from in 0..2 {
            while let Some(t) = self.eps[from].poll_transmit(self.now) {
                self.buf.clear();
                let data = t.inner.map(|i| inner_bytes(i, LEN)).unwrap_or_default();
                encode_sctp(&t.header, &data, &mut self.buf).unwrap();
                let impaired = self.now < self.impair.until;
                if impaired && self.rng.chance(self.impair.loss) {
                    continue;
                }
                let copies = if impaired && self.rng.chance(self.impair.dup) { 2 } else { 1 };
                for _ in 0..copies {
                    let jitter = if impaired { self.rng.next() % (self.impair.jitter_ms * 1_000_000 + 1) } else { 0 };
                    self.wire.push((self.now + DELAY + Duration(jitter), 1 - from, self.buf.clone()));
                }
            }
            while let Some(d) = self.eps[from].poll_deliver() {
                self.delivered[from].push(d);
            }
        }
    }

    /// Runs until `end` (bounded in steps).
    fn run_until(&mut self, end: Time) {
        for _ in 0..2_000_000 {
            self.flush();
            let next_wire = self.wire.iter().map(|w| w.0).min();
            let next_timer = (0..2).filter_map(|i| self.eps[i].poll_timeout(self.now)).min();
            let Some(next) = [next_wire, next_timer].into_iter().flatten().min() else { return };
            if next > end {
                self.now = end;
                return;
            }
            self.now = next.max(self.now);
            // The earliest arrival, first sent first among equals (a FIFO path unless jittered).
            let first = (0..self.wire.len()).min_by_key(|&i| (self.wire[i].0, i)).filter(|&i| self.wire[i].0 <= self.now);
            if let Some(i) = first {
                let (_, to, bytes) = self.wire.remove(i);
                let _ = self.eps[to].handle_datagram(self.now, &bytes, parse_inner);
            } else {
                for e in &mut self.eps {
                    e.handle_timeout(self.now);
                }
            }
        }
        panic!("harness did not settle");
    }
}

/// Per stream, flow sequence numbers delivered must be strictly increasing (in order, at most
/// once), and exactly 0..n when everything arrived.
fn check(delivered: &[(u16, Inner)], flows: u8, per_flow: u32, complete: bool) -> Result<(), TestCaseError> {
    for f in 0..flows {
        let seqs: Vec<u32> = delivered.iter().filter(|d| d.1 .0 == f).map(|d| d.1 .1).collect();
        prop_assert!(seqs.windows(2).all(|w| w[0] < w[1]), "flow {} out of order or duplicated: {:?}", f, seqs);
        if complete {
            prop_assert_eq!(seqs, (0..per_flow).collect::<Vec<_>>(), "flow {} incomplete", f);
        }
    }
    Ok(())
}

fn offer(h: &mut Harness, flows: u8, per_flow: u32, gap: Duration) {
    for s in 0..per_flow {
        for f in 0..flows {
            for side in 0..2 {
                h.eps[side].send(h.now, key(f), LEN, (f, s));
            }
        }
        h.run_until(h.now + gap);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any loss, duplication and reordering of tunnel packets: every inner packet is delivered
    /// at most once and in order per stream; once the impairments stop, exactly once.
    #[test]
    fn any_impairment_delivers_at_most_once_in_order(
        seed in any::<u64>(), loss in 0.0f64..0.5, dup in 0.0f64..0.3, jitter_ms in 0u64..30, burst in 1u32..8,
    ) {
        let cfg = TunnelConfig { burst, rto_min: Duration::from_millis(100), ..TunnelConfig::default() };
        let impair = Impair { loss, dup, jitter_ms, until: Time::ZERO + Duration::from_secs(3) };
        let mut h = Harness::new(cfg, impair, seed);
        let (flows, per_flow) = (3u8, 40u32);
        offer(&mut h, flows, per_flow, Duration::from_millis(20));
        check(&h.delivered[0], flows, per_flow, false)?;
        check(&h.delivered[1], flows, per_flow, false)?;
        h.run_until(Time::ZERO + Duration::from_secs(400));
        for side in 0..2 {
            check(&h.delivered[side], flows, per_flow, true)?;
            prop_assert_eq!(h.eps[side].backlog(), (0, 0, 0));
        }
    }
}

#[test]
fn a_clean_path_delivers_everything_in_bursts_with_piggybacked_sacks() {
    let cfg = TunnelConfig::default(); // m = 5
    let mut h = Harness::new(cfg, Impair { loss: 0.0, dup: 0.0, jitter_ms: 0, until: Time::ZERO }, 1);
    offer(&mut h, 2, 50, Duration::from_millis(2));
    h.run_until(h.now + Duration::from_secs(2));
    for side in 0..2 {
        let s = h.eps[side].stats();
        assert_eq!(h.eps[side].backlog(), (0, 0, 0), "{s:?} cwnd {}", h.eps[side].cwnd());
        assert_eq!((s.inner_in, s.inner_delivered), (100, 100));
        assert_eq!((s.timeouts, s.fast_retransmissions, s.duplicate_data), (0, 0, 0));
        // Both sides send at the same rate: the inlet fills (m) or the peer's burst arrives.
        assert_eq!(s.released_timeout, 0, "{s:?}");
        assert!(s.released_full + s.released_burst_rule >= 19, "{s:?}");
        assert!(s.sacks_piggybacked * 2 > s.sacks_sent, "most SACKs ride on DATA: {s:?}");
    }
    check(&h.delivered[1], 2, 50, true).unwrap();
}

#[test]
fn the_inlet_waits_for_m_packets_or_its_timeout() {
    let cfg = TunnelConfig { burst: 4, inlet_timeout: Duration::from_millis(20), ..pre() };
    let mut a: Endpoint<Inner> = Endpoint::new(cfg, Time::ZERO).unwrap();
    let t0 = Time::ZERO + Duration::from_millis(1);
    let ms = |k: u64| t0 + Duration::from_millis(k);
    for s in 0..3 {
        a.send(ms(s), key(0), LEN, (0, s as u32));
    }
    assert!(a.poll_transmit(ms(2)).is_none(), "3 < m packets stay in the inlet");
    assert_eq!(a.poll_timeout(ms(2)), Some(t0 + Duration::from_millis(20)));
    a.send(ms(3), key(0), LEN, (0, 3));
    let n = std::iter::from_fn(|| a.poll_transmit(ms(3))).count();
    assert_eq!(n, 4, "m = 4 released at once (the initial cwnd of 3 MTU admits them)");
    // Arrivals 1 ms apart, released with the 4th: waits of 3 + 2 + 1 + 0 ms ((m − 1)/(2R) = 1.5 ms each).
    assert_eq!((a.stats().inlet_released, a.stats().inlet_wait_ns), (4, 6_000_000));
    // One more, then the timeout releases it alone, 20 ms later.
    a.send(ms(3), key(0), LEN, (0, 4));
    a.handle_timeout(ms(23));
    assert_eq!(a.stats().released_timeout, 1);
    assert_eq!((a.stats().inlet_released, a.stats().inlet_wait_ns), (5, 26_000_000));
}

#[test]
fn sack_gap_blocks_trigger_fast_retransmit_and_the_rto_backs_off() {
    let cfg = TunnelConfig { burst: 1, ..pre() };
    let mut a: Endpoint<Inner> = Endpoint::new(cfg.clone(), Time::ZERO).unwrap();
    let mut b: Endpoint<Inner> = Endpoint::new(cfg.mirrored(), Time::ZERO).unwrap();
    let now = Time::ZERO;
    let mut pkts = Vec::new();
    for s in 0..5 {
        a.send(now, key(0), 100, (0, s));
        pkts.extend(std::iter::from_fn(|| a.poll_transmit(now)));
    }
    assert_eq!(pkts.len(), 5);
    // TSN 1 is lost; 2..5 arrive and each draws an immediate SACK with a gap block.
    for t in &pkts[1..] {
        b.handle_packet(now, &t.header, t.inner).unwrap();
        let sack = b.poll_transmit(now).expect("out-of-order data is SACKed at once");
        assert_eq!(sack.header.sack.unwrap().cum_tsn, 0);
        a.handle_packet(now, &sack.header, None).unwrap();
    }
    assert_eq!(b.poll_deliver(), None, "stream order holds everything behind TSN 1");
    let rtx = a.poll_transmit(now).expect("three miss indications: fast retransmit");
    assert_eq!(rtx.header.data.unwrap().tsn, 1);
    assert_eq!((a.stats().fast_retransmissions, a.stats().fast_recoveries), (1, 1));
    assert_eq!(a.cwnd(), 4 * cfg.mtu, "cwnd = ssthresh = max(cwnd/2, 4 MTU)");
    b.handle_packet(now, &rtx.header, rtx.inner).unwrap();
    let sack = b.poll_transmit(now).expect("the hole is filled: SACK at once");
    a.handle_packet(now, &sack.header, None).unwrap();
    assert_eq!(a.backlog(), (0, 0, 0));
    let got: Vec<_> = std::iter::from_fn(|| b.poll_deliver()).map(|d| d.1 .1).collect();
    assert_eq!(got, vec![0, 1, 2, 3, 4]);
    // Now a loss with no later data: T3-rtx at RTO.Initial, then doubled.
    a.send(now, key(0), 100, (0, 5));
    let lost = a.poll_transmit(now).unwrap();
    assert!(lost.header.sack.is_none());
    let t3 = a.poll_timeout(now).unwrap();
    assert_eq!(t3, now + Duration::from_secs(1));
    a.handle_timeout(t3);
    assert_eq!((a.stats().timeouts, a.rto(), a.cwnd()), (1, Duration::from_secs(2), cfg.mtu));
    assert_eq!(a.poll_transmit(t3).unwrap().header.data.unwrap().tsn, lost.header.data.unwrap().tsn);
}

#[test]
fn malformed_and_foreign_packets_are_dropped_and_counted() {
    let cfg = pre();
    let mut a: Endpoint<Inner> = Endpoint::new(cfg.clone(), Time::ZERO).unwrap();
    let mut b: Endpoint<Inner> = Endpoint::new(cfg.mirrored(), Time::ZERO).unwrap();
    for s in 0..5 {
        a.send(Time::ZERO, key(0), LEN, (0, s));
    }
    let t = a.poll_transmit(Time::ZERO).unwrap();
    let mut good = Vec::new();
    encode_sctp(&t.header, &inner_bytes(t.inner.unwrap(), LEN), &mut good).unwrap();
    let mut bad_crc = good.clone();
    bad_crc[30] ^= 1;
    assert_eq!(b.handle_datagram(Time::ZERO, &bad_crc, parse_inner), Err(DropReason::Malformed));
    assert_eq!(b.handle_datagram(Time::ZERO, &good[..20], parse_inner), Err(DropReason::Malformed));
    let mut wrong_tag = good.clone();
    wrong_tag[4] ^= 1;
    fill_checksum(&mut wrong_tag);
    assert_eq!(b.handle_datagram(Time::ZERO, &wrong_tag, parse_inner), Err(DropReason::NotOurs));
    // A packet for ourselves (a's own tag) is not ours either.
    assert_eq!(a.handle_datagram(Time::ZERO, &good, parse_inner), Err(DropReason::NotOurs));
    let s = b.stats();
    assert_eq!((s.dropped_malformed, s.dropped_not_ours, s.packets_received), (2, 1, 0));
    assert_eq!(b.handle_datagram(Time::ZERO, &good, parse_inner), Ok(()));
    assert_eq!(b.poll_deliver(), Some((0, (0, 0))));
}

proptest! {
    /// Arbitrary bytes at an endpoint: dropped and counted or handled, never a panic.
    #[test]
    fn arbitrary_datagrams_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), fix in any::<bool>()) {
        let mut e: Endpoint<Vec<u8>> = Endpoint::new(TunnelConfig::default(), Time::ZERO).unwrap();
        let mut b = bytes;
        if fix && b.len() >= 12 {
            b[4..8].copy_from_slice(&TunnelConfig::default().local_tag.to_be_bytes());
            fill_checksum(&mut b);
        }
        let r = e.handle_datagram(Time::ZERO, &b, |d| d.to_vec());
        let s = e.stats();
        prop_assert_eq!(r.is_err(), s.dropped_malformed + s.dropped_not_ours + s.dropped_bad_data == 1);
        let _ = e.poll_transmit(Time::ZERO);
    }
}

#[test]
fn flow_keys_are_direction_free_and_read_from_ipv4_bytes() {
    let (c, s) = ((std::net::Ipv4Addr::new(10, 0, 0, 1), 40000), (std::net::Ipv4Addr::new(10, 0, 0, 9), 80));
    assert_eq!(FlowKey::new(c, s, 6), FlowKey::new(s, c, 6));
    let p = crate::Packet::tcp(c.0, s.0, crate::TcpHeader { src_port: c.1, dst_port: s.1, ..Default::default() }, 10);
    let mut b = Vec::new();
    crate::wire::encode_ipv4(&p, &mut b).unwrap();
    assert_eq!(FlowKey::of_ipv4_bytes(&b), Some(FlowKey::of_packet(&p)));
    assert_eq!(FlowKey::of_ipv4_bytes(&b[..10]), None);
}

/// One heavy case spelled out: the impairments are really exercised (losses recovered by both
/// timers, duplicates suppressed) and everything arrives once they stop.
#[test]
fn heavy_impairment_is_recovered() {
    let cfg = TunnelConfig { burst: 3, rto_min: Duration::from_millis(100), ..TunnelConfig::default() };
    let impair = Impair { loss: 0.3, dup: 0.2, jitter_ms: 20, until: Time::ZERO + Duration::from_secs(3) };
    let mut h = Harness::new(cfg, impair, 42);
    offer(&mut h, 3, 60, Duration::from_millis(10));
    h.run_until(Time::ZERO + Duration::from_secs(400));
    for side in 0..2 {
        check(&h.delivered[side], 3, 60, true).unwrap();
        let s = h.eps[side].stats();
        assert!(s.timeouts > 0 && s.fast_retransmissions > 0 && s.duplicate_data > 0, "{s:?}");
        assert_eq!(s.inner_delivered, 180);
    }
}

/// A SACK reports only what fits: beside DATA in the simulator's 48 inline bytes, one entry;
/// alone, five; never more than the header room allows.
#[test]
fn sacks_fit_the_header_room() {
    let cfg = TunnelConfig { burst: 1, max_header_bytes: 48, ..pre() };
    let mut a: Endpoint<Inner> = Endpoint::new(cfg.clone(), Time::ZERO).unwrap();
    let mut b: Endpoint<Inner> = Endpoint::new(cfg.mirrored(), Time::ZERO).unwrap();
    let pkts: Vec<_> = (0..12)
        .map(|s| {
            a.send(Time::ZERO, key(0), LEN, (0, s));
            a.poll_transmit(Time::ZERO).unwrap()
        })
        .collect();
    // Every other TSN arrives: six gaps, plus a duplicate.
    for t in pkts.iter().skip(1).step_by(2) {
        b.handle_packet(Time::ZERO, &t.header, t.inner).unwrap();
    }
    b.handle_packet(Time::ZERO, &pkts[1].header, pkts[1].inner).unwrap();
    b.send(Time::ZERO, key(1), LEN, (1, 0));
    let with_data = b.poll_transmit(Time::ZERO).unwrap();
    let s = with_data.header.sack.expect("piggybacked");
    assert!(with_data.header.data.is_some());
    assert_eq!((s.n_gaps, s.n_dups), (1, 0));
    assert!(with_data.header.header_len() <= 48);
    b.handle_packet(Time::ZERO, &pkts[1].header, pkts[1].inner).unwrap(); // another duplicate
    let alone = b.poll_transmit(Time::ZERO).unwrap();
    let s = alone.header.sack.unwrap();
    assert_eq!((alone.header.data, s.n_gaps, s.n_dups), (None, 5, 0));
    assert_eq!(alone.header.header_len(), 48);
}

#[test]
fn max_packet_len_bounds_the_packets_sent_with_a_sack_riding() {
    // The simulator's inline room (48 B): the bound [[tunnel]] validation refuses MSSs by.
    let cfg = TunnelConfig { max_header_bytes: 48, burst: 1, ..pre() };
    for len in [60u32, 1400, 1496, 1500, 9000, 65_535] {
        let mut a = Endpoint::<Inner>::new(cfg.clone(), Time::ZERO).unwrap();
        let mut b = Endpoint::<Inner>::new(cfg.mirrored(), Time::ZERO).unwrap();
        // b's DATA makes a owe a SACK, which then rides on a's `len`-byte DATA.
        b.send(Time::ZERO, key(1), 60, (1, 0));
        let t = b.poll_transmit(Time::ZERO).expect("b sends its DATA");
        a.handle_packet(Time::ZERO, &t.header, t.inner).unwrap();
        a.send(Time::ZERO, key(2), len, (2, 0));
        let t = a.poll_transmit(Time::ZERO).expect("a sends its DATA");
        assert!(t.header.data.is_some() && t.header.sack.is_some(), "{len}: the SACK rides on DATA");
        let bound = cfg.max_packet_len(len as usize);
        assert!(t.header.packet_len() <= bound, "{len}: {} > {bound}", t.header.packet_len());
        // The bound is tight for inner packets the MTU leaves no gap-block room beside.
        if len >= 1500 {
            assert_eq!(t.header.packet_len(), bound, "{len}");
        }
    }
}

/// Sends everything `from` has now to `to` through real bytes; returns the packets' headers.
fn exchange(from: &mut Endpoint<Inner>, to: &mut Endpoint<Inner>, now: Time) -> Vec<crate::wire::sctp::SctpHeader> {
    let mut out = Vec::new();
    while let Some(t) = from.poll_transmit(now) {
        let mut b = Vec::new();
        encode_sctp(&t.header, &t.inner.map(|i| inner_bytes(i, LEN)).unwrap_or_default(), &mut b).unwrap();
        to.handle_datagram(now, &b, parse_inner).unwrap();
        out.push(t.header);
    }
    out
}

/// RFC 9260 §5.1: INIT (tag 0) → INIT ACK with a cookie (the listener keeps no state) →
/// COOKIE ECHO → COOKIE ACK; DATA waits until then, and each end learns the other's tag and
/// first TSN from the handshake, not from its settings.
#[test]
fn the_handshake_establishes_the_association_before_any_data() {
    use crate::wire::sctp::Handshake;
    let client_cfg = TunnelConfig { local_tag: 0xc1, initial_tsn: 1000, peer_tag: 0xdead, peer_initial_tsn: 77, ..TunnelConfig::default() };
    let ap_cfg = TunnelConfig { local_tag: 0xa9, initial_tsn: 5000, peer_tag: 0xbeef, peer_initial_tsn: 88, ..client_cfg.mirrored() };
    let (mut c, mut a): (Endpoint<Inner>, Endpoint<Inner>) = (Endpoint::new(client_cfg, Time::ZERO).unwrap(), Endpoint::new(ap_cfg, Time::ZERO).unwrap());
    let t = Time::ZERO;
    assert_eq!(c.poll_timeout(t), Some(t), "the INIT is due at once");
    assert_eq!(a.poll_timeout(t), None, "the listener waits");
    for s in 0..5 {
        c.send(t, key(0), LEN, (0, s)); // m = 5 released, but no association yet
    }
    let init = exchange(&mut c, &mut a, t);
    assert_eq!(init.len(), 1);
    let Some(Handshake::Init(i)) = init[0].control else { panic!("{init:?}") };
    assert_eq!((init[0].vtag, i.tag, i.initial_tsn, init[0].data), (0, 0xc1, 1000, None));
    assert_eq!(c.poll_timeout(t), Some(t + Duration::from_secs(1)), "T1-init = RTO.Initial");
    let ack = exchange(&mut a, &mut c, t);
    let Some(Handshake::InitAck(i, _)) = ack[0].control else { panic!("{ack:?}") };
    assert_eq!((ack.len(), ack[0].vtag, i.tag, i.initial_tsn), (1, 0xc1, 0xa9, 5000));
    assert!(!a.is_established(), "the listener keeps no state before COOKIE ECHO");
    let echo = exchange(&mut c, &mut a, t);
    assert!(matches!(echo[0].control, Some(Handshake::CookieEcho(_))) && echo.len() == 1 && echo[0].vtag == 0xa9, "{echo:?}");
    assert!(a.is_established() && !c.is_established());
    let cack = exchange(&mut a, &mut c, t);
    assert_eq!((cack.len(), cack[0].control, cack[0].vtag), (1, Some(Handshake::CookieAck), 0xc1));
    assert!(c.is_established());
    assert_eq!(c.poll_timeout(t), None, "T1 stopped (nothing else is due before DATA goes)");
    let data = exchange(&mut c, &mut a, t);
    let tsns: Vec<u32> = data.iter().map(|h| h.data.unwrap().tsn).collect();
    assert_eq!(tsns, vec![1000, 1001, 1002, 1003, 1004]);
    assert!(data.iter().all(|h| h.vtag == 0xa9));
    let got: Vec<_> = std::iter::from_fn(|| a.poll_deliver()).map(|d| d.1 .1).collect();
    assert_eq!(got, vec![0, 1, 2, 3, 4]);
    assert_eq!((c.stats().handshake_sent, a.stats().handshake_sent, c.stats().handshake_retransmissions), (2, 2, 0));
}

/// Lost INITs: sent again when T1-init expires, the timer doubling (1, 2, 4, ... s), and after
/// Max.Init.Retransmits the association has failed and nothing more is sent.
#[test]
fn a_lost_init_is_repeated_with_backoff_then_the_association_fails() {
    let cfg = TunnelConfig { max_init_retransmits: 3, ..TunnelConfig::default() };
    let mut c: Endpoint<Inner> = Endpoint::new(cfg, Time::ZERO).unwrap();
    let mut now = Time::ZERO;
    let mut sent_at = Vec::new();
    for _ in 0..20 {
        let Some(t) = c.poll_timeout(now) else { break };
        now = t;
        c.handle_timeout(now);
        while let Some(p) = c.poll_transmit(now) {
            assert!(matches!(p.header.control, Some(crate::wire::sctp::Handshake::Init(_))));
            sent_at.push(now.saturating_since(Time::ZERO).as_secs_f64());
        }
    }
    assert_eq!(sent_at, vec![0.0, 1.0, 3.0, 7.0]);
    assert!(c.stats().handshake_failed && !c.is_established());
    assert_eq!((c.stats().handshake_retransmissions, c.poll_timeout(now)), (3, None));
}

/// A COOKIE ECHO whose cookie another listener (another secret) made, or that was altered, is
/// refused; a repeated valid one after establishment (our COOKIE ACK was lost) is acknowledged
/// again; DATA before the association exists is dropped.
#[test]
fn cookies_are_checked_and_a_lost_cookie_ack_is_repaired() {
    use crate::wire::sctp::{Cookie, Handshake, SctpHeader};
    let cfg = TunnelConfig::default();
    let mut c: Endpoint<Inner> = Endpoint::new(cfg.clone(), Time::ZERO).unwrap();
    let mut a: Endpoint<Inner> = Endpoint::new(cfg.mirrored(), Time::ZERO).unwrap();
    let t = Time::ZERO;
    let mut early = Endpoint::<Inner>::new(pre(), t).unwrap();
    early.send(t, key(0), LEN, (0, 0));
    for _ in 0..4 {
        early.send(t, key(0), LEN, (0, 0));
    }
    let d = early.poll_transmit(t).unwrap();
    assert_eq!(a.handle_packet(t, &d.header, d.inner), Err(DropReason::NotOurs), "DATA before the association");
    exchange(&mut c, &mut a, t); // INIT
    let ack = a.poll_transmit(t).unwrap();
    let Some(Handshake::InitAck(_, k)) = ack.header.control else { panic!() };
    let echo = |k: Cookie| SctpHeader { src_port: cfg.port, dst_port: cfg.port, vtag: cfg.peer_tag, control: Some(Handshake::CookieEcho(k)), ..SctpHeader::default() };
    let mut forged = k;
    forged.0[3] ^= 1; // another initiator tag, same check value
    assert_eq!(a.handle_packet(t, &echo(forged), None), Err(DropReason::NotOurs));
    let other = Endpoint::<Inner>::new(TunnelConfig { cookie_secret: 1, ..cfg.mirrored() }, t);
    let mut other = other.unwrap();
    let init = SctpHeader { src_port: cfg.port, dst_port: cfg.port, vtag: 0, control: Some(Handshake::Init(crate::wire::sctp::InitChunk { tag: cfg.local_tag, a_rwnd: 1, out_streams: 1, in_streams: 1, initial_tsn: 1 })), ..SctpHeader::default() };
    other.handle_packet(t, &init, None).unwrap();
    let Some(Handshake::InitAck(_, foreign)) = other.poll_transmit(t).unwrap().header.control else { panic!() };
    assert_eq!(a.handle_packet(t, &echo(foreign), None), Err(DropReason::NotOurs));
    assert!(!a.is_established());
    a.handle_packet(t, &echo(k), None).unwrap();
    assert!(a.is_established());
    assert_eq!(a.poll_transmit(t).unwrap().header.control, Some(Handshake::CookieAck));
    a.handle_packet(t, &echo(k), None).unwrap(); // the COOKIE ACK was lost: the echo comes again
    assert_eq!(a.poll_transmit(t).unwrap().header.control, Some(Handshake::CookieAck));
    assert_eq!(a.stats().dropped_not_ours, 3);
}

/// Max.Burst (RFC 9260 §6.1 D): with max_burst = 4 a release of m = 8 goes out as 4 new DATA
/// packets, the other 4 at the next input; with 0 (the tunnel's default) all 8 at once.
/// Retransmissions and SACK-only packets are not limited.
#[test]
fn max_burst_limits_new_data_per_output_opportunity() {
    for (max_burst, first) in [(4u32, 4usize), (0, 8)] {
        let cfg = TunnelConfig { burst: 8, max_burst, ..pre() };
        let mut a: Endpoint<Inner> = Endpoint::new(cfg, Time::ZERO).unwrap();
        let t = Time::ZERO;
        for s in 0..8 {
            a.send(t, key(0), LEN, (0, s));
        }
        let n = std::iter::from_fn(|| a.poll_transmit(t)).filter(|p| p.header.data.is_some()).count();
        assert_eq!(n, first, "max_burst {max_burst}");
        assert_eq!(a.stats().max_burst_limited, u64::from(max_burst > 0));
        a.handle_timeout(t); // any input opens a new output opportunity
        let rest = std::iter::from_fn(|| a.poll_transmit(t)).count();
        assert_eq!((first + rest, a.backlog().1), (8, 0), "max_burst {max_burst}");
    }
}
