//! The sans-IO TCP connection: segments in, segments out, timers by deadline.
//!
//! Sequence positions are kept unwrapped (`u64`, 0 = the SYN, data byte `i` at `1 + i`, our
//! FIN right after the last data byte) and converted to 32-bit wire numbers at the edge
//! (see [`SeqSpace`]), so window arithmetic never wraps whatever the ISN.
//!
//! SACK (RFC 2018 blocks, RFC 6675 recovery) lives in the child module `sack`; this file only
//! calls it at places marked `SACK:`. Likewise `rack` (`RACK:`) and `ooo` (`OOO:`, the
//! byte-bounded out-of-order queue of `ooo_limit = rcvbuf`).

mod ooo;
mod rack;
mod sack;

use super::autotune::Autotune;
use super::cc::{AckInfo, CongestionControl, RecoveryStyle, VegasRetransmit};
use super::config::TcpConfig;
use super::idle_restart;
use super::ooo_limit::OooLimit;
use super::prr::{Prr, PrrAck};
use super::sack_compress::SackCompress;
use super::rack::Rack;
use super::in_flight::{self, InFlight};
use super::rto_rearm::RtoRearm;
use super::rto_timer::RtoTimer;
use super::reassembly::Reassembly;
use super::recovery::{DupAckAction, LossRecovery, NewAckAction};
use super::rtt::RttEstimator;
use super::rtt_sample;
use super::scoreboard::Scoreboard;
use super::seq::{self, SeqSpace};
use super::state::{TcpEvent, TcpState, TcpStats};
use crate::packet::{Endpoint, Packet, TcpFlags, TcpHeader, TcpOptions, Timestamps};
use crate::time::{Duration, Time};
use std::net::Ipv4Addr;

/// MSS assumed when the peer's SYN carries none (RFC 1122 4.2.2.6).
pub const DEFAULT_PEER_MSS: u16 = 536;
/// Bytes the timestamps option adds to every segment (NOP NOP TS), taken off the payload MSS.
pub const TIMESTAMP_OPTION_LEN: u32 = 12;
/// Largest window-scale shift (RFC 7323 §2.3).
pub const MAX_WINDOW_SCALE: u8 = 14;
/// Retransmission timeouts of one segment before aborting (Linux tcp_retries2).
pub const MAX_RETRIES: u32 = 15;
/// SYN retransmissions before aborting (Linux tcp_syn_retries).
pub const MAX_SYN_RETRIES: u32 = 6;
/// Most immediate ACKs one quick-ACK run sends (Linux's `TCP_MAX_QUICKACKS`).
pub const MAX_QUICKACKS: u32 = 16;
/// RTO after a handshake that needed a retransmitted SYN and gave no sample (RFC 6298 §5.7).
pub const RTO_AFTER_SYN_LOSS: Duration = Duration::from_secs(3);

const EV_CONNECTED: u8 = 1;
const EV_READABLE: u8 = 2;
const EV_PEER_FIN: u8 = 4;
const EV_RESET: u8 = 8;
const EV_TIMED_OUT: u8 = 16;
const EV_CLOSED: u8 = 32;

/// One TCP endpoint of one connection, driven by the caller (no I/O, no clock).
///
/// Usage: feed received segments to [`handle_segment`](Self::handle_segment), call
/// [`poll_transmit`](Self::poll_transmit) until it returns `None` after every input (it also
/// arms timers), sleep until [`poll_timeout`](Self::poll_timeout) and call
/// [`handle_timeout`](Self::handle_timeout); drain [`poll_event`](Self::poll_event).
#[derive(Clone, Debug)]
pub struct TcpConnection {
    cfg: TcpConfig,
    state: TcpState,
    local: Endpoint,
    remote: Endpoint,
    remote_bound: bool,

    // --- send side (unwrapped positions in our sequence space) ---
    tx: SeqSpace,
    snd_una: u64,
    snd_nxt: u64,
    /// Highest position sent + 1 (snd_nxt may fall back below it after an RTO: go-back-N).
    snd_max: u64,
    /// Bytes the application queued in total (send buffer is unbounded).
    app_queued: u64,
    /// The application closed: a FIN follows the last queued byte.
    fin_queued: bool,
    /// Peer's receive window in bytes (scaled).
    snd_wnd: u32,
    max_snd_wnd: u32,
    snd_wl1: u32,
    snd_wl2: u32,
    snd_shift: u8,
    rcv_shift: u8,
    /// Payload bytes per full segment (min MSS minus per-segment options).
    eff_mss: u32,
    ts_ok: bool,
    ts_recent: u32,
    sack_ok: bool,
    /// Both SYNs carried window scale (RFC 7323 §2.2).
    ws_ok: bool,
    /// Pending single-segment retransmission (fast retransmit / NewReno partial ACK).
    retransmit_at: Option<u64>,
    /// Persist timer fired with a zero window: send a probe.
    probe_pending: bool,
    /// Persist timer fired with a small window: send what fits, ignoring sender SWS.
    force_send: bool,
    persist_backoff: u32,
    retries: u32,
    syn_retransmitted: bool,
    /// Karn-timed segment (end position, send time): the RTO's samples when timestamps are
    /// off, congestion control's nanosecond sample always.
    rtt_timing: Option<(u64, Time)>,
    rtt: RttEstimator,
    cc: CongestionControl,
    recovery: LossRecovery,
    /// RFC 6675 scoreboard (used only when SACK recovery is enabled).
    sb: Scoreboard,
    /// RFC 6937 state of the current SACK recovery (used only with `cfg.prr`).
    prr: Prr,
    /// When the last data segment was sent (Linux's `lsndtime`): the restart after idle
    /// (`cfg.slow_start_after_idle`) and CUBIC's epoch shift (`cfg.cubic_idle_shift`).
    last_data_sent: Option<Time>,
    /// The `last_data_sent` a restart check already used, so a send the windows then hold
    /// back cannot restart twice for one idle period.
    restart_checked: Option<Time>,
    /// RFC 8985 RACK-TLP state (used only with `cfg.rack` / `cfg.tlp` and SACK).
    rack: Rack,
    /// RACK runs (`cfg.rack` and SACK recovery), TLP runs, either (the sent queue is kept).
    rack_on: bool,
    tlp_on: bool,
    rack_track: bool,
    /// `rto_rearm = "linux"` with SACK: SACKs of data older than the head's resend restart the RTO.
    rearm_sack: bool,
    /// `rtt_sample = "linux"`: RTT samples from the send times of what each ACK newly covers.
    linux_rtt: bool,
    /// `linux_rtt || rearm_sack`: each ACK's send times are read before it is applied.
    ack_times: bool,
    /// `in_flight = "linux"` with SACK: SACKed bytes leave the flight also outside recovery.
    sacked_leave_flight: bool,
    /// The PTO fired with new data to send: the next segment is a new-data probe.
    tlp_new_pending: bool,

    // --- receive side (unwrapped positions in the peer's sequence space) ---
    rx: SeqSpace,
    rcv_nxt: u64,
    /// Right edge of the window we advertised (never moves left: RFC 7323 §2.4).
    rcv_adv: u64,
    /// In-order bytes not yet read by the application.
    unread: u64,
    ooo: Reassembly,
    /// Position of the peer's FIN once seen (maybe out of order).
    rcv_fin: Option<u64>,
    fin_received: bool,
    last_ack_sent: u64,
    /// Window advertised on our SYN (unscaled).
    syn_window: u32,

    // --- ACK generation ---
    ack_now: bool,
    /// The ACK is owed to an unacceptable segment (e.g. a window probe): it goes out as a
    /// pure ACK ahead of any data, as Linux's `tcp_send_dupack` does, not piggy-backed.
    dupack_first: bool,
    ack_pending_segs: u32,
    window_update_pending: bool,
    /// In-order data with PSH arrived since our last ACK (`cfg.ack_pushed`: Linux's
    /// `ICSK_ACK_PUSHED`); a read that empties the buffer then ACKs at once.
    ack_pushed: bool,
    /// Duplicate ACKs held by SACK compression (`cfg.sack_compress`) and their timer.
    sack_compress: SackCompress,
    /// The segment `try_send` emits next fills the window (`cfg.push_window_end`): mark PSH.
    push_next: bool,
    /// Immediate ACKs left in the current quick-ACK run (`cfg.quick_ack`).
    quickacks: u32,
    /// When in-order data last arrived (`cfg.quick_ack`: a longer silence than the RTO
    /// starts a new run).
    last_data_rx: Option<Time>,
    /// Receive-window autotuning (`cfg.autotune`), allocated once per connection.
    autotune: Option<Box<Autotune>>,

    // --- timers ---
    rto_at: Option<Time>,
    persist_at: Option<Time>,
    delack_at: Option<Time>,
    time_wait_at: Option<Time>,

    ip_id: u16,
    events: u8,
    stats: TcpStats,
}

impl TcpConnection {
    fn new(cfg: TcpConfig, state: TcpState, local: Endpoint, remote: Endpoint, isn: u32) -> Self {
        let mss = cfg.mss.max(1) as u32;
        let autotune = cfg.autotune.then(|| Box::new(Autotune::new(mss, cfg.recv_buffer as u64).with_scaling_ratio(cfg.scaling_ratio)));
        let recovery = LossRecovery::new(cfg.recovery_point);
        TcpConnection {
            rtt: {
                let mut rtt = RttEstimator::with_mode(cfg.rto, cfg.timer_tick, cfg.initial_rto, cfg.min_rto, cfg.max_rto);
                rtt.set_timer_wheel(cfg.rto_timer == RtoTimer::Linux);
                rtt
            },
            cc: {
                let mut cc = CongestionControl::new(cfg.congestion_control, mss, cfg.initial_cwnd);
                cc.set_abc_limit(cfg.ack_every);
                cc.set_hystart(cfg.hystart);
                cc.set_cubic_variant(cfg.cubic);
                cc.set_vegas_retransmit(cfg.vegas_retransmit);
                cc
            },
            sb: {
                let mut sb = Scoreboard::new(mss, cfg.dupack_threshold);
                sb.set_ooo_limit(cfg.ooo_limit);
                sb
            },
            cfg,
            state,
            local,
            remote,
            remote_bound: false,
            tx: SeqSpace::new(isn),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_queued: 0,
            fin_queued: false,
            snd_wnd: 0,
            max_snd_wnd: 0,
            snd_wl1: 0,
            snd_wl2: 0,
            snd_shift: 0,
            rcv_shift: 0,
            eff_mss: mss,
            ts_ok: false,
            ts_recent: 0,
            sack_ok: false,
            ws_ok: false,
            retransmit_at: None,
            probe_pending: false,
            force_send: false,
            persist_backoff: 0,
            retries: 0,
            syn_retransmitted: false,
            rtt_timing: None,
            recovery,
            prr: Prr::default(),
            last_data_sent: None,
            restart_checked: None,
            rack: Rack::default(),
            rack_on: false,
            tlp_on: false,
            rack_track: false,
            rearm_sack: false,
            linux_rtt: false,
            ack_times: false,
            sacked_leave_flight: false,
            tlp_new_pending: false,
            rx: SeqSpace::new(0),
            rcv_nxt: 0,
            rcv_adv: 0,
            unread: 0,
            ooo: Reassembly::default(),
            rcv_fin: None,
            fin_received: false,
            last_ack_sent: 0,
            syn_window: 0,
            ack_now: false,
            dupack_first: false,
            ack_pending_segs: 0,
            ack_pushed: false,
            sack_compress: SackCompress::default(),
            push_next: false,
            window_update_pending: false,
            quickacks: 0,
            last_data_rx: None,
            autotune,
            rto_at: None,
            persist_at: None,
            delack_at: None,
            time_wait_at: None,
            ip_id: 0,
            events: 0,
            stats: TcpStats::default(),
        }
    }

    /// Active open: the SYN is ready in `poll_transmit`.
    pub fn connect(config: TcpConfig, local: Endpoint, remote: Endpoint, isn: u32, _now: Time) -> Self {
        let mut c = TcpConnection::new(config, TcpState::SynSent, local, remote, isn);
        c.remote_bound = true;
        c
    }

    /// Passive open: the first SYN to `local` from anyone binds the remote endpoint.
    pub fn listen(config: TcpConfig, local: Endpoint, isn: u32) -> Self {
        let unspecified = Endpoint::new(Ipv4Addr::UNSPECIFIED, 0);
        TcpConnection::new(config, TcpState::Listen, local, unspecified, isn)
    }

    // ------------------------------------------------------------------ accessors

    /// Current RFC 793 state.
    pub fn state(&self) -> TcpState {
        self.state
    }
    /// Counters.
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    /// Our endpoint.
    pub fn local(&self) -> Endpoint {
        self.local
    }
    /// The peer's endpoint (0.0.0.0:0 while listening).
    pub fn remote(&self) -> Endpoint {
        self.remote
    }
    /// The configuration.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// Congestion window in bytes.
    pub fn cwnd(&self) -> u32 {
        self.cc.cwnd()
    }
    /// Slow-start threshold in bytes (`u32::MAX` before the first loss).
    pub fn ssthresh(&self) -> u32 {
        self.cc.ssthresh()
    }
    /// The peer's last advertised receive window in bytes.
    pub fn peer_window(&self) -> u32 {
        self.snd_wnd
    }
    /// Receive window (bytes) our next segment would advertise.
    pub fn advertised_window(&self) -> u32 {
        self.window_value().min(u32::MAX as u64) as u32
    }
    /// Smoothed RTT, once sampled.
    pub fn srtt(&self) -> Option<Duration> {
        self.rtt.srtt()
    }
    /// Current retransmission timeout (including backoff).
    pub fn rto(&self) -> Duration {
        self.rtt.rto()
    }
    /// Sequence space sent but not yet acknowledged (since snd_una up to snd_nxt).
    pub fn bytes_in_flight(&self) -> u32 {
        (self.snd_nxt.saturating_sub(self.snd_una)).min(u32::MAX as u64) as u32
    }
    /// Payload bytes per full-sized segment (effective MSS after option overhead).
    pub fn effective_mss(&self) -> u32 {
        self.eff_mss
    }
    /// True if timestamps were negotiated.
    pub fn timestamps_enabled(&self) -> bool {
        self.ts_ok
    }
    /// True if SACK-permitted was negotiated: ACKs then carry SACK blocks and, unless the
    /// controller has no fast recovery, loss recovery follows RFC 6675.
    pub fn sack_permitted(&self) -> bool {
        self.sack_ok
    }
    /// Our window-scale shift and the peer's, if scaling was negotiated.
    pub fn window_scales(&self) -> (u8, u8) {
        (self.rcv_shift, self.snd_shift)
    }
    /// Application bytes queued but not yet acknowledged by the peer.
    pub fn unacked_bytes(&self) -> u64 {
        self.data_end().saturating_sub(self.snd_una.max(1))
    }
    /// True while in fast recovery.
    pub fn in_recovery(&self) -> bool {
        self.recovery.in_recovery()
    }
    /// The congestion controller (algorithm state such as Vegas's BaseRTT or Westwood+'s BWE).
    pub fn congestion_control(&self) -> &CongestionControl {
        &self.cc
    }

    // ------------------------------------------------------------------ application side

    /// Append `bytes` to the send stream (ignored after `close`; the buffer is unbounded so
    /// the model never blocks the application).
    pub fn send(&mut self, bytes: u64) {
        let open = matches!(
            self.state,
            TcpState::SynSent | TcpState::SynReceived | TcpState::Established | TcpState::CloseWait
        );
        if open && !self.fin_queued {
            self.app_queued = self.app_queued.saturating_add(bytes);
        }
    }

    /// Close our direction: a FIN follows all queued data (RFC 793 CLOSE call).
    pub fn close(&mut self) {
        match self.state {
            TcpState::Listen => self.enter_closed(),
            // Like a socket closed while connecting: the FIN follows the handshake and data.
            TcpState::SynSent | TcpState::SynReceived => self.fin_queued = true,
            TcpState::Established => {
                self.fin_queued = true;
                self.state = TcpState::FinWait1;
            }
            TcpState::CloseWait => {
                self.fin_queued = true;
                self.state = TcpState::LastAck;
            }
            _ => {}
        }
    }

    /// In-order bytes received and not yet read.
    pub fn readable(&self) -> u64 {
        self.unread
    }

    /// Consume up to `max` bytes; may schedule a window update (RFC 1122 4.2.3.3).
    pub fn read(&mut self, max: u64) -> u64 {
        let n = max.min(self.unread);
        self.unread -= n;
        self.stats.bytes_read += n;
        if n > 0 && self.can_receive() {
            // A dedicated update is worth a segment only if the sender may be stalled: the
            // window opens from (nearly) nothing — at least doubling, Linux's test. Every other
            // ACK carries the new window anyway.
            let cur = self.rcv_adv.saturating_sub(self.rcv_nxt);
            let new = self.window_value();
            if self.ack_pushed && self.unread == 0 && (self.ack_pending_segs > 0 || self.delack_at.is_some()) {
                // Linux's `__tcp_cleanup_rbuf` (tcp.c, 6.18): an ACK is scheduled, data with
                // PSH arrived (`ICSK_ACK_PUSHED`, set by `tcp_measure_rcv_mss`), the
                // connection is not interactive and this read emptied the receive queue:
                // ACK now rather than on the delayed-ACK timer.
                self.ack_now = true;
            }
            if new > cur && new >= 2 * cur {
                self.ack_now = true;
                self.window_update_pending = true;
            }
        }
        n
    }

    /// Next application event, if any.
    pub fn poll_event(&mut self) -> Option<TcpEvent> {
        const ORDER: [(u8, TcpEvent); 6] = [
            (EV_CONNECTED, TcpEvent::Connected),
            (EV_READABLE, TcpEvent::Readable),
            (EV_PEER_FIN, TcpEvent::PeerFin),
            (EV_RESET, TcpEvent::Reset),
            (EV_TIMED_OUT, TcpEvent::TimedOut),
            (EV_CLOSED, TcpEvent::Closed),
        ];
        for (bit, ev) in ORDER {
            if self.events & bit != 0 {
                self.events &= !bit;
                return Some(ev);
            }
        }
        None
    }

    // ------------------------------------------------------------------ timers

    /// Earliest armed timer (RTO, persist, delayed ACK, TIME_WAIT; SACK compression's hold;
    /// RACK's reordering timer and PTO).
    pub fn poll_timeout(&self) -> Option<Time> {
        let mut t = [self.rto_at, self.persist_at, self.delack_at, self.time_wait_at].into_iter().flatten().min();
        if self.cfg.sack_compress {
            t = [t, self.sack_compress.deadline()].into_iter().flatten().min(); // held duplicate ACK
        }
        if !self.rack_track {
            return t;
        }
        [t, self.rack.next_timer()].into_iter().flatten().min() // RACK: reordering timer, PTO
    }

    /// Handle every timer that expired at or before `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        if self.delack_at.is_some_and(|t| t <= now) {
            self.delack_at = None;
            if self.ack_pending_segs > 0 {
                self.ack_now = true;
            }
        }
        if self.cfg.sack_compress && self.sack_compress.on_timer(now) {
            self.ack_now = true; // tcp_compressed_ack_kick: the held duplicate ACK goes out
        }
        if self.rack_track {
            // RACK: reordering timer and PTO; a PTO due with the RTO wins (it is never armed
            // later than the RTO, and Linux runs both on one timer: the probe goes out).
            self.rack_on_timer(now);
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.rto_at = None;
            self.on_rto(now);
        }
        if self.persist_at.is_some_and(|t| t <= now) {
            self.persist_at = None;
            self.on_persist();
        }
        if self.time_wait_at.is_some_and(|t| t <= now) {
            self.time_wait_at = None;
            self.enter_closed();
        }
    }

    /// RTO expiry (RFC 6298 §5.4–5.6, RFC 5681 §3.1): retransmit from snd_una, go-back-N.
    fn on_rto(&mut self, now: Time) {
        if self.snd_una >= self.snd_max || matches!(self.state, TcpState::Closed | TcpState::Listen) {
            return;
        }
        self.retries += 1;
        let limit = if self.state.is_synchronized() { MAX_RETRIES } else { MAX_SYN_RETRIES };
        if self.retries > limit {
            self.events |= EV_TIMED_OUT;
            self.enter_closed();
            return;
        }
        self.stats.timeouts += 1;
        self.rtt.backoff();
        self.rtt_timing = None; // Karn: the timed segment is being retransmitted
        if !self.state.is_synchronized() {
            self.syn_retransmitted = true;
            self.snd_nxt = 0; // resend SYN / SYN-ACK
            return;
        }
        let flight = self.flight_size();
        self.cc.on_timeout(now, flight);
        self.recovery.on_timeout(self.snd_max);
        if self.sack_recovery_enabled() {
            // SACK: resend only the holes, paced by pipe (RFC 6675 §5.1).
            self.sack_on_rto();
        } else {
            self.snd_nxt = self.snd_una;
        }
        // The head segment goes out by the next poll_transmit (which re-arms the timer), the
        // rest follows go-back-N (or NextSeg with SACK) as cwnd and the peer's window allow.
        self.retransmit_at = Some(self.snd_una);
    }

    /// Persist-timer expiry (RFC 1122 4.2.2.17): probe a zero window, or override sender SWS.
    fn on_persist(&mut self) {
        if !self.persist_wanted() {
            return;
        }
        if self.snd_wnd == 0 {
            self.probe_pending = true;
        } else {
            self.force_send = true;
        }
        self.stats.persist_probes_sent += 1;
        self.persist_backoff = self.persist_backoff.saturating_add(1);
    }

    /// Data (or a FIN) waits, nothing is outstanding, yet nothing can be sent.
    fn persist_wanted(&self) -> bool {
        self.can_send_state() && self.snd_una == self.snd_max && self.snd_nxt < self.data_end()
    }

    fn persist_interval(&self) -> Duration {
        // Start at the RTO and double per probe, capped at max_rto (like Linux's probe0 timer).
        let shift = self.persist_backoff.min(32);
        let d = self.rtt.rto().saturating_mul(1u64 << shift);
        d.min(self.cfg.max_rto)
    }

    // ------------------------------------------------------------------ input

    /// Process one TCP segment addressed to this connection (others are ignored).
    pub fn handle_segment(&mut self, now: Time, pkt: &Packet) {
        let Some(h) = pkt.tcp_header() else { return };
        let h = *h;
        if h.dst_port != self.local.port || pkt.dst != self.local.addr {
            return;
        }
        if self.remote_bound && pkt.src_endpoint() != self.remote {
            return;
        }
        self.stats.segments_received += 1;
        match self.state {
            TcpState::Closed => {}
            TcpState::Listen => self.on_listen(now, pkt, &h),
            TcpState::SynSent => self.on_syn_sent(now, &h),
            _ => self.on_synchronized(now, &h, pkt.payload_len),
        }
    }

    fn on_listen(&mut self, _now: Time, pkt: &Packet, h: &TcpHeader) {
        if h.flags.contains(TcpFlags::RST) || h.flags.contains(TcpFlags::ACK) || !h.flags.contains(TcpFlags::SYN) {
            return; // RFC 793 would answer a stray ACK with RST; optional here
        }
        self.remote = pkt.src_endpoint();
        self.remote_bound = true;
        self.accept_syn(h);
        self.state = TcpState::SynReceived;
        self.snd_nxt = 0; // SYN-ACK pending
    }

    /// Record the peer's SYN: its ISN, options and (unscaled) window.
    fn accept_syn(&mut self, h: &TcpHeader) {
        self.rx = SeqSpace::new(h.seq);
        self.rcv_nxt = 1;
        self.last_ack_sent = 1;
        let o = &h.options;
        self.ts_ok = self.cfg.timestamps && o.timestamps.is_some();
        if let (true, Some(ts)) = (self.ts_ok, o.timestamps) {
            self.ts_recent = ts.tsval;
        }
        self.sack_ok = self.cfg.sack && o.sack_permitted;
        match (self.cfg.window_scale, o.window_scale) {
            (Some(ours), Some(theirs)) => {
                self.ws_ok = true;
                self.rcv_shift = ours.min(MAX_WINDOW_SCALE);
                self.snd_shift = theirs.min(MAX_WINDOW_SCALE);
            }
            _ => {
                self.ws_ok = false;
                self.rcv_shift = 0;
                self.snd_shift = 0;
            }
        }
        let peer_mss = o.mss.unwrap_or(DEFAULT_PEER_MSS) as u32;
        let overhead = if self.ts_ok { TIMESTAMP_OPTION_LEN } else { 0 };
        self.eff_mss = (peer_mss.min(self.cfg.mss as u32)).saturating_sub(overhead).max(1);
        self.cc.set_mss(self.eff_mss, self.cfg.initial_cwnd);
        self.sb.set_mss(self.eff_mss);
        self.rack_setup(); // RACK: on if configured and SACK was negotiated
        self.sacked_leave_flight = self.cfg.in_flight == InFlight::Linux && self.sack_recovery_enabled();
        // The window on a SYN is never scaled (RFC 7323 §2.2).
        self.snd_wnd = h.window as u32;
        self.max_snd_wnd = self.snd_wnd;
        self.snd_wl1 = h.seq;
        self.snd_wl2 = h.ack;
    }

    fn on_syn_sent(&mut self, now: Time, h: &TcpHeader) {
        let f = h.flags;
        let ack_ok = f.contains(TcpFlags::ACK) && h.ack == self.tx.wire(1);
        if f.contains(TcpFlags::ACK) && !ack_ok {
            return; // unacceptable ACK (RFC 793 would send RST)
        }
        if f.contains(TcpFlags::RST) {
            if ack_ok {
                self.events |= EV_RESET;
                self.enter_closed();
            }
            return;
        }
        if !f.contains(TcpFlags::SYN) {
            return;
        }
        self.accept_syn(h);
        self.rcv_adv = self.rcv_nxt + self.syn_window as u64;
        if ack_ok {
            self.ack_received_for_syn(now, h);
            self.ack_now = true; // third segment of the handshake, never delayed
        } else {
            // Simultaneous open (RFC 793 §3.4): answer with SYN-ACK.
            self.state = TcpState::SynReceived;
            self.snd_nxt = 0;
        }
    }

    /// Our SYN was acknowledged: ESTABLISHED.
    fn ack_received_for_syn(&mut self, now: Time, h: &TcpHeader) {
        self.snd_una = 1;
        self.snd_nxt = self.snd_nxt.max(1);
        self.retries = 0;
        self.take_rtt_sample(now, h, 1);
        self.rtt_timing = None;
        if self.rtt.srtt().is_none() && self.syn_retransmitted {
            self.rtt.set_rto(RTO_AFTER_SYN_LOSS);
        }
        self.rto_at = None;
        self.state = if self.fin_queued { TcpState::FinWait1 } else { TcpState::Established };
        self.events |= EV_CONNECTED;
        if let Some(a) = &mut self.autotune {
            a.on_established(now, self.stats.bytes_read, self.eff_mss);
        }
    }

    fn on_synchronized(&mut self, now: Time, h: &TcpHeader, payload_len: u32) {
        let f = h.flags;
        let syn = f.contains(TcpFlags::SYN);
        let fin = f.contains(TcpFlags::FIN);
        let seq_pos = self.rx.unwrap(h.seq, self.rcv_nxt);

        // A retransmitted SYN while our SYN-ACK is unacknowledged: send the SYN-ACK again.
        if self.state == TcpState::SynReceived && syn && !f.contains(TcpFlags::ACK) {
            if seq_pos == 0 {
                self.snd_nxt = 0;
            }
            return;
        }

        // Segment acceptability (RFC 793 §3.9 "first check sequence number", in Linux's
        // form): wholly old segments, including zero-length window probes at rcv_nxt - 1,
        // and segments starting beyond the window are answered with an immediate ACK carrying
        // our current window, and dropped.
        let seg_len = payload_len as i64 + syn as i64 + fin as i64;
        let rcv_nxt = self.rcv_nxt as i64;
        let wnd = self.rcv_adv.saturating_sub(self.rcv_nxt) as i64;
        let old = seq_pos + seg_len < rcv_nxt || (seg_len == 0 && seq_pos < rcv_nxt);
        let beyond = seq_pos > rcv_nxt + wnd;
        if old || beyond {
            if !f.contains(TcpFlags::RST) {
                self.ack_now = true;
                self.dupack_first = true;
                self.stats.unacceptable_segments_acked += 1;
                if self.state == TcpState::TimeWait {
                    self.time_wait_at = Some(now + self.cfg.time_wait);
                }
            }
            return;
        }
        if f.contains(TcpFlags::RST) {
            self.events |= EV_RESET;
            self.enter_closed();
            return;
        }
        if syn {
            // SYN in a synchronized state: challenge ACK (RFC 5961 §4), drop.
            self.ack_now = true;
            return;
        }
        if !f.contains(TcpFlags::ACK) {
            return;
        }

        // RFC 7323 §4.3: TS.Recent from segments covering Last.ACK.sent.
        if self.ts_ok {
            if let Some(ts) = h.options.timestamps {
                if seq_pos <= self.last_ack_sent as i64 && seq::ge(ts.tsval, self.ts_recent) {
                    self.ts_recent = ts.tsval;
                }
            }
        }

        if self.state == TcpState::SynReceived {
            if h.ack != self.tx.wire(1) {
                return; // not the ACK of our SYN-ACK (RFC 793 would send RST)
            }
            self.ack_received_for_syn(now, h);
            // Window of this (non-SYN) segment is scaled.
            self.snd_wnd = (h.window as u32) << self.snd_shift;
            self.max_snd_wnd = self.max_snd_wnd.max(self.snd_wnd);
            self.snd_wl1 = h.seq;
            self.snd_wl2 = h.ack;
        } else if !self.process_ack(now, h, payload_len, fin) {
            return;
        }
        if self.state == TcpState::Closed {
            return;
        }

        let rcv_nxt = self.rcv_nxt;
        self.process_data(now, seq_pos, payload_len, fin);
        if self.cfg.ack_pushed && self.rcv_nxt > rcv_nxt && h.flags.contains(TcpFlags::PSH) {
            self.ack_pushed = true;
        }
        if self.autotune.is_some() && self.rcv_nxt > rcv_nxt {
            self.autotune_on_data(now, h, payload_len);
        }
    }

    /// Autotuning after in-order data: receiver RTT, rcv_ssthresh growth (with `quick_ack`, a
    /// segment that grew it is ACKed at once, as Linux's `tcp_grow_window` does), and the
    /// per-RTT measurement of what the application read (see [`super::autotune`]).
    #[cold]
    fn autotune_on_data(&mut self, now: Time, h: &TcpHeader, payload_len: u32) {
        let echo = if self.ts_ok { h.options.timestamps.map(|ts| ts_clock(now).wrapping_sub(ts.tsecr)) } else { None };
        let echo = echo.filter(|&e| e <= i32::MAX as u32).map(|e| Duration::from_millis(e.max(1) as u64));
        let ooo = self.ooo.ranges().last().map_or(0, |r| r.1.saturating_sub(self.rcv_nxt));
        let wnd = self.rcv_adv.saturating_sub(self.rcv_nxt);
        let read = self.stats.bytes_read;
        if let Some(a) = &mut self.autotune {
            let grew = a.on_data(now, payload_len, echo, self.rcv_nxt, wnd);
            a.on_read(now, read, ooo);
            if grew && self.cfg.quick_ack {
                // Linux's `tcp_grow_window` (tcp_input.c, 6.18): `icsk_ack.quick |= 1`, so the
                // segment that raised rcv_ssthresh is ACKed at once (`__tcp_ack_snd_check`):
                // while the window grows, the receiver ACKs every segment.
                self.quickacks |= 1;
                self.ack_now = true;
            }
        }
    }

    /// ACK field processing (RFC 793 §3.9 fifth check, RFC 5681, RFC 6582, RFC 6298).
    /// Returns false if the segment must be dropped.
    fn process_ack(&mut self, now: Time, h: &TcpHeader, payload_len: u32, fin: bool) -> bool {
        let ack = self.tx.unwrap(h.ack, self.snd_una);
        if ack > self.snd_max as i64 {
            self.ack_now = true; // ACK of something never sent: ACK and drop
            return false;
        }
        if ack < self.snd_una as i64 {
            self.cc.on_old_ack(); // reordered ACK (`ackloss` un-counts a lost ACK)
            return true; // old duplicate ACK: ignore, data may still be useful
        }
        let ack = ack as u64;
        let wnd = (h.window as u32) << self.snd_shift;
        let style = self.recovery_style();
        // PRR's DeliveredData (RFC 6937 §3.1): the change in snd_una plus in SACKed bytes.
        let prr = self.cfg.prr && style == RecoveryStyle::Sack;
        let before = if prr { (self.snd_una, self.sb.sacked_bytes(), self.rack.stats().marked_lost) } else { (0, 0, 0) };
        let una0 = self.snd_una;
        let mut new_sack = false;
        // Duplicate ACK per RFC 5681 §2: outstanding data, no payload, no SYN/FIN,
        // same ACK, same window. SACK: an ACK not advancing snd_una that SACKs new data
        // (RFC 6675 §2), after the scoreboard's Update().
        let is_dup = if style == RecoveryStyle::Sack {
            new_sack = self.sack_update(h, ack);
            new_sack && ack == self.snd_una && self.snd_max > self.snd_una
        } else {
            ack == self.snd_una && payload_len == 0 && !fin && wnd == self.snd_wnd && self.snd_max > self.snd_una
        };

        // Send-window update (RFC 793 §3.9): only from segments newer than the last update.
        if seq::lt(self.snd_wl1, h.seq) || (self.snd_wl1 == h.seq && seq::le(self.snd_wl2, h.ack)) {
            self.snd_wnd = wnd;
            self.max_snd_wnd = self.max_snd_wnd.max(wnd);
            self.snd_wl1 = h.seq;
            self.snd_wl2 = h.ack;
        }

        if ack > self.snd_una {
            let flight_before = self.bytes_in_flight();
            let data_end = self.data_end();
            let acked_data = (ack.clamp(1, data_end) - self.snd_una.clamp(1, data_end)) as u32;
            let acked_total = (ack - self.snd_una) as u32;
            self.snd_una = ack;
            if self.snd_nxt < ack {
                self.snd_nxt = ack; // go-back-N: the receiver already had these
            }
            self.retries = 0;
            self.persist_backoff = 0;
            // The timed segment's nanosecond RTT, for delay-based congestion control (with
            // timestamps on it is timed for the controller only).
            let fine_rtt = self.rtt_timing.filter(|&(end, _)| ack >= end).map(|(_, sent)| now.saturating_since(sent));
            let sample = if self.linux_rtt { self.take_linux_rtt_sample(now, h, ack) } else { self.take_rtt_sample(now, h, ack) };
            if fine_rtt.is_some() {
                self.rtt_timing = None;
            }
            self.cc.on_ack_arrival(&AckInfo {
                now,
                ack,
                snd_nxt: self.snd_nxt,
                bytes_acked: acked_data,
                is_dup: false,
                rtt: sample,
                fine_rtt,
                srtt: self.rtt.srtt(),
            });
            let mut restart_rto = true;
            let new_ack_action = self.recovery.on_new_ack(ack, style);
            match new_ack_action {
                NewAckAction::Normal => {
                    if acked_data > 0 {
                        self.cc.on_ack(now, acked_data, sample, flight_before);
                    }
                }
                NewAckAction::PartialAck { first } => {
                    // RFC 6582 §3.2 step 5: retransmit the next hole, deflate partially,
                    // restart the RTO only on the first partial ACK ("impatient" variant).
                    self.cc.on_partial_ack(acked_total);
                    self.retransmit_at = Some(self.snd_una);
                    self.stats.partial_ack_retransmits += 1;
                    restart_rto = first;
                }
                NewAckAction::ExitRecovery => {
                    let flight = self.flight_size();
                    self.cc.on_exit_recovery(flight);
                }
                // SACK: cwnd stays; sack_transmit sends what pipe allows (RFC 6675 §5 (B)–(C)).
                NewAckAction::StayInRecovery => {}
            }
            // Vegas: on the 1st/2nd new ACK after a dupACK retransmission, resend the new
            // snd_una segment too if it outlived the fine-grained timeout (Brakmo & Peterson
            // §3.1); a partial ACK already resends it.
            if self.cc.resend_after_retransmit(now)
                && style != RecoveryStyle::Sack
                && !matches!(new_ack_action, NewAckAction::PartialAck { .. })
                && self.snd_una < self.snd_max
            {
                self.retransmit_at = Some(self.snd_una);
                self.cc.count_resend_after_retransmit();
            }
            // RFC 6298 §5.2/5.3.
            if self.snd_una >= self.snd_max {
                self.rto_at = None;
            } else if restart_rto || self.rto_at.is_none() {
                self.rto_at = Some(self.rtt.rto_deadline(now));
            }
            if self.fin_queued && self.snd_una > data_end {
                self.our_fin_acked(now);
            }
            if style == RecoveryStyle::Sack && self.cfg.ooo_limit == OooLimit::Rcvbuf {
                self.ooo_check_reneging(now); // OOO: snd_una in a SACKed range: reneged
            }
        } else if is_dup {
            self.stats.dup_acks_received += 1;
            self.cc.on_ack_arrival(&AckInfo {
                now,
                ack,
                snd_nxt: self.snd_nxt,
                bytes_acked: 0,
                is_dup: true,
                rtt: None,
                fine_rtt: None,
                srtt: self.rtt.srtt(),
            });
            let action = self.recovery.on_dup_ack(
                ack,
                self.snd_max,
                if self.rack_on { u32::MAX } else { self.cfg.dupack_threshold }, // RACK marks losses
                style,
                self.cc.uses_fast_recovery(),
            );
            // Vegas: on the 1st/2nd duplicate ACK, retransmit snd_una at once if it was sent
            // longer ago than the fine-grained timeout (Brakmo & Peterson §3.1).
            let early = action == DupAckAction::None
                && style != RecoveryStyle::Sack
                && self.cc.fine_timeout_expired(now)
                && self.recovery.enter_on_fine_timeout(ack, self.snd_max, style);
            if early {
                let flight = self.flight_size();
                self.cc.on_early_retransmit(flight, self.recovery.dupacks());
                self.retransmit_at = Some(self.snd_una);
                self.rtt_timing = None; // Karn
                self.stats.fast_retransmits += 1;
            }
            match action {
                DupAckAction::FastRetransmit if style == RecoveryStyle::Sack => self.enter_sack_recovery(),
                DupAckAction::FastRetransmit => {
                    let flight = self.flight_size();
                    self.cc.on_enter_recovery(flight, self.cfg.dupack_threshold);
                    self.retransmit_at = Some(self.snd_una);
                    self.rtt_timing = None; // Karn
                    self.stats.fast_retransmits += 1;
                    if !self.cc.uses_fast_recovery() {
                        // Tahoe (ns-2 `reset_rtx_timer(0,0)` sets t_seqno_ = highest_ack_ + 1):
                        // go back to snd_una and resend in slow start, as after an RTO.
                        self.snd_nxt = self.snd_una;
                    }
                }
                DupAckAction::Inflate => {
                    self.cc.on_dup_ack(self.bytes_in_flight());
                    // Vegas `ns2` (ns-2 `tcp-vegas.cc`): every duplicate ACK checks snd_una's
                    // segment against the (backed-off) fine timeout, also during recovery.
                    if self.cfg.vegas_retransmit == VegasRetransmit::Ns2
                        && style != RecoveryStyle::Sack
                        && self.cc.ns2_resend_in_recovery(now, self.recovery.dupacks())
                    {
                        self.retransmit_at = Some(self.snd_una);
                        self.rtt_timing = None; // Karn
                        self.stats.fast_retransmits += 1;
                    }
                }
                DupAckAction::None => {}
            }
        }
        // Linux's send time of the first segment a SACK-only ACK newly SACKs (RACK's records
        // are applied only in `rack_on_ack`, so they are still as before the ACK here).
        let first_sackt = if self.ack_times && self.snd_una == una0 { self.ack_send_times(h, ack).first_sackt } else { None };
        if let Some(sent) = first_sackt.filter(|_| self.linux_rtt) {
            self.record_rtt_sample(now, now.saturating_since(sent)); // Linux: a SACK-only ACK's sample
        }
        if self.rack_track {
            self.rack_on_ack(now, h, una0, new_sack, payload_len, first_sackt); // RACK: detect loss, TLP
        }
        if style == RecoveryStyle::Sack && !self.rack_on {
            self.sack_check_loss(); // SACK: IsLost(HighACK+1) also starts recovery (RFC 6675 §5)
        }
        if prr && self.recovery.in_recovery() {
            let delivered = (self.snd_una - before.0 + self.sb.sacked_bytes()).saturating_sub(before.1);
            // Linux's rs->losses: segments loss detection (RACK here) marked on this ACK.
            let newly_lost = self.rack.stats().marked_lost > before.2;
            self.prr_on_ack(PrrAck { delivered, una_advanced: self.snd_una > before.0, newly_lost });
        }
        if self.snd_wnd > 0 {
            self.persist_at = None; // window open: normal sending (or sender SWS) takes over
        }
        true
    }

    /// RTT sample for an ACK that advanced snd_una to `ack`: from TSecr (RFC 7323 §4.1) or
    /// from the Karn-timed segment (RFC 6298 §3).
    fn take_rtt_sample(&mut self, now: Time, h: &TcpHeader, ack: u64) -> Option<Duration> {
        let sample = if self.ts_ok {
            tsecr_sample(now, h)?
        } else {
            let (end, sent) = self.rtt_timing?;
            if ack < end {
                return None;
            }
            self.rtt_timing = None;
            now.saturating_since(sent)
        };
        Some(self.record_rtt_sample(now, sample))
    }

    /// `rtt_sample = "linux"` on an ACK that advanced snd_una (`tcp_ack_update_rtt`): the age of
    /// the first never-retransmitted segment it acknowledges cumulatively, else of the first it
    /// newly SACKs, else the TSecr echo (see [`super::rtt_sample`]).
    #[inline(never)]
    fn take_linux_rtt_sample(&mut self, now: Time, h: &TcpHeader, ack: u64) -> Option<Duration> {
        let times = self.ack_send_times(h, ack); // RACK's records are still as before this ACK
        let tsecr = if self.ts_ok { tsecr_sample(now, h) } else { None };
        let sample = rtt_sample::linux_sample(now, times, tsecr)?;
        Some(self.record_rtt_sample(now, sample))
    }

    /// Feed one RTT sample to the estimator; returns the stack's own measurement of it.
    fn record_rtt_sample(&mut self, now: Time, sample: Duration) -> Duration {
        // The statistics keep the path's RTT; the estimator and congestion control see the
        // stack's own measurement (whole ticks with a coarse timer).
        let measured = self.rtt.measure(now, sample, self.snd_una, self.snd_nxt);
        self.stats.rtt_samples += 1;
        self.stats.rtt_sample_sum_ns = self.stats.rtt_sample_sum_ns.saturating_add(sample.as_nanos());
        measured
    }

    fn our_fin_acked(&mut self, now: Time) {
        match self.state {
            TcpState::FinWait1 => self.state = TcpState::FinWait2,
            TcpState::Closing => self.enter_time_wait(now),
            TcpState::LastAck => self.enter_closed(),
            _ => {}
        }
    }

    /// Payload and FIN processing (RFC 793 §3.9 seventh/eighth checks).
    fn process_data(&mut self, now: Time, seq_pos: i64, payload_len: u32, fin: bool) {
        if payload_len == 0 && !fin {
            return;
        }
        if !self.can_receive() {
            // The peer already closed: a retransmitted FIN (or stray data) just gets an ACK.
            self.ack_now = true;
            if self.state == TcpState::TimeWait {
                self.time_wait_at = Some(now + self.cfg.time_wait);
            }
            return;
        }
        let rcv_nxt = self.rcv_nxt as i64;
        let start = seq_pos;
        let end = seq_pos + payload_len as i64;
        let right = self.rcv_adv.max(self.rcv_nxt) as i64;
        if payload_len > 0 {
            if start < rcv_nxt {
                // Partly or wholly old: immediate ACK (it may be a retransmission we already have).
                self.stats.duplicate_bytes_received += (end.min(rcv_nxt) - start) as u64;
                self.ack_now = true;
            }
            if end > right {
                self.ack_now = true; // data beyond our window is dropped
            }
            let s = start.max(rcv_nxt);
            let e = end.min(right);
            if s < e {
                if s == rcv_nxt {
                    if self.cfg.quick_ack {
                        self.quickack_on_data(now);
                    }
                    self.deliver((e - s) as u64);
                    if let Some(end) = self.ooo.pop_contiguous(self.rcv_nxt) {
                        let n = end - self.rcv_nxt;
                        self.deliver(n);
                        self.ack_now = true; // filled (part of) a hole: RFC 5681 §4.2
                    }
                    self.schedule_ack(now);
                } else {
                    self.stats.out_of_order_segments += 1;
                    if self.cfg.ooo_limit == OooLimit::Rcvbuf {
                        self.ooo_insert_bounded(s as u64, e as u64); // OOO: bounded by bytes
                    } else if !self.ooo.insert(s as u64, e as u64) {
                        self.stats.ooo_dropped_segments += 1; // no 33rd range
                    }
                    if !self.cfg.sack_compress || !self.sack_ok || self.quickacks > 0 {
                        self.ack_now = true; // out of order: immediate duplicate ACK (RFC 5681 §4.2)
                    } else if self.sack_compress.on_out_of_order(now, self.rcv_nxt, self.rtt.srtt()) {
                        self.ack_now = true; // Linux: the first 3 after an advance, or 44 held
                    }
                }
            }
        }
        if fin && end <= right && end >= rcv_nxt && self.rcv_fin.is_none() {
            self.rcv_fin = Some(end as u64);
        }
        self.check_peer_fin(now);
    }

    fn deliver(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        self.rcv_nxt += n;
        self.unread += n;
        self.stats.bytes_received += n;
        self.events |= EV_READABLE;
    }

    /// Delayed ACK (RFC 1122 4.2.3.2, RFC 5681 §4.2): every `ack_every`-th segment (second by
    /// default) or on the timer.
    fn schedule_ack(&mut self, now: Time) {
        if self.ack_now {
            return;
        }
        self.ack_pending_segs += 1;
        if !self.cfg.delayed_ack || self.ack_pending_segs >= self.cfg.ack_every.max(1) || self.quickacks > 0 {
            self.ack_now = true;
        } else if self.delack_at.is_none() {
            self.delack_at = Some(now + self.cfg.delayed_ack_timeout);
        }
    }

    /// Linux's `tcp_event_data_recv`: the first in-order data, or data after a silence longer
    /// than the RTO, starts a quick-ACK run of rcv_wnd / (2·MSS) ACKs (2 if that is 0), at most
    /// [`MAX_QUICKACKS`] (`tcp_incr_quickack`; it never shortens a run in progress).
    fn quickack_on_data(&mut self, now: Time) {
        let silent = self.last_data_rx.is_none_or(|t| now.saturating_since(t) > self.rtt.rto());
        self.last_data_rx = Some(now);
        if silent {
            let wnd = self.rcv_adv.saturating_sub(self.rcv_nxt);
            let n = match wnd / (2 * self.eff_mss as u64) {
                0 => 2,
                q => q.min(MAX_QUICKACKS as u64) as u32,
            };
            self.quickacks = self.quickacks.max(n);
        }
    }

    fn check_peer_fin(&mut self, now: Time) {
        if self.fin_received || self.rcv_fin != Some(self.rcv_nxt) {
            return;
        }
        self.fin_received = true;
        self.rcv_nxt += 1;
        self.ack_now = true;
        self.events |= EV_PEER_FIN;
        match self.state {
            TcpState::Established => self.state = TcpState::CloseWait,
            TcpState::FinWait1 => self.state = TcpState::Closing,
            TcpState::FinWait2 => self.enter_time_wait(now),
            _ => {}
        }
    }

    fn enter_time_wait(&mut self, now: Time) {
        self.state = TcpState::TimeWait;
        self.rto_at = None;
        self.persist_at = None;
        self.time_wait_at = Some(now + self.cfg.time_wait);
    }

    fn enter_closed(&mut self) {
        self.state = TcpState::Closed;
        self.rto_at = None;
        self.persist_at = None;
        self.delack_at = None;
        self.time_wait_at = None;
        self.ack_now = false;
        self.probe_pending = false;
        self.retransmit_at = None;
        self.events |= EV_CLOSED;
    }

    // ------------------------------------------------------------------ output

    /// Next segment to send now, or `None`; call until `None` (arms the persist timer).
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        let p = self.next_segment(now);
        if p.is_none() && self.persist_at.is_none() && self.rto_at.is_none() && self.persist_wanted() {
            self.persist_at = Some(self.rtt.deadline(now, self.persist_interval()));
        }
        p
    }

    fn next_segment(&mut self, now: Time) -> Option<Packet> {
        match self.state {
            TcpState::Closed | TcpState::Listen => return None,
            TcpState::SynSent | TcpState::SynReceived => {
                if self.snd_nxt == 0 {
                    return Some(self.emit_syn(now));
                }
                return None;
            }
            _ => {}
        }
        if self.dupack_first {
            self.dupack_first = false;
            if self.ack_now {
                return Some(self.emit_ack(now));
            }
        }
        if let Some(pos) = self.retransmit_at.take() {
            if pos >= self.snd_una && pos < self.snd_max && self.can_send_state() {
                // One segment of already-sent data, regardless of cwnd and of the peer's window
                // (RFC 5681 §3.2 step 2; RFC 6298 §5.4 — after an RTO with a shrunk window this
                // retransmission doubles as the window probe, as in Linux).
                let mut len = (self.seg_mss() as u64).min(self.snd_max - pos).min(self.data_end().saturating_sub(pos));
                if self.sack_recovery_enabled() {
                    len = self.sb.unsacked_run(pos, len); // SACK: never resend SACKed data
                }
                let advance = pos == self.snd_nxt;
                return Some(self.emit_from(now, pos, len, advance));
            }
        }
        if self.probe_pending {
            self.probe_pending = false;
            return Some(self.emit_probe(now));
        }
        if self.tlp_new_pending {
            if let Some(p) = self.tlp_send_new(now) {
                return Some(p); // TLP: a probe of new data, whatever cwnd (RFC 8985 §7.3)
            }
        }
        if self.can_send_state() && self.sack_pipe_mode() {
            // SACK: NextSeg() paced by pipe (RFC 6675 §5 (C)).
            if let Some(p) = self.sack_transmit(now) {
                return Some(p);
            }
        } else if self.can_send_state() && self.snd_nxt < self.snd_max.max(self.data_end() + self.fin_queued as u64) {
            if let Some(p) = self.try_send(now) {
                return Some(p);
            }
        }
        if self.ack_now {
            return Some(self.emit_ack(now));
        }
        None
    }

    /// New data, go-back-N retransmission or FIN at snd_nxt, if windows and SWS allow.
    fn try_send(&mut self, now: Time) -> Option<Packet> {
        let data_end = self.data_end();
        if self.snd_nxt >= data_end {
            // Only the FIN is left (sent without regard to the window, as it takes no buffer).
            if self.fin_queued && self.snd_nxt == data_end {
                return Some(self.emit_from(now, self.snd_nxt, 0, true));
            }
            return None;
        }
        if self.snd_max == self.snd_una && self.cfg.slow_start_after_idle {
            self.restart_after_idle(now); // nothing in flight: Linux's tcp_cwnd_restart check
        }
        let avail = data_end - self.snd_nxt;
        let flight = self.snd_nxt - self.snd_una;
        let wnd = self.cc.cwnd().min(self.snd_wnd) as u64;
        let usable = if self.sack_pipe_mode() {
            self.sack_usable()
        } else if self.sacked_leave_flight {
            self.usable_linux(flight)
        } else {
            wnd.saturating_sub(flight)
        };
        let mss = self.seg_mss() as u64;
        let len = mss.min(avail).min(usable);
        if len == 0 {
            return None;
        }
        // Sender SWS avoidance (RFC 1122 4.2.3.4): full segment, or all remaining data
        // (Nagle permitting), or at least half the largest window the peer ever offered,
        // or the persist timer's override.
        let ok = len == mss
            || (len == avail && (!self.cfg.nagle || flight == 0))
            || len * 2 >= self.max_snd_wnd as u64
            || self.force_send;
        if !ok {
            return None;
        }
        self.force_send = false;
        if self.cfg.push_window_end && (usable - len < mss || len == avail) {
            self.push_next = true; // the last segment these windows let go now
        }
        Some(self.emit_from(now, self.snd_nxt, len, true))
    }

    /// Room for new data outside recovery with `in_flight = "linux"`: SACKed bytes are out of
    /// the flight (out of line, so the default path's `try_send` stays as it was).
    #[cold]
    #[inline(never)]
    fn usable_linux(&self, flight: u64) -> u64 {
        in_flight::usable(self.cc.cwnd() as u64, self.snd_wnd as u64, flight, self.sb.sacked_bytes())
    }

    /// New data with nothing in flight (`cfg.slow_start_after_idle`): if the last data segment
    /// left more than an RTO ago, restart the window ([`super::idle_restart`]). The send time
    /// is checked once, so a send the windows then hold back cannot restart twice.
    #[cold]
    fn restart_after_idle(&mut self, now: Time) {
        let Some(last) = self.last_data_sent else { return };
        if self.restart_checked == Some(last) {
            return;
        }
        self.restart_checked = Some(last);
        let at = idle_restart::Idle {
            idle: now.saturating_since(last),
            rto: self.rtt.rto(),
            initial_window: self.cfg.initial_cwnd.max(1).saturating_mul(self.eff_mss),
            mss: self.eff_mss,
            in_reduction: self.recovery.in_recovery(),
        };
        if let Some((cwnd, ssthresh)) = idle_restart::restart(self.cc.cwnd(), self.cc.ssthresh(), at) {
            self.cc.set_after_idle(cwnd, ssthresh);
            self.stats.idle_restarts += 1;
        }
    }

    /// Data leaves with nothing in flight (`cfg.cubic_idle_shift`): CUBIC shifts its epoch by
    /// the time since the last data segment (Linux's `tcp_event_data_sent` →
    /// `CA_EVENT_TX_START`, `delta = now - lsndtime`).
    #[cold]
    fn cubic_tx_start(&mut self, now: Time) {
        if let Some(last) = self.last_data_sent {
            self.cc.on_tx_start(now, now.saturating_since(last));
        }
    }

    /// Emit the segment of `len` data bytes starting at `pos` (≥ 1), plus FIN if it reaches
    /// the end of the stream after `close`. `advance` moves snd_nxt past it.
    fn emit_from(&mut self, now: Time, pos: u64, len: u64, advance: bool) -> Packet {
        let data_end = self.data_end();
        let mut end = pos + len;
        let mut flags = TcpFlags::ACK;
        if len > 0 && (end == data_end || self.push_next) {
            flags = flags | TcpFlags::PSH;
        }
        self.push_next = false;
        if self.fin_queued && end == data_end && fin_allowed(self.state) {
            flags = flags | TcpFlags::FIN;
            end += 1;
        }
        let old_max = self.snd_max;
        let retransmission = pos < old_max;
        self.cc.on_segment_sent(now, pos, end, retransmission); // Vegas (§3.1), HyStart: send times
        if advance {
            self.snd_nxt = self.snd_nxt.max(end);
        }
        if end > self.snd_max {
            // New sequence space: time it if no segment is being timed (RFC 6298 §3, Karn);
            // with timestamps too, for congestion control's nanosecond sample.
            if self.rtt_timing.is_none() && !retransmission {
                self.rtt_timing = Some((end, now));
            }
            self.snd_max = end;
        }
        if retransmission {
            self.stats.retransmitted_segments += 1;
            self.stats.bytes_retransmitted += len.min(old_max - pos);
            if self.rtt_timing.is_some_and(|(e, _)| e > pos) {
                self.rtt_timing = None; // Karn: never time a retransmitted segment
            }
            if self.sack_recovery_enabled() {
                self.sb.on_retransmit(end); // SACK: HighRxt (RFC 6675 §5 step 3, C.2)
                self.stats.sack_retransmits += 1;
            }
            if pos == self.snd_una && self.cfg.rto_rearm == RtoRearm::Linux {
                // Linux's tcp_xmit_retransmit_queue: resending the head restarts the RTO.
                self.rto_at = Some(self.rtt.rto_deadline(now));
            }
        }
        if self.cfg.prr && self.recovery.in_recovery() {
            self.prr.on_sent(len); // PRR: prr_out (RFC 6937 §3.1)
        }
        if len > 0 {
            if self.cfg.cubic_idle_shift && old_max == self.snd_una {
                self.cubic_tx_start(now); // nothing was in flight: Linux's CA_EVENT_TX_START
            }
            self.last_data_sent = Some(now); // lsndtime: every data segment, resent ones too
            self.stats.data_segments_sent += 1;
            self.stats.bytes_sent += len;
            self.persist_at = None;
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(self.rtt.rto_deadline(now)); // RFC 6298 §5.1
        }
        if self.rack_track {
            self.rack_on_sent(now, pos, end, !retransmission); // RACK: xmit_ts per segment
        }
        let seq = self.tx.wire(pos);
        self.build(now, seq, flags, len as u32, false)
    }

    fn emit_syn(&mut self, now: Time) -> Packet {
        let synack = self.state == TcpState::SynReceived;
        let retransmission = self.snd_max > 0;
        self.snd_nxt = 1;
        self.snd_max = 1;
        if retransmission {
            self.stats.retransmitted_segments += 1;
            self.rtt_timing = None; // Karn
        } else {
            self.rtt_timing = Some((1, now));
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(self.rtt.rto_deadline(now));
        }
        let flags = if synack { TcpFlags::SYN | TcpFlags::ACK } else { TcpFlags::SYN };
        self.build(now, self.tx.wire(0), flags, 0, true)
    }

    /// Zero-window probe, Linux style: no data, an old sequence number (snd_una − 1), ACK set;
    /// the receiver must answer it with an ACK carrying its window (RFC 793 §3.9).
    fn emit_probe(&mut self, now: Time) -> Packet {
        let seq = self.tx.wire(self.snd_una.wrapping_sub(1));
        self.build(now, seq, TcpFlags::ACK, 0, false)
    }

    fn emit_ack(&mut self, now: Time) -> Packet {
        self.stats.acks_sent += 1;
        if self.window_update_pending {
            self.stats.window_updates_sent += 1;
        }
        let seq = self.tx.wire(self.snd_nxt);
        self.build(now, seq, TcpFlags::ACK, 0, false)
    }

    /// Fill in a segment; every non-SYN segment carries ACK, our window and the timestamps.
    fn build(&mut self, now: Time, seq: u32, flags: TcpFlags, payload_len: u32, syn: bool) -> Packet {
        let mut options = TcpOptions::default();
        let synack = syn && flags.contains(TcpFlags::ACK);
        if syn {
            // Options on SYN: everything configured; on SYN-ACK only what the peer offered.
            options.mss = Some(self.cfg.mss);
            if let Some(s) = self.cfg.window_scale {
                if !synack || self.ws_ok {
                    options.window_scale = Some(s.min(MAX_WINDOW_SCALE));
                }
            }
            options.sack_permitted = self.cfg.sack && (!synack || self.sack_ok);
            if self.cfg.timestamps && (!synack || self.ts_ok) {
                let tsecr = if synack { self.ts_recent } else { 0 };
                options.timestamps = Some(Timestamps { tsval: ts_clock(now), tsecr });
            }
        } else if self.ts_ok {
            options.timestamps = Some(Timestamps { tsval: ts_clock(now), tsecr: self.ts_recent });
        }
        let has_ack = flags.contains(TcpFlags::ACK);
        if has_ack && !syn {
            self.add_sack_blocks(&mut options); // SACK: RFC 2018 §4
        }
        let window = if !has_ack && !syn {
            0
        } else if syn {
            // Never scaled on SYN (RFC 7323 §2.2); autotuning offers Linux's initial window.
            let w = match &self.autotune {
                Some(_) => Autotune::initial_window_for(self.cfg.mss as u32).min(self.cfg.recv_buffer as u64),
                None => self.window_value(),
            };
            let w = w.min(65535) as u32;
            if synack {
                self.rcv_adv = self.rcv_adv.max(self.rcv_nxt + w as u64);
            } else {
                self.syn_window = w;
            }
            w as u16
        } else {
            self.take_window_field()
        };
        if has_ack && self.state != TcpState::SynSent {
            self.quickacks = self.quickacks.saturating_sub(1); // tcp_dec_quickack_mode
            self.last_ack_sent = self.rcv_nxt;
            self.ack_now = false;
            self.ack_pending_segs = 0;
            self.ack_pushed = false; // inet_csk_clear_xmit_timer(ICSK_TIME_DACK): pending = 0
            if self.cfg.sack_compress {
                self.sack_compress.on_ack_sent(); // tcp_event_ack_sent: compressed_ack = 0, timer off
            }
            self.delack_at = None;
            self.window_update_pending = false;
        }
        let ack = if has_ack { self.rx.wire(self.rcv_nxt) } else { 0 };
        let header = TcpHeader {
            src_port: self.local.port,
            dst_port: self.remote.port,
            seq,
            ack,
            flags,
            window,
            options,
        };
        self.stats.segments_sent += 1;
        let mut p = Packet::tcp(self.local.addr, self.remote.addr, header, payload_len);
        p.ip_id = self.ip_id;
        p.ttl = 64;
        self.ip_id = self.ip_id.wrapping_add(1);
        p
    }

    /// Window to advertise in bytes: receiver SWS avoidance (RFC 1122 4.2.3.3) moves the right
    /// edge only by at least min(buffer/2, MSS), and it never moves left (RFC 7323 §2.4).
    fn window_value(&self) -> u64 {
        let limit = match &self.autotune {
            Some(a) => a.window_limit(),
            None => self.cfg.recv_buffer as u64,
        };
        let max = limit.min(65535u64 << self.rcv_shift);
        let free = max.saturating_sub(self.unread);
        let cur = self.rcv_adv.saturating_sub(self.rcv_nxt);
        let threshold = (self.cfg.recv_buffer as u64 / 2).min(self.eff_mss as u64).max(1);
        if free >= cur + threshold {
            free
        } else {
            cur
        }
    }

    /// Scaled window field for a non-SYN segment; records the advertised right edge.
    fn take_window_field(&mut self) -> u16 {
        let s = self.rcv_shift as u32;
        let w = self.window_value();
        let mut field = (w >> s).min(65535);
        if self.rcv_nxt + (field << s) < self.rcv_adv {
            // Scaling rounded the edge left of what we already offered: round up instead.
            let need = self.rcv_adv - self.rcv_nxt;
            field = need.div_ceil(1u64 << s).min(65535);
        }
        self.rcv_adv = self.rcv_adv.max(self.rcv_nxt + (field << s));
        if field == 0 {
            self.stats.zero_window_advertised += 1;
        }
        field as u16
    }

    // ------------------------------------------------------------------ helpers

    /// Position just past the last queued data byte (= the FIN's position once closed).
    fn data_end(&self) -> u64 {
        1 + self.app_queued
    }

    /// Payload of a full segment now: the effective MSS less the SACK blocks it would carry.
    fn seg_mss(&self) -> u32 {
        self.eff_mss.saturating_sub(self.sack_option_len()).max(1)
    }

    /// RFC 5681 FlightSize: sent but not yet acknowledged.
    fn flight_size(&self) -> u32 {
        (self.snd_max - self.snd_una).min(u32::MAX as u64) as u32
    }

    /// States in which we may (re)transmit data or our FIN.
    fn can_send_state(&self) -> bool {
        matches!(
            self.state,
            TcpState::Established | TcpState::CloseWait | TcpState::FinWait1 | TcpState::Closing | TcpState::LastAck
        )
    }

    /// States in which the peer may still send data.
    fn can_receive(&self) -> bool {
        matches!(self.state, TcpState::Established | TcpState::FinWait1 | TcpState::FinWait2)
            && !self.fin_received
    }
}

/// FIN may ride on a segment only once the application closed and the handshake is done.
fn fin_allowed(state: TcpState) -> bool {
    matches!(state, TcpState::FinWait1 | TcpState::Closing | TcpState::LastAck)
}

/// The RTT an ACK's TSecr echoes (whole milliseconds of [`ts_clock`]), unless it echoes the
/// future.
fn tsecr_sample(now: Time, h: &TcpHeader) -> Option<Duration> {
    let ts = h.options.timestamps?;
    let elapsed = ts_clock(now).wrapping_sub(ts.tsecr);
    (elapsed <= i32::MAX as u32).then(|| Duration::from_millis(elapsed as u64))
}

/// RFC 7323 timestamp clock: 1 ms ticks of `now`, wrapping.
pub fn ts_clock(now: Time) -> u32 {
    (now.as_nanos() / 1_000_000) as u32
}
