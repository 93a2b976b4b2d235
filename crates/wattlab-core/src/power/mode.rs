//! The names of accounting policies, and what every power-mode name shares.
//!
//! A **power mode** ([`PowerMode`], the registry in `crate::power::modes`) is how a station's
//! radio sleeps and wakes in a run: it may delay or drop packets, so it lives in the
//! simulation (`power_save = "..."`). An **accounting policy** ([`PolicyName`]) costs a run's
//! or a capture's traffic as it is, so one run is costed under all of them at once. "psm"
//! names both: the 802.11 power-save mode that holds frames at the AP, and the accounting
//! policy that costs dozing between the packets of unchanged traffic; which one a name means
//! is given by where it is written, and a radio row says which it is ([`Basis`]).

use super::modes::PowerMode;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

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
    /// 802.11ax TWT over traffic placed in its service periods (the trace analyzer moves a
    /// capture's downlink packets there first). Not in [`PolicyName::ALL`], the policies that
    /// take defaults: an agreement has none, and its name carries it (`twt:interval=...`).
    Twt,
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
            PolicyName::Twt => "twt",
        }
    }

    /// Accounting policies never change the traffic: their rows are [`Basis::Accounting`];
    /// `twt` costs traffic moved into its service periods ([`Basis::Mode`]).
    pub const fn basis(self) -> Basis {
        match self {
            PolicyName::Twt => Basis::Mode,
            _ => Basis::Accounting,
        }
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
