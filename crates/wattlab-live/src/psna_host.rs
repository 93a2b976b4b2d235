//! Hosting seed 001's PSNA (`wattlab_core::psna`) live: the daemon in the AP's namespace, on a
//! UDP socket towards the mobile and real Linux TCP connections to the fixed host; the mobile
//! in the client's namespace, on a UDP socket, switching its radio off and on as the engine
//! commands. Both engines are the simulator's, driven by the live clock ([`LiveClock`]) in a
//! non-blocking loop, as [`crate::wwp_host`] drives WWP.
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
use crate::nfqueue::loop_end;
use crate::udp::recv_batch;
use crate::payload::{hex, Payload};

/// Largest datagram read (a PS-TP DATA message is at most 18 + 1454 bytes).
const MAX_DATAGRAM: usize = 2048;
/// Datagrams read per loop turn before timers and transmissions get their turn.
const RECV_BATCH: usize = 64;
/// Longest wait of the loop (it checks its stop flag and limits at least this often).
const WAIT_CAP: StdDuration = StdDuration::from_millis(20);
/// How often a send's FH connection is checked for newly acknowledged bytes while some are
/// outstanding (the simulator's host looks every 50 ms; TCP has no event per ACK).
const ACK_POLL: StdDuration = StdDuration::from_millis(10);
/// Bytes read from an FH connection per call (the estimator counts ⌈bytes / 1460⌉ packets).
const FH_READ: usize = 64 * 1024;

/// A datagram address as the core's [`Endpoint`] (IPv4 only: the testbed has no IPv6).
fn endpoint(a: SocketAddr) -> Option<Endpoint> {
    match a {
        SocketAddr::V4(v) => Some(Endpoint::new(*v.ip(), v.port())),
        SocketAddr::V6(_) => None,
    }
}

/// Waits until one of `fds` is ready or `timeout` passes (or a signal arrives).
fn wait_fds(fds: &mut [libc::pollfd], timeout: StdDuration) {
    let ts = libc::timespec { tv_sec: timeout.as_secs() as libc::time_t, tv_nsec: timeout.subsec_nanos() as libc::c_long };
    // SAFETY: valid pollfds, a valid timespec, no signal mask change.
    unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &ts, std::ptr::null()) };
}

/// Sends one datagram; a full buffer or a refused peer loses it (PS-TP retransmits).
fn send(sock: &UdpSocket, to: SocketAddr, bytes: &[u8]) -> Result<bool, String> {
    match sock.send_to(bytes, to) {
        Ok(_) => Ok(true),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::ConnectionRefused | ErrorKind::Interrupted) => Ok(false),
        Err(e) if e.raw_os_error() == Some(libc::ENOBUFS) => Ok(false),
        Err(e) => Err(format!("sending to {to}: {e}")),
    }
}

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

/// The daemon's host: its engine, its FH connections and its counters.
struct DaemonHost<'a> {
    d: PsnaDaemon,
    cfg: &'a DaemonHostConfig,
    clock: LiveClock,
    fhs: Vec<Fh>,
    r: DaemonHostReport,
    buf: Vec<u8>,
}

impl DaemonHost<'_> {
    fn command(&mut self, now: Time, c: FhCommand) {
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
                        self.d.handle_fh_aborted(now, fh);
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
    fn pump_fh(&mut self, now: Time) {
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
                        self.d.handle_fh_aborted(now, f.id);
                        continue;
                    }
                    Ok(None) => {}
                }
                if f.sock.peer_addr().is_err() {
                    continue; // still connecting
                }
                f.connected = true;
                self.d.handle_fh_connected(now, f.id);
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
                let out = self.d.fh_outgoing(f.id);
                if !out.is_empty() {
                    if let Ok(w) = f.sock.send(out) {
                        self.d.fh_written(f.id, w);
                        f.written += w as u64;
                        self.r.fh_bytes_written += w as u64;
                    }
                }
                if f.closing && !f.shut && self.d.fh_outgoing(f.id).is_empty() {
                    let _ = f.sock.shutdown(Shutdown::Write);
                    f.shut = true;
                }
                let acked = f.written - unacked(f.sock.as_raw_fd()).min(f.written);
                if acked > f.acked {
                    self.r.fh_bytes_acked += acked - f.acked;
                    self.d.handle_fh_acked(now, f.id, acked - f.acked);
                    f.acked = acked;
                }
            }
            // Data (read), the FH's FIN, or a reset.
            loop {
                match (&f.sock).read(&mut self.buf[..FH_READ]) {
                    Ok(0) => {
                        self.d.handle_fh_closed(now, f.id);
                        f.done = true;
                        break;
                    }
                    Ok(n) => {
                        if f.dir == Direction::Read {
                            self.r.fh_bytes_received += n as u64;
                            self.d.handle_fh_data(now, f.id, &self.buf[..n]);
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.r.fh_errors.push(format!("reset: {e}"));
                        self.d.handle_fh_aborted(now, f.id);
                        f.done = true;
                        break;
                    }
                }
            }
        }
        // Finished connections are closed (dropping the socket), keeping the order of the rest.
        self.fhs.retain(|f| !f.done);
    }

    fn events(&mut self) {
        while let Some(e) = self.d.poll_event() {
            match e {
                DaemonEvent::Residual { at, residual, .. } => self.r.residuals.push([self.clock.unix_ns(at), residual.0 / 1_000_000]),
                DaemonEvent::Sampled { sample, .. } => {
                    self.r.samples += 1;
                    self.r.final_estimate_bps = Some(sample.estimate * 8.0);
                }
                DaemonEvent::FhComplete { at, .. } => self.r.fh_complete_ns.push(self.clock.unix_ns(at)),
                DaemonEvent::Completed { at, .. } => self.r.completed_ns.push(self.clock.unix_ns(at)),
                DaemonEvent::Failed { code, .. } => self.r.failed.push(code.describe().to_string()),
                DaemonEvent::Started { .. } | DaemonEvent::Abandoned { .. } => {}
            }
        }
    }
}

/// Runs the PSNA daemon on `sock` (bound; non-blocking is set here) until `stop` is set or a
/// limit is reached; `on_ready` is called once it listens.
pub fn run_daemon(sock: UdpSocket, cfg: &DaemonHostConfig, stop: &AtomicBool, on_ready: impl FnOnce()) -> Result<DaemonHostReport, String> {
    let clock = LiveClock::start();
    sock.set_nonblocking(true).map_err(|e| format!("non-blocking socket: {e}"))?;
    let local = sock.local_addr().map_err(|e| format!("local address: {e}"))?;
    let d = PsnaDaemon::new(cfg.daemon.clone()).map_err(|e| e.to_string())?;
    let now0 = clock.now();
    let r = DaemonHostReport { local: local.to_string(), start_ns: clock.unix_ns(now0), ..DaemonHostReport::default() };
    let mut h = DaemonHost { d, cfg, clock, fhs: Vec::new(), r, buf: vec![0u8; FH_READ] };
    on_ready();
    let limit = now0 + wattlab_core::Duration(cfg.time_limit.as_nanos() as u64);
    let (mut rbuf, mut tbuf) = (vec![0u8; MAX_DATAGRAM], Vec::with_capacity(MAX_DATAGRAM));
    let mut fds: Vec<libc::pollfd> = Vec::with_capacity(16);
    let outcome = loop {
        let now = clock.now();
        if let Some(end) = loop_end(stop, now, limit, h.r.datagrams_sent + h.r.datagrams_received, cfg.max_datagrams) {
            break end;
        }
        recv_batch(&sock, &mut rbuf, RECV_BATCH, |d, from| {
            h.r.datagrams_received += 1;
            if let Some(from) = endpoint(from) {
                if h.d.handle_datagram(now, from, d).is_err() {
                    h.r.datagrams_bad += 1;
                }
            }
        })?;
        if h.d.poll_timeout().is_some_and(|t| t <= now) {
            h.d.handle_timeout(now);
        }
        while let Some(c) = h.d.poll_fh() {
            h.command(now, c);
        }
        h.pump_fh(now);
        while let Some(c) = h.d.poll_fh() {
            h.command(now, c);
        }
        h.pump_fh(now); // a Close or Abort just issued takes effect now
        h.events();
        while let Some(to) = h.d.poll_transmit(&mut tbuf) {
            let to = SocketAddr::V4(SocketAddrV4::new(to.addr, to.port));
            if send(&sock, to, &tbuf)? {
                h.r.datagrams_sent += 1;
            } else {
                h.r.send_dropped += 1;
            }
        }
        // Wait for a datagram, FH data or writability, the engine's timer, or an ACK poll.
        fds.clear();
        fds.push(libc::pollfd { fd: sock.as_raw_fd(), events: libc::POLLIN, revents: 0 });
        let mut cap = WAIT_CAP;
        for f in &h.fhs {
            let out = !f.connected || f.request_left > 0 || (f.dir == Direction::Send && !h.d.fh_outgoing(f.id).is_empty());
            fds.push(libc::pollfd { fd: f.sock.as_raw_fd(), events: libc::POLLIN | if out { libc::POLLOUT } else { 0 }, revents: 0 });
            if f.dir == Direction::Send && f.written > f.acked {
                cap = ACK_POLL;
            }
        }
        let next = [h.d.poll_timeout(), Some(limit)].into_iter().flatten().min();
        wait_fds(&mut fds, clock.timeout_until(next, cap));
    };
    let end = clock.now();
    let st = *h.d.stats();
    let mut r = h.r;
    r.outcome = outcome.into();
    r.end_ns = clock.unix_ns(end);
    r.polls = st.polls;
    r.data_sent = st.data_sent;
    r.stale = st.stale;
    r.datagrams_bad = r.datagrams_bad.max(st.bad_datagrams); // the engine counts the same refusals
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

/// Runs one PSNA transfer from the mobile on `sock` (bound; non-blocking is set here) until
/// it completes or fails, a limit is reached or `stop` is set.
pub fn run_mobile(sock: UdpSocket, cfg: &MobileHostConfig, stop: &AtomicBool) -> Result<MobileHostReport, String> {
    let clock = LiveClock::start();
    sock.set_nonblocking(true).map_err(|e| format!("non-blocking socket: {e}"))?;
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
    let limit = now0 + wattlab_core::Duration(cfg.time_limit.as_nanos() as u64);
    let (mut rbuf, mut tbuf) = (vec![0u8; MAX_DATAGRAM], Vec::with_capacity(MAX_DATAGRAM));
    let fd = sock.as_raw_fd();
    let outcome = loop {
        let now = clock.now();
        if let Some(end) = loop_end(stop, now, limit, r.datagrams_sent + r.datagrams_received, cfg.max_datagrams) {
            break end.to_string();
        }
        recv_batch(&sock, &mut rbuf, RECV_BATCH, |d, from| {
            if from != cfg.daemon {
                return;
            }
            if !m.radio_on() {
                r.dropped_radio_off += 1; // the card had no power when it arrived
                return;
            }
            r.datagrams_received += 1;
            let _ = m.handle_datagram(now, d);
        })?;
        if m.poll_timeout().is_some_and(|t| t <= now) {
            m.handle_timeout(now);
        }
        // Radio first: an On goes out before the Poll it precedes, an Off after the last send
        // (the engine emits the Off with the final message; both are drained this turn).
        let mut off_after_send = false;
        while let Some(c) = m.poll_radio() {
            r.radio.push([clock.unix_ns(c.at), u64::from(c.on)]);
            if c.on {
                radio.switch(clock.unix_ns(c.at), true)?;
            } else {
                off_after_send = true;
            }
        }
        while let Some(n) = m.poll_transmit(&mut tbuf) {
            if send(&sock, cfg.daemon, &tbuf[..n])? {
                r.datagrams_sent += 1;
            } else {
                r.send_dropped += 1;
            }
        }
        if off_after_send && !m.radio_on() {
            radio.switch(clock.unix_ns(now), false)?;
        }
        let mut end = None;
        while let Some(e) = m.poll_event() {
            match e {
                MobileEvent::Residual { at, residual } => r.residuals.push([clock.unix_ns(at), residual.0 / 1_000_000]),
                MobileEvent::Completed { bytes, .. } => {
                    r.bytes = bytes;
                    if let Some(obj) = m.take_object() {
                        r.bytes = obj.len() as u64;
                        hash.update(&obj);
                    }
                    end = Some("completed".to_string());
                }
                MobileEvent::Failed { error, .. } => {
                    r.error = Some(error.to_string());
                    end = Some("failed".to_string());
                }
            }
        }
        if let Some(o) = end {
            r.done_ns = clock.unix_ns(now);
            break o;
        }
        let next = [m.poll_timeout(), Some(limit)].into_iter().flatten().min();
        let mut pfd = [libc::pollfd { fd, events: libc::POLLIN, revents: 0 }];
        wait_fds(&mut pfd, clock.timeout_until(next, WAIT_CAP));
    };
    // Every ending switches the radio off (the paper's final SuspendCard), already logged.
    radio.log.flush().map_err(|e| format!("{}: {e}", cfg.transitions.display()))?;
    let st = *m.stats();
    let to = if r.done_ns > 0 { r.done_ns } else { clock.unix_ns(clock.now()) };
    r.radio_on_s = on_time_s(&r.radio, r.start_ns, to);
    r.sha256 = hex(&hash.finalize());
    r.outcome = outcome;
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
