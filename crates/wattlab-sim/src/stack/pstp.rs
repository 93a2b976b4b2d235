//! PS-TP sockets: seed 001's Power-Saving Transport Protocol (`wattlab_core::psna`, sans-IO)
//! carried over UDP, one engine per socket: a mobile host's [`PsnaMobile`] (connected to its
//! daemon's endpoint) or an AP's [`PsnaDaemon`] (answering every mobile that writes to it).
//!
//! Each message is one UDP datagram whose payload is the PS-TP message. Its first
//! [`PROTO_HEADER_MAX`] bytes are the packet's inline protocol header (every message but DATA
//! fits there whole, for object names of at most 7 bytes; a DATA message's header and offset
//! do); the rest counts in the payload length. The simulator carries no payload bytes, so a
//! DATA payload is rebuilt as zeros at the receiver, as WWP's is.
//!
//! Events ([`PstpEvent`]) tell the application what the engine wants from its host: a radio
//! command (the mobile), an application event, FH commands waiting (the daemon, taken with
//! [`PstpSocket::take_fh`]), or that a datagram was handled (the daemon's relay buffer may
//! have grown). A mobile's radio-on command is delivered before the datagram it precedes is
//! sent, so the radio is on when its request leaves.

use std::collections::VecDeque;
use wattlab_core::packet::{Body, ProtoHeader, UdpHeader, PROTO_HEADER_MAX};
use wattlab_core::psna::{
    DaemonEvent, FhCommand, MobileEvent, PsnaDaemon, PsnaMobile, RadioCommand,
};
use wattlab_core::{Endpoint, Packet, Time};

/// The engine behind a PS-TP socket.
pub enum PstpEngine {
    /// A mobile host (one transfer at a time).
    Mobile(Box<PsnaMobile>),
    /// An AP daemon.
    Daemon(Box<PsnaDaemon>),
}

/// What a PS-TP socket tells its application.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PstpEvent {
    /// The mobile switches its card on or off.
    Radio(RadioCommand),
    /// The mobile's application event (completed, failed, a Residual_Time).
    Mobile(MobileEvent),
    /// The daemon's observation (samples, residuals, completion...).
    Daemon(DaemonEvent),
    /// The daemon has FH commands waiting ([`PstpSocket::take_fh`]).
    Fh,
    /// The daemon handled a datagram (a send's relay buffer may have grown).
    Input,
}

/// A PS-TP endpoint on a UDP port.
pub struct PstpSocket {
    /// The protocol engine.
    pub engine: PstpEngine,
    local: Endpoint,
    /// The mobile's daemon (a daemon answers whoever wrote).
    remote: Endpoint,
    tx: Vec<u8>,
    rx: Vec<u8>,
    ip_id: u16,
    fh: VecDeque<FhCommand>,
    input: bool,
    /// Datagrams the engine could not decode.
    pub bad_datagrams: u64,
}

impl PstpSocket {
    /// A mobile bound to `local`, talking to the daemon at `daemon`.
    pub fn new_mobile(m: PsnaMobile, local: Endpoint, daemon: Endpoint) -> PstpSocket {
        PstpSocket::new(PstpEngine::Mobile(Box::new(m)), local, daemon)
    }

    /// A daemon bound to `local`.
    pub fn new_daemon(d: PsnaDaemon, local: Endpoint) -> PstpSocket {
        PstpSocket::new(PstpEngine::Daemon(Box::new(d)), local, local)
    }

    fn new(engine: PstpEngine, local: Endpoint, remote: Endpoint) -> PstpSocket {
        PstpSocket {
            engine,
            local,
            remote,
            tx: Vec::with_capacity(1500),
            rx: Vec::with_capacity(1500),
            ip_id: 1,
            fh: VecDeque::new(),
            input: false,
            bad_datagrams: 0,
        }
    }

    /// The bound address and port.
    pub fn local(&self) -> Endpoint {
        self.local
    }

    /// The daemon's endpoint (a mobile's), or the local one (a daemon's).
    pub fn remote(&self) -> Endpoint {
        self.remote
    }

    /// The mobile engine (panics on a daemon socket: a wattlab bug).
    pub fn mobile(&mut self) -> &mut PsnaMobile {
        match &mut self.engine {
            PstpEngine::Mobile(m) => m,
            PstpEngine::Daemon(_) => unreachable!("not a PS-TP mobile socket"),
        }
    }

    /// The daemon engine (panics on a mobile socket: a wattlab bug).
    pub fn daemon(&mut self) -> &mut PsnaDaemon {
        match &mut self.engine {
            PstpEngine::Daemon(d) => d,
            PstpEngine::Mobile(_) => unreachable!("not a PS-TP daemon socket"),
        }
    }

    /// [`PstpSocket::mobile`], read-only.
    pub fn mobile_ref(&self) -> &PsnaMobile {
        match &self.engine {
            PstpEngine::Mobile(m) => m,
            PstpEngine::Daemon(_) => unreachable!("not a PS-TP mobile socket"),
        }
    }

    /// [`PstpSocket::daemon`], read-only.
    pub fn daemon_ref(&self) -> &PsnaDaemon {
        match &self.engine {
            PstpEngine::Daemon(d) => d,
            PstpEngine::Mobile(_) => unreachable!("not a PS-TP daemon socket"),
        }
    }

    /// The FH commands the daemon issued since the last call.
    pub fn take_fh(&mut self) -> Vec<FhCommand> {
        self.fh.drain(..).collect()
    }

    /// The next datagram to send, if the engine has one (a mobile's waits until its pending
    /// radio commands have been delivered as events).
    pub fn poll_transmit(&mut self) -> Option<Packet> {
        let dst = match &mut self.engine {
            PstpEngine::Mobile(m) => {
                if m.radio_on_pending() {
                    return None;
                }
                m.poll_transmit(&mut self.tx)?;
                self.remote
            }
            PstpEngine::Daemon(d) => d.poll_transmit(&mut self.tx)?,
        };
        let len = self.tx.len();
        let id = self.ip_id;
        self.ip_id = self.ip_id.wrapping_add(1);
        let inline = len.min(PROTO_HEADER_MAX);
        let header = ProtoHeader::new(&self.tx[..inline]).expect("at most PROTO_HEADER_MAX bytes");
        let udp = UdpHeader {
            src_port: self.local.port,
            dst_port: dst.port,
        };
        let mut p = Packet::udp_with(
            self.local.addr,
            dst.addr,
            udp,
            Body::with_header(header),
            len as u32,
        );
        p.ip_id = id;
        Some(p)
    }

    /// A datagram arrived at `now`.
    pub fn handle_packet(&mut self, now: Time, p: &Packet) {
        let head = p.proto_header();
        self.rx.clear();
        self.rx.extend_from_slice(head);
        self.rx.resize((p.payload_len as usize).max(head.len()), 0);
        let ok = match &mut self.engine {
            PstpEngine::Mobile(m) => m.handle_datagram(now, &self.rx).is_ok(),
            PstpEngine::Daemon(d) => {
                self.input = true;
                d.handle_datagram(now, p.src_endpoint(), &self.rx).is_ok()
            }
        };
        if !ok {
            self.bad_datagrams += 1;
        }
    }

    /// The next event for the application.
    pub fn poll_event(&mut self) -> Option<PstpEvent> {
        match &mut self.engine {
            PstpEngine::Mobile(m) => {
                if let Some(r) = m.poll_radio() {
                    return Some(PstpEvent::Radio(r));
                }
                m.poll_event().map(PstpEvent::Mobile)
            }
            PstpEngine::Daemon(d) => {
                let before = self.fh.len();
                while let Some(c) = d.poll_fh() {
                    self.fh.push_back(c);
                }
                if self.fh.len() > before {
                    return Some(PstpEvent::Fh);
                }
                if let Some(e) = d.poll_event() {
                    return Some(PstpEvent::Daemon(e));
                }
                std::mem::take(&mut self.input).then_some(PstpEvent::Input)
            }
        }
    }

    /// When the engine's next timer is due.
    pub fn poll_timeout(&self) -> Option<Time> {
        match &self.engine {
            PstpEngine::Mobile(m) => m.poll_timeout(),
            PstpEngine::Daemon(d) => d.poll_timeout(),
        }
    }

    /// The engine's timer is due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        match &mut self.engine {
            PstpEngine::Mobile(m) => m.handle_timeout(now),
            PstpEngine::Daemon(d) => d.handle_timeout(now),
        }
    }
}
