//! Compact packet records and the decoding of one captured frame (link, IP, transport).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use etherparse::err::packet::SliceError;
use etherparse::{EtherType, LaxNetSlice, LaxSlicedPacket, TransportSlice};

use crate::wlan::phy_header::WlanHeader;

/// Link-layer header types the reader decodes (pcap `LINKTYPE_*` numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkType {
    /// `LINKTYPE_NULL` (0): BSD loopback, 4-byte address family in the writer's byte order.
    Null,
    /// `LINKTYPE_ETHERNET` (1): Ethernet II, with any 802.1Q / 802.1ad VLAN tags.
    Ethernet,
    /// `LINKTYPE_RAW` (101): a bare IPv4 or IPv6 packet.
    Raw,
    /// `LINKTYPE_LOOP` (108): OpenBSD loopback, 4-byte address family in network byte order.
    Loop,
    /// `LINKTYPE_LINUX_SLL` (113): Linux cooked capture v1 (16-byte header).
    LinuxSll,
    /// `LINKTYPE_IPV4` (228): a bare IPv4 packet.
    Ipv4,
    /// `LINKTYPE_IPV6` (229): a bare IPv6 packet.
    Ipv6,
    /// `LINKTYPE_LINUX_SLL2` (276): Linux cooked capture v2 (20-byte header).
    LinuxSll2,
    /// `LINKTYPE_IEEE802_11` (105): 802.11 frames without a capture header (or FCS).
    Ieee80211,
    /// `LINKTYPE_IEEE802_11_RADIOTAP` (127): radiotap header, then the 802.11 frame.
    Radiotap,
    /// `LINKTYPE_IEEE802_11_AVS` (163): AVS header, then the 802.11 frame.
    Avs,
    /// `LINKTYPE_PPI` (192): Per-Packet Information header, then the 802.11 frame.
    Ppi,
}

impl LinkType {
    /// The link type with pcap number `n`, or `None` if the reader does not decode it.
    pub fn from_number(n: u32) -> Option<LinkType> {
        Some(match n {
            0 => LinkType::Null,
            1 => LinkType::Ethernet,
            101 => LinkType::Raw,
            108 => LinkType::Loop,
            113 => LinkType::LinuxSll,
            228 => LinkType::Ipv4,
            229 => LinkType::Ipv6,
            276 => LinkType::LinuxSll2,
            105 => LinkType::Ieee80211,
            127 => LinkType::Radiotap,
            163 => LinkType::Avs,
            192 => LinkType::Ppi,
            _ => return None,
        })
    }

    /// The pcap `LINKTYPE_*` number.
    pub fn number(self) -> u32 {
        match self {
            LinkType::Null => 0,
            LinkType::Ethernet => 1,
            LinkType::Raw => 101,
            LinkType::Loop => 108,
            LinkType::LinuxSll => 113,
            LinkType::Ipv4 => 228,
            LinkType::Ipv6 => 229,
            LinkType::LinuxSll2 => 276,
            LinkType::Ieee80211 => 105,
            LinkType::Radiotap => 127,
            LinkType::Avs => 163,
            LinkType::Ppi => 192,
        }
    }

    /// The capture header in front of each frame, for the 802.11 link types.
    pub fn wlan_header(self) -> Option<WlanHeader> {
        match self {
            LinkType::Ieee80211 => Some(WlanHeader::Plain),
            LinkType::Radiotap => Some(WlanHeader::Radiotap),
            LinkType::Avs => Some(WlanHeader::Avs),
            LinkType::Ppi => Some(WlanHeader::Ppi),
            _ => None,
        }
    }
}

/// pcap's name for a link type number (`LINKTYPE_` prefix dropped), as in error messages.
pub fn link_type_name(n: u32) -> String {
    match pcap_file::DataLink::from(n) {
        pcap_file::DataLink::Unknown(n) => format!("unknown link type {n}"),
        named => format!("{named:?}"),
    }
}

/// TCP header fields of a segment; `payload_len` comes from the IP length fields, not from
/// the captured bytes, so it is right for snaplen-truncated captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpInfo {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number (meaningful when the ACK flag is set).
    pub ack: u32,
    /// The 8 flag bits as on the wire: CWR ECE URG ACK PSH RST SYN FIN (FIN = bit 0).
    pub flags: u8,
    /// Window field, unscaled.
    pub window: u16,
    /// Header length in bytes, options included (20..=60).
    pub header_len: u8,
    /// Payload bytes: IP length minus the IP and TCP headers.
    pub payload_len: u32,
}

impl TcpInfo {
    /// FIN flag bit.
    pub const FIN: u8 = 0x01;
    /// SYN flag bit.
    pub const SYN: u8 = 0x02;
    /// RST flag bit.
    pub const RST: u8 = 0x04;
    /// PSH flag bit.
    pub const PSH: u8 = 0x08;
    /// ACK flag bit.
    pub const ACK: u8 = 0x10;
}

/// UDP header fields of a datagram; `payload_len` comes from the IP length (the UDP length
/// field is ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpInfo {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Payload bytes: IP length minus the IP header and 8.
    pub payload_len: u32,
}

/// What the IP packet carries, as far as the reader decodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// A complete TCP header.
    Tcp(TcpInfo),
    /// A complete UDP header.
    Udp(UdpInfo),
    /// Another protocol (ICMP, ESP, ...): counted by size only.
    Other,
    /// An IP fragment (first or later): counted by size; its transport header is not decoded.
    Fragment,
    /// TCP or UDP whose header is cut by the snaplen or malformed: counted by size.
    Undecoded,
}

/// One captured IP packet, decoded; `Copy` and allocation-free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TracePacket {
    /// 0-based index of the packet record in file order (skipped records count too).
    pub index: u64,
    /// Byte offset of the packet's record (pcap) or block (pcapng) in the file.
    pub offset: u64,
    /// Capture time in nanoseconds since the Unix epoch (UTC).
    pub ts_ns: u64,
    /// The record's sub-second field was out of range (pcap: ≥ 10⁶ µs or ≥ 10⁹ ns), a sign
    /// of a corrupt or hand-made capture; `ts_ns` carries the excess into the seconds, as
    /// written. Never set for pcapng, whose timestamps are one count.
    pub odd_fraction: bool,
    /// pcapng interface id (0 for pcap files).
    pub interface: u32,
    /// Bytes captured in the record.
    pub cap_len: u32,
    /// Original (wire) length of the frame, link header included, as the record states it.
    pub orig_len: u32,
    /// IP version: 4 or 6.
    pub ip_version: u8,
    /// Source address.
    pub src: IpAddr,
    /// Destination address.
    pub dst: IpAddr,
    /// IP protocol number (for IPv6 the payload's, after extension headers).
    pub protocol: u8,
    /// IP length in bytes: the IPv4 total length, or 40 + the IPv6 payload length. When the
    /// field is 0 (TSO captures, jumbograms) it is taken from the captured bytes; when it
    /// claims more than the frame carries (its original length less the link header), it is
    /// capped to what the frame carries (see [`TracePacket::ip_len_claimed`]).
    pub ip_len: u32,
    /// The IP length the header claimed, when it was more than the frame carries and
    /// [`TracePacket::ip_len`] was capped (`None` for a consistent header).
    pub ip_len_claimed: Option<u32>,
    /// Transport header, if decoded.
    pub transport: Transport,
}

/// Why a packet record was skipped (counted, not an error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkipReason {
    /// Not IPv4 or IPv6 (ARP, LLDP, STP, ...).
    NotIp,
    /// The captured bytes end inside the link or IP header (snaplen, or a runt frame).
    HeaderCut,
    /// The IP header is malformed (wrong version, IHL < 5, bad extension header, ...).
    MalformedIp,
    /// An 802.11 frame the capturing radio marked as failing its FCS (or PLCP CRC) check: a
    /// monitor capture normally holds some; their contents cannot be trusted.
    BadFcs,
    /// An 802.11 frame whose header is malformed (protocol version not 0).
    MalformedWlan,
    /// An 802.11 data frame with the Protected bit: its payload is encrypted (length known).
    Protected,
    /// Not an 802.11 frame (a non-802.11 interface, read as 802.11).
    NotWlan,
}

impl SkipReason {
    /// Every reason, in a fixed order (the index used by [`crate::Skips`]).
    pub const ALL: [SkipReason; 7] = [
        SkipReason::NotIp,
        SkipReason::HeaderCut,
        SkipReason::MalformedIp,
        SkipReason::BadFcs,
        SkipReason::MalformedWlan,
        SkipReason::Protected,
        SkipReason::NotWlan,
    ];

    /// Short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::NotIp => "not IP",
            SkipReason::HeaderCut => "captured bytes end inside the link or IP header",
            SkipReason::MalformedIp => "malformed IP header",
            SkipReason::BadFcs => "802.11 frame with a bad FCS",
            SkipReason::MalformedWlan => "malformed 802.11 header",
            SkipReason::Protected => "802.11 protected frame (payload encrypted)",
            SkipReason::NotWlan => "not an 802.11 frame",
        }
    }

    pub(crate) fn idx(self) -> usize {
        self as usize
    }
}

/// Frame metadata the reader knows before decoding the bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameMeta {
    pub index: u64,
    pub offset: u64,
    pub ts_ns: u64,
    pub odd_fraction: bool,
    pub interface: u32,
    pub orig_len: u32,
}

const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_IPV6: u16 = 0x86dd;

/// Decode one frame of link type `link`: a packet, or the reason to skip it.
pub(crate) fn decode_frame(
    link: LinkType,
    data: &[u8],
    meta: FrameMeta,
) -> Result<TracePacket, SkipReason> {
    let sliced = match link {
        LinkType::Ethernet => {
            LaxSlicedPacket::from_ethernet(data).map_err(|_| SkipReason::HeaderCut)?
        }
        LinkType::Raw | LinkType::Ipv4 | LinkType::Ipv6 => from_ip(data)?,
        LinkType::Null | LinkType::Loop => {
            // 4-byte address family: AF_INET is 2 everywhere; AF_INET6 is 10 (Linux), 24
            // (NetBSD, OpenBSD), 28 (FreeBSD), 30 (macOS). NULL is in the writer's byte
            // order, so accept either order.
            let fam = data.get(..4).ok_or(SkipReason::HeaderCut)?;
            let fam = u32::from_be_bytes([fam[0], fam[1], fam[2], fam[3]]);
            let fam = if fam > 0xffff { fam.swap_bytes() } else { fam };
            match fam {
                2 | 10 | 24 | 28 | 30 => from_ip(&data[4..])?,
                _ => return Err(SkipReason::NotIp),
            }
        }
        // Hand-parsed: etherparse's LinuxSllHeader rejects ARPHRD types it does not know
        // (loopback 772 and tun's ARPHRD_NONE, both common in `-i any` captures) and it has
        // no SLL2. The protocol field is an EtherType for every IP-carrying ARPHRD type.
        LinkType::LinuxSll => from_ether_type(be16(data, 14)?, data.get(16..))?,
        LinkType::LinuxSll2 => from_ether_type(be16(data, 0)?, data.get(20..))?,
        // The reader decodes 802.11 records itself (wlan::parse_record, then decode_msdu):
        // they may carry several packets (A-MSDU) or a corrupt capture header.
        LinkType::Ieee80211 | LinkType::Radiotap | LinkType::Avs | LinkType::Ppi => {
            return Err(SkipReason::NotIp)
        }
    };
    classify(&sliced, data, meta)
}

/// Decode the IP packet an 802.11 MSDU carries: `ether_type` from its SNAP header, the IP
/// header at `at` of `data` (the whole record, so the link header's length is known).
pub(crate) fn decode_msdu(
    ether_type: u16,
    data: &[u8],
    at: usize,
    meta: FrameMeta,
) -> Result<TracePacket, SkipReason> {
    let sliced = from_ether_type(ether_type, data.get(at..))?;
    classify(&sliced, data, meta)
}

fn be16(data: &[u8], at: usize) -> Result<u16, SkipReason> {
    match data.get(at..at + 2) {
        Some(b) => Ok(u16::from_be_bytes([b[0], b[1]])),
        None => Err(SkipReason::HeaderCut),
    }
}

fn from_ip(data: &[u8]) -> Result<LaxSlicedPacket<'_>, SkipReason> {
    use etherparse::err::ip::LaxHeaderSliceError;
    LaxSlicedPacket::from_ip(data).map_err(|e| match e {
        LaxHeaderSliceError::Len(_) => SkipReason::HeaderCut,
        LaxHeaderSliceError::Content(_) => SkipReason::MalformedIp,
    })
}

fn from_ether_type<'a>(
    ether_type: u16,
    rest: Option<&'a [u8]>,
) -> Result<LaxSlicedPacket<'a>, SkipReason> {
    let rest = rest.ok_or(SkipReason::HeaderCut)?;
    match ether_type {
        // IP, or VLAN tags in front of it (etherparse walks them).
        ETHERTYPE_IPV4 | ETHERTYPE_IPV6 | 0x8100 | 0x88a8 | 0x9100 => Ok(
            LaxSlicedPacket::from_ether_type(EtherType(ether_type), rest),
        ),
        _ => Err(SkipReason::NotIp),
    }
}

fn classify(
    sliced: &LaxSlicedPacket<'_>,
    data: &[u8],
    meta: FrameMeta,
) -> Result<TracePacket, SkipReason> {
    let cap_len = u32::try_from(data.len()).unwrap_or(u32::MAX);
    // What the frame carries from its IP header on: its original length (or the captured one,
    // if a corrupt record says less) less the link header in front of the IP header.
    let carried = |ip_header: &[u8]| {
        let link = (ip_header.as_ptr() as usize).saturating_sub(data.as_ptr() as usize);
        meta.orig_len.max(cap_len).saturating_sub(u32::try_from(link).unwrap_or(u32::MAX))
    };
    let (ip_version, src, dst, ip_len, ip_header_len, payload, carried) = match &sliced.net {
        Some(LaxNetSlice::Ipv4(v4)) => {
            let h = v4.header();
            let header_len = h.slice().len() as u32;
            let total = u32::from(h.total_len());
            // Total length 0 (TSO) or below the header: take what was captured.
            let len = if total < header_len {
                header_len + v4.payload().payload.len() as u32
            } else {
                total
            };
            let src = IpAddr::V4(Ipv4Addr::from(h.source()));
            let dst = IpAddr::V4(Ipv4Addr::from(h.destination()));
            (4u8, src, dst, len, header_len, v4.payload(), carried(h.slice()))
        }
        Some(LaxNetSlice::Ipv6(v6)) => {
            let h = v6.header();
            let ext_len = v6.extensions().slice().len() as u32;
            let payload_field = u32::from(h.payload_length());
            let len = if payload_field == 0 {
                40 + ext_len + v6.payload().payload.len() as u32
            } else {
                40 + payload_field
            };
            let src = IpAddr::V6(Ipv6Addr::from(h.source()));
            let dst = IpAddr::V6(Ipv6Addr::from(h.destination()));
            (6u8, src, dst, len, 40 + ext_len, v6.payload(), carried(h.slice()))
        }
        Some(LaxNetSlice::Arp(_)) => return Err(SkipReason::NotIp),
        None => {
            return Err(match &sliced.stop_err {
                None => SkipReason::NotIp,
                Some((SliceError::Len(_), _)) => SkipReason::HeaderCut,
                Some(_) => SkipReason::MalformedIp,
            })
        }
    };
    // A length field claiming more than the frame carries (65535 on a 1514-byte frame) is a
    // corrupt or forged header, not bytes on the air: cost what the frame carries, and say so.
    let (ip_len, ip_len_claimed) = if ip_len > carried && carried >= ip_header_len {
        (carried, Some(ip_len))
    } else {
        (ip_len, None)
    };
    let protocol = payload.ip_number.0;
    let after_ip = ip_len.saturating_sub(ip_header_len);
    let transport = if payload.fragmented {
        Transport::Fragment
    } else {
        match &sliced.transport {
            Some(TransportSlice::Tcp(tcp)) => {
                let header_len = tcp.header_slice().len() as u32;
                let hdr = tcp.header_slice();
                Transport::Tcp(TcpInfo {
                    src_port: tcp.source_port(),
                    dst_port: tcp.destination_port(),
                    seq: tcp.sequence_number(),
                    ack: tcp.acknowledgment_number(),
                    flags: hdr[13],
                    window: tcp.window_size(),
                    header_len: header_len as u8,
                    payload_len: after_ip.saturating_sub(header_len),
                })
            }
            Some(TransportSlice::Udp(udp)) => Transport::Udp(UdpInfo {
                src_port: udp.source_port(),
                dst_port: udp.destination_port(),
                payload_len: after_ip.saturating_sub(8),
            }),
            _ if protocol == 6 || protocol == 17 => Transport::Undecoded,
            _ => Transport::Other,
        }
    };
    Ok(TracePacket {
        index: meta.index,
        offset: meta.offset,
        ts_ns: meta.ts_ns,
        odd_fraction: meta.odd_fraction,
        interface: meta.interface,
        cap_len,
        orig_len: meta.orig_len,
        ip_version,
        src,
        dst,
        protocol,
        ip_len,
        ip_len_claimed,
        transport,
    })
}
