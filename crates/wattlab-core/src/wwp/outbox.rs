//! Control segments waiting for `poll_transmit` (everything but DATA, whose payload stays in
//! the sender buffer until it is written out).

use std::collections::VecDeque;

use crate::wire::wwp::WwpType;

/// A header-only segment to send (N-S_ACK and P-S_ACK take the receiver's current NACK list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ctl {
    /// Segment type.
    pub kind: WwpType,
    /// Sequence field (ISN, probe id, last sequence number, …).
    pub seq: u16,
    /// Level sub-field.
    pub level: u8,
    /// Wave-id sub-field.
    pub wave_id: u8,
}

/// FIFO of control segments; a new NACK-bearing segment replaces an older unsent one.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    queue: VecDeque<Ctl>,
}

impl Outbox {
    /// Queue `ctl`.
    pub fn push(&mut self, ctl: Ctl) {
        if ctl.kind.carries_nack_list() {
            self.queue.retain(|c| !c.kind.carries_nack_list());
        }
        self.queue.push_back(ctl);
    }
    /// Next segment to send.
    pub fn pop(&mut self) -> Option<Ctl> {
        self.queue.pop_front()
    }
    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}
