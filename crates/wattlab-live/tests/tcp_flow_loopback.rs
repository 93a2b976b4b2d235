//! The tunnel scenario's flow ends over loopback TCP (no root): what the receiver hashes is
//! exactly what the sender wrote, and both are the payload stream of the flow's key.

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use wattlab_live::payload;
use wattlab_live::tcp_flow::{receive, send};

fn free_port() -> SocketAddr {
    // Bind port 0 to learn a free port, then release it for the receiver.
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr")
}

#[test]
fn a_paced_flow_arrives_intact_and_at_its_read_rate() {
    let addr = free_port();
    let (tx, rx) = std::sync::mpsc::channel();
    let recv = std::thread::spawn(move || receive(addr, 2_000_000.0, Duration::from_secs(20), move || tx.send(()).expect("ready")));
    rx.recv_timeout(Duration::from_secs(10)).expect("the receiver listens");
    let sent = send(addr, 7, 1 << 40, Duration::from_millis(500), Duration::from_secs(20)).expect("send");
    let got = recv.join().expect("receiver thread").expect("receive");
    assert!(got.closed && sent.closed);
    assert_eq!((got.bytes, &got.sha256), (sent.bytes, &sent.sha256));
    assert_eq!(got.sha256, payload::sha256(7, got.bytes));
    // The receiver reads at 2 MB/s: it took at least bytes / rate (minus one read's worth).
    assert!(got.bytes > 0 && got.elapsed_s >= (got.bytes as f64 - 1460.0) / 2e6, "{} B in {} s", got.bytes, got.elapsed_s);
}

#[test]
fn a_receiver_without_a_sender_gives_up_at_its_bound() {
    let addr = free_port();
    let err = receive(addr, 1e6, Duration::from_millis(200), || {}).unwrap_err();
    assert!(err.contains("no connection"), "{err}");
}
