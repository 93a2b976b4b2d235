//! Counters of one WWP endpoint (both directions), in the paper's terms.

use crate::wire::wwp::WwpType;

/// What one WWP endpoint sent, received and decided.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WwpStats {
    /// Segments sent, by type (index = wire code).
    pub segments_sent: [u64; 12],
    /// Bytes sent (header + payload), by type.
    pub bytes_sent: [u64; 12],
    /// Valid segments received, by type.
    pub segments_received: [u64; 12],
    /// Bytes of valid segments received, by type.
    pub bytes_received: [u64; 12],
    /// Bytes this endpoint emitted as a sender: DATA (retransmissions included), PROBE1, PROBE2,
    /// FIN, and the handshake messages of the active opener.
    pub sender_bytes: u64,
    /// Bytes this endpoint emitted as a receiver: N-S_ACK, PROBE_ACK, P-S_ACK, FIN_ACK, and the
    /// handshake messages of the passive opener.
    pub receiver_overhead_bytes: u64,
    /// Payload bytes sent for the first time.
    pub original_data_bytes: u64,
    /// DATA segments sent again (listed in a NACK, or sent past a rewound terminator).
    pub retransmitted_segments: u64,
    /// Payload bytes of those retransmissions.
    pub retransmitted_bytes: u64,
    /// Payload bytes handed to the application by `read`, in order, without duplicates.
    pub delivered_bytes: u64,
    /// Waves sent, by the level in their DATA headers.
    pub waves_sent: [u64; 4],
    /// The receiver's next-level decisions (N-S_ACK and P-S_ACK), by level.
    pub level_decisions: [u64; 4],
    /// Waves the receiver ended by REC_T.
    pub rec_t_expiries: u64,
    /// Waves a PROBE2 ended before they fully arrived or REC_T fired (`ProbeInWave::Answer`).
    pub probe_ended_waves: u64,
    /// Probe cycles the sender started.
    pub probe_cycles: u64,
    /// PROBE1 and PROBE2 segments sent.
    pub probes_sent: u64,
    /// NACK entries sent (terminators excluded): segments the receiver asked for again.
    pub nacked_segments: u64,
    /// DATA segments received that were already held or delivered.
    pub duplicate_segments: u64,
    /// DATA segments dropped for lack of receiver buffer (or beyond the peer's FIN).
    pub dropped_segments: u64,
    /// Feedback ignored as stale (late N-S_ACK, duplicate PROBE_ACK, foreign P-S_ACK id).
    pub stale_ignored: u64,
    /// Inputs refused: undecodable bytes or wrong ports.
    pub bad_segments: u64,
}

impl WwpStats {
    /// Count one segment sent.
    pub(crate) fn on_sent(&mut self, kind: WwpType, len: usize, as_sender: bool) {
        let i = usize::from(kind.code());
        self.segments_sent[i] += 1;
        self.bytes_sent[i] += len as u64;
        if as_sender {
            self.sender_bytes += len as u64;
        } else {
            self.receiver_overhead_bytes += len as u64;
        }
        if matches!(kind, WwpType::Probe1 | WwpType::Probe2) {
            self.probes_sent += 1;
        }
    }

    /// Count one valid segment received.
    pub(crate) fn on_received(&mut self, kind: WwpType, len: usize) {
        let i = usize::from(kind.code());
        self.segments_received[i] += 1;
        self.bytes_received[i] += len as u64;
    }

    /// Segments of one type sent.
    pub fn sent(&self, kind: WwpType) -> u64 {
        self.segments_sent[usize::from(kind.code())]
    }
}
