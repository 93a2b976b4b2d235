//! Simulator (being written).
pub mod pcap;
