//! A `web` flow on real Linux TCP: the browser (`web-fetch`) and the server (`web-serve`) of
//! the simulator's web application (`wattlab_sim::apps::web`), following the same page plan
//! (the live spec's [`WebLiveFlow`], drawn by the simulator's own generator) and the same
//! rules: per page the HTML first on an idle persistent connection (or a new one), then the
//! embedded objects over up to `max_connections` connections, one request outstanding per
//! connection, a connection that finishes an object taking the next; after the last object
//! the think time; after the last page the browser closes every connection.
//!
//! A request is `request` bytes whose first four carry the object's index in the plan
//! (little endian); the server answers with that object's response (body plus header), whose
//! first four bytes carry the index back, so the browser checks that every response is the
//! one it asked for and has the plan's length. Every loop is bounded in time (the run's time
//! limit, an idle timeout) and in count (connections, requests).

use std::io::{Read, Write};
use std::net::{SocketAddr, SocketAddrV4, TcpStream};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use socket2::{Domain, Protocol, Socket, Type};
use wattlab_sim::live_spec::WebLiveFlow;

use crate::apps::{apply, SocketTcp};
use crate::web_hints::{HintSender, WebHint, UNSPECIFIED};

fn unix_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos() as u64
}

/// Response length of every object of the plan, in request order (the index a request carries).
pub fn responses(flow: &WebLiveFlow) -> Vec<u64> {
    flow.pages.iter().flat_map(|p| p.sizes.iter().map(|s| s + flow.response_header)).collect()
}

/// The four index bytes at the start of a request or response (fewer if it is shorter).
fn index_bytes(index: u32) -> [u8; 4] {
    index.to_le_bytes()
}

// ---- server --------------------------------------------------------------------------------

/// What the web server reports.
#[derive(Debug, Default, Serialize)]
pub struct WebServeReport {
    /// Connections accepted.
    pub connections: u64,
    /// Requests answered.
    pub requests: u64,
    /// Response bytes sent.
    pub bytes_sent: u64,
    /// Segments retransmitted, summed over the connections (`tcpi_total_retrans`).
    pub retransmitted_segments: u64,
    /// Congestion control the kernel used.
    pub cc: String,
    /// Why the server stopped: `done` (every object served and every connection closed),
    /// `time limit` or `stopped` (SIGTERM).
    pub outcome: String,
}

/// Connections the server accepts at most (a bound; the browser opens far fewer).
const MAX_ACCEPTED: u64 = 4096;

/// Serves the plan's objects on `listen` until every object was served and every connection
/// closed, `limit` passes, or `stop` is set; says `ready` once listening.
pub fn serve(listen: SocketAddr, flow: &WebLiveFlow, tcp: &SocketTcp, limit: Duration, stop: &AtomicBool) -> Result<WebServeReport, String> {
    let start = Instant::now();
    let table = Arc::new(responses(flow));
    let total = table.len() as u64;
    let request = flow.request;
    let sock = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).map_err(|e| format!("socket: {e}"))?;
    sock.set_reuse_address(true).map_err(|e| format!("SO_REUSEADDR: {e}"))?;
    apply(&sock, tcp)?;
    sock.bind(&listen.into()).map_err(|e| format!("bind {listen}: {e}"))?;
    sock.listen(64).map_err(|e| format!("listen: {e}"))?;
    // SO_RCVTIMEO bounds accept(): the loop checks its ends every 100 ms.
    sock.set_read_timeout(Some(Duration::from_millis(100))).map_err(|e| format!("SO_RCVTIMEO: {e}"))?;
    crate::nfqueue::announce_ready();
    let served = Arc::new(AtomicU64::new(0));
    let sent = Arc::new(AtomicU64::new(0));
    let quit = Arc::new(AtomicBool::new(false));
    let mut workers: Vec<std::thread::JoinHandle<Result<(u64, u64), String>>> = Vec::new();
    let mut rep = WebServeReport { cc: tcp.cc.clone(), ..Default::default() };
    let outcome = loop {
        if crate::nfqueue::stopped(stop) {
            break "stopped";
        }
        if start.elapsed() >= limit {
            break "time limit";
        }
        let open = workers.iter().filter(|w| !w.is_finished()).count();
        if served.load(Ordering::Relaxed) >= total && open == 0 && rep.connections > 0 {
            break "done";
        }
        match sock.accept() {
            Ok((conn, _)) => {
                rep.connections += 1;
                if rep.connections > MAX_ACCEPTED {
                    return Err(format!("more than {MAX_ACCEPTED} connections: not the plan's browser"));
                }
                apply(&conn, tcp)?;
                let conn: TcpStream = conn.into();
                let (table, served, sent, quit) = (table.clone(), served.clone(), sent.clone(), quit.clone());
                let deadline = start + limit;
                workers.push(std::thread::spawn(move || serve_conn(conn, request, &table, &served, &sent, &quit, deadline)));
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted) => {}
            Err(e) => return Err(format!("accept: {e}")),
        }
    };
    quit.store(true, Ordering::Relaxed);
    let mut first_err = None;
    for w in workers {
        match w.join() {
            Ok(Ok((retrans, _))) => rep.retransmitted_segments += retrans,
            Ok(Err(e)) => {
                first_err.get_or_insert(e);
            }
            Err(_) => {
                first_err.get_or_insert("a connection's thread panicked".into());
            }
        }
    }
    rep.requests = served.load(Ordering::Relaxed);
    rep.bytes_sent = sent.load(Ordering::Relaxed);
    rep.outcome = outcome.into();
    if let Some(e) = first_err {
        return Err(e);
    }
    Ok(rep)
}

/// One connection: requests in, responses out, to the browser's FIN (or `deadline`, or
/// `quit`). Returns (retransmitted segments, requests served).
fn serve_conn(mut conn: TcpStream, request: u64, table: &[u64], served: &AtomicU64, sent: &AtomicU64, quit: &AtomicBool, deadline: Instant) -> Result<(u64, u64), String> {
    conn.set_read_timeout(Some(Duration::from_millis(100))).map_err(|e| format!("timeouts: {e}"))?;
    conn.set_nodelay(true).map_err(|e| format!("TCP_NODELAY: {e}"))?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut head = [0u8; 4];
    let (mut got, mut n_served) = (0u64, 0u64);
    let head_len = request.min(4) as usize;
    while Instant::now() < deadline && !quit.load(Ordering::Relaxed) {
        let want = ((request - got) as usize).min(buf.len());
        match conn.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => {
                for (i, &b) in buf[..n].iter().enumerate() {
                    let at = got as usize + i;
                    if at < head_len {
                        head[at] = b;
                    }
                }
                got += n as u64;
                if got < request {
                    continue;
                }
                got = 0;
                let index = u32::from_le_bytes(head) as usize;
                head = [0; 4];
                let Some(&len) = table.get(index) else {
                    return Err(format!("a request for object {index}; the plan has {}", table.len()));
                };
                write_response(&mut conn, index as u32, len, &mut buf, deadline)?;
                n_served += 1;
                served.fetch_add(1, Ordering::Relaxed);
                sent.fetch_add(len, Ordering::Relaxed);
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => return Err(format!("reading a request: {e}")),
        }
    }
    let retrans = crate::apps::tcp_info_retrans(conn.as_raw_fd());
    Ok((retrans, n_served))
}

/// Writes object `index`'s `len`-byte response: its index, then filler.
fn write_response(conn: &mut TcpStream, index: u32, len: u64, buf: &mut [u8], deadline: Instant) -> Result<(), String> {
    conn.set_write_timeout(Some(Duration::from_millis(200))).map_err(|e| format!("timeouts: {e}"))?;
    let mut left = len;
    let mut first = true;
    while left > 0 {
        let n = (left as usize).min(buf.len());
        buf[..n].fill(b'w');
        if first {
            let h = index_bytes(index);
            let k = n.min(4);
            buf[..k].copy_from_slice(&h[..k]);
            first = false;
        }
        let mut off = 0;
        while off < n {
            if Instant::now() >= deadline {
                return Err("the run's time limit passed while sending a response".into());
            }
            match conn.write(&buf[off..n]) {
                Ok(0) => return Err("the browser closed during a response".into()),
                Ok(k) => off += k,
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted) => {}
                Err(e) => return Err(format!("sending a response: {e}")),
            }
        }
        left -= n as u64;
    }
    Ok(())
}

// ---- browser -------------------------------------------------------------------------------

/// One page view, as the browser lived it.
#[derive(Debug, Serialize, Clone)]
pub struct PageReport {
    /// View number (0-based).
    pub view: u32,
    /// Unix ns when the page started (its first request or connection).
    pub start_ns: u64,
    /// Unix ns when its last object was read.
    pub end_ns: u64,
    /// Objects (HTML included).
    pub objects: u32,
    /// Body bytes.
    pub bytes: u64,
    /// Connections opened for this page.
    pub new_connections: u32,
    /// Think time after the page, s (the plan's).
    pub think_s: f64,
}

/// What the browser reports.
#[derive(Debug, Default, Serialize)]
pub struct WebFetchReport {
    /// Pages completed.
    pub pages_done: u32,
    /// Pages in the plan.
    pub pages: u32,
    /// Objects completed.
    pub objects_done: u64,
    /// Response bytes read (headers and bodies), the responses of lost connections included.
    pub bytes: u64,
    /// Response bytes of the completed objects.
    pub bytes_complete: u64,
    /// Connections opened.
    pub connections: u32,
    /// Requests sent.
    pub requests: u64,
    /// Connections lost (reset or closed by the server) while the plan ran.
    pub connections_lost: u32,
    /// Hints sent to the agent.
    pub hints_sent: u64,
    /// Unix ns when the first page started.
    pub start_ns: u64,
    /// Unix ns when the last page ended.
    pub end_ns: u64,
    /// Congestion control the kernel used.
    pub cc: String,
    /// Each page view.
    pub page_rows: Vec<PageReport>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Connecting,
    Idle,
    Busy,
    Closed,
}

struct Conn {
    sock: Socket,
    state: State,
    local: SocketAddrV4,
    /// Object (global index) being read.
    row: u32,
    /// Response bytes still to read.
    left: u64,
    /// Response bytes read so far (the first four are the index).
    read: u64,
    head: [u8; 4],
    /// Request bytes still to write.
    req_left: u64,
}

/// The browser's settings.
pub struct FetchConfig<'a> {
    /// The server.
    pub server: SocketAddr,
    /// Socket options.
    pub tcp: SocketTcp,
    /// The whole session's bound.
    pub limit: Duration,
    /// Give up after this long without progress (outside think times).
    pub idle: Duration,
    /// The agent's hint socket, if an agent runs.
    pub hints: Option<&'a Path>,
}

/// Browses the plan's pages; see the module's documentation.
pub fn fetch(flow: &WebLiveFlow, cfg: &FetchConfig, stop: &AtomicBool) -> Result<WebFetchReport, String> {
    Browser::new(flow, cfg)?.run(stop)
}

struct Browser<'a> {
    flow: &'a WebLiveFlow,
    cfg: &'a FetchConfig<'a>,
    responses: Vec<u64>,
    /// First global object index of each page.
    first_of: Vec<u32>,
    conns: Vec<Conn>,
    queue: std::collections::VecDeque<u32>,
    page: usize,
    remaining: u32,
    thinking_until: Option<Instant>,
    hints: HintSender,
    rep: WebFetchReport,
    buf: Vec<u8>,
    last_progress: Instant,
}

impl<'a> Browser<'a> {
    fn new(flow: &'a WebLiveFlow, cfg: &'a FetchConfig<'a>) -> Result<Browser<'a>, String> {
        let mut first_of = Vec::with_capacity(flow.pages.len());
        let mut k = 0u32;
        for p in &flow.pages {
            first_of.push(k);
            k += p.sizes.len() as u32;
        }
        Ok(Browser {
            flow,
            cfg,
            responses: responses(flow),
            first_of,
            conns: Vec::new(),
            queue: Default::default(),
            page: 0,
            remaining: 0,
            thinking_until: None,
            hints: HintSender::new(cfg.hints)?,
            rep: WebFetchReport { pages: flow.pages.len() as u32, cc: cfg.tcp.cc.clone(), ..Default::default() },
            buf: vec![0u8; 256 * 1024],
            last_progress: Instant::now(),
        })
    }

    fn run(mut self, stop: &AtomicBool) -> Result<WebFetchReport, String> {
        let started = Instant::now();
        let max_conns = (self.flow.max_connections as usize) * (self.flow.pages.len() + 1) + 64;
        self.rep.start_ns = unix_ns();
        self.start_page()?;
        let mut fds: Vec<libc::pollfd> = Vec::new();
        let mut which: Vec<usize> = Vec::new();
        while self.page < self.flow.pages.len() {
            if crate::nfqueue::stopped(stop) {
                return Err(format!("stopped during page {}", self.page));
            }
            if started.elapsed() >= self.cfg.limit {
                return Err(format!("the session's time limit ({:.1} s) passed during page {} of {}", self.cfg.limit.as_secs_f64(), self.page, self.flow.pages.len()));
            }
            if self.thinking_until.is_none() && self.last_progress.elapsed() >= self.cfg.idle {
                return Err(format!("no progress for {:.1} s during page {}", self.cfg.idle.as_secs_f64(), self.page));
            }
            if self.conns.len() > max_conns {
                return Err(format!("more than {max_conns} connections opened: connections keep failing"));
            }
            fds.clear();
            which.clear();
            for (k, c) in self.conns.iter().enumerate() {
                let events = match c.state {
                    State::Closed => continue,
                    State::Connecting => libc::POLLOUT,
                    State::Busy if c.req_left > 0 => libc::POLLOUT | libc::POLLIN,
                    State::Busy | State::Idle => libc::POLLIN,
                };
                fds.push(libc::pollfd { fd: c.sock.as_raw_fd(), events, revents: 0 });
                which.push(k);
            }
            let mut timeout = Duration::from_millis(100);
            if let Some(t) = self.thinking_until {
                timeout = timeout.min(t.saturating_duration_since(Instant::now()));
            }
            // SAFETY: `fds` is a valid array of its length.
            let r = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout.as_millis().max(1) as libc::c_int) };
            if r < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(format!("poll: {e}"));
                }
            }
            if let Some(t) = self.thinking_until {
                if Instant::now() >= t {
                    self.thinking_until = None;
                    self.start_page()?;
                    continue;
                }
            }
            for i in 0..fds.len() {
                if fds[i].revents != 0 {
                    self.on_ready(which[i], fds[i].revents)?;
                }
            }
        }
        // The last page is done: close every connection (FIN), as the simulator's browser does.
        for c in &mut self.conns {
            if c.state != State::Closed {
                c.state = State::Closed;
                let _ = c.sock.shutdown(std::net::Shutdown::Both);
            }
        }
        self.rep.hints_sent = self.hints.sent;
        self.rep.connections = self.conns.len() as u32;
        Ok(self.rep)
    }

    fn start_page(&mut self) -> Result<(), String> {
        // A new page request: the agent starts a fresh RTT cache (seed 000 §III-E).
        self.hints.send(WebHint::NewPage)?;
        let p = &self.flow.pages[self.page];
        self.rep.page_rows.push(PageReport {
            view: self.page as u32,
            start_ns: unix_ns(),
            end_ns: 0,
            objects: p.sizes.len() as u32,
            bytes: p.sizes.iter().sum(),
            new_connections: 0,
            think_s: p.think.as_secs_f64(),
        });
        self.remaining = p.sizes.len() as u32;
        self.queue.push_back(self.first_of[self.page]);
        self.last_progress = Instant::now();
        self.dispatch()
    }

    fn page_done(&mut self) -> Result<(), String> {
        let now = unix_ns();
        if let Some(r) = self.rep.page_rows.last_mut() {
            r.end_ns = now;
        }
        self.rep.end_ns = now;
        self.rep.pages_done += 1;
        let think = self.flow.pages[self.page].think;
        self.page += 1;
        if self.page < self.flow.pages.len() {
            self.thinking_until = Some(Instant::now() + Duration::from_nanos(think.0));
        }
        Ok(())
    }

    /// Hands queued objects to idle connections; opens connections (up to the limit) for
    /// objects no idle or connecting connection will take (the simulator's rule).
    fn dispatch(&mut self) -> Result<(), String> {
        loop {
            let Some(&row) = self.queue.front() else { return Ok(()) };
            if let Some(k) = self.conns.iter().position(|c| c.state == State::Idle) {
                self.queue.pop_front();
                self.request(k, row)?;
                continue;
            }
            let open = self.conns.iter().filter(|c| c.state != State::Closed).count();
            let connecting = self.conns.iter().filter(|c| c.state == State::Connecting).count();
            if open >= self.flow.max_connections as usize || connecting >= self.queue.len() {
                return Ok(());
            }
            self.open()?;
        }
    }

    fn open(&mut self) -> Result<(), String> {
        let sock = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP)).map_err(|e| format!("socket: {e}"))?;
        apply(&sock, &self.cfg.tcp)?;
        sock.set_tcp_nodelay(true).map_err(|e| format!("TCP_NODELAY: {e}"))?;
        sock.set_nonblocking(true).map_err(|e| format!("O_NONBLOCK: {e}"))?;
        match sock.connect(&self.cfg.server.into()) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => {}
            Err(e) => return Err(format!("connect {}: {e}", self.cfg.server)),
        }
        if self.rep.cc.is_empty() {
            self.rep.cc = self.cfg.tcp.cc.clone();
        }
        self.conns.push(Conn { sock, state: State::Connecting, local: UNSPECIFIED, row: 0, left: 0, read: 0, head: [0; 4], req_left: 0 });
        if let Some(p) = self.rep.page_rows.last_mut() {
            p.new_connections += 1;
        }
        Ok(())
    }

    fn request(&mut self, k: usize, row: u32) -> Result<(), String> {
        let len = self.responses[row as usize];
        let c = &mut self.conns[k];
        c.state = State::Busy;
        c.row = row;
        c.left = len;
        c.read = 0;
        c.head = [0; 4];
        c.req_left = self.flow.request;
        self.rep.requests += 1;
        self.write_request(k)
    }

    fn write_request(&mut self, k: usize) -> Result<(), String> {
        let request = self.flow.request;
        let c = &mut self.conns[k];
        let head = index_bytes(c.row);
        let mut out = [b'G'; 1024];
        while c.req_left > 0 {
            let done = request - c.req_left;
            let n = (c.req_left as usize).min(out.len());
            out[..n].fill(b'G');
            for i in 0..n {
                let at = done as usize + i;
                if at < 4 {
                    out[i] = head[at];
                }
            }
            match c.sock.write(&out[..n]) {
                Ok(w) => c.req_left -= w as u64,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return self.lost(k),
            }
        }
        Ok(())
    }

    fn on_ready(&mut self, k: usize, revents: libc::c_short) -> Result<(), String> {
        match self.conns[k].state {
            State::Closed => Ok(()),
            State::Connecting => {
                let c = &mut self.conns[k];
                match c.sock.take_error() {
                    Ok(None) if revents & (libc::POLLERR | libc::POLLHUP) == 0 => {
                        c.local = c.sock.local_addr().ok().and_then(|a| a.as_socket_ipv4()).unwrap_or(UNSPECIFIED);
                        c.state = State::Idle;
                        self.last_progress = Instant::now();
                        self.dispatch()
                    }
                    _ => self.lost(k),
                }
            }
            State::Idle => {
                // Nothing is owed on an idle connection: readable means the server closed it.
                match self.conns[k].sock.read(&mut self.buf[..1]) {
                    Ok(0) | Err(_) => self.lost(k),
                    Ok(_) => Err("the server sent data nobody asked for".into()),
                }
            }
            State::Busy => {
                if self.conns[k].req_left > 0 && revents & libc::POLLOUT != 0 {
                    self.write_request(k)?;
                }
                if revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP) != 0 && self.conns[k].state == State::Busy {
                    self.read(k)?;
                }
                Ok(())
            }
        }
    }

    fn read(&mut self, k: usize) -> Result<(), String> {
        let c = &mut self.conns[k];
        let want = (c.left as usize).min(self.buf.len());
        let n = match c.sock.read(&mut self.buf[..want]) {
            Ok(0) => return self.lost(k),
            Ok(n) => n,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted) => return Ok(()),
            Err(_) => return self.lost(k),
        };
        self.last_progress = Instant::now();
        self.rep.bytes += n as u64;
        let first = c.read == 0;
        for i in 0..n {
            let at = c.read as usize + i;
            if at < 4 {
                c.head[at] = self.buf[i];
            }
        }
        c.read += n as u64;
        c.left -= n as u64;
        let (row, local, len, read, head) = (c.row, c.local, self.responses[c.row as usize], c.read, c.head);
        if first {
            // The browser now knows the response's length (Content-Length).
            let remote = match self.cfg.server {
                SocketAddr::V4(a) => a,
                SocketAddr::V6(_) => UNSPECIFIED,
            };
            self.hints.send(WebHint::ResponseSize { local, remote, bytes: len })?;
        }
        let want_head = index_bytes(row);
        let k4 = (read.min(4)) as usize;
        if head[..k4] != want_head[..k4] {
            return Err(format!("the response to object {row} starts with another object's index {:?}", &head[..k4]));
        }
        if self.conns[k].left == 0 {
            self.object_done(k)?;
        }
        Ok(())
    }

    fn object_done(&mut self, k: usize) -> Result<(), String> {
        let c = &mut self.conns[k];
        c.state = State::Idle;
        let row = c.row;
        self.rep.objects_done += 1;
        self.rep.bytes_complete += self.responses[row as usize];
        let first = self.first_of[self.page];
        if row == first {
            // The HTML is in: the browser now knows (and requests) the embedded objects.
            let n = self.flow.pages[self.page].sizes.len() as u32;
            self.queue.extend(first + 1..first + n);
        }
        self.remaining -= 1;
        if self.remaining == 0 {
            self.page_done()
        } else {
            self.dispatch()
        }
    }

    /// A connection failed or the server closed it: a request in progress goes back to the
    /// head of the queue (a browser retries it on another connection).
    fn lost(&mut self, k: usize) -> Result<(), String> {
        let c = &mut self.conns[k];
        let was = c.state;
        if was == State::Closed {
            return Ok(());
        }
        c.state = State::Closed;
        let _ = c.sock.shutdown(std::net::Shutdown::Both);
        self.rep.connections_lost += 1;
        if was == State::Busy {
            let row = c.row;
            self.queue.push_front(row);
        }
        if self.thinking_until.is_none() && self.page < self.flow.pages.len() {
            self.dispatch()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wattlab_sim::live_spec::WebLivePage;

    fn plan() -> WebLiveFlow {
        let page = |sizes: &[u64], think_ms: u64| WebLivePage { sizes: sizes.to_vec(), think: wattlab_core::Duration::from_millis(think_ms), first_visit: true };
        WebLiveFlow {
            pages: vec![page(&[5000, 300, 70_000, 1200, 9], 30), page(&[100_000], 10), page(&[2000, 1, 2, 3, 4, 5, 6], 0)],
            max_connections: 3,
            request: 350,
            response_header: 200,
        }
    }

    #[test]
    fn browser_and_server_run_the_plan_over_loopback() {
        let flow = plan();
        let tcp = SocketTcp { cc: "reno".into(), window_clamp: None, buffer: None };
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = probe.local_addr().unwrap();
        drop(probe);
        let stop = Arc::new(AtomicBool::new(false));
        let (f2, t2, s2) = (flow.clone(), tcp.clone(), stop.clone());
        let server = std::thread::spawn(move || serve(addr, &f2, &t2, Duration::from_secs(20), &s2));
        std::thread::sleep(Duration::from_millis(200));
        let cfg = FetchConfig { server: addr, tcp, limit: Duration::from_secs(20), idle: Duration::from_secs(10), hints: None };
        let rep = fetch(&flow, &cfg, &stop).unwrap();
        let srv = server.join().unwrap().unwrap();
        assert_eq!(rep.pages_done, 3);
        assert_eq!(rep.objects_done, flow.objects());
        assert_eq!(rep.bytes, flow.target_bytes());
        assert_eq!(rep.bytes_complete, flow.target_bytes());
        assert_eq!(srv.bytes_sent, flow.target_bytes());
        assert_eq!(srv.requests, flow.objects());
        assert_eq!(srv.outcome, "done");
        // At most max_connections connections, persistent across pages; the first page opens
        // one for the HTML, then more for its 4 objects.
        assert!(rep.connections >= 2 && rep.connections <= 3, "{rep:?}");
        assert_eq!(rep.page_rows[1].new_connections, 0, "persistent connections are reused");
        // Think times separate the pages.
        let gap = rep.page_rows[1].start_ns - rep.page_rows[0].end_ns;
        assert!(gap >= 30_000_000, "think gap {gap} ns");
    }
}
