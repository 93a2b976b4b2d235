//! Slow-start exit for CUBIC (option `hystart`): Linux's HyStart and RFC 9406's HyStart++.
//!
//! Both watch the RTT of the newest segment each ACK covers, with the nanosecond send times of
//! the last [`SEND_TIMES`] new segments kept in a fixed ring (filled only during slow start,
//! emptied on a retransmission, Karn's rule). A round ends when an ACK passes the `snd_nxt` of
//! the round's start.
//!
//! `linux` (Ha & Rhee 2011 as `tcp_cubic.c` of Linux 6.18 runs it: `hystart = 1`,
//! `hystart_detect = 3`): rounds are counted on every ACK of slow start (a round starts at the
//! first ACK past the previous round's `snd_nxt`, whatever cwnd is: commit 25c1a9ca53db,
//! v6.14); once cwnd ≥ 16 segments (`hystart_low_window`), slow start ends (ssthresh = cwnd) on
//! - an **ACK train**: ACKs each within 2 ms (`hystart_ack_delta_us`) of the previous one,
//!   spanning more than (delay_min + ack delay)/2 since the round's first ACK; the ack delay is
//!   Linux's allowance for TSO/GRO, min(1 ms, 4·64 KiB / pacing rate) with the pacing rate
//!   2·cwnd/SRTT of slow start (`hystart_ack_delay`; the halving is for an unpaced sender);
//! - a **delay increase**: after 8 samples in a round (`HYSTART_MIN_SAMPLES`), the round's
//!   smallest RTT exceeds delay_min + clamp(delay_min/8, 4 ms, 16 ms) (`HYSTART_DELAY_THRESH`).
//!
//! delay_min is the smallest RTT seen on the connection (samples within 1 s of a congestion
//! epoch's start are dropped, as Linux's). It starts again after an RTO (`cubictcp_state`).
//!
//! `hystart++` (RFC 9406, initial slow start only): per round the smallest RTT of at least
//! N_RTT_SAMPLE = 8 samples (a round ends when an ACK passes its windowEnd); when it is at least last round's + clamp(last/8, 4 ms, 16 ms),
//! Conservative Slow Start (CSS) begins: growth min(N, L·SMSS)/CSS_GROWTH_DIVISOR (4) per ACK,
//! L = 8 for an unpaced sender (the simulator does not pace). A round in CSS whose smallest
//! RTT falls below the RTT that started CSS goes back to slow start; after CSS_ROUNDS = 5
//! rounds ssthresh = cwnd (congestion avoidance). A loss or RTO ends it for good.

use crate::tcp::named_option::named_option;
use crate::time::{Duration, Time};

/// Send times kept for RTT samples (new segments in flight during slow start).
pub const SEND_TIMES: usize = 256;
/// Linux's `hystart_low_window`: HyStart acts only from this cwnd on (segments).
pub const LOW_WINDOW: u32 = 16;
/// Linux's `hystart_ack_delta_us`: ACKs further apart break the train.
pub const ACK_DELTA: Duration = Duration::from_micros(2_000);
/// Linux's `HYSTART_MIN_SAMPLES` and RFC 9406's N_RTT_SAMPLE.
pub const MIN_SAMPLES: u32 = 8;
/// Lower clamp of the delay threshold (Linux `HYSTART_DELAY_MIN`, RFC 9406 MIN_RTT_THRESH).
pub const MIN_RTT_THRESH: Duration = Duration::from_millis(4);
/// Upper clamp of the delay threshold (Linux `HYSTART_DELAY_MAX`, RFC 9406 MAX_RTT_THRESH).
pub const MAX_RTT_THRESH: Duration = Duration::from_millis(16);
/// RFC 9406 CSS_GROWTH_DIVISOR.
pub const CSS_GROWTH_DIVISOR: u32 = 4;
/// RFC 9406 CSS_ROUNDS.
pub const CSS_ROUNDS: u32 = 5;
/// RFC 9406's byte-counting limit L for a sender that does not pace (segments).
pub const HSPP_ABC_LIMIT: u32 = 8;
/// Linux's `sk_gso_max_size` on veth and most NICs (`GSO_LEGACY_MAX_SIZE`), for the ack delay.
pub const GSO_MAX_SIZE: u64 = 65_536;

named_option! {
    /// Which slow-start exit CUBIC uses ("hystartpp" is an alias of "hystart++").
    pub enum HyStartMode("hystart") {
        /// Standard slow start until loss (RFC 5681), the textbook default.
        #[default]
        Off = "off",
        /// Linux's HyStart (ACK train and delay increase), on by default in Linux's CUBIC.
        Linux = "linux",
        /// RFC 9406 HyStart++ (delay increase, then Conservative Slow Start).
        HyStartPlusPlus = "hystart++",
    }
    aliases { "hystartpp" => HyStartPlusPlus }
    /// A name that matches no [`HyStartMode`].
    error UnknownHyStart;
}

/// Send times of new segments, oldest first, in a fixed ring (no allocation per segment).
#[derive(Clone, Debug)]
struct SendTimes {
    ring: [(u64, Time); SEND_TIMES],
    head: usize,
    len: usize,
}

impl SendTimes {
    fn new() -> Self {
        SendTimes { ring: [(0, Time::ZERO); SEND_TIMES], head: 0, len: 0 }
    }

    fn push(&mut self, end: u64, at: Time) {
        if self.len < SEND_TIMES {
            self.ring[(self.head + self.len) % SEND_TIMES] = (end, at);
            self.len += 1;
        }
    }

    /// Removes every segment ending at or before `ack`; the newest one's send time.
    fn ack(&mut self, ack: u64) -> Option<Time> {
        let mut newest = None;
        while self.len > 0 {
            let (end, at) = self.ring[self.head];
            if end > ack {
                break;
            }
            newest = Some(at);
            self.head = (self.head + 1) % SEND_TIMES;
            self.len -= 1;
        }
        newest
    }

    fn clear(&mut self) {
        self.len = 0;
    }
}

/// What one ACK told the slow-start exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Keep going.
    Continue,
    /// Leave slow start now: ssthresh = cwnd.
    Exit,
}

/// Counters of the exits taken, for tests and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HyStartStats {
    /// Linux: exits by ACK train.
    pub train_exits: u32,
    /// Linux: exits by delay increase; HyStart++: CSS rounds run out.
    pub delay_exits: u32,
    /// HyStart++: entries into Conservative Slow Start.
    pub css_entries: u32,
    /// HyStart++: returns from CSS to slow start (the RTT fell).
    pub css_back_to_ss: u32,
}

/// State of the slow-start exit of one connection.
#[derive(Clone, Debug)]
pub struct HyStart {
    mode: HyStartMode,
    times: SendTimes,
    /// The round ends when an ACK passes this position (snd_nxt at the round's start).
    end_seq: u64,
    round_start: Time,
    // --- Linux ---
    last_ack: Time,
    curr_rtt: Duration,
    sample_cnt: u32,
    delay_min: Option<Duration>,
    found: bool,
    // --- HyStart++ ---
    last_round_min: Option<Duration>,
    round_min: Option<Duration>,
    in_css: bool,
    css_baseline: Option<Duration>,
    css_rounds: u32,
    /// HyStart++ ran its course (loss, RTO or CSS over): plain slow start from now on.
    done: bool,
    stats: HyStartStats,
}

impl HyStart {
    /// A fresh state for `mode` (not [`HyStartMode::Off`]).
    pub fn new(mode: HyStartMode) -> Self {
        HyStart {
            mode,
            times: SendTimes::new(),
            end_seq: 0,
            round_start: Time::ZERO,
            last_ack: Time::ZERO,
            curr_rtt: Duration::MAX,
            sample_cnt: 0,
            delay_min: None,
            found: false,
            last_round_min: None,
            round_min: None,
            in_css: false,
            css_baseline: None,
            css_rounds: 0,
            done: false,
            stats: HyStartStats::default(),
        }
    }

    /// The mode.
    pub fn mode(&self) -> HyStartMode {
        self.mode
    }

    /// Exits taken so far.
    pub fn stats(&self) -> HyStartStats {
        self.stats
    }

    /// Smallest RTT seen (Linux's delay_min).
    pub fn delay_min(&self) -> Option<Duration> {
        self.delay_min
    }

    /// HyStart++ is in Conservative Slow Start.
    pub fn in_css(&self) -> bool {
        self.in_css
    }

    /// Whether slow start should still time segments (cheap test for the send path).
    fn watching(&self) -> bool {
        match self.mode {
            HyStartMode::Linux => !self.found,
            HyStartMode::HyStartPlusPlus => !self.done,
            HyStartMode::Off => false,
        }
    }

    /// A segment [.., end) left at `now`; only new data sent in slow start is timed.
    pub fn on_sent(&mut self, now: Time, end: u64, retransmission: bool, in_slow_start: bool) {
        if retransmission {
            self.times.clear(); // Karn: ACKs of resent data give no sample
        } else if in_slow_start && self.watching() {
            self.times.push(end, now);
        }
    }

    /// Slow-start increase for `bytes_acked` (HyStart++: limit L, divided by 4 in CSS); the
    /// caller's byte-counting limit `abc` (bytes) otherwise.
    pub fn slow_start_increase(&self, bytes_acked: u32, mss: u32, abc: u32) -> u32 {
        if self.mode != HyStartMode::HyStartPlusPlus || self.done {
            return bytes_acked.min(abc);
        }
        let n = bytes_acked.min(HSPP_ABC_LIMIT.max(abc / mss.max(1)) * mss);
        if self.in_css {
            n / CSS_GROWTH_DIVISOR
        } else {
            n
        }
    }

    /// An ACK of new data up to `ack` at `now` (before window growth); `snd_nxt` when it
    /// arrived, the window in segments, the SRTT, whether slow start is on, and whether a
    /// CUBIC epoch began less than 1 s ago (Linux drops those delay samples).
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(&mut self, now: Time, ack: u64, snd_nxt: u64, cwnd_segs: u32, srtt: Option<Duration>, in_slow_start: bool, fresh_epoch: bool) -> Verdict {
        let sent = self.times.ack(ack);
        let rtt = sent.map(|t| now.saturating_since(t).max(Duration::from_nanos(1)));
        match self.mode {
            HyStartMode::Off => Verdict::Continue,
            HyStartMode::Linux => {
                if fresh_epoch {
                    return Verdict::Continue; // Linux ignores the ACK's sample altogether
                }
                if let Some(rtt) = rtt {
                    if self.delay_min.is_none_or(|d| rtt < d) {
                        self.delay_min = Some(rtt);
                    }
                }
                if self.found || !in_slow_start {
                    return Verdict::Continue;
                }
                self.linux_update(now, ack, snd_nxt, cwnd_segs, srtt, rtt)
            }
            HyStartMode::HyStartPlusPlus => {
                if self.done || !in_slow_start {
                    return Verdict::Continue;
                }
                self.hspp_update(ack, snd_nxt, rtt)
            }
        }
    }

    /// Linux's `hystart_update`; `rtt` is None for an ACK whose segment was not timed (the
    /// ring was full): the train test still runs, the delay test skips it.
    ///
    /// The round boundary is checked on every ACK of slow start, *before* the low-window test:
    /// Linux commit 25c1a9ca53db ("tcp_cubic: fix incorrect HyStart round start detection",
    /// v6.14, in 6.1+ stable; the 6.18 testbed has it). Checked only from cwnd ≥ 16 on, as
    /// before that fix, the first round starts at the ACK that brings cwnd to 16, in the
    /// middle of a burst, and every later round boundary stays there: rounds then begin with
    /// ACKs that queued behind half a burst, so the delay test sees the queue's growth within
    /// a burst as a rise of the RTT and slow start ends early (at half the window Linux
    /// reaches on a 50 Mb/s 90 ms path; docs/tcp.md).
    fn linux_update(&mut self, now: Time, ack: u64, snd_nxt: u64, cwnd_segs: u32, srtt: Option<Duration>, rtt: Option<Duration>) -> Verdict {
        if ack > self.end_seq {
            // bictcp_hystart_reset
            self.round_start = now;
            self.last_ack = now;
            self.end_seq = snd_nxt;
            self.curr_rtt = Duration::MAX;
            self.sample_cnt = 0;
        }
        if cwnd_segs < LOW_WINDOW {
            return Verdict::Continue; // hystart_low_window
        }
        let Some(delay_min) = self.delay_min else { return Verdict::Continue };
        if now.saturating_since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            let threshold = Duration::from_nanos((delay_min.as_nanos() + ack_delay(cwnd_segs, srtt).as_nanos()) / 2);
            if now.saturating_since(self.round_start) > threshold {
                self.found = true;
                self.stats.train_exits += 1;
                return Verdict::Exit;
            }
        }
        let Some(rtt) = rtt else { return Verdict::Continue };
        self.curr_rtt = self.curr_rtt.min(rtt);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self.curr_rtt > delay_min + rtt_thresh(delay_min) {
            self.found = true;
            self.stats.delay_exits += 1;
            return Verdict::Exit;
        }
        Verdict::Continue
    }

    fn hspp_update(&mut self, ack: u64, snd_nxt: u64, rtt: Option<Duration>) -> Verdict {
        if ack > self.end_seq {
            // A round ended (RFC 9406 §4.2; "passes" windowEnd, as Linux's round test, so an
            // ACK of exactly windowEnd sent before anything new left does not end two rounds).
            let first = self.end_seq == 0;
            self.end_seq = snd_nxt;
            self.last_round_min = self.round_min;
            self.round_min = None;
            self.sample_cnt = 0;
            if self.in_css && !first {
                self.css_rounds += 1;
                if self.css_rounds >= CSS_ROUNDS {
                    self.done = true;
                    self.in_css = false;
                    self.stats.delay_exits += 1;
                    return Verdict::Exit;
                }
            }
        }
        let Some(rtt) = rtt else { return Verdict::Continue };
        self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
        self.sample_cnt += 1;
        if self.sample_cnt < MIN_SAMPLES {
            return Verdict::Continue;
        }
        let cur = self.round_min.unwrap_or(rtt);
        if self.in_css {
            if self.css_baseline.is_some_and(|b| cur < b) {
                self.in_css = false;
                self.css_baseline = None;
                self.stats.css_back_to_ss += 1;
            }
        } else if let Some(last) = self.last_round_min {
            if cur >= last + rtt_thresh(last) {
                self.in_css = true;
                self.css_baseline = Some(cur);
                self.css_rounds = 0;
                self.stats.css_entries += 1;
            }
        }
        Verdict::Continue
    }

    /// A congestion event (fast retransmit): HyStart++ is over; Linux keeps its state.
    pub fn on_congestion(&mut self) {
        self.times.clear();
        if self.mode == HyStartMode::HyStartPlusPlus {
            self.done = true;
            self.in_css = false;
        }
    }

    /// An RTO: Linux starts HyStart afresh (`cubictcp_state(TCP_CA_Loss)`: `bictcp_reset`
    /// zeroes `found` and `delay_min`, `bictcp_hystart_reset` starts a round); HyStart++ is
    /// over (RFC 9406 applies to the initial slow start).
    pub fn on_timeout(&mut self) {
        self.on_congestion();
        if self.mode == HyStartMode::Linux {
            self.found = false;
            self.delay_min = None;
            self.end_seq = 0;
            self.curr_rtt = Duration::MAX;
            self.sample_cnt = 0;
        }
    }
}

/// clamp(rtt/8, 4 ms, 16 ms): Linux's `HYSTART_DELAY_THRESH(delay_min >> 3)`, RFC 9406's RttThresh.
pub fn rtt_thresh(rtt: Duration) -> Duration {
    Duration::from_nanos(rtt.as_nanos() / 8).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
}

/// Linux's `hystart_ack_delay`: min(1 ms, 4·GSO_MAX_SIZE / pacing rate), the pacing rate in
/// slow start being 2·cwnd·MSS/SRTT (`tcp_pacing_ss_ratio` = 200 %); 0 before an SRTT.
/// Written per segment of 1448 B: the rate's MSS and the GSO size are both in bytes.
pub fn ack_delay(cwnd_segs: u32, srtt: Option<Duration>) -> Duration {
    let Some(srtt) = srtt else { return Duration::ZERO };
    let rate = 2.0 * cwnd_segs as f64 * 1448.0 / srtt.as_secs_f64().max(1e-9); // B/s
    Duration::from_secs_f64((4.0 * GSO_MAX_SIZE as f64 / rate).min(1e-3))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Drives one slow-start round per call: `acks` ACKs of 2 segments each, the i-th arriving
    /// `spacing` after the previous one, each timing a segment sent `rtt` earlier. Returns the
    /// verdicts' first exit, if any, and the position reached.
    struct Driver {
        h: HyStart,
        now: Time,
        pos: u64,
        /// cwnd in bytes.
        cwnd: u32,
    }

    impl Driver {
        fn new(mode: HyStartMode, cwnd: u32) -> Self {
            Driver { h: HyStart::new(mode), now: Time::from_secs_f64(1.0), pos: 0, cwnd: cwnd * MSS as u32 }
        }

        fn segs(&self) -> u32 {
            self.cwnd / MSS as u32
        }

        /// One round: the cwnd's segments sent back to back at the round's start, ACKed in
        /// pairs `spacing` apart, each pair `rtt` after its sending; slow start doubles cwnd.
        fn round(&mut self, rtt: Duration, spacing: Duration) -> Option<u32> {
            let start = self.now;
            let segs = self.segs() as u64;
            for i in 0..segs {
                self.h.on_sent(start, self.pos + (i + 1) * MSS, false, true);
            }
            let snd_nxt = self.pos + segs * MSS;
            let mut exit = None;
            for k in 0..segs / 2 {
                let at = start + rtt + spacing.saturating_mul(k);
                let ack = self.pos + (2 * k + 2) * MSS;
                // Put the send time of this pair `rtt` before its ACK (queueing grows within
                // the round when spacing > 0: the pair waited behind the earlier ones).
                self.h.times.ring.iter_mut().for_each(|e| {
                    if e.0 > ack - 2 * MSS && e.0 <= ack {
                        e.1 = at - rtt;
                    }
                });
                let v = self.h.on_ack(at, ack, snd_nxt, self.segs(), Some(rtt), true, false);
                if exit.is_none() && v == Verdict::Exit {
                    exit = Some(self.segs());
                }
                self.cwnd += self.h.slow_start_increase(2 * MSS as u32, MSS as u32, 2 * MSS as u32);
                self.now = at;
            }
            self.pos = snd_nxt;
            self.now += Duration::from_millis(1);
            exit
        }
    }

    #[test]
    fn names_parse() {
        for m in HyStartMode::ALL {
            assert_eq!(HyStartMode::from_name(&m.name().to_uppercase()), Ok(m));
        }
        assert_eq!(HyStartMode::from_name("HyStartPP"), Ok(HyStartMode::HyStartPlusPlus));
        assert_eq!(HyStartMode::from_name("cubic").unwrap_err().to_string(), "unknown hystart `cubic` (known: off, linux, hystart++)");
    }

    #[test]
    fn thresholds_clamp_at_4_and_16_ms() {
        assert_eq!(rtt_thresh(Duration::from_millis(10)), Duration::from_millis(4));
        assert_eq!(rtt_thresh(Duration::from_millis(80)), Duration::from_millis(10));
        assert_eq!(rtt_thresh(Duration::from_millis(400)), Duration::from_millis(16));
        assert_eq!(ack_delay(16, None), Duration::ZERO);
        // 16 segments per 60 ms at 2x: 772 kB/s; 4 x 64 KiB of it is 0.34 s: clamped to 1 ms.
        assert_eq!(ack_delay(16, Some(Duration::from_millis(60))), Duration::from_millis(1));
    }

    #[test]
    fn linux_constant_rtt_short_trains_never_exit() {
        // 100 ms RTT, ACKs in bursts 0.5 ms apart: a round's train spans at most
        // 0.5 ms x cwnd/2 < 50.5 ms until cwnd reaches ~200; stop at 128.
        let mut d = Driver::new(HyStartMode::Linux, 16);
        for _ in 0..3 {
            assert_eq!(d.round(Duration::from_millis(100), Duration::from_micros(500)), None);
        }
        assert_eq!(d.segs(), 128);
        assert_eq!(d.h.stats(), HyStartStats::default());
    }

    #[test]
    fn linux_rising_rtt_exits_by_delay_in_the_right_round() {
        // delay_min 100 ms: threshold 100 + clamp(12.5) = 112.5 ms. RTTs 100, 105, 110, 115:
        // the fourth round (cwnd 128) exits after its 8 samples, ssthresh = cwnd then.
        let mut d = Driver::new(HyStartMode::Linux, 16);
        let spacing = Duration::from_micros(100);
        for (i, rtt) in [100, 105, 110].into_iter().enumerate() {
            assert_eq!(d.round(Duration::from_millis(rtt), spacing), None, "round {i}");
        }
        assert_eq!(d.segs(), 128);
        let exit = d.round(Duration::from_millis(115), spacing);
        // The exit comes on the 9th ACK of the round: 8 ACKs of 2 segments grew cwnd by 16.
        assert_eq!(exit, Some(128 + 16));
        assert_eq!(d.h.stats().delay_exits, 1);
        assert_eq!(d.h.stats().train_exits, 0);
        assert_eq!(d.h.delay_min(), Some(Duration::from_millis(100)));
    }

    #[test]
    fn linux_ack_train_exits_when_it_spans_half_the_min_rtt() {
        // 40 ms RTT, ACK pairs 1.2 ms apart (20 Mb/s, 1500 B): threshold (40 + 1)/2 = 20.5 ms
        // = 17.08 pair spacings: the 19th ACK of a round (k = 18, 21.6 ms) crosses it if the
        // round is that long, i.e. from cwnd 64 (32 ACKs) on; cwnd 16 and 32 rounds are shorter.
        let mut d = Driver::new(HyStartMode::Linux, 16);
        let spacing = Duration::from_micros(1_200);
        assert_eq!(d.round(Duration::from_millis(40), spacing), None);
        assert_eq!(d.round(Duration::from_millis(40), spacing), None);
        assert_eq!(d.segs(), 64);
        assert_eq!(d.round(Duration::from_millis(40), spacing), Some(64 + 2 * 18));
        assert_eq!(d.h.stats().train_exits, 1);
        // Linux's delay test never saw a rise.
        assert_eq!(d.h.stats().delay_exits, 0);
    }

    #[test]
    fn linux_waits_for_the_low_window() {
        // A train 1 ms apart spanning 30 ms against a 10 ms delay_min: an exit from 16 segments
        // on, nothing at 15.
        for (cwnd, exits) in [(15, false), (16, true)] {
            let mut h = HyStart::new(HyStartMode::Linux);
            let t0 = Time::from_secs_f64(1.0);
            h.on_sent(t0, 1000, false, true);
            let mut exit = false;
            for k in 0..30u64 {
                let at = t0 + Duration::from_millis(10 + k);
                exit |= h.on_ack(at, 1000 * (k + 1), 100_000, cwnd, None, true, false) == Verdict::Exit;
            }
            assert_eq!(exit, exits, "cwnd {cwnd}");
        }
    }

    #[test]
    fn hystart_pp_enters_css_returns_when_rtt_falls_and_exits_after_5_rounds() {
        let mut d = Driver::new(HyStartMode::HyStartPlusPlus, 16);
        let s = Duration::from_micros(100);
        assert_eq!(d.round(Duration::from_millis(100), s), None);
        assert!(!d.h.in_css());
        // +12.5 ms = RttThresh for 100 ms: CSS after 8 samples; growth drops to 1/4.
        assert_eq!(d.round(Duration::from_millis(113), s), None);
        assert!(d.h.in_css());
        assert_eq!(d.h.stats().css_entries, 1);
        let before = d.segs();
        // RTT falls below the CSS baseline (113 ms): back to slow start.
        assert_eq!(d.round(Duration::from_millis(101), s), None);
        assert!(!d.h.in_css());
        assert_eq!(d.h.stats().css_back_to_ss, 1);
        let grown = d.segs() - before;
        assert!(grown > before / 2, "full slow start again after the fall: +{grown} from {before}");
        // Rises again: CSS, then five rounds of it end slow start with ssthresh = cwnd.
        assert_eq!(d.round(Duration::from_millis(120), s), None);
        assert!(d.h.in_css());
        let mut exit = None;
        let mut css_rounds = 0;
        for _ in 0..6 {
            let before = d.segs();
            exit = exit.or(d.round(Duration::from_millis(120), s));
            if exit.is_none() {
                // CSS grows by a quarter of slow start's: +cwnd/4 per round.
                css_rounds += 1;
                assert!((d.segs() - before).abs_diff(before / 4) <= 1, "CSS growth {} from {before}", d.segs() - before);
            }
        }
        // The round that started CSS plus 4 whole CSS rounds; the 5th CSS round's end exits.
        assert_eq!(css_rounds, 4);
        assert!(exit.is_some());
        assert_eq!(d.h.stats().delay_exits, 1);
        assert_eq!(d.h.stats().css_entries, 2);
    }

    #[test]
    fn hystart_pp_constant_rtt_never_leaves_slow_start() {
        let mut d = Driver::new(HyStartMode::HyStartPlusPlus, 16);
        for _ in 0..5 {
            assert_eq!(d.round(Duration::from_millis(60), Duration::from_micros(1_200)), None);
        }
        assert!(!d.h.in_css());
        assert_eq!(d.segs(), 16 << 5);
        assert_eq!(d.h.stats(), HyStartStats::default());
    }

    /// Slow start from IW10 over one FIFO bottleneck (service `svc` per segment, base RTT
    /// `rtt`), one ACK per segment, two new segments per ACK (cwnd += 1), as Linux's sender
    /// and a receiver that reads at once: each burst queues behind itself, the queue empties
    /// between bursts while cwnd is below the BDP. Returns (exit cwnd, stats) at the first exit.
    fn bottleneck_slow_start(svc: Duration, rtt: Duration) -> (Option<u32>, HyStartStats) {
        let mut h = HyStart::new(HyStartMode::Linux);
        let t0 = Time::from_secs_f64(1.0);
        let mut acks = std::collections::VecDeque::new(); // (ack time, end) in FIFO order
        let mut last_departure = t0;
        let mut snd_nxt = 0u64;
        let mut send = |h: &mut HyStart, acks: &mut std::collections::VecDeque<(Time, u64)>, at: Time, snd_nxt: &mut u64| {
            *snd_nxt += MSS;
            h.on_sent(at, *snd_nxt, false, true);
            let arrive = at + Duration::from_nanos(rtt.as_nanos() / 2);
            last_departure = if arrive > last_departure { arrive } else { last_departure } + svc;
            acks.push_back((last_departure + Duration::from_nanos(rtt.as_nanos() / 2), *snd_nxt));
        };
        for _ in 0..10 {
            send(&mut h, &mut acks, t0, &mut snd_nxt);
        }
        let mut cwnd = 10u32;
        while let Some((at, end)) = acks.pop_front() {
            if h.on_ack(at, end, snd_nxt, cwnd, Some(rtt), true, false) == Verdict::Exit {
                return (Some(cwnd), h.stats());
            }
            cwnd += 1;
            if cwnd > 4000 {
                break;
            }
            send(&mut h, &mut acks, at, &mut snd_nxt);
            send(&mut h, &mut acks, at, &mut snd_nxt);
        }
        (None, h.stats())
    }

    #[test]
    fn linux_rounds_start_below_the_low_window_so_the_train_ends_slow_start() {
        // 50 Mb/s (1514 B frames: 242 us), 90 ms: BDP 372 segments. Rounds start at each burst's
        // first ACK (counted from the IW on, commit 25c1a9ca53db), so every round's first 8
        // RTT samples see an empty queue and the delay test stays quiet; the ACK train of the
        // 320-segment round passes (90 + 1)/2 ms after 188 ACKs: exit at 320 + 188 = 508, what
        // the testbed's kernel did (docs/tcp.md). Counting rounds only from cwnd 16 on (the
        // kernel before that fix, and this model before) starts them mid-burst behind a queue:
        // a delay exit at cwnd 264 (checked by moving the low-window test back).
        let (exit, stats) = bottleneck_slow_start(Duration::from_micros(242), Duration::from_millis(90));
        assert_eq!(stats.delay_exits, 0, "{stats:?}");
        assert_eq!(stats.train_exits, 1, "{stats:?}");
        let cwnd = exit.expect("an exit");
        assert!((500..=516).contains(&cwnd), "exit at cwnd {cwnd}");
    }

    #[test]
    fn linux_rto_forgets_delay_min() {
        // bictcp_reset on TCP_CA_Loss zeroes delay_min: after an RTO the first new sample sets it.
        let mut h = HyStart::new(HyStartMode::Linux);
        h.on_sent(Time::ZERO, 1000, false, true);
        h.on_ack(Time::from_secs_f64(0.05), 1000, 1000, 10, None, true, false);
        assert_eq!(h.delay_min(), Some(Duration::from_millis(50)));
        h.on_timeout();
        assert_eq!(h.delay_min(), None);
        h.on_sent(Time::from_secs_f64(1.0), 2000, false, true);
        h.on_ack(Time::from_secs_f64(1.08), 2000, 2000, 1, None, true, false);
        assert_eq!(h.delay_min(), Some(Duration::from_millis(80)));
    }

    #[test]
    fn retransmission_forgets_send_times() {
        let mut h = HyStart::new(HyStartMode::Linux);
        h.on_sent(Time::ZERO, 1000, false, true);
        h.on_sent(Time::ZERO, 2000, true, true);
        h.on_ack(Time::from_secs_f64(5.0), 2000, 2000, 20, None, true, false);
        assert_eq!(h.delay_min(), None, "no sample from an ACK of resent data");
    }
}
