//! One tunnel endpoint: the association's start (RFC 9260 §5.1's handshake, or
//! pre-established), the inlet and burst rule, the sender (TSNs, retransmission queue, RTO,
//! fast retransmit, cwnd/ssthresh, Max.Burst), the receiver ([`super::recv`]) and the SACK
//! policy.

use super::config::TunnelConfig;
use super::recv::{tsn_lt, Arrival, Receiver};
use super::trigger::TriggerEstimator;
use super::{DropReason, FlowKey, Transmit, TunnelStats};
use crate::wire::sctp::{
    self, Cookie, DataChunk, Handshake, InitChunk, SctpHeader, COMMON_HEADER_LEN, COOKIE_LEN, DATA_FLAGS_WHOLE, DATA_HEADER_LEN, SACK_HEADER_LEN,
};
use crate::{Duration, Time};
use std::collections::VecDeque;

/// A DATA chunk waiting to be sent for the first time.
#[derive(Debug)]
struct Queued<T> {
    sid: u16,
    ssn: u16,
    len: u32,
    inner: T,
    /// When it entered the inlet (its buffering delay ends at the release).
    at: Time,
}

/// A DATA chunk sent and not yet cumulatively acknowledged.
#[derive(Debug)]
struct Sent<T> {
    tsn: u32,
    sid: u16,
    ssn: u16,
    len: u32,
    inner: T,
    /// Acknowledged by a gap block (sticky: the peer does not renege).
    gap_acked: bool,
    /// Counted in the flight size.
    in_flight: bool,
    /// Sent more than once (no RTT sample from it, Karn's rule).
    retransmitted: bool,
    /// Waiting to be retransmitted (by T3-rtx or fast retransmit).
    rtx: bool,
    /// Marked by fast retransmit (sent at once, outside cwnd for the first one).
    fast: bool,
    /// Miss indications (RFC 9260 §7.2.4).
    misses: u8,
}

/// Where the association's start is (RFC 9260 §4's states, those the tunnel passes through).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Assoc {
    /// Pre-established, or the handshake completed: DATA and SACKs flow.
    Established,
    /// Initiator: INIT sent (or due), waiting for INIT ACK.
    CookieWait,
    /// Initiator: COOKIE ECHO sent (or due), waiting for COOKIE ACK.
    CookieEchoed(Cookie),
    /// Listener before a valid COOKIE ECHO: INITs are answered without keeping state.
    Closed,
    /// Initiator: no answer after Max.Init.Retransmits; nothing is sent any more.
    Failed,
}

/// The State Cookie's check value: CRC32c of the secret and the fields it protects. Enough to
/// recognise our own cookies; not a cryptographic MAC (both ends are ours, docs/tunnel.md).
fn cookie_check(secret: u32, local_tag: u32, peer_tag: u32, peer_tsn: u32) -> u32 {
    const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
    let mut d = CRC.digest();
    for v in [secret, local_tag, peer_tag, peer_tsn] {
        d.update(&v.to_be_bytes());
    }
    d.finalize()
}

/// The listener's cookie for an INIT: the initiator's tag and first TSN, and the check value.
fn make_cookie(secret: u32, local_tag: u32, peer_tag: u32, peer_tsn: u32) -> Cookie {
    let mut k = [0u8; COOKIE_LEN];
    k[..4].copy_from_slice(&peer_tag.to_be_bytes());
    k[4..8].copy_from_slice(&peer_tsn.to_be_bytes());
    k[8..].copy_from_slice(&cookie_check(secret, local_tag, peer_tag, peer_tsn).to_be_bytes());
    Cookie(k)
}

/// The (peer tag, peer initial TSN) of one of our cookies, or `None` if it is not ours.
fn read_cookie(secret: u32, local_tag: u32, k: &Cookie) -> Option<(u32, u32)> {
    let be = |i: usize| u32::from_be_bytes([k.0[i], k.0[i + 1], k.0[i + 2], k.0[i + 3]]);
    let (tag, tsn) = (be(0), be(4));
    (be(8) == cookie_check(secret, local_tag, tag, tsn)).then_some((tag, tsn))
}

/// One end of the tunnel's SCTP association (see the module docs of [`super`]).
#[derive(Debug)]
pub struct Endpoint<T> {
    cfg: TunnelConfig,
    assoc: Assoc,
    /// Verification tag on packets to the peer (configured, or learned in the handshake).
    peer_tag: u32,
    /// A handshake chunk to send next, with the verification tag it goes with.
    reply: Option<(u32, Handshake)>,
    /// T1-init / T1-cookie (RFC 9260 §5.1): INIT or COOKIE ECHO is sent again when it expires.
    t1: Option<Time>,
    /// INIT / COOKIE ECHO retransmissions so far.
    init_tries: u32,
    /// New DATA packets sent since the last input (Max.Burst).
    burst_sent: u32,
    flows: Vec<(FlowKey, u16)>,
    out_ssn: Vec<u16>,
    inlet: VecDeque<Queued<T>>,
    inlet_since: Option<Time>,
    pending: VecDeque<Queued<T>>,
    sent: VecDeque<Sent<T>>,
    next_tsn: u32,
    cwnd: u32,
    ssthresh: u32,
    partial_acked: u32,
    flight: u32,
    /// Fast recovery's exit point (the highest TSN outstanding when it began).
    recovery: Option<u32>,
    /// A fast retransmission may still go out ignoring cwnd in this recovery.
    fast_credit: bool,
    srtt: Option<Duration>,
    rttvar: Duration,
    rto: Duration,
    rtt_probe: Option<(u32, Time)>,
    t3: Option<Time>,
    recv: Receiver<T>,
    /// DATA packets received since the last SACK sent.
    unacked: u32,
    sack_at: Option<Time>,
    sack_now: bool,
    /// DATA packets received since the inlet last released (the burst rule).
    received_since_release: u32,
    trigger: Option<TriggerEstimator>,
    last_uplink: Time,
    trigger_now: bool,
    stats: TunnelStats,
}

impl<T: Clone> Endpoint<T> {
    /// An endpoint of the association `cfg` describes, at time `now`: an initiator with its INIT
    /// due at `now`, a listener waiting for one, or pre-established.
    pub fn new(cfg: TunnelConfig, now: Time) -> Result<Endpoint<T>, String> {
        cfg.validate()?;
        let mtu = cfg.mtu;
        let (assoc, reply) = match (cfg.handshake, cfg.initiator) {
            (false, _) => (Assoc::Established, None),
            (true, true) => (Assoc::CookieWait, Some((0, Handshake::Init(Self::own_init(&cfg))))),
            (true, false) => (Assoc::Closed, None),
        };
        Ok(Endpoint {
            assoc,
            peer_tag: cfg.peer_tag,
            reply,
            t1: None,
            init_tries: 0,
            burst_sent: 0,
            flows: Vec::new(),
            out_ssn: Vec::new(),
            inlet: VecDeque::with_capacity(cfg.burst as usize * 2),
            inlet_since: None,
            pending: VecDeque::with_capacity(64),
            sent: VecDeque::with_capacity(64),
            next_tsn: cfg.initial_tsn,
            // RFC 9260 §7.2.1: min(4·MTU, max(2·MTU, 4404)); ssthresh initially arbitrarily high.
            cwnd: (4 * mtu).min((2 * mtu).max(4404)),
            ssthresh: cfg.a_rwnd,
            partial_acked: 0,
            flight: 0,
            recovery: None,
            fast_credit: false,
            srtt: None,
            rttvar: Duration::ZERO,
            rto: cfg.rto_initial,
            rtt_probe: None,
            t3: None,
            recv: Receiver::new(cfg.peer_initial_tsn, cfg.max_held, cfg.a_rwnd),
            unacked: 0,
            sack_at: None,
            sack_now: false,
            received_since_release: 0,
            trigger: cfg.trigger.map(|t| TriggerEstimator::new(t, now)),
            last_uplink: now,
            trigger_now: false,
            stats: TunnelStats::default(),
            cfg,
        })
    }

    /// The settings.
    pub fn config(&self) -> &TunnelConfig {
        &self.cfg
    }

    /// This end's INIT / INIT ACK fields.
    fn own_init(cfg: &TunnelConfig) -> InitChunk {
        InitChunk { tag: cfg.local_tag, a_rwnd: cfg.a_rwnd, out_streams: cfg.max_streams, in_streams: cfg.max_streams, initial_tsn: cfg.initial_tsn }
    }

    /// True once DATA may flow: pre-established, or the handshake completed.
    pub fn is_established(&self) -> bool {
        self.assoc == Assoc::Established
    }

    /// Counters so far.
    pub fn stats(&self) -> &TunnelStats {
        &self.stats
    }

    /// Congestion window, bytes of user data.
    pub fn cwnd(&self) -> u32 {
        self.cwnd
    }

    /// Current retransmission timeout.
    pub fn rto(&self) -> Duration {
        self.rto
    }

    /// Inner packets buffered at the inlet, released but unsent, and sent but unacknowledged.
    pub fn backlog(&self) -> (usize, usize, usize) {
        (self.inlet.len(), self.pending.len(), self.sent.len())
    }

    /// The stream of `key`: assigned in order of first appearance; past `max_streams` flows
    /// share streams (by an FNV hash of the key), which keeps each flow in order.
    fn stream_of(&mut self, key: FlowKey) -> u16 {
        if let Some(&(_, sid)) = self.flows.iter().find(|(k, _)| *k == key) {
            return sid;
        }
        let n = self.flows.len();
        let sid = if n < usize::from(self.cfg.max_streams) {
            n as u16
        } else {
            let mut h: u32 = 0x811c_9dc5;
            for b in key.a.0.octets().into_iter().chain(key.b.0.octets()).chain(key.a.1.to_be_bytes()).chain(key.b.1.to_be_bytes()) {
                h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
            }
            return (h % u32::from(self.cfg.max_streams)) as u16;
        };
        self.flows.push((key, sid));
        self.out_ssn.push(0);
        sid
    }

    /// An inner packet of flow `key`, `len` bytes long, to carry to the peer. It waits in the
    /// inlet until m are buffered, the inlet timeout passes, or m packets arrive from the peer.
    pub fn send(&mut self, now: Time, key: FlowKey, len: u32, inner: T) {
        self.burst_sent = 0;
        let sid = self.stream_of(key);
        let ssn = self.out_ssn[usize::from(sid)];
        self.out_ssn[usize::from(sid)] = ssn.wrapping_add(1);
        self.stats.inner_in += 1;
        self.inlet.push_back(Queued { sid, ssn, len, inner, at: now });
        self.inlet_since.get_or_insert(now);
        if self.inlet.len() >= self.cfg.burst as usize {
            self.stats.released_full += 1;
            self.release(now);
        }
    }

    fn release(&mut self, now: Time) {
        // The buffering delay D of Eq. 4.13, measured: each packet's wait from arrival to release.
        for q in &self.inlet {
            self.stats.inlet_wait_ns += now.saturating_since(q.at).as_nanos();
        }
        self.stats.inlet_released += self.inlet.len() as u64;
        self.pending.extend(self.inlet.drain(..));
        self.inlet_since = None;
        self.received_since_release = 0;
    }

    /// The bytes of a UDP datagram's payload arrived (a live process): decoded, checked and
    /// handled; the DATA chunk's user data becomes an inner handle by `make`.
    pub fn handle_datagram(&mut self, now: Time, bytes: &[u8], make: impl FnOnce(&[u8]) -> T) -> Result<(), DropReason> {
        let view = match sctp::decode_sctp(bytes) {
            Ok(v) => v,
            Err(_) => {
                self.count_malformed();
                return Err(DropReason::Malformed);
            }
        };
        let inner = view.header.data.map(|_| make(view.data));
        self.handle_packet(now, &view.header, inner)
    }

    /// A tunnel packet arrived that does not decode (the caller decoded it): counted.
    pub fn count_malformed(&mut self) {
        self.stats.dropped_malformed += 1;
    }

    /// A decoded tunnel packet arrived with the inner packet of its DATA chunk. Packets of
    /// another association (tag, ports) and bad DATA are dropped and counted.
    pub fn handle_packet(&mut self, now: Time, h: &SctpHeader, inner: Option<T>) -> Result<(), DropReason> {
        self.burst_sent = 0;
        let ports = h.dst_port == self.cfg.port && h.src_port == self.cfg.port;
        // An INIT carries tag 0 (§8.5.1); every other packet the tag this end gave.
        let is_init = matches!(h.control, Some(Handshake::Init(_)));
        if !ports || h.vtag != if is_init { 0 } else { self.cfg.local_tag } {
            self.stats.dropped_not_ours += 1;
            return Err(DropReason::NotOurs);
        }
        if let Some(c) = h.control {
            if !self.on_handshake(now, c) {
                self.stats.dropped_not_ours += 1;
                return Err(DropReason::NotOurs);
            }
        }
        if self.assoc != Assoc::Established {
            if h.sack.is_some() || h.data.is_some() {
                // Out of the blue (§8.4): no association to put it in.
                self.stats.dropped_not_ours += 1;
                return Err(DropReason::NotOurs);
            }
            self.stats.packets_received += 1;
            return Ok(());
        }
        let data = match (h.data, inner) {
            (Some(d), Some(i)) if d.sid < self.cfg.max_streams => Some((d, i)),
            (None, None) => None,
            _ => {
                self.stats.dropped_bad_data += 1;
                return Err(DropReason::BadData);
            }
        };
        self.stats.packets_received += 1;
        if let Some(t) = &mut self.trigger {
            t.on_receive(now);
        }
        if let Some(s) = &h.sack {
            self.on_sack(now, s);
        }
        if let Some((d, inner)) = data {
            self.on_data(now, d, inner);
        }
        Ok(())
    }

    /// A handshake chunk for this end (tags checked); false if it does not fit the state or
    /// its cookie is not ours (dropped, as §5.2 has it for the cases the tunnel meets).
    fn on_handshake(&mut self, now: Time, c: Handshake) -> bool {
        let secret = self.cfg.cookie_secret;
        match (c, self.assoc) {
            // Stateless answer (§5.1 B): everything needed later rides in the cookie.
            (Handshake::Init(i), Assoc::Closed) => {
                let k = make_cookie(secret, self.cfg.local_tag, i.tag, i.initial_tsn);
                self.reply = Some((i.tag, Handshake::InitAck(Self::own_init(&self.cfg), k)));
            }
            (Handshake::InitAck(i, k), Assoc::CookieWait) => {
                self.peer_tag = i.tag;
                self.recv = Receiver::new(i.initial_tsn, self.cfg.max_held, self.cfg.a_rwnd);
                self.assoc = Assoc::CookieEchoed(k);
                self.reply = Some((i.tag, Handshake::CookieEcho(k)));
                self.t1 = None;
                self.init_tries = 0;
            }
            (Handshake::CookieEcho(k), Assoc::Closed | Assoc::Established) => {
                let Some((tag, tsn)) = read_cookie(secret, self.cfg.local_tag, &k) else { return false };
                if self.assoc == Assoc::Closed {
                    self.peer_tag = tag;
                    self.recv = Receiver::new(tsn, self.cfg.max_held, self.cfg.a_rwnd);
                    self.assoc = Assoc::Established;
                    self.stats.established_ns = now.saturating_since(Time::ZERO).as_nanos();
                } else if tag != self.peer_tag {
                    return false; // a restart (§5.2.4 A) is not handled: the tunnel's ends do not restart
                }
                // Established already with these tags: our COOKIE ACK was lost (§5.2.4 D).
                self.reply = Some((tag, Handshake::CookieAck));
            }
            (Handshake::CookieAck, Assoc::CookieEchoed(_)) => {
                self.assoc = Assoc::Established;
                self.t1 = None;
                self.stats.established_ns = now.saturating_since(Time::ZERO).as_nanos();
            }
            _ => return false,
        }
        true
    }

    fn on_data(&mut self, now: Time, d: DataChunk, inner: T) {
        let before = self.recv.ready.len();
        match self.recv.on_data(d.tsn, d.sid, d.ssn, inner) {
            Arrival::Duplicate => {
                self.stats.duplicate_data += 1;
                self.sack_now = true; // RFC 9260 §6.2: report duplicates at once
                return;
            }
            Arrival::Refused => {
                self.stats.dropped_window += 1;
                return;
            }
            Arrival::Gap => self.sack_now = true, // §6.2: out of order → SACK at once
            Arrival::InOrder => {}
        }
        self.stats.inner_delivered += (self.recv.ready.len() - before) as u64;
        self.unacked += 1;
        if self.unacked >= self.cfg.burst {
            self.sack_now = true;
        } else if self.sack_at.is_none() {
            self.sack_at = Some(now + self.cfg.sack_delay);
        }
        self.received_since_release += 1;
        if self.received_since_release >= self.cfg.burst && !self.inlet.is_empty() {
            self.stats.released_burst_rule += 1;
            self.release(now);
        }
    }

    fn on_sack(&mut self, now: Time, s: &sctp::SackChunk) {
        let cum = s.cum_tsn;
        let highest_sent = self.next_tsn.wrapping_sub(1);
        let oldest = self.sent.front().map(|c| c.tsn);
        // A SACK older than one seen, or acknowledging what was never sent, is ignored.
        if tsn_lt(highest_sent, cum) || oldest.is_some_and(|o| tsn_lt(cum, o.wrapping_sub(1))) {
            return;
        }
        let flight_before = self.flight;
        let mut acked: u32 = 0;
        let mut htna: Option<u32> = None;
        let mut cum_advanced = false;
        while let Some(c) = self.sent.front() {
            if tsn_lt(cum, c.tsn) {
                break;
            }
            let c = self.sent.pop_front().expect("front exists");
            cum_advanced = true;
            if !c.gap_acked {
                acked += c.len;
                htna = Some(c.tsn);
            }
            if c.in_flight {
                self.flight -= c.len;
            }
            if let Some((probe, at)) = self.rtt_probe {
                if probe == c.tsn {
                    self.rtt_probe = None;
                    if !c.retransmitted {
                        self.rtt_sample(now.saturating_since(at));
                    }
                }
            }
        }
        for &(a, b) in s.gap_blocks() {
            let (lo, hi) = (cum.wrapping_add(u32::from(a)), cum.wrapping_add(u32::from(b)));
            for c in self.sent.iter_mut() {
                if tsn_lt(c.tsn, lo) || tsn_lt(hi, c.tsn) || c.gap_acked {
                    continue;
                }
                c.gap_acked = true;
                c.rtx = false;
                acked += c.len;
                if c.in_flight {
                    c.in_flight = false;
                    self.flight -= c.len;
                }
                if htna.is_none_or(|h| tsn_lt(h, c.tsn)) {
                    htna = Some(c.tsn);
                }
            }
        }
        // Miss indications for what lies below the highest TSN newly acknowledged (§7.2.4).
        let mut newly_fast = false;
        if let Some(h) = htna {
            for c in self.sent.iter_mut() {
                if !tsn_lt(c.tsn, h) {
                    break;
                }
                if c.gap_acked || c.fast || c.rtx {
                    continue;
                }
                c.misses = c.misses.saturating_add(1);
                if c.misses >= 3 {
                    c.fast = true;
                    c.rtx = true;
                    if c.in_flight {
                        c.in_flight = false;
                        self.flight -= c.len;
                    }
                    newly_fast = true;
                }
            }
        }
        if let Some(exit) = self.recovery {
            if !tsn_lt(cum, exit) {
                self.recovery = None;
            }
        }
        if newly_fast && self.recovery.is_none() {
            self.stats.fast_recoveries += 1;
            self.ssthresh = (self.cwnd / 2).max(4 * self.cfg.mtu);
            self.cwnd = self.ssthresh;
            self.partial_acked = 0;
            self.recovery = Some(highest_sent);
            self.fast_credit = true;
        }
        // Congestion window growth (§7.2.1, §7.2.2), only outside fast recovery and only when
        // the window was in use.
        if cum_advanced && self.recovery.is_none() && flight_before + self.cfg.mtu > self.cwnd {
            if self.cwnd <= self.ssthresh {
                self.cwnd += acked.min(self.cfg.mtu);
            } else {
                self.partial_acked += acked;
                if self.partial_acked >= self.cwnd {
                    self.partial_acked -= self.cwnd;
                    self.cwnd += self.cfg.mtu;
                }
            }
        }
        if self.flight == 0 {
            self.partial_acked = 0;
        }
        // T3-rtx: stopped when nothing is outstanding, restarted when the cumulative TSN moved.
        if self.sent.iter().all(|c| c.gap_acked) {
            self.t3 = None;
        } else if cum_advanced || self.t3.is_none() {
            self.t3 = Some(now + self.rto);
        }
    }

    fn rtt_sample(&mut self, r: Duration) {
        // RFC 9260 §6.3.1 with α = 1/8, β = 1/4.
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Duration(r.as_nanos() / 2);
            }
            Some(s) => {
                let diff = s.as_nanos().abs_diff(r.as_nanos());
                self.rttvar = Duration((3 * self.rttvar.as_nanos() + diff) / 4);
                self.srtt = Some(Duration((7 * s.as_nanos() + r.as_nanos()) / 8));
            }
        }
        let s = self.srtt.unwrap_or(r);
        let rto = s + Duration(4 * self.rttvar.as_nanos());
        self.rto = rto.max(self.cfg.rto_min).min(self.cfg.rto_max);
    }

    /// When [`Endpoint::handle_timeout`] should next run.
    pub fn poll_timeout(&mut self, now: Time) -> Option<Time> {
        // A handshake chunk not yet sent (the initiator's first INIT): due at once.
        let reply = self.reply.map(|_| now);
        if self.assoc != Assoc::Established {
            return [reply, self.t1].into_iter().flatten().min();
        }
        let inlet = self.inlet_since.map(|t| t + self.cfg.inlet_timeout);
        let trig = self.trigger_deadline(now);
        [reply, self.t3, self.sack_at, inlet, trig].into_iter().flatten().min()
    }

    fn trigger_deadline(&mut self, now: Time) -> Option<Time> {
        let m = self.cfg.burst;
        let t = self.trigger.as_mut()?.interval(now, m);
        Some(self.last_uplink + t)
    }

    /// Runs the timers due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        self.burst_sent = 0;
        if self.t1.is_some_and(|t| t <= now) {
            self.on_t1();
        }
        if self.inlet_since.is_some_and(|t| t + self.cfg.inlet_timeout <= now) {
            self.stats.released_timeout += 1;
            self.release(now);
        }
        if self.sack_at.is_some_and(|t| t <= now) {
            self.sack_at = None;
            self.sack_now = true;
        }
        if self.trigger_deadline(now).is_some_and(|t| t <= now) {
            self.trigger_now = true;
        }
        if self.t3.is_some_and(|t| t <= now) {
            self.on_t3(now);
        }
    }

    /// T1-init / T1-cookie expired (§5.1): INIT or COOKIE ECHO again with the timer doubled,
    /// at most Max.Init.Retransmits times; then the association has failed.
    fn on_t1(&mut self) {
        self.t1 = None;
        let again = match self.assoc {
            Assoc::CookieWait => Handshake::Init(Self::own_init(&self.cfg)),
            Assoc::CookieEchoed(k) => Handshake::CookieEcho(k),
            _ => return,
        };
        if self.init_tries >= self.cfg.max_init_retransmits {
            self.assoc = Assoc::Failed;
            self.stats.handshake_failed = true;
            return;
        }
        self.init_tries += 1;
        self.stats.handshake_retransmissions += 1;
        self.rto = Duration(self.rto.as_nanos().saturating_mul(2)).min(self.cfg.rto_max);
        let tag = if matches!(again, Handshake::Init(_)) { 0 } else { self.peer_tag };
        self.reply = Some((tag, again));
    }

    fn on_t3(&mut self, now: Time) {
        self.stats.timeouts += 1;
        self.ssthresh = (self.cwnd / 2).max(4 * self.cfg.mtu);
        self.cwnd = self.cfg.mtu;
        self.partial_acked = 0;
        self.rto = Duration(self.rto.as_nanos().saturating_mul(2)).min(self.cfg.rto_max);
        self.recovery = None;
        self.rtt_probe = None;
        for c in self.sent.iter_mut().filter(|c| !c.gap_acked) {
            c.rtx = true;
            c.fast = false;
            if c.in_flight {
                c.in_flight = false;
                self.flight -= c.len;
            }
        }
        self.t3 = Some(now + self.rto);
    }

    /// The next SCTP packet to send at `now`, if any: a retransmission, new DATA within the
    /// congestion window, or a SACK (piggybacked on DATA whenever DATA goes).
    pub fn poll_transmit(&mut self, now: Time) -> Option<Transmit<T>> {
        if let Some((vtag, c)) = self.reply.take() {
            // Handshake chunks go alone (bundling DATA with COOKIE ECHO is optional, §5.1).
            if matches!(c, Handshake::Init(_) | Handshake::CookieEcho(_)) {
                self.t1 = Some(now + self.rto);
            }
            self.stats.handshake_sent += 1;
            self.stats.packets_sent += 1;
            self.last_uplink = now;
            let header = SctpHeader { src_port: self.cfg.port, dst_port: self.cfg.port, vtag, control: Some(c), sack: None, data: None };
            return Some(Transmit { header, inner: None, trigger: false });
        }
        if self.assoc != Assoc::Established {
            return None; // inner packets wait in the inlet and the send queue
        }
        let data = self.next_data(now);
        let want_sack = self.sack_now || self.trigger_now || (data.is_some() && (self.unacked > 0 || self.sack_at.is_some()));
        if data.is_none() && !want_sack {
            return None;
        }
        let mut h = SctpHeader { src_port: self.cfg.port, dst_port: self.cfg.port, vtag: self.peer_tag, ..SctpHeader::default() };
        let mut inner = None;
        if let Some((d, i)) = data {
            h.data = Some(d);
            inner = Some(i);
        }
        if want_sack {
            let base = COMMON_HEADER_LEN + SACK_HEADER_LEN + if h.data.is_some() { DATA_HEADER_LEN } else { 0 };
            // What fits: the inline room (simulator) and the path MTU beside the user data.
            let room = self.cfg.header_room(h.data.map_or(0, |d| d.len as usize));
            let entries = room.saturating_sub(base) / 4;
            h.sack = Some(self.recv.sack(self.cfg.a_rwnd, entries));
            self.stats.sacks_sent += 1;
            self.stats.sacks_piggybacked += u64::from(h.data.is_some());
            self.unacked = 0;
            self.sack_at = None;
            self.sack_now = false;
        }
        let trigger = self.trigger_now && h.data.is_none();
        self.stats.triggers += u64::from(trigger);
        self.trigger_now = false;
        self.last_uplink = now;
        self.stats.packets_sent += 1;
        Some(Transmit { header: h, inner, trigger })
    }

    /// The DATA chunk to send next: a retransmission if one is due and allowed, else new data
    /// within cwnd.
    fn next_data(&mut self, now: Time) -> Option<(DataChunk, T)> {
        let room = |flight: u32, cwnd: u32| flight < cwnd;
        if let Some(c) = self.sent.iter_mut().find(|c| c.rtx) {
            let free_fast = c.fast && self.fast_credit;
            if free_fast || room(self.flight, self.cwnd) {
                if free_fast {
                    self.fast_credit = false;
                    self.stats.fast_retransmissions += 1;
                } else if c.fast {
                    self.stats.fast_retransmissions += 1;
                } else {
                    self.stats.timeout_retransmissions += 1;
                }
                c.rtx = false;
                c.retransmitted = true;
                c.in_flight = true;
                c.misses = 0;
                self.flight += c.len;
                let d = DataChunk { tsn: c.tsn, sid: c.sid, ssn: c.ssn, ppid: 0, flags: DATA_FLAGS_WHOLE, len: c.len };
                let inner = c.inner.clone();
                self.t3.get_or_insert(now + self.rto);
                return Some((d, inner));
            }
            return None; // retransmissions go before new data
        }
        if !room(self.flight, self.cwnd) {
            return None;
        }
        // Max.Burst (§6.1 D), as a strict count of new DATA packets per output opportunity.
        if self.cfg.max_burst > 0 && self.burst_sent >= self.cfg.max_burst {
            if !self.pending.is_empty() {
                self.stats.max_burst_limited += 1;
            }
            return None;
        }
        let q = self.pending.pop_front()?;
        self.burst_sent += 1;
        let tsn = self.next_tsn;
        self.next_tsn = tsn.wrapping_add(1);
        self.flight += q.len;
        self.stats.data_sent += 1;
        if self.rtt_probe.is_none() {
            self.rtt_probe = Some((tsn, now));
        }
        self.t3.get_or_insert(now + self.rto);
        let d = DataChunk { tsn, sid: q.sid, ssn: q.ssn, ppid: 0, flags: DATA_FLAGS_WHOLE, len: q.len };
        self.sent.push_back(Sent {
            tsn,
            sid: q.sid,
            ssn: q.ssn,
            len: q.len,
            inner: q.inner.clone(),
            gap_acked: false,
            in_flight: true,
            retransmitted: false,
            rtx: false,
            fast: false,
            misses: 0,
        });
        Some((d, q.inner))
    }

    /// The next inner packet received, in order within its stream: (stream id, packet).
    pub fn poll_deliver(&mut self) -> Option<(u16, T)> {
        self.recv.ready.pop_front()
    }
}
