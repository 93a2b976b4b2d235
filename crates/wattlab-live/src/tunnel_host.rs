//! One end of the live SCTP tunnel (seed 002 Ch. 4, docs/tunnel.md "Live"): the core's sans-IO
//! [`Endpoint`] on a TUN device and a UDP socket. Inner IP packets the kernel routes to the TUN
//! device are read, carried in SCTP DATA chunks (one stream per flow) in UDP datagrams to the
//! peer's port 9899, and the peer writes them to its own TUN device. The loop waits in `poll`
//! on both descriptors until the endpoint's next deadline, so its timers (inlet, delayed SACK,
//! T3-rtx, the client's U-APSD triggers) run on real time.

use std::fs::File;
use std::io::{Read, Write};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration as StdDuration, Instant};

use serde::Serialize;
use wattlab_core::tunnel::{Endpoint, FlowKey, TunnelConfig, TunnelStats};
use wattlab_core::wire::sctp::encode_sctp;

use crate::clock::LiveClock;
use crate::nfqueue::stopped;

/// Largest inner packet read from the TUN device (its MTU is 1500).
const MAX_PACKET: usize = 2048;
/// Most packets read from one descriptor per loop turn, so neither starves the other.
const BATCH: usize = 64;

/// Attaches to the TUN device `name` (created by the orchestrator with `ip tuntap add ... mode
/// tun`), without the packet-information prefix, non-blocking. One `TUNSETIFF` ioctl: the
/// device's addresses and routes are set with `ip`, as for the testbed's veths.
pub fn open_tun(name: &str) -> Result<File, String> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(format!("bad TUN device name `{name}` (1 to {} bytes)", libc::IFNAMSIZ - 1));
    }
    let file = std::fs::OpenOptions::new().read(true).write(true).open("/dev/net/tun").map_err(|e| format!("/dev/net/tun: {e}"))?;
    // SAFETY: ifreq is plain data; the name fits (checked above) and stays NUL-terminated.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in req.ifr_name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    req.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
    // SAFETY: TUNSETIFF takes a pointer to an ifreq that outlives the call.
    let r = unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF, &mut req as *mut libc::ifreq) };
    if r < 0 {
        return Err(format!("TUNSETIFF {name}: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: fcntl on an open descriptor.
    let r = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
    if r < 0 {
        return Err(format!("O_NONBLOCK on {name}: {}", std::io::Error::last_os_error()));
    }
    Ok(file)
}

/// Inner-packet buffers shared with the endpoint (which keeps a copy until it is acknowledged):
/// a buffer whose only owner is the pool is reused, so the steady state allocates nothing.
struct BufPool {
    bufs: Vec<Rc<Vec<u8>>>,
    next: usize,
}

impl BufPool {
    fn new() -> BufPool {
        BufPool { bufs: Vec::with_capacity(1024), next: 0 }
    }

    /// A shared buffer holding `bytes`.
    fn take(&mut self, bytes: &[u8]) -> Rc<Vec<u8>> {
        let n = self.bufs.len();
        // Round robin from the last reuse: the endpoint frees buffers roughly in send order.
        for k in 0..n {
            let i = (self.next + k) % n;
            if let Some(v) = Rc::get_mut(&mut self.bufs[i]) {
                v.clear();
                v.extend_from_slice(bytes);
                self.next = (i + 1) % n;
                return Rc::clone(&self.bufs[i]);
            }
        }
        let mut v = Vec::with_capacity(MAX_PACKET);
        v.extend_from_slice(bytes);
        self.bufs.push(Rc::new(v));
        Rc::clone(&self.bufs[n])
    }
}

/// Settings of one tunnel process.
#[derive(Clone, Debug)]
pub struct TunnelHostConfig {
    /// TUN device name.
    pub tun: String,
    /// Local UDP address (port 9899).
    pub bind: SocketAddr,
    /// The peer endpoint's UDP address.
    pub peer: SocketAddr,
    /// The endpoint's settings (the AP's are the client's, mirrored).
    pub endpoint: TunnelConfig,
    /// The loop ends after this long whatever the state.
    pub time_limit: StdDuration,
}

/// What one tunnel process reports at the end.
#[derive(Debug, Default, Serialize)]
pub struct TunnelHostReport {
    /// The endpoint's counters.
    pub tunnel: TunnelStats,
    /// Packets read from the TUN device.
    pub tun_read: u64,
    /// Packets read that are not IPv4 (skipped).
    pub tun_not_ipv4: u64,
    /// Inner packets written to the TUN device.
    pub tun_written: u64,
    /// Writes the TUN device refused.
    pub tun_write_errors: u64,
    /// UDP datagrams sent and received.
    pub udp_sent: u64,
    /// UDP datagrams received.
    pub udp_received: u64,
    /// Datagrams the endpoint dropped (malformed, not ours, bad DATA).
    pub udp_dropped: u64,
    /// Sends the socket refused (e.g. the buffer was full).
    pub udp_send_errors: u64,
    /// Explicit U-APSD triggers sent.
    pub triggers: u64,
    /// Largest lateness of a timer behind the endpoint's deadline, µs.
    pub timer_late_max_us: f64,
    /// Inner packets still waiting in the endpoint at the end (inlet, window, retransmission).
    pub backlog_at_end: usize,
    /// Seconds the loop ran.
    pub ran_s: f64,
}

/// Binds the tunnel's UDP socket, non-blocking.
pub fn bind(addr: SocketAddr) -> Result<UdpSocket, String> {
    let sock = UdpSocket::bind(addr).map_err(|e| format!("bind {addr}: {e}"))?;
    sock.set_nonblocking(true).map_err(|e| format!("{addr}: {e}"))?;
    Ok(sock)
}

/// Waits until `tun` or `sock` is readable or `timeout` passes.
fn wait(tun: &File, sock: &UdpSocket, timeout: StdDuration) {
    let mut fds = [
        libc::pollfd { fd: tun.as_raw_fd(), events: libc::POLLIN, revents: 0 },
        libc::pollfd { fd: sock.as_raw_fd(), events: libc::POLLIN, revents: 0 },
    ];
    let ms = timeout.as_micros().div_ceil(1000).min(1000) as libc::c_int;
    // SAFETY: two valid pollfds for the call's duration; an error (EINTR) just ends the wait.
    unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
}

/// Runs the tunnel end until `stop` is set or the time limit passes; `ready` is called once the
/// socket and the device are open.
pub fn run(tun: File, sock: UdpSocket, cfg: &TunnelHostConfig, stop: &AtomicBool, ready: impl FnOnce()) -> Result<TunnelHostReport, String> {
    let clock = LiveClock::start();
    let started = Instant::now();
    let mut ep: Endpoint<Rc<Vec<u8>>> = Endpoint::new(cfg.endpoint.clone(), clock.now())?;
    let mut tun = tun;
    let mut pool = BufPool::new();
    let mut rx = vec![0u8; 65536];
    let mut out = Vec::with_capacity(MAX_PACKET + 256);
    let mut r = TunnelHostReport::default();
    ready();
    while !stopped(stop) && started.elapsed() < cfg.time_limit {
        let deadline = ep.poll_timeout(clock.now());
        wait(&tun, &sock, clock.timeout_until(deadline, StdDuration::from_millis(20)));
        let now = clock.now();
        if let Some(d) = deadline.filter(|d| *d <= now) {
            r.timer_late_max_us = r.timer_late_max_us.max((now.0 - d.0) as f64 / 1e3);
        }
        for _ in 0..BATCH {
            let n = match tun.read(&mut rx) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(format!("reading {}: {e}", cfg.tun)),
            };
            r.tun_read += 1;
            let Some(key) = FlowKey::of_ipv4_bytes(&rx[..n]) else {
                r.tun_not_ipv4 += 1;
                continue;
            };
            ep.send(now, key, n as u32, pool.take(&rx[..n]));
        }
        for _ in 0..BATCH {
            let n = match sock.recv_from(&mut rx) {
                Ok((n, from)) if from == cfg.peer => n,
                Ok(_) => continue, // not the peer: never ours
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(format!("UDP receive: {e}")),
            };
            r.udp_received += 1;
            if ep.handle_datagram(now, &rx[..n], |inner| pool.take(inner)).is_err() {
                r.udp_dropped += 1;
            }
        }
        ep.handle_timeout(now);
        while let Some(t) = ep.poll_transmit(now) {
            out.clear();
            let inner = t.inner.as_ref().map_or(&[][..], |b| &b[..]);
            encode_sctp(&t.header, inner, &mut out).map_err(|e| format!("encoding an SCTP packet: {e}"))?;
            match sock.send_to(&out, cfg.peer) {
                Ok(_) => r.udp_sent += 1,
                Err(_) => r.udp_send_errors += 1, // lost like a dropped frame; SCTP recovers
            }
            r.triggers += u64::from(t.trigger);
        }
        while let Some((_, inner)) = ep.poll_deliver() {
            // A TUN write takes one whole packet or none.
            match tun.write(&inner) {
                Ok(n) if n == inner.len() => r.tun_written += 1,
                _ => r.tun_write_errors += 1,
            }
        }
    }
    let (a, b, c) = ep.backlog();
    r.backlog_at_end = a + b + c;
    r.tunnel = ep.stats().clone();
    r.ran_s = started.elapsed().as_secs_f64();
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_reuses_a_buffer_once_the_endpoint_dropped_its_copy() {
        let mut pool = BufPool::new();
        let a = pool.take(b"first");
        let b = pool.take(b"second");
        assert_eq!((&a[..], &b[..], pool.bufs.len()), (&b"first"[..], &b"second"[..], 2));
        drop(a); // acknowledged: only the pool holds it
        let c = pool.take(b"third");
        assert_eq!((&c[..], pool.bufs.len()), (&b"third"[..], 2), "reused, not grown");
        let d = pool.take(b"fourth"); // b and c still held
        assert_eq!((&d[..], &b[..], pool.bufs.len()), (&b"fourth"[..], &b"second"[..], 3));
    }

    #[test]
    fn bad_tun_names_are_refused_before_any_system_call() {
        assert!(open_tun("").unwrap_err().contains("bad TUN device name"));
        assert!(open_tun("a-name-longer-than-15").unwrap_err().contains("bad TUN device name"));
    }
}
