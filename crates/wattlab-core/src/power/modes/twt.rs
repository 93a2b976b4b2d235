//! `twt:interval=Ims,duration=Dus[,offset=Ous][,trigger=true][,announced=true][,broadcast=ID]`:
//! an 802.11ax individual Target Wake Time agreement (IEEE 802.11ax-2021 §26.8.2, "Individual TWT agreements"; the TWT
//! element's Individual TWT Parameter Set: Target Wake Time, Nominal Minimum TWT Wake
//! Duration, TWT Wake Interval, the Trigger and Flow Type (announced) bits).
//!
//! The station asks for the agreement with a TWT Setup request at association and the AP
//! accepts it with a TWT Setup response (both action frames, each acknowledged; the MAC
//! sends them and reports the response with [`crate::power::StationPower::handle_twt_accepted`]).
//! Until then the station is in active mode. From then on the station dozes outside its
//! service periods (SPs); an SP starts at the offset plus every multiple of the wake interval
//! from t = 0 (the AP's schedule: the Target Wake Time of the response is the next such
//! instant; offsets let agreements of several stations start apart) and lasts
//! the nominal minimum wake duration, during which the station stays awake. The AP holds the
//! station's frames until an SP and sends them directly (no PS-Poll) while it is open:
//! at once for an unannounced agreement; for an announced one after the station's first
//! frame of the SP (a QoS-Null unless it has data queued). A frame still queued when the SP
//! ends waits for the next one; an exchange under way at the end completes. The station
//! wakes to send its own frames at any time (it is in PS mode, PM = 1), the AP still holding.
//! The station does not listen to beacons.
//!
//! On a MAC without frames of its own (the hop) the agreement holds from the start (no setup
//! exchange: the hop has no air to put it on), announcement is idealised (no frame) and the
//! machine keeps the SP clock itself.
//!
//! Trigger-enabled (`,trigger=true`, the Trigger bit of the Request Type): the station sends
//! uplink frames only in response to the AP's Basic Trigger frames (802.11ax-2021 §26.8.2,
//! §26.5.2). On a BSS the station's own frames neither wake it nor contend: they wait for a
//! trigger in an SP. The AP triggers the station at the start of each SP (its answer, data
//! or a QoS-Null, tells the AP it is awake: downlink may go from then on, as for an
//! announced agreement) and again while the station has uplink frames queued and the SP is
//! open ([`crate::power::StationPower::trigger_due`]). Simplifications: one station per
//! trigger (no OFDMA resource units), one TB PPDU per trigger, the AP knows the station's
//! queue (no buffer status reports). On the hop (no frames) the Trigger bit changes nothing.
//! Broadcast TWT (`,broadcast=ID`, 802.11ax-2021 §26.8.3): the AP announces the schedule in
//! its beacons (a TWT element with one Broadcast TWT Parameter Set per schedule: the MAC adds
//! its bytes to every beacon) and the station joins it by its Broadcast TWT ID with a TWT
//! Setup exchange whose element carries a Broadcast TWT Parameter Set (9 octets instead of
//! the individual set's 14). The station's machine runs as for an individual agreement
//! with the schedule's parameters: stations of one ID share every SP. Simplifications: the
//! schedule's persistence is taken as indefinite (the member, told the schedule in the setup
//! response, listens to no beacon for it); IDs start at 1 (ID 0 is kept out: whatever
//! default role the standard gives it was not checked).
//! Not modelled: TWT Information frames, clock drift.

use crate::power::mode::ModeParam;
use crate::power::station::{next_instant, Core, Mode, MODE, WAKE};
use crate::power::{MacView, StationEvent};
use crate::{Duration, Time};

/// `I` (the wake interval, ms) and `D` (the nominal minimum wake duration, µs) of the name.
pub(super) const PARAMS: &[ModeParam] = &[
    ModeParam { name: "interval_ms", letter: 'I', min: 1, max: TWT_MAX_INTERVAL_MS, doc: "TWT wake interval, ms" },
    ModeParam { name: "duration_us", letter: 'D', min: 1, max: TWT_MAX_DURATION_US, doc: "nominal minimum TWT wake duration, µs (less than the interval)" },
    ModeParam { name: "offset_us", letter: 'O', min: 0, max: TWT_MAX_OFFSET_US, doc: "offset of the service periods from the multiples of the interval, µs (less than the interval; 0 when not written)" },
];

/// Largest SP offset, µs: less than the largest interval.
pub const TWT_MAX_OFFSET_US: u32 = TWT_MAX_INTERVAL_MS * 1000 - 1;

/// Largest Broadcast TWT ID (the Broadcast TWT Info subfield's 5 bits); IDs start at 1.
pub const TWT_MAX_BROADCAST_ID: u8 = 31;

/// Largest wake interval the name takes, ms (65.5 s: far beyond what a phone negotiates;
/// the TWT element's mantissa × 2^exponent goes further).
pub const TWT_MAX_INTERVAL_MS: u32 = 65_535;

/// Largest nominal minimum wake duration, µs: the field's 255 units of 1024 µs (802.11ax-2021,
/// TWT element: Nominal Minimum TWT Wake Duration, unit 256 µs or 1 TU with the Wake Duration
/// Unit bit). Values between the units are taken as requested; a BSS's AP answers with
/// [`TwtAgreement::on_air`].
pub const TWT_MAX_DURATION_US: u32 = 255 * 1024;

/// Unit of the Nominal Minimum TWT Wake Duration field, µs (Wake Duration Unit bit clear).
pub const TWT_DURATION_UNIT_US: u32 = 256;

/// Unit of the field with the Wake Duration Unit bit set: 1 TU, µs.
pub const TWT_DURATION_UNIT_TU_US: u32 = 1024;

/// The Nominal Minimum TWT Wake Duration field's value for `duration_us` in units of
/// `unit_us`: rounded up, because the field is a *minimum* that a longer SP still honours.
/// The one rounding rule of the element (the AP's answer and the capture writer use it).
pub fn twt_wake_duration_units(duration_us: u32, unit_us: u32) -> u32 {
    duration_us.div_ceil(unit_us)
}

/// The agreement's parameters, as written in the mode's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TwtAgreement {
    /// Wake interval, ms (1..=[`TWT_MAX_INTERVAL_MS`]).
    pub interval_ms: u32,
    /// Nominal minimum wake duration, µs (1..=[`TWT_MAX_DURATION_US`], below the interval).
    pub duration_us: u32,
    /// Announced: the AP waits for the station's frame in each SP before sending.
    pub announced: bool,
    /// Offset of the SPs from the multiples of the interval, µs (below the interval): SPs
    /// start at `offset + k × interval`.
    pub offset_us: u32,
    /// Trigger-enabled: the station's uplink goes only in response to the AP's triggers.
    pub trigger: bool,
    /// The Broadcast TWT ID (1..=[`TWT_MAX_BROADCAST_ID`]) of the AP's broadcast schedule
    /// the station joins, or `None` for an individual agreement.
    pub broadcast: Option<u8>,
}

impl TwtAgreement {
    /// An agreement if the values are in range and the duration is shorter than the interval.
    pub fn new(interval_ms: u32, duration_us: u32, announced: bool) -> Option<TwtAgreement> {
        let ok = (1..=TWT_MAX_INTERVAL_MS).contains(&interval_ms)
            && (1..=TWT_MAX_DURATION_US).contains(&duration_us)
            && (duration_us as u64) < interval_ms as u64 * 1000;
        ok.then_some(TwtAgreement { interval_ms, duration_us, announced, offset_us: 0, trigger: false, broadcast: None })
    }

    /// The same agreement with its SPs `offset_us` after the multiples of the interval, if
    /// the offset is shorter than the interval.
    pub fn with_offset(self, offset_us: u32) -> Option<TwtAgreement> {
        ((offset_us as u64) < self.interval_ms as u64 * 1000).then_some(TwtAgreement { offset_us, ..self })
    }

    /// The same agreement, trigger-enabled or not.
    pub fn with_trigger(self, trigger: bool) -> TwtAgreement {
        TwtAgreement { trigger, ..self }
    }

    /// The same schedule as the AP's broadcast TWT `id`, if `id` is 1..=[`TWT_MAX_BROADCAST_ID`].
    pub fn with_broadcast(self, id: u8) -> Option<TwtAgreement> {
        (1..=TWT_MAX_BROADCAST_ID).contains(&id).then_some(TwtAgreement { broadcast: Some(id), ..self })
    }

    /// The schedule alone (the same agreement, individual): what two stations joining one
    /// broadcast ID must agree on.
    pub fn schedule(self) -> TwtAgreement {
        TwtAgreement { broadcast: None, ..self }
    }

    /// The unit the TWT element carries this agreement's wake duration in: 256 µs, or 1 TU
    /// (the Wake Duration Unit bit) beyond the 256 µs unit's 255 × 256 = 65280 µs.
    pub fn wake_duration_unit_us(&self) -> u32 {
        if self.duration_us > 255 * TWT_DURATION_UNIT_US { TWT_DURATION_UNIT_TU_US } else { TWT_DURATION_UNIT_US }
    }

    /// The agreement as a TWT element can carry it, i.e. what the AP's accepting TWT Setup
    /// response says and both ends of a BSS follow: the wake duration rounded up to its unit
    /// ([`twt_wake_duration_units`]); `None` if that duration is no longer below the interval.
    pub fn on_air(self) -> Option<TwtAgreement> {
        let unit = self.wake_duration_unit_us();
        let duration_us = twt_wake_duration_units(self.duration_us, unit) * unit;
        TwtAgreement::new(self.interval_ms, duration_us, self.announced).map(|a| TwtAgreement { duration_us: a.duration_us, ..self })
    }

    /// The offset of the SPs from the multiples of the interval.
    pub fn offset(&self) -> Duration {
        Duration::from_micros(self.offset_us as u64)
    }

    /// Start of the first SP strictly after `now` (SPs at `offset + k × interval`, k ≥ 0).
    pub fn next_sp(&self, now: Time) -> Time {
        let offset = Time::ZERO + self.offset();
        if now < offset {
            return offset;
        }
        next_instant(Time(now.as_nanos() - self.offset().as_nanos()), self.interval()) + self.offset()
    }

    /// The wake interval.
    pub fn interval(&self) -> Duration {
        Duration::from_millis(self.interval_ms as u64)
    }

    /// The nominal minimum wake duration (the SP's length).
    pub fn duration(&self) -> Duration {
        Duration::from_micros(self.duration_us as u64)
    }

    /// Parses the part of the name after `twt:` in its canonical spelling:
    /// `interval=Ims,duration=Dus`, then `,offset=Ous` for a non-zero offset, then
    /// `,trigger=true` for a trigger-enabled agreement, then `,announced=true` for an
    /// announced one, then `,broadcast=ID` for a broadcast schedule's member.
    pub fn parse(s: &str) -> Option<TwtAgreement> {
        let rest = s.strip_prefix("interval=")?;
        let (interval, rest) = rest.split_once("ms,duration=")?;
        let (duration, rest) = rest.split_once("us")?;
        let (offset, rest) = match rest.strip_prefix(",offset=") {
            Some(r) => {
                let (o, r) = r.split_once("us")?;
                (canonical_u32(o)?, r)
            }
            None => (0, rest),
        };
        let (trigger, rest) = match rest.strip_prefix(",trigger=true") {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let (announced, rest) = match rest.strip_prefix(",announced=true") {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let broadcast = match rest {
            "" => None,
            r => Some(u8::try_from(canonical_u32(r.strip_prefix(",broadcast=")?)?).ok()?),
        };
        let a = TwtAgreement::new(canonical_u32(interval)?, canonical_u32(duration)?, announced)?.with_offset(offset)?.with_trigger(trigger);
        match broadcast {
            None => Some(a),
            Some(id) => a.with_broadcast(id),
        }
    }
}

/// Canonical decimal digits: no sign, no leading zero, no blank.
fn canonical_u32(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 9 || s.starts_with('0') || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

impl std::fmt::Display for TwtAgreement {
    /// The name: `twt:interval=100ms,duration=8192us` (`,offset=Ous` if the offset is not 0,
    /// `,trigger=true` if trigger-enabled, then `,announced=true` if announced, then
    /// `,broadcast=ID` for a broadcast schedule's member).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "twt:interval={}ms,duration={}us", self.interval_ms, self.duration_us)?;
        if self.offset_us > 0 {
            write!(f, ",offset={}us", self.offset_us)?;
        }
        if self.trigger {
            f.write_str(",trigger=true")?;
        }
        if self.announced {
            f.write_str(",announced=true")?;
        }
        if let Some(id) = self.broadcast {
            write!(f, ",broadcast={id}")?;
        }
        Ok(())
    }
}

/// The rules of `twt`, with the agreement's state.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Twt {
    /// The agreement asked for.
    agreement: TwtAgreement,
    /// The AP accepted it (the setup exchange is over; from the start on the hop).
    agreed: bool,
    /// A service period is open.
    in_sp: bool,
    /// The AP knows the station is awake in this SP (unannounced: from its start; announced:
    /// once a frame of the station's reached it).
    heard: bool,
}

impl Twt {
    /// The rules for `agreement`, before its setup.
    pub(crate) fn new(agreement: TwtAgreement) -> Twt {
        Twt { agreement, agreed: false, in_sp: false, heard: false }
    }

    /// The agreement holds from `now`: the first SP is the next one of its schedule.
    fn agree(&mut self, c: &mut Core, now: Time) {
        self.agreed = true;
        c.deadlines[WAKE] = Some(self.agreement.next_sp(now));
    }

    /// True once the agreement holds and is trigger-enabled on a MAC with frames: the
    /// station's uplink waits for triggers.
    fn triggered(&self, c: &Core) -> bool {
        self.agreed && self.agreement.trigger && c.caps.null_frames
    }

    /// True while the AP may send to the station: before the agreement (active mode), or in
    /// an SP once the AP knows the station is awake.
    fn open(&self) -> bool {
        !self.agreed || (self.in_sp && self.heard)
    }
}

impl Mode for Twt {
    fn uplink_matters(&self) -> bool {
        true
    }

    fn period(&self) -> Option<Duration> {
        Some(self.agreement.interval())
    }

    fn start(&mut self, c: &mut Core, now: Time) {
        if c.caps.null_frames {
            // The setup exchange goes on the air; the station stays active until it is over.
            c.out.push_back(StationEvent::TwtSetup);
        } else {
            self.agree(c, now);
        }
    }

    fn ap_may_send(&self, c: &Core) -> bool {
        c.awake && !c.waking && self.open()
    }

    fn delivers_directly(&self, c: &Core) -> bool {
        c.awake && !c.waking && self.open()
    }

    fn on_uplink_sent(&mut self, c: &mut Core, _now: Time, _data: bool, _view: MacView) {
        if self.in_sp && !self.heard {
            self.heard = true;
            c.stats.bursts += 1;
            c.out.push_back(StationEvent::Release);
        }
    }

    fn may_doze(&self, _c: &Core) -> bool {
        self.agreed && !self.in_sp
    }

    fn uplink_by_trigger(&self, c: &Core) -> bool {
        self.triggered(c)
    }

    /// In an open SP: the first trigger (until the station answered), then one per TB PPDU
    /// while it has uplink frames queued.
    fn trigger_due(&self, c: &Core, uplink_queued: bool) -> bool {
        self.triggered(c) && self.in_sp && c.awake && !c.waking && (!self.heard || uplink_queued)
    }

    /// An SP starts: awake until its end; the AP may send at once (unannounced) or after the
    /// station's announcement.
    fn on_wake_instant(&mut self, c: &mut Core, now: Time, _view: MacView) {
        c.wake(now);
        self.in_sp = true;
        c.deadlines[MODE] = Some(now + self.agreement.duration());
        c.deadlines[WAKE] = Some(now + self.agreement.interval());
        if self.triggered(c) {
            // The AP triggers the station first (contention changes: the MAC re-runs it);
            // its answer opens the SP for downlink.
            self.heard = false;
            c.out.push_back(StationEvent::Release);
        } else if self.agreement.announced && c.caps.null_frames {
            self.heard = false;
            c.out.push_back(StationEvent::Trigger);
        } else {
            self.heard = true;
            c.stats.bursts += 1;
            c.out.push_back(StationEvent::Release);
        }
    }

    /// The SP ends: the station dozes once idle; what the AP still holds waits for the next.
    fn on_mode_timer(&mut self, _c: &mut Core, _now: Time, _view: MacView) -> bool {
        self.in_sp = false;
        self.heard = false;
        true
    }

    fn on_twt_accepted(&mut self, c: &mut Core, now: Time) {
        if !self.agreed {
            self.agree(c, now);
        }
    }
}

#[cfg(test)]
mod tests;
