//! wattlab's capture reader: streams pcap and pcapng files into compact, `Copy` packet
//! records ([`TracePacket`]) for the trace analyzer, with per-address traffic totals.
//!
//! See `docs/trace.md` for what is accepted, what is skipped and what is an error.

mod error;
mod packet;
mod reader;
mod totals;

pub use error::{Location, TraceError};
pub use packet::{link_type_name, LinkType, SkipReason, TcpInfo, TracePacket, Transport, UdpInfo};
pub use reader::{CaptureFormat, Skips, Stats, TraceReader, MAX_RECORD_LEN};
pub use totals::{address_totals, busiest_address, AddressTotals, Totals};
