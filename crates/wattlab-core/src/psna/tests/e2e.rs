//! End-to-end transfers through the in-test loop: a 500 KB read from a 4 kB/s fixed host and
//! a 300 KB send, intact, with the radio off most of the time and converging predictions.

use super::*;

fn secs(s: u64) -> Time {
    Time::ZERO + Duration::from_secs(s)
}

#[test]
fn read_500_kb_from_a_slow_fixed_host() {
    // The FH starts at 8 kB/s and settles at 4 kB/s after 60 KB, so the first estimates are
    // too optimistic: the mobile wakes early, polls, and the predictions must converge.
    let fh = FixedHost { first_rate: 8000.0, rate_after: 60_000, rate: 4000.0, ..FixedHost::default() };
    let mut h = Harness::new(MobileConfig::default(), DaemonConfig::default(), Wlan::default(), fh, 1);
    let size = 500_000;
    h.mobile.read(h.now, FH, "big.bin", Some(size)).unwrap();
    let end = h.run(secs(1000));
    assert!(matches!(end, Some(MobileEvent::Completed { bytes: 500_000, .. })), "{end:?}");
    assert_eq!(h.mobile.take_object().unwrap(), object(size), "the object arrives intact");
    assert!(!h.mobile.radio_on(), "the card ends off");
    let off = h.off_fraction();
    let (t_end, fh_done) = (h.now.as_secs_f64(), h.fh_complete_at().unwrap().as_secs_f64());
    assert!(off > 0.8, "radio off {:.1} % of {t_end:.1} s", off * 100.0);
    assert!(t_end - fh_done < 10.0, "the burst follows the FH leg closely: {fh_done:.1} → {t_end:.1}");
    // Every announced residual predicts the FH leg's end; the error shrinks as the EWMA
    // learns the slower rate.
    let r = h.residuals();
    let err: Vec<f64> =
        r.iter().filter(|(_, d)| *d > Duration::ZERO).map(|(t, d)| ((*t + *d).as_secs_f64() - fh_done).abs()).collect();
    assert!(err.len() >= 3, "several polls: {r:?}");
    let (first, last) = (err[0], *err.last().unwrap());
    assert!(last < first / 2.0 && last < 0.05 * fh_done, "errors {err:?}");
    assert_eq!(r.last().unwrap().1, Duration::ZERO, "the last answer is 0 (ready)");
    // On time: the initial wait (connect + ≥ 10 packets), the polls and the burst.
    let on = h.rec.on_time.as_secs_f64();
    assert!(on < 10.0, "on for {on:.2} s");
    assert!(h.mobile.stats().polls as usize >= err.len() - 1);
    assert_eq!(h.rec.radio.first().map(|c| c.on), Some(true));
}

#[test]
fn send_300_kb_to_a_slow_fixed_host() {
    let fh = FixedHost { rate: 3000.0, first_rate: 3000.0, ..FixedHost::default() };
    let mut h = Harness::new(MobileConfig::default(), DaemonConfig::default(), Wlan::default(), fh, 2);
    let data = object(300_000);
    h.mobile.send(h.now, FH, "up.bin", data.clone()).unwrap();
    let end = h.run(secs(1000));
    assert!(matches!(end, Some(MobileEvent::Completed { bytes: 300_000, .. })), "{end:?}");
    assert_eq!(h.rec.fh_received, data, "the FH receives the object intact");
    assert!(h.rec.fh_commands.iter().any(|c| matches!(c, FhCommand::Close(_))), "FIN after the data");
    let off = h.off_fraction();
    assert!(off > 0.8, "radio off {:.1} %", off * 100.0);
    let fh_done = h.fh_complete_at().unwrap();
    assert!(h.now >= fh_done, "done only after the FH acknowledged everything");
    assert!(h.daemon.stats().polls >= 1);
}

#[test]
fn read_of_unknown_size_ends_at_the_fixed_hosts_close() {
    let fh = FixedHost { close_at_end: true, ..FixedHost::default() };
    let mut h = Harness::new(MobileConfig::default(), DaemonConfig::default(), Wlan::default(), fh, 3);
    h.mobile.read(h.now, FH, "stream", None).unwrap();
    // The harness's source needs a length; the request announces none.
    h.fh_size_override(120_000);
    let end = h.run(secs(1000));
    assert!(matches!(end, Some(MobileEvent::Completed { bytes: 120_000, .. })), "{end:?}");
    assert_eq!(h.mobile.take_object().unwrap(), object(120_000));
    // The doubling rule: each residual is about the time the fetch has taken so far.
    let r = h.residuals();
    assert!(r.len() >= 2 && h.off_fraction() > 0.5, "{r:?}");
}

#[test]
fn an_empty_object_needs_no_burst() {
    let mut h = Harness::new(MobileConfig::default(), DaemonConfig::default(), Wlan::default(), FixedHost::default(), 4);
    h.mobile.read(h.now, FH, "empty", Some(0)).unwrap();
    let end = h.run(secs(100));
    assert!(matches!(end, Some(MobileEvent::Completed { bytes: 0, .. })), "{end:?}");
    assert_eq!(h.mobile.take_object().unwrap(), Vec::<u8>::new());
}

#[test]
fn a_send_that_finishes_while_the_mobile_sleeps_waits_for_its_poll() {
    // Slow at first (a pessimistic first estimate, a long sleep), then fast: the FH has
    // everything long before the mobile wakes, and far longer ago than `linger`.
    let fh = FixedHost { first_rate: 500.0, rate_after: 20_000, rate: 50_000.0, ..FixedHost::default() };
    let mut h = Harness::new(MobileConfig::default(), DaemonConfig::default(), Wlan::default(), fh, 5);
    let data = object(100_000);
    h.mobile.send(h.now, FH, "up.bin", data.clone()).unwrap();
    let end = h.run(secs(3000));
    assert!(matches!(end, Some(MobileEvent::Completed { bytes: 100_000, .. })), "{end:?}");
    let fh_done = h.fh_complete_at().unwrap();
    assert!(h.now > fh_done + DaemonConfig::default().linger, "{:?} vs {fh_done:?}", h.now);
    assert_eq!(h.rec.fh_received, data);
}
