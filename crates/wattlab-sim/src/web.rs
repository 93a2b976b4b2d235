//! Web browsing (`[[flow]] kind = "web"`): a browser fetching pages from HTTP/1.1 servers over
//! persistent connections, as in seed 000's web workload (Yan et al.).
//!
//! The page sequence is drawn when the scenario is built ([`generate`]): for each page view a
//! site (Zipf over `servers`), a sub-page of that site (Zipf over `subsites`), the page's
//! objects on its first visit (a main HTML document and a geometric number of embedded objects
//! with bounded-Pareto body sizes; later visits reuse them) and a Pareto think time. Each draw
//! comes from its own named stream of [`crate::rng`], so the content of page (site, sub-page)
//! does not change when the number of pages, the popularity or the think times change.
//!
//! At run time ([`WebFlow`], driven from `sim.rs` by thin hooks) the browser GETs the HTML on a
//! connection to the page's site (an idle persistent one if there is one), then the embedded
//! objects over up to `max_connections` connections to that site, one request outstanding per
//! connection; a connection that finishes an object takes the next one. A response is the body
//! plus a fixed header; the client knows it is complete when it has read that many bytes (what
//! Content-Length tells a real browser). After the last object, the think time; after the last
//! page, the client closes every connection.

use crate::app::AppId;
use crate::rng::{RngStreams, StreamRng};
use crate::scenario::{PageListEntry, SizeDistConfig, WebFlowConfig};
use crate::sim::Simulation;
use rand::Rng;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use wattlab_core::tcp::{TcpConfig, TcpConnection, TcpEvent};
use wattlab_core::{Duration, Endpoint, Time};

/// Page views when `pages` is not given (seed 000's script: 100 pages).
pub const DEFAULT_PAGES: u32 = 100;
/// Think-time Pareto shape α (the seed's value is illegible; 1.5 as in the BSD work).
pub const DEFAULT_THINK_SHAPE: f64 = 1.5;
/// Think-time Pareto scale (minimum), 1 s.
pub const DEFAULT_THINK_SCALE: Duration = Duration::from_secs(1);
/// Persistent connections per site.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 4;
/// Largest `max_connections` accepted.
pub const MAX_CONNECTIONS_LIMIT: u32 = 16;
/// Mean embedded objects per page: seed 000's 558 sub-object requests over 100 pages.
pub const DEFAULT_OBJECTS_MEAN: f64 = 5.58;
/// Mean body size of an embedded object (bytes); with the HTML's, 27.9 kB per page.
pub const DEFAULT_OBJECT_MEAN: u64 = 3_200;
/// Mean body size of a main HTML document (bytes).
pub const DEFAULT_HTML_MEAN: u64 = 10_000;
/// Bounded-Pareto shape of body sizes (web file sizes have tails with α ≈ 1.1–1.3).
pub const DEFAULT_SIZE_SHAPE: f64 = 1.2;
/// Largest body size (bytes).
pub const DEFAULT_SIZE_MAX: u64 = 1_000_000;
/// Zipf exponent of site and sub-page popularity.
pub const DEFAULT_POPULARITY: f64 = 1.0;
/// Sub-pages per site: under Zipf(1), the 15th of 15 still has P > 2 % (seed 000's cut-off).
pub const DEFAULT_SUBSITES: u32 = 15;
/// HTTP GET size (request line and headers), bytes.
pub const DEFAULT_REQUEST: u64 = 350;
/// HTTP response header size added to every body, bytes.
pub const DEFAULT_RESPONSE_HEADER: u64 = 250;
/// Server port.
pub const DEFAULT_PORT: u16 = 80;
/// Think times are capped here only so that times cannot overflow (~31 years).
const THINK_CAP_NS: f64 = 1e18;
/// Embedded objects per page are capped here (P = (m/(1+m))^10000: never at sane means).
const OBJECTS_CAP: u64 = 10_000;

// ---- distributions -----------------------------------------------------------------------

/// A Zipf law over `n` ranks: P(rank i) ∝ 1 / (i + 1)^s.
#[derive(Clone, Debug)]
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    /// Zipf over `n ≥ 1` ranks with exponent `s ≥ 0` (0 = uniform).
    pub fn new(n: u32, s: f64) -> Zipf {
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (0..n.max(1))
            .map(|i| {
                acc += 1.0 / ((i + 1) as f64).powf(s);
                acc
            })
            .collect();
        cdf.iter_mut().for_each(|c| *c /= acc);
        Zipf { cdf }
    }

    /// Probability of rank `i`.
    pub fn p(&self, i: u32) -> f64 {
        let i = i as usize;
        self.cdf[i] - if i == 0 { 0.0 } else { self.cdf[i - 1] }
    }

    /// Draw a rank.
    pub fn sample(&self, rng: &mut StreamRng) -> u32 {
        let u: f64 = rng.random();
        (self.cdf.partition_point(|&c| c <= u) as u32).min(self.cdf.len() as u32 - 1)
    }
}

/// A bounded Pareto law on [low, high]: P(X > x) ∝ x^−α − high^−α.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundedPareto {
    /// Tail index α.
    pub shape: f64,
    /// Smallest value.
    pub low: f64,
    /// Largest value.
    pub high: f64,
}

impl BoundedPareto {
    /// Mean of the law.
    pub fn mean(&self) -> f64 {
        let (a, l, h) = (self.shape, self.low, self.high);
        let norm = 1.0 - (l / h).powf(a);
        if (a - 1.0).abs() < 1e-12 {
            return l * (h / l).ln() / norm;
        }
        a * l.powf(a) * (l.powf(1.0 - a) - h.powf(1.0 - a)) / ((a - 1.0) * norm)
    }

    /// The law with tail index `shape` and maximum `high` whose mean is `mean` (found by
    /// bisection on `low`, the mean being increasing in it); None unless 0 < mean < high.
    pub fn with_mean(mean: f64, shape: f64, high: f64) -> Option<BoundedPareto> {
        if !(mean > 0.0 && mean < high && shape > 0.0 && shape.is_finite()) {
            return None;
        }
        let (mut lo, mut hi) = (mean * 1e-9, mean);
        for _ in 0..200 {
            let mid = (lo * hi).sqrt();
            if (BoundedPareto { shape, low: mid, high }).mean() < mean {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(BoundedPareto { shape, low: (lo * hi).sqrt(), high })
    }

    /// Draw a value by inverting the CDF.
    pub fn sample(&self, rng: &mut StreamRng) -> f64 {
        let u: f64 = rng.random();
        let tail = 1.0 - (self.low / self.high).powf(self.shape);
        (self.low / (1.0 - u * tail).powf(1.0 / self.shape)).min(self.high)
    }

    /// Draw a size in whole bytes (at least 1).
    pub fn sample_bytes(&self, rng: &mut StreamRng) -> u64 {
        self.sample(rng).round().max(1.0) as u64
    }
}

/// A Pareto law: P(X > x) = (scale / x)^shape for x ≥ scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pareto {
    /// Tail index α.
    pub shape: f64,
    /// Minimum, in nanoseconds.
    pub scale_ns: f64,
}

impl Pareto {
    /// Draw a duration (capped at ~31 years so times cannot overflow).
    pub fn sample(&self, rng: &mut StreamRng) -> Duration {
        let u = 1.0 - rng.random::<f64>(); // (0, 1]
        Duration((self.scale_ns * u.powf(-1.0 / self.shape)).min(THINK_CAP_NS).round() as u64)
    }
}

/// Geometric count on {0, 1, 2, ...} with the given mean: P(k) = p(1 − p)^k, p = 1/(1 + mean).
pub fn geometric(mean: f64, rng: &mut StreamRng) -> u64 {
    if mean <= 0.0 {
        return 0;
    }
    let u = 1.0 - rng.random::<f64>(); // (0, 1]
    let q = mean / (1.0 + mean); // 1 − p
    ((u.ln() / q.ln()).floor() as u64).min(OBJECTS_CAP)
}

// ---- validated settings ------------------------------------------------------------------

/// A problem in a web flow's settings: `field` is the key of the `[[flow]]` table to point at,
/// `key` the full dotted key under `flow[i].`.
#[derive(Clone, Debug, PartialEq)]
pub struct WebConfigError {
    /// Top-level key of the flow table (for the line number).
    pub field: &'static str,
    /// Dotted key under `flow[i]`, e.g. `think.shape`.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

fn bad(field: &'static str, key: &str, message: impl Into<String>) -> WebConfigError {
    WebConfigError { field, key: key.to_string(), message: message.into() }
}

/// One page of an explicit list: site (index into `servers`), body sizes, optional think time.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedPage {
    /// Index of the site in `servers`.
    pub site: u32,
    /// Body sizes, main HTML first.
    pub sizes: Vec<u64>,
    /// Think time after the page, if given.
    pub think: Option<Duration>,
}

/// A web flow's settings, defaulted and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct WebSpec {
    /// Number of sites (`servers`).
    pub sites: u32,
    /// Page views.
    pub pages: u32,
    /// Think time after each page.
    pub think: Pareto,
    /// Persistent connections per site.
    pub max_connections: u32,
    /// Mean embedded objects per page.
    pub objects_mean: f64,
    /// Body sizes of embedded objects.
    pub object_size: BoundedPareto,
    /// Body sizes of main HTML documents.
    pub html_size: BoundedPareto,
    /// Zipf exponent over sites.
    pub site_popularity: f64,
    /// Sub-pages per site.
    pub subsites: u32,
    /// Zipf exponent over a site's sub-pages.
    pub subsite_popularity: f64,
    /// HTTP request size.
    pub request: u64,
    /// HTTP response header size.
    pub response_header: u64,
    /// Server port.
    pub port: u16,
    /// Explicit pages instead of the generator.
    pub page_list: Option<Vec<ListedPage>>,
}

fn tail_index(v: Option<f64>, default: f64, field: &'static str, key: &str) -> Result<f64, WebConfigError> {
    let a = v.unwrap_or(default);
    if !(a.is_finite() && a > 1.0 && a <= 100.0) {
        return Err(bad(field, key, format!("must be a number in (1, 100] (a tail index ≤ 1 has no mean), got {a}")));
    }
    Ok(a)
}

fn popularity(v: Option<f64>, field: &'static str) -> Result<f64, WebConfigError> {
    let s = v.unwrap_or(DEFAULT_POPULARITY);
    if !(s.is_finite() && (0.0..=10.0).contains(&s)) {
        return Err(bad(field, field, format!("must be a Zipf exponent in [0, 10] (0 = uniform), got {s}")));
    }
    Ok(s)
}

fn size_dist(cfg: Option<&SizeDistConfig>, default_mean: u64, field: &'static str) -> Result<BoundedPareto, WebConfigError> {
    let mean = cfg.and_then(|c| c.mean).map(|s| s.bytes()).unwrap_or(default_mean);
    let shape = tail_index(cfg.and_then(|c| c.shape), DEFAULT_SIZE_SHAPE, field, &format!("{field}.shape"))?;
    let max = cfg.and_then(|c| c.max).map(|s| s.bytes()).unwrap_or(DEFAULT_SIZE_MAX);
    if mean == 0 {
        return Err(bad(field, &format!("{field}.mean"), "must be at least 1 byte"));
    }
    if max <= mean {
        return Err(bad(field, &format!("{field}.max"), format!("must be larger than the mean ({mean} B), got {max} B")));
    }
    BoundedPareto::with_mean(mean as f64, shape, max as f64)
        .ok_or_else(|| bad(field, &format!("{field}.mean"), format!("no bounded Pareto law has mean {mean} B below {max} B")))
}

impl WebSpec {
    /// Default and check a flow's settings (node names are resolved by the builder).
    pub fn from_config(cfg: &WebFlowConfig) -> Result<WebSpec, WebConfigError> {
        let sites = cfg.servers.len();
        if sites == 0 {
            return Err(bad("servers", "servers", "list at least one server node"));
        }
        if sites > 10_000 {
            return Err(bad("servers", "servers", "at most 10000 servers"));
        }
        for (i, s) in cfg.servers.iter().enumerate() {
            if cfg.servers[..i].contains(s) {
                return Err(bad("servers", "servers", format!("server `{s}` is listed twice")));
            }
            if *s == cfg.client {
                return Err(bad("servers", "servers", format!("`{s}` is the client; a server must be another node")));
            }
        }
        let think_cfg = cfg.think.unwrap_or(crate::scenario::ThinkConfig { shape: None, scale: None });
        let think_shape = tail_index(think_cfg.shape, DEFAULT_THINK_SHAPE, "think", "think.shape")?;
        let think_scale = think_cfg.scale.map(|d| d.get()).unwrap_or(DEFAULT_THINK_SCALE);
        if think_scale == Duration::ZERO {
            return Err(bad("think", "think.scale", "must be positive (it is the shortest think time)"));
        }
        let max_connections = cfg.max_connections.unwrap_or(DEFAULT_MAX_CONNECTIONS);
        if !(1..=MAX_CONNECTIONS_LIMIT).contains(&max_connections) {
            return Err(bad(
                "max_connections",
                "max_connections",
                format!("must be 1..={MAX_CONNECTIONS_LIMIT} connections per site, got {max_connections}"),
            ));
        }
        let objects_mean = cfg.objects.map(|o| o.mean).unwrap_or(DEFAULT_OBJECTS_MEAN);
        if !(objects_mean.is_finite() && (0.0..=1000.0).contains(&objects_mean)) {
            return Err(bad("objects", "objects.mean", format!("must be a mean number of objects in [0, 1000], got {objects_mean}")));
        }
        let object_size = size_dist(cfg.object_size.as_ref(), DEFAULT_OBJECT_MEAN, "object_size")?;
        let html_size = size_dist(cfg.html_size.as_ref(), DEFAULT_HTML_MEAN, "html_size")?;
        let site_popularity = popularity(cfg.site_popularity, "site_popularity")?;
        let subsite_popularity = popularity(cfg.subsite_popularity, "subsite_popularity")?;
        let subsites = cfg.subsites.unwrap_or(DEFAULT_SUBSITES);
        if !(1..=10_000).contains(&subsites) {
            return Err(bad("subsites", "subsites", format!("must be 1..=10000 sub-pages per site, got {subsites}")));
        }
        let request = cfg.request.map(|s| s.bytes()).unwrap_or(DEFAULT_REQUEST);
        if request == 0 {
            return Err(bad("request", "request", "must be at least 1 byte"));
        }
        let response_header = cfg.response_header.map(|s| s.bytes()).unwrap_or(DEFAULT_RESPONSE_HEADER);
        let port = cfg.port.unwrap_or(DEFAULT_PORT);
        if port == 0 {
            return Err(bad("port", "port", "must be 1..=65535"));
        }
        let page_list = match &cfg.page_list {
            None => None,
            Some(list) => Some(listed_pages(list, &cfg.servers, cfg.pages.is_some())?),
        };
        let pages = match (&page_list, cfg.pages) {
            (Some(l), _) => l.len() as u32,
            (None, p) => p.unwrap_or(DEFAULT_PAGES),
        };
        if !(1..=10_000_000).contains(&pages) {
            return Err(bad("pages", "pages", format!("must be 1..=10000000 page views, got {pages}")));
        }
        Ok(WebSpec {
            sites: sites as u32,
            pages,
            think: Pareto { shape: think_shape, scale_ns: think_scale.0 as f64 },
            max_connections,
            objects_mean,
            object_size,
            html_size,
            site_popularity,
            subsites,
            subsite_popularity,
            request,
            response_header,
            port,
            page_list,
        })
    }

    /// Expected body bytes of a page under the generator: E[HTML] + E[objects] · E[object].
    pub fn expected_page_bytes(&self) -> f64 {
        self.html_size.mean() + self.objects_mean * self.object_size.mean()
    }
}

fn listed_pages(list: &[PageListEntry], servers: &[String], pages_given: bool) -> Result<Vec<ListedPage>, WebConfigError> {
    if pages_given {
        return Err(bad("pages", "pages", "give `pages` or `page_list`, not both (a list is viewed once, in order)"));
    }
    if list.is_empty() {
        return Err(bad("page_list", "page_list", "the list is empty"));
    }
    list.iter()
        .enumerate()
        .map(|(i, e)| {
            let site = servers.iter().position(|s| *s == e.site).ok_or_else(|| {
                bad("page_list", &format!("page_list[{i}].site"), format!("`{}` is not one of `servers` ({})", e.site, servers.join(", ")))
            })?;
            if e.objects.is_empty() {
                return Err(bad("page_list", &format!("page_list[{i}].objects"), "list at least the main HTML's size"));
            }
            if e.objects.iter().any(|s| s.bytes() == 0) {
                return Err(bad("page_list", &format!("page_list[{i}].objects"), "every body size must be at least 1 byte"));
            }
            if e.objects.len() as u64 > OBJECTS_CAP + 1 {
                return Err(bad("page_list", &format!("page_list[{i}].objects"), format!("at most {} objects per page", OBJECTS_CAP + 1)));
            }
            Ok(ListedPage { site: site as u32, sizes: e.objects.iter().map(|s| s.bytes()).collect(), think: e.think.map(|d| d.get()) })
        })
        .collect()
}

// ---- the page sequence -------------------------------------------------------------------

/// A distinct page: where it lives and its objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageContent {
    /// Site (index into the flow's servers).
    pub site: u32,
    /// Sub-page of the site (for a listed page: its position in the list).
    pub subpage: u32,
    /// Body sizes in bytes: the main HTML first, then the embedded objects.
    pub sizes: Vec<u64>,
}

/// One page view of the sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageView {
    /// Index into [`Workload::contents`].
    pub content: u32,
    /// True on the first view of this content.
    pub first_visit: bool,
    /// Think time after the page completes.
    pub think: Duration,
}

/// The page views of a web flow and the distinct pages they show.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workload {
    /// Page views in order.
    pub views: Vec<PageView>,
    /// Distinct pages.
    pub contents: Vec<PageContent>,
}

impl Workload {
    /// Objects (HTML included) over all views.
    pub fn total_objects(&self) -> usize {
        self.views.iter().map(|v| self.contents[v.content as usize].sizes.len()).sum()
    }
}

/// Draw a new page's body sizes: the main HTML, then a geometric number of embedded objects.
pub fn draw_page(spec: &WebSpec, rng: &mut StreamRng) -> Vec<u64> {
    let n = geometric(spec.objects_mean, rng);
    let mut sizes = Vec::with_capacity(n as usize + 1);
    sizes.push(spec.html_size.sample_bytes(rng));
    sizes.extend((0..n).map(|_| spec.object_size.sample_bytes(rng)));
    sizes
}

/// The page sequence of a flow named `flow`, deterministic in the run's seed. Streams:
/// `web:FLOW:sites` (site and sub-page choices), `web:FLOW:think`, and
/// `web:FLOW:page:SITE:SUBPAGE` (a page's objects, drawn on its first visit).
pub fn generate(spec: &WebSpec, streams: &RngStreams, flow: &str) -> Workload {
    let mut think_rng = streams.stream(&format!("web:{flow}:think"));
    let mut w = Workload::default();
    if let Some(list) = &spec.page_list {
        for (i, p) in list.iter().enumerate() {
            let drawn = spec.think.sample(&mut think_rng);
            w.contents.push(PageContent { site: p.site, subpage: i as u32, sizes: p.sizes.clone() });
            w.views.push(PageView { content: i as u32, first_visit: true, think: p.think.unwrap_or(drawn) });
        }
        return w;
    }
    let mut site_rng = streams.stream(&format!("web:{flow}:sites"));
    let sites = Zipf::new(spec.sites, spec.site_popularity);
    let subpages = Zipf::new(spec.subsites, spec.subsite_popularity);
    let mut seen: HashMap<(u32, u32), u32> = HashMap::new();
    for _ in 0..spec.pages {
        let site = sites.sample(&mut site_rng);
        let subpage = subpages.sample(&mut site_rng);
        let think = spec.think.sample(&mut think_rng);
        let (content, first_visit) = match seen.get(&(site, subpage)) {
            Some(&c) => (c, false),
            None => {
                let mut rng = streams.stream(&format!("web:{flow}:page:{site}:{subpage}"));
                let c = w.contents.len() as u32;
                w.contents.push(PageContent { site, subpage, sizes: draw_page(spec, &mut rng) });
                seen.insert((site, subpage), c);
                (c, true)
            }
        };
        w.views.push(PageView { content, first_visit, think });
    }
    w
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
    /// Client-side connection (index in `Simulation::conns`).
    client: u32,
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
}

/// One row of the object table, while running.
#[derive(Clone, Copy, Debug)]
struct ObjectRow {
    page: u32,
    index: u32,
    site: u32,
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
pub struct WebFlow {
    flow: usize,
    client_app: AppId,
    client_node: u32,
    /// Server node of each site.
    site_nodes: Vec<u32>,
    port: u16,
    tcp: TcpConfig,
    request: u64,
    header: u64,
    max_connections: u32,
    work: Workload,
    conns: Vec<WebConn>,
    /// Connections (indices into `conns`) per site.
    by_site: Vec<Vec<u32>>,
    /// Simulation connection → (index into `conns`, true at the server).
    conn_of: HashMap<u32, (u32, bool)>,
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

impl WebFlow {
    /// Page views the flow will make.
    pub fn pages_planned(&self) -> usize {
        self.work.views.len()
    }

    /// A web flow about to start; `site_nodes` are the servers' nodes in `servers` order.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        flow: usize,
        client_app: AppId,
        client_node: u32,
        site_nodes: Vec<u32>,
        spec: &WebSpec,
        tcp: TcpConfig,
        work: Workload,
    ) -> WebFlow {
        let max_objects = work.contents.iter().map(|c| c.sizes.len()).max().unwrap_or(1);
        let sites = site_nodes.len();
        WebFlow {
            flow,
            client_app,
            client_node,
            port: spec.port,
            tcp,
            request: spec.request,
            header: spec.response_header,
            max_connections: spec.max_connections,
            conns: Vec::with_capacity(sites * spec.max_connections as usize),
            by_site: vec![Vec::new(); sites],
            conn_of: HashMap::new(),
            queue: VecDeque::with_capacity(max_objects),
            busy: 0,
            active: false,
            next_view: 0,
            first_row: 0,
            remaining: 0,
            pages: Vec::with_capacity(work.views.len()),
            objects: Vec::with_capacity(work.total_objects()),
            site_nodes,
            work,
        }
    }

    /// Response bytes (bodies and headers) over every page view: what the client must read.
    pub(crate) fn target_bytes(&self) -> u64 {
        self.work
            .views
            .iter()
            .flat_map(|v| self.work.contents[v.content as usize].sizes.iter())
            .map(|s| s + self.header)
            .sum()
    }
}

/// What a client application has told about a connection's traffic: the input of a
/// client-side energy agent (seed 000's CC agent). Filled by [`Simulation::note_request`]
/// and [`Simulation::note_response_size`].
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

impl Simulation {
    // ---- integration point of a client-side energy agent ---------------------------------

    /// The client application sent a request of `bytes` on connection `conn` at `now`.
    pub(crate) fn note_request(&mut self, now: Time, conn: u32, bytes: u64) {
        let h = &mut self.conns[conn as usize].hints;
        h.request_at = Some(now);
        h.request_bytes = bytes;
        h.requests += 1;
    }

    /// Integration point of seed 000's client-centred agent: the first byte of a response
    /// reached the client application on `conn` at `now`, the moment a browser parses
    /// Content-Length, so the application now knows the response is `bytes` long (header +
    /// body). Recorded in the connection's [`ConnHints`]; an agent hooks in here.
    pub(crate) fn note_response_size(&mut self, now: Time, conn: u32, bytes: u64) {
        let h = &mut self.conns[conn as usize].hints;
        h.response_at = Some(now);
        h.response_bytes = bytes;
        if !self.agents.is_empty() {
            let slot = &self.conns[conn as usize];
            let (node, local, remote) = (slot.node, slot.conn.local(), slot.conn.remote());
            self.agent_expect_response(now, node, local, remote, bytes);
        }
    }

    // ---- hooks called from sim.rs ------------------------------------------------------

    /// The browser's wake-up: start the next page if none is loading.
    pub(crate) fn web_wake(&mut self, now: Time, web: u32) {
        let w = &self.webs[web as usize];
        if !w.active && (w.next_view as usize) < w.work.views.len() {
            self.web_start_page(now, web);
        }
    }

    /// The server side of a web flow accepted connection `c` from `remote` (the client).
    pub(crate) fn web_accepted(&mut self, web: u32, c: u32, remote: Endpoint) {
        let w = &self.webs[web as usize];
        let Some(k) = w.conns.iter().position(|wc| self.conns[wc.client as usize].conn.local() == remote) else {
            return;
        };
        self.webs[web as usize].conn_of.insert(c, (k as u32, true));
    }

    /// A TCP event on a connection of a web flow (either end).
    pub(crate) fn web_tcp_event(&mut self, now: Time, c: u32, web: u32, ev: TcpEvent) {
        let Some(&(k, server)) = self.webs[web as usize].conn_of.get(&c) else { return };
        if server {
            self.web_server_event(c, web, k, ev);
        } else {
            self.web_client_event(now, c, web, k, ev);
        }
    }

    // ---- server ------------------------------------------------------------------------

    fn web_server_event(&mut self, c: u32, web: u32, k: u32, ev: TcpEvent) {
        let w = &mut self.webs[web as usize];
        let conn = &mut self.conns[c as usize].conn;
        match ev {
            TcpEvent::Readable => {
                let wc = &mut w.conns[k as usize];
                wc.request_read += conn.read(u64::MAX);
                while wc.request_read >= w.request {
                    let Some(size) = wc.owed.pop_front() else { break };
                    wc.request_read -= w.request;
                    conn.send(size);
                }
            }
            TcpEvent::PeerFin => conn.close(),
            _ => {}
        }
    }

    // ---- client ------------------------------------------------------------------------

    fn web_client_event(&mut self, now: Time, c: u32, web: u32, k: u32, ev: TcpEvent) {
        let wi = web as usize;
        match ev {
            TcpEvent::Connected => {
                let wc = &mut self.webs[wi].conns[k as usize];
                if wc.state == ConnState::Connecting {
                    wc.state = ConnState::Idle;
                }
                self.web_dispatch(now, web);
            }
            TcpEvent::Readable => {
                let n = self.conns[c as usize].conn.read(u64::MAX);
                let flow = self.webs[wi].flow;
                self.flows[flow].bytes_delivered += n;
                let w = &mut self.webs[wi];
                let wc = &mut w.conns[k as usize];
                if wc.state != ConnState::Busy || n == 0 {
                    return;
                }
                let row = &mut w.objects[wc.row as usize];
                let first = row.first_byte_at.is_none();
                if first {
                    row.first_byte_at = Some(now);
                }
                let response = row.response;
                wc.left = wc.left.saturating_sub(n);
                let done = wc.left == 0;
                if first {
                    self.note_response_size(now, c, response);
                }
                if done {
                    self.web_object_done(now, web, k);
                }
            }
            TcpEvent::PeerFin | TcpEvent::Reset | TcpEvent::TimedOut => self.web_conn_lost(now, web, k),
            _ => {}
        }
    }

    /// Open a new connection from the browser to `site`.
    fn web_open(&mut self, now: Time, web: u32, site: u32) {
        let wi = web as usize;
        let (node, app, server) = (self.webs[wi].client_node, self.webs[wi].client_app, self.webs[wi].site_nodes[site as usize]);
        let remote = Endpoint::new(self.nodes[server as usize].addr, self.webs[wi].port);
        let local = self.ephemeral_endpoint(node);
        let isn = self.isn_rng.random::<u32>();
        let conn = TcpConnection::connect(self.webs[wi].tcp.clone(), local, remote, isn, now);
        let c = self.add_conn(conn, node, app, local, remote);
        let w = &mut self.webs[wi];
        let k = w.conns.len() as u32;
        w.conns.push(WebConn {
            client: c,
            state: ConnState::Connecting,
            row: 0,
            left: 0,
            requests: 0,
            owed: VecDeque::with_capacity(1),
            request_read: 0,
        });
        w.by_site[site as usize].push(k);
        w.conn_of.insert(c, (k, false));
        if let Some(p) = w.pages.last_mut() {
            p.new_connections += 1;
        }
        self.drive(now, c);
    }

    /// Hand queued objects to idle connections of the page's site; open connections (up to
    /// the limit) for objects that no idle or connecting connection will take.
    fn web_dispatch(&mut self, now: Time, web: u32) {
        let wi = web as usize;
        loop {
            let w = &self.webs[wi];
            let Some(&row) = w.queue.front() else { return };
            let site = w.objects[row as usize].site;
            let conns = &w.by_site[site as usize];
            if let Some(&k) = conns.iter().find(|&&k| w.conns[k as usize].state == ConnState::Idle) {
                self.webs[wi].queue.pop_front();
                self.web_request(now, web, k, row);
                continue;
            }
            let open = conns.iter().filter(|&&k| w.conns[k as usize].state != ConnState::Closed).count();
            let connecting = conns.iter().filter(|&&k| w.conns[k as usize].state == ConnState::Connecting).count();
            if open >= w.max_connections as usize || connecting >= w.queue.len() {
                return;
            }
            self.web_open(now, web, site);
        }
    }

    /// Send the GET for object `row` on idle connection `k`.
    fn web_request(&mut self, now: Time, web: u32, k: u32, row: u32) {
        let w = &mut self.webs[web as usize];
        let request = w.request;
        let wc = &mut w.conns[k as usize];
        let o = &mut w.objects[row as usize];
        wc.state = ConnState::Busy;
        wc.row = row;
        wc.left = o.response;
        wc.owed.push_back(o.response);
        w.busy += 1;
        o.conn = Some(wc.client);
        o.request_at = Some(now);
        o.first_byte_at = None;
        o.reused = wc.requests > 0;
        o.concurrency = w.busy;
        wc.requests += 1;
        let c = wc.client;
        self.conns[c as usize].conn.send(request);
        self.note_request(now, c, request);
        self.drive(now, c);
    }

    /// Connection `k` has read its whole response.
    fn web_object_done(&mut self, now: Time, web: u32, k: u32) {
        let w = &mut self.webs[web as usize];
        let wc = &mut w.conns[k as usize];
        wc.state = ConnState::Idle;
        w.busy -= 1;
        let o = &mut w.objects[wc.row as usize];
        o.done_at = Some(now);
        if o.index == 0 {
            // The HTML is in: the browser now knows (and requests) the embedded objects.
            let first = w.first_row;
            let n = w.pages.last().map(|p| p.objects).unwrap_or(1);
            w.queue.extend(first + 1..first + n);
        }
        w.remaining -= 1;
        if w.remaining == 0 {
            self.web_page_done(now, web);
        } else {
            self.web_dispatch(now, web);
        }
    }

    /// A connection failed or the server closed it: a request in progress goes back to the
    /// head of the queue (a browser retries it on another connection).
    fn web_conn_lost(&mut self, now: Time, web: u32, k: u32) {
        let w = &mut self.webs[web as usize];
        let wc = &mut w.conns[k as usize];
        let was = wc.state;
        if was == ConnState::Closed {
            return;
        }
        wc.state = ConnState::Closed;
        let c = wc.client;
        if was == ConnState::Busy {
            w.busy -= 1;
            let row = wc.row;
            w.queue.push_front(row);
        }
        self.conns[c as usize].conn.close();
        self.web_dispatch(now, web);
    }

    fn web_start_page(&mut self, now: Time, web: u32) {
        // A new page request: the client's agent starts a fresh RTT cache (seed 000 §III-E).
        let client = self.webs[web as usize].client_node;
        self.agent_new_page(client);
        let w = &mut self.webs[web as usize];
        let v = w.next_view;
        w.next_view += 1;
        let view = w.work.views[v as usize];
        let content = &w.work.contents[view.content as usize];
        let first_row = w.objects.len() as u32;
        let header = w.header;
        for (i, &size) in content.sizes.iter().enumerate() {
            w.objects.push(ObjectRow {
                page: v,
                index: i as u32,
                site: content.site,
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
        w.pages.push(PageRow {
            view: v,
            site: content.site,
            subpage: content.subpage,
            first_visit: view.first_visit,
            start: now,
            end: None,
            think: view.think,
            objects: content.sizes.len() as u32,
            bytes: content.sizes.iter().sum(),
            new_connections: 0,
        });
        w.active = true;
        w.first_row = first_row;
        w.remaining = content.sizes.len() as u32;
        w.queue.push_back(first_row);
        self.web_dispatch(now, web);
    }

    fn web_page_done(&mut self, now: Time, web: u32) {
        let wi = web as usize;
        let w = &mut self.webs[wi];
        w.active = false;
        let think = match w.pages.last_mut() {
            Some(p) => {
                p.end = Some(now);
                p.think
            }
            None => Duration::ZERO,
        };
        if (w.next_view as usize) < w.work.views.len() {
            let app = w.client_app;
            self.schedule_app(app, now + think);
            return;
        }
        // The last page: the browser closes every connection, and the flow is complete.
        for k in 0..self.webs[wi].conns.len() {
            let wc = &mut self.webs[wi].conns[k];
            if wc.state == ConnState::Closed {
                continue;
            }
            wc.state = ConnState::Closed;
            let c = wc.client;
            self.conns[c as usize].conn.close();
            self.drive(now, c);
        }
        let flow = self.webs[wi].flow;
        self.finish_flow(now, flow);
    }
}

// ---- results -----------------------------------------------------------------------------

/// Page views of every web flow, by column (one row per page view started).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PageTable {
    /// Flow index (as in `RunOutput::flow_names`).
    pub flow: Vec<u32>,
    /// Page view index within the flow (0-based).
    pub page: Vec<u32>,
    /// Site: the server node's name.
    pub site: Vec<String>,
    /// Sub-page of the site (listed pages: position in `page_list`).
    pub subpage: Vec<u32>,
    /// First view of this page (a re-visit shows the same objects).
    pub first_visit: Vec<bool>,
    /// When the browser sent (or queued) the HTML request (s).
    pub start_s: Vec<f64>,
    /// When the last object was complete (s; NaN if the run stopped first).
    pub end_s: Vec<f64>,
    /// Think time drawn for after this page (s).
    pub think_s: Vec<f64>,
    /// Objects, the main HTML included.
    pub objects: Vec<u32>,
    /// Body bytes of all objects (response headers excluded).
    pub bytes: Vec<u64>,
    /// Connections opened while this page loaded.
    pub new_connections: Vec<u32>,
}

/// Objects of every page view started, by column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ObjectTable {
    /// Flow index.
    pub flow: Vec<u32>,
    /// Page view index within the flow.
    pub page: Vec<u32>,
    /// Object within the page: 0 = the main HTML, then the embedded objects.
    pub object: Vec<u32>,
    /// Site: the server node's name.
    pub site: Vec<String>,
    /// Client-side connection that carried it (simulation index; None if never requested).
    pub connection: Vec<Option<u32>>,
    /// Body bytes.
    pub size: Vec<u64>,
    /// Response bytes: body + header.
    pub response_bytes: Vec<u64>,
    /// When the client sent the request (s; NaN if never).
    pub request_s: Vec<f64>,
    /// When the first response byte reached the client application (s; NaN if never).
    pub first_byte_s: Vec<f64>,
    /// When the whole response had been read (s; NaN if never).
    pub done_s: Vec<f64>,
    /// The connection had carried an earlier request.
    pub reused: Vec<bool>,
    /// Client connections of the flow with a request outstanding when this one was sent,
    /// this one included (1 = alone).
    pub concurrency: Vec<u32>,
}

fn secs(t: Option<Time>) -> f64 {
    t.map(|t| t.as_secs_f64()).unwrap_or(f64::NAN)
}

/// The page and object tables of a finished simulation.
pub(crate) fn tables(sim: &Simulation) -> (PageTable, ObjectTable) {
    let mut p = PageTable::default();
    let mut o = ObjectTable::default();
    for w in &sim.webs {
        let site_name = |s: u32| sim.nodes[w.site_nodes[s as usize] as usize].name.clone();
        for r in &w.pages {
            p.flow.push(w.flow as u32);
            p.page.push(r.view);
            p.site.push(site_name(r.site));
            p.subpage.push(r.subpage);
            p.first_visit.push(r.first_visit);
            p.start_s.push(r.start.as_secs_f64());
            p.end_s.push(secs(r.end));
            p.think_s.push(r.think.as_secs_f64());
            p.objects.push(r.objects);
            p.bytes.push(r.bytes);
            p.new_connections.push(r.new_connections);
        }
        for r in &w.objects {
            o.flow.push(w.flow as u32);
            o.page.push(r.page);
            o.object.push(r.index);
            o.site.push(site_name(r.site));
            o.connection.push(r.conn);
            o.size.push(r.size);
            o.response_bytes.push(r.response);
            o.request_s.push(secs(r.request_at));
            o.first_byte_s.push(secs(r.first_byte_at));
            o.done_s.push(secs(r.done_at));
            o.reused.push(r.reused);
            o.concurrency.push(r.concurrency);
        }
    }
    (p, o)
}

/// Fill a web flow's summary row: its transport counters summed over every connection (the
/// servers' ends as the data sender, the client's as the receiver), pages and connections.
pub(crate) fn summarize(sim: &Simulation, web: u32, s: &mut crate::output::FlowSummary) {
    let w = &sim.webs[web as usize];
    let (mut snd_bytes, mut snd_pkts, mut rcv_bytes, mut rcv_pkts) = (0, 0, 0, 0);
    let (mut retx_seg, mut retx_bytes, mut timeouts, mut fast, mut probes) = (0, 0, 0, 0, 0);
    for (&c, &(_, server)) in &w.conn_of {
        let slot = &sim.conns[c as usize];
        if server {
            snd_bytes += slot.wire_bytes;
            snd_pkts += slot.wire_packets;
            let st = slot.conn.stats();
            retx_seg += st.retransmitted_segments;
            retx_bytes += st.bytes_retransmitted;
            timeouts += st.timeouts;
            fast += st.fast_retransmits;
            probes += st.persist_probes_sent;
        } else {
            rcv_bytes += slot.wire_bytes;
            rcv_pkts += slot.wire_packets;
        }
    }
    let dur = s.completion_time_s.unwrap_or_else(|| sim.end_time().as_secs_f64() - s.start_s);
    s.sender_wire_bytes = snd_bytes;
    s.sender_wire_packets = snd_pkts;
    s.receiver_wire_bytes = rcv_bytes;
    s.receiver_wire_packets = rcv_pkts;
    s.throughput_bps = if dur > 0.0 { snd_bytes as f64 * 8.0 / dur } else { 0.0 };
    s.retransmitted_segments = retx_seg;
    s.retransmitted_bytes = retx_bytes;
    s.timeouts = timeouts;
    s.fast_retransmits = fast;
    s.persist_probes = probes;
    s.pages = Some(w.work.views.len() as u32);
    s.pages_done = Some(w.pages.iter().filter(|p| p.end.is_some()).count() as u32);
    s.connections = Some(w.conns.len() as u32);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{ObjectCountConfig, ThinkConfig};

    fn config(servers: &[&str]) -> WebFlowConfig {
        WebFlowConfig {
            name: None,
            client: "client".into(),
            servers: servers.iter().map(|s| s.to_string()).collect(),
            pages: None,
            think: None,
            max_connections: None,
            objects: None,
            object_size: None,
            html_size: None,
            site_popularity: None,
            subsites: None,
            subsite_popularity: None,
            page_list: None,
            request: None,
            response_header: None,
            port: None,
            start: None,
            tcp: Default::default(),
        }
    }

    #[test]
    fn defaults_give_seed_000s_page_totals() {
        let spec = WebSpec::from_config(&config(&["a"])).unwrap();
        // 558 sub-objects and 2.79 MB over 100 pages: 6.58 objects and 27.9 kB per page.
        assert!((1.0 + spec.objects_mean - 6.58).abs() < 1e-9);
        let per_page = spec.expected_page_bytes();
        assert!((per_page - 27_900.0).abs() < 100.0, "expected bytes per page {per_page}");
        assert!((spec.object_size.mean() - 3_200.0).abs() < 0.01);
        assert!((spec.html_size.mean() - 10_000.0).abs() < 0.01);
        assert!((spec.object_size.low - 696.0).abs() < 1.0, "{:?}", spec.object_size);
        assert!((spec.html_size.low - 2375.0).abs() < 1.0, "{:?}", spec.html_size);
    }

    #[test]
    fn generator_means_match_the_configuration() {
        // 50,000 fresh pages (no re-visits): counts and sizes against their configured means.
        let spec = WebSpec::from_config(&config(&["a"])).unwrap();
        let mut rng = RngStreams::new(11).stream("t");
        let pages: Vec<Vec<u64>> = (0..50_000).map(|_| draw_page(&spec, &mut rng)).collect();
        let n_obj: f64 = pages.iter().map(|p| (p.len() - 1) as f64).sum::<f64>() / pages.len() as f64;
        let html: f64 = pages.iter().map(|p| p[0] as f64).sum::<f64>() / pages.len() as f64;
        let objs: Vec<f64> = pages.iter().flat_map(|p| p[1..].iter().map(|&s| s as f64)).collect();
        let obj = objs.iter().sum::<f64>() / objs.len() as f64;
        eprintln!("objects/page {n_obj:.3} html {html:.0} B object {obj:.0} B ({} objects)", objs.len());
        assert!((n_obj / 5.58 - 1.0).abs() < 0.03, "objects per page {n_obj}");
        assert!((html / 10_000.0 - 1.0).abs() < 0.04, "html mean {html}");
        assert!((obj / 3_200.0 - 1.0).abs() < 0.04, "object mean {obj}");
        assert!(pages.iter().all(|p| p.iter().all(|&s| s as f64 >= spec.object_size.low.floor() && s <= 1_000_000)));

        // Think times: Pareto(1.5, 1 s) has infinite variance, so test the median, 2^(1/α) s,
        // and E[ln(X / scale)] = 1/α, which converge quickly, and the minimum.
        let mut rng = RngStreams::new(12).stream("think");
        let mut t: Vec<f64> = (0..20_000).map(|_| spec.think.sample(&mut rng).as_secs_f64()).collect();
        t.sort_by(f64::total_cmp);
        let median = t[t.len() / 2];
        let log_mean = t.iter().map(|x| x.ln()).sum::<f64>() / t.len() as f64;
        eprintln!("think median {median:.4} s, E[ln X] {log_mean:.4}, min {:.4}", t[0]);
        assert!((median / 2f64.powf(1.0 / 1.5) - 1.0).abs() < 0.03, "median {median}");
        assert!((log_mean / (1.0 / 1.5) - 1.0).abs() < 0.03, "E[ln X] {log_mean}");
        assert!(t[0] >= 1.0);
    }

    #[test]
    fn site_and_subpage_choices_follow_zipf() {
        let mut cfg = config(&["a", "b", "c"]);
        cfg.pages = Some(20_000);
        cfg.subsites = Some(4);
        let spec = WebSpec::from_config(&cfg).unwrap();
        let w = generate(&spec, &RngStreams::new(5), "web");
        assert_eq!(w.views.len(), 20_000);
        assert_eq!(w.contents.len(), 12, "3 sites × 4 sub-pages, each drawn once");
        let mut site_count = [0f64; 3];
        let mut sub_count = [0f64; 4];
        for v in &w.views {
            let c = &w.contents[v.content as usize];
            site_count[c.site as usize] += 1.0;
            sub_count[c.subpage as usize] += 1.0;
        }
        let (zs, zp) = (Zipf::new(3, 1.0), Zipf::new(4, 1.0));
        for (i, n) in site_count.iter().enumerate() {
            let f = n / 20_000.0;
            assert!((f - zs.p(i as u32)).abs() < 0.015, "site {i}: {f} vs {}", zs.p(i as u32));
        }
        for (i, n) in sub_count.iter().enumerate() {
            let f = n / 20_000.0;
            assert!((f - zp.p(i as u32)).abs() < 0.015, "sub-page {i}: {f} vs {}", zp.p(i as u32));
        }
        // A re-visit shows the same objects; first_visit marks exactly one view per page.
        assert_eq!(w.views.iter().filter(|v| v.first_visit).count(), 12);
        // Determinism, and page content independent of the number of views.
        assert_eq!(generate(&spec, &RngStreams::new(5), "web"), w);
        cfg.pages = Some(50);
        let short = generate(&WebSpec::from_config(&cfg).unwrap(), &RngStreams::new(5), "web");
        for c in &short.contents {
            let same = w.contents.iter().find(|d| d.site == c.site && d.subpage == c.subpage).unwrap();
            assert_eq!(same.sizes, c.sizes);
        }
    }

    #[test]
    fn the_agent_hook_sees_every_request_and_response_size() {
        let text = r#"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "client"
kind = "host"
[[link]]
a = "s"
b = "ap"
rate = "100Mbps"
delay = "10ms"
[[wireless]]
ap = "ap"
station = "client"
rate = "20Mbps"
[[flow]]
kind = "web"
client = "client"
servers = ["s"]
pages = 3
max_connections = 3
request = "400B"
"#;
        let mut sim = Simulation::from_toml(text, "t.toml", Some(3), &[], &Default::default()).unwrap();
        sim.run_loop();
        let w = &sim.webs[0];
        assert_eq!(w.pages.iter().filter(|p| p.end.is_some()).count(), 3);
        for wc in &w.conns {
            let h = sim.conns[wc.client as usize].hints;
            let rows: Vec<&ObjectRow> = w.objects.iter().filter(|o| o.conn == Some(wc.client)).collect();
            let Some(last) = rows.last() else {
                // Opened for an object that another connection took first: never used.
                assert_eq!(h, ConnHints::default());
                continue;
            };
            assert_eq!(h.requests as usize, rows.len());
            assert_eq!((h.request_at, h.request_bytes), (last.request_at, 400));
            assert_eq!((h.response_at, h.response_bytes), (last.first_byte_at, last.size + DEFAULT_RESPONSE_HEADER));
        }
        assert!(w.conns.iter().any(|wc| sim.conns[wc.client as usize].hints.requests > 1), "no connection carried two requests");
        // The server ends' hints stay empty: only the client application reports.
        let servers: Vec<u32> = w.conn_of.iter().filter(|(_, &(_, s))| s).map(|(&c, _)| c).collect();
        assert_eq!(servers.len(), w.conns.len());
        assert!(servers.iter().all(|&c| sim.conns[c as usize].hints == ConnHints::default()));
    }

    #[test]
    fn bounded_pareto_solves_for_the_mean() {
        for (mean, shape, max) in [(3_200.0, 1.2, 1e6), (10_000.0, 1.5, 2e5), (500.0, 3.0, 1e4), (999.0, 1.01, 1e3 + 1.0)] {
            let d = BoundedPareto::with_mean(mean, shape, max).unwrap();
            assert!((d.mean() / mean - 1.0).abs() < 1e-9, "{d:?} mean {}", d.mean());
            assert!(d.low > 0.0 && d.low < mean);
        }
        assert!(BoundedPareto::with_mean(1e6, 1.2, 1e6).is_none());
    }

    #[test]
    fn bad_numbers_are_rejected_with_their_key() {
        let check = |f: &dyn Fn(&mut WebFlowConfig), key: &str, words: &str| {
            let mut c = config(&["a", "b"]);
            f(&mut c);
            let e = WebSpec::from_config(&c).expect_err(key);
            assert_eq!(e.key, key, "{e:?}");
            assert!(e.message.contains(words), "{e:?}");
        };
        check(&|c| c.pages = Some(0), "pages", "1..=");
        check(&|c| c.max_connections = Some(0), "max_connections", "1..=16");
        check(&|c| c.max_connections = Some(17), "max_connections", "1..=16");
        check(&|c| c.think = Some(ThinkConfig { shape: Some(1.0), scale: None }), "think.shape", "(1, 100]");
        check(&|c| c.think = Some(ThinkConfig { shape: None, scale: Some(crate::scenario::units::Dur(0)) }), "think.scale", "positive");
        check(&|c| c.objects = Some(ObjectCountConfig { mean: -1.0 }), "objects.mean", "[0, 1000]");
        check(&|c| c.objects = Some(ObjectCountConfig { mean: f64::NAN }), "objects.mean", "[0, 1000]");
        let size = |mean: u64, shape: f64, max: u64| {
            Some(SizeDistConfig {
                mean: Some(crate::scenario::units::Size(mean)),
                shape: Some(shape),
                max: Some(crate::scenario::units::Size(max)),
            })
        };
        check(&|c| c.object_size = size(1000, 0.9, 10_000), "object_size.shape", "(1, 100]");
        check(&|c| c.object_size = size(0, 1.2, 10_000), "object_size.mean", "at least 1 byte");
        check(&|c| c.html_size = size(20_000, 1.2, 10_000), "html_size.max", "larger than the mean");
        check(&|c| c.site_popularity = Some(-0.5), "site_popularity", "Zipf exponent");
        check(&|c| c.subsites = Some(0), "subsites", "1..=10000");
        check(&|c| c.request = Some(crate::scenario::units::Size(0)), "request", "at least 1 byte");
        check(&|c| c.servers = vec![], "servers", "at least one");
        check(&|c| c.servers = vec!["a".into(), "a".into()], "servers", "twice");
        check(&|c| c.servers = vec!["client".into()], "servers", "is the client");
        let entry = |site: &str, sizes: &[u64]| PageListEntry {
            site: site.into(),
            objects: sizes.iter().map(|&s| crate::scenario::units::Size(s)).collect(),
            think: None,
        };
        check(&|c| c.page_list = Some(vec![entry("zz", &[100])]), "page_list[0].site", "not one of");
        check(&|c| c.page_list = Some(vec![entry("a", &[100]), entry("b", &[])]), "page_list[1].objects", "at least");
        check(
            &|c| {
                c.page_list = Some(vec![entry("a", &[100])]);
                c.pages = Some(3);
            },
            "pages",
            "not both",
        );
    }
}
