//! The web-flow scenarios of `web.rs` and `web_multiserver.rs`: servers wired to an AP, a
//! client on its wireless hop, one `web` flow browsing the sites `site0` and `site1`; and
//! running them or taking the error they are refused with (origin `web.toml`).

use wattlab_sim::scenario::ScenarioError;
use wattlab_sim::{BuildOptions, RunOutput, Simulation};

/// The web flow's limit of persistent connections per server (`max_connections`).
pub const MAX_CONN: u32 = 2;

/// The origin the scenarios are built from (errors name it).
pub const ORIGIN: &str = "web.toml";

/// A host wired to the AP at 100 Mb/s.
pub struct Server<'a> {
    /// Its node name.
    pub name: &'a str,
    /// The link's delay each way (e.g. `"20ms"`).
    pub delay: &'a str,
    /// More lines of its `[[link]]` (e.g. an impairment), or `""`.
    pub link: &'a str,
}

/// A web scenario: the servers' nodes, the AP, the client, the servers' links, the wireless
/// hop, then the `web` flow from the client to `site0` and `site1` (Pareto think times of
/// shape 1.5, scale 500 ms; [`MAX_CONN`] connections per server).
pub struct Web<'a> {
    /// The scenario's name.
    pub name: &'a str,
    /// The simulation's seed.
    pub seed: u64,
    /// Every server, the sites `site0` and `site1` among them, in node order.
    pub servers: &'a [Server<'a>],
    /// More lines of the client's `[[node]]` (e.g. its radio), or `""`.
    pub client: &'a str,
    /// More lines of the `[[wireless]]` hop (e.g. its power save), or `""`.
    pub wireless: &'a str,
    /// The flow's page views.
    pub pages: u32,
    /// Pages per site.
    pub subsites: u32,
    /// Mean embedded objects per page.
    pub objects_mean: u32,
    /// More lines at the end of the flow (a blank line if `""`).
    pub flow: &'a str,
}

impl Web<'_> {
    /// The scenario's TOML text.
    pub fn toml(&self) -> String {
        let line = |extra: &str| if extra.is_empty() { String::new() } else { format!("{extra}\n") };
        let mut t = format!("\nname = \"{}\"\n[simulation]\nseed = {}\n", self.name, self.seed);
        for s in self.servers {
            t += &format!("[[node]]\nname = \"{}\"\nkind = \"host\"\n", s.name);
        }
        t += &format!("[[node]]\nname = \"ap\"\nkind = \"ap\"\n[[node]]\nname = \"client\"\nkind = \"host\"\n{}", line(self.client));
        for s in self.servers {
            t += &format!("[[link]]\na = \"{}\"\nb = \"ap\"\nrate = \"100Mbps\"\ndelay = \"{}\"\n{}", s.name, s.delay, line(s.link));
        }
        t += &format!("[[wireless]]\nap = \"ap\"\nstation = \"client\"\nrate = \"20Mbps\"\n{}", line(self.wireless));
        t += &format!(
            r#"[[flow]]
kind = "web"
name = "browse"
client = "client"
servers = ["site0", "site1"]
pages = {}
subsites = {}
max_connections = {MAX_CONN}
objects = {{ mean = {} }}
think = {{ shape = 1.5, scale = "500ms" }}
{}
"#,
            self.pages, self.subsites, self.objects_mean, self.flow
        );
        t
    }
}

/// Build `text` with `opts` and run it to the end.
pub fn run(text: &str, opts: &BuildOptions) -> RunOutput {
    Simulation::from_toml(text, ORIGIN, None, &[], opts).expect("scenario builds").run().expect("run succeeds")
}

/// The error `text` is refused with.
pub fn error(text: &str) -> ScenarioError {
    match Simulation::from_toml(text, ORIGIN, None, &[], &BuildOptions::default()) {
        Ok(_) => panic!("the scenario should be rejected"),
        Err(e) => e,
    }
}

/// 1-based line of the first line of `text` containing `needle`.
pub fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}
