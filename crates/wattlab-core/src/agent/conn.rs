//! One row of the connection table (seed 000 Fig. 1) and everything the agent does for one
//! TCP connection: receiver RTT, slow-start stage tracking (Fig. 2), traffic shaping with
//! closed and open ACKs, end-of-burst detection, saturation and loss reversion, lost open
//! ACK recovery and the response-complete ("finished") test.
//!
//! Split by job: this file holds the row, the radio needs, timers and packet dispatch;
//! `conn/stages.rs` the slow-start tracking; `conn/bursts.rs` shaping, end-of-burst detection and the
//! agent's own segments.

use super::config::{AgentConfig, BurstDetection};
use super::estimators::{InterArrival, ProbeDelay, ReceiverRtt, TsClock};
use super::sites::{SiteEntry, SiteTable};
use super::{AgentEvent, AgentEventKind, AgentStats, BurstEnd, RevertReason};
use crate::packet::{Endpoint, Packet, TcpFlags, TcpHeader};
use crate::tcp::seq;
use crate::time::{Duration, Time};
use std::collections::VecDeque;

mod bursts;
mod stages;

/// What a connection needs from the radio now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Packets may arrive at any moment.
    Awake,
    /// Nothing expected before this time (`None`: nothing expected at all).
    Sleep(Option<Time>),
}

/// Status column of the connection table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Receiving a stage or burst, or waiting for a reply.
    Active,
    /// Between stages or bursts.
    Idle,
    /// The requested object is complete (or the server closed).
    Finished,
    /// Reverted to plain TCP (saturated, lossy, or no timestamps).
    Saturated,
}

/// Where a shaped connection is in its burst cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The released window is arriving; every ACK is closed. `probe` holds the probe's send
    /// time when one is outstanding (active detection).
    Receiving {
        /// When the outstanding window probe was sent.
        probe: Option<Time>,
    },
    /// Open ACK sent at `open_at`; awake until the probe goes out at `probe_due`.
    AfterOpen {
        /// When the open ACK went out.
        open_at: Time,
        /// When to send the window probe (open_at + D).
        probe_due: Time,
    },
    /// Waiting for the burst released at `open_at`, expected at `expect_at`.
    Waiting {
        /// When the open ACK went out.
        open_at: Time,
        /// First packet expected (open ACK + minimum RTT).
        expect_at: Time,
        /// Resend the open ACK if nothing arrived by then (2·RTT, then every RTT).
        resend_at: Time,
        /// A probe is outstanding (sent at this time).
        probe: Option<Time>,
    },
}

/// Phase of a tracked connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// SYN sent; asleep until `wake` if the site is cached.
    Setup {
        /// When the SYN went out.
        syn_at: Time,
        /// Cached wake-up time.
        wake: Option<Time>,
    },
    /// Connected, no request outstanding.
    Open,
    /// Request sent, no response byte yet; asleep until `wake` if the site is cached.
    AwaitResponse {
        /// When the request went out.
        req_at: Time,
        /// Cached wake-up time.
        wake: Option<Time>,
    },
    /// Slow start, tracked stage by stage (no shaping).
    SlowStart,
    /// Congestion avoidance shaped into bursts.
    Shaping(Shape),
    /// A hole in the received data: plain TCP, awake, until it is filled.
    Recovering,
    /// Plain TCP for good.
    Reverted(RevertReason),
    /// Response complete, or the server closed.
    Finished,
}

/// Slow-start stage bookkeeping (the table's stage, packets, next start/end, expiration).
#[derive(Clone, Copy, Debug, Default)]
pub struct Stages {
    /// Stage number (1 = the first flight of the response).
    pub stage: u32,
    /// Packets received in the current stage.
    pub count: u32,
    /// Packets of the previous stage.
    pub prev_count: u32,
    /// A stage is being received.
    pub open: bool,
    /// First and last ACK the client sent in the current stage.
    pub first_ack: Option<Time>,
    /// Last ACK sent in the current stage.
    pub last_ack: Option<Time>,
    /// Predicted start and end of the next stage.
    pub next_start: Option<Time>,
    /// Predicted end of the next stage.
    pub next_end: Option<Time>,
    /// Predicted end of the current stage (the table's "current expiration").
    pub expiration: Option<Time>,
    /// Largest gap between two data packets of one stage.
    pub max_gap: Duration,
}

/// One tracked TCP connection.
#[derive(Clone, Debug)]
pub struct TrackedConn {
    /// Connection number (order of the SYNs).
    pub id: u32,
    /// Client endpoint.
    pub local: Endpoint,
    /// Server endpoint (the site).
    pub remote: Endpoint,
    /// Where it is.
    pub phase: Phase,
    /// Receiver RTT estimator.
    pub rtt: ReceiverRtt,
    /// Slow-start stages.
    pub stages: Stages,
    /// End-of-burst method in use (active falls back to dynamic).
    pub detection: BurstDetection,
    /// The probe delay D.
    pub probe_delay: ProbeDelay,
    clock: TsClock,
    ia: InterArrival,
    ts_ok: bool,
    ts_recent: u32,
    template: Option<Packet>,
    snd_nxt: u32,
    rcv_nxt: u32,
    high_seq: u32,
    synced: bool,
    client_ws: Option<u8>,
    server_ws: bool,
    right_edge: Option<u32>,
    last_data_at: Option<Time>,
    last_ack_at: Option<Time>,
    burst_packets: u32,
    burst_lossy: bool,
    /// Shaping has started once (counted in `shaped_connections`).
    shaped: bool,
    /// Estimated window W in packets.
    pub window_estimate: u32,
    mss_seen: u32,
    open_ack: Option<(u32, u32)>,
    probe_tsval: Option<u32>,
    grew_this_round: bool,
    /// A burst cut from an open stream (after a repair, or when merged slow-start stages
    /// are shaped) is not over before everything the server sent under the open window has
    /// arrived: one RTT after the first closed ACK.
    drain_until: Option<Time>,
    response_at: Option<Time>,
    saturated_run: u32,
    lossy_run: u32,
    resp_start: u32,
    resp_len: Option<u64>,
    server_fin: bool,
    client_fin: bool,
}

/// Outputs a connection produces while handling an input.
pub struct Out<'a> {
    /// Packets to inject (towards the server).
    pub tx: &'a mut VecDeque<Packet>,
    /// Event log.
    pub events: &'a mut VecDeque<AgentEvent>,
    /// Counters.
    pub stats: &'a mut AgentStats,
    /// Site table.
    pub sites: &'a mut SiteTable,
    /// Configuration.
    pub cfg: &'a AgentConfig,
}

impl Out<'_> {
    /// The site table's entry for `server` (created if missing), keeping the counter of the
    /// most servers cached at once.
    fn site(&mut self, server: Endpoint) -> &mut SiteEntry {
        let n = (self.sites.len() + usize::from(self.sites.get(server).is_none())).min(super::sites::MAX_SITES) as u64;
        if self.cfg.rtt_cache && n > self.stats.rtt_cache_servers_max {
            self.stats.rtt_cache_servers_max = n;
        }
        self.sites.entry(server)
    }

    fn log(&mut self, at: Time, conn: u32, kind: AgentEventKind) {
        self.events.push_back(AgentEvent {
            at,
            conn: Some(conn),
            kind,
        });
    }
}

fn is_pure_ack(h: &TcpHeader, payload: u32) -> bool {
    payload == 0
        && h.flags.contains(TcpFlags::ACK)
        && !h.flags.contains(TcpFlags::SYN)
        && !h.flags.contains(TcpFlags::FIN)
        && !h.flags.contains(TcpFlags::RST)
}

impl TrackedConn {
    /// A connection seen opening with the client's SYN at `now`.
    pub fn new(
        id: u32,
        now: Time,
        syn: &Packet,
        h: &TcpHeader,
        cfg: &AgentConfig,
        sites: &SiteTable,
    ) -> TrackedConn {
        let remote = syn.dst_endpoint();
        let wake = if cfg.rtt_cache {
            sites
                .get(remote)
                .and_then(|s| s.syn_wait())
                .map(|w| now + w)
        } else {
            None
        };
        TrackedConn {
            id,
            local: syn.src_endpoint(),
            remote,
            phase: Phase::Setup { syn_at: now, wake },
            rtt: ReceiverRtt::default(),
            stages: Stages::default(),
            detection: cfg.detection,
            probe_delay: ProbeDelay::default(),
            clock: TsClock::default(),
            ia: InterArrival::default(),
            ts_ok: false,
            ts_recent: 0,
            template: None,
            snd_nxt: h.seq.wrapping_add(1),
            rcv_nxt: 0,
            high_seq: 0,
            synced: false,
            client_ws: h.options.window_scale,
            server_ws: false,
            right_edge: None,
            last_data_at: None,
            last_ack_at: None,
            burst_packets: 0,
            burst_lossy: false,
            shaped: false,
            window_estimate: 0,
            mss_seen: 0,
            open_ack: None,
            probe_tsval: None,
            grew_this_round: false,
            drain_until: None,
            response_at: None,
            saturated_run: 0,
            lossy_run: 0,
            resp_start: 0,
            resp_len: None,
            server_fin: false,
            client_fin: false,
        }
    }

    /// The table's status column.
    pub fn status(&self, now: Time) -> Status {
        match self.phase {
            Phase::Finished => Status::Finished,
            Phase::Reverted(_) => Status::Saturated,
            _ if self.need(now, Duration::ZERO) == Need::Awake => Status::Active,
            _ => Status::Idle,
        }
    }

    /// Both directions are closed: the row can go.
    pub fn closed(&self) -> bool {
        self.server_fin && self.client_fin
    }

    fn shift(&self) -> u8 {
        if self.server_ws {
            self.client_ws.unwrap_or(0)
        } else {
            0
        }
    }

    fn min_rtt(&self) -> Duration {
        self.rtt
            .min()
            .or(self.rtt.srtt())
            .unwrap_or(Duration::from_millis(100))
    }

    fn srtt(&self) -> Duration {
        self.rtt.srtt().unwrap_or_else(|| self.min_rtt())
    }

    /// Ceiling of D and the wait for a lost probe: the one-way trip time (RTT/2).
    fn half_rtt(&self) -> Duration {
        Duration(self.min_rtt().0 / 2)
    }

    /// What this connection needs from the radio at `now` (waking `guard` before a predicted
    /// arrival).
    pub fn need(&self, now: Time, guard: Duration) -> Need {
        let until = |t: Time| {
            let w = Time(t.0.saturating_sub(guard.0));
            if now < w {
                Need::Sleep(Some(w))
            } else {
                Need::Awake
            }
        };
        match self.phase {
            Phase::Setup { wake: Some(w), .. } | Phase::AwaitResponse { wake: Some(w), .. } => {
                until(w)
            }
            Phase::Setup { .. }
            | Phase::AwaitResponse { .. }
            | Phase::Recovering
            | Phase::Reverted(_) => Need::Awake,
            Phase::Open | Phase::Finished => Need::Sleep(None),
            Phase::SlowStart => match (self.stages.open, self.stages.next_start) {
                (false, Some(t)) => until(t),
                _ => Need::Awake,
            },
            Phase::Shaping(Shape::Waiting { expect_at, .. }) => until(expect_at),
            Phase::Shaping(_) => Need::Awake,
        }
    }

    /// The next time `on_timer` has something to do.
    pub fn deadline(&self, cfg: &AgentConfig) -> Option<Time> {
        match self.phase {
            Phase::SlowStart if self.stages.open => {
                let quiet = self.last_activity()? + self.idle_threshold(cfg);
                Some(quiet.max(self.stages.expiration.unwrap_or(Time::ZERO)))
            }
            Phase::Shaping(Shape::Receiving { probe }) => {
                let last = self.last_data_at?;
                let quiet = last + self.burst_threshold(cfg, probe.is_some());
                // A probe's response cannot be declared lost before it could have come back:
                // one RTT after the probe, with four deviations of margin as TCP's RTO has
                // (RTT variation stretches a burst and delays the response behind it).
                let response_due = probe.map_or(Time::ZERO, |sent| sent + self.srtt() + Duration(4 * self.rtt.var().0));
                Some(quiet.max(response_due).max(self.drain_until.unwrap_or(Time::ZERO)))
            }
            Phase::Shaping(Shape::AfterOpen { probe_due, .. }) => Some(probe_due),
            Phase::Shaping(Shape::Waiting { resend_at, .. }) => Some(resend_at),
            _ => None,
        }
    }

    fn last_activity(&self) -> Option<Time> {
        match (self.last_data_at, self.last_ack_at) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    // ------------------------------------------------------------------ outgoing

    /// A packet the client sends on this connection; may rewrite its window. Returns false
    /// to drop it (a duplicate of an open ACK the agent already sent).
    pub fn on_outgoing(&mut self, now: Time, p: &mut Packet, out: &mut Out) -> bool {
        let Some(h) = p.tcp_header().copied() else {
            return true;
        };
        let payload = p.payload_len;
        if let Some(ts) = h.options.timestamps {
            self.clock.observe(now, ts.tsval);
            self.rtt.on_sent(now, ts.tsval);
        }
        let end = h.seq.wrapping_add(h.seq_len(payload));
        if seq::gt(end, self.snd_nxt) {
            self.snd_nxt = end;
        }
        if h.flags.contains(TcpFlags::ACK) && self.synced {
            if seq::gt(h.ack, self.rcv_nxt) {
                self.rcv_nxt = h.ack;
                // After a repair the retransmission fills only its hole: the client's
                // cumulative ACK, covering what it had reassembled, may complete the response.
                self.check_finished(now, out);
            }
            let edge = h.ack.wrapping_add((h.window as u32) << self.shift());
            if self.right_edge.is_none_or(|r| seq::gt(edge, r)) {
                self.right_edge = Some(edge);
            }
        }
        self.template = Some(*p);
        if h.flags.contains(TcpFlags::RST) {
            self.client_fin = true;
            self.server_fin = true;
            return true;
        }
        if h.flags.contains(TcpFlags::FIN) {
            self.client_fin = true;
        }
        if payload > 0 {
            self.on_request(now, out);
            return true;
        }
        if !is_pure_ack(&h, payload) {
            return true;
        }
        self.last_ack_at = Some(now);
        self.rewrite_ack(now, p, &h, out)
    }

    /// The client sent data: a new request (seed C1: a stagnant connection becomes active).
    fn on_request(&mut self, now: Time, out: &mut Out) {
        if !matches!(
            self.phase,
            Phase::Open | Phase::Finished | Phase::Setup { .. }
        ) {
            return; // data inside a response (rare for request/response traffic): leave it
        }
        let wait = if out.cfg.rtt_cache {
            let w = out.sites.get(self.remote).and_then(|s| s.response_wait());
            out.stats.note_cache_lookup(w.is_some());
            w
        } else {
            None
        };
        self.phase = Phase::AwaitResponse {
            req_at: now,
            wake: wait.map(|w| now + w),
        };
        self.resp_start = self.rcv_nxt;
        self.resp_len = None;
        self.stages = Stages {
            max_gap: self.stages.max_gap,
            ..Stages::default()
        };
        out.log(now, self.id, AgentEventKind::Request);
    }

    fn rewrite_ack(&mut self, now: Time, p: &mut Packet, h: &TcpHeader, out: &mut Out) -> bool {
        match self.phase {
            Phase::SlowStart => {
                let s = &mut self.stages;
                if s.open {
                    s.first_ack.get_or_insert(now);
                    s.last_ack = Some(now);
                } else if let (Some(end), Some(srtt)) = (s.next_end, self.rtt.srtt()) {
                    // A late (delayed) ACK between stages releases packets later than predicted.
                    let k = Duration((self.rtt.var().0 as f64 * out.cfg.stage_var_factor) as u64);
                    s.next_end = Some(end.max(now + srtt + k));
                }
                true
            }
            Phase::Recovering => {
                if seq::ge(h.ack, self.high_seq) {
                    // The hole is filled: shape again from this point.
                    self.burst_packets = 0;
                    self.burst_lossy = true;
                    self.drain_until = Some(now + self.drain_time());
                    self.phase = if out.cfg.shaping {
                        Phase::Shaping(Shape::Receiving { probe: None })
                    } else {
                        Phase::SlowStart
                    };
                    if out.cfg.shaping && !self.shaped {
                        // A loss in slow start: shaping starts here, not at a stage's end.
                        self.shaped = true;
                        out.stats.shaped_connections += 1;
                        out.log(now, self.id, AgentEventKind::ShapingStarted);
                    }
                    if out.cfg.shaping {
                        set_window(p, 0);
                        out.stats.closed_acks += 1;
                    }
                }
                true
            }
            Phase::Shaping(Shape::Receiving { .. }) => {
                set_window(p, 0);
                out.stats.closed_acks += 1;
                true
            }
            Phase::Shaping(Shape::AfterOpen { .. } | Shape::Waiting { .. }) => {
                let Some((open_ack, open_edge)) = self.open_ack else {
                    return true;
                };
                if seq::le(h.ack, open_ack) {
                    out.stats.redundant_acks_dropped += 1;
                    return false; // the TCP's (delayed) ACK of data the open ACK covered
                }
                // Late data of the previous burst: acknowledge it without moving the edge.
                let wnd = (open_edge.wrapping_sub(h.ack) as i32).max(0) as u32;
                set_window(p, (wnd >> self.shift()).min(65_535) as u16);
                true
            }
            _ => true,
        }
    }

    // ------------------------------------------------------------------ incoming

    /// A packet from the server on this connection, delivered (the radio is awake).
    pub fn on_incoming(&mut self, now: Time, p: &Packet, out: &mut Out) {
        let Some(h) = p.tcp_header().copied() else {
            return;
        };
        if let Some(ts) = h.options.timestamps {
            if !self.synced || seq::ge(ts.tsval, self.ts_recent) {
                self.ts_recent = ts.tsval;
            }
            if let Some(r) = self.rtt.on_echo(now, ts.tsecr) {
                out.site(self.remote).note_rtt(r, self.rtt.srtt());
            }
        }
        if h.flags.contains(TcpFlags::RST) {
            self.server_fin = true;
            self.client_fin = true;
            self.phase = Phase::Finished;
            return;
        }
        if h.flags.contains(TcpFlags::SYN) {
            self.on_syn_ack(now, &h, out);
            return;
        }
        if !self.synced {
            return;
        }
        let len = h.seq_len(p.payload_len);
        if len == 0 {
            if is_pure_ack(&h, 0) {
                self.on_server_ack(now, &h, out);
            }
            return;
        }
        self.on_data(now, &h, p.payload_len, out);
    }

    fn on_syn_ack(&mut self, now: Time, h: &TcpHeader, out: &mut Out) {
        if self.synced {
            return;
        }
        self.synced = true;
        self.rcv_nxt = h.seq.wrapping_add(1);
        self.high_seq = self.rcv_nxt;
        self.server_ws = h.options.window_scale.is_some();
        self.ts_ok = h.options.timestamps.is_some();
        if let Phase::Setup { syn_at, .. } = self.phase {
            let e = out.site(self.remote);
            e.syn_rtt = Some(now.saturating_since(syn_at));
        }
        if self.ts_ok {
            self.phase = Phase::Open;
        } else {
            self.revert(now, RevertReason::NoTimestamps, out);
        }
    }

    fn on_data(&mut self, now: Time, h: &TcpHeader, payload: u32, out: &mut Out) {
        let end = h.seq.wrapping_add(h.seq_len(payload));
        if h.flags.contains(TcpFlags::FIN) {
            self.server_fin = true;
        }
        if seq::le(end, self.rcv_nxt) {
            return; // a retransmission of data we have: no new information
        }
        let in_order = h.seq == self.rcv_nxt;
        if in_order {
            self.rcv_nxt = end;
        }
        if seq::gt(end, self.high_seq) {
            self.high_seq = end;
        }
        self.mss_seen = self.mss_seen.max(payload);
        let gap = self.last_data_at.map(|t| now.saturating_since(t));
        self.last_data_at = Some(now);

        if let Phase::AwaitResponse { req_at, .. } = self.phase {
            out.site(self.remote).response_time = Some(now.saturating_since(req_at));
            self.response_at = Some(now);
            self.phase = Phase::SlowStart;
        }
        if !in_order
            && !matches!(
                self.phase,
                Phase::Reverted(_) | Phase::Finished | Phase::Recovering
            )
        {
            self.burst_lossy = true;
            self.phase = Phase::Recovering;
            out.stats.recoveries += 1;
            out.log(now, self.id, AgentEventKind::Recovery);
        }
        match self.phase {
            Phase::SlowStart => self.stage_packet(now, gap, out),
            Phase::Shaping(shape) => {
                self.burst_packet(now, shape, gap, h.options.timestamps.map(|t| t.tsecr), out)
            }
            _ => {}
        }
        self.check_finished(now, out);
    }

    fn check_finished(&mut self, now: Time, out: &mut Out) {
        let complete = self
            .resp_len
            .is_some_and(|n| self.rcv_nxt.wrapping_sub(self.resp_start) as u64 >= n)
            || (self.server_fin && self.rcv_nxt == self.high_seq);
        if complete && !matches!(self.phase, Phase::Finished) {
            self.phase = Phase::Finished;
            out.log(now, self.id, AgentEventKind::Finished);
        }
    }

    /// The size of the response being received (HTTP Content-Length, or the host's hint).
    pub fn expect_response(&mut self, now: Time, bytes: u64, out: &mut Out) {
        self.resp_len = Some(bytes);
        self.check_finished(now, out);
    }

    // ------------------------------------------------------------------ timers

    /// Run whatever is due at `now`.
    pub fn on_timer(&mut self, now: Time, out: &mut Out) {
        if self.deadline(out.cfg).is_none_or(|d| d > now) {
            return;
        }
        match self.phase {
            Phase::SlowStart => self.end_stage(now, out),
            Phase::Shaping(Shape::Receiving { probe }) => {
                let why = if probe.is_some() {
                    BurstEnd::ProbeLost
                } else {
                    BurstEnd::Threshold
                };
                self.end_burst(now, why, out);
            }
            Phase::Shaping(Shape::AfterOpen { open_at, .. }) => self.send_probe(now, open_at, out),
            Phase::Shaping(Shape::Waiting { .. }) => self.send_open_ack(now, true, out),
            _ => {}
        }
    }

}

/// Rewrite the window field of a TCP packet (the live driver fixes the checksum).
pub fn set_window(p: &mut Packet, window: u16) {
    if let Some(h) = p.tcp_header_mut() {
        h.window = window;
    }
}
