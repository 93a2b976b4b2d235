//! A stop-and-wait echo over UDP: the smallest protocol engine, and the proof that a new one
//! needs nothing but this module and an application on each host (docs/design.md, "Where a
//! new thing goes").
//!
//! A client sends `count` requests one at a time; the server echoes each back whole to whoever
//! sent it. The client retransmits a request after `rto` until its echo arrives (at most
//! `max_retries` times, then the exchange fails), checks that the echo carries its bytes, takes
//! the round-trip time from the last transmission (Karn), and sends the next request `interval`
//! after the echo. Both ends are [`EchoEngine`]s behind the [`Engine`] contract.
//!
//! Every datagram is `size` bytes: an 8-byte header, then a payload whose byte `i` is
//! `seq + i` (mod 256), so a corrupted or misplaced echo is seen.
//!
//! | bytes | field |
//! |---|---|
//! | 0 | `E` (0x45) |
//! | 1 | type: 1 request, 2 echo |
//! | 2..4 | reserved (0) |
//! | 4..8 | sequence number (big-endian) |

use crate::engine::{self, Engine, Refused};
use crate::packet::Endpoint;
use crate::time::{Duration, Time};

/// Length of the header at the start of every datagram.
pub const HEADER_LEN: usize = 8;
/// Largest datagram (a UDP payload over IPv4).
pub const MAX_SIZE: usize = 65_507;
const MAGIC: u8 = b'E';
const REQUEST: u8 = 1;
const ECHO: u8 = 2;

/// What a client asks for; a server needs none of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EchoConfig {
    /// Requests to have echoed.
    pub count: u32,
    /// Bytes per datagram, header included (8..=65507).
    pub size: usize,
    /// Wait between an echo and the next request.
    pub interval: Duration,
    /// Retransmission timeout.
    pub rto: Duration,
    /// Retransmissions of one request before the exchange fails.
    pub max_retries: u32,
}

impl Default for EchoConfig {
    fn default() -> Self {
        EchoConfig { count: 10, size: 64, interval: Duration::ZERO, rto: Duration::from_secs(1), max_retries: 5 }
    }
}

impl EchoConfig {
    /// Refuses settings the protocol cannot run with, naming the field.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.count == 0 {
            return Err(("count", "must be at least 1 request".into()));
        }
        if !(HEADER_LEN..=MAX_SIZE).contains(&self.size) {
            return Err(("size", format!("must be {HEADER_LEN}..={MAX_SIZE} bytes (the 8-byte header included)")));
        }
        if self.rto == Duration::ZERO {
            return Err(("rto", "must be positive".into()));
        }
        Ok(())
    }
}

/// What an echo engine tells its application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EchoEvent {
    /// The client got the echo of request `seq`, `rtt` after its last transmission.
    Echoed {
        /// Sequence number.
        seq: u32,
        /// Round-trip time.
        rtt: Duration,
    },
    /// The server echoed request `seq`.
    Served {
        /// Sequence number.
        seq: u32,
    },
    /// The client has every echo.
    Done,
    /// The client gave up: request `seq` went unanswered after its retransmissions.
    Failed {
        /// Sequence number.
        seq: u32,
    },
}

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EchoStats {
    /// Requests sent for the first time (client).
    pub requests: u64,
    /// Requests sent again after `rto` (client).
    pub retransmissions: u64,
    /// Echoes received for the outstanding request (client).
    pub echoes: u64,
    /// Echoes of an earlier request (a retransmission's second answer), ignored.
    pub duplicates: u64,
    /// Requests echoed (server).
    pub served: u64,
    /// Datagrams refused: undecodable, the wrong type, a payload that is not the pattern.
    pub bad: u64,
    /// Sum of the round-trip times (ns), for their mean.
    pub rtt_sum_ns: u64,
}

/// Which end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Client,
    Server,
}

/// One end of the echo (see the module docs).
#[derive(Clone, Debug)]
pub struct EchoEngine {
    role: Role,
    cfg: EchoConfig,
    /// Client: the request outstanding (its sequence number) or next.
    seq: u32,
    /// Client: waiting for the echo of `seq`.
    waiting: bool,
    /// Client: the request is due now.
    due: bool,
    /// Client: when the request was last sent and how often.
    sent_at: Time,
    tries: u32,
    /// Client: the next request's time, or the retransmission's.
    timer: Option<Time>,
    /// Server: echoes owed (sequence number, requester), in arrival order.
    owed: std::collections::VecDeque<(u32, Endpoint, usize)>,
    events: std::collections::VecDeque<EchoEvent>,
    finished: bool,
    stats: EchoStats,
}

impl EchoEngine {
    fn new(role: Role, cfg: EchoConfig) -> EchoEngine {
        EchoEngine {
            role,
            cfg,
            seq: 0,
            waiting: false,
            due: role == Role::Client,
            sent_at: Time::ZERO,
            tries: 0,
            timer: None,
            owed: std::collections::VecDeque::new(),
            events: std::collections::VecDeque::new(),
            finished: false,
            stats: EchoStats::default(),
        }
    }

    /// A client whose first request is due at once.
    pub fn client(cfg: EchoConfig) -> Result<EchoEngine, (&'static str, String)> {
        cfg.validate()?;
        Ok(EchoEngine::new(Role::Client, cfg))
    }

    /// A server: it echoes every request to whoever sent it.
    pub fn server() -> EchoEngine {
        EchoEngine::new(Role::Server, EchoConfig::default())
    }

    /// The counters.
    pub fn stats(&self) -> &EchoStats {
        &self.stats
    }

    /// The client has every echo, or gave up.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Echoes the client received, in order.
    pub fn echoed(&self) -> u64 {
        self.stats.echoes
    }

    /// Writes datagram `kind` of request `seq`, `len` bytes, into `buf`.
    fn write(buf: &mut Vec<u8>, kind: u8, seq: u32, len: usize) {
        buf.clear();
        buf.extend_from_slice(&[MAGIC, kind, 0, 0]);
        buf.extend_from_slice(&seq.to_be_bytes());
        buf.extend((HEADER_LEN..len).map(|i| pattern(seq, i)));
    }

    /// The (type, sequence number) of a datagram whose payload is the pattern.
    fn decode(bytes: &[u8]) -> Option<(u8, u32)> {
        if bytes.len() < HEADER_LEN || bytes[0] != MAGIC || bytes[2..4] != [0, 0] {
            return None;
        }
        let seq = u32::from_be_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        let intact = bytes.iter().enumerate().skip(HEADER_LEN).all(|(i, b)| *b == pattern(seq, i));
        intact.then_some((bytes[1], seq))
    }

    fn on_echo(&mut self, now: Time, seq: u32) {
        if !self.waiting || seq != self.seq {
            self.stats.duplicates += 1;
            return;
        }
        let rtt = now.saturating_since(self.sent_at);
        self.waiting = false;
        self.stats.echoes += 1;
        self.stats.rtt_sum_ns += rtt.as_nanos();
        self.events.push_back(EchoEvent::Echoed { seq, rtt });
        self.seq += 1;
        if self.seq >= self.cfg.count {
            self.finished = true;
            self.timer = None;
            self.events.push_back(EchoEvent::Done);
        } else if self.cfg.interval == Duration::ZERO {
            self.due = true;
            self.timer = None;
        } else {
            self.timer = Some(now + self.cfg.interval);
        }
    }
}

/// Byte `i` of request `seq`'s datagram.
fn pattern(seq: u32, i: usize) -> u8 {
    (seq as u8).wrapping_add(i as u8)
}

impl Engine for EchoEngine {
    type Event = EchoEvent;

    const PROTOCOL: &'static str = "echo";

    fn handle_datagram(&mut self, now: Time, from: Endpoint, bytes: &[u8]) -> Result<(), Refused> {
        match (self.role, EchoEngine::decode(bytes)) {
            (Role::Server, Some((REQUEST, seq))) => {
                self.owed.push_back((seq, from, bytes.len()));
                Ok(())
            }
            (Role::Client, Some((ECHO, seq))) => {
                self.on_echo(now, seq);
                Ok(())
            }
            _ => {
                self.stats.bad += 1;
                Err(Refused::Malformed)
            }
        }
    }

    fn poll_transmit(&mut self, now: Time, buf: &mut Vec<u8>) -> Option<engine::Transmit> {
        match self.role {
            Role::Server => {
                let (seq, to, len) = self.owed.pop_front()?;
                EchoEngine::write(buf, ECHO, seq, len);
                self.stats.served += 1;
                self.events.push_back(EchoEvent::Served { seq });
                Some(engine::Transmit { to: Some(to), len })
            }
            Role::Client => {
                if !self.due || self.finished {
                    return None;
                }
                self.due = false;
                if self.waiting {
                    self.stats.retransmissions += 1;
                } else {
                    self.stats.requests += 1;
                    self.waiting = true;
                    self.tries = 0;
                }
                self.tries += 1;
                self.sent_at = now;
                self.timer = Some(now + self.cfg.rto);
                EchoEngine::write(buf, REQUEST, self.seq, self.cfg.size);
                Some(engine::Transmit { to: None, len: self.cfg.size })
            }
        }
    }

    fn poll_timeout(&mut self) -> Option<Time> {
        self.timer
    }

    fn handle_timeout(&mut self, now: Time) {
        if self.timer.is_none_or(|t| t > now) {
            return;
        }
        self.timer = None;
        if self.waiting && self.tries > self.cfg.max_retries {
            self.finished = true;
            self.events.push_back(EchoEvent::Failed { seq: self.seq });
            return;
        }
        self.due = true;
    }

    fn poll_event(&mut self) -> Option<EchoEvent> {
        self.events.pop_front()
    }

    fn discarded(&self) -> u64 {
        self.stats.bad + self.stats.duplicates
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    const CLIENT: Endpoint = Endpoint::new(Ipv4Addr::new(10, 0, 0, 1), 30_000);
    const SERVER: Endpoint = Endpoint::new(Ipv4Addr::new(10, 0, 0, 2), 7);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Client and server over a wire with a one-way delay of `delay` that loses the datagrams
    /// whose number (from 0, both ways) `lose` says; returns the client, the server and the
    /// client's events.
    fn run(cfg: EchoConfig, delay: Duration, lose: impl Fn(u64) -> bool) -> (EchoEngine, EchoEngine, Vec<(Time, EchoEvent)>) {
        let (mut c, mut s) = (EchoEngine::client(cfg).unwrap(), EchoEngine::server());
        let mut wire: Vec<(Time, bool, Vec<u8>)> = Vec::new(); // (arrival, to the server, bytes)
        let (mut now, mut n, mut events, mut buf) = (Time::ZERO, 0u64, Vec::new(), Vec::new());
        for _ in 0..10_000 {
            while let Some(t) = c.poll_transmit(now, &mut buf) {
                assert_eq!((t.to, t.len), (None, buf.len()));
                if !lose(n) {
                    wire.push((now + delay, true, buf.clone()));
                }
                n += 1;
            }
            while let Some(t) = s.poll_transmit(now, &mut buf) {
                assert_eq!(t.to, Some(CLIENT));
                if !lose(n) {
                    wire.push((now + delay, false, buf.clone()));
                }
                n += 1;
            }
            while let Some(e) = c.poll_event() {
                events.push((now, e));
            }
            while s.poll_event().is_some() {}
            if c.finished() {
                break;
            }
            let next_arrival = wire.iter().map(|w| w.0).min();
            let Some(t) = [next_arrival, c.poll_timeout()].into_iter().flatten().min() else { break };
            now = t;
            if c.poll_timeout().is_some_and(|t| t <= now) {
                c.handle_timeout(now);
            }
            let (due, later): (Vec<_>, Vec<_>) = wire.drain(..).partition(|w| w.0 <= now);
            wire = later;
            for (_, to_server, bytes) in due {
                let r = if to_server { s.handle_datagram(now, CLIENT, &bytes) } else { c.handle_datagram(now, SERVER, &bytes) };
                r.unwrap();
            }
        }
        (c, s, events)
    }

    #[test]
    fn every_request_is_echoed_once_in_order_with_its_round_trip_time() {
        let cfg = EchoConfig { count: 5, size: 100, interval: ms(10), ..EchoConfig::default() };
        let (c, s, ev) = run(cfg, ms(20), |_| false);
        let echoed: Vec<_> = ev.iter().filter_map(|(_, e)| if let EchoEvent::Echoed { seq, rtt } = e { Some((*seq, *rtt)) } else { None }).collect();
        assert_eq!(echoed, (0..5).map(|s| (s, ms(40))).collect::<Vec<_>>());
        // 5 exchanges of 40 ms, 10 ms apart: done at 5 × 40 + 4 × 10 = 240 ms.
        assert_eq!(ev.last(), Some(&(Time::ZERO + ms(240), EchoEvent::Done)));
        assert_eq!((c.stats().requests, c.stats().retransmissions, s.stats().served, c.discarded()), (5, 0, 5, 0));
        assert_eq!(c.stats().rtt_sum_ns, 5 * ms(40).as_nanos());
    }

    #[test]
    fn a_lost_request_or_echo_is_retransmitted_after_the_rto() {
        let cfg = EchoConfig { count: 3, rto: ms(100), ..EchoConfig::default() };
        // Datagrams 0 (the first request) and 3 (the second request) are lost.
        let (c, _, ev) = run(cfg, ms(5), |n| n == 0 || n == 3);
        assert_eq!((c.stats().requests, c.stats().retransmissions, c.echoed()), (3, 2, 3));
        assert!(c.finished() && ev.iter().any(|(_, e)| *e == EchoEvent::Done));
        // Karn: the RTT is from the retransmission, not the lost first try.
        assert!(ev.iter().all(|(_, e)| !matches!(e, EchoEvent::Echoed { rtt, .. } if *rtt != ms(10))), "{ev:?}");
    }

    #[test]
    fn a_silent_server_fails_the_client_after_its_retries() {
        let cfg = EchoConfig { count: 2, rto: ms(50), max_retries: 3, ..EchoConfig::default() };
        let (c, _, ev) = run(cfg, ms(1), |_| true);
        assert_eq!(ev, vec![(Time::ZERO + ms(200), EchoEvent::Failed { seq: 0 })]);
        assert_eq!((c.stats().requests, c.stats().retransmissions), (1, 3));
    }

    #[test]
    fn a_corrupted_or_foreign_datagram_is_refused_and_counted() {
        let mut s = EchoEngine::server();
        let mut buf = Vec::new();
        EchoEngine::write(&mut buf, REQUEST, 7, 20);
        buf[15] ^= 1;
        assert_eq!(s.handle_datagram(Time::ZERO, CLIENT, &buf), Err(Refused::Malformed));
        assert_eq!(s.handle_datagram(Time::ZERO, CLIENT, b"hello"), Err(Refused::Malformed));
        EchoEngine::write(&mut buf, ECHO, 7, 20); // an echo sent to a server
        assert_eq!(s.handle_datagram(Time::ZERO, CLIENT, &buf), Err(Refused::Malformed));
        assert_eq!((s.discarded(), s.poll_transmit(Time::ZERO, &mut buf)), (3, None));
    }

    #[test]
    fn settings_are_checked() {
        assert_eq!(EchoEngine::client(EchoConfig { count: 0, ..EchoConfig::default() }).unwrap_err().0, "count");
        assert_eq!(EchoEngine::client(EchoConfig { size: 7, ..EchoConfig::default() }).unwrap_err().0, "size");
        assert_eq!(EchoEngine::client(EchoConfig { rto: Duration::ZERO, ..EchoConfig::default() }).unwrap_err().0, "rto");
    }
}
