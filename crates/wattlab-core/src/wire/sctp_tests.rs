use super::*;
use proptest::prelude::*;

fn data_header(len: u32) -> SctpHeader {
    SctpHeader {
        src_port: TUNNEL_SCTP_PORT,
        dst_port: TUNNEL_SCTP_PORT,
        vtag: 0x1234_5678,
        control: None,
        sack: None,
        data: Some(DataChunk { tsn: 7, sid: 2, ssn: 3, ppid: 0, flags: DATA_FLAGS_WHOLE, len }),
    }
}

fn sack(cum: u32, gaps: &[(u16, u16)], dups: &[u32]) -> SackChunk {
    let mut s = SackChunk { cum_tsn: cum, a_rwnd: 65536, ..SackChunk::default() };
    for (i, g) in gaps.iter().enumerate() {
        s.gaps[i] = *g;
    }
    s.dups[..dups.len()].copy_from_slice(dups);
    (s.n_gaps, s.n_dups) = (gaps.len() as u8, dups.len() as u8);
    s
}

/// Eq. 4.12 as the thesis computes it, and our packets beside it (docs/tunnel.md quotes these).
#[test]
fn sizes_thesis_and_ours() {
    assert_eq!((thesis_sctp_size(1500), thesis_sctp_size(40)), (1532, 72));
    // Ours: 12 common + 16 DATA header + the IP packet (already a multiple of 4).
    assert_eq!((data_header(1500).packet_len(), data_header(40).packet_len()), (1528, 68));
    // With a piggybacked SACK without gaps, and on the wire over UDP and IPv4 (+ 8 + 20).
    let mut h = data_header(1500);
    h.sack = Some(sack(1, &[], &[]));
    assert_eq!(h.packet_len(), 1544);
    let mut buf = Vec::new();
    encode_sctp(&data_header(40), &[0x45; 40], &mut buf).unwrap();
    assert_eq!(buf.len() + 8 + 20, 96);
    // A 41-byte IP packet is padded to 44.
    assert_eq!(data_header(41).packet_len(), 12 + 16 + 44);
}

/// RFC 3720 B.4's CRC32c vector: 32 bytes of zeros → 0x8a9136aa.
#[test]
fn crc32c_matches_the_rfc_vector() {
    assert_eq!(CRC32C.checksum(&[0u8; 32]), 0x8a91_36aa);
}

#[test]
fn round_trip_with_sack_and_data() {
    let mut h = data_header(44);
    h.sack = Some(sack(100, &[(2, 3), (5, 5)], &[99]));
    let inner: Vec<u8> = (0..44u8).collect();
    let mut buf = Vec::new();
    encode_sctp(&h, &inner, &mut buf).unwrap();
    assert_eq!(buf.len(), h.packet_len());
    let v = decode_sctp(&buf).unwrap();
    assert_eq!((v.header, v.data), (h, &inner[..]));
    // The inline form: headers only, payload elsewhere.
    let mut hdr = Vec::new();
    encode_sctp_headers(&h, &mut hdr);
    assert_eq!(hdr.len(), h.header_len());
    assert_eq!(decode_sctp_headers(&hdr).unwrap(), h);
    // A SACK-only packet.
    let s = SctpHeader { sack: Some(sack(5, &[], &[])), data: None, ..h };
    buf.clear();
    encode_sctp(&s, &[], &mut buf).unwrap();
    assert_eq!(decode_sctp(&buf).unwrap().header, s);
    assert!(encode_sctp(&data_header(3), &[1, 2], &mut buf).is_err());
}

#[test]
fn malformed_packets_are_refused() {
    let mut good = Vec::new();
    encode_sctp(&data_header(40), &[0x45; 40], &mut good).unwrap();
    // A flipped bit anywhere fails the CRC.
    for i in [0, 9, 20, 60] {
        let mut b = good.clone();
        b[i] ^= 0x10;
        assert!(matches!(decode_sctp(&b), Err(WireError::SctpChecksum { .. })), "byte {i}");
    }
    let refix = |mut b: Vec<u8>| {
        fill_checksum(&mut b);
        decode_sctp(&b).map(|v| v.header)
    };
    // Truncated DATA chunk, chunk lengths below their headers, a fragment, unknown chunks.
    assert!(matches!(refix(good[..50].to_vec()), Err(WireError::Truncated { .. })));
    assert!(matches!(refix(good[..14].to_vec()), Err(WireError::Truncated { .. })));
    assert!(matches!(decode_sctp(&good[..5]), Err(WireError::Truncated { .. })));
    let mut b = good.clone();
    b[14..16].copy_from_slice(&2u16.to_be_bytes());
    assert!(matches!(refix(b), Err(WireError::BadSctpField { field: "chunk length", .. })));
    let mut b = good.clone();
    b[14..16].copy_from_slice(&10u16.to_be_bytes());
    assert!(matches!(refix(b), Err(WireError::BadSctpField { field: "DATA length", .. })));
    let mut b = good.clone();
    b[13] = 0x02;
    assert!(matches!(refix(b), Err(WireError::BadSctpField { field: "DATA flags", .. })));
    let mut b = good.clone();
    b[12] = 4; // HEARTBEAT: not implemented, stop processing
    assert!(matches!(refix(b), Err(WireError::BadSctpField { field: "chunk type", .. })));
    // A skippable unknown chunk (type 0xc0, high bits 11) before DATA is skipped.
    let mut b = good[..12].to_vec();
    b.extend_from_slice(&[0xc0, 0, 0, 6, 1, 2, 0, 0]);
    b.extend_from_slice(&good[12..]);
    assert_eq!(refix(b).unwrap(), data_header(40));
    // A SACK whose counts disagree with its length; a gap block starting at 0.
    let mut s = Vec::new();
    encode_sctp(&SctpHeader { sack: Some(sack(1, &[(1, 2)], &[])), ..SctpHeader::default() }, &[], &mut s).unwrap();
    let mut b = s.clone();
    b[25] = 2;
    assert!(matches!(refix(b), Err(WireError::BadSctpField { field: "SACK length", .. })));
    let mut b = s.clone();
    b[29] = 0;
    assert!(matches!(refix(b), Err(WireError::BadSctpField { field: "gap block", .. })));
    // Two DATA chunks.
    let mut b = good.clone();
    b.extend_from_slice(&good[12..]);
    assert!(matches!(refix(b), Err(WireError::BadSctpField { field: "chunk type", .. })));
}

/// INIT, INIT ACK (with its State Cookie), COOKIE ECHO and COOKIE ACK round-trip at their
/// RFC 9260 sizes; malformed ones are refused naming the field.
#[test]
fn handshake_chunks_round_trip_and_bad_ones_are_refused() {
    let init = InitChunk { tag: 0xc1c1_c1c1, a_rwnd: 1 << 20, out_streams: 1024, in_streams: 1024, initial_tsn: 42 };
    let k = Cookie(*b"0123456789ab");
    let base = SctpHeader { src_port: TUNNEL_SCTP_PORT, dst_port: TUNNEL_SCTP_PORT, ..SctpHeader::default() };
    let cases = [
        (Handshake::Init(init), 32),
        (Handshake::InitAck(init, k), 48), // the simulator's whole inline room
        (Handshake::CookieEcho(k), 28),
        (Handshake::CookieAck, 16),
    ];
    for (c, len) in cases {
        let h = SctpHeader { control: Some(c), ..base };
        let mut b = Vec::new();
        encode_sctp(&h, &[], &mut b).unwrap();
        assert_eq!((b.len(), h.packet_len()), (len, len), "{c:?}");
        assert_eq!(decode_sctp(&b).unwrap().header, h);
        let mut hdr = Vec::new();
        encode_sctp_headers(&h, &mut hdr);
        assert_eq!(decode_sctp_headers(&hdr).unwrap(), h);
    }
    // COOKIE ACK may lead SACK and DATA (RFC 9260 §5.1); the bytes say so.
    let mut h = data_header(8);
    h.control = Some(Handshake::CookieAck);
    h.sack = Some(sack(6, &[], &[]));
    let mut b = Vec::new();
    encode_sctp(&h, &[0x45; 8], &mut b).unwrap();
    assert_eq!(decode_sctp(&b).unwrap().header, h);
    let refix = |mut b: Vec<u8>| {
        fill_checksum(&mut b);
        decode_sctp(&b).map(|v| v.header)
    };
    let enc = |c: Handshake| {
        let mut b = Vec::new();
        encode_sctp(&SctpHeader { control: Some(c), ..base }, &[], &mut b).unwrap();
        b
    };
    let field = |r: Result<SctpHeader, WireError>| match r {
        Err(WireError::BadSctpField { field, .. }) => field,
        other => panic!("{other:?}"),
    };
    let mut b = enc(Handshake::Init(init));
    b[16..20].fill(0); // Initiate Tag 0
    assert_eq!(field(refix(b)), "INIT fields");
    let mut b = enc(Handshake::InitAck(init, k));
    b[32..34].copy_from_slice(&5u16.to_be_bytes()); // not a State Cookie: none left
    assert_eq!(field(refix(b)), "INIT ACK");
    let mut b = enc(Handshake::InitAck(init, k));
    b[34..36].copy_from_slice(&12u16.to_be_bytes()); // an 8-byte cookie
    assert_eq!(field(refix(b)), "State Cookie length");
    let mut b = enc(Handshake::CookieEcho(k));
    b[14..16].copy_from_slice(&12u16.to_be_bytes());
    assert!(refix(b).is_err());
    // DATA after INIT, and a handshake chunk after DATA.
    let mut b = enc(Handshake::Init(init));
    let mut d = Vec::new();
    encode_sctp(&data_header(4), &[1; 4], &mut d).unwrap();
    b.extend_from_slice(&d[12..]);
    assert_eq!(field(refix(b)), "chunk type");
    let mut b = d.clone();
    b.extend_from_slice(&enc(Handshake::CookieAck)[12..]);
    assert_eq!(field(refix(b)), "chunk type");
}

proptest! {
    /// Any bytes decode or are refused, never panic; what decodes re-encodes to the same packet.
    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..120), fix in any::<bool>()) {
        let mut b = bytes;
        if fix {
            fill_checksum(&mut b);
        }
        if let Ok(v) = decode_sctp(&b) {
            let mut again = Vec::new();
            encode_sctp(&v.header, v.data, &mut again).unwrap();
            prop_assert_eq!(decode_sctp(&again).unwrap(), v);
        }
        let _ = decode_sctp_headers(&b);
    }
}

/// The simulator's form (header bytes inline, the inner packet in an arena) encodes to a whole
/// SCTP packet over UDP 9899 whose CRC32c verifies and whose DATA holds the inner packet.
#[test]
fn the_inline_form_encodes_to_a_valid_packet() {
    use crate::packet::{Body, PacketArena, ProtoHeader, UdpHeader};
    use crate::{Packet, TcpHeader};
    use std::net::Ipv4Addr;
    let (a, b) = (Ipv4Addr::new(10, 0, 0, 3), Ipv4Addr::new(10, 0, 0, 2));
    let inner = Packet::tcp(a, Ipv4Addr::new(10, 0, 0, 1), TcpHeader { src_port: 40000, dst_port: 80, ..Default::default() }, 21);
    let mut h = data_header(inner.ip_len());
    h.sack = Some(sack(9, &[(2, 2)], &[]));
    let mut hdr = Vec::new();
    encode_sctp_headers(&h, &mut hdr);
    let mut arena = PacketArena::new();
    let body = Body { header: ProtoHeader::new(&hdr).unwrap(), encap: Some(arena.insert(inner)), kept: false };
    let udp = UdpHeader { src_port: SCTP_UDP_PORT, dst_port: SCTP_UDP_PORT };
    let outer = Packet::udp_with(a, b, udp, body, h.packet_len() as u32);
    let mut bytes = Vec::new();
    crate::wire::encode_ipv4_in(&outer, &arena, &mut bytes).unwrap();
    let v = decode_sctp(&bytes[28..]).expect("CRC32c filled in by the encoder");
    assert_eq!(v.header, h);
    let mut want = Vec::new();
    crate::wire::encode_ipv4(&inner, &mut want).unwrap();
    assert_eq!(v.data, &want[..]);
    // The UDP checksum covers it: etherparse agrees.
    let sliced = etherparse::SlicedPacket::from_ip(&bytes).unwrap();
    let Some(etherparse::TransportSlice::Udp(u)) = sliced.transport else { panic!("UDP") };
    let ip = etherparse::Ipv4HeaderSlice::from_slice(&bytes).unwrap().to_header();
    assert_eq!(u.to_header().calc_checksum_ipv4(&ip, u.payload()).unwrap(), u.checksum());
}
