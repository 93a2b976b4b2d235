//! Two-endpoint tests over a deterministic in-memory link.

use super::*;
use crate::packet::{Endpoint, Packet, TcpFlags, TcpHeader, TcpOptions, Timestamps};
use crate::time::{Duration, Time};
use std::net::Ipv4Addr;

const A_TO_B: usize = 0;
const B_TO_A: usize = 1;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn ep_a() -> Endpoint {
    Endpoint::new(Ipv4Addr::new(10, 0, 0, 1), 40000)
}
fn ep_b() -> Endpoint {
    Endpoint::new(Ipv4Addr::new(10, 0, 0, 2), 80)
}

/// A packet that left one end, with when it left.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sent {
    at: Time,
    dir: usize,
    pkt: Packet,
    dropped: bool,
}

/// Client `a` (active open) and server `b` (passive) over a link with a fixed one-way delay,
/// an optional bottleneck rate (FIFO, unbounded queue) and drops of chosen data segments.
struct Harness {
    a: TcpConnection,
    b: TcpConnection,
    now: Time,
    delay: Duration,
    rate_bps: Option<u64>,
    link_free: [Time; 2],
    /// (direction, n) drops the n-th data segment (1-based, retransmissions count) sent that way.
    drops: Vec<(usize, u64)>,
    data_count: [u64; 2],
    in_flight: Vec<(Time, u64, usize, Packet)>,
    order: u64,
    log: Vec<Sent>,
    /// Overwrite the window of b's outgoing segments (a middlebox shrinking the window).
    rewrite_b_window: Option<u16>,
    /// (n, left, right): once a has sent its n-th data segment, b's next segment carries one
    /// more SACK block `[left, right)` (wire numbers): a receiver that SACKs data it does not
    /// hold, i.e. that reneges once the cumulative ACK reaches it.
    fake_b_sack: Option<(u64, u32, u32)>,
    /// The server application reads everything as soon as it arrives.
    b_reads: bool,
    /// The server closes its side when the client's FIN arrives.
    b_closes_on_fin: bool,
    a_events: Vec<TcpEvent>,
    b_events: Vec<TcpEvent>,
}

impl Harness {
    fn new(ca: TcpConfig, cb: TcpConfig, isn_a: u32, isn_b: u32, delay: Duration) -> Self {
        Harness {
            a: TcpConnection::connect(ca, ep_a(), ep_b(), isn_a, Time::ZERO),
            b: TcpConnection::listen(cb, ep_b(), isn_b),
            now: Time::ZERO,
            delay,
            rate_bps: None,
            link_free: [Time::ZERO; 2],
            drops: Vec::new(),
            data_count: [0; 2],
            in_flight: Vec::new(),
            order: 0,
            log: Vec::new(),
            rewrite_b_window: None,
            fake_b_sack: None,
            b_reads: true,
            b_closes_on_fin: true,
            a_events: Vec::new(),
            b_events: Vec::new(),
        }
    }

    fn default_pair(delay: Duration) -> Self {
        Harness::new(TcpConfig::default(), TcpConfig::default(), 1000, 5000, delay)
    }

    fn transmit_all(&mut self) {
        for dir in [A_TO_B, B_TO_A] {
            loop {
                let now = self.now;
                let p = if dir == A_TO_B { self.a.poll_transmit(now) } else { self.b.poll_transmit(now) };
                let Some(mut p) = p else { break };
                if let (B_TO_A, Some(w)) = (dir, self.rewrite_b_window) {
                    if let Some(hh) = p.tcp_header_mut() {
                        hh.window = w;
                    }
                }
                if let (B_TO_A, Some((n, left, right))) = (dir, self.fake_b_sack) {
                    if let Some(o) = p.tcp_header_mut().map(|hh| &mut hh.options).filter(|_| self.data_count[A_TO_B] >= n) {
                        let k = (o.sack_len as usize).min(crate::packet::MAX_SACK_BLOCKS - 1);
                        o.sack[k] = crate::packet::SackBlock { left, right };
                        o.sack_len = k as u8 + 1;
                        self.fake_b_sack = None;
                    }
                }
                let mut dropped = false;
                if p.payload_len > 0 {
                    self.data_count[dir] += 1;
                    dropped = self.drops.contains(&(dir, self.data_count[dir]));
                }
                self.log.push(Sent { at: now, dir, pkt: p, dropped });
                let depart = match self.rate_bps {
                    Some(r) => {
                        let start = self.link_free[dir].max(now);
                        let done = start + Duration::transmission(p.ip_len() as u64, r);
                        self.link_free[dir] = done;
                        done
                    }
                    None => now,
                };
                if !dropped {
                    self.order += 1;
                    self.in_flight.push((depart + self.delay, self.order, dir, p));
                }
            }
        }
    }

    fn app(&mut self) {
        while let Some(e) = self.a.poll_event() {
            self.a_events.push(e);
        }
        while let Some(e) = self.b.poll_event() {
            self.b_events.push(e);
            if e == TcpEvent::PeerFin && self.b_closes_on_fin {
                self.b.close();
            }
        }
        if self.b_reads {
            let n = self.b.readable();
            self.b.read(n);
        }
    }

    /// One step: transmit, then advance to the next arrival or timer (at most `until`).
    fn step(&mut self, until: Time) -> bool {
        self.app();
        self.transmit_all();
        let next_arrival = self.in_flight.iter().map(|x| (x.0, x.1)).min();
        let mut next = [next_arrival.map(|x| x.0), self.a.poll_timeout(), self.b.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        if let Some(t) = next {
            if t > until {
                next = None;
            }
        }
        let Some(t) = next else {
            self.now = self.now.max(until.min(self.now.max(until)));
            return false;
        };
        self.now = t.max(self.now);
        // Deliver one packet due now (the next step transmits whatever it triggers, as a stack
        // answers each packet before the next is processed).
        let due = self
            .in_flight
            .iter()
            .enumerate()
            .filter(|(_, x)| x.0 <= self.now)
            .min_by_key(|(_, x)| (x.0, x.1))
            .map(|(i, _)| i);
        if let Some(i) = due {
            let (_, _, dir, p) = self.in_flight.remove(i);
            if dir == A_TO_B {
                self.b.handle_segment(self.now, &p);
            } else {
                self.a.handle_segment(self.now, &p);
            }
        }
        if self.a.poll_timeout().is_some_and(|t| t <= self.now) {
            self.a.handle_timeout(self.now);
        }
        if self.b.poll_timeout().is_some_and(|t| t <= self.now) {
            self.b.handle_timeout(self.now);
        }
        true
    }

    fn run_until(&mut self, until: Time) {
        while self.step(until) {}
        self.app();
        self.transmit_all();
    }

    fn run_while(&mut self, limit: Time, mut cond: impl FnMut(&Harness) -> bool) {
        while cond(self) && self.step(limit) {}
    }

    fn sent(&self, dir: usize) -> impl Iterator<Item = &Sent> {
        self.log.iter().filter(move |s| s.dir == dir)
    }

    /// When each copy of the data segment starting at `seq` left (original, then retransmissions).
    fn data_sent_at(&self, dir: usize, seq: u32) -> Vec<Time> {
        self.sent(dir).filter(|x| x.pkt.payload_len > 0 && hdr(&x.pkt).seq == seq).map(|x| x.at).collect()
    }
}

/// The 1-based index, among A's data segments of a finished run `h`, of the first one that
/// resends a sequence number (its first retransmission), for a rerun that also drops it.
fn first_resent_index(h: &Harness) -> u64 {
    let mut seen = std::collections::HashSet::new();
    h.sent(A_TO_B)
        .filter(|s| s.pkt.payload_len > 0)
        .enumerate()
        .find(|(_, s)| !seen.insert(hdr(&s.pkt).seq))
        .map(|(i, _)| i as u64 + 1)
        .expect("the run resent a segment")
}

fn hdr(p: &Packet) -> &TcpHeader {
    p.tcp_header().expect("tcp")
}

/// Connect, send `bytes` from a to b, close both sides; returns the harness after the run.
fn transfer(mut h: Harness, bytes: u64, limit: Time) -> Harness {
    h.a.send(bytes);
    h.a.close();
    h.run_until(limit);
    h
}

// ---------------------------------------------------------------------------- handshake, close

#[test]
fn handshake_1mb_transfer_and_close() {
    let bytes = 1_000_000;
    let mut h = Harness::default_pair(ms(10));
    h.a.send(bytes);
    h.run_while(Time::from_secs_f64(60.0), |h| h.b.stats().bytes_read < bytes);
    assert_eq!(h.b.stats().bytes_read, bytes);
    assert_eq!(h.a.state(), TcpState::Established);
    h.a.close();
    h.run_while(Time::from_secs_f64(60.0), |h| h.a.state() != TcpState::TimeWait);
    assert_eq!(h.a.state(), TcpState::TimeWait);
    h.run_until(Time::from_secs_f64(60.0));
    assert_eq!(h.a.state(), TcpState::Closed);
    assert_eq!(h.b.state(), TcpState::Closed);
    assert_eq!(h.b.stats().bytes_received, bytes);
    assert_eq!(h.a.stats().bytes_retransmitted, 0);
    assert_eq!(h.a.stats().timeouts, 0);
    assert_eq!(h.a_events.first(), Some(&TcpEvent::Connected));
    assert!(h.a_events.contains(&TcpEvent::PeerFin));
    assert_eq!(h.a_events.last(), Some(&TcpEvent::Closed));
    assert_eq!(h.b_events.first(), Some(&TcpEvent::Connected));
    assert!(h.b_events.contains(&TcpEvent::Readable));
    assert!(h.b_events.contains(&TcpEvent::PeerFin));
    assert_eq!(h.b_events.last(), Some(&TcpEvent::Closed));
    // The handshake: S, S., . ; then data; both FINs.
    let first: Vec<_> = h.log.iter().take(3).map(|s| (s.dir, hdr(&s.pkt).flags)).collect();
    assert_eq!(
        first,
        vec![(A_TO_B, TcpFlags::SYN), (B_TO_A, TcpFlags::SYN | TcpFlags::ACK), (A_TO_B, TcpFlags::ACK)]
    );
    let fins = h.log.iter().filter(|s| hdr(&s.pkt).flags.contains(TcpFlags::FIN)).count();
    assert_eq!(fins, 2);
    // IP ids count up per connection; TTL 64.
    let ids: Vec<u16> = h.sent(A_TO_B).map(|s| s.pkt.ip_id).take(5).collect();
    assert_eq!(ids, vec![0, 1, 2, 3, 4]);
    assert!(h.log.iter().all(|s| s.pkt.ttl == 64));
}

#[test]
fn server_closes_first_and_fins_cross() {
    // The server sends 10 kB and closes; the client closes on PeerFin.
    let mut h = Harness::default_pair(ms(5));
    h.b_closes_on_fin = false;
    h.run_until(Time::from_secs_f64(0.1)); // handshake
    h.b.send(10_000);
    h.b.close();
    h.run_while(Time::from_secs_f64(5.0), |h| h.a.state() != TcpState::CloseWait);
    assert_eq!(h.a.readable(), 10_000);
    h.a.close();
    assert_eq!(h.a.state(), TcpState::LastAck);
    h.run_until(Time::from_secs_f64(5.0));
    assert_eq!(h.a.state(), TcpState::Closed);
    assert_eq!(h.b.state(), TcpState::Closed);

    // Simultaneous close: both FINs in flight at once → CLOSING → TIME_WAIT on both.
    let mut h = Harness::default_pair(ms(5));
    h.b_closes_on_fin = false;
    h.run_until(Time::from_secs_f64(0.1));
    h.a.close();
    h.b.close();
    h.run_while(Time::from_secs_f64(5.0), |h| {
        !(h.a.state() == TcpState::TimeWait && h.b.state() == TcpState::TimeWait)
    });
    assert_eq!((h.a.state(), h.b.state()), (TcpState::TimeWait, TcpState::TimeWait));
}

#[test]
fn lost_syn_and_fin_are_retransmitted() {
    let mut h = Harness::default_pair(ms(10));
    // Drop the first SYN by swapping it out by hand.
    let syn = h.a.poll_transmit(Time::ZERO).expect("SYN");
    assert!(hdr(&syn).flags.contains(TcpFlags::SYN));
    assert_eq!(h.a.poll_timeout(), Some(Time::ZERO + ms(1000)));
    h.run_while(Time::from_secs_f64(10.0), |h| h.a.state() != TcpState::Established);
    assert_eq!(h.a.stats().timeouts, 1);
    let syns: Vec<Time> = h.sent(A_TO_B).filter(|s| hdr(&s.pkt).flags == TcpFlags::SYN).map(|s| s.at).collect();
    assert_eq!(syns, vec![Time::ZERO + ms(1000)]);
    // RFC 6298 §5.7 does not apply: the retransmitted SYN's timestamp gave a valid sample.
    assert_eq!(h.a.srtt(), Some(ms(20)));

    // Lose the client's FIN (and nothing else): it is retransmitted on RTO.
    let mut h = Harness::default_pair(ms(10));
    h.run_until(Time::from_secs_f64(0.1));
    h.a.close();
    let fin = h.a.poll_transmit(h.now).expect("FIN");
    assert!(hdr(&fin).flags.contains(TcpFlags::FIN));
    h.run_until(Time::from_secs_f64(10.0));
    assert_eq!(h.a.stats().timeouts, 1);
    assert_eq!(h.a.state(), TcpState::Closed);
    assert_eq!(h.b.state(), TcpState::Closed);
}

#[test]
fn mss_negotiation_options_and_timestamps() {
    let ca = TcpConfig { mss: 1460, window_scale: Some(7), sack: true, ..Default::default() };
    let cb = TcpConfig { mss: 1000, recv_buffer: 1 << 20, window_scale: Some(3), ..Default::default() };
    let mut h = Harness::new(ca, cb, 1, 2, ms(10));
    h.a.send(100_000);
    h.run_until(Time::from_secs_f64(5.0));
    let syn = hdr(&h.log[0].pkt).options;
    assert_eq!(syn.mss, Some(1460));
    assert_eq!(syn.window_scale, Some(7));
    assert!(syn.sack_permitted);
    assert_eq!(syn.timestamps, Some(Timestamps { tsval: 0, tsecr: 0 }));
    assert_eq!(hdr(&h.log[0].pkt).window, 65535);
    let synack = h.log[1];
    assert_eq!(synack.dir, B_TO_A);
    let o = hdr(&synack.pkt).options;
    assert_eq!(o.mss, Some(1000));
    assert_eq!(o.window_scale, Some(3));
    assert!(!o.sack_permitted, "b did not enable SACK");
    assert_eq!(o.timestamps, Some(Timestamps { tsval: 10, tsecr: 0 }));
    assert_eq!(hdr(&synack.pkt).window, 65535, "SYN window is never scaled");
    // Effective MSS = min(1460, 1000) minus 12 bytes of timestamps, on both sides.
    assert_eq!(h.a.effective_mss(), 988);
    assert_eq!(h.b.effective_mss(), 988);
    assert_eq!(h.a.window_scales(), (7, 3));
    assert_eq!(h.b.window_scales(), (3, 7));
    assert!(h.a.timestamps_enabled() && h.b.timestamps_enabled());
    assert!(!h.a.sack_permitted());
    let data: Vec<&Sent> = h.sent(A_TO_B).filter(|s| s.pkt.payload_len > 0).collect();
    assert!(data.iter().all(|s| s.pkt.payload_len <= 988));
    assert_eq!(data[0].pkt.payload_len, 988);
    assert_eq!(data[0].pkt.ip_len(), 20 + 32 + 988);
    // Every segment after the SYNs carries timestamps and ACK; B echoes A's latest TSval.
    for s in h.log.iter().skip(2) {
        let hh = hdr(&s.pkt);
        assert!(hh.options.timestamps.is_some());
        assert!(hh.flags.contains(TcpFlags::ACK));
        assert_eq!(hh.options.mss, None);
    }
    // B's ACKs: TSecr is the TSval of the data segment that triggered it (delayed ACK of the
    // 2nd segment echoes the earlier one: RFC 7323 §4.3 keeps the oldest unacked TSval).
    let b_acks: Vec<&Sent> = h.sent(B_TO_A).skip(1).collect();
    for ack in b_acks {
        let tsecr = hdr(&ack.pkt).options.timestamps.map(|t| t.tsecr).unwrap_or(u32::MAX);
        let echoed = h
            .sent(A_TO_B)
            .filter(|s| s.at + ms(10) <= ack.at)
            .any(|s| hdr(&s.pkt).options.timestamps.map(|t| t.tsval) == Some(tsecr));
        assert!(echoed, "TSecr {tsecr} echoes a TSval a sent");
    }
    // B's scaled window: 1 MiB buffer >> 3 = 131072 > 65535 → field saturates at 65535.
    let last_b = h.sent(B_TO_A).last().expect("b sent");
    // (The last 212-byte tail did not move the right edge: receiver SWS avoidance.)
    assert!(hdr(&last_b.pkt).window as u32 >= (524_280 - 988) >> 3);
    assert_eq!(h.a.peer_window(), (hdr(&last_b.pkt).window as u32) << 3);
    // Samples from TSecr include the receiver's ACK delay (RFC 7323 §4.1 echo rules).
    assert!(h.a.srtt().is_some_and(|s| s >= ms(20) && s < ms(60)));
    assert_eq!(h.b.stats().bytes_received, 100_000);
}

#[test]
fn no_timestamps_when_peer_does_not_offer_them() {
    let cb = TcpConfig { timestamps: false, ..Default::default() };
    let mut h = Harness::new(TcpConfig::default(), cb, 7, 9, ms(10));
    h.a.send(50_000);
    h.run_until(Time::from_secs_f64(5.0));
    assert!(!h.a.timestamps_enabled() && !h.b.timestamps_enabled());
    assert_eq!(h.a.effective_mss(), 1460);
    assert!(h.log.iter().skip(1).all(|s| hdr(&s.pkt).options.timestamps.is_none()));
    assert_eq!(h.b.stats().bytes_received, 50_000);
    // Karn-timed samples of a loss-free path are exact.
    assert_eq!(h.a.srtt(), Some(ms(20)));
}

// ---------------------------------------------------------------------------- flow control

#[test]
fn zero_window_persist_probes_back_off_and_get_answered() {
    let bytes = 300_000;
    let mut h = Harness::default_pair(ms(10));
    h.b_reads = false;
    h.a.send(bytes);
    h.a.close();
    // Let the window fill and the persist timer run for a while.
    h.run_until(Time::from_secs_f64(30.0));
    assert_eq!(h.b.readable(), 65535);
    assert_eq!(h.b.advertised_window(), 0);
    assert_eq!(h.a.peer_window(), 0);
    assert!(h.b.stats().zero_window_advertised > 0);
    // Probes: zero-length, ACK flag, seq = snd_una - 1.
    let una = 1000u32.wrapping_add(1 + 65535);
    let probes: Vec<Time> = h
        .sent(A_TO_B)
        .filter(|s| s.pkt.payload_len == 0 && hdr(&s.pkt).seq == una.wrapping_sub(1))
        .map(|s| s.at)
        .collect();
    assert!(probes.len() >= 4, "probes: {probes:?}");
    // One more persist expiry than zero-window probes: the first sent the 375-byte rest of the
    // window that sender SWS avoidance held back (65535 = 45 × 1448 + 375).
    assert_eq!(probes.len() as u64 + 1, h.a.stats().persist_probes_sent);
    assert!(h.sent(A_TO_B).any(|s| s.pkt.payload_len == 375));
    let gaps: Vec<Duration> = probes.windows(2).map(|w| w[1] - w[0]).collect();
    for g in gaps.windows(2) {
        assert_eq!(g[1], g[0].saturating_mul(2), "persist intervals double: {gaps:?}");
    }
    // The first probe comes one RTO after the zero-window ACK (RTO = 200 ms floor here).
    assert_eq!(gaps[0], ms(400));
    // Each probe was answered at once: an ACK from b leaves at the probe's arrival time.
    for &p in &probes {
        let answered = h.sent(B_TO_A).any(|s| s.at == p + ms(10) && hdr(&s.pkt).window == 0);
        assert!(answered, "probe at {p} answered");
    }
    assert_eq!(h.b.stats().unacceptable_segments_acked, probes.len() as u64);
    assert_eq!(h.a.stats().timeouts, 0);

    // The application reads again: window update, transfer completes.
    h.b_reads = true;
    h.run_until(Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, bytes);
    assert!(h.b.stats().window_updates_sent >= 1);
    assert_eq!(h.a.state(), TcpState::Closed);
    assert_eq!(h.b.state(), TcpState::Closed);
}

#[test]
fn persist_backoff_caps_at_max_rto() {
    let ca = TcpConfig { max_rto: Duration::from_secs(2), ..Default::default() };
    let mut h = Harness::new(ca, TcpConfig::default(), 0, 0, ms(10));
    h.b_reads = false;
    h.a.send(100_000);
    h.run_until(Time::from_secs_f64(20.0));
    let una = 1 + 65535u32;
    let probes: Vec<Time> = h
        .sent(A_TO_B)
        .filter(|s| s.pkt.payload_len == 0 && hdr(&s.pkt).seq == una - 1)
        .map(|s| s.at)
        .collect();
    let gaps: Vec<Duration> = probes.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(&gaps[..3], &[ms(400), ms(800), ms(1600)]);
    assert!(gaps[3..].iter().all(|&g| g == ms(2000)), "{gaps:?}");
}

#[test]
fn old_segment_gets_immediate_ack_with_current_window() {
    let mut h = Harness::default_pair(ms(10));
    h.b_reads = false;
    h.a.send(20_000);
    h.run_until(Time::from_secs_f64(2.0));
    assert_eq!(h.b.readable(), 20_000);
    assert_eq!(h.b.poll_transmit(h.now), None, "nothing pending");
    // A hand-made window probe: seq = rcv_nxt - 1, no data, ACK, as the energy agent sends.
    let last_a = hdr(&h.sent(A_TO_B).last().expect("a sent").pkt).to_owned();
    let rcv_nxt = 1000u32.wrapping_add(1 + 20_000);
    let probe_hdr = TcpHeader {
        src_port: ep_a().port,
        dst_port: ep_b().port,
        seq: rcv_nxt.wrapping_sub(1),
        ack: last_a.ack,
        flags: TcpFlags::ACK,
        window: 0,
        options: TcpOptions { timestamps: Some(Timestamps { tsval: 12345, tsecr: 0 }), ..Default::default() },
    };
    let probe = Packet::tcp(ep_a().addr, ep_b().addr, probe_hdr, 0);
    let t = h.now + ms(1);
    h.b.handle_segment(t, &probe);
    let ack = h.b.poll_transmit(t).expect("immediate ACK");
    let ah = hdr(&ack);
    assert_eq!(ah.flags, TcpFlags::ACK);
    assert_eq!(ah.ack, rcv_nxt);
    assert_eq!(ah.window as u32, 65535 - 20_000);
    assert_eq!(ack.payload_len, 0);
    // TS.Recent is not updated from an unacceptable segment (RFC 7323 §4.3).
    assert_ne!(ah.options.timestamps.map(|t| t.tsecr), Some(12345));
    assert_eq!(h.b.poll_transmit(t), None);
    // The probe's zero window did not reach b's send side (wl1 rule) nor count as a dup ACK.
    assert_eq!(h.b.stats().dup_acks_received, 0);

    // A segment beyond the window and an old data segment are ACKed at once too.
    let mut beyond = probe;
    beyond.tcp_header_mut().expect("tcp").seq = rcv_nxt.wrapping_add(100_000);
    beyond.payload_len = 100;
    h.b.handle_segment(t, &beyond);
    assert_eq!(hdr(&h.b.poll_transmit(t).expect("ACK")).ack, rcv_nxt);
    let mut old = probe;
    old.tcp_header_mut().expect("tcp").seq = rcv_nxt.wrapping_sub(3000);
    old.payload_len = 1448;
    h.b.handle_segment(t, &old);
    assert_eq!(hdr(&h.b.poll_transmit(t).expect("ACK")).ack, rcv_nxt);
    assert_eq!(h.b.readable(), 20_000);
    assert_eq!(h.b.stats().unacceptable_segments_acked, 3);
}

#[test]
fn probe_reaching_a_sender_mid_burst_is_answered_by_a_pure_ack_before_its_data() {
    // Linux answers an unacceptable segment with tcp_send_dupack: a pure ACK at once, never
    // folded into the data it still has to send. Seed 000's burst detection relies on it.
    let mut h = Harness::default_pair(ms(10));
    h.a.send(10_000);
    h.run_until(Time::from_secs_f64(0.5));
    let b_last = hdr(&h.sent(B_TO_A).last().expect("b acked").pkt).to_owned();
    let probe_hdr = TcpHeader {
        src_port: ep_b().port,
        dst_port: ep_a().port,
        seq: b_last.seq.wrapping_sub(1),
        ack: b_last.ack,
        flags: TcpFlags::ACK,
        window: b_last.window,
        options: TcpOptions { timestamps: b_last.options.timestamps, ..Default::default() },
    };
    let probe = Packet::tcp(ep_b().addr, ep_a().addr, probe_hdr, 0);
    // Hand the probe to a just as it has new data and window to send it: its first output
    // is the pure ACK, the data follows.
    let t = h.now;
    h.a.send(10_000);
    h.a.handle_segment(t, &probe);
    let first = h.a.poll_transmit(t).expect("an immediate ACK");
    assert_eq!(first.payload_len, 0, "pure ACK first");
    assert!(h.a.poll_transmit(t).expect("then data").payload_len > 0);
    assert_eq!(h.a.stats().unacceptable_segments_acked, 1);
}

#[test]
fn window_shrunk_to_zero_with_data_in_flight_does_not_stall() {
    // A middlebox closes b's window while a has data outstanding (the energy agent's closed
    // ACKs), then opens it again: RTO retransmissions probe the window and the transfer ends.
    let mut h = Harness::default_pair(ms(10));
    h.a.send(300_000);
    h.a.close();
    h.run_until(Time::from_secs_f64(0.15));
    assert!(h.a.bytes_in_flight() > 0);
    h.rewrite_b_window = Some(0);
    h.run_until(Time::from_secs_f64(3.0));
    assert!(h.b.stats().bytes_read < 300_000);
    assert_eq!(h.a.peer_window(), 0);
    assert!(h.a.poll_timeout().is_some(), "a timer stays armed");
    h.rewrite_b_window = None;
    h.run_until(Time::from_secs_f64(120.0));
    assert_eq!(h.b.stats().bytes_read, 300_000);
    assert_eq!(h.a.state(), TcpState::Closed);
}

#[test]
fn receiver_sws_avoidance_and_window_update() {
    let mut h = Harness::default_pair(ms(10));
    h.b_reads = false;
    h.a.send(200_000);
    h.run_until(Time::from_secs_f64(1.0));
    assert_eq!(h.b.advertised_window(), 0);
    // Reading less than one MSS must not open the window (no silly window).
    h.b.read(1000);
    assert_eq!(h.b.advertised_window(), 0);
    assert_eq!(h.b.poll_transmit(h.now), None);
    // Reading one more MSS opens it and sends a window update immediately.
    h.b.read(1448);
    assert_eq!(h.b.advertised_window(), 2448);
    let upd = h.b.poll_transmit(h.now).expect("window update");
    assert_eq!(hdr(&upd).window, 2448);
    assert_eq!(h.b.stats().window_updates_sent, 1);
    h.b_reads = true;
    h.run_until(Time::from_secs_f64(30.0));
    assert_eq!(h.b.stats().bytes_read, 200_000);
}

#[test]
fn sender_sws_avoidance_uses_persist_override() {
    // A 1000-byte receive buffer smaller than the MSS: the sender must send what fits.
    let cb = TcpConfig { recv_buffer: 1000, ..Default::default() };
    let mut h = Harness::new(TcpConfig::default(), cb, 3, 4, ms(5));
    h.a.send(10_000);
    h.a.close();
    h.run_until(Time::from_secs_f64(30.0));
    assert_eq!(h.b.stats().bytes_read, 10_000);
    assert!(h.sent(A_TO_B).all(|s| s.pkt.payload_len <= 1000));
    assert_eq!(h.b.state(), TcpState::Closed);
}

// ---------------------------------------------------------------------------- congestion control

/// Large buffers so the congestion window, not the receive window, limits the sender.
fn big_window() -> TcpConfig {
    TcpConfig { recv_buffer: 16 << 20, window_scale: Some(8), ..Default::default() }
}

#[test]
fn slow_start_doubles_per_rtt_then_avoidance_adds_one_mss() {
    let mut h = Harness::new(big_window(), big_window(), 10, 20, ms(50));
    h.a.send(50_000_000);
    let mss = 1448;
    // Sample cwnd once per RTT (100 ms), in the middle of each round.
    let mut cw = Vec::new();
    for k in 1..=6 {
        h.run_until(Time::ZERO + ms(100 * k + 50));
        cw.push(h.a.cwnd());
    }
    assert_eq!(cw[0], 2 * mss);
    for w in cw.windows(2) {
        assert_eq!(w[1], 2 * w[0], "slow start doubles per RTT with delayed ACKs (L = 2): {cw:?}");
    }

    // Congestion avoidance: lose one segment, recover, then +1 MSS per RTT.
    let mut h = Harness::new(big_window(), big_window(), 10, 20, ms(50));
    h.drops.push((A_TO_B, 60));
    h.a.send(50_000_000);
    h.run_while(Time::from_secs_f64(10.0), |h| h.a.stats().fast_retransmits == 0 || h.a.in_recovery());
    let t0 = h.now;
    let c0 = h.a.cwnd();
    assert_eq!(c0, h.a.ssthresh());
    h.run_until(t0 + ms(1000));
    let grown = (h.a.cwnd() - c0) / mss;
    assert!((9..=11).contains(&grown), "CA grows one MSS per RTT: {grown} MSS in 10 RTTs");
    assert_eq!(h.a.stats().timeouts, 0);
}

#[test]
fn single_drop_fast_retransmit_and_recovery_reno() {
    let ca = TcpConfig { congestion_control: CongestionControlKind::Reno, ..big_window() };
    let mut h = Harness::new(ca, big_window(), 10, 20, ms(20));
    h.drops.push((A_TO_B, 40));
    h.a.send(2_000_000);
    let mut before = 0;
    h.run_while(Time::from_secs_f64(60.0), |h| {
        if h.a.stats().fast_retransmits == 0 {
            before = h.a.bytes_in_flight();
        }
        h.a.stats().fast_retransmits == 0
    });
    // ssthresh = FlightSize / 2, cwnd = ssthresh + 3 MSS.
    let mss = 1448;
    assert_eq!(h.a.ssthresh(), before / 2);
    assert_eq!(h.a.cwnd(), before / 2 + 3 * mss);
    h.run_while(Time::from_secs_f64(60.0), |h| h.a.in_recovery());
    assert_eq!(h.a.cwnd(), before / 2, "deflated to ssthresh: window halved");
    h.a.close();
    h.run_until(Time::from_secs_f64(60.0));
    let s = h.a.stats();
    assert_eq!(s.timeouts, 0);
    assert_eq!(s.fast_retransmits, 1);
    assert_eq!(s.retransmitted_segments, 1);
    assert!(s.dup_acks_received >= 3);
    assert_eq!(h.b.stats().bytes_read, 2_000_000);
    assert!(h.b.stats().out_of_order_segments > 0);
}

#[test]
fn two_drops_in_one_window_newreno_vs_reno() {
    let run = |kind| {
        let ca = TcpConfig { congestion_control: kind, ..big_window() };
        let mut h = Harness::new(ca, big_window(), 10, 20, ms(20));
        h.drops.extend([(A_TO_B, 40), (A_TO_B, 44)]);
        let h = transfer(h, 2_000_000, Time::from_secs_f64(60.0));
        assert_eq!(h.b.stats().bytes_read, 2_000_000);
        assert_eq!(h.a.state(), TcpState::Closed);
        h.a.stats().clone()
    };
    let nr = run(CongestionControlKind::NewReno);
    assert_eq!(nr.timeouts, 0);
    assert_eq!(nr.fast_retransmits, 1);
    assert_eq!(nr.partial_ack_retransmits, 1);
    assert_eq!(nr.retransmitted_segments, 2);
    let reno = run(CongestionControlKind::Reno);
    assert!(
        reno.timeouts + reno.fast_retransmits >= 2,
        "Reno needs a second fast retransmit or a timeout: {reno:?}"
    );
}

#[test]
fn tahoe_collapses_to_one_segment_and_slow_starts_from_snd_una() {
    let mss = 1448;
    let ca = TcpConfig { congestion_control: CongestionControlKind::Tahoe, ..big_window() };
    let mut h = Harness::new(ca, big_window(), 10, 20, ms(20));
    h.drops.push((A_TO_B, 40));
    h.a.send(2_000_000);
    let mut before = 0;
    h.run_while(Time::from_secs_f64(60.0), |h| {
        if h.a.stats().fast_retransmits == 0 {
            before = h.a.bytes_in_flight();
        }
        h.a.stats().fast_retransmits == 0
    });
    // ssthresh = FlightSize/2, cwnd = 1 SMSS, no recovery state, only the head is outstanding
    // (go-back-N: snd_nxt went back to snd_una).
    assert_eq!(h.a.ssthresh(), before / 2);
    assert_eq!(h.a.cwnd(), mss);
    assert!(!h.a.in_recovery());
    h.transmit_all();
    assert_eq!(h.a.bytes_in_flight(), mss);
    // Further duplicate ACKs do not inflate the window (no fast recovery).
    let dups = h.a.stats().dup_acks_received;
    let una = h.a.unacked_bytes();
    h.run_while(Time::from_secs_f64(60.0), |h| h.a.unacked_bytes() == una);
    assert!(h.a.stats().dup_acks_received > dups, "duplicates kept arriving after the retransmission");
    // The retransmission's ACK: slow start, +min(acked, 2 SMSS).
    assert_eq!(h.a.cwnd(), 3 * mss);
    assert!(h.a.cwnd() < h.a.ssthresh());
    h.a.close();
    h.run_until(Time::from_secs_f64(60.0));
    let s = h.a.stats();
    assert_eq!((s.fast_retransmits, s.timeouts), (1, 0));
    assert_eq!(h.b.stats().bytes_read, 2_000_000);
}

#[test]
fn tahoe_two_drops_in_one_window_complete_with_one_fast_retransmit() {
    let ca = TcpConfig { congestion_control: CongestionControlKind::Tahoe, ..big_window() };
    let mut h = Harness::new(ca, big_window(), 10, 20, ms(20));
    h.drops.extend([(A_TO_B, 40), (A_TO_B, 44), (A_TO_B, 50)]);
    let h = transfer(h, 2_000_000, Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, 2_000_000);
    assert_eq!(h.a.state(), TcpState::Closed);
    let s = h.a.stats();
    // Go-back-N repairs the later holes; the `recover` check stops the duplicates that the
    // resent copies provoke from starting a second reduction.
    assert_eq!((s.fast_retransmits, s.timeouts), (1, 0), "{s:?}");
    assert!(s.retransmitted_segments >= 3);
}

/// Bottleneck backlog (including the packet in service) in full-sized segments.
fn backlog_segments(h: &Harness, rate: u64, seg_ip_len: u64) -> f64 {
    let tx = Duration::transmission(seg_ip_len, rate);
    h.link_free[A_TO_B].saturating_since(h.now).as_secs_f64() / tx.as_secs_f64()
}

#[test]
fn vegas_keeps_between_alpha_and_beta_segments_queued() {
    use cc::vegas::{VEGAS_ALPHA, VEGAS_BETA};
    let rate = 10_000_000;
    let ca = TcpConfig { congestion_control: CongestionControlKind::Vegas, ..big_window() };
    let mut h = Harness::new(ca, big_window(), 10, 20, ms(20));
    h.rate_bps = Some(rate);
    h.a.send(100_000_000);
    let mss = 1448u64;
    let seg = 20 + 32 + mss;
    let base = ms(40) + Duration::transmission(seg, rate) + Duration::transmission(52, rate);
    h.run_until(Time::from_secs_f64(8.0));
    let mut q = Vec::new();
    let mut w = Vec::new();
    while h.now < Time::from_secs_f64(20.0) {
        let t = h.now + ms(7);
        h.run_until(t);
        q.push(backlog_segments(&h, rate, seg));
        w.push(h.a.cwnd() as f64 / mss as f64);
    }
    let v = h.a.congestion_control().vegas().expect("vegas");
    let measured = v.base_rtt().expect("BaseRTT");
    // BaseRTT: propagation + serialization, plus at most one segment of delayed-ACK wait.
    assert!(measured >= base && measured <= base + Duration::transmission(seg, rate), "{measured}");
    let bdp = base.as_secs_f64() * rate as f64 / 8.0 / seg as f64;
    let mean = q.iter().sum::<f64>() / q.len() as f64;
    let (lo, hi) = q.iter().fold((f64::MAX, 0.0f64), |(l, u), &x| (l.min(x), u.max(x)));
    let band = (VEGAS_ALPHA - 1.0)..=(VEGAS_BETA + 1.0);
    // Tolerance ±1 segment: the backlog includes the segment in service and the ACK clock
    // releases segments in pairs (delayed ACKs), and Diff carries up to one segment of
    // delayed-ACK bias.
    assert!(band.contains(&lo) && band.contains(&hi), "queue {lo:.2}..{hi:.2}");
    assert!(band.contains(&mean), "mean queue {mean:.2}");
    for c in &w {
        let extra = c - bdp;
        assert!(band.contains(&extra), "cwnd {c:.1} vs BDP {bdp:.1}");
    }
    let s = h.a.stats();
    assert_eq!((s.retransmitted_segments, s.timeouts, s.fast_retransmits), (0, 0, 0));
}

#[test]
fn westwood_ssthresh_after_loss_is_bandwidth_estimate_times_rtt_min() {
    let rate = 10_000_000;
    // The default 64 KiB receive window keeps the queue short without losses.
    let ca = TcpConfig { congestion_control: CongestionControlKind::Westwood, ..Default::default() };
    let mut h = Harness::new(ca, TcpConfig::default(), 10, 20, ms(20));
    h.rate_bps = Some(rate);
    h.drops.push((A_TO_B, 3000));
    h.a.send(6_000_000);
    h.run_while(Time::from_secs_f64(60.0), |h| h.a.stats().fast_retransmits == 0);
    let w = h.a.congestion_control().westwood().expect("westwood");
    let bwe = w.bandwidth_estimate().expect("BWE");
    let rtt_min = w.rtt_min().expect("RTTmin");
    // Payload rate at the bottleneck: 1448 of every 1500 bytes.
    let goodput = rate as f64 / 8.0 * 1448.0 / 1500.0;
    assert!((bwe / goodput - 1.0).abs() < 0.03, "BWE {bwe:.0} B/s vs bottleneck {goodput:.0} B/s");
    let base = ms(40) + Duration::transmission(1500, rate) + Duration::transmission(52, rate);
    assert!(rtt_min >= base && rtt_min <= base + Duration::transmission(1500, rate), "{rtt_min}");
    // ssthresh = BWE·RTTmin (to the byte, as computed) ≈ the path's BDP.
    assert_eq!(h.a.ssthresh(), (bwe * rtt_min.as_secs_f64()) as u32);
    let bdp = goodput * base.as_secs_f64();
    assert!((h.a.ssthresh() as f64 / bdp - 1.0).abs() < 0.05, "ssthresh {} vs BDP {bdp:.0}", h.a.ssthresh());
    h.a.close();
    h.run_until(Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, 6_000_000);
    assert_eq!(h.a.stats().timeouts, 0);
}

#[test]
fn cubic_reduces_by_beta_and_remembers_w_max() {
    use cc::cubic::CUBIC_BETA;
    let mss = 1448;
    let ca = TcpConfig { congestion_control: CongestionControlKind::Cubic, ..big_window() };
    let mut h = Harness::new(ca, big_window(), 10, 20, ms(20));
    h.drops.push((A_TO_B, 100));
    h.a.send(3_000_000);
    let mut before = 0;
    h.run_while(Time::from_secs_f64(60.0), |h| {
        if h.a.stats().fast_retransmits == 0 {
            before = h.a.cwnd();
        }
        h.a.stats().fast_retransmits == 0
    });
    // RFC 9438 §4.6: ssthresh = β·cwnd; §4.7: W_max = cwnd at the loss (the first one).
    assert_eq!(h.a.ssthresh(), (CUBIC_BETA * before as f64) as u32);
    let c = h.a.congestion_control().cubic().expect("cubic");
    assert!((c.w_max() - before as f64 / mss as f64).abs() < 1e-9);
    h.run_while(Time::from_secs_f64(60.0), |h| h.a.in_recovery());
    assert_eq!(h.a.cwnd(), h.a.ssthresh(), "recovery ends at ssthresh");
    h.a.close();
    h.run_until(Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, 3_000_000);
    let s = h.a.stats();
    assert_eq!((s.fast_retransmits, s.timeouts), (1, 0));
    // A congestion-avoidance epoch began after recovery.
    assert!(h.a.congestion_control().cubic().and_then(|c| c.epoch_start()).is_some());
}

#[test]
fn tail_drop_rto_backoff_and_karn() {
    // No timestamps: RTT from Karn-timed segments. 10 segments; drop the last and its first
    // retransmission.
    let cfg = TcpConfig { timestamps: false, ..Default::default() };
    let mut h = Harness::new(cfg.clone(), cfg, 100, 200, ms(10));
    h.drops.extend([(A_TO_B, 10), (A_TO_B, 11)]);
    h.a.send(10 * 1460);
    h.run_while(Time::from_secs_f64(30.0), |h| h.b.stats().bytes_received < 10 * 1460);
    let s = h.a.stats().clone();
    assert_eq!(s.timeouts, 2);
    assert_eq!(s.fast_retransmits, 0);
    let last = h.data_sent_at(A_TO_B, 100u32 + 1 + 9 * 1460);
    assert_eq!(last.len(), 3);
    // The timer restarts at the last ACK of new data (RFC 6298 §5.3), which arrives after the
    // lost segment left: the first retransmission comes one RTO (the 200 ms floor) after that
    // ACK; the next one a doubled RTO later.
    assert!(last[1] - last[0] >= ms(200) && last[1] - last[0] <= ms(200) + ms(20) + ms(40));
    assert_eq!(last[2] - last[1], ms(400), "backoff doubles the RTO");
    // cwnd collapsed to one MSS then grew by the ACK; ssthresh from the flight.
    assert_eq!(h.a.ssthresh(), 2 * 1460);
    // Karn: the ACK of the retransmitted segment gave no sample, so the RTO stays backed off.
    let samples = s.rtt_samples;
    h.run_until(h.now + ms(5));
    assert_eq!(h.a.stats().rtt_samples, samples);
    assert_eq!(h.a.rto(), ms(800));
    // New data after the loss is timed again and restores the RTO.
    h.a.send(1460);
    h.run_until(h.now + Duration::from_secs(1));
    assert_eq!(h.a.stats().rtt_samples, samples + 1);
    assert_eq!(h.a.rto(), ms(200));
}

#[test]
fn rto_of_connection_follows_rfc6298() {
    // A path whose RTT changes: samples 20 ms (handshake), then 20 ms...; check SRTT/RTO
    // against the estimator fed by hand with the same samples.
    let cfg = TcpConfig { timestamps: false, min_rto: Duration::from_millis(1), ..Default::default() };
    let mut h = Harness::new(cfg.clone(), cfg, 1, 2, ms(30));
    h.run_until(Time::from_secs_f64(1.0));
    let mut e = rtt::RttEstimator::new(Duration::from_secs(1), ms(1), Duration::from_secs(60));
    e.sample(ms(60));
    assert_eq!(h.a.srtt(), e.srtt());
    assert_eq!(h.a.rto(), e.rto());
    assert_eq!(h.a.rto(), ms(180)); // 60 + 4 * 30
    h.a.send(1000);
    h.run_until(Time::from_secs_f64(2.0));
    e.sample(ms(60) + ms(40)); // the lone segment's ACK is delayed by 40 ms
    assert_eq!(h.a.srtt(), e.srtt());
    assert_eq!(h.a.rto(), e.rto());
}

#[test]
fn coarse_500ms_timer_retransmits_on_tick_boundaries() {
    // 4.4BSD Tahoe: 500 ms slow timer, 1 s minimum RTO, no timestamps; 10 ms each way, so every
    // RTT sample is 1 tick: SRTT = 1, RTTVAR = 1/2 tick, RTO = 1 + 4 × 1/2 = 3 ticks = 1.5 s.
    let cfg = TcpConfig {
        timestamps: false,
        congestion_control: CongestionControlKind::Tahoe,
        min_rto: Duration::from_secs(1),
        timer_tick: Some(ms(500)),
        ..Default::default()
    };
    let mut h = Harness::new(cfg.clone(), cfg, 100, 200, ms(10));
    h.drops.extend([(A_TO_B, 10), (A_TO_B, 11)]);
    h.a.send(10 * 1460);
    h.run_while(Time::from_secs_f64(30.0), |h| h.b.stats().bytes_received < 10 * 1460);
    assert_eq!(h.a.stats().timeouts, 2);
    let last = h.data_sent_at(A_TO_B, 100u32 + 1 + 9 * 1460);
    assert_eq!(last.len(), 3);
    assert!(last[0] < Time::from_secs_f64(0.5), "{last:?}");
    // Armed in the first tick, 3 ticks: fires at the 3rd boundary, 1.5 s (not 1.5 s after the
    // arming ACK, as a fine timer would).
    assert_eq!(last[1], Time::from_secs_f64(1.5));
    // Backed off to 6 ticks, armed on the 1.5 s boundary: fires at the 6th boundary after it.
    assert_eq!(last[2], Time::from_secs_f64(4.5));
    // Karn: the retransmission's ACK gives no sample; the RTO stays backed off twice (3 × 4 ticks).
    assert_eq!(h.a.rto(), Duration::from_secs(6));
    assert_eq!(h.a.srtt(), Some(ms(500)));
}

// ---------------------------------------------------------------------------- delayed ACK

#[test]
fn delayed_ack_every_second_segment_and_timer() {
    let mut h = Harness::default_pair(ms(10));
    h.run_until(Time::from_secs_f64(0.1));
    let acks_before = h.b.stats().acks_sent;
    // 20 full segments in the initial windows and beyond.
    h.a.send(20 * 1448);
    h.run_until(Time::from_secs_f64(2.0));
    let acks = h.b.stats().acks_sent - acks_before;
    assert_eq!(acks, 10, "one ACK per two segments");

    // A lone segment is ACKed when the 40 ms timer expires.
    let t = h.now;
    h.a.send(100);
    h.run_until(t + Duration::from_secs(1));
    let seg = h.sent(A_TO_B).filter(|s| s.at >= t && s.pkt.payload_len == 100).map(|s| s.at).next();
    let ack = h.sent(B_TO_A).filter(|s| s.at >= t).map(|s| s.at).next();
    assert_eq!(ack, seg.map(|s| s + ms(10) + ms(40)));

    // Delayed ACK off: one ACK per segment.
    let cb = TcpConfig { delayed_ack: false, ..Default::default() };
    let mut h = Harness::new(TcpConfig::default(), cb, 1, 2, ms(10));
    h.run_until(Time::from_secs_f64(0.1));
    let acks_before = h.b.stats().acks_sent;
    h.a.send(20 * 1448);
    h.run_until(Time::from_secs_f64(2.0));
    assert_eq!(h.b.stats().acks_sent - acks_before, 20);
}

#[test]
fn ack_every_m_segments_and_slow_start_still_doubles() {
    // Seed 002's burst transmission: the receiver ACKs every m = 5 full segments.
    // (An initial window of 10 keeps every flight a multiple of 5, so no ACK waits for the timer.)
    let five = TcpConfig { ack_every: 5, ..big_window() };
    let wide = TcpConfig { initial_cwnd: 10, ..five.clone() };
    let mut h = Harness::new(wide.clone(), wide, 1, 2, ms(10));
    h.run_until(Time::from_secs_f64(0.1));
    let acks_before = h.b.stats().acks_sent;
    h.a.send(50 * 1448);
    h.run_until(Time::from_secs_f64(2.0));
    let n_acks = h.b.stats().acks_sent - acks_before;
    // Every ACK of the transfer covers five segments (cumulative jumps of 5 × 1448 bytes).
    let jumps: Vec<u32> = h
        .sent(B_TO_A)
        .filter(|s| s.pkt.payload_len == 0)
        .map(|s| hdr(&s.pkt).ack)
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| w[1].wrapping_sub(w[0]))
        .filter(|&j| j > 0)
        .collect();
    // (The first data segment after the handshake is ACKed at once, as with m = 2.)
    assert_eq!(jumps[0], 1448, "{jumps:?}");
    assert!(jumps[1..jumps.len() - 1].iter().all(|&j| j == 5 * 1448), "{jumps:?}");
    assert_eq!(n_acks, 11, "one ACK per five segments: {jumps:?}");

    // The sender's byte counting takes L = 5 SMSS: slow start doubles per RTT with m = 5
    // (with L = 2 it would grow by 2/5 per ACK, ×1.4 per RTT).
    let mut h = Harness::new(five.clone(), five, 10, 20, ms(50));
    h.a.send(50_000_000);
    let mut cw = Vec::new();
    for k in 1..=6 {
        h.run_until(Time::ZERO + ms(100 * k + 50));
        cw.push(h.a.cwnd() / 1448);
    }
    for w in cw.windows(2).skip(2) {
        assert!(w[1] >= 2 * w[0] - 1 && w[1] <= 2 * w[0] + 1, "slow start doubles per RTT with m = 5: {cw:?}");
    }
    // A lone segment is still ACKed by the timer; m = 1 ACKs every segment.
    let one = TcpConfig { ack_every: 1, ..Default::default() };
    let mut h = Harness::new(one.clone(), one, 1, 2, ms(10));
    h.run_until(Time::from_secs_f64(0.1));
    let acks_before = h.b.stats().acks_sent;
    h.a.send(20 * 1448);
    h.run_until(Time::from_secs_f64(2.0));
    assert_eq!(h.b.stats().acks_sent - acks_before, 20);
}

// ---------------------------------------------------------------------------- robustness

#[test]
fn sequence_wraparound() {
    let bytes = 1_000_000;
    let h = Harness::new(TcpConfig::default(), TcpConfig::default(), u32::MAX - 1000, u32::MAX - 5, ms(10));
    let h = transfer(h, bytes, Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, bytes);
    assert_eq!(h.a.state(), TcpState::Closed);
    assert_eq!(h.b.state(), TcpState::Closed);
    // And with a loss right at the wrap point.
    let mut h = Harness::new(TcpConfig::default(), TcpConfig::default(), u32::MAX - 1000, 0, ms(10));
    h.drops.extend([(A_TO_B, 1), (A_TO_B, 8)]);
    let h = transfer(h, bytes, Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, bytes);
    assert_eq!(h.a.state(), TcpState::Closed);
}

#[test]
fn deterministic_packet_sequence() {
    let run = || {
        let mut h = Harness::new(TcpConfig::default(), TcpConfig::default(), 77, 88, ms(7));
        h.rate_bps = Some(10_000_000);
        h.drops.extend([(A_TO_B, 30), (A_TO_B, 31), (B_TO_A, 5)]);
        transfer(h, 500_000, Time::from_secs_f64(60.0)).log
    };
    let a = run();
    let b = run();
    assert!(a.len() > 300);
    assert_eq!(a, b);
}

#[test]
fn bottleneck_transfer_with_random_losses_completes() {
    // A pseudo-random drop pattern in both directions over a 5 Mb/s bottleneck.
    for kind in CongestionControlKind::ALL {
        let ca = TcpConfig { congestion_control: kind, ..Default::default() };
        let mut h = Harness::new(ca, TcpConfig::default(), 123, 456, ms(15));
        h.rate_bps = Some(5_000_000);
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for n in 1..2000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match (x % 50, x % 97) {
                (0, _) => h.drops.push((A_TO_B, n)),
                (_, 1) => h.drops.push((B_TO_A, n)),
                _ => {}
            }
        }
        let h = transfer(h, 1_500_000, Time::from_secs_f64(300.0));
        assert_eq!(h.b.stats().bytes_read, 1_500_000, "{kind:?}");
        assert_eq!(h.a.state(), TcpState::Closed, "{kind:?}");
        assert_eq!(h.b.state(), TcpState::Closed, "{kind:?}");
    }
}

#[test]
fn garbage_segments_do_not_panic() {
    let mut h = Harness::default_pair(ms(1));
    h.a.send(10_000);
    h.run_until(Time::from_secs_f64(1.0));
    let mut x: u32 = 12345;
    for i in 0..5000u32 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let hh = TcpHeader {
            src_port: if i % 3 == 0 { 1 } else { ep_a().port },
            dst_port: ep_b().port,
            seq: x,
            ack: x.rotate_left(7),
            flags: TcpFlags((x >> 3) as u8 & !TcpFlags::RST.0),
            window: (x >> 9) as u16,
            options: TcpOptions {
                mss: Some((x >> 5) as u16),
                window_scale: Some((x >> 11) as u8),
                timestamps: Some(Timestamps { tsval: x, tsecr: x ^ 0x5555 }),
                ..Default::default()
            },
        };
        let p = Packet::tcp(ep_a().addr, ep_b().addr, hh, x % 3000);
        h.b.handle_segment(h.now, &p);
        while h.b.poll_transmit(h.now).is_some() {}
    }
    // Still a working connection.
    assert_eq!(h.b.state(), TcpState::Established);
}

/// Throughput of the model itself: 100 MB over a 100 Mb/s, 20 ms RTT path, FIFO queues.
/// Run with `cargo test -p wattlab-core --release -- --ignored tcp_model_speed --nocapture`.
#[test]
#[ignore]
fn tcp_model_speed() {
    use std::collections::VecDeque;
    let cfg = TcpConfig { recv_buffer: 4 << 20, window_scale: Some(7), ..Default::default() };
    let mut a = TcpConnection::connect(cfg.clone(), ep_a(), ep_b(), 1, Time::ZERO);
    let mut b = TcpConnection::listen(cfg, ep_b(), 2);
    let bytes = 100_000_000u64;
    a.send(bytes);
    a.close();
    let rate = 100_000_000u64;
    let delay = ms(10);
    let mut q: [VecDeque<(Time, Packet)>; 2] = [VecDeque::new(), VecDeque::new()];
    let mut free = [Time::ZERO; 2];
    let mut now = Time::ZERO;
    let mut packets = 0u64;
    let start = std::time::Instant::now();
    loop {
        for (dir, c) in [(0usize, &mut a), (1, &mut b)] {
            while let Some(p) = c.poll_transmit(now) {
                let t = free[dir].max(now) + Duration::transmission(p.ip_len() as u64, rate);
                free[dir] = t;
                q[dir].push_back((t + delay, p));
                packets += 1;
            }
        }
        let n = b.readable();
        b.read(n);
        while b.poll_event().is_some() {
            if b.state() == TcpState::CloseWait {
                b.close();
            }
        }
        let next = [q[0].front().map(|x| x.0), q[1].front().map(|x| x.0), a.poll_timeout(), b.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        let Some(t) = next else { break };
        now = t;
        if let Some(&(t0, p)) = q[0].front() {
            if t0 <= now {
                q[0].pop_front();
                b.handle_segment(now, &p);
            }
        }
        if let Some(&(t1, p)) = q[1].front() {
            if t1 <= now {
                q[1].pop_front();
                a.handle_segment(now, &p);
            }
        }
        if a.poll_timeout().is_some_and(|x| x <= now) {
            a.handle_timeout(now);
        }
        if b.poll_timeout().is_some_and(|x| x <= now) {
            b.handle_timeout(now);
        }
    }
    let wall = start.elapsed();
    assert_eq!(b.stats().bytes_read, bytes);
    println!(
        "{packets} packets, simulated {:.3} s, wall {:.3} s, {:.0} ns/packet",
        now.as_secs_f64(),
        wall.as_secs_f64(),
        wall.as_nanos() as f64 / packets as f64
    );
}

// ---------------------------------------------------------------------------- SACK

/// Big-window config offering SACK-permitted.
fn sack_cfg() -> TcpConfig {
    TcpConfig { sack: true, ..big_window() }
}

/// Two SACK-capable endpoints with big windows.
fn sack_pair(delay: Duration) -> Harness {
    Harness::new(sack_cfg(), sack_cfg(), 10, 20, delay)
}

/// The n-th data segment a sent (1-based, as the Harness counts drops): (seq, len).
fn nth_data(h: &Harness, n: usize) -> (u32, u32) {
    let s = h.sent(A_TO_B).filter(|s| s.pkt.payload_len > 0).nth(n - 1).expect("segment");
    (hdr(&s.pkt).seq, s.pkt.payload_len)
}

/// SACK blocks of b's ACKs, in order, for ACKs carrying any.
fn sack_acks(h: &Harness) -> Vec<Vec<(u32, u32)>> {
    h.sent(B_TO_A)
        .map(|s| hdr(&s.pkt).options.sack_blocks().iter().map(|b| (b.left, b.right)).collect::<Vec<_>>())
        .filter(|v| !v.is_empty())
        .collect()
}

#[test]
fn sack_receiver_one_hole_one_block() {
    let mut h = sack_pair(ms(10));
    h.drops.push((A_TO_B, 20));
    h.a.send(200_000);
    h.run_until(Time::from_secs_f64(5.0));
    assert!(h.a.sack_permitted() && h.b.sack_permitted());
    assert_eq!(h.b.stats().bytes_read, 200_000);
    let (lost, len) = nth_data(&h, 20);
    let acks = sack_acks(&h);
    // Segments 21, 22, 23 arrive after the hole: one growing block starting right after it.
    assert!(acks.len() >= 3, "{acks:?}");
    for (k, blocks) in acks.iter().take(3).enumerate() {
        assert_eq!(blocks, &vec![(lost + len, lost + len * (k as u32 + 2))]);
    }
    // The ACKs carrying SACK blocks acknowledge the hole's start.
    let first = h.sent(B_TO_A).find(|s| s.pkt.tcp_header().unwrap().options.sack_len > 0).unwrap();
    assert_eq!(hdr(&first.pkt).ack, lost);
    assert_eq!(h.b.stats().sack_blocks_sent, acks.iter().map(|v| v.len() as u64).sum::<u64>());
}

#[test]
fn sack_receiver_two_holes_most_recent_first() {
    let mut h = sack_pair(ms(10));
    h.drops.extend([(A_TO_B, 20), (A_TO_B, 23)]);
    h.a.send(200_000);
    h.run_until(Time::from_secs_f64(5.0));
    assert_eq!(h.b.stats().bytes_read, 200_000);
    let (s20, len) = nth_data(&h, 20);
    let (s23, _) = nth_data(&h, 23);
    let acks = sack_acks(&h);
    // 21, 22 arrive: one block; 24 arrives: two blocks, the one holding 24 first.
    assert_eq!(acks[0], vec![(s20 + len, s20 + 2 * len)]);
    assert_eq!(acks[1], vec![(s20 + len, s20 + 3 * len)]);
    assert_eq!(acks[2], vec![(s23 + len, s23 + 2 * len), (s20 + len, s23)]);
}

#[test]
fn sack_blocks_limited_by_option_space_and_round_trip_on_the_wire() {
    for ts in [true, false] {
        let cfg = TcpConfig { timestamps: ts, ..sack_cfg() };
        let mut h = Harness::new(cfg.clone(), cfg, 10, 20, ms(10));
        // Five holes in one flight.
        h.drops.extend([20, 22, 24, 26, 28].map(|n| (A_TO_B, n)));
        h.a.send(300_000);
        h.run_until(Time::from_secs_f64(10.0));
        assert_eq!(h.b.stats().bytes_read, 300_000);
        let limit = if ts { 3 } else { 4 };
        let acks: Vec<Packet> =
            h.sent(B_TO_A).filter(|s| hdr(&s.pkt).options.sack_len > 0).map(|s| s.pkt).collect();
        let max = acks.iter().map(|p| hdr(p).options.sack_len as usize).max().unwrap();
        assert_eq!(max, limit, "timestamps {ts}");
        // Once 29 arrived: the block holding it first, then the earlier ones newest first.
        let s29 = nth_data(&h, 29).0;
        let full = acks.iter().find(|p| hdr(p).options.sack[0].left == s29).unwrap();
        let lefts: Vec<u32> = hdr(full).options.sack_blocks().iter().map(|b| b.left).collect();
        let expect: Vec<u32> = [29, 27, 25, 23].iter().take(limit).map(|&n| nth_data(&h, n).0).collect();
        assert_eq!(lefts, expect, "timestamps {ts}");
        for p in &acks {
            assert!(hdr(p).options.len() <= 40);
            let mut buf = Vec::new();
            crate::wire::encode_ipv4(p, &mut buf).unwrap();
            assert_eq!(buf.len() as u32, p.ip_len());
            let back = crate::wire::decode_ipv4(&buf).unwrap();
            assert_eq!(hdr(&back).options.sack_blocks(), hdr(p).options.sack_blocks());
            assert_eq!(&back, p);
        }
    }
}

/// Times (relative to the first retransmission) of a's retransmissions, and recovery length.
struct RecoveryRun {
    stats: TcpStats,
    retransmit_times: Vec<Duration>,
    /// From the first retransmission until the ACK covering the last hole (all data before
    /// the losses delivered in order).
    repaired_after: Duration,
    srtt: Duration,
    ssthresh_after: u32,
}

fn three_holes(ca: TcpConfig, cb: TcpConfig) -> RecoveryRun {
    let mut h = Harness::new(ca, cb, 10, 20, ms(20));
    h.rate_bps = Some(20_000_000);
    h.drops.extend([(A_TO_B, 60), (A_TO_B, 64), (A_TO_B, 68)]);
    h.a.send(3_000_000);
    h.run_while(Time::from_secs_f64(60.0), |h| h.a.stats().retransmitted_segments == 0);
    let srtt = h.a.srtt().unwrap();
    let (s69, _) = nth_data(&h, 69);
    h.run_while(Time::from_secs_f64(60.0), |h| {
        let acked = h.sent(B_TO_A).any(|s| seq::ge(hdr(&s.pkt).ack, s69));
        !acked
    });
    let repaired = h.now;
    let ssthresh_after = h.a.ssthresh();
    h.a.close();
    h.run_until(Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, 3_000_000);
    assert_eq!(h.a.state(), TcpState::Closed);
    let mut seen = std::collections::HashSet::new();
    let times: Vec<Time> = h
        .sent(A_TO_B)
        .filter(|s| s.pkt.payload_len > 0 && !seen.insert(hdr(&s.pkt).seq))
        .map(|s| s.at)
        .collect();
    let t0 = times[0];
    RecoveryRun {
        stats: h.a.stats().clone(),
        retransmit_times: times.iter().map(|&t| t - t0).collect(),
        repaired_after: repaired - t0,
        srtt,
        ssthresh_after,
    }
}

#[test]
fn sack_repairs_several_holes_in_one_rtt() {
    let sack = three_holes(sack_cfg(), sack_cfg());
    let s = &sack.stats;
    assert_eq!((s.timeouts, s.fast_retransmits, s.sack_recoveries), (0, 1, 1), "{s:?}");
    assert_eq!(s.retransmitted_segments, 3, "{s:?}");
    assert_eq!(s.sack_retransmits, 3);
    assert_eq!(sack.retransmit_times.len(), 3);
    assert!(
        sack.retransmit_times[2] <= sack.srtt,
        "all three holes resent within one RTT: {:?} (srtt {:?})",
        sack.retransmit_times,
        sack.srtt
    );

    // Without SACK, NewReno repairs one hole per RTT.
    let nr = three_holes(big_window(), big_window());
    assert_eq!((nr.stats.timeouts, nr.stats.fast_retransmits, nr.stats.partial_ack_retransmits), (0, 1, 2));
    assert_eq!(nr.stats.sack_recoveries, 0);
    assert_eq!(nr.ssthresh_after, sack.ssthresh_after, "the same single window reduction");
    // NewReno resends hole k one (base) RTT after hole k−1; SACK resends all of them once
    // pipe has fallen to the halved cwnd, about half an RTT after entering recovery (RFC 6675
    // is that conservative) — so with three holes SACK ends ≈ 2 − ½ RTTs earlier.
    let base_rtt = ms(40);
    assert!(nr.repaired_after >= base_rtt.saturating_mul(2), "{:?}", nr.repaired_after);
    assert!(
        nr.repaired_after >= sack.repaired_after + ms(60), // 1.5 base RTTs
        "SACK repaired all holes about 2 RTT earlier: SACK {:?}, NewReno {:?}",
        sack.repaired_after,
        nr.repaired_after,
    );

    // SACK recovery whatever the window arithmetic: Reno with SACK recovers like NewReno with SACK.
    let reno_sack = TcpConfig { congestion_control: CongestionControlKind::Reno, ..sack_cfg() };
    let rs = three_holes(reno_sack, sack_cfg());
    assert_eq!((rs.stats.timeouts, rs.stats.sack_recoveries, rs.stats.retransmitted_segments), (0, 1, 3));
    assert_eq!(rs.repaired_after, sack.repaired_after);

    // Reno without SACK: a second reduction or a timeout.
    let reno_cfg = TcpConfig { congestion_control: CongestionControlKind::Reno, ..big_window() };
    let reno = three_holes(reno_cfg, big_window());
    assert!(reno.stats.timeouts + reno.stats.fast_retransmits >= 2, "{:?}", reno.stats);
    assert!(reno.repaired_after > sack.repaired_after);
}

/// Pseudo-random drops of 1 in `one_in` of a's data segments plus 1 % of b's ACKs, 5 Mb/s;
/// returns a's and b's counters and how many data segments were dropped.
fn random_loss_run(ca: TcpConfig, cb: TcpConfig, one_in: u64) -> (TcpStats, TcpStats, u64) {
    let mut h = Harness::new(ca, cb, 123, 456, ms(15));
    h.rate_bps = Some(5_000_000);
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for n in 1..4000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x.is_multiple_of(one_in) {
            h.drops.push((A_TO_B, n));
        }
        if x % 97 == 3 {
            h.drops.push((B_TO_A, n));
        }
    }
    let h = transfer(h, 2_000_000, Time::from_secs_f64(300.0));
    assert_eq!(h.b.stats().bytes_read, 2_000_000);
    assert_eq!(h.b.stats().bytes_received, 2_000_000);
    assert_eq!(h.a.state(), TcpState::Closed);
    assert_eq!(h.b.state(), TcpState::Closed);
    let dropped = h.sent(A_TO_B).filter(|s| s.dropped).count() as u64;
    (h.a.stats().clone(), h.b.stats().clone(), dropped)
}

#[test]
fn sack_random_losses_complete_and_retransmit_little() {
    // 2 % (the brief's case) and 10 % data loss; NewReno without SACK falls back to go-back-N
    // after its timeouts and resends data the receiver already holds.
    for one_in in [50, 10] {
        let (sack, sack_b, dropped) = random_loss_run(sack_cfg(), sack_cfg(), one_in);
        let (nr, nr_b, _) = random_loss_run(big_window(), big_window(), one_in);
        assert!(sack.sack_recoveries > 0 && sack_b.sack_blocks_sent > 0);
        // Each lost segment is resent about once (a lost retransmission needs another), and
        // nothing the receiver already held is sent again.
        assert!(
            sack.retransmitted_segments <= dropped + dropped / 10,
            "{} retransmissions for {dropped} drops: {sack:?}",
            sack.retransmitted_segments
        );
        assert_eq!(sack_b.duplicate_bytes_received, 0, "1 in {one_in}");
        assert!(sack.bytes_retransmitted <= nr.bytes_retransmitted, "1 in {one_in}: {sack:?} {nr:?}");
        if one_in == 10 {
            assert!(nr_b.duplicate_bytes_received > 0, "go-back-N resent held data: {nr_b:?}");
            assert!(sack.bytes_retransmitted < nr.bytes_retransmitted);
            assert!(sack.timeouts < nr.timeouts);
        }
    }
}

#[test]
fn sack_rto_resends_only_unsacked_data() {
    // Three holes, and the retransmission of the second is lost too: SACK recovery cannot
    // see that (no lost-retransmission detection), so the RTO fires; afterwards only the
    // still-missing segment is resent, not the SACKed rest of the window.
    let mut h = sack_pair(ms(20));
    h.rate_bps = Some(20_000_000);
    h.drops.extend([(A_TO_B, 60), (A_TO_B, 64), (A_TO_B, 68)]);
    // Find the data-segment number of the second retransmission by a dry run.
    let mut dry = sack_pair(ms(20));
    dry.rate_bps = Some(20_000_000);
    dry.drops = h.drops.clone();
    let dry = transfer(dry, 3_000_000, Time::from_secs_f64(60.0));
    let mut seen = std::collections::HashSet::new();
    let second_rtx = dry
        .sent(A_TO_B)
        .filter(|s| s.pkt.payload_len > 0)
        .enumerate()
        .filter(|(_, s)| !seen.insert(hdr(&s.pkt).seq))
        .nth(1)
        .map(|(i, _)| i as u64 + 1)
        .unwrap();
    h.drops.push((A_TO_B, second_rtx));
    let h = transfer(h, 3_000_000, Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, 3_000_000);
    let s = h.a.stats();
    assert_eq!(s.timeouts, 1, "{s:?}");
    assert_eq!(s.sack_recoveries, 1, "no new recovery before RecoveryPoint is ACKed: {s:?}");
    assert_eq!(s.retransmitted_segments, 4, "three holes + the lost retransmission once: {s:?}");
    assert_eq!(h.b.stats().duplicate_bytes_received, 0);
}

#[test]
fn no_sack_unless_both_offer_it() {
    // a offers SACK, b does not: nothing changes but the SYN's SACK-permitted option (which
    // rides in the timestamps' padding, so even the lengths agree).
    let run = |ca: TcpConfig| {
        let mut h = Harness::new(ca, big_window(), 10, 20, ms(20));
        h.rate_bps = Some(20_000_000);
        h.drops.extend([(A_TO_B, 60), (A_TO_B, 64), (A_TO_B, 68), (B_TO_A, 3)]);
        transfer(h, 3_000_000, Time::from_secs_f64(60.0))
    };
    let with = run(sack_cfg());
    let without = run(big_window());
    assert!(!with.a.sack_permitted() && !with.b.sack_permitted());
    assert_eq!(with.a.stats(), without.a.stats());
    assert_eq!(with.b.stats(), without.b.stats());
    assert_eq!(with.a.stats().sack_recoveries + with.b.stats().sack_blocks_sent, 0);
    let strip = |h: &Harness| {
        h.log
            .iter()
            .map(|s| {
                let mut s = *s;
                s.pkt.tcp_header_mut().unwrap().options.sack_permitted = false;
                s
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&with), strip(&without));
}

#[test]
fn sack_garbage_blocks_do_not_panic() {
    // Random ACKs near snd_una with random SACK blocks (some valid, some wrapped, some bogus)
    // hit a SACK sender with data in flight; transmission stays bounded.
    let mut h = sack_pair(ms(5));
    h.rate_bps = Some(10_000_000);
    h.a.send(5_000_000);
    h.run_until(Time::from_secs_f64(0.3));
    assert!(h.a.bytes_in_flight() > 100_000);
    let a_isn = 10u32;
    let mut x: u32 = 99;
    for i in 0..3000u32 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let una = a_isn.wrapping_add(1 + (5_000_000 - h.a.unacked_bytes()) as u32);
        let base = una.wrapping_add(x % 200_000);
        let mut o = TcpOptions { timestamps: Some(Timestamps { tsval: i, tsecr: i }), ..Default::default() };
        for k in 0..(x % 5).min(4) as usize {
            let l = base.wrapping_add((k as u32) * (x >> 20));
            o.sack[k] = crate::packet::SackBlock { left: l, right: l.wrapping_add(x >> (k + 8)) };
        }
        o.sack_len = (x % 5).min(4) as u8;
        let hh = TcpHeader {
            src_port: ep_b().port,
            dst_port: ep_a().port,
            seq: 21,
            ack: if i % 7 == 0 { x } else { una },
            flags: TcpFlags::ACK,
            window: 60000,
            options: o,
        };
        let p = Packet::tcp(ep_b().addr, ep_a().addr, hh, 0);
        h.a.handle_segment(h.now, &p);
        let mut n = 0;
        while h.a.poll_transmit(h.now).is_some() {
            n += 1;
            assert!(n < 10_000, "transmission must stay bounded");
        }
        if i % 100 == 0 {
            h.now += ms(50);
            h.a.handle_timeout(h.now);
        }
    }
    assert!(h.a.stats().sack_recoveries > 0 && h.a.stats().timeouts > 0, "{:?}", h.a.stats());
}

// ---------------------------------------------------------------------------- Vegas §3.1

/// A slow hop (1 Mb/s, 20 ms each way) to a receiver offering 3 segments: at most two
/// duplicate ACKs per loss, the regime where Vegas's fine-grained check matters.
fn small_window_pair(kind: CongestionControlKind) -> Harness {
    let ca = TcpConfig { congestion_control: kind, ..Default::default() };
    let cb = TcpConfig { recv_buffer: 3 * 1448, ..Default::default() };
    let mut h = Harness::new(ca, cb, 10, 20, ms(20));
    h.rate_bps = Some(1_000_000);
    h
}

/// Send times of a's retransmitted data segments (sequence numbers seen before).
fn retransmission_times(h: &Harness) -> Vec<Time> {
    let mut seen = std::collections::HashSet::new();
    h.sent(A_TO_B)
        .filter(|s| s.pkt.payload_len > 0)
        .filter(|s| !seen.insert(hdr(&s.pkt).seq))
        .map(|s| s.at)
        .collect()
}

#[test]
fn vegas_fine_grained_check_retransmits_on_first_dupacks_where_newreno_times_out() {
    let mut h = small_window_pair(CongestionControlKind::Vegas);
    h.drops.push((A_TO_B, 30));
    let h = transfer(h, 200_000, Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, 200_000);
    let s = h.a.stats();
    let v = h.a.congestion_control().vegas().expect("vegas");
    assert_eq!((s.timeouts, s.retransmitted_segments, v.early_retransmits()), (0, 1, 1), "{s:?}");
    assert!(s.dup_acks_received <= 2, "retransmitted before a third duplicate: {s:?}");
    // The retransmission left well before an RTO (≥ 200 ms) could have fired.
    let lost_at = h.sent(A_TO_B).filter(|s| s.dropped).map(|s| s.at).next().expect("drop");
    let rtx = retransmission_times(&h)[0];
    assert!(rtx.saturating_since(lost_at) < ms(150), "{}", rtx.saturating_since(lost_at));
    let fine = v.fine_timeout().expect("fine timeout");
    assert!(fine < ms(150), "{fine}");

    // NewReno in the same setup never sees three duplicates: it waits for the RTO.
    let mut h = small_window_pair(CongestionControlKind::NewReno);
    h.drops.push((A_TO_B, 30));
    let h = transfer(h, 200_000, Time::from_secs_f64(60.0));
    assert_eq!(h.b.stats().bytes_read, 200_000);
    let s = h.a.stats();
    assert_eq!((s.timeouts, s.fast_retransmits), (1, 0), "{s:?}");
}

/// Run `h` to completion, recording every change of a's ssthresh.
fn run_recording_ssthresh(mut h: Harness, bytes: u64) -> (Harness, Vec<u32>) {
    h.a.send(bytes);
    h.a.close();
    let mut changes = Vec::new();
    let mut last = h.a.ssthresh();
    h.run_while(Time::from_secs_f64(60.0), |h| {
        if h.a.ssthresh() != last {
            last = h.a.ssthresh();
            changes.push(last);
        }
        true
    });
    h.run_until(Time::from_secs_f64(60.0));
    (h, changes)
}

#[test]
fn vegas_second_loss_in_window_is_resent_on_the_first_new_ack() {
    let mut h = small_window_pair(CongestionControlKind::Vegas);
    h.drops.extend([(A_TO_B, 30), (A_TO_B, 31)]);
    let (h, _) = run_recording_ssthresh(h, 200_000);
    assert_eq!(h.b.stats().bytes_read, 200_000);
    let s = h.a.stats();
    assert_eq!((s.timeouts, s.retransmitted_segments, s.fast_retransmits), (0, 2, 1), "{s:?}");
    // The first went on the one duplicate ACK segment 32 provoked; the second on the new ACK
    // that the first retransmission's arrival produced (NewReno's partial-ACK resend, which
    // Vegas's "first or second non-duplicate ACK" check defers to).
    assert_eq!(s.dup_acks_received, 1, "{s:?}");
    assert_eq!(s.partial_ack_retransmits, 1, "{s:?}");
    let t = retransmission_times(&h);
    let first_ack_after = h
        .sent(B_TO_A)
        .filter(|x| x.at > t[0] && x.pkt.payload_len == 0)
        .map(|x| x.at + h.delay)
        .next()
        .expect("ack");
    assert!(t[1] >= first_ack_after && t[1] < first_ack_after + ms(1), "{t:?} {first_ack_after:?}");
}

#[test]
fn vegas_reduces_once_per_window_of_losses_by_a_quarter() {
    // A larger window (16 segments) so a quarter is visible; three losses in one window.
    let ca = TcpConfig { congestion_control: CongestionControlKind::Vegas, ..Default::default() };
    let cb = TcpConfig { recv_buffer: 16 * 1448, ..Default::default() };
    let mut h = Harness::new(ca, cb, 10, 20, ms(20));
    h.rate_bps = Some(1_000_000);
    h.drops.extend([(A_TO_B, 60), (A_TO_B, 62), (A_TO_B, 64)]);
    let (h, changes) = run_recording_ssthresh(h, 300_000);
    assert_eq!(h.b.stats().bytes_read, 300_000);
    let s = h.a.stats();
    assert_eq!((s.timeouts, s.retransmitted_segments), (0, 3), "{s:?}");
    // Slow-start exit (2 SMSS) then exactly one loss reduction for the three losses.
    let v = h.a.congestion_control().vegas().expect("vegas");
    assert_eq!(s.fast_retransmits, 1, "{s:?} {changes:?}");
    let loss_changes: Vec<_> = changes.iter().filter(|&&c| c != 2 * 1448).collect();
    assert!(loss_changes.len() <= 1, "{changes:?}");
    assert!(v.early_retransmits() <= 1, "{changes:?}");
}

/// Vegas over a 1 Mb/s hop with about 3 % random data loss (and some ACK loss).
fn vegas_random_loss(kind: CongestionControlKind) -> TcpStats {
    let ca = TcpConfig { congestion_control: kind, ..Default::default() };
    let mut h = Harness::new(ca, TcpConfig::default(), 123, 456, ms(15));
    h.rate_bps = Some(1_000_000);
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for n in 1..2000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x.is_multiple_of(33) {
            h.drops.push((A_TO_B, n));
        }
        if x % 97 == 3 {
            h.drops.push((B_TO_A, n));
        }
    }
    let h = transfer(h, 1_000_000, Time::from_secs_f64(600.0));
    assert_eq!(h.b.stats().bytes_read, 1_000_000);
    assert_eq!(h.a.state(), TcpState::Closed);
    h.a.stats().clone()
}

#[test]
fn vegas_random_loss_needs_few_timeouts() {
    let v = vegas_random_loss(CongestionControlKind::Vegas);
    let nr = vegas_random_loss(CongestionControlKind::NewReno);
    // Measured: Vegas 3 timeouts / 18 fast retransmits, NewReno 3 / 17 (64 KiB window).
    assert!(v.timeouts <= nr.timeouts, "vegas {v:?}\nnewreno {nr:?}");
}

// ---------------------------------------------------------------------------- Linux's recovery

mod linux;
mod ooo;
mod slowstart;
mod rack;
mod rto_rearm;
mod linux_timing;
mod vegas_ns2;
