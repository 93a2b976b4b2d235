//! What datagrams carry beyond their length: a protocol's own small header, inline, and for a
//! tunnel a handle to the packet it encapsulates; and ICMP messages (echo request and reply).

use super::encap::EncapId;

/// Most bytes of a protocol header a datagram carries inline: room for WWP's 6-byte header, a
/// stop-and-wait header, an application's sequence number and timestamp, or an SCTP common
/// header with a SACK chunk (one gap block or duplicate TSN) and a DATA chunk header
/// (12 + 20 + 16 bytes). 48 still fits in the room of a TCP header: a packet stays 84 bytes.
pub const PROTO_HEADER_MAX: usize = 48;

/// Length of an ICMP header (type, code, checksum and the 4 bytes that depend on the type).
pub const ICMP_HEADER_LEN: u32 = 8;

/// A protocol's own header as bytes, stored inline so a packet stays `Copy` and allocation-free.
///
/// Its bytes are the first bytes of the datagram's payload (counted in
/// [`Packet::payload_len`](super::Packet::payload_len)): the wire format is the protocol's
/// business, so a new protocol writes and reads its header in its own module. Bytes past
/// `len` are always zero, so equality and hashing see only the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProtoHeader {
    len: u8,
    bytes: [u8; PROTO_HEADER_MAX],
}

impl Default for ProtoHeader {
    fn default() -> Self {
        ProtoHeader::EMPTY
    }
}

impl ProtoHeader {
    /// No header: the payload is opaque bytes.
    pub const EMPTY: ProtoHeader = ProtoHeader { len: 0, bytes: [0; PROTO_HEADER_MAX] };

    /// A header of these bytes; `None` if it is longer than [`PROTO_HEADER_MAX`].
    #[inline]
    pub fn new(bytes: &[u8]) -> Option<ProtoHeader> {
        let mut h = ProtoHeader::EMPTY;
        h.bytes.get_mut(..bytes.len())?.copy_from_slice(bytes);
        h.len = bytes.len() as u8; // fits: at most PROTO_HEADER_MAX
        Some(h)
    }

    /// The header's bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len).min(PROTO_HEADER_MAX)]
    }

    /// Length in bytes.
    pub fn len(&self) -> u32 {
        u32::from(self.len)
    }

    /// True when there is no header.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The start of a datagram's payload as wattlab models it: the protocol's header, then (for a
/// tunnel) an encapsulated IPv4 packet, then opaque bytes up to the payload length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Body {
    /// The protocol's own header (empty: none).
    pub header: ProtoHeader,
    /// The packet a tunnel carries after the header, kept in a [`PacketArena`](super::PacketArena).
    pub encap: Option<EncapId>,
    /// The payload past the header is not all zeros: the simulator, which carries no payload
    /// bytes, keeps the whole datagram at its sending socket for the receiver to read.
    pub kept: bool,
}

impl Body {
    /// Nothing modelled: the payload is opaque bytes.
    pub const EMPTY: Body = Body { header: ProtoHeader::EMPTY, encap: None, kept: false };

    /// A body that is just this header.
    pub fn with_header(header: ProtoHeader) -> Body {
        Body { header, encap: None, kept: false }
    }

    /// True when nothing is modelled.
    pub fn is_empty(&self) -> bool {
        self.header.is_empty() && self.encap.is_none()
    }
}

/// ICMP type of an echo reply.
pub const ICMP_ECHO_REPLY: u8 = 0;
/// ICMP type of an echo request.
pub const ICMP_ECHO_REQUEST: u8 = 8;

/// An ICMP message's header (RFC 792): echo request and reply by their fields, any other type
/// by its raw bytes, so every captured message decodes and encodes back to the same bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IcmpMessage {
    /// Type 8, code 0: what ping sends.
    EchoRequest {
        /// Identifier (a ping socket's "port").
        id: u16,
        /// Sequence number.
        seq: u16,
    },
    /// Type 0, code 0: the answer, with the request's identifier and sequence number.
    EchoReply {
        /// Identifier.
        id: u16,
        /// Sequence number.
        seq: u16,
    },
    /// Any other type or code, carried as its raw header fields.
    Other {
        /// Type.
        icmp_type: u8,
        /// Code.
        code: u8,
        /// Header bytes 5 to 8 (their meaning depends on the type).
        rest: [u8; 4],
    },
}

impl IcmpMessage {
    /// The reply to this message if it is an echo request.
    pub fn echo_reply(&self) -> Option<IcmpMessage> {
        match *self {
            IcmpMessage::EchoRequest { id, seq } => Some(IcmpMessage::EchoReply { id, seq }),
            _ => None,
        }
    }

    /// Identifier and sequence number of an echo request or reply.
    pub fn echo(&self) -> Option<(u16, u16)> {
        match *self {
            IcmpMessage::EchoRequest { id, seq } | IcmpMessage::EchoReply { id, seq } => Some((id, seq)),
            IcmpMessage::Other { .. } => None,
        }
    }

    /// The type, code and bytes 5 to 8 of the header, as on the wire.
    pub fn raw(&self) -> (u8, u8, [u8; 4]) {
        let echo = |id: u16, seq: u16| {
            let [a, b] = id.to_be_bytes();
            let [c, d] = seq.to_be_bytes();
            [a, b, c, d]
        };
        match *self {
            IcmpMessage::EchoRequest { id, seq } => (ICMP_ECHO_REQUEST, 0, echo(id, seq)),
            IcmpMessage::EchoReply { id, seq } => (ICMP_ECHO_REPLY, 0, echo(id, seq)),
            IcmpMessage::Other { icmp_type, code, rest } => (icmp_type, code, rest),
        }
    }

    /// The message of these raw header fields (an echo when type and code say so).
    pub fn from_raw(icmp_type: u8, code: u8, rest: [u8; 4]) -> IcmpMessage {
        let id = u16::from_be_bytes([rest[0], rest[1]]);
        let seq = u16::from_be_bytes([rest[2], rest[3]]);
        match (icmp_type, code) {
            (ICMP_ECHO_REQUEST, 0) => IcmpMessage::EchoRequest { id, seq },
            (ICMP_ECHO_REPLY, 0) => IcmpMessage::EchoReply { id, seq },
            _ => IcmpMessage::Other { icmp_type, code, rest },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_keep_their_bytes_and_refuse_too_many() {
        let h = ProtoHeader::new(&[1, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!((h.as_bytes(), h.len(), h.is_empty()), (&[1u8, 2, 3, 4, 5, 6][..], 6, false));
        assert_eq!(ProtoHeader::new(&[]), Some(ProtoHeader::EMPTY));
        assert!(ProtoHeader::new(&[0; PROTO_HEADER_MAX]).is_some());
        assert_eq!(ProtoHeader::new(&[0; PROTO_HEADER_MAX + 1]), None);
        // Equal bytes, equal headers, whatever was written before.
        assert_eq!(ProtoHeader::new(&[9, 9]), ProtoHeader::new(&[9, 9]));
        assert_ne!(ProtoHeader::new(&[9]), ProtoHeader::new(&[9, 0]));
    }

    #[test]
    fn echo_messages_round_trip_through_their_raw_fields() {
        for m in [
            IcmpMessage::EchoRequest { id: 0x1234, seq: 7 },
            IcmpMessage::EchoReply { id: 1, seq: 0xffff },
            IcmpMessage::Other { icmp_type: 3, code: 1, rest: [0, 0, 5, 220] },
            IcmpMessage::Other { icmp_type: 8, code: 1, rest: [1, 2, 3, 4] }, // code ≠ 0: no echo
        ] {
            let (t, c, r) = m.raw();
            assert_eq!(IcmpMessage::from_raw(t, c, r), m);
        }
        let req = IcmpMessage::EchoRequest { id: 3, seq: 4 };
        assert_eq!(req.echo_reply(), Some(IcmpMessage::EchoReply { id: 3, seq: 4 }));
        assert_eq!(req.echo(), Some((3, 4)));
        assert_eq!(IcmpMessage::EchoReply { id: 3, seq: 4 }.echo_reply(), None);
    }
}
