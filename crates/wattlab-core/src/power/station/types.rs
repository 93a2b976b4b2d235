//! What goes between a station's power machine and its MAC: the radio's states, a driver's
//! commands, the machine's events, the MAC's view of the station, and the counters.

use crate::Time;
use serde::Serialize;

/// What the radio does between frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerState {
    /// Awake (idle, ready to send or receive).
    Awake,
    /// Dozing (the card's sleep mode).
    Doze,
    /// Switched off (a driver's `off`).
    Off,
}

/// A driver's command to an `external` station.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Wake up (and let the AP send what it held).
    Wake,
    /// Doze.
    Sleep,
    /// Switch the radio off (traffic as when dozing; the radio's `off` power).
    Off,
}

/// What the machine asks of its MAC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StationEvent {
    /// The radio changes state at `at` (a wake-up means ready at `at`).
    Power {
        /// When.
        at: Time,
        /// The new state.
        state: PowerState,
    },
    /// A wake-up started for the station's own frames is over: it may contend.
    Ready,
    /// The AP may send to the station again (a burst, a service period, an active window,
    /// a driver's wake-up): try its queue.
    Release,
    /// The TIM says frames wait: fetch them with PS-Polls.
    PsPoll,
    /// Send a U-APSD trigger (a QoS-Null) unless a frame of the station's is already queued.
    Trigger,
}

/// What the MAC is doing for the station when it calls in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacView {
    /// Frames the AP has queued for the station and not started sending.
    pub queued: u32,
    /// The station cannot doze now: a frame of its own is queued or on the air, a PS-Poll is
    /// due, or a frame to it is on the air.
    pub busy: bool,
}

/// Counters of a station's power saving.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StationStats {
    /// Times the station went to doze.
    pub dozes: u64,
    /// Time spent dozing, ns (up to the last wake-up; see [`StationPower::stats_at`](super::StationPower::stats_at)).
    pub doze_ns: u64,
    /// Frames the AP had to hold because the station was in power-save mode.
    pub packets_held: u64,
    /// Bursts and service periods released.
    pub bursts: u64,
    /// Frames in those bursts.
    pub packets_released: u64,
    /// Frames that reached the station while it dozed and were lost (PM-less `external`).
    pub dropped_asleep: u64,
}
