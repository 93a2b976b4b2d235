//! Schema of `[[flow]] kind = "web"`: a browser fetching pages from web servers.
//! Defaults and validation live in `crate::web`; users read `docs/scenario.md`.

use super::schema::TcpSettings;
use super::units::{Dur, Size};
use serde::Deserialize;

/// A web-browsing workload: `client` views `pages` pages served by `servers`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebFlowConfig {
    /// Name in reports (default `flowN`).
    #[serde(default)]
    pub name: Option<String>,
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
    /// Server port (default 80).
    #[serde(default)]
    pub port: Option<u16>,
    /// Start time.
    #[serde(default)]
    pub start: Option<Dur>,
    /// TCP settings of every connection (both ends).
    #[serde(default)]
    pub tcp: TcpSettings,
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
}
