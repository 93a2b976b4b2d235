//! The registry of power-mode and accounting-policy names.
//!
//! A **power mode** ([`PowerMode`]) is how a station's radio sleeps and wakes in a run: it may
//! delay or drop packets, so it lives in the simulation (`power_save = "..."`). An
//! **accounting policy** ([`PolicyName`]) costs a run's or a capture's traffic as it is, so
//! one run is costed under all of them at once. "psm" names both: the 802.11 power-save mode
//! that holds frames at the AP, and the accounting policy that costs dozing between the
//! packets of unchanged traffic; which one a name means is given by where it is written, and
//! a radio row says which it is ([`Basis`]).
//!
//! Names round-trip: `name.parse::<PowerMode>()?.to_string() == name` for every accepted
//! name, and only canonical spellings are accepted (`bsd-50`, never `bsd-050` or `bsd-+50`).

use serde::Serialize;
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

/// The values P of `bsd-P` (percent of slowdown tolerated).
pub const BSD_PERCENT: RangeInclusive<u32> = 1..=1000;

/// Who commands an [`PowerMode::External`] station's sleep and wake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Driver {
    /// Whoever hosts the station (a test, the live testbed): named `external`.
    Host,
    /// Seed 000's client-centered agent: named `cc` in scenarios and reports.
    Cc,
    /// Seed 001's PSNA mobile, which switches the card off for the residual time: `psna`.
    Psna,
}

/// A station's power mode: how its radio sleeps and wakes during a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PowerMode {
    /// Continuously active mode: always awake, the traffic is untouched.
    Cam,
    /// 802.11 power-save mode: doze, wake for beacons, fetch held frames.
    Psm,
    /// Seed 000's idealised PSM: held frames released at beacon instants, free wake-ups.
    IdealPsm,
    /// Bounded Slowdown (Krashinsky & Balakrishnan 2002) with P = `percent`.
    Bsd {
        /// P: the tolerated slowdown in percent of the idle time ([`BSD_PERCENT`]).
        percent: u32,
    },
    /// 802.11e U-APSD: uplink frames trigger the release of held downlink frames.
    Uapsd,
    /// Awake or asleep as a driver commands (an agent, a proxy).
    External(Driver),
}

/// A parameter carried in a mode's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModeParam {
    /// Parameter name (`percent`).
    pub name: &'static str,
    /// Letter standing for it in the pattern (`P`).
    pub letter: char,
    /// Smallest value accepted.
    pub min: u32,
    /// Largest value accepted.
    pub max: u32,
    /// What it means.
    pub doc: &'static str,
}

const BSD_PARAMS: &[ModeParam] = &[ModeParam {
    name: "percent",
    letter: 'P',
    min: *BSD_PERCENT.start(),
    max: *BSD_PERCENT.end(),
    doc: "tolerated slowdown, in percent of the idle time",
}];

impl PowerMode {
    /// One mode of each kind, in the order help texts list them (`bsd-P` as `bsd-50`).
    pub const KINDS: [PowerMode; 8] = [
        PowerMode::Cam,
        PowerMode::Psm,
        PowerMode::IdealPsm,
        PowerMode::Bsd { percent: 50 },
        PowerMode::Uapsd,
        PowerMode::External(Driver::Cc),
        PowerMode::External(Driver::Psna),
        PowerMode::External(Driver::Host),
    ];

    /// The name without its parameters: `bsd` for `bsd-P`, the whole name otherwise.
    pub const fn family(self) -> &'static str {
        match self {
            PowerMode::Cam => "cam",
            PowerMode::Psm => "psm",
            PowerMode::IdealPsm => "ideal-psm",
            PowerMode::Bsd { .. } => "bsd",
            PowerMode::Uapsd => "u-apsd",
            PowerMode::External(Driver::Cc) => "cc",
            PowerMode::External(Driver::Psna) => "psna",
            PowerMode::External(Driver::Host) => "external",
        }
    }

    /// The names of this kind as help texts write them (`bsd-P`, `cam`).
    pub const fn pattern(self) -> &'static str {
        match self {
            PowerMode::Bsd { .. } => "bsd-P",
            other => other.family(),
        }
    }

    /// A regular expression matching exactly the accepted names of this kind.
    pub const fn regex(self) -> &'static str {
        match self {
            PowerMode::Bsd { .. } => "bsd-(1000|[1-9][0-9]{0,2})",
            other => other.family(),
        }
    }

    /// The parameters carried in the name (`P` of `bsd-P`).
    pub const fn params(self) -> &'static [ModeParam] {
        match self {
            PowerMode::Bsd { .. } => BSD_PARAMS,
            _ => &[],
        }
    }

    /// The parameters' values, in the order of [`PowerMode::params`].
    pub fn param_values(self) -> Vec<u32> {
        match self {
            PowerMode::Bsd { percent } => vec![percent],
            _ => Vec::new(),
        }
    }

    /// True if the mode may delay or drop packets (every mode but `cam`).
    pub const fn changes_traffic(self) -> bool {
        !matches!(self, PowerMode::Cam)
    }

    /// How a radio row metered in this mode is labelled: a mode that leaves the traffic as it
    /// is costs what an accounting policy would.
    pub const fn basis(self) -> Basis {
        if self.changes_traffic() {
            Basis::Mode
        } else {
            Basis::Accounting
        }
    }

    /// One line on what the mode does.
    pub const fn doc(self) -> &'static str {
        match self {
            PowerMode::Cam => "continuously active: always awake, traffic untouched",
            PowerMode::Psm => "802.11 power-save mode: dozes, wakes for beacons, fetches held frames",
            PowerMode::IdealPsm => "seed 000's idealised PSM: held frames released at beacons, free wake-ups",
            PowerMode::Bsd { .. } => "Bounded Slowdown: stays awake a while after traffic, then sleeps up to P % of the idle time",
            PowerMode::Uapsd => "802.11e U-APSD: uplink frames trigger the release of held frames",
            PowerMode::External(Driver::Cc) => "external, driven by seed 000's client-centered agent",
            PowerMode::External(Driver::Psna) => "external, driven by seed 001's PSNA mobile: radio off (no power) for the residual time",
            PowerMode::External(Driver::Host) => "external: sleeps and wakes as its host commands",
        }
    }

    /// The valid names, for error messages and help texts.
    pub fn help() -> String {
        let mut s = String::new();
        for (i, m) in PowerMode::KINDS.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(m.pattern());
            for p in m.params() {
                s.push_str(&format!(" ({} = {}..={})", p.letter, p.min, p.max));
            }
        }
        s
    }
}

impl fmt::Display for PowerMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PowerMode::Bsd { percent } => write!(f, "bsd-{percent}"),
            other => f.write_str(other.family()),
        }
    }
}

/// Canonical decimal digits of a number in `range`: no sign, no leading zero, no blank.
fn canonical_number(s: &str, range: RangeInclusive<u32>) -> Option<u32> {
    if s.is_empty() || s.len() > 10 || s.starts_with('0') || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|n| range.contains(n))
}

impl FromStr for PowerMode {
    type Err = ParseNameError;

    /// A mode by its canonical name (see [`PowerMode::help`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || ParseNameError::Mode(s.to_string());
        if let Some(digits) = s.strip_prefix("bsd-") {
            return canonical_number(digits, BSD_PERCENT).map(|percent| PowerMode::Bsd { percent }).ok_or_else(unknown);
        }
        PowerMode::KINDS.into_iter().find(|m| m.params().is_empty() && m.family() == s).ok_or_else(unknown)
    }
}

/// The name of an accounting policy (its parameters, if any, are set elsewhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyName {
    /// Always awake between activities.
    AlwaysOn,
    /// Knows the future: sleeps through every gap longer than the break-even time.
    Oracle,
    /// Hashimoto 2013's ideal sleep: sleeps through every gap that can hold the transitions.
    IdealSleep,
    /// Static 802.11 PSM over unchanged traffic.
    Psm,
    /// Adaptive PSM over unchanged traffic.
    AdaptivePsm,
}

impl PolicyName {
    /// Every accounting policy, in the order help texts list them.
    pub const ALL: [PolicyName; 5] =
        [PolicyName::AlwaysOn, PolicyName::Oracle, PolicyName::IdealSleep, PolicyName::Psm, PolicyName::AdaptivePsm];

    /// The name (`always-on`, `oracle`, `ideal-sleep`, `psm`, `adaptive-psm`).
    pub const fn as_str(self) -> &'static str {
        match self {
            PolicyName::AlwaysOn => "always-on",
            PolicyName::Oracle => "oracle",
            PolicyName::IdealSleep => "ideal-sleep",
            PolicyName::Psm => "psm",
            PolicyName::AdaptivePsm => "adaptive-psm",
        }
    }

    /// Accounting policies never change the traffic: their rows are [`Basis::Accounting`].
    pub const fn basis(self) -> Basis {
        Basis::Accounting
    }

    /// The valid names, for error messages and help texts.
    pub fn help() -> String {
        PolicyName::ALL.map(PolicyName::as_str).join(", ")
    }
}

impl fmt::Display for PolicyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PolicyName {
    type Err = ParseNameError;

    /// An accounting policy by name.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PolicyName::ALL.into_iter().find(|p| p.as_str() == s).ok_or_else(|| ParseNameError::Policy(s.to_string()))
    }
}

/// What a radio row costs: a run's traffic under an accounting policy, or the radio as the
/// run's power mode drove it (the traffic may differ from a run without it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// An accounting policy over the traffic as it is.
    Accounting,
    /// A power mode that may have changed the traffic.
    Mode,
}

impl Basis {
    /// Both bases.
    pub const ALL: [Basis; 2] = [Basis::Accounting, Basis::Mode];

    /// `accounting` or `mode`, as in summaries.
    pub const fn as_str(self) -> &'static str {
        match self {
            Basis::Accounting => "accounting",
            Basis::Mode => "mode",
        }
    }
}

/// A name the registry does not know; the message lists the valid ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseNameError {
    /// Not a power mode.
    Mode(String),
    /// Not an accounting policy.
    Policy(String),
}

impl fmt::Display for ParseNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseNameError::Mode(s) => write!(f, "unknown power-save mode `{s}` (known: {})", PowerMode::help()),
            ParseNameError::Policy(s) => write!(f, "unknown accounting policy `{s}` (known: {})", PolicyName::help()),
        }
    }
}

impl std::error::Error for ParseNameError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A regular expression of [`PowerMode::regex`]'s small dialect (literals, one group of
    /// alternatives, `[a-b]` classes with `{m,n}`), matched the slow way, so the pattern sent
    /// to Python is checked against the parser here.
    fn regex_matches(re: &str, s: &str) -> bool {
        let Some(open) = re.find('(') else { return re == s };
        let (prefix, rest) = (&re[..open], &re[open + 1..re.len() - 1]);
        let Some(tail) = s.strip_prefix(prefix) else { return false };
        rest.split('|').any(|alt| match alt.split_once('[') {
            None => alt == tail,
            Some((lit, _)) => {
                // `[1-9][0-9]{0,2}`: one non-zero digit then up to two digits.
                let Some(body) = tail.strip_prefix(lit) else { return false };
                let b = body.as_bytes();
                !b.is_empty() && b.len() <= 3 && (b'1'..=b'9').contains(&b[0]) && b[1..].iter().all(u8::is_ascii_digit)
            }
        })
    }

    fn every_mode() -> impl Iterator<Item = PowerMode> {
        PowerMode::KINDS
            .into_iter()
            .filter(|m| !matches!(m, PowerMode::Bsd { .. }))
            .chain(BSD_PERCENT.map(|percent| PowerMode::Bsd { percent }))
    }

    #[test]
    fn every_mode_name_round_trips() {
        let mut n = 0;
        for m in every_mode() {
            let name = m.to_string();
            assert_eq!(name.parse::<PowerMode>(), Ok(m), "{name}");
            assert!(regex_matches(m.regex(), &name), "{name} vs {}", m.regex());
            n += 1;
        }
        assert_eq!(n, 7 + 1000);
    }

    #[test]
    fn non_canonical_and_unknown_names_are_refused_with_the_list() {
        for bad in [
            "", "CAM", "Psm", "bsd", "bsd-", "bsd-0", "bsd-050", "bsd-+5", "bsd- 5", "bsd-1001", "bsd-99999999999",
            "bsd-5x", "uapsd", "u_apsd", " cam", "cam ", "always-on", "oracle", "adaptive-psm", "bsd-P",
        ] {
            let e = bad.parse::<PowerMode>().unwrap_err();
            assert_eq!(e, ParseNameError::Mode(bad.to_string()));
            for kind in PowerMode::KINDS {
                assert!(e.to_string().contains(kind.pattern()), "{e}");
                assert!(!regex_matches(kind.regex(), bad), "{bad} matches {}", kind.regex());
            }
        }
        assert_eq!(
            "x".parse::<PowerMode>().unwrap_err().to_string(),
            "unknown power-save mode `x` (known: cam, psm, ideal-psm, bsd-P (P = 1..=1000), u-apsd, cc, psna, external)"
        );
    }

    #[test]
    fn kinds_say_whether_they_change_the_traffic_and_their_parameters() {
        for m in every_mode() {
            assert_eq!(m.changes_traffic(), m != PowerMode::Cam);
            assert_eq!(m.basis() == Basis::Mode, m.changes_traffic());
            assert_eq!(m.params().len(), m.param_values().len());
            for (p, v) in m.params().iter().zip(m.param_values()) {
                assert!((p.min..=p.max).contains(&v));
            }
        }
    }

    #[test]
    fn policy_names_round_trip_and_are_accounting() {
        for p in PolicyName::ALL {
            assert_eq!(p.as_str().parse::<PolicyName>(), Ok(p));
            assert_eq!(p.basis(), Basis::Accounting);
        }
        for bad in ["", "cam", "cc", "bsd-50", "Oracle", "always_on"] {
            let e = bad.parse::<PolicyName>().unwrap_err().to_string();
            assert!(e.contains("always-on, oracle, ideal-sleep, psm, adaptive-psm"), "{e}");
        }
        // "psm" is both; the two parsers are what tell them apart.
        assert_eq!("psm".parse::<PolicyName>(), Ok(PolicyName::Psm));
        assert_eq!("psm".parse::<PowerMode>(), Ok(PowerMode::Psm));
    }
}
