//! One end of the live SCTP tunnel (seed 002 Ch. 4, docs/tunnel.md "Live"): the core's
//! [`TunnelEngine`] on the generic host ([`crate::host`]) and a TUN device. Inner IP packets the kernel routes to the TUN
//! device are read, carried in SCTP DATA chunks (one stream per flow) in UDP datagrams to the
//! peer's port 9899, and the peer writes them to its own TUN device. The host waits on both
//! descriptors until the endpoint's next deadline, so its timers (inlet, delayed SACK, T3-rtx,
//! the client's U-APSD triggers) run on real time.

use std::fs::File;
use std::io::{Read, Write};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::AtomicBool;
use std::time::Duration as StdDuration;

use serde::Serialize;
use wattlab_core::tunnel::{InnerPacket, TunnelConfig, TunnelEngine, TunnelStats};
use wattlab_core::Time;

use crate::clock::LiveClock;
use crate::host::{HostApp, HostConfig, HostStats, Peer};
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

/// The tunnel's application on the generic host: the TUN device.
struct Tun<'a> {
    dev: File,
    name: &'a str,
    rx: Vec<u8>,
    r: TunnelHostReport,
}

impl HostApp<TunnelEngine> for Tun<'_> {
    /// Inner packets the kernel routed to the device go into the tunnel (a bounded batch).
    fn pump(&mut self, ep: &mut TunnelEngine, now: Time) -> Result<(), String> {
        for _ in 0..BATCH {
            let n = match self.dev.read(&mut self.rx) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(format!("reading {}: {e}", self.name)),
            };
            self.r.tun_read += 1;
            if !ep.send(now, &self.rx[..n]) {
                self.r.tun_not_ipv4 += 1;
            }
        }
        Ok(())
    }

    /// An inner packet out of the tunnel goes to the device (a TUN write takes one whole
    /// packet or none).
    fn on_event(&mut self, _ep: &mut TunnelEngine, _now: Time, inner: InnerPacket) -> Result<(), String> {
        match self.dev.write(&inner) {
            Ok(n) if n == inner.len() => self.r.tun_written += 1,
            _ => self.r.tun_write_errors += 1,
        }
        Ok(())
    }

    fn wait(&self, _ep: &TunnelEngine, fds: &mut Vec<libc::pollfd>, _host: &HostStats) -> (Option<Time>, Option<StdDuration>) {
        fds.push(libc::pollfd { fd: self.dev.as_raw_fd(), events: libc::POLLIN, revents: 0 });
        (None, None)
    }
}

/// Runs the tunnel end until `stop` is set or the time limit passes; `ready` is called once the
/// socket and the device are open.
pub fn run(tun: File, sock: UdpSocket, cfg: &TunnelHostConfig, stop: &AtomicBool, ready: impl FnOnce()) -> Result<TunnelHostReport, String> {
    let clock = LiveClock::start();
    let mut ep = TunnelEngine::new(cfg.endpoint.clone(), clock.now())?;
    let mut app = Tun { dev: tun, name: &cfg.tun, rx: vec![0u8; 65536], r: TunnelHostReport::default() };
    let host = HostConfig {
        time_limit: cfg.time_limit,
        max_datagrams: u64::MAX,
        tolerate_send_errors: true, // lost like a dropped frame; SCTP recovers
        ..HostConfig::new(Peer::Fixed(cfg.peer))
    };
    ready();
    let h = crate::host::run(&sock, &mut ep, &mut app, &clock, &host, stop)?;
    let mut r = app.r;
    (r.udp_sent, r.udp_received, r.udp_dropped, r.udp_send_errors) = (h.sent, h.received, h.refused, h.send_dropped);
    r.timer_late_max_us = h.timer_late_max_us;
    r.backlog_at_end = ep.backlog();
    r.tunnel = ep.stats().clone();
    r.triggers = r.tunnel.triggers;
    r.ran_s = (h.end_ns - h.start_ns) as f64 / 1e9;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_tun_names_are_refused_before_any_system_call() {
        assert!(open_tun("").unwrap_err().contains("bad TUN device name"));
        assert!(open_tun("a-name-longer-than-15").unwrap_err().contains("bad TUN device name"));
    }
}
