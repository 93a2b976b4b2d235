//! TWT's service periods and held frames against hand computations.

use super::*;
use crate::power::{MacCaps, PowerMode, PowerSave, PowerState, StationPower};

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

fn us(x: u64) -> Time {
    Time(x * 1_000)
}

fn events(p: &mut StationPower) -> Vec<StationEvent> {
    std::iter::from_fn(|| p.poll_event()).collect()
}

fn twt(interval_ms: u32, duration_us: u32, announced: bool) -> PowerSave {
    PowerSave::Twt(TwtAgreement::new(interval_ms, duration_us, announced).unwrap())
}

#[test]
fn names_are_canonical_and_checked() {
    let a: PowerMode = "twt:interval=100ms,duration=8192us".parse().unwrap();
    assert_eq!(a, PowerMode::Twt(TwtAgreement { interval_ms: 100, duration_us: 8192, announced: false, offset_us: 0, trigger: false, broadcast: None }));
    assert_eq!(a.to_string(), "twt:interval=100ms,duration=8192us");
    let b: PowerMode = "twt:interval=1000ms,duration=1us,announced=true".parse().unwrap();
    assert_eq!(b.to_string(), "twt:interval=1000ms,duration=1us,announced=true");
    let c: PowerMode = "twt:interval=100ms,duration=4000us,offset=99999us,announced=true".parse().unwrap();
    assert_eq!(c, PowerMode::Twt(TwtAgreement { interval_ms: 100, duration_us: 4000, announced: true, offset_us: 99_999, trigger: false, broadcast: None }));
    assert_eq!(c.to_string(), "twt:interval=100ms,duration=4000us,offset=99999us,announced=true");
    assert_eq!(c.param_values(), vec![100, 4000, 99_999]);
    let t: PowerMode = "twt:interval=100ms,duration=4000us,offset=5us,trigger=true,announced=true".parse().unwrap();
    assert_eq!(t, PowerMode::Twt(TwtAgreement { interval_ms: 100, duration_us: 4000, announced: true, offset_us: 5, trigger: true, broadcast: None }));
    assert_eq!(t.to_string(), "twt:interval=100ms,duration=4000us,offset=5us,trigger=true,announced=true");
    let b: PowerMode = "twt:interval=100ms,duration=4000us,trigger=true,broadcast=31".parse().unwrap();
    let joined = TwtAgreement::new(100, 4000, false).unwrap().with_trigger(true).with_broadcast(31).unwrap();
    assert_eq!(b, PowerMode::Twt(joined));
    assert_eq!(b.to_string(), "twt:interval=100ms,duration=4000us,trigger=true,broadcast=31");
    assert_eq!(joined.schedule(), TwtAgreement::new(100, 4000, false).unwrap().with_trigger(true));
    let b1: PowerMode = "twt:interval=100ms,duration=4000us,offset=5us,announced=true,broadcast=1".parse().unwrap();
    assert_eq!(b1.to_string(), "twt:interval=100ms,duration=4000us,offset=5us,announced=true,broadcast=1");
    for bad in [
        "twt:interval=100ms,duration=10us,broadcast=0", // ID 0 is not taken
        "twt:interval=100ms,duration=10us,broadcast=32", // the field's 5 bits
        "twt:interval=100ms,duration=10us,broadcast=256",
        "twt:interval=100ms,duration=10us,broadcast=01",
        "twt:interval=100ms,duration=10us,broadcast=",
        "twt:interval=100ms,duration=10us,broadcast=1,announced=true", // broadcast last
        "twt:interval=100ms,duration=10us,broadcast=1,trigger=true",
        "twt",
        "twt:",
        "twt:interval=100ms",
        "twt:interval=100ms,duration=100000us", // not shorter than the interval
        "twt:interval=100ms,duration=0us",
        "twt:interval=0ms,duration=10us",
        "twt:interval=0100ms,duration=10us",
        "twt:interval=65536ms,duration=10us",
        "twt:interval=1000ms,duration=261121us", // past the field's 255 × 1024 µs
        "twt:duration=10us,interval=100ms",
        "twt:interval=100ms,duration=10us,announced=false",
        "twt:interval=100ms,duration=10ms",
        "twt:interval=100ms,duration=10us,",
        "twt:interval=100ms,duration=+10us",
        "twt:interval=100ms,duration=10us,offset=0us", // a zero offset is not written
        "twt:interval=100ms,duration=10us,offset=100000us", // not shorter than the interval
        "twt:interval=100ms,duration=10us,offset=050us",
        "twt:interval=100ms,duration=10us,offset=5ms",
        "twt:interval=100ms,duration=10us,announced=true,offset=50us", // offset first
        "twt:interval=100ms,duration=10us,offset=",
        "twt:interval=100ms,duration=10us,trigger=false",
        "twt:interval=100ms,duration=10us,announced=true,trigger=true", // trigger first
        "twt:interval=100ms,duration=10us,trigger=true,offset=5us", // offset first
    ] {
        assert!(bad.parse::<PowerMode>().is_err(), "{bad}");
    }
}

/// The hop (no frames of its own): the agreement holds from t = 0. Interval 100 ms, duration
/// 10 ms: asleep at 0, SPs [100, 110) ms, [200, 210) ms...; a frame queued at 30 ms is held
/// until 100 ms, one queued inside an SP goes directly, one queued at 110 ms waits for 200 ms.
#[test]
fn on_the_hop_service_periods_are_every_interval_and_frames_wait_for_them() {
    let mut p = StationPower::new(twt(100, 10_000, false), MacCaps::HOP, Duration::from_millis(100));
    p.start(ms(0));
    p.handle_timeout(ms(0), MacView::default());
    assert!(!p.is_awake());
    assert_eq!(p.poll_timeout(), Some(ms(100)));
    p.handle_ap_queued(ms(30));
    assert!(!p.ap_may_send());
    assert_eq!(p.stats().packets_held, 1);
    events(&mut p);
    // SP 1 opens: awake, the AP may send at once (unannounced); the SP ends at 110 ms.
    p.handle_timeout(ms(100), MacView { queued: 1, busy: false });
    assert!(p.is_awake() && p.ap_may_send());
    assert_eq!(events(&mut p), vec![StationEvent::Power { at: ms(100), state: PowerState::Awake }, StationEvent::Release]);
    assert_eq!(p.poll_timeout(), Some(ms(110)));
    // Idle inside the SP: it stays awake for the whole nominal wake duration.
    p.handle_ap_sent();
    p.handle_idle(ms(101), MacView::default());
    assert!(p.is_awake());
    p.handle_ap_queued(ms(105));
    assert_eq!(p.stats().packets_held, 1, "a frame queued in an SP goes directly");
    p.handle_idle(ms(106), MacView::default());
    // SP 1 ends: asleep at 110 ms exactly, the next SP at 200 ms.
    p.handle_timeout(ms(110), MacView::default());
    assert!(!p.is_awake() && !p.ap_may_send());
    assert_eq!(events(&mut p), vec![StationEvent::Power { at: ms(110), state: PowerState::Doze }]);
    assert_eq!(p.poll_timeout(), Some(ms(200)));
    p.handle_ap_queued(ms(110));
    assert_eq!(p.stats().packets_held, 2);
    p.handle_timeout(ms(200), MacView { queued: 1, busy: false });
    assert!(p.ap_may_send());
    p.handle_timeout(ms(210), MacView::default());
    assert!(!p.is_awake());
    // Dozing 0–100, 110–200 and 210–300 ms: 280 ms of 300.
    assert_eq!(p.stats_at(ms(300)).doze_ns, 280_000_000);
    assert_eq!((p.stats().dozes, p.stats().bursts), (3, 2));
}

/// An SP still busy at its end (a frame on the air) dozes once the MAC is idle; a frame
/// queued for the station then waits for the next SP.
#[test]
fn a_busy_station_dozes_when_the_exchange_ends_after_the_sp() {
    let mut p = StationPower::new(twt(50, 2_000, false), MacCaps::HOP, Duration::from_millis(100));
    p.start(ms(0));
    p.handle_timeout(ms(0), MacView::default());
    p.handle_timeout(ms(50), MacView { queued: 2, busy: false });
    p.handle_timeout(ms(52), MacView { queued: 1, busy: true });
    assert!(p.is_awake() && !p.ap_may_send(), "the SP is over: the AP stops");
    p.handle_idle(us(52_300), MacView { queued: 1, busy: false });
    assert!(!p.is_awake());
    assert_eq!(p.poll_timeout(), Some(ms(100)));
}

/// A BSS (frames of its own): the station asks for the agreement at start and is active
/// until the AP's response; then it dozes until the first multiple of the interval.
/// Announced: at each SP start it sends a QoS-Null (a `Trigger`) and the AP waits for it.
#[test]
fn in_a_bss_the_setup_comes_first_and_an_announced_sp_waits_for_the_station() {
    let mut p = StationPower::new(twt(100, 5_000, true), MacCaps::bss(Duration::from_micros(500)), Duration::from_micros(102_400));
    p.start(ms(0));
    assert_eq!(events(&mut p), vec![StationEvent::TwtSetup]);
    p.handle_timeout(ms(0), MacView::default());
    assert!(p.is_awake() && p.ap_may_send(), "active mode until the agreement");
    p.handle_ap_queued(ms(0));
    assert_eq!(p.stats().packets_held, 0);
    // The response arrives at 0.4 ms: asleep, first SP at 100 ms.
    p.handle_twt_accepted(us(400), MacView::default());
    assert!(!p.is_awake());
    assert_eq!(p.poll_timeout(), Some(ms(100)));
    p.handle_tbtt(us(102_400), 1);
    assert!(!p.is_awake(), "a TWT station does not listen to beacons");
    p.handle_ap_queued(ms(60));
    events(&mut p);
    p.handle_timeout(ms(100), MacView { queued: 1, busy: false });
    assert!(p.is_awake() && !p.ap_may_send(), "announced: the AP waits");
    assert_eq!(events(&mut p), vec![StationEvent::Power { at: ms(100), state: PowerState::Awake }, StationEvent::Trigger]);
    p.handle_uplink_sent(us(100_200), false, MacView { queued: 1, busy: false });
    assert!(p.ap_may_send());
    assert_eq!(events(&mut p), vec![StationEvent::Release]);
    // Its own frame outside an SP wakes it (with its latency); the AP still holds.
    p.handle_timeout(ms(105), MacView::default());
    assert!(!p.is_awake());
    p.handle_own_frame(ms(130));
    assert!(p.is_waking());
    p.handle_timeout(us(130_500), MacView { queued: 0, busy: true });
    assert!(p.is_awake() && !p.ap_may_send());
    p.handle_uplink_sent(ms(131), true, MacView::default());
    assert!(!p.ap_may_send(), "outside an SP an uplink frame does not open it");
    p.handle_idle(ms(131), MacView::default());
    assert!(!p.is_awake());
    assert_eq!(p.poll_timeout(), Some(ms(200)));
}

/// SPs at `offset + k × interval`: 100 ms / 10 ms with a 30 ms offset on the hop opens SPs
/// at 30, 130, 230 ms (the first one before the first multiple of the interval), and a
/// frame queued at 40 ms waits until 130 ms.
#[test]
fn an_offset_moves_every_service_period_by_the_offset() {
    let a = TwtAgreement::new(100, 10_000, false).unwrap().with_offset(30_000).unwrap();
    assert_eq!(a.next_sp(ms(0)), ms(30));
    assert_eq!(a.next_sp(ms(30)), ms(130), "strictly after now");
    assert_eq!(a.next_sp(ms(129)), ms(130));
    assert_eq!(TwtAgreement::new(100, 10_000, false).unwrap().next_sp(ms(0)), ms(100), "no offset: as before");
    assert_eq!(TwtAgreement::new(100, 10_000, false).unwrap().with_offset(100_000), None);
    let mut p = StationPower::new(PowerSave::Twt(a), MacCaps::HOP, Duration::from_millis(100));
    p.start(ms(0));
    p.handle_timeout(ms(0), MacView::default());
    assert!(!p.is_awake());
    assert_eq!(p.poll_timeout(), Some(ms(30)));
    p.handle_timeout(ms(30), MacView::default());
    assert!(p.is_awake() && p.ap_may_send());
    assert_eq!(p.poll_timeout(), Some(ms(40)));
    p.handle_timeout(ms(40), MacView::default());
    assert!(!p.is_awake());
    p.handle_ap_queued(ms(40));
    assert!(!p.ap_may_send());
    assert_eq!(p.poll_timeout(), Some(ms(130)));
    p.handle_timeout(ms(130), MacView { queued: 1, busy: false });
    assert!(p.ap_may_send());
    p.handle_timeout(ms(140), MacView::default());
    // Dozing 0–30, 40–130 and 140–200 ms: 180 ms of 200.
    assert_eq!(p.stats_at(ms(200)).doze_ns, 180_000_000);
}

/// Trigger-enabled on a BSS: after the setup the station's own frames neither wake it nor
/// count for contention; at the SP start a trigger is due (the AP has not heard the station),
/// then again only while the station has uplink queued; its answer opens the SP for downlink.
#[test]
fn a_trigger_enabled_station_sends_only_when_triggered() {
    let a = TwtAgreement::new(100, 5_000, false).unwrap().with_trigger(true);
    let mut p = StationPower::new(PowerSave::Twt(a), MacCaps::bss(Duration::from_micros(500)), Duration::from_micros(102_400));
    p.start(ms(0));
    assert_eq!(events(&mut p), vec![StationEvent::TwtSetup]);
    assert!(!p.uplink_by_trigger(), "before the agreement the station contends");
    p.handle_twt_accepted(us(400), MacView::default());
    assert!(!p.is_awake() && p.uplink_by_trigger());
    events(&mut p);
    // Its own frame at 30 ms: it stays asleep, the frame waits for the SP's trigger.
    p.handle_own_frame(ms(30));
    assert!(!p.is_awake() && !p.is_waking());
    assert!(!p.trigger_due(true), "no trigger outside an SP");
    p.handle_ap_queued(ms(40));
    p.handle_timeout(ms(100), MacView { queued: 1, busy: false });
    assert!(p.is_awake() && !p.ap_may_send(), "the AP waits for the answer to its trigger");
    assert_eq!(events(&mut p), vec![StationEvent::Power { at: ms(100), state: PowerState::Awake }, StationEvent::Release]);
    assert!(p.trigger_due(false) && p.trigger_due(true));
    // The TB PPDU (its data frame) reached the AP: downlink may go; another trigger only
    // while uplink is queued.
    p.handle_uplink_sent(us(100_300), true, MacView { queued: 1, busy: false });
    assert!(p.ap_may_send());
    assert!(!p.trigger_due(false) && p.trigger_due(true));
    // The SP ends: no trigger, asleep once idle.
    p.handle_timeout(ms(105), MacView::default());
    assert!(!p.is_awake() && !p.trigger_due(true));
    assert_eq!(p.poll_timeout(), Some(ms(200)));
    // On the hop (no frames) the Trigger bit changes nothing.
    let mut h = StationPower::new(PowerSave::Twt(a), MacCaps::HOP, Duration::from_millis(100));
    h.start(ms(0));
    assert!(!h.uplink_by_trigger() && !h.trigger_due(true));
}

/// The AP's accepting response carries the wake duration rounded UP to the element's unit
/// (by hand): 4000 µs = 15.6 × 256 → 16 × 256 = 4096; 4096 stays; 5000 = 19.5 × 256 → 20 ×
/// 256 = 5120; 65280 = 255 × 256 stays; 65281 needs TUs: 63.75 TU → 64 TU = 65536; 70000 =
/// 68.4 TU → 69 TU = 70656; 261120 = 255 TU stays. The rest of the agreement is kept; a
/// duration whose rounding reaches the interval has no representable agreement.
#[test]
fn on_air_rounds_the_wake_duration_up_to_its_unit() {
    for (d, on_air, unit) in [(4000, 4096, 256), (4096, 4096, 256), (5000, 5120, 256), (1, 256, 256), (65_280, 65_280, 256), (65_281, 65_536, 1024), (70_000, 70_656, 1024), (TWT_MAX_DURATION_US, TWT_MAX_DURATION_US, 1024)] {
        let a = TwtAgreement::new(1000, d, true).unwrap().with_offset(7).unwrap().with_trigger(true).with_broadcast(3).unwrap();
        assert_eq!(a.wake_duration_unit_us(), unit, "{d} µs");
        assert_eq!(a.on_air(), Some(TwtAgreement { duration_us: on_air, ..a }), "{d} µs");
        assert_eq!(PowerSave::Twt(a).on_air(), Some(PowerSave::Twt(TwtAgreement { duration_us: on_air, ..a })));
    }
    // 999 µs in a 1 ms interval: 1024 µs on the air is not below the interval; 768 µs is.
    assert_eq!(TwtAgreement::new(1, 999, false).unwrap().on_air(), None);
    assert_eq!(TwtAgreement::new(1, 700, false).unwrap().on_air().map(|a| a.duration_us), Some(768));
    assert_eq!(PowerSave::Cam.on_air(), Some(PowerSave::Cam));
}
