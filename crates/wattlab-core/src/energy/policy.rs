//! Accounting power policies: cost a stream of radio activity under a power-management policy.
//!
//! These policies do not change the traffic (they never delay or drop a frame), so one
//! simulation or one trace can be costed under several of them at once by feeding the same
//! activity intervals to several [`PolicyMeter`]s. Policies that *do* change traffic (PSM with
//! beacons buffering at the AP, CC's shaped bursts) drive a [`RadioMeter`] directly instead.
//!
//! A run is bracketed by awake instants: the radio is awake (Idle) at `start` and must be ready
//! at `end`, so every gap, including the leading and trailing ones, is costed the same way.

use super::meter::{EnergyReport, RadioMeter};
use super::profile::DeviceProfile;
use super::state::RadioState;
use crate::time::{Duration, Time};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The shortest idle gap worth sleeping through with `profile`'s Sleep state.
///
/// With `P_i`, `P_s` the idle and sleep powers, `E_d = d_d·P_d`, `E_u = d_u·P_u` the energies
/// and `d_d`, `d_u` the durations of the Idle->Sleep and Sleep->Idle transitions, sleeping
/// through a gap `T` costs `E_d + E_u + P_s·(T − d_d − d_u)` and staying idle costs `P_i·T`.
/// They are equal at
///
/// `T* = (E_d + E_u − P_s·(d_d + d_u)) / (P_i − P_s)`,
///
/// and a gap cannot be slept through at all if it is shorter than `d_d + d_u`, so the result is
/// `max(T*, d_d + d_u)`, rounded *up* to the nanosecond (so any gap strictly longer than it is
/// strictly cheaper asleep). `Duration::MAX` if sleep does not draw less than idle.
pub fn break_even_time(profile: &DeviceProfile) -> Duration {
    let p_i = profile.power_uw(RadioState::Idle) as i128;
    let p_s = profile.power_uw(RadioState::Sleep) as i128;
    if p_i <= p_s {
        return Duration::MAX;
    }
    let leg = |from, to| {
        profile.transition(from, to).map_or((0i128, 0i128), |t| {
            (t.duration.as_nanos() as i128, t.energy_fj() as i128)
        })
    };
    let (d_d, e_d) = leg(RadioState::Idle, RadioState::Sleep);
    let (d_u, e_u) = leg(RadioState::Sleep, RadioState::Idle);
    let d = d_d + d_u;
    // Energies in fJ (ns x uW), so dividing by uW gives ns.
    let num = e_d + e_u - p_s * d;
    let t = if num <= 0 {
        0
    } else {
        (num + (p_i - p_s) - 1) / (p_i - p_s)
    };
    Duration::from_nanos(t.max(d).min(u64::MAX as i128) as u64)
}

/// A power-management policy that leaves the traffic unchanged.
///
/// Extension point: PSM with beacons and adaptive PSM will be added as variants; each variant
/// only decides what the radio does in a gap between activities (see `PolicyMeter::gap_state`).
/// The enum is deliberately not `#[non_exhaustive]`, so that adding a variant makes every match
/// in the workspace fail to compile until it is handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AccountingPolicy {
    /// Continuously active mode: Idle whenever not sending or receiving (baseline TCP).
    AlwaysOn,
    /// Seed 000's "optimal": knows the future, sleeps through every gap longer than the
    /// break-even time (down right after an activity, ready exactly at the next).
    Oracle,
}

impl AccountingPolicy {
    /// All policies.
    pub const ALL: [AccountingPolicy; 2] = [AccountingPolicy::AlwaysOn, AccountingPolicy::Oracle];

    /// Stable name: "always-on" or "oracle".
    pub const fn as_str(self) -> &'static str {
        match self {
            AccountingPolicy::AlwaysOn => "always-on",
            AccountingPolicy::Oracle => "oracle",
        }
    }
}

impl fmt::Display for AccountingPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for a string that names no accounting policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePolicyError(pub String);

impl fmt::Display for ParsePolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = AccountingPolicy::ALL.iter().map(|p| p.as_str()).collect();
        write!(
            f,
            "unknown accounting policy `{}`; valid policies: {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for ParsePolicyError {}

impl FromStr for AccountingPolicy {
    type Err = ParsePolicyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AccountingPolicy::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| ParsePolicyError(s.to_string()))
    }
}

/// What the radio does during an activity interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Activity {
    /// Transmitting.
    Tx,
    /// Receiving.
    Rx,
}

impl Activity {
    /// The radio state of this activity.
    pub const fn state(self) -> RadioState {
        match self {
            Activity::Tx => RadioState::Tx,
            Activity::Rx => RadioState::Rx,
        }
    }
}

/// Costs a stream of tx/rx intervals under one [`AccountingPolicy`].
#[derive(Clone, Debug)]
pub struct PolicyMeter {
    policy: AccountingPolicy,
    meter: RadioMeter,
    break_even: Duration,
    /// End of the latest activity (or the start): where the current gap begins.
    last_end: Time,
    clipped_ns: u64,
}

impl PolicyMeter {
    /// A meter for `policy` on `profile`, the run starting at `start` with the radio awake.
    pub fn new(policy: AccountingPolicy, profile: &DeviceProfile, start: Time) -> Self {
        PolicyMeter {
            policy,
            meter: RadioMeter::new(profile, start, RadioState::Idle),
            break_even: break_even_time(profile),
            last_end: start,
            clipped_ns: 0,
        }
    }

    /// The policy.
    pub fn policy(&self) -> AccountingPolicy {
        self.policy
    }

    /// The profile's break-even time (see [`break_even_time`]).
    pub fn break_even(&self) -> Duration {
        self.break_even
    }

    /// Activity time dropped so far because intervals overlapped or came out of order.
    pub fn clipped(&self) -> Duration {
        Duration::from_nanos(self.clipped_ns)
    }

    /// State the policy keeps the radio in during an idle gap of length `gap`.
    fn gap_state(&self, gap: Duration) -> RadioState {
        match self.policy {
            AccountingPolicy::AlwaysOn => RadioState::Idle,
            AccountingPolicy::Oracle if gap > self.break_even => RadioState::Sleep,
            AccountingPolicy::Oracle => RadioState::Idle,
        }
    }

    /// Records that the radio was busy with `kind` over `[start, end)`. Calls must come in
    /// non-decreasing `start` order; a start before the previous end is clipped to it (a
    /// half-duplex radio does one thing at a time) and the lost time counted in `clipped`.
    pub fn activity(&mut self, start: Time, end: Time, kind: Activity) {
        // Overlap of [start, end) with everything before last_end is dropped.
        self.clipped_ns += end.min(self.last_end).saturating_since(start).as_nanos();
        let start = start.max(self.last_end);
        if end <= start {
            return;
        }
        let gap = start - self.last_end;
        if gap > Duration::ZERO {
            // The gap is over, so now we know its length (the oracle's foresight).
            let s = self.gap_state(gap);
            self.meter.set_state(self.last_end, s);
        }
        self.meter.set_state(start, kind.state());
        self.last_end = end;
    }

    /// Totals for the run ending at `end`, the trailing gap costed like any other (the radio
    /// must be ready at `end`). Non-destructive: more activity may follow.
    pub fn report(&self, end: Time) -> EnergyReport {
        let mut m = self.meter.clone_without_timeline();
        if end > self.last_end {
            let s = self.gap_state(end - self.last_end);
            m.set_state(self.last_end, s);
            m.set_state(end, RadioState::Idle);
        }
        let mut r = m.report(end);
        r.policy = Some(self.policy.as_str().to_string());
        r.clipped_activity_ns = self.clipped_ns;
        r
    }

    /// Same as [`PolicyMeter::report`].
    pub fn finish(&self, end: Time) -> EnergyReport {
        self.report(end)
    }

    /// Starts logging the radio's state changes (up to the latest activity).
    pub fn enable_timeline(&mut self) {
        self.meter.enable_timeline();
    }

    /// Logged state changes, up to the start of the latest activity's following gap.
    pub fn timeline(&self) -> &[(Time, RadioState)] {
        self.meter.timeline()
    }

    /// The underlying radio meter.
    pub fn meter(&self) -> &RadioMeter {
        &self.meter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::{builtin_profile, builtin_profiles};
    use RadioState::*;

    /// Tiny deterministic LCG (Knuth's MMIX constants), so tests need no RNG dependency.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }
    }

    fn conserved(r: &EnergyReport) {
        let states: u64 = RadioState::ALL.iter().map(|&s| r.state(s).time_ns).sum();
        assert_eq!(states + r.transitions.time_ns, r.duration_ns);
    }

    #[test]
    fn break_even_atheros_by_hand() {
        // E_d = 1 us x 0.8 W = 0.8 uJ; E_u = 1 ms x 1.4 W = 1400 uJ; P_s (d_d + d_u) =
        // 0.016 W x 1.001 ms = 16.016 uJ; P_i - P_s = 0.784 W.
        // T* = (0.8 + 1400 - 16.016) uJ / 0.784 W = 1384.784 / 0.784 us = 1766.30612.. us,
        // rounded up: 1_766_307 ns (> d_d + d_u = 1.001 ms).
        let p = builtin_profile("atheros-ar5004").unwrap();
        assert_eq!(break_even_time(&p), Duration::from_nanos(1_766_307));
        // WaveLAN DSSS: up = 2 ms at idle power, so T* = (2 ms x P_i - 2 ms x P_s)/(P_i - P_s)
        // = 2 ms exactly; Table 1 cards: 2 x 30 us at idle power gives 60 us the same way.
        assert_eq!(
            break_even_time(&builtin_profile("wavelan-dsss").unwrap()),
            Duration::from_millis(2)
        );
        assert_eq!(
            break_even_time(&builtin_profile("orinoco").unwrap()),
            Duration::from_micros(60)
        );
        // Seed 001's card: no transition cost and sleep = off = 0 W: any gap is worth it.
        assert_eq!(
            break_even_time(&builtin_profile("wavelan-turbo-2mbps").unwrap()),
            Duration::ZERO
        );
    }

    #[test]
    fn break_even_is_max_when_sleep_saves_nothing() {
        let text = "name = \"flat\"\ndescription = \"d\"\nsource = \"s\"\n[power_mw]\n\
                    off = 0\nsleep = 5\nidle = 5\nrx = 6\ntx = 7\n";
        let p = DeviceProfile::from_toml_str(text, "flat.toml").unwrap();
        assert_eq!(break_even_time(&p), Duration::MAX);
        let mut m = PolicyMeter::new(AccountingPolicy::Oracle, &p, Time::ZERO);
        m.activity(Time(1_000_000_000), Time(1_000_001_000), Activity::Rx);
        assert_eq!(m.report(Time(5_000_000_000)).sleep.time_ns, 0);
    }

    /// Random non-overlapping activity with gaps spread around the break-even time.
    fn pattern(rng: &mut Lcg, be: Duration, n: usize) -> (Vec<(Time, Time, Activity)>, Time) {
        let scale = be.as_nanos().clamp(1_000, 10_000_000);
        let mut t = Time(rng.below(3 * scale));
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let len = Duration::from_nanos(1 + rng.below(2_000_000));
            let kind = if rng.below(2) == 0 {
                Activity::Tx
            } else {
                Activity::Rx
            };
            v.push((t, t + len, kind));
            let gap = match rng.below(4) {
                0 => 0,
                1 => be.as_nanos().min(scale), // exactly break-even (when finite)
                2 => be.as_nanos().min(scale) + 1,
                _ => rng.below(3 * scale),
            };
            t = t + len + Duration::from_nanos(gap);
        }
        (v, t + Duration::from_nanos(rng.below(3 * scale)))
    }

    #[test]
    fn always_on_matches_the_closed_form() {
        let mut rng = Lcg(42);
        for p in builtin_profiles() {
            for _ in 0..20 {
                let (acts, end) = pattern(&mut rng, break_even_time(&p), 50);
                let mut m = PolicyMeter::new(AccountingPolicy::AlwaysOn, &p, Time::ZERO);
                let (mut tx, mut rx) = (0u128, 0u128);
                for &(s, e, k) in &acts {
                    m.activity(s, e, k);
                    match k {
                        Activity::Tx => tx += (e - s).as_nanos() as u128,
                        Activity::Rx => rx += (e - s).as_nanos() as u128,
                    }
                }
                let r = m.report(end);
                conserved(&r);
                let w = |s| p.power_uw(s) as u128;
                // E = T P_idle + sum tx (P_tx - P_idle) + sum rx (P_rx - P_idle), exactly in fJ.
                let expect = end.as_nanos() as u128 * w(Idle)
                    + tx * (w(Tx) - w(Idle))
                    + rx * (w(Rx) - w(Idle));
                assert_eq!(r.total_energy_fj, expect, "{}", p.name());
                assert_eq!(
                    (r.transitions.count, r.sleep.time_ns, r.clipped_activity_ns),
                    (0, 0, 0)
                );
                assert_eq!(r.policy.as_deref(), Some("always-on"));
            }
        }
    }

    #[test]
    fn oracle_never_costs_more_than_always_on() {
        let mut rng = Lcg(7);
        for p in builtin_profiles() {
            let be = break_even_time(&p);
            for _ in 0..30 {
                let n = 1 + rng.below(60) as usize;
                let (acts, end) = pattern(&mut rng, be, n);
                let mut on = PolicyMeter::new(AccountingPolicy::AlwaysOn, &p, Time::ZERO);
                let mut or = PolicyMeter::new(AccountingPolicy::Oracle, &p, Time::ZERO);
                for &(s, e, k) in &acts {
                    on.activity(s, e, k);
                    or.activity(s, e, k);
                }
                let (a, b) = (on.report(end), or.report(end));
                conserved(&b);
                assert!(
                    b.total_energy_fj <= a.total_energy_fj,
                    "{}: oracle {b:?} > always-on {a:?}",
                    p.name()
                );
                // Same traffic: tx/rx time identical, and the oracle never clips a transition.
                assert_eq!((a.tx.time_ns, a.rx.time_ns), (b.tx.time_ns, b.rx.time_ns));
                assert_eq!(b.short_dormant_intervals, 0, "{}", p.name());
            }
        }
    }

    #[test]
    fn oracle_sleeps_gaps_longer_than_break_even_only() {
        let p = builtin_profile("atheros-ar5004").unwrap();
        let be = break_even_time(&p);
        let one = |gap: Duration| {
            let mut m = PolicyMeter::new(AccountingPolicy::Oracle, &p, Time::ZERO);
            m.activity(Time::ZERO, Time(1000), Activity::Tx);
            m.activity(Time(1000) + gap, Time(2000) + gap, Activity::Rx);
            m.report(Time(2000) + gap)
        };
        let r = one(be);
        assert_eq!(
            (r.sleep.time_ns, r.transitions.count, r.idle.time_ns),
            (0, 0, be.as_nanos())
        );
        let r = one(be + Duration(1));
        conserved(&r);
        assert_eq!(r.transitions.count, 2);
        assert_eq!(r.sleep.time_ns, be.as_nanos() + 1 - 1_001_000);
        assert_eq!(r.idle.time_ns, 0);
        // Leading and trailing gaps too: awake at start, ready at end.
        let mut m = PolicyMeter::new(AccountingPolicy::Oracle, &p, Time::ZERO);
        m.activity(
            Time::ZERO + Duration::from_millis(10),
            Time::ZERO + Duration::from_millis(11),
            Activity::Rx,
        );
        let r = m.report(Time::ZERO + Duration::from_millis(21));
        conserved(&r);
        assert_eq!(r.transitions.count, 4);
        assert_eq!(r.sleep.time_ns, 2 * (10_000_000 - 1_001_000));
        assert_eq!(r.idle.time_ns, 0);
    }

    #[test]
    fn overlapping_and_out_of_order_activity_is_clipped() {
        let p = builtin_profile("orinoco").unwrap();
        let mut m = PolicyMeter::new(AccountingPolicy::AlwaysOn, &p, Time(100));
        m.activity(Time(50), Time(200), Activity::Rx); // 50 ns before the run: clipped
        m.activity(Time(150), Time(300), Activity::Tx); // overlaps [150, 200)
        m.activity(Time(120), Time(180), Activity::Tx); // entirely in the past
        m.activity(Time(400), Time(390), Activity::Rx); // inverted: ignored
        let r = m.report(Time(500));
        conserved(&r);
        assert_eq!(r.clipped_activity_ns, 50 + 50 + 60);
        assert_eq!(
            (r.rx.time_ns, r.tx.time_ns, r.idle.time_ns),
            (100, 100, 200)
        );
        assert_eq!(m.clipped(), Duration(160));
    }

    #[test]
    fn timeline_and_names() {
        let p = builtin_profile("wavelan-dsss").unwrap();
        let mut m = PolicyMeter::new(AccountingPolicy::Oracle, &p, Time::ZERO);
        m.enable_timeline();
        m.activity(
            Time::ZERO + Duration::from_millis(100),
            Time::ZERO + Duration::from_millis(101),
            Activity::Tx,
        );
        m.activity(
            Time::ZERO + Duration::from_millis(101),
            Time::ZERO + Duration::from_millis(102),
            Activity::Rx,
        );
        let ms = |x| Time::ZERO + Duration::from_millis(x);
        assert_eq!(
            m.timeline(),
            &[(Time::ZERO, Sleep), (ms(100), Tx), (ms(101), Rx)]
        );
        for pol in AccountingPolicy::ALL {
            assert_eq!(pol.as_str().parse::<AccountingPolicy>(), Ok(pol));
        }
        let e = "psm".parse::<AccountingPolicy>().unwrap_err().to_string();
        assert!(e.contains("always-on") && e.contains("oracle"), "{e}");
    }
}
