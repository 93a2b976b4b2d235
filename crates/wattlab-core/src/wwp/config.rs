//! Per-connection WWP parameters; the defaults are the paper's implementation values, and
//! every choice the paper leaves open is a field here (see `docs/wwp.md`).

use crate::packet::{IPV4_HEADER_LEN, UDP_HEADER_LEN};
use crate::time::Duration;
use crate::wire::{MAX_IPV4_LEN, WWP_HEADER_LEN};

/// Largest DATA payload of one segment: a WWP segment is one UDP datagram, and the IPv4
/// packet carrying it (IP and UDP headers, the WWP header, the payload) must fit the 16-bit
/// total-length field: 65535 − 20 − 8 − 6 = 65501 bytes.
pub const MAX_SEGMENT_SIZE: u16 = (MAX_IPV4_LEN - IPV4_HEADER_LEN - UDP_HEADER_LEN - WWP_HEADER_LEN as u32) as u16;

/// Which segments the baseline time B(i) covers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BaselineSpan {
    /// B(i) = (W(i) − 1)·S / BT: the rest of the wave after the first segment, which is when
    /// the receiver starts the clock (default).
    #[default]
    RestOfWave,
    /// B(i) = W(i)·S / BT: the whole wave.
    WholeWave,
}

/// When the receiver considers a wave over (before REC_T).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaveEnd {
    /// Only when every segment of the wave has arrived (the paper's literal reading; default).
    #[default]
    AllArrived,
    /// Also when the segment the sender transmits last in the wave arrives.
    LastSegment,
}

/// What the receiver does with a probe while a wave is still arriving (before it fully arrived
/// or REC_T fired).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProbeInWave {
    /// The paper's literal rule (§2.2; default): answer "subsequent PROBE1 segments ... until
    /// a DATA segment from the next wave reaches it", i.e. every PROBE1 naming a wave other than
    /// the one arriving; a PROBE2 then ends the arriving wave (its missing segments are lost, as
    /// at REC_T) and the P-S_ACK replaces its N-S_ACK.
    #[default]
    Answer,
    /// Ignore PROBE1 and PROBE2 until the wave ends (the alternative reading): the sender, whose
    /// SEND_T (1 s) runs out before REC_T (2 s) after a lossy wave, retries PROBE1 until REC_T
    /// ends it, and ignores the N-S_ACK REC_T sends, since it is already probing.
    Ignore,
}

/// WWP parameters of one endpoint (both directions).
#[derive(Clone, Debug, PartialEq)]
pub struct WwpConfig {
    /// Our port (8 bits).
    pub local_port: u8,
    /// The peer's port (8 bits).
    pub remote_port: u8,
    /// DATA payload bytes per segment, S (paper: 1024).
    pub segment_size: u16,
    /// Segments per level: W(i) = wave_unit · i (paper: 12, so W = 0, 12, 24, 36).
    pub wave_unit: u16,
    /// Baseline throughput BT in bytes per second (paper: 40 KB/s = 40 960 B/s).
    pub baseline_throughput: u64,
    /// Raise BT when a wave arrives faster (the paper's design; off in its implementation).
    pub adaptive_bt: bool,
    /// What B(i) covers.
    pub baseline_span: BaselineSpan,
    /// When a wave is over before REC_T.
    pub wave_end: WaveEnd,
    /// What the receiver does with probes while a wave is arriving.
    pub probe_in_wave: ProbeInWave,
    /// REC_T: the receiver's wave timeout from the first segment (paper: 2 s).
    pub rec_t: Duration,
    /// SEND_T: the sender's wait for N-S_ACK / PROBE_ACK / P-S_ACK / FIN_ACK (paper: 1 s).
    pub send_t: Duration,
    /// Pause after a level-0 feedback before probing (paper: 1 s).
    pub pause: Duration,
    /// Sender buffer in segments (paper: 40).
    pub send_buffer_segments: u16,
    /// Receiver buffer in segments (paper: 256).
    pub recv_buffer_segments: u16,
    /// Level of a short final wave (fewer than W(1) segments before FIN; unspecified, 1).
    pub short_wave_level: u8,
    /// Handshake retransmission interval (unspecified; SEND_T's 1 s).
    pub handshake_retry: Duration,
    /// Retransmissions of one handshake message before giving up (paper: one SYN retry).
    pub handshake_retries: u8,
    /// The receiver's wait in READY for SYN_ACK2 before closing (unspecified; 3 s).
    pub ready_timeout: Duration,
    /// The opener's wait for D_WAIT, at least `ready_timeout` (unspecified; 6 s).
    pub dwait_timeout: Duration,
    /// Close when nothing at all arrives from the peer for this long (unspecified; 60 s).
    pub idle_timeout: Option<Duration>,
    /// Handshake RTTs at or above this abandon the connection (unspecified; 500 ms).
    pub rtt_threshold: Duration,
    /// RTT1 and RTT2 count as equal when they differ by at most this fraction of the smaller.
    pub rtt_equal_tolerance: f64,
    /// Probe RTT ≤ base·(1 + ε) gives level 3, ≤ 2·base level 2, ≤ 3·base level 1.
    pub probe_rtt_epsilon: f64,
    /// Highest level a P-S_ACK may give (3 = no cap; 1 = conservative restart after a pause).
    pub probe_level_cap: u8,
}

impl Default for WwpConfig {
    fn default() -> Self {
        WwpConfig {
            local_port: 1,
            remote_port: 1,
            segment_size: 1024,
            wave_unit: 12,
            baseline_throughput: 40 * 1024,
            adaptive_bt: false,
            baseline_span: BaselineSpan::RestOfWave,
            wave_end: WaveEnd::AllArrived,
            probe_in_wave: ProbeInWave::Answer,
            rec_t: Duration::from_secs(2),
            send_t: Duration::from_secs(1),
            pause: Duration::from_secs(1),
            send_buffer_segments: 40,
            recv_buffer_segments: 256,
            short_wave_level: 1,
            handshake_retry: Duration::from_secs(1),
            handshake_retries: 1,
            ready_timeout: Duration::from_secs(3),
            dwait_timeout: Duration::from_secs(6),
            idle_timeout: Some(Duration::from_secs(60)),
            rtt_threshold: Duration::from_millis(500),
            rtt_equal_tolerance: 0.2,
            probe_rtt_epsilon: 0.2,
            probe_level_cap: 3,
        }
    }
}

/// Why a [`WwpConfig`] is unusable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid WWP configuration: {0}")]
pub struct WwpConfigError(pub &'static str);

impl WwpConfig {
    /// Segments in a wave of `level` (0..=3): W(level) = wave_unit · level.
    pub fn wave_size(&self, level: u8) -> u16 {
        self.wave_unit.saturating_mul(u16::from(level.min(3)))
    }

    /// Baseline time B(level): the time the (rest of the) wave takes at BT.
    pub fn baseline_time(&self, level: u8, bt: u64) -> Duration {
        let w = u64::from(self.wave_size(level));
        let segs = match self.baseline_span {
            BaselineSpan::RestOfWave => w.saturating_sub(1),
            BaselineSpan::WholeWave => w,
        };
        let bytes = segs * u64::from(self.segment_size);
        Duration::from_nanos(((bytes as u128 * 1_000_000_000) / u128::from(bt.max(1))) as u64)
    }

    /// Check the parameters; hosts call this before building endpoints.
    pub fn validate(&self) -> Result<(), WwpConfigError> {
        if self.segment_size == 0 || self.segment_size > MAX_SEGMENT_SIZE {
            return Err(WwpConfigError("segment_size must be 1..=65501 bytes (one segment in one IPv4 packet)"));
        }
        if self.wave_unit == 0 {
            return Err(WwpConfigError("wave_unit must be at least 1"));
        }
        if self.send_buffer_segments < self.wave_size(3) {
            return Err(WwpConfigError("send_buffer_segments must hold a level-3 wave"));
        }
        if self.send_buffer_segments > 1024 {
            return Err(WwpConfigError("send_buffer_segments above 1024 breaks 12-bit sequence unwrapping"));
        }
        if self.recv_buffer_segments < self.send_buffer_segments || self.recv_buffer_segments > 1024 {
            return Err(WwpConfigError("recv_buffer_segments must be send_buffer_segments..=1024"));
        }
        if self.baseline_throughput == 0 {
            return Err(WwpConfigError("baseline_throughput must be positive"));
        }
        if !(1..=3).contains(&self.short_wave_level) || !(1..=3).contains(&self.probe_level_cap) {
            return Err(WwpConfigError("short_wave_level and probe_level_cap must be 1..=3"));
        }
        if !(self.rtt_equal_tolerance >= 0.0 && self.probe_rtt_epsilon >= 0.0) {
            return Err(WwpConfigError("tolerances must be non-negative"));
        }
        if self.rec_t == Duration::ZERO || self.send_t == Duration::ZERO || self.handshake_retry == Duration::ZERO {
            return Err(WwpConfigError("timers must be positive"));
        }
        Ok(())
    }
}
