//! Exact integration of radio state intervals into energy.
//!
//! Time is integer nanoseconds and power integer microwatts, so every interval contributes
//! `ns × µW` femtojoules exactly (u128 accumulators); reports round to nanojoules only at the end.
//! See the module docs of [`crate::energy`] for the transition semantics.

use super::marks::{MarkBook, MarkEnergy, MarkId, Repeat, Span};
use super::profile::DeviceProfile;
use super::state::RadioState;
use crate::time::{Duration, Time};
use serde::Serialize;

/// Femtojoules per nanojoule.
const FJ_PER_NJ: u128 = 1_000_000;

/// Femtojoules to nanojoules, rounded half up.
pub(crate) fn fj_to_nj(fj: u128) -> u64 {
    ((fj + FJ_PER_NJ / 2) / FJ_PER_NJ).min(u64::MAX as u128) as u64
}

/// Femtojoules to joules (for display; the exact value is the integer).
pub(crate) fn fj_to_j(fj: u128) -> f64 {
    fj as f64 * 1e-15
}

/// Cost of one transition leg: zero when the profile does not define it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Leg {
    ns: u64,
    power_uw: u64,
}

/// Running totals (exact). A state's power is the profile's except where an interval is
/// metered at its own ([`RadioMeter::set_state_at_power`]: a PPDU's power for its width and
/// spatial streams), so the energy is summed per state beside the time.
#[derive(Clone, Debug, Default)]
struct Totals {
    time_ns: [u64; RadioState::COUNT],
    state_fj: [u128; RadioState::COUNT],
    trans_count: u64,
    trans_ns: u64,
    trans_fj: u128,
    short_dormant: u64,
}

/// The meter's totals at one instant, for [`RadioMeter::repeat_since`] (not a mark: marks ask
/// for the energy up to an instant, see [`super::marks`]).
#[derive(Clone, Debug)]
pub(crate) struct MeterSnapshot {
    totals: Totals,
    last: Time,
    state: RadioState,
    power: u64,
    owes_down: bool,
    owner: u32,
    owner_fj: u128,
}

/// Meters one radio: integrates the time spent in each state, and the transitions, exactly.
#[derive(Clone, Debug)]
pub struct RadioMeter {
    profile: String,
    power_uw: [u64; RadioState::COUNT],
    /// Down (Idle -> dormant) and up (dormant -> Idle) legs, indexed by dormant state index
    /// (Off = 0, Sleep = 1).
    down: [Leg; 2],
    up: [Leg; 2],
    start: Time,
    last: Time,
    state: RadioState,
    /// Power of the interval in progress, µW: the profile's for `state`, or the one it was
    /// entered at ([`RadioMeter::set_state_at_power`]).
    power: u64,
    /// The current dormant interval was entered from an awake state, so it owes a down leg.
    /// (A meter that *starts* dormant owes none: the radio was already asleep.)
    owes_down: bool,
    totals: Totals,
    timeline: Option<Vec<(Time, RadioState)>>,
    /// Attribution: the owner of the interval in progress, and energy per owner (fJ); the
    /// vector stays empty (and costs nothing) unless attribution is enabled.
    owner: u32,
    by_owner: Option<Vec<u128>>,
    /// Marks (energy up to an instant) and the recent intervals that resolve them; `None`
    /// (and free) unless enabled.
    marks: Option<Box<MarkBook>>,
}

/// Everything a meter says about a run ending at an instant: the report, the energy per
/// owner and every mark's energy (one closing of the interval in progress for all three).
#[derive(Clone, Debug, PartialEq)]
pub struct RunEnergy {
    /// The report.
    pub report: EnergyReport,
    /// Energy per owner, fJ (empty unless attribution is enabled); sums to the total.
    pub by_owner: Vec<u128>,
    /// Each mark's energy, by [`MarkId`] (empty unless marks are enabled).
    pub marks: Vec<MarkEnergy>,
}

/// Time and energy spent in one radio state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StateEnergy {
    /// Time in the state, in nanoseconds (transition time excluded).
    pub time_ns: u64,
    /// Energy, in nanojoules (rounded half up from the exact femtojoules).
    pub energy_nj: u64,
    /// Energy, in joules.
    pub energy_j: f64,
}

/// Time and energy spent in dormant <-> awake transitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct TransitionEnergy {
    /// Number of dormant <-> awake switches (each leg counted, whatever its cost).
    pub count: u64,
    /// Time spent in transitions, in nanoseconds.
    pub time_ns: u64,
    /// Energy, in nanojoules (rounded).
    pub energy_nj: u64,
    /// Energy, in joules.
    pub energy_j: f64,
}

/// Energy and time breakdown of one metered run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnergyReport {
    /// Device profile name.
    pub profile: String,
    /// Accounting policy name, when produced by a [`super::PolicyMeter`].
    pub policy: Option<String>,
    /// Start of the run, ns.
    pub start_ns: u64,
    /// End of the run, ns.
    pub end_ns: u64,
    /// `end_ns - start_ns`; always equals the sum of all state and transition times.
    pub duration_ns: u64,
    /// Time and energy in `Off`.
    pub off: StateEnergy,
    /// Time and energy in `Sleep`.
    pub sleep: StateEnergy,
    /// Time and energy in `Idle`.
    pub idle: StateEnergy,
    /// Time and energy in `IdleHigh` (a driver's high-throughput awake mode).
    pub idle_high: StateEnergy,
    /// Time and energy in `Rx`.
    pub rx: StateEnergy,
    /// Time and energy in `Tx`.
    pub tx: StateEnergy,
    /// Time and energy in transitions.
    pub transitions: TransitionEnergy,
    /// Total energy, nJ (rounded from the exact total, so it may differ from the sum of the
    /// rounded parts by a few nJ).
    pub total_energy_nj: u64,
    /// Total energy, J.
    pub total_energy_j: f64,
    /// Energy spent awake while nothing is sent or received (`Idle` and `IdleHigh`), nJ.
    pub awake_idle_energy_nj: u64,
    /// Same, J.
    pub awake_idle_energy_j: f64,
    /// Dormant intervals too short to hold their down and up transitions (clipped; a policy
    /// that does this asks the radio for something impossible).
    pub short_dormant_intervals: u64,
    /// Activity time dropped because intervals overlapped or came out of order (policy meters).
    pub clipped_activity_ns: u64,
    /// Exact total energy in femtojoules (ns × µW).
    #[serde(skip)]
    pub total_energy_fj: u128,
}

impl EnergyReport {
    /// Time and energy in `state`.
    pub fn state(&self, state: RadioState) -> &StateEnergy {
        match state {
            RadioState::Off => &self.off,
            RadioState::Sleep => &self.sleep,
            RadioState::Idle => &self.idle,
            RadioState::IdleHigh => &self.idle_high,
            RadioState::Rx => &self.rx,
            RadioState::Tx => &self.tx,
        }
    }
    /// Time spent in `state` (transitions excluded).
    pub fn time_in(&self, state: RadioState) -> Duration {
        Duration::from_nanos(self.state(state).time_ns)
    }
    /// Energy spent in `state`, J.
    pub fn energy_in_j(&self, state: RadioState) -> f64 {
        self.state(state).energy_j
    }
    /// Total energy, J.
    pub fn energy_j(&self) -> f64 {
        self.total_energy_j
    }
    /// Total energy, nJ (rounded).
    pub fn energy_nj(&self) -> u64 {
        self.total_energy_nj
    }
    /// Length of the run.
    pub fn duration(&self) -> Duration {
        Duration::from_nanos(self.duration_ns)
    }
    /// Mean power over the run, mW (0 for an empty run).
    pub fn average_power_mw(&self) -> f64 {
        if self.duration_ns == 0 {
            0.0
        } else {
            self.total_energy_fj as f64 / self.duration_ns as f64 / 1000.0
        }
    }
}

/// How a dormant interval of `len` ns splits: (down leg, dormant time, up leg), the down leg
/// carved from the start and the up leg from the end, the down leg first when both do not fit.
fn carve(len: u64, d: Leg, u: Leg) -> (u64, u64, u64) {
    let take_d = d.ns.min(len);
    let take_u = u.ns.min(len - take_d);
    (take_d, len - take_d - take_u, take_u)
}

/// Index of a dormant state in the leg arrays.
fn dormant_index(s: RadioState) -> usize {
    if s == RadioState::Off {
        0
    } else {
        1
    }
}

impl RadioMeter {
    /// A meter for `profile`, in state `initial` from `start` on.
    pub fn new(profile: &DeviceProfile, start: Time, initial: RadioState) -> Self {
        let leg = |from, to| {
            profile
                .transition(from, to)
                .map_or(Leg::default(), |t| Leg {
                    ns: t.duration.as_nanos(),
                    power_uw: t.power_uw,
                })
        };
        let (off, sleep, idle) = (RadioState::Off, RadioState::Sleep, RadioState::Idle);
        let power_uw = RadioState::ALL.map(|s| profile.power_uw(s));
        RadioMeter {
            profile: profile.name().to_string(),
            power_uw,
            down: [leg(idle, off), leg(idle, sleep)],
            up: [leg(off, idle), leg(sleep, idle)],
            start,
            last: start,
            state: initial,
            power: power_uw[initial.index()],
            owes_down: false,
            totals: Totals::default(),
            timeline: None,
            owner: 0,
            by_owner: None,
            marks: None,
        }
    }

    /// The current state.
    pub fn state(&self) -> RadioState {
        self.state
    }

    /// Instant of the last state change (or the start).
    pub fn last_change(&self) -> Time {
        self.last
    }

    /// Start of the metered run.
    pub fn start(&self) -> Time {
        self.start
    }

    /// Switches to `state` at `now` (`now` must not precede the last change: debug-asserted,
    /// clamped to it in release builds). Switching to the current state does nothing.
    pub fn set_state(&mut self, now: Time, state: RadioState) {
        let owner = self.owner;
        self.set_state_owned(now, state, owner);
    }

    /// [`RadioMeter::set_state`], and the new interval belongs to `owner` (see
    /// [`RadioMeter::enable_attribution`]). The interval that ends is charged to its own
    /// owner, except a wake-up (up leg) it ends with, which is charged to `owner`: whoever
    /// needed the radio awake pays for waking it.
    pub fn set_state_owned(&mut self, now: Time, state: RadioState, owner: u32) {
        let power = self.power_uw[state.index()];
        self.set_state_at_power(now, state, owner, power);
    }

    /// [`RadioMeter::set_state_owned`], the new interval drawing `power_uw` rather than the
    /// profile's power for `state`: a transmitted or received PPDU at the power the profile
    /// gives for its channel width and spatial streams. A dormant state always draws the
    /// profile's power (its transitions are the profile's).
    pub fn set_state_at_power(&mut self, now: Time, state: RadioState, owner: u32, power_uw: u64) {
        debug_assert!(
            now >= self.last,
            "RadioMeter::set_state: time went backwards"
        );
        let now = now.max(self.last);
        let power = if state.is_dormant() { self.power_uw[state.index()] } else { power_uw };
        if state == self.state {
            let new_owner = owner != self.owner && self.by_owner.is_some();
            if new_owner || power != self.power {
                // Same state, new owner or power: close the interval all the same.
                // Not a real end of the interval: no up leg, no short-interval count.
                let (main, _) = self.close_current(now, false, false);
                self.note_closed(now, false, main);
                self.owes_down = false;
                self.charge(self.owner, main);
                self.owner = owner;
                self.power = power;
                self.last = now;
            }
            return;
        }
        let leaving_to_awake = state.is_awake();
        let (main, up) = self.close_current(now, leaving_to_awake, true);
        self.note_closed(now, leaving_to_awake, main + up);
        if self.by_owner.is_some() {
            self.charge(self.owner, main);
            self.charge(owner, up);
        }
        self.owner = owner;
        self.owes_down = self.state.is_awake() && state.is_dormant();
        self.state = state;
        self.power = power;
        self.last = now;
        if let Some(tl) = self.timeline.as_mut() {
            // Several changes at one instant: keep only the last, so the log has no empty spans.
            match tl.last_mut() {
                Some(e) if e.0 == now => e.1 = state,
                _ => tl.push((now, state)),
            }
        }
    }

    /// Accounts the interval in progress up to `now` (see [`RadioMeter::account`]).
    fn close_current(&mut self, now: Time, up_owed: bool, closed: bool) -> (u128, u128) {
        Self::account(
            &mut self.totals,
            self.power,
            &self.down,
            &self.up,
            self.state,
            now - self.last,
            self.owes_down,
            up_owed,
            closed,
        )
    }

    /// Tells the marks that the interval in progress closed at `now` (`up`: with a wake-up
    /// leg), costing `fj`.
    fn note_closed(&mut self, now: Time, up: bool, fj: u128) {
        if let Some(book) = self.marks.as_mut() {
            let span = Span {
                start: self.last,
                end: now,
                state: self.state,
                power_uw: self.power,
                owes_down: self.owes_down,
                up,
                before_fj: book.closed_fj(),
            };
            let (down, up) = (&self.down, &self.up);
            book.closed(span, fj, &|s: &Span, x: u64| Self::prefix_fj(down, up, s, x));
        }
    }

    /// Energy of the first `x` ns of the closed interval `s` (fJ): each part at its power, the
    /// legs carved as [`RadioMeter::account`] carves them.
    fn prefix_fj(down: &[Leg; 2], up: &[Leg; 2], s: &Span, x: u64) -> u128 {
        let len = s.end.saturating_since(s.start).as_nanos();
        let x = x.min(len);
        let p = s.power_uw as u128;
        if s.state.is_awake() {
            return x as u128 * p;
        }
        let i = dormant_index(s.state);
        let d = if s.owes_down { down[i] } else { Leg::default() };
        let u = if s.up { up[i] } else { Leg::default() };
        let (take_d, mid, _) = carve(len, d, u);
        let a = x.min(take_d);
        let b = (x - a).min(mid);
        let c = x - a - b;
        a as u128 * d.power_uw as u128 + b as u128 * p + c as u128 * u.power_uw as u128
    }

    fn charge(&mut self, owner: u32, fj: u128) {
        if let Some(v) = self.by_owner.as_mut() {
            let i = owner as usize;
            if v.len() <= i {
                v.resize(i + 1, 0);
            }
            // Most charges of a wake-up leg are 0: skip the add.
            if fj != 0 {
                v[i] += fj;
            }
        }
    }

    /// Adds one state interval of length `len` to `t`; returns its energy without and with
    /// only the up leg (fJ). For a dormant state, the down leg (if
    /// owed) is carved from the start and the up leg (if `up`) from the end, down first when the
    /// interval is too short for both; `closed` says the interval really ended (so clipping is a
    /// short dormant interval rather than a report taken mid-transition).
    #[allow(clippy::too_many_arguments)]
    fn account(
        t: &mut Totals,
        power_uw: u64,
        down: &[Leg; 2],
        up: &[Leg; 2],
        state: RadioState,
        len: Duration,
        owes_down: bool,
        up_owed: bool,
        closed: bool,
    ) -> (u128, u128) {
        let mut len = len.as_nanos();
        let mut up_fj = 0u128;
        let mut down_fj = 0u128;
        if state.is_dormant() {
            let i = dormant_index(state);
            let d = if owes_down { down[i] } else { Leg::default() };
            let u = if up_owed { up[i] } else { Leg::default() };
            let (take_d, mid, take_u) = carve(len, d, u);
            len = mid;
            if closed && (take_d < d.ns || take_u < u.ns) {
                t.short_dormant += 1;
            }
            t.trans_count += owes_down as u64 + up_owed as u64;
            t.trans_ns += take_d + take_u;
            down_fj = take_d as u128 * d.power_uw as u128;
            up_fj = take_u as u128 * u.power_uw as u128;
            t.trans_fj += down_fj + up_fj;
        }
        let i = state.index();
        let fj = len as u128 * power_uw as u128;
        t.time_ns[i] += len;
        t.state_fj[i] += fj;
        (fj + down_fj, up_fj)
    }

    /// Totals as if the current state lasted until `end` (clamped to the last change); the
    /// meter is not modified. A dormant state still in progress at `end` pays its down leg (up
    /// to `end`) but no up leg: the radio is still asleep.
    pub fn report(&self, end: Time) -> EnergyReport {
        let end = end.max(self.last);
        let mut t = self.totals.clone();
        let _ = Self::account(
            &mut t,
            self.power,
            &self.down,
            &self.up,
            self.state,
            end - self.last,
            self.owes_down,
            false,
            false,
        );
        let energy_fj = self.state_energy_fj(&t);
        let st = |s: RadioState| {
            let fj = energy_fj[s.index()];
            StateEnergy {
                time_ns: t.time_ns[s.index()],
                energy_nj: fj_to_nj(fj),
                energy_j: fj_to_j(fj),
            }
        };
        let total_fj: u128 = energy_fj.iter().sum::<u128>() + t.trans_fj;
        let idle_fj = energy_fj[RadioState::Idle.index()] + energy_fj[RadioState::IdleHigh.index()];
        EnergyReport {
            profile: self.profile.clone(),
            policy: None,
            start_ns: self.start.as_nanos(),
            end_ns: end.as_nanos(),
            duration_ns: (end - self.start).as_nanos(),
            off: st(RadioState::Off),
            sleep: st(RadioState::Sleep),
            idle: st(RadioState::Idle),
            idle_high: st(RadioState::IdleHigh),
            rx: st(RadioState::Rx),
            tx: st(RadioState::Tx),
            transitions: TransitionEnergy {
                count: t.trans_count,
                time_ns: t.trans_ns,
                energy_nj: fj_to_nj(t.trans_fj),
                energy_j: fj_to_j(t.trans_fj),
            },
            total_energy_nj: fj_to_nj(total_fj),
            total_energy_j: fj_to_j(total_fj),
            awake_idle_energy_nj: fj_to_nj(idle_fj),
            awake_idle_energy_j: fj_to_j(idle_fj),
            short_dormant_intervals: t.short_dormant,
            clipped_activity_ns: 0,
            total_energy_fj: total_fj,
        }
    }

    /// Energy per state of `t`, fJ.
    fn state_energy_fj(&self, t: &Totals) -> [u128; RadioState::COUNT] {
        t.state_fj
    }

    /// Energy of the intervals closed so far, fJ (the one in progress is not included).
    pub fn closed_energy_fj(&self) -> u128 {
        self.energy_of(&self.totals)
    }

    /// Exact energy of totals `t`, fJ.
    fn energy_of(&self, t: &Totals) -> u128 {
        self.state_energy_fj(t).iter().sum::<u128>() + t.trans_fj
    }

    /// Starts keeping marks ([`RadioMeter::mark`]); off by default, to keep metering free.
    /// Enable before the run: a mark can be resolved behind the meter's last change only from
    /// the intervals closed since marks were enabled.
    pub fn enable_marks(&mut self) {
        if self.marks.is_none() {
            self.marks = Some(Box::new(MarkBook::new(self.closed_energy_fj())));
        }
    }

    /// True if marks are kept ([`RadioMeter::enable_marks`]).
    pub fn keeps_marks(&self) -> bool {
        self.marks.is_some()
    }

    /// Marks instant `t`: the meter will give the run's energy up to `t` (see the
    /// [`super::marks`] module for what that is, and when it is known). Enables marks if they
    /// were not. `t` may precede the last change (by up to [`super::marks::RECENT_SPANS`]
    /// closed intervals, else the mark is lost and its energy `None`).
    pub fn mark(&mut self, t: Time) -> MarkId {
        self.enable_marks();
        let (start, last) = (self.start, self.last);
        let (down, up) = (&self.down, &self.up);
        match self.marks.as_mut() {
            Some(book) => book.place(t, start, last, &|s: &Span, x: u64| Self::prefix_fj(down, up, s, x)),
            None => 0,
        }
    }

    /// Marks that could not be resolved (placed too far behind the meter's last change).
    pub fn lost_marks(&self) -> u64 {
        self.marks.as_ref().map_or(0, |b| b.lost())
    }

    /// Every mark's energy (by [`MarkId`]) for the run ending at `end`, the interval in
    /// progress costed as [`RadioMeter::report`] costs it (so a mark at `end` has the
    /// report's total). Empty unless marks are enabled.
    pub fn marks(&self, end: Time) -> Vec<MarkEnergy> {
        let Some(book) = self.marks.as_ref() else { return Vec::new() };
        let current = Span {
            start: self.last,
            end: end.max(self.last),
            state: self.state,
            power_uw: self.power,
            owes_down: self.owes_down,
            up: false,
            before_fj: book.closed_fj(),
        };
        let (down, up) = (&self.down, &self.up);
        book.energies(&current, &|s: &Span, x: u64| Self::prefix_fj(down, up, s, x))
    }

    /// The report, the energy per owner and the marks' energies for the run ending at `end`.
    pub fn run_energy(&self, end: Time) -> RunEnergy {
        RunEnergy { report: self.report(end), by_owner: self.energy_by_owner(end), marks: self.marks(end) }
    }

    /// Starts attributing energy to owners (small integers set with
    /// [`RadioMeter::set_state_owned`]; 0 until then).
    pub fn enable_attribution(&mut self) {
        if self.by_owner.is_none() {
            self.by_owner = Some(Vec::new());
        }
    }

    /// Moves everything attributed to owner `from` to owner `into`: the energy charged so far
    /// and, if `from` owns the interval in progress, that interval. `from` is left with
    /// nothing (a caller that bounds its owners reuses it for a new one).
    pub fn fold_owner(&mut self, from: u32, into: u32) {
        if from == into {
            return;
        }
        if let Some(v) = self.by_owner.as_mut() {
            let moved = v.get_mut(from as usize).map_or(0, std::mem::take);
            if moved != 0 {
                if v.len() <= into as usize {
                    v.resize(into as usize + 1, 0);
                }
                v[into as usize] += moved;
            }
        }
        if self.owner == from {
            self.owner = into;
        }
    }

    /// Energy per owner (fJ, indexed by owner) as if the current state lasted until `end`
    /// (charged to its owner, no up leg: as [`RadioMeter::report`]). Empty unless attribution
    /// is enabled. The entries sum to the report's exact total.
    pub fn energy_by_owner(&self, end: Time) -> Vec<u128> {
        let Some(v) = self.by_owner.as_ref() else { return Vec::new() };
        let mut v = v.clone();
        let mut t = self.totals.clone();
        let (main, _) = Self::account(
            &mut t,
            self.power,
            &self.down,
            &self.up,
            self.state,
            end.max(self.last) - self.last,
            self.owes_down,
            false,
            false,
        );
        let i = self.owner as usize;
        if v.len() <= i {
            v.resize(i + 1, 0);
        }
        v[i] += main;
        v
    }

    /// Moves the logged state changes out (keeping the latest as the log's new start), so a
    /// long run can stream its timeline to a file with flat memory.
    pub fn drain_timeline(&mut self, mut sink: impl FnMut(Time, RadioState)) {
        if let Some(tl) = self.timeline.as_mut() {
            let keep = tl.len().saturating_sub(1);
            for &(t, s) in &tl[..keep] {
                sink(t, s);
            }
            tl.drain(..keep);
        }
    }

    /// Starts logging state changes (off by default, to keep metering allocation-free).
    pub fn enable_timeline(&mut self) {
        if self.timeline.is_none() {
            self.timeline = Some(vec![(self.last, self.state)]);
        }
    }

    /// True if state changes are being logged ([`RadioMeter::enable_timeline`]).
    pub fn logs_timeline(&self) -> bool {
        self.timeline.is_some()
    }

    /// Logged `(instant, new state)` changes; empty unless [`RadioMeter::enable_timeline`] was called.
    pub fn timeline(&self) -> &[(Time, RadioState)] {
        self.timeline.as_deref().unwrap_or(&[])
    }

    /// A snapshot of the meter's totals now, to repeat what happens after it ([`RadioMeter::repeat_since`]).
    pub(crate) fn snapshot(&self) -> MeterSnapshot {
        MeterSnapshot {
            totals: self.totals.clone(),
            last: self.last,
            state: self.state,
            power: self.power,
            owes_down: self.owes_down,
            owner: self.owner,
            owner_fj: self.owner_energy_fj(self.owner),
        }
    }

    fn owner_energy_fj(&self, owner: u32) -> u128 {
        self.by_owner.as_ref().and_then(|v| v.get(owner as usize).copied()).unwrap_or(0)
    }

    /// Repeats `times` more what the meter did since snapshot `mark`, in closed form: the state
    /// changes since it must have brought the meter back to the snapshot's state, owner and pending
    /// down leg, and charged that owner only (one cycle of a periodic pattern, e.g. a dozing
    /// radio's beacon: sleep, then receive). Totals, attribution and time then move on as if
    /// the cycle had been metered `times` more times, exactly (integer ns and fJ); returns
    /// `false` (and does nothing) if the meter is not back in the snapshot's state. Marks placed
    /// in the repeated stretch are resolved in closed form too (a cycle's energy per period).
    ///
    /// The timeline is not given the repeated changes: its last entry, if it is the cycle's
    /// last change, moves to the end of the repetitions, so the log shows the cycle's first
    /// state over the repeated stretch (the caller says so; see `PolicyMeter`).
    pub(crate) fn repeat_since(&mut self, mark: &MeterSnapshot, times: u64) -> bool {
        let back = (self.state, self.power, self.owes_down, self.owner) == (mark.state, mark.power, mark.owes_down, mark.owner);
        if !back || times == 0 || self.last < mark.last {
            return times == 0 && back;
        }
        let period = (self.last - mark.last).as_nanos();
        let cycle_fj = self.closed_energy_fj() - self.energy_of(&mark.totals);
        let t = &mut self.totals;
        let m = &mark.totals;
        for i in 0..RadioState::COUNT {
            t.time_ns[i] = t.time_ns[i].saturating_add((t.time_ns[i] - m.time_ns[i]).saturating_mul(times));
            t.state_fj[i] += (t.state_fj[i] - m.state_fj[i]) * u128::from(times);
        }
        t.trans_count = t.trans_count.saturating_add((t.trans_count - m.trans_count).saturating_mul(times));
        t.trans_ns = t.trans_ns.saturating_add((t.trans_ns - m.trans_ns).saturating_mul(times));
        t.trans_fj += (t.trans_fj - m.trans_fj) * u128::from(times);
        t.short_dormant = t.short_dormant.saturating_add((t.short_dormant - m.short_dormant).saturating_mul(times));
        let owner_delta = self.owner_energy_fj(mark.owner) - mark.owner_fj;
        self.charge(mark.owner, owner_delta * u128::from(times));
        let before = self.last;
        self.last = Time(self.last.as_nanos().saturating_add(period.saturating_mul(times)));
        if let Some(book) = self.marks.as_mut() {
            let r = Repeat { first: mark.last, from: before, to: self.last, period, delta_fj: cycle_fj };
            let (down, up) = (&self.down, &self.up);
            book.repeated(r, times, &|s: &Span, x: u64| Self::prefix_fj(down, up, s, x));
        }
        if let Some(tl) = self.timeline.as_mut() {
            if let Some(e) = tl.last_mut().filter(|e| e.0 == before) {
                e.0 = self.last;
            }
        }
        true
    }

    /// A copy without the timeline (no log copied), for non-destructive what-ifs.
    pub(crate) fn clone_without_timeline(&self) -> RadioMeter {
        RadioMeter {
            profile: self.profile.clone(),
            totals: self.totals.clone(),
            timeline: None,
            by_owner: self.by_owner.clone(),
            marks: self.marks.clone(),
            ..*self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::builtin_profile;
    use RadioState::*;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }
    fn us(x: u64) -> Duration {
        Duration::from_micros(x)
    }

    fn conserved(r: &EnergyReport) {
        let states: u64 = RadioState::ALL.iter().map(|&s| r.state(s).time_ns).sum();
        assert_eq!(
            states + r.transitions.time_ns,
            r.duration_ns,
            "time not conserved: {r:?}"
        );
        assert_eq!(r.duration_ns, r.end_ns - r.start_ns);
    }

    /// Hand-computed fixture on seed 000's WaveLAN DSSS (idle 1319, rx 1425, tx 1675,
    /// sleep 177 mW, off 0; sleep->idle = 2 ms at idle power, idle->sleep free; no off legs).
    ///
    /// | from      | to        | state | carved                                   |
    /// |-----------|-----------|-------|------------------------------------------|
    /// | 0         | 1.000 s   | idle  | 1000 ms                                  |
    /// | 1.000     | 1.0025    | rx    | 2.5 ms                                   |
    /// | 1.0025    | 1.0037    | tx    | 1.2 ms                                   |
    /// | 1.0037    | 1.3037    | sleep | 298 ms sleep + 2 ms up (wake at 1.3037)  |
    /// | 1.3037    | 1.3137    | idle  | 10 ms                                    |
    /// | 1.3137    | 1.3147    | rx    | 1 ms                                     |
    /// | 1.3147    | 1.3157    | sleep | 1 ms < 2 ms up: 1 ms up, 0 sleep (SHORT) |
    /// | 1.3157    | 1.4157    | idle  | 100 ms                                   |
    /// | 1.4157    | 1.5157    | off   | 100 ms (no off transitions defined)      |
    /// | 1.5157    | 1.5160    | tx    | 0.3 ms                                   |
    /// | 1.5160    | 2.0 (end) | sleep | 484 ms, still asleep at end: no up leg   |
    ///
    /// idle  1110 ms x 1319 mW = 1_464_090_000 nJ
    /// rx     3.5 ms x 1425 mW =     4_987_500 nJ
    /// tx     1.5 ms x 1675 mW =     2_512_500 nJ
    /// sleep  782 ms x  177 mW =   138_414_000 nJ
    /// off    100 ms x    0 mW =             0 nJ
    /// trans    3 ms x 1319 mW =     3_957_000 nJ  (7 switches: 4 sleep, 2 off, 1 final sleep)
    /// total                   = 1_613_961_000 nJ over exactly 2 s
    #[test]
    fn hand_computed_fixture_wavelan_dsss() {
        let p = builtin_profile("wavelan-dsss").unwrap();
        let mut m = RadioMeter::new(&p, Time::ZERO, Idle);
        m.enable_timeline();
        let t = |x_us: u64| Time::ZERO + us(x_us);
        for (at, s) in [
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
        ] {
            m.set_state(t(at), s);
        }
        let r = m.report(t(2_000_000));
        conserved(&r);
        assert_eq!(r.duration_ns, 2_000_000_000);
        assert_eq!(
            (r.idle.time_ns, r.idle.energy_nj),
            (1_110_000_000, 1_464_090_000)
        );
        assert_eq!((r.rx.time_ns, r.rx.energy_nj), (3_500_000, 4_987_500));
        assert_eq!((r.tx.time_ns, r.tx.energy_nj), (1_500_000, 2_512_500));
        assert_eq!(
            (r.sleep.time_ns, r.sleep.energy_nj),
            (782_000_000, 138_414_000)
        );
        assert_eq!((r.off.time_ns, r.off.energy_nj), (100_000_000, 0));
        assert_eq!(
            r.transitions,
            TransitionEnergy {
                count: 7,
                time_ns: 3_000_000,
                energy_nj: 3_957_000,
                energy_j: r.transitions.energy_j
            }
        );
        assert_eq!(r.total_energy_nj, 1_613_961_000);
        assert_eq!(r.total_energy_fj, 1_613_961_000 * 1_000_000);
        assert!((r.energy_j() - 1.613961).abs() < 1e-12);
        assert_eq!(r.awake_idle_energy_nj, r.idle.energy_nj);
        assert_eq!(r.short_dormant_intervals, 1);
        assert_eq!(m.timeline().len(), 11);
        assert_eq!(m.timeline()[0], (Time::ZERO, Idle));
        assert_eq!(m.timeline()[10], (t(1_516_000), Sleep));
        // report() is non-destructive and extends the current state.
        let later = m.report(t(3_000_000));
        assert_eq!(later.sleep.time_ns, r.sleep.time_ns + 1_000_000_000);
        assert_eq!(m.report(t(2_000_000)), r);
    }

    #[test]
    fn an_interval_at_its_own_power_is_charged_at_it() {
        // Atheros: tx 1400, idle 800 mW. Idle 10 us, a PPDU at 2 W for 10 us, then straight on
        // (same state) at the profile's 1.4 W for 10 us, idle 10 us.
        let p = builtin_profile("atheros-ar5004").unwrap();
        let mut m = RadioMeter::new(&p, Time::ZERO, Idle);
        m.enable_attribution();
        m.set_state_owned(Time::ZERO + us(10), Idle, 1);
        m.set_state_at_power(Time::ZERO + us(10), Tx, 2, 2_000_000);
        let mid = m.mark(Time::ZERO + us(15));
        m.set_state_owned(Time::ZERO + us(20), Tx, 3);
        m.set_state_owned(Time::ZERO + us(30), Idle, 4);
        let end = Time::ZERO + us(40);
        let r = m.report(end);
        conserved(&r);
        assert_eq!(r.tx.time_ns, 20_000);
        assert_eq!(r.tx.energy_nj, 20_000 + 14_000, "10 us at 2 W, 10 us at 1.4 W");
        assert_eq!(r.total_energy_fj, (20_000 * 800_000) + 10_000 * 2_000_000 + 10_000 * 1_400_000);
        let owners = m.energy_by_owner(end);
        assert_eq!((owners[2], owners[3]), (10_000 * 2_000_000, 10_000 * 1_400_000));
        assert_eq!(owners.iter().sum::<u128>(), r.total_energy_fj);
        assert_eq!(m.marks(end)[mid as usize].energy_fj, Some(10_000 * 800_000 + 5_000 * 2_000_000));
        // A dormant state ignores the power asked for: its transitions are the profile's.
        let mut d = RadioMeter::new(&p, Time::ZERO, Idle);
        d.set_state_at_power(Time::ZERO + us(10), Sleep, 0, 9_999_999);
        assert_eq!(d.report(Time::ZERO + ms(3)), {
            let mut e = RadioMeter::new(&p, Time::ZERO, Idle);
            e.set_state_owned(Time::ZERO + us(10), Sleep, 0);
            e.report(Time::ZERO + ms(3))
        });
    }

    #[test]
    fn transitions_are_carved_from_dormant_intervals() {
        // Atheros: down 1 us @ 800 mW, up 1 ms @ 1400 mW, sleep 16 mW.
        let p = builtin_profile("atheros-ar5004").unwrap();
        let mut m = RadioMeter::new(&p, Time::ZERO, Idle);
        m.set_state(Time::ZERO + ms(1), Sleep);
        m.set_state(Time::ZERO + ms(11), Rx); // awake at 11 ms: up carved from [10 ms, 11 ms)
        let r = m.report(Time::ZERO + ms(12));
        conserved(&r);
        assert_eq!(r.idle.time_ns, 1_000_000);
        assert_eq!(r.sleep.time_ns, 10_000_000 - 1_001_000);
        assert_eq!(r.rx.time_ns, 1_000_000);
        assert_eq!(r.transitions.count, 2);
        assert_eq!(r.transitions.time_ns, 1_001_000);
        // 1000 ns x 800_000 uW + 1e6 ns x 1_400_000 uW = 0.8 uJ + 1400 uJ
        assert_eq!(r.transitions.energy_nj, 800 + 1_400_000);
        assert_eq!(r.short_dormant_intervals, 0);
    }

    #[test]
    fn short_dormant_intervals_are_clipped_down_first() {
        let p = builtin_profile("atheros-ar5004").unwrap();
        // 500 us asleep: down 1 us, up clipped to 499 us, no sleep at all.
        let mut m = RadioMeter::new(&p, Time::ZERO, Idle);
        m.set_state(Time::ZERO, Sleep);
        m.set_state(Time::ZERO + us(500), Tx);
        let r = m.report(Time::ZERO + us(500));
        conserved(&r);
        assert_eq!((r.sleep.time_ns, r.transitions.time_ns), (0, 500_000));
        assert_eq!(
            r.transitions.energy_nj,
            800 + 499_000 * 1_400_000 / 1_000_000
        );
        assert_eq!(r.short_dormant_intervals, 1);
        // 0.5 us asleep: only half the down leg fits.
        let mut m = RadioMeter::new(&p, Time::ZERO, Idle);
        m.set_state(Time(100), Sleep);
        m.set_state(Time(600), Idle);
        let r = m.report(Time(1000));
        conserved(&r);
        assert_eq!(r.transitions.time_ns, 500);
        assert_eq!(r.transitions.energy_nj, 400); // 500 ns x 0.8 W = 400 nJ
        assert_eq!(r.short_dormant_intervals, 1);
        // A report taken mid-down-transition is not a short interval: the run just ended.
        let mut m = RadioMeter::new(&p, Time::ZERO, Idle);
        m.set_state(Time(100), Sleep);
        let r = m.report(Time(600));
        conserved(&r);
        assert_eq!((r.transitions.time_ns, r.short_dormant_intervals), (500, 0));
    }

    #[test]
    fn starting_dormant_owes_no_down_leg_and_awake_switches_are_free() {
        let p = builtin_profile("atheros-ar5004").unwrap();
        let mut m = RadioMeter::new(&p, Time::ZERO, Sleep);
        m.set_state(Time::ZERO + ms(5), Idle);
        m.set_state(Time::ZERO + ms(6), Tx);
        m.set_state(Time::ZERO + ms(7), Rx);
        m.set_state(Time::ZERO + ms(7), Rx); // same state: no-op
        let r = m.report(Time::ZERO + ms(8));
        conserved(&r);
        assert_eq!(r.transitions.count, 1);
        assert_eq!(r.transitions.time_ns, 1_000_000);
        assert_eq!(r.sleep.time_ns, 4_000_000);
        assert_eq!(
            (r.idle.time_ns, r.tx.time_ns, r.rx.time_ns),
            (1_000_000, 1_000_000, 1_000_000)
        );
    }

    #[test]
    fn report_before_last_change_is_clamped() {
        let p = builtin_profile("orinoco").unwrap();
        let mut m = RadioMeter::new(&p, Time(1000), Idle);
        m.set_state(Time(5000), Tx);
        let r = m.report(Time(10));
        conserved(&r);
        assert_eq!((r.end_ns, r.idle.time_ns, r.tx.time_ns), (5000, 4000, 0));
        assert!(m.timeline().is_empty());
    }

    #[test]
    fn time_is_conserved_under_random_switching() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        for p in crate::energy::builtin_profiles() {
            let mut m = RadioMeter::new(&p, Time(7), Idle);
            let mut now = Time(7);
            for _ in 0..500 {
                now += Duration::from_nanos(next() % 3_000_000);
                m.set_state(now, RadioState::ALL[(next() % RadioState::COUNT as u64) as usize]);
            }
            let r = m.report(now + us(10));
            conserved(&r);
            let parts: u128 = RadioState::ALL
                .iter()
                .map(|&s| r.state(s).time_ns as u128 * p.power_uw(s) as u128)
                .sum();
            assert!(
                r.total_energy_fj >= parts,
                "transitions never have negative energy"
            );
        }
    }
}
