//! Bulk transfers over TCP: `bulk-download` (the client sends a request, the server answers
//! with `bytes` and closes) and `bulk-upload` (the client sends `bytes` and closes).

use super::build::BuildCx;
use super::metrics::{FlowMetrics, TcpMetrics};
use super::reader::Reader;
use super::{AppCtx, Application, Flow, FlowRecord};
use crate::scenario::{BulkFlow, ScenarioError};
use crate::stack::{Listener, SockId, SocketEvent, Stack};
use wattlab_core::tcp::{TcpConfig, TcpEvent};
use wattlab_core::{Endpoint, Time};

/// A bulk transfer from its `[[flow]]`: the server listens (port 80 for downloads, 5001 for
/// uploads), the client connects at the flow's start.
pub(super) fn build(cx: &mut BuildCx, f: &BulkFlow, dir: Direction) -> Result<(Flow, FlowRecord), ScenarioError> {
    let c = cx.node("client", &f.client)?;
    let s = cx.node("server", &f.server)?;
    cx.path(c, s, "server", true);
    let config = cx.tcp()?;
    let start = cx.start();
    let bytes = f.bytes.bytes();
    let request = f.request.map(|r| r.bytes()).unwrap_or(100).max(1);
    let port = cx.cfg.port.unwrap_or(if dir == Direction::Download { 80 } else { 5001 });
    let (client, server) = (cx.node_names[c as usize].clone(), cx.node_names[s as usize].clone());
    let (sender, receiver) = if dir == Direction::Download { (server, client) } else { (client, server) };
    let record = FlowRecord {
        name: cx.name(),
        kind: cx.cfg.kind(),
        sender,
        receiver,
        target_bytes: Some(bytes),
        start,
        // Cross traffic (`background = true`): the run does not wait for it.
        finite: !f.background.unwrap_or(false),
        ..Default::default()
    };
    let reader = Reader::from_config(&f.reader.clone().unwrap_or_default(), config.recv_buffer as u64, start);
    let owner = cx.index as u32;
    cx.stack.listen(Listener { node: s, port, client: cx.addrs[c as usize], owner, tag: 0, config: config.clone(), many: false, taken: false });
    let server = Endpoint::new(cx.addrs[s as usize], port);
    Ok((Flow::Bulk(Bulk::new(dir, c, server, request, bytes, config, reader)), record))
}

/// Which way the data goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Server to client, after the client's request.
    Download,
    /// Client to server.
    Upload,
}

/// A bulk transfer between a client and a server.
pub struct Bulk {
    dir: Direction,
    client: u32,
    server: Endpoint,
    /// Request bytes (downloads).
    request: u64,
    /// Bytes to transfer.
    bytes: u64,
    /// TCP settings of the client's connection.
    config: TcpConfig,
    /// How the receiving application reads.
    reader: Reader,
    client_sock: Option<SockId>,
    server_sock: Option<SockId>,
    /// Request bytes the server has read (downloads).
    got: u64,
    /// The server queued its response (downloads).
    responded: bool,
}

impl Bulk {
    /// A transfer `dir` of `bytes` between `client` and `server` (its listener is the
    /// builder's business); `request` is the download's request size.
    pub fn new(dir: Direction, client: u32, server: Endpoint, request: u64, bytes: u64, config: TcpConfig, reader: Reader) -> Bulk {
        Bulk { dir, client, server, request, bytes, config, reader, client_sock: None, server_sock: None, got: 0, responded: false }
    }

    /// The socket whose application reads the data.
    fn reading(&self) -> Option<SockId> {
        match self.dir {
            Direction::Download => self.client_sock,
            Direction::Upload => self.server_sock,
        }
    }

    /// Reads what the reader allows on `s`; completes the flow when every byte is in.
    fn read(&mut self, cx: &mut AppCtx, s: SockId) {
        let (n, next) = self.reader.read(cx.now, cx.stack.tcp(s));
        cx.record.bytes_delivered += n;
        if let Some(t) = next {
            cx.wake_at(t);
        }
        let r = &*cx.record;
        if r.completed_at.is_none() && r.target_bytes.is_some_and(|t| r.bytes_delivered >= t) {
            if self.dir == Direction::Download {
                // The whole response is in: the client closes its side too.
                cx.stack.tcp(s).close();
            }
            cx.finish();
        }
    }
}

impl Application for Bulk {
    fn on_wake(&mut self, cx: &mut AppCtx) {
        let Some(s) = self.client_sock else {
            let addr = cx.net.addr(self.client);
            let s = cx.stack.connect(cx.now, self.client, addr, self.server, self.config.clone(), cx.flow);
            self.client_sock = Some(s);
            cx.drive(s);
            return;
        };
        let reading = if self.dir == Direction::Download { Some(s) } else { self.server_sock };
        if let Some(r) = reading {
            self.read(cx, r);
            cx.drive(r);
        }
    }

    fn on_accept(&mut self, _cx: &mut AppCtx, sock: SockId, _tag: u32, _remote: Endpoint) {
        self.server_sock = Some(sock);
    }

    fn on_socket(&mut self, cx: &mut AppCtx, s: SockId, ev: SocketEvent) {
        let SocketEvent::Tcp(ev) = ev else { return };
        let client = self.client_sock == Some(s);
        match (self.dir, client, ev) {
            (Direction::Download, true, TcpEvent::Connected) => {
                cx.record.connected_at = Some(cx.now);
                cx.stack.tcp(s).send(self.request);
            }
            (Direction::Upload, true, TcpEvent::Connected) => {
                cx.record.connected_at = Some(cx.now);
                let c = cx.stack.tcp(s);
                c.send(self.bytes);
                c.close();
            }
            (Direction::Download, false, TcpEvent::Readable) => {
                self.got += cx.stack.tcp(s).read(u64::MAX);
                if self.got >= self.request && !self.responded {
                    self.responded = true;
                    let c = cx.stack.tcp(s);
                    c.send(self.bytes);
                    c.close();
                }
            }
            (_, _, TcpEvent::Readable) if self.reading() == Some(s) => self.read(cx, s),
            (_, _, TcpEvent::PeerFin) if self.reading() == Some(s) => {
                self.read(cx, s);
                cx.stack.tcp(s).close();
            }
            _ => {}
        }
    }

    fn metrics(&self, stack: &Stack, record: &FlowRecord, end: Time) -> FlowMetrics {
        let (snd, rcv) = self.ends();
        FlowMetrics::Tcp(TcpMetrics::of(stack, snd.as_slice(), rcv.as_slice(), record, end))
    }

    fn sampled(&self) -> Option<(SockId, Option<SockId>)> {
        let (snd, rcv) = self.ends();
        snd.map(|s| (s, rcv))
    }
}

impl Bulk {
    /// (data sender's socket, data receiver's socket).
    fn ends(&self) -> (Option<SockId>, Option<SockId>) {
        match self.dir {
            Direction::Download => (self.server_sock, self.client_sock),
            Direction::Upload => (self.client_sock, self.server_sock),
        }
    }
}
