//! The PS-TP daemon on the AP (sans-IO): PS-TP towards the mobiles, an abstract TCP
//! connection per transfer towards the fixed hosts.
//!
//! The daemon only answers: every message it sends carries the sequence number of the mobile
//! request it answers, at once or, for a request answered "pending" by an ACK (no estimate
//! yet, FH not connected yet), later when the answer exists. It never retransmits; the mobile
//! does. Its only timers drop abandoned and finished transfers.
//!
//! The host drives it as every [`Engine`]:
//! - PS-TP datagrams from a mobile → `handle_datagram`; datagrams to send ← `poll_transmit`
//!   (each with its destination: the daemon answers whoever wrote);
//! - events ← `poll_event`: FH commands first ([`DaemonEvent::Fh`]: [`FhCommand::Open`],
//!   `Close`, `Abort`), then observations, then [`DaemonEvent::Input`] after datagrams (a
//!   send's relay bytes may wait); the FH connection's life → `handle_fh_connected` /
//!   `handle_fh_data` / `handle_fh_acked` / `handle_fh_closed` / `handle_fh_aborted`; relay
//!   bytes to write ← `fh_outgoing` and `fh_written`;
//! - timers: `poll_timeout` / `handle_timeout`.

use std::collections::{BTreeMap, VecDeque};
use std::net::Ipv4Addr;

mod fh;

use super::config::{DaemonConfig, PsnaConfigError};
use super::estimator::Sample;
use super::transfer::{Direction, Phase, Reply, Transfer};
use crate::engine::{self, Engine, Refused};
use crate::packet::Endpoint;
use crate::time::{Duration, Time};
use crate::wire::pstp::{decode_pstp, encode_pstp, PstpBody, PstpErrorCode, PstpMessage, PstpRequest};

/// The daemon's name for one transfer's TCP connection to the fixed host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FhId(pub u64);

/// What the host must do with a fixed-host connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FhCommand {
    /// Open a TCP connection to `addr:port` for `object` (for a read the host asks the FH for
    /// it in whatever way its application protocol does).
    Open {
        /// The connection's id in later calls.
        fh: FhId,
        /// Fixed host address.
        addr: Ipv4Addr,
        /// Fixed host port.
        port: u16,
        /// Object name from the request.
        object: String,
        /// Read or send.
        dir: Direction,
        /// Announced size, if any.
        size: Option<u64>,
    },
    /// Close gracefully: the object is complete (read), or every relay byte has been handed
    /// over with [`PsnaDaemon::fh_written`] (send; FIN after the data).
    Close(FhId),
    /// Reset the connection: the transfer failed or was abandoned.
    Abort(FhId),
}

/// What the daemon tells its host: a command for the fixed-host side, or something the host
/// may record (the reproduction's extra metrics).
#[derive(Clone, Debug, PartialEq)]
pub enum DaemonEvent {
    /// Act on a fixed-host connection (open, close, abort).
    Fh(FhCommand),
    /// Datagrams arrived since the last time: a send's relay bytes may wait in
    /// [`PsnaDaemon::fh_outgoing`].
    Input,
    /// A mobile started a transfer.
    Started {
        /// Its FH connection.
        fh: FhId,
        /// The mobile.
        peer: Endpoint,
        /// Direction.
        dir: Direction,
    },
    /// The estimator took a sample.
    Sampled {
        /// The connection.
        fh: FhId,
        /// The sample and the estimate after it.
        sample: Sample,
    },
    /// A Residual_Time was sent (0 = ready / done).
    Residual {
        /// The connection.
        fh: FhId,
        /// When.
        at: Time,
        /// The residual time announced.
        residual: Duration,
        /// Bytes the FH leg still had to move.
        remaining: u64,
    },
    /// A read's object is entirely at the AP, or a send's entirely acknowledged by the FH.
    FhComplete {
        /// The connection.
        fh: FhId,
        /// When.
        at: Time,
    },
    /// The mobile confirmed it has the whole object (read) or was told it was delivered.
    Completed {
        /// The connection.
        fh: FhId,
        /// When.
        at: Time,
    },
    /// The transfer failed.
    Failed {
        /// The connection.
        fh: FhId,
        /// Why.
        code: PstpErrorCode,
    },
    /// An unfinished transfer was dropped: the mobile was silent for `abandon_after`.
    Abandoned {
        /// The connection.
        fh: FhId,
    },
}

type Key = (Endpoint, u32);

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DaemonStats {
    /// Datagrams that did not decode.
    pub bad_datagrams: u64,
    /// Requests older than the transfer's latest, ignored.
    pub stale: u64,
    /// Polls answered.
    pub polls: u64,
    /// DATA messages sent (downloads).
    pub data_sent: u64,
}

/// The AP daemon, driven by its host (no I/O, no clock).
#[derive(Clone, Debug)]
pub struct PsnaDaemon {
    cfg: DaemonConfig,
    transfers: BTreeMap<Key, (FhId, Transfer)>,
    by_fh: BTreeMap<FhId, Key>,
    next_fh: u64,
    out: VecDeque<(Endpoint, Vec<u8>)>,
    spare: Vec<Vec<u8>>,
    fh_cmds: VecDeque<FhCommand>,
    events: VecDeque<DaemonEvent>,
    input: bool,
    stats: DaemonStats,
}

impl PsnaDaemon {
    /// A daemon with no transfers.
    pub fn new(cfg: DaemonConfig) -> Result<Self, PsnaConfigError> {
        cfg.validate()?;
        Ok(PsnaDaemon {
            cfg,
            transfers: BTreeMap::new(),
            by_fh: BTreeMap::new(),
            next_fh: 1,
            out: VecDeque::new(),
            spare: Vec::new(),
            fh_cmds: VecDeque::new(),
            events: VecDeque::new(),
            input: false,
            stats: DaemonStats::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &DaemonConfig {
        &self.cfg
    }

    /// Counters.
    pub fn stats(&self) -> &DaemonStats {
        &self.stats
    }

    /// Transfers held (active, failed or lingering).
    pub fn transfers(&self) -> usize {
        self.transfers.len()
    }

    /// The transfer behind a connection.
    pub fn transfer(&self, fh: FhId) -> Option<&Transfer> {
        self.by_fh.get(&fh).and_then(|k| self.transfers.get(k)).map(|(_, t)| t)
    }

    fn send(&mut self, to: Endpoint, transfer: u32, seq: u32, body: PstpBody<'_>) {
        let mut buf = self.spare.pop().unwrap_or_default();
        let msg = PstpMessage { transfer, seq, body };
        if encode_pstp(&msg, &mut buf).is_ok() {
            self.out.push_back((to, buf));
        }
    }

    fn reply(&mut self, now: Time, key: Key, seq: u32, reply: Reply) {
        let Some((fh, t)) = self.transfers.get(&key) else { return };
        let fh = *fh;
        let (peer, id) = key;
        match reply {
            Reply::Ack(o) => self.send(peer, id, seq, PstpBody::Ack { offset: o }),
            Reply::OkToSend(o) => self.send(peer, id, seq, PstpBody::OkToSend { offset: o }),
            Reply::Residual(ms, size) => {
                let remaining = if t.fh_done { 0 } else { t.remaining() };
                let residual = Duration::from_millis(u64::from(ms));
                self.events.push_back(DaemonEvent::Residual { fh, at: now, residual, remaining });
                self.send(peer, id, seq, PstpBody::ResidualTime { residual_ms: ms, size });
                if ms == 0 {
                    self.note_send_done(now, key);
                }
            }
            Reply::Data(o) => {
                let (buf, chunk) = (&t.buf, usize::from(self.cfg.chunk_size));
                let from = (o as usize).min(buf.len());
                let payload = buf[from..(from + chunk).min(buf.len())].to_vec();
                self.stats.data_sent += 1;
                self.send(peer, id, seq, PstpBody::Data { offset: from as u64, payload: &payload });
            }
            Reply::Error(c) => self.send(peer, id, seq, PstpBody::Error(c)),
        }
    }

    /// Answer `seq` with the transfer's status, or ACK it as pending and owe the answer.
    fn answer_status(&mut self, now: Time, key: Key, seq: u32) {
        let Some((_, t)) = self.transfers.get_mut(&key) else { return };
        match t.status(&self.cfg) {
            Some(r) => {
                t.waiting = None;
                self.reply(now, key, seq, r);
            }
            None => {
                t.waiting = Some(seq);
                let p = t.progress();
                self.reply(now, key, seq, Reply::Ack(p));
            }
        }
    }

    /// Send an owed answer if it now exists.
    fn push_owed(&mut self, now: Time, key: Key) {
        let Some((_, t)) = self.transfers.get_mut(&key) else { return };
        let Some(seq) = t.waiting else { return };
        if let Some(r) = t.status(&self.cfg) {
            t.waiting = None;
            self.reply(now, key, seq, r);
        }
    }

    /// Handle an already decoded message from `from`.
    pub fn handle_message(&mut self, now: Time, from: Endpoint, msg: &PstpMessage<'_>) {
        let key = (from, msg.transfer);
        let seq = msg.seq;
        match (msg.body, self.transfers.contains_key(&key)) {
            (PstpBody::ReadReq(r), false) => return self.start(now, key, seq, Direction::Read, &r),
            (PstpBody::SendReq(r), false) => return self.start(now, key, seq, Direction::Send, &r),
            (_, false) => return self.send(from, msg.transfer, seq, PstpBody::Error(PstpErrorCode::UnknownTransfer)),
            _ => {}
        }
        let Some((fh, t)) = self.transfers.get_mut(&key) else { return };
        let fh = *fh;
        if seq < t.last_seq {
            self.stats.stale += 1;
            return;
        }
        if seq > t.last_seq {
            t.last_seq = seq;
            t.waiting = None;
        }
        t.last_heard = now;
        if matches!(t.phase, Phase::Failed(_)) {
            return self.answer_status(now, key, seq);
        }
        match (msg.body, t.dir) {
            (PstpBody::ReadReq(_), Direction::Read) | (PstpBody::SendReq(_), Direction::Send) | (PstpBody::Poll, _) => {
                self.stats.polls += u64::from(matches!(msg.body, PstpBody::Poll));
                self.answer_status(now, key, seq);
            }
            (PstpBody::Data { offset, payload }, Direction::Send) if t.fh_connected && t.phase == Phase::Active => {
                if let Err(code) = t.on_upload(offset, payload) {
                    self.fail(key, code);
                    return self.answer_status(now, key, seq);
                }
                if t.received < t.size.unwrap_or(0) {
                    let p = t.received;
                    self.reply(now, key, seq, Reply::Ack(p));
                } else {
                    self.answer_status(now, key, seq);
                }
            }
            (PstpBody::Ack { offset }, Direction::Read) if t.fh_done => {
                if offset >= t.received {
                    if t.phase == Phase::Active {
                        t.phase = Phase::Done;
                        t.done_at = Some(now);
                        t.buf = Vec::new();
                        self.events.push_back(DaemonEvent::Completed { fh, at: now });
                    }
                    let total = t.received;
                    self.reply(now, key, seq, Reply::Ack(total));
                } else if t.phase == Phase::Active {
                    self.reply(now, key, seq, Reply::Data(offset));
                }
            }
            (PstpBody::Data { .. } | PstpBody::Ack { .. }, _) => self.answer_status(now, key, seq),
            _ => self.reply(now, key, seq, Reply::Error(PstpErrorCode::BadRequest)),
        }
    }

    fn start(&mut self, now: Time, key: Key, seq: u32, dir: Direction, r: &PstpRequest<'_>) {
        if r.size.unwrap_or(0) > self.cfg.max_object {
            return self.send(key.0, key.1, seq, PstpBody::Error(PstpErrorCode::TooLarge));
        }
        let fh = FhId(self.next_fh);
        self.next_fh += 1;
        self.transfers.insert(key, (fh, Transfer::new(dir, r.size, seq, now, &self.cfg)));
        self.by_fh.insert(fh, key);
        let object = r.object.to_string();
        let (addr, port, size) = (r.fh_addr, r.fh_port, r.size);
        self.fh_cmds.push_back(FhCommand::Open { fh, addr, port, object, dir, size });
        self.events.push_back(DaemonEvent::Started { fh, peer: key.0, dir });
        self.answer_status(now, key, seq);
    }

    /// A send is done once the mobile has been told 0 (only then: a send whose FH finished
    /// while the mobile slept must stay until its next Poll).
    fn note_send_done(&mut self, now: Time, key: Key) {
        let Some((fh, t)) = self.transfers.get_mut(&key) else { return };
        if t.dir == Direction::Send && t.fh_done && t.phase == Phase::Active {
            t.phase = Phase::Done;
            t.done_at = Some(now);
            t.buf = Vec::new();
            self.events.push_back(DaemonEvent::Completed { fh: *fh, at: now });
        }
    }

    fn fail(&mut self, key: Key, code: PstpErrorCode) {
        let Some((fh, t)) = self.transfers.get_mut(&key) else { return };
        if t.fail(code) {
            self.fh_cmds.push_back(FhCommand::Abort(*fh));
            self.events.push_back(DaemonEvent::Failed { fh: *fh, code });
        }
    }

    fn expiry(&self, t: &Transfer) -> Time {
        match t.done_at {
            Some(at) => at + self.cfg.linger,
            None => t.last_heard + self.cfg.abandon_after,
        }
    }

    /// Drop finished transfers after `linger` and silent ones after `abandon_after`.
    fn on_timeout(&mut self, now: Time) {
        let due: Vec<Key> =
            self.transfers.iter().filter(|(_, (_, t))| self.expiry(t) <= now).map(|(k, _)| *k).collect();
        for key in due {
            if let Some((fh, t)) = self.transfers.remove(&key) {
                self.by_fh.remove(&fh);
                if t.phase == Phase::Active {
                    self.fh_cmds.push_back(FhCommand::Abort(fh));
                    self.events.push_back(DaemonEvent::Abandoned { fh });
                }
            }
        }
    }
}

impl Engine for PsnaDaemon {
    type Event = DaemonEvent;

    const PROTOCOL: &'static str = "pstp";

    /// A datagram from the mobile at `from`: decoded and handled (an undecodable one is
    /// counted in `bad_datagrams`); either way [`DaemonEvent::Input`] follows.
    fn handle_datagram(&mut self, now: Time, from: Endpoint, bytes: &[u8]) -> Result<(), Refused> {
        self.input = true;
        let msg = decode_pstp(bytes).map_err(|_| {
            self.stats.bad_datagrams += 1;
            Refused::Malformed
        })?;
        self.handle_message(now, from, &msg);
        Ok(())
    }

    /// The next answer, to the mobile that asked.
    fn poll_transmit(&mut self, _now: Time, buf: &mut Vec<u8>) -> Option<engine::Transmit> {
        let (to, mut bytes) = self.out.pop_front()?;
        std::mem::swap(buf, &mut bytes);
        self.spare.push(bytes);
        Some(engine::Transmit { to: Some(to), len: buf.len() })
    }

    fn poll_timeout(&mut self) -> Option<Time> {
        self.transfers.values().map(|(_, t)| self.expiry(t)).min()
    }

    fn handle_timeout(&mut self, now: Time) {
        self.on_timeout(now);
    }

    /// FH commands first, then observations, then [`DaemonEvent::Input`] once per batch of
    /// datagrams.
    fn poll_event(&mut self) -> Option<DaemonEvent> {
        if let Some(c) = self.fh_cmds.pop_front() {
            return Some(DaemonEvent::Fh(c));
        }
        if let Some(e) = self.events.pop_front() {
            return Some(e);
        }
        std::mem::take(&mut self.input).then_some(DaemonEvent::Input)
    }

    fn discarded(&self) -> u64 {
        self.stats.bad_datagrams
    }
}
