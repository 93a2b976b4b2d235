//! Hosting the client-centered agent (`wattlab_core::agent`, seed 000) on a real client: every
//! TCP packet the client sends or receives is queued to us by iptables NFQUEUE rules in the
//! client's namespace; the agent's verdicts drop or pass it, its window rewrites are applied
//! in place (incremental checksum), the open ACKs and probes it makes leave through a raw
//! socket (marked so the rules let them by), and its radio commands are logged on the
//! capture's clock for the trace analyzer's `replay` policy.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::Path;
use std::sync::atomic::AtomicBool;

use serde::Serialize;
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use wattlab_core::agent::{AgentConfig, AgentStats, CcAgent, RadioCommand, Verdict};
use wattlab_core::wire::{decode_ipv4, encode_ipv4, set_tcp_window};
use wattlab_core::Time;

use crate::clock::LiveClock;
use crate::nfqueue::{stopped, BoundQueue};
use crate::web_hints::{endpoint, WebHint};

/// Hint datagrams read per drain at most (a page has at most a few hundred objects).
const HINTS_PER_DRAIN: usize = 4096;

/// Applies every hint waiting on `sock` at `now` (bounded per call).
fn drain_hints(sock: &std::os::unix::net::UnixDatagram, agent: &mut CcAgent, now: Time, host: &mut HostCounters) {
    let mut buf = [0u8; 128];
    for _ in 0..HINTS_PER_DRAIN {
        let Ok(n) = sock.recv(&mut buf) else { return };
        match WebHint::decode(&buf[..n]) {
            Some(WebHint::NewPage) => {
                agent.flush_site_cache();
                host.hints_new_page += 1;
            }
            Some(WebHint::ResponseSize { local, remote, bytes }) => {
                agent.expect_response(now, endpoint(local), endpoint(remote), bytes);
                host.hints_response += 1;
            }
            None => host.hints_bad += 1,
        }
    }
}

/// Where the agent host writes its logs.
pub struct AgentLogs<'a> {
    /// Radio transitions: `time_ns,state` (`awake`/`doze`), Unix-epoch ns.
    pub transitions: &'a Path,
    /// The agent's event log: `time_ns,conn,event`.
    pub events: &'a Path,
    /// Unix datagram socket to bind for a web client's hints (`web_hints`), if any.
    pub hints: Option<&'a Path>,
}

/// Counters of the host around the agent.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HostCounters {
    /// Packets the client sent, seen by the agent.
    pub outgoing: u64,
    /// Packets reaching the client, seen by the agent.
    pub incoming: u64,
    /// Outgoing ACKs whose window the agent rewrote.
    pub windows_rewritten: u64,
    /// Outgoing packets the agent dropped (client ACKs an open ACK already covered).
    pub outgoing_dropped: u64,
    /// Incoming packets dropped because the radio slept.
    pub incoming_dropped: u64,
    /// Packets the agent made (open ACKs, probes, closed ACKs after probes) sent by raw socket.
    pub injected: u64,
    /// Queued packets that were not IPv4 TCP/UDP we could decode (passed unchanged).
    pub undecodable: u64,
    /// Timer deadlines served, and how late the loop served them (wake-up latency).
    pub timers: u64,
    /// Mean lateness of timer service, in µs.
    pub timer_late_mean_us: f64,
    /// Largest lateness of timer service, in µs.
    pub timer_late_max_us: f64,
    /// The web client's new-page hints applied (each flushed the RTT cache).
    pub hints_new_page: u64,
    /// The web client's response-length hints applied.
    pub hints_response: u64,
    /// Datagrams on the hint socket that were not hints (ignored).
    pub hints_bad: u64,
}

/// The agent host's report at the end of a run.
#[derive(Debug, Serialize)]
pub struct AgentReport {
    /// The agent's own counters.
    pub agent: AgentStats,
    /// The host's counters.
    pub host: HostCounters,
}

/// An I/O error on `p`, as a message naming the file.
fn io(p: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("{}: {e}", p.display())
}

/// Where the agent's output goes: its own packets (raw socket) and its two logs.
struct Outputs<'a> {
    raw: Socket,
    encoded: Vec<u8>,
    transitions: BufWriter<File>,
    events: BufWriter<File>,
    clock: LiveClock,
    logs: &'a AgentLogs<'a>,
}

impl Outputs<'_> {
    /// After the agent's reactions at `now`: send what it made, log its radio commands and events.
    fn flush(&mut self, agent: &mut CcAgent, now: Time, host: &mut HostCounters) -> Result<(), String> {
        while let Some(p) = agent.poll_transmit() {
            self.encoded.clear();
            encode_ipv4(&p, &mut self.encoded).map_err(|e| format!("encoding an agent packet: {e}"))?;
            let to = SockAddr::from(SocketAddrV4::new(p.dst, 0));
            self.raw.send_to(&self.encoded, &to).map_err(|e| format!("raw send to {}: {e}", p.dst))?;
            host.injected += 1;
        }
        while let Some(cmd) = agent.poll_radio(now) {
            let state = if cmd == RadioCommand::Wake { "awake" } else { "doze" };
            writeln!(self.transitions, "{},{state}", self.clock.unix_ns(now)).map_err(io(self.logs.transitions))?;
        }
        while let Some(e) = agent.poll_event() {
            let conn = e.conn.map_or(-1, i64::from);
            writeln!(self.events, "{},{conn},{}", self.clock.unix_ns(e.at), e.kind).map_err(io(self.logs.events))?;
        }
        Ok(())
    }

    /// Writes the logs out.
    fn finish(&mut self) -> Result<(), String> {
        self.transitions.flush().map_err(io(self.logs.transitions))?;
        self.events.flush().map_err(io(self.logs.events))
    }
}

/// Runs the agent for the client `client` on NFQUEUE `queue_num` until `stop` is set.
pub fn run(queue_num: u16, client: Ipv4Addr, mark: u32, cfg: AgentConfig, logs: &AgentLogs, stop: &AtomicBool) -> Result<AgentReport, String> {
    let clock = LiveClock::start();
    let mut queue = BoundQueue::open(queue_num, u16::MAX)?;
    crate::nfqueue::announce_ready();
    let raw = Socket::new(Domain::IPV4, Type::RAW, Some(Protocol::from(libc::IPPROTO_RAW))).map_err(|e| format!("raw socket: {e}"))?;
    raw.set_mark(mark).map_err(|e| format!("SO_MARK on the raw socket: {e}"))?;
    let mut agent = CcAgent::new(cfg).map_err(|e| format!("agent configuration: {}", e.0))?;
    agent.set_event_log(true);
    let create = |p: &Path| File::create(p).map(BufWriter::new).map_err(|e| format!("{}: {e}", p.display()));
    let (mut transitions, mut events) = (create(logs.transitions)?, create(logs.events)?);
    writeln!(transitions, "time_ns,state").map_err(io(logs.transitions))?;
    writeln!(transitions, "{},awake", clock.unix_ns(clock.now())).map_err(io(logs.transitions))?;
    writeln!(events, "time_ns,conn,event").map_err(io(logs.events))?;
    let mut out = Outputs { raw, encoded: Vec::with_capacity(128), transitions, events, clock, logs };
    let hints = match logs.hints {
        None => None,
        Some(p) => {
            let _ = std::fs::remove_file(p);
            let s = std::os::unix::net::UnixDatagram::bind(p).map_err(|e| format!("hint socket {}: {e}", p.display()))?;
            s.set_nonblocking(true).map_err(|e| format!("hint socket: {e}"))?;
            Some(s)
        }
    };

    let mut host = HostCounters::default();
    let mut late_sum_ns = 0u64;
    // The agent's timeline never goes back: a timer is served at its due time (the radio of a
    // real NIC wakes on a hardware timer), unless an input at a later time was already handled.
    let mut last = Time::ZERO;
    while !stopped(stop) {
        let timeout = clock.timeout_until(agent.poll_timeout(), std::time::Duration::from_millis(20));
        match &hints {
            Some(h) => queue.wait_also(std::os::fd::AsRawFd::as_raw_fd(h), timeout),
            None => queue.wait(timeout),
        }
        loop {
            // Hints first: the client sends each before the packets it concerns.
            if let Some(h) = &hints {
                let now = clock.now().max(last);
                drain_hints(h, &mut agent, now, &mut host);
                out.flush(&mut agent, now, &mut host)?;
            }
            let msg = queue.try_recv()?;
            let now = clock.now().max(last);
            // Timers due before this packet run first, at their own time: a wake-up the loop
            // serves late must not make the agent drop a packet as arriving asleep.
            while let Some(due) = agent.poll_timeout().filter(|t| *t <= now) {
                let at = due.max(last);
                host.timers += 1;
                late_sum_ns += now.0 - at.0;
                host.timer_late_max_us = host.timer_late_max_us.max((now.0 - at.0) as f64 / 1e3);
                agent.handle_timeout(at);
                last = at;
                out.flush(&mut agent, at, &mut host)?;
            }
            let Some(mut msg) = msg else { break };
            last = now;
            let verdict = match decode_ipv4(msg.get_payload()) {
                Err(_) => {
                    host.undecodable += 1;
                    Verdict::Pass
                }
                Ok(mut pkt) if pkt.src == client => {
                    host.outgoing += 1;
                    let before = pkt.tcp_header().map(|h| h.window);
                    let v = agent.on_outgoing(now, &mut pkt);
                    let after = pkt.tcp_header().map(|h| h.window);
                    if v == Verdict::Pass && before != after {
                        if let Some(w) = after {
                            set_tcp_window(msg.get_payload_mut(), w).map_err(|e| format!("window rewrite: {e}"))?;
                            host.windows_rewritten += 1;
                        }
                    }
                    host.outgoing_dropped += u64::from(v == Verdict::Drop);
                    v
                }
                Ok(pkt) => {
                    host.incoming += 1;
                    let v = agent.on_incoming(now, &pkt);
                    host.incoming_dropped += u64::from(v == Verdict::Drop);
                    v
                }
            };
            msg.set_verdict(if verdict == Verdict::Pass { nfq::Verdict::Accept } else { nfq::Verdict::Drop });
            queue.verdict(msg)?;
            out.flush(&mut agent, now, &mut host)?;
        }
    }
    let end: Time = clock.now().max(last);
    agent.finish(end);
    out.finish()?;
    if host.timers > 0 {
        host.timer_late_mean_us = late_sum_ns as f64 / host.timers as f64 / 1e3;
    }
    Ok(AgentReport { agent: *agent.stats(), host })
}
