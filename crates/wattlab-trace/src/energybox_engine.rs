//! EnergyBox's own number: its Wi-Fi engine emulated, implementation artifacts included.
//!
//! EnergyBox (Vergara, Nadjm-Tehrani et al., Linköping University) defines a Wi-Fi model of
//! three states (PSM, CAM, CAMH; see [`crate::energybox`]), and wattlab costs that definition
//! exactly with its adaptive-PSM policy. EnergyBox's engine computes it in a way that departs
//! from the definition; a user who asks for EnergyBox's result wants those departures too. This
//! module reproduces them, bit for bit on the captures EnergyBox was run on
//! (`tests/data/energybox`), streaming and in memory independent of the capture's length:
//!
//! 1. **Times**: tshark's `frame.time_relative` (9 decimals, from the first frame) read as a
//!    double, times 10⁶, truncated to whole µs: 249 µs becomes 248 µs (about 1 time in 87).
//! 2. **Every frame** of the capture is a packet: other hosts' frames and non-IP frames wake the
//!    radio and count in the windows, which sum frame (wire) lengths, both directions.
//! 3. **Phase 1**: a state point per packet; CAM → PSM when a gap exceeds the inactivity time
//!    (at the last packet + that time, truncated to µs), PSM → CAM at a packet.
//! 4. **Windows**: boundaries `w, w + w, …` summed in floating point (they drift: 0.15 is
//!    `0.15000000000000002`), bytes of packets strictly before a boundary; the windows stop at
//!    the last packet, and the last, partial window always holds 0 bytes (never high).
//! 5. **CAMH pass**: CAM points in a high window become CAMH. A streak starts at its window's
//!    start (or at the wake-up, coming from PSM); it is closed only at the first state point in a
//!    low window, by a CAMH → CAM step placed 1 ms after the last high window's end (`+ 0.001`),
//!    which can fall after that point (the series then runs backwards in time and the energy
//!    sum takes a negative CAM interval); low windows without a point inside a streak stay
//!    CAMH; points at or after the last packet's time are never visited, so a streak still open
//!    there runs to the last packet.
//! 6. **End**: the timeline goes on in CAM for the inactivity time after the last packet.
//! 7. **Energy**: Σ Δt × power over consecutive points in list order, in doubles; printed
//!    rounded half up to 4 decimals ("Total Power Used").
//!
//! The engine sees packets once, in file order. Its passes are merged into one: each window's
//! points are applied under both outcomes (high and low) at once and the right one is kept when
//! the window's bytes are known, so memory does not grow with the packets; windows without
//! packets are skipped in closed form (floating-point sums of a constant advance by a constant
//! number of ulps within a binade), so time does not grow with the capture's span.

use wattlab_core::energy::RadioState;

/// EnergyBox's Wi-Fi states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EbState {
    /// Power save mode.
    Psm,
    /// Constantly awake.
    Cam,
    /// Constantly awake, high throughput.
    Camh,
}

impl EbState {
    fn idx(self) -> usize {
        self as usize
    }

    /// The state of wattlab's radio model that stands for it.
    pub fn radio(self) -> RadioState {
        match self {
            EbState::Psm => RadioState::Sleep,
            EbState::Cam => RadioState::Idle,
            EbState::Camh => RadioState::IdleHigh,
        }
    }
}

/// The settings EnergyBox's engine reads, as it reads them (doubles).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineSettings {
    /// `CAM_PSM_INACTIVITY_TIME`, ms.
    pub inactivity_ms: f64,
    /// `CAM_TIME_WIMDOW`, ms.
    pub window_ms: f64,
    /// `WINDOW_DATA_RATE_THRESHOLD`, bytes per window.
    pub threshold: f64,
    /// `POWER_IN_PSM`, `POWER_IN_CAM`, `POWER_IN_CAMH`, W.
    pub power_w: [f64; 3],
}

impl EngineSettings {
    /// Checks the ranges the emulation accepts (windows of 1 µs to 1 day, an inactivity time
    /// of at most 1 h, finite non-negative powers and threshold).
    pub fn check(&self) -> Result<(), String> {
        if !(self.window_ms.is_finite() && (1e-3..=86_400_000.0).contains(&self.window_ms)) {
            return Err(format!("EnergyBox CAM_TIME_WIMDOW {} ms is out of range (1 µs to 1 day)", self.window_ms));
        }
        if !(self.inactivity_ms.is_finite() && (0.0..=3_600_000.0).contains(&self.inactivity_ms)) {
            return Err(format!("EnergyBox CAM_PSM_INACTIVITY_TIME {} ms is out of range (0 to 1 h)", self.inactivity_ms));
        }
        if !(self.threshold.is_finite() && self.threshold >= 0.0) || self.power_w.iter().any(|p| !(p.is_finite() && *p >= 0.0)) {
            return Err("EnergyBox powers and WINDOW_DATA_RATE_THRESHOLD must be finite numbers ≥ 0".into());
        }
        Ok(())
    }
}

/// How far EnergyBox's engine departed from its model's definition on one capture.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Artifacts {
    /// CAMH streaks closed 1 ms after their last high window (each adds 1 ms × (CAMH − CAM)).
    pub late_streak_ends: u64,
    /// Of those, closings placed after the next state point: the series runs backwards in
    /// time and the energy sum takes a negative CAM interval.
    pub backwards_steps: u64,
    /// Low windows without a packet that a CAMH streak spans (CAMH instead of CAM).
    pub bridged_windows: u64,
    /// CAMH time past the last high window up to the last packet (a streak the pass never
    /// closed), s.
    pub streak_to_last_packet_s: f64,
    /// Bytes in the last, partial window, which EnergyBox never counts (0 bytes, never high).
    pub partial_window_bytes: u64,
    /// Those bytes exceed the threshold: the window would have been high.
    pub partial_window_high: bool,
    /// Frames whose time became 1 µs earlier through the double parsing (`0.000249` s → 248 µs).
    pub truncated_times: u64,
}

/// EnergyBox's result on a capture.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOutcome {
    /// Its unrounded energy (`EngineWifi.power`), J.
    pub energy_j: f64,
    /// What it prints: "Total Power Used", rounded half up to 4 decimals, J.
    pub printed_j: f64,
    /// Seconds in PSM, CAM and CAMH (its `timeInPSM`, `timeInCAM`, `timeInCAMH`).
    pub time_s: [f64; 3],
    /// Frames (EnergyBox's packets: every record of the capture).
    pub frames: u64,
    /// The first frame's time (EnergyBox's time 0), ns since the epoch.
    pub first_ns: u64,
    /// Where its timeline ends (the last frame plus the inactivity time), s from the first.
    pub end_s: f64,
    /// Windows counted (the last, partial one excluded).
    pub windows: u64,
    /// Of those, windows above the threshold.
    pub high_windows: u64,
    /// Frames earlier than the frame before them (EnergyBox costs file order as it is).
    pub frames_out_of_order: u64,
    /// Its departures from the model's definition.
    pub artifacts: Artifacts,
    /// The settings it ran with.
    pub settings: EngineSettings,
}

/// One outcome of the window in progress: the state series' running sums.
#[derive(Clone, Debug, Default)]
struct Track {
    power: f64,
    time: [f64; 3],
    last_x: f64,
    last: Option<EbState>,
    /// State changes `(s from the first frame, state)` not yet handed out (timelines only).
    changes: Vec<(f64, EbState)>,
    late_ends: u64,
    backwards: u64,
}

impl Track {
    /// Appends the point `(x, y)` to the series: the interval since the previous point is
    /// charged at the previous point's state, as EnergyBox's `calculatePower` does.
    fn feed(&mut self, x: f64, y: EbState, power: &[f64; 3], log: bool) {
        match self.last {
            Some(s) => {
                let dt = x - self.last_x;
                self.power += dt * power[s.idx()];
                self.time[s.idx()] += dt;
                if log && s != y {
                    self.changes.push((x, y));
                }
            }
            None if log => self.changes.push((x, y)),
            None => {}
        }
        self.last_x = x;
        self.last = Some(y);
    }
}

/// The window in progress: `[start, end)` in EnergyBox's floating-point boundaries.
#[derive(Clone, Copy, Debug)]
struct Window {
    index: u64,
    start: f64,
    end: f64,
    bytes: u64,
    /// The state the series was in when the window opened.
    open: Option<EbState>,
}

/// Packets at the latest time: their points wait until a later time shows they are not the
/// last packet's (EnergyBox's CAMH pass never visits the last packet's points).
#[derive(Clone, Copy, Debug)]
struct Group {
    us: i64,
    bytes: u64,
    points: [EbState; 2],
    n: usize,
}

/// EnergyBox's Wi-Fi engine over a stream of frames (see the module docs).
#[derive(Clone, Debug)]
pub struct EnergyBoxEngine {
    s: EngineSettings,
    /// `(long)` of the inactivity time in µs, as the state points use it.
    inactivity_step_us: i64,
    /// The inactivity time in µs, as the gap test compares it.
    inactivity_us: f64,
    /// The window, s (`window_ms × 1000 / 10⁶`).
    w: f64,
    log: bool,
    first_ns: Option<u64>,
    frames: u64,
    out_of_order: u64,
    cam: bool,
    prev_us: i64,
    group: Option<Group>,
    window: Window,
    last_high: Option<(u64, f64)>,
    windows: u64,
    high_windows: u64,
    /// The outcomes of the window in progress: `[high, low]`.
    tracks: [Track; 2],
    art: Artifacts,
    /// The window boundaries stopped advancing at this time (EnergyBox would loop forever).
    stalled: Option<f64>,
    /// Committed state changes, for the caller's timeline.
    out: Vec<(f64, EbState)>,
}

const HIGH: usize = 0;
const LOW: usize = 1;

impl EnergyBoxEngine {
    /// An engine with `settings` (checked with [`EngineSettings::check`]); `timeline` keeps
    /// the state changes for [`EnergyBoxEngine::drain_changes`].
    pub fn new(settings: EngineSettings, timeline: bool) -> EnergyBoxEngine {
        let inactivity_us = settings.inactivity_ms * 1000.0;
        let w = settings.window_ms * 1000.0 / 1_000_000.0;
        EnergyBoxEngine {
            s: settings,
            inactivity_step_us: inactivity_us as i64,
            inactivity_us,
            w,
            log: timeline,
            first_ns: None,
            frames: 0,
            out_of_order: 0,
            cam: false,
            prev_us: 0,
            group: None,
            window: Window { index: 1, start: 0.0, end: w, bytes: 0, open: None },
            last_high: None,
            windows: 0,
            high_windows: 0,
            tracks: [Track::default(), Track::default()],
            art: Artifacts::default(),
            stalled: None,
            out: Vec::new(),
        }
    }

    /// Adds one frame (any record of the capture), in file order: its time and its original
    /// (wire) length.
    pub fn frame(&mut self, ts_ns: u64, frame_len: u32) {
        if self.stalled.is_some() {
            return;
        }
        let first = *self.first_ns.get_or_insert(ts_ns);
        let rel_ns = i128::from(ts_ns) - i128::from(first);
        let us = micros(rel_ns);
        if i128::from(us) * 1000 != rel_ns.div_euclid(1000) * 1000 {
            self.art.truncated_times += 1;
        }
        self.frames += 1;
        let len = u64::from(frame_len);
        match self.group {
            Some(ref mut g) if g.us == us => {
                // Same time: its points repeat the group's at zero length.
                g.bytes += len;
                return;
            }
            Some(g) => {
                if us < g.us {
                    self.out_of_order += 1;
                }
                self.flush(g);
            }
            None => {
                // The series starts in PSM at the first packet (EnergyBox's first point).
                for t in &mut self.tracks {
                    t.last_x = 0.0;
                    t.last = Some(EbState::Psm);
                }
            }
        }
        if self.cam && ((us - self.prev_us) as f64) > self.inactivity_us {
            let at = (self.prev_us + self.inactivity_step_us) as f64 / 1e6;
            self.route(at, EbState::Cam);
            self.route(at, EbState::Psm);
            self.cam = false;
        }
        let (points, n) = if self.cam {
            ([EbState::Cam, EbState::Cam], 1)
        } else {
            self.cam = true;
            ([EbState::Psm, EbState::Cam], 2)
        };
        self.prev_us = us;
        self.group = Some(Group { us, bytes: len, points, n });
    }

    /// Hands out the state changes decided so far: `(s from the first frame, state)`, in
    /// series order (times can step back where the engine's series does).
    pub fn drain_changes(&mut self, mut f: impl FnMut(f64, EbState)) {
        for (x, s) in self.out.drain(..) {
            f(x, s);
        }
    }

    /// The first frame's time, ns since the epoch (`None` before any frame).
    pub fn first_ns(&self) -> Option<u64> {
        self.first_ns
    }

    /// EnergyBox's result (`Ok(None)` for a capture without frames); an error where
    /// EnergyBox itself would never finish (its window boundaries stop advancing).
    pub fn finish(&mut self) -> Result<Option<EngineOutcome>, String> {
        if let Some(x) = self.stalled {
            return Err(format!(
                "EnergyBox emulation: at {x} s from the first frame, adding the {} ms window no longer changes the \
                 window boundary in floating point; EnergyBox's engine would loop forever on this capture",
                self.s.window_ms
            ));
        }
        let Some(g) = self.group.take() else { return Ok(None) };
        let last_x = g.us as f64 / 1e6;
        // Windows ending before the last packet are counted; the one it falls in is EnergyBox's
        // last, partial window, which holds 0 bytes whatever its packets.
        if self.window.end < last_x {
            self.close(true);
            // Empty windows follow, up to the last one ending before the last packet.
            if let Some((prev, _, n)) = boundaries_around(self.window.end, self.w, last_x) {
                self.windows += n - 1 - u64::from(prev == last_x);
            }
        } else {
            self.art.partial_window_bytes = self.window.bytes;
            self.art.partial_window_high = self.window.bytes as f64 > self.s.threshold;
            self.close(false);
        }
        let power = self.s.power_w;
        let log = self.log;
        let t = &mut self.tracks[HIGH];
        if t.last == Some(EbState::Camh) {
            let since = self.last_high.map_or(0.0, |(_, e)| e);
            self.art.streak_to_last_packet_s = (last_x - since).max(0.0);
        }
        // The last packet's points are never visited by the CAMH pass.
        for &y in &g.points[2 - g.n..] {
            t.feed(last_x, y, &power, log);
        }
        let end = (g.us + self.inactivity_step_us) as f64 / 1e6;
        t.feed(end, EbState::Cam, &power, log);
        t.feed(end, EbState::Psm, &power, log);
        self.out.append(&mut t.changes);
        self.art.late_streak_ends = t.late_ends;
        self.art.backwards_steps = t.backwards;
        let energy_j = t.power;
        Ok(Some(EngineOutcome {
            energy_j,
            printed_j: round_half_up(energy_j * 10_000.0) / 10_000.0,
            time_s: t.time,
            frames: self.frames,
            first_ns: self.first_ns.unwrap_or(0),
            end_s: end,
            windows: self.windows,
            high_windows: self.high_windows,
            frames_out_of_order: self.out_of_order,
            artifacts: self.art,
            settings: self.s,
        }))
    }

    /// The packets at time `g.us` are not the last packet's: count their bytes and visit
    /// their points.
    fn flush(&mut self, g: Group) {
        let x = g.us as f64 / 1e6;
        self.advance(x);
        self.window.bytes += g.bytes;
        for &y in &g.points[2 - g.n..] {
            self.route(x, y);
        }
    }

    /// Visits the state point `(x, y)` under both outcomes of its window.
    fn route(&mut self, x: f64, y: EbState) {
        self.advance(x);
        let (power, log) = (self.s.power_w, self.log);
        let [high, low] = &mut self.tracks;
        // In a high window a CAM point becomes CAMH: continuing a streak, or starting one at
        // the window's start (after CAM) or at the wake-up itself (after PSM).
        match (y, high.last) {
            (EbState::Cam, Some(EbState::Camh)) => high.feed(x, EbState::Camh, &power, log),
            (EbState::Cam, Some(EbState::Cam)) => {
                let start = self.window.start;
                high.feed(start, EbState::Cam, &power, log);
                high.feed(start, EbState::Camh, &power, log);
                high.feed(x, EbState::Camh, &power, log);
            }
            (EbState::Cam, _) => {
                high.feed(x, EbState::Cam, &power, log);
                high.feed(x, EbState::Camh, &power, log);
            }
            _ => high.feed(x, y, &power, log),
        }
        // In a low window, a streak still on is closed 1 ms after the last high window's end,
        // just before this point (which that step may follow in time).
        if low.last == Some(EbState::Camh) {
            let at = self.last_high.map_or(0.0, |(_, e)| e) + 0.001;
            low.feed(at, EbState::Camh, &power, log);
            low.feed(at, EbState::Cam, &power, log);
            low.late_ends += 1;
            if at > x {
                low.backwards += 1;
            }
        }
        low.feed(x, y, &power, log);
    }

    /// Closes windows until `x` falls in the one in progress (each closed one is counted:
    /// `x` is not the last packet's time).
    fn advance(&mut self, x: f64) {
        if x < self.window.end || self.stalled.is_some() {
            return;
        }
        self.close(true);
        match boundaries_around(self.window.end, self.w, x) {
            Some((start, end, n)) => {
                self.windows += n - 1;
                let open = self.tracks[HIGH].last;
                self.window = Window { index: self.window.index + n, start, end, bytes: 0, open };
            }
            None => self.stalled = Some(self.window.end),
        }
    }

    /// Closes the window in progress: keeps the outcome its bytes decide (`counted`: it is
    /// one of EnergyBox's windows, not the last, partial one).
    fn close(&mut self, counted: bool) {
        let w = self.window;
        let high = counted && w.bytes as f64 > self.s.threshold;
        if counted {
            self.windows += 1;
        }
        let keep = if high { HIGH } else { LOW };
        if high {
            self.high_windows += 1;
            if w.open == Some(EbState::Camh) {
                if let Some((k, _)) = self.last_high {
                    self.art.bridged_windows += w.index - k - 1;
                }
            }
            self.last_high = Some((w.index, w.end));
        }
        let [a, b] = &mut self.tracks;
        let (kept, other) = if keep == HIGH { (a, b) } else { (b, a) };
        self.out.append(&mut kept.changes);
        other.clone_from(kept);
        self.window.open = kept.last;
    }
}

/// EnergyBox's µs time of a frame `rel_ns` after the first: tshark prints the difference with
/// 9 decimals, EnergyBox parses it as a double, multiplies by 10⁶ and truncates (`longValue`).
pub fn micros(rel_ns: i128) -> i64 {
    // The double nearest to N / 10⁹ is what parsing the 9-decimal text gives; for |N| < 2⁵³,
    // N and 10⁹ are exact doubles and IEEE division rounds the quotient correctly.
    let secs = if rel_ns.unsigned_abs() < (1u128 << 53) {
        rel_ns as f64 / 1e9
    } else {
        let a = rel_ns.unsigned_abs();
        let mut buf = [0u8; 64];
        let n = {
            use std::io::Write as _;
            let mut w = &mut buf[..];
            let sign = if rel_ns < 0 { "-" } else { "" };
            let _ = write!(w, "{sign}{}.{:09}", a / 1_000_000_000, a % 1_000_000_000);
            64 - w.len()
        };
        std::str::from_utf8(&buf[..n]).ok().and_then(|t| t.parse().ok()).unwrap_or(0.0)
    };
    (secs * 1_000_000.0) as i64
}

/// Java's `Math.round` for the values EnergyBox rounds: the nearest integer, halves up.
fn round_half_up(y: f64) -> f64 {
    let r = y.floor();
    if y - r >= 0.5 {
        r + 1.0
    } else {
        r
    }
}

/// EnergyBox's window boundaries from `end` (a boundary ≤ `x`), each the floating-point sum
/// of the previous and `w`: the last boundary ≤ `x`, the first > `x`, and how many additions
/// led to it; `None` if the sums stop growing (EnergyBox would loop forever).
///
/// Within one binade (one exponent) every addition after the first adds the same number of
/// ulps (a half-way case rounds to even, after which the sums stay even), and the bit
/// patterns of positive doubles of one binade are consecutive integers: runs of additions are
/// taken at once, so the work grows with the number of binades crossed, not of windows.
pub fn boundaries_around(end: f64, w: f64, x: f64) -> Option<(f64, f64, u64)> {
    let (mut prev, mut c, mut n) = (end, end, 0u64);
    while c <= x {
        let next = c + w;
        if next <= c {
            return None;
        }
        let after = next + w;
        if c > 0.0 && binade(c) == binade(next) && binade(next) == binade(after) && after > next {
            let step = after.to_bits() - next.to_bits();
            let top = 2f64.powi(binade(next) + 1);
            let room = top.to_bits() - next.to_bits();
            let to_x = if x >= top { u64::MAX } else { x.to_bits().saturating_sub(next.to_bits()) };
            let k = (room.min(to_x) / step).saturating_sub(2);
            if k >= 4 {
                prev = f64::from_bits(next.to_bits() + (k - 1) * step);
                c = f64::from_bits(next.to_bits() + k * step);
                n += 1 + k;
                continue;
            }
        }
        prev = c;
        c = next;
        n += 1;
    }
    Some((prev, c, n))
}

/// The binary exponent of a positive normal double.
fn binade(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boundaries one addition at a time, as EnergyBox computes them.
    fn naive(end: f64, w: f64, x: f64) -> (f64, f64, u64) {
        let (mut prev, mut c, mut n) = (end, end, 0);
        while c <= x {
            prev = c;
            c += w;
            n += 1;
        }
        (prev, c, n)
    }

    #[test]
    fn window_boundaries_in_closed_form_equal_the_sums_one_by_one() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for w in [0.05, 0.001, 1e-6, 0.1, 0.3, 0.07, 1.0 / 3.0, 0.0125, 0.2] {
            for _ in 0..40 {
                let x = (rnd() % 4_000_000) as f64 * w / 3.7 + (rnd() % 1000) as f64 * 1e-7;
                let got = boundaries_around(w, w, x).unwrap();
                assert_eq!(got, naive(w, w, x), "w {w} x {x}");
                // From a boundary in the middle too.
                let (_, mid, _) = naive(w, w, x / 2.0);
                assert_eq!(boundaries_around(mid, w, x).unwrap(), naive(mid, w, x), "w {w} from {mid} to {x}");
            }
        }
        // The drift EnergyBox shows: the third boundary of 50 ms windows is above 0.15.
        assert_eq!(naive(0.05, 0.05, 0.12).1, 0.15000000000000002);
        // A gap of ten years at 1 ms windows is costed without walking its 3·10¹¹ windows.
        let (_, c, n) = boundaries_around(0.001, 0.001, 3.2e8).unwrap();
        assert!(c > 3.2e8 && n > 300_000_000_000, "{c} {n}");
        // Where the window is below half an ulp of the time, the sums stop growing.
        assert_eq!(boundaries_around(1e16, 0.5, 2e16), None);
    }

    #[test]
    fn times_go_through_tshark_text_and_a_double_as_energybox_reads_them() {
        assert_eq!(micros(249_000), 248); // 0.000249 × 10⁶ = 248.99999999999997
        assert_eq!(micros(29_000_000), 29_000);
        assert_eq!(micros(10_000_000), 10_000);
        assert_eq!(micros(-1_000_000), -1_000);
        // The text path (2⁵³ < |N|), as Python's float('1700000000.123456789') * 1e6 gives.
        assert_eq!(micros(1_700_000_000_123_456_789), 1_700_000_000_123_456);
        assert_eq!(micros(-9_007_199_254_740_993), -9_007_199_254_740);
        assert_eq!(round_half_up(522.5), 523.0);
        // A frame 249 µs after the first is at 248 µs for EnergyBox, and counted as such.
        let mut e = EnergyBoxEngine::new(s2(), false);
        e.frame(5_000_000_000, 100);
        e.frame(5_000_249_000, 100);
        let o = e.finish().unwrap().unwrap();
        assert_eq!(o.artifacts.truncated_times, 1);
        assert_eq!(o.time_s[1], 0.000248 + 0.2);
        assert_eq!(round_half_up(0.05225 * 10_000.0) / 10_000.0, 0.0523);
    }

    /// S2 powers, EnergyBox's default network settings.
    fn s2() -> EngineSettings {
        EngineSettings { inactivity_ms: 200.0, window_ms: 50.0, threshold: 3000.0, power_w: [0.03, 0.25, 0.45] }
    }

    fn run(frames: &[(u64, u32)]) -> (EngineOutcome, Vec<(f64, EbState)>) {
        let mut e = EnergyBoxEngine::new(s2(), true);
        for &(us, len) in frames {
            e.frame(1_000_000_000_000 + us * 1000, len);
        }
        let o = e.finish().unwrap().unwrap();
        let mut tl = Vec::new();
        e.drain_changes(|x, s| tl.push((x, s)));
        (o, tl)
    }

    #[test]
    fn a_streak_closes_late_bridges_empty_low_windows_and_runs_to_the_last_packet() {
        use EbState::*;
        // High window [0, 50 ms); no packet in [50, 100); high [100, 150); a packet at 160 ms
        // in a low window; the last packet at 400 ms.
        let mut f = vec![(0, 100)];
        f.extend((1..=3).map(|k| (k * 10_000, 1514)));
        f.extend((0..3).map(|k| (110_000 + k * 10_000, 1514)));
        f.push((160_000, 100));
        f.push((400_000, 100));
        let (o, tl) = run(&f);
        assert_eq!(o.artifacts.bridged_windows, 1, "{o:?}");
        assert_eq!(o.artifacts.late_streak_ends, 1);
        assert_eq!(o.artifacts.backwards_steps, 0);
        // CAMH from 0 to 151 ms (the second window's end + 1 ms), CAM to 360 ms, PSM to 400 ms,
        // CAM for 200 ms after it.
        assert_eq!(tl, vec![(0.0, Cam), (0.0, Camh), (0.15100000000000002, Cam), (0.36, Psm), (0.4, Cam), (0.6, Psm)]);
        let camh = 0.15100000000000002;
        assert!((o.time_s[2] - camh).abs() < 1e-12 && (o.time_s[0] - 0.04).abs() < 1e-12, "{:?}", o.time_s);
        // Windows end before the last packet (0.4 s): 0.05, 0.1, ..., 0.39999999999999997.
        assert_eq!((o.windows, o.high_windows), (8, 2));
    }
}
