//! A receiving application that reads at a limited rate, with an optional pause: the
//! bulk transfers' `reader` setting (a slow consumer makes TCP's receive window close).

use crate::scenario::ReaderConfig;
use wattlab_core::tcp::TcpConnection;
use wattlab_core::{Duration, Time};

/// Reads a TCP receive buffer at a limited rate, with an optional pause.
///
/// The credit grows at `rate` while not paused, capped at one receive buffer so an idle reader
/// cannot store up an unbounded burst.
#[derive(Clone, Debug)]
pub struct Reader {
    rate_bps: Option<u64>,
    pause: Option<(Time, Time)>,
    /// Credit in bit-nanoseconds / 1e9 (i.e. bits × 1e9), exact integer arithmetic.
    credit: u128,
    cap: u128,
    last: Time,
}

/// Granularity of a rate-limited reader: it wakes when it can read this much (or everything).
const READ_CHUNK: u64 = 1460;

impl Reader {
    /// The reader a flow's `reader` settings describe, for a receive buffer of `buffer` bytes,
    /// the flow starting at `start` (the pause is relative to it).
    pub fn from_config(r: &ReaderConfig, buffer: u64, start: Time) -> Reader {
        let pause = r.pause.map(|[a, b]| (start + a.get(), start + b.get()));
        Reader::new(r.rate.map(|x| x.bps()), pause, buffer, start)
    }

    /// A reader with an optional rate limit and pause window (absolute times).
    pub fn new(rate_bps: Option<u64>, pause: Option<(Time, Time)>, buffer: u64, start: Time) -> Self {
        Reader { rate_bps, pause, credit: 0, cap: buffer as u128 * 8 * 1_000_000_000, last: start }
    }

    fn paused(&self, now: Time) -> bool {
        matches!(self.pause, Some((a, b)) if now >= a && now < b)
    }

    /// Read what the rate allows; returns bytes read and when to try again (if data remains).
    pub fn read(&mut self, now: Time, conn: &mut TcpConnection) -> (u64, Option<Time>) {
        let paused = self.paused(now);
        if let Some(rate) = self.rate_bps {
            // Credit does not accrue during a pause: subtract its overlap with [last, now).
            let elapsed = now.saturating_since(self.last).0;
            let paused_overlap = match self.pause {
                Some((a, b)) => now.min(b).saturating_since(self.last.max(a)).0,
                None => 0,
            };
            let from = elapsed - paused_overlap.min(elapsed);
            self.credit = (self.credit + rate as u128 * from as u128).min(self.cap);
        }
        self.last = now;
        if paused {
            let resume = self.pause.map(|(_, b)| b);
            return (0, if conn.readable() > 0 { resume } else { None });
        }
        let avail = conn.readable();
        let allowed = match self.rate_bps {
            None => avail,
            Some(_) => ((self.credit / 8_000_000_000) as u64).min(avail),
        };
        let n = if allowed > 0 { conn.read(allowed) } else { 0 };
        if self.rate_bps.is_some() {
            self.credit -= n as u128 * 8_000_000_000;
        }
        let left = conn.readable();
        let next = match (left, self.rate_bps) {
            (0, _) => None,
            (_, None) => Some(now),
            (left, Some(rate)) => {
                let want = left.min(READ_CHUNK) as u128 * 8_000_000_000;
                let missing = want.saturating_sub(self.credit);
                Some(now + Duration((missing.div_ceil(rate as u128)) as u64).max(Duration(1)))
            }
        };
        (n, next)
    }

    /// When a paused reader resumes, if it is paused now.
    pub fn resume_time(&self, now: Time) -> Option<Time> {
        self.pause.filter(|_| self.paused(now)).map(|(_, b)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_credit_is_capped_and_pause_stops_accrual() {
        let r = Reader::new(Some(8_000), Some((Time::from_secs_f64(1.0), Time::from_secs_f64(3.0))), 1000, Time::ZERO);
        assert!(r.resume_time(Time::from_secs_f64(2.0)) == Some(Time::from_secs_f64(3.0)));
        assert!(r.resume_time(Time::from_secs_f64(0.5)).is_none());
        assert_eq!(r.cap, 1000u128 * 8 * 1_000_000_000);
    }
}
