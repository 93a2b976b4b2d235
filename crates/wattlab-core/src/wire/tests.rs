use std::net::Ipv4Addr;

use super::*;
use crate::packet::{
    Body, IcmpMessage, SackBlock, TcpFlags, TcpHeader, TcpOptions, Timestamps, Transport, UdpHeader,
    IPV4_HEADER_LEN,
};

const A: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const B: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 2);

/// Reference one's-complement sum of big-endian 16-bit words (odd tail padded with zero).
fn ones_sum(mut acc: u32, bytes: &[u8]) -> u32 {
    for c in bytes.chunks(2) {
        acc += u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]));
    }
    acc
}
fn fold(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// Check the IPv4 header checksum and the transport checksum with the reference sum: a
/// correct checksum makes the sum over the covered bytes 0xffff.
fn assert_checksums(bytes: &[u8]) {
    let ihl = usize::from(bytes[0] & 0xf) * 4;
    assert_eq!(fold(ones_sum(0, &bytes[..ihl])), 0xffff, "IPv4 header checksum");
    let proto = bytes[9];
    let seg = &bytes[ihl..];
    if proto == 6 || proto == 17 {
        let mut pseudo = [0u8; 12];
        pseudo[..4].copy_from_slice(&bytes[12..16]);
        pseudo[4..8].copy_from_slice(&bytes[16..20]);
        pseudo[9] = proto;
        pseudo[10..].copy_from_slice(&(seg.len() as u16).to_be_bytes());
        let sum = fold(ones_sum(ones_sum(0, &pseudo), seg));
        assert_eq!(sum, 0xffff, "transport checksum of protocol {proto}");
    }
    if proto == 1 {
        // ICMP's checksum covers its header and payload, without a pseudo-header.
        assert_eq!(fold(ones_sum(0, seg)), 0xffff, "ICMP checksum");
    }
    // And etherparse agrees on the IP header.
    let (h, _) = etherparse::Ipv4Header::from_slice(bytes).unwrap();
    assert_eq!(h.calc_header_checksum(), h.header_checksum);
}

fn syn_all_options() -> Packet {
    let h = TcpHeader {
        src_port: 40000,
        dst_port: 443,
        seq: 0xdead_beef,
        ack: 0,
        flags: TcpFlags::SYN,
        window: 64240,
        options: TcpOptions {
            mss: Some(1460),
            window_scale: Some(7),
            sack_permitted: true,
            timestamps: Some(Timestamps { tsval: 123_456, tsecr: 0 }),
            ..Default::default()
        },
    };
    let mut p = Packet::tcp(A, B, h, 0);
    p.ip_id = 0x1234;
    p
}

fn data_with_ts() -> Packet {
    let h = TcpHeader {
        src_port: 443,
        dst_port: 40000,
        seq: 1000,
        ack: 0xffff_fff0,
        flags: TcpFlags::ACK | TcpFlags::PSH,
        window: 501,
        options: TcpOptions {
            timestamps: Some(Timestamps { tsval: 7, tsecr: 0x8000_0001 }),
            ..Default::default()
        },
    };
    let mut p = Packet::tcp(B, A, h, 1448);
    p.ttl = 57;
    p.ip_id = 65535;
    p
}

fn ack_with_3_sack() -> Packet {
    let mut o =
        TcpOptions { timestamps: Some(Timestamps { tsval: 1, tsecr: 2 }), ..Default::default() };
    o.sack[0] = SackBlock { left: 5000, right: 6448 };
    o.sack[1] = SackBlock { left: 8000, right: 9448 };
    o.sack[2] = SackBlock { left: 0xffff_f000, right: 0x0000_0100 }; // wraps
    o.sack_len = 3;
    let h = TcpHeader {
        src_port: 40000,
        dst_port: 443,
        seq: 77,
        ack: 3552,
        flags: TcpFlags::ACK,
        window: 1000,
        options: o,
    };
    Packet::tcp(A, B, h, 0)
}

fn udp() -> Packet {
    Packet::udp(A, B, UdpHeader { src_port: 5353, dst_port: 9 }, 333)
}

fn other() -> Packet {
    Packet {
        src: A,
        dst: B,
        ip_id: 9,
        ttl: 1,
        dscp: 0,
        transport: Transport::Other { protocol: 47, body: Body::EMPTY },
        payload_len: 21,
    }
}

/// What ping sends: an echo request with 56 bytes of data (odd id and sequence, to catch a
/// byte-order slip).
fn echo_request() -> Packet {
    let mut p = Packet::icmp(A, B, IcmpMessage::EchoRequest { id: 0x4d01, seq: 0x0203 }, 56);
    p.ip_id = 77;
    p
}

/// An ICMP message that is not an echo (port unreachable), with an odd payload length.
fn unreachable() -> Packet {
    Packet::icmp(B, A, IcmpMessage::Other { icmp_type: 3, code: 3, rest: [0, 0, 0, 0] }, 33)
}

fn samples() -> Vec<Packet> {
    vec![syn_all_options(), data_with_ts(), ack_with_3_sack(), udp(), other(), echo_request(), unreachable()]
}

#[test]
fn round_trip_ipv4_and_ethernet() {
    for p in samples() {
        let mut buf = vec![0xaa; 3]; // encoding appends after existing content
        encode_ipv4(&p, &mut buf).unwrap();
        let bytes = &buf[3..];
        assert_eq!(bytes.len() as u32, p.ip_len(), "{p:?}");
        assert_eq!(u16::from_be_bytes([bytes[2], bytes[3]]) as u32, p.ip_len());
        assert_eq!(bytes[0], 0x45);
        assert_eq!(decode_ipv4(bytes).unwrap(), p);
        assert_checksums(bytes);

        let mut frame = Vec::new();
        encode_ethernet(&p, mac_for_node(1), mac_for_node(2), &mut frame).unwrap();
        assert_eq!(frame.len(), ETHERNET_HEADER_LEN + p.ip_len() as usize);
        assert_eq!(&frame[..6], &mac_for_node(2)); // destination first
        assert_eq!(&frame[6..12], &mac_for_node(1));
        assert_eq!(&frame[12..14], &[0x08, 0x00]);
        assert_eq!(decode_ethernet(&frame).unwrap(), p);
    }
}

#[test]
fn header_lengths_match_model() {
    for p in samples() {
        let mut buf = Vec::new();
        encode_ipv4(&p, &mut buf).unwrap();
        let hl = IPV4_HEADER_LEN as usize;
        match p.transport {
            Transport::Tcp(h) => {
                let data_offset = usize::from(buf[hl + 12] >> 4) * 4;
                assert_eq!(data_offset as u32, h.len());
                assert_eq!(buf[hl + 13], h.flags.0);
                assert_ne!(buf[6] & 0x40, 0, "DF set for TCP");
            }
            Transport::Udp(..) => {
                let udp_len = u16::from_be_bytes([buf[hl + 4], buf[hl + 5]]);
                assert_eq!(u32::from(udp_len), 8 + p.payload_len);
                assert_eq!(buf[6] & 0x40, 0);
            }
            Transport::Icmp(m) => {
                let (t, c, rest) = m.raw();
                assert_eq!((buf[9], buf[hl], buf[hl + 1], &buf[hl + 4..hl + 8]), (1, t, c, &rest[..]));
            }
            Transport::Other { protocol, .. } => assert_eq!(buf[9], protocol),
        }
        assert_eq!(buf.len() - hl - p.transport_header_len() as usize, p.payload_len as usize);
    }
}

#[test]
fn option_bytes_follow_linux_layout() {
    let mut buf = Vec::new();
    encode_ipv4(&syn_all_options(), &mut buf).unwrap();
    let opts = &buf[40..60];
    #[rustfmt::skip]
    let want = [
        2, 4, 0x05, 0xb4,                       // MSS 1460
        4, 2, 8, 10, 0, 1, 0xe2, 0x40, 0, 0, 0, 0, // SACK_PERM, TS 123456/0
        1, 3, 3, 7,                             // NOP, WS 7
    ];
    assert_eq!(opts, &want);

    buf.clear();
    encode_ipv4(&ack_with_3_sack(), &mut buf).unwrap();
    assert_eq!(buf.len(), 80); // 20 IP + 20 TCP + 40 bytes of options
    assert_eq!(&buf[40..44], &[1, 1, 8, 10]);
    assert_eq!(&buf[52..56], &[1, 1, 5, 26]);

    // The lone-option variants pad with NOPs in front.
    let mut h = TcpHeader { flags: TcpFlags::SYN, ..Default::default() };
    h.options.sack_permitted = true;
    buf.clear();
    encode_ipv4(&Packet::tcp(A, B, h, 0), &mut buf).unwrap();
    assert_eq!(&buf[40..], &[1, 1, 4, 2]);
    assert_eq!(decode_ipv4(&buf).unwrap().tcp_header().unwrap().options, h.options);
}

#[test]
fn every_option_combination_round_trips_with_modelled_length() {
    for bits in 0u32..64 {
        let mut o = TcpOptions::default();
        if bits & 1 != 0 {
            o.mss = Some(536);
        }
        if bits & 2 != 0 {
            o.window_scale = Some(14);
        }
        o.sack_permitted = bits & 4 != 0;
        if bits & 8 != 0 {
            o.timestamps = Some(Timestamps { tsval: bits, tsecr: !bits });
        }
        o.sack_len = ((bits >> 4) & 3) as u8;
        for i in 0..o.sack_len as usize {
            o.sack[i] = SackBlock { left: i as u32 * 10, right: i as u32 * 10 + 5 };
        }
        let p = Packet::tcp(A, B, TcpHeader { options: o, ..Default::default() }, bits);
        let mut buf = Vec::new();
        match encode_ipv4(&p, &mut buf) {
            Ok(()) => {
                assert_eq!(buf.len() as u32, p.ip_len());
                assert_eq!(decode_ipv4(&buf).unwrap(), p);
                assert_checksums(&buf);
            }
            Err(WireError::TcpOptionsTooLong { len }) => {
                assert!(len > 40);
                assert!(buf.is_empty(), "failed encode leaves the buffer untouched");
            }
            Err(e) => panic!("{e}"),
        }
    }
}

#[test]
fn four_sack_blocks_without_timestamps() {
    let o = TcpOptions { sack_len: 4, ..Default::default() };
    let p = Packet::tcp(A, B, TcpHeader { options: o, ..Default::default() }, 0);
    let mut buf = Vec::new();
    encode_ipv4(&p, &mut buf).unwrap();
    assert_eq!(buf.len(), 20 + 20 + 36);
    assert_eq!(decode_ipv4(&buf).unwrap(), p);
}

/// The DSCP goes in the upper six bits of the TOS byte (RFC 2474) and comes back; one that
/// does not fit six bits is refused, the buffer untouched.
#[test]
fn dscp_round_trips_in_the_tos_byte() {
    let mut p = udp();
    p.dscp = 46; // EF
    let mut buf = Vec::new();
    encode_ipv4(&p, &mut buf).unwrap();
    assert_eq!(buf[1], 46 << 2);
    assert_checksums(&buf);
    assert_eq!(decode_ipv4(&buf).unwrap().dscp, 46);
    p.dscp = 64;
    assert_eq!(encode_ipv4(&p, &mut buf), Err(WireError::BadDscp { dscp: 64 }));
    assert_eq!(buf.len() as u32, p.ip_len());
}

#[test]
fn encode_rejects_unrepresentable_packets() {
    let mut buf = vec![1, 2];
    let mut big = udp();
    big.payload_len = 65_535 - 28 + 1;
    assert_eq!(encode_ipv4(&big, &mut buf), Err(WireError::PacketTooLong { len: 65_536 }));
    big.payload_len = u32::MAX; // must not overflow
    assert!(matches!(encode_ipv4(&big, &mut buf), Err(WireError::PacketTooLong { .. })));
    big.payload_len = 65_535 - 28;
    encode_ipv4(&big, &mut buf).unwrap();
    assert_eq!(buf.len(), 2 + 65_535);

    let mut buf = vec![1, 2];
    let mut p = ack_with_3_sack();
    p.tcp_header_mut().unwrap().options.sack_len = 5;
    assert_eq!(encode_ipv4(&p, &mut buf), Err(WireError::TooManySackBlocks { count: 5 }));
    p.tcp_header_mut().unwrap().options.sack_len = 4;
    assert_eq!(
        encode_ethernet(&p, [0; 6], [0; 6], &mut buf),
        Err(WireError::TcpOptionsTooLong { len: 48 })
    );
    for protocol in [1, 6, 17] {
        let o = Packet { transport: Transport::Other { protocol, body: Body::EMPTY }, ..other() };
        assert_eq!(encode_ipv4(&o, &mut buf), Err(WireError::OtherWithTransportProtocol { protocol }));
    }
    assert_eq!(buf, vec![1, 2]);
}

#[test]
fn truncated_capture_decodes_with_header_length() {
    let p = data_with_ts();
    let mut frame = Vec::new();
    encode_ethernet(&p, mac_for_node(3), mac_for_node(4), &mut frame).unwrap();
    for snap in [14 + 20 + 32, 94, 100, 1000] {
        assert_eq!(decode_ethernet(&frame[..snap]).unwrap(), p, "snaplen {snap}");
    }
    // Cut inside the TCP header: an error naming the TCP header and its offset.
    let e = decode_ethernet(&frame[..14 + 20 + 25]).unwrap_err();
    assert_eq!(
        e,
        WireError::Truncated { what: "TCP header", offset: 34, needed: 32, available: 25 }
    );
    assert!(e.to_string().contains("at byte 34"), "{e}");
    // Ethernet padding after a short packet is ignored.
    let mut short = Vec::new();
    encode_ethernet(&ack_with_3_sack(), [0; 6], [0; 6], &mut short).unwrap();
    short.resize(short.len() + 6, 0);
    assert_eq!(decode_ethernet(&short).unwrap(), ack_with_3_sack());
}

#[test]
fn decode_errors_name_problem_and_offset() {
    let mut buf = Vec::new();
    encode_ipv4(&syn_all_options(), &mut buf).unwrap();

    let mut v6 = buf.clone();
    v6[0] = 0x65;
    assert_eq!(decode_ipv4(&v6), Err(WireError::NotIpv4 { version: 6, offset: 0 }));

    let mut frag = buf.clone();
    frag[6] |= 0x20; // MF
    assert!(matches!(decode_ipv4(&frag), Err(WireError::Fragment { offset: 0, .. })));

    let mut short_total = buf.clone();
    short_total[3] = 30; // total length 30 < 20 + 40
    short_total[2] = 0;
    assert_eq!(
        decode_ipv4(&short_total),
        Err(WireError::BadTotalLength { total_len: 30, needed: 60, offset: 0 })
    );

    let mut bad_opt = buf.clone();
    bad_opt[41] = 5; // MSS with length 5
    let e = decode_ipv4(&bad_opt).unwrap_err();
    assert_eq!(e, WireError::BadTcpOption { kind: 2, offset: 40, reason: "wrong length" });

    let mut frame = vec![0u8; 14];
    frame[12..14].copy_from_slice(&[0x86, 0xdd]);
    frame.extend_from_slice(&buf);
    assert_eq!(
        decode_ethernet(&frame),
        Err(WireError::UnsupportedEtherType { ether_type: 0x86dd, offset: 12 })
    );
    // Offsets in Ethernet frames count from the start of the frame.
    frame[12..14].copy_from_slice(&[0x08, 0x00]);
    frame[14 + 41] = 1;
    assert!(matches!(decode_ethernet(&frame), Err(WireError::BadTcpOption { offset: 54, .. })));
}

#[test]
fn unknown_options_are_skipped_and_vlan_tags_accepted() {
    // Hand-build a header whose options are: TFO cookie (kind 34, len 6), MSS, NOP, NOP, EOL.
    let mut p = syn_all_options();
    let mut buf = Vec::new();
    encode_ipv4(&p, &mut buf).unwrap();
    let mut raw = etherparse::Ipv4HeaderSlice::from_slice(&buf).unwrap().to_header();
    let mut tcp = etherparse::TcpHeader::from_slice(&buf[20..]).unwrap().0;
    tcp.set_options_raw(&[34, 6, 1, 2, 3, 4, 2, 4, 0x05, 0xb4, 1, 1, 0, 0, 0, 0]).unwrap();
    raw.set_payload_len(tcp.header_len()).unwrap();
    let mut bytes = raw.to_bytes().to_vec();
    bytes.extend_from_slice(&tcp.to_bytes());
    let h = p.tcp_header_mut().unwrap();
    h.options = TcpOptions { mss: Some(1460), ..Default::default() };
    assert_eq!(decode_ipv4(&bytes).unwrap(), p);

    let mut frame = vec![0u8; 12];
    frame.extend_from_slice(&[0x81, 0x00, 0x00, 0x07, 0x08, 0x00]);
    frame.extend_from_slice(&bytes);
    assert_eq!(decode_ethernet(&frame).unwrap(), p);
}

#[test]
fn mac_for_node_is_local_unicast() {
    assert_eq!(mac_for_node(0x0001_0203), [0x02, 0, 0, 1, 2, 3]);
    assert_eq!(mac_for_node(7)[0] & 0x03, 0x02);
    assert_ne!(mac_for_node(1), mac_for_node(2));
}

/// Tiny deterministic LCG (Knuth's MMIX constants) so the test needs no dependency.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn decoding_garbage_never_panics() {
    let mut rng = Lcg(42);
    let mut valid = Vec::new();
    for p in samples() {
        encode_ethernet(&p, [1; 6], [2; 6], &mut valid).unwrap();
    }
    let mut buf = Vec::with_capacity(200);
    for round in 0..20_000 {
        buf.clear();
        let len = (rng.next() % 120) as usize;
        match round % 3 {
            // Pure noise, with the IPv4 version nibble forced half the time to get deeper.
            0 => {
                buf.extend((0..len).map(|_| rng.next() as u8));
                if len > 0 && rng.next() & 1 == 0 {
                    buf[0] = 0x45;
                }
            }
            // A valid encoding, truncated and with a few random byte flips.
            _ => {
                let start = (rng.next() as usize) % valid.len();
                let end = (start + len).min(valid.len());
                buf.extend_from_slice(&valid[start..end]);
                for _ in 0..(rng.next() % 4) {
                    if !buf.is_empty() {
                        let i = (rng.next() as usize) % buf.len();
                        buf[i] = rng.next() as u8;
                    }
                }
            }
        }
        // No panic, refused rewrites leave bytes untouched, and decoded packets round-trip.
        fuzz::exercise(&buf);
    }
    // Every prefix of every valid packet: decodes or reports an error, never panics.
    for p in samples() {
        let mut frame = Vec::new();
        encode_ethernet(&p, [1; 6], [2; 6], &mut frame).unwrap();
        for n in 0..=frame.len() {
            let _ = decode_ethernet(&frame[..n]);
        }
    }
}
