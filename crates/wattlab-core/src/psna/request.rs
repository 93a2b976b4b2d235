//! The mobile's one outstanding request: stop-and-wait with a fixed retransmission timeout and
//! a bounded number of retransmissions, after which the transfer fails (it never waits forever).

use super::config::MobileConfig;
use crate::time::Time;
use crate::wire::pstp::{encode_pstp, PstpBody, PstpMessage};

/// What the outstanding request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestKind {
    /// READ_REQ or SEND_REQ.
    Open,
    /// POLL.
    Poll,
    /// DATA of `len` bytes at `offset` (upload).
    Upload {
        /// Offset of the chunk.
        offset: u64,
        /// Its length.
        len: u64,
    },
    /// ACK asking for the chunk at `offset` (download).
    Download {
        /// Bytes received in order.
        offset: u64,
    },
    /// ACK of the whole object (download complete).
    Final,
}

impl RequestKind {
    /// Name used in errors.
    pub const fn name(self) -> &'static str {
        match self {
            RequestKind::Open => "request",
            RequestKind::Poll => "Poll",
            RequestKind::Upload { .. } => "Data",
            RequestKind::Download { .. } => "download Ack",
            RequestKind::Final => "final Ack",
        }
    }
}

/// A request in flight.
#[derive(Clone, Debug)]
pub struct Outstanding {
    /// What it is.
    pub kind: RequestKind,
    /// Its sequence number.
    pub seq: u32,
    /// Its encoded bytes (sent again as they are).
    pub bytes: Vec<u8>,
    /// When it is retransmitted next.
    pub deadline: Time,
    /// Retransmissions so far.
    pub retries: u32,
    /// Whether `poll_transmit` owes a copy.
    pub due: bool,
}

impl Outstanding {
    /// Encode a new request, due now; `reuse` donates its buffer.
    pub fn new(kind: RequestKind, transfer: u32, seq: u32, body: PstpBody<'_>, now: Time, cfg: &MobileConfig, reuse: Vec<u8>) -> Self {
        let mut bytes = reuse;
        // The mobile only builds bodies that encode (names were checked by `read`/`send`).
        let _ = encode_pstp(&PstpMessage { transfer, seq, body }, &mut bytes);
        Outstanding { kind, seq, bytes, deadline: now + cfg.rto, retries: 0, due: true }
    }

    /// The RTO expired at `now`: retransmit, or return false when the retries are spent.
    pub fn on_timeout(&mut self, now: Time, cfg: &MobileConfig) -> bool {
        if self.retries >= cfg.max_retries {
            return false;
        }
        self.retries += 1;
        self.deadline = now + cfg.rto;
        self.due = true;
        true
    }
}
