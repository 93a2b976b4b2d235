//! The TCP settings of a flow (`tcp = { ... }`) and how its receiving application reads
//! (`reader = { ... }`), with their valid ranges beside them.

use crate::scenario::check::{fmt_ns, Check, MS, S};
use crate::scenario::units::{Dur, Rate, Size};
use serde::Deserialize;
use wattlab_core::tcp::TcpProfile;

/// Largest window scale shift (RFC 7323 § 2.3).
pub const MAX_WINDOW_SCALE: u8 = 14;

/// The largest receive window TCP can advertise with window scale `shift` (none: 65535 B).
pub fn max_window(shift: Option<u8>) -> u64 {
    65_535u64 << shift.unwrap_or(0).min(MAX_WINDOW_SCALE)
}

/// TCP settings of a flow (both ends).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSettings {
    /// Starting configuration the other keys override: `textbook` (default, the RFC stack the
    /// seeds model) or `linux` (Linux 6.x defaults: SACK, PRR, CUBIC, IW10, ...; `tcp.md`).
    #[serde(default)]
    pub profile: Option<String>,
    /// Offer RFC 6937 Proportional Rate Reduction in SACK recovery (default off; on in `linux`).
    #[serde(default)]
    pub prr: Option<bool>,
    /// PRR's rules: `rfc6937` (default; RFC 6937's pseudocode) or `linux` (Linux's
    /// `tcp_cwnd_reduction`: RecoverFS = cwnd at entry, the slow-start bound's extra segment
    /// only on an ACK that advances snd_una and marks no new loss; on in `linux`); needs PRR.
    #[serde(default)]
    pub prr_variant: Option<String>,
    /// When SACK recovery may start again: `rfc6675` (default; an ACK beyond RecoveryPoint)
    /// or `linux` (already at it: Linux is back in Open once snd_una reaches `high_seq`; on
    /// in `linux`); needs SACK.
    #[serde(default)]
    pub recovery_point: Option<String>,
    /// Linux's quick-ACK mode: immediate ACKs for the first data and after a silence longer
    /// than the RTO (default off; on in `linux`).
    #[serde(default)]
    pub quick_ack: Option<bool>,
    /// Linux's ACK at read for pushed data: once in-order data with PSH has arrived, a read
    /// that empties the receive buffer sends the ACK the delayed-ACK rule holds (default off;
    /// on in `linux`).
    #[serde(default)]
    pub ack_pushed: Option<bool>,
    /// Linux's SACK compression: after 3 immediate duplicate ACKs the receiver holds the next
    /// ones min(1 ms, RTT/20), at most 44 (default off; on in `linux`); needs SACK.
    #[serde(default)]
    pub sack_compress: Option<bool>,
    /// The sender marks PSH on each segment that fills its window, as the live testbed's
    /// server does (default off: PSH only on the data's last segment).
    #[serde(default)]
    pub push_window_end: Option<bool>,
    /// Linux's cwnd restart after an idle period longer than the RTO (default off; on in
    /// `linux`; live: the testbed's `net.ipv4.tcp_slow_start_after_idle`).
    #[serde(default)]
    pub slow_start_after_idle: Option<bool>,
    /// Linux's CUBIC after idle: data sent with nothing in flight shifts the growth epoch by
    /// the time since the last data segment (default off; on in `linux`); needs `cc = "cubic"`.
    #[serde(default)]
    pub cubic_idle_shift: Option<bool>,
    /// CUBIC's slow-start exit: `off` (default; slow start until loss), `linux` (Linux's
    /// HyStart: ACK train and delay increase; on in `linux`) or `hystart++` (RFC 9406).
    #[serde(default)]
    pub hystart: Option<String>,
    /// CUBIC's window arithmetic: `rfc9438` (default; floating point, RFC 9438) or `linux`
    /// (Linux's `tcp_cubic.c`: whole segments, jiffies, Reno-friendly α = 8/15 throughout;
    /// on in `linux`); needs `cc = "cubic"`.
    #[serde(default)]
    pub cubic: Option<String>,
    /// Vegas's fine-grained retransmission rules: `rfc` (default) or `ns2` (ns-2.35's
    /// `tcp-vegas.cc`: checks on every duplicate ACK, back-off, its window cuts); needs
    /// `cc = "vegas"`.
    #[serde(default)]
    pub vegas_retransmit: Option<String>,
    /// Linux's receive-window autotuning: the window starts near 64 KB and grows with the
    /// reads per RTT up to `recv_buffer` (default off; on in `linux`).
    #[serde(default)]
    pub autotune: Option<bool>,
    /// With autotuning, the receiver's scaling ratio in 1/256 (Linux's `scaling_ratio`:
    /// len/truesize of the first full-sized segment, the NIC's; 162 in `linux`, the testbed's
    /// veth); 0 keeps 1/2 throughout (the default, Linux before it has measured).
    #[serde(default)]
    pub scaling_ratio: Option<u32>,
    /// What bounds out-of-order data: `ranges32` (default: at most 32 disjoint ranges in the
    /// receiver's out-of-order queue and in the sender's SACK scoreboard) or `rcvbuf` (Linux:
    /// the queue bounded by the receive buffer's bytes, pruned from the highest sequence when
    /// exceeded; no count limit on either; on in `linux`).
    #[serde(default)]
    pub ooo_limit: Option<String>,
    /// RACK loss detection (RFC 8985 §6): losses marked by time, not by 3 duplicate ACKs
    /// (default off; on in `linux`); needs SACK.
    #[serde(default)]
    pub rack: Option<bool>,
    /// Tail Loss Probe (RFC 8985 §7): a probe 2·SRTT after the last ACK instead of waiting
    /// for the RTO (default off; on in `linux`); needs SACK.
    #[serde(default)]
    pub tlp: Option<bool>,
    /// Congestion control, case-insensitive: tahoe, reno, newreno (default), sack (Reno with
    /// SACK, ns-2's Sack1), vegas, westwood (alias westwood+) or cubic.
    #[serde(default)]
    pub cc: Option<String>,
    /// Offer SACK (RFC 2018); when both ends do, loss recovery follows RFC 6675 (default off).
    #[serde(default)]
    pub sack: Option<bool>,
    /// Maximum segment size we advertise.
    #[serde(default)]
    pub mss: Option<u16>,
    /// Receive buffer = largest advertised window.
    #[serde(default)]
    pub recv_buffer: Option<Size>,
    /// Window scale shift to negotiate (off by default).
    #[serde(default)]
    pub window_scale: Option<u8>,
    /// Timestamps option (default on).
    #[serde(default)]
    pub timestamps: Option<bool>,
    /// Delayed ACK (default on).
    #[serde(default)]
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timer.
    #[serde(default)]
    pub delayed_ack_timeout: Option<Dur>,
    /// With delayed ACK, ACK every this many segments (default 2; seed 002's burst m).
    #[serde(default)]
    pub ack_every: Option<u32>,
    /// Initial congestion window in segments.
    #[serde(default)]
    pub initial_cwnd: Option<u32>,
    /// Lower bound of the retransmission timeout.
    #[serde(default)]
    pub min_rto: Option<Dur>,
    /// Coarse retransmission timer tick (4.4BSD's 500 ms slow timer, ns-2's `tcpTick_`);
    /// absent = RFC 6298 with a fine clock.
    #[serde(default)]
    pub timer_tick: Option<Dur>,
    /// Retransmission-timeout formula: `rfc6298` (default; max(min_rto, SRTT + 4·RTTVAR)) or
    /// `linux` (Linux's `tcp_rtt_estimator`: SRTT + rttvar with rttvar ≥ min_rto; on in
    /// `linux`). Not with `timer_tick`.
    #[serde(default)]
    pub rto: Option<String>,
    /// When the retransmission timer restarts: `rfc6298` (default; on sending with none
    /// running and on each ACK of new data) or `linux` (also when snd_una's segment is resent
    /// and on SACKs of data sent before it was: `tcp_xmit_retransmit_queue`,
    /// `tcp_clean_rtx_queue`; on in `linux`).
    #[serde(default)]
    pub rto_rearm: Option<String>,
    /// When an armed retransmission timer fires: `exact` (default; now + RTO) or `linux` (on
    /// Linux's jiffies timer wheel, CONFIG_HZ = 250: rounded up to the wheel level's granule,
    /// 4 ms below 252 ms, 32 ms up to 2 s; on in `linux`). Not with `timer_tick`.
    #[serde(default)]
    pub rto_timer: Option<String>,
    /// Which ACKs give the RTO estimator RTT samples: `rfc` (default; the TSecr of an ACK that
    /// advances snd_una, or Karn's timed segment) or `linux` (every ACK, SACK-only ones too: the
    /// send time of the first never-retransmitted segment it newly acknowledges or SACKs,
    /// `tcp_clean_rtx_queue`/`tcp_sacktag_one`; on in `linux`).
    #[serde(default)]
    pub rtt_sample: Option<String>,
    /// What counts as in flight for new data outside recovery: `rfc5681` (default; snd_nxt −
    /// snd_una) or `linux` (SACKed bytes excluded, `tcp_packets_in_flight`; on in `linux`);
    /// `linux` needs SACK.
    #[serde(default)]
    pub in_flight: Option<String>,
}

impl TcpSettings {
    /// The window-scale shift in force: the written one, else the profile's (an unknown
    /// profile is reported by the flow's build, not here).
    pub fn effective_window_scale(&self) -> Option<u8> {
        let profile = self.profile.as_deref().and_then(|p| TcpProfile::from_name(p).ok()).unwrap_or_default();
        self.window_scale.or(profile.config().window_scale)
    }

    /// Checks every number against its valid range; `key` is the table's path (`flow[0].tcp`).
    pub(crate) fn check_ranges(&self, key: &str, c: &mut Check) {
        c.num(&format!("{key}.mss"), self.mss.map(u64::from), 88, 65_495, " B");
        c.num(&format!("{key}.window_scale"), self.window_scale.map(u64::from), 0, u64::from(MAX_WINDOW_SCALE), "");
        c.num(&format!("{key}.recv_buffer"), self.recv_buffer.map(Size::bytes), 1, 1 << 30, " B");
        // The advertised window is a 16-bit field shifted by the scale (RFC 7323): a larger
        // buffer could never be offered to the sender, so it is refused, not clamped.
        if let Some(b) = self.recv_buffer.map(Size::bytes) {
            let ws = self.effective_window_scale();
            let shift = ws.unwrap_or(0).min(MAX_WINDOW_SCALE);
            let most = max_window(ws);
            if (1..=1 << 30).contains(&b) && b > most {
                let how = match ws {
                    None => "without window scaling the window field holds at most 65535 B: set tcp.window_scale (0..=14) or lower recv_buffer".to_string(),
                    Some(_) if shift < MAX_WINDOW_SCALE => {
                        let need = (0..=MAX_WINDOW_SCALE).find(|&s| max_window(Some(s)) >= b).unwrap_or(MAX_WINDOW_SCALE);
                        format!("with window_scale = {shift} the window field holds at most 65535 × 2^{shift} = {most} B: raise tcp.window_scale to {need} or lower recv_buffer")
                    }
                    Some(_) => format!("the largest window TCP can advertise is 65535 × 2^14 = {most} B"),
                };
                c.fail(&format!("{key}.recv_buffer"), format!("{b} B is more than TCP can advertise: {how}"));
            }
        }
        c.dur(&format!("{key}.delayed_ack_timeout"), self.delayed_ack_timeout, 1_000, 500 * MS);
        c.num(&format!("{key}.scaling_ratio"), self.scaling_ratio.map(u64::from), 0, 255, "/256");
        c.num(&format!("{key}.ack_every"), self.ack_every.map(u64::from), 1, 64, " segments");
        c.num(&format!("{key}.initial_cwnd"), self.initial_cwnd.map(u64::from), 1, 1000, " segments");
        c.dur(&format!("{key}.min_rto"), self.min_rto, MS, 60 * S);
        c.dur(&format!("{key}.timer_tick"), self.timer_tick, MS, S);
    }
}

/// Application-side reading at the receiver.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReaderConfig {
    /// Read rate; absent = the application reads everything as soon as it arrives.
    #[serde(default)]
    pub rate: Option<Rate>,
    /// The application stops reading from `pause[0]` until `pause[1]` (times from flow start).
    #[serde(default)]
    pub pause: Option<[Dur; 2]>,
}

impl ReaderConfig {
    /// Checks the pause is a real interval; `key` is the table's path (`flow[0].reader`).
    pub(crate) fn check_ranges(&self, key: &str, c: &mut Check) {
        if let Some([a, b]) = self.pause {
            if b <= a {
                c.fail(&format!("{key}.pause"), format!(
                    "the pause [{}, {}] is empty: give [start, end] with start < end (times from the flow's start)",
                    fmt_ns(a.0),
                    fmt_ns(b.0)
                ));
            }
        }
    }
}
