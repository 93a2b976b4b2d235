//! The Wave & Wait Protocol (seed 004, Tsaoussidis, Badr & Verma, ICNP '99) as a sans-IO
//! protocol: an energy-saving transport that sends "waves" of W(i) = 12·i segments back to back
//! and waits for the receiver's single N-S_ACK, which lists the missing segments and chooses
//! the next wave's level from how long the wave took against a baseline.
//!
//! No I/O and no clock: the endpoint is an [`Engine`](crate::engine::Engine), so the host
//! passes `now` in, feeds received datagrams to `handle_datagram`, drains `poll_transmit`,
//! sleeps until `poll_timeout` and calls `handle_timeout`, as for every datagram engine.
//! The segment format is in [`crate::wire::wwp`]; `docs/wwp.md` describes the protocol and
//! every choice made where the paper is silent.
//!
//! Modules: [`config`] (parameters, W(i), B(i)), [`level`] (the band, probe-RTT and handshake
//! level rules), [`seq`] (12-bit sequence unwrapping), [`sender`] (buffer, waves, SEND_T, pause,
//! FIN), [`receiver`] (buffer, wave timing, NACK lists, probe answers), [`probe`] (the probe
//! cycle's ids and stale rules), [`handshake`] (six-way), [`outbox`] (control segments),
//! [`stats`] (counters), [`endpoint`] (all of it behind one interface), [`fuzz`] (a shared
//! property step).

pub mod config;
pub mod endpoint;
pub mod fuzz;
pub mod handshake;
pub mod level;
pub mod outbox;
pub mod probe;
pub mod receiver;
pub mod sender;
pub mod seq;
pub mod stats;

#[cfg(test)]
mod tests;

pub use config::{BaselineSpan, ProbeInWave, WaveEnd, WwpConfig, WwpConfigError, MAX_SEGMENT_SIZE};
pub use endpoint::{Transmit, WwpEndpoint, WwpEvent, WwpFailure, WwpState};
pub use handshake::{HandshakeFailure, HandshakeState};
pub use sender::SendState;
pub use stats::WwpStats;
