//! Replay: cost a stream of radio activity under a *recorded* sleep/wake schedule, as seed 000
//! did (a tcpdump trace plus the agent's sleep and wake decisions fed to an energy simulator).
//!
//! The schedule says when the radio was dormant and when awake; the activity intervals say
//! when it sent and received. An interval the radio must be awake for while the schedule says
//! dormant wakes it for that interval (a transmitter has to power up to send) and is counted
//! in [`ReplayMeter::busy_while_dormant`]; whether a *received* frame could have arrived then
//! is the caller's question (see [`ReplayMeter::scheduled_at`]): a dormant radio never hears it.

use super::meter::{EnergyReport, RadioMeter};
use super::policy::{own_bucket, tail_bucket, Activity};
use super::profile::DeviceProfile;
use super::state::RadioState;
use crate::time::{Duration, Time};

/// Costs activity under a recorded schedule of dormant/awake states.
#[derive(Clone, Debug)]
pub struct ReplayMeter {
    meter: RadioMeter,
    /// `(instant, state)` changes, sorted, each state dormant, `Idle` or `IdleHigh`.
    schedule: Vec<(Time, RadioState)>,
    /// Index of the next schedule entry not yet applied.
    next: usize,
    /// The scheduled state now (before activity overrides it).
    scheduled: RadioState,
    last_end: Time,
    clipped_ns: u64,
    busy_while_dormant: u64,
    owner: u32,
}

impl ReplayMeter {
    /// A meter on `profile` from `start`, awake until the first entry of `schedule` (sorted
    /// `(instant, state)` pairs; awake states other than `IdleHigh` are taken as `Idle`, since
    /// the activity comes from the trace).
    pub fn new(profile: &DeviceProfile, start: Time, schedule: Vec<(Time, RadioState)>) -> Self {
        let schedule = schedule
            .into_iter()
            .map(|(t, s)| (t, if s.is_dormant() || s == RadioState::IdleHigh { s } else { RadioState::Idle }))
            .collect();
        let mut m = ReplayMeter {
            meter: RadioMeter::new(profile, start, RadioState::Idle),
            schedule,
            next: 0,
            scheduled: RadioState::Idle,
            last_end: start,
            clipped_ns: 0,
            busy_while_dormant: 0,
            owner: 0,
        };
        m.advance(start);
        m
    }

    /// Applies the schedule up to and including `t` (never before the latest activity's end).
    fn advance(&mut self, t: Time) {
        while let Some(&(at, s)) = self.schedule.get(self.next) {
            if at > t {
                break;
            }
            self.next += 1;
            self.scheduled = s;
            let tail = tail_bucket(self.owner);
            self.meter.set_state_owned(at.max(self.last_end).max(self.meter.last_change()), s, tail);
        }
    }

    /// The scheduled state at `t` (monotone: `t` must not go backwards).
    pub fn scheduled_at(&mut self, t: Time) -> RadioState {
        self.advance(t.max(self.last_end));
        self.scheduled
    }

    /// Starts attributing energy to owners (see [`super::PolicyMeter::frame`]).
    pub fn enable_attribution(&mut self) {
        self.meter.enable_attribution();
    }

    /// Records activity `kind` over `[start, end)` for `owner`, clipped like
    /// [`super::PolicyMeter::activity`].
    pub fn activity(&mut self, start: Time, end: Time, kind: Activity, owner: u32) {
        self.clipped_ns += end.min(self.last_end).saturating_since(start).as_nanos();
        let start = start.max(self.last_end);
        if end <= start {
            return;
        }
        self.advance(start);
        if self.scheduled.is_dormant() {
            self.busy_while_dormant += 1;
        }
        self.owner = owner;
        let state = match (kind, self.scheduled) {
            (Activity::Wait, RadioState::IdleHigh) => RadioState::IdleHigh,
            _ => kind.state(),
        };
        self.meter.set_state_owned(start, state, own_bucket(owner));
        self.last_end = end;
        // Changes scheduled during the activity take effect at its end.
        self.advance(end);
        let back = self.scheduled;
        self.meter.set_state_owned(end, back, tail_bucket(owner));
    }

    /// Moves everything attributed to connection `from` to `into` (see
    /// [`super::PolicyMeter::fold_owner`]).
    pub fn fold_owner(&mut self, from: u32, into: u32) {
        self.meter.fold_owner(own_bucket(from), own_bucket(into));
        self.meter.fold_owner(tail_bucket(from), tail_bucket(into));
        if self.owner == from {
            self.owner = into;
        }
    }

    /// Activity intervals that fell in a scheduled dormant period (the radio woke for them).
    pub fn busy_while_dormant(&self) -> u64 {
        self.busy_while_dormant
    }

    /// Activity time dropped because intervals overlapped or came out of order.
    pub fn clipped(&self) -> Duration {
        Duration::from_nanos(self.clipped_ns)
    }

    fn closed_at(&self, end: Time, log: bool) -> ReplayMeter {
        let mut m = ReplayMeter { meter: self.meter.clone_without_timeline(), schedule: Vec::new(), ..*self };
        if log {
            m.meter.enable_timeline();
        }
        // Only the entries still to apply matter.
        m.schedule = self.schedule[self.next..].iter().copied().take_while(|&(t, _)| t <= end).collect();
        m.next = 0;
        m.advance(end);
        m
    }

    /// Totals for the run ending at `end`, the schedule applied up to it (the radio ends in
    /// whatever state the schedule says: a replay reproduces the recording, so no forced wake).
    pub fn report(&self, end: Time) -> EnergyReport {
        let m = self.closed_at(end, false);
        let mut r = m.meter.report(end);
        r.policy = Some("replay".into());
        r.clipped_activity_ns = self.clipped_ns;
        r
    }

    /// Energy per attribution bucket for the run ending at `end` (see [`super::own_bucket`]).
    pub fn energy_by_bucket(&self, end: Time) -> Vec<u128> {
        self.closed_at(end, false).meter.energy_by_owner(end)
    }

    /// Starts logging the radio's state changes.
    pub fn enable_timeline(&mut self) {
        self.meter.enable_timeline();
    }

    /// Moves the logged state changes out but the latest (see [`RadioMeter::drain_timeline`]).
    pub fn drain_timeline(&mut self, sink: impl FnMut(Time, RadioState)) {
        self.meter.drain_timeline(sink);
    }

    /// Logged state changes not yet drained.
    pub fn timeline(&self) -> &[(Time, RadioState)] {
        self.meter.timeline()
    }

    /// The schedule's changes after the latest activity, up to `end`.
    pub fn trailing_timeline(&self, end: Time) -> Vec<(Time, RadioState)> {
        self.closed_at(end, true).meter.timeline().iter().copied().skip(1).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::builtin_profile;
    use RadioState::*;

    fn ms(x: u64) -> Time {
        Time::ZERO + Duration::from_millis(x)
    }

    #[test]
    fn replays_the_schedule_and_wakes_for_transmissions() {
        let p = builtin_profile("wavelan-turbo-2mbps").unwrap(); // free transitions
        let sched = vec![(ms(10), Sleep), (ms(50), Idle), (ms(60), Sleep)];
        let mut m = ReplayMeter::new(&p, Time::ZERO, sched);
        m.enable_timeline();
        m.activity(ms(2), ms(3), Activity::Rx, 1);
        assert_eq!(m.scheduled_at(ms(20)), Sleep);
        m.activity(ms(20), ms(21), Activity::Tx, 2); // wakes to send
        m.activity(ms(55), ms(58), Activity::Rx, 1);
        let r = m.report(ms(100));
        assert_eq!(m.busy_while_dormant(), 1);
        assert_eq!((r.rx.time_ns, r.tx.time_ns), (4_000_000, 1_000_000));
        // idle: [0,2) [3,10) [50,55) [58,60) = 16 ms; sleep: [10,20) [21,50) [60,100) = 79 ms.
        assert_eq!((r.idle.time_ns, r.sleep.time_ns), (16_000_000, 79_000_000));
        assert_eq!(r.duration_ns, 100_000_000);
        let t = m.timeline().to_vec();
        assert_eq!(&t[..4], &[(Time::ZERO, Idle), (ms(2), Rx), (ms(3), Idle), (ms(10), Sleep)]);
        let tail = m.trailing_timeline(ms(100));
        assert_eq!(tail, vec![(ms(60), Sleep)]);
    }
}
