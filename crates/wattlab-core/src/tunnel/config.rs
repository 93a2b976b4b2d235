//! A tunnel endpoint's settings, with RFC 9260's protocol defaults and the burst defaults of
//! docs/tunnel.md.

use crate::wire::sctp::{pad4, COMMON_HEADER_LEN, DATA_HEADER_LEN, SACK_HEADER_LEN};
use crate::Duration;

/// U-APSD trigger estimator settings (seed 002 Eqs. 4.15–4.17).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriggerConfig {
    /// Weight α of the newest slot's count in the EWMA n^r (Eq. 4.15).
    pub alpha: f64,
    /// Length H of a measurement slot.
    pub slot: Duration,
    /// Shortest trigger interval (not below the radio's sleep↔active transition time).
    pub t_min: Duration,
    /// Longest trigger interval (not above the beacon interval).
    pub t_max: Duration,
}

impl Default for TriggerConfig {
    /// The thesis gives none of these: α = 0.3, H = 50 ms (several bursts per slot at the
    /// Fig. 4.5 rates), t_min = 2 ms (Table 4.2's transitions take 1 ms + 1 µs), t_max = 100 ms
    /// (the usual beacon interval).
    fn default() -> Self {
        TriggerConfig {
            alpha: 0.3,
            slot: Duration::from_millis(50),
            t_min: Duration::from_millis(2),
            t_max: Duration::from_millis(100),
        }
    }
}

/// One tunnel endpoint's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct TunnelConfig {
    /// Burst size m: the inlet releases at m packets, a SACK goes back after m DATA packets,
    /// and m packets received release the inlet (the burst rule).
    pub burst: u32,
    /// The inlet also releases this long after its first buffered packet.
    pub inlet_timeout: Duration,
    /// Start the association with RFC 9260 §5.1's four-way handshake (INIT, INIT ACK, COOKIE
    /// ECHO, COOKIE ACK; the default); false: pre-established from `peer_tag` and
    /// `peer_initial_tsn`. With the handshake the peer's tag and first TSN are learned from it.
    pub handshake: bool,
    /// This end sends the INIT (the client); the other end listens (the AP).
    pub initiator: bool,
    /// Max.Init.Retransmits (RFC 9260 §16: 8): INIT or COOKIE ECHO sent again at most this
    /// often (the timer doubling each time) before the endpoint gives up.
    pub max_init_retransmits: u32,
    /// Secret keying the State Cookie's check value (a listener accepts only its own cookies).
    pub cookie_secret: u32,
    /// Max.Burst (RFC 9260 §6.1 rule D): at most this many new DATA packets per output
    /// opportunity (the sends that follow one input: an inner packet, an arriving packet, a
    /// timer); 0 = no limit (the default: the burst rule sends m at once on purpose;
    /// docs/tunnel.md). The RFC's value is 4.
    pub max_burst: u32,
    /// Verification tag this endpoint expects (its Initiate Tag in the handshake).
    pub local_tag: u32,
    /// Verification tag put on packets to the peer (pre-established only).
    pub peer_tag: u32,
    /// First TSN this endpoint sends.
    pub initial_tsn: u32,
    /// First TSN expected from the peer (pre-established only).
    pub peer_initial_tsn: u32,
    /// SCTP port of this endpoint and of its peer.
    pub port: u16,
    /// Path MTU in bytes of SCTP packet: a SACK riding on DATA reports only the gap blocks and
    /// duplicate TSNs that fit beside it (cwnd is counted in user-data bytes against it).
    pub mtu: u32,
    /// RTO.Initial (RFC 9260: 1 s).
    pub rto_initial: Duration,
    /// RTO.Min (RFC 9260: 1 s).
    pub rto_min: Duration,
    /// RTO.Max (RFC 9260: 60 s).
    pub rto_max: Duration,
    /// Longest a SACK waits for DATA to ride on (RFC 9260: at most 500 ms, 200 ms recommended).
    pub sack_delay: Duration,
    /// Receiver window advertised, bytes.
    pub a_rwnd: u32,
    /// Most streams (inner flows) per direction; flows beyond share streams by hash.
    pub max_streams: u16,
    /// Most bytes of common header and chunk headers per packet (the simulator's inline room
    /// is 48); SACKs report only the gap blocks and duplicate TSNs that fit.
    pub max_header_bytes: usize,
    /// Most DATA chunks held for in-order delivery behind a missing one.
    pub max_held: usize,
    /// The U-APSD trigger estimator (client side only).
    pub trigger: Option<TriggerConfig>,
}

impl Default for TunnelConfig {
    fn default() -> Self {
        TunnelConfig {
            burst: 5,
            inlet_timeout: Duration::from_millis(20),
            handshake: true,
            initiator: true,
            max_init_retransmits: 8,
            cookie_secret: 0x7475_6e6e,
            max_burst: 0,
            local_tag: 0x5741_0001,
            peer_tag: 0x5741_0002,
            initial_tsn: 1,
            peer_initial_tsn: 1,
            port: crate::wire::sctp::TUNNEL_SCTP_PORT,
            mtu: 1500 + 12 + 16 + 16,
            rto_initial: Duration::from_secs(1),
            rto_min: Duration::from_secs(1),
            rto_max: Duration::from_secs(60),
            sack_delay: Duration::from_millis(200),
            a_rwnd: 1 << 20,
            max_streams: 1024,
            max_header_bytes: usize::MAX,
            max_held: 4096,
            trigger: None,
        }
    }
}

impl TunnelConfig {
    /// The peer's settings for the same association: tags and TSNs swapped, the other role in
    /// the handshake.
    pub fn mirrored(&self) -> TunnelConfig {
        TunnelConfig {
            initiator: !self.initiator,
            local_tag: self.peer_tag,
            peer_tag: self.local_tag,
            initial_tsn: self.peer_initial_tsn,
            peer_initial_tsn: self.initial_tsn,
            trigger: None,
            ..self.clone()
        }
    }

    /// Bytes available for the SCTP headers (common header and chunk headers, a SACK's gap
    /// blocks and duplicate TSNs) in a packet whose DATA chunk carries `data` bytes: the inline
    /// room, and the path MTU beside the (padded) user data.
    pub fn header_room(&self, data: usize) -> usize {
        self.max_header_bytes.min((self.mtu as usize).saturating_sub(pad4(data)))
    }

    /// The most SCTP bytes a packet carrying a `data`-byte inner packet can have: common
    /// header, DATA chunk header, a SACK riding on it (with the gap blocks and duplicate TSNs
    /// that fit the room, 4 bytes each) and the inner packet padded to 4 bytes. Used to
    /// refuse inner packets that would not fit one outer IPv4 packet.
    pub fn max_packet_len(&self, data: usize) -> usize {
        let base = COMMON_HEADER_LEN + DATA_HEADER_LEN + SACK_HEADER_LEN;
        base + self.header_room(data).saturating_sub(base) / 4 * 4 + pad4(data)
    }

    /// Refuses settings the endpoint cannot work with, naming the field.
    pub fn validate(&self) -> Result<(), String> {
        if self.burst == 0 {
            return Err("burst: m must be at least 1".into());
        }
        if self.local_tag == 0 || self.peer_tag == 0 {
            return Err("verification tags must not be 0 (RFC 9260 reserves 0 for INIT)".into());
        }
        if self.mtu < 576 {
            return Err("mtu: below 576 bytes".into());
        }
        if self.rto_min > self.rto_max || self.rto_min.as_nanos() == 0 {
            return Err("rto_min: must be positive and at most rto_max".into());
        }
        if self.max_streams == 0 {
            return Err("max_streams: at least 1".into());
        }
        if let Some(t) = &self.trigger {
            if !(t.alpha > 0.0 && t.alpha <= 1.0) {
                return Err("trigger.alpha: must be in (0, 1]".into());
            }
            if t.slot.as_nanos() == 0 || t.t_min.as_nanos() == 0 || t.t_min > t.t_max {
                return Err("trigger: slot and t_min must be positive and t_min ≤ t_max".into());
            }
        }
        Ok(())
    }
}
