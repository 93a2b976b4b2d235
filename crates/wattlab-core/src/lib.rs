//! wattlab-core: the sans-IO heart of wattlab.
//!
//! Nothing here does I/O or reads a clock: time comes in as an argument, packets come in as
//! parsed headers, and out come packets to send, timers wanted and radio state changes. The
//! simulator (`wattlab-sim`), the trace analyzer and the live testbed are hosts for this code.
//!
//! - [`time`]: integer-nanosecond instants and spans;
//! - [`engine`]: the one contract of every datagram protocol engine (handle a datagram, poll
//!   transmit into the host's buffer, poll/handle the timeout, poll events);
//! - [`packet`]: compact IPv4/TCP/UDP packets (headers by field, payload by length);
//! - [`wire`]: bytes on the wire for pcap and live mode;
//! - [`tcp`]: the TCP model (handshake, flow control, persist, RTO, congestion control);
//! - [`energy`]: the radio energy model, device profiles and accounting policies;
//! - [`wlan`]: 802.11 PHY timing and the Bianchi and TCP-capacity models;
//! - [`metrics`]: goodput, overhead, fairness indices and seed 003's 3E;
//! - [`power`]: the registry of power-mode and accounting-policy names, and the one station
//!   power-save state machine every MAC drives;
//! - [`wwp`]: seed 004's Wave & Wait Protocol (waves, NACK lists, probe cycle, six-way
//!   handshake);
//! - [`psna`]: seed 001's Power Saving Network Architecture (PS-TP, the AP daemon with its
//!   throughput estimator, the mobile's read and send loops, battery-second units);
//! - [`agent`]: seed 000's client-centered energy-saving agent (closed/open ACKs, window
//!   probes, radio sleep decisions);
//! - [`tunnel`]: seed 002 Ch. 4's SCTP tunnel between a client and its AP;
//! - [`echo`]: a stop-and-wait echo over UDP, the smallest engine (the contract's example).

pub mod agent;
pub mod echo;
pub mod engine;
pub mod energy;
pub mod metrics;
pub mod packet;
pub mod power;
pub mod psna;
pub mod tcp;
pub mod time;
pub mod tunnel;
pub mod wire;
pub mod wlan;
pub mod wwp;

pub use packet::{Endpoint, Packet, TcpFlags, TcpHeader, TcpOptions, Transport};
pub use time::{Duration, Time};
