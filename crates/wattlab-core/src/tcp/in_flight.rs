//! What counts as in flight when new data may be sent outside loss recovery (`tcp.in_flight`).
//!
//! `rfc5681` (the textbook default): outside recovery the sender may send while FlightSize =
//! snd_nxt − snd_una is below cwnd (RFC 5681 §2); SACKed data still counts. In recovery (and
//! after an RTO, until its data is acknowledged) the RFC 6675 `pipe` paces sending either way.
//!
//! `linux`: Linux 6.18 tests cwnd against `tcp_packets_in_flight` everywhere
//! (net/ipv4/tcp_output.c `tcp_cwnd_test`; include/net/tcp.h `tcp_packets_in_flight` =
//! `packets_out − tcp_left_out + retrans_out`, `tcp_left_out` = `sacked_out + lost_out`).
//! `sacked_out` is counted by `tcp_sacktag_one` (net/ipv4/tcp_input.c) whatever the congestion
//! state, so SACKed segments leave the flight already in Open/Disorder, before recovery starts
//! (outside recovery `lost_out` and `retrans_out` are 0 here: RACK marking a loss starts
//! recovery). The peer's window is still tested from snd_una (`tcp_snd_wnd_test`). This is
//! the byte form of it for SACK connections: outside recovery, in flight = snd_nxt − snd_una
//! − SACKed bytes. Not modelled: a non-SACK Linux sender's `tcp_add_reno_sack` (each duplicate
//! ACK counted as one SACKed segment); without SACK the option changes nothing.

use super::named_option::named_option;

named_option! {
    /// What counts as in flight for sending new data outside loss recovery.
    pub enum InFlight("in_flight") {
        /// RFC 5681's FlightSize, SACKed data included. The textbook default.
        #[default]
        Rfc5681 = "rfc5681",
        /// Linux's `tcp_packets_in_flight`: SACKed data excluded also outside recovery.
        Linux = "linux",
    }
    aliases { "rfc" => Rfc5681 }
    /// A name that matches no [`InFlight`].
    error UnknownInFlight;
}

/// Room for new data outside recovery: cwnd minus what is in flight (`flight` = snd_nxt −
/// snd_una less `sacked` with `linux`, all of it with `rfc5681`), and the peer's window
/// `snd_wnd` from snd_una.
pub fn usable(cwnd: u64, snd_wnd: u64, flight: u64, sacked: u64) -> u64 {
    cwnd.saturating_sub(flight.saturating_sub(sacked)).min(snd_wnd.saturating_sub(flight))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sacked_bytes_leave_the_flight_but_not_the_peers_window() {
        // cwnd 10, window 20, 10 outstanding of which 3 SACKed: Linux may send 3 more.
        assert_eq!(usable(10, 20, 10, 3), 3);
        assert_eq!(usable(10, 20, 10, 0), 0, "nothing SACKed: RFC 5681's FlightSize");
        // The peer's window counts from snd_una: SACKed data still occupies it.
        assert_eq!(usable(10, 11, 10, 3), 1);
        assert_eq!(usable(10, 8, 10, 3), 0);
    }

    #[test]
    fn names_and_default() {
        assert_eq!(InFlight::default(), InFlight::Rfc5681);
        assert_eq!(InFlight::from_name("rfc"), Ok(InFlight::Rfc5681));
        assert_eq!(InFlight::from_name("LINUX"), Ok(InFlight::Linux));
        assert_eq!(InFlight::from_name("pipe").unwrap_err().to_string(), "unknown in_flight `pipe` (known: rfc5681, linux)");
    }
}
