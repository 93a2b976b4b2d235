//! The PS-TP message format (seed 001's Power-Saving Transport Protocol, carried over UDP):
//! a 10-byte header and one fixed body per message type. `docs/psna.md` has the diagram.
//!
//! ```text
//!  byte 0          byte 1          bytes 2-5                       bytes 6-9
//! +-------+-------+---------------+-------------------------------+-------------------------------+
//! |version| type  | flags (0)     | transfer id (u32, big-endian) | sequence number (u32, BE)     |
//! | 4 bits| 4 bits| 8 bits        |                               |                               |
//! +-------+-------+---------------+-------------------------------+-------------------------------+
//! ```
//!
//! Bodies (all integers big-endian):
//!
//! | code | type          | body                                                              |
//! |------|---------------|-------------------------------------------------------------------|
//! | 0    | READ_REQ      | FH IPv4 (4), FH port (2), size (8; all ones = unknown), name length (1), name (UTF-8) |
//! | 1    | SEND_REQ      | as READ_REQ; the size must be known                               |
//! | 2    | OK_TO_SEND    | offset to send from (8)                                           |
//! | 3    | RESIDUAL_TIME | residual in ms (4; 0 = ready/done), object size (8; all ones = unknown) |
//! | 4    | POLL          | none                                                              |
//! | 5    | DATA          | offset (8), payload (the rest)                                    |
//! | 6    | ACK           | offset (8): bytes received in order so far                        |
//! | 7    | ERROR         | code (1)                                                          |
//!
//! No checksum: UDP's own covers the datagram and its addresses. Decoding never panics and
//! never allocates; errors name the byte offset and field ([`WireError::BadPstpField`]).

use std::net::Ipv4Addr;

use super::WireError;

/// Length of the PS-TP header in bytes.
pub const PSTP_HEADER_LEN: usize = 10;
/// The only version this decoder accepts.
pub const PSTP_VERSION: u8 = 1;
/// The size field's value for "unknown".
pub const PSTP_SIZE_UNKNOWN: u64 = u64::MAX;
/// Longest object name (its length is one byte).
pub const PSTP_MAX_NAME: usize = 255;
/// Bytes of a request body before the name.
const REQ_FIXED: usize = 4 + 2 + 8 + 1;

/// The eight PS-TP message types with their 4-bit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PstpType {
    /// "Read from FH": the mobile asks the daemon to fetch an object.
    ReadReq = 0,
    /// "Send to FH": the mobile announces an upload.
    SendReq = 1,
    /// The daemon is connected to the FH: upload from the given offset.
    OkToSend = 2,
    /// The daemon's estimate of the time left (0 = ready / done).
    ResidualTime = 3,
    /// The mobile, awake again, asks for news.
    Poll = 4,
    /// A chunk of the object.
    Data = 5,
    /// In-order bytes received so far (a request for more in a download).
    Ack = 6,
    /// The transfer cannot go on.
    Error = 7,
}

impl PstpType {
    /// Every type, in code order.
    pub const ALL: [PstpType; 8] = [
        PstpType::ReadReq,
        PstpType::SendReq,
        PstpType::OkToSend,
        PstpType::ResidualTime,
        PstpType::Poll,
        PstpType::Data,
        PstpType::Ack,
        PstpType::Error,
    ];
    /// The type with this 4-bit code, if any.
    pub fn from_code(code: u8) -> Option<PstpType> {
        PstpType::ALL.get(usize::from(code)).copied()
    }
    /// The paper's name of the message.
    pub const fn name(self) -> &'static str {
        match self {
            PstpType::ReadReq => "Read from FH",
            PstpType::SendReq => "Send to FH",
            PstpType::OkToSend => "OK to send",
            PstpType::ResidualTime => "Residual_Time",
            PstpType::Poll => "Poll",
            PstpType::Data => "Data",
            PstpType::Ack => "Ack",
            PstpType::Error => "Error",
        }
    }
}

/// Why the daemon gave up a transfer (the ERROR body).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PstpErrorCode {
    /// The daemon has no such transfer (it restarted, or dropped it as abandoned).
    UnknownTransfer = 1,
    /// The TCP connection to the fixed host could not be opened.
    FhUnreachable = 2,
    /// The fixed host reset (aborted) the TCP connection.
    FhAborted = 3,
    /// The fixed host closed the connection before the announced size arrived.
    FhClosedEarly = 4,
    /// The object is larger than the daemon's buffer limit.
    TooLarge = 5,
    /// The request is malformed or does not fit the transfer's state.
    BadRequest = 6,
}

impl PstpErrorCode {
    /// Every code.
    pub const ALL: [PstpErrorCode; 6] = [
        PstpErrorCode::UnknownTransfer,
        PstpErrorCode::FhUnreachable,
        PstpErrorCode::FhAborted,
        PstpErrorCode::FhClosedEarly,
        PstpErrorCode::TooLarge,
        PstpErrorCode::BadRequest,
    ];
    /// The code with this value, if any.
    pub fn from_code(code: u8) -> Option<PstpErrorCode> {
        PstpErrorCode::ALL.into_iter().find(|c| *c as u8 == code)
    }
    /// A short description.
    pub const fn describe(self) -> &'static str {
        match self {
            PstpErrorCode::UnknownTransfer => "the daemon does not know this transfer (restarted or expired)",
            PstpErrorCode::FhUnreachable => "the fixed host could not be reached",
            PstpErrorCode::FhAborted => "the fixed host aborted the connection",
            PstpErrorCode::FhClosedEarly => "the fixed host closed before the whole object arrived",
            PstpErrorCode::TooLarge => "the object exceeds the daemon's buffer",
            PstpErrorCode::BadRequest => "the daemon refused the request",
        }
    }
}

/// The body of READ_REQ and SEND_REQ: which object, on which fixed host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PstpRequest<'a> {
    /// The fixed host's address.
    pub fh_addr: Ipv4Addr,
    /// The fixed host's TCP port.
    pub fh_port: u16,
    /// Object size in bytes, if known (always for SEND_REQ).
    pub size: Option<u64>,
    /// The object's name (at most 255 bytes of UTF-8).
    pub object: &'a str,
}

/// A message body, by type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PstpBody<'a> {
    /// READ_REQ.
    ReadReq(PstpRequest<'a>),
    /// SEND_REQ.
    SendReq(PstpRequest<'a>),
    /// OK_TO_SEND from `offset`.
    OkToSend {
        /// Bytes the daemon already holds.
        offset: u64,
    },
    /// RESIDUAL_TIME.
    ResidualTime {
        /// Milliseconds left; 0 = ready (read) or delivered (send).
        residual_ms: u32,
        /// The object's size, if the daemon knows it.
        size: Option<u64>,
    },
    /// POLL.
    Poll,
    /// DATA at `offset`.
    Data {
        /// Byte offset of the payload in the object.
        offset: u64,
        /// The bytes.
        payload: &'a [u8],
    },
    /// ACK of the in-order bytes up to `offset`.
    Ack {
        /// Bytes received in order.
        offset: u64,
    },
    /// ERROR.
    Error(PstpErrorCode),
}

impl PstpBody<'_> {
    /// The message type.
    pub fn kind(&self) -> PstpType {
        match self {
            PstpBody::ReadReq(_) => PstpType::ReadReq,
            PstpBody::SendReq(_) => PstpType::SendReq,
            PstpBody::OkToSend { .. } => PstpType::OkToSend,
            PstpBody::ResidualTime { .. } => PstpType::ResidualTime,
            PstpBody::Poll => PstpType::Poll,
            PstpBody::Data { .. } => PstpType::Data,
            PstpBody::Ack { .. } => PstpType::Ack,
            PstpBody::Error(_) => PstpType::Error,
        }
    }
}

/// A PS-TP message, borrowing its name and payload from the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PstpMessage<'a> {
    /// The transfer (chosen by the mobile; there is no connection).
    pub transfer: u32,
    /// The mobile's request number this message is or answers.
    pub seq: u32,
    /// Type and body.
    pub body: PstpBody<'a>,
}

fn size_field(size: Option<u64>) -> u64 {
    size.unwrap_or(PSTP_SIZE_UNKNOWN)
}

/// Encode `msg` into `out` (cleared first); returns its length. Fails only for an object name
/// longer than 255 bytes or a SEND_REQ without a size.
pub fn encode_pstp(msg: &PstpMessage<'_>, out: &mut Vec<u8>) -> Result<usize, WireError> {
    out.clear();
    out.push((PSTP_VERSION << 4) | msg.body.kind() as u8);
    out.push(0);
    out.extend_from_slice(&msg.transfer.to_be_bytes());
    out.extend_from_slice(&msg.seq.to_be_bytes());
    match msg.body {
        PstpBody::ReadReq(r) | PstpBody::SendReq(r) => {
            if r.object.len() > PSTP_MAX_NAME {
                let len = r.object.len() as u64;
                return Err(bad("object name", PSTP_HEADER_LEN + REQ_FIXED, len, "longer than 255 bytes"));
            }
            if msg.body.kind() == PstpType::SendReq && r.size.is_none() {
                let (at, v) = (PSTP_HEADER_LEN + 6, PSTP_SIZE_UNKNOWN);
                return Err(bad("size", at, v, "a SEND_REQ must announce its size"));
            }
            out.extend_from_slice(&r.fh_addr.octets());
            out.extend_from_slice(&r.fh_port.to_be_bytes());
            out.extend_from_slice(&size_field(r.size).to_be_bytes());
            out.push(r.object.len() as u8);
            out.extend_from_slice(r.object.as_bytes());
        }
        PstpBody::OkToSend { offset } | PstpBody::Ack { offset } => out.extend_from_slice(&offset.to_be_bytes()),
        PstpBody::ResidualTime { residual_ms, size } => {
            out.extend_from_slice(&residual_ms.to_be_bytes());
            out.extend_from_slice(&size_field(size).to_be_bytes());
        }
        PstpBody::Poll => {}
        PstpBody::Data { offset, payload } => {
            out.extend_from_slice(&offset.to_be_bytes());
            out.extend_from_slice(payload);
        }
        PstpBody::Error(code) => out.push(code as u8),
    }
    Ok(out.len())
}

fn bad(field: &'static str, offset: usize, value: u64, reason: &'static str) -> WireError {
    WireError::BadPstpField { field, offset, value, reason }
}

fn be_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_be_bytes(a)
}

fn opt_size(v: u64) -> Option<u64> {
    (v != PSTP_SIZE_UNKNOWN).then_some(v)
}

/// Decode one PS-TP message.
pub fn decode_pstp(bytes: &[u8]) -> Result<PstpMessage<'_>, WireError> {
    if bytes.len() < PSTP_HEADER_LEN {
        return Err(WireError::Truncated {
            what: "PS-TP header",
            offset: 0,
            needed: PSTP_HEADER_LEN,
            available: bytes.len(),
        });
    }
    let version = bytes[0] >> 4;
    if version != PSTP_VERSION {
        return Err(bad("version", 0, u64::from(version), "only version 1 exists"));
    }
    let code = bytes[0] & 0x0f;
    let kind = PstpType::from_code(code).ok_or(bad("type", 0, u64::from(code), "codes 8-15 are not PS-TP types"))?;
    if bytes[1] != 0 {
        return Err(bad("flags", 1, u64::from(bytes[1]), "no flag is defined; the byte must be 0"));
    }
    let transfer = u32::from_be_bytes([bytes[2], bytes[3], bytes[4], bytes[5]]);
    let seq = u32::from_be_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]);
    let body = &bytes[PSTP_HEADER_LEN..];
    let fixed = match kind {
        PstpType::ReadReq | PstpType::SendReq => REQ_FIXED,
        PstpType::OkToSend | PstpType::Ack | PstpType::Data => 8,
        PstpType::ResidualTime => 12,
        PstpType::Poll => 0,
        PstpType::Error => 1,
    };
    if body.len() < fixed {
        return Err(WireError::Truncated {
            what: "PS-TP body",
            offset: PSTP_HEADER_LEN,
            needed: fixed,
            available: body.len(),
        });
    }
    let exact = |n: usize| {
        if body.len() == n {
            Ok(())
        } else {
            Err(bad("length", PSTP_HEADER_LEN + n, body.len() as u64, "trailing bytes after the body"))
        }
    };
    let at = |i: usize| PSTP_HEADER_LEN + i;
    let body = match kind {
        PstpType::ReadReq | PstpType::SendReq => {
            let name_len = usize::from(body[14]);
            exact(REQ_FIXED + name_len).map_err(|e| match body.len() < REQ_FIXED + name_len {
                true => WireError::Truncated {
                    what: "PS-TP object name",
                    offset: at(REQ_FIXED),
                    needed: name_len,
                    available: body.len() - REQ_FIXED,
                },
                false => e,
            })?;
            let object = std::str::from_utf8(&body[REQ_FIXED..])
                .map_err(|e| bad("object name", at(REQ_FIXED + e.valid_up_to()), 0, "not UTF-8"))?;
            let size = opt_size(be_u64(body, 6));
            if kind == PstpType::SendReq && size.is_none() {
                return Err(bad("size", at(6), PSTP_SIZE_UNKNOWN, "a SEND_REQ must announce its size"));
            }
            let r = PstpRequest {
                fh_addr: Ipv4Addr::new(body[0], body[1], body[2], body[3]),
                fh_port: u16::from_be_bytes([body[4], body[5]]),
                size,
                object,
            };
            if kind == PstpType::ReadReq {
                PstpBody::ReadReq(r)
            } else {
                PstpBody::SendReq(r)
            }
        }
        PstpType::OkToSend => {
            exact(8)?;
            PstpBody::OkToSend { offset: be_u64(body, 0) }
        }
        PstpType::Ack => {
            exact(8)?;
            PstpBody::Ack { offset: be_u64(body, 0) }
        }
        PstpType::ResidualTime => {
            exact(12)?;
            let residual_ms = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
            PstpBody::ResidualTime { residual_ms, size: opt_size(be_u64(body, 4)) }
        }
        PstpType::Poll => {
            exact(0)?;
            PstpBody::Poll
        }
        PstpType::Data => {
            let offset = be_u64(body, 0);
            if offset.checked_add(body.len() as u64 - 8).is_none() {
                return Err(bad("offset", at(0), offset, "offset + payload length overflows"));
            }
            PstpBody::Data { offset, payload: &body[8..] }
        }
        PstpType::Error => {
            exact(1)?;
            PstpBody::Error(PstpErrorCode::from_code(body[0]).ok_or(bad("error code", at(0), u64::from(body[0]), "undefined code"))?)
        }
    };
    Ok(PstpMessage { transfer, seq, body })
}

#[cfg(test)]
#[path = "pstp_tests.rs"]
mod tests;
