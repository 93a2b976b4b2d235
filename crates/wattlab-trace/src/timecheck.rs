//! Timestamp checks: before a capture's packets are costed, its clock must be one a radio
//! could have lived by. Three problems are looked for, on the packets the analyzer costs:
//!
//! - **out of order**: a packet earlier than the latest one seen by more than
//!   [`TimeLimits::reorder`] (10 ms by default). Smaller steps back are what captures of
//!   several interfaces or CPUs have; the analyzer puts those packets back in order
//!   (counted as `reordered`). A larger step is a clock that jumped (a bad timestamp, or
//!   pcapng sections whose clocks disagree), and costing it would charge the jump;
//! - **long gaps**: a packet later than the latest one by more than [`TimeLimits::max_gap`]
//!   (1 day by default), e.g. one record 10 years late;
//! - **sub-second field out of range**: a pcap record with ≥ 10⁶ µs or ≥ 10⁹ ns
//!   ([`crate::TracePacket::odd_fraction`]).
//!
//! Unless [`TimeLimits::accept`] is set, the analyzer refuses such a capture, naming the first
//! problem's packet and byte offset and counting all of them; with it, the result carries the
//! counts and warnings ([`TimeReport::warnings`]).

use wattlab_core::Duration;

use crate::TracePacket;

/// What the analyzer tolerates in a capture's timestamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLimits {
    /// How far a packet may be earlier than the latest one and still be put back in order
    /// (default 10 ms; at most [`MAX_REORDER`]).
    pub reorder: Duration,
    /// The longest gap between a packet and the latest before it (default 1 day).
    pub max_gap: Duration,
    /// Cost a capture with problems anyway; the result carries the warnings.
    pub accept: bool,
}

/// The default reordering tolerance (10 ms).
pub const DEFAULT_REORDER: Duration = Duration(10_000_000);
/// The largest reordering tolerance accepted (10 s: the analyzer holds that much traffic).
pub const MAX_REORDER: Duration = Duration(10_000_000_000);
/// The default longest gap (1 day).
pub const DEFAULT_MAX_GAP: Duration = Duration(86_400_000_000_000);

impl Default for TimeLimits {
    fn default() -> Self {
        TimeLimits { reorder: DEFAULT_REORDER, max_gap: DEFAULT_MAX_GAP, accept: false }
    }
}

impl TimeLimits {
    /// Checks the limits: a tolerance of at most [`MAX_REORDER`], a gap bound above it.
    pub fn check(&self) -> Result<(), String> {
        if self.reorder > MAX_REORDER {
            return Err(format!("reordering tolerance {} is out of range (0 to {})", span(self.reorder.as_nanos()), span(MAX_REORDER.as_nanos())));
        }
        if self.max_gap <= self.reorder || self.max_gap < Duration::from_secs(1) {
            return Err(format!("maximum gap {} must be at least 1 s", span(self.max_gap.as_nanos())));
        }
        Ok(())
    }
}

/// The kinds of timestamp problems.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeIssueKind {
    /// Earlier than the latest packet by more than the tolerance.
    Backward,
    /// Later than the latest packet by more than the maximum gap.
    Gap,
    /// A sub-second field out of range.
    Fraction,
}

/// Where a problem was first seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstIssue {
    /// The packet's record index.
    pub index: u64,
    /// Its record's byte offset.
    pub offset: u64,
    /// Its timestamp, ns since the epoch.
    pub ts_ns: u64,
    /// The latest timestamp before it, ns since the epoch.
    pub latest_ns: u64,
}

/// How often one kind of problem occurred.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeIssue {
    /// Packets with the problem.
    pub count: u64,
    /// The first of them.
    pub first: Option<FirstIssue>,
    /// The largest step back or gap, ns (0 for sub-second fields).
    pub worst_ns: u64,
}

impl TimeIssue {
    fn add(&mut self, p: &TracePacket, latest_ns: u64, size_ns: u64) {
        self.count += 1;
        self.worst_ns = self.worst_ns.max(size_ns);
        self.first.get_or_insert(FirstIssue { index: p.index, offset: p.offset, ts_ns: p.ts_ns, latest_ns });
    }
}

/// What the checks found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeReport {
    /// Packets checked.
    pub checked: u64,
    /// Packets earlier than the latest by no more than the tolerance (put back in order).
    pub reordered: u64,
    /// The largest of those steps back, ns.
    pub reordered_worst_ns: u64,
    /// Packets earlier than the latest by more than the tolerance.
    pub backward: TimeIssue,
    /// Packets later than the latest by more than the maximum gap.
    pub gaps: TimeIssue,
    /// Packets whose sub-second field is out of range.
    pub fractions: TimeIssue,
}

impl TimeReport {
    /// True if no problem was found (reordering within the tolerance is no problem).
    pub fn is_clean(&self) -> bool {
        self.problems() == 0
    }

    /// Packets with a problem (a packet can have two: a bad fraction and a step).
    pub fn problems(&self) -> u64 {
        self.backward.count + self.gaps.count + self.fractions.count
    }

    /// The problem seen first, by record index.
    pub fn first(&self) -> Option<(TimeIssueKind, FirstIssue)> {
        [
            (TimeIssueKind::Fraction, self.fractions.first),
            (TimeIssueKind::Backward, self.backward.first),
            (TimeIssueKind::Gap, self.gaps.first),
        ]
        .into_iter()
        .filter_map(|(k, f)| f.map(|f| (k, f)))
        .min_by_key(|(_, f)| f.index)
    }

    /// One line per kind of problem found, each with its count, its first packet (index and
    /// byte offset) and its worst case.
    pub fn warnings(&self, limits: &TimeLimits) -> Vec<String> {
        let mut v = Vec::new();
        let at = |f: &Option<FirstIssue>| {
            f.map_or(String::new(), |f| format!(" (first: packet {} at byte offset {})", f.index, f.offset))
        };
        if self.backward.count > 0 {
            v.push(format!(
                "{} earlier than an earlier packet by more than {} (largest step back {}){}: the capture's clock goes backwards",
                count(self.backward.count, "packet", "packets"),
                span(limits.reorder.as_nanos()),
                span(self.backward.worst_ns),
                at(&self.backward.first)
            ));
        }
        if self.gaps.count > 0 {
            v.push(format!(
                "{} longer than {} (longest {}){}",
                count(self.gaps.count, "gap", "gaps"),
                span(limits.max_gap.as_nanos()),
                span(self.gaps.worst_ns),
                at(&self.gaps.first)
            ));
        }
        if self.fractions.count > 0 {
            v.push(format!(
                "{} with a sub-second field out of range (pcap: ≥ 10⁶ µs or ≥ 10⁹ ns){}",
                count(self.fractions.count, "record", "records"),
                at(&self.fractions.first)
            ));
        }
        v
    }

    /// What the first problem is, for an error message (`None` if clean).
    pub fn describe_first(&self, limits: &TimeLimits) -> Option<String> {
        let (kind, f) = self.first()?;
        Some(match kind {
            TimeIssueKind::Fraction => format!(
                "packet {} at byte offset {}: its sub-second field is out of range (pcap: ≥ 10⁶ µs or ≥ 10⁹ ns)",
                f.index, f.offset
            ),
            TimeIssueKind::Backward => format!(
                "packet {} at byte offset {}: time goes backwards by {} (from {} to {}), more than the {} tolerated",
                f.index,
                f.offset,
                span(f.latest_ns - f.ts_ns),
                utc(f.latest_ns),
                utc(f.ts_ns),
                span(limits.reorder.as_nanos())
            ),
            TimeIssueKind::Gap => format!(
                "packet {} at byte offset {}: a gap of {} (from {} to {}), more than the {} allowed",
                f.index,
                f.offset,
                span(f.ts_ns - f.latest_ns),
                utc(f.latest_ns),
                utc(f.ts_ns),
                span(limits.max_gap.as_nanos())
            ),
        })
    }
}

/// Checks packets' timestamps in capture order.
#[derive(Clone, Debug)]
pub struct TimeCheck {
    limits: TimeLimits,
    latest: Option<u64>,
    report: TimeReport,
}

impl TimeCheck {
    /// A check with `limits`.
    pub fn new(limits: TimeLimits) -> TimeCheck {
        TimeCheck { limits, latest: None, report: TimeReport::default() }
    }

    /// Checks the next packet; returns the first problem it has, if any.
    pub fn observe(&mut self, p: &TracePacket) -> Option<TimeIssueKind> {
        self.report.checked += 1;
        let mut found = None;
        if p.odd_fraction {
            self.report.fractions.add(p, self.latest.unwrap_or(p.ts_ns), 0);
            found = Some(TimeIssueKind::Fraction);
        }
        let Some(latest) = self.latest else {
            self.latest = Some(p.ts_ns);
            return found;
        };
        if p.ts_ns < latest {
            let back = latest - p.ts_ns;
            if back > self.limits.reorder.as_nanos() {
                self.report.backward.add(p, latest, back);
                found = found.or(Some(TimeIssueKind::Backward));
            } else {
                self.report.reordered += 1;
                self.report.reordered_worst_ns = self.report.reordered_worst_ns.max(back);
            }
        } else {
            let gap = p.ts_ns - latest;
            if gap > self.limits.max_gap.as_nanos() {
                self.report.gaps.add(p, latest, gap);
                found = found.or(Some(TimeIssueKind::Gap));
            }
            self.latest = Some(p.ts_ns);
        }
        found
    }

    /// The latest timestamp seen, ns since the epoch (0 before the first packet).
    pub fn latest_ns(&self) -> u64 {
        self.latest.unwrap_or(0)
    }

    /// What was found so far.
    pub fn report(&self) -> &TimeReport {
        &self.report
    }

    /// The limits checked against.
    pub fn limits(&self) -> &TimeLimits {
        &self.limits
    }
}

/// `n` and the noun, singular or plural.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A span in the unit that reads best: ns, µs, ms, s, days or years.
pub fn span(ns: u64) -> String {
    const DAY: f64 = 86_400e9;
    let x = ns as f64;
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{:.3} µs", x / 1e3)
    } else if ns < 1_000_000_000 {
        format!("{:.3} ms", x / 1e6)
    } else if x < DAY {
        format!("{:.3} s", x / 1e9)
    } else if x < 365.0 * DAY {
        format!("{:.2} days", x / DAY)
    } else {
        format!("{:.2} years", x / (365.25 * DAY))
    }
}

/// An instant in ns since the Unix epoch as a UTC date and time (to the ns).
pub fn utc(ns: u64) -> String {
    let secs = ns / 1_000_000_000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days, for days since 1970-01-01 (non-negative here).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:09} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ns % 1_000_000_000
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Transport;
    use std::net::{IpAddr, Ipv4Addr};

    fn pkt(index: u64, ts_ns: u64, odd: bool) -> TracePacket {
        let a = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
        TracePacket {
            index,
            offset: 24 + 100 * index,
            ts_ns,
            odd_fraction: odd,
            interface: 0,
            cap_len: 100,
            orig_len: 100,
            ip_version: 4,
            src: a,
            dst: a,
            protocol: 17,
            ip_len: 100,
            ip_len_claimed: None,
            transport: Transport::Other,
        }
    }

    #[test]
    fn dates_and_spans_read_well() {
        assert_eq!(utc(0), "1970-01-01 00:00:00.000000000 UTC");
        assert_eq!(utc(0xFFFF_FFFF * 1_000_000_000), "2106-02-07 06:28:15.000000000 UTC");
        assert_eq!(utc(951_782_400_000_000_001), "2000-02-29 00:00:00.000000001 UTC");
        assert_eq!(span(2_048_000_000_000), "2048.000 s");
        assert_eq!(span(10 * 365 * 86_400_000_000_000), "9.99 years");
        assert_eq!(span(3_500_000), "3.500 ms");
    }

    #[test]
    fn steps_back_gaps_and_fractions_are_counted_with_the_first_packet() {
        let s = 1_000_000_000u64;
        let mut c = TimeCheck::new(TimeLimits::default());
        let times = [(100 * s, false), (100 * s + 5_000_000, false), (100 * s + 1, false), (2148 * s, false), (101 * s, false), (101 * s, true), (200_000 * s, false)];
        let found: Vec<_> = times.iter().enumerate().map(|(i, &(t, odd))| c.observe(&pkt(i as u64, t, odd))).collect();
        use TimeIssueKind::*;
        assert_eq!(found, [None, None, None, None, Some(Backward), Some(Fraction), Some(Gap)]);
        let r = c.report();
        assert_eq!((r.checked, r.reordered, r.reordered_worst_ns), (7, 1, 4_999_999));
        assert_eq!((r.backward.count, r.backward.worst_ns), (2, 2047 * s));
        assert_eq!(r.backward.first.unwrap().index, 4);
        assert_eq!((r.gaps.count, r.fractions.count), (1, 1));
        assert_eq!(r.first().unwrap().0, Backward);
        let w = r.warnings(&TimeLimits::default()).join("\n");
        assert!(w.contains("2 packets earlier than an earlier packet by more than 10.000 ms (largest step back 2047.000 s) (first: packet 4 at byte offset 424)"), "{w}");
        assert!(w.contains("1 gap longer than 1.00 days"), "{w}");
        let d = r.describe_first(&TimeLimits::default()).unwrap();
        assert!(d.starts_with("packet 4 at byte offset 424: time goes backwards by 2047.000 s"), "{d}");
        assert!(TimeLimits { max_gap: Duration::ZERO, ..TimeLimits::default() }.check().is_err());
        assert!(TimeLimits { reorder: Duration::from_secs(11), ..TimeLimits::default() }.check().is_err());
    }
}
