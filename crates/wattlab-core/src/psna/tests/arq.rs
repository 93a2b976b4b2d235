//! The stop-and-wait ARQ delivers every byte exactly once under loss, duplication and
//! reordering of its messages (a seeded property loop: wattlab-core has no proptest).

use super::*;

#[test]
fn every_byte_exactly_once_under_loss_duplication_and_reordering() {
    let mut rng = Rng::new(0x5eed);
    let mut retransmissions = 0;
    for case in 0..60u64 {
        let wlan = Wlan {
            delay: Duration::from_millis(1 + rng.next() % 5),
            rate_bps: 2_000_000,
            loss: (rng.next() % 25) as f64 / 100.0,
            dup: (rng.next() % 20) as f64 / 100.0,
            // Up to 15 ms of extra delay per copy: copies and answers overtake each other.
            jitter: Duration::from_millis(rng.next() % 16),
        };
        let chunk = 50 + (rng.next() % 400) as u16;
        let mcfg = MobileConfig { chunk_size: chunk, max_retries: 40, ..MobileConfig::default() };
        let dcfg = DaemonConfig { chunk_size: chunk, ..DaemonConfig::default() };
        let fh = FixedHost { rate: 20_000.0, first_rate: 20_000.0, ..FixedHost::default() };
        let mut h = Harness::new(mcfg, dcfg, wlan, fh, case + 1);
        let size = rng.next() % 30_000;
        let read = case % 2 == 0;
        if read {
            h.mobile.read(h.now, FH, "r", Some(size)).unwrap();
        } else {
            h.mobile.send(h.now, FH, "s", object(size)).unwrap();
        }
        let end = h.run(Time::ZERO + Duration::from_secs(3600));
        assert!(matches!(end, Some(MobileEvent::Completed { bytes, .. }) if bytes == size), "case {case} {wlan:?}: {end:?}");
        if read {
            assert_eq!(h.mobile.take_object().unwrap(), object(size), "case {case}: read intact");
        } else {
            assert_eq!(h.rec.fh_received, object(size), "case {case}: relayed intact, exactly once");
        }
        retransmissions += h.mobile.stats().retransmissions;
    }
    assert!(retransmissions > 100, "the losses were exercised ({retransmissions} retransmissions)");
}

#[test]
fn duplicated_and_stale_requests_do_not_reappend() {
    // An upload chunk delivered twice, and an old one after a newer: appended once.
    let mut d = PsnaDaemon::new(DaemonConfig::default()).unwrap();
    let now = Time::ZERO;
    let msg = |seq, body| crate::wire::pstp::PstpMessage { transfer: 9, seq, body };
    use crate::wire::pstp::{PstpBody, PstpRequest};
    let req = PstpRequest { fh_addr: FH.addr, fh_port: FH.port, size: Some(6), object: "x" };
    d.handle_message(now, MOBILE, &msg(1, PstpBody::SendReq(req)));
    let fh = FhId(1);
    d.handle_fh_connected(now, fh);
    d.handle_message(now, MOBILE, &msg(2, PstpBody::Data { offset: 0, payload: b"abc" }));
    d.handle_message(now, MOBILE, &msg(2, PstpBody::Data { offset: 0, payload: b"abc" }));
    d.handle_message(now, MOBILE, &msg(3, PstpBody::Data { offset: 3, payload: b"def" }));
    d.handle_message(now, MOBILE, &msg(2, PstpBody::Data { offset: 0, payload: b"abc" }));
    d.handle_message(now, MOBILE, &msg(3, PstpBody::Data { offset: 3, payload: b"def" }));
    assert_eq!(d.fh_outgoing(fh), b"abcdef");
    assert_eq!(d.stats().stale, 1);
}

/// The engines fed arbitrary and mutated datagrams (the `pstp` fuzz target's step) neither
/// panic nor emit undecodable datagrams.
#[test]
fn arbitrary_datagrams_never_panic_the_engines() {
    use crate::wire::pstp::{encode_pstp, PstpBody, PstpMessage};
    let mut rng = Rng::new(77);
    let bodies = [
        PstpBody::Poll,
        PstpBody::Ack { offset: 0 },
        PstpBody::Data { offset: 0, payload: b"xyz" },
        PstpBody::ResidualTime { residual_ms: 5, size: Some(10_000) },
        PstpBody::OkToSend { offset: 0 },
    ];
    for _ in 0..3000 {
        let mut input = Vec::new();
        for _ in 0..rng.next() % 6 {
            let body = bodies[(rng.next() % bodies.len() as u64) as usize];
            let mut m = Vec::new();
            let msg = PstpMessage { transfer: (rng.next() % 2) as u32 * 100, seq: (rng.next() % 4) as u32, body };
            encode_pstp(&msg, &mut m).unwrap();
            if rng.chance(0.3) {
                let k = (rng.next() as usize) % m.len();
                m[k] ^= rng.next() as u8;
            }
            input.push(m.len() as u8);
            input.extend_from_slice(&m);
        }
        super::super::fuzz::exercise(&input);
    }
}
