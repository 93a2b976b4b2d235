//! wattlab's trace analyzer: streams pcap and pcapng files into compact, `Copy` packet
//! records ([`TracePacket`]), with per-address traffic totals, and costs a client's traffic
//! on its radio under power policies ([`energy::analyze`]).
//!
//! See `docs/trace.md` for what is accepted, what is skipped and what is an error.

pub mod airtime;
pub mod energy;
pub mod energybox;
pub mod energybox_engine;
pub mod observed;
pub mod policy_spec;
pub mod tables;
pub mod throughput;
pub mod timecheck;
pub mod transitions;
pub mod trim;
pub mod twt;
pub mod wlan;

mod connections;
mod error;
mod packet;
mod reader;
mod totals;

pub use error::{Location, TraceError};
pub use packet::{link_type_name, LinkType, SkipReason, TcpInfo, TracePacket, Transport, UdpInfo};
pub use reader::{CaptureFormat, Frame, LengthCapped, SkippedFrame, Skips, Stats, TraceReader, WlanCounts, MAX_RECORD_LEN};
pub use totals::{address_totals, address_totals_capped, busiest_address, AddressTotals, Totals};
