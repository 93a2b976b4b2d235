//! Helpers shared by the integration tests: frame and capture builders.
#![allow(dead_code)]

use std::borrow::Cow;
use std::time::Duration;

use etherparse::PacketBuilder;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::{DataLink, Endianness, TsResolution};

pub const MAC_A: [u8; 6] = [2, 0, 0, 0, 0, 1];
pub const MAC_B: [u8; 6] = [2, 0, 0, 0, 0, 2];

/// IPv4 TCP packet (no link header) with `payload` zero bytes.
pub fn ipv4_tcp(
    src: [u8; 4],
    dst: [u8; 4],
    ports: (u16, u16),
    seq: u32,
    ack: u32,
    payload: usize,
) -> Vec<u8> {
    let b = PacketBuilder::ipv4(src, dst, 64)
        .tcp(ports.0, ports.1, seq, 1000)
        .ack(ack)
        .psh();
    let mut v = Vec::new();
    b.write(&mut v, &vec![0; payload]).unwrap();
    v
}

/// IPv6 TCP packet (no link header).
pub fn ipv6_tcp(
    src: [u8; 16],
    dst: [u8; 16],
    ports: (u16, u16),
    seq: u32,
    payload: usize,
) -> Vec<u8> {
    let b = PacketBuilder::ipv6(src, dst, 64)
        .tcp(ports.0, ports.1, seq, 2000)
        .syn();
    let mut v = Vec::new();
    b.write(&mut v, &vec![0; payload]).unwrap();
    v
}

/// IPv6 UDP packet (no link header).
pub fn ipv6_udp(src: [u8; 16], dst: [u8; 16], ports: (u16, u16), payload: usize) -> Vec<u8> {
    let b = PacketBuilder::ipv6(src, dst, 64).udp(ports.0, ports.1);
    let mut v = Vec::new();
    b.write(&mut v, &vec![0; payload]).unwrap();
    v
}

/// Ethernet II frame around `ip` (EtherType from the IP version).
pub fn ethernet(ip: &[u8]) -> Vec<u8> {
    let ether_type: u16 = if ip[0] >> 4 == 6 { 0x86dd } else { 0x0800 };
    let mut v = Vec::new();
    v.extend_from_slice(&MAC_B);
    v.extend_from_slice(&MAC_A);
    v.extend_from_slice(&ether_type.to_be_bytes());
    v.extend_from_slice(ip);
    v
}

/// Ethernet frame with an 802.1Q tag (VLAN `vid`) around `ip`.
pub fn ethernet_vlan(ip: &[u8], vid: u16) -> Vec<u8> {
    let plain = ethernet(ip);
    let mut v = plain[..12].to_vec();
    v.extend_from_slice(&0x8100u16.to_be_bytes());
    v.extend_from_slice(&vid.to_be_bytes());
    v.extend_from_slice(&plain[12..]);
    v
}

/// An ARP request frame.
pub fn arp() -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&[0xff; 6]);
    v.extend_from_slice(&MAC_A);
    v.extend_from_slice(&0x0806u16.to_be_bytes());
    v.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    v.extend_from_slice(&MAC_A);
    v.extend_from_slice(&[10, 0, 0, 1]);
    v.extend_from_slice(&[0; 6]);
    v.extend_from_slice(&[10, 0, 0, 2]);
    v
}

/// Linux cooked v1 frame around `ip` (ARPHRD_ETHER, outgoing).
pub fn sll(ip: &[u8]) -> Vec<u8> {
    let proto: u16 = if ip[0] >> 4 == 6 { 0x86dd } else { 0x0800 };
    let mut v = vec![0, 4, 0, 1, 0, 6];
    v.extend_from_slice(&MAC_A);
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(&proto.to_be_bytes());
    v.extend_from_slice(ip);
    v
}

/// Linux cooked v2 frame around `ip` (ARPHRD_LOOPBACK, as `-i any` shows `lo`).
pub fn sll2(ip: &[u8]) -> Vec<u8> {
    let proto: u16 = if ip[0] >> 4 == 6 { 0x86dd } else { 0x0800 };
    let mut v = Vec::new();
    v.extend_from_slice(&proto.to_be_bytes());
    v.extend_from_slice(&[0, 0]);
    v.extend_from_slice(&1u32.to_be_bytes());
    v.extend_from_slice(&772u16.to_be_bytes());
    v.extend_from_slice(&[0, 6]);
    v.extend_from_slice(&[0; 8]);
    v.extend_from_slice(ip);
    v
}

/// A pcap file of `frames` (timestamp ns, bytes).
pub fn pcap(
    link: DataLink,
    res: TsResolution,
    endianness: Endianness,
    frames: &[(u64, Vec<u8>)],
) -> Vec<u8> {
    let header = PcapHeader {
        datalink: link,
        ts_resolution: res,
        endianness,
        ..Default::default()
    };
    let mut w = PcapWriter::with_header(Vec::new(), header).unwrap();
    for (t, f) in frames {
        w.write_packet(&PcapPacket::new(
            Duration::from_nanos(*t),
            f.len() as u32,
            f,
        ))
        .unwrap();
    }
    w.into_writer()
}

/// A pcap file of `frames` (timestamp ns, captured bytes, original length): a snaplen cut
/// keeps the frame's original length.
pub fn pcap_cut(link: DataLink, frames: &[(u64, Vec<u8>, u32)]) -> Vec<u8> {
    let header = PcapHeader { datalink: link, ts_resolution: TsResolution::NanoSecond, ..Default::default() };
    let mut w = PcapWriter::with_header(Vec::new(), header).unwrap();
    for (t, f, orig) in frames {
        w.write_packet(&PcapPacket::new(Duration::from_nanos(*t), *orig, f)).unwrap();
    }
    w.into_writer()
}

/// A pcapng interface: link type and if_tsresol (None: default µs).
pub fn idb(link: DataLink, tsresol: Option<u8>) -> InterfaceDescriptionBlock<'static> {
    let options = tsresol
        .map(InterfaceDescriptionOption::IfTsResol)
        .into_iter()
        .collect();
    InterfaceDescriptionBlock {
        linktype: link,
        snaplen: 0,
        options,
    }
}

/// A pcapng file with `interfaces` and packets (interface, raw timestamp in its units, bytes).
pub fn pcapng(
    endianness: Endianness,
    interfaces: Vec<InterfaceDescriptionBlock<'static>>,
    packets: &[(u32, u64, Vec<u8>)],
) -> Vec<u8> {
    let mut w = PcapNgWriter::with_endianness(Vec::new(), endianness).unwrap();
    for i in interfaces {
        w.write_pcapng_block(i).unwrap();
    }
    for (iface, raw, data) in packets {
        let epb = EnhancedPacketBlock {
            interface_id: *iface,
            timestamp: Duration::from_nanos(*raw),
            original_len: data.len() as u32,
            data: Cow::Borrowed(data),
            options: vec![],
        };
        w.write_pcapng_block(epb).unwrap();
    }
    w.into_inner()
}
