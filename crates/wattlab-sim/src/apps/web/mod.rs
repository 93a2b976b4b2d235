//! Web browsing (`[[flow]] kind = "web"`): a browser fetching pages from HTTP/1.1 servers over
//! persistent connections, as in seed 000's web workload (Yan et al.).
//!
//! The page sequence is drawn when the scenario is built ([`workload::generate`]). At run time
//! the browser GETs the HTML on a connection to the page's site (an idle persistent one if
//! there is one), then the embedded objects over up to `max_connections` connections to that
//! site, one request outstanding per connection; a connection that finishes an object takes
//! the next one. A response is the body plus a fixed header; the client knows it is complete
//! when it has read that many bytes (what Content-Length tells a real browser). After the last
//! object, the think time; after the last page, the client closes every connection.

pub mod tables;
pub mod workload;

pub use tables::{ObjectTable, PageTable};
pub use workload::*;

use super::build::BuildCx;
use super::metrics::{FlowCost, FlowMetrics, TcpMetrics, WebMetrics};
use super::{AppCtx, Application, Flow, FlowRecord, Hint};
use crate::scenario::{ScenarioError, WebFlow};
use crate::stack::{Listener, SockId, SocketEvent, Stack};
use std::collections::{HashMap, VecDeque};
use wattlab_core::tcp::{TcpConfig, TcpEvent};
use wattlab_core::{Duration, Endpoint, Time};

/// Page rows reserved before the run (objects: 8 per page); more grow as pages are viewed.
const ROWS_RESERVED: usize = 4096;

/// A web flow from its `[[flow]]`: the page sequence drawn now, a listener on every server
/// that takes every connection of the client.
pub(super) fn build(cx: &mut BuildCx, w: &WebFlow) -> Result<(Flow, FlowRecord), ScenarioError> {
    let spec = WebSpec::from_config(w, cx.cfg.port).map_err(|e| cx.error(&e.key, e.message))?;
    let c = cx.node("client", &w.client)?;
    let mut servers = w.servers.iter().map(|s| cx.node("servers", s)).collect::<Result<Vec<_>, _>>()?;
    for &s in &servers {
        cx.path(c, s, "servers", true);
    }
    // The multi-server model's third-party pool: more servers, each on its own path.
    for s in w.third_party.iter().flat_map(|t| &t.servers) {
        let n = cx.node("third_party", s)?;
        cx.path(c, n, "third_party", true);
        servers.push(n);
    }
    let config = cx.tcp()?;
    let name = cx.name();
    let work = generate(&spec, cx.streams, &name).map_err(|m| cx.error("pages", m))?;
    let owner = cx.index as u32;
    for (k, &s) in servers.iter().enumerate() {
        let l = Listener { node: s, port: spec.port, client: cx.addrs[c as usize], owner, tag: k as u32, config: config.clone(), many: true, taken: false };
        cx.stack.listen(l);
    }
    let web = Web::new(c, servers, &spec, config, work);
    let senders: Vec<&str> = w.servers.iter().chain(w.third_party.iter().flat_map(|t| &t.servers)).map(String::as_str).collect();
    let record = FlowRecord {
        name,
        kind: cx.cfg.kind(),
        sender: senders.join(","),
        receiver: w.client.clone(),
        target_bytes: Some(web.target_bytes()),
        start: cx.start(),
        finite: true,
        ..Default::default()
    };
    Ok((Flow::Web(Box::new(web)), record))
}

// ---- run-time state ----------------------------------------------------------------------

/// What a client connection is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConnState {
    /// Handshake under way.
    Connecting,
    /// Open, no request outstanding.
    Idle,
    /// A request outstanding (its response not yet fully read).
    Busy,
    /// Closed or failed.
    Closed,
}

/// One persistent connection: both ends' application state.
#[derive(Clone, Debug)]
struct WebConn {
    /// Client-side socket.
    client: SockId,
    state: ConnState,
    /// Object row of the response being read (when busy).
    row: u32,
    /// Response bytes still to read (when busy).
    left: u64,
    /// Requests sent so far.
    requests: u32,
    /// Server side: response sizes owed, in request order.
    owed: VecDeque<u64>,
    /// Server side: request bytes read towards the next request.
    request_read: u64,
}

/// One row of the page table, while running.
#[derive(Clone, Copy, Debug)]
struct PageRow {
    view: u32,
    site: u32,
    subpage: u32,
    first_visit: bool,
    start: Time,
    end: Option<Time>,
    think: Duration,
    objects: u32,
    bytes: u64,
    new_connections: u32,
    servers: u32,
}

/// One row of the object table, while running.
#[derive(Clone, Copy, Debug)]
struct ObjectRow {
    page: u32,
    index: u32,
    site: u32,
    server: u32,
    size: u64,
    response: u64,
    conn: Option<u32>,
    request_at: Option<Time>,
    first_byte_at: Option<Time>,
    done_at: Option<Time>,
    reused: bool,
    concurrency: u32,
}

/// A web flow while it runs: the workload, the connections and the tables being filled.
pub struct Web {
    client_node: u32,
    /// Server node of each server: the sites, then the third-party pool.
    server_nodes: Vec<u32>,
    port: u16,
    tcp: TcpConfig,
    request: u64,
    header: u64,
    max_connections: u32,
    work: Workload,
    conns: Vec<WebConn>,
    /// Connections (indices into `conns`) per server.
    by_server: Vec<Vec<u32>>,
    /// Socket → (index into `conns`, true at the server).
    conn_of: HashMap<SockId, (u32, bool)>,
    /// Objects of the current page waiting for a connection (object rows).
    queue: VecDeque<u32>,
    /// Client connections with a request outstanding.
    busy: u32,
    /// A page is loading.
    active: bool,
    /// Next view to start.
    next_view: u32,
    /// First object row of the current page.
    first_row: u32,
    /// Objects of the current page not yet complete.
    remaining: u32,
    pages: Vec<PageRow>,
    objects: Vec<ObjectRow>,
}

impl Web {
    /// Page views (and their objects) that can start within `span_s` seconds of the flow's
    /// start: every view but the first follows its predecessor's think time (load times are
    /// left out, so this is an upper bound).
    fn rows_within(&self, span_s: f64) -> (f64, f64) {
        let (mut t, mut pages, mut objects) = (0.0, 0.0, 0.0);
        for v in &self.work.views {
            if t > span_s {
                break;
            }
            pages += 1.0;
            objects += self.work.contents[v.content as usize].sizes.len() as f64;
            t += v.think.as_nanos() as f64 / 1e9;
        }
        (pages, objects)
    }

    /// Page views the flow will make.
    pub fn pages_planned(&self) -> usize {
        self.work.views.len()
    }

    /// A web flow about to start; `server_nodes` are the servers' nodes in `servers` order,
    /// then `third_party.servers`'.
    pub fn new(client_node: u32, server_nodes: Vec<u32>, spec: &WebSpec, tcp: TcpConfig, work: Workload) -> Web {
        let max_objects = work.contents.iter().map(|c| c.sizes.len()).max().unwrap_or(1);
        let sites = server_nodes.len();
        Web {
            client_node,
            port: spec.port,
            tcp,
            request: spec.request,
            header: spec.response_header,
            max_connections: spec.max_connections,
            conns: Vec::with_capacity(sites * spec.max_connections as usize),
            by_server: vec![Vec::new(); sites],
            conn_of: HashMap::new(),
            queue: VecDeque::with_capacity(max_objects),
            busy: 0,
            active: false,
            next_view: 0,
            first_row: 0,
            remaining: 0,
            // Rows are added per page view, never per packet; reserving for every planned
            // view (10^7 allowed) would take gigabytes for pages the run may never reach.
            pages: Vec::with_capacity(work.views.len().min(ROWS_RESERVED)),
            objects: Vec::with_capacity(work.total_objects().min(ROWS_RESERVED * 8)),
            server_nodes,
            work,
        }
    }

    /// Response bytes (bodies and headers) over every page view: what the client must read.
    pub fn target_bytes(&self) -> u64 {
        self.work
            .views
            .iter()
            .flat_map(|v| self.work.contents[v.content as usize].sizes.iter())
            .map(|s| s + self.header)
            .sum()
    }
}

impl Application for Web {
    /// The browser's wake-up: start the next page if none is loading.
    fn on_wake(&mut self, cx: &mut AppCtx) {
        if !self.active && (self.next_view as usize) < self.work.views.len() {
            self.start_page(cx);
        }
    }

    /// The server side accepted `sock` from `remote` (a browser connection).
    fn on_accept(&mut self, cx: &mut AppCtx, sock: SockId, _tag: u32, remote: Endpoint) {
        let Some(k) = self.conns.iter().position(|wc| cx.stack.tcp_ref(wc.client).local() == remote) else {
            return;
        };
        self.conn_of.insert(sock, (k as u32, true));
    }

    fn on_socket(&mut self, cx: &mut AppCtx, s: SockId, ev: SocketEvent) {
        let SocketEvent::Tcp(ev) = ev else { return };
        let Some(&(k, server)) = self.conn_of.get(&s) else { return };
        if server {
            self.server_event(cx, s, k, ev);
        } else {
            self.client_event(cx, s, k, ev);
        }
    }

    /// Transport counters summed over every connection (the servers' ends as the data
    /// sender, the client's as the receiver), pages and connections.
    fn metrics(&self, stack: &Stack, record: &FlowRecord, end: Time) -> FlowMetrics {
        let mut servers: Vec<SockId> = self.conn_of.iter().filter(|(_, &(_, s))| s).map(|(&c, _)| c).collect();
        servers.sort_unstable();
        let clients: Vec<SockId> = self.conns.iter().map(|wc| wc.client).collect();
        let mut tcp = TcpMetrics::of(stack, &servers, &clients, record, end);
        // No single connection's SRTT stands for a browsing session.
        tcp.final_srtt_ms = None;
        FlowMetrics::Web(WebMetrics {
            tcp,
            pages: self.work.views.len() as u32,
            pages_done: self.pages.iter().filter(|p| p.end.is_some()).count() as u32,
            connections: self.conns.len() as u32,
        })
    }

    /// A TCP transfer of its responses, plus the think times; its memory is the page plan
    /// and the rows of the pages the run can reach.
    fn cost(&self, record: &FlowRecord, path_rate_bps: f64, horizon_s: f64) -> FlowCost {
        let mut c = FlowCost::tcp(record, path_rate_bps, horizon_s, self.pages_planned() as f64 * 10.0);
        let (pages, objects) = self.rows_within(horizon_s - record.start.as_nanos() as f64 / 1e9);
        c.memory = (self.work.views.len() * std::mem::size_of::<PageView>()) as f64
            + pages * tables::PAGE_ROW_BYTES
            + objects * tables::OBJECT_ROW_BYTES;
        c.memory_keys = "lower pages, or shorten [simulation] duration";
        c
    }
}

impl Web {
    // ---- server ------------------------------------------------------------------------

    fn server_event(&mut self, cx: &mut AppCtx, s: SockId, k: u32, ev: TcpEvent) {
        let conn = cx.stack.tcp(s);
        match ev {
            TcpEvent::Readable => {
                let wc = &mut self.conns[k as usize];
                wc.request_read += conn.read(u64::MAX);
                while wc.request_read >= self.request {
                    let Some(size) = wc.owed.pop_front() else { break };
                    wc.request_read -= self.request;
                    conn.send(size);
                }
            }
            TcpEvent::PeerFin => conn.close(),
            _ => {}
        }
    }

    // ---- client ------------------------------------------------------------------------

    fn client_event(&mut self, cx: &mut AppCtx, s: SockId, k: u32, ev: TcpEvent) {
        match ev {
            TcpEvent::Connected => {
                let wc = &mut self.conns[k as usize];
                if wc.state == ConnState::Connecting {
                    wc.state = ConnState::Idle;
                }
                self.dispatch(cx);
            }
            TcpEvent::Readable => {
                let n = cx.stack.tcp(s).read(u64::MAX);
                cx.record.bytes_delivered += n;
                let wc = &mut self.conns[k as usize];
                if wc.state != ConnState::Busy || n == 0 {
                    return;
                }
                let row = &mut self.objects[wc.row as usize];
                let first = row.first_byte_at.is_none();
                if first {
                    row.first_byte_at = Some(cx.now);
                }
                let response = row.response;
                wc.left = wc.left.saturating_sub(n);
                let done = wc.left == 0;
                if first {
                    note_response_size(cx, s, response);
                }
                if done {
                    self.object_done(cx, k);
                }
            }
            TcpEvent::PeerFin | TcpEvent::Reset | TcpEvent::TimedOut => self.conn_lost(cx, k),
            _ => {}
        }
    }

    /// Open a new connection from the browser to `server`.
    fn open(&mut self, cx: &mut AppCtx, server: u32) {
        let node = self.server_nodes[server as usize];
        let remote = cx.endpoint(node, self.port);
        let addr = cx.net.addr(self.client_node);
        let c = cx.stack.connect(cx.now, self.client_node, addr, remote, self.tcp.clone(), cx.flow);
        let k = self.conns.len() as u32;
        self.conns.push(WebConn {
            client: c,
            state: ConnState::Connecting,
            row: 0,
            left: 0,
            requests: 0,
            owed: VecDeque::with_capacity(1),
            request_read: 0,
        });
        self.by_server[server as usize].push(k);
        self.conn_of.insert(c, (k, false));
        if let Some(p) = self.pages.last_mut() {
            p.new_connections += 1;
        }
        cx.drive(c);
    }

    /// Hand queued objects, in order, to idle connections of their server; open connections
    /// (up to the limit per server) for objects that no idle or connecting connection to their
    /// server will take. An object whose server is at its limit waits without holding up the
    /// objects of other servers behind it (a browser's per-host queues).
    fn dispatch(&mut self, cx: &mut AppCtx) {
        let mut i = 0;
        while let Some(&row) = self.queue.get(i) {
            let server = self.objects[row as usize].server;
            let conns = &self.by_server[server as usize];
            if let Some(&k) = conns.iter().find(|&&k| self.conns[k as usize].state == ConnState::Idle) {
                self.queue.remove(i);
                self.request(cx, k, row);
                continue;
            }
            let open = conns.iter().filter(|&&k| self.conns[k as usize].state != ConnState::Closed).count();
            let connecting = conns.iter().filter(|&&k| self.conns[k as usize].state == ConnState::Connecting).count();
            if open < self.max_connections as usize {
                let objects = &self.objects;
                let waiting = self.queue.iter().filter(|&&r| objects[r as usize].server == server).count();
                if connecting < waiting {
                    self.open(cx, server);
                    continue;
                }
            }
            i += 1;
        }
    }

    /// Send the GET for object `row` on idle connection `k`.
    fn request(&mut self, cx: &mut AppCtx, k: u32, row: u32) {
        let request = self.request;
        let wc = &mut self.conns[k as usize];
        let o = &mut self.objects[row as usize];
        wc.state = ConnState::Busy;
        wc.row = row;
        wc.left = o.response;
        wc.owed.push_back(o.response);
        self.busy += 1;
        o.conn = Some(wc.client);
        o.request_at = Some(cx.now);
        o.first_byte_at = None;
        o.reused = wc.requests > 0;
        o.concurrency = self.busy;
        wc.requests += 1;
        let c = wc.client;
        cx.stack.tcp(c).send(request);
        note_request(cx, c, request);
        cx.drive(c);
    }

    /// Connection `k` has read its whole response.
    fn object_done(&mut self, cx: &mut AppCtx, k: u32) {
        let wc = &mut self.conns[k as usize];
        wc.state = ConnState::Idle;
        self.busy -= 1;
        let o = &mut self.objects[wc.row as usize];
        o.done_at = Some(cx.now);
        if o.index == 0 {
            // The HTML is in: the browser now knows (and requests) the embedded objects.
            let first = self.first_row;
            let n = self.pages.last().map(|p| p.objects).unwrap_or(1);
            self.queue.extend(first + 1..first + n);
        }
        self.remaining -= 1;
        if self.remaining == 0 {
            self.page_done(cx);
        } else {
            self.dispatch(cx);
        }
    }

    /// A connection failed or the server closed it: a request in progress goes back to the
    /// head of the queue (a browser retries it on another connection).
    fn conn_lost(&mut self, cx: &mut AppCtx, k: u32) {
        let wc = &mut self.conns[k as usize];
        let was = wc.state;
        if was == ConnState::Closed {
            return;
        }
        wc.state = ConnState::Closed;
        let c = wc.client;
        if was == ConnState::Busy {
            self.busy -= 1;
            let row = wc.row;
            self.queue.push_front(row);
        }
        cx.stack.tcp(c).close();
        self.dispatch(cx);
    }

    fn start_page(&mut self, cx: &mut AppCtx) {
        // A new page request: the client's agent starts a fresh RTT cache (seed 000 §III-E).
        cx.hint(Hint::NewPage { node: self.client_node });
        let v = self.next_view;
        self.next_view += 1;
        let view = self.work.views[v as usize];
        let content = &self.work.contents[view.content as usize];
        let first_row = self.objects.len() as u32;
        let header = self.header;
        for (i, &size) in content.sizes.iter().enumerate() {
            self.objects.push(ObjectRow {
                page: v,
                index: i as u32,
                site: content.site,
                server: content.server(i),
                size,
                response: size + header,
                conn: None,
                request_at: None,
                first_byte_at: None,
                done_at: None,
                reused: false,
                concurrency: 0,
            });
        }
        self.pages.push(PageRow {
            view: v,
            site: content.site,
            subpage: content.subpage,
            first_visit: view.first_visit,
            start: cx.now,
            end: None,
            think: view.think,
            objects: content.sizes.len() as u32,
            bytes: content.sizes.iter().sum(),
            new_connections: 0,
            servers: distinct_servers(content),
        });
        self.active = true;
        self.first_row = first_row;
        self.remaining = content.sizes.len() as u32;
        self.queue.push_back(first_row);
        self.dispatch(cx);
    }

    fn page_done(&mut self, cx: &mut AppCtx) {
        self.active = false;
        let think = match self.pages.last_mut() {
            Some(p) => {
                p.end = Some(cx.now);
                p.think
            }
            None => Duration::ZERO,
        };
        if (self.next_view as usize) < self.work.views.len() {
            cx.wake_at(cx.now + think);
            return;
        }
        // The last page: the browser closes every connection, and the flow is complete.
        for wc in &mut self.conns {
            if wc.state == ConnState::Closed {
                continue;
            }
            wc.state = ConnState::Closed;
            cx.stack.tcp(wc.client).close();
            cx.drive(wc.client);
        }
        cx.finish();
    }
}

/// Distinct servers a page's objects come from (1 without the multi-server model).
fn distinct_servers(c: &PageContent) -> u32 {
    let mut seen: Vec<u32> = Vec::with_capacity(4);
    for i in 0..c.sizes.len() {
        let s = c.server(i);
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    seen.len() as u32
}

/// The client application sent a request of `bytes` on socket `s` (a client-side agent's input).
fn note_request(cx: &mut AppCtx, s: SockId, bytes: u64) {
    let h = &mut cx.stack.sockets[s as usize].hints;
    h.request_at = Some(cx.now);
    h.request_bytes = bytes;
    h.requests += 1;
}

/// The first byte of a response reached the client application on `s`: the moment a browser
/// parses Content-Length, so the application now knows the response is `bytes` long (header +
/// body). Recorded in the socket's hints and handed to the node's agents.
fn note_response_size(cx: &mut AppCtx, s: SockId, bytes: u64) {
    let h = &mut cx.stack.sockets[s as usize].hints;
    h.response_at = Some(cx.now);
    h.response_bytes = bytes;
    cx.hint(Hint::ResponseSize { sock: s, bytes });
}
