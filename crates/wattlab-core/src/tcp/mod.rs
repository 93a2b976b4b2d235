//! The TCP model: a sans-IO TCP connection in the style of quinn-proto / smoltcp.
//!
//! No I/O and no clock: the host passes `now` in, feeds received segments to
//! [`TcpConnection::handle_segment`], drains [`TcpConnection::poll_transmit`], sleeps until
//! [`TcpConnection::poll_timeout`] and calls [`TcpConnection::handle_timeout`]. Application
//! data is modelled by byte counts only.
//!
//! Modules: [`config`] (parameters and defaults), [`seq`] (wrapping sequence arithmetic),
//! [`rtt`] (RFC 6298 estimator), [`cc`] (congestion-window arithmetic, extensible enum),
//! [`recovery`] (duplicate ACKs, fast retransmit, NewReno `recover`), [`reassembly`]
//! (out-of-order intervals), [`state`] (states, events, counters), [`connection`].

pub mod cc;
pub mod config;
pub mod connection;
pub mod reassembly;
pub mod recovery;
pub mod rtt;
pub mod seq;
pub mod state;

#[cfg(test)]
mod tests;

pub use cc::{CongestionControl, RecoveryStyle};
pub use config::{CongestionControlKind, TcpConfig};
pub use connection::TcpConnection;
pub use state::{TcpEvent, TcpState, TcpStats};
