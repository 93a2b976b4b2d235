//! Per-connection TCP parameters.

use super::cc::{CubicVariant, HyStartMode, VegasRetransmit};
use super::ooo_limit::OooLimit;
use super::prr::PrrVariant;
use super::rto_linux::RtoMode;
use super::in_flight::InFlight;
use super::rto_rearm::RtoRearm;
use super::rto_timer::RtoTimer;
use super::rtt_sample::RttSample;
use super::recovery::RecoveryPoint;
use crate::time::Duration;

/// Congestion-control algorithm of a connection (see [`super::cc`] for the extension points).
///
/// Serialized by its lower-case [`name`](Self::name), as scenarios spell it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CongestionControlKind {
    /// 4.3BSD Tahoe (ns-2 `Agent/TCP`): fast retransmit, then slow start; no fast recovery.
    Tahoe,
    /// RFC 5681 Reno: fast retransmit and fast recovery, recovery ends on the first new ACK.
    Reno,
    /// RFC 6582 NewReno: stays in fast recovery across partial ACKs.
    #[default]
    #[serde(alias = "new-reno")]
    NewReno,
    /// Vegas (Brakmo & Peterson 1995): keeps α..β segments queued, by RTT.
    Vegas,
    /// Westwood+ (Mascolo et al.): ssthresh = bandwidth estimate × RTTmin after a loss.
    #[serde(alias = "westwood+")]
    Westwood,
    /// CUBIC (RFC 9438).
    Cubic,
    /// ACK-loss-aware Reno (Hashimoto et al., thesis Ch. 2): also halves on persistent ACK loss.
    #[serde(rename = "ackloss")]
    AckLoss,
}

/// A congestion-control name that matches no [`CongestionControlKind`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownCongestionControl(pub String);

impl std::fmt::Display for UnknownCongestionControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "unknown congestion control `{}` (known: ", self.0)?;
        for (i, k) in CongestionControlKind::ALL.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{}", k.name())?;
        }
        write!(f, ")")
    }
}

impl std::error::Error for UnknownCongestionControl {}

impl CongestionControlKind {
    /// Every algorithm, oldest first.
    pub const ALL: [CongestionControlKind; 7] = [
        CongestionControlKind::Tahoe,
        CongestionControlKind::Reno,
        CongestionControlKind::NewReno,
        CongestionControlKind::Vegas,
        CongestionControlKind::Westwood,
        CongestionControlKind::Cubic,
        CongestionControlKind::AckLoss,
    ];

    /// Canonical lower-case name, as in scenarios and reports.
    pub const fn name(self) -> &'static str {
        match self {
            CongestionControlKind::Tahoe => "tahoe",
            CongestionControlKind::Reno => "reno",
            CongestionControlKind::NewReno => "newreno",
            CongestionControlKind::Vegas => "vegas",
            CongestionControlKind::Westwood => "westwood",
            CongestionControlKind::Cubic => "cubic",
            CongestionControlKind::AckLoss => "ackloss",
        }
    }

    /// Parse a name, case-insensitively; "westwood+" and "new-reno" are accepted as aliases.
    pub fn from_name(name: &str) -> Result<Self, UnknownCongestionControl> {
        const ALIASES: [(&str, CongestionControlKind); 2] =
            [("westwood+", CongestionControlKind::Westwood), ("new-reno", CongestionControlKind::NewReno)];
        let n = name.trim();
        CongestionControlKind::ALL
            .into_iter()
            .map(|k| (k.name(), k))
            .chain(ALIASES)
            .find(|(s, _)| s.eq_ignore_ascii_case(n))
            .map(|(_, k)| k)
            .ok_or_else(|| UnknownCongestionControl(name.to_string()))
    }
}

impl std::fmt::Display for CongestionControlKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for CongestionControlKind {
    type Err = UnknownCongestionControl;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CongestionControlKind::from_name(s)
    }
}

/// Parameters of one TCP endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// MSS we advertise on our SYN (bytes); the effective MSS is min(ours, peer's) minus options.
    pub mss: u16,
    /// Receive buffer in bytes: the largest window we ever advertise.
    pub recv_buffer: u32,
    /// Linux's receive-window autotuning (`tcp_moderate_rcvbuf`, see [`super::autotune`]): the
    /// window starts near 64 KB and grows with what the application reads per RTT, up to
    /// `recv_buffer`. Off by default: the full `recv_buffer` from the start.
    pub autotune: bool,
    /// With `autotune`: the scaling ratio (len/truesize, in 1/256) Linux measures on the first
    /// full-sized segment (`tcp_measure_rcv_mss`) and turns the initial buffer into window
    /// with (`tcp_set_window_clamp`); it depends on the receiving NIC's skb truesize. `None`
    /// (default): 1/2, Linux's `TCP_DEFAULT_SCALING_RATIO`, throughout (see [`super::autotune`]).
    pub scaling_ratio: Option<u8>,
    /// Our window-scale shift (RFC 7323 §2); `None` = do not offer window scaling.
    pub window_scale: Option<u8>,
    /// Offer RFC 7323 timestamps (used if both SYNs carry them); TS clock = 1 ms ticks of `now`.
    pub timestamps: bool,
    /// Offer SACK-permitted on our SYN; if both sides do, ACKs carry SACK blocks (RFC 2018) and
    /// loss recovery follows RFC 6675 (see [`super::scoreboard`]).
    pub sack: bool,
    /// Proportional Rate Reduction (RFC 6937, PRR-SSRB) paces sending during SACK loss
    /// recovery instead of RFC 6675's cwnd = ssthresh (Linux's default since 3.2). Off by
    /// default: the textbook stacks the seeds model have none. Without SACK it has no effect.
    pub prr: bool,
    /// Which rules PRR follows: RFC 6937's pseudocode (default) or Linux's
    /// `tcp_cwnd_reduction` ([`PrrVariant::Linux`]: RecoverFS = cwnd at entry, the slow-start
    /// bound's extra segment only on an ACK that advances snd_una and marks no new loss).
    pub prr_variant: PrrVariant,
    /// When SACK recovery may start again: RFC 6675's cumulative ACK beyond RecoveryPoint
    /// (default) or Linux's at RecoveryPoint ([`RecoveryPoint::Linux`]: Open again once
    /// snd_una reaches `high_seq`, so a loss of the first segment sent in the last recovery
    /// starts the next one instead of waiting for the RTO).
    pub recovery_point: RecoveryPoint,
    /// Linux's quick-ACK mode: the first in-order data, and data after a silence longer than
    /// the RTO, start a run of immediate ACKs (min(rcv_wnd / 2·MSS, 16), 2 if that is 0; Linux's
    /// `tcp_incr_quickack`), so the sender's slow start is not slowed by delayed ACKs. Off by
    /// default (RFC 1122's receiver delays from the first segment).
    pub quick_ack: bool,
    /// Linux's ACK at read for pushed data (`__tcp_cleanup_rbuf` with `ICSK_ACK_PUSHED`, set
    /// by `tcp_measure_rcv_mss` for a full-sized segment with PSH, 6.18): when in-order data
    /// carrying PSH has arrived and a read empties the receive buffer, an ACK the delayed-ACK
    /// rule still holds goes out at once. Off by default (RFC 1122's receiver ignores PSH).
    pub ack_pushed: bool,
    /// Linux's SACK compression (`__tcp_ack_snd_check`, 6.18; see [`super::sack_compress`]):
    /// with out-of-order data held, the first 3 duplicate ACKs after each advance of rcv_nxt
    /// go at once, the next ones are held for min(1 ms, RTT/20) (at most 44). Off by default
    /// (RFC 5681 §4.2: an immediate duplicate ACK for every out-of-order segment); needs SACK.
    pub sack_compress: bool,
    /// The sender marks PSH on each segment that fills its window (the last one an ACK lets
    /// go), besides the stream's last segment: what the live testbed's Linux server sends
    /// (its client captures show PSH on every second segment in slow start). Off by default
    /// (PSH only at the end of the data).
    pub push_window_end: bool,
    /// Linux's cwnd restart after idle (`net.ipv4.tcp_slow_start_after_idle = 1`): new data
    /// sent with nothing in flight more than an RTO after the last data segment first sets
    /// ssthresh = max(ssthresh, ¾·cwnd) and halves cwnd once per RTO idle, not below
    /// min(IW, cwnd) (see [`super::idle_restart`]). Off by default (the textbook stacks keep
    /// their window).
    pub slow_start_after_idle: bool,
    /// Linux's CUBIC after an idle period (`cubictcp_cwnd_event(CA_EVENT_TX_START)`): data
    /// sent with nothing in flight shifts the growth epoch later by the time since the last
    /// data segment, so the window resumes on the curve as if the idle time had not passed
    /// (see [`super::cc::Cubic`]). Only CUBIC has an epoch. Off by default (the curve's t
    /// counts idle time, as before).
    pub cubic_idle_shift: bool,
    /// RACK loss detection (RFC 8985 §6): a segment is deemed lost once a segment sent after
    /// it is delivered and its RTT plus a reordering window has passed, instead of after
    /// DupThresh duplicate ACKs; lost retransmissions are detected the same way. Linux's
    /// default (`net.ipv4.tcp_recovery = 1`). Off by default; needs SACK (see [`super::rack`]).
    pub rack: bool,
    /// Tail Loss Probe (RFC 8985 §7): 2·SRTT after the last transmission or ACK, send one new
    /// segment (or resend the last) so a tail loss is repaired by SACK recovery rather than an
    /// RTO. Linux's default (`net.ipv4.tcp_early_retrans = 3`). Off by default; needs SACK.
    pub tlp: bool,
    /// Delay ACKs: ACK every second segment or when `delayed_ack_timeout` expires (RFC 1122 4.2.3.2).
    pub delayed_ack: bool,
    /// Delayed-ACK timer: 40 ms, Linux's minimum (RFC 1122 allows up to 500 ms).
    pub delayed_ack_timeout: Duration,
    /// With `delayed_ack`, ACK every `ack_every` full segments (2, RFC 1122/5681's "every
    /// second segment"); larger values are seed 002's burst transmission (one ACK per m
    /// packets). Out-of-order and hole-filling segments are still ACKed at once, and the
    /// timer still fires. The same value on the sender raises its byte-counting limit L to
    /// max(2, `ack_every`) SMSS, so slow start doubles per RTT whatever m (the thesis assumes
    /// the delayed-ACK slowdown of window growth solved).
    pub ack_every: u32,
    /// Initial congestion window in segments: 2, RFC 5681 §3.1's value for 2-segment-era stacks.
    pub initial_cwnd: u32,
    /// RTO before any RTT sample: 1 s (RFC 6298 §2.1).
    pub initial_rto: Duration,
    /// Lower RTO clamp: 200 ms as Linux (RFC 6298 says 1 s SHOULD; real stacks and the
    /// measurements we compare with use 200 ms).
    pub min_rto: Duration,
    /// Coarse retransmission timer: `None` (default) = RFC 6298 with a fine clock; `Some(t)` =
    /// 4.4BSD's slow timer / ns-2's `tcpTick_` with ticks of `t` (RTT measured in ticks, RTO in
    /// whole ticks, at least 2, firing on tick boundaries; see [`super::coarse_rtt`]).
    pub timer_tick: Option<Duration>,
    /// Retransmission-timeout formula: RFC 6298's (default) or Linux's (`RtoMode::Linux`: RTO =
    /// SRTT + rttvar with rttvar ≥ `min_rto`, see [`super::rto_linux`]).
    pub rto: RtoMode,
    /// When the retransmission timer restarts: RFC 6298's rules (default) or Linux's
    /// (`RtoRearm::Linux`: also when snd_una's segment is resent and on SACKs of data sent
    /// before it was, see [`super::rto_rearm`]).
    pub rto_rearm: RtoRearm,
    /// When an armed retransmission timer fires: at now + RTO (default) or on Linux's jiffies
    /// timer wheel (`RtoTimer::Linux`: rounded up to the wheel level's granule, see
    /// [`super::rto_timer`]).
    pub rto_timer: RtoTimer,
    /// Which ACKs give the RTO estimator RTT samples: RFC 7323/6298's (default) or Linux's
    /// (`RttSample::Linux`: the send time of the first never-retransmitted segment an ACK newly
    /// acknowledges or SACKs, SACK-only ACKs too; see [`super::rtt_sample`]).
    pub rtt_sample: RttSample,
    /// What counts as in flight for new data outside recovery: RFC 5681's FlightSize (default)
    /// or Linux's `tcp_packets_in_flight` (`InFlight::Linux`: SACKed bytes excluded; see
    /// [`super::in_flight`]).
    pub in_flight: InFlight,
    /// Upper RTO clamp, also the cap of the persist-timer backoff: 60 s (RFC 6298 §2.5).
    pub max_rto: Duration,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681 §3.2).
    pub dupack_threshold: u32,
    /// Congestion-control algorithm.
    pub congestion_control: CongestionControlKind,
    /// CUBIC's slow-start exit: off (slow start until loss), Linux's HyStart or RFC 9406's
    /// HyStart++ (see [`super::cc::hystart`]); ignored by the other algorithms.
    pub hystart: HyStartMode,
    /// CUBIC's window arithmetic: RFC 9438's (default) or Linux's `tcp_cubic.c` (whole
    /// segments, jiffies, Reno-friendly α = 8/15 throughout; see [`super::cc::cubic_linux`]);
    /// ignored by the other algorithms.
    pub cubic: CubicVariant,
    /// Vegas's fine-grained retransmission rules: `Rfc` (default, see [`super::cc::vegas`]) or
    /// ns-2.35's (`Ns2`, see [`super::cc::vegas_ns2`]); ignored by the other algorithms.
    pub vegas_retransmit: VegasRetransmit,
    /// What bounds out-of-order state (see [`super::ooo_limit`]): `Ranges32` (default) keeps
    /// at most 32 disjoint ranges in the receiver's out-of-order queue and in the sender's
    /// SACK scoreboard; `Rcvbuf` bounds the queue by the receive buffer's bytes, pruning from
    /// the highest sequence when it is exceeded, and the scoreboard by nothing (Linux).
    pub ooo_limit: OooLimit,
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
            autotune: false,
            scaling_ratio: None,
            window_scale: None,
            timestamps: true,
            sack: false,
            prr: false,
            prr_variant: PrrVariant::Rfc6937,
            recovery_point: RecoveryPoint::Rfc6675,
            quick_ack: false,
            ack_pushed: false,
            sack_compress: false,
            push_window_end: false,
            slow_start_after_idle: false,
            cubic_idle_shift: false,
            rack: false,
            tlp: false,
            delayed_ack: true,
            delayed_ack_timeout: Duration::from_millis(40),
            ack_every: 2,
            initial_cwnd: 2,
            initial_rto: Duration::from_secs(1),
            min_rto: Duration::from_millis(200),
            timer_tick: None,
            rto: RtoMode::Rfc6298,
            rto_rearm: RtoRearm::Rfc6298,
            rto_timer: RtoTimer::Exact,
            rtt_sample: RttSample::Rfc,
            in_flight: InFlight::Rfc5681,
            max_rto: Duration::from_secs(60),
            dupack_threshold: 3,
            congestion_control: CongestionControlKind::NewReno,
            hystart: HyStartMode::Off,
            cubic: CubicVariant::Rfc9438,
            vegas_retransmit: VegasRetransmit::Rfc,
            ooo_limit: OooLimit::Ranges32,
            nagle: false,
            time_wait: Duration::from_millis(400),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_aliases_parse() {
        for k in CongestionControlKind::ALL {
            assert_eq!(CongestionControlKind::from_name(k.name()), Ok(k));
            assert_eq!(CongestionControlKind::from_name(&k.name().to_uppercase()), Ok(k));
            assert_eq!(k.to_string(), k.name());
        }
        assert_eq!(CongestionControlKind::from_name("Westwood+"), Ok(CongestionControlKind::Westwood));
        assert_eq!(CongestionControlKind::from_name("new-reno"), Ok(CongestionControlKind::NewReno));
        assert_eq!("CUBIC".parse::<CongestionControlKind>(), Ok(CongestionControlKind::Cubic));
    }

    #[test]
    fn unknown_name_error_lists_every_valid_name() {
        let e = CongestionControlKind::from_name("bbr9").unwrap_err();
        assert_eq!(e.to_string(), "unknown congestion control `bbr9` (known: tahoe, reno, newreno, vegas, westwood, cubic, ackloss)");
        for k in CongestionControlKind::ALL {
            assert!(e.to_string().contains(k.name()));
        }
    }

    #[test]
    fn serde_uses_the_names() {
        #[derive(serde::Deserialize)]
        struct T {
            cc: Vec<CongestionControlKind>,
        }
        let t: T = toml::from_str(r#"cc = ["tahoe", "newreno", "new-reno", "westwood+", "cubic", "ackloss"]"#).expect("parse");
        use CongestionControlKind::*;
        assert_eq!(t.cc, vec![Tahoe, NewReno, NewReno, Westwood, Cubic, AckLoss]);
    }
}
