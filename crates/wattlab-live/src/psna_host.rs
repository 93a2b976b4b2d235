//! Hosting seed 001's PSNA (`wattlab_core::psna`) live: the daemon in the AP's namespace, on a
//! UDP socket towards the mobile and real Linux TCP connections to the fixed host; the mobile
//! in the client's namespace, on a UDP socket, switching its radio off and on as the engine
//! commands. Both engines are the simulator's, on the generic host ([`crate::host`]); this
//! module is their applications.
//!
//! The mobile's radio switches go three ways: to its own receive path (a datagram arriving
//! while the radio is off is discarded: the card is unpowered), to the emulator over a Unix
//! datagram socket (so the path loses frames for an off radio, as the simulator's hop does),
//! and to `transitions.csv` (the energy is the replay of that schedule over the capture).
//! Every loop is bounded by a time limit and a datagram count, and a stop flag
//! (SIGINT/SIGTERM) ends it with the report of what happened so far.

use std::fs::File;
use std::io::{BufWriter, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, SocketAddrV4, UdpSocket};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixDatagram;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration as StdDuration;

use serde::Serialize;
use sha2::{Digest, Sha256};
use socket2::{Domain, Protocol, Socket, Type};
use wattlab_core::psna::{DaemonConfig, DaemonEvent, Direction, FhCommand, FhId, MobileConfig, MobileEvent, PsnaDaemon, PsnaMobile};
use wattlab_core::{Endpoint, Time};

use crate::apps::SocketTcp;
use crate::clock::LiveClock;
use crate::host::{HostApp, HostConfig, HostStats, Peer};
use crate::payload::{hex, Payload};

/// How often a send's FH connection is checked for newly acknowledged bytes while some are
/// outstanding (the simulator's host looks every 50 ms; TCP has no event per ACK).
const ACK_POLL: StdDuration = StdDuration::from_millis(10);
/// Bytes read from an FH connection per call (the estimator counts ⌈bytes / 1460⌉ packets).
const FH_READ: usize = 64 * 1024;

/// Bytes of a TCP socket's send queue not yet acknowledged (`SIOCOUTQ`; a sent FIN counts 1).
fn unacked(fd: libc::c_int) -> u64 {
    let mut n: libc::c_int = 0;
    // SAFETY: TIOCOUTQ (= SIOCOUTQ) writes one int.
    let r = unsafe { libc::ioctl(fd, libc::TIOCOUTQ, &mut n) };
    if r == 0 { n.max(0) as u64 } else { 0 }
}

// ---- the daemon ---------------------------------------------------------------------------

/// What the daemon's host runs.
#[derive(Clone, Debug)]
pub struct DaemonHostConfig {
    /// The daemon's parameters.
    pub daemon: DaemonConfig,
    /// Bytes of request written on a read's FH connection (the `serve` app reads them first).
    pub request: u64,
    /// TCP options of the FH connections.
    pub tcp: SocketTcp,
    /// The host ends after this long.
    pub time_limit: StdDuration,
    /// The host ends after this many datagrams.
    pub max_datagrams: u64,
}

/// What the daemon's host reports (JSON).
#[derive(Clone, Debug, Default, Serialize)]
pub struct DaemonHostReport {
    /// The UDP socket's local address.
    pub local: String,
    /// `stopped`, `time-limit` or `count-limit` (the daemon is a server: it runs until told).
    pub outcome: String,
    /// Unix ns when the host started and ended.
    pub start_ns: u64,
    /// Unix ns when the host ended.
    pub end_ns: u64,
    /// Datagrams received, sent, refused as undecodable, from non-IPv4 peers.
    pub datagrams_received: u64,
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// Datagrams lost to a full socket buffer or a refused peer.
    pub send_dropped: u64,
    /// Datagrams that did not decode.
    pub datagrams_bad: u64,
    /// FH connections opened.
    pub fh_connections: u64,
    /// Bytes read from FH connections (reads).
    pub fh_bytes_received: u64,
    /// Bytes written to FH connections (sends).
    pub fh_bytes_written: u64,
    /// Bytes the FH acknowledged (sends).
    pub fh_bytes_acked: u64,
    /// FH connections that failed or were reset (`refused: ...`, `reset: ...`).
    pub fh_errors: Vec<String>,
    /// Residual_Times announced, `[unix_ns, ms]`.
    pub residuals: Vec<[u64; 2]>,
    /// Estimator samples taken.
    pub samples: u64,
    /// The last estimate λ̄, bits/s.
    pub final_estimate_bps: Option<f64>,
    /// Unix ns when an object was entirely at the AP (read) or acknowledged by the FH (send).
    pub fh_complete_ns: Vec<u64>,
    /// Unix ns of each transfer the mobile completed.
    pub completed_ns: Vec<u64>,
    /// Failed transfers: the error sent to the mobile.
    pub failed: Vec<String>,
    /// Polls answered, DATA messages sent, stale requests ignored.
    pub polls: u64,
    /// DATA messages sent.
    pub data_sent: u64,
    /// Requests older than their transfer's latest, ignored.
    pub stale: u64,
}

/// One FH connection of the daemon.
struct Fh {
    id: FhId,
    sock: Socket,
    dir: Direction,
    connected: bool,
    request_left: u64,
    written: u64,
    acked: u64,
    /// Close after the relay buffer is drained (send).
    closing: bool,
    shut: bool,
    done: bool,
}

/// Opens a non-blocking TCP connection to `to`.
fn connect(to: SocketAddrV4, tcp: &SocketTcp) -> std::io::Result<Socket> {
    let sock = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    crate::apps::apply(&sock, tcp).map_err(std::io::Error::other)?;
    sock.set_nonblocking(true)?;
    match sock.connect(&SocketAddr::V4(to).into()) {
        Ok(()) => Ok(sock),
        Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => Ok(sock),
        Err(e) => Err(e),
    }
}

/// The daemon's application on the generic host: its FH connections and its counters.
struct DaemonHost<'a> {
    cfg: &'a DaemonHostConfig,
    clock: LiveClock,
    fhs: Vec<Fh>,
    r: DaemonHostReport,
    buf: Vec<u8>,
}

impl DaemonHost<'_> {
    fn command(&mut self, d: &mut PsnaDaemon, now: Time, c: FhCommand) {
        match c {
            FhCommand::Open { fh, addr, port, dir, .. } => {
                self.r.fh_connections += 1;
                match connect(SocketAddrV4::new(addr, port), &self.cfg.tcp) {
                    Ok(sock) => {
                        let request_left = if dir == Direction::Read { self.cfg.request } else { 0 };
                        self.fhs.push(Fh { id: fh, sock, dir, connected: false, request_left, written: 0, acked: 0, closing: false, shut: false, done: false });
                    }
                    Err(e) => {
                        self.r.fh_errors.push(format!("connect {addr}:{port}: {e}"));
                        d.handle_fh_aborted(now, fh);
                    }
                }
            }
            FhCommand::Close(id) => {
                if let Some(f) = self.fhs.iter_mut().find(|f| f.id == id && !f.done) {
                    if f.dir == Direction::Read {
                        f.done = true; // dropped below: close(2) sends the FIN
                    } else {
                        f.closing = true;
                    }
                }
            }
            FhCommand::Abort(id) => {
                if let Some(f) = self.fhs.iter_mut().find(|f| f.id == id && !f.done) {
                    let _ = f.sock.set_linger(Some(StdDuration::ZERO)); // close(2) sends a RST
                    f.done = true;
                }
            }
        }
    }

    /// Moves data between the FH connections and the engine.
    fn pump_fh(&mut self, d: &mut PsnaDaemon, now: Time) {
        for i in 0..self.fhs.len() {
            let f = &mut self.fhs[i];
            if f.done {
                continue;
            }
            if !f.connected {
                match f.sock.take_error() {
                    Ok(Some(e)) | Err(e) => {
                        self.r.fh_errors.push(format!("connect: {e}"));
                        f.done = true;
                        d.handle_fh_aborted(now, f.id);
                        continue;
                    }
                    Ok(None) => {}
                }
                if f.sock.peer_addr().is_err() {
                    continue; // still connecting
                }
                f.connected = true;
                d.handle_fh_connected(now, f.id);
            }
            // A read's request, as the FH's application protocol wants it.
            while f.request_left > 0 {
                let n = f.request_left.min(self.buf.len() as u64) as usize;
                self.buf[..n].fill(b'G');
                match f.sock.send(&self.buf[..n]) {
                    Ok(w) => f.request_left -= w as u64,
                    Err(_) => break, // would block (retried next turn) or reset (seen by the read)
                }
            }
            if f.dir == Direction::Send {
                let out = d.fh_outgoing(f.id);
                if !out.is_empty() {
                    if let Ok(w) = f.sock.send(out) {
                        d.fh_written(f.id, w);
                        f.written += w as u64;
                        self.r.fh_bytes_written += w as u64;
                    }
                }
                if f.closing && !f.shut && d.fh_outgoing(f.id).is_empty() {
                    let _ = f.sock.shutdown(Shutdown::Write);
                    f.shut = true;
                }
                let acked = f.written - unacked(f.sock.as_raw_fd()).min(f.written);
                if acked > f.acked {
                    self.r.fh_bytes_acked += acked - f.acked;
                    d.handle_fh_acked(now, f.id, acked - f.acked);
                    f.acked = acked;
                }
            }
            // Data (read), the FH's FIN, or a reset.
            loop {
                match (&f.sock).read(&mut self.buf[..FH_READ]) {
                    Ok(0) => {
                        d.handle_fh_closed(now, f.id);
                        f.done = true;
                        break;
                    }
                    Ok(n) => {
                        if f.dir == Direction::Read {
                            self.r.fh_bytes_received += n as u64;
                            d.handle_fh_data(now, f.id, &self.buf[..n]);
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.r.fh_errors.push(format!("reset: {e}"));
                        d.handle_fh_aborted(now, f.id);
                        f.done = true;
                        break;
                    }
                }
            }
        }
        // Finished connections are closed (dropping the socket), keeping the order of the rest.
        self.fhs.retain(|f| !f.done);
    }
}

impl HostApp<PsnaDaemon> for DaemonHost<'_> {
    fn pump(&mut self, d: &mut PsnaDaemon, now: Time) -> Result<(), String> {
        self.pump_fh(d, now);
        Ok(())
    }

    fn on_event(&mut self, d: &mut PsnaDaemon, now: Time, e: DaemonEvent) -> Result<(), String> {
        match e {
            DaemonEvent::Fh(c) => self.command(d, now, c),
            DaemonEvent::Residual { at, residual, .. } => self.r.residuals.push([self.clock.unix_ns(at), residual.0 / 1_000_000]),
            DaemonEvent::Sampled { sample, .. } => {
                self.r.samples += 1;
                self.r.final_estimate_bps = Some(sample.estimate * 8.0);
            }
            DaemonEvent::FhComplete { at, .. } => self.r.fh_complete_ns.push(self.clock.unix_ns(at)),
            DaemonEvent::Completed { at, .. } => self.r.completed_ns.push(self.clock.unix_ns(at)),
            DaemonEvent::Failed { code, .. } => self.r.failed.push(code.describe().to_string()),
            // A send's relay bytes are moved by the next pump.
            DaemonEvent::Input | DaemonEvent::Started { .. } | DaemonEvent::Abandoned { .. } => {}
        }
        Ok(())
    }

    /// FH data or writability; ACK polls while a send has bytes outstanding.
    fn wait(&self, d: &PsnaDaemon, fds: &mut Vec<libc::pollfd>, _host: &HostStats) -> (Option<Time>, Option<StdDuration>) {
        let mut cap = None;
        for f in &self.fhs {
            let out = !f.connected || f.request_left > 0 || (f.dir == Direction::Send && !d.fh_outgoing(f.id).is_empty());
            fds.push(libc::pollfd { fd: f.sock.as_raw_fd(), events: libc::POLLIN | if out { libc::POLLOUT } else { 0 }, revents: 0 });
            if f.dir == Direction::Send && f.written > f.acked {
                cap = Some(ACK_POLL);
            }
        }
        (None, cap)
    }
}

/// Runs the PSNA daemon on `sock` (bound; non-blocking is set here) until `stop` is set or a
/// limit is reached; `on_ready` is called once it listens.
pub fn run_daemon(sock: UdpSocket, cfg: &DaemonHostConfig, stop: &AtomicBool, on_ready: impl FnOnce()) -> Result<DaemonHostReport, String> {
    let clock = LiveClock::start();
    let mut d = PsnaDaemon::new(cfg.daemon.clone()).map_err(|e| e.to_string())?;
    let mut h = DaemonHost { cfg, clock, fhs: Vec::new(), r: DaemonHostReport::default(), buf: vec![0u8; FH_READ] };
    let host = HostConfig { time_limit: cfg.time_limit, max_datagrams: cfg.max_datagrams, ..HostConfig::new(Peer::Any) };
    on_ready();
    let hs = crate::host::run(&sock, &mut d, &mut h, &clock, &host, stop)?;
    let st = *d.stats();
    let mut r = h.r;
    r.local = hs.local;
    r.outcome = hs.outcome;
    (r.start_ns, r.end_ns) = (hs.start_ns, hs.end_ns);
    (r.datagrams_received, r.datagrams_sent, r.send_dropped) = (hs.received + hs.ignored, hs.sent, hs.send_dropped);
    r.polls = st.polls;
    r.data_sent = st.data_sent;
    r.stale = st.stale;
    r.datagrams_bad = hs.refused.max(st.bad_datagrams); // the engine counts the same refusals
    Ok(r)
}

// ---- the mobile ---------------------------------------------------------------------------

/// What the mobile's host runs.
#[derive(Clone, Debug)]
pub struct MobileHostConfig {
    /// The daemon's UDP address.
    pub daemon: SocketAddr,
    /// The fixed host's TCP address (named in the request).
    pub fh: SocketAddrV4,
    /// Read the object (true) or send it.
    pub read: bool,
    /// The object's size.
    pub bytes: u64,
    /// Key of the payload (a send's data; a read's expected digest is checked by the caller).
    pub payload_key: u64,
    /// The mobile's parameters.
    pub mobile: MobileConfig,
    /// The first transfer id (a live mobile starts from a random one: docs/psna.md).
    pub first_id: u32,
    /// Where the radio switches go: the emulator's socket, if any.
    pub radio_socket: Option<PathBuf>,
    /// The radio schedule for the energy replay (`time_ns,state`).
    pub transitions: PathBuf,
    /// The host ends after this long.
    pub time_limit: StdDuration,
    /// The host ends after this many datagrams.
    pub max_datagrams: u64,
}

/// What the mobile's host reports (JSON).
#[derive(Clone, Debug, Default, Serialize)]
pub struct MobileHostReport {
    /// `read` or `send`.
    pub direction: String,
    /// `completed`, `failed`, `time-limit`, `count-limit` or `stopped`.
    pub outcome: String,
    /// The mobile's error (a failure), in words.
    pub error: Option<String>,
    /// The transfer's id.
    pub transfer: u32,
    /// Unix ns of the request (the application's call).
    pub start_ns: u64,
    /// Unix ns when the transfer completed or failed (0: neither).
    pub done_ns: u64,
    /// Bytes read (read) or delivered (send) as the engine reports them.
    pub bytes: u64,
    /// SHA-256 of the object read (read) or sent (send).
    pub sha256: String,
    /// Radio switches, `[unix_ns, 1 on / 0 off]`.
    pub radio: Vec<[u64; 2]>,
    /// Radio-on time from the request to the end of the transfer, s.
    pub radio_on_s: f64,
    /// Residual_Times received, `[unix_ns, ms]`.
    pub residuals: Vec<[u64; 2]>,
    /// PS-TP requests, retransmissions, polls, sleeps.
    pub requests: u64,
    /// Retransmissions.
    pub retransmissions: u64,
    /// Polls.
    pub polls: u64,
    /// Sleeps (radio off for a Residual_Time).
    pub sleeps: u64,
    /// Datagrams sent and received.
    pub datagrams_sent: u64,
    /// Datagrams received (radio on).
    pub datagrams_received: u64,
    /// Datagrams that arrived while the radio was off (discarded: the card had no power).
    pub dropped_radio_off: u64,
    /// Datagrams lost to a full socket buffer.
    pub send_dropped: u64,
}

/// The mobile's radio outputs: the emulator's socket and the schedule file.
struct Radio {
    sock: Option<(UnixDatagram, PathBuf)>,
    log: BufWriter<File>,
    path: PathBuf,
}

impl Radio {
    fn switch(&mut self, unix_ns: u64, on: bool) -> Result<(), String> {
        if let Some((s, p)) = &self.sock {
            s.send_to(if on { b"1" } else { b"0" }, p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        writeln!(self.log, "{unix_ns},{}", if on { "awake" } else { "off" }).map_err(|e| format!("{}: {e}", self.path.display()))
    }
}

/// A transfer id unlikely to repeat across runs (the clock's nanoseconds mixed with the
/// process id): a restarted mobile must not reuse an id still lingering at the daemon.
pub fn fresh_transfer_id() -> u32 {
    let ns = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos() as u64;
    let x = ns ^ (u64::from(std::process::id()) << 32);
    (x ^ (x >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) as u32
}

/// Radio-on time within `[from, to]` of `switches` (`[unix_ns, on]`), on at `from`.
pub fn on_time_s(switches: &[[u64; 2]], from: u64, to: u64) -> f64 {
    let (mut on, mut since, mut total) = (true, from, 0u64);
    for &[t, s] in switches {
        let t = t.clamp(from, to);
        if on && s == 0 {
            total += t - since;
        }
        if s == 1 && !on {
            since = t;
        }
        on = s == 1;
    }
    if on {
        total += to.saturating_sub(since);
    }
    total as f64 / 1e9
}

/// The mobile's application on the generic host: its radio, its object and its report.
struct MobileHost {
    radio: Radio,
    clock: LiveClock,
    r: MobileHostReport,
    hash: Sha256,
    end: Option<String>,
}

impl HostApp<PsnaMobile> for MobileHost {
    /// A datagram that arrives while the radio is off is lost: the card had no power.
    fn admit(&mut self, m: &PsnaMobile, _now: Time) -> bool {
        if !m.radio_on() {
            self.r.dropped_radio_off += 1;
        }
        m.radio_on()
    }

    /// Radio commands come first: an On before the Poll it precedes (the engine holds the Poll
    /// until the On was polled), an Off after the last message (which the flush sent first).
    fn on_event(&mut self, m: &mut PsnaMobile, now: Time, e: MobileEvent) -> Result<(), String> {
        let clock = self.clock;
        match e {
            MobileEvent::Radio(c) => {
                self.r.radio.push([clock.unix_ns(c.at), u64::from(c.on)]);
                if c.on {
                    self.radio.switch(clock.unix_ns(c.at), true)?;
                } else if !m.radio_on() {
                    self.radio.switch(clock.unix_ns(now), false)?;
                }
            }
            MobileEvent::Residual { at, residual } => self.r.residuals.push([clock.unix_ns(at), residual.0 / 1_000_000]),
            MobileEvent::Completed { bytes, .. } => {
                self.r.bytes = bytes;
                if let Some(obj) = m.take_object() {
                    self.r.bytes = obj.len() as u64;
                    self.hash.update(&obj);
                }
                self.r.done_ns = clock.unix_ns(now);
                self.end = Some("completed".to_string());
            }
            MobileEvent::Failed { error, .. } => {
                self.r.error = Some(error.to_string());
                self.r.done_ns = clock.unix_ns(now);
                self.end = Some("failed".to_string());
            }
        }
        Ok(())
    }

    fn outcome(&mut self, _m: &PsnaMobile, _now: Time, _host: &HostStats) -> Option<String> {
        self.end.clone()
    }
}

/// Runs one PSNA transfer from the mobile on `sock` (bound; non-blocking is set here) until
/// it completes or fails, a limit is reached or `stop` is set.
pub fn run_mobile(sock: UdpSocket, cfg: &MobileHostConfig, stop: &AtomicBool) -> Result<MobileHostReport, String> {
    let clock = LiveClock::start();
    let log = BufWriter::new(File::create(&cfg.transitions).map_err(|e| format!("{}: {e}", cfg.transitions.display()))?);
    let rsock = match &cfg.radio_socket {
        Some(p) => Some((UnixDatagram::unbound().map_err(|e| format!("unix socket: {e}"))?, p.clone())),
        None => None,
    };
    let mut radio = Radio { sock: rsock, log, path: cfg.transitions.clone() };
    writeln!(radio.log, "time_ns,state").map_err(|e| format!("{}: {e}", cfg.transitions.display()))?;
    let mut m = PsnaMobile::new(cfg.mobile.clone(), cfg.first_id, true).map_err(|e| e.to_string())?;
    let fh = Endpoint::new(*cfg.fh.ip(), cfg.fh.port());
    let mut hash = Sha256::new();
    let now0 = clock.now();
    let started = if cfg.read {
        m.read(now0, fh, "obj", Some(cfg.bytes))
    } else {
        let mut data = Vec::with_capacity(cfg.bytes as usize);
        Payload::new(cfg.payload_key, cfg.bytes).read_to_end(&mut data).map_err(|e| format!("generating the payload: {e}"))?;
        hash.update(&data);
        m.send(now0, fh, "obj", data)
    };
    let mut r = MobileHostReport { direction: if cfg.read { "read" } else { "send" }.into(), start_ns: clock.unix_ns(now0), ..MobileHostReport::default() };
    r.transfer = started.map_err(|e| format!("the mobile refused the transfer: {e}"))?;
    let mut h = MobileHost { radio, clock, r, hash, end: None };
    let host = HostConfig { time_limit: cfg.time_limit, max_datagrams: cfg.max_datagrams, ..HostConfig::new(Peer::Fixed(cfg.daemon)) };
    let hs = crate::host::run(&sock, &mut m, &mut h, &clock, &host, stop)?;
    // Every ending switches the radio off (the paper's final SuspendCard), already logged.
    h.radio.log.flush().map_err(|e| format!("{}: {e}", cfg.transitions.display()))?;
    let st = *m.stats();
    let mut r = h.r;
    let to = if r.done_ns > 0 { r.done_ns } else { hs.end_ns };
    r.radio_on_s = on_time_s(&r.radio, r.start_ns, to);
    r.sha256 = hex(&h.hash.finalize());
    r.outcome = hs.outcome;
    (r.datagrams_sent, r.datagrams_received, r.send_dropped) = (hs.sent, hs.received, hs.send_dropped);
    r.requests = st.requests;
    r.retransmissions = st.retransmissions;
    r.polls = st.polls;
    r.sleeps = st.sleeps;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::on_time_s;

    #[test]
    fn on_time_counts_the_on_intervals_within_the_window() {
        // On from 0; off at 2, on at 5, off at 6; window [0, 10] → 2 + 1 = 3 s.
        let s = [[2_000_000_000, 0], [5_000_000_000, 1], [6_000_000_000, 0]];
        assert!((on_time_s(&s, 0, 10_000_000_000) - 3.0).abs() < 1e-9);
        // Still on at the end: counted to the end.
        assert!((on_time_s(&s[..2], 0, 10_000_000_000) - 7.0).abs() < 1e-9);
        // No switches: on throughout.
        assert!((on_time_s(&[], 1_000_000_000, 4_000_000_000) - 3.0).abs() < 1e-9);
    }
}
