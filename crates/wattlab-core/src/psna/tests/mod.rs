//! PSNA tests: a tiny event loop joining a mobile and a daemon over a lossy fixed-delay WLAN
//! and a synthetic slow fixed host, then end-to-end transfers, the ARQ property and errors.

mod arq;
mod e2e;
mod errors;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::Ipv4Addr;

use super::*;
use crate::engine::Engine;
use crate::packet::Endpoint;
use crate::time::{Duration, Time};

/// xorshift64: deterministic randomness for the seeded loops.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

pub const MOBILE: Endpoint = Endpoint::new(Ipv4Addr::new(10, 0, 0, 1), 4000);
/// The daemon's address (where the mobile's datagrams come from, as the mobile sees it).
pub const DAEMON: Endpoint = Endpoint::new(Ipv4Addr::new(10, 0, 0, 2), 7300);
pub const FH: Endpoint = Endpoint::new(Ipv4Addr::new(10, 0, 0, 3), 21);

/// The object's byte at `i` (deterministic content to check integrity).
pub fn byte_at(i: u64) -> u8 {
    (i.wrapping_mul(31) ^ (i >> 8)).wrapping_add(7) as u8
}

pub fn object(len: u64) -> Vec<u8> {
    (0..len).map(byte_at).collect()
}

/// The WLAN between mobile and AP: fixed delay, serialization at `rate_bps`, losses,
/// duplicates and extra random delay (which reorders).
#[derive(Clone, Copy, Debug)]
pub struct Wlan {
    pub delay: Duration,
    pub rate_bps: u64,
    pub loss: f64,
    pub dup: f64,
    pub jitter: Duration,
}

impl Default for Wlan {
    fn default() -> Wlan {
        Wlan { delay: Duration::from_millis(2), rate_bps: 1_500_000, loss: 0.01, dup: 0.0, jitter: Duration::ZERO }
    }
}

/// The synthetic fixed host: a byte source (read) or sink (send) at `rate` bytes/s after
/// `rate_after` bytes (before them `first_rate`), segments of 1460 bytes.
#[derive(Clone, Copy, Debug)]
pub struct FixedHost {
    pub connect: Duration,
    pub first_rate: f64,
    pub rate_after: u64,
    pub rate: f64,
    /// Close (EOF) after the last byte (a read of unknown size needs it).
    pub close_at_end: bool,
    /// Reset the connection after this many bytes.
    pub abort_after: Option<u64>,
    /// Never connect: the connection attempt fails after `connect`.
    pub unreachable: bool,
}

impl Default for FixedHost {
    fn default() -> FixedHost {
        FixedHost {
            connect: Duration::from_millis(600),
            first_rate: 4000.0,
            rate_after: 0,
            rate: 4000.0,
            close_at_end: false,
            abort_after: None,
            unreachable: false,
        }
    }
}

#[derive(Clone, Debug)]
enum Ev {
    ToDaemon(Vec<u8>),
    ToMobile(Vec<u8>),
    FhConnect(FhId),
    FhSegment(FhId, u64, u64),
    FhAbort(FhId),
    FhClose(FhId),
    FhPump(FhId),
    FhAck(FhId, u64),
}

/// Everything the loop recorded.
#[derive(Debug, Default)]
pub struct Record {
    pub mobile_events: Vec<(Time, MobileEvent)>,
    pub daemon_events: Vec<DaemonEvent>,
    pub radio: Vec<RadioCommand>,
    pub on_time: Duration,
    pub fh_received: Vec<u8>,
    pub fh_commands: Vec<FhCommand>,
}

pub struct Harness {
    pub now: Time,
    pub mobile: PsnaMobile,
    pub daemon: PsnaDaemon,
    pub wlan: Wlan,
    pub fh: FixedHost,
    pub rng: Rng,
    heap: BinaryHeap<Reverse<(Time, u64, usize)>>,
    evs: Vec<Option<Ev>>,
    order: u64,
    busy: [Time; 2],
    on_since: Option<Time>,
    fh_size: u64,
    pub rec: Record,
    /// Drop everything towards the daemon while true (a dead or unreachable AP).
    pub daemon_dead: bool,
}

impl Harness {
    pub fn new(mcfg: MobileConfig, dcfg: DaemonConfig, wlan: Wlan, fh: FixedHost, seed: u64) -> Harness {
        Harness {
            now: Time::ZERO,
            mobile: PsnaMobile::new(mcfg, 100, false).unwrap(),
            daemon: PsnaDaemon::new(dcfg).unwrap(),
            wlan,
            fh,
            rng: Rng::new(seed),
            heap: BinaryHeap::new(),
            evs: Vec::new(),
            order: 0,
            busy: [Time::ZERO; 2],
            on_since: None,
            fh_size: 0,
            rec: Record::default(),
            daemon_dead: false,
        }
    }

    fn at(&mut self, t: Time, ev: Ev) {
        self.order += 1;
        self.evs.push(Some(ev));
        self.heap.push(Reverse((t, self.order, self.evs.len() - 1)));
    }

    /// Send over the WLAN in direction `dir` (0: to the daemon, 1: to the mobile).
    fn wlan_send(&mut self, dir: usize, bytes: Vec<u8>) {
        let start = self.busy[dir].max(self.now);
        let done = start + Duration::transmission(bytes.len() as u64 + 28, self.wlan.rate_bps);
        self.busy[dir] = done;
        let copies = if self.rng.chance(self.wlan.dup) { 2 } else { 1 };
        for _ in 0..copies {
            if self.rng.chance(self.wlan.loss) {
                continue;
            }
            let extra = Duration::from_nanos(self.rng.next() % (self.wlan.jitter.as_nanos() + 1));
            let ev = if dir == 0 { Ev::ToDaemon(bytes.clone()) } else { Ev::ToMobile(bytes.clone()) };
            self.at(done + self.wlan.delay + extra, ev);
        }
    }

    /// Move every output of both engines to where it goes.
    fn drain(&mut self) {
        let mut buf = Vec::new();
        loop {
            let mut moved = false;
            // The engine holds a request back until its radio-on command was polled.
            while self.mobile.poll_transmit(self.now, &mut buf).is_some() {
                assert!(self.on_since.is_some(), "the mobile transmits with its radio off");
                self.wlan_send(0, buf.clone());
                moved = true;
            }
            while let Some(e) = self.mobile.poll_event() {
                moved = true;
                let MobileEvent::Radio(c) = e else {
                    self.rec.mobile_events.push((self.now, e));
                    continue;
                };
                match (c.on, self.on_since) {
                    (true, None) => self.on_since = Some(c.at),
                    (false, Some(s)) => {
                        self.rec.on_time += c.at - s;
                        self.on_since = None;
                    }
                    _ => panic!("radio command {c:?} repeats the state"),
                }
                self.rec.radio.push(c);
            }
            while let Some(t) = self.daemon.poll_transmit(self.now, &mut buf) {
                assert_eq!(t.to, Some(MOBILE));
                self.wlan_send(1, buf.clone());
                moved = true;
            }
            while let Some(e) = self.daemon.poll_event() {
                moved = true;
                match e {
                    DaemonEvent::Fh(c) => {
                        self.fh_command(c.clone());
                        self.rec.fh_commands.push(c);
                    }
                    DaemonEvent::Input => {}
                    e => self.rec.daemon_events.push(e),
                }
            }
            if !moved {
                break;
            }
        }
    }

    /// The source's length for a read that announces none.
    pub fn fh_size_override(&mut self, len: u64) {
        self.fh_size = len;
    }

    fn fh_command(&mut self, c: FhCommand) {
        let FhCommand::Open { fh, dir, size, .. } = c else { return };
        if self.fh.unreachable {
            return self.at(self.now + self.fh.connect, Ev::FhAbort(fh));
        }
        self.fh_size = size.unwrap_or(self.fh_size);
        self.at(self.now + self.fh.connect, Ev::FhConnect(fh));
        if dir == Direction::Read {
            self.at(self.now + self.fh.connect + self.fh.connect, Ev::FhSegment(fh, 0, self.fh_size));
        } else {
            self.at(self.now + self.fh.connect, Ev::FhPump(fh));
        }
    }

    fn seg_gap(&self, offset: u64, len: u64) -> Duration {
        let rate = if offset < self.fh.rate_after { self.fh.first_rate } else { self.fh.rate };
        Duration::from_secs_f64(len as f64 / rate)
    }

    fn handle(&mut self, ev: Ev) {
        let now = self.now;
        match ev {
            Ev::ToDaemon(b) if !self.daemon_dead => {
                let _ = self.daemon.handle_datagram(now, MOBILE, &b);
            }
            Ev::ToDaemon(_) => {}
            Ev::ToMobile(b) => {
                if self.on_since.is_some() {
                    let _ = self.mobile.handle_datagram(now, DAEMON, &b);
                }
            }
            Ev::FhConnect(fh) => self.daemon.handle_fh_connected(now, fh),
            Ev::FhAbort(fh) => self.daemon.handle_fh_aborted(now, fh),
            Ev::FhClose(fh) => self.daemon.handle_fh_closed(now, fh),
            Ev::FhSegment(fh, offset, size) => {
                if self.fh.abort_after.is_some_and(|a| offset >= a) {
                    return self.daemon.handle_fh_aborted(now, fh);
                }
                let len = (size - offset).min(1460);
                let data: Vec<u8> = (offset..offset + len).map(byte_at).collect();
                self.daemon.handle_fh_data(now, fh, &data);
                if offset + len < size {
                    let gap = self.seg_gap(offset + len, 1460);
                    self.at(now + gap, Ev::FhSegment(fh, offset + len, size));
                } else if self.fh.close_at_end {
                    self.at(now, Ev::FhClose(fh));
                }
            }
            Ev::FhPump(fh) => {
                let out = self.daemon.fh_outgoing(fh);
                let n = out.len().min(1460);
                let total = self.rec.fh_received.len() as u64;
                if self.fh.abort_after.is_some_and(|a| total >= a) {
                    return self.daemon.handle_fh_aborted(now, fh);
                }
                if n > 0 {
                    self.rec.fh_received.extend_from_slice(&out[..n]);
                    self.daemon.fh_written(fh, n);
                    let gap = self.seg_gap(total, n as u64);
                    self.at(now + gap + Duration::from_millis(150), Ev::FhAck(fh, n as u64));
                    self.at(now + gap, Ev::FhPump(fh));
                } else if total < self.fh_size {
                    self.at(now + Duration::from_millis(50), Ev::FhPump(fh));
                }
            }
            Ev::FhAck(fh, n) => self.daemon.handle_fh_acked(now, fh, n),
        }
    }

    /// Run until the mobile reports the end of its transfer or `limit` passes.
    pub fn run(&mut self, limit: Time) -> Option<MobileEvent> {
        self.drain();
        loop {
            let next_ev = self.heap.peek().map(|Reverse((t, _, _))| *t);
            let timers = [self.mobile.poll_timeout(), self.daemon.poll_timeout()];
            let next_timer = timers.into_iter().flatten().min();
            let Some(t) = [next_ev, next_timer].into_iter().flatten().min() else { break };
            if t > limit {
                break;
            }
            self.now = self.now.max(t);
            if next_ev == Some(t) {
                let Reverse((_, _, i)) = self.heap.pop().unwrap();
                let ev = self.evs[i].take().unwrap();
                self.handle(ev);
            } else {
                if self.mobile.poll_timeout().is_some_and(|m| m <= self.now) {
                    self.mobile.handle_timeout(self.now);
                }
                if self.daemon.poll_timeout().is_some_and(|d| d <= self.now) {
                    self.daemon.handle_timeout(self.now);
                }
            }
            self.drain();
            let done = self.rec.mobile_events.iter().find_map(|(_, e)| match e {
                MobileEvent::Completed { .. } | MobileEvent::Failed { .. } => Some(*e),
                _ => None,
            });
            if done.is_some() {
                return done;
            }
        }
        None
    }

    /// Radio-off fraction of `[start, self.now]`.
    pub fn off_fraction(&self) -> f64 {
        let total = self.now.as_secs_f64();
        1.0 - self.rec.on_time.as_secs_f64() / total
    }

    /// The daemon's Residual_Time announcements as (time, residual).
    pub fn residuals(&self) -> Vec<(Time, Duration)> {
        self.rec
            .daemon_events
            .iter()
            .filter_map(|e| match e {
                DaemonEvent::Residual { at, residual, .. } => Some((*at, *residual)),
                _ => None,
            })
            .collect()
    }

    /// When the FH leg finished.
    pub fn fh_complete_at(&self) -> Option<Time> {
        self.rec.daemon_events.iter().find_map(|e| match e {
            DaemonEvent::FhComplete { at, .. } => Some(*at),
            _ => None,
        })
    }
}
