//! One property step over the PS-TP decoder and the engines, shared by the unit tests and
//! the `cargo fuzz` target `pstp`: arbitrary bytes decode or are refused without a panic,
//! what decodes re-encodes to the same bytes, and a daemon and a mobile mid-transfer fed the
//! bytes as datagrams neither panic nor emit undecodable datagrams.

use std::net::Ipv4Addr;

use super::config::{DaemonConfig, MobileConfig};
use super::daemon::PsnaDaemon;
use super::mobile::PsnaMobile;
use crate::engine::Engine;
use crate::packet::Endpoint;
use crate::time::{Duration, Time};
use crate::wire::pstp::{decode_pstp, encode_pstp};

/// Decode `data`; if it decodes, it must re-encode to exactly `data`.
pub fn exercise_decoder(data: &[u8]) {
    if let Ok(msg) = decode_pstp(data) {
        let mut again = Vec::new();
        encode_pstp(&msg, &mut again).expect("a decoded message encodes");
        assert_eq!(again, data, "a decoded PS-TP message re-encodes to its bytes");
    }
}

/// The decoder property, then `data` cut into datagrams (by its own length bytes) fed to a
/// daemon with a read in progress and to a mobile waiting for its first Residual_Time.
pub fn exercise(data: &[u8]) {
    exercise_decoder(data);
    let mobile_addr = Endpoint::new(Ipv4Addr::new(10, 0, 0, 1), 5000);
    let fh = Endpoint::new(Ipv4Addr::new(10, 0, 0, 3), 80);
    let mut now = Time::ZERO;
    let mut daemon = PsnaDaemon::new(DaemonConfig::default()).expect("valid config");
    let mut mobile = PsnaMobile::new(MobileConfig::default(), 7, false).expect("valid config");
    mobile.read(now, fh, "obj", Some(10_000)).expect("idle mobile");
    let daemon_addr = Endpoint::new(Ipv4Addr::new(10, 0, 0, 2), 7300);
    let mut buf = Vec::new();
    while mobile.poll_event().is_some() {} // the radio-on that holds the request back
    while mobile.poll_transmit(now, &mut buf).is_some() {
        let _ = daemon.handle_datagram(now, mobile_addr, &buf);
    }
    let mut rest = data;
    while let Some((&n, tail)) = rest.split_first() {
        let take = usize::from(n).min(tail.len());
        let dgram = &tail[..take];
        rest = &tail[take..];
        now += Duration::from_millis(u64::from(n % 32) * 50);
        let _ = daemon.handle_datagram(now, mobile_addr, dgram);
        let _ = mobile.handle_datagram(now, daemon_addr, dgram);
        if n % 3 == 0 {
            daemon.handle_fh_data(now, super::daemon::FhId(1), dgram);
        }
        for t in [daemon.poll_timeout(), mobile.poll_timeout()].into_iter().flatten() {
            if t <= now {
                daemon.handle_timeout(now);
                mobile.handle_timeout(now);
            }
        }
        while daemon.poll_transmit(now, &mut buf).is_some() {
            assert!(decode_pstp(&buf).is_ok(), "the daemon emits decodable datagrams");
        }
        while mobile.poll_event().is_some() {}
        while mobile.poll_transmit(now, &mut buf).is_some() {
            assert!(decode_pstp(&buf).is_ok(), "the mobile emits decodable datagrams");
        }
        while daemon.poll_event().is_some() {}
    }
}
