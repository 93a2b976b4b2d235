//! The tunnel scenario's TCP flows on real Linux TCP: a receiver that listens and reads at the
//! flow's read rate (the simulator's `reader.rate`: the receive window then paces the sender),
//! hashing what arrives; a sender that connects and streams the run's payload for the flow's
//! duration, hashing what it wrote. The orchestrator checks both digests against the payload's.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::payload::{hex, Payload};

/// What one end of a flow reports.
#[derive(Debug, Serialize)]
pub struct FlowReport {
    /// `send` or `recv`.
    pub role: &'static str,
    /// Bytes written (sender) or read (receiver).
    pub bytes: u64,
    /// SHA-256 of those bytes (hex).
    pub sha256: String,
    /// Seconds from the connection to the end.
    pub elapsed_s: f64,
    /// True if the receiver read the sender's FIN (the stream is whole).
    pub closed: bool,
}

/// Receive buffer of the receiver's socket (`SO_RCVBUF`, the kernel doubles it): small, so
/// the advertised window follows the paced reads, as a 64 KB simulated receive buffer does.
const RECV_BUFFER: usize = 32 * 1024;

/// Listens on `listen`, accepts one connection (waiting at most `limit`), reads at `rate`
/// bytes/s until the sender's FIN or `limit`, and reports what arrived.
pub fn receive(listen: SocketAddr, rate: f64, limit: Duration, ready: impl FnOnce()) -> Result<FlowReport, String> {
    let start = Instant::now();
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).map_err(|e| e.to_string())?;
    sock.set_reuse_address(true).map_err(|e| e.to_string())?;
    sock.set_recv_buffer_size(RECV_BUFFER).map_err(|e| format!("SO_RCVBUF: {e}"))?;
    sock.bind(&listen.into()).map_err(|e| format!("bind {listen}: {e}"))?;
    sock.listen(1).map_err(|e| format!("listen {listen}: {e}"))?;
    let listener: TcpListener = sock.into();
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    ready();
    let mut conn = loop {
        match listener.accept() {
            Ok((c, _)) => break c,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if start.elapsed() >= limit {
                    return Err(format!("no connection on {listen} within {:.1} s", limit.as_secs_f64()));
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(format!("accept on {listen}: {e}")),
        }
    };
    conn.set_nonblocking(false).map_err(|e| e.to_string())?;
    let t0 = Instant::now();
    let mut hash = Sha256::new();
    let (mut bytes, mut closed) = (0u64, false);
    let mut buf = vec![0u8; 16 * 1024];
    // Reads of at most 1460 bytes, each when the rate allows it: the pacing of the simulator's
    // reader, at a 1 ms granularity.
    let chunk = 1460usize;
    while start.elapsed() < limit {
        let allowed = (t0.elapsed().as_secs_f64() * rate) as u64;
        if bytes > allowed {
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        let left = limit.saturating_sub(start.elapsed()).max(Duration::from_millis(1));
        conn.set_read_timeout(Some(left.min(Duration::from_millis(200)))).map_err(|e| e.to_string())?;
        match conn.read(&mut buf[..chunk]) {
            Ok(0) => {
                closed = true;
                break;
            }
            Ok(n) => {
                hash.update(&buf[..n]);
                bytes += n as u64;
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted) => {}
            Err(e) => return Err(format!("reading the flow: {e}")),
        }
    }
    Ok(FlowReport { role: "recv", bytes, sha256: hex(&hash.finalize()), elapsed_s: t0.elapsed().as_secs_f64(), closed })
}

/// Connects to `peer` (retrying for at most 5 s while the receiver starts), writes the payload
/// keyed `key` for `duration` (or `bytes`, whichever ends first), closes, and reports what it
/// wrote. Gives up at `limit`.
pub fn send(peer: SocketAddr, key: u64, bytes: u64, duration: Duration, limit: Duration) -> Result<FlowReport, String> {
    let start = Instant::now();
    let mut conn = loop {
        match TcpStream::connect_timeout(&peer, Duration::from_secs(2)) {
            Ok(c) => break c,
            Err(_) if start.elapsed() < Duration::from_secs(5) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("connect {peer}: {e}")),
        }
    };
    let t0 = Instant::now();
    let mut payload = Payload::new(key, bytes);
    let mut hash = Sha256::new();
    let mut sent = 0u64;
    let mut buf = vec![0u8; 16 * 1024];
    conn.set_write_timeout(Some(Duration::from_millis(200))).map_err(|e| e.to_string())?;
    let mut pending = 0..0;
    while t0.elapsed() < duration && start.elapsed() < limit {
        if pending.is_empty() {
            let n = payload.read(&mut buf).map_err(|e| e.to_string())?;
            if n == 0 {
                break;
            }
            pending = 0..n;
        }
        match conn.write(&buf[pending.clone()]) {
            Ok(n) => {
                hash.update(&buf[pending.start..pending.start + n]);
                sent += n as u64;
                pending.start += n;
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted) => {}
            Err(e) => return Err(format!("writing the flow: {e}")),
        }
    }
    // Every written byte must arrive: close the write side, then wait (bounded) for the
    // receiver's FIN so the kernel is done before we report.
    conn.shutdown(std::net::Shutdown::Write).map_err(|e| format!("closing the flow: {e}"))?;
    conn.set_read_timeout(Some(Duration::from_millis(200))).map_err(|e| e.to_string())?;
    let mut closed = false;
    let mut sink = [0u8; 64];
    while start.elapsed() < limit {
        match conn.read(&mut sink) {
            Ok(0) => {
                closed = true;
                break;
            }
            Ok(_) => {}
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted) => {}
            Err(_) => break,
        }
    }
    conn.flush().ok();
    Ok(FlowReport { role: "send", bytes: sent, sha256: hex(&hash.finalize()), elapsed_s: t0.elapsed().as_secs_f64(), closed })
}
