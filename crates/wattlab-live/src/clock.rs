//! The live clock: the sans-IO code runs on `Time` (ns since the process started, from
//! CLOCK_MONOTONIC, which never steps), and logs carry Unix-epoch nanoseconds (CLOCK_REALTIME,
//! the clock of tcpdump's timestamps) so they line up with the capture.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use wattlab_core::Time;

/// Monotonic time for the protocol code, with a fixed mapping to the Unix epoch for logs.
#[derive(Clone, Copy, Debug)]
pub struct LiveClock {
    start: Instant,
    start_unix_ns: u64,
}

impl LiveClock {
    /// A clock whose `Time::ZERO` is now.
    pub fn start() -> LiveClock {
        // Read the two clocks back to back; the mapping is off by at most that gap (~100 ns).
        let start = Instant::now();
        let unix = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        LiveClock { start, start_unix_ns: unix.as_nanos() as u64 }
    }

    /// Now, on the protocol timeline.
    pub fn now(&self) -> Time {
        Time(self.start.elapsed().as_nanos() as u64)
    }

    /// `t` as Unix-epoch nanoseconds (the capture's clock).
    pub fn unix_ns(&self, t: Time) -> u64 {
        self.start_unix_ns + t.0
    }

    /// The protocol time of `deadline`, as a timeout from now for `ppoll` (zero if past),
    /// capped at `cap` so the loop still checks its stop flag.
    pub fn timeout_until(&self, deadline: Option<Time>, cap: std::time::Duration) -> std::time::Duration {
        let now = self.now();
        match deadline {
            Some(t) if t <= now => std::time::Duration::ZERO,
            Some(t) => std::time::Duration::from_nanos(t.0 - now.0).min(cap),
            None => cap,
        }
    }
}
