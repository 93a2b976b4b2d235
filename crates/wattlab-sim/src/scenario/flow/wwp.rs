//! `[[flow]] kind = "wwp-bulk"` ([`WwpBulkFlow`]) and its `wwp = { ... }` table: overrides of
//! the Wave & Wait Protocol's parameters ([`WwpConfig`]), written with the scenario's units.
//! Users read `docs/scenario.md`; what each parameter means is in `docs/wwp.md`.

use crate::scenario::check::Check;
use crate::scenario::units::{Dur, Rate, Size, MAX_DURATION_NS};
use serde::Deserialize;
use wattlab_core::packet::{IPV4_HEADER_LEN, UDP_HEADER_LEN};
use wattlab_core::wire::{MAX_IPV4_LEN, WWP_HEADER_LEN};
use wattlab_core::wwp::{BaselineSpan, ProbeInWave, WaveEnd, WwpConfig, MAX_SEGMENT_SIZE};

/// `kind = "wwp-bulk"`: a WWP transfer from `from` to `to`, of `bytes` or for `duration`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WwpBulkFlow {
    /// Node that sends.
    pub from: String,
    /// Node that receives.
    pub to: String,
    /// Bytes to transfer (default: a stream until `duration` or the run's end).
    #[serde(default)]
    pub bytes: Option<Size>,
    /// How long to send (default: until `bytes` are delivered or the run stops).
    #[serde(default)]
    pub duration: Option<Dur>,
    /// Bytes the application writes at a time (default 1024 B).
    #[serde(default)]
    pub packet_size: Option<Size>,
    /// Overrides of the WWP parameters.
    #[serde(default)]
    pub wwp: Option<WwpSettings>,
}

impl WwpBulkFlow {
    /// Checks every number against its valid range; `key` is the flow's path (`flow[0]`).
    pub(crate) fn check_ranges(&self, key: &str, c: &mut Check) {
        c.dur(&format!("{key}.duration"), self.duration, 1, MAX_DURATION_NS);
    }
}

/// WWP parameter overrides; every key is optional and defaults to the paper's value.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WwpSettings {
    /// DATA payload bytes per segment (default 1024 B).
    #[serde(default)]
    pub segment_size: Option<Size>,
    /// Segments per level: W(i) = wave_unit · i (default 12).
    #[serde(default)]
    pub wave_unit: Option<u16>,
    /// Baseline throughput BT (default 40 KiB/s = 40 960 B/s, written `"327.68kbps"`).
    #[serde(default)]
    pub baseline_throughput: Option<Rate>,
    /// Raise BT when a wave arrives faster (default false, as the paper's implementation).
    #[serde(default)]
    pub adaptive_bt: Option<bool>,
    /// `"rest-of-wave"` (default) or `"whole-wave"`: what B(i) covers.
    #[serde(default)]
    pub baseline_span: Option<BaselineSpan>,
    /// `"all-arrived"` (default) or `"last-segment"`: when a wave ends before REC_T.
    #[serde(default)]
    pub wave_end: Option<WaveEnd>,
    /// `"answer"` (default: the paper's literal rule) or `"ignore"`: probes while a wave arrives.
    #[serde(default)]
    pub probe_in_wave: Option<ProbeInWave>,
    /// REC_T, the receiver's wave timeout (default 2 s).
    #[serde(default)]
    pub rec_t: Option<Dur>,
    /// SEND_T, the sender's feedback timeout (default 1 s).
    #[serde(default)]
    pub send_t: Option<Dur>,
    /// Pause after a level-0 feedback before probing (default 1 s).
    #[serde(default)]
    pub pause: Option<Dur>,
    /// Sender buffer in segments (default 40).
    #[serde(default)]
    pub send_buffer_segments: Option<u16>,
    /// Receiver buffer in segments (default 256).
    #[serde(default)]
    pub recv_buffer_segments: Option<u16>,
    /// Level of a short final wave (default 1).
    #[serde(default)]
    pub short_wave_level: Option<u8>,
    /// Handshake retransmission interval (default 1 s).
    #[serde(default)]
    pub handshake_retry: Option<Dur>,
    /// Retransmissions of one handshake message (default 1).
    #[serde(default)]
    pub handshake_retries: Option<u8>,
    /// The listener's wait for SYN_ACK2 (default 3 s).
    #[serde(default)]
    pub ready_timeout: Option<Dur>,
    /// The opener's wait for D_WAIT (default 6 s).
    #[serde(default)]
    pub dwait_timeout: Option<Dur>,
    /// Fail after this long with nothing from the peer (default 60 s; `"0s"` disables it).
    #[serde(default)]
    pub idle_timeout: Option<Dur>,
    /// Handshake RTTs at or above this abandon the connection (default 500 ms).
    #[serde(default)]
    pub rtt_threshold: Option<Dur>,
    /// Fraction by which the two handshake RTTs may differ and count as equal (default 0.2).
    #[serde(default)]
    pub rtt_equal_tolerance: Option<f64>,
    /// Probe RTT ≤ base·(1 + ε) gives level 3 (default 0.2).
    #[serde(default)]
    pub probe_rtt_epsilon: Option<f64>,
    /// Highest level a P-S_ACK may give, 1..=3 (default 3).
    #[serde(default)]
    pub probe_level_cap: Option<u8>,
}

impl WwpSettings {
    /// The configuration these settings give; an error is (key inside `wwp`, message).
    pub fn config(&self) -> Result<WwpConfig, (&'static str, String)> {
        let mut c = WwpConfig::default();
        if let Some(s) = self.segment_size {
            c.segment_size = u16::try_from(s.bytes()).ok().filter(|&n| (1..=MAX_SEGMENT_SIZE).contains(&n)).ok_or((
                "segment_size",
                format!(
                    "{} B is out of range: must be 1..={MAX_SEGMENT_SIZE} B (a segment is one UDP datagram: IPv4 {IPV4_HEADER_LEN} B + UDP {UDP_HEADER_LEN} B + WWP {WWP_HEADER_LEN} B + payload ≤ {MAX_IPV4_LEN} B)",
                    s.bytes()
                ),
            ))?;
        }
        set(&mut c.wave_unit, self.wave_unit, "wave_unit", |v| (1..=341).contains(&v), "must be 1..=341 segments")?;
        if let Some(r) = self.baseline_throughput {
            c.baseline_throughput = (r.bps() / 8).max(1);
        }
        c.adaptive_bt = self.adaptive_bt.unwrap_or(c.adaptive_bt);
        c.baseline_span = self.baseline_span.unwrap_or(c.baseline_span);
        c.wave_end = self.wave_end.unwrap_or(c.wave_end);
        c.probe_in_wave = self.probe_in_wave.unwrap_or(c.probe_in_wave);
        for (slot, v, key) in [
            (&mut c.rec_t, self.rec_t, "rec_t"),
            (&mut c.send_t, self.send_t, "send_t"),
            (&mut c.pause, self.pause, "pause"),
            (&mut c.handshake_retry, self.handshake_retry, "handshake_retry"),
            (&mut c.ready_timeout, self.ready_timeout, "ready_timeout"),
            (&mut c.dwait_timeout, self.dwait_timeout, "dwait_timeout"),
            (&mut c.rtt_threshold, self.rtt_threshold, "rtt_threshold"),
        ] {
            set(slot, v.map(Dur::get), key, |d| d.as_nanos() > 0, "must be positive")?;
        }
        if let Some(d) = self.idle_timeout {
            c.idle_timeout = (d.0 > 0).then(|| d.get());
        }
        set(&mut c.send_buffer_segments, self.send_buffer_segments, "send_buffer_segments", |v| v <= 1024, "must be at most 1024 segments")?;
        set(&mut c.recv_buffer_segments, self.recv_buffer_segments, "recv_buffer_segments", |v| v <= 1024, "must be at most 1024 segments")?;
        set(&mut c.short_wave_level, self.short_wave_level, "short_wave_level", |v| (1..=3).contains(&v), "must be 1..=3")?;
        c.handshake_retries = self.handshake_retries.unwrap_or(c.handshake_retries);
        let frac = |v: f64| v.is_finite() && (0.0..=10.0).contains(&v);
        set(&mut c.rtt_equal_tolerance, self.rtt_equal_tolerance, "rtt_equal_tolerance", frac, "must be 0..=10")?;
        set(&mut c.probe_rtt_epsilon, self.probe_rtt_epsilon, "probe_rtt_epsilon", frac, "must be 0..=10")?;
        set(&mut c.probe_level_cap, self.probe_level_cap, "probe_level_cap", |v| (1..=3).contains(&v), "must be 1..=3")?;
        if c.dwait_timeout < c.ready_timeout {
            return Err(("dwait_timeout", "must be at least ready_timeout".into()));
        }
        c.validate().map_err(|e| (blame(e.0), e.0.to_string()))?;
        Ok(c)
    }
}

/// Sets `slot` to `v` if given and `ok`, else an error at `key`.
fn set<T: Copy>(slot: &mut T, v: Option<T>, key: &'static str, ok: impl Fn(T) -> bool, msg: &str) -> Result<(), (&'static str, String)> {
    match v {
        Some(v) if !ok(v) => Err((key, msg.to_string())),
        Some(v) => {
            *slot = v;
            Ok(())
        }
        None => Ok(()),
    }
}

/// The key a [`WwpConfig::validate`] message is about.
fn blame(msg: &str) -> &'static str {
    ["send_buffer_segments", "recv_buffer_segments", "segment_size", "wave_unit", "baseline_throughput"]
        .into_iter()
        .find(|k| msg.starts_with(k))
        .unwrap_or("send_buffer_segments")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_papers_and_overrides_convert_units() {
        assert_eq!(WwpSettings::default().config().unwrap(), WwpConfig::default());
        let s: WwpSettings = toml::from_str("baseline_throughput = \"80kB/s\"\nrec_t = \"3s\"\nwave_end = \"last-segment\"\nidle_timeout = \"0s\"\nprobe_in_wave = \"ignore\"").unwrap();
        let c = s.config().unwrap();
        assert_eq!((c.baseline_throughput, c.rec_t.as_nanos(), c.wave_end, c.idle_timeout), (80_000, 3_000_000_000, WaveEnd::LastSegment, None));
        assert_eq!(c.probe_in_wave, ProbeInWave::Ignore);
        assert_eq!(WwpConfig::default().probe_in_wave, ProbeInWave::Answer);
    }

    #[test]
    fn bad_values_name_their_key() {
        let bad = |t: &str| toml::from_str::<WwpSettings>(t).unwrap().config().unwrap_err().0;
        assert_eq!(bad("rec_t = \"0s\""), "rec_t");
        // Issue 27: 65529 made 65563-byte IPv4 packets; the largest that fits is 65501.
        assert_eq!(bad("segment_size = 65502"), "segment_size");
        assert_eq!(toml::from_str::<WwpSettings>("segment_size = 65501").unwrap().config().unwrap().segment_size, 65_501);
        assert_eq!(bad("probe_level_cap = 4"), "probe_level_cap");
        assert_eq!(bad("send_buffer_segments = 20"), "send_buffer_segments");
        assert_eq!(bad("recv_buffer_segments = 30"), "recv_buffer_segments");
        assert!(toml::from_str::<WwpSettings>("rect = \"1s\"").is_err());
    }
}
