//! Failures end with a clear error and the radio off, never a hang: lost polls, a dead or
//! restarted daemon, a fixed host that aborts, closes early or cannot be reached.

use super::*;
use crate::wire::pstp::PstpErrorCode;

fn secs(s: u64) -> Time {
    Time::ZERO + Duration::from_secs(s)
}

/// A 40 KB read from a 4 kB/s FH, run until the mobile first sleeps; returns its wake time.
fn asleep(seed: u64, fh: FixedHost) -> (Harness, Time) {
    let wlan = Wlan { loss: 0.0, ..Wlan::default() };
    let mut h = Harness::new(MobileConfig::default(), DaemonConfig::default(), wlan, fh, seed);
    h.mobile.read(h.now, FH, "obj", Some(40_000)).unwrap();
    for s in 1..100 {
        assert_eq!(h.run(secs(s)), None);
        if let MobileState::Sleeping(wake) = h.mobile.state() {
            assert!(!h.mobile.radio_on());
            return (h, wake);
        }
    }
    panic!("the mobile never slept");
}

fn failure(end: Option<MobileEvent>) -> MobileError {
    match end {
        Some(MobileEvent::Failed { error, .. }) => error,
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn a_lost_poll_is_retried() {
    let (mut h, wake) = asleep(1, FixedHost::default());
    h.daemon_dead = true; // the first Poll and two retransmissions are lost
    assert_eq!(h.run(wake + Duration::from_millis(250)), None);
    assert_eq!(h.mobile.stats().retransmissions, 2);
    h.daemon_dead = false;
    let end = h.run(secs(200));
    assert!(matches!(end, Some(MobileEvent::Completed { bytes: 40_000, .. })), "{end:?}");
    assert_eq!(h.mobile.take_object().unwrap(), object(40_000));
}

#[test]
fn a_mobile_never_waits_forever_for_a_dead_daemon() {
    let (mut h, wake) = asleep(2, FixedHost::default());
    h.daemon_dead = true;
    let end = h.run(secs(100_000));
    let cfg = MobileConfig::default();
    assert_eq!(failure(end), MobileError::NoResponse { what: "Poll", tries: cfg.max_retries + 1 });
    let bound = wake + cfg.rto.saturating_mul(u64::from(cfg.max_retries) + 1);
    assert!(h.now <= bound, "gave up at {:?}, bound {bound:?}", h.now);
    assert!(!h.mobile.radio_on(), "the card ends off");
    assert_eq!(h.mobile.state(), MobileState::Idle);
    assert!(h.mobile.read(h.now, FH, "again", None).is_ok(), "a new transfer may start");
}

#[test]
fn a_restarted_daemon_gives_a_clear_error() {
    let (mut h, wake) = asleep(3, FixedHost::default());
    h.daemon = PsnaDaemon::new(DaemonConfig::default()).unwrap();
    let end = h.run(secs(100_000));
    assert_eq!(failure(end), MobileError::Daemon(PstpErrorCode::UnknownTransfer));
    assert!(h.now < wake + Duration::from_millis(50), "at the first Poll");
    assert!(!h.mobile.radio_on());
    let msg = MobileError::Daemon(PstpErrorCode::UnknownTransfer).to_string();
    assert!(msg.contains("does not know this transfer"), "{msg}");
}

#[test]
fn a_fixed_host_abort_reaches_the_sleeping_mobile_at_its_poll() {
    let fh = FixedHost { abort_after: Some(20_000), ..FixedHost::default() };
    let (mut h, _) = asleep(4, fh);
    let end = h.run(secs(100_000));
    assert_eq!(failure(end), MobileError::Daemon(PstpErrorCode::FhAborted));
    assert!(!h.mobile.radio_on());
    assert!(h.rec.daemon_events.iter().any(|e| matches!(e, DaemonEvent::Failed { code: PstpErrorCode::FhAborted, .. })));
}

#[test]
fn an_abort_before_the_first_estimate_is_pushed_to_the_waiting_mobile() {
    let fh = FixedHost { abort_after: Some(5 * 1460), ..FixedHost::default() };
    let mut h = Harness::new(MobileConfig::default(), DaemonConfig::default(), Wlan::default(), fh, 5);
    h.mobile.read(h.now, FH, "obj", Some(40_000)).unwrap();
    let end = h.run(secs(100));
    assert_eq!(failure(end), MobileError::Daemon(PstpErrorCode::FhAborted));
    assert!(h.now < secs(5), "at once, not at a later poll: {:?}", h.now);
}

#[test]
fn an_unreachable_fixed_host() {
    let fh = FixedHost { unreachable: true, ..FixedHost::default() };
    let mut h = Harness::new(MobileConfig::default(), DaemonConfig::default(), Wlan::default(), fh, 6);
    h.mobile.send(h.now, FH, "up", object(1000)).unwrap();
    assert_eq!(failure(h.run(secs(100))), MobileError::Daemon(PstpErrorCode::FhUnreachable));
}

#[test]
fn a_fixed_host_that_closes_early() {
    let mut d = PsnaDaemon::new(DaemonConfig::default()).unwrap();
    let mut m = PsnaMobile::new(MobileConfig::default(), 1, true).unwrap();
    m.read(Time::ZERO, FH, "obj", Some(10_000)).unwrap();
    let mut buf = Vec::new();
    m.poll_transmit(Time::ZERO, &mut buf).unwrap();
    d.handle_datagram(Time::ZERO, MOBILE, &buf).unwrap();
    d.handle_fh_connected(Time::ZERO, FhId(1));
    d.handle_fh_data(Time::ZERO, FhId(1), &[1; 100]);
    d.handle_fh_closed(Time::ZERO, FhId(1));
    while d.poll_transmit(Time::ZERO, &mut buf).is_some() {
        m.handle_datagram(Time::ZERO, DAEMON, &buf).unwrap();
    }
    // The pending ACK put it in WaitingOn, the pushed ERROR failed it (and switched it off).
    assert_eq!(m.poll_event(), Some(MobileEvent::Radio(RadioCommand { at: Time::ZERO, on: false })));
    let ev = m.poll_event();
    assert!(matches!(ev, Some(MobileEvent::Failed { error: MobileError::Daemon(PstpErrorCode::FhClosedEarly), .. })), "{ev:?}");
}

#[test]
fn abandoned_transfers_are_dropped_and_their_fh_connection_aborted() {
    let cfg = DaemonConfig::default();
    let mut d = PsnaDaemon::new(cfg.clone()).unwrap();
    let mut m = PsnaMobile::new(MobileConfig::default(), 1, true).unwrap();
    m.read(Time::ZERO, FH, "obj", Some(10_000)).unwrap();
    let mut buf = Vec::new();
    m.poll_transmit(Time::ZERO, &mut buf).unwrap();
    d.handle_datagram(Time::ZERO, MOBILE, &buf).unwrap();
    assert_eq!(d.poll_timeout(), Some(Time::ZERO + cfg.abandon_after));
    d.handle_timeout(Time::ZERO + cfg.abandon_after);
    assert_eq!(d.transfers(), 0);
    let events: Vec<_> = std::iter::from_fn(|| d.poll_event()).collect();
    let cmds: Vec<_> = events.iter().filter_map(|e| if let DaemonEvent::Fh(c) = e { Some(c) } else { None }).collect();
    assert!(matches!(cmds.last(), Some(FhCommand::Abort(FhId(1)))), "{cmds:?}");
    assert!(events.contains(&DaemonEvent::Abandoned { fh: FhId(1) }));
}

#[test]
fn a_stalled_fixed_host_does_not_keep_the_radio_on_forever() {
    // Connected, but one packet per 1460 s: no estimate for hours.
    let fh = FixedHost { rate: 1.0, first_rate: 1.0, ..FixedHost::default() };
    let mcfg = MobileConfig { max_wait_on: Duration::from_secs(60), ..MobileConfig::default() };
    let mut h = Harness::new(mcfg, DaemonConfig::default(), Wlan::default(), fh, 7);
    h.mobile.read(h.now, FH, "obj", Some(1_000_000)).unwrap();
    assert_eq!(h.run(secs(3600)), None);
    let first_off = h.rec.radio.iter().find(|c| !c.on).unwrap().at;
    assert!(first_off <= secs(61), "off after max_wait_on: {first_off:?}");
    assert!(h.off_fraction() > 0.4, "{}", h.off_fraction());
}
