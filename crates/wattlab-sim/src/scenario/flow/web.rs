//! `[[flow]] kind = "web"`: a browser fetching pages from web servers.
//! Defaults and validation live in `crate::apps::web::workload`; users read `docs/scenario.md`.

use super::tcp::TcpSettings;
use crate::scenario::check::Check;
use crate::scenario::units::{Dur, Size};
use serde::Deserialize;

/// `kind = "web"`: `client` views `pages` pages served by `servers`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebFlow {
    /// The browser's node.
    pub client: String,
    /// Server nodes, one web site each, most popular first.
    pub servers: Vec<String>,
    /// Page views (default 100; with `page_list`, the list's length).
    #[serde(default)]
    pub pages: Option<u32>,
    /// Pareto think time after each page completes.
    #[serde(default)]
    pub think: Option<ThinkConfig>,
    /// Concurrent persistent connections per site (default 4).
    #[serde(default)]
    pub max_connections: Option<u32>,
    /// Embedded objects per page, besides the main HTML.
    #[serde(default)]
    pub objects: Option<ObjectCountConfig>,
    /// Body sizes of embedded objects.
    #[serde(default)]
    pub object_size: Option<SizeDistConfig>,
    /// Body sizes of the main HTML documents.
    #[serde(default)]
    pub html_size: Option<SizeDistConfig>,
    /// Zipf exponent of the sites' popularity, in the order of `servers` (default 1).
    #[serde(default)]
    pub site_popularity: Option<f64>,
    /// Sub-pages per site (default 15).
    #[serde(default)]
    pub subsites: Option<u32>,
    /// Zipf exponent of the sub-pages' popularity within a site (default 1).
    #[serde(default)]
    pub subsite_popularity: Option<f64>,
    /// Explicit pages, viewed once each in order, instead of the generator.
    #[serde(default)]
    pub page_list: Option<Vec<PageListEntry>>,
    /// HTTP request (GET) size (default 350 B).
    #[serde(default)]
    pub request: Option<Size>,
    /// HTTP response header added to every body (default 250 B).
    #[serde(default)]
    pub response_header: Option<Size>,
    /// Third-party servers (CDN, ads, analytics) a page's embedded objects also come from.
    #[serde(default)]
    pub third_party: Option<ThirdPartyConfig>,
    /// TCP settings of every connection (both ends).
    #[serde(default)]
    pub tcp: Option<TcpSettings>,
}

/// The multi-server page model: besides its site (the origin), a page fetches embedded objects
/// from a few of these servers, each a node on its own path.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThirdPartyConfig {
    /// The pool of third-party server nodes, most popular first.
    pub servers: Vec<String>,
    /// Third-party servers a page uses: uniform on [min, max] (default 1..=pool size).
    #[serde(default)]
    pub hosts: Option<HostCountConfig>,
    /// Probability that an embedded object comes from a third-party server (default 0.35).
    #[serde(default)]
    pub share: Option<f64>,
    /// Zipf exponent of the pool's popularity (default 1).
    #[serde(default)]
    pub popularity: Option<f64>,
}

/// A uniform integer distribution of third-party servers per page.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostCountConfig {
    /// Fewest (default 1).
    #[serde(default)]
    pub min: Option<u32>,
    /// Most (default: the pool's size).
    #[serde(default)]
    pub max: Option<u32>,
}

impl WebFlow {
    /// Checks the TCP settings' ranges (the workload's own are checked with its defaults, in
    /// `crate::apps::web::workload`); `key` is the flow's path (`flow[0]`).
    pub(crate) fn check_ranges(&self, key: &str, c: &mut Check) {
        if let Some(t) = &self.tcp {
            t.check_ranges(&format!("{key}.tcp"), c);
        }
    }
}

/// A Pareto distribution of think times: P(X > x) = (scale / x)^shape for x ≥ scale.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThinkConfig {
    /// Tail index α > 1 (default 1.5).
    #[serde(default)]
    pub shape: Option<f64>,
    /// Smallest think time (default 1 s); the mean is shape · scale / (shape − 1).
    #[serde(default)]
    pub scale: Option<Dur>,
}

/// The number of embedded objects per page: geometric on {0, 1, 2, ...}.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectCountConfig {
    /// Mean number of embedded objects (default 5.58).
    pub mean: f64,
}

/// A bounded Pareto distribution of body sizes, given by its mean.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeDistConfig {
    /// Mean body size.
    #[serde(default)]
    pub mean: Option<Size>,
    /// Tail index α > 1 (default 1.2).
    #[serde(default)]
    pub shape: Option<f64>,
    /// Largest size (default 1 MB).
    #[serde(default)]
    pub max: Option<Size>,
}

/// One page of an explicit `page_list`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageListEntry {
    /// The server (one of `servers`).
    pub site: String,
    /// Body sizes: the main HTML first, then the embedded objects.
    pub objects: Vec<Size>,
    /// Think time after this page (default: drawn from `think`).
    #[serde(default)]
    pub think: Option<Dur>,
    /// The server of each object, as `objects` (default: every object from `site`); each a
    /// `servers` or `third_party.servers` node.
    #[serde(default)]
    pub from: Option<Vec<String>>,
}
