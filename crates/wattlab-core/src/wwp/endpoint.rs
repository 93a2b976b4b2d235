//! One WWP endpoint: the handshake, a sender and a receiver (full duplex), the control-segment
//! queue, timers, events and counters, behind a sans-IO interface.

use super::config::{WwpConfig, WwpConfigError};
use super::handshake::{Handshake, HandshakeFailure, HandshakeOutcome, HandshakeState};
use super::outbox::Outbox;
use super::receiver::Receiver;
use super::sender::{SendState, Sender};
use super::stats::WwpStats;
use crate::engine::{self, Engine, Refused};
use crate::packet::Endpoint;
use crate::time::Time;
use crate::wire::wwp::{decode_wwp, finish_wwp, pack_nack_list, WwpHeader, WwpSegment, WwpType, WWP_HEADER_LEN};
use crate::wire::WireError;

/// The connection as the application sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WwpState {
    /// The six-way handshake is running.
    Handshaking,
    /// Data may flow both ways.
    Established,
    /// Both directions finished: our FIN acknowledged, the peer's FIN acknowledged.
    Closed,
    /// The handshake failed or the peer fell silent (idle timeout).
    Failed(WwpFailure),
}

impl WwpState {
    /// The state's name in reports and result columns (`handshaking`, `established`,
    /// `closed`, `failed`).
    pub const fn name(self) -> &'static str {
        match self {
            WwpState::Handshaking => "handshaking",
            WwpState::Established => "established",
            WwpState::Closed => "closed",
            WwpState::Failed(_) => "failed",
        }
    }
}

/// Why a connection failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WwpFailure {
    /// The handshake ended without a connection.
    Handshake(HandshakeFailure),
    /// Nothing arrived from the peer for the idle timeout.
    Idle,
}

/// Something the application may want to react to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WwpEvent {
    /// The handshake finished.
    Connected,
    /// In-order data is ready for `read`.
    Readable,
    /// The sender buffer has room again.
    Writable,
    /// The peer's FIN arrived and all its data has been read.
    PeerFinished,
    /// Both directions are finished.
    Closed,
    /// The connection failed.
    Failed,
}

const EV_CONNECTED: u8 = 1;
const EV_READABLE: u8 = 2;
const EV_WRITABLE: u8 = 4;
const EV_PEER_FIN: u8 = 8;
const EV_CLOSED: u8 = 16;
const EV_FAILED: u8 = 32;

/// A segment [`WwpEndpoint::poll_segment`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Its type.
    pub kind: WwpType,
    /// Bytes written to the buffer (header + payload).
    pub len: usize,
}

/// One WWP endpoint, driven by its host (no I/O, no clock) through the [`Engine`] contract.
///
/// Feed received datagrams to [`Engine::handle_datagram`] (or bytes to
/// [`handle_segment`](Self::handle_segment)), call [`Engine::poll_transmit`] (or
/// [`poll_segment`](Self::poll_segment), which also says the segment's type) until it returns
/// `None` after every input, sleep until [`Engine::poll_timeout`] and call
/// [`Engine::handle_timeout`]; move data with [`write`](Self::write) / [`read`](Self::read) and
/// drain [`Engine::poll_event`].
#[derive(Clone, Debug)]
pub struct WwpEndpoint {
    cfg: WwpConfig,
    hs: Handshake,
    sender: Sender,
    receiver: Receiver,
    out: Outbox,
    stats: WwpStats,
    state: WwpState,
    last_heard: Time,
    events: u8,
    peer_fin_reported: bool,
}

impl WwpEndpoint {
    fn new(cfg: WwpConfig, hs: Handshake, isn: u16, now: Time, out: Outbox) -> Result<Self, WwpConfigError> {
        cfg.validate()?;
        Ok(WwpEndpoint {
            sender: Sender::new(&cfg, isn),
            receiver: Receiver::new(&cfg),
            cfg,
            hs,
            out,
            stats: WwpStats::default(),
            state: WwpState::Handshaking,
            last_heard: now,
            events: 0,
            peer_fin_reported: false,
        })
    }

    /// Active open (the paper's A): the SYN is ready in `poll_transmit`. `isn` is our 12-bit
    /// initial sequence number (clock-based, chosen by the host).
    pub fn connect(cfg: WwpConfig, isn: u16, now: Time) -> Result<Self, WwpConfigError> {
        let mut out = Outbox::default();
        let hs = Handshake::connect(isn, now, &cfg, &mut out);
        WwpEndpoint::new(cfg, hs, isn, now, out)
    }

    /// Passive open (the paper's B): wait for a SYN.
    pub fn listen(cfg: WwpConfig, isn: u16, now: Time) -> Result<Self, WwpConfigError> {
        WwpEndpoint::new(cfg, Handshake::listen(isn), isn, now, Outbox::default())
    }

    /// The configuration.
    pub fn config(&self) -> &WwpConfig {
        &self.cfg
    }

    /// Connection state.
    pub fn state(&self) -> WwpState {
        self.state
    }

    /// Handshake state.
    pub fn handshake_state(&self) -> HandshakeState {
        self.hs.state()
    }

    /// Sender state (waves, pause, probing, FIN).
    pub fn send_state(&self) -> SendState {
        self.sender.state()
    }

    /// The level the latest feedback gave our sender.
    pub fn send_level(&self) -> u8 {
        self.sender.level()
    }

    /// Our receiving half (waves, NACK list, BT).
    pub fn receiver(&self) -> &Receiver {
        &self.receiver
    }

    /// Counters.
    pub fn stats(&self) -> &WwpStats {
        &self.stats
    }

    /// Buffer application data (1 KB per segment); returns the bytes taken (the rest waits
    /// for room: the paper's semaphore flow control).
    pub fn write(&mut self, data: &[u8]) -> usize {
        if matches!(self.state, WwpState::Failed(_)) {
            return 0;
        }
        self.sender.write(data)
    }

    /// Bytes `write` would take now.
    pub fn writable(&self) -> usize {
        self.sender.free_bytes()
    }

    /// No more data from us: the last segment may be short, and FIN follows.
    pub fn close(&mut self) {
        self.sender.close();
    }

    /// Read in-order data; returns the bytes copied.
    pub fn read(&mut self, buf: &mut [u8]) -> usize {
        let n = self.receiver.read(buf, &mut self.stats);
        self.update_closed();
        n
    }

    /// In-order bytes waiting for `read`.
    pub fn readable(&self) -> usize {
        self.receiver.readable()
    }

    /// Whether the peer finished and all its data was read.
    pub fn peer_finished(&self) -> bool {
        self.receiver.peer_finished()
    }

    /// Decode `bytes` and handle the segment; undecodable bytes are counted and returned as
    /// the error.
    pub fn handle_segment(&mut self, now: Time, bytes: &[u8]) -> Result<(), WireError> {
        match decode_wwp(bytes) {
            Ok(seg) => {
                self.handle_decoded(now, &seg);
                Ok(())
            }
            Err(e) => {
                self.stats.bad_segments += 1;
                Err(e)
            }
        }
    }

    /// Handle an already decoded segment.
    pub fn handle_decoded(&mut self, now: Time, seg: &WwpSegment<'_>) {
        let h = seg.header;
        if h.dst_port != self.cfg.local_port || h.src_port != self.cfg.remote_port {
            self.stats.bad_segments += 1;
            return;
        }
        if matches!(self.state, WwpState::Failed(_)) {
            return;
        }
        self.stats.on_received(h.kind, seg.wire_len());
        self.last_heard = now;
        match h.kind {
            WwpType::Syn | WwpType::SynAck1 | WwpType::SynAck2 | WwpType::DWait => {
                let outcome = self.hs.on_segment(now, &h, &self.cfg, &mut self.out);
                self.on_handshake(now, outcome);
                return;
            }
            _ if self.state == WwpState::Handshaking => return,
            _ => {}
        }
        self.hs.on_data_phase();
        let cfg = &self.cfg;
        match h.kind {
            WwpType::Data => {
                let before = self.receiver.readable();
                self.receiver.on_data(now, h.seq, h.level, h.wave_id, seg.payload, cfg, &mut self.out, &mut self.stats);
                if self.receiver.readable() > before {
                    self.events |= EV_READABLE;
                }
            }
            WwpType::Probe1 => self.receiver.on_probe1(now, h.seq, h.wave_id, cfg, &mut self.out, &mut self.stats),
            WwpType::Probe2 => self.receiver.on_probe2(now, h.seq, h.wave_id, cfg, &mut self.out, &mut self.stats),
            WwpType::Fin => self.receiver.on_fin(now, h.seq, cfg, &mut self.out, &mut self.stats),
            WwpType::NsAck | WwpType::PsAck => {
                let free = self.sender.free_bytes();
                if !self.sender.on_feedback(h.kind, h.seq, h.level, h.wave_id, seg.nack_list(), now, cfg) {
                    self.stats.stale_ignored += 1;
                } else if self.sender.free_bytes() > free {
                    self.events |= EV_WRITABLE;
                }
            }
            WwpType::ProbeAck if !self.sender.on_probe_ack(h.seq, now, cfg, &mut self.out) => {
                self.stats.stale_ignored += 1;
            }
            WwpType::FinAck => {
                self.sender.on_fin_ack();
            }
            _ => {}
        }
        self.update_closed();
    }

    fn on_handshake(&mut self, now: Time, outcome: HandshakeOutcome) {
        match outcome {
            HandshakeOutcome::Nothing => {}
            HandshakeOutcome::Established { level, peer_isn } => {
                if self.state != WwpState::Handshaking {
                    return;
                }
                let own_wid = (self.sender_isn() as u8) & 0x3f;
                self.sender.establish(level, own_wid, now, &self.cfg);
                self.receiver.establish(peer_isn, (peer_isn as u8) & 0x3f, self.hs.rtt_min());
                self.state = WwpState::Established;
                self.events |= EV_CONNECTED;
            }
            HandshakeOutcome::Failed(why) => self.fail(WwpFailure::Handshake(why)),
        }
    }

    fn sender_isn(&self) -> u16 {
        self.sender.isn()
    }

    fn fail(&mut self, why: WwpFailure) {
        if !matches!(self.state, WwpState::Failed(_) | WwpState::Closed) {
            self.state = WwpState::Failed(why);
            self.events |= EV_FAILED;
        }
    }

    fn update_closed(&mut self) {
        if self.receiver.peer_finished() && !self.peer_fin_reported {
            self.peer_fin_reported = true;
            self.events |= EV_PEER_FIN;
        }
        if self.state == WwpState::Established && self.sender.state() == SendState::Done && self.receiver.peer_finished() {
            self.state = WwpState::Closed;
            self.events |= EV_CLOSED;
        }
    }

    /// Write the next segment to send into `buf` (cleared first) and say its type and length.
    /// Call until `None` ([`Engine::poll_transmit`] is this without the type).
    pub fn poll_segment(&mut self, now: Time, buf: &mut Vec<u8>) -> Option<Transmit> {
        // A failed endpoint still flushes what it queued (B's D_WAIT with level 0).
        let ports = (self.cfg.local_port, self.cfg.remote_port);
        if self.out.is_empty() && self.state == WwpState::Established {
            if let Some(len) = self.sender.poll_data(now, &self.cfg, ports, &mut self.out, &mut self.stats, buf) {
                self.stats.on_sent(WwpType::Data, len, true);
                return Some(Transmit { kind: WwpType::Data, len });
            }
        }
        let ctl = self.out.pop()?;
        let header = WwpHeader {
            src_port: ports.0,
            dst_port: ports.1,
            seq: ctl.seq,
            kind: ctl.kind,
            level: ctl.level,
            wave_id: ctl.wave_id,
        };
        buf.clear();
        buf.extend_from_slice(&header.to_bytes_unchecked());
        if ctl.kind.carries_nack_list() {
            pack_nack_list(self.receiver.nack_wire().iter().copied(), buf);
        }
        let len = finish_wwp(buf);
        debug_assert!(len >= WWP_HEADER_LEN);
        let as_sender = match ctl.kind {
            WwpType::Data | WwpType::Probe1 | WwpType::Probe2 | WwpType::Fin => true,
            WwpType::Syn | WwpType::SynAck1 | WwpType::SynAck2 | WwpType::DWait => self.hs.is_active(),
            _ => false,
        };
        self.stats.on_sent(ctl.kind, len, as_sender);
        Some(Transmit { kind: ctl.kind, len })
    }
}

impl Engine for WwpEndpoint {
    type Event = WwpEvent;

    const PROTOCOL: &'static str = "wwp";

    /// A WWP segment arrived (WWP has no addresses of its own: the ports in its header say whose
    /// it is, and a segment for other ports is counted in `bad_segments`).
    fn handle_datagram(&mut self, now: Time, _from: Endpoint, bytes: &[u8]) -> Result<(), Refused> {
        self.handle_segment(now, bytes).map_err(|_| Refused::Malformed)
    }

    fn poll_transmit(&mut self, now: Time, buf: &mut Vec<u8>) -> Option<engine::Transmit> {
        self.poll_segment(now, buf).map(|t| engine::Transmit { to: None, len: t.len })
    }

    /// The earliest instant `handle_timeout` has work.
    fn poll_timeout(&mut self) -> Option<Time> {
        if matches!(self.state, WwpState::Failed(_) | WwpState::Closed) {
            return None;
        }
        let idle = match (self.state, self.cfg.idle_timeout) {
            (WwpState::Established, Some(d)) => Some(self.last_heard + d),
            _ => None,
        };
        [self.hs.deadline(), self.sender.deadline(), self.receiver.deadline(), idle]
            .into_iter()
            .flatten()
            .min()
    }

    /// Run the timers due at `now`.
    fn handle_timeout(&mut self, now: Time) {
        if matches!(self.state, WwpState::Failed(_) | WwpState::Closed) {
            return;
        }
        if self.hs.deadline().is_some_and(|t| now >= t) {
            let outcome = self.hs.on_timeout(now, &self.cfg, &mut self.out);
            self.on_handshake(now, outcome);
        }
        if self.state != WwpState::Established {
            return;
        }
        if self.cfg.idle_timeout.is_some_and(|d| now >= self.last_heard + d) {
            self.fail(WwpFailure::Idle);
            return;
        }
        self.sender.on_timeout(now, &self.cfg, &mut self.out, &mut self.stats);
        self.receiver.on_timeout(now, &self.cfg, &mut self.out, &mut self.stats);
    }

    fn poll_event(&mut self) -> Option<WwpEvent> {
        const ORDER: [(u8, WwpEvent); 6] = [
            (EV_CONNECTED, WwpEvent::Connected),
            (EV_FAILED, WwpEvent::Failed),
            (EV_READABLE, WwpEvent::Readable),
            (EV_WRITABLE, WwpEvent::Writable),
            (EV_PEER_FIN, WwpEvent::PeerFinished),
            (EV_CLOSED, WwpEvent::Closed),
        ];
        let (bit, ev) = ORDER.into_iter().find(|(b, _)| self.events & b != 0)?;
        self.events &= !bit;
        Some(ev)
    }

    /// Segments refused (undecodable, other ports) or dropped beyond the receiver buffer.
    fn discarded(&self) -> u64 {
        self.stats.dropped_segments + self.stats.bad_segments
    }
}
