//! Two WWP hosts over real UDP sockets on the loopback interface, in one process (no root, no
//! namespaces): the payload arrives intact and its SHA-256 matches the generator's. One test
//! puts a relay between them that drops every n-th datagram in both directions (VDROP), so the
//! NACK, REC_T and probe paths run over real sockets too. Loopback only; every loop is bounded.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::{Duration as StdDuration, Instant};

use wattlab_core::wwp::WwpConfig;
use wattlab_core::Duration;
use wattlab_live::payload;
use wattlab_live::wwp_host::{self, WwpHostConfig, WwpHostReport, WwpRole};

const LOOPBACK: &str = "127.0.0.1:0";

/// Fast timers, so a lossy test ends in seconds (the paper's REC_T of 2 s is kept elsewhere).
fn quick_config() -> WwpConfig {
    WwpConfig {
        rec_t: Duration::from_millis(150),
        send_t: Duration::from_millis(100),
        pause: Duration::from_millis(50),
        handshake_retry: Duration::from_millis(100),
        ..WwpConfig::default()
    }
}

/// Starts a receiver on loopback; returns its address and its thread.
fn receiver(cfg: WwpConfig, limit: StdDuration, stop: Arc<AtomicBool>) -> (SocketAddr, thread::JoinHandle<Result<WwpHostReport, String>>) {
    let sock = wattlab_live::host::bind(LOOPBACK.parse().unwrap()).unwrap();
    let addr = sock.local_addr().unwrap();
    let mut host = WwpHostConfig::new(WwpRole::Receiver, cfg);
    host.time_limit = limit;
    host.isn = Some(4000);
    (addr, thread::spawn(move || wwp_host::run(sock, &host, &stop, || {})))
}

/// Runs a sender of `bytes` to `peer` in this thread.
fn send(peer: SocketAddr, cfg: WwpConfig, bytes: Option<u64>, duration: Option<StdDuration>, limit: StdDuration, stop: &AtomicBool) -> WwpHostReport {
    let sock = wattlab_live::host::bind(LOOPBACK.parse().unwrap()).unwrap();
    let role = WwpRole::Sender { peer, payload_key: 42, bytes, duration, message: 1024 };
    let mut host = WwpHostConfig::new(role, cfg);
    host.time_limit = limit;
    host.isn = Some(4090); // the 12-bit sequence space wraps early in the transfer
    wwp_host::run(sock, &host, stop, || {}).unwrap()
}

fn check_intact(rx: &WwpHostReport, tx: &WwpHostReport, bytes: u64) {
    assert_eq!(tx.outcome, "closed", "sender: {tx:?}");
    assert_eq!(rx.outcome, "closed", "receiver: {rx:?}");
    assert_eq!(tx.written_bytes, bytes);
    assert_eq!(rx.delivered_bytes, bytes);
    assert_eq!(rx.delivered_sha256, payload::sha256(42, bytes));
    assert_eq!(tx.written_sha256, rx.delivered_sha256);
    assert_eq!(rx.stats.delivered_bytes, bytes);
    assert_eq!(tx.stats.original_data_bytes, bytes);
    assert_eq!(rx.progress.last().unwrap()[1], bytes);
    assert!(rx.connected_ns > 0 && tx.connected_ns > 0 && rx.closed_ns > 0 && tx.closed_ns > 0);
}

#[test]
fn a_transfer_over_loopback_udp_arrives_intact() {
    let stop = Arc::new(AtomicBool::new(false));
    let limit = StdDuration::from_secs(30);
    let (addr, rx) = receiver(WwpConfig::default(), limit, stop.clone());
    let bytes = 300 * 1024 + 77;
    let tx = send(addr, WwpConfig::default(), Some(bytes), None, limit, &stop);
    let rx = rx.join().unwrap().unwrap();
    check_intact(&rx, &tx, bytes);
    // Lossless and fast: level 3 throughout, nothing retransmitted.
    assert_eq!(tx.stats.retransmitted_segments, 0);
    assert!(tx.stats.waves_sent[3] >= 8, "{:?}", tx.stats.waves_sent);
    assert_eq!(tx.datagrams_sent, rx.datagrams_received);
}

/// A relay on loopback between `a` (the sender's side) and the receiver at `b`: forwards each
/// datagram unless it is the n-th of its direction; ends at `stop` or after `limit`.
fn lossy_relay(b: SocketAddr, n: u64, limit: StdDuration, stop: Arc<AtomicBool>) -> (SocketAddr, thread::JoinHandle<[u64; 2]>) {
    let sock = UdpSocket::bind(LOOPBACK).unwrap();
    sock.set_read_timeout(Some(StdDuration::from_millis(10))).unwrap();
    let addr = sock.local_addr().unwrap();
    let h = thread::spawn(move || {
        let started = Instant::now();
        let (mut a, mut seen, mut dropped) = (None::<SocketAddr>, [0u64; 2], [0u64; 2]);
        let mut buf = vec![0u8; 65536];
        while !stop.load(Ordering::Relaxed) && started.elapsed() < limit {
            let Ok((len, from)) = sock.recv_from(&mut buf) else { continue };
            let (dir, to) = if from == b {
                (1, a)
            } else {
                a.get_or_insert(from);
                (0, Some(b))
            };
            seen[dir] += 1;
            if seen[dir] % n == 0 {
                dropped[dir] += 1;
                continue;
            }
            if let Some(to) = to {
                let _ = sock.send_to(&buf[..len], to);
            }
        }
        dropped
    });
    (addr, h)
}

#[test]
fn every_nth_datagram_dropped_both_ways_still_arrives_intact() {
    let stop = Arc::new(AtomicBool::new(false));
    let limit = StdDuration::from_secs(40);
    let (addr, rx) = receiver(quick_config(), limit, stop.clone());
    let (relay, relay_h) = lossy_relay(addr, 9, limit, stop.clone());
    let bytes = 200 * 1024 + 5;
    let tx = send(relay, quick_config(), Some(bytes), None, limit, &stop);
    let rx = rx.join().unwrap().unwrap();
    stop.store(true, Ordering::Relaxed);
    let dropped = relay_h.join().unwrap();
    check_intact(&rx, &tx, bytes);
    assert!(dropped[0] > 10 && dropped[1] > 0, "relay dropped {dropped:?}");
    assert!(tx.stats.retransmitted_segments > 0 && rx.stats.nacked_segments > 0);
}

#[test]
fn a_timed_stream_stops_writing_at_its_duration_and_closes() {
    let stop = Arc::new(AtomicBool::new(false));
    let limit = StdDuration::from_secs(20);
    let (addr, rx) = receiver(WwpConfig::default(), limit, stop.clone());
    let t0 = Instant::now();
    let tx = send(addr, WwpConfig::default(), None, Some(StdDuration::from_millis(400)), limit, &stop);
    let rx = rx.join().unwrap().unwrap();
    assert!(t0.elapsed() < StdDuration::from_secs(10));
    assert!(tx.written_bytes > 100 * 1024, "wrote {}", tx.written_bytes);
    check_intact(&rx, &tx, tx.written_bytes);
    // The progress samples rise and end at the total.
    assert!(rx.progress.windows(2).all(|w| w[0][0] <= w[1][0] && w[0][1] < w[1][1]));
}

#[test]
fn the_stop_flag_ends_a_host_with_its_report() {
    let stop = Arc::new(AtomicBool::new(false));
    let (addr, rx) = receiver(WwpConfig::default(), StdDuration::from_secs(30), stop.clone());
    let (done_tx, done_rx) = mpsc::channel();
    let s2 = stop.clone();
    thread::spawn(move || {
        thread::sleep(StdDuration::from_millis(200));
        s2.store(true, Ordering::Relaxed);
        done_tx.send(()).unwrap();
    });
    let t0 = Instant::now();
    let tx = send(addr, WwpConfig::default(), None, None, StdDuration::from_secs(30), &stop);
    done_rx.recv().unwrap();
    let rx = rx.join().unwrap().unwrap();
    assert!(t0.elapsed() < StdDuration::from_secs(5));
    assert_eq!((tx.outcome.as_str(), rx.outcome.as_str()), ("stopped", "stopped"));
    // What was delivered so far is a prefix of the payload.
    assert_eq!(rx.delivered_sha256, payload::sha256(42, rx.delivered_bytes));
    assert!(rx.delivered_bytes > 0);
}

#[test]
fn a_host_without_a_peer_ends_at_its_time_limit() {
    let stop = AtomicBool::new(false);
    // Nobody listens here: the handshake fails (SYN retried once, then postponed) before the limit.
    let silent = UdpSocket::bind(LOOPBACK).unwrap();
    let tx = send(silent.local_addr().unwrap(), quick_config(), Some(1000), None, StdDuration::from_millis(300), &stop);
    assert!(tx.outcome == "time-limit" || tx.outcome.starts_with("failed"), "{}", tx.outcome);
    assert_eq!(tx.written_bytes, 0);
    let mut cfg = WwpHostConfig::new(WwpRole::Receiver, WwpConfig::default());
    cfg.time_limit = StdDuration::from_millis(100);
    let r = wwp_host::run(wattlab_live::host::bind(LOOPBACK.parse().unwrap()).unwrap(), &cfg, &stop, || {}).unwrap();
    assert_eq!((r.outcome.as_str(), r.peer.as_str(), r.delivered_bytes), ("time-limit", "", 0));
}
