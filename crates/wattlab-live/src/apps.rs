//! The two ends of the download, on real Linux TCP: `serve` streams the run's payload
//! ([`crate::payload`], generated as it is sent) to the first client after reading its request;
//! `fetch` sends the request, reads to the end and reports the length, SHA-256 and timings of
//! what arrived (the orchestrator checks them against the payload's digest).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use sha2::{Digest, Sha256};
use socket2::{Domain, Protocol, Socket, Type};

use crate::payload::{hex, Payload};

/// Linux TCP options a scenario sets per socket.
#[derive(Clone, Debug)]
pub struct SocketTcp {
    /// Congestion control module (`reno`, `cubic`...).
    pub cc: String,
    /// Largest window the receiver advertises (`TCP_WINDOW_CLAMP`), if set.
    pub window_clamp: Option<u32>,
    /// Send/receive buffer size asked with `SO_SNDBUF`/`SO_RCVBUF`, if set.
    pub buffer: Option<usize>,
}

/// What the server reports when its transfer ends.
#[derive(Debug, Serialize)]
pub struct ServeReport {
    /// Bytes of the request read.
    pub request_bytes: u64,
    /// Bytes of the payload sent.
    pub bytes_sent: u64,
    /// SHA-256 of the bytes sent (hex).
    pub sha256: String,
    /// Congestion control the kernel used.
    pub cc: String,
    /// Segments the server's TCP retransmitted (`tcpi_total_retrans`).
    pub retransmitted_segments: u64,
    /// The server's smoothed RTT at the end, in ms (`tcpi_rtt`).
    pub srtt_ms: f64,
}

/// What the client reports.
#[derive(Debug, Serialize)]
pub struct FetchReport {
    /// Bytes received.
    pub bytes: u64,
    /// SHA-256 of the bytes received (hex).
    pub sha256: String,
    /// Unix ns when `connect` was called.
    pub connect_ns: u64,
    /// Unix ns when the connection was established.
    pub established_ns: u64,
    /// Unix ns of the first byte of the response.
    pub first_byte_ns: u64,
    /// Unix ns when the server's FIN was read (end of transfer).
    pub done_ns: u64,
    /// Congestion control the kernel used.
    pub cc: String,
}

fn unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos() as u64
}

/// Applies `tcp`'s options to `sock` (before connect or listen).
pub(crate) fn apply(sock: &Socket, tcp: &SocketTcp) -> Result<(), String> {
    sock.set_tcp_congestion(tcp.cc.as_bytes()).map_err(|e| {
        format!("cannot use congestion control `{}` ({e}); available: {}", tcp.cc, available_cc())
    })?;
    if let Some(b) = tcp.buffer {
        sock.set_recv_buffer_size(b).map_err(|e| format!("SO_RCVBUF: {e}"))?;
        sock.set_send_buffer_size(b).map_err(|e| format!("SO_SNDBUF: {e}"))?;
    }
    if let Some(clamp) = tcp.window_clamp {
        let v = clamp as libc::c_int;
        // SAFETY: an int option with its size, on an open socket.
        let r = unsafe {
            libc::setsockopt(sock.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP, (&v as *const libc::c_int).cast(), std::mem::size_of::<libc::c_int>() as libc::socklen_t)
        };
        if r != 0 {
            return Err(format!("TCP_WINDOW_CLAMP: {}", std::io::Error::last_os_error()));
        }
    }
    Ok(())
}

/// The kernel's `tcp_info` of a connection: (total retransmissions, smoothed RTT in ms).
fn tcp_info(fd: libc::c_int) -> (u64, f64) {
    // SAFETY: tcp_info is plain data; the kernel fills at most `len` bytes.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    let r = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_INFO, (&mut info as *mut libc::tcp_info).cast(), &mut len) };
    if r != 0 {
        return (0, 0.0);
    }
    (u64::from(info.tcpi_total_retrans), f64::from(info.tcpi_rtt) / 1e3)
}

/// Segments a connection retransmitted (`tcpi_total_retrans`).
pub(crate) fn tcp_info_retrans(fd: libc::c_int) -> u64 {
    tcp_info(fd).0
}

fn cc_in_use(sock: &Socket) -> String {
    sock.tcp_congestion().map(|v| String::from_utf8_lossy(&v).trim_end_matches('\0').to_string()).unwrap_or_default()
}

fn available_cc() -> String {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").map(|s| s.trim().to_string()).unwrap_or_else(|_| "?".into())
}

/// Listens on `listen`, says `ready`, and accepts the first client (bounded by `idle`).
fn accept_one(listen: SocketAddr, tcp: &SocketTcp, idle: Duration) -> Result<(TcpStream, String), String> {
    let sock = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).map_err(|e| format!("socket: {e}"))?;
    sock.set_reuse_address(true).map_err(|e| format!("SO_REUSEADDR: {e}"))?;
    apply(&sock, tcp)?;
    sock.bind(&listen.into()).map_err(|e| format!("bind {listen}: {e}"))?;
    sock.listen(4).map_err(|e| format!("listen: {e}"))?;
    // SO_RCVTIMEO bounds accept() too.
    sock.set_read_timeout(Some(idle)).map_err(|e| format!("SO_RCVTIMEO: {e}"))?;
    crate::nfqueue::announce_ready();
    let (conn, _) = sock.accept().map_err(|e| format!("no client connected within {:.1} s: {e}", idle.as_secs_f64()))?;
    apply(&conn, tcp)?;
    let cc = cc_in_use(&conn);
    let conn: TcpStream = conn.into();
    conn.set_read_timeout(Some(idle)).and_then(|_| conn.set_write_timeout(Some(idle))).map_err(|e| format!("timeouts: {e}"))?;
    Ok((conn, cc))
}

/// Listens on `listen`, streams `payload` to the first client after reading `request` bytes,
/// and returns once the client has closed; gives up when `idle` passes without progress
/// (including waiting for the client to connect). With `abort_after`, the server resets the
/// connection (RST) once it has sent that many bytes: a fixed host that aborts.
pub fn serve(listen: SocketAddr, mut payload: Payload, request: u64, tcp: &SocketTcp, idle: Duration, abort_after: Option<u64>) -> Result<ServeReport, String> {
    let (mut conn, cc) = accept_one(listen, tcp, idle)?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut got = 0u64;
    while got < request {
        let want = ((request - got) as usize).min(buf.len());
        match conn.read(&mut buf[..want]) {
            Ok(0) => return Err(format!("the client closed after {got} of {request} request bytes")),
            Ok(n) => got += n as u64,
            Err(e) => return Err(format!("reading the request: {e}")),
        }
    }
    let (mut sent, mut hash) = (0u64, Sha256::new());
    loop {
        let n = payload.read(&mut buf).map_err(|e| format!("generating the payload: {e}"))?;
        if n == 0 {
            break;
        }
        let n = abort_after.map_or(n, |a| n.min((a - sent) as usize));
        conn.write_all(&buf[..n]).map_err(|e| format!("sending after {sent} bytes: {e}"))?;
        hash.update(&buf[..n]);
        sent += n as u64;
        if abort_after == Some(sent) {
            let (retransmitted_segments, srtt_ms) = tcp_info(conn.as_raw_fd());
            Socket::from(conn).set_linger(Some(Duration::ZERO)).map_err(|e| format!("SO_LINGER: {e}"))?;
            // Dropped here with a zero linger: close(2) sends a RST.
            let sha256 = hex(&hash.finalize());
            return Ok(ServeReport { request_bytes: got, bytes_sent: sent, sha256, cc, retransmitted_segments, srtt_ms });
        }
    }
    conn.shutdown(std::net::Shutdown::Write).map_err(|e| format!("shutdown: {e}"))?;
    // Wait for the client's FIN so our end closes after the transfer, as a server would.
    while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
    let (retransmitted_segments, srtt_ms) = tcp_info(conn.as_raw_fd());
    let sha256 = hex(&hash.finalize());
    Ok(ServeReport { request_bytes: got, bytes_sent: sent, sha256, cc, retransmitted_segments, srtt_ms })
}

/// What the receiving server (`sink`) reports.
#[derive(Debug, Serialize)]
pub struct SinkReport {
    /// Bytes received, to the client's FIN.
    pub bytes: u64,
    /// SHA-256 of the bytes received (hex).
    pub sha256: String,
    /// Unix ns when the connection was accepted.
    pub accepted_ns: u64,
    /// Unix ns of the last byte (the client's FIN).
    pub done_ns: u64,
    /// Congestion control the kernel used.
    pub cc: String,
}

/// Listens on `listen`, reads what the first client sends to its FIN, hashing it, then closes;
/// gives up when `idle` passes without progress.
pub fn sink(listen: SocketAddr, tcp: &SocketTcp, idle: Duration) -> Result<SinkReport, String> {
    let (mut conn, cc) = accept_one(listen, tcp, idle)?;
    let accepted_ns = unix_ns();
    let (mut buf, mut hash, mut bytes) = (vec![0u8; 64 * 1024], Sha256::new(), 0u64);
    loop {
        match conn.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                hash.update(&buf[..n]);
                bytes += n as u64;
            }
            Err(e) => return Err(format!("no data for {:.1} s after {bytes} bytes: {e}", idle.as_secs_f64())),
        }
    }
    let done_ns = unix_ns();
    Ok(SinkReport { bytes, sha256: hex(&hash.finalize()), accepted_ns, done_ns, cc })
}

/// Writes `request` bytes of `fill` (repeated) to `conn`, one buffer at a time.
fn send_request(conn: &mut TcpStream, request: u64, fill: &[u8]) -> Result<(), String> {
    let mut left = request;
    while left > 0 {
        let n = left.min(fill.len() as u64) as usize;
        conn.write_all(&fill[..n]).map_err(|e| format!("sending the request after {} bytes: {e}", request - left))?;
        left -= n as u64;
    }
    Ok(())
}

/// Connects to `server`, sends a `request`-byte request and reads the response to its end.
pub fn fetch(server: SocketAddr, request: u64, tcp: &SocketTcp, idle: Duration) -> Result<FetchReport, String> {
    let sock = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).map_err(|e| format!("socket: {e}"))?;
    apply(&sock, tcp)?;
    let connect_ns = unix_ns();
    sock.connect_timeout(&server.into(), idle).map_err(|e| format!("connect {server}: {e}"))?;
    let established_ns = unix_ns();
    let cc = cc_in_use(&sock);
    let mut conn: TcpStream = sock.into();
    conn.set_read_timeout(Some(idle)).and_then(|_| conn.set_write_timeout(Some(idle))).map_err(|e| format!("timeouts: {e}"))?;
    conn.set_nodelay(true).map_err(|e| format!("TCP_NODELAY: {e}"))?;
    let mut buf = vec![b'G'; 256 * 1024];
    send_request(&mut conn, request, &buf)?;
    let mut hash = Sha256::new();
    let (mut bytes, mut first_byte_ns) = (0u64, 0u64);
    loop {
        match conn.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if bytes == 0 {
                    first_byte_ns = unix_ns();
                }
                hash.update(&buf[..n]);
                bytes += n as u64;
            }
            Err(e) => return Err(format!("no data for {:.1} s after {bytes} bytes: {e}", idle.as_secs_f64())),
        }
    }
    let done_ns = unix_ns();
    let sha256 = hex(&hash.finalize());
    Ok(FetchReport { bytes, sha256, connect_ns, established_ns, first_byte_ns, done_ns, cc })
}
