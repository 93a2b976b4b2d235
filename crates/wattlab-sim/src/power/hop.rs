//! Power saving on the simple `[[wireless]]` hop, emulated at the IP level as seed 000 did
//! (an IP proxy in front of the AP, section IV-B): no beacons, polls or PM bits on the air,
//! only *when* the AP end of the hop may send to the station and *when* the station's radio
//! dozes.
//!
//! - **Idealised PSM** (`ideal-psm`): the AP holds every packet for the station. At each beacon
//!   instant (multiples of the beacon interval from t = 0) where something is held, the station
//!   is awake at that instant (no latency, no wake-up cost) and the AP sends what it held at
//!   that instant back to back; later arrivals wait for the next beacon. The station dozes once
//!   the burst has arrived and it has nothing of its own to send. Its own packets wake it at
//!   once. RTTs are rounded up to multiples of the beacon interval.
//! - **Bounded Slowdown** (`bsd-P`, Krashinsky & Balakrishnan 2002): after every packet the
//!   station sends it is active (awake, the AP delivers directly) for `beacon × 100 / P`. Then it
//!   dozes and the AP holds; it wakes at beacon instants at most P % × (time since its last
//!   uplink packet) apart (beacon-aligned, at least the next beacon, at most 0.9 s), takes what
//!   was held as one burst, and dozes again. It pays the profile's wake-up cost.
//! - **External**: a client-side agent (seed 000's CC) sets the station awake or asleep. The AP
//!   never holds; a packet that arrives while the station dozes is dropped, as in seed 000's
//!   emulation. The station still transmits while dozing (the radio wakes just for that).
//!
//! [`HopPower`] is a state machine like `wlan::Bss`: its methods take `now` and a [`HopView`] of
//! the hop's channels, and queue [`HopAction`]s; it never touches the event queue. The
//! simulation's glue is `crate::sim::power_glue`.

use crate::net::link::ChannelId;
use serde::Serialize;
use std::collections::VecDeque;
use wattlab_core::power::{Driver, PowerMode};
use wattlab_core::{Duration, Time};

/// BSD stations wake at least this often while asleep (as in the 802.11 version).
const BSD_MAX_SLEEP: Duration = Duration::from_millis(900);

/// How a hop's station manages its radio.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopPowerMode {
    /// Constantly awake: the hop behaves exactly as without power management.
    Cam,
    /// Seed 000's idealised PSM: releases at beacon instants, free instantaneous wake-ups.
    IdealPsm,
    /// 802.11 PSM at the IP level: like `IdealPsm`, but the station wakes for every beacon
    /// (held packets or not) and pays the profile's wake-up transition each time.
    Psm,
    /// Bounded Slowdown with parameter P (percent).
    Bsd {
        /// P: the tolerated slowdown, in percent of the idle time (1..=1000).
        percent: u32,
    },
    /// Awake or asleep as a driver (the CC agent) sets it; arrivals while asleep drop.
    External,
}

/// Valid `power_save` values of `[[wireless]]`, for error messages.
pub const HOP_POWER_SAVE_NAMES: &str = "cam, psm, ideal-psm, bsd-P (P = 1..=1000, e.g. bsd-10, bsd-50, bsd-100), cc (the client-centered agent)";

impl HopPowerMode {
    /// Parses a scenario name (`cam`, `psm`, `ideal-psm`, `bsd-P`) through the registry
    /// ([`PowerMode`]); modes a hop cannot run, and `External` (no scenario name), are `None`.
    pub fn parse(name: &str) -> Option<HopPowerMode> {
        name.parse().ok().and_then(HopPowerMode::from_mode)
    }

    /// The hop's version of a registry mode; `None` for the modes a hop does not run
    /// (`u-apsd`) and for `external` ones, which a driver sets up (`cc`: the agent).
    pub fn from_mode(mode: PowerMode) -> Option<HopPowerMode> {
        match mode {
            PowerMode::Cam => Some(HopPowerMode::Cam),
            PowerMode::Psm => Some(HopPowerMode::Psm),
            PowerMode::IdealPsm => Some(HopPowerMode::IdealPsm),
            PowerMode::Bsd { percent } => Some(HopPowerMode::Bsd { percent }),
            PowerMode::Uapsd | PowerMode::External(_) => None,
        }
    }

    /// The registry mode this is (`External` as driven by its host).
    pub fn mode(self) -> PowerMode {
        match self {
            HopPowerMode::Cam => PowerMode::Cam,
            HopPowerMode::IdealPsm => PowerMode::IdealPsm,
            HopPowerMode::Psm => PowerMode::Psm,
            HopPowerMode::Bsd { percent } => PowerMode::Bsd { percent },
            HopPowerMode::External => PowerMode::External(Driver::Host),
        }
    }

    /// The name in reports and of the station's meter (`ideal-psm`, `bsd-50`, `external`).
    pub fn name(&self) -> String {
        self.mode().to_string()
    }
}

/// Timers of a hop's power state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopTimer {
    /// Re-check whether the station may doze (the initial doze, after the t = 0 events).
    Settle,
    /// A scheduled wake-up at a beacon instant (stale unless `gen` is current).
    Wake {
        /// Generation; a wake-up by the station's own traffic cancels BSD's scheduled one.
        gen: u32,
    },
    /// BSD's active window after the last uplink packet ends (stale unless `gen` is current).
    ActiveEnd {
        /// Generation; every uplink packet restarts the window.
        gen: u32,
    },
}

/// What the state machine asks the simulator to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopAction {
    /// Fire `timer` at `at`.
    Timer {
        /// When.
        at: Time,
        /// Which.
        timer: HopTimer,
    },
    /// The station's radio wakes (`awake`) or dozes at `at`.
    Power {
        /// When.
        at: Time,
        /// Awake after the change.
        awake: bool,
    },
    /// The AP may send to the station again: try the AP → station channel.
    Release,
}

/// The hop's channels as the simulator sees them when it calls in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HopView {
    /// Packets waiting in the AP's queue for the station (not the one being sent).
    pub ap_queued: u32,
    /// The station has packets of its own queued or in transmission.
    pub station_busy: bool,
    /// A packet to the station is being transmitted or propagating.
    pub down_in_flight: bool,
}

/// Counters of a hop's power management (in the JSON summary under `wireless`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HopPowerStats {
    /// Times the station went to doze.
    pub dozes: u64,
    /// Time spent dozing, ns (a doze still in progress counts up to the end of the run).
    pub doze_ns: u64,
    /// Packets the AP had to hold because the station was in power-save mode.
    pub packets_held: u64,
    /// Bursts released at wake-ups (beacon instants).
    pub bursts: u64,
    /// Packets in those bursts.
    pub packets_released: u64,
    /// Packets that arrived while the station dozed and were dropped (External mode).
    pub dropped_asleep: u64,
}

/// The power state machine of one hop's station and of the AP's holding for it.
#[derive(Debug)]
pub struct HopPower {
    mode: HopPowerMode,
    beacon_interval: Duration,
    awake: bool,
    dozed_at: Time,
    /// Packets of the current burst the AP has not started sending yet.
    release: u32,
    /// A `Wake` timer with the current generation is pending.
    wake_armed: bool,
    wake_gen: u32,
    /// BSD: within the active window after an uplink packet.
    bsd_active: bool,
    active_gen: u32,
    last_uplink: Time,
    stats: HopPowerStats,
    out: VecDeque<HopAction>,
}

impl HopPower {
    /// A station in `mode`, awake, with beacons every `beacon_interval` (must be positive).
    pub fn new(mode: HopPowerMode, beacon_interval: Duration) -> HopPower {
        assert!(beacon_interval > Duration::ZERO, "beacon interval must be positive");
        HopPower {
            mode,
            beacon_interval,
            awake: true,
            dozed_at: Time::ZERO,
            release: 0,
            wake_armed: false,
            wake_gen: 0,
            bsd_active: false,
            active_gen: 0,
            last_uplink: Time::ZERO,
            stats: HopPowerStats::default(),
            out: VecDeque::new(),
        }
    }

    /// The mode.
    pub fn mode(&self) -> HopPowerMode {
        self.mode
    }

    /// The beacon interval.
    pub fn beacon_interval(&self) -> Duration {
        self.beacon_interval
    }

    /// Switches the mode (before the run starts: the state is not migrated).
    pub fn set_mode(&mut self, mode: HopPowerMode) {
        self.mode = mode;
    }

    /// True while the station's radio is awake (by its own decision, not for a lone transmission).
    pub fn is_awake(&self) -> bool {
        self.awake
    }

    /// Counters, with a doze in progress counted up to `end`.
    pub fn stats_at(&self, end: Time) -> HopPowerStats {
        let mut s = self.stats.clone();
        if !self.awake {
            s.doze_ns += end.saturating_since(self.dozed_at).as_nanos();
        }
        s
    }

    /// Next action for the simulator, if any.
    pub fn poll_action(&mut self) -> Option<HopAction> {
        self.out.pop_front()
    }

    /// True if the AP may start sending to the station now.
    pub fn ap_may_send(&self) -> bool {
        match self.mode {
            HopPowerMode::Cam | HopPowerMode::External => true,
            HopPowerMode::IdealPsm | HopPowerMode::Psm => self.release > 0,
            HopPowerMode::Bsd { .. } => self.bsd_active || self.release > 0,
        }
    }

    /// True if the station's radio receives a frame sent to it now; false only for an External
    /// station that dozes (its frames are then dropped on arrival and cost it nothing).
    pub fn station_hears(&self) -> bool {
        self.awake || self.mode != HopPowerMode::External
    }

    /// True if a packet arriving at the station now is taken; counts it as dropped otherwise.
    pub fn accept_arrival(&mut self) -> bool {
        if self.mode == HopPowerMode::External && !self.awake {
            self.stats.dropped_asleep += 1;
            return false;
        }
        true
    }

    /// The run starts: power-saving stations doze once the t = 0 events have run (a `Settle`
    /// timer at `now`, so a station that sends at t = 0 does not sleep for zero seconds).
    pub fn start(&mut self, now: Time) {
        if self.saves_power() {
            self.out.push_back(HopAction::Timer { at: now, timer: HopTimer::Settle });
        }
    }

    /// The station queued a packet of its own: a dozing ideal-PSM or BSD station wakes at once.
    pub fn on_station_enqueue(&mut self, now: Time) {
        if !self.saves_power() || self.awake {
            return;
        }
        if matches!(self.mode, HopPowerMode::Bsd { .. } | HopPowerMode::Psm) {
            // The scheduled wake-up is superseded: the next one is armed at the next doze.
            self.cancel_wake();
        }
        self.wake(now);
    }

    /// The AP queued a packet for the station.
    pub fn on_ap_enqueue(&mut self, now: Time) {
        let direct = match self.mode {
            HopPowerMode::Cam | HopPowerMode::External => true,
            HopPowerMode::IdealPsm | HopPowerMode::Psm => false,
            HopPowerMode::Bsd { .. } => self.bsd_active,
        };
        if direct {
            return;
        }
        self.stats.packets_held += 1;
        // Ideal PSM wakes only when something is held; BSD's wake-ups are armed when it dozes.
        if self.mode == HopPowerMode::IdealPsm && !self.wake_armed {
            self.arm_wake(self.next_beacon(now));
        }
    }

    /// The AP started sending a packet to the station.
    pub fn on_ap_tx_start(&mut self) {
        self.release = self.release.saturating_sub(1);
    }

    /// The station finished sending one of its packets: BSD's active window (re)starts; an
    /// ideal-PSM station with nothing more to do dozes.
    pub fn on_station_sent(&mut self, now: Time, view: HopView) {
        if let HopPowerMode::Bsd { percent } = self.mode {
            let window = Duration::from_nanos(self.beacon_interval.as_nanos() * 100 / percent.max(1) as u64);
            self.last_uplink = now;
            let was_active = self.bsd_active;
            self.bsd_active = true;
            self.active_gen = self.active_gen.wrapping_add(1);
            self.out.push_back(HopAction::Timer { at: now + window, timer: HopTimer::ActiveEnd { gen: self.active_gen } });
            if !was_active && view.ap_queued > 0 {
                self.out.push_back(HopAction::Release); // held packets now go directly
            }
        }
        self.try_doze(now, view);
    }

    /// Something ended on the AP → station side (a transmission, an arrival, a drop): the
    /// station may be done.
    pub fn on_down_progress(&mut self, now: Time, view: HopView) {
        self.try_doze(now, view);
    }

    /// A timer fired.
    pub fn handle_timer(&mut self, now: Time, timer: HopTimer, view: HopView) {
        match timer {
            HopTimer::Settle => self.try_doze(now, view),
            HopTimer::Wake { gen } => {
                if gen != self.wake_gen || !self.wake_armed {
                    return; // cancelled
                }
                self.wake_armed = false;
                self.on_wake_instant(now, view);
            }
            HopTimer::ActiveEnd { gen } => {
                if gen != self.active_gen || !self.bsd_active {
                    return; // a later uplink packet restarted the window
                }
                self.bsd_active = false;
                // What the AP still has queued is held from now on.
                self.stats.packets_held += view.ap_queued.saturating_sub(self.release) as u64;
                self.try_doze(now, view);
            }
        }
    }

    /// External mode: the agent wakes the station (`awake`) or puts it to doze at `now`.
    /// Ignored in the other modes, whose own rules decide.
    pub fn set_awake(&mut self, now: Time, awake: bool) {
        if self.mode != HopPowerMode::External || awake == self.awake {
            return;
        }
        if awake {
            self.wake(now);
        } else {
            self.doze(now);
        }
    }

    fn saves_power(&self) -> bool {
        matches!(self.mode, HopPowerMode::IdealPsm | HopPowerMode::Psm | HopPowerMode::Bsd { .. })
    }

    /// A scheduled wake-up (beacon instant): release what is held as one burst.
    fn on_wake_instant(&mut self, now: Time, view: HopView) {
        let held = view.ap_queued.saturating_sub(self.release);
        if held > 0 && self.release == 0 {
            self.release = held;
            self.stats.bursts += 1;
            self.stats.packets_released += held as u64;
            self.wake(now);
            self.out.push_back(HopAction::Release);
        } else if held > 0 && self.mode == HopPowerMode::IdealPsm {
            // A burst longer than the beacon interval is still going: the rest waits a beacon.
            self.arm_wake(self.next_beacon(now));
        }
        if self.mode != HopPowerMode::IdealPsm {
            // PSM and BSD wake for every scheduled beacon, held packets or not, and pay for it.
            self.wake(now);
        }
        self.try_doze(now, view);
    }

    /// Dozes if the mode allows it and nothing is in progress to or from the station.
    fn try_doze(&mut self, now: Time, view: HopView) {
        let allowed = match self.mode {
            HopPowerMode::Cam | HopPowerMode::External => false,
            HopPowerMode::IdealPsm | HopPowerMode::Psm => self.release == 0,
            HopPowerMode::Bsd { .. } => self.release == 0 && !self.bsd_active,
        };
        if allowed && self.awake && !view.station_busy && !view.down_in_flight {
            self.doze(now);
            if self.mode == HopPowerMode::IdealPsm && view.ap_queued > 0 && !self.wake_armed {
                self.arm_wake(self.next_beacon(now));
            }
        }
    }

    fn wake(&mut self, now: Time) {
        if self.awake {
            return;
        }
        self.awake = true;
        self.stats.doze_ns += now.saturating_since(self.dozed_at).as_nanos();
        self.out.push_back(HopAction::Power { at: now, awake: true });
    }

    fn doze(&mut self, now: Time) {
        self.awake = false;
        self.dozed_at = now;
        self.stats.dozes += 1;
        self.out.push_back(HopAction::Power { at: now, awake: false });
        match self.mode {
            HopPowerMode::Bsd { percent } => {
                let at = self.bsd_next_wake(now, percent);
                self.arm_wake(at);
            }
            HopPowerMode::Psm => self.arm_wake(self.next_beacon(now)),
            _ => {}
        }
    }

    fn arm_wake(&mut self, at: Time) {
        self.wake_gen = self.wake_gen.wrapping_add(1);
        self.wake_armed = true;
        self.out.push_back(HopAction::Timer { at, timer: HopTimer::Wake { gen: self.wake_gen } });
    }

    fn cancel_wake(&mut self) {
        self.wake_armed = false;
        self.wake_gen = self.wake_gen.wrapping_add(1);
    }

    /// The first beacon instant strictly after `now`.
    fn next_beacon(&self, now: Time) -> Time {
        let bi = self.beacon_interval.as_nanos();
        Time((now.as_nanos() / bi + 1) * bi)
    }

    /// BSD: the beacon to wake for next, sleeping at most P % × (time since the last uplink
    /// packet) and at most 0.9 s, but at least until the next beacon (as `wlan::power`).
    fn bsd_next_wake(&self, now: Time, percent: u32) -> Time {
        let since = now.saturating_since(self.last_uplink);
        let sleep = Duration::from_nanos(since.as_nanos() / 100 * percent as u64).min(BSD_MAX_SLEEP);
        let bi = self.beacon_interval.as_nanos();
        let latest = (now + sleep).as_nanos() / bi * bi;
        Time(latest.max(self.next_beacon(now).as_nanos()))
    }
}

/// A `[[wireless]]` hop's power management and the channels it governs.
pub struct HopHost {
    /// Hop name (the `name` of its `[[wireless]]`).
    pub name: String,
    /// The station's node.
    pub station: u32,
    /// The state machine.
    pub power: HopPower,
    /// AP → station channel.
    pub down: ChannelId,
    /// Station → AP channel.
    pub up: ChannelId,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    fn actions(p: &mut HopPower) -> Vec<HopAction> {
        std::iter::from_fn(|| p.poll_action()).collect()
    }

    const QUIET: HopView = HopView { ap_queued: 0, station_busy: false, down_in_flight: false };

    #[test]
    fn modes_parse_and_print() {
        for (name, mode) in [
            ("cam", HopPowerMode::Cam),
            ("ideal-psm", HopPowerMode::IdealPsm),
            ("psm", HopPowerMode::Psm),
            ("bsd-1", HopPowerMode::Bsd { percent: 1 }),
            ("bsd-50", HopPowerMode::Bsd { percent: 50 }),
            ("bsd-1000", HopPowerMode::Bsd { percent: 1000 }),
        ] {
            assert_eq!(HopPowerMode::parse(name), Some(mode));
            assert_eq!(mode.name(), name);
        }
        for bad in ["", "PSM", "bsd", "bsd-", "bsd-0", "bsd-050", "bsd-+5", "bsd-1001", "external", "CAM"] {
            assert_eq!(HopPowerMode::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn ideal_psm_holds_until_the_beacon_then_sends_one_burst() {
        let mut p = HopPower::new(HopPowerMode::IdealPsm, Duration::from_millis(100));
        p.start(ms(0));
        assert_eq!(actions(&mut p), [HopAction::Timer { at: ms(0), timer: HopTimer::Settle }]);
        p.handle_timer(ms(0), HopTimer::Settle, QUIET);
        assert_eq!(actions(&mut p), [HopAction::Power { at: ms(0), awake: false }]);
        assert!(!p.ap_may_send());
        // Two packets held from 30 ms: one wake-up armed, at the next beacon.
        p.on_ap_enqueue(ms(30));
        p.on_ap_enqueue(ms(40));
        let gen = match actions(&mut p)[..] {
            [HopAction::Timer { at, timer: HopTimer::Wake { gen } }] if at == ms(100) => gen,
            ref a => panic!("{a:?}"),
        };
        p.handle_timer(ms(100), HopTimer::Wake { gen }, HopView { ap_queued: 2, ..QUIET });
        assert_eq!(actions(&mut p), [HopAction::Power { at: ms(100), awake: true }, HopAction::Release]);
        // Exactly the two held packets go; a third, arriving during the burst, waits.
        assert!(p.ap_may_send());
        p.on_ap_tx_start();
        p.on_ap_enqueue(ms(100));
        let next = actions(&mut p);
        assert!(matches!(next[..], [HopAction::Timer { at, .. }] if at == ms(200)), "{next:?}");
        p.on_ap_tx_start();
        assert!(!p.ap_may_send());
        // Awake until the last frame has arrived and the station has nothing of its own to send.
        p.on_down_progress(ms(101), HopView { ap_queued: 1, down_in_flight: true, ..QUIET });
        p.on_down_progress(ms(101), HopView { ap_queued: 1, station_busy: true, ..QUIET });
        assert!(p.is_awake() && actions(&mut p).is_empty());
        p.on_station_sent(ms(102), HopView { ap_queued: 1, ..QUIET });
        assert_eq!(actions(&mut p), [HopAction::Power { at: ms(102), awake: false }]);
        // Its own packets wake it at once, and it dozes right after sending.
        p.on_station_enqueue(ms(150));
        assert_eq!(actions(&mut p), [HopAction::Power { at: ms(150), awake: true }]);
        assert!(!p.ap_may_send(), "awake for its own frame is not a release");
        p.on_station_sent(ms(151), HopView { ap_queued: 1, ..QUIET });
        assert_eq!(actions(&mut p), [HopAction::Power { at: ms(151), awake: false }]);
        let s = p.stats_at(ms(160));
        assert_eq!((s.dozes, s.bursts, s.packets_held, s.packets_released), (3, 1, 3, 2));
        assert_eq!(s.doze_ns, (100 + 48 + 9) * 1_000_000);
    }

    #[test]
    fn bsd_wakes_at_growing_beacon_aligned_intervals_capped_at_0_9_s() {
        let mut p = HopPower::new(HopPowerMode::Bsd { percent: 50 }, Duration::from_millis(100));
        p.on_station_sent(ms(0), QUIET);
        assert_eq!(actions(&mut p), [HopAction::Timer { at: ms(200), timer: HopTimer::ActiveEnd { gen: 1 } }]);
        assert!(p.ap_may_send(), "active: direct delivery");
        p.handle_timer(ms(200), HopTimer::ActiveEnd { gen: 1 }, QUIET);
        let mut wakes = Vec::new();
        let mut now = ms(200);
        for _ in 0..9 {
            let a = actions(&mut p);
            let Some(&HopAction::Timer { at, timer }) = a.last() else { panic!("{a:?}") };
            assert!(a.contains(&HopAction::Power { at: now, awake: false }), "{a:?}");
            wakes.push(at.as_nanos() / 1_000_000);
            now = at;
            p.handle_timer(at, timer, QUIET);
        }
        // Sleep ≤ 50 % of the time since the uplink packet, floored to a beacon, ≥ one beacon.
        assert_eq!(wakes, [300, 400, 600, 900, 1300, 1900, 2800, 3700, 4600]);
        let a = actions(&mut p);
        let Some(&HopAction::Timer { at, timer: HopTimer::Wake { gen } }) = a.last() else { panic!("{a:?}") };
        assert_eq!(at, ms(5500));
        // Something held at a wake-up goes as one burst; the station stays up for it.
        p.on_ap_enqueue(ms(5000));
        let a = actions(&mut p);
        assert!(a.is_empty(), "BSD's wake-ups are already armed: {a:?}");
        p.handle_timer(ms(5500), HopTimer::Wake { gen }, HopView { ap_queued: 1, ..QUIET });
        assert_eq!(actions(&mut p), [HopAction::Power { at: ms(5500), awake: true }, HopAction::Release]);
        p.on_ap_tx_start();
        p.on_down_progress(ms(5501), QUIET);
        let a = actions(&mut p);
        assert_eq!(a[0], HopAction::Power { at: ms(5501), awake: false });
        // An uplink packet cancels the scheduled wake-up and opens the active window again.
        p.on_station_enqueue(ms(5600));
        p.on_station_sent(ms(5601), HopView { ap_queued: 2, ..QUIET });
        let a = actions(&mut p);
        assert_eq!(a[0], HopAction::Power { at: ms(5600), awake: true });
        assert!(a.contains(&HopAction::Release), "held packets go directly once active: {a:?}");
        assert!(matches!(a[..], [_, HopAction::Timer { timer: HopTimer::ActiveEnd { .. }, .. }, HopAction::Release]), "{a:?}");
        // The wake-up armed when it dozed at 5.501 s is stale now.
        let armed = gen + 1;
        p.handle_timer(ms(5800), HopTimer::Wake { gen: armed }, QUIET);
        assert!(p.is_awake() && actions(&mut p).is_empty(), "cancelled wake-ups do nothing");
    }

    #[test]
    fn external_mode_follows_the_agent_and_drops_while_asleep() {
        let mut p = HopPower::new(HopPowerMode::External, Duration::from_millis(100));
        p.start(ms(0));
        assert!(actions(&mut p).is_empty() && p.is_awake() && p.accept_arrival());
        p.set_awake(ms(10), false);
        assert_eq!(actions(&mut p), [HopAction::Power { at: ms(10), awake: false }]);
        assert!(p.ap_may_send(), "the AP never holds");
        assert!(!p.station_hears());
        assert!(!p.accept_arrival() && !p.accept_arrival());
        // Its own traffic does not change the agent's decision.
        p.on_station_enqueue(ms(20));
        p.on_station_sent(ms(21), QUIET);
        p.handle_timer(ms(22), HopTimer::Settle, QUIET);
        assert!(!p.is_awake() && actions(&mut p).is_empty());
        p.set_awake(ms(50), true);
        assert_eq!(actions(&mut p), [HopAction::Power { at: ms(50), awake: true }]);
        assert!(p.accept_arrival());
        let s = p.stats_at(ms(60));
        assert_eq!((s.dozes, s.doze_ns, s.dropped_asleep), (1, 40_000_000, 2));
    }
}
