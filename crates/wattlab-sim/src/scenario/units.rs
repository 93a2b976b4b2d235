//! Quantities with units, as written in scenario files: rates, sizes, durations.
//!
//! Rates and durations need a unit (`"20Mbps"`, `"60ms"`): a bare number is refused with a
//! message asking for one, since `delay = 10` could mean seconds or milliseconds. Sizes take a
//! unit (`"5MB"`) or a bare number of bytes. In rates, `b` is bits and `B` bytes (`"20MB/s"` is
//! 160 Mb/s). Negative, non-finite and unknown-unit values are rejected while deserializing, so
//! the TOML error carries the offending line and key.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;
use wattlab_core::Duration;

/// Split `"20 Mbps"` into (20.0, "Mbps") (the unit as written).
fn split_number(s: &str) -> Result<(f64, String), String> {
    let s = s.trim();
    let idx = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+' || *c == 'e' || *c == 'E'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(idx);
    let value: f64 = num.parse().map_err(|_| format!("`{s}` does not start with a number"))?;
    Ok((value, unit.trim().to_string()))
}

fn check_finite_nonneg(v: f64, what: &str, raw: &str) -> Result<f64, String> {
    if !v.is_finite() {
        return Err(format!("{what} `{raw}` is not a finite number"));
    }
    if v < 0.0 {
        return Err(format!("{what} `{raw}` is negative"));
    }
    Ok(v)
}

/// Largest rate any key accepts: 1 Tbit/s, in bits per second.
pub const MAX_RATE_BPS: u64 = 1_000_000_000_000;
/// Largest size any key accepts: 1 PB (10^15 bytes).
pub const MAX_SIZE_BYTES: u64 = 1_000_000_000_000_000;
/// Largest duration any key accepts: 365 days, in nanoseconds.
pub const MAX_DURATION_NS: u64 = 365 * 86_400 * 1_000_000_000;

/// `v` rounded to an integer if it is at most `max`, else an error naming the limit: a value
/// beyond the range is refused, never clamped.
fn at_most(v: f64, max: u64, what: &str, raw: &str, limit: &str) -> Result<u64, String> {
    if v.round() > max as f64 {
        return Err(format!("{what} `{raw}` is out of range (at most {limit})"));
    }
    Ok(v.round() as u64)
}

/// A bit rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Rate(pub u64);

impl Rate {
    /// Parse `"20Mbps"`, `"20 Mb/s"`, `"1.5Gbit/s"`, `"64kbps"`, `"100bps"` (bits per second)
    /// or `"2.5MB/s"`, `"2.5MBps"` (bytes per second). A bare number is an error.
    pub fn parse(s: &str) -> Result<Rate, String> {
        let (v, unit) = split_number(s)?;
        if unit.is_empty() {
            return Err(format!("rate `{s}` has no unit: write it with one, e.g. \"{s}Mbps\" (bps, kbps, Mbps, Gbps; MB/s for bytes)"));
        }
        // The prefix is case-blind (k/K, m/M, g/G); the b/B after it is not: bits or bytes.
        let (prefix, rest) = match unit.chars().next() {
            Some(c @ ('k' | 'K' | 'm' | 'M' | 'g' | 'G')) => (Some(c.to_ascii_lowercase()), &unit[1..]),
            _ => (None, unit.as_str()),
        };
        let scale = match prefix {
            None => 1.0,
            Some('k') => 1e3,
            Some('m') => 1e6,
            _ => 1e9,
        };
        let per = match rest {
            "bps" | "b/s" | "bit/s" => 1.0,
            "Bps" | "B/s" => 8.0,
            _ => return Err(format!("unknown rate unit `{unit}` in `{s}` (use bps, kbps, Mbps, Gbps for bits per second, or B/s, kB/s, MB/s, GB/s)")),
        };
        Rate::from_bps(check_finite_nonneg(v * scale * per, "rate", s)?, s)
    }

    fn from_bps(bps: f64, raw: &str) -> Result<Rate, String> {
        if bps < 1.0 {
            return Err(format!("rate `{raw}` must be at least 1 bit/s"));
        }
        at_most(bps, MAX_RATE_BPS, "rate", raw, "1 Tbit/s").map(Rate)
    }

    /// Bits per second.
    pub fn bps(self) -> u64 {
        self.0
    }
}

/// A size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Size(pub u64);

impl Size {
    /// Parse `"5MB"` (10^6), `"5MiB"` (2^20), `"64KB"`, `"64KiB"`, `"1500B"` or a number (bytes).
    pub fn parse(s: &str) -> Result<Size, String> {
        let (v, unit) = split_number(s)?;
        let mult = match unit.to_ascii_lowercase().as_str() {
            "" | "b" | "bytes" => 1.0,
            "kb" => 1e3,
            "mb" => 1e6,
            "gb" => 1e9,
            "kib" => 1024.0,
            "mib" => 1024.0 * 1024.0,
            "gib" => 1024.0 * 1024.0 * 1024.0,
            other => return Err(format!("unknown size unit `{other}` in `{s}` (use B, KB, MB, GB, KiB, MiB, GiB)")),
        };
        if unit.ends_with('b') && unit.len() > 1 && !unit.eq_ignore_ascii_case("bytes") && unit != "b" {
            return Err(format!("size `{s}`: `{unit}` reads as bits; sizes are in bytes (B, KB, MB, GB, KiB, MiB, GiB)"));
        }
        let v = check_finite_nonneg(v * mult, "size", s)?;
        at_most(v, MAX_SIZE_BYTES, "size", s, "1 PB = 10^15 bytes").map(Size)
    }

    /// Bytes.
    pub fn bytes(self) -> u64 {
        self.0
    }
}

/// A duration, stored as integer nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Dur(pub u64);

impl Dur {
    /// Parse `"60ms"`, `"1.5s"`, `"100us"`, `"250ns"`, `"2min"`. A bare number is an error.
    pub fn parse(s: &str) -> Result<Dur, String> {
        let (v, unit) = split_number(s)?;
        let mult = match unit.to_ascii_lowercase().as_str() {
            "" => return Err(format!("duration `{s}` has no unit: write it with one, e.g. \"{s}ms\" or \"{s}s\" (ns, us, ms, s, min)")),
            "s" | "sec" => 1e9,
            "ms" => 1e6,
            "us" | "µs" => 1e3,
            "ns" => 1.0,
            "min" => 60e9,
            other => return Err(format!("unknown time unit `{other}` in `{s}` (use ns, us, ms, s or min)")),
        };
        let v = check_finite_nonneg(v * mult, "duration", s)?;
        at_most(v, MAX_DURATION_NS, "duration", s, "365 days").map(Dur)
    }

    /// As a core [`Duration`].
    pub fn get(self) -> Duration {
        Duration(self.0)
    }
}

/// Implements `Deserialize` from a string with units or a bare number.
macro_rules! deserialize_quantity {
    ($ty:ident, $expecting:literal) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$ty, E> {
                        $ty::parse(s).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$ty, E> {
                        $ty::parse(&v.to_string()).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$ty, E> {
                        $ty::parse(&v.to_string()).map_err(E::custom)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$ty, E> {
                        $ty::parse(&v.to_string()).map_err(E::custom)
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

deserialize_quantity!(Rate, "a rate with a unit, such as \"20Mbps\"");
deserialize_quantity!(Size, "a size such as \"5MB\" or a number of bytes");
deserialize_quantity!(Dur, "a duration with a unit, such as \"60ms\"");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(Rate::parse("20Mbps").unwrap().bps(), 20_000_000);
        assert_eq!(Rate::parse("1.5 Gb/s").unwrap().bps(), 1_500_000_000);
        assert_eq!(Rate::parse("11mbit/s").unwrap().bps(), 11_000_000);
        assert_eq!(Rate::parse("64kbps").unwrap().bps(), 64_000);
        // Bytes per second, by the capital B.
        assert_eq!(Rate::parse("20MB/s").unwrap().bps(), 160_000_000);
        assert_eq!(Rate::parse("20MBps").unwrap().bps(), 160_000_000);
        assert_eq!(Rate::parse("40kB/s").unwrap().bps(), 320_000);
        assert_eq!(Size::parse("5MB").unwrap().bytes(), 5_000_000);
        assert_eq!(Size::parse("64KiB").unwrap().bytes(), 65_536);
        assert_eq!(Size::parse("1500").unwrap().bytes(), 1500);
        assert_eq!(Dur::parse("60ms").unwrap().get(), Duration::from_millis(60));
        assert_eq!(Dur::parse("2.5s").unwrap().get(), Duration::from_millis(2500));
        assert_eq!(Dur::parse("1e-3s").unwrap().get(), Duration::from_millis(1));
    }

    #[test]
    fn rejects_bad_values_with_reasons() {
        assert!(Rate::parse("-5Mbps").unwrap_err().contains("negative"));
        assert!(Rate::parse("5Mbytes").unwrap_err().contains("unknown rate unit"));
        assert!(Rate::parse("0bps").unwrap_err().contains("at least"));
        assert!(Size::parse("abc").unwrap_err().contains("number"));
        assert!(Size::parse("5Mb").unwrap_err().contains("bits"));
        assert!(Dur::parse("inf").is_err());
    }

    #[test]
    fn out_of_range_values_are_refused_not_clamped() {
        let e = Size::parse("1e30B").unwrap_err();
        assert!(e.contains("out of range") && e.contains("1 PB"), "{e}");
        let e = Rate::parse("1e30Mbps").unwrap_err();
        assert!(e.contains("out of range") && e.contains("1 Tbit/s"), "{e}");
        let e = Dur::parse("1e30s").unwrap_err();
        assert!(e.contains("out of range") && e.contains("365 days"), "{e}");
        assert_eq!(Size::parse("1e15").unwrap().bytes(), MAX_SIZE_BYTES);
        assert!(Size::parse("1000000000000001").is_err());
        assert_eq!(Rate::parse("1000Gbps").unwrap().bps(), MAX_RATE_BPS);
        assert!(Rate::parse("1001Gbps").is_err());
        assert_eq!(Dur::parse("525600min").unwrap().0, MAX_DURATION_NS);
        assert!(Dur::parse("525601min").is_err());
        // Integers through serde take the same path.
        #[derive(Deserialize, Debug)]
        struct T {
            #[allow(dead_code)]
            bytes: Size,
        }
        let e = toml::from_str::<T>("bytes = 9223372036854775807").unwrap_err().to_string();
        assert!(e.contains("out of range"), "{e}");
    }

    #[test]
    fn a_bare_rate_or_duration_asks_for_a_unit() {
        let e = Dur::parse("10").unwrap_err();
        assert!(e.contains("no unit") && e.contains("\"10ms\""), "{e}");
        let e = Rate::parse("20000000").unwrap_err();
        assert!(e.contains("no unit") && e.contains("Mbps"), "{e}");
        // Through TOML: the key and line are reported by the loader.
        #[derive(Deserialize, Debug)]
        struct T {
            #[allow(dead_code)]
            delay: Dur,
        }
        let e = toml::from_str::<T>("delay = 10").unwrap_err().to_string();
        assert!(e.contains("no unit"), "{e}");
    }
}
