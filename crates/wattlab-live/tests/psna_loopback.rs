//! The live PSNA hosts over the loopback interface, in one process (no root, no namespaces): the
//! daemon on a UDP socket with real Linux TCP to a fixed host served by a thread, the mobile on
//! another UDP socket. A read and a send arrive intact (SHA-256 of the payload); a fixed host
//! that resets the connection, a fixed host that is not listening and a daemon that restarts
//! mid-transfer each give the mobile a clear error within its bounds, never a hang. Loopback
//! only; every loop and wait is bounded.

use std::io::{Read, Write};
use std::net::{SocketAddr, SocketAddrV4, TcpListener, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration as StdDuration, Instant};

use sha2::{Digest, Sha256};
use wattlab_core::psna::{DaemonConfig, MobileConfig};
use wattlab_live::apps::SocketTcp;
use wattlab_live::payload::{self, Payload};
use wattlab_live::psna_host::{self, DaemonHostConfig, DaemonHostReport, MobileHostConfig, MobileHostReport};

const KEY: u64 = 7;
const LIMIT: StdDuration = StdDuration::from_secs(20);

/// What the fixed host's thread does.
#[derive(Clone, Copy)]
enum Fh {
    /// Read a 100-byte request, then serve `bytes` of the payload paced at ~1460 B per `pace`,
    /// and reset the connection after `abort_after` bytes if set.
    Serve { bytes: u64, pace: StdDuration, abort_after: Option<u64> },
    /// Read everything to EOF and return its length and digest.
    Sink,
}

/// Starts a fixed host on loopback; returns its address and a thread giving (bytes, sha256)
/// received (a sink) or sent (a server).
fn fixed_host(kind: Fh) -> (SocketAddrV4, thread::JoinHandle<(u64, String)>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let SocketAddr::V4(addr) = l.local_addr().unwrap() else { unreachable!() };
    let h = thread::spawn(move || {
        let (mut c, _) = l.accept().unwrap();
        c.set_read_timeout(Some(LIMIT)).unwrap();
        c.set_write_timeout(Some(LIMIT)).unwrap();
        let mut hash = Sha256::new();
        let mut n = 0u64;
        match kind {
            Fh::Serve { bytes, pace, abort_after } => {
                let mut req = [0u8; 100];
                c.read_exact(&mut req).unwrap();
                let mut p = Payload::new(KEY, bytes);
                let mut buf = [0u8; 1460];
                loop {
                    let k = p.read(&mut buf).unwrap();
                    if k == 0 || c.write_all(&buf[..k]).is_err() {
                        break;
                    }
                    hash.update(&buf[..k]);
                    n += k as u64;
                    if abort_after.is_some_and(|a| n >= a) {
                        socket2::SockRef::from(&c).set_linger(Some(StdDuration::ZERO)).unwrap();
                        break; // dropped with a zero linger: a RST
                    }
                    thread::sleep(pace);
                }
            }
            Fh::Sink => {
                let mut buf = vec![0u8; 65536];
                while let Ok(k) = c.read(&mut buf) {
                    if k == 0 {
                        break;
                    }
                    hash.update(&buf[..k]);
                    n += k as u64;
                }
            }
        }
        (n, payload::hex(&hash.finalize()))
    });
    (addr, h)
}

/// Starts a daemon on `bind`; returns its address, stop flag and thread.
fn daemon(bind: &str) -> (SocketAddr, Arc<AtomicBool>, thread::JoinHandle<DaemonHostReport>) {
    let sock = UdpSocket::bind(bind).unwrap();
    let addr = sock.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let cfg = DaemonHostConfig {
        daemon: DaemonConfig::default(),
        request: 100,
        tcp: SocketTcp { cc: "reno".into(), window_clamp: None, buffer: None },
        time_limit: LIMIT,
        max_datagrams: 1_000_000,
    };
    let s = stop.clone();
    (addr, stop, thread::spawn(move || psna_host::run_daemon(sock, &cfg, &s, || {}).unwrap()))
}

/// Runs a mobile transfer in this thread.
fn mobile(daemon: SocketAddr, fh: SocketAddrV4, read: bool, bytes: u64, name: &str) -> MobileHostReport {
    let transitions = std::env::temp_dir().join(format!("wattlab-psna-loopback-{name}-{}.csv", std::process::id()));
    let cfg = MobileHostConfig {
        daemon,
        fh,
        read,
        bytes,
        payload_key: KEY,
        mobile: MobileConfig::default(),
        first_id: psna_host::fresh_transfer_id(),
        radio_socket: None,
        transitions: transitions.clone(),
        time_limit: LIMIT,
        max_datagrams: 1_000_000,
    };
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    let r = psna_host::run_mobile(sock, &cfg, &AtomicBool::new(false)).unwrap();
    let csv = std::fs::read_to_string(&transitions).unwrap();
    std::fs::remove_file(&transitions).unwrap();
    // The schedule file has one row per switch the report lists.
    assert_eq!(csv.lines().count(), r.radio.len() + 1, "{csv}");
    r
}

fn stop(flag: &AtomicBool, h: thread::JoinHandle<DaemonHostReport>) -> DaemonHostReport {
    flag.store(true, Ordering::Relaxed);
    h.join().unwrap()
}

#[test]
fn a_read_arrives_intact_and_the_radio_sleeps_while_the_daemon_fetches() {
    let bytes = 300_000;
    let (fh, server) = fixed_host(Fh::Serve { bytes, pace: StdDuration::from_millis(5), abort_after: None });
    let (d, flag, dh) = daemon("127.0.0.1:0");
    let m = mobile(d, fh, true, bytes, "read");
    assert_eq!(m.outcome, "completed", "{m:?}");
    assert_eq!((m.bytes, m.sha256.as_str()), (bytes, payload::sha256(KEY, bytes).as_str()));
    assert_eq!(server.join().unwrap().0, bytes);
    // Off after the first Residual_Time, on for the burst, off at the end.
    assert!(m.sleeps >= 1 && m.radio.len() >= 3 && m.radio.last().unwrap()[1] == 0, "{m:?}");
    assert!(m.radio_on_s < (m.done_ns - m.start_ns) as f64 / 1e9 * 0.8, "{m:?}");
    let r = stop(&flag, dh);
    assert_eq!(r.fh_bytes_received, bytes);
    assert!(r.samples >= 1 && !r.residuals.is_empty() && r.fh_errors.is_empty(), "{r:?}");
}

#[test]
fn a_send_arrives_intact_at_the_fixed_host() {
    let bytes = 200_000;
    let (fh, sink) = fixed_host(Fh::Sink);
    let (d, flag, dh) = daemon("127.0.0.1:0");
    let m = mobile(d, fh, false, bytes, "send");
    assert_eq!(m.outcome, "completed", "{m:?}");
    let (n, sha) = sink.join().unwrap();
    assert_eq!((n, sha.as_str()), (bytes, payload::sha256(KEY, bytes).as_str()));
    assert_eq!(m.sha256, sha);
    let r = stop(&flag, dh);
    assert_eq!((r.fh_bytes_written, r.fh_bytes_acked), (bytes, bytes));
}

#[test]
fn a_fixed_host_that_resets_fails_the_transfer_clearly() {
    let (fh, server) = fixed_host(Fh::Serve { bytes: 300_000, pace: StdDuration::from_millis(5), abort_after: Some(60_000) });
    let (d, flag, dh) = daemon("127.0.0.1:0");
    let t0 = Instant::now();
    let m = mobile(d, fh, true, 300_000, "reset");
    assert_eq!(m.outcome, "failed", "{m:?}");
    assert_eq!(m.error.as_deref(), Some("daemon error: the fixed host aborted the connection"));
    assert!(t0.elapsed() < LIMIT && m.radio.last().unwrap()[1] == 0, "{m:?}");
    server.join().unwrap();
    let r = stop(&flag, dh);
    assert!(r.fh_errors.iter().any(|e| e.starts_with("reset")), "{r:?}");
}

#[test]
fn an_unreachable_fixed_host_fails_the_transfer_clearly() {
    // A port nobody listens on: bind one, then drop the listener.
    let SocketAddr::V4(fh) = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap() else { unreachable!() };
    let (d, flag, dh) = daemon("127.0.0.1:0");
    let m = mobile(d, fh, true, 10_000, "unreachable");
    assert_eq!(m.outcome, "failed", "{m:?}");
    assert_eq!(m.error.as_deref(), Some("daemon error: the fixed host could not be reached"));
    stop(&flag, dh);
}

#[test]
fn a_daemon_that_restarts_mid_transfer_gives_the_mobile_a_clear_error() {
    // ~290 kB/s from the fixed host: the mobile sleeps about a second after its first estimate.
    let (fh, _server) = fixed_host(Fh::Serve { bytes: 300_000, pace: StdDuration::from_millis(5), abort_after: None });
    let (d, flag, dh) = daemon("127.0.0.1:0");
    let restart = thread::spawn(move || {
        thread::sleep(StdDuration::from_millis(300));
        let first = stop(&flag, dh);
        // The new daemon on the same port knows nothing of the transfer.
        let (_, flag2, dh2) = daemon(&d.to_string());
        (first, flag2, dh2)
    });
    let t0 = Instant::now();
    let m = mobile(d, fh, true, 300_000, "restart");
    assert_eq!(m.outcome, "failed", "{m:?}");
    assert_eq!(m.error.as_deref(), Some("daemon error: the daemon does not know this transfer (restarted or expired)"));
    assert!(t0.elapsed() < LIMIT, "{m:?}");
    let (first, flag2, dh2) = restart.join().unwrap();
    assert_eq!(first.fh_connections, 1);
    stop(&flag2, dh2);
}
