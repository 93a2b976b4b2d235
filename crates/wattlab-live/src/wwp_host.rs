//! The Wave & Wait Protocol (`wattlab_core::wwp`, seed 004) live: one [`WwpEndpoint`] per
//! process on the generic host ([`crate::host`]), one WWP segment per datagram; this module is
//! only its application.
//!
//! The sender (the paper's A, active opener) writes the run's payload ([`crate::payload`]) in
//! `message`-byte messages until `bytes` are written or `duration` has passed since it started,
//! then closes. The receiver (B, passive opener) reads and hashes what arrives and samples how
//! many bytes it has delivered over time, so the orchestrator can count the bytes delivered
//! within the flow's window. Both report [`WwpHostReport`] (JSON) with the endpoint's
//! [`WwpStats`]. Every loop is bounded by a time limit and a datagram count, and a stop flag
//! (SIGINT/SIGTERM) ends it with the report of what happened so far.

use std::io::Read;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::AtomicBool;
use std::time::Duration as StdDuration;

use serde::Serialize;
use sha2::{Digest, Sha256};
use wattlab_core::wwp::{WwpConfig, WwpEndpoint, WwpEvent, WwpState, WwpStats};
use wattlab_core::{Duration, Time};

use crate::clock::LiveClock;
use crate::host::{HostApp, HostConfig, HostStats, Peer};
use crate::payload::{hex, Payload};

/// Datagrams read per loop turn before timers and transmissions get their turn.
const RECV_BATCH: usize = 256;
/// How often the receiver samples its delivered bytes.
const PROGRESS_EVERY: StdDuration = StdDuration::from_millis(100);
/// How long a send waits for room in the socket's buffer before the datagram is given up.
const SEND_WAIT: StdDuration = StdDuration::from_millis(200);

/// Which end of the transfer a host is.
#[derive(Clone, Debug)]
pub enum WwpRole {
    /// The paper's A: connects to `peer` and sends the payload.
    Sender {
        /// The receiver's address.
        peer: SocketAddr,
        /// Key of the payload stream (the scenario's seed).
        payload_key: u64,
        /// Bytes to send; `None`: a continuous stream until `duration`.
        bytes: Option<u64>,
        /// Stop writing this long after the start (then close); `None`: until `bytes` are written.
        duration: Option<StdDuration>,
        /// Size of the application's messages (the paper's test protocol: 1024).
        message: usize,
    },
    /// The paper's B: answers the first peer that connects and reads what it sends.
    Receiver,
}

/// What a host runs: the role, the protocol's parameters and the loop's bounds.
#[derive(Clone, Debug)]
pub struct WwpHostConfig {
    /// Sender or receiver.
    pub role: WwpRole,
    /// WWP parameters (both ends use the scenario's).
    pub wwp: WwpConfig,
    /// The 12-bit initial sequence number; `None`: clock-based (as the paper says).
    pub isn: Option<u16>,
    /// The host ends after this long whatever the state (report outcome `time-limit`).
    pub time_limit: StdDuration,
    /// The host ends after sending or receiving this many datagrams (outcome `count-limit`).
    pub max_datagrams: u64,
    /// After the connection closed, stay while the peer still sends (a lost FIN_ACK is
    /// answered again) until it has been quiet this long.
    pub linger: StdDuration,
}

impl WwpHostConfig {
    /// A host of `role` with the default WWP parameters, a 60 s time limit, 10 million
    /// datagrams and a linger of 3.5 × SEND_T.
    pub fn new(role: WwpRole, wwp: WwpConfig) -> WwpHostConfig {
        // The peer resends its FIN every SEND_T until our FIN_ACK arrives, as TCP's TIME_WAIT
        // waits out the peer's retransmissions: 3.5 × SEND_T of quiet outlasts a lost FIN_ACK
        // followed by up to two lost FINs. 1.5 × SEND_T survived only a lost FIN_ACK, and the
        // loopback test that drops every 9th datagram each way hit a FIN_ACK and the next FIN
        // in about 1 run in 10 (the peer then resent its FIN to no one until its time limit).
        let linger = StdDuration::from_nanos(wwp.send_t.0 * 7 / 2);
        WwpHostConfig { role, wwp, isn: None, time_limit: StdDuration::from_secs(60), max_datagrams: 10_000_000, linger }
    }
}

/// What a WWP host reports when it ends (JSON, like the other live processes).
#[derive(Clone, Debug, Default, Serialize)]
pub struct WwpHostReport {
    /// `sender` or `receiver`.
    pub role: String,
    /// The socket's local address.
    pub local: String,
    /// The peer's address (empty if no peer ever spoke to the receiver).
    pub peer: String,
    /// How the host ended: `closed`, `failed: ...`, `time-limit`, `count-limit` or `stopped`.
    pub outcome: String,
    /// The endpoint's final state (`handshaking`, `established`, `closed`, `failed`).
    pub state: String,
    /// Unix ns when the host started (bound its socket).
    pub start_ns: u64,
    /// Unix ns when the handshake finished (0: never).
    pub connected_ns: u64,
    /// Unix ns when the connection closed (0: never).
    pub closed_ns: u64,
    /// Unix ns when the host ended.
    pub end_ns: u64,
    /// Payload bytes the application wrote into WWP (sender).
    pub written_bytes: u64,
    /// SHA-256 of the bytes written (sender).
    pub written_sha256: String,
    /// Payload bytes read from WWP, in order (receiver).
    pub delivered_bytes: u64,
    /// SHA-256 of the bytes read (receiver).
    pub delivered_sha256: String,
    /// Unix ns of the first byte read (0: none).
    pub first_byte_ns: u64,
    /// Unix ns of the last byte read (0: none).
    pub last_byte_ns: u64,
    /// Delivered bytes over time, `[unix_ns, bytes]`, every 100 ms while it changes (receiver).
    pub progress: Vec<[u64; 2]>,
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// Datagrams received (from the peer).
    pub datagrams_received: u64,
    /// Datagrams the endpoint refused as undecodable.
    pub datagrams_bad: u64,
    /// Datagrams from another address than the peer's (ignored).
    pub datagrams_foreign: u64,
    /// Segments given up because the socket's buffer stayed full (counted as sent by WWP).
    pub send_dropped: u64,
    /// Timer deadlines served.
    pub timers: u64,
    /// Largest lateness of timer service behind the deadline, in µs.
    pub timer_late_max_us: f64,
    /// Mean lateness of timer service, in µs.
    pub timer_late_mean_us: f64,
    /// The endpoint's counters.
    pub stats: WwpStats,
}

/// A clock-based 12-bit ISN (the paper: "clock-based, as in TCP"), 4 µs per step.
fn clock_isn() -> u16 {
    let ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
    ((ns / 4_000) % 4096) as u16
}

/// The application on top of the endpoint: the payload source (sender) or sink (receiver).
enum App {
    Sender { payload: Payload, size: usize, msg: Vec<u8>, off: usize, stop_at: Option<Time>, hash: Sha256, written: u64, closed: bool },
    Receiver { buf: Vec<u8>, hash: Sha256, delivered: u64, closed: bool },
}

impl App {
    /// Moves data between the application and the endpoint at `now`; returns bytes read.
    fn pump(&mut self, ep: &mut WwpEndpoint, now: Time) -> u64 {
        match self {
            App::Sender { payload, size, msg, off, stop_at, hash, written, closed } => {
                if *closed || ep.state() != WwpState::Established {
                    return 0;
                }
                // Whole messages only, as the simulator's application writes them: the next
                // message goes in once the sender buffer has room for all of it.
                let out_of_time = stop_at.is_some_and(|t| now >= t);
                if !out_of_time {
                    loop {
                        if *off == msg.len() {
                            msg.resize(*size, 0);
                            let n = payload.read(msg).unwrap_or(0);
                            msg.truncate(n);
                            *off = 0;
                            if n == 0 {
                                break;
                            }
                        }
                        if ep.writable() < msg.len() - *off {
                            break;
                        }
                        let n = ep.write(&msg[*off..]);
                        hash.update(&msg[*off..*off + n]);
                        *off += n;
                        *written += n as u64;
                        if n == 0 {
                            break;
                        }
                    }
                }
                let exhausted = *off == msg.len() && payload.remaining() == 0;
                if out_of_time || exhausted {
                    ep.close();
                    *closed = true;
                }
                0
            }
            App::Receiver { buf, hash, delivered, closed } => {
                let mut got = 0;
                loop {
                    let n = ep.read(buf);
                    if n == 0 {
                        break;
                    }
                    hash.update(&buf[..n]);
                    *delivered += n as u64;
                    got += n as u64;
                }
                // B sends no data: its own direction ends once the peer's has (as the simulator's).
                if !*closed && ep.peer_finished() && ep.state() == WwpState::Established {
                    ep.close();
                    *closed = true;
                }
                got
            }
        }
    }
}

impl HostApp<WwpEndpoint> for Wwp {
    fn pump(&mut self, ep: &mut WwpEndpoint, now: Time) -> Result<(), String> {
        if self.app.pump(ep, now) > 0 {
            let t = self.clock.unix_ns(now);
            if self.first_byte_ns == 0 {
                self.first_byte_ns = t;
            }
            self.last_byte_ns = t;
        }
        if let App::Receiver { delivered, .. } = &self.app {
            if now >= self.next_sample {
                if self.progress.last().is_none_or(|p| p[1] != *delivered) {
                    self.progress.push([self.clock.unix_ns(now), *delivered]);
                }
                self.next_sample = now + Duration(PROGRESS_EVERY.as_nanos() as u64);
            }
        }
        Ok(())
    }

    fn on_event(&mut self, _ep: &mut WwpEndpoint, now: Time, ev: WwpEvent) -> Result<(), String> {
        match ev {
            WwpEvent::Connected => self.connected_ns = self.clock.unix_ns(now),
            WwpEvent::Closed => self.closed_ns = self.clock.unix_ns(now),
            _ => {}
        }
        Ok(())
    }

    /// Failed, or closed once the peer has been quiet for the linger.
    fn outcome(&mut self, ep: &WwpEndpoint, now: Time, host: &HostStats) -> Option<String> {
        match ep.state() {
            WwpState::Failed(f) => Some(format!("failed: {f:?}")),
            WwpState::Closed if now >= host.last_heard + self.linger => Some("closed".to_string()),
            _ => None,
        }
    }

    /// A progress sample (receiver), the sender's stop time, the linger's end.
    fn wait(&self, ep: &WwpEndpoint, _fds: &mut Vec<libc::pollfd>, host: &HostStats) -> (Option<Time>, Option<StdDuration>) {
        let mut next: Option<Time> = None;
        let mut at = |t: Time| next = Some(next.map_or(t, |n| n.min(t)));
        match &self.app {
            App::Receiver { .. } => at(self.next_sample),
            App::Sender { stop_at: Some(t), closed: false, .. } => at(*t),
            App::Sender { .. } => {}
        }
        if ep.state() == WwpState::Closed {
            at(host.last_heard + self.linger);
        }
        (next, None)
    }
}

/// A WWP end on the live host: the application and what it records.
struct Wwp {
    app: App,
    clock: LiveClock,
    linger: Duration,
    next_sample: Time,
    progress: Vec<[u64; 2]>,
    connected_ns: u64,
    closed_ns: u64,
    first_byte_ns: u64,
    last_byte_ns: u64,
}

/// Runs one WWP host on `sock` (bound; non-blocking is set here) until the connection closed
/// and the peer fell quiet, it failed, a limit was reached or `stop` was set.
pub fn run(sock: UdpSocket, cfg: &WwpHostConfig, stop: &AtomicBool, on_ready: impl FnOnce()) -> Result<WwpHostReport, String> {
    let clock = LiveClock::start();
    let isn = cfg.isn.unwrap_or_else(clock_isn) & 0x0fff;
    let now0 = clock.now();
    let mut r = WwpHostReport::default();
    let (mut ep, peer, app) = match &cfg.role {
        WwpRole::Sender { peer, payload_key, bytes, duration, message } => {
            r.role = "sender".into();
            let ep = WwpEndpoint::connect(cfg.wwp.clone(), isn, now0).map_err(|e| e.to_string())?;
            let payload = Payload::new(*payload_key, bytes.unwrap_or(u64::MAX));
            let stop_at = duration.map(|d| now0 + Duration(d.as_nanos() as u64));
            let size = (*message).max(1);
            let msg = Vec::with_capacity(size);
            (ep, Peer::Fixed(*peer), App::Sender { payload, size, msg, off: 0, stop_at, hash: Sha256::new(), written: 0, closed: false })
        }
        WwpRole::Receiver => {
            r.role = "receiver".into();
            let ep = WwpEndpoint::listen(cfg.wwp.clone(), isn, now0).map_err(|e| e.to_string())?;
            (ep, Peer::First, App::Receiver { buf: vec![0; 64 * 1024], hash: Sha256::new(), delivered: 0, closed: false })
        }
    };
    let linger = Duration(cfg.linger.as_nanos() as u64);
    let mut w = Wwp { app, clock, linger, next_sample: now0, progress: Vec::new(), connected_ns: 0, closed_ns: 0, first_byte_ns: 0, last_byte_ns: 0 };
    let host = HostConfig {
        time_limit: cfg.time_limit,
        max_datagrams: cfg.max_datagrams,
        batch: RECV_BATCH,
        send_wait: Some(SEND_WAIT),
        ..HostConfig::new(peer)
    };
    on_ready();
    let h = crate::host::run(&sock, &mut ep, &mut w, &clock, &host, stop)?;
    if let App::Receiver { delivered, .. } = &w.app {
        if w.progress.last().is_none_or(|p| p[1] != *delivered) {
            w.progress.push([h.end_ns, *delivered]);
        }
    }
    match w.app {
        App::Sender { hash, written, .. } => {
            r.written_bytes = written;
            r.written_sha256 = hex(&hash.finalize());
        }
        App::Receiver { hash, delivered, .. } => {
            r.delivered_bytes = delivered;
            r.delivered_sha256 = hex(&hash.finalize());
        }
    }
    r.local = h.local;
    r.peer = match peer {
        Peer::Fixed(p) => p.to_string(),
        _ => h.peer,
    };
    r.outcome = h.outcome;
    r.state = ep.state().name().into();
    (r.start_ns, r.end_ns) = (h.start_ns, h.end_ns);
    (r.connected_ns, r.closed_ns) = (w.connected_ns, w.closed_ns);
    (r.first_byte_ns, r.last_byte_ns) = (w.first_byte_ns, w.last_byte_ns);
    r.progress = w.progress;
    (r.datagrams_sent, r.datagrams_received, r.datagrams_bad) = (h.sent, h.received, h.refused);
    (r.datagrams_foreign, r.send_dropped) = (h.foreign + h.ignored, h.send_dropped);
    (r.timers, r.timer_late_max_us, r.timer_late_mean_us) = (h.timers, h.timer_late_max_us, h.timer_late_mean_us);
    r.stats = ep.stats().clone();
    Ok(r)
}
