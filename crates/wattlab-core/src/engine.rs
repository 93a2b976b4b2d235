//! One contract for every sans-IO datagram engine, as quinn-proto's `Connection` is one for
//! QUIC: a host hands it the datagrams that arrived ([`Engine::handle_datagram`]), drains what
//! it wants to send into a buffer the host owns ([`Engine::poll_transmit`]), sleeps until
//! [`Engine::poll_timeout`] and calls [`Engine::handle_timeout`], and hands its application the
//! engine's events ([`Engine::poll_event`]). The engine owns no socket, no clock and no timer;
//! time comes in as an argument.
//!
//! Two hosts drive any engine through this trait alone: the simulator's engine socket
//! (`wattlab-sim`'s `stack::EngineSocket`, one UDP datagram per [`Transmit`]) and the live
//! testbed's host (`wattlab-live`'s `host`, a real UDP socket in a network namespace). A new
//! protocol is a module here that implements [`Engine`], and an application on each side that
//! moves its data; neither host changes.
//!
//! # The driving loop
//! After any input (a datagram, a timeout, an application call), a host *flushes* the engine:
//! it sends every datagram [`Engine::poll_transmit`] gives, then hands every event of
//! [`Engine::poll_event`] to the application, and repeats while there were events (the
//! application's reaction may queue more). So an engine that must have its host act before a
//! datagram leaves (the PSNA mobile switching its card on before a poll) holds the datagram
//! back until the event announcing it was polled, and an action after the last datagram
//! (switching the card off) is an event emitted with it.
//!
//! # Who implements it
//! The Wave & Wait Protocol's endpoint ([`crate::wwp::WwpEndpoint`]), the PSNA mobile and
//! daemon ([`crate::psna::PsnaMobile`], [`crate::psna::PsnaDaemon`]), the SCTP tunnel in its
//! byte form ([`crate::tunnel::TunnelEngine`]) and the stop-and-wait echo
//! ([`crate::echo::EchoEngine`], the smallest example).
//!
//! # Why TCP does not
//! The TCP model ([`crate::tcp::TcpConnection`]) has the same shape (`handle_segment`,
//! `poll_transmit`, `poll_timeout`, `handle_timeout`, `poll_event`) but at the packet level:
//! its segments are [`crate::Packet`]s whose headers are fields and whose payload is a length,
//! never bytes. Routing it through this byte-level trait would encode and decode every segment
//! on the simulator's hottest path (every segment of the reference benchmarks), and buy
//! nothing: live runs use Linux's own TCP, so there is no second host for wattlab's TCP to
//! serve. It stays a variant of the simulator's socket enum, driven by the same flush loop.
//! The tunnel's packet form ([`crate::tunnel::Endpoint`] with packet handles) is a simulator
//! middlebox for the same reason; its byte form implements this trait for the live host.

use crate::packet::Endpoint;
use crate::time::Time;

/// A datagram [`Engine::poll_transmit`] wrote into the host's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Where it goes: `None` for the engine's one peer (the endpoint its host connected it
    /// to), `Some` for an engine that answers whoever wrote (a server).
    pub to: Option<Endpoint>,
    /// Its length: the first `len` bytes of the buffer.
    pub len: usize,
}

/// Why an engine did not use a datagram (it counts it in [`Engine::discarded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    /// The bytes do not decode as the protocol's message.
    #[error("malformed datagram")]
    Malformed,
    /// Another connection's or association's datagram (ports, tag).
    #[error("not this endpoint's datagram")]
    NotOurs,
    /// It decodes but breaks the protocol's rules (a bad stream, data without its payload).
    #[error("invalid datagram")]
    Invalid,
}

/// A sans-IO protocol engine that speaks in datagrams (see the module docs).
pub trait Engine {
    /// What the engine tells its application (connected, readable, a radio command...).
    type Event;

    /// The protocol's short name in result tables (`wwp`, `pstp`, `echo`).
    const PROTOCOL: &'static str;

    /// A datagram's bytes (its UDP payload) arrived from `from` at `now`.
    fn handle_datagram(&mut self, now: Time, from: Endpoint, bytes: &[u8]) -> Result<(), Refused>;

    /// Writes the next datagram to send at `now` into `buf` (cleared first) and says where it
    /// goes; `None` when there is nothing to send. The host calls it until `None` after every
    /// input; nothing is allocated once `buf` has grown to the largest datagram.
    fn poll_transmit(&mut self, now: Time, buf: &mut Vec<u8>) -> Option<Transmit>;

    /// The earliest instant [`Engine::handle_timeout`] has work (`None`: no timer).
    fn poll_timeout(&mut self) -> Option<Time>;

    /// Runs the timers due at `now`.
    fn handle_timeout(&mut self, now: Time);

    /// The next event for the application.
    fn poll_event(&mut self) -> Option<Self::Event>;

    /// Datagrams received and not used: refused, or dropped for want of room.
    fn discarded(&self) -> u64 {
        0
    }
}
