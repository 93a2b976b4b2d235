//! The host stack: sockets, and the demultiplexer that hands an arriving packet to its socket
//! (smoltcp's socket set, in the simulator's terms).
//!
//! A [`Socket`] is a TCP connection (the sans-IO `wattlab_core::tcp` state machine), a
//! datagram socket, or any datagram engine (`wattlab_core::engine::Engine`: WWP, PS-TP, the
//! echo...) on a UDP port ([`EngineSocket`], one socket for all of them); all are driven the
//! same way (`handle_packet`, `handle_timeout`, `poll_transmit`, `poll_event`,
//! `poll_timeout`). Sockets belong to a flow (the application that opened them); the
//! simulation flushes a socket's output into the network and hands its events to its flow.
//!
//! The demultiplexer finds a TCP segment's connection by (node, local, remote) and a
//! datagram's socket by (node, protocol, port): a UDP port, or for ICMP echo replies the echo
//! identifier a ping socket is bound to. Echo requests are answered by the stack itself, as a
//! kernel does. Every socket counts what it sent, what it received and what it dropped
//! ([`SocketStats`], [`Socket::drops`]); the results list them per socket.

mod datagram;
mod engine;
mod tcp;
mod tx_path;

pub use datagram::{DatagramProto, DatagramSocket, DATAGRAM_RCVBUF};
pub use engine::{EngineSocket, Feed, TAIL_RING};
pub use tcp::{ConnHints, Listener};
pub use tx_path::TxPath;

use crate::rng::StreamRng;
use rand::Rng;
use serde::Serialize;
use rustc_hash::FxHashMap;
use std::net::Ipv4Addr;
use wattlab_core::packet::{IcmpMessage, TcpFlags, Transport};
use wattlab_core::engine::Engine;
use wattlab_core::tcp::{TcpConfig, TcpConnection, TcpEvent};
use wattlab_core::{Endpoint, Packet, Time};

/// Index of a socket in the stack.
pub type SockId = u32;

/// Index of the flow (application) a socket belongs to.
pub type Owner = u32;

/// A socket: TCP, datagram or a datagram engine.
// Boxing the TCP variant would add a pointer chase on every segment; datagram sockets are
// few, so the padding they carry costs little.
#[allow(clippy::large_enum_variant)]
pub enum Socket {
    /// A TCP connection.
    Tcp(TcpConnection),
    /// A datagram (UDP) socket.
    Datagram(DatagramSocket),
    /// A datagram engine (WWP, PS-TP, the echo...) on a UDP port.
    Engine(Box<EngineSocket>),
}

/// What a socket tells its application.
#[derive(Clone, Copy, Debug)]
pub enum SocketEvent {
    /// A TCP event (connected, readable, peer FIN...).
    Tcp(TcpEvent),
    /// A datagram arrived (the packet, headers included).
    Datagram(Packet),
    /// The engine has an event: the application takes it, typed, with
    /// [`Stack::take_event`] (untaken, it is dropped when the next one is polled).
    Engine,
}

/// What a socket put on the wire (every packet it handed to the network) and what the
/// demultiplexer handed it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SocketStats {
    /// IP bytes sent (headers and retransmissions included).
    pub wire_bytes: u64,
    /// Packets sent.
    pub wire_packets: u64,
    /// IP bytes received (headers included, whether the socket kept them or not).
    pub bytes_in: u64,
    /// Packets received.
    pub packets_in: u64,
}

impl Socket {
    /// A packet for this socket arrived at `now`.
    pub fn handle_packet(&mut self, now: Time, p: &Packet) {
        match self {
            Socket::Tcp(c) => c.handle_segment(now, p),
            Socket::Datagram(d) => d.handle_packet(p),
            Socket::Engine(e) => e.handle_packet(now, p, None),
        }
    }

    /// The next packet to send, if any.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        match self {
            Socket::Tcp(c) => c.poll_transmit(now),
            Socket::Datagram(d) => d.poll_transmit(),
            Socket::Engine(e) => e.poll_transmit(now),
        }
    }

    /// The next event for the application, if any.
    pub fn poll_event(&mut self) -> Option<SocketEvent> {
        match self {
            Socket::Tcp(c) => c.poll_event().map(SocketEvent::Tcp),
            Socket::Datagram(d) => d.poll_event().map(SocketEvent::Datagram),
            Socket::Engine(e) => e.poll_event().then_some(SocketEvent::Engine),
        }
    }

    /// When the socket's next timer is due, if it has one.
    pub fn poll_timeout(&mut self) -> Option<Time> {
        match self {
            Socket::Tcp(c) => c.poll_timeout(),
            Socket::Datagram(_) => None,
            Socket::Engine(e) => e.poll_timeout(),
        }
    }

    /// The socket's timer is due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        match self {
            Socket::Tcp(c) => c.handle_timeout(now),
            Socket::Engine(e) => e.handle_timeout(now),
            Socket::Datagram(_) => {}
        }
    }

    /// The local endpoint (a ping socket's port is its echo identifier).
    pub fn local(&self) -> Endpoint {
        match self {
            Socket::Tcp(c) => c.local(),
            Socket::Datagram(d) => d.local(),
            Socket::Engine(e) => e.local(),
        }
    }

    /// The remote endpoint of a connection (`None`: an unconnected datagram socket; an engine
    /// socket without a peer answers whoever wrote, and gives its own endpoint).
    pub fn remote(&self) -> Option<Endpoint> {
        match self {
            Socket::Tcp(c) => Some(c.remote()),
            Socket::Datagram(_) => None,
            Socket::Engine(e) => Some(e.remote().unwrap_or(e.local())),
        }
    }

    /// The transport's name in result tables (`tcp`, `udp`, `icmp`, or an engine's over UDP:
    /// `wwp`, `pstp`, `echo`).
    pub fn protocol_name(&self) -> &'static str {
        match self {
            Socket::Tcp(_) => "tcp",
            Socket::Datagram(d) => d.proto().name(),
            Socket::Engine(e) => e.protocol(),
        }
    }

    /// Packets the socket received and discarded: TCP segments outside the window (answered
    /// by an ACK), datagrams that found the receive buffer full, datagrams an engine refused
    /// or had no room for (WWP beyond its receiver buffer) and kept datagrams lost.
    pub fn drops(&self) -> u64 {
        match self {
            Socket::Tcp(c) => c.stats().unacceptable_segments_acked,
            Socket::Datagram(d) => d.dropped,
            Socket::Engine(e) => e.drops(),
        }
    }
}

/// A socket and where it lives.
pub struct SocketSlot {
    /// The socket.
    pub socket: Socket,
    /// Node it runs on.
    pub node: u32,
    /// Flow that owns it.
    pub owner: Owner,
    /// Time of the timer event currently scheduled for it, if any.
    pub timer_at: Option<Time>,
    /// What it handed to the network.
    pub stats: SocketStats,
    /// What its application said about requests and responses (input of a client-side
    /// energy agent).
    pub hints: ConnHints,
}

/// Where an arriving packet goes.
pub enum Demux {
    /// To this socket.
    Socket(SockId),
    /// A SYN a listener accepted: a new socket.
    Accepted {
        /// The new connection.
        sock: SockId,
        /// Its flow.
        owner: Owner,
        /// The listener's tag (which side of the flow).
        tag: u32,
    },
    /// An ICMP echo request: the stack sends this reply (no socket involved).
    Echo(Packet),
    /// Nowhere (no socket, no listener).
    None,
}

/// Every node's sockets, listeners and ephemeral ports.
pub struct Stack {
    /// Sockets, by id.
    pub sockets: Vec<SocketSlot>,
    // Fx, not SipHash: looked up once per packet, keys are not attacker-chosen.
    tcp_index: FxHashMap<(u32, Endpoint, Endpoint), SockId>,
    datagram_index: FxHashMap<(u32, u8, u16), SockId>,
    /// Engine sockets by their local endpoint: where a kept datagram is read from.
    engine_index: FxHashMap<Endpoint, SockId>,
    /// Passive opens.
    pub listeners: Vec<Listener>,
    next_port: Vec<u16>,
    next_ip_id: Vec<u16>,
    /// Each node's transmit path (`node.tx_time`; not paced unless set).
    pub tx_paths: Vec<TxPath>,
    /// Some node's transmit path is paced (sockets are then driven by `drive_paced`).
    pub paced: bool,
    isn_rng: StreamRng,
}

impl Stack {
    /// An empty stack for `nodes` nodes; initial sequence numbers come from `isn_rng`.
    pub fn new(nodes: usize, isn_rng: StreamRng) -> Stack {
        Stack {
            sockets: Vec::new(),
            tcp_index: FxHashMap::default(),
            datagram_index: FxHashMap::default(),
            engine_index: FxHashMap::default(),
            listeners: Vec::new(),
            next_port: vec![49152; nodes],
            next_ip_id: vec![1; nodes],
            tx_paths: vec![TxPath::default(); nodes],
            paced: false,
            isn_rng,
        }
    }

    fn push(&mut self, socket: Socket, node: u32, owner: Owner) -> SockId {
        let id = self.sockets.len() as SockId;
        self.sockets.push(SocketSlot { socket, node, owner, timer_at: None, stats: SocketStats::default(), hints: ConnHints::default() });
        id
    }

    /// Opens a TCP connection from `node` (address `addr`, the next ephemeral port) to
    /// `remote` at `now`, for flow `owner`.
    pub fn connect(&mut self, now: Time, node: u32, addr: Ipv4Addr, remote: Endpoint, config: TcpConfig, owner: Owner) -> SockId {
        let local = self.ephemeral(node, addr);
        let isn = self.isn_rng.random::<u32>();
        let conn = TcpConnection::connect(config, local, remote, isn, now);
        let id = self.push(Socket::Tcp(conn), node, owner);
        self.tcp_index.insert((node, local, remote), id);
        id
    }

    /// The node's address with its next ephemeral port.
    fn ephemeral(&mut self, node: u32, addr: Ipv4Addr) -> Endpoint {
        let p = &mut self.next_port[node as usize];
        let local = Endpoint::new(addr, *p);
        *p = if *p == u16::MAX { 49152 } else { *p + 1 };
        local
    }

    /// Waits for connections as `l` says (node, port, client, owner, tag, one or many).
    pub fn listen(&mut self, l: Listener) {
        self.listeners.push(l);
    }

    /// Opens a UDP socket on `node` bound to `local`, for flow `owner`; `None` if the port is
    /// taken.
    pub fn bind_datagram(&mut self, node: u32, local: Endpoint, owner: Owner) -> Option<SockId> {
        self.bind(node, local, DatagramProto::Udp, owner)
    }

    /// Opens a ping socket on `node` whose echo identifier is `local.port`, for flow `owner`;
    /// `None` if the identifier is taken.
    pub fn bind_ping(&mut self, node: u32, local: Endpoint, owner: Owner) -> Option<SockId> {
        self.bind(node, local, DatagramProto::Ping, owner)
    }

    /// Opens `engine` on `node`, bound to UDP `local` and sending to `remote` unless it names
    /// a destination, for flow `owner`; `feed` writes into it before each transmission. `None`
    /// if the port is taken.
    pub fn bind_engine<E: Engine + Send + 'static>(&mut self, node: u32, local: Endpoint, remote: Option<Endpoint>, engine: E, feed: Option<Box<dyn Feed<E>>>, owner: Owner) -> Option<SockId>
    where
        E::Event: Send + 'static,
    {
        let key = (node, DatagramProto::Udp.ip_protocol(), local.port);
        if self.datagram_index.contains_key(&key) {
            return None;
        }
        let id = self.push(Socket::Engine(Box::new(EngineSocket::new(engine, local, remote, feed))), node, owner);
        self.datagram_index.insert(key, id);
        self.engine_index.insert(local, id);
        Some(id)
    }

    /// The engine socket `s` (panics if it is another kind: a wattlab bug).
    pub fn engine_socket(&mut self, s: SockId) -> &mut EngineSocket {
        match &mut self.sockets[s as usize].socket {
            Socket::Engine(e) => e,
            _ => unreachable!("socket {s} is not an engine socket"),
        }
    }

    /// [`Stack::engine_socket`], read-only.
    pub fn engine_socket_ref(&self, s: SockId) -> &EngineSocket {
        match &self.sockets[s as usize].socket {
            Socket::Engine(e) => e,
            _ => unreachable!("socket {s} is not an engine socket"),
        }
    }

    /// The engine of socket `s` (panics if it is not an `E`: a wattlab bug).
    pub fn engine<E: Engine + 'static>(&mut self, s: SockId) -> &mut E
    where
        E::Event: 'static,
    {
        self.engine_socket(s).engine_mut::<E>().unwrap_or_else(|| unreachable!("socket {s} is not a {} engine", E::PROTOCOL))
    }

    /// [`Stack::engine`], read-only.
    pub fn engine_ref<E: Engine + 'static>(&self, s: SockId) -> &E
    where
        E::Event: 'static,
    {
        self.engine_socket_ref(s).engine::<E>().unwrap_or_else(|| unreachable!("socket {s} is not a {} engine", E::PROTOCOL))
    }

    /// The engine event [`SocketEvent::Engine`] announced on socket `s`, if its engine is an
    /// `E` (and the event was not taken yet).
    pub fn take_event<E: Engine + 'static>(&mut self, s: SockId) -> Option<E::Event>
    where
        E::Event: 'static,
    {
        self.engine_socket(s).take_event::<E>()
    }

    /// Hands a packet the demultiplexer chose to socket `s` (an engine socket reads a kept
    /// datagram from the socket that sent it).
    pub fn handle_packet(&mut self, now: Time, s: SockId, p: &Packet) {
        let sender = match &self.sockets[s as usize].socket {
            Socket::Engine(_) if p.body().is_some_and(|b| b.kept) => self.engine_index.get(&p.src_endpoint()).copied().filter(|&q| q != s),
            _ => None,
        };
        let Some(q) = sender else {
            return self.sockets[s as usize].socket.handle_packet(now, p);
        };
        let (lo, hi) = (s.min(q) as usize, s.max(q) as usize);
        let (a, b) = self.sockets.split_at_mut(hi);
        let (me, other) = if (s as usize) < hi { (&mut a[lo], &b[0]) } else { (&mut b[0], &a[lo]) };
        match (&mut me.socket, &other.socket) {
            (Socket::Engine(e), Socket::Engine(from)) => e.handle_packet(now, p, Some(from)),
            (sock, _) => sock.handle_packet(now, p),
        }
    }

    fn bind(&mut self, node: u32, local: Endpoint, proto: DatagramProto, owner: Owner) -> Option<SockId> {
        let key = (node, proto.ip_protocol(), local.port);
        if self.datagram_index.contains_key(&key) {
            return None;
        }
        let id = self.push(Socket::Datagram(DatagramSocket::new(local, proto)), node, owner);
        self.datagram_index.insert(key, id);
        Some(id)
    }

    /// The socket a packet arriving at `node` belongs to (accepting a SYN if a listener wants it).
    pub fn demux(&mut self, node: u32, p: &Packet) -> Demux {
        match p.transport {
            Transport::Tcp(h) => {
                if let Some(&s) = self.tcp_index.get(&(node, p.dst_endpoint(), p.src_endpoint())) {
                    return Demux::Socket(s);
                }
                let is_syn = h.flags.contains(TcpFlags::SYN) && !h.flags.contains(TcpFlags::ACK);
                if is_syn {
                    if let Some((sock, owner, tag)) = self.accept(node, p) {
                        return Demux::Accepted { sock, owner, tag };
                    }
                }
                Demux::None
            }
            Transport::Udp(h, _) => self.datagram_socket(node, p.protocol(), h.dst_port),
            Transport::Icmp(IcmpMessage::EchoRequest { id, seq }) => {
                let mut reply = Packet::icmp(p.dst, p.src, IcmpMessage::EchoReply { id, seq }, p.payload_len);
                reply.ip_id = self.next_ip_id(node);
                Demux::Echo(reply)
            }
            Transport::Icmp(IcmpMessage::EchoReply { id, .. }) => self.datagram_socket(node, p.protocol(), id),
            Transport::Icmp(IcmpMessage::Other { .. }) | Transport::Other { .. } => Demux::None,
        }
    }

    fn datagram_socket(&self, node: u32, protocol: u8, port: u16) -> Demux {
        match self.datagram_index.get(&(node, protocol, port)) {
            Some(&s) => Demux::Socket(s),
            None => Demux::None,
        }
    }

    /// Creates the server side of a connection for an incoming SYN, if a listener wants it.
    fn accept(&mut self, node: u32, syn: &Packet) -> Option<(SockId, Owner, u32)> {
        let local = syn.dst_endpoint();
        let l = self
            .listeners
            .iter()
            .position(|l| !l.taken && l.node == node && l.port == local.port && l.client == syn.src)?;
        let listener = &mut self.listeners[l];
        listener.taken = !listener.many;
        let (config, owner, tag) = (listener.config.clone(), listener.owner, listener.tag);
        let isn = self.isn_rng.random::<u32>();
        let conn = TcpConnection::listen(config, local, isn);
        let id = self.push(Socket::Tcp(conn), node, owner);
        self.tcp_index.insert((node, local, syn.src_endpoint()), id);
        Some((id, owner, tag))
    }

    /// The TCP connection of socket `s` (panics if it is a datagram socket: a wattlab bug).
    pub fn tcp(&mut self, s: SockId) -> &mut TcpConnection {
        match &mut self.sockets[s as usize].socket {
            Socket::Tcp(c) => c,
            _ => unreachable!("socket {s} is not TCP"),
        }
    }

    /// [`Stack::tcp`], read-only.
    pub fn tcp_ref(&self, s: SockId) -> &TcpConnection {
        match &self.sockets[s as usize].socket {
            Socket::Tcp(c) => c,
            _ => unreachable!("socket {s} is not TCP"),
        }
    }

    /// The datagram socket `s` (panics if it is TCP: a wattlab bug).
    pub fn datagram(&mut self, s: SockId) -> &mut DatagramSocket {
        match &mut self.sockets[s as usize].socket {
            Socket::Datagram(d) => d,
            _ => unreachable!("socket {s} is not a datagram socket"),
        }
    }

    /// The next IP identification of a datagram `node` originates.
    pub fn next_ip_id(&mut self, node: u32) -> u16 {
        let id = &mut self.next_ip_id[node as usize];
        let v = *id;
        *id = id.wrapping_add(1);
        v
    }

    /// What socket `s` handed to the network.
    pub fn stats(&self, s: SockId) -> SocketStats {
        self.sockets[s as usize].stats
    }
}
