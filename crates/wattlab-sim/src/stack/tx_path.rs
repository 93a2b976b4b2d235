//! A host's transmit path (scenario key `node.tx_time`): the time each packet its sockets send
//! takes to leave the host, one packet at a time.
//!
//! Without it (the default) a socket's whole output leaves at the instant it is produced: a TCP
//! sender that may send a window of 360 segments hands all 360 to its first link's queue at the
//! ACK that opened the window. A Linux host does not: TCP Small Queues (`tcp_small_queue_check`,
//! net/ipv4/tcp_output.c) let a socket have only about two packets in the layers below it, and
//! `tcp_write_xmit` resumes when they have left (`tcp_wfree` → `tcp_tsq_handler`). The window is
//! therefore sent at the speed of the host's transmit path, and ACKs that arrive meanwhile are
//! processed between its segments: what is sent after them follows the sender's new state (a
//! SACK that starts recovery stops new data mid-window, and PRR decides the rest). With a
//! per-packet time here, the stack asks a socket for its next packet only when the previous one
//! has left, so the sans-IO connection decides each segment at its real departure.
//!
//! The path is per node (all of a host's sockets share it). It models the path's time per
//! packet, not a queue: nothing waits in it and nothing is dropped there (what waits stays in
//! the socket, as with TSQ).

use wattlab_core::time::{Duration, Time};

/// The transmit path of one host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxPath {
    /// Time one packet takes to leave (0: every packet leaves at once, the default).
    per_packet: Duration,
    /// When the path can take the next packet.
    free_at: Time,
}

impl TxPath {
    /// A path that takes `per_packet` per packet (zero: not modelled).
    pub fn new(per_packet: Duration) -> TxPath {
        TxPath { per_packet, free_at: Time::ZERO }
    }

    /// Whether the path paces packets at all.
    pub fn paced(&self) -> bool {
        self.per_packet > Duration::ZERO
    }

    /// Whether a packet can leave at `now`.
    pub fn ready(&self, now: Time) -> bool {
        now >= self.free_at
    }

    /// A packet leaves at `now`: the path is busy for one packet time.
    pub fn take(&mut self, now: Time) {
        self.free_at = now + self.per_packet;
    }

    /// When the path can take the next packet.
    pub fn free_at(&self) -> Time {
        self.free_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_takes_one_packet_per_packet_time() {
        let mut p = TxPath::new(Duration::from_micros(5));
        assert!(p.paced());
        assert!(p.ready(Time::ZERO));
        p.take(Time(1_000));
        assert!(!p.ready(Time(5_999)));
        assert!(p.ready(Time(6_000)));
        assert_eq!(p.free_at(), Time(6_000));
    }

    #[test]
    fn a_zero_path_is_not_paced() {
        let p = TxPath::default();
        assert!(!p.paced());
        assert!(p.ready(Time::ZERO));
    }
}
