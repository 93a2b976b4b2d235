//! The host stack: sockets, and the demultiplexer that hands an arriving packet to its socket
//! (smoltcp's socket set, in the simulator's terms).
//!
//! A [`Socket`] is a TCP connection (the sans-IO `wattlab_core::tcp` state machine), a
//! datagram socket or a WWP endpoint over UDP; all are driven the same way (`handle_packet`, `handle_timeout`,
//! `poll_transmit`, `poll_event`, `poll_timeout`). Sockets belong to a flow (the application
//! that opened them); the simulation flushes a socket's output into the network and hands its
//! events to its flow.
//!
//! The demultiplexer finds a TCP segment's connection by (node, local, remote) and a
//! datagram's socket by (node, protocol, port): a UDP port, or for ICMP echo replies the echo
//! identifier a ping socket is bound to. Echo requests are answered by the stack itself, as a
//! kernel does. Every socket counts what it sent, what it received and what it dropped
//! ([`SocketStats`], [`Socket::drops`]); the results list them per socket.

mod datagram;
mod pstp;
mod tcp;
mod wwp;

pub use datagram::{DatagramProto, DatagramSocket, DATAGRAM_RCVBUF};
pub use tcp::{ConnHints, Listener};
pub use pstp::{PstpEngine, PstpEvent, PstpSocket};
pub use wwp::{WwpSocket, WwpSource};

use crate::rng::StreamRng;
use rand::Rng;
use serde::Serialize;
use rustc_hash::FxHashMap;
use std::net::Ipv4Addr;
use wattlab_core::packet::{IcmpMessage, TcpFlags, Transport};
use wattlab_core::tcp::{TcpConfig, TcpConnection, TcpEvent};
use wattlab_core::wwp::WwpEvent;
use wattlab_core::{Endpoint, Packet, Time};

/// Index of a socket in the stack.
pub type SockId = u32;

/// Index of the flow (application) a socket belongs to.
pub type Owner = u32;

/// A socket: TCP, datagram or WWP.
// Boxing the TCP variant would add a pointer chase on every segment; datagram sockets are
// few, so the padding they carry costs little.
#[allow(clippy::large_enum_variant)]
pub enum Socket {
    /// A TCP connection.
    Tcp(TcpConnection),
    /// A datagram (UDP) socket.
    Datagram(DatagramSocket),
    /// A WWP endpoint over UDP.
    Wwp(Box<WwpSocket>),
    /// A PS-TP endpoint (PSNA mobile or daemon) over UDP.
    Pstp(Box<PstpSocket>),
}

/// What a socket tells its application.
#[derive(Clone, Copy, Debug)]
pub enum SocketEvent {
    /// A TCP event (connected, readable, peer FIN...).
    Tcp(TcpEvent),
    /// A datagram arrived (the packet, headers included).
    Datagram(Packet),
    /// A WWP event (connected, readable, writable, closed...).
    Wwp(WwpEvent),
    /// A PS-TP event (radio command, transfer event, FH commands...).
    Pstp(PstpEvent),
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
            Socket::Wwp(w) => w.handle_packet(now, p, None),
            Socket::Pstp(s) => s.handle_packet(now, p),
        }
    }

    /// The next packet to send, if any.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Packet> {
        match self {
            Socket::Tcp(c) => c.poll_transmit(now),
            Socket::Datagram(d) => d.poll_transmit(),
            Socket::Wwp(w) => w.poll_transmit(now),
            Socket::Pstp(s) => s.poll_transmit(),
        }
    }

    /// The next event for the application, if any.
    pub fn poll_event(&mut self) -> Option<SocketEvent> {
        match self {
            Socket::Tcp(c) => c.poll_event().map(SocketEvent::Tcp),
            Socket::Datagram(d) => d.poll_event().map(SocketEvent::Datagram),
            Socket::Wwp(w) => w.poll_event().map(SocketEvent::Wwp),
            Socket::Pstp(s) => s.poll_event().map(SocketEvent::Pstp),
        }
    }

    /// When the socket's next timer is due, if it has one.
    pub fn poll_timeout(&self) -> Option<Time> {
        match self {
            Socket::Tcp(c) => c.poll_timeout(),
            Socket::Datagram(_) => None,
            Socket::Wwp(w) => w.ep.poll_timeout(),
            Socket::Pstp(s) => s.poll_timeout(),
        }
    }

    /// The socket's timer is due at `now`.
    pub fn handle_timeout(&mut self, now: Time) {
        match self {
            Socket::Tcp(c) => c.handle_timeout(now),
            Socket::Wwp(w) => w.ep.handle_timeout(now),
            Socket::Pstp(s) => s.handle_timeout(now),
            Socket::Datagram(_) => {}
        }
    }

    /// The local endpoint (a ping socket's port is its echo identifier).
    pub fn local(&self) -> Endpoint {
        match self {
            Socket::Tcp(c) => c.local(),
            Socket::Datagram(d) => d.local(),
            Socket::Wwp(w) => w.local(),
            Socket::Pstp(s) => s.local(),
        }
    }

    /// The remote endpoint of a connection (`None`: an unconnected datagram socket).
    pub fn remote(&self) -> Option<Endpoint> {
        match self {
            Socket::Tcp(c) => Some(c.remote()),
            Socket::Datagram(_) => None,
            Socket::Wwp(w) => Some(w.remote()),
            Socket::Pstp(s) => Some(s.remote()),
        }
    }

    /// The transport's name in result tables (`tcp`, `udp`, `icmp`, `wwp` (over UDP)).
    pub fn protocol_name(&self) -> &'static str {
        match self {
            Socket::Tcp(_) => "tcp",
            Socket::Datagram(d) => d.proto().name(),
            Socket::Wwp(_) => "wwp",
            Socket::Pstp(_) => "pstp",
        }
    }

    /// Packets the socket received and discarded: TCP segments outside the window (answered
    /// by an ACK), datagrams that found the receive buffer full, WWP segments refused or
    /// beyond the receiver buffer.
    pub fn drops(&self) -> u64 {
        match self {
            Socket::Tcp(c) => c.stats().unacceptable_segments_acked,
            Socket::Datagram(d) => d.dropped,
            Socket::Wwp(w) => {
                let st = w.ep.stats();
                st.dropped_segments + st.bad_segments + w.lost_tails
            }
            Socket::Pstp(s) => s.bad_datagrams,
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
    /// Passive opens.
    pub listeners: Vec<Listener>,
    next_port: Vec<u16>,
    next_ip_id: Vec<u16>,
    isn_rng: StreamRng,
}

impl Stack {
    /// An empty stack for `nodes` nodes; initial sequence numbers come from `isn_rng`.
    pub fn new(nodes: usize, isn_rng: StreamRng) -> Stack {
        Stack {
            sockets: Vec::new(),
            tcp_index: FxHashMap::default(),
            datagram_index: FxHashMap::default(),
            listeners: Vec::new(),
            next_port: vec![49152; nodes],
            next_ip_id: vec![1; nodes],
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

    /// Opens a WWP socket on `node` bound to UDP `local` for flow `owner`; `None` if the port
    /// is taken.
    pub fn bind_wwp(&mut self, node: u32, sock: WwpSocket, owner: Owner) -> Option<SockId> {
        let key = (node, DatagramProto::Udp.ip_protocol(), sock.local().port);
        if self.datagram_index.contains_key(&key) {
            return None;
        }
        let id = self.push(Socket::Wwp(Box::new(sock)), node, owner);
        self.datagram_index.insert(key, id);
        Some(id)
    }

    /// Opens a PS-TP socket on `node` bound to UDP `sock.local()` for flow `owner`; `None`
    /// if the port is taken.
    pub fn bind_pstp(&mut self, node: u32, sock: PstpSocket, owner: Owner) -> Option<SockId> {
        let key = (node, DatagramProto::Udp.ip_protocol(), sock.local().port);
        if self.datagram_index.contains_key(&key) {
            return None;
        }
        let id = self.push(Socket::Pstp(Box::new(sock)), node, owner);
        self.datagram_index.insert(key, id);
        Some(id)
    }

    /// The PS-TP socket `s` (panics if it is another kind: a wattlab bug).
    pub fn pstp(&mut self, s: SockId) -> &mut PstpSocket {
        match &mut self.sockets[s as usize].socket {
            Socket::Pstp(p) => p,
            _ => unreachable!("socket {s} is not PS-TP"),
        }
    }

    /// [`Stack::pstp`], read-only.
    pub fn pstp_ref(&self, s: SockId) -> &PstpSocket {
        match &self.sockets[s as usize].socket {
            Socket::Pstp(p) => p,
            _ => unreachable!("socket {s} is not PS-TP"),
        }
    }

    /// Hands a packet the demultiplexer chose to socket `s` (a WWP socket reads long NACK
    /// lists from its peer).
    pub fn handle_packet(&mut self, now: Time, s: SockId, p: &Packet) {
        let peer = match &self.sockets[s as usize].socket {
            Socket::Wwp(w) => w.peer.filter(|&q| q != s),
            _ => None,
        };
        let Some(q) = peer else {
            return self.sockets[s as usize].socket.handle_packet(now, p);
        };
        let (lo, hi) = (s.min(q) as usize, s.max(q) as usize);
        let (a, b) = self.sockets.split_at_mut(hi);
        let (me, other) = if (s as usize) < hi { (&mut a[lo], &b[0]) } else { (&mut b[0], &a[lo]) };
        match (&mut me.socket, &other.socket) {
            (Socket::Wwp(w), Socket::Wwp(peer)) => w.handle_packet(now, p, Some(peer)),
            (sock, _) => sock.handle_packet(now, p),
        }
    }

    /// The WWP socket `s` (panics if it is another kind: a wattlab bug).
    pub fn wwp(&mut self, s: SockId) -> &mut WwpSocket {
        match &mut self.sockets[s as usize].socket {
            Socket::Wwp(w) => w,
            _ => unreachable!("socket {s} is not WWP"),
        }
    }

    /// [`Stack::wwp`], read-only.
    pub fn wwp_ref(&self, s: SockId) -> &WwpSocket {
        match &self.sockets[s as usize].socket {
            Socket::Wwp(w) => w,
            _ => unreachable!("socket {s} is not WWP"),
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
