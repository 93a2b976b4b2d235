//! The probe cycle (PROBE1 / PROBE_ACK / PROBE2 / P-S_ACK): the sender's side with fresh ids
//! and stale-message rules, and the receiver's log of PROBE_ACK send times for the RTT.

use super::seq::SEQ_MASK;
use crate::time::{Duration, Time};

/// Where the sender's probe cycle is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbePhase {
    /// No cycle running.
    Idle,
    /// PROBE1 sent (ids `first..=last` of this cycle), waiting for a PROBE_ACK.
    AwaitProbeAck {
        /// Id of the cycle's first PROBE1.
        first: u16,
        /// Id of the latest PROBE1 (a retry after SEND_T gets a fresh id).
        last: u16,
    },
    /// PROBE2 sent with `id`, waiting for the P-S_ACK; further PROBE_ACKs are ignored.
    AwaitPsAck {
        /// The id PROBE2 echoed.
        id: u16,
    },
}

/// What the host of a [`ProbeCycle`] must send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeSend {
    /// A PROBE1 with this fresh id.
    Probe1(u16),
    /// A PROBE2 echoing this id.
    Probe2(u16),
}

/// The sender's probe cycle: every PROBE1 carries a fresh 12-bit id, SEND_T guards both
/// PROBE1 (retry with a new id) and PROBE2 (abandon, new cycle).
#[derive(Clone, Debug)]
pub struct ProbeCycle {
    phase: ProbePhase,
    next_id: u16,
    deadline: Option<Time>,
}

impl ProbeCycle {
    /// A cycle whose first id is `first_id` (masked to 12 bits).
    pub fn new(first_id: u16) -> ProbeCycle {
        ProbeCycle { phase: ProbePhase::Idle, next_id: first_id & SEQ_MASK, deadline: None }
    }

    /// Current phase.
    pub fn phase(&self) -> ProbePhase {
        self.phase
    }

    /// Whether a cycle is running.
    pub fn active(&self) -> bool {
        self.phase != ProbePhase::Idle
    }

    /// SEND_T deadline of the running cycle.
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    fn fresh_id(&mut self) -> u16 {
        let id = self.next_id;
        self.next_id = (self.next_id + 1) & SEQ_MASK;
        id
    }

    /// Start a new cycle (abandoning any running one): send PROBE1 with a fresh id.
    pub fn start(&mut self, now: Time, send_t: Duration) -> ProbeSend {
        let id = self.fresh_id();
        self.phase = ProbePhase::AwaitProbeAck { first: id, last: id };
        self.deadline = Some(now + send_t);
        ProbeSend::Probe1(id)
    }

    /// SEND_T expired: retry PROBE1 with a fresh id, or after PROBE2 abandon and start anew.
    pub fn on_timeout(&mut self, now: Time, send_t: Duration) -> Option<ProbeSend> {
        match self.phase {
            ProbePhase::Idle => None,
            ProbePhase::AwaitProbeAck { first, .. } => {
                let id = self.fresh_id();
                self.phase = ProbePhase::AwaitProbeAck { first, last: id };
                self.deadline = Some(now + send_t);
                Some(ProbeSend::Probe1(id))
            }
            ProbePhase::AwaitPsAck { .. } => Some(self.start(now, send_t)),
        }
    }

    /// A PROBE_ACK with `id` arrived: PROBE2 if it echoes a PROBE1 of this cycle and no PROBE2
    /// went out yet; `None` (ignore) for duplicates and stale ids.
    pub fn on_probe_ack(&mut self, id: u16, now: Time, send_t: Duration) -> Option<ProbeSend> {
        let ProbePhase::AwaitProbeAck { first, last } = self.phase else { return None };
        let span = last.wrapping_sub(first) & SEQ_MASK;
        if (id.wrapping_sub(first) & SEQ_MASK) > span {
            return None;
        }
        self.phase = ProbePhase::AwaitPsAck { id };
        self.deadline = Some(now + send_t);
        Some(ProbeSend::Probe2(id))
    }

    /// Whether a P-S_ACK carrying `id` ends this cycle; if so the cycle is over.
    pub fn accept_ps_ack(&mut self, id: u16) -> bool {
        if self.phase == (ProbePhase::AwaitPsAck { id }) {
            self.stop();
            true
        } else {
            false
        }
    }

    /// End the cycle without a P-S_ACK (connection closing).
    pub fn stop(&mut self) {
        self.phase = ProbePhase::Idle;
        self.deadline = None;
    }
}

/// Entries of the receiver's PROBE_ACK log.
const LOG_LEN: usize = 16;

/// The receiver's record of when it sent each recent PROBE_ACK, for the probe RTT.
#[derive(Clone, Debug, Default)]
pub struct ProbeAckLog {
    entries: [(u16, Time); LOG_LEN],
    len: usize,
    next: usize,
}

impl ProbeAckLog {
    /// Remember that the PROBE_ACK for `id` left at `at`.
    pub fn record(&mut self, id: u16, at: Time) {
        self.entries[self.next] = (id, at);
        self.next = (self.next + 1) % LOG_LEN;
        self.len = (self.len + 1).min(LOG_LEN);
    }

    /// When the PROBE_ACK for `id` was sent (the latest one, if several).
    pub fn sent_at(&self, id: u16) -> Option<Time> {
        (1..=self.len)
            .map(|k| self.entries[(self.next + LOG_LEN - k) % LOG_LEN])
            .find(|&(i, _)| i == id)
            .map(|(_, t)| t)
    }
}
