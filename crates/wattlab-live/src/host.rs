//! The one live host of every datagram engine (`wattlab_core::engine::Engine`): the engine on a
//! real UDP socket, driven by the live clock ([`LiveClock`]) in a non-blocking loop, exactly as
//! the simulator's `EngineSocket` drives the same engine. WWP ([`crate::wwp_host`]), the PSNA
//! mobile and daemon ([`crate::psna_host`]), the tunnel ([`crate::tunnel_host`]) and the echo
//! ([`crate::echo_host`]) are [`HostApp`]s on top of it: what they add is their application
//! (a payload source or sink, FH connections, a radio, a TUN device), never a loop of their own.
//!
//! One turn of the loop: read what arrived (a bounded batch; datagrams from anyone but the
//! peer are set aside), run the engine's timer if it is due, let the application move its data
//! ([`HostApp::pump`]), *flush* the engine (send every datagram it gives, hand every event to
//! the application, again while there were events; the contract in `wattlab_core::engine`), pump
//! and flush once more (so what an event asked, such as a connection to close, takes effect in
//! the same turn), then sleep in `ppoll` until a datagram, one of the application's
//! descriptors, the engine's or the application's next deadline, or at most `wait_cap`. Every
//! loop is bounded by a time limit and a datagram count, and a stop flag (SIGINT/SIGTERM) ends
//! it with what happened so far.

use std::io::ErrorKind;
use std::net::{SocketAddr, SocketAddrV4, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::AtomicBool;
use std::time::Duration as StdDuration;

use serde::Serialize;
use wattlab_core::engine::Engine;
use wattlab_core::{Duration, Endpoint, Time};

use crate::clock::LiveClock;
use crate::nfqueue::loop_end;
use crate::udp::recv_batch;

/// Largest datagram read (a UDP payload over IPv4 fits).
const MAX_DATAGRAM: usize = 65_536;
/// Most flush rounds per turn (an application whose events always queue more is a bug; the
/// bound keeps the loop finite).
const MAX_FLUSH_ROUNDS: usize = 1_000;

/// Whose datagrams the engine reads, and where a datagram without a destination goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// One peer, known from the start; datagrams from anyone else are ignored.
    Fixed(SocketAddr),
    /// The first address that writes becomes the peer; later strangers are counted `foreign`.
    First,
    /// Anyone (a server: each datagram the engine sends names its destination).
    Any,
}

/// How a host runs: its peer, its bounds and how it sends.
#[derive(Clone, Debug)]
pub struct HostConfig {
    /// Whose datagrams count.
    pub peer: Peer,
    /// The loop ends after this long whatever the state (outcome `time-limit`).
    pub time_limit: StdDuration,
    /// The loop ends after sending or receiving this many datagrams (outcome `count-limit`).
    pub max_datagrams: u64,
    /// Datagrams read per turn before timers and transmissions get their turn.
    pub batch: usize,
    /// Longest sleep (the loop checks its stop flag and limits at least this often).
    pub wait_cap: StdDuration,
    /// How long a send waits once for room in a full socket buffer before the datagram is
    /// given up (`None`: given up at once; the protocol retransmits).
    pub send_wait: Option<StdDuration>,
    /// A send error other than a full buffer or a refused peer loses the datagram instead of
    /// ending the run (the tunnel: SCTP recovers it).
    pub tolerate_send_errors: bool,
}

impl HostConfig {
    /// A host of `peer` with a 60 s time limit, 10 million datagrams, batches of 64, a 20 ms
    /// wait cap and no send wait.
    pub fn new(peer: Peer) -> HostConfig {
        HostConfig {
            peer,
            time_limit: StdDuration::from_secs(60),
            max_datagrams: 10_000_000,
            batch: 64,
            wait_cap: StdDuration::from_millis(20),
            send_wait: None,
            tolerate_send_errors: false,
        }
    }
}

/// What the host counted (each protocol's report copies the fields it names).
#[derive(Clone, Debug, Default, Serialize)]
pub struct HostStats {
    /// How the loop ended: the application's outcome, `time-limit`, `count-limit` or `stopped`.
    pub outcome: String,
    /// The socket's local address.
    pub local: String,
    /// The peer (empty if none spoke to a `First` host, or an `Any` host).
    pub peer: String,
    /// Unix ns when the loop started and ended.
    pub start_ns: u64,
    /// Unix ns when the loop ended.
    pub end_ns: u64,
    /// Datagrams sent.
    pub sent: u64,
    /// Datagrams from the peer that the application admitted and the engine read.
    pub received: u64,
    /// Datagrams the engine refused (undecodable, not its own).
    pub refused: u64,
    /// Datagrams from another address than a `First` host's peer.
    pub foreign: u64,
    /// Datagrams from another address than a `Fixed` host's peer, or not IPv4.
    pub ignored: u64,
    /// Datagrams given up: the socket's buffer stayed full, a send error the config tolerates,
    /// or no peer yet to send to.
    pub send_dropped: u64,
    /// Timer deadlines served.
    pub timers: u64,
    /// Largest lateness of timer service behind the deadline, µs.
    pub timer_late_max_us: f64,
    /// Mean lateness of timer service, µs.
    pub timer_late_mean_us: f64,
    /// When the peer was last heard (protocol time).
    #[serde(skip)]
    pub last_heard: Time,
}

/// The application on top of an engine: what a protocol adds to the host.
pub trait HostApp<E: Engine> {
    /// A datagram from the peer arrived: true to hand it to the engine (false: the application
    /// dropped it, e.g. the mobile's card was off, and counts it itself).
    fn admit(&mut self, _engine: &E, _now: Time) -> bool {
        true
    }

    /// Moves data between the application (its files and sockets) and the engine at `now`.
    fn pump(&mut self, _engine: &mut E, _now: Time) -> Result<(), String> {
        Ok(())
    }

    /// An event of the engine, at `now`.
    fn on_event(&mut self, engine: &mut E, now: Time, ev: E::Event) -> Result<(), String>;

    /// How the run ended, once it has (checked after every turn); `None`: keep going.
    fn outcome(&mut self, _engine: &E, _now: Time, _host: &HostStats) -> Option<String> {
        None
    }

    /// Adds the application's descriptors to wait on (the UDP socket is already in `fds`) and
    /// returns its own next deadline and, if shorter than the host's, its longest wait.
    fn wait(&self, _engine: &E, _fds: &mut Vec<libc::pollfd>, _host: &HostStats) -> (Option<Time>, Option<StdDuration>) {
        (None, None)
    }
}

/// A datagram address as the core's [`Endpoint`] (IPv4 only: the testbed has no IPv6).
pub fn endpoint(a: SocketAddr) -> Option<Endpoint> {
    match a {
        SocketAddr::V4(v) => Some(Endpoint::new(*v.ip(), v.port())),
        SocketAddr::V6(_) => None,
    }
}

/// Binds a UDP socket to `addr` (port 0: any).
pub fn bind(addr: SocketAddr) -> Result<UdpSocket, String> {
    UdpSocket::bind(addr).map_err(|e| format!("bind {addr}: {e}"))
}

/// Waits until one of `fds` is ready or `timeout` passes (or a signal arrives).
pub fn wait_fds(fds: &mut [libc::pollfd], timeout: StdDuration) {
    let ts = libc::timespec { tv_sec: timeout.as_secs() as libc::time_t, tv_nsec: timeout.subsec_nanos() as libc::c_long };
    // SAFETY: valid pollfds, a valid timespec, no signal mask change.
    unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &ts, std::ptr::null()) };
}

/// Sends one datagram to `to`. Returns false if it was given up (a full buffer after the
/// config's wait, or an error it tolerates). A refused datagram (ICMP port unreachable: the
/// peer is not bound yet, or gone) counts as sent: the network lost it.
fn send(sock: &UdpSocket, to: SocketAddr, bytes: &[u8], cfg: &HostConfig) -> Result<bool, String> {
    let mut waited = false;
    loop {
        match sock.send_to(bytes, to) {
            Ok(_) => return Ok(true),
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.raw_os_error() == Some(libc::ENOBUFS) => match cfg.send_wait {
                Some(w) if !waited => {
                    let mut pfd = [libc::pollfd { fd: sock.as_raw_fd(), events: libc::POLLOUT, revents: 0 }];
                    wait_fds(&mut pfd, w);
                    waited = true;
                }
                _ => return Ok(false),
            },
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => return Ok(true),
            Err(_) if cfg.tolerate_send_errors => return Ok(false),
            Err(e) => return Err(format!("sending to {to}: {e}")),
        }
    }
}

/// The host's loop state besides the engine and the application.
struct Loop<'a> {
    sock: &'a UdpSocket,
    cfg: &'a HostConfig,
    peer: Option<SocketAddr>,
    tbuf: Vec<u8>,
    stats: HostStats,
}

impl Loop<'_> {
    /// Sends every datagram the engine gives and hands every event to the application, again
    /// while there were events (bounded).
    fn flush<E: Engine, A: HostApp<E>>(&mut self, engine: &mut E, app: &mut A, now: Time) -> Result<(), String> {
        for _ in 0..MAX_FLUSH_ROUNDS {
            while let Some(t) = engine.poll_transmit(now, &mut self.tbuf) {
                let to = t.to.map(|e| SocketAddr::V4(SocketAddrV4::new(e.addr, e.port))).or(self.peer);
                let bytes = &self.tbuf[..t.len.min(self.tbuf.len())];
                match to {
                    Some(to) if send(self.sock, to, bytes, self.cfg)? => self.stats.sent += 1,
                    _ => self.stats.send_dropped += 1,
                }
            }
            let mut any = false;
            while let Some(ev) = engine.poll_event() {
                any = true;
                app.on_event(engine, now, ev)?;
            }
            if !any {
                return Ok(());
            }
        }
        Err(format!("the engine kept producing events for {MAX_FLUSH_ROUNDS} rounds (a wattlab bug)"))
    }
}

/// Runs `engine` with `app` on `sock` (bound; non-blocking is set here) until the application
/// says the run is over, a limit is reached or `stop` is set. `clock` is the one the engine was
/// created with (its `Time::ZERO`).
pub fn run<E: Engine, A: HostApp<E>>(sock: &UdpSocket, engine: &mut E, app: &mut A, clock: &LiveClock, cfg: &HostConfig, stop: &AtomicBool) -> Result<HostStats, String> {
    sock.set_nonblocking(true).map_err(|e| format!("non-blocking socket: {e}"))?;
    let local = sock.local_addr().map_err(|e| format!("local address: {e}"))?;
    let now0 = clock.now();
    let peer = match cfg.peer {
        Peer::Fixed(p) => Some(p),
        Peer::First | Peer::Any => None,
    };
    let stats = HostStats { local: local.to_string(), start_ns: clock.unix_ns(now0), last_heard: now0, ..HostStats::default() };
    let mut lp = Loop { sock, cfg, peer, tbuf: Vec::with_capacity(MAX_DATAGRAM), stats };
    let limit = now0 + Duration(cfg.time_limit.as_nanos() as u64);
    let mut rbuf = vec![0u8; MAX_DATAGRAM];
    let mut fds: Vec<libc::pollfd> = Vec::with_capacity(16);
    let mut late_sum_ns = 0u64;
    let outcome = loop {
        let now = clock.now();
        if let Some(end) = loop_end(stop, now, limit, lp.stats.sent + lp.stats.received, cfg.max_datagrams) {
            break end.to_string();
        }
        // Input: everything that has arrived, in a bounded batch.
        let (st, peer) = (&mut lp.stats, &mut lp.peer);
        recv_batch(sock, &mut rbuf, cfg.batch, |d, from| {
            match cfg.peer {
                Peer::Fixed(p) if p != from => return st.ignored += 1,
                Peer::First if *peer.get_or_insert(from) != from => return st.foreign += 1,
                _ => {}
            }
            let Some(from) = endpoint(from) else { return st.ignored += 1 };
            if !app.admit(engine, now) {
                return;
            }
            st.received += 1;
            st.last_heard = now;
            if engine.handle_datagram(now, from, d).is_err() {
                st.refused += 1;
            }
        })?;
        // The timer, at its own deadline for the lateness figures but run at `now`.
        if let Some(due) = engine.poll_timeout().filter(|t| *t <= now) {
            lp.stats.timers += 1;
            let late = now.0 - due.0;
            late_sum_ns += late;
            lp.stats.timer_late_max_us = lp.stats.timer_late_max_us.max(late as f64 / 1e3);
            engine.handle_timeout(now);
        }
        for _ in 0..2 {
            app.pump(engine, now)?;
            lp.flush(engine, app, now)?;
        }
        if let Some(o) = app.outcome(engine, now, &lp.stats) {
            break o;
        }
        fds.clear();
        fds.push(libc::pollfd { fd: sock.as_raw_fd(), events: libc::POLLIN, revents: 0 });
        let (due, cap) = app.wait(engine, &mut fds, &lp.stats);
        let next = [engine.poll_timeout(), due, Some(limit)].into_iter().flatten().min();
        let cap = cap.map_or(cfg.wait_cap, |c| c.min(cfg.wait_cap));
        wait_fds(&mut fds, clock.timeout_until(next, cap));
    };
    let mut stats = lp.stats;
    if stats.timers > 0 {
        stats.timer_late_mean_us = late_sum_ns as f64 / stats.timers as f64 / 1e3;
    }
    stats.peer = lp.peer.map(|p| p.to_string()).unwrap_or_default();
    stats.outcome = outcome;
    stats.end_ns = clock.unix_ns(clock.now());
    Ok(stats)
}
