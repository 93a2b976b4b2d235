//! Seed 000's client-centered (CC) energy-saving agent, sans-IO.
//!
//! The agent sits at the network layer of a mobile client, between its TCP stack and its
//! wireless NIC. It sees every packet the client sends ([`CcAgent::on_outgoing`], which may
//! rewrite the advertised window or drop a redundant ACK) and every packet that reaches it
//! ([`CcAgent::on_incoming`], which drops packets while the radio sleeps, as the seed's
//! emulation did). It injects packets of its own ([`CcAgent::poll_transmit`]: open ACKs,
//! window probes), asks for timers ([`CcAgent::poll_timeout`], [`CcAgent::handle_timeout`]),
//! commands the radio ([`CcAgent::poll_radio`]) and logs what it decides
//! ([`CcAgent::poll_event`]). The simulator and the live NFQUEUE driver host the same code.
//!
//! Mechanisms (numbers as in notes/000.md): 1 connection table ([`TrackedConn`]) and site
//! table ([`SiteTable`]); 2 RTT from TCP timestamps ([`ReceiverRtt`]); 3 slow-start stage
//! tracking (Fig. 2); 4 traffic shaping with closed and open ACKs once slow start is over;
//! 5 window estimate W = packets of the last burst + 1; 6 end-of-burst detection by fixed
//! threshold, dynamic threshold or active probing with the adaptive delay D ([`ProbeDelay`]);
//! 7 waking for the next burst by the minimum RTT; 8 reverting on saturation or on three
//! windows without an in-order one; 9 resending a lost open ACK after 2·RTT, then every RTT;
//! 10 sleeping only when every connection is idle or finished; 11 the per-site RTT cache.
//! The readings chosen where the seed's formulas are illegible are in [`AgentConfig`] and
//! `docs/agent.md`.
//!
//! Traffic it does not shape keeps the radio awake: the host opens a *session*
//! ([`CcAgent::open_session`]) while an application of the client sends or expects datagrams
//! (a UDP stream, a ping), and any non-TCP packet in or out holds the radio up for
//! [`AgentConfig::other_traffic_hold`]. The agent predicts only TCP; sleeping through other
//! traffic would lose it (docs/agent.md, "Traffic other than TCP").
//!
//! During a loss (a hole in the received data) the agent passes the client's duplicate ACKs
//! unchanged and stays awake until the hole is filled, then resumes shaping: the seed says
//! only that losses are "handled separately", and this never leaves the server with a
//! closed window while it recovers.

pub mod config;
pub mod conn;
pub mod estimators;
pub mod sites;

#[cfg(test)]
mod tests;

pub use config::{AgentConfig, AgentConfigError, BurstDetection};
pub use conn::{set_window, Need, Phase, Shape, Status, TrackedConn};
pub use estimators::{InterArrival, ProbeDelay, ReceiverRtt};
pub use sites::{SiteEntry, SiteTable};

use crate::packet::{Packet, TcpFlags, Transport};
use crate::time::{Duration, Time};
use conn::Out;
use serde::Serialize;
use std::collections::VecDeque;
use std::fmt;

/// What to do with a packet the agent was shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Let it through (possibly rewritten).
    Pass,
    /// Discard it.
    Drop,
}

/// A command for the wireless NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RadioCommand {
    /// Go to sleep; the agent will wake the radio at `until` (`None`: when the client next
    /// sends, as an OS wakes the NIC to transmit).
    Sleep {
        /// Planned wake-up.
        until: Option<Time>,
    },
    /// Wake up now.
    Wake,
}

/// Why a burst was declared over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BurstEnd {
    /// The window probe's response arrived (`piggyback`: in the same server clock tick as
    /// the last data packet; `gap`: time since the last data packet).
    ProbeResponse {
        /// The response met the tail of the burst.
        piggyback: bool,
        /// Last data packet → probe response.
        gap: Duration,
    },
    /// The probe's response never came (waited RTT/2 after the last data packet).
    ProbeLost,
    /// Passive detection: no packet for the fixed or dynamic threshold.
    Threshold,
}

/// Why a connection went back to plain TCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RevertReason {
    /// W ≥ 90 % of the wireless bandwidth-delay product for 3 bursts.
    Saturated,
    /// No in-order window for 3 consecutive windows.
    NoInOrderWindow,
    /// The server does not use TCP timestamps: no receiver RTT.
    NoTimestamps,
}

impl RevertReason {
    /// Short name for logs.
    pub fn name(self) -> &'static str {
        match self {
            RevertReason::Saturated => "saturated",
            RevertReason::NoInOrderWindow => "no-in-order-window",
            RevertReason::NoTimestamps => "no-timestamps",
        }
    }
}

/// What an [`AgentEvent`] records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentEventKind {
    /// The client opened a connection (SYN).
    Connection,
    /// The client sent a request on a connection.
    Request,
    /// A slow-start stage ended with `packets` packets.
    StageEnded {
        /// Stage number.
        stage: u32,
        /// Packets in it.
        packets: u32,
    },
    /// Slow start is over: closed/open ACK shaping begins.
    ShapingStarted,
    /// A shaped burst ended.
    BurstEnded {
        /// Packets in the burst.
        packets: u32,
        /// How the end was detected.
        why: BurstEnd,
    },
    /// An open ACK was sent (`resent`: after a lost one).
    OpenAck {
        /// A retransmission of a lost open ACK.
        resent: bool,
    },
    /// A window probe (and its closed ACK) was sent, D after the open ACK.
    ProbeSent {
        /// The delay D used.
        d: Duration,
    },
    /// D changed.
    ProbeDelay {
        /// New D.
        d: Duration,
    },
    /// Active detection gave up: dynamic threshold from now on.
    SwitchedToDynamic,
    /// A hole in the data: plain TCP until it fills.
    Recovery,
    /// Plain TCP for good.
    Reverted {
        /// Why.
        why: RevertReason,
    },
    /// The response is complete.
    Finished,
    /// The radio went to sleep.
    Sleep {
        /// Planned wake-up.
        until: Option<Time>,
    },
    /// The radio woke up.
    Wake,
    /// A packet arrived while the radio slept and was lost.
    DroppedAsleep,
}

impl fmt::Display for AgentEventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        match *self {
            AgentEventKind::Connection => write!(f, "connection"),
            AgentEventKind::Request => write!(f, "request"),
            AgentEventKind::StageEnded { stage, packets } => {
                write!(f, "stage-end stage={stage} packets={packets}")
            }
            AgentEventKind::ShapingStarted => write!(f, "shaping"),
            AgentEventKind::BurstEnded { packets, why } => {
                let w = match why {
                    BurstEnd::ProbeResponse {
                        piggyback: false, ..
                    } => "probe-response",
                    BurstEnd::ProbeResponse {
                        piggyback: true, ..
                    } => "probe-piggyback",
                    BurstEnd::ProbeLost => "probe-lost",
                    BurstEnd::Threshold => "threshold",
                };
                write!(f, "burst-end packets={packets} by={w}")
            }
            AgentEventKind::OpenAck { resent } => {
                write!(f, "open-ack{}", if resent { " resent" } else { "" })
            }
            AgentEventKind::ProbeSent { d } => write!(f, "probe d_ms={:.3}", ms(d)),
            AgentEventKind::ProbeDelay { d } => write!(f, "probe-delay d_ms={:.3}", ms(d)),
            AgentEventKind::SwitchedToDynamic => write!(f, "switch-to-dynamic"),
            AgentEventKind::Recovery => write!(f, "recovery"),
            AgentEventKind::Reverted { why } => write!(f, "revert why={}", why.name()),
            AgentEventKind::Finished => write!(f, "finished"),
            AgentEventKind::Sleep { until: Some(t) } => {
                write!(f, "sleep until_s={:.6}", t.as_secs_f64())
            }
            AgentEventKind::Sleep { until: None } => write!(f, "sleep"),
            AgentEventKind::Wake => write!(f, "wake"),
            AgentEventKind::DroppedAsleep => write!(f, "dropped-asleep"),
        }
    }
}

/// One line of the agent's log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgentEvent {
    /// When.
    pub at: Time,
    /// Connection number, if it concerns one.
    pub conn: Option<u32>,
    /// What happened.
    pub kind: AgentEventKind,
}

/// Counters of everything the agent did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AgentStats {
    /// Connections tracked.
    pub connections: u64,
    /// Connections that reached the shaping phase.
    pub shaped_connections: u64,
    /// ACKs rewritten to a zero window (plus those sent after probes).
    pub closed_acks: u64,
    /// Open ACKs sent.
    pub open_acks: u64,
    /// Open ACKs sent again because no burst followed.
    pub open_acks_resent: u64,
    /// The client's ACKs dropped because an open ACK already covered them.
    pub redundant_acks_dropped: u64,
    /// Window probes sent.
    pub probes: u64,
    /// Probe responses received.
    pub probe_responses: u64,
    /// Probes whose response never came.
    pub probes_lost: u64,
    /// Packets of a burst that came after its probe response.
    pub late_packets: u64,
    /// Bursts completed.
    pub bursts: u64,
    /// Loss recoveries (holes in the data).
    pub recoveries: u64,
    /// Connections switched from active to dynamic detection.
    pub switched_to_dynamic: u64,
    /// Connections reverted to plain TCP.
    pub reverted: u64,
    /// Times the radio was put to sleep.
    pub sleeps: u64,
    /// Time asleep, in ns (closed intervals only until [`CcAgent::finish`]).
    pub sleep_ns: u64,
    /// Packets that arrived while the radio slept (lost).
    pub dropped_asleep: u64,
    /// RTT-cache lookups (a SYN or a request, with the cache on) that found the server's
    /// entry and could sleep through the round trip.
    pub rtt_cache_hits: u64,
    /// RTT-cache lookups that found no entry for the server (it had not been seen in this page).
    pub rtt_cache_misses: u64,
    /// Most servers cached at once (within one page: the cache is per server); 0 with the cache off.
    pub rtt_cache_servers_max: u64,
}

/// The client-centered agent of one client.
#[derive(Debug)]
pub struct CcAgent {
    cfg: AgentConfig,
    conns: Vec<TrackedConn>,
    next_id: u32,
    sites: SiteTable,
    tx: VecDeque<Packet>,
    events: VecDeque<AgentEvent>,
    radio: VecDeque<RadioCommand>,
    awake: bool,
    asleep_since: Time,
    sleep_until: Option<Time>,
    stats: AgentStats,
    log_events: bool,
    /// Non-TCP sessions open at the client (the host's [`CcAgent::open_session`]).
    sessions: u32,
    /// Awake at least until then: the last non-TCP packet or session plus the hold.
    other_until: Option<Time>,
}

impl AgentStats {
    /// Count one RTT-cache lookup: a hit when the entry gave a wake-up time.
    pub(crate) fn note_cache_lookup(&mut self, hit: bool) {
        if hit {
            self.rtt_cache_hits += 1;
        } else {
            self.rtt_cache_misses += 1;
        }
    }
}

impl CcAgent {
    /// A new agent; the radio starts awake.
    pub fn new(cfg: AgentConfig) -> Result<CcAgent, AgentConfigError> {
        cfg.validate()?;
        Ok(CcAgent {
            cfg,
            conns: Vec::new(),
            next_id: 0,
            sites: SiteTable::default(),
            tx: VecDeque::new(),
            events: VecDeque::new(),
            radio: VecDeque::new(),
            awake: true,
            asleep_since: Time::ZERO,
            sleep_until: None,
            stats: AgentStats::default(),
            log_events: true,
            sessions: 0,
            other_until: None,
        })
    }

    /// Keep (default) or discard the event log (long runs that only need the counters).
    pub fn set_event_log(&mut self, on: bool) {
        self.log_events = on;
    }

    /// The configuration.
    pub fn config(&self) -> &AgentConfig {
        &self.cfg
    }

    /// True while the radio is awake.
    pub fn is_awake(&self) -> bool {
        self.awake
    }

    /// Counters.
    pub fn stats(&self) -> &AgentStats {
        &self.stats
    }

    /// The connection table.
    pub fn connections(&self) -> &[TrackedConn] {
        &self.conns
    }

    /// The site table.
    pub fn sites(&self) -> &SiteTable {
        &self.sites
    }

    /// Forget the RTT cache (between page requests, as the seed does).
    pub fn flush_site_cache(&mut self) {
        self.sites.flush();
    }

    fn split(&mut self) -> (&mut Vec<TrackedConn>, Out<'_>) {
        (
            &mut self.conns,
            Out {
                tx: &mut self.tx,
                events: &mut self.events,
                stats: &mut self.stats,
                sites: &mut self.sites,
                cfg: &self.cfg,
            },
        )
    }

    /// A packet the client is sending. The agent may rewrite its receive window (closed and
    /// open ACKs) or drop it (`Verdict::Drop`: an ACK an open ACK already covered).
    pub fn on_outgoing(&mut self, now: Time, p: &mut Packet) -> Verdict {
        let Transport::Tcp(h) = p.transport else {
            self.hold_for_other(now);
            return Verdict::Pass;
        };
        let (local, remote) = (p.src_endpoint(), p.dst_endpoint());
        let idx = match self
            .conns
            .iter()
            .position(|c| c.local == local && c.remote == remote)
        {
            Some(i) => Some(i),
            None if h.flags.contains(TcpFlags::SYN) && !h.flags.contains(TcpFlags::ACK) => {
                let c = TrackedConn::new(self.next_id, now, p, &h, &self.cfg, &self.sites);
                if self.cfg.rtt_cache {
                    self.stats.note_cache_lookup(matches!(c.phase, conn::Phase::Setup { wake: Some(_), .. }));
                }
                self.next_id += 1;
                self.stats.connections += 1;
                self.record(now, Some(c.id), AgentEventKind::Connection);
                self.conns.push(c);
                Some(self.conns.len() - 1)
            }
            None => None, // not a connection the client opened: not ours to shape
        };
        let Some(i) = idx else { return Verdict::Pass };
        let (conns, mut out) = self.split();
        let pass = conns[i].on_outgoing(now, p, &mut out);
        self.trim_log();
        self.reap(i);
        if pass {
            Verdict::Pass
        } else {
            Verdict::Drop
        }
    }

    /// A packet reaching the client. While the radio sleeps it is lost (`Verdict::Drop`): the
    /// seed's emulation, for a host whose link does not hold frames for a sleeping client (a
    /// `[[wireless]]` hop, the live testbed). A host whose radio model decides what a dozing
    /// station receives calls [`CcAgent::on_received`] instead.
    pub fn on_incoming(&mut self, now: Time, p: &Packet) -> Verdict {
        if !self.awake {
            self.stats.dropped_asleep += 1;
            self.record(now, None, AgentEventKind::DroppedAsleep);
            return Verdict::Drop;
        }
        self.on_received(now, p);
        Verdict::Pass
    }

    /// A packet the client's radio received, where the host models the radio itself: in an
    /// 802.11 BSS the AP holds frames for a station in power save, and a frame its MAC
    /// delivers was heard by an awake radio, even one the agent has asked to sleep (the MAC
    /// dozes only once the exchange on the air is over). The packet is the client's, never
    /// lost; if it shows a connection needs the radio, [`CcAgent::poll_radio`] wakes it.
    pub fn on_received(&mut self, now: Time, p: &Packet) {
        if p.tcp_header().is_none() {
            self.hold_for_other(now);
            return;
        }
        let (local, remote) = (p.dst_endpoint(), p.src_endpoint());
        if let Some(i) = self
            .conns
            .iter()
            .position(|c| c.local == local && c.remote == remote)
        {
            let (conns, mut out) = self.split();
            conns[i].on_incoming(now, p, &mut out);
            self.trim_log();
            self.reap(i);
        }
    }

    /// An application of the client starts sending or expecting traffic the agent does not
    /// shape (a UDP stream, a ping): the radio stays awake until every such session closes,
    /// plus [`AgentConfig::other_traffic_hold`]. Call [`CcAgent::poll_radio`] after it.
    pub fn open_session(&mut self) {
        self.sessions += 1;
    }

    /// A session of [`CcAgent::open_session`] is over at `now`.
    pub fn close_session(&mut self, now: Time) {
        self.sessions = self.sessions.saturating_sub(1);
        self.hold_for_other(now);
    }

    /// Non-TCP sessions open.
    pub fn open_sessions(&self) -> u32 {
        self.sessions
    }

    /// Keep the radio awake for the hold after non-TCP activity at `now`.
    fn hold_for_other(&mut self, now: Time) {
        let until = now + self.cfg.other_traffic_hold;
        self.other_until = Some(self.other_until.map_or(until, |t| t.max(until)));
    }

    /// The response on the connection `local`–`remote` is `bytes` long (HTTP Content-Length,
    /// or the simulator's workload): the connection is finished once it has them all.
    pub fn expect_response(
        &mut self,
        now: Time,
        local: crate::Endpoint,
        remote: crate::Endpoint,
        bytes: u64,
    ) {
        if let Some(i) = self
            .conns
            .iter()
            .position(|c| c.local == local && c.remote == remote)
        {
            let (conns, mut out) = self.split();
            conns[i].expect_response(now, bytes, &mut out);
            self.trim_log();
        }
    }

    /// The earliest time the agent wants [`CcAgent::handle_timeout`] called.
    pub fn poll_timeout(&self) -> Option<Time> {
        let conn = self
            .conns
            .iter()
            .filter_map(|c| c.deadline(&self.cfg))
            .min();
        let wake = if self.awake { None } else { self.sleep_until };
        [conn, wake, self.other_until].into_iter().flatten().min()
    }

    /// Run the timers due at `now` and update the radio.
    pub fn handle_timeout(&mut self, now: Time) {
        for i in 0..self.conns.len() {
            let (conns, mut out) = self.split();
            conns[i].on_timer(now, &mut out);
        }
        self.trim_log();
        self.update_radio(now);
    }

    /// A packet the agent wants sent to a server (open ACK, window probe, closed ACK).
    pub fn poll_transmit(&mut self) -> Option<Packet> {
        self.tx.pop_front()
    }

    /// The next radio command. Call after every batch of inputs at `now`: the agent decides
    /// lazily, once the client's own reactions at that instant are known.
    pub fn poll_radio(&mut self, now: Time) -> Option<RadioCommand> {
        if self.radio.is_empty() {
            self.update_radio(now);
        }
        self.radio.pop_front()
    }

    /// The next log entry.
    pub fn poll_event(&mut self) -> Option<AgentEvent> {
        self.events.pop_front()
    }

    /// Close the sleep interval in progress at `end` (for the counters).
    pub fn finish(&mut self, end: Time) {
        if !self.awake {
            self.stats.sleep_ns += end.saturating_since(self.asleep_since).as_nanos();
            self.asleep_since = end;
        }
    }

    /// Sleep only when every connection is idle or finished, until the earliest predicted
    /// start of a stage or burst among them (mechanism 10), and no traffic other than TCP
    /// holds the radio up.
    fn update_radio(&mut self, now: Time) {
        if self.other_until.is_some_and(|t| t <= now) {
            self.other_until = None;
        }
        // Traffic it does not shape keeps the radio awake, whatever the connections need.
        let mut awake = self.sessions > 0 || self.other_until.is_some();
        let mut until: Option<Time> = None;
        for c in &self.conns {
            if awake {
                break;
            }
            match c.need(now, self.cfg.wake_guard) {
                Need::Awake => awake = true,
                Need::Sleep(Some(t)) => until = Some(until.map_or(t, |u| u.min(t))),
                Need::Sleep(None) => {}
            }
        }
        if awake {
            if !self.awake {
                self.wake(now);
            }
            return;
        }
        if self.awake {
            if until.is_none_or(|t| t.saturating_since(now) >= self.cfg.min_sleep) {
                self.awake = false;
                self.asleep_since = now;
                self.sleep_until = until;
                self.stats.sleeps += 1;
                self.radio.push_back(RadioCommand::Sleep { until });
                self.record(now, None, AgentEventKind::Sleep { until });
            }
        } else if until != self.sleep_until {
            match until {
                Some(t) if t <= now => self.wake(now),
                _ => self.sleep_until = until,
            }
        }
    }

    fn wake(&mut self, now: Time) {
        self.awake = true;
        self.stats.sleep_ns += now.saturating_since(self.asleep_since).as_nanos();
        self.sleep_until = None;
        self.radio.push_back(RadioCommand::Wake);
        self.record(now, None, AgentEventKind::Wake);
    }

    fn record(&mut self, at: Time, conn: Option<u32>, kind: AgentEventKind) {
        if self.log_events {
            self.events.push_back(AgentEvent { at, conn, kind });
        }
    }

    fn trim_log(&mut self) {
        if !self.log_events {
            self.events.clear();
        }
    }

    /// Drop a connection whose both directions are closed.
    fn reap(&mut self, i: usize) {
        if self
            .conns
            .get(i)
            .is_some_and(|c| c.closed() && c.phase == Phase::Finished)
        {
            self.conns.swap_remove(i);
        }
    }
}
