//! ICMP messages, protocol headers and encapsulated packets on the wire.

use std::net::Ipv4Addr;

use super::*;
use crate::packet::{
    Body, IcmpMessage, PacketArena, ProtoHeader, TcpFlags, TcpHeader, Transport, UdpHeader, PROTO_HEADER_MAX,
};

const A: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const B: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);

fn encode(p: &Packet) -> Vec<u8> {
    let mut buf = Vec::new();
    encode_ipv4(p, &mut buf).unwrap();
    buf
}

/// The Internet checksum of `bytes` folded: 0xffff when a correct checksum is among them.
fn sum(bytes: &[u8]) -> u16 {
    let mut acc: u32 = bytes.chunks(2).map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))).sum();
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

#[test]
fn echo_request_and_reply_are_real_icmp() {
    let req = Packet::icmp(A, B, IcmpMessage::EchoRequest { id: 0x1234, seq: 1 }, 56);
    let bytes = encode(&req);
    assert_eq!(bytes.len(), 84); // what `ping` sends by default
    assert_eq!(bytes[9], 1, "IP protocol ICMP");
    assert_eq!(&bytes[20..22], &[8, 0], "type 8, code 0");
    assert_eq!(&bytes[24..28], &[0x12, 0x34, 0, 1], "identifier and sequence number");
    assert_eq!(sum(&bytes[20..]), 0xffff, "ICMP checksum over header and payload");
    // etherparse reads the same message.
    let icmp = etherparse::Icmpv4Slice::from_slice(&bytes[20..]).unwrap();
    assert_eq!(icmp.icmp_type(), etherparse::Icmpv4Type::EchoRequest(etherparse::IcmpEchoHeader { id: 0x1234, seq: 1 }));
    assert_eq!(decode_ipv4(&bytes).unwrap(), req);

    let reply = Packet::icmp(B, A, IcmpMessage::EchoRequest { id: 0x1234, seq: 1 }.echo_reply().unwrap(), 56);
    let bytes = encode(&reply);
    assert_eq!(&bytes[20..22], &[0, 0], "type 0, code 0");
    assert_eq!(sum(&bytes[20..]), 0xffff);
    assert_eq!(decode_ipv4(&bytes).unwrap(), reply);
}

#[test]
fn short_icmp_is_refused_and_other_messages_keep_their_bytes() {
    let mut bytes = encode(&Packet::icmp(A, B, IcmpMessage::EchoReply { id: 1, seq: 2 }, 0));
    bytes.truncate(26);
    bytes[3] = 26;
    assert_eq!(
        decode_ipv4(&bytes),
        Err(WireError::Truncated { what: "ICMP header", offset: 20, needed: 8, available: 6 })
    );
    // A timestamp request (type 13) shorter than etherparse's 20 bytes still decodes.
    let ts = Packet::icmp(A, B, IcmpMessage::Other { icmp_type: 13, code: 0, rest: [0, 7, 0, 1] }, 4);
    assert_eq!(decode_ipv4(&encode(&ts)).unwrap(), ts);
}

#[test]
fn a_protocol_header_is_the_start_of_the_udp_payload() {
    let header = ProtoHeader::new(&[0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6]).unwrap();
    let p = Packet::udp_with(A, B, UdpHeader { src_port: 4000, dst_port: 7007 }, Body::with_header(header), 64);
    let bytes = encode(&p);
    assert_eq!(bytes.len() as u32, p.ip_len());
    assert_eq!(&bytes[28..34], header.as_bytes());
    assert!(bytes[34..].iter().all(|&b| b == 0), "the rest of the payload is zeros");
    assert_eq!(u16::from_be_bytes([bytes[24], bytes[25]]), 8 + 64, "UDP length counts the header");
    let mut pseudo = vec![];
    pseudo.extend_from_slice(&bytes[12..20]);
    pseudo.extend_from_slice(&[0, 17, 0, 72]);
    pseudo.extend_from_slice(&bytes[20..]);
    assert_eq!(sum(&pseudo), 0xffff, "UDP checksum covers the header bytes");

    // The bytes alone say nothing of the header: it decodes as payload until asked.
    let mut d = decode_ipv4(&bytes).unwrap();
    assert_eq!(d, Packet::udp(A, B, UdpHeader { src_port: 4000, dst_port: 7007 }, 64));
    let mut arena = PacketArena::new();
    decode_body(&mut d, &bytes, DecodeAs { header_len: 6, encapsulated: false }, &mut arena).unwrap();
    assert_eq!(d, p);
    assert!(arena.is_empty());
}

#[test]
fn a_protocol_over_ip_carries_its_header_after_the_ip_header() {
    // WWP runs straight over IP with a 6-byte header.
    let header = ProtoHeader::new(&[1, 2, 3, 4, 5, 6]).unwrap();
    let p = Packet {
        src: A,
        dst: B,
        ip_id: 5,
        ttl: 64,
        dscp: 0,
        transport: Transport::Other { protocol: 253, body: Body::with_header(header) },
        payload_len: 6 + 100,
    };
    let bytes = encode(&p);
    assert_eq!((bytes.len(), bytes[9], &bytes[20..26]), (126, 253, header.as_bytes()));
    let mut d = decode_ipv4(&bytes).unwrap();
    decode_body(&mut d, &bytes, DecodeAs { header_len: 6, encapsulated: false }, &mut PacketArena::new()).unwrap();
    assert_eq!(d, p);
}

fn inner_tcp() -> Packet {
    let h = TcpHeader { src_port: 80, dst_port: 40000, seq: 7, ack: 9, flags: TcpFlags::ACK, window: 100, ..Default::default() };
    let mut p = Packet::tcp(Ipv4Addr::new(192, 168, 1, 1), A, h, 1000);
    p.ip_id = 3;
    p
}

#[test]
fn a_tunnel_carries_its_inner_packet_as_bytes() {
    let mut arena = PacketArena::new();
    let inner = inner_tcp();
    let id = arena.insert(inner);
    let header = ProtoHeader::new(&[0xee; 12]).unwrap();
    let payload = 12 + inner.ip_len() + 3; // header, packet, then padding
    // Not port 9899: the encoder fills an SCTP checksum into the header of UDP 9899 bodies.
    let outer = Packet::udp_with(B, A, UdpHeader { src_port: 4789, dst_port: 4789 }, Body { header, encap: Some(id), kept: false }, payload);
    let mut bytes = Vec::new();
    encode_ipv4_in(&outer, &arena, &mut bytes).unwrap();
    assert_eq!(bytes.len() as u32, outer.ip_len());
    let inner_at = 20 + 8 + 12;
    assert_eq!(&bytes[inner_at..inner_at + inner.ip_len() as usize], &encode(&inner)[..]);
    assert_eq!(&bytes[bytes.len() - 3..], &[0, 0, 0]);

    // Decoded as a tunnel, the inner packet comes back into another arena.
    let mut d = decode_ipv4(&bytes).unwrap();
    let mut other = PacketArena::new();
    decode_body(&mut d, &bytes, DecodeAs { header_len: 12, encapsulated: true }, &mut other).unwrap();
    let body = d.body().unwrap();
    assert_eq!(body.header, header);
    assert_eq!(other.get(body.encap.unwrap()), Some(&inner));
    let mut again = Vec::new();
    encode_ipv4_in(&d, &other, &mut again).unwrap();
    assert_eq!(again, bytes);

    // Without its arena, or with a payload too short for the packet: refused, buffer untouched.
    let mut buf = vec![9];
    assert_eq!(encode_ipv4(&outer, &mut buf), Err(WireError::MissingEncapsulated));
    let short = Packet { payload_len: 12 + inner.ip_len() - 1, ..outer };
    assert_eq!(
        encode_ipv4_in(&short, &arena, &mut buf),
        Err(WireError::BodyLongerThanPayload { needed: u64::from(12 + inner.ip_len()), payload_len: short.payload_len })
    );
    assert_eq!(buf, vec![9]);
}

#[test]
fn nesting_is_bounded() {
    let mut arena = PacketArena::new();
    let mut p = inner_tcp();
    for depth in 0..=MAX_ENCAP_DEPTH + 1 {
        let mut buf = Vec::new();
        let r = encode_ipv4_in(&p, &arena, &mut buf);
        if depth <= MAX_ENCAP_DEPTH {
            r.unwrap();
        } else {
            assert_eq!(r, Err(WireError::EncapsulationTooDeep { depth: MAX_ENCAP_DEPTH }));
            assert!(buf.is_empty());
        }
        let id = arena.insert(p);
        p = Packet::udp_with(A, B, UdpHeader::default(), Body { header: ProtoHeader::EMPTY, encap: Some(id), kept: false }, p.ip_len());
    }
}

#[test]
fn decoding_a_body_checks_what_it_reads() {
    let p = Packet::udp(A, B, UdpHeader::default(), 10);
    let bytes = encode(&p);
    let mut arena = PacketArena::new();
    let mut d = decode_ipv4(&bytes).unwrap();
    let mut ask = |header_len, encapsulated| decode_body(&mut d, &bytes, DecodeAs { header_len, encapsulated }, &mut arena);
    assert_eq!(ask(11, false), Err(WireError::BodyLongerThanPayload { needed: 11, payload_len: 10 }));
    assert_eq!(ask(PROTO_HEADER_MAX + 1, false), Err(WireError::ProtoHeaderTooLong { len: PROTO_HEADER_MAX + 1, max: PROTO_HEADER_MAX }));
    // Ten zero bytes are no IPv4 packet; the offset counts from the outer packet's start.
    assert_eq!(ask(0, true), Err(WireError::Truncated { what: "IPv4 header", offset: 28, needed: 20, available: 10 }));
    assert_eq!(d, p, "a refused body leaves the packet as it was");
    // Cut by a snaplen: the header is not there to read.
    let mut d = p;
    let e = decode_body(&mut d, &bytes[..30], DecodeAs { header_len: 4, encapsulated: false }, &mut arena);
    assert_eq!(e, Err(WireError::Truncated { what: "protocol header", offset: 28, needed: 4, available: 2 }));
    // Only datagrams have bodies.
    let mut echo = Packet::icmp(A, B, IcmpMessage::EchoRequest { id: 1, seq: 1 }, 4);
    let echo_bytes = encode(&echo);
    let e = decode_body(&mut echo, &echo_bytes, DecodeAs::default(), &mut arena);
    assert_eq!(e, Err(WireError::NotDatagram { protocol: 1 }));
    assert!(arena.is_empty());
}
