//! The range checker every part of the schema checks its numbers with (ns-3's attribute
//! checkers: each struct checks its own fields beside their declarations, `flow::*` for the
//! flows, `ranges` for the rest): a value out of range is an error naming the file, line,
//! column and key, and the first one found is reported.

use super::error::ScenarioError;
use super::units::Dur;

/// 1 ms in ns.
pub(crate) const MS: u64 = 1_000_000;
/// 1 s in ns.
pub(crate) const S: u64 = 1_000_000_000;

/// Collects the first range error, located by key path in the scenario's text.
pub(crate) struct Check<'a> {
    origin: &'a str,
    source: &'a str,
    first: Option<ScenarioError>,
}

impl<'a> Check<'a> {
    /// A check of the scenario `source`, named `origin` in errors.
    pub(crate) fn new(origin: &'a str, source: &'a str) -> Self {
        Check { origin, source, first: None }
    }

    /// The first error recorded, if any.
    pub(crate) fn finish(self) -> Result<(), ScenarioError> {
        self.first.map_or(Ok(()), Err)
    }

    /// Records an error at dotted key `key`, unless one is recorded already.
    pub(crate) fn fail(&mut self, key: &str, msg: String) {
        if self.first.is_none() {
            self.first = Some(ScenarioError::at_key(self.origin, self.source, key, msg));
        }
    }

    /// A duration in [min, max] ns; `what` names the range in the message.
    pub(crate) fn dur(&mut self, key: &str, d: Option<Dur>, min: u64, max: u64) {
        if let Some(Dur(v)) = d {
            if v < min || v > max {
                self.fail(
                    key,
                    format!(
                        "{} is out of range: must be {}",
                        fmt_ns(v),
                        range_ns(min, max)
                    ),
                );
            }
        }
    }

    /// A count or size in [min, max].
    pub(crate) fn num(&mut self, key: &str, v: Option<u64>, min: u64, max: u64, unit: &str) {
        if let Some(v) = v {
            if v < min || v > max {
                self.fail(
                    key,
                    format!("{v}{unit} is out of range: must be {min}..={max}{unit}"),
                );
            }
        }
    }

    /// A real number in [min, max] (finite).
    pub(crate) fn real(&mut self, key: &str, v: Option<f64>, min: f64, max: f64) {
        if let Some(v) = v {
            if !(v.is_finite() && v >= min && v <= max) {
                self.fail(
                    key,
                    format!("{v} is out of range: must be in [{min}, {max}]"),
                );
            }
        }
    }
}

/// `"1.5ms"`, `"100us"`, `"60s"`, `"0s"`: a duration for messages, in the largest unit that
/// keeps it at least 1, written as a scenario would.
pub fn fmt_ns(ns: u64) -> String {
    let (v, unit) = match ns {
        0 => return "\"0s\"".into(),
        n if n >= S => (n as f64 / S as f64, "s"),
        n if n >= MS => (n as f64 / MS as f64, "ms"),
        n if n >= 1_000 => (n as f64 / 1e3, "us"),
        n => (n as f64, "ns"),
    };
    format!("\"{}{unit}\"", (v * 1e6).round() / 1e6)
}

fn range_ns(min: u64, max: u64) -> String {
    if min == 0 {
        format!("at most {}", fmt_ns(max))
    } else if min == 1 {
        format!("positive and at most {}", fmt_ns(max))
    } else {
        format!("{}..={}", fmt_ns(min), fmt_ns(max))
    }
}
