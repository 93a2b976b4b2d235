//! The stop-and-wait echo (the smallest engine) on the generic live host over real UDP sockets
//! on the loopback interface, in one process (no root, no namespaces): every request comes back
//! once, in order, and a client whose server is silent gives up after its retries. Loopback
//! only; every loop is bounded by the hosts' time limits.

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration as StdDuration;

use wattlab_core::echo::EchoConfig;
use wattlab_core::Duration;
use wattlab_live::echo_host;
use wattlab_live::host::bind;

const LOOPBACK: &str = "127.0.0.1:0";

#[test]
fn every_request_is_echoed_once_through_the_generic_host() {
    let stop = Arc::new(AtomicBool::new(false));
    let server = bind(LOOPBACK.parse().unwrap()).unwrap();
    let addr = server.local_addr().unwrap();
    let s = Arc::clone(&stop);
    let srv = thread::spawn(move || echo_host::run(server, None, EchoConfig::default(), StdDuration::from_secs(20), &s, || {}));
    let cfg = EchoConfig { count: 50, size: 1200, interval: Duration::from_millis(1), rto: Duration::from_millis(200), max_retries: 5 };
    let c = echo_host::run(bind(LOOPBACK.parse().unwrap()).unwrap(), Some(addr), cfg, StdDuration::from_secs(20), &stop, || {}).unwrap();
    stop.store(true, Ordering::Relaxed);
    let s = srv.join().unwrap().unwrap();
    assert_eq!(c.outcome, "completed", "{c:?}");
    assert_eq!((c.role.as_str(), s.role.as_str(), s.outcome.as_str()), ("client", "server", "stopped"));
    // Loopback loses nothing: 50 requests, 50 echoes, nothing sent twice or refused.
    assert_eq!((c.stats.requests, c.stats.echoes, c.stats.retransmissions, c.stats.bad), (50, 50, 0, 0));
    assert_eq!((s.stats.served, s.host.received, s.host.sent, s.host.refused), (50, 50, 50, 0));
    assert_eq!((c.host.sent, c.host.received), (50, 50));
    assert_eq!(c.rtt_ms.len(), 50);
    assert!(c.rtt_ms.iter().all(|r| *r > 0.0 && *r < 200.0), "{:?}", c.rtt_ms);
    assert_eq!(s.host.peer, "", "a server has no one peer");
}

#[test]
fn a_client_whose_server_is_silent_fails_after_its_retries() {
    // A bound socket that never answers: the requests are read by no one.
    let silent = UdpSocket::bind(LOOPBACK).unwrap();
    let stop = AtomicBool::new(false);
    let cfg = EchoConfig { count: 3, rto: Duration::from_millis(30), max_retries: 2, ..EchoConfig::default() };
    let c = echo_host::run(bind(LOOPBACK.parse().unwrap()).unwrap(), Some(silent.local_addr().unwrap()), cfg, StdDuration::from_secs(10), &stop, || {}).unwrap();
    assert_eq!(c.outcome, "failed: request 0 unanswered", "{c:?}");
    assert_eq!((c.stats.requests, c.stats.retransmissions, c.host.sent, c.host.received), (1, 2, 3, 0));
    assert!(c.host.timers >= 3, "the RTO ran on the live clock: {c:?}");
}

#[test]
fn datagrams_from_a_stranger_never_reach_a_client() {
    let stop = Arc::new(AtomicBool::new(false));
    let server = bind(LOOPBACK.parse().unwrap()).unwrap();
    let addr = server.local_addr().unwrap();
    let s = Arc::clone(&stop);
    let srv = thread::spawn(move || echo_host::run(server, None, EchoConfig::default(), StdDuration::from_secs(20), &s, || {}));
    let client = bind(LOOPBACK.parse().unwrap()).unwrap();
    let stranger = UdpSocket::bind(LOOPBACK).unwrap();
    stranger.send_to(b"E\x02\x00\x00\x00\x00\x00\x00", client.local_addr().unwrap()).unwrap(); // a forged echo of request 0
    let cfg = EchoConfig { count: 2, interval: Duration::from_millis(50), ..EchoConfig::default() };
    let c = echo_host::run(client, Some(addr), cfg, StdDuration::from_secs(20), &stop, || {}).unwrap();
    stop.store(true, Ordering::Relaxed);
    srv.join().unwrap().unwrap();
    assert_eq!((c.outcome.as_str(), c.host.ignored, c.stats.duplicates, c.stats.echoes), ("completed", 1, 0, 2), "{c:?}");
}
