//! TCP's part of the stack: passive opens, and what an application tells about a connection.

use super::Owner;
use std::net::Ipv4Addr;
use wattlab_core::tcp::TcpConfig;
use wattlab_core::Time;

/// A passive open waiting for a flow's client.
pub struct Listener {
    /// Server node.
    pub node: u32,
    /// Listening port.
    pub port: u16,
    /// Address of the client this listener accepts.
    pub client: Ipv4Addr,
    /// Flow that owns the accepted connections.
    pub owner: Owner,
    /// Handed back with every accepted socket (e.g. which server of the flow).
    pub tag: u32,
    /// TCP settings of the server side.
    pub config: TcpConfig,
    /// Accepts every connection of its client (a web server); otherwise one.
    pub many: bool,
    /// Already accepted its one connection.
    pub taken: bool,
}

/// What a client application has told about a connection's traffic: the input of a
/// client-side energy agent (seed 000's CC agent).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnHints {
    /// When the application last sent a request on the connection.
    pub request_at: Option<Time>,
    /// Size of that request (bytes).
    pub request_bytes: u64,
    /// Requests sent on the connection so far.
    pub requests: u32,
    /// When the application learned the size of the response now arriving.
    pub response_at: Option<Time>,
    /// Size of that response (header + body bytes): what it will read before it is complete.
    pub response_bytes: u64,
}
