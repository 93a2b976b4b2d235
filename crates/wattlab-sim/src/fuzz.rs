//! Fuzzing the scenario loader without dependencies: a seeded mutator of TOML text and
//! overrides, and one step that must never panic. Used by the property tests
//! (`tests/fuzz_smoke.rs`), the long-running driver (`cargo run --release -p wattlab-sim
//! --example fuzz -- scenario 100000`) and `cargo fuzz` targets (`fuzz/`).

use crate::{BuildOptions, Simulation};

/// Scenarios the mutator starts from: the repository's own, covering every section.
pub const CORPUS: &[&str] = &[
    include_str!("../../../scenarios/demo.toml"),
    include_str!("../../../scenarios/web.toml"),
    include_str!("../../../scenarios/yan-cc-download.toml"),
    include_str!("../../../scenarios/live-download.toml"),
    include_str!("../../../python/wattlab/bench/wlan-10sta-tcp.toml"),
    include_str!("../../../python/wattlab/bench/tcp-100mb.toml"),
    include_str!("../../../scenarios/tunnel-4flows.toml"),
    FUZZ_EXTRA,
];

/// A small scenario with the sections the others lack: routes, ping, CBR, U-APSD, jitter.
const FUZZ_EXTRA: &str = r#"
[simulation]
duration = "2s"
[[node]]
name = "s"
kind = "host"
[[node]]
name = "r"
kind = "router"
[[node]]
name = "ap"
kind = "ap"
[[node]]
name = "c"
kind = "host"
[[link]]
a = "s"
b = "r"
rate = "10Mbps"
delay = "2ms"
a_to_b = { jitter = { model = "gamma", shape = 2.0, scale = "1ms" }, loss = { model = "gilbert-elliott", p_good_to_bad = 0.01, p_bad_to_good = 0.5 } }
[[link]]
a = "r"
b = "ap"
rate = "100Mbps"
delay = "1ms"
queue = { bytes = "30kB" }
[[wlan]]
ap = "ap"
stations = ["c"]
phy = "80211b"
rate = "11Mbps"
power_save = "u-apsd"
uapsd_trigger_interval = "20ms"
[[route]]
node = "r"
destination = "c"
via = "ap"
[[flow]]
kind = "ping"
from = "c"
to = "s"
count = 3
interval = "100ms"
[[flow]]
kind = "udp-cbr"
from = "s"
to = "c"
rate = "1Mbps"
duration = "200ms"
[output]
timeseries = true
sample_interval = "50ms"
"#;

/// Values that probe the edges of every range.
const EDGES: &[&str] = &[
    "0", "-1", "1", "65535", "65536", "4294967296", "18446744073709551616", "1e30", "-0.0", "nan", "inf", "\"\"",
    "\"0s\"", "\"1ns\"", "\"1e30s\"", "\"-5ms\"", "\"0bps\"", "\"1e30Mbps\"", "\"20MBps\"", "\"1e30B\"", "\"5Mb\"",
    "\"[/]\"", "[]", "[\"5s\", \"2s\"]", "{}", "true", "\"cam\"", "\"psm\"", "\"ideal-psm\"", "\"u-apsd\"", "\"bsd-0\"",
    "\"x\"", "\"s\"", "\"c\"",
];

/// Keys the mutator inserts, from every section of the schema.
const KEYS: &[&str] = &[
    "duration", "rate", "delay", "bytes", "beacon_interval", "ideal_psm_interval", "uapsd_trigger_interval",
    "listen_interval", "sample_interval", "queue", "start", "interval", "count", "packet_size", "port", "min_rto",
    "tcp", "reader", "pause", "power_save", "name", "stations", "pages", "think", "objects", "timeseries",
    "burst", "inlet_timeout", "trigger", "trigger_min", "trigger_max", "trigger_alpha", "sack_delay",
];

/// xorshift64*: a tiny, seeded, deterministic generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// A mutated scenario: one to four line-level or byte-level changes to a corpus entry.
pub fn mutate(rng: &mut Rng) -> String {
    let base = CORPUS[rng.below(CORPUS.len())];
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        let i = rng.below(lines.len());
        match rng.below(8) {
            // Replace a value by an edge value.
            0..=2 => {
                if let Some((k, _)) = lines[i].split_once('=') {
                    lines[i] = format!("{k}= {}", rng.pick(EDGES));
                }
            }
            // Insert a key with an edge value.
            3 => lines.insert(i, format!("{} = {}", rng.pick(KEYS), rng.pick(EDGES))),
            // Delete or duplicate a line.
            4 => {
                lines.remove(i);
            }
            5 => {
                let l = lines[i].clone();
                lines.insert(rng.below(lines.len()), l);
            }
            // Flip a byte (kept as text).
            6 => {
                if !lines[i].is_empty() {
                    let mut b = lines[i].clone().into_bytes();
                    let j = rng.below(b.len());
                    b[j] = (rng.next_u64() % 128) as u8;
                    lines[i] = String::from_utf8_lossy(&b).into_owned();
                }
            }
            // Truncate the file.
            _ => lines.truncate(i),
        }
        if lines.is_empty() {
            break;
        }
    }
    lines.join("\n")
}

/// Random `--set` overrides: paths into the scenario's sections with edge values.
pub fn overrides(rng: &mut Rng) -> Vec<String> {
    const PATHS: &[&str] = &[
        "flow.0", "link.0", "link.wired", "wireless.0", "wlan.0", "node.0", "simulation", "output", "flow.download",
        "flow.99", "route.0", "", "flow.0.tcp", "wireless.wlan.down",
    ];
    (0..1 + rng.below(3))
        .map(|_| {
            let path = rng.pick(PATHS);
            let key = rng.pick(KEYS);
            let sep = if path.is_empty() { "" } else { "." };
            match rng.below(6) {
                0 => format!("{path}{sep}{key}"),
                1 => format!("{path}{sep}{key}={}", rng.pick(EDGES)),
                _ => format!("{path}{sep}{key}={}", rng.pick(EDGES).trim_matches('"')),
            }
        })
        .collect()
}

/// What one scenario input did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Refused with a located, non-empty error.
    Refused,
    /// Built; run for a bounded number of events when its estimate allowed.
    Built,
}

/// Parse and build `text` with `overrides`; if it builds, run at most `max_events` events of
/// it. Checks the properties a user relies on: an error has a message and, when it names a
/// line, a line of the text; nothing panics (the caller catches panics).
pub fn scenario_step(text: &str, overrides: &[String], max_events: u64) -> Outcome {
    match Simulation::from_toml(text, "fuzz.toml", None, overrides, &BuildOptions::default()) {
        Err(e) => {
            assert!(!e.message.trim().is_empty(), "an error without a message: {e:?}");
            if let (Some(line), true) = (e.line, overrides.is_empty()) {
                assert!(line >= 1 && line <= text.lines().count() + 1, "line {line} outside the text: {e}");
            }
            Outcome::Refused
        }
        Ok(sim) => {
            let _ = sim.estimate().warnings();
            let mut budget = max_events;
            let _ = sim.run_controlled(1024, &mut |p| {
                budget = budget.saturating_sub(1024);
                budget > 0 && p.events < max_events
            });
            Outcome::Built
        }
    }
}

/// `cargo fuzz` entry for the scenario loader: the bytes as text, no overrides, short runs.
pub fn scenario_bytes(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        scenario_step(text, &[], 20_000);
    }
}
