//! The TCP model: a sans-IO TCP connection in the style of quinn-proto / smoltcp.
//!
//! No I/O and no clock: the host passes `now` in, feeds received segments to
//! [`TcpConnection::handle_segment`], drains [`TcpConnection::poll_transmit`], sleeps until
//! [`TcpConnection::poll_timeout`] and calls [`TcpConnection::handle_timeout`]. Application
//! data is modelled by byte counts only.
//!
//! Modules: [`config`] (parameters and defaults), [`profile`] (`textbook` / `linux` starting
//! configurations), [`seq`] (wrapping sequence arithmetic),
//! [`rtt`] (RFC 6298 estimator), [`coarse_rtt`] (BSD/ns-2 tick-granular RTO, `timer_tick`), [`cc`] (congestion-window arithmetic, extensible enum),
//! [`recovery`] (duplicate ACKs, fast retransmit, NewReno `recover`), [`scoreboard`] (RFC 6675
//! SACK scoreboard: IsLost, pipe, NextSeg), [`prr`] (RFC 6937 Proportional Rate Reduction,
//! option `prr`), [`autotune`] (Linux's receive-window autotuning, option `autotune`),
//! [`rack`] (RFC 8985 RACK-TLP, options `rack` and `tlp`), [`idle_restart`] (Linux's cwnd
//! restart after idle, option `slow_start_after_idle`), [`sack_compress`] (Linux's spacing of duplicate ACKs, option `sack_compress`), [`reassembly`] (out-of-order intervals, SACK block
//! order), [`ooo_limit`] (what bounds the out-of-order queue and the scoreboard, option
//! `ooo_limit`), [`state`] (states, events, counters), [`connection`].
//!
//! Congestion control ([`CongestionControlKind`], one module per algorithm under [`cc`]):
//! - `tahoe`: 4.3BSD-Tahoe as ns-2 `Agent/TCP` — on the third duplicate ACK ssthresh =
//!   FlightSize/2, cwnd = 1 SMSS, go-back-N from snd_una, slow start (no fast recovery);
//! - `reno`: RFC 5681 fast retransmit / fast recovery;
//! - `newreno` (default): RFC 6582, stays in recovery across partial ACKs;
//! - `vegas`: Brakmo & Peterson 1995 with ns-2's α = 1, β = 3, γ = 1 segments, on a
//!   nanosecond RTT of one timed segment per RTT; NewReno loss recovery;
//! - `westwood`: Westwood+ with Linux's bandwidth estimator; ssthresh = BWE·RTTmin after a loss;
//! - `cubic`: RFC 9438 (C = 0.4, β = 0.7, fast convergence, Reno-friendly region); slow start
//!   ends by loss, or by Linux's HyStart or RFC 9406's HyStart++ (option `hystart`, [`cc::hystart`]);
//!   option `cubic = linux` uses Linux's `tcp_cubic.c` arithmetic instead ([`cc::cubic_linux`]).
//!
//! Modelling choices (see [`TcpConfig`] for the defaults):
//! - effective MSS = min(our MSS, peer's MSS) − 12 bytes when timestamps are on (1448, as Linux);
//! - ACKs: every second in-order segment (any size) or after the delayed-ACK timer; immediate
//!   for out-of-order data, hole fills, FIN, handshake and unacceptable segments;
//! - receiver SWS avoidance decides the window value in every segment; a dedicated window
//!   update after `read` is sent only when the window at least doubles (Linux's test), which
//!   includes every opening from zero — so an application reading eagerly does not turn
//!   delayed ACKs into one ACK per segment;
//! - slow start uses RFC 3465 byte counting with L = 2·SMSS; congestion avoidance is
//!   byte-counted (+1 SMSS per cwnd of ACKed bytes);
//! - an RTO retransmits the head segment regardless of the peer's window (doubling as a probe
//!   if the window shrank to zero), then go-back-N; persist probes are zero-length segments
//!   with seq = snd_una − 1, interval RTO·2^k capped at max_rto; when the peer's window is
//!   non-zero but too small for sender SWS avoidance, the persist timer instead sends what fits;
//! - SACK (when both SYNs carry SACK-permitted): every ACK sent while out-of-order data is held
//!   carries SACK blocks, most recent first (RFC 2018 §4; 3 blocks with timestamps, 4 without;
//!   no D-SACK); the sender keeps an RFC 6675 scoreboard and recovers per RFC 6675 §5 whatever
//!   the congestion-control arithmetic (cwnd = ssthresh on entry, sending paced by pipe,
//!   NextSeg rules 1–3, no rescue retransmission); after an RTO it resends only unSACKed data.
//!   SACK information is kept across an RTO: a `ranges32` receiver never reneges, and an
//!   `rcvbuf` receiver that pruned SACKed data is detected as Linux does (`ooo_limit`);
//! - PAWS (RFC 7323 §5) and RST generation for unknown segments are not modelled; the send
//!   buffer is unbounded; one `TcpConnection` serves one connection (a listener binds to the
//!   first SYN and does not return to LISTEN).

pub mod autotune;
pub mod cc;
pub mod coarse_rtt;
pub mod config;
pub mod connection;
pub mod idle_restart;
pub mod in_flight;
mod named_option;
pub mod ooo_limit;
pub mod profile;
pub mod prr;
pub mod rack;
pub mod reassembly;
pub mod recovery;
pub mod rto_linux;
pub mod rto_rearm;
pub mod sack_compress;
pub mod rto_timer;
pub mod rtt;
pub mod rtt_sample;
pub mod scoreboard;
pub mod seq;
pub mod state;

#[cfg(test)]
mod tests;

pub use cc::{AckInfo, CongestionControl, CubicVariant, HyStartMode, RecoveryStyle, UnknownCubicVariant, UnknownHyStart, UnknownVegasRetransmit, VegasRetransmit};
pub use config::{CongestionControlKind, TcpConfig, UnknownCongestionControl};
pub use ooo_limit::{OooLimit, UnknownOooLimit};
pub use prr::{PrrVariant, UnknownPrrVariant};
pub use rto_linux::{RtoMode, UnknownRto};
pub use rto_rearm::{RtoRearm, UnknownRtoRearm};
pub use rto_timer::{RtoTimer, UnknownRtoTimer};
pub use rtt_sample::{RttSample, UnknownRttSample};
pub use in_flight::{InFlight, UnknownInFlight};
pub use recovery::{RecoveryPoint, UnknownRecoveryPoint};
pub use profile::{TcpProfile, UnknownProfile, LINUX_NOT_MODELLED};
pub use connection::TcpConnection;
pub use state::{TcpEvent, TcpState, TcpStats};
