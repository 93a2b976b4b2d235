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
    /// Send a U-APSD trigger (a QoS-Null) unless a frame of the station's is already queued
    /// (also a TWT station's announcement at the start of a service period).
    Trigger,
    /// Send a Null frame with this Power Management bit (adaptive PSM: PM = 1 to doze, PM = 0
    /// to return to active mode) unless a Null of the station's is already queued; the change
    /// takes effect when the AP acknowledges it ([`crate::power::StationPower::handle_uplink_sent`]
    /// with `data = false`).
    PmNull {
        /// The PM bit: true = entering PS mode.
        pm: bool,
    },
    /// Send a TWT Setup request to the AP (the AP answers with its TWT Setup response; the
    /// MAC reports it with [`crate::power::StationPower::handle_twt_accepted`]).
    TwtSetup,
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

/// What the MAC below a station can do: the machine's rules are the same on every MAC, these
/// say how each step happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacCaps {
    /// The AP transmits beacons and keeps the clock: the MAC reports each target beacon
    /// transmission time ([`crate::power::StationPower::handle_tbtt`]), the TIM once the
    /// beacon is out, and ideal-PSM release instants. Without beacons (the hop) the machine
    /// keeps that clock itself, instants at multiples of the interval from t = 0, and wakes
    /// by its own timers: at a wake instant it learns what is held at once (no beacon airtime).
    pub beacons: bool,
    /// Held frames are fetched one PS-Poll at a time (the machine asks for each round of
    /// polls); without, the AP releases everything held as one burst when the station wakes.
    pub ps_poll: bool,
    /// The station tells the AP when it dozes (802.11's PM bit), so the AP holds frames for an
    /// `External` station its driver put to sleep and sleep takes effect once the station is
    /// idle. Without it (seed 000's IP-level emulation) the driver's commands act at once, the
    /// AP keeps sending, and a dozing station loses what reaches it.
    pub pm_bit: bool,
    /// The station can send a frame without payload (a QoS-Null) as a U-APSD trigger; without,
    /// a periodic trigger is idealised: instant, no airtime.
    pub null_frames: bool,
    /// Time from a dozing station deciding to send its own frame until it can (the radio's
    /// sleep → awake latency; a mode with free wake-ups wakes at once). None: it sends at once
    /// and the radio meter carves the wake-up from the sleep before.
    pub wake_latency: Option<crate::Duration>,
}

impl MacCaps {
    /// The `[[wireless]]` hop: one station, no contention, no frames of its own on the air;
    /// an idealised AP end holds frames while the station dozes.
    pub const HOP: MacCaps = MacCaps { beacons: false, ps_poll: false, pm_bit: false, null_frames: false, wake_latency: None };

    /// An 802.11 BSS station whose radio needs `wake_latency` to wake.
    pub const fn bss(wake_latency: crate::Duration) -> MacCaps {
        MacCaps { beacons: true, ps_poll: true, pm_bit: true, null_frames: true, wake_latency: Some(wake_latency) }
    }
}
