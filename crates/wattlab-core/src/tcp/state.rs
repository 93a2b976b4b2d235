//! Connection states, application events and counters.

/// RFC 793 §3.2 connection states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum TcpState {
    /// No connection (initial state after an abort or the end of TIME_WAIT / LAST_ACK).
    Closed,
    /// Passive open, waiting for a SYN.
    Listen,
    /// SYN sent, waiting for SYN-ACK.
    SynSent,
    /// SYN received and SYN-ACK sent, waiting for the ACK.
    SynReceived,
    /// Data flows both ways.
    Established,
    /// We closed; our FIN is not yet acknowledged.
    FinWait1,
    /// Our FIN is acknowledged; waiting for the peer's FIN.
    FinWait2,
    /// The peer closed; we may still send.
    CloseWait,
    /// Both sent FIN simultaneously; waiting for the ACK of ours.
    Closing,
    /// The peer closed first, we closed too; waiting for the ACK of our FIN.
    LastAck,
    /// Both FINs exchanged; lingering to absorb a retransmitted FIN.
    TimeWait,
}

impl TcpState {
    /// True once the handshake completed (ESTABLISHED or any closing state).
    pub fn is_synchronized(self) -> bool {
        !matches!(self, TcpState::Closed | TcpState::Listen | TcpState::SynSent | TcpState::SynReceived)
    }
}

/// Something the application should know about; polled with `poll_event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum TcpEvent {
    /// The handshake completed.
    Connected,
    /// New in-order bytes can be read.
    Readable,
    /// The peer sent FIN: no more bytes will arrive.
    PeerFin,
    /// The peer reset the connection.
    Reset,
    /// The connection was aborted after too many retransmissions.
    TimedOut,
    /// The connection reached CLOSED.
    Closed,
}

/// Counters of one connection (payload bytes exclude headers).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TcpStats {
    /// Segments sent (all kinds).
    pub segments_sent: u64,
    /// Segments sent that carried payload.
    pub data_segments_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Payload bytes sent again.
    pub bytes_retransmitted: u64,
    /// Segments (data, SYN or FIN) sent again.
    pub retransmitted_segments: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast retransmits (entries into fast recovery).
    pub fast_retransmits: u64,
    /// NewReno partial-ACK retransmissions.
    pub partial_ack_retransmits: u64,
    /// Persist-timer expiries: zero-window probes and window-override segments sent.
    pub persist_probes_sent: u64,
    /// ACKs sent because reading opened the receive window.
    pub window_updates_sent: u64,
    /// Pure ACKs sent (no payload, SYN or FIN).
    pub acks_sent: u64,
    /// Duplicate ACKs received (RFC 5681 §2 definition).
    pub dup_acks_received: u64,
    /// Segments received for this connection.
    pub segments_received: u64,
    /// Unacceptable segments (old or out-of-window, e.g. window probes) answered with an ACK.
    pub unacceptable_segments_acked: u64,
    /// Segments received out of order (stored for reassembly or dropped).
    pub out_of_order_segments: u64,
    /// In-order payload bytes delivered to the receive buffer.
    pub bytes_received: u64,
    /// Payload bytes received again (already delivered).
    pub duplicate_bytes_received: u64,
    /// Bytes the application read.
    pub bytes_read: u64,
    /// RTT samples taken.
    pub rtt_samples: u64,
    /// Sum of those RTT samples in nanoseconds (their mean is the flow's average RTT, seed 002
    /// Fig. 2.7).
    pub rtt_sample_sum_ns: u64,
    /// Segments sent advertising a zero window.
    pub zero_window_advertised: u64,
    /// SACK blocks sent on our ACKs (RFC 2018), summed over segments.
    pub sack_blocks_sent: u64,
    /// Entries into SACK-based loss recovery (RFC 6675 §5); also counted in `fast_retransmits`.
    pub sack_recoveries: u64,
    /// Segments retransmitted while SACK recovery was in charge (fast retransmit, NextSeg(),
    /// and after an RTO); also counted in `retransmitted_segments`.
    pub sack_retransmits: u64,
    /// Congestion-window restarts after an idle period longer than the RTO
    /// (`slow_start_after_idle`), whether or not they shrank the window.
    pub idle_restarts: u64,
    /// Out-of-order segments dropped for lack of room in the out-of-order queue
    /// (`ooo_limit`: a 33rd range with `ranges32`; the buffer full even after a prune with
    /// `rcvbuf`).
    pub ooo_dropped_segments: u64,
    /// Prunes of the out-of-order queue (`ooo_limit = rcvbuf`; Linux's `OfoPruned`).
    pub ooo_prunes: u64,
    /// Held out-of-order bytes those prunes discarded.
    pub ooo_pruned_bytes: u64,
    /// Timeouts at which the receiver was found to have reneged on SACKed data (the first
    /// unacknowledged byte was SACKed): the scoreboard was cleared (Linux's `TCPSACKReneging`).
    pub sack_renegings: u64,
}
