//! TCP profiles: a named starting point for a [`TcpConfig`] that scenario keys then override.
//!
//! `textbook` (the default) is [`TcpConfig::default`]: the RFC stacks the seed papers model.
//! `linux` is what Linux 6.x does by default (checked on 6.18, the live testbed's kernel;
//! the same defaults since 6.1), as far as the model has the mechanism; [`LINUX_NOT_MODELLED`]
//! lists the rest. Each value's source is beside it (sysctl or `include/net/tcp.h` constant).

use super::cc::{CubicVariant, HyStartMode, VegasRetransmit};
use super::rto_linux::RtoMode;
use super::config::{CongestionControlKind, TcpConfig};
use super::named_option::named_option;
use super::ooo_limit::OooLimit;
use super::prr::PrrVariant;
use super::in_flight::InFlight;
use super::rto_rearm::RtoRearm;
use super::rto_timer::RtoTimer;
use super::rtt_sample::RttSample;
use super::recovery::RecoveryPoint;
use crate::time::Duration;

named_option! {
    /// A named starting configuration.
    pub enum TcpProfile("TCP profile") {
        /// The RFC textbook stack ([`TcpConfig::default`]): what the seeds' ns-2/testbed stacks do.
        #[default]
        Textbook = "textbook",
        /// Linux 6.x defaults (see the module docs and [`LINUX_NOT_MODELLED`]).
        Linux = "linux",
    }
    /// A profile name that matches no [`TcpProfile`].
    error UnknownProfile;
}

/// Linux default behaviours the model does not have yet, as (mechanism, its Linux switch).
pub const LINUX_NOT_MODELLED: [(&str, &str); 7] = [
    ("interactive (pingpong) mode, which suspends quick-ACK", "inet_csk_enter_pingpong_mode"),
    ("adaptive delayed-ACK timer (ato 40..200 ms)", "TCP_DELACK_MIN/MAX"),
    ("F-RTO spurious-timeout detection (RFC 5682)", "net.ipv4.tcp_frto = 2"),
    ("D-SACK (RFC 2883) and reordering-adaptive DupThresh", "net.ipv4.tcp_dsack = 1"),
    ("cwnd decay of an application-limited window (RFC 2861 §3)", "tcp_cwnd_application_limited"),
    ("per-destination metrics cache (ssthresh, RTT)", "net.ipv4.tcp_no_metrics_save = 0"),
    ("Minshall's Nagle, autocorking, TSO/TSQ", "TCP_NODELAY off, tcp_autocorking = 1"),
];

impl TcpProfile {
    /// The configuration this profile starts from.
    pub fn config(self) -> TcpConfig {
        match self {
            TcpProfile::Textbook => TcpConfig::default(),
            TcpProfile::Linux => linux(),
        }
    }
}

/// Linux 6.x's defaults for a bulk transfer over Ethernet-sized MTUs.
fn linux() -> TcpConfig {
    TcpConfig {
        mss: 1460,                      // 1500-byte MTU; segments carry 1448 B with timestamps
        sack: true,                     // net.ipv4.tcp_sack = 1
        prr: true,                      // tcp_cwnd_reduction(): PRR-SSRB, always on since 3.2
        prr_variant: PrrVariant::Linux, // its rules: prior_cwnd, +1 only if snd_una advanced, no new loss
        // net.ipv4.tcp_recovery = 1: RACK on since 4.4, the only SACK loss detection since 4.18
        // (tcp_time_to_recover: lost_out, no dupthresh count; reo_wnd 0 at sacked_out >= 3)
        rack: true,
        // tcp_fastretrans_alert: Recovery ends when snd_una reaches high_seq, and SACK TCP goes
        // straight back to Open (tcp_try_undo_recovery: "SACK TCP is safe"; after an RTO,
        // tcp_process_loss), so a new loss at high_seq starts recovery at once (no RFC 6675
        // "HighACK > RecoveryPoint" test)
        recovery_point: RecoveryPoint::Linux,
        tlp: true,                      // net.ipv4.tcp_early_retrans = 3: TLP, default since 3.10
        timestamps: true,               // net.ipv4.tcp_timestamps = 1
        // Autotuning (tcp_moderate_rcvbuf = 1): the window starts at ~64 KB and follows the
        // reads (super::autotune); its ceiling is tcp_rmem[2] = 32 MiB (since 6.16) of memory,
        // half of it window = 16 MiB. Linux picks its shift from max(tcp_rmem[2], rmem_max):
        // ilog2(32 MiB) - 15 = 10 (tcp_select_initial_window).
        recv_buffer: 16 << 20,
        autotune: true,
        // tcp_measure_rcv_mss sets scaling_ratio = len·256/truesize on the first full-sized
        // segment and tcp_set_window_clamp moves the clamp to tcp_rmem[1] at that ratio (6.18).
        // The ratio is the receiving NIC's: 162/256 on the testbed's veth (a 6.18.44 client's
        // tcp_rcvbuf_grow trace: window_clamp 82944 = 131072·162/256; the grid's live clients
        // offer 81920 after 6 segments); another driver's skb truesize gives another ratio.
        scaling_ratio: Some(162),
        window_scale: Some(10),         // net.ipv4.tcp_window_scaling = 1
        delayed_ack: true,
        quick_ack: true,                // tcp_incr_quickack(): TCP_MAX_QUICKACKS = 16
        // tcp_measure_rcv_mss sets ICSK_ACK_PUSHED for data with PSH; __tcp_cleanup_rbuf then
        // ACKs at the read that empties the queue (tcp_input.c / tcp.c, 6.18)
        ack_pushed: true,
        // __tcp_ack_snd_check (tcp_input.c, 6.18): after 3 immediate duplicate ACKs, SACKs are
        // held min(tcp_comp_sack_delay_ns = 1 ms, RTT/20), at most tcp_comp_sack_nr = 44
        // (the testbed's client: net.ipv4.tcp_comp_sack_nr = 44, tcp_settings.json)
        sack_compress: true,
        // PSH on the segment that fills the window: what the testbed's Linux 6.18 server sends
        // (the grid's client captures: PSH on every second segment in slow start, 2-segment
        // gaps 775 of 1106 over a whole 50 Mb/s 90 ms run); the kernel path that marks it
        // (tcp_push at the writer's wait, TSO/GSO splits) is not pinned down
        push_window_end: true,
        slow_start_after_idle: true,    // net.ipv4.tcp_slow_start_after_idle = 1 (tcp_cwnd_restart)
        cubic_idle_shift: true,         // tcp_cubic.c cubictcp_cwnd_event(CA_EVENT_TX_START), since 4.3
        delayed_ack_timeout: Duration::from_millis(40), // TCP_DELACK_MIN (ato's floor)
        ack_every: 2,                   // __tcp_ack_snd_check: more than one full segment unACKed
        initial_cwnd: 10,               // TCP_INIT_CWND (RFC 6928), since 2.6.39
        initial_rto: Duration::from_secs(1), // TCP_TIMEOUT_INIT (RFC 6298), since 3.1
        min_rto: Duration::from_millis(200), // TCP_RTO_MIN
        max_rto: Duration::from_secs(120),   // TCP_RTO_MAX
        timer_tick: None,               // RTT in µs (tcp_mstamp); the RTO's jiffies are rto and rto_timer
        rto: RtoMode::Linux,            // tcp_rtt_estimator + __tcp_set_rto: SRTT + rttvar, rttvar ≥ rto_min
        rto_rearm: RtoRearm::Linux,     // tcp_xmit_retransmit_queue (head resent), tcp_clean_rtx_queue (SACK of older data)
        rto_timer: RtoTimer::Linux,     // icsk_retransmit_timer is a timer_list: jiffies (CONFIG_HZ = 250), calc_wheel_index rounding
        rtt_sample: RttSample::Linux,   // tcp_clean_rtx_queue first_ackt / tcp_sacktag_one first_sackt, TSecr as fallback (tcp_ack_update_rtt)
        in_flight: InFlight::Linux,     // tcp_cwnd_test → tcp_packets_in_flight: SACKed segments out of the flight in every state
        dupack_threshold: 3,            // net.ipv4.tcp_reordering = 3
        congestion_control: CongestionControlKind::Cubic, // CONFIG_DEFAULT_TCP_CONG = "cubic"
        hystart: HyStartMode::Linux,    // tcp_cubic hystart = 1, hystart_detect = 3 (train + delay)
        cubic: CubicVariant::Linux,     // tcp_cubic.c's bictcp_update/tcp_cong_avoid_ai (beta 717, bic_scale 41)
        vegas_retransmit: VegasRetransmit::Rfc, // unused by cubic; Linux's Vegas keeps Linux's recovery
        // The out-of-order queue is an rbtree of skbs bounded by receive-buffer memory
        // (tcp_data_queue_ofo, tcp_prune_ofo_queue); the scoreboard is the retransmit queue
        // (tcp_sacktag_write_queue): no count limit on either.
        ooo_limit: OooLimit::Rcvbuf,
        // Linux's Nagle is Minshall's: it never holds a bulk transfer's single last partial
        // segment, which is what `nagle = false` does here (RFC 896's would hold it).
        nagle: false,
        // TCP_TIMEWAIT_LEN is 60 s; shortened as in every profile so runs end promptly (it
        // never changes what a transfer delivers or when).
        time_wait: Duration::from_millis(400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_is_the_default_config() {
        assert_eq!(TcpProfile::default(), TcpProfile::Textbook);
        assert_eq!(TcpProfile::Textbook.config(), TcpConfig::default());
    }

    #[test]
    fn linux_profile_sets_each_documented_default() {
        let c = TcpProfile::Linux.config();
        assert!(c.sack && c.prr && c.quick_ack && c.slow_start_after_idle && c.cubic_idle_shift && c.timestamps && c.delayed_ack && !c.nagle);
        assert!(c.rack && c.tlp);
        assert_eq!(c.ooo_limit, OooLimit::Rcvbuf);
        assert_eq!(TcpConfig::default().ooo_limit, OooLimit::Ranges32);
        assert!(!LINUX_NOT_MODELLED.iter().any(|(m, _)| m.contains("RACK")));
        assert_eq!(c.congestion_control, CongestionControlKind::Cubic);
        assert_eq!(c.hystart, HyStartMode::Linux);
        assert_eq!(c.cubic, CubicVariant::Linux);
        assert_eq!(c.rto, RtoMode::Linux);
        assert_eq!((c.rto_rearm, TcpConfig::default().rto_rearm), (RtoRearm::Linux, RtoRearm::Rfc6298));
        assert_eq!((c.rto_timer, TcpConfig::default().rto_timer), (RtoTimer::Linux, RtoTimer::Exact));
        assert_eq!((c.rtt_sample, TcpConfig::default().rtt_sample), (RttSample::Linux, RttSample::Rfc));
        assert_eq!((c.in_flight, TcpConfig::default().in_flight), (InFlight::Linux, InFlight::Rfc5681));
        assert_eq!((c.prr_variant, TcpConfig::default().prr_variant), (PrrVariant::Linux, PrrVariant::Rfc6937));
        assert_eq!((c.recovery_point, TcpConfig::default().recovery_point), (RecoveryPoint::Linux, RecoveryPoint::Rfc6675));
        assert_eq!((c.initial_cwnd, c.dupack_threshold, c.ack_every), (10, 3, 2));
        assert_eq!((c.min_rto, c.initial_rto, c.max_rto), (Duration::from_millis(200), Duration::from_secs(1), Duration::from_secs(120)));
        assert_eq!(c.delayed_ack_timeout, Duration::from_millis(40));
        assert_eq!((c.recv_buffer, c.window_scale, c.autotune), (16 << 20, Some(10), true));
        // The window must be advertisable with the shift (65535 << 10 ≈ 64 MiB ≥ 16 MiB).
        assert!(c.recv_buffer as u64 <= 65_535u64 << c.window_scale.unwrap());
        assert_ne!(c, TcpConfig::default());
    }

    #[test]
    fn names_parse_case_insensitively_and_unknown_lists_the_known() {
        assert_eq!(TcpProfile::from_name("Linux"), Ok(TcpProfile::Linux));
        assert_eq!(TcpProfile::from_name(" textbook "), Ok(TcpProfile::Textbook));
        let e = TcpProfile::from_name("bsd").unwrap_err();
        assert_eq!(e.to_string(), "unknown TCP profile `bsd` (known: textbook, linux)");
    }
}
