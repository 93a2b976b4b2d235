//! The registry of power modes: every mode's name ([`PowerMode`]), its configuration with the
//! settings its name does not carry ([`PowerSave`]), and its rules ([`Rules`], one module
//! each). Every parser (scenarios, the trace analyzer, the bindings, the Python
//! reproductions) goes through the names here, and every MAC (the simulator's hop and BSS,
//! the live emulator) runs a mode through its rules in the one station machine
//! ([`crate::power::StationPower`]).
//!
//! Names round-trip: `name.parse::<PowerMode>()?.to_string() == name` for every accepted
//! name, and only canonical spellings are accepted (`bsd-50`, never `bsd-050` or `bsd-+50`).
//!
//! **Adding a mode** : a module here whose type implements the
//! machine's `Mode` rules (and its energy rule, `free_wakeups`), and its variant in the three
//! enums of this file; the compiler lists every match to extend. The MACs, the scenario
//! loader, the meters and the bindings ask the registry, so nothing else changes.

mod adaptive_psm;
mod beacon_doze;
mod bsd;
mod cam;
mod external;
mod ideal_psm;
mod psm;
mod twt;
mod uapsd;

pub use adaptive_psm::ADAPTIVE_TIMEOUT_MS;
pub use bsd::{bsd_next_wake, bsd_window, BSD_MAX_SLEEP, BSD_PERCENT};
pub use external::Driver;
pub use twt::{twt_wake_duration_units, TwtAgreement, TWT_DURATION_UNIT_TU_US, TWT_DURATION_UNIT_US, TWT_MAX_BROADCAST_ID, TWT_MAX_DURATION_US, TWT_MAX_INTERVAL_MS, TWT_MAX_OFFSET_US};

use super::mode::{Basis, ModeParam, ParseNameError};
use super::station::{Command, Core, MacView, Mode};
use crate::energy::DeviceProfile;
use crate::{Duration, Time};
use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

/// A station's power mode: how its radio sleeps and wakes during a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PowerMode {
    /// Continuously active mode: always awake, the traffic is untouched.
    Cam,
    /// 802.11 power-save mode: doze, wake for beacons, fetch held frames.
    Psm,
    /// Paper 000's idealised PSM: held frames released at beacon instants, free wake-ups.
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
    /// Dozes between beacons unless traffic is queued for it (fetched without PS-Polls).
    BeaconDoze,
    /// Adaptive (dynamic) PSM: awake `timeout_ms` after the last frame, then PM = 1 and doze.
    AdaptivePsm {
        /// The inactivity timeout in ms ([`ADAPTIVE_TIMEOUT_MS`]).
        timeout_ms: u32,
    },
    /// 802.11ax individual Target Wake Time: awake only in the agreement's service periods.
    Twt(TwtAgreement),
}

impl PowerMode {
    /// One mode of each kind, in the order help texts list them (`bsd-P` as `bsd-50`).
    pub const KINDS: [PowerMode; 11] = [
        PowerMode::Cam,
        PowerMode::Psm,
        PowerMode::IdealPsm,
        PowerMode::Bsd { percent: 50 },
        PowerMode::Uapsd,
        PowerMode::External(Driver::Cc),
        PowerMode::External(Driver::Psna),
        PowerMode::External(Driver::Host),
        PowerMode::BeaconDoze,
        PowerMode::AdaptivePsm { timeout_ms: 100 },
        PowerMode::Twt(TwtAgreement { interval_ms: 100, duration_us: 8192, announced: false, offset_us: 0, trigger: false, broadcast: None }),
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
            PowerMode::BeaconDoze => "beacon-doze",
            PowerMode::AdaptivePsm { .. } => "adaptive-psm",
            PowerMode::Twt(_) => "twt",
        }
    }

    /// One line on what the mode does.
    pub const fn doc(self) -> &'static str {
        match self {
            PowerMode::Cam => "continuously active: always awake, traffic untouched",
            PowerMode::Psm => "802.11 power-save mode: dozes, wakes for beacons, fetches held frames",
            PowerMode::IdealPsm => "paper 000's idealised PSM: held frames released at beacons, free wake-ups",
            PowerMode::Bsd { .. } => "Bounded Slowdown: stays awake a while after traffic, then sleeps up to P % of the idle time",
            PowerMode::Uapsd => "802.11e U-APSD: uplink frames trigger the release of held frames",
            PowerMode::External(Driver::Cc) => "external, driven by paper 000's client-centered agent",
            PowerMode::External(Driver::Psna) => "external, driven by paper 001's PSNA mobile: radio off (no power) for the residual time",
            PowerMode::External(Driver::Host) => "external: sleeps and wakes as its host commands",
            PowerMode::BeaconDoze => "dozes between beacons unless traffic is queued; a queued burst is fetched at once, without PS-Polls",
            PowerMode::AdaptivePsm { .. } => "adaptive PSM (phone drivers): awake T ms after the last frame, then a PM=1 Null and doze; back with PM=0 on traffic or a TIM",
            PowerMode::Twt(_) => "802.11ax individual TWT: set up at association, awake only in service periods (every I ms for D µs, O µs after the multiples of I), the AP holding frames until then; trigger-enabled: uplink only when the AP triggers; broadcast=ID: a member of the AP's broadcast TWT schedule ID, announced in its beacons",
        }
    }

    /// The parameters carried in the name (`P` of `bsd-P`).
    pub const fn params(self) -> &'static [ModeParam] {
        match self {
            PowerMode::Bsd { .. } => bsd::PARAMS,
            PowerMode::AdaptivePsm { .. } => adaptive_psm::PARAMS,
            PowerMode::Twt(_) => twt::PARAMS,
            _ => &[],
        }
    }

    /// The parameters' values, in the order of [`PowerMode::params`].
    pub fn param_values(self) -> Vec<u32> {
        match self {
            PowerMode::Bsd { percent } => vec![percent],
            PowerMode::AdaptivePsm { timeout_ms } => vec![timeout_ms],
            PowerMode::Twt(a) => vec![a.interval_ms, a.duration_us, a.offset_us],
            _ => Vec::new(),
        }
    }

    /// The names of this kind as help texts write them (`bsd-P`, `cam`).
    pub const fn pattern(self) -> &'static str {
        match self {
            PowerMode::Bsd { .. } => "bsd-P",
            PowerMode::AdaptivePsm { .. } => "adaptive-psm:timeout=Tms",
            PowerMode::Twt(_) => "twt:interval=Ims,duration=Dus[,offset=Ous][,trigger=true][,announced=true][,broadcast=ID]",
            other => other.family(),
        }
    }

    /// A regular expression matching exactly the accepted names of this kind.
    pub const fn regex(self) -> &'static str {
        match self {
            PowerMode::Bsd { .. } => "bsd-(1000|[1-9][0-9]{0,2})",
            PowerMode::AdaptivePsm { .. } => "adaptive-psm:timeout=(10000|[1-9][0-9]{0,3})ms",
            // The ranges and duration < interval are the parser's.
            PowerMode::Twt(_) => "twt:interval=[1-9][0-9]{0,4}ms,duration=[1-9][0-9]{0,5}us(,offset=[1-9][0-9]{0,7}us)?(,trigger=true)?(,announced=true)?(,broadcast=([1-9]|[12][0-9]|3[01]))?",
            other => other.family(),
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
            PowerMode::AdaptivePsm { timeout_ms } => write!(f, "adaptive-psm:timeout={timeout_ms}ms"),
            PowerMode::Twt(a) => a.fmt(f),
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
        if let Some(ms) = s.strip_prefix("adaptive-psm:timeout=").and_then(|t| t.strip_suffix("ms")) {
            return canonical_number(ms, ADAPTIVE_TIMEOUT_MS).map(|timeout_ms| PowerMode::AdaptivePsm { timeout_ms }).ok_or_else(unknown);
        }
        if let Some(args) = s.strip_prefix("twt:") {
            return TwtAgreement::parse(args).map(PowerMode::Twt).ok_or_else(unknown);
        }
        PowerMode::KINDS.into_iter().find(|m| m.params().is_empty() && m.family() == s).ok_or_else(unknown)
    }
}

impl serde::Serialize for PowerMode {
    /// As its name (`"bsd-50"`).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for PowerMode {
    /// From its name; an unknown name is an error listing the valid ones.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

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
    /// Paper 000's idealised PSM: at release instants (multiples of `interval`) the AP sends
    /// everything it held as one burst; the station is awake then for free.
    IdealPsm {
        /// Time between release instants (paper 000: 100 ms, its beacon interval).
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
    /// Dozes between beacons unless traffic is queued for it.
    BeaconDoze,
    /// Adaptive PSM: awake `timeout` after the last frame, then PS mode; wakes for every
    /// `listen_interval`-th beacon while in PS mode.
    AdaptivePsm {
        /// Inactivity time after the last frame before the station returns to PS mode.
        timeout: Duration,
        /// Beacons between wake-ups in PS mode (1 = every beacon).
        listen_interval: u32,
    },
    /// 802.11ax individual TWT with this agreement.
    Twt(TwtAgreement),
}

/// The settings of the power modes that their names do not carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PowerSaveSettings {
    /// `psm`, `adaptive-psm`: beacons between wake-ups (1 = every beacon).
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
            PowerMode::BeaconDoze => PowerSave::BeaconDoze,
            PowerMode::AdaptivePsm { timeout_ms } => {
                PowerSave::AdaptivePsm { timeout: Duration::from_millis(timeout_ms as u64), listen_interval: settings.listen_interval }
            }
            PowerMode::Twt(a) => PowerSave::Twt(a),
        }
    }

    /// The mode as a BSS's TWT Setup exchange leaves it: a TWT agreement as its element
    /// carries it ([`TwtAgreement::on_air`], `None` if that cannot be below the interval);
    /// every other mode as it is.
    pub fn on_air(self) -> Option<PowerSave> {
        match self {
            PowerSave::Twt(a) => a.on_air().map(PowerSave::Twt),
            other => Some(other),
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
            PowerSave::BeaconDoze => PowerMode::BeaconDoze,
            PowerSave::AdaptivePsm { timeout, .. } => {
                let ms = timeout.as_nanos() / 1_000_000;
                PowerMode::AdaptivePsm { timeout_ms: if ms > u32::MAX as u64 { u32::MAX } else { ms as u32 } }
            }
            PowerSave::Twt(a) => PowerMode::Twt(a),
        }
    }

    /// The rules that run this mode, in their initial state.
    pub(crate) fn rules(self) -> Rules {
        match self {
            PowerSave::Cam => Rules::Cam(cam::Cam),
            PowerSave::Psm { listen_interval } => Rules::Psm(psm::Psm { listen_interval }),
            PowerSave::IdealPsm { interval } => Rules::IdealPsm(ideal_psm::IdealPsm { interval }),
            PowerSave::Bsd { percent } => Rules::Bsd(bsd::Bsd::new(percent)),
            PowerSave::Uapsd { trigger_interval, max_sp } => Rules::Uapsd(uapsd::Uapsd::new(trigger_interval, max_sp)),
            PowerSave::External(_) => Rules::External(external::External::new()),
            PowerSave::BeaconDoze => Rules::BeaconDoze(beacon_doze::BeaconDoze::default()),
            PowerSave::AdaptivePsm { timeout, listen_interval } => {
                Rules::AdaptivePsm(adaptive_psm::AdaptivePsm::new(timeout, listen_interval))
            }
            PowerSave::Twt(a) => Rules::Twt(twt::Twt::new(a)),
        }
    }

    /// The registry name: in reports and as the name of the station's radio meter.
    pub fn name(&self) -> String {
        self.mode().to_string()
    }

    /// True unless the station is always awake (`cam`).
    pub fn saves_power(&self) -> bool {
        self.rules().saves_power()
    }

    /// True if the station listens to beacons (the AP must send them).
    pub fn uses_beacons(&self) -> bool {
        self.rules().uses_beacons()
    }

    /// True if the station's uplink frames change its power saving (BSD's active window,
    /// U-APSD's triggers): a MAC may skip telling the others.
    pub fn uplink_matters(&self) -> bool {
        self.rules().uplink_matters()
    }

    /// True if the station's own rules put it to sleep (a driver does for `External`).
    pub fn dozes_by_itself(&self) -> bool {
        self.rules().dozes_by_itself()
    }

    /// The interval of the AP's release instants, for a mode that has them (`ideal-psm`): a
    /// MAC with beacons keeps that clock for the station.
    pub fn release_interval(&self) -> Option<Duration> {
        self.rules().release_interval()
    }

    /// The period of the mode's own clock, if it has one (release instants, periodic U-APSD
    /// triggers).
    pub fn period(&self) -> Option<Duration> {
        self.rules().period()
    }

    /// The mode's energy rule: the profile the station's meter costs it with (`ideal-psm`'s
    /// wake-ups are free).
    pub fn meter_profile(&self, profile: &DeviceProfile) -> DeviceProfile {
        self.rules().meter_profile(profile)
    }
}

/// The rules of every mode, with each station's state of its own (one variant per module).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rules {
    Cam(cam::Cam),
    Psm(psm::Psm),
    IdealPsm(ideal_psm::IdealPsm),
    Bsd(bsd::Bsd),
    Uapsd(uapsd::Uapsd),
    External(external::External),
    BeaconDoze(beacon_doze::BeaconDoze),
    AdaptivePsm(adaptive_psm::AdaptivePsm),
    Twt(twt::Twt),
}

/// `$body` with `$m` bound to the mode's own rules.
macro_rules! each_mode {
    ($rules:expr, $m:ident => $body:expr) => {
        match $rules {
            Rules::Cam($m) => $body,
            Rules::Psm($m) => $body,
            Rules::IdealPsm($m) => $body,
            Rules::Bsd($m) => $body,
            Rules::Uapsd($m) => $body,
            Rules::External($m) => $body,
            Rules::BeaconDoze($m) => $body,
            Rules::AdaptivePsm($m) => $body,
            Rules::Twt($m) => $body,
        }
    };
}

impl Mode for Rules {
    fn saves_power(&self) -> bool {
        each_mode!(self, m => m.saves_power())
    }
    fn pm_bit(&self, c: &Core) -> bool {
        each_mode!(self, m => m.pm_bit(c))
    }
    fn dozes_by_itself(&self) -> bool {
        each_mode!(self, m => m.dozes_by_itself())
    }
    fn uses_beacons(&self) -> bool {
        each_mode!(self, m => m.uses_beacons())
    }
    fn uplink_matters(&self) -> bool {
        each_mode!(self, m => m.uplink_matters())
    }
    fn downlink_matters(&self) -> bool {
        each_mode!(self, m => m.downlink_matters())
    }
    fn release_interval(&self) -> Option<Duration> {
        each_mode!(self, m => m.release_interval())
    }
    fn period(&self) -> Option<Duration> {
        each_mode!(self, m => m.period())
    }
    fn free_wakeups(&self) -> bool {
        each_mode!(self, m => m.free_wakeups())
    }
    fn start(&mut self, c: &mut Core, now: Time) {
        each_mode!(self, m => m.start(c, now))
    }
    fn ap_may_send(&self, c: &Core) -> bool {
        each_mode!(self, m => m.ap_may_send(c))
    }
    fn loses_frames_at_rest(&self, c: &Core) -> bool {
        each_mode!(self, m => m.loses_frames_at_rest(c))
    }
    fn delivers_directly(&self, c: &Core) -> bool {
        each_mode!(self, m => m.delivers_directly(c))
    }
    fn on_held(&mut self, c: &mut Core, now: Time) {
        each_mode!(self, m => m.on_held(c, now))
    }
    fn on_own_frame(&mut self, c: &mut Core) {
        each_mode!(self, m => m.on_own_frame(c))
    }
    fn uplink_by_trigger(&self, c: &Core) -> bool {
        each_mode!(self, m => m.uplink_by_trigger(c))
    }
    fn trigger_due(&self, c: &Core, uplink_queued: bool) -> bool {
        each_mode!(self, m => m.trigger_due(c, uplink_queued))
    }
    fn on_uplink_sent(&mut self, c: &mut Core, now: Time, data: bool, view: MacView) {
        each_mode!(self, m => m.on_uplink_sent(c, now, data, view))
    }
    fn on_downlink(&mut self, c: &mut Core, now: Time) {
        each_mode!(self, m => m.on_downlink(c, now))
    }
    fn may_doze(&self, c: &Core) -> bool {
        each_mode!(self, m => m.may_doze(c))
    }
    fn keeps_awake(&self, view: MacView) -> bool {
        each_mode!(self, m => m.keeps_awake(view))
    }
    fn listens_to_beacon(&self, c: &Core, now: Time, beacon: u64) -> bool {
        each_mode!(self, m => m.listens_to_beacon(c, now, beacon))
    }
    fn on_tim(&mut self, c: &mut Core, now: Time, view: MacView) {
        each_mode!(self, m => m.on_tim(c, now, view))
    }
    fn on_release_instant(&mut self, c: &mut Core, now: Time, view: MacView) {
        each_mode!(self, m => m.on_release_instant(c, now, view))
    }
    fn on_wake_instant(&mut self, c: &mut Core, now: Time, view: MacView) {
        each_mode!(self, m => m.on_wake_instant(c, now, view))
    }
    fn on_mode_timer(&mut self, c: &mut Core, now: Time, view: MacView) -> bool {
        each_mode!(self, m => m.on_mode_timer(c, now, view))
    }
    fn on_command(&mut self, c: &mut Core, now: Time, cmd: Command, view: MacView) {
        each_mode!(self, m => m.on_command(c, now, cmd, view))
    }
    fn on_twt_accepted(&mut self, c: &mut Core, now: Time) {
        each_mode!(self, m => m.on_twt_accepted(c, now))
    }
    fn rests_off(&self) -> bool {
        each_mode!(self, m => m.rests_off())
    }
    fn on_doze(&mut self, c: &mut Core, now: Time, view: MacView) {
        each_mode!(self, m => m.on_doze(c, now, view))
    }
    fn meter_profile(&self, profile: &DeviceProfile) -> DeviceProfile {
        each_mode!(self, m => m.meter_profile(profile))
    }
}

#[cfg(test)]
mod tests;
