//! The power states of a wireless NIC.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A power state of the radio.
///
/// `Off` and `Sleep` are *dormant* (the radio can neither send nor receive); `Idle`,
/// `IdleHigh`, `Rx` and `Tx` are *awake*. `Idle` is the idle/listen/sense state: powered and
/// ready, no frame on air. `IdleHigh` is the same in a driver's high-throughput mode (phone
/// drivers' and EnergyBox's "CAMH"), which draws more; profiles without one give it `Idle`'s
/// power.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RadioState {
    /// No power to the card (e.g. PCMCIA socket powered off).
    Off,
    /// The card's low-power sleep/doze mode.
    Sleep,
    /// Awake, listening, no frame being sent or received.
    Idle,
    /// Awake and idle in a high-throughput driver mode ("CAMH").
    IdleHigh,
    /// Receiving a frame.
    Rx,
    /// Transmitting a frame.
    Tx,
}

impl RadioState {
    /// All states, in index order (see [`RadioState::index`]).
    pub const ALL: [RadioState; 6] = [
        RadioState::Off,
        RadioState::Sleep,
        RadioState::Idle,
        RadioState::IdleHigh,
        RadioState::Rx,
        RadioState::Tx,
    ];

    /// Number of states.
    pub const COUNT: usize = 6;

    /// Stable lower-case name: "off", "sleep", "idle", "idle_high", "rx" or "tx".
    pub const fn as_str(self) -> &'static str {
        match self {
            RadioState::Off => "off",
            RadioState::Sleep => "sleep",
            RadioState::Idle => "idle",
            RadioState::IdleHigh => "idle_high",
            RadioState::Rx => "rx",
            RadioState::Tx => "tx",
        }
    }

    /// Position in [`RadioState::ALL`], for per-state arrays.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// True for `Off` and `Sleep`: the radio can neither send nor receive.
    pub const fn is_dormant(self) -> bool {
        matches!(self, RadioState::Off | RadioState::Sleep)
    }

    /// True for `Idle`, `IdleHigh`, `Rx` and `Tx`.
    pub const fn is_awake(self) -> bool {
        !self.is_dormant()
    }
}

impl fmt::Display for RadioState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for a string that names no radio state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseRadioStateError(pub String);

impl fmt::Display for ParseRadioStateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown radio state `{}` (expected one of: off, sleep, idle, idle_high, rx, tx)",
            self.0
        )
    }
}

impl std::error::Error for ParseRadioStateError {}

impl FromStr for RadioState {
    type Err = ParseRadioStateError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RadioState::ALL
            .into_iter()
            .find(|st| st.as_str() == s)
            .ok_or_else(|| ParseRadioStateError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for st in RadioState::ALL {
            assert_eq!(st.as_str().parse::<RadioState>(), Ok(st));
            assert_eq!(RadioState::ALL[st.index()], st);
        }
        assert!("listen".parse::<RadioState>().is_err());
        assert!(RadioState::Sleep.is_dormant() && RadioState::Rx.is_awake());
    }
}
