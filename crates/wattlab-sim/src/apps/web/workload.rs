//! The web workload: what a browsing session will fetch, drawn when the scenario is built.
//!
//! For each page view a site (Zipf over `servers`), a sub-page of that site (Zipf over
//! `subsites`), the page's objects on its first visit (a main HTML document and a geometric
//! number of embedded objects with bounded-Pareto body sizes; later visits reuse them) and a
//! Pareto think time. Each draw comes from its own named stream of [`crate::rng`], so the
//! content of page (site, sub-page) does not change when the number of pages, the popularity
//! or the think times change.

use crate::rng::{RngStreams, StreamRng};
use crate::scenario::{PageListEntry, SizeDistConfig, ThirdPartyConfig, WebFlow};
use rand::Rng;
use std::collections::HashMap;
use wattlab_core::Duration;

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
/// Probability that an embedded object comes from a third-party server: Butkiewicz et al.
/// (IMC 2011) found non-origin servers delivering more than 35 % of a page's bytes on most
/// sites; with sizes independent of the server, the share of objects is the share of bytes.
pub const DEFAULT_THIRD_PARTY_SHARE: f64 = 0.35;
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
    /// Server of each object (indices over `servers` then `third_party.servers`), if given.
    pub from: Option<Vec<u32>>,
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
    /// The multi-server page model (None: every object from the page's site).
    pub third_party: Option<ThirdParty>,
}

/// The multi-server page model, checked: server indices `sites..sites + servers` are the
/// third-party pool, in the order listed.
#[derive(Clone, Debug, PartialEq)]
pub struct ThirdParty {
    /// Servers in the pool.
    pub servers: u32,
    /// Fewest third-party servers per page.
    pub hosts_min: u32,
    /// Most third-party servers per page.
    pub hosts_max: u32,
    /// Probability that an embedded object comes from one of the page's third-party servers.
    pub share: f64,
    /// Zipf exponent of the pool's popularity.
    pub popularity: f64,
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
    /// Default and check a web flow's settings and its `port` (node names are resolved by the
    /// builder).
    pub fn from_config(cfg: &WebFlow, port: Option<u16>) -> Result<WebSpec, WebConfigError> {
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
        let port = port.unwrap_or(DEFAULT_PORT);
        if port == 0 {
            return Err(bad("port", "port", "must be 1..=65535"));
        }
        let third_party = match &cfg.third_party {
            None => None,
            Some(t) => Some(third_party(t, cfg)?),
        };
        let page_list = match &cfg.page_list {
            None => None,
            Some(list) => Some(listed_pages(list, cfg, cfg.pages.is_some())?),
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
            third_party,
        })
    }

    /// Every server: the sites, then the third-party pool.
    pub fn server_count(&self) -> u32 {
        self.sites + self.third_party.as_ref().map_or(0, |t| t.servers)
    }

    /// Expected body bytes of a page under the generator: E\[HTML\] + E\[objects\] · E\[object\].
    pub fn expected_page_bytes(&self) -> f64 {
        self.html_size.mean() + self.objects_mean * self.object_size.mean()
    }
}

fn third_party(t: &ThirdPartyConfig, cfg: &WebFlow) -> Result<ThirdParty, WebConfigError> {
    const F: &str = "third_party";
    let n = t.servers.len();
    if n == 0 {
        return Err(bad(F, "third_party.servers", "list at least one third-party server node (or leave `third_party` out)"));
    }
    if n > 10_000 {
        return Err(bad(F, "third_party.servers", "at most 10000 third-party servers"));
    }
    for (i, s) in t.servers.iter().enumerate() {
        if t.servers[..i].contains(s) {
            return Err(bad(F, "third_party.servers", format!("server `{s}` is listed twice")));
        }
        if cfg.servers.contains(s) {
            return Err(bad(F, "third_party.servers", format!("`{s}` is also a site in `servers`; a node is a site or a third-party server, not both")));
        }
        if *s == cfg.client {
            return Err(bad(F, "third_party.servers", format!("`{s}` is the client; a server must be another node")));
        }
    }
    let hosts_min = t.hosts.and_then(|h| h.min).unwrap_or(1);
    let hosts_max = t.hosts.and_then(|h| h.max).unwrap_or(n as u32);
    if hosts_max as usize > n {
        return Err(bad(F, "third_party.hosts.max", format!("must be at most the pool's {n} servers, got {hosts_max}")));
    }
    if hosts_min > hosts_max {
        return Err(bad(F, "third_party.hosts.min", format!("must be at most `max` ({hosts_max}), got {hosts_min}")));
    }
    let share = t.share.unwrap_or(DEFAULT_THIRD_PARTY_SHARE);
    if !(share.is_finite() && (0.0..=1.0).contains(&share)) {
        return Err(bad(F, "third_party.share", format!("must be a probability in [0, 1], got {share}")));
    }
    let popularity = t.popularity.unwrap_or(DEFAULT_POPULARITY);
    if !(popularity.is_finite() && (0.0..=10.0).contains(&popularity)) {
        return Err(bad(F, "third_party.popularity", format!("must be a Zipf exponent in [0, 10] (0 = uniform), got {popularity}")));
    }
    Ok(ThirdParty { servers: n as u32, hosts_min, hosts_max, share, popularity })
}

fn listed_pages(list: &[PageListEntry], cfg: &WebFlow, pages_given: bool) -> Result<Vec<ListedPage>, WebConfigError> {
    let servers = &cfg.servers;
    let pool: &[String] = cfg.third_party.as_ref().map_or(&[], |t| &t.servers);
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
            let from = match &e.from {
                None => None,
                Some(f) => {
                    let key = format!("page_list[{i}].from");
                    if f.len() != e.objects.len() {
                        return Err(bad("page_list", &key, format!("names {} servers for {} objects; give one per object", f.len(), e.objects.len())));
                    }
                    if f[0] != e.site {
                        return Err(bad("page_list", &key, format!("the main HTML comes from the page's site `{}`, got `{}`", e.site, f[0])));
                    }
                    let index = |name: &String| {
                        servers.iter().chain(pool).position(|s| s == name).map(|k| k as u32).ok_or_else(|| {
                            bad("page_list", &key, format!("`{name}` is neither one of `servers` nor of `third_party.servers`"))
                        })
                    };
                    Some(f.iter().map(index).collect::<Result<Vec<u32>, _>>()?)
                }
            };
            Ok(ListedPage { site: site as u32, sizes: e.objects.iter().map(|s| s.bytes()).collect(), think: e.think.map(|d| d.get()), from })
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
    /// Server of each object, as `sizes` (indices over the sites then the third-party pool);
    /// empty when every object comes from the site.
    pub servers: Vec<u32>,
}

impl PageContent {
    /// The server of object `i`.
    pub fn server(&self, i: usize) -> u32 {
        self.servers.get(i).copied().unwrap_or(self.site)
    }
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

/// Draw a new page's servers (multi-server model): `hosts` third-party servers uniform on
/// [min, max], picked from the pool without replacement by Zipf popularity; then each embedded
/// object comes from one of them (uniformly) with probability `share`, else from the site.
/// The HTML always comes from the site. `sites` offsets the pool's indices.
pub fn draw_servers(t: &ThirdParty, sites: u32, site: u32, objects: usize, rng: &mut StreamRng) -> Vec<u32> {
    let hosts = rng.random_range(t.hosts_min..=t.hosts_max) as usize;
    let mut weight: Vec<f64> = (0..t.servers).map(|i| 1.0 / ((i + 1) as f64).powf(t.popularity)).collect();
    let mut chosen = Vec::with_capacity(hosts);
    for _ in 0..hosts {
        let total: f64 = weight.iter().sum();
        let mut u = rng.random::<f64>() * total;
        let mut pick = weight.iter().rposition(|&w| w > 0.0).unwrap_or(0);
        for (i, &w) in weight.iter().enumerate() {
            if w > 0.0 && u < w {
                pick = i;
                break;
            }
            u -= w;
        }
        weight[pick] = 0.0;
        chosen.push(sites + pick as u32);
    }
    let mut servers = Vec::with_capacity(objects);
    servers.push(site);
    for _ in 1..objects {
        let third = !chosen.is_empty() && rng.random::<f64>() < t.share;
        servers.push(if third { chosen[rng.random_range(0..chosen.len())] } else { site });
    }
    servers
}

/// The page sequence of a flow named `flow`, deterministic in the run's seed. Streams:
/// `web:FLOW:sites` (site and sub-page choices), `web:FLOW:think`,
/// `web:FLOW:page:SITE:SUBPAGE` (a page's objects, drawn on its first visit) and, with
/// `third_party`, `web:FLOW:hosts:SITE:SUBPAGE` (its objects' servers: the sizes are the same
/// as without the multi-server model).
/// The plan's memory is reserved up front and fallibly: an error (the bytes asked for) instead
/// of an aborted process when it does not fit.
pub fn generate(spec: &WebSpec, streams: &RngStreams, flow: &str) -> Result<Workload, String> {
    let mut think_rng = streams.stream(&format!("web:{flow}:think"));
    let mut w = Workload::default();
    let views = spec.page_list.as_ref().map_or(spec.pages as usize, Vec::len);
    w.views.try_reserve_exact(views).map_err(|_| {
        format!("cannot allocate the plan of {views} page views ({} MB)", views * std::mem::size_of::<PageView>() / 1_000_000)
    })?;
    if let Some(list) = &spec.page_list {
        for (i, p) in list.iter().enumerate() {
            let drawn = spec.think.sample(&mut think_rng);
            let servers = p.from.clone().unwrap_or_default();
            w.contents.push(PageContent { site: p.site, subpage: i as u32, sizes: p.sizes.clone(), servers });
            w.views.push(PageView { content: i as u32, first_visit: true, think: p.think.unwrap_or(drawn) });
        }
        return Ok(w);
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
                let sizes = draw_page(spec, &mut rng);
                let servers = match &spec.third_party {
                    Some(t) => {
                        let mut hosts = streams.stream(&format!("web:{flow}:hosts:{site}:{subpage}"));
                        draw_servers(t, spec.sites, site, sizes.len(), &mut hosts)
                    }
                    None => Vec::new(),
                };
                w.contents.push(PageContent { site, subpage, sizes, servers });
                seen.insert((site, subpage), c);
                (c, true)
            }
        };
        w.views.push(PageView { content, first_visit, think });
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{ObjectCountConfig, ThinkConfig};

    fn config(servers: &[&str]) -> WebFlow {
        WebFlow { client: "client".into(), servers: servers.iter().map(|s| s.to_string()).collect(), ..Default::default() }
    }

    #[test]
    fn defaults_give_seed_000s_page_totals() {
        let spec = WebSpec::from_config(&config(&["a"]), None).unwrap();
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
        let spec = WebSpec::from_config(&config(&["a"]), None).unwrap();
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
        let spec = WebSpec::from_config(&cfg, None).unwrap();
        let w = generate(&spec, &RngStreams::new(5), "web").unwrap();
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
        assert_eq!(generate(&spec, &RngStreams::new(5), "web").unwrap(), w);
        cfg.pages = Some(50);
        let short = generate(&WebSpec::from_config(&cfg, None).unwrap(), &RngStreams::new(5), "web").unwrap();
        for c in &short.contents {
            let same = w.contents.iter().find(|d| d.site == c.site && d.subpage == c.subpage).unwrap();
            assert_eq!(same.sizes, c.sizes);
        }
    }

    #[test]
    fn servers_per_page_and_object_share_follow_the_configuration() {
        // Pool of 4 behind 2 sites, 1..=3 hosts per page, share 0.4: 20,000 pages of 9 objects.
        let t = ThirdParty { servers: 4, hosts_min: 1, hosts_max: 3, share: 0.4, popularity: 1.0 };
        let mut rng = RngStreams::new(21).stream("hosts");
        let (mut third, mut embedded, mut chosen_hist, mut pool_hits) = (0usize, 0usize, [0usize; 4], [0usize; 4]);
        for k in 0..20_000 {
            let site = k % 2;
            let s = draw_servers(&t, 2, site, 9, &mut rng);
            assert_eq!(s.len(), 9);
            assert_eq!(s[0], site, "the HTML comes from the site");
            assert!(s.iter().all(|&x| x == site || (2..6).contains(&x)));
            let distinct: std::collections::BTreeSet<u32> = s[1..].iter().copied().filter(|&x| x >= 2).collect();
            assert!(distinct.len() <= 3);
            chosen_hist[distinct.len()] += 1;
            for &x in &s[1..] {
                embedded += 1;
                if x >= 2 {
                    third += 1;
                    pool_hits[(x - 2) as usize] += 1;
                }
            }
        }
        let share = third as f64 / embedded as f64;
        assert!((share - 0.4).abs() < 0.01, "share {share}");
        // Zipf(1) over the pool without replacement: the first server is the most used.
        assert!(pool_hits[0] > pool_hits[1] && pool_hits[1] > pool_hits[3], "{pool_hits:?}");
        assert!(chosen_hist[3] > 0 && chosen_hist[1] > 0, "{chosen_hist:?}");
        // Share 0 or no hosts: every object from the site.
        let none = ThirdParty { share: 0.0, ..t.clone() };
        assert!(draw_servers(&none, 2, 1, 9, &mut rng).iter().all(|&x| x == 1));
        let zero = ThirdParty { hosts_min: 0, hosts_max: 0, share: 1.0, ..t };
        assert!(draw_servers(&zero, 2, 0, 9, &mut rng).iter().all(|&x| x == 0));
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
        let check = |f: &dyn Fn(&mut WebFlow), key: &str, words: &str| {
            let mut c = config(&["a", "b"]);
            f(&mut c);
            let e = WebSpec::from_config(&c, None).expect_err(key);
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
            from: None,
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
