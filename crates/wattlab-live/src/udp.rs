//! What the UDP hosts ([`crate::wwp_host`], [`crate::psna_host`]) share: reading what has
//! arrived on a non-blocking socket in a bounded batch.

use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};

/// Reads up to `max` datagrams that have arrived on `sock` (non-blocking) into `buf`, handing
/// each to `on`; stops at the first `WouldBlock`. An interrupted call or an ICMP refusal of an
/// earlier send (the peer is gone or not bound yet) is skipped; any other error is returned.
pub fn recv_batch(sock: &UdpSocket, buf: &mut [u8], max: usize, mut on: impl FnMut(&[u8], SocketAddr)) -> Result<(), String> {
    for _ in 0..max {
        match sock.recv_from(buf) {
            Ok((n, from)) => on(&buf[..n], from),
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) if matches!(e.kind(), ErrorKind::Interrupted | ErrorKind::ConnectionRefused) => {}
            Err(e) => return Err(format!("receiving on {}: {e}", sock.local_addr().map_or_else(|_| "?".into(), |a| a.to_string()))),
        }
    }
    Ok(())
}
