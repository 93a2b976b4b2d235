//! `[[flow]]`: one traffic source, read in two stages. First the keys every kind shares
//! ([`FlowConfig`]: `kind`, `name`, `start`, `port`); then the rest of the table as the kind's
//! own struct ([`FlowSettings`]), which has exactly that kind's keys: a key of another kind is
//! an error naming the key, the kind and where it is written. Each kind's struct sits in its
//! own module here, with the range checks of its fields beside them.
//!
//! A new kind: a struct (with `check_ranges`) in a module here, a [`FlowKind`] constant and its
//! place in [`KINDS`], a variant of [`FlowSettings`]; then its application in `crate::apps`.

pub mod bulk;
pub mod datagram;
mod fields;
pub mod psna;
pub mod tcp;
pub mod web;
pub mod wwp;

pub use bulk::BulkFlow;
pub use datagram::{CbrFlow, EchoFlow, PingFlow, UdpRrFlow};
pub use psna::PsnaFlow;
pub use tcp::{ReaderConfig, TcpSettings};
pub use web::WebFlow;
pub use wwp::WwpBulkFlow;

use super::error::ScenarioError;
use super::check::{fmt_ns, Check};
use super::units::Dur;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::ops::Range;
use toml::de::{DeTable, DeValue, ValueDeserializer};
use toml::Spanned;

/// One `[[flow]]`: the keys every kind shares, and the kind's own settings.
#[derive(Clone, Debug)]
pub struct FlowConfig {
    /// Name in reports (default `flowN`).
    pub name: Option<String>,
    /// Start time (default 0).
    pub start: Option<Dur>,
    /// Server or destination port (the echo identifier of a ping; each kind has its default).
    pub port: Option<u16>,
    /// DiffServ code point of every packet of the flow, both ways (as `IP_TOS` set on both
    /// ends' sockets; default 0): an 802.11 QoS MAC sends it in the access category RFC 8325
    /// maps it to.
    pub dscp: Option<u8>,
    /// The application and its settings.
    pub settings: FlowSettings,
}

/// The keys of every kind besides `kind`, read in the first stage.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Common {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    start: Option<Dur>,
    #[serde(default)]
    port: Option<u16>,
    #[serde(default)]
    dscp: Option<u8>,
}

/// The application of a `[[flow]]` (its `kind`) with its own settings.
#[derive(Clone, Debug)]
pub enum FlowSettings {
    /// `bulk-download`: the client fetches `bytes` from the server over TCP.
    BulkDownload(BulkFlow),
    /// `bulk-upload`: the client sends `bytes` to the server over TCP.
    BulkUpload(BulkFlow),
    /// `udp-cbr`: a constant-rate UDP stream.
    UdpCbr(CbrFlow),
    /// `ping`: ICMP echo requests.
    Ping(PingFlow),
    /// `web`: a browser viewing pages.
    Web(WebFlow),
    /// `udp-rr`: UDP requests and responses.
    UdpRr(UdpRrFlow),
    /// `wwp-bulk`: a Wave & Wait Protocol transfer.
    WwpBulk(WwpBulkFlow),
    /// `psna-read`: the mobile reads an object through the PSNA daemon.
    PsnaRead(PsnaFlow),
    /// `psna-send`: the mobile sends an object through the PSNA daemon.
    PsnaSend(PsnaFlow),
    /// `echo`: the stop-and-wait echo engine.
    Echo(EchoFlow),
}

/// A kind of flow: its `kind` value, what its packets are, and how its table is read.
pub struct FlowKind {
    /// The `kind` value.
    pub name: &'static str,
    /// Its packets are datagrams (UDP, ICMP, protocols over UDP), which a client-side agent
    /// cannot predict: a station's CC agent stays awake while it runs (docs/agent.md).
    pub datagrams: bool,
    /// The keys of its struct.
    fields: fn() -> &'static [&'static str],
    /// Keys of its struct it does not take (a struct shared by two kinds).
    excluded: &'static [&'static str],
    /// Reads its keys (the table without the common ones).
    read: fn(ValueDeserializer<'_>) -> Result<FlowSettings, PathError>,
}

/// A deserialization error with the path of the key it is about.
type PathError = serde_path_to_error::Error<toml::de::Error>;

/// Reads `T`, keeping the path of the key an error is about.
fn typed<T: DeserializeOwned>(de: ValueDeserializer<'_>) -> Result<T, PathError> {
    serde_path_to_error::deserialize(de)
}

/// `kind = "bulk-download"`.
pub const BULK_DOWNLOAD: FlowKind = FlowKind {
    name: "bulk-download",
    datagrams: false,
    fields: fields::of::<BulkFlow>,
    excluded: &[],
    read: |de| typed(de).map(FlowSettings::BulkDownload),
};
/// `kind = "bulk-upload"` (no request: the client sends straight away).
pub const BULK_UPLOAD: FlowKind = FlowKind {
    name: "bulk-upload",
    datagrams: false,
    fields: fields::of::<BulkFlow>,
    excluded: &["request"],
    read: |de| typed(de).map(FlowSettings::BulkUpload),
};
/// `kind = "udp-cbr"`.
pub const UDP_CBR: FlowKind =
    FlowKind { name: "udp-cbr", datagrams: true, fields: fields::of::<CbrFlow>, excluded: &[], read: |de| typed(de).map(FlowSettings::UdpCbr) };
/// `kind = "ping"`.
pub const PING: FlowKind =
    FlowKind { name: "ping", datagrams: true, fields: fields::of::<PingFlow>, excluded: &[], read: |de| typed(de).map(FlowSettings::Ping) };
/// `kind = "web"`.
pub const WEB: FlowKind =
    FlowKind { name: "web", datagrams: false, fields: fields::of::<WebFlow>, excluded: &[], read: |de| typed(de).map(FlowSettings::Web) };
/// `kind = "udp-rr"`.
pub const UDP_RR: FlowKind =
    FlowKind { name: "udp-rr", datagrams: true, fields: fields::of::<UdpRrFlow>, excluded: &[], read: |de| typed(de).map(FlowSettings::UdpRr) };
/// `kind = "wwp-bulk"`.
pub const WWP_BULK: FlowKind = FlowKind {
    name: "wwp-bulk",
    datagrams: true,
    fields: fields::of::<WwpBulkFlow>,
    excluded: &[],
    read: |de| typed(de).map(FlowSettings::WwpBulk),
};
/// `kind = "psna-read"`.
pub const PSNA_READ: FlowKind =
    FlowKind { name: "psna-read", datagrams: true, fields: fields::of::<PsnaFlow>, excluded: &[], read: |de| typed(de).map(FlowSettings::PsnaRead) };
/// `kind = "psna-send"`.
pub const PSNA_SEND: FlowKind =
    FlowKind { name: "psna-send", datagrams: true, fields: fields::of::<PsnaFlow>, excluded: &[], read: |de| typed(de).map(FlowSettings::PsnaSend) };

/// `kind = "echo"`.
pub const ECHO: FlowKind =
    FlowKind { name: "echo", datagrams: true, fields: fields::of::<EchoFlow>, excluded: &[], read: |de| typed(de).map(FlowSettings::Echo) };

/// Every kind of flow (the registry), in the order error messages list them.
pub const KINDS: [&FlowKind; 10] = [&BULK_DOWNLOAD, &BULK_UPLOAD, &UDP_CBR, &PING, &WEB, &UDP_RR, &WWP_BULK, &PSNA_READ, &PSNA_SEND, &ECHO];

/// The keys every kind takes besides `kind`.
fn common_keys() -> &'static [&'static str] {
    fields::of::<Common>()
}

/// The registry entry of kind `name`.
pub fn kind(name: &str) -> Option<&'static FlowKind> {
    KINDS.iter().copied().find(|k| k.name == name)
}

impl FlowKind {
    /// Every key its `[[flow]]` takes besides `kind`: the common ones, then its own.
    pub fn keys(&self) -> Vec<&'static str> {
        let own = (self.fields)().iter().filter(|k| !self.excluded.contains(k));
        common_keys().iter().chain(own).copied().collect()
    }

    /// True if its `[[flow]]` takes key `key`.
    fn takes(&self, key: &str) -> bool {
        common_keys().contains(&key) || ((self.fields)().contains(&key) && !self.excluded.contains(&key))
    }
}

impl FlowSettings {
    /// The registry entry of this kind.
    pub fn spec(&self) -> &'static FlowKind {
        match self {
            FlowSettings::BulkDownload(_) => &BULK_DOWNLOAD,
            FlowSettings::BulkUpload(_) => &BULK_UPLOAD,
            FlowSettings::UdpCbr(_) => &UDP_CBR,
            FlowSettings::Ping(_) => &PING,
            FlowSettings::Web(_) => &WEB,
            FlowSettings::UdpRr(_) => &UDP_RR,
            FlowSettings::WwpBulk(_) => &WWP_BULK,
            FlowSettings::PsnaRead(_) => &PSNA_READ,
            FlowSettings::PsnaSend(_) => &PSNA_SEND,
            FlowSettings::Echo(_) => &ECHO,
        }
    }

    /// The TCP settings written for this flow, if its kind runs TCP.
    pub fn tcp(&self) -> Option<&TcpSettings> {
        match self {
            FlowSettings::BulkDownload(b) | FlowSettings::BulkUpload(b) => b.tcp.as_ref(),
            FlowSettings::Web(w) => w.tcp.as_ref(),
            FlowSettings::PsnaRead(p) | FlowSettings::PsnaSend(p) => p.tcp.as_ref(),
            FlowSettings::UdpCbr(_) | FlowSettings::Ping(_) | FlowSettings::UdpRr(_) | FlowSettings::WwpBulk(_) | FlowSettings::Echo(_) => None,
        }
    }

    /// The nodes at which this flow opens or accepts TCP connections (its packets there are
    /// TCP): bulk transfers' client and server, a web flow's browser and servers, a PSNA flow's
    /// fixed host (its mobile talks PS-TP over UDP; the daemon's end is the AP's wired side).
    pub fn tcp_ends(&self) -> Vec<&str> {
        match self {
            FlowSettings::BulkDownload(b) | FlowSettings::BulkUpload(b) => vec![&b.client, &b.server],
            FlowSettings::Web(w) => std::iter::once(&w.client)
                .chain(&w.servers)
                .chain(w.third_party.iter().flat_map(|t| &t.servers))
                .map(String::as_str)
                .collect(),
            FlowSettings::PsnaRead(p) | FlowSettings::PsnaSend(p) => vec![&p.server],
            FlowSettings::UdpCbr(_) | FlowSettings::Ping(_) | FlowSettings::UdpRr(_) | FlowSettings::WwpBulk(_) | FlowSettings::Echo(_) => Vec::new(),
        }
    }

    /// Checks every number of the kind's own keys; `key` is the flow's path (`flow[0]`).
    fn check_ranges(&self, key: &str, c: &mut Check) {
        match self {
            FlowSettings::BulkDownload(b) | FlowSettings::BulkUpload(b) => b.check_ranges(key, c),
            FlowSettings::UdpCbr(f) => f.check_ranges(key, c),
            FlowSettings::Ping(f) => f.check_ranges(key, c),
            FlowSettings::Web(f) => f.check_ranges(key, c),
            FlowSettings::UdpRr(f) => f.check_ranges(key, c),
            FlowSettings::WwpBulk(f) => f.check_ranges(key, c),
            FlowSettings::PsnaRead(f) | FlowSettings::PsnaSend(f) => f.check_ranges(key, c),
            FlowSettings::Echo(f) => f.check_ranges(key, c),
        }
    }
}

impl FlowConfig {
    /// The `kind` value.
    pub fn kind(&self) -> &'static str {
        self.settings.spec().name
    }

    /// The end-to-end TCP transfer a split-connection PSNA flow stands for (`psna-read` as
    /// `bulk-download`, `psna-send` as `bulk-upload`, the same client, server, bytes and TCP
    /// settings): seed 001's legacy baseline. None for every other kind.
    pub fn legacy_tcp(&self) -> Option<FlowConfig> {
        let (p, download) = match &self.settings {
            FlowSettings::PsnaRead(p) => (p, true),
            FlowSettings::PsnaSend(p) => (p, false),
            _ => return None,
        };
        let bulk = BulkFlow {
            client: p.client.clone(),
            server: p.server.clone(),
            bytes: p.bytes,
            request: if download { p.request } else { None },
            tcp: p.tcp.clone(),
            reader: None,
            background: None,
        };
        let settings = if download { FlowSettings::BulkDownload(bulk) } else { FlowSettings::BulkUpload(bulk) };
        Some(FlowConfig { settings, ..self.clone() })
    }

    /// Checks every number against its valid range; `key` is the flow's path (`flow[0]`), `run`
    /// the run's duration (a flow starts inside it).
    pub(crate) fn check_ranges(&self, key: &str, run: Dur, c: &mut Check) {
        c.num(&format!("{key}.port"), self.port.map(u64::from), 1, 65_535, "");
        c.num(&format!("{key}.dscp"), self.dscp.map(u64::from), 0, 63, " (a 6-bit DiffServ code point, e.g. 46 = EF for voice)");
        if let Some(s) = self.start.filter(|s| *s >= run) {
            c.fail(
                &format!("{key}.start"),
                format!("the flow starts at {}, when the run has ended ([simulation] duration = {})", fmt_ns(s.0), fmt_ns(run.0)),
            );
        }
        self.settings.check_ranges(key, c);
    }
}

/// Where flow errors are reported: the scenario's origin and text.
struct Source<'a> {
    origin: &'a str,
    text: &'a str,
}

impl Source<'_> {
    fn error(&self, span: Range<usize>, key: String, message: impl Into<String>) -> ScenarioError {
        ScenarioError::at_span(self.origin, self.text, Some(span), Some(key), message)
    }
}

/// The kinds, for messages: `bulk-download, bulk-upload, ...`.
fn kind_names() -> String {
    KINDS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
}

/// Reads the `[[flow]]` array of a scenario (`value`, the document's `flow`, None if it has
/// none); `text` is what its spans point into, `origin` names it in errors.
pub fn read_flows(value: Option<Spanned<DeValue<'_>>>, text: &str, origin: &str) -> Result<Vec<FlowConfig>, ScenarioError> {
    let src = Source { origin, text };
    let Some(value) = value else { return Ok(Vec::new()) };
    let span = value.span();
    let DeValue::Array(items) = value.into_inner() else {
        return Err(src.error(span, "flow".into(), "expected an array of tables ([[flow]])"));
    };
    items.into_iter().enumerate().map(|(i, item)| read_flow(&src, i, item)).collect()
}

/// Reads the `i`-th `[[flow]]`: its kind and common keys, then the kind's own struct.
fn read_flow(src: &Source, i: usize, item: Spanned<DeValue<'_>>) -> Result<FlowConfig, ScenarioError> {
    let at = format!("flow[{i}]");
    let span = item.span();
    let DeValue::Table(table) = item.into_inner() else {
        return Err(src.error(span, at, "expected a table ([[flow]])"));
    };
    // Stage 1: the kind, which decides what the other keys may be.
    let Some(kind_value) = table.get("kind") else {
        return Err(src.error(span, at, format!("missing field `kind` (kinds: {})", kind_names())));
    };
    let kind_span = kind_value.span();
    let Some(name) = kind_value.get_ref().as_str() else {
        let found = kind_value.get_ref().type_str();
        return Err(src.error(kind_span, format!("{at}.kind"), format!("invalid type: {found}, expected a string (kinds: {})", kind_names())));
    };
    let Some(spec) = kind(name) else {
        return Err(src.error(kind_span, format!("{at}.kind"), format!("unknown flow kind `{name}` (kinds: {})", kind_names())));
    };
    let name = spec.name;
    let (mut common, mut own) = (DeTable::new(), DeTable::new());
    for (k, v) in table {
        match k.get_ref().as_ref() {
            "kind" => {}
            key if common_keys().contains(&key) => {
                common.insert(k, v);
            }
            _ => {
                own.insert(k, v);
            }
        }
    }
    // A key the kind does not take, the first in the file: another kind's, or none's.
    if let Some((k, v)) = own.iter().filter(|(k, _)| !spec.takes(k.get_ref())).min_by_key(|(k, _)| k.span().start) {
        let key = k.get_ref().as_ref();
        let keys = spec.keys().join(", ");
        let message = if KINDS.iter().any(|other| other.takes(key)) {
            format!("`{key}` does not apply to kind = \"{name}\" (its keys: {keys})")
        } else {
            format!("unknown field `{key}` (kind = \"{name}\" takes: {keys})")
        };
        return Err(src.error(v.span(), format!("{at}.{key}"), message));
    }
    let located = |e: PathError| {
        let path = e.path().to_string();
        let key = if path == "." { at.clone() } else { format!("{at}.{path}") };
        let message = e.inner().message().trim().to_string();
        src.error(e.inner().span().unwrap_or(span.clone()), key, message)
    };
    // Stage 2: the common keys, then the kind's own.
    let common: Common = typed(ValueDeserializer::from(Spanned::new(span.clone(), DeValue::Table(common)))).map_err(located)?;
    let settings = (spec.read)(ValueDeserializer::from(Spanned::new(span.clone(), DeValue::Table(own)))).map_err(|e| {
        // serde's words for a required key left out: said as what the kind needs, at `kind`.
        let missing = e.inner().message().strip_prefix("missing field `").and_then(|m| m.split('`').next()).map(str::to_string);
        match missing {
            Some(field) if e.path().iter().next().is_none() => {
                src.error(kind_span.clone(), format!("{at}.kind"), format!("kind = \"{name}\" needs `{field}`"))
            }
            _ => located(e),
        }
    })?;
    Ok(FlowConfig { name: common.name, start: common.start, port: common.port, dscp: common.dscp, settings })
}

/// What `Scenario::flows` is deserialized with: never reached, because the loader takes
/// `[[flow]]` out of the document first and reads it by kind with [`read_flows`]; a caller
/// that skips the loader gets this error instead of flows read without their kind's checks.
pub(crate) fn read_later<'de, D: serde::Deserializer<'de>>(_: D) -> Result<Vec<FlowConfig>, D::Error> {
    Err(serde::de::Error::custom("[[flow]] is read by scenario::parse (flow::read_flows), not by Scenario's Deserialize"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<FlowConfig>, ScenarioError> {
        let mut doc = DeTable::parse(text).unwrap().into_inner();
        read_flows(doc.remove("flow"), text, "t.toml")
    }

    /// The smallest table of each kind: its required keys.
    fn minimal(kind: &str) -> String {
        let ends = match kind {
            "bulk-download" | "bulk-upload" | "psna-read" | "psna-send" => "client = \"c\"\nserver = \"s\"\nbytes = \"1kB\"\n",
            "web" => "client = \"c\"\nservers = [\"s\"]\n",
            "udp-cbr" => "from = \"c\"\nto = \"s\"\nrate = \"1Mbps\"\n",
            _ => "from = \"c\"\nto = \"s\"\n",
        };
        format!("[[flow]]\nkind = \"{kind}\"\nname = \"f\"\nport = 7\n{ends}")
    }

    #[test]
    fn every_kind_reads_into_its_own_struct() {
        for spec in KINDS {
            let flows = read(&minimal(spec.name)).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
            assert_eq!(flows[0].kind(), spec.name);
            assert_eq!((flows[0].name.as_deref(), flows[0].port), (Some("f"), Some(7)));
            assert!(spec.keys().starts_with(&["name", "start", "port"]), "{:?}", spec.keys());
        }
        assert_eq!(KINDS.iter().filter(|k| k.datagrams).count(), 7); // udp-cbr, ping, udp-rr, wwp-bulk, psna-read/-send, echo
    }

    #[test]
    fn a_key_of_another_kind_names_the_key_the_kind_and_its_line() {
        // `servers` is a web key: refused by the kind, not as a value of the wrong type.
        let text = minimal("bulk-download") + "servers = 3\n";
        let e = read(&text).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("flow[0].servers"));
        assert_eq!((e.line, e.column), (Some(8), Some(11)));
        assert!(e.message.starts_with("`servers` does not apply to kind = \"bulk-download\" (its keys: name, start, port, dscp, client, server, bytes, request,"), "{e}");
        // bulk-upload shares bulk-download's struct but not `request`.
        let e = read(&(minimal("bulk-upload") + "request = \"1kB\"\n")).unwrap_err();
        assert!(e.message.starts_with("`request` does not apply to kind = \"bulk-upload\""), "{e}");
        assert!(!e.message.contains("request,"), "{e}");
        // A key no kind has lists what this kind takes, not every kind's keys.
        let e = read(&(minimal("ping") + "bites = 3\n")).unwrap_err();
        assert_eq!(e.message, "unknown field `bites` (kind = \"ping\" takes: name, start, port, dscp, from, to, count, interval, packet_size)");
        assert_eq!((e.key.as_deref(), e.line), (Some("flow[0].bites"), Some(7)));
    }

    #[test]
    fn errors_inside_a_kind_keep_their_key_line_and_column() {
        let e = read(&(minimal("bulk-download") + "tcp = { mss = \"x\" }\n")).unwrap_err();
        assert_eq!((e.key.as_deref(), e.line, e.column), (Some("flow[0].tcp.mss"), Some(8), Some(15)));
        let e = read(&minimal("web").replace("name = \"f\"", "name = 3")).unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("flow[0].name"), Some(3)));
        let e = read(&minimal("web").replace("[\"s\"]", "[\"s\"]\npage_list = [{ site = \"s\", objects = [], thinc = \"1s\" }]")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("flow[0].page_list[0].thinc"), "{e}");
        assert!(e.message.starts_with("unknown field `thinc`"), "{e}");
    }

    #[test]
    fn the_kind_is_checked_first() {
        let e = read(&minimal("udp-cbr").replace("rate = \"1Mbps\"\n", "")).unwrap_err();
        assert_eq!((e.key.as_deref(), e.line, e.message.as_str()), (Some("flow[0].kind"), Some(2), "kind = \"udp-cbr\" needs `rate`"));
        let e = read(&minimal("ping").replace("\"ping\"", "\"pong\"")).unwrap_err();
        assert!(e.message.starts_with("unknown flow kind `pong` (kinds: bulk-download, bulk-upload,"), "{e}");
        let e = read(&minimal("ping").replace("kind = \"ping\"\n", "")).unwrap_err();
        assert_eq!((e.key.as_deref(), e.line), (Some("flow[0]"), Some(1)));
        assert!(e.message.starts_with("missing field `kind`"), "{e}");
        let e = read(&minimal("ping").replace("\"ping\"", "3")).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("flow[0].kind"));
        assert!(read("flow = 3\n").unwrap_err().message.contains("[[flow]]"));
    }

    #[test]
    fn a_psna_flow_stands_for_end_to_end_tcp() {
        let read_flow = &read(&(minimal("psna-read") + "request = \"2kB\"\nap = \"ap\"\ntcp = { mss = 536 }\n")).unwrap()[0];
        let legacy = read_flow.legacy_tcp().unwrap();
        assert_eq!((legacy.kind(), legacy.name.as_deref(), legacy.port), ("bulk-download", Some("f"), Some(7)));
        let FlowSettings::BulkDownload(b) = &legacy.settings else { panic!() };
        assert_eq!((b.client.as_str(), b.bytes.bytes(), b.request.map(|r| r.bytes()), b.tcp.as_ref().and_then(|t| t.mss)), ("c", 1000, Some(2000), Some(536)));
        let send = &read(&(minimal("psna-send") + "request = \"2kB\"\n")).unwrap()[0];
        let FlowSettings::BulkUpload(b) = send.legacy_tcp().unwrap().settings else { panic!() };
        assert_eq!(b.request, None, "bulk-upload takes no request");
        assert!(read(&minimal("ping")).unwrap()[0].legacy_tcp().is_none());
    }
}
