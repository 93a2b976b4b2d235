//! Errors of the capture reader: each names the file, the byte offset and, when a packet
//! record is involved, its 0-based index.

use std::fmt;
use std::io;

/// Where in a capture an error is: file name, packet index (if a packet record), byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The capture's name as given to the reader (usually its path).
    pub file: String,
    /// 0-based index of the packet record, `None` for file headers and non-packet blocks.
    pub packet: Option<u64>,
    /// Byte offset in the file where the record, block or header starts.
    pub offset: u64,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.packet {
            Some(p) => write!(
                f,
                "{}: packet {p} at byte offset {}",
                self.file, self.offset
            ),
            None => write!(f, "{}: byte offset {}", self.file, self.offset),
        }
    }
}

/// A capture that cannot be read further. Errors end the stream: after one, the reader
/// yields nothing more. Per-packet problems are not errors but counted skips.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file cannot be opened or read.
    #[error("{at}: cannot read: {source}")]
    Io {
        /// Where reading failed.
        at: Location,
        /// The I/O error.
        source: io::Error,
    },
    /// The first four bytes are neither a pcap nor a pcapng magic number.
    #[error("{at}: not a pcap or pcapng file (magic number {magic:#010x})")]
    BadMagic {
        /// Offset 0 of the file.
        at: Location,
        /// The first four bytes, read big-endian.
        magic: u32,
    },
    /// The file ends inside a header, record or block.
    #[error("{at}: truncated file: the {what} needs {need} bytes but only {have} remain")]
    Truncated {
        /// Where the header, record or block starts.
        at: Location,
        /// What was being read ("pcap file header", "packet record", "pcapng block", ...).
        what: &'static str,
        /// Bytes it needs.
        need: u64,
        /// Bytes left in the file from its start.
        have: u64,
    },
    /// A header, record or block has impossible contents.
    #[error("{at}: corrupt {what}: {detail}")]
    Corrupt {
        /// Where the header, record or block starts.
        at: Location,
        /// What is corrupt.
        what: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// Packets of a link type the reader does not decode.
    #[error("{at}: unsupported link type {name} ({number}); supported: Ethernet (1), RAW (101), IPV4 (228), IPV6 (229), LINUX_SLL (113), LINUX_SLL2 (276), NULL (0), LOOP (108), IEEE802_11 (105), IEEE802_11_RADIOTAP (127), IEEE802_11_AVS (163), PPI (192)")]
    UnknownLinkType {
        /// The pcap file header (offset 0), or the first pcapng packet on such an interface.
        at: Location,
        /// pcap's name for the number.
        name: String,
        /// The `LINKTYPE_*` number.
        number: u32,
    },
    /// A timestamp that does not fit in u64 nanoseconds since 1970 (before 1970 or after
    /// 2554).
    #[error("{at}: timestamp out of range (before 1970 or after 2554)")]
    Timestamp {
        /// The packet record.
        at: Location,
    },
}

impl TraceError {
    /// Where the error is.
    pub fn location(&self) -> &Location {
        match self {
            TraceError::Io { at, .. }
            | TraceError::BadMagic { at, .. }
            | TraceError::Truncated { at, .. }
            | TraceError::Corrupt { at, .. }
            | TraceError::UnknownLinkType { at, .. }
            | TraceError::Timestamp { at } => at,
        }
    }
}
