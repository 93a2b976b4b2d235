//! Hosting the Wave & Wait Protocol (`wattlab_core::wwp`, seed 004) on a real UDP socket: one
//! [`WwpEndpoint`] per process, one WWP segment per datagram, driven by the live clock
//! ([`LiveClock`]) in a non-blocking loop, exactly as the simulator drives the same endpoint.
//!
//! The sender (the paper's A, active opener) writes the run's payload ([`crate::payload`]) in
//! `message`-byte messages until `bytes` are written or `duration` has passed since it started,
//! then closes. The receiver (B, passive opener) reads and hashes what arrives and samples how
//! many bytes it has delivered over time, so the orchestrator can count the bytes delivered
//! within the flow's window. Both report [`WwpHostReport`] (JSON) with the endpoint's
//! [`WwpStats`]. Every loop is bounded by a time limit and a datagram count, and a stop flag
//! (SIGINT/SIGTERM) ends it with the report of what happened so far.

use std::io::{ErrorKind, Read};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::AtomicBool;
use std::time::Duration as StdDuration;

use serde::Serialize;
use sha2::{Digest, Sha256};
use wattlab_core::wwp::{WwpConfig, WwpEndpoint, WwpEvent, WwpState, WwpStats};
use wattlab_core::{Duration, Time};

use crate::clock::LiveClock;
use crate::nfqueue::loop_end;
use crate::udp::recv_batch;
use crate::payload::{hex, Payload};

/// Largest datagram read (a DATA segment is 6 + `segment_size` bytes; the core caps that well
/// below 64 KiB).
const MAX_DATAGRAM: usize = 65_536;
/// Datagrams read per loop turn before timers and transmissions get their turn.
const RECV_BATCH: usize = 256;
/// How often the receiver samples its delivered bytes.
const PROGRESS_EVERY: StdDuration = StdDuration::from_millis(100);
/// Longest wait of the loop (it checks its stop flag and limits at least this often).
const WAIT_CAP: StdDuration = StdDuration::from_millis(20);
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
    /// datagrams and a linger of 1.5 × SEND_T.
    pub fn new(role: WwpRole, wwp: WwpConfig) -> WwpHostConfig {
        let linger = StdDuration::from_nanos(wwp.send_t.0 * 3 / 2);
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

/// The name of a state in reports.
fn state_name(s: WwpState) -> &'static str {
    match s {
        WwpState::Handshaking => "handshaking",
        WwpState::Established => "established",
        WwpState::Closed => "closed",
        WwpState::Failed(_) => "failed",
    }
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

/// Waits until `fd` is ready for `events` or `timeout` passes (or a signal arrives).
fn wait_fd(fd: libc::c_int, events: libc::c_short, timeout: StdDuration) {
    let mut pfd = libc::pollfd { fd, events, revents: 0 };
    let ts = libc::timespec { tv_sec: timeout.as_secs() as libc::time_t, tv_nsec: timeout.subsec_nanos() as libc::c_long };
    // SAFETY: one valid pollfd, a valid timespec, no signal mask change.
    unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
}

/// Sends one datagram to `peer`; waits up to [`SEND_WAIT`] for buffer room. Returns false if it
/// was given up. A refused datagram (ICMP port unreachable: the peer is not bound yet, or gone)
/// counts as sent: the network lost it.
fn send(sock: &UdpSocket, peer: SocketAddr, bytes: &[u8]) -> Result<bool, String> {
    let mut waited = false;
    loop {
        match sock.send_to(bytes, peer) {
            Ok(_) => return Ok(true),
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.raw_os_error() == Some(libc::ENOBUFS) => {
                if waited {
                    return Ok(false);
                }
                wait_fd(sock.as_raw_fd(), libc::POLLOUT, SEND_WAIT);
                waited = true;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => return Ok(true),
            Err(e) => return Err(format!("sending to {peer}: {e}")),
        }
    }
}

/// Runs one WWP host on `sock` (bound; non-blocking is set here) until the connection closed
/// and the peer fell quiet, it failed, a limit was reached or `stop` was set.
pub fn run(sock: UdpSocket, cfg: &WwpHostConfig, stop: &AtomicBool, on_ready: impl FnOnce()) -> Result<WwpHostReport, String> {
    let clock = LiveClock::start();
    sock.set_nonblocking(true).map_err(|e| format!("non-blocking socket: {e}"))?;
    let local = sock.local_addr().map_err(|e| format!("local address: {e}"))?;
    let isn = cfg.isn.unwrap_or_else(clock_isn) & 0x0fff;
    let now0 = clock.now();
    let mut r = WwpHostReport { local: local.to_string(), start_ns: clock.unix_ns(now0), ..WwpHostReport::default() };
    let (mut ep, mut peer, mut app) = match &cfg.role {
        WwpRole::Sender { peer, payload_key, bytes, duration, message } => {
            r.role = "sender".into();
            let ep = WwpEndpoint::connect(cfg.wwp.clone(), isn, now0).map_err(|e| e.to_string())?;
            let payload = Payload::new(*payload_key, bytes.unwrap_or(u64::MAX));
            let stop_at = duration.map(|d| now0 + Duration(d.as_nanos() as u64));
            let size = (*message).max(1);
            let msg = Vec::with_capacity(size);
            (ep, Some(*peer), App::Sender { payload, size, msg, off: 0, stop_at, hash: Sha256::new(), written: 0, closed: false })
        }
        WwpRole::Receiver => {
            r.role = "receiver".into();
            let ep = WwpEndpoint::listen(cfg.wwp.clone(), isn, now0).map_err(|e| e.to_string())?;
            (ep, None, App::Receiver { buf: vec![0; 64 * 1024], hash: Sha256::new(), delivered: 0, closed: false })
        }
    };
    on_ready();
    let limit = now0 + Duration(cfg.time_limit.as_nanos() as u64);
    let linger = Duration(cfg.linger.as_nanos() as u64);
    let (mut rbuf, mut tbuf) = (vec![0u8; MAX_DATAGRAM], Vec::with_capacity(MAX_DATAGRAM));
    let (mut last_heard, mut next_sample) = (now0, now0);
    let mut late_sum_ns = 0u64;
    let fd = sock.as_raw_fd();
    let outcome = loop {
        let now = clock.now();
        if let Some(end) = loop_end(stop, now, limit, r.datagrams_sent + r.datagrams_received, cfg.max_datagrams) {
            break end.to_string();
        }
        // Input: everything that has arrived, in bounded batches.
        recv_batch(&sock, &mut rbuf, RECV_BATCH, |d, from| {
            if *peer.get_or_insert(from) != from {
                r.datagrams_foreign += 1;
                return;
            }
            r.datagrams_received += 1;
            last_heard = now;
            if ep.handle_segment(now, d).is_err() {
                r.datagrams_bad += 1;
            }
        })?;
        // Timers, at their own deadline for the lateness figures but run at `now`.
        if let Some(due) = ep.poll_timeout().filter(|t| *t <= now) {
            r.timers += 1;
            let late = now.0 - due.0;
            late_sum_ns += late;
            r.timer_late_max_us = r.timer_late_max_us.max(late as f64 / 1e3);
            ep.handle_timeout(now);
        }
        // Events and the application.
        while let Some(ev) = ep.poll_event() {
            match ev {
                WwpEvent::Connected => r.connected_ns = clock.unix_ns(now),
                WwpEvent::Closed => r.closed_ns = clock.unix_ns(now),
                _ => {}
            }
        }
        if app.pump(&mut ep, now) > 0 {
            let t = clock.unix_ns(now);
            if r.first_byte_ns == 0 {
                r.first_byte_ns = t;
            }
            r.last_byte_ns = t;
        }
        if let App::Receiver { delivered, .. } = &app {
            if now >= next_sample {
                if r.progress.last().is_none_or(|p| p[1] != *delivered) {
                    r.progress.push([clock.unix_ns(now), *delivered]);
                }
                next_sample = now + Duration(PROGRESS_EVERY.as_nanos() as u64);
            }
        }
        // Output.
        if let Some(to) = peer {
            while let Some(t) = ep.poll_transmit(now, &mut tbuf) {
                if send(&sock, to, &tbuf[..t.len])? {
                    r.datagrams_sent += 1;
                } else {
                    r.send_dropped += 1;
                }
            }
        }
        match ep.state() {
            WwpState::Failed(f) => break format!("failed: {f:?}"),
            WwpState::Closed if now >= last_heard + linger => break "closed".to_string(),
            _ => {}
        }
        // Sleep until the next deadline: a timer, a progress sample, the linger's end, the limit.
        let mut next = [ep.poll_timeout(), Some(limit)].into_iter().flatten().min();
        if matches!(app, App::Receiver { .. }) {
            next = next.min(Some(next_sample)).or(Some(next_sample));
        }
        if let App::Sender { stop_at: Some(t), closed: false, .. } = &app {
            next = next.map_or(Some(*t), |n| Some(n.min(*t)));
        }
        if ep.state() == WwpState::Closed {
            let t = last_heard + linger;
            next = next.map_or(Some(t), |n| Some(n.min(t)));
        }
        wait_fd(fd, libc::POLLIN, clock.timeout_until(next, WAIT_CAP));
    };
    let end = clock.now();
    if let App::Receiver { delivered, .. } = &app {
        if r.progress.last().is_none_or(|p| p[1] != *delivered) {
            r.progress.push([clock.unix_ns(end), *delivered]);
        }
    }
    match app {
        App::Sender { hash, written, .. } => {
            r.written_bytes = written;
            r.written_sha256 = hex(&hash.finalize());
        }
        App::Receiver { hash, delivered, .. } => {
            r.delivered_bytes = delivered;
            r.delivered_sha256 = hex(&hash.finalize());
        }
    }
    if r.timers > 0 {
        r.timer_late_mean_us = late_sum_ns as f64 / r.timers as f64 / 1e3;
    }
    r.peer = peer.map(|p| p.to_string()).unwrap_or_default();
    r.outcome = outcome;
    r.state = state_name(ep.state()).into();
    r.end_ns = clock.unix_ns(end);
    r.stats = ep.stats().clone();
    Ok(r)
}

/// Binds a UDP socket to `addr` (`0.0.0.0:0` for the sender's ephemeral port).
pub fn bind(addr: SocketAddr) -> Result<UdpSocket, String> {
    UdpSocket::bind(addr).map_err(|e| format!("bind {addr}: {e}"))
}
