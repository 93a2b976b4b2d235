//! Every mode on both kinds of MAC, driven by a plain loop: the hop's (no beacons, bursts, no
//! PM bit, instant wake-ups) and the BSS's (beacons and TIM, PS-Polls, PM bit, wake latency).

use super::*;
use crate::power::{Driver, PowerSave};

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

const BI: Duration = Duration::from_millis(100);
const QUIET: MacView = MacView { queued: 0, busy: false };
const BSS: MacCaps = MacCaps::bss(Duration::from_millis(1));

fn held(n: u32) -> MacView {
    MacView { queued: n, busy: false }
}

fn events(p: &mut StationPower) -> Vec<StationEvent> {
    std::iter::from_fn(|| p.poll_event()).collect()
}

fn wake(at: Time) -> StationEvent {
    StationEvent::Power { at, state: PowerState::Awake }
}

fn doze(at: Time) -> StationEvent {
    StationEvent::Power { at, state: PowerState::Doze }
}

/// Fires the deadlines due up to `until`, the MAC showing `view` meanwhile; the events with
/// the time of the deadline that made them.
fn run_until(p: &mut StationPower, until: Time, view: MacView) -> Vec<(Time, StationEvent)> {
    let mut v = Vec::new();
    while let Some(t) = p.poll_timeout().filter(|&t| t <= until) {
        p.handle_timeout(t, view);
        v.extend(events(p).into_iter().map(|e| (t, e)));
    }
    v
}

fn started(mode: PowerSave, caps: MacCaps) -> StationPower {
    let mut p = StationPower::new(mode, caps, BI);
    p.start(Time::ZERO);
    p
}

#[test]
fn cam_never_dozes_never_holds_and_ignores_commands() {
    for caps in [MacCaps::HOP, BSS] {
        let mut p = started(PowerSave::Cam, caps);
        assert_eq!(p.poll_timeout(), None);
        p.handle_own_frame(ms(1));
        p.handle_ap_queued(ms(1));
        p.handle_uplink_sent(ms(2), true, held(3));
        p.handle_idle(ms(3), QUIET);
        p.handle_tbtt(ms(100), 1);
        p.handle_command(ms(4), Command::Sleep, QUIET);
        assert!(events(&mut p).is_empty());
        assert!(p.is_awake() && p.ap_may_send() && p.hears() && p.accept_arrival() && !p.may_doze());
        assert_eq!(p.stats_at(ms(500)), StationStats::default());
    }
}

#[test]
fn ideal_psm_without_beacons_holds_until_the_next_instant_then_sends_one_burst() {
    let mut p = started(PowerSave::IdealPsm { interval: BI }, MacCaps::HOP);
    assert_eq!(p.poll_timeout(), Some(ms(0)), "dozes once the events of t = 0 have run");
    assert_eq!(run_until(&mut p, ms(0), QUIET), [(ms(0), doze(ms(0)))]);
    assert!(!p.ap_may_send() && p.hears(), "held, not lost");
    // Two frames held from 30 ms: one wake-up, at the next instant.
    p.handle_ap_queued(ms(30));
    p.handle_ap_queued(ms(40));
    assert_eq!(p.poll_timeout(), Some(ms(100)));
    assert_eq!(run_until(&mut p, ms(100), held(2)), [(ms(100), wake(ms(100))), (ms(100), StationEvent::Release)]);
    // Exactly the two held frames go; a third, arriving during the burst, waits an instant.
    assert!(p.ap_may_send());
    p.handle_ap_sent();
    p.handle_ap_queued(ms(100));
    assert_eq!(p.poll_timeout(), Some(ms(200)));
    p.handle_ap_sent();
    assert!(!p.ap_may_send());
    // Awake until the last frame has arrived and the station has nothing of its own to send.
    p.handle_idle(ms(101), MacView { queued: 1, busy: true });
    assert!(p.is_awake() && events(&mut p).is_empty());
    p.handle_uplink_sent(ms(102), true, held(1));
    p.handle_idle(ms(102), held(1));
    assert_eq!(events(&mut p), [doze(ms(102))]);
    // Its own frames wake it at once (no latency on this MAC); it dozes right after.
    p.handle_own_frame(ms(150));
    assert_eq!(events(&mut p), [wake(ms(150))]);
    assert!(!p.ap_may_send(), "awake for its own frame is not a release");
    p.handle_idle(ms(151), held(1));
    assert_eq!(events(&mut p), [doze(ms(151))]);
    let s = p.stats_at(ms(160));
    assert_eq!((s.dozes, s.bursts, s.packets_held, s.packets_released), (3, 1, 3, 2));
    assert_eq!(s.doze_ns, (100 + 48 + 9) * 1_000_000);
}

#[test]
fn ideal_psm_with_beacons_follows_the_macs_release_clock_and_wakes_without_latency() {
    let mut p = started(PowerSave::IdealPsm { interval: BI }, BSS);
    // The BSS starts its stations dozing before the events of t = 0.
    p.handle_timeout(ms(0), QUIET);
    assert_eq!(events(&mut p), [doze(ms(0))]);
    p.handle_ap_queued(ms(30));
    assert_eq!(p.poll_timeout(), None, "the MAC keeps the clock");
    p.handle_release_instant(ms(100), held(2));
    assert_eq!(events(&mut p), [wake(ms(100)), StationEvent::Release]);
    p.handle_release_instant(ms(100), held(2));
    assert!(events(&mut p).is_empty(), "one burst at a time");
    p.handle_ap_sent();
    p.handle_ap_sent();
    assert!(p.may_doze());
    p.handle_idle(ms(110), QUIET);
    assert_eq!(events(&mut p), [doze(ms(110))]);
    // Own frame: a wake-up of zero latency, through the deadline, then Ready.
    p.handle_own_frame(ms(150));
    assert!(p.is_waking() && !p.ap_may_send());
    assert_eq!(p.poll_timeout(), Some(ms(150)));
    assert_eq!(run_until(&mut p, ms(150), QUIET), [(ms(150), wake(ms(150))), (ms(150), StationEvent::Ready)]);
    assert!(p.is_awake() && !p.is_waking());
    assert_eq!(p.stats().dozes, 2);
}

#[test]
fn psm_without_beacons_wakes_for_every_listen_beacon_and_pays_for_it() {
    let mut p = started(PowerSave::Psm { listen_interval: 2 }, MacCaps::HOP);
    run_until(&mut p, ms(0), QUIET);
    assert_eq!(p.poll_timeout(), Some(ms(200)), "every second beacon");
    // Nothing held: awake for the instant, dozing again at once.
    assert_eq!(run_until(&mut p, ms(200), QUIET), [(ms(200), wake(ms(200))), (ms(200), doze(ms(200)))]);
    assert_eq!(p.poll_timeout(), Some(ms(400)));
    // Three held: one burst, awake until it is out.
    p.handle_ap_queued(ms(300));
    assert_eq!(run_until(&mut p, ms(400), held(3)), [(ms(400), wake(ms(400))), (ms(400), StationEvent::Release)]);
    for left in (0..3).rev() {
        assert!(p.ap_may_send());
        p.handle_ap_sent();
        p.handle_idle(ms(401), QUIET);
        assert_eq!(p.is_awake(), left > 0, "awake while the burst has frames left");
    }
    assert_eq!(events(&mut p), [doze(ms(401))]);
    // Its own frame cancels the scheduled wake-up; the next doze schedules the next one.
    p.handle_own_frame(ms(450));
    assert_eq!((events(&mut p), p.poll_timeout()), (vec![wake(ms(450))], None));
    p.handle_idle(ms(451), QUIET);
    assert_eq!((events(&mut p), p.poll_timeout()), (vec![doze(ms(451))], Some(ms(600))));
    let s = p.stats_at(ms(600));
    assert_eq!((s.dozes, s.bursts, s.packets_released), (4, 1, 3));
}

#[test]
fn psm_with_beacons_listens_to_the_tim_and_asks_for_ps_polls() {
    let mut p = started(PowerSave::Psm { listen_interval: 3 }, BSS);
    p.handle_timeout(ms(0), QUIET);
    events(&mut p);
    for n in 1..=5 {
        p.handle_tbtt(ms(100 * n), n);
        assert_eq!(p.is_awake(), n == 3, "beacon {n}");
        if n == 3 {
            assert!(p.waits_for_beacon() && !p.may_doze(), "awake for the TIM");
            p.handle_tim(ms(301), QUIET);
            assert!(!p.waits_for_beacon());
            p.handle_idle(ms(301), QUIET);
        }
    }
    p.handle_ap_queued(ms(550));
    p.handle_tbtt(ms(600), 6);
    p.handle_tim(ms(601), held(2));
    assert_eq!(events(&mut p), [wake(ms(300)), doze(ms(301)), wake(ms(600)), StationEvent::PsPoll]);
    assert!(!p.ap_may_send(), "only in answer to PS-Polls");
    p.handle_idle(ms(601), MacView { queued: 2, busy: true });
    assert!(p.is_awake(), "a PS-Poll is due: busy");
    assert_eq!(p.stats().packets_held, 1);
}

#[test]
fn bsd_without_beacons_wakes_at_growing_beacon_aligned_intervals_capped_at_0_9_s() {
    let mut p = started(PowerSave::Bsd { percent: 50 }, MacCaps::HOP);
    p.handle_uplink_sent(ms(0), true, QUIET);
    assert!(p.ap_may_send(), "active: direct delivery");
    // The settle at 0 finds it active; the window closes at 200 ms.
    assert_eq!(run_until(&mut p, ms(0), QUIET), []);
    assert_eq!(p.poll_timeout(), Some(ms(200)));
    assert_eq!(run_until(&mut p, ms(200), QUIET), [(ms(200), doze(ms(200)))]);
    let mut wakes = Vec::new();
    for _ in 0..9 {
        let at = p.poll_timeout().unwrap();
        wakes.push(at.as_nanos() / 1_000_000);
        assert_eq!(run_until(&mut p, at, QUIET), [(at, wake(at)), (at, doze(at))]);
    }
    // Sleep ≤ 50 % of the time since the uplink frame, floored to a beacon, ≥ one beacon.
    assert_eq!(wakes, [300, 400, 600, 900, 1300, 1900, 2800, 3700, 4600]);
    assert_eq!(p.poll_timeout(), Some(ms(5500)));
    // Held at a wake-up: one burst, awake until it is out.
    p.handle_ap_queued(ms(5000));
    assert_eq!(run_until(&mut p, ms(5500), held(1)), [(ms(5500), wake(ms(5500))), (ms(5500), StationEvent::Release)]);
    p.handle_ap_sent();
    p.handle_idle(ms(5501), QUIET);
    assert_eq!(events(&mut p), [doze(ms(5501))]);
    // An uplink frame cancels the scheduled wake-up and opens the active window again; held
    // frames then go directly.
    p.handle_own_frame(ms(5600));
    p.handle_uplink_sent(ms(5601), true, held(2));
    assert_eq!(events(&mut p), [wake(ms(5600)), StationEvent::Release]);
    assert_eq!(p.poll_timeout(), Some(ms(5801)), "only the window is pending");
    // A Null frame (not data) does not restart the window.
    p.handle_uplink_sent(ms(5700), false, QUIET);
    assert_eq!(p.poll_timeout(), Some(ms(5801)));
    assert_eq!(p.stats().packets_held, 1);
}

#[test]
fn bsd_with_beacons_listens_from_its_next_wake_on() {
    let mut p = started(PowerSave::Bsd { percent: 50 }, BSS);
    p.handle_timeout(ms(0), QUIET);
    // Its own frame wakes it (1 ms); once the frame is out it is active: the AP delivers
    // directly and beacons are not listened to.
    p.handle_own_frame(ms(999));
    run_until(&mut p, ms(1000), QUIET);
    p.handle_uplink_sent(ms(1000), true, QUIET);
    p.handle_tbtt(ms(1100), 11);
    assert!(!p.waits_for_beacon() && p.ap_may_send());
    assert_eq!(run_until(&mut p, ms(1200), QUIET).last(), Some(&(ms(1200), doze(ms(1200)))));
    // Dozing at 1.2 s, 0.2 s after the frame: wakes for the beacon at 1.3 s, not 1.3 s' before.
    p.handle_tbtt(ms(1250), 12);
    assert!(!p.is_awake());
    p.handle_tbtt(ms(1300), 13);
    assert!(p.is_awake() && p.waits_for_beacon());
    p.handle_tim(ms(1301), held(1));
    assert_eq!(events(&mut p).last(), Some(&StationEvent::PsPoll));
    assert!(!p.ap_may_send(), "retrieval by PS-Poll, not active");
}

#[test]
fn uapsd_uplink_frames_trigger_service_periods() {
    for caps in [MacCaps::HOP, BSS] {
        let mut p = started(PowerSave::Uapsd { trigger_interval: None, max_sp: 2 }, caps);
        p.handle_timeout(ms(0), QUIET);
        p.handle_ap_queued(ms(10));
        p.handle_ap_queued(ms(10));
        p.handle_ap_queued(ms(10));
        assert!(!p.ap_may_send());
        p.handle_own_frame(ms(50));
        run_until(&mut p, ms(60), QUIET);
        assert!(p.is_awake());
        p.handle_uplink_sent(ms(60), false, held(3));
        assert_eq!(events(&mut p).last(), Some(&StationEvent::Release));
        // Two frames (max_sp), then the period is over and the station dozes.
        for _ in 0..2 {
            assert!(p.ap_may_send());
            p.handle_ap_sent();
        }
        assert!(!p.ap_may_send());
        p.handle_idle(ms(61), held(1));
        assert!(!p.is_awake());
        assert_eq!((p.stats().bursts, p.stats().packets_released, p.stats().packets_held), (1, 2, 3));
    }
}

#[test]
fn uapsd_periodic_triggers_are_frames_on_the_bss_and_idealised_on_the_hop() {
    let mode = PowerSave::Uapsd { trigger_interval: Some(Duration::from_millis(20)), max_sp: 0 };
    let mut bss = started(mode, BSS);
    bss.handle_timeout(ms(0), QUIET);
    events(&mut bss);
    assert_eq!(run_until(&mut bss, ms(20), QUIET), [(ms(20), StationEvent::Trigger)]);
    // Something went uplink within the interval: no trigger at 40 ms.
    bss.handle_uplink_sent(ms(30), true, QUIET);
    assert_eq!(run_until(&mut bss, ms(40), QUIET), []);
    assert_eq!(run_until(&mut bss, ms(60), QUIET), [(ms(60), StationEvent::Trigger)]);

    let mut hop = started(mode, MacCaps::HOP);
    run_until(&mut hop, ms(0), QUIET);
    events(&mut hop);
    // Nothing held: no wake-up at all. Held: the station wakes for the service period.
    assert_eq!(run_until(&mut hop, ms(20), QUIET), []);
    hop.handle_ap_queued(ms(25));
    assert_eq!(run_until(&mut hop, ms(40), held(1)), [(ms(40), wake(ms(40))), (ms(40), StationEvent::Release)]);
    assert!(hop.ap_may_send());
    hop.handle_ap_sent();
    hop.handle_idle(ms(41), QUIET);
    assert!(!hop.is_awake());
}

#[test]
fn external_without_the_pm_bit_acts_at_once_and_loses_what_reaches_a_sleeper() {
    let mut p = started(PowerSave::External(Driver::Cc), MacCaps::HOP);
    assert_eq!(p.poll_timeout(), None, "only the driver puts it to sleep");
    assert!(p.is_awake() && p.accept_arrival());
    p.handle_command(ms(10), Command::Sleep, MacView { queued: 0, busy: true });
    assert_eq!(events(&mut p), [doze(ms(10))]);
    assert!(p.ap_may_send(), "the AP cannot tell: it never holds");
    assert!(!p.hears() && !p.accept_arrival() && !p.accept_arrival());
    // Its own traffic goes out without waking the machine (the radio wakes just for it).
    p.handle_own_frame(ms(20));
    p.handle_uplink_sent(ms(21), true, QUIET);
    p.handle_idle(ms(22), QUIET);
    assert!(!p.is_awake() && events(&mut p).is_empty());
    p.handle_command(ms(30), Command::Off, QUIET);
    assert_eq!(events(&mut p), [StationEvent::Power { at: ms(30), state: PowerState::Off }]);
    p.handle_command(ms(50), Command::Wake, QUIET);
    assert_eq!(events(&mut p), [wake(ms(50))]);
    assert!(p.accept_arrival());
    let s = p.stats_at(ms(60));
    assert_eq!((s.dozes, s.doze_ns, s.dropped_asleep), (1, 40_000_000, 2));
}

#[test]
fn external_with_the_pm_bit_holds_while_the_driver_has_it_asleep() {
    let mut p = started(PowerSave::External(Driver::Host), BSS);
    assert_eq!(p.poll_timeout(), None);
    // Sleep waits until the MAC is idle.
    p.handle_command(ms(10), Command::Sleep, MacView { queued: 0, busy: true });
    assert!(p.is_awake() && events(&mut p).is_empty());
    p.handle_ap_queued(ms(11));
    assert!(!p.ap_may_send(), "the PM bit is set: the AP holds");
    p.handle_idle(ms(12), held(1));
    assert_eq!(events(&mut p), [doze(ms(12))]);
    assert!(p.hears() && p.accept_arrival(), "nothing is sent to a sleeper, nothing is lost");
    // Its own frame wakes it (with the latency), but the AP keeps holding: the driver still
    // has it asleep; once the frame is out it dozes again.
    p.handle_own_frame(ms(20));
    assert_eq!(p.poll_timeout(), Some(ms(21)));
    assert_eq!(run_until(&mut p, ms(21), held(1)), [(ms(21), wake(ms(21))), (ms(21), StationEvent::Ready)]);
    assert!(!p.ap_may_send());
    p.handle_idle(ms(22), held(1));
    assert_eq!(events(&mut p), [doze(ms(22))]);
    // Off while dozing: only the radio's state changes.
    p.handle_command(ms(30), Command::Off, held(1));
    assert_eq!(events(&mut p), [StationEvent::Power { at: ms(30), state: PowerState::Off }]);
    // Wake: what was held goes.
    p.handle_command(ms(40), Command::Wake, held(1));
    assert_eq!(events(&mut p), [wake(ms(40)), StationEvent::Release]);
    assert!(p.ap_may_send() && !p.may_doze());
    assert_eq!((p.stats().dozes, p.stats().packets_held, p.stats().doze_ns), (2, 1, (9 + 18) * 1_000_000));
    // Other modes ignore drivers.
    let mut psm = started(PowerSave::Psm { listen_interval: 1 }, BSS);
    psm.handle_command(ms(1), Command::Sleep, QUIET);
    assert!(psm.is_awake() && events(&mut psm).is_empty());
}
