//! Simulation and protocol time: integer nanoseconds, never read from a clock.
//!
//! `Time` is an instant (nanoseconds since the start of a run or trace); `Duration` is a span.
//! Both are plain `u64` newtypes so arithmetic is exact and runs are deterministic.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// An instant, in nanoseconds since the origin of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub u64);

impl Time {
    /// The origin of time.
    pub const ZERO: Time = Time(0);
    /// The far future; used as "never".
    pub const MAX: Time = Time(u64::MAX);

    /// Nanoseconds since the origin.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds since the origin, as a float (for reports only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Instant from seconds (rounded to the nearest nanosecond).
    pub fn from_secs_f64(s: f64) -> Time {
        Time((s * 1e9).round() as u64)
    }
    /// Span since an earlier instant, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    /// Zero length.
    pub const ZERO: Duration = Duration(0);
    /// Longest representable span.
    pub const MAX: Duration = Duration(u64::MAX);

    /// Span of `n` nanoseconds.
    pub const fn from_nanos(n: u64) -> Duration {
        Duration(n)
    }
    /// Span of `n` microseconds (saturating at [`Duration::MAX`]).
    pub const fn from_micros(n: u64) -> Duration {
        Duration(n.saturating_mul(1_000))
    }
    /// Span of `n` milliseconds (saturating at [`Duration::MAX`]).
    pub const fn from_millis(n: u64) -> Duration {
        Duration(n.saturating_mul(1_000_000))
    }
    /// Span of `n` seconds (saturating at [`Duration::MAX`]).
    pub const fn from_secs(n: u64) -> Duration {
        Duration(n.saturating_mul(1_000_000_000))
    }
    /// Span from float seconds (rounded to the nearest nanosecond; negative clamps to zero).
    pub fn from_secs_f64(s: f64) -> Duration {
        Duration((s.max(0.0) * 1e9).round() as u64)
    }
    /// Nanoseconds in this span.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds, as a float (for reports and models).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Time to serialize `bytes` at `bits_per_sec`, rounded up to whole nanoseconds; saturates
    /// at [`Duration::MAX`] (a rate of 0 never finishes: `Duration::MAX`, not a division by
    /// zero). Callers validate their rates; this only keeps a bad one from panicking.
    pub fn transmission(bytes: u64, bits_per_sec: u64) -> Duration {
        if bits_per_sec == 0 {
            return Duration::MAX;
        }
        let bits = bytes as u128 * 8 * 1_000_000_000;
        Duration(u64::try_from(bits.div_ceil(bits_per_sec as u128)).unwrap_or(u64::MAX))
    }
    /// Saturating multiplication by an integer factor.
    pub fn saturating_mul(self, k: u64) -> Duration {
        Duration(self.0.saturating_mul(k))
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Duration> for Time {
    type Output = Time;
    fn sub(self, d: Duration) -> Time {
        Time(self.0.saturating_sub(d.0))
    }
}
impl Sub<Time> for Time {
    type Output = Duration;
    /// Span between two instants; panics in debug builds if `rhs` is later.
    fn sub(self, rhs: Time) -> Duration {
        debug_assert!(self.0 >= rhs.0, "negative time span");
        Duration(self.0.saturating_sub(rhs.0))
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0.saturating_add(d.0))
    }
}
impl AddAssign for Duration {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for Duration {
    type Output = Duration;
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0.saturating_sub(d.0))
    }
}
impl SubAssign for Duration {
    fn sub_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_sub(d.0);
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}ms", self.0 as f64 * 1e-6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_is_exact_and_rounds_up() {
        // 1500 bytes at 10 Mb/s = 1.2 ms exactly.
        assert_eq!(Duration::transmission(1500, 10_000_000), Duration::from_micros(1200));
        // 1 byte at 3 b/s = 8/3 s, rounded up.
        assert_eq!(Duration::transmission(1, 3).0, 2_666_666_667);
    }

    #[test]
    fn hostile_rates_and_spans_saturate_instead_of_panicking() {
        // Issue 16: `--phy link@1e-9` rounded the rate to 0 b/s and divided by zero here.
        assert_eq!(Duration::transmission(1500, 0), Duration::MAX);
        assert_eq!(Duration::transmission(u64::MAX, 1), Duration::MAX);
        assert_eq!(Duration::from_secs(u64::MAX), Duration::MAX);
        assert_eq!(Duration::from_millis(u64::MAX / 2), Duration::MAX);
        assert_eq!(Duration::from_micros(u64::MAX), Duration::MAX);
        assert_eq!(Duration::from_secs_f64(f64::NAN), Duration::ZERO);
        assert_eq!(Duration::from_secs_f64(f64::INFINITY), Duration::MAX);
        assert_eq!(Time::from_secs_f64(-1.0), Time::ZERO);
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        assert_eq!(Time::MAX + Duration::from_secs(1), Time::MAX);
        assert_eq!(Time(5) - Duration(10), Time::ZERO);
        assert_eq!(Duration(3) - Duration(5), Duration::ZERO);
    }
}
