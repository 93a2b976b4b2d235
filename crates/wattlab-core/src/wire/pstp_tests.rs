//! PS-TP format tests: every type round-trips, exact bytes, refusals name offset and field,
//! and a seeded loop of arbitrary bytes never panics.

use super::*;

fn req(object: &str, size: Option<u64>) -> PstpRequest<'_> {
    PstpRequest { fh_addr: Ipv4Addr::new(10, 0, 0, 3), fh_port: 21, size, object }
}

fn all_bodies() -> Vec<PstpBody<'static>> {
    vec![
        PstpBody::ReadReq(req("a/b.bin", None)),
        PstpBody::SendReq(req("up", Some(25_446_000))),
        PstpBody::OkToSend { offset: 7 },
        PstpBody::ResidualTime { residual_ms: 12_345, size: Some(1 << 40) },
        PstpBody::Poll,
        PstpBody::Data { offset: 1400, payload: b"hello" },
        PstpBody::Ack { offset: u64::MAX - 1 },
        PstpBody::Error(PstpErrorCode::FhAborted),
    ]
}

#[test]
fn every_type_round_trips() {
    let mut out = Vec::new();
    for (i, body) in all_bodies().into_iter().enumerate() {
        let msg = PstpMessage { transfer: 0xdead_beef, seq: i as u32 * 1000, body };
        let n = encode_pstp(&msg, &mut out).unwrap();
        assert_eq!(n, out.len());
        assert_eq!(out[0], 0x10 | i as u8, "{}", body.kind().name());
        assert_eq!(decode_pstp(&out).unwrap(), msg);
    }
}

#[test]
fn exact_bytes_of_a_poll_and_a_residual_time() {
    let mut out = Vec::new();
    encode_pstp(&PstpMessage { transfer: 0x01020304, seq: 0x0a0b0c0d, body: PstpBody::Poll }, &mut out).unwrap();
    assert_eq!(out, [0x14, 0, 1, 2, 3, 4, 0x0a, 0x0b, 0x0c, 0x0d]);
    let rt = PstpBody::ResidualTime { residual_ms: 1000, size: None };
    encode_pstp(&PstpMessage { transfer: 1, seq: 2, body: rt }, &mut out).unwrap();
    assert_eq!(out.len(), PSTP_HEADER_LEN + 12);
    assert_eq!(&out[10..], &[0, 0, 0x03, 0xe8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    // A DATA message of a 1400-byte chunk is 1418 bytes: fits a 1500-byte MTU over UDP/IPv4.
    let data = PstpBody::Data { offset: 0, payload: &[0; 1400] };
    assert_eq!(encode_pstp(&PstpMessage { transfer: 1, seq: 2, body: data }, &mut out).unwrap(), 1418);
}

#[test]
fn refusals_name_offset_and_field() {
    let mut out = Vec::new();
    let msg = PstpMessage { transfer: 1, seq: 1, body: PstpBody::ReadReq(req("xyz", Some(5))) };
    encode_pstp(&msg, &mut out).unwrap();
    let field = |b: &[u8]| match decode_pstp(b) {
        Err(WireError::BadPstpField { field, offset, .. }) => (field, offset),
        Err(WireError::Truncated { what, offset, .. }) => (what, offset),
        other => panic!("{other:?}"),
    };
    let mut b = out.clone();
    b[0] = 0x20;
    assert_eq!(field(&b), ("version", 0));
    b[0] = 0x19;
    assert_eq!(field(&b), ("type", 0));
    b = out.clone();
    b[1] = 4;
    assert_eq!(field(&b), ("flags", 1));
    assert_eq!(field(&out[..5]), ("PS-TP header", 0));
    assert_eq!(field(&out[..20]), ("PS-TP body", 10));
    assert_eq!(field(&out[..out.len() - 1]), ("PS-TP object name", 25));
    b = out.clone();
    b.push(0);
    assert_eq!(field(&b), ("length", 28));
    b = out.clone();
    b[26] = 0xff;
    assert_eq!(field(&b), ("object name", 26));
    let err = PstpMessage { transfer: 1, seq: 1, body: PstpBody::Error(PstpErrorCode::TooLarge) };
    encode_pstp(&err, &mut out).unwrap();
    out[10] = 99;
    assert_eq!(field(&out), ("error code", 10));
    let send = PstpMessage { transfer: 1, seq: 1, body: PstpBody::SendReq(req("u", None)) };
    assert!(matches!(encode_pstp(&send, &mut out), Err(WireError::BadPstpField { field: "size", .. })));
    let long = "x".repeat(256);
    let read = PstpMessage { transfer: 1, seq: 1, body: PstpBody::ReadReq(req(&long, None)) };
    assert!(matches!(encode_pstp(&read, &mut out), Err(WireError::BadPstpField { field: "object name", .. })));
}

/// A seeded loop (wattlab-core has no proptest): random and mutated messages decode or are
/// refused without a panic, and whatever decodes re-encodes to the same bytes.
#[test]
fn arbitrary_bytes_never_panic() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut seeds = Vec::new();
    for (i, body) in all_bodies().into_iter().enumerate() {
        let mut out = Vec::new();
        encode_pstp(&PstpMessage { transfer: 9, seq: i as u32, body }, &mut out).unwrap();
        seeds.push(out);
    }
    let mut decoded = 0;
    for i in 0..200_000 {
        let mut b = seeds[i % seeds.len()].clone();
        match next() % 4 {
            0 => b = (0..next() % 40).map(|_| next() as u8).collect(),
            1 => {
                let k = (next() as usize) % b.len();
                b[k] ^= next() as u8;
            }
            2 => b.truncate((next() as usize) % (b.len() + 1)),
            _ => b.extend((0..next() % 4).map(|_| next() as u8)),
        }
        crate::psna::fuzz::exercise_decoder(&b);
        decoded += usize::from(decode_pstp(&b).is_ok());
    }
    assert!(decoded > 10_000, "the mutations keep many messages valid ({decoded})");
}
