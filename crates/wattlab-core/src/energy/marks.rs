//! Energy up to an instant: marks placed on a [`super::RadioMeter`].
//!
//! A mark at `t` asks for `E(t)`, the energy the meter charges over `[start, t)`: the integral
//! of the radio's power as the meter costs the run, each state at its power and each
//! transition leg at its own power over its own time (a leg's energy is spread evenly over its
//! duration). So:
//!
//! - a mark inside a wake-up (the up leg carved from the end of a dormant interval) pays the
//!   part of the leg before it, `(t − leg start) × P_up`; inside a down leg likewise; a mark
//!   inside a dormant stretch pays its down leg and the dormant time before `t`, and none of
//!   the wake-up that ends the stretch later;
//! - a mark at an interval's edge pays exactly the intervals before it (the interval's legs
//!   are on their own sides of the edge);
//! - `E(end)` is the report's exact total at `end`, whatever the state at `end`: a mark still
//!   pending when a report is taken is costed as the report costs the interval in progress (a
//!   dormant one pays no up leg: the radio is still asleep).
//!
//! **When a mark is resolved.** `E(t)` depends on the interval containing `t` *as finally
//! costed*: its length decides whether a dormant interval is clipped, and its end whether it
//! pays a wake-up. Accounting policies decide some intervals retroactively (an oracle knows a
//! gap's length only when the next frame comes), so a mark is resolved only when the interval
//! containing it is closed: when the meter leaves it, or at a report (non-destructively). A
//! naive "energy so far" at `t` would cost the gap as it looked then, not as the policy later
//! decides it.
//!
//! **Marks behind the meter.** A host may have told the meter about state changes after `t`
//! before it marks `t` (a simulator reports a frame's airtime when the frame starts, an 802.11
//! exchange's frames when the exchange starts). The meter keeps its last [`RECENT_SPANS`]
//! closed intervals and the latest closed-form repetition ([`super::RadioMeter`]'s beacon
//! cycles), so such a mark is resolved exactly; one further back is *lost* (its energy is
//! `None`, never a guess) and counted.
//!
//! Marks cost nothing unless enabled; enabled, every closed interval is written to a fixed
//! ring (no allocation), and a mark costs one slot.

use super::state::RadioState;
use crate::time::Time;
use serde::Serialize;

/// Identifies a mark: marks are numbered from 0 in the order they were placed on a meter.
pub type MarkId = u32;

/// Closed intervals kept to resolve marks placed behind the meter's last change.
pub const RECENT_SPANS: usize = 32;

/// One closed interval as the meter costed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// Start of the interval.
    pub start: Time,
    /// End of the interval.
    pub end: Time,
    /// Its state.
    pub state: RadioState,
    /// Its power, µW (the profile's for `state`, or a PPDU's own).
    pub power_uw: u64,
    /// A dormant interval entered from an awake state: the down leg is carved from its start.
    pub owes_down: bool,
    /// A dormant interval left for an awake state: the up leg is carved from its end.
    pub up: bool,
    /// Exact energy of everything before `start`, fJ.
    pub before_fj: u128,
}

/// A stretch of identical cycles costed in closed form: `[from, to)` repeats the cycle
/// `[first, from)` (of `period` ns, `delta_fj` each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Repeat {
    /// Start of the cycle that was metered.
    pub first: Time,
    /// Its end: the repeated stretch starts here.
    pub from: Time,
    /// End of the repeated stretch.
    pub to: Time,
    /// Length of one cycle, ns (> 0).
    pub period: u64,
    /// Energy of one cycle, fJ.
    pub delta_fj: u128,
}

/// What is known of one mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// The interval containing it is still open.
    Pending(Time),
    /// Resolved: `E(t)` in fJ.
    Done(Time, u128),
    /// Placed too far behind the meter to be resolved.
    Lost(Time),
}

impl Slot {
    fn at(self) -> Time {
        match self {
            Slot::Pending(t) | Slot::Done(t, _) | Slot::Lost(t) => t,
        }
    }
}

/// Energy up to one marked instant, as a report gives it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MarkEnergy {
    /// The marked instant, ns.
    pub at_ns: u64,
    /// Energy from the meter's start to the instant, nJ (rounded half up from the exact fJ);
    /// `None` if the mark was lost or comes after the report's end.
    pub energy_nj: Option<u64>,
    /// Same, J.
    pub energy_j: Option<f64>,
    /// Exact energy, fJ.
    #[serde(skip)]
    pub energy_fj: Option<u128>,
}

impl MarkEnergy {
    /// The energy of the mark at `at`: `fj` femtojoules, or unknown.
    pub(crate) fn new(at: Time, fj: Option<u128>) -> MarkEnergy {
        MarkEnergy {
            at_ns: at.as_nanos(),
            energy_nj: fj.map(super::meter::fj_to_nj),
            energy_j: fj.map(super::meter::fj_to_j),
            energy_fj: fj,
        }
    }
}

/// Marks of one meter, the recent closed intervals that resolve late ones, and the energy
/// closed so far.
#[derive(Clone, Debug)]
pub(crate) struct MarkBook {
    /// Ring of the latest closed intervals (`next` is the slot written next once full).
    recent: Vec<Span>,
    next: usize,
    repeat: Option<Repeat>,
    /// Exact energy of the closed intervals, fJ (the meter's closed energy).
    closed_fj: u128,
    slots: Vec<Slot>,
    /// Ids of the pending marks (few: the marks of one instant, usually none).
    pending: Vec<MarkId>,
}

impl MarkBook {
    /// A book for a meter whose closed intervals so far cost `closed_fj`.
    pub fn new(closed_fj: u128) -> MarkBook {
        MarkBook {
            recent: Vec::with_capacity(RECENT_SPANS),
            next: 0,
            repeat: None,
            closed_fj,
            slots: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Energy of the intervals closed so far, fJ.
    pub fn closed_fj(&self) -> u128 {
        self.closed_fj
    }

    /// The meter closed `span` (`fj` its energy); resolves the pending marks it contains.
    /// `prefix(span, x)` is the energy of the first `x` ns of a span.
    pub fn closed(&mut self, span: Span, fj: u128, prefix: &impl Fn(&Span, u64) -> u128) {
        if self.recent.len() < RECENT_SPANS {
            self.recent.push(span);
        } else {
            self.recent[self.next] = span;
            self.next = (self.next + 1) % RECENT_SPANS;
        }
        self.closed_fj += fj;
        if self.pending.is_empty() {
            return;
        }
        let slots = &mut self.slots;
        self.pending.retain(|&id| {
            let t = slots[id as usize].at();
            if t > span.end {
                return true;
            }
            let x = t.saturating_since(span.start).as_nanos();
            slots[id as usize] = Slot::Done(t, span.before_fj + prefix(&span, x));
            false
        });
    }

    /// Places a mark at `t` on a meter that started at `start` and whose interval in progress
    /// began at `last`.
    pub fn place(&mut self, t: Time, start: Time, last: Time, prefix: &impl Fn(&Span, u64) -> u128) -> MarkId {
        let id = self.slots.len() as MarkId;
        let slot = if t > last {
            self.pending.push(id);
            Slot::Pending(t)
        } else if t == last {
            Slot::Done(t, self.closed_fj)
        } else if t <= start {
            Slot::Done(t, 0)
        } else {
            self.lookup(t, prefix).map_or(Slot::Lost(t), |fj| Slot::Done(t, fj))
        };
        self.slots.push(slot);
        id
    }

    /// `E(t)` for `t` before the interval in progress, from the recent closed intervals;
    /// `None` if they do not reach back to `t`.
    fn lookup(&self, t: Time, prefix: &impl Fn(&Span, u64) -> u128) -> Option<u128> {
        let n = self.recent.len();
        let mut t = t;
        let mut add = 0u128;
        // Newest first: the slot before `next` (once the ring is full), down to `next`.
        let mut k = 0;
        while k < n {
            let s = &self.recent[(self.next + n - 1 - k) % n];
            if t >= s.end {
                // Between this interval and the next one kept: a repeated stretch.
                let r = self.repeat.filter(|r| r.from == s.end && t < r.to)?;
                let j = (t - r.first).as_nanos() / r.period;
                t = Time(t.as_nanos() - j * r.period);
                add += r.delta_fj * u128::from(j);
                continue;
            }
            if t >= s.start {
                return Some(add + s.before_fj + prefix(s, (t - s.start).as_nanos()));
            }
            k += 1;
        }
        None
    }

    /// The meter repeated the cycle `r` in closed form up to `r.to`, `times` times: the
    /// stretch is remembered (marks placed into it later) and the pending marks in it are
    /// resolved.
    pub fn repeated(&mut self, r: Repeat, times: u64, prefix: &impl Fn(&Span, u64) -> u128) {
        self.closed_fj += r.delta_fj * u128::from(times);
        self.repeat = Some(r);
        if self.pending.is_empty() {
            return;
        }
        let ids: Vec<MarkId> = std::mem::take(&mut self.pending);
        for id in ids {
            let t = self.slots[id as usize].at();
            if t > r.to {
                self.pending.push(id);
            } else {
                let fj = if t == r.to { Some(self.closed_fj) } else { self.lookup(t, prefix) };
                self.slots[id as usize] = fj.map_or(Slot::Lost(t), |fj| Slot::Done(t, fj));
            }
        }
    }

    /// Every mark's energy for a report ending at `end`, the interval in progress being
    /// `current` (its `end` the report's); pending marks after `end` have none.
    pub fn energies(&self, current: &Span, prefix: &impl Fn(&Span, u64) -> u128) -> Vec<MarkEnergy> {
        self.slots
            .iter()
            .map(|&s| match s {
                Slot::Done(t, fj) => MarkEnergy::new(t, Some(fj)),
                Slot::Lost(t) => MarkEnergy::new(t, None),
                Slot::Pending(t) if t > current.end => MarkEnergy::new(t, None),
                Slot::Pending(t) => {
                    let x = t.saturating_since(current.start).as_nanos();
                    MarkEnergy::new(t, Some(current.before_fj + prefix(current, x)))
                }
            })
            .collect()
    }

    /// Marks placed too far behind the meter to be resolved.
    pub fn lost(&self) -> u64 {
        self.slots.iter().filter(|s| matches!(s, Slot::Lost(_))).count() as u64
    }
}

#[cfg(test)]
mod tests;
