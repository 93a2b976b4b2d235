//! Middleboxes: protocol logic that sits on a node's interface and sees every packet through
//! it (packet in → verdict), sends packets of its own, keeps timers, and commands the station's
//! radio. Seed 000's client-centered agent is one; a power-saving proxy at an AP or a tunnel
//! endpoint are others.
//!
//! Like the applications, a middlebox never touches the simulation: the simulation hands it
//! packets and timers, then collects what it wants done ([`Middlebox::poll_transmit`],
//! [`Middlebox::poll_radio`], [`Middlebox::poll_timeout`]) once the event is over.

pub mod cc_agent;
pub mod delay;
pub mod tunnel;

use crate::net::link::IfaceId;
use wattlab_core::agent::Verdict;
use wattlab_core::packet::PacketArena;
use wattlab_core::{Endpoint, Packet, Time};

/// A middlebox of any kind.
#[allow(clippy::large_enum_variant)] // a few per run, built once and never moved per packet
pub enum Middlebox {
    /// Seed 000's client-centered agent.
    Cc(cc_agent::CcHost),
    /// One end of seed 002's SCTP tunnel.
    Tunnel(tunnel::TunnelHost),
}

/// What an application told that a middlebox on its node may use.
#[derive(Clone, Copy, Debug)]
pub enum AppHint {
    /// A new page starts: forget per-page state (the agent's RTT cache).
    NewPage,
    /// The response on the connection `local`–`remote` is `bytes` long.
    ResponseSize {
        /// The client's end.
        local: Endpoint,
        /// The server's end.
        remote: Endpoint,
        /// Response bytes (header + body).
        bytes: u64,
    },
    /// A flow of datagrams with an end at this node starts (`open`) or ends: traffic a
    /// client-side agent cannot predict.
    Session {
        /// Starts (true) or ends.
        open: bool,
    },
}

/// A middlebox and its scheduling state.
pub struct MiddleboxSlot {
    /// The middlebox.
    pub mbox: Middlebox,
    /// Time of the timer event scheduled for it, if any.
    pub timer_at: Option<Time>,
    /// Packets held for its processing time (`agent.incoming_delay` / `outgoing_delay`).
    pub hold: delay::Hold,
}

impl Middlebox {
    /// The node it sits on.
    pub fn node(&self) -> u32 {
        match self {
            Middlebox::Cc(h) => h.node,
            Middlebox::Tunnel(t) => t.node,
        }
    }

    /// The interface it watches.
    pub fn iface(&self) -> IfaceId {
        match self {
            Middlebox::Cc(h) => h.iface,
            Middlebox::Tunnel(t) => t.iface,
        }
    }

    /// A packet leaving through its interface at `now`: it may rewrite it or drop it.
    pub fn on_outgoing(&mut self, now: Time, p: &mut Packet) -> Verdict {
        match self {
            Middlebox::Cc(h) => h.agent.on_outgoing(now, p),
            Middlebox::Tunnel(t) => t.on_outgoing(now, p),
        }
    }

    /// A packet arriving at its interface at `now`: dropped if its radio sleeps.
    pub fn on_incoming(&mut self, now: Time, p: &Packet) -> Verdict {
        match self {
            Middlebox::Cc(h) => h.agent.on_incoming(now, p),
            Middlebox::Tunnel(_) => Verdict::Pass,
        }
    }

    /// A packet the station's MAC received at `now` (an 802.11 BSS, where the AP holds frames
    /// for a dozing station: what the MAC delivers an awake radio heard, never lost).
    pub fn on_received(&mut self, now: Time, p: &Packet) {
        match self {
            Middlebox::Cc(h) => h.agent.on_received(now, p),
            Middlebox::Tunnel(_) => {}
        }
    }

    /// A packet its interface received (captured and counted as delivered): true if the
    /// middlebox takes it (a tunnel packet) instead of the node.
    pub fn consume_incoming(&mut self, now: Time, p: &Packet, arena: &PacketArena) -> bool {
        match self {
            Middlebox::Cc(_) => false,
            Middlebox::Tunnel(t) => t.consume_incoming(now, p, arena),
        }
    }

    /// An application on its node told something. True if the middlebox changed (its output
    /// must be collected after the event).
    pub fn on_hint(&mut self, now: Time, hint: AppHint) -> bool {
        match (self, hint) {
            (Middlebox::Cc(h), AppHint::NewPage) => {
                h.agent.flush_site_cache();
                false
            }
            (Middlebox::Cc(h), AppHint::ResponseSize { local, remote, bytes }) => {
                h.agent.expect_response(now, local, remote, bytes);
                true
            }
            (Middlebox::Cc(h), AppHint::Session { open: true }) => {
                h.agent.open_session();
                true
            }
            (Middlebox::Cc(h), AppHint::Session { open: false }) => {
                h.agent.close_session(now);
                true
            }
            (Middlebox::Tunnel(_), _) => false,
        }
    }

    /// Its timer is due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        match self {
            Middlebox::Cc(h) => h.agent.handle_timeout(now),
            Middlebox::Tunnel(t) => t.endpoint.handle_timeout(now),
        }
    }

    /// A packet it wants sent from its node (a tunnel keeps its inner packets in `arena`).
    pub fn poll_transmit(&mut self, now: Time, arena: &mut PacketArena) -> Option<Packet> {
        match self {
            Middlebox::Cc(h) => h.agent.poll_transmit(),
            Middlebox::Tunnel(t) => t.poll_transmit(now, arena),
        }
    }

    /// A packet it hands to its node as if received (a tunnel's inner packets).
    pub fn poll_deliver(&mut self) -> Option<Packet> {
        match self {
            Middlebox::Cc(_) => None,
            Middlebox::Tunnel(t) => t.poll_deliver(),
        }
    }

    /// A radio command: `Some(true)` wake, `Some(false)` sleep.
    pub fn poll_radio(&mut self, now: Time) -> Option<bool> {
        match self {
            Middlebox::Cc(h) => h.agent.poll_radio(now).map(|c| c == wattlab_core::agent::RadioCommand::Wake),
            Middlebox::Tunnel(_) => None,
        }
    }

    /// Moves its log entries out (kept for the run's tables).
    pub fn collect_log(&mut self) {
        match self {
            Middlebox::Cc(h) => {
                while let Some(e) = h.agent.poll_event() {
                    h.log.push(e);
                }
            }
            Middlebox::Tunnel(_) => {}
        }
    }

    /// When its next timer is due (asked at `now`).
    pub fn poll_timeout(&mut self, now: Time) -> Option<Time> {
        match self {
            Middlebox::Cc(h) => h.agent.poll_timeout(),
            Middlebox::Tunnel(t) => t.endpoint.poll_timeout(now),
        }
    }
}
