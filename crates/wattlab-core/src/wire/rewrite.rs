//! In-place header rewrites for the live path: the client-centered agent changes the receive
//! window of an outgoing ACK, and the TCP checksum is fixed up incrementally (RFC 1624, eqn. 3)
//! instead of being recomputed over the whole segment.

use super::WireError;

/// Offset of the window field in a TCP header.
const TCP_WINDOW: usize = 14;
/// Offset of the checksum field in a TCP header.
const TCP_CHECKSUM: usize = 16;

/// Set the TCP window field of the IPv4 packet in `ip` to `window`, updating the TCP checksum
/// incrementally (HC' = ~(~HC + ~m + m'), RFC 1624). Fails, leaving `ip` untouched, if the
/// bytes are not an unfragmented IPv4 TCP segment with a complete TCP header.
pub fn set_tcp_window(ip: &mut [u8], window: u16) -> Result<(), WireError> {
    let truncated = |what, offset: usize, needed| WireError::Truncated { what, offset, needed, available: ip.len().saturating_sub(offset) };
    if ip.len() < 20 {
        return Err(truncated("IPv4 header", 0, 20));
    }
    if ip[0] >> 4 != 4 {
        return Err(WireError::NotIpv4 { version: ip[0] >> 4, offset: 0 });
    }
    let ihl = (ip[0] & 0x0f) as usize * 4;
    if ihl < 20 {
        return Err(WireError::BadIpHeaderLength { ihl: ip[0] & 0x0f, offset: 0 });
    }
    if ip[9] != crate::packet::IPPROTO_TCP {
        return Err(WireError::NotTcp { protocol: ip[9], offset: 9 });
    }
    let frag = u16::from_be_bytes([ip[6], ip[7]]);
    if frag & 0x3fff != 0 {
        return Err(WireError::Fragment { offset: 0, fragment_offset: frag & 0x1fff });
    }
    if ip.len() < ihl + 20 {
        return Err(truncated("TCP header", ihl, 20));
    }
    let t = &mut ip[ihl..];
    let old = u16::from_be_bytes([t[TCP_WINDOW], t[TCP_WINDOW + 1]]);
    let hc = u16::from_be_bytes([t[TCP_CHECKSUM], t[TCP_CHECKSUM + 1]]);
    let mut sum = (!hc) as u32 + (!old) as u32 + window as u32;
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    t[TCP_WINDOW..TCP_WINDOW + 2].copy_from_slice(&window.to_be_bytes());
    t[TCP_CHECKSUM..TCP_CHECKSUM + 2].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Packet, TcpFlags, TcpHeader, TcpOptions, Timestamps, UdpHeader};
    use crate::wire::encode_ipv4;
    use std::net::Ipv4Addr;

    fn ack(window: u16, payload: u32) -> Packet {
        let h = TcpHeader {
            src_port: 50_000,
            dst_port: 80,
            seq: 0x1234_5678,
            ack: 0x9abc_def0,
            flags: TcpFlags::ACK,
            window,
            options: TcpOptions { timestamps: Some(Timestamps { tsval: 77, tsecr: 99 }), ..Default::default() },
        };
        Packet::tcp(Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 0, 1), h, payload)
    }

    #[test]
    fn incremental_checksum_equals_a_full_recomputation() {
        for (from, to, payload) in [(65_535, 0, 0), (0, 65_535, 0), (29_200, 1, 1448), (0x00ff, 0xff00, 7), (1, 1, 0)] {
            let (mut rewritten, mut expected) = (Vec::new(), Vec::new());
            encode_ipv4(&ack(from, payload), &mut rewritten).unwrap();
            encode_ipv4(&ack(to, payload), &mut expected).unwrap();
            set_tcp_window(&mut rewritten, to).unwrap();
            assert_eq!(rewritten, expected, "{from} -> {to}");
        }
    }

    #[test]
    fn non_tcp_and_short_input_are_rejected_untouched() {
        let mut udp = Vec::new();
        encode_ipv4(&Packet::udp(Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST, UdpHeader::default(), 10), &mut udp).unwrap();
        let before = udp.clone();
        assert!(matches!(set_tcp_window(&mut udp, 0), Err(WireError::NotTcp { protocol: 17, offset: 9 })));
        assert_eq!(udp, before);
        let mut tcp = Vec::new();
        encode_ipv4(&ack(100, 0), &mut tcp).unwrap();
        let mut short = tcp[..30].to_vec();
        assert!(matches!(set_tcp_window(&mut short, 0), Err(WireError::Truncated { what: "TCP header", offset: 20, .. })));
        assert!(matches!(set_tcp_window(&mut [0x60; 40], 0), Err(WireError::NotIpv4 { version: 6, .. })));
    }
}
