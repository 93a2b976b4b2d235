//! The valid range of every number in a scenario, checked before anything is built: a value
//! outside it is an error naming the file, line, column and key, never clamped or ignored.
//! The ranges are listed for users in `docs/scenario.md` ("Valid ranges"); the unit parsers
//! (`units`) already bound every rate (1 bit/s..=1 Tbit/s), size (..=1 PB) and duration
//! (..=365 days). Each kind of `[[flow]]` checks its own keys beside its struct (`flow`).
//! Names, references and combinations are checked by `crate::build`.

pub use super::check::fmt_ns;
use super::check::{Check, MS, S};
use super::error::ScenarioError;
use super::schema::*;
use super::units::Size;

/// Longest one-way propagation delay of a link or hop, and the largest jitter: 60 s.
pub const MAX_DELAY_NS: u64 = 60 * S;
/// Beacon intervals, PSM release and U-APSD trigger periods: 1 ms..=60 s.
pub const PERIOD_RANGE_NS: (u64, u64) = (MS, 60 * S);
/// Longest per-packet time in a client-centered agent (`agent.incoming_delay`, `outgoing_delay`): 10 ms.
pub const MAX_AGENT_DELAY_NS: u64 = 10 * MS;
/// Time-series sampling interval: 100 µs..=1 h.
pub const SAMPLE_RANGE_NS: (u64, u64) = (100_000, 3600 * S);
/// A host's transmit time per packet (`node.tx_time`): 0..=1 ms (a 12 kbit/s NIC's 1500-byte
/// frame; a host's own path takes microseconds).
pub const MAX_TX_TIME_NS: u64 = MS;
/// Queue limits in packets or frames: 1..=10^6.
pub const MAX_QUEUE_PACKETS: u64 = 1_000_000;
/// Queue limit in bytes: 1500 B..=1 GB.
pub const QUEUE_BYTES_RANGE: (u64, u64) = (1500, 1_000_000_000);

impl Check<'_> {
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
        for (name, d) in [("incoming_delay", a.incoming_delay), ("outgoing_delay", a.outgoing_delay)] {
            self.dur(&format!("{key}.{name}"), d, 0, MAX_AGENT_DELAY_NS);
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
}

/// Check every number of `scn` against its valid range; the first violation is returned,
/// located in `source` by its key.
pub fn check(scn: &Scenario, source: &str, origin: &str) -> Result<(), ScenarioError> {
    let mut c = Check::new(origin, source);
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
    for (i, n) in scn.nodes.iter().enumerate() {
        c.dur(&format!("node[{i}].tx_time"), n.tx_time, 0, MAX_TX_TIME_NS);
    }
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
        c.num(&format!("{k}.max_burst"), t.max_burst.map(u64::from), 0, 1000, " packets");
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
        f.check_ranges(&format!("flow[{i}]"), run, &mut c);
    }
    c.finish()
}
