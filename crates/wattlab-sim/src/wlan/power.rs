//! The MAC's side of power saving. The rules of every mode live in each station's machine
//! (`wattlab_core::power::StationPower`, on a MAC with [`MacCaps::bss`]: beacons and TIM,
//! PS-Polls, the PM bit, Null frames, the radio's wake latency); here the BSS feeds it (frames
//! queued and delivered, beacons and their TIM, ideal-PSM release instants, its deadlines, a
//! driver's commands) and carries out what it asks: the radio wakes or dozes, PS-Polls,
//! QoS-Null triggers, and the AP sends a station only what its machine allows.
//!
//! - **PSM** (802.11-2020 §11.2.3): the AP buffers every frame for a station in PS mode. The
//!   station wakes for every `listen_interval`-th beacon (waking early by its wake-up latency,
//!   which the radio meter carves from the sleep before), reads the TIM, and fetches frames
//!   one PS-Poll at a time while More Data is set. It dozes as soon as nothing is pending,
//!   also right after sending its own frames, so a reply waits for the next beacon: RTTs are
//!   rounded up towards multiples of the beacon interval.
//! - **Idealised PSM** (seed 000): every `interval` the AP releases everything it holds for
//!   the station as one burst; the station is awake exactly then (no latency, no early
//!   wake-up) and dozes after the last frame of the burst and its own frames.
//! - **BSD-p** (Krashinsky & Balakrishnan, MobiCom 2002): after each uplink data frame the
//!   station is in active mode (the AP delivers directly) for `beacon / p`; then it dozes and
//!   wakes for beacons at most `p × (time since that frame)` apart (beacon-aligned, at least
//!   the next beacon, at most 0.9 s), retrieving buffered frames as in PSM.
//! - **U-APSD** (802.11e): every uplink frame is a trigger; the AP answers with a service
//!   period of the frames it buffered (all, or `max_sp`), the last one ending it. A QoS-Null
//!   trigger goes out every `trigger_interval` when nothing else did.
//! - **TWT** (802.11ax individual Target Wake Time): at the start the station sends a TWT
//!   Setup request and the AP answers with a TWT Setup response (action frames, each
//!   acknowledged, contending as data frames do); the agreement holds once the response is
//!   delivered. Then the station's machine opens a service period every wake interval, the
//!   AP sending only inside them (after the station's QoS-Null for an announced agreement).
//! - **External** (a driver such as the CC agent): the AP holds while the driver has the
//!   station asleep (its PM bit is set) and releases on the driver's wake-up; the station
//!   dozes once idle after a sleep command, and wakes (with its latency) to send its own
//!   frames, the AP still holding.
//!
//! Simplifications, all documented in `docs/wlan.md`: the PM bit changes of BSD and of an
//! external station take effect without a Null frame; no DTIM or broadcast buffering; U-APSD
//! stations do not read beacons.

use super::edca::Ac;
use super::{Body, Bss, ExchangeKind, MacOutput, MacTimer, StaId, AP};

/// A TWT Setup action frame, bytes: MAC header 24, Category, Unprotected S1G Action and
/// Dialog Token 3, a TWT element with an Individual TWT Parameter Set 17 (Element ID and
/// Length 2, Control 1, Request Type 2, Target Wake Time 8, Nominal Minimum TWT Wake
/// Duration 1, TWT Wake Interval Mantissa 2, TWT Channel 1), FCS 4 (IEEE 802.11ax-2021,
/// TWT Setup frame and TWT element formats).
pub(crate) const TWT_SETUP_BYTES: u32 = 24 + 3 + 17 + 4;

/// A Broadcast TWT Parameter Set, bytes: Request Type 2, Target Wake Time 2 (bits of the
/// TSF), Nominal Minimum TWT Wake Duration 1, TWT Wake Interval Mantissa 2, Broadcast TWT
/// Info 2 (persistence and the Broadcast TWT ID) (IEEE 802.11ax-2021, TWT element).
pub(crate) const BROADCAST_TWT_PARAMETER_SET_BYTES: u32 = 2 + 2 + 1 + 2 + 2;

/// A TWT Setup action frame joining a broadcast schedule, bytes: as [`TWT_SETUP_BYTES`] with a
/// TWT element of one Broadcast TWT Parameter Set (Element ID and Length 2, Control 1, the
/// set 9): 24 + 3 + 12 + 4.
pub(crate) const BROADCAST_TWT_SETUP_BYTES: u32 = 24 + 3 + 2 + 1 + BROADCAST_TWT_PARAMETER_SET_BYTES + 4;

/// Bytes the AP's beacons grow by to announce `schedules` broadcast TWT schedules: TWT
/// elements (Element ID, Length, Control: 3 bytes each) carrying one Broadcast TWT Parameter
/// Set per schedule, as many sets per element as its 255-byte body holds (28).
pub(crate) fn broadcast_twt_beacon_bytes(schedules: u32) -> u32 {
    const PER_ELEMENT: u32 = (255 - 1) / BROADCAST_TWT_PARAMETER_SET_BYTES;
    schedules.div_ceil(PER_ELEMENT) * 3 + schedules * BROADCAST_TWT_PARAMETER_SET_BYTES
}

/// A Basic Trigger frame for one station, bytes: Frame Control, Duration, RA and TA 16,
/// Common Info 8, one User Info 5 with its Trigger Dependent User Info 1 (Basic), FCS 4
/// (IEEE 802.11ax-2021 §9.3.1.22, Trigger frame format), sent as a non-HT PPDU at the
/// control-response rate.
pub(crate) const TRIGGER_BYTES: u32 = 16 + 8 + 5 + 1 + 4;
use wattlab_core::power::{Command, MacView, PowerState, StationEvent};
use wattlab_core::Time;

impl Bss {
    /// True if the AP may send a frame to `to` now, unpolled.
    pub(crate) fn ap_may_send(&self, to: StaId) -> bool {
        self.stas[to as usize].power.ap_may_send()
    }

    /// The first station the AP should trigger now (trigger-enabled TWT), if any.
    #[inline]
    pub(crate) fn trigger_due(&self) -> Option<StaId> {
        if !self.any_trigger {
            return None;
        }
        (1..self.stas.len() as StaId).find(|&i| {
            let s = &self.stas[i as usize];
            s.by_trigger && s.power.trigger_due(!s.queue.is_empty())
        })
    }

    /// The AP's Basic Trigger frame to `sta` (it won the medium for it).
    pub(crate) fn start_trigger(&mut self, now: Time, sta: StaId) {
        self.stas[AP as usize].stats.attempts += 1;
        let dur = self.control_airtime(AP, sta, TRIGGER_BYTES);
        self.on_air(AP, Some(sta), now, dur, 0);
        self.log_control(super::AirKind::Trigger, AP, sta, now, dur, TRIGGER_BYTES, false);
        let end = now + dur + self.cfg.propagation + self.cfg.phy.sifs;
        self.occupy(now, end, ExchangeKind::Trigger { sta });
    }

    /// SIFS after its trigger, `sta` sends its TB PPDU: its head frame (data, or an A-MPDU on
    /// an aggregating PHY) or, with nothing queued, a QoS-Null; acknowledged as any frame.
    /// Its airtime is an HE TB PPDU's (`data_airtime` while `responding`: HE-STF 8 µs, no
    /// 0.8 µs GI), its width and streams the station's own.
    pub(crate) fn answer_trigger(&mut self, now: Time, sta: StaId) {
        // The trigger went out: the AP's own post-backoff, as after any frame of its own.
        self.stas[AP as usize].edcaf().retries = 0;
        self.reset_backoff(AP);
        // Busy while the response is queued, so that queueing it does not start contention.
        self.busy = true;
        if self.stas[sta as usize].queue.is_empty() {
            self.push_frame(now, sta, AP, Body::Null(None));
        }
        self.busy = false;
        // The TB PPDU carries the station's highest-priority AC that has frames.
        if let Some(ac) = Ac::BY_PRIORITY.into_iter().find(|&ac| self.stas[sta as usize].acs[ac].queued != 0) {
            self.stas[sta as usize].cur = ac;
        }
        self.responding = Some(sta);
        self.start_exchange(now, sta);
        self.responding = None;
        if !self.busy {
            // Nothing could be sent (the station's queue was full): the medium is idle again.
            self.grid_origin = self.grid_after(now, true);
            self.after_exchange(now);
            self.contend(now);
        }
    }

    /// Frames the AP holds for `sta`.
    fn buffered_for(&self, sta: StaId) -> u32 {
        self.stas[AP as usize].queue.iter().filter(|f| f.to == sta && !f.ba.acked).count() as u32
    }

    /// What the MAC is doing for `sta`, as its machine sees it.
    fn view(&self, sta: StaId) -> MacView {
        let s = &self.stas[sta as usize];
        // Frames waiting for a trigger do not keep the station awake.
        let own = !s.queue.is_empty() && !s.by_trigger;
        MacView { queued: self.buffered_for(sta), busy: own || s.poll_pending || self.in_exchange(sta) }
    }

    /// The AP's view of `sta` once it knows the station itself is idle.
    fn idle_view(&self, sta: StaId) -> MacView {
        MacView { queued: self.buffered_for(sta), busy: false }
    }

    /// Arms the beacon and release clocks and starts every station's machine (built with
    /// the BSS, its radio's wake latency known): the power-saving ones sleep at once, before
    /// the events of `now` run.
    pub(crate) fn start_power(&mut self, now: Time) {
        if self.cfg.beacons {
            self.timer(now + self.cfg.beacon_interval, MacTimer::Beacon);
        }
        // The AP keeps the release clock of the modes that have one (`ideal-psm`).
        if let Some(interval) = self.stas.iter().find_map(|s| s.cfg.power_save.release_interval()) {
            self.timer(now + interval, MacTimer::IdealRelease);
        }
        self.any_trigger = self.stas.iter().any(|s| matches!(s.power.mode(), wattlab_core::power::PowerSave::Twt(a) if a.trigger));
        for i in 1..self.stas.len() as StaId {
            let view = self.idle_view(i);
            let power = &mut self.stas[i as usize].power;
            power.start(now);
            power.handle_timeout(now, view);
            self.apply_power(now, i);
        }
    }

    /// A frame for `to` was queued at the AP: held or not, as the station's machine says.
    pub(crate) fn on_ap_enqueue(&mut self, now: Time, to: StaId) {
        self.stas[to as usize].power.handle_ap_queued(now);
        self.apply_power(now, to);
    }

    /// A station queued a frame: a dozing one starts waking up.
    pub(crate) fn on_sta_enqueue(&mut self, now: Time, sta: StaId) {
        self.stas[sta as usize].power.handle_own_frame(now);
        self.apply_power(now, sta);
    }

    /// A deadline of station `sta`'s machine is due (or the event is stale).
    pub(crate) fn on_station_timer(&mut self, now: Time, sta: StaId) {
        let s = &mut self.stas[sta as usize];
        if s.timer_at == Some(now) {
            s.timer_at = None;
        }
        if s.power.poll_timeout().is_some_and(|t| t <= now) {
            let view = self.view(sta);
            self.stas[sta as usize].power.handle_timeout(now, view);
        }
        if self.apply_power(now, sta) {
            self.contend(now);
        }
    }

    /// A driver's command to station `sta` (the CC agent's sleep and wake; modes other than
    /// `external` ignore it).
    pub fn command(&mut self, now: Time, sta: StaId, cmd: Command) {
        let view = self.view(sta);
        self.stas[sta as usize].power.handle_command(now, cmd, view);
        self.apply_power(now, sta);
        self.contend(now);
    }

    /// Carries out what station `sta`'s machine asked for, refreshes the MAC's copy of its
    /// state and counters, and keeps a [`MacTimer::Station`] at its next deadline. True if
    /// the station dozed, finished waking up or the AP may now send to it (contention
    /// changes).
    fn apply_power(&mut self, now: Time, sta: StaId) -> bool {
        let mut changed = false;
        while let Some(e) = self.stas[sta as usize].power.poll_event() {
            match e {
                StationEvent::Power { at, state } => {
                    changed |= state != PowerState::Awake;
                    self.out.push_back(MacOutput::Power { sta, at, state });
                }
                StationEvent::Ready => changed = true,
                // Contention is re-evaluated after every exchange and every call that may
                // free the AP's frames; a release from the station's own clock (a TWT service
                // period opening) is neither, so it asks for it.
                StationEvent::Release => changed = true,
                StationEvent::PsPoll => self.stas[sta as usize].poll_pending = true,
                StationEvent::Trigger => {
                    if self.stas[sta as usize].queue.is_empty() {
                        self.push_frame(now, sta, AP, Body::Null(None));
                    }
                }
                // Adaptive PSM's PM change: one Null at a time (a retry of a lost one).
                StationEvent::PmNull { pm } => {
                    // A Null still queued announces the newest PM bit (what the machine
                    // will take from its ACK).
                    match self.stas[sta as usize].queue.iter_mut().find(|f| matches!(f.body, Body::Null(_))) {
                        Some(f) => f.body = Body::Null(Some(pm)),
                        None => {
                            self.push_frame(now, sta, AP, Body::Null(Some(pm)));
                        }
                    }
                }
                StationEvent::TwtSetup => {
                    let broadcast = matches!(self.stas[sta as usize].power.mode(), wattlab_core::power::PowerSave::Twt(a) if a.broadcast.is_some());
                    self.push_frame(now, sta, AP, Body::TwtSetup { broadcast });
                }
            }
        }
        let s = &mut self.stas[sta as usize];
        s.awake = s.power.is_awake();
        s.waking = s.power.is_waking();
        s.by_trigger = s.power.uplink_by_trigger();
        s.stats.dozes = s.power.stats().dozes;
        s.stats.doze_ns = s.power.stats().doze_ns;
        if let Some(t) = s.power.poll_timeout() {
            if s.timer_at.is_none_or(|x| t < x) {
                s.timer_at = Some(t);
                self.timer(t, MacTimer::Station { sta });
            }
        }
        changed
    }

    /// True if `sta` sends or receives in the exchange on the air.
    fn in_exchange(&self, sta: StaId) -> bool {
        use super::ExchangeKind::*;
        match self.exchange.map(|e| e.kind) {
            None => false,
            Some(Frame { sta: s, frame, .. }) => s == sta || frame.to == sta,
            Some(Poll { sta: s, .. }) => s == sta,
            Some(Ampdu { sta: s, to, .. } | AddBa { sta: s, to, .. } | Bar { sta: s, to, .. }) => s == sta || to == sta,
            Some(Trigger { sta: s }) => s == sta,
            Some(Collision) => self.winners.contains(&sta),
            Some(Beacon) => self.stas[sta as usize].power.waits_for_beacon(),
        }
    }

    /// After every exchange: stations with nothing left to do go to doze.
    pub(crate) fn after_exchange(&mut self, now: Time) {
        for i in 1..self.stas.len() as StaId {
            let s = &self.stas[i as usize];
            if !s.power.may_doze() || (!s.queue.is_empty() && !s.by_trigger) || s.poll_pending || self.in_exchange(i) {
                continue;
            }
            let view = self.idle_view(i);
            self.stas[i as usize].power.handle_idle(now, view);
            self.apply_power(now, i);
        }
    }

    /// A frame was delivered: uplink frames feed BSD and U-APSD, downlink frames use up a
    /// release and restart adaptive PSM's inactivity timer.
    pub(crate) fn after_success(&mut self, now: Time, sta: StaId, frame: super::Frame) {
        if let Body::TwtSetup { broadcast } = frame.body {
            self.twt_setup_delivered(now, sta, frame.to, broadcast);
        }
        if sta == AP {
            self.release_used(frame.to);
            self.downlink_delivered(now, frame.to);
            return;
        }
        self.uplink_delivered(now, sta, matches!(frame.body, Body::Data(_)));
    }

    /// A frame of station `sta` reached the AP (`data`: not a Null): BSD's active window and
    /// U-APSD's trigger.
    pub(crate) fn uplink_delivered(&mut self, now: Time, sta: StaId, data: bool) {
        if !self.stas[sta as usize].power.uplink_matters() {
            return;
        }
        let view = self.view(sta);
        self.stas[sta as usize].power.handle_uplink_sent(now, data, view);
        self.apply_power(now, sta);
    }

    /// A frame (or an A-MPDU, its Block Ack out) from the AP reached station `to`.
    pub(crate) fn downlink_delivered(&mut self, now: Time, to: StaId) {
        let power = &mut self.stas[to as usize].power;
        if power.downlink_matters() {
            power.handle_downlink(now);
            self.apply_power(now, to);
        }
    }

    /// A TWT Setup frame was delivered: the AP answers a station's request with its response;
    /// the response makes the station's agreement hold.
    fn twt_setup_delivered(&mut self, now: Time, from: StaId, to: StaId, broadcast: bool) {
        if from != AP {
            self.push_frame(now, AP, from, Body::TwtSetup { broadcast });
            return;
        }
        let view = self.view(to);
        self.stas[to as usize].power.handle_twt_accepted(now, view);
        self.apply_power(now, to);
    }

    /// One frame of a burst or service period has left the AP (delivered or dropped).
    pub(crate) fn release_used(&mut self, to: StaId) {
        self.stas[to as usize].power.handle_ap_sent();
    }

    /// Target beacon transmission time: queue the beacon, wake the stations that listen.
    pub(crate) fn on_beacon_timer(&mut self, now: Time) {
        self.beacon_count += 1;
        self.timer(now + self.cfg.beacon_interval, MacTimer::Beacon);
        self.beacon_pending = true;
        for i in 1..self.stas.len() as StaId {
            self.stas[i as usize].power.handle_tbtt(now, self.beacon_count);
            self.apply_power(now, i);
        }
        self.contend(now);
    }

    /// The beacon is out: stations whose TIM bit is set start polling, the others doze
    /// (in `after_exchange`).
    pub(crate) fn after_beacon(&mut self, now: Time) {
        for i in 1..self.stas.len() as StaId {
            if self.stas[i as usize].power.waits_for_beacon() {
                let view = self.idle_view(i);
                self.stas[i as usize].power.handle_tim(now, view);
                self.apply_power(now, i);
            }
        }
    }

    /// A release instant of the BSS's clock (paper 000's idealised PSM).
    pub(crate) fn on_ideal_release(&mut self, now: Time) {
        let mut interval = None;
        for i in 1..self.stas.len() as StaId {
            let Some(t) = self.stas[i as usize].cfg.power_save.release_interval() else { continue };
            interval = Some(t);
            let view = self.idle_view(i);
            self.stas[i as usize].power.handle_release_instant(now, view);
            self.apply_power(now, i);
        }
        if let Some(t) = interval {
            self.timer(now + t, MacTimer::IdealRelease);
        }
        self.contend(now);
    }
}
