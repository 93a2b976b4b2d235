//! Adaptive PSM's high-power test: is the radio, while awake, in `IdleHigh` ("CAMH")?
//!
//! Two definitions are in use, and they give different answers on the same traffic:
//!
//! - **sliding** (`ByteWindow`): at every instant, the bytes of the frames of the last
//!   `window` are compared with the threshold (how a driver that keeps a running rate behaves);
//! - **fixed** (`FixedWindows`): time is cut into windows `[origin + k·w, origin + (k+1)·w)`
//!   aligned to the start of the run, and all awake time inside a window whose frames carry
//!   more than the threshold is high (EnergyBox's Wi-Fi engine, which bins the trace's
//!   throughput and promotes the CAM time inside the busy bins).
//!
//! The fixed test looks ahead to the end of the window (a frame late in a window makes the
//! time before it high), so `FixedWindows` holds the state changes of the current window
//! until time has moved past it, then hands them to the meter.

use std::collections::VecDeque;

use super::meter::RadioMeter;
use super::state::RadioState;
use crate::time::{Duration, Time};

/// How adaptive PSM's throughput window is laid over time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum WindowKind {
    /// The last `window` before each instant (default).
    #[default]
    Sliding,
    /// Consecutive windows aligned to the start of the run (EnergyBox's definition).
    Fixed,
}

impl WindowKind {
    /// `"sliding"` or `"fixed"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            WindowKind::Sliding => "sliding",
            WindowKind::Fixed => "fixed",
        }
    }
}

/// The frames of the last `window`, for the sliding test (a FIFO with a running sum; it
/// reaches a steady capacity, so it does not allocate per frame).
#[derive(Clone, Debug, Default)]
pub(crate) struct ByteWindow {
    pub(crate) frames: VecDeque<(Time, u64)>,
    pub(crate) sum: u64,
}

impl ByteWindow {
    pub(crate) fn push(&mut self, at: Time, bytes: u64) {
        self.frames.push_back((at, bytes));
        self.sum += bytes;
    }

    /// Forgets the frames that left the window `(t − window, t]` by `t`.
    pub(crate) fn expire(&mut self, t: Time, window: Duration) {
        while let Some(&(at, b)) = self.frames.front() {
            if at + window > t {
                break;
            }
            self.frames.pop_front();
            self.sum -= b;
        }
    }

    /// From `t` on, the instant the sum drops to `limit` or below as frames expire (`t` if it
    /// already is), looking no further than `horizon` (`None`: still above at the horizon).
    pub(crate) fn high_until(&self, t: Time, window: Duration, limit: u64, horizon: Time) -> Option<Time> {
        let mut sum = self.sum;
        if sum <= limit {
            return Some(t);
        }
        for &(at, b) in &self.frames {
            let leaves = at + window;
            if leaves >= horizon {
                return None;
            }
            sum -= b;
            if sum <= limit {
                return Some(leaves.max(t));
            }
        }
        Some(t)
    }
}

/// The fixed test, as a stage between a policy and its [`RadioMeter`].
///
/// The policy sets *base* states (awake time as plain `Idle`); this stage passes them on with
/// `Idle` raised to `IdleHigh` inside high windows, adding a change at each window boundary
/// where that raises or lowers the state in force. A window's total is final once a state
/// change at a later time arrives (the policy's inputs come in time order and a frame's bytes
/// count at its end, never before its start), so only the changes of the current window are
/// held: memory is one window's changes, reused, plus one entry per window with bytes in it.
#[derive(Clone, Debug)]
pub(crate) struct FixedWindows {
    origin: Time,
    len: u64,
    limit: u64,
    /// Index of the window whose changes are held.
    open: u64,
    /// Base changes `(time, state, owner)` in window `open`, in time order.
    held: Vec<(Time, RadioState, u32)>,
    /// Bytes per window index, for windows from `open` on that have any (ascending).
    bytes: VecDeque<(u64, u64)>,
    /// The base state and owner in force before the held changes.
    before: (RadioState, u32),
    /// The open window's start has been handed to the meter (after [`FixedWindows::settle`]):
    /// flushing it again must not add a change at its start, which is in the meter's past.
    open_started: bool,
}

impl FixedWindows {
    /// Windows of `len` from `origin`, high above `limit` bytes; the meter starts in `state`.
    pub(crate) fn new(origin: Time, len: Duration, limit: u64, state: RadioState) -> FixedWindows {
        FixedWindows {
            origin,
            len: len.as_nanos().max(1),
            limit,
            open: 0,
            held: Vec::with_capacity(64),
            bytes: VecDeque::with_capacity(4),
            before: (state, 0),
            open_started: false,
        }
    }

    /// From where on every window is known to hold no bytes (until a frame adds some): the
    /// start of the window after the last one with bytes, or of the open window if none has any.
    pub(crate) fn quiet_from(&self) -> Time {
        match self.bytes.back() {
            Some(&(k, _)) => self.start_of(k.saturating_add(1)),
            None => self.start_of(self.open),
        }
    }

    /// The start of the window `t` falls in.
    pub(crate) fn window_start(&self, t: Time) -> Time {
        self.start_of(self.index(t))
    }

    /// Hands every held change, up to and including the window of `t`, to the meter. The
    /// caller knows those windows final: no frame can end in them any more (a dozing radio's
    /// gap, before the window of the next frame). The meter is then up to date, so that a
    /// policy may meter that gap directly (see [`FixedWindows::resume`]).
    pub(crate) fn settle(&mut self, meter: &mut RadioMeter, t: Time) {
        let k = self.index(t);
        if k > self.open {
            self.advance(meter, k);
        }
        self.flush_open(meter);
    }

    /// After changes were metered directly past [`FixedWindows::settle`] (all in final windows
    /// without bytes, which the stage passes on unchanged), up to `t` in base state `state`:
    /// the stage takes over from the window of `t`, whose start the meter has passed.
    pub(crate) fn resume(&mut self, t: Time, state: (RadioState, u32)) {
        debug_assert!(self.held.is_empty(), "resume after settle only");
        self.open = self.open.max(self.index(t));
        self.open_started = true;
        self.before = state;
        while self.bytes.front().is_some_and(|&(i, _)| i < self.open) {
            self.bytes.pop_front();
        }
    }

    fn index(&self, t: Time) -> u64 {
        t.saturating_since(self.origin).as_nanos() / self.len
    }

    fn start_of(&self, k: u64) -> Time {
        self.origin + Duration::from_nanos(k.saturating_mul(self.len))
    }

    fn bytes_of(&self, k: u64) -> u64 {
        self.bytes.iter().find(|&&(i, _)| i == k).map_or(0, |&(_, b)| b)
    }

    /// Counts `bytes` of a frame that ended at `t` (not before the latest change).
    pub(crate) fn add_bytes(&mut self, t: Time, bytes: u64) {
        let k = self.index(t);
        match self.bytes.back_mut() {
            Some((i, b)) if *i == k => *b += bytes,
            _ => self.bytes.push_back((k, bytes)),
        }
    }

    /// The policy's base change at `t` (times non-decreasing).
    pub(crate) fn set(&mut self, meter: &mut RadioMeter, t: Time, state: RadioState, owner: u32) {
        let k = self.index(t);
        if k > self.open {
            self.advance(meter, k);
        }
        self.held.push((t, state, owner));
    }

    /// Hands every held change to the meter (the run is over: all windows are final).
    pub(crate) fn finish(&mut self, meter: &mut RadioMeter) {
        self.flush_open(meter);
    }

    /// Gives the held changes of owner `from` to `into` (see [`RadioMeter::fold_owner`]).
    pub(crate) fn fold_owner(&mut self, from: u32, into: u32) {
        for h in &mut self.held {
            if h.2 == from {
                h.2 = into;
            }
        }
        if self.before.1 == from {
            self.before.1 = into;
        }
    }

    /// Flushes the windows before `k` (all final), and opens `k`.
    fn advance(&mut self, meter: &mut RadioMeter, k: u64) {
        while self.open < k {
            let high = self.flush_open(meter);
            // The windows after a low one up to the next with bytes are low too and hold no
            // change: nothing to do there. After a high one, the next window starts lower.
            let next_with_bytes = self.bytes.iter().map(|&(i, _)| i).find(|&i| i > self.open).unwrap_or(u64::MAX);
            let next = if high { self.open + 1 } else { next_with_bytes };
            self.open = next.min(k);
            self.open_started = false;
            while self.bytes.front().is_some_and(|&(i, _)| i < self.open) {
                self.bytes.pop_front();
            }
        }
    }

    /// Hands the open window's changes to the meter; returns whether the window is high.
    fn flush_open(&mut self, meter: &mut RadioMeter) -> bool {
        let high = self.bytes_of(self.open) > self.limit;
        let raise = |s: RadioState| if high && s == RadioState::Idle { RadioState::IdleHigh } else { s };
        if self.before.0 == RadioState::Idle && !self.open_started {
            meter.set_state_owned(self.start_of(self.open), raise(RadioState::Idle), self.before.1);
        }
        self.open_started = true;
        for &(t, s, o) in &self.held {
            meter.set_state_owned(t, raise(s), o);
            self.before = (s, o);
        }
        self.held.clear();
        high
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::energy::DeviceProfile;
    use RadioState::*;

    fn profile() -> DeviceProfile {
        let text = "name = \"t\"\ndescription = \"d\"\nsource = \"s\"\n[power_mw]\n\
                    off = 0\nsleep = 10\nidle = 100\nidle_high = 300\nrx = 400\ntx = 500\n";
        DeviceProfile::from_toml_str(text, "t.toml").unwrap()
    }

    fn ms(x: u64) -> Time {
        Time::ZERO + Duration::from_millis(x)
    }

    /// Windows of 50 ms from 0, high above 1000 bytes. Changes: awake from 0, 600 B at 10 ms
    /// and 600 B at 40 ms (window 0: 1200, high), asleep at 120 ms (windows 1 and 2 empty),
    /// awake at 230 ms with 2000 B at 240 ms (window 4, [200, 250): high), the run ends at 260 ms.
    #[test]
    fn awake_time_in_high_windows_is_raised_at_the_window_boundaries() {
        let p = profile();
        let mut m = RadioMeter::new(&p, Time::ZERO, Idle);
        m.enable_timeline();
        let mut f = FixedWindows::new(Time::ZERO, Duration::from_millis(50), 1000, Idle);
        f.add_bytes(ms(10), 600);
        f.add_bytes(ms(40), 600);
        f.set(&mut m, ms(120), Sleep, 0);
        f.set(&mut m, ms(230), Idle, 0);
        f.add_bytes(ms(240), 2000);
        f.set(&mut m, ms(260), Idle, 0);
        f.finish(&mut m);
        assert_eq!(
            m.timeline(),
            &[(ms(0), IdleHigh), (ms(50), Idle), (ms(120), Sleep), (ms(230), IdleHigh), (ms(250), Idle)]
        );
        let r = m.report(ms(260));
        // High: [0, 50) and [230, 250); idle: [50, 120) and [250, 260); asleep [120, 230).
        assert_eq!(r.idle_high.time_ns, 70_000_000);
        assert_eq!(r.idle.time_ns, 80_000_000);
        assert_eq!(r.sleep.time_ns, 110_000_000);
    }

    #[test]
    fn a_long_gap_costs_no_work_per_window() {
        let p = profile();
        let mut m = RadioMeter::new(&p, Time::ZERO, Idle);
        let mut f = FixedWindows::new(Time::ZERO, Duration::from_nanos(1), 0, Idle);
        f.add_bytes(ms(0), 1);
        // 10^15 one-ns windows later: only the high window and the one after it are visited.
        f.set(&mut m, Time(1_000_000_000_000_000), Idle, 0);
        f.finish(&mut m);
        let r = m.report(Time(1_000_000_000_000_000));
        assert_eq!(r.idle_high.time_ns, 1);
    }
}
