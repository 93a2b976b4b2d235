//! The mobile host's PS-TP side and power management (sans-IO): the read loop of Fig. 8 and
//! the send loop of Fig. 9, with the radio switched by [`RadioCommand`]s the host applies.
//!
//! Read: radio on, READ_REQ; stay on until the first Residual_Time; while it is > 0: off for
//! Residual_Time, on, Poll; at 0: the burst download (ACK offset → DATA, stop-and-wait); off.
//! Send: radio on, SEND_REQ; OK_TO_SEND; the burst upload (DATA → ACK); Residual_Time loop as
//! above until 0; off. Every request is retransmitted after `rto`, at most `max_retries`
//! times, then the transfer fails with [`MobileError::NoResponse`]; an ERROR from the daemon
//! fails it with [`MobileError::Daemon`]. Either way the radio ends off.

use std::collections::VecDeque;

use super::config::{MobileConfig, PsnaConfigError};
use super::request::{Outstanding, RequestKind};
use crate::engine::{self, Engine, Refused};
use crate::packet::Endpoint;
use crate::time::{Duration, Time};
use crate::wire::pstp::{decode_pstp, PstpBody, PstpMessage, PstpRequest, PSTP_MAX_NAME};

mod types;

pub use super::transfer::Direction;
pub use types::{MobileError, MobileEvent, MobileState, MobileStats, RadioCommand};

#[derive(Clone, Debug)]
struct Job {
    id: u32,
    dir: Direction,
    data: Vec<u8>,
    size: Option<u64>,
    wait_since: Option<Time>,
}

/// The mobile host's PSNA engine: one transfer at a time, driven by its host.
#[derive(Clone, Debug)]
pub struct PsnaMobile {
    cfg: MobileConfig,
    next_id: u32,
    seq: u32,
    job: Option<Job>,
    req: Option<Outstanding>,
    state: MobileState,
    wake_at: Option<Time>,
    radio_on: bool,
    radio: VecDeque<RadioCommand>,
    events: VecDeque<MobileEvent>,
    finished: Option<Vec<u8>>,
    stats: MobileStats,
}

impl PsnaMobile {
    /// A mobile whose first transfer id is `first_id` (random in live use, so a restarted
    /// mobile does not reuse a lingering id); `radio_on` is the card's state now.
    pub fn new(cfg: MobileConfig, first_id: u32, radio_on: bool) -> Result<Self, PsnaConfigError> {
        cfg.validate()?;
        Ok(PsnaMobile {
            cfg,
            next_id: first_id,
            seq: 0,
            job: None,
            req: None,
            state: MobileState::Idle,
            wake_at: None,
            radio_on,
            radio: VecDeque::new(),
            events: VecDeque::new(),
            finished: None,
            stats: MobileStats::default(),
        })
    }

    /// "Read object `object` from host `fh`" (`size` if the application knows it).
    pub fn read(&mut self, now: Time, fh: Endpoint, object: &str, size: Option<u64>) -> Result<u32, MobileError> {
        self.start(now, fh, object, Direction::Read, size, Vec::new())
    }

    /// "Send object `object` (`data`) to host `fh`".
    pub fn send(&mut self, now: Time, fh: Endpoint, object: &str, data: Vec<u8>) -> Result<u32, MobileError> {
        let size = Some(data.len() as u64);
        self.start(now, fh, object, Direction::Send, size, data)
    }

    fn start(&mut self, now: Time, fh: Endpoint, object: &str, dir: Direction, size: Option<u64>, data: Vec<u8>) -> Result<u32, MobileError> {
        if self.job.is_some() {
            return Err(MobileError::Busy);
        }
        if object.len() > PSTP_MAX_NAME {
            return Err(MobileError::NameTooLong);
        }
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.job = Some(Job { id, dir, data, size, wait_since: None });
        self.finished = None;
        self.set_radio(now, true);
        let r = PstpRequest { fh_addr: fh.addr, fh_port: fh.port, size, object };
        let body = if dir == Direction::Read { PstpBody::ReadReq(r) } else { PstpBody::SendReq(r) };
        self.request(now, RequestKind::Open, body);
        Ok(id)
    }

    /// The configuration.
    pub fn config(&self) -> &MobileConfig {
        &self.cfg
    }
    /// Where the mobile stands.
    pub fn state(&self) -> MobileState {
        self.state
    }
    /// Whether the card is on (after the commands emitted so far).
    pub fn radio_on(&self) -> bool {
        self.radio_on
    }
    /// The card's state now, when something other than this mobile switched it (another
    /// transfer's mobile on the same host): the next transfer switches it on if it is off.
    /// Ignored during a transfer (this mobile then owns the card).
    pub fn card_is(&mut self, on: bool) {
        if self.job.is_none() {
            self.radio_on = on;
        }
    }
    /// Counters.
    pub fn stats(&self) -> &MobileStats {
        &self.stats
    }
    /// The object of the last completed read.
    pub fn take_object(&mut self) -> Option<Vec<u8>> {
        self.finished.take()
    }
    /// True if a radio-on command waits in the events: the datagram it precedes is held back
    /// until the host has polled it (and switched the card on).
    fn radio_on_pending(&self) -> bool {
        self.radio.iter().any(|c| c.on)
    }

    fn set_radio(&mut self, now: Time, on: bool) {
        if self.radio_on != on {
            self.radio_on = on;
            self.radio.push_back(RadioCommand { at: now, on });
        }
    }

    fn request(&mut self, now: Time, kind: RequestKind, body: PstpBody<'_>) {
        let Some(id) = self.job.as_ref().map(|j| j.id) else { return };
        self.seq = self.seq.wrapping_add(1);
        self.stats.requests += 1;
        self.stats.polls += u64::from(kind == RequestKind::Poll);
        let reuse = self.req.take().map(|r| r.bytes).unwrap_or_default();
        self.req = Some(Outstanding::new(kind, id, self.seq, body, now, &self.cfg, reuse));
        self.state = MobileState::Requesting;
        self.wake_at = None;
    }

    /// Run the timer due at `now`: a retransmission, a poll, or the end of a sleep.
    fn on_timeout(&mut self, now: Time) {
        if let Some(r) = self.req.as_mut().filter(|r| now >= r.deadline) {
            if r.on_timeout(now, &self.cfg) {
                self.stats.retransmissions += 1;
            } else {
                let (kind, tries) = (r.kind, r.retries + 1);
                if kind == RequestKind::Final {
                    return self.finish(now); // the object is complete; only the courtesy ACK is lost
                }
                self.fail(now, MobileError::NoResponse { what: kind.name(), tries });
            }
            return;
        }
        let Some(at) = self.wake_at.filter(|t| now >= *t) else { return };
        self.wake_at = None;
        match self.state {
            MobileState::WaitingOn => {
                let since = self.job.as_ref().and_then(|j| j.wait_since).unwrap_or(now);
                if now - since >= self.cfg.max_wait_on {
                    // No estimate in max_wait_on: sleep as long as we waited, then poll.
                    let d = now - since;
                    return self.sleep(now, d);
                }
                self.poll(now);
            }
            MobileState::Sleeping(_) => {
                self.set_radio(now, true);
                if self.cfg.resume_delay > Duration::ZERO {
                    self.state = MobileState::Resuming(now + self.cfg.resume_delay);
                    self.wake_at = Some(now + self.cfg.resume_delay);
                } else {
                    self.poll(now);
                }
            }
            MobileState::Resuming(_) => self.poll(now),
            _ => debug_assert!(false, "timer at {at:?} in {:?}", self.state),
        }
    }

    fn poll(&mut self, now: Time) {
        self.request(now, RequestKind::Poll, PstpBody::Poll);
    }

    fn sleep(&mut self, now: Time, d: Duration) {
        if let Some(j) = self.job.as_mut() {
            j.wait_since = None;
        }
        self.req = None;
        if d >= self.cfg.min_sleep {
            self.stats.sleeps += 1;
            self.set_radio(now, false);
        }
        self.state = MobileState::Sleeping(now + d);
        self.wake_at = Some(now + d);
    }

    fn wait_on(&mut self, now: Time) {
        self.req = None;
        let job = self.job.as_mut().expect("waiting needs a transfer");
        let since = *job.wait_since.get_or_insert(now);
        self.state = MobileState::WaitingOn;
        self.wake_at = Some((now + self.cfg.wait_poll_interval).min(since + self.cfg.max_wait_on));
    }

    fn finish(&mut self, now: Time) {
        let Some(job) = self.job.take() else { return };
        self.req = None;
        self.wake_at = None;
        self.state = MobileState::Idle;
        self.set_radio(now, false);
        let bytes = job.data.len() as u64;
        if job.dir == Direction::Read {
            self.finished = Some(job.data);
        }
        self.events.push_back(MobileEvent::Completed { transfer: job.id, bytes });
    }

    fn fail(&mut self, now: Time, error: MobileError) {
        let Some(job) = self.job.take() else { return };
        self.req = None;
        self.wake_at = None;
        self.state = MobileState::Idle;
        self.set_radio(now, false);
        self.events.push_back(MobileEvent::Failed { transfer: job.id, error });
    }

    /// Handle a decoded message from the daemon. Only an answer to the latest request counts.
    pub fn handle_message(&mut self, now: Time, msg: &PstpMessage<'_>) {
        let Some(job) = &self.job else { return self.stats.ignored += 1 };
        let listening = matches!(self.state, MobileState::Requesting | MobileState::WaitingOn);
        if msg.transfer != job.id || msg.seq != self.seq || !self.radio_on || !listening {
            return self.stats.ignored += 1;
        }
        let kind = self.req.as_ref().map(|r| r.kind);
        let dir = job.dir;
        match msg.body {
            PstpBody::Error(code) => self.fail(now, MobileError::Daemon(code)),
            PstpBody::Ack { offset } => match kind {
                Some(RequestKind::Open | RequestKind::Poll) => self.wait_on(now),
                Some(RequestKind::Upload { .. }) => self.upload_from(now, offset),
                Some(RequestKind::Download { .. } | RequestKind::Final) if Some(offset) == job.size => self.finish(now),
                _ => self.stats.ignored += 1,
            },
            PstpBody::OkToSend { offset } if dir == Direction::Send && kind != Some(RequestKind::Final) => {
                if !matches!(kind, Some(RequestKind::Upload { .. })) {
                    self.upload_from(now, offset);
                }
            }
            PstpBody::ResidualTime { residual_ms, size } if !matches!(kind, Some(RequestKind::Download { .. } | RequestKind::Final)) => {
                let residual = Duration::from_millis(u64::from(residual_ms));
                self.events.push_back(MobileEvent::Residual { at: now, residual });
                match (residual_ms, dir) {
                    (0, Direction::Send) => self.finish(now),
                    (0, Direction::Read) => self.start_download(now, size),
                    _ => self.sleep(now, residual),
                }
            }
            PstpBody::Data { offset, payload } => self.on_data(now, offset, payload),
            _ => self.stats.ignored += 1,
        }
    }

    fn upload_from(&mut self, now: Time, offset: u64) {
        let chunk = u64::from(self.cfg.chunk_size);
        let Some(job) = self.job.as_mut() else { return };
        let size = job.data.len() as u64;
        if offset > size {
            return self.fail(now, MobileError::Protocol("ACK beyond the object"));
        }
        if offset == size {
            // The last DATA was answered by ACK: the Residual_Time is owed.
            return self.wait_on(now);
        }
        job.wait_since = None;
        let end = (offset + chunk).min(size);
        let payload = std::mem::take(&mut job.data);
        let body = PstpBody::Data { offset, payload: &payload[offset as usize..end as usize] };
        self.request(now, RequestKind::Upload { offset, len: end - offset }, body);
        if let Some(job) = self.job.as_mut() {
            job.data = payload;
        }
    }

    fn start_download(&mut self, now: Time, size: Option<u64>) {
        let Some(job) = self.job.as_mut() else { return };
        match (size, job.size) {
            (None, _) => return self.fail(now, MobileError::Protocol("ready without the object size")),
            (Some(s), Some(want)) if s != want => return self.fail(now, MobileError::Protocol("size differs from the request")),
            (Some(s), _) => job.size = Some(s),
        }
        job.wait_since = None;
        let offset = job.data.len() as u64;
        let kind = if Some(offset) == job.size { RequestKind::Final } else { RequestKind::Download { offset } };
        self.request(now, kind, PstpBody::Ack { offset });
    }

    fn on_data(&mut self, now: Time, offset: u64, payload: &[u8]) {
        let Some(RequestKind::Download { offset: want }) = self.req.as_ref().map(|r| r.kind) else {
            return self.stats.ignored += 1;
        };
        let Some(job) = self.job.as_mut() else { return };
        let size = job.size.unwrap_or(0);
        if offset != want || payload.is_empty() || offset + payload.len() as u64 > size {
            return self.fail(now, MobileError::Protocol("DATA out of place"));
        }
        job.data.extend_from_slice(payload);
        let got = job.data.len() as u64;
        let kind = if got == size { RequestKind::Final } else { RequestKind::Download { offset: got } };
        self.request(now, kind, PstpBody::Ack { offset: got });
    }
}

impl Engine for PsnaMobile {
    type Event = MobileEvent;

    const PROTOCOL: &'static str = "pstp";

    /// A datagram from the daemon (the mobile talks to one daemon; `from` is not checked).
    fn handle_datagram(&mut self, now: Time, _from: Endpoint, bytes: &[u8]) -> Result<(), Refused> {
        match decode_pstp(bytes) {
            Ok(msg) => {
                self.handle_message(now, &msg);
                Ok(())
            }
            Err(_) => {
                self.stats.bad_datagrams += 1;
                Err(Refused::Malformed)
            }
        }
    }

    /// The request to send to the daemon now; held back while a radio-on command waits in
    /// the events (the card must be on before the request leaves).
    fn poll_transmit(&mut self, _now: Time, buf: &mut Vec<u8>) -> Option<engine::Transmit> {
        if self.radio_on_pending() {
            return None;
        }
        let req = self.req.as_mut().filter(|r| r.due)?;
        req.due = false;
        buf.clear();
        buf.extend_from_slice(&req.bytes);
        Some(engine::Transmit { to: None, len: buf.len() })
    }

    fn poll_timeout(&mut self) -> Option<Time> {
        match &self.req {
            Some(r) => Some(r.deadline),
            None => self.wake_at,
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        self.on_timeout(now);
    }

    /// Radio commands first (in order), then the application's events.
    fn poll_event(&mut self) -> Option<MobileEvent> {
        if let Some(c) = self.radio.pop_front() {
            return Some(MobileEvent::Radio(c));
        }
        self.events.pop_front()
    }

    fn discarded(&self) -> u64 {
        self.stats.bad_datagrams
    }
}
