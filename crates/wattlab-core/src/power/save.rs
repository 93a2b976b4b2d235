//! A station's configured power-save mode ([`PowerSave`]: a registry mode with the settings
//! its name does not carry), what the MAC below it can do ([`MacCaps`]), and the one copy of
//! Bounded Slowdown's rule.

use super::mode::{Driver, PowerMode};
use crate::{Duration, Time};

/// BSD stations wake at least this often while asleep (Krashinsky & Balakrishnan bound the
/// sleep; 0.9 s keeps a wake-up within every second of idle time).
pub const BSD_MAX_SLEEP: Duration = Duration::from_millis(900);

/// A station's power-save mode with its settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerSave {
    /// Continuously active mode: always awake, the AP never holds.
    Cam,
    /// 802.11 PSM: doze, wake for every `listen_interval`-th beacon, retrieve held frames.
    Psm {
        /// Beacons between wake-ups (1 = every beacon).
        listen_interval: u32,
    },
    /// Seed 000's idealised PSM: at release instants (multiples of `interval`) the AP sends
    /// everything it held as one burst; the station is awake then for free.
    IdealPsm {
        /// Time between release instants (seed 000: 100 ms, its beacon interval).
        interval: Duration,
    },
    /// Bounded Slowdown (Krashinsky & Balakrishnan 2002) with bound P = `percent`.
    Bsd {
        /// P, in percent of the idle time (1..=1000).
        percent: u32,
    },
    /// 802.11e U-APSD: uplink frames trigger the release of held frames (a service period).
    Uapsd {
        /// Send a trigger this often when nothing else went uplink (None: never).
        trigger_interval: Option<Duration>,
        /// Frames per service period (0 = all held).
        max_sp: u32,
    },
    /// Awake, asleep or off as a driver commands (the CC agent, a host).
    External(Driver),
}

/// The settings of the power modes that their names do not carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PowerSaveSettings {
    /// `psm`: beacons between wake-ups (1 = every beacon).
    pub listen_interval: u32,
    /// `ideal-psm`: time between release instants.
    pub ideal_psm_interval: Duration,
    /// `u-apsd`: send a trigger this often when nothing else went uplink.
    pub uapsd_trigger_interval: Option<Duration>,
    /// `u-apsd`: frames per service period (0 = all held).
    pub uapsd_max_sp: u32,
}

impl Default for PowerSaveSettings {
    /// The scenario defaults: every beacon, releases every 100 ms, no trigger timer, whole
    /// service periods.
    fn default() -> Self {
        PowerSaveSettings { listen_interval: 1, ideal_psm_interval: Duration::from_millis(100), uapsd_trigger_interval: None, uapsd_max_sp: 0 }
    }
}

impl PowerSave {
    /// A registry mode with `settings` (those of other modes are ignored).
    pub fn from_mode(mode: PowerMode, settings: &PowerSaveSettings) -> PowerSave {
        match mode {
            PowerMode::Cam => PowerSave::Cam,
            PowerMode::Psm => PowerSave::Psm { listen_interval: settings.listen_interval },
            PowerMode::IdealPsm => PowerSave::IdealPsm { interval: settings.ideal_psm_interval },
            PowerMode::Bsd { percent } => PowerSave::Bsd { percent },
            PowerMode::Uapsd => PowerSave::Uapsd { trigger_interval: settings.uapsd_trigger_interval, max_sp: settings.uapsd_max_sp },
            PowerMode::External(d) => PowerSave::External(d),
        }
    }

    /// The registry mode this is.
    pub const fn mode(&self) -> PowerMode {
        match *self {
            PowerSave::Cam => PowerMode::Cam,
            PowerSave::Psm { .. } => PowerMode::Psm,
            PowerSave::IdealPsm { .. } => PowerMode::IdealPsm,
            PowerSave::Bsd { percent } => PowerMode::Bsd { percent },
            PowerSave::Uapsd { .. } => PowerMode::Uapsd,
            PowerSave::External(d) => PowerMode::External(d),
        }
    }

    /// The registry name: in reports and as the name of the station's radio meter.
    pub fn name(&self) -> String {
        self.mode().to_string()
    }

    /// True unless the station is always awake (`cam`).
    pub const fn saves_power(&self) -> bool {
        !matches!(self, PowerSave::Cam)
    }

    /// True if the station listens to beacons (PSM and BSD learn of held frames from the TIM).
    pub const fn uses_beacons(&self) -> bool {
        matches!(self, PowerSave::Psm { .. } | PowerSave::Bsd { .. })
    }

    /// True if the station's uplink frames change its power saving (BSD's active window,
    /// U-APSD's triggers): a MAC may skip telling the others.
    pub const fn uplink_matters(&self) -> bool {
        matches!(self, PowerSave::Bsd { .. } | PowerSave::Uapsd { .. })
    }

    /// True if the station's own rules put it to sleep (a driver does for `External`).
    pub const fn dozes_by_itself(&self) -> bool {
        !matches!(self, PowerSave::Cam | PowerSave::External(_))
    }
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
    /// sleep → awake latency; `ideal-psm` wakes at once). None: it sends at once and the
    /// radio meter carves the wake-up from the sleep before.
    pub wake_latency: Option<Duration>,
}

impl MacCaps {
    /// The `[[wireless]]` hop: one station, no contention, no frames of its own on the air;
    /// an idealised AP end holds frames while the station dozes.
    pub const HOP: MacCaps = MacCaps { beacons: false, ps_poll: false, pm_bit: false, null_frames: false, wake_latency: None };

    /// An 802.11 BSS station whose radio needs `wake_latency` to wake.
    pub const fn bss(wake_latency: Duration) -> MacCaps {
        MacCaps { beacons: true, ps_poll: true, pm_bit: true, null_frames: true, wake_latency: Some(wake_latency) }
    }
}

/// BSD: how long the station stays active (awake, the AP delivering directly) after an uplink
/// data frame: `beacon / P`.
pub fn bsd_window(beacon_interval: Duration, percent: u32) -> Duration {
    Duration::from_nanos(beacon_interval.as_nanos() * 100 / percent.max(1) as u64)
}

/// BSD: the beacon a station dozing from `now` wakes for next. It sleeps at most P % of the
/// time since its last uplink data frame and at most [`BSD_MAX_SLEEP`], floored to a beacon
/// instant (multiples of the interval from t = 0), but at least until the next beacon.
pub fn bsd_next_wake(now: Time, last_uplink: Time, percent: u32, beacon_interval: Duration) -> Time {
    let since = now.saturating_since(last_uplink);
    let sleep = Duration::from_nanos(since.as_nanos() / 100 * percent as u64).min(BSD_MAX_SLEEP);
    let latest = floor_to(now + sleep, beacon_interval);
    latest.max(next_instant(now, beacon_interval))
}

/// The first multiple of `period` (from t = 0) strictly after `now`.
pub fn next_instant(now: Time, period: Duration) -> Time {
    let p = period.as_nanos().max(1);
    Time((now.as_nanos() / p + 1) * p)
}

fn floor_to(t: Time, period: Duration) -> Time {
    let p = period.as_nanos().max(1);
    Time(t.as_nanos() / p * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    #[test]
    fn every_registry_mode_has_a_configuration_that_names_it_back() {
        let s = PowerSaveSettings { listen_interval: 3, ideal_psm_interval: Duration::from_millis(50), uapsd_trigger_interval: Some(Duration::from_millis(20)), uapsd_max_sp: 4 };
        for m in PowerMode::KINDS {
            let ps = PowerSave::from_mode(m, &s);
            assert_eq!(ps.mode(), m);
            assert_eq!(ps.name(), m.to_string());
            assert_eq!(ps.saves_power(), m != PowerMode::Cam);
        }
        assert_eq!(PowerSave::from_mode(PowerMode::Psm, &s), PowerSave::Psm { listen_interval: 3 });
        assert_eq!(PowerSave::from_mode(PowerMode::Uapsd, &s), PowerSave::Uapsd { trigger_interval: Some(Duration::from_millis(20)), max_sp: 4 });
    }

    #[test]
    fn bsd_sleeps_a_bounded_share_of_the_idle_time_on_beacon_instants() {
        let bi = Duration::from_millis(100);
        assert_eq!(bsd_window(bi, 50), Duration::from_millis(200));
        assert_eq!(bsd_window(bi, 1000), Duration::from_millis(10));
        // Idle 200 ms at 50 %: 100 ms, floored to the beacon at 300 ms.
        assert_eq!(bsd_next_wake(ms(200), ms(0), 50, bi), ms(300));
        // Less than a beacon's worth: the next beacon anyway.
        assert_eq!(bsd_next_wake(ms(250), ms(240), 50, bi), ms(300));
        // Long idle: capped at 0.9 s.
        assert_eq!(bsd_next_wake(ms(10_000), ms(0), 50, bi), ms(10_900));
        assert_eq!(next_instant(ms(100), bi), ms(200));
        assert_eq!(next_instant(ms(99), bi), ms(100));
    }
}
