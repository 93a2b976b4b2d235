//! Marks: hand-computed energies in every state and inside transitions, marks placed ahead of
//! and behind the meter, under each accounting policy, and in closed-form dozing gaps.

use crate::energy::{
    break_even_time, builtin_profile, builtin_profiles, AccountingPolicy, Activity, AdaptivePsmParams, PolicyMeter,
    PsmParams, RadioMeter, RadioState, WindowKind,
};
use crate::time::{Duration, Time};
use RadioState::*;

/// Tiny deterministic LCG (Knuth's MMIX constants).
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

fn us(x: u64) -> Time {
    Time(x * 1_000)
}

/// The changes of `meter.rs`'s hand-computed fixture (wavelan-dsss: idle 1319, rx 1425,
/// tx 1675, sleep 177, off 0 mW; sleep -> idle 2 ms at idle power), until 2 s.
const FIXTURE: [(u64, RadioState); 10] = [
    (1_000_000, Rx),
    (1_002_500, Tx),
    (1_003_700, Sleep),
    (1_303_700, Idle),
    (1_313_700, Rx),
    (1_314_700, Sleep),
    (1_315_700, Idle),
    (1_415_700, Off),
    (1_515_700, Tx),
    (1_516_000, Sleep),
];

/// (instant in µs, E(instant) in nJ), each worked out by hand from the fixture's table.
const EXPECTED: [(u64, u64); 17] = [
    (0, 0),
    (500_000, 659_500_000),             // idle: 0.5 s x 1319 mW
    (1_000_000, 1_319_000_000),         // edge idle | rx
    (1_001_000, 1_320_425_000),         // rx: + 1 ms x 1425 mW
    (1_002_500, 1_322_562_500),         // edge rx | tx
    (1_003_000, 1_323_400_000),         // tx: + 0.5 ms x 1675 mW
    (1_003_700, 1_324_572_500),         // edge tx | sleep
    (1_100_000, 1_341_617_600),         // sleep: + 96.3 ms x 177 mW
    (1_302_700, 1_378_637_500),         // inside the 2 ms wake-up: 298 ms asleep, then 1 ms x 1319 mW
    (1_303_700, 1_379_956_500),         // edge: awake, the whole wake-up paid
    (1_315_200, 1_395_231_000),         // inside a 1 ms sleep that is all wake-up: 0.5 ms x 1319 mW
    (1_315_700, 1_395_890_500),         // edge: short sleep over
    (1_450_000, 1_527_790_500),         // off: nothing since 1.4157 s
    (1_515_800, 1_527_958_000),         // tx: 0.1 ms x 1675 mW
    (1_750_000, 1_569_711_000),         // final sleep, no wake-up (still asleep at the end)
    (2_000_000, 1_613_961_000),         // the end: the report's total
    (2_500_000, u64::MAX),              // after the end: no energy
];

#[test]
fn marks_in_every_state_and_inside_transitions_are_the_hand_computed_energies() {
    let p = builtin_profile("wavelan-dsss").unwrap();
    // Marks placed ahead of the meter (resolved when their interval closes) and behind it
    // (resolved from the recent intervals) must agree with the hand-computed values.
    let mut ahead = RadioMeter::new(&p, Time::ZERO, Idle);
    ahead.enable_marks();
    for &(t, _) in &EXPECTED {
        ahead.mark(us(t));
    }
    let mut behind = RadioMeter::new(&p, Time::ZERO, Idle);
    behind.enable_marks();
    for (at, s) in FIXTURE {
        ahead.set_state(us(at), s);
        behind.set_state(us(at), s);
    }
    for &(t, _) in &EXPECTED {
        behind.mark(us(t));
    }
    let end = us(2_000_000);
    let total = ahead.report(end).total_energy_fj;
    assert_eq!(total, 1_613_961_000 * 1_000_000);
    for m in [&ahead, &behind] {
        let got = m.marks(end);
        assert_eq!(got.len(), EXPECTED.len());
        for (e, &(t, nj)) in got.iter().zip(&EXPECTED) {
            assert_eq!(e.at_ns, us(t).as_nanos());
            if nj == u64::MAX {
                assert_eq!((e.energy_fj, e.energy_nj, e.energy_j), (None, None, None), "after the end");
            } else {
                assert_eq!(e.energy_fj, Some(nj as u128 * 1_000_000), "E({t} µs)");
                assert_eq!(e.energy_nj, Some(nj));
            }
        }
        assert_eq!(m.lost_marks(), 0);
    }
    // A later report moves the pending ones (at and after the old end) but no resolved one.
    let later = behind.marks(us(3_000_000));
    assert_eq!(later[15].energy_nj, Some(1_613_961_000));
    assert_eq!(later[16].energy_nj, Some(1_613_961_000 + 88_500_000)); // + 0.5 s x 177 mW
}

#[test]
fn marks_inside_the_down_leg_and_at_its_edges() {
    // Atheros: idle 800 mW, sleep 16 mW; down 1 µs at 800 mW, up 1 ms at 1400 mW.
    let p = builtin_profile("atheros-ar5004").unwrap();
    let mut m = RadioMeter::new(&p, Time::ZERO, Idle);
    let ts = [1_000_000, 1_000_500, 1_001_000, 1_500_000, 10_000_000, 10_500_000, 11_000_000, 11_000_000];
    let ids: Vec<_> = ts.iter().map(|&t| m.mark(Time(t))).collect();
    m.set_state(Time(1_000_000), Sleep);
    m.set_state(Time(11_000_000), Tx); // awake at 11 ms: up leg [10 ms, 11 ms)
    let e = m.marks(Time(12_000_000));
    let fj = |i: usize| e[ids[i] as usize].energy_fj.unwrap();
    let idle = 1_000_000u128 * 800_000; // 1 ms idle
    assert_eq!(fj(0), idle);
    assert_eq!(fj(1), idle + 500 * 800_000); // half the down leg
    assert_eq!(fj(2), idle + 1_000 * 800_000); // the whole down leg
    assert_eq!(fj(3), idle + 1_000 * 800_000 + 499_000 * 16_000);
    let asleep = idle + 1_000 * 800_000 + 8_999_000 * 16_000; // until the wake-up starts
    assert_eq!(fj(4), asleep);
    assert_eq!(fj(5), asleep + 500_000 * 1_400_000); // half the wake-up
    assert_eq!(fj(6), asleep + 1_000_000 * 1_400_000);
    assert_eq!(fj(6), fj(7), "two marks at one instant");
    assert_eq!(m.report(Time(11_000_000)).total_energy_fj, fj(6));
}

/// Random switching on every profile: E at each change instant is the energy of the intervals
/// closed by then (an independent figure: the meter's totals), marks placed ahead of the
/// meter and behind it agree, E never decreases, and E(end) is the report's total.
#[test]
fn marks_agree_with_the_closed_totals_under_random_switching() {
    let mut rng = Lcg(0x5eed);
    for p in builtin_profiles() {
        let start = Time(7);
        let mut changes = Vec::new();
        let mut now = start;
        for _ in 0..400 {
            now += Duration::from_nanos(rng.below(3_000_000));
            changes.push((now, RadioState::ALL[rng.below(RadioState::COUNT as u64) as usize]));
        }
        let end = now + Duration::from_micros(10);
        let probes: Vec<Time> = (0..400).map(|_| start + Duration::from_nanos(rng.below((end - start).as_nanos()))).collect();
        // Ahead: every mark placed before the first change.
        let mut ahead = RadioMeter::new(&p, start, Idle);
        let at_changes: Vec<_> = changes.iter().map(|&(t, _)| ahead.mark(t)).collect();
        let at_probes: Vec<_> = probes.iter().map(|&t| ahead.mark(t)).collect();
        // Behind: marks placed once the meter has passed them by one to three changes.
        let mut behind = RadioMeter::new(&p, start, Idle);
        behind.enable_marks();
        let mut closed = Vec::new();
        let mut late = Vec::new();
        for (k, &(t, s)) in changes.iter().enumerate() {
            ahead.set_state(t, s);
            // A switch to the current state is no change: the interval goes on.
            let changed = behind.state() != s;
            behind.set_state(t, s);
            closed.push(changed.then(|| behind.closed_energy_fj()));
            let back = changes[k.saturating_sub(3)].0;
            for &q in probes.iter().filter(|&&q| q >= back && q < t) {
                late.push((q, behind.mark(q)));
            }
        }
        let total = behind.report(end).total_energy_fj;
        let (a, b) = (ahead.marks(end), behind.marks(end));
        for (k, &id) in at_changes.iter().enumerate() {
            if let Some(c) = closed[k] {
                assert_eq!(a[id as usize].energy_fj, Some(c), "{}: E at change {k}", p.name());
            }
        }
        assert!(closed.iter().flatten().count() > 300);
        let e = |q: Time| a[at_probes[probes.iter().position(|&x| x == q).unwrap()] as usize].energy_fj;
        assert!(late.len() > 100, "{}: few late marks", p.name());
        for &(q, id) in &late {
            assert_eq!(b[id as usize].energy_fj, e(q), "{}: ahead vs behind at {q:?}", p.name());
        }
        let mut sorted: Vec<_> = at_probes.iter().map(|&id| (a[id as usize].at_ns, a[id as usize].energy_fj.unwrap())).collect();
        sorted.sort();
        assert!(sorted.windows(2).all(|w| w[0].1 <= w[1].1), "{}: E decreases", p.name());
        assert!(sorted.iter().all(|&(_, x)| x <= total));
        let last = ahead.mark(end);
        assert_eq!(ahead.marks(end)[last as usize].energy_fj, Some(total), "{}: E(end)", p.name());
        assert_eq!(ahead.lost_marks() + behind.lost_marks(), 0);
    }
}

#[test]
fn a_mark_too_far_behind_is_lost_not_guessed() {
    let p = builtin_profile("orinoco").unwrap();
    let mut m = RadioMeter::new(&p, Time::ZERO, Idle);
    m.enable_marks();
    let n = super::RECENT_SPANS as u64 + 5;
    for k in 1..=n {
        m.set_state(Time(k * 1000), if k % 2 == 0 { Idle } else { Tx });
    }
    let lost = m.mark(Time(1500));
    let kept = m.mark(Time((n - 3) * 1000 + 500));
    let e = m.marks(Time(n * 1000));
    assert_eq!((e[lost as usize].energy_fj, e[lost as usize].energy_nj), (None, None));
    assert!(e[kept as usize].energy_fj.is_some());
    assert_eq!(m.lost_marks(), 1);
    // Before the start: nothing spent yet.
    let early = m.mark(Time::ZERO);
    assert_eq!(m.marks(Time(n * 1000))[early as usize].energy_fj, Some(0));
}

/// Every accounting policy, with its own tests for the retroactive ones: random frames with
/// gaps of every length (long ones doze through beacons in closed form), marks placed before
/// the frames come and marks placed after the next frame decided their gap.
#[test]
fn marks_under_every_accounting_policy() {
    let fixed = AccountingPolicy::AdaptivePsm(AdaptivePsmParams { windows: WindowKind::Fixed, ..AdaptivePsmParams::default() });
    let mut policies = AccountingPolicy::ALL.to_vec();
    policies.push(fixed);
    let mut rng = Lcg(17);
    for p in builtin_profiles() {
        let be = break_even_time(&p).as_nanos().min(50_000_000);
        for &pol in &policies {
            let mut frames = Vec::new();
            let mut t = Time(rng.below(2_000_000));
            for _ in 0..60 {
                let gap = match rng.below(5) {
                    0 => 0,
                    1 => be,
                    2 => be + 1,
                    3 => rng.below(3_000_000_000),
                    _ => rng.below(5_000_000),
                };
                t += Duration::from_nanos(gap);
                let len = Duration::from_nanos(1 + rng.below(2_000_000));
                let kind = if rng.below(2) == 0 { Activity::Tx } else { Activity::Rx };
                frames.push((t, t + len, kind, 1 + rng.below(3000)));
                t += len;
            }
            let end = t + Duration::from_nanos(rng.below(1_000_000_000));
            let probes: Vec<Time> = (0..200).map(|_| Time(rng.below(end.as_nanos() + 1))).collect();
            let what = format!("{} {pol:?}", p.name());
            let mut ahead = PolicyMeter::new(pol, &p, Time::ZERO);
            let mut walked = PolicyMeter::new(pol, &p, Time::ZERO);
            walked.walk_every_beacon();
            let ids: Vec<_> = probes.iter().map(|&q| (ahead.mark(q), walked.mark(q))).collect();
            let mut behind = PolicyMeter::new(pol, &p, Time::ZERO);
            behind.enable_marks();
            let mut late = Vec::new();
            let mut checked = 0;
            let mut prev = Time::ZERO;
            for &(s, e, kind, bytes) in &frames {
                for m in [&mut ahead, &mut walked, &mut behind] {
                    m.frame(s, e, kind, bytes, 1);
                }
                // The gap before this frame is decided now: mark instants in it (and in the
                // frame before) after the fact.
                for &q in probes.iter().filter(|&&q| q >= prev && q < s) {
                    late.push((q, behind.mark(q)));
                }
                if behind.meter().last_change() == s {
                    // The frame's start closed an interval: E(s) is the closed energy. (A frame
                    // may also just extend the interval in progress, e.g. a beacon's reception.)
                    checked += 1;
                    let id = behind.mark(s);
                    let at_s = behind.marks(s)[id as usize].energy_fj;
                    assert_eq!(at_s, Some(behind.meter().closed_energy_fj()), "{what}: E at a frame start");
                }
                prev = s;
            }
            assert!(pol == fixed || checked > 30, "{what}: {checked} frame starts checked");
            let total = ahead.report(end).total_energy_fj;
            let (a, w, b) = (ahead.marks(end), walked.marks(end), behind.marks(end));
            for (k, &(ia, iw)) in ids.iter().enumerate() {
                assert!(a[ia as usize].energy_fj.is_some(), "{what}: every probe is before the end");
                assert_eq!(a[ia as usize].energy_fj, w[iw as usize].energy_fj, "{what}: closed form vs walking, probe {k}");
            }
            let e = |q: Time| a[ids[probes.iter().position(|&x| x == q).unwrap()].0 as usize].energy_fj;
            assert!(!late.is_empty());
            for &(q, id) in &late {
                assert_eq!(b[id as usize].energy_fj, e(q), "{what}: ahead vs behind at {q:?}");
            }
            let mut sorted: Vec<_> = ids.iter().map(|&(i, _)| (a[i as usize].at_ns, a[i as usize].energy_fj.unwrap())).collect();
            sorted.sort();
            assert!(sorted.windows(2).all(|x| x[0].1 <= x[1].1), "{what}: E decreases");
            let at_end = ahead.mark(end);
            assert_eq!(ahead.marks(end)[at_end as usize].energy_fj, Some(total), "{what}: E(end) is the total");
            assert_eq!(ahead.run_energy(end).marks[at_end as usize].energy_fj, Some(total));
            assert_eq!(ahead.run_energy(end).report, ahead.report(end));
            assert_eq!(ahead.meter().lost_marks() + behind.meter().lost_marks(), 0, "{what}");
        }
    }
}

/// Why a mark waits: at the instant a flow completes, the oracle does not know yet whether the
/// gap that starts then will be slept through; costing "the energy so far" then charges the
/// gap as idle and ready to send, the mark charges it as the oracle finally does.
#[test]
fn an_oracle_mark_is_decided_by_the_next_frame() {
    // Atheros: idle 800, rx 900 mW; idle -> sleep 1 µs at 800 mW, sleep 16 mW.
    let p = builtin_profile("atheros-ar5004").unwrap();
    let mut m = PolicyMeter::new(AccountingPolicy::Oracle, &p, Time::ZERO);
    m.frame(Time::ZERO, us(1_000), Activity::Rx, 1500, 1);
    let done = us(1_500);
    let id = m.mark(done);
    let naive = m.report(done).total_energy_fj;
    assert_eq!(naive, 1_000_000 * 900_000 + 500_000 * 800_000, "0.5 ms idle, as if the gap ended here");
    m.frame(us(500_000), us(501_000), Activity::Tx, 100, 1);
    let e = m.marks(us(600_000))[id as usize].energy_fj.unwrap();
    // The gap was 499 ms: asleep from 1 ms, its down leg first.
    assert_eq!(e, 1_000_000 * 900_000 + 1_000 * 800_000 + 499_000 * 16_000);
    assert!(e < naive);
}

/// PSM's dozing gaps repeat their beacon cycle in closed form; marks inside the repeated
/// stretch, placed before or after it, cost what walking every beacon costs.
#[test]
fn marks_inside_closed_form_dozing_gaps() {
    let p = builtin_profile("atheros-ar5004").unwrap();
    let psm = AccountingPolicy::Psm(PsmParams::default());
    let gap_end = Time(3_600_000_000_000); // an hour of dozing: ~35,000 beacons
    let probes = [Time(150_000_000), Time(1_000_000_000_000), Time(3_599_999_000_000), Time(3_599_999_999_999)];
    let mut fast = PolicyMeter::new(psm, &p, Time::ZERO);
    let mut slow = PolicyMeter::new(psm, &p, Time::ZERO);
    slow.walk_every_beacon();
    let mut late = PolicyMeter::new(psm, &p, Time::ZERO);
    late.enable_marks();
    for m in [&mut fast, &mut slow] {
        for q in probes {
            m.mark(q);
        }
    }
    for m in [&mut fast, &mut slow, &mut late] {
        m.frame(Time(1_000_000), Time(2_000_000), Activity::Rx, 1500, 1);
        m.frame(gap_end, gap_end + Duration::from_millis(1), Activity::Tx, 100, 1);
    }
    assert!(fast.state_changes() * 100 < slow.state_changes(), "the gap is costed in closed form");
    // After the gap: only the end of the stretch is in the recent intervals, the rest comes from
    // the repetition.
    for q in probes {
        late.mark(q);
    }
    let end = gap_end + Duration::from_secs(1);
    let (f, s, l) = (fast.marks(end), slow.marks(end), late.marks(end));
    assert_eq!(f, s);
    assert_eq!(f, l);
    assert!(f.windows(2).all(|w| w[0].energy_fj < w[1].energy_fj));
    assert_eq!(late.meter().lost_marks(), 0);
}

/// A small timeline worked by hand (wavelan-dsss: idle 1319, rx 1425, tx 1675, sleep 177 mW;
/// sleep -> idle 2 ms at idle power, idle -> sleep free), metered from 5 ms with owners:
///
/// | interval      | state   | owner | energy, fJ = µW × ns          |
/// |---------------|---------|-------|-------------------------------|
/// | [5, 10) ms    | idle    | 0     | 1 319 000 × 5e6 = 6.595e12    |
/// | [10, 12) ms   | rx      | 1     | 1 425 000 × 2e6 = 2.850e12    |
/// | [12, 20) ms   | idle    | 2     | 1 319 000 × 8e6 = 10.552e12   |
/// | [20, 48) ms   | sleep   | 2     | 177 000 × 28e6 = 4.956e12     |
/// | [48, 50) ms   | wake-up | 1     | 1 319 000 × 2e6 = 2.638e12    |
/// | [50, 60) ms   | tx      | 1     | 1 675 000 × 10e6 = 16.750e12  |
///
/// Marks before the start, at it, several at one instant placed ahead of, at and behind the
/// meter, inside the sleep and inside the wake-up; E(end) is the total; the owners' energies
/// sum to it.
#[test]
fn a_small_timeline_by_hand_with_marks_at_one_instant_and_before_any_activity() {
    let p = builtin_profile("wavelan-dsss").unwrap();
    let ms = |x: u64| Time(x * 1_000_000);
    let e12 = |x: f64| (x * 1e12).round() as u128;
    let mut m = RadioMeter::new(&p, ms(5), Idle);
    m.enable_attribution();
    let before_start = m.mark(ms(1));
    let at_start = m.mark(ms(5));
    let before_activity = m.mark(ms(8));
    let ahead_12 = m.mark(ms(12));
    m.set_state_owned(ms(10), Rx, 1);
    let ahead_12_again = m.mark(ms(12));
    m.set_state_owned(ms(12), Idle, 2);
    let at_12 = m.mark(ms(12));
    m.set_state_owned(ms(20), Sleep, 2);
    let at_20 = m.mark(ms(20));
    let in_sleep = m.mark(ms(30));
    let in_wake_up = m.mark(ms(49));
    m.set_state_owned(ms(50), Tx, 1);
    let behind_12 = m.mark(ms(12));
    let at_50 = m.mark(ms(50));
    let at_end = m.mark(ms(60));
    let after_end = m.mark(ms(70));
    let end = ms(60);
    let r = m.run_energy(end);
    let e = |id: crate::energy::MarkId| r.marks[id as usize].energy_fj;
    assert_eq!(e(before_start), Some(0), "before the meter starts: nothing");
    assert_eq!(e(at_start), Some(0));
    assert_eq!(e(before_activity), Some(e12(1.319 * 3e-3 * 1e3)), "3 ms idle before the first change");
    let to_12 = e12(6.595 + 2.850);
    for id in [ahead_12, ahead_12_again, at_12, behind_12] {
        assert_eq!(e(id), Some(to_12), "marks at one instant, placed ahead, at or behind the meter");
    }
    assert_eq!(e(at_20), Some(to_12 + e12(10.552)));
    assert_eq!(e(in_sleep), Some(to_12 + e12(10.552) + e12(1.770)), "10 ms asleep, no wake-up yet");
    assert_eq!(e(in_wake_up), Some(to_12 + e12(10.552 + 4.956) + e12(1.319)), "half the wake-up");
    assert_eq!(e(at_50), Some(to_12 + e12(10.552 + 4.956 + 2.638)));
    let total = e12(6.595 + 2.850 + 10.552 + 4.956 + 2.638 + 16.750);
    assert_eq!(r.report.total_energy_fj, total);
    assert_eq!(e(at_end), Some(total), "E(end) is the report's total");
    assert_eq!(e(after_end), None);
    assert_eq!(r.marks[at_end as usize].energy_nj, Some(44_341_000));
    // Per owner: the wake-up is paid by the owner that needed the radio awake.
    assert_eq!(r.by_owner, vec![e12(6.595), e12(2.850 + 2.638 + 16.750), e12(10.552 + 4.956)]);
    assert_eq!(r.by_owner.iter().sum::<u128>(), total);
    assert_eq!(m.lost_marks(), 0);
}

/// A policy meter marked before its first frame pays what the policy does with the leading
/// gap; a mark at a frame's end is the report's total then, and with no activity at all E(end)
/// is the report's total.
#[test]
fn policy_meter_marks_before_any_frame() {
    let p = builtin_profile("wavelan-dsss").unwrap();
    let ms = |x: u64| Time(x * 1_000_000);
    for pol in [AccountingPolicy::AlwaysOn, AccountingPolicy::Oracle] {
        let mut m = PolicyMeter::new(pol, &p, Time::ZERO);
        m.enable_marks();
        let zero = m.mark(Time::ZERO);
        let early = m.mark(ms(4));
        let idle_only = PolicyMeter::new(pol, &p, Time::ZERO);
        let mut quiet = PolicyMeter::new(pol, &p, Time::ZERO);
        let quiet_end = quiet.mark(ms(100));
        m.frame(ms(10), ms(12), Activity::Rx, 1500, 1);
        let at_frame_end = m.mark(ms(12));
        let e = m.marks(ms(12));
        assert_eq!(e[zero as usize].energy_fj, Some(0), "{pol:?}");
        // Before the first frame: idle, or for the oracle asleep (it sleeps through the 10 ms
        // gap before the frame: the idle -> sleep leg is free, the wake-up is at 8..10 ms).
        let power_uw = if pol == AccountingPolicy::Oracle { 177_000 } else { 1_319_000 };
        assert_eq!(e[early as usize].energy_fj, Some(4_000_000 * power_uw), "{pol:?}");
        assert_eq!(e[at_frame_end as usize].energy_fj, Some(m.report(ms(12)).total_energy_fj), "{pol:?}");
        assert_eq!(quiet.marks(ms(100))[quiet_end as usize].energy_fj, Some(idle_only.report(ms(100)).total_energy_fj));
        if pol == AccountingPolicy::AlwaysOn {
            assert_eq!(idle_only.report(ms(100)).total_energy_fj, 100_000_000 * 1_319_000, "idle, no frame");
        }
    }
}
