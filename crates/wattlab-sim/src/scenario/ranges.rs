//! The valid range of every number in a scenario, checked before anything is built: a value
//! outside it is an error naming the file, line, column and key, never clamped or ignored.
//! The ranges are listed for users in `docs/scenario.md` ("Valid ranges"); the unit parsers
//! (`units`) already bound every rate (1 bit/s..=1 Tbit/s), size (..=1 PB) and duration
//! (..=365 days). Names, references and combinations are checked by `crate::build`.

use super::error::ScenarioError;
use super::schema::*;
use super::units::{Dur, Size};

/// 1 ms in ns.
const MS: u64 = 1_000_000;
/// 1 s in ns.
const S: u64 = 1_000_000_000;

/// Longest one-way propagation delay of a link or hop, and the largest jitter: 60 s.
pub const MAX_DELAY_NS: u64 = 60 * S;
/// Beacon intervals, PSM release and U-APSD trigger periods: 1 ms..=60 s.
pub const PERIOD_RANGE_NS: (u64, u64) = (MS, 60 * S);
/// Time-series sampling interval: 100 µs..=1 h.
pub const SAMPLE_RANGE_NS: (u64, u64) = (100_000, 3600 * S);
/// Queue limits in packets or frames: 1..=10^6.
pub const MAX_QUEUE_PACKETS: u64 = 1_000_000;
/// Queue limit in bytes: 1500 B..=1 GB.
pub const QUEUE_BYTES_RANGE: (u64, u64) = (1500, 1_000_000_000);

/// Largest window scale shift (RFC 7323 § 2.3).
pub const MAX_WINDOW_SCALE: u8 = 14;

/// The largest receive window TCP can advertise with window scale `shift` (none: 65535 B).
pub fn max_window(shift: Option<u8>) -> u64 {
    65_535u64 << shift.unwrap_or(0).min(MAX_WINDOW_SCALE)
}

/// Collects the first range error, located by key path in the scenario's text.
pub(crate) struct Check<'a> {
    origin: &'a str,
    source: &'a str,
    first: Option<ScenarioError>,
}

impl Check<'_> {
    fn fail(&mut self, key: &str, msg: String) {
        if self.first.is_none() {
            self.first = Some(ScenarioError::at_key(self.origin, self.source, key, msg));
        }
    }

    /// A duration in [min, max] ns; `what` names the range in the message.
    pub(crate) fn dur(&mut self, key: &str, d: Option<Dur>, min: u64, max: u64) {
        if let Some(Dur(v)) = d {
            if v < min || v > max {
                self.fail(
                    key,
                    format!(
                        "{} is out of range: must be {}",
                        fmt_ns(v),
                        range_ns(min, max)
                    ),
                );
            }
        }
    }

    /// A count or size in [min, max].
    pub(crate) fn num(&mut self, key: &str, v: Option<u64>, min: u64, max: u64, unit: &str) {
        if let Some(v) = v {
            if v < min || v > max {
                self.fail(
                    key,
                    format!("{v}{unit} is out of range: must be {min}..={max}{unit}"),
                );
            }
        }
    }

    /// A real number in [min, max] (finite).
    fn real(&mut self, key: &str, v: Option<f64>, min: f64, max: f64) {
        if let Some(v) = v {
            if !(v.is_finite() && v >= min && v <= max) {
                self.fail(
                    key,
                    format!("{v} is out of range: must be in [{min}, {max}]"),
                );
            }
        }
    }

    fn port(&mut self, key: &str, p: Option<u16>) {
        self.num(key, p.map(u64::from), 1, 65_535, "");
    }

    fn queue(&mut self, key: &str, q: &QueueConfig) {
        self.num(
            &format!("{key}.packets"),
            q.packets.map(u64::from),
            1,
            MAX_QUEUE_PACKETS,
            " packets",
        );
        self.num(
            &format!("{key}.bytes"),
            q.bytes.map(Size::bytes),
            QUEUE_BYTES_RANGE.0,
            QUEUE_BYTES_RANGE.1,
            " B",
        );
    }

    /// A client-centered agent's settings at `key`.
    pub(crate) fn agent(&mut self, key: &str, a: Option<&AgentSettings>) {
        let Some(a) = a else { return };
        for (name, d) in [
            ("fixed_threshold", a.fixed_threshold),
            ("min_sleep", a.min_sleep),
            ("wake_guard", a.wake_guard),
            ("probe_delay_floor", a.probe_delay_floor),
        ] {
            self.dur(&format!("{key}.{name}"), d, 0, 60 * S);
        }
        for (name, v) in [
            ("wake_var_factor", a.wake_var_factor),
            ("dynamic_var_floor", a.dynamic_var_floor),
            ("stage_var_factor", a.stage_var_factor),
        ] {
            self.real(&format!("{key}.{name}"), v, 0.0, 1e6);
        }
        self.num(&format!("{key}.lossy_windows_to_revert"), a.lossy_windows_to_revert.map(u64::from), 1, u64::from(u32::MAX), "");
    }

    fn direction(&mut self, key: &str, d: &DirectionConfig) {
        match &d.jitter {
            Some(JitterConfig::Constant { value }) => self.dur(
                &format!("{key}.jitter.value"),
                Some(*value),
                0,
                MAX_DELAY_NS,
            ),
            Some(JitterConfig::Uniform { min, max }) => {
                self.dur(&format!("{key}.jitter.max"), Some(*max), 0, MAX_DELAY_NS);
                if max < min {
                    self.fail(
                        &format!("{key}.jitter.max"),
                        "jitter.max is smaller than jitter.min".into(),
                    );
                }
            }
            Some(JitterConfig::Gamma { shape, scale }) => {
                self.real(&format!("{key}.jitter.shape"), Some(*shape), 1e-3, 1000.0);
                self.dur(
                    &format!("{key}.jitter.scale"),
                    Some(*scale),
                    1,
                    MAX_DELAY_NS,
                );
            }
            None => {}
        }
    }

    fn tcp(&mut self, key: &str, t: &TcpSettings) {
        self.num(
            &format!("{key}.mss"),
            t.mss.map(u64::from),
            88,
            65_495,
            " B",
        );
        self.num(&format!("{key}.window_scale"), t.window_scale.map(u64::from), 0, u64::from(MAX_WINDOW_SCALE), "");
        self.num(
            &format!("{key}.recv_buffer"),
            t.recv_buffer.map(Size::bytes),
            1,
            1 << 30,
            " B",
        );
        // The advertised window is a 16-bit field shifted by the scale (RFC 7323): a larger
        // buffer could never be offered to the sender, so it is refused, not clamped.
        if let Some(b) = t.recv_buffer.map(Size::bytes) {
            let shift = t.window_scale.unwrap_or(0).min(MAX_WINDOW_SCALE);
            let most = max_window(t.window_scale);
            if (1..=1 << 30).contains(&b) && b > most {
                let how = match t.window_scale {
                    None => "without window scaling the window field holds at most 65535 B: set tcp.window_scale (0..=14) or lower recv_buffer".to_string(),
                    Some(_) if shift < MAX_WINDOW_SCALE => {
                        let need = (0..=MAX_WINDOW_SCALE).find(|&s| max_window(Some(s)) >= b).unwrap_or(MAX_WINDOW_SCALE);
                        format!("with window_scale = {shift} the window field holds at most 65535 × 2^{shift} = {most} B: raise tcp.window_scale to {need} or lower recv_buffer")
                    }
                    Some(_) => format!("the largest window TCP can advertise is 65535 × 2^14 = {most} B"),
                };
                self.fail(&format!("{key}.recv_buffer"), format!("{b} B is more than TCP can advertise: {how}"));
            }
        }
        self.dur(
            &format!("{key}.delayed_ack_timeout"),
            t.delayed_ack_timeout,
            1_000,
            500 * MS,
        );
        self.num(&format!("{key}.ack_every"), t.ack_every.map(u64::from), 1, 64, " segments");
        self.num(
            &format!("{key}.initial_cwnd"),
            t.initial_cwnd.map(u64::from),
            1,
            1000,
            " segments",
        );
        self.dur(&format!("{key}.min_rto"), t.min_rto, MS, 60 * S);
    }

    /// A flow's start must fall inside the run.
    fn start(&mut self, key: &str, start: Option<Dur>, run: Dur) {
        if let Some(s) = start {
            if s >= run {
                self.fail(key, format!("the flow starts at {}, when the run has ended ([simulation] duration = {})", fmt_ns(s.0), fmt_ns(run.0)));
            }
        }
    }

    fn reader(&mut self, key: &str, r: &ReaderConfig) {
        if let Some([a, b]) = r.pause {
            if b <= a {
                self.fail(&format!("{key}.pause"), format!(
                    "the pause [{}, {}] is empty: give [start, end] with start < end (times from the flow's start)",
                    fmt_ns(a.0),
                    fmt_ns(b.0)
                ));
            }
        }
    }
}

/// Check every number of `scn` against its valid range; the first violation is returned,
/// located in `source` by its key.
pub fn check(scn: &Scenario, source: &str, origin: &str) -> Result<(), ScenarioError> {
    let mut c = Check {
        origin,
        source,
        first: None,
    };
    let run = scn.simulation.duration;
    c.dur(
        "simulation.duration",
        Some(run),
        1,
        super::units::MAX_DURATION_NS,
    );
    c.dur(
        "output.sample_interval",
        Some(scn.output.sample_interval),
        SAMPLE_RANGE_NS.0,
        SAMPLE_RANGE_NS.1,
    );
    c.num(
        "output.pcap_snaplen",
        Some(u64::from(scn.output.pcap_snaplen)),
        0,
        262_144,
        " B",
    );
    for (i, l) in scn.links.iter().enumerate() {
        let k = format!("link[{i}]");
        c.dur(&format!("{k}.delay"), Some(l.delay), 0, MAX_DELAY_NS);
        c.queue(&format!("{k}.queue"), &l.queue);
        c.direction(&format!("{k}.a_to_b"), &l.a_to_b);
        c.direction(&format!("{k}.b_to_a"), &l.b_to_a);
    }
    for (i, w) in scn.wireless.iter().enumerate() {
        let k = format!("wireless[{i}]");
        c.dur(&format!("{k}.mac_overhead"), w.mac_overhead, 0, S);
        c.dur(&format!("{k}.delay"), w.delay, 0, MAX_DELAY_NS);
        c.queue(&format!("{k}.queue"), &w.queue);
        c.direction(&format!("{k}.down"), &w.down);
        c.direction(&format!("{k}.up"), &w.up);
        w.power_save.check(&mut c, &k);
    }
    for (i, w) in scn.wlan.iter().enumerate() {
        let k = format!("wlan[{i}]");
        c.num(
            &format!("{k}.rts_threshold"),
            w.rts_threshold.map(Size::bytes),
            0,
            65_535,
            " B",
        );
        for (name, r) in [
            ("retry_limit", &w.retry_limit),
            ("long_retry_limit", &w.long_retry_limit),
        ] {
            if let Some(RetryLimit::Count(n)) = r.as_ref().map(|s| s.get_ref()) {
                c.num(
                    &format!("{k}.{name}"),
                    Some(u64::from(*n)),
                    0,
                    255,
                    " retries",
                );
            }
        }
        c.num(
            &format!("{k}.ap_queue"),
            w.ap_queue.map(u64::from),
            1,
            MAX_QUEUE_PACKETS,
            " frames",
        );
        c.num(
            &format!("{k}.station_queue"),
            w.station_queue.map(u64::from),
            1,
            MAX_QUEUE_PACKETS,
            " frames",
        );
        c.dur(
            &format!("{k}.propagation_delay"),
            w.propagation_delay,
            0,
            MS,
        );
        let (lo, hi) = PERIOD_RANGE_NS;
        c.dur(&format!("{k}.beacon_interval"), w.beacon_interval, lo, hi);
        w.power_save.check(&mut c, &k);
        for (j, s) in w.station_overrides.iter().enumerate() {
            s.power_save.check(&mut c, &format!("{k}.station[{j}]"));
            c.num(
                &format!("{k}.station[{j}].queue"),
                s.queue.map(u64::from),
                1,
                MAX_QUEUE_PACKETS,
                " frames",
            );
        }
    }
    for (i, t) in scn.tunnels.iter().enumerate() {
        let k = format!("tunnel[{i}]");
        c.num(&format!("{k}.burst"), t.burst.map(u64::from), 1, 1000, " packets");
        c.dur(&format!("{k}.inlet_timeout"), t.inlet_timeout, 1, 60 * S);
        c.dur(&format!("{k}.sack_delay"), t.sack_delay, 1, 500 * MS);
        c.dur(&format!("{k}.rto_min"), t.rto_min, MS, 60 * S);
        c.dur(&format!("{k}.rto_initial"), t.rto_initial, MS, 60 * S);
        c.real(&format!("{k}.trigger_alpha"), t.trigger_alpha, 1e-6, 1.0);
        c.dur(&format!("{k}.trigger_slot"), t.trigger_slot, MS, 60 * S);
        c.dur(&format!("{k}.trigger_min"), t.trigger_min, 1, 60 * S);
        c.dur(&format!("{k}.trigger_max"), t.trigger_max, 1, 60 * S);
    }
    for (i, f) in scn.flows.iter().enumerate() {
        let k = format!("flow[{i}]");
        if f.kind == "bulk-download" {
            c.num(&format!("{k}.request"), f.request.map(Size::bytes), 1, 1_000_000_000, " B");
        }
        c.port(&format!("{k}.port"), f.port);
        c.start(&format!("{k}.start"), f.start, run);
        if let Some(t) = &f.tcp {
            c.tcp(&format!("{k}.tcp"), t);
        }
        if let Some(r) = &f.reader {
            c.reader(&format!("{k}.reader"), r);
        }
        c.dur(&format!("{k}.duration"), f.duration, 1, super::units::MAX_DURATION_NS);
        c.dur(&format!("{k}.interval"), f.interval, 1_000, 3600 * S);
    }
    c.first.map_or(Ok(()), Err)
}

/// `"1.5ms"`, `"100us"`, `"60s"`, `"0s"`: a duration for messages, in the largest unit that
/// keeps it at least 1, written as a scenario would.
pub fn fmt_ns(ns: u64) -> String {
    let (v, unit) = match ns {
        0 => return "\"0s\"".into(),
        n if n >= S => (n as f64 / S as f64, "s"),
        n if n >= MS => (n as f64 / MS as f64, "ms"),
        n if n >= 1_000 => (n as f64 / 1e3, "us"),
        n => (n as f64, "ns"),
    };
    format!("\"{}{unit}\"", (v * 1e6).round() / 1e6)
}

fn range_ns(min: u64, max: u64) -> String {
    if min == 0 {
        format!("at most {}", fmt_ns(max))
    } else if min == 1 {
        format!("positive and at most {}", fmt_ns(max))
    } else {
        format!("{}..={}", fmt_ns(min), fmt_ns(max))
    }
}
