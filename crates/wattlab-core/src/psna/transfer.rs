//! One transfer at the AP daemon: its buffers (the whole object for a read, the relay buffer
//! for a send), its FH progress, its estimator, and what it answers the mobile.
//!
//! Residual time: remaining bytes / λ̄, in whole milliseconds rounded up (at least 1 ms, at
//! most `max_residual`; 0 is reserved for "ready / done"). Remaining is `size − received` for
//! a read and `size − acknowledged by the FH` for a send. A read of unknown size uses the
//! bytes received so far as its guess of what remains (the doubling rule of `docs/psna.md`).

use super::config::DaemonConfig;
use super::estimator::{Sample, ThroughputEstimator};
use crate::time::{Duration, Time};
use crate::wire::pstp::PstpErrorCode;

/// Which way the object moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// FH → AP → mobile ("Read from FH").
    Read,
    /// Mobile → AP → FH ("Send to FH").
    Send,
}

/// What the daemon answers a request with (encoded by the daemon).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// ACK with the in-order offset ("received, answer pending" or "upload progress").
    Ack(u64),
    /// OK_TO_SEND from the offset.
    OkToSend(u64),
    /// RESIDUAL_TIME in ms with the size if known.
    Residual(u32, Option<u64>),
    /// DATA of the read buffer from the offset.
    Data(u64),
    /// ERROR.
    Error(PstpErrorCode),
}

/// Where a transfer stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Moving data (FH connecting, fetching, relaying).
    Active,
    /// The mobile has the whole object (read) or was told it reached the FH (send).
    Done,
    /// Given up with this code.
    Failed(PstpErrorCode),
}

/// One transfer's state.
#[derive(Clone, Debug)]
pub struct Transfer {
    /// Direction.
    pub dir: Direction,
    /// Object size, if known.
    pub size: Option<u64>,
    /// Phase.
    pub phase: Phase,
    /// The TCP connection to the FH is open.
    pub fh_connected: bool,
    /// Read: the whole object is buffered; send: the FH acknowledged it all.
    pub fh_done: bool,
    /// Read: the object so far; send: relay bytes not yet written to the FH.
    pub buf: Vec<u8>,
    relay_head: usize,
    /// Read: bytes from the FH; send: bytes from the mobile.
    pub received: u64,
    /// Send: bytes the FH acknowledged.
    pub acked: u64,
    /// The estimator of the FH leg.
    pub est: ThroughputEstimator,
    /// The mobile's latest request number.
    pub last_seq: u32,
    /// A request answered "pending" whose real answer is owed.
    pub waiting: Option<u32>,
    /// When the mobile was last heard.
    pub last_heard: Time,
    /// When the transfer finished (success).
    pub done_at: Option<Time>,
}

impl Transfer {
    /// A new transfer requested at `now` by request `seq`.
    pub fn new(dir: Direction, size: Option<u64>, seq: u32, now: Time, cfg: &DaemonConfig) -> Self {
        Transfer {
            dir,
            size,
            phase: Phase::Active,
            fh_connected: false,
            fh_done: size == Some(0),
            buf: Vec::new(),
            relay_head: 0,
            received: 0,
            acked: 0,
            est: ThroughputEstimator::new(cfg.estimator.clone()),
            last_seq: seq,
            waiting: None,
            last_heard: now,
            done_at: None,
        }
    }

    /// Bytes still to move over the FH leg, by the rule in the module docs.
    pub fn remaining(&self) -> u64 {
        match (self.dir, self.size) {
            (Direction::Read, Some(s)) => s.saturating_sub(self.received),
            (Direction::Read, None) => self.received,
            (Direction::Send, s) => s.unwrap_or(0).saturating_sub(self.acked),
        }
    }

    /// The residual time to announce now, or None before the first estimate.
    pub fn residual(&self, cfg: &DaemonConfig) -> Option<Duration> {
        self.est.residual(self.remaining()).map(|d| d.min(cfg.max_residual))
    }

    /// The answer to a status request (READ_REQ, SEND_REQ, POLL, the last DATA); None while
    /// the answer is pending (no estimate yet, FH not connected).
    pub fn status(&self, cfg: &DaemonConfig) -> Option<Reply> {
        if let Phase::Failed(code) = self.phase {
            return Some(Reply::Error(code));
        }
        if self.fh_done || self.phase == Phase::Done {
            let size = if self.dir == Direction::Read { Some(self.received) } else { self.size };
            return Some(Reply::Residual(0, size));
        }
        if self.dir == Direction::Send {
            if !self.fh_connected {
                return None;
            }
            if self.received < self.size.unwrap_or(0) {
                return Some(Reply::OkToSend(self.received));
            }
        }
        let r = self.residual(cfg)?;
        let ms = r.as_nanos().div_ceil(1_000_000).clamp(1, u64::from(u32::MAX));
        Some(Reply::Residual(ms as u32, self.size))
    }

    /// The progress offset sent with a "pending" ACK.
    pub fn progress(&self) -> u64 {
        self.received
    }

    /// Give up with `code`; frees the buffers. False if already finished.
    pub fn fail(&mut self, code: PstpErrorCode) -> bool {
        if self.phase != Phase::Active {
            return false;
        }
        self.phase = Phase::Failed(code);
        self.buf = Vec::new();
        self.relay_head = 0;
        true
    }

    /// Read: `data` arrived from the FH at `now`; returns the sample it closed. Fails the
    /// transfer if the object grows past `max_object`.
    pub fn on_fh_data(&mut self, now: Time, data: &[u8], cfg: &DaemonConfig) -> Option<Sample> {
        if self.dir != Direction::Read || self.phase != Phase::Active || self.fh_done || data.is_empty() {
            return None;
        }
        let limit = self.size.unwrap_or(cfg.max_object);
        let take = (limit.saturating_sub(self.received)).min(data.len() as u64) as usize;
        if self.size.is_none() && take < data.len() {
            self.fail(PstpErrorCode::TooLarge);
            return None;
        }
        self.buf.extend_from_slice(&data[..take]);
        self.received += take as u64;
        if self.size == Some(self.received) {
            self.fh_done = true;
        }
        self.est.on_bytes(now, data.len() as u64)
    }

    /// Send: the FH acknowledged `n` more bytes at `now`.
    pub fn on_fh_acked(&mut self, now: Time, n: u64) -> Option<Sample> {
        if self.dir != Direction::Send || self.phase != Phase::Active || n == 0 {
            return None;
        }
        self.acked = (self.acked + n).min(self.received);
        if self.acked >= self.size.unwrap_or(0) {
            self.fh_done = true;
        }
        self.est.on_bytes(now, n)
    }

    /// Send: an upload chunk at `offset`; taken only in order and within the size.
    pub fn on_upload(&mut self, offset: u64, payload: &[u8]) -> Result<(), PstpErrorCode> {
        let size = self.size.unwrap_or(0);
        if offset != self.received {
            return Ok(()); // a duplicate or a gap: the ACK's offset resynchronises the mobile
        }
        if offset + payload.len() as u64 > size {
            return Err(PstpErrorCode::BadRequest);
        }
        self.buf.extend_from_slice(payload);
        self.received += payload.len() as u64;
        Ok(())
    }

    /// Send: relay bytes waiting to be written to the FH.
    pub fn relay_pending(&self) -> &[u8] {
        self.buf.get(self.relay_head..).unwrap_or_default()
    }

    /// Send: the host wrote `n` relay bytes to the FH connection.
    pub fn relay_written(&mut self, n: usize) {
        self.relay_head = (self.relay_head + n).min(self.buf.len());
        if self.relay_head > 64 * 1024 && self.relay_head * 2 > self.buf.len() {
            self.buf.drain(..self.relay_head);
            self.relay_head = 0;
        }
    }
}
