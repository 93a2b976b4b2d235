//! Per-connection TCP parameters.

use crate::time::Duration;

/// Congestion-control algorithm of a connection (see [`super::cc`] for the extension points).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum CongestionControlKind {
    /// RFC 5681 Reno: fast retransmit and fast recovery, recovery ends on the first new ACK.
    Reno,
    /// RFC 6582 NewReno: stays in fast recovery across partial ACKs.
    #[default]
    NewReno,
}

/// Parameters of one TCP endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// MSS we advertise on our SYN (bytes); the effective MSS is min(ours, peer's) minus options.
    pub mss: u16,
    /// Receive buffer in bytes: the largest window we ever advertise.
    pub recv_buffer: u32,
    /// Our window-scale shift (RFC 7323 §2); `None` = do not offer window scaling.
    pub window_scale: Option<u8>,
    /// Offer RFC 7323 timestamps (used if both SYNs carry them); TS clock = 1 ms ticks of `now`.
    pub timestamps: bool,
    /// Offer SACK-permitted on our SYN; if both sides do, ACKs carry SACK blocks (RFC 2018) and
    /// loss recovery follows RFC 6675 (see [`super::scoreboard`]).
    pub sack: bool,
    /// Delay ACKs: ACK every second segment or when `delayed_ack_timeout` expires (RFC 1122 4.2.3.2).
    pub delayed_ack: bool,
    /// Delayed-ACK timer: 40 ms, Linux's minimum (RFC 1122 allows up to 500 ms).
    pub delayed_ack_timeout: Duration,
    /// Initial congestion window in segments: 2, RFC 5681 §3.1's value for 2-segment-era stacks.
    pub initial_cwnd: u32,
    /// RTO before any RTT sample: 1 s (RFC 6298 §2.1).
    pub initial_rto: Duration,
    /// Lower RTO clamp: 200 ms as Linux (RFC 6298 says 1 s SHOULD; real stacks and the
    /// measurements we compare with use 200 ms).
    pub min_rto: Duration,
    /// Upper RTO clamp, also the cap of the persist-timer backoff: 60 s (RFC 6298 §2.5).
    pub max_rto: Duration,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2).
    pub dupack_threshold: u32,
    /// Congestion-control algorithm.
    pub congestion_control: CongestionControlKind,
    /// Nagle's algorithm (RFC 896); off by default since we model bulk transfers.
    pub nagle: bool,
    /// TIME_WAIT length: 400 ms (2 × default min_rto) instead of 2·MSL so simulations end promptly.
    pub time_wait: Duration,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            recv_buffer: 65535,
            window_scale: None,
            timestamps: true,
            sack: false,
            delayed_ack: true,
            delayed_ack_timeout: Duration::from_millis(40),
            initial_cwnd: 2,
            initial_rto: Duration::from_secs(1),
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(60),
            dupack_threshold: 3,
            congestion_control: CongestionControlKind::NewReno,
            nagle: false,
            time_wait: Duration::from_millis(400),
        }
    }
}
