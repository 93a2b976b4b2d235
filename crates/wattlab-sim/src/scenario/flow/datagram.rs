//! The datagram kinds: `udp-cbr` (a constant-rate UDP stream), `ping` (ICMP echo), `udp-rr`
//! (UDP request/response) and `echo` (the stop-and-wait echo engine), each from node `from` to
//! node `to`.

use crate::scenario::check::{Check, S};
use crate::scenario::units::{Dur, Rate, Size, MAX_DURATION_NS};
use serde::Deserialize;

/// Time between requests (ping, udp-rr): 1 µs..=1 h.
const INTERVAL_RANGE_NS: (u64, u64) = (1_000, 3600 * S);

/// `kind = "udp-cbr"`: datagrams of `packet_size` at `rate`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CbrFlow {
    /// Node that sends.
    pub from: String,
    /// Node that receives.
    pub to: String,
    /// Sending rate (payload bits per second).
    pub rate: Rate,
    /// UDP payload per datagram (default 1024 B).
    #[serde(default)]
    pub packet_size: Option<Size>,
    /// How long to send (default: until the run stops).
    #[serde(default)]
    pub duration: Option<Dur>,
}

impl CbrFlow {
    /// Checks every number against its valid range; `key` is the flow's path (`flow[0]`).
    pub(crate) fn check_ranges(&self, key: &str, c: &mut Check) {
        c.dur(&format!("{key}.duration"), self.duration, 1, MAX_DURATION_NS);
    }
}

/// `kind = "ping"`: `count` echo requests, one every `interval`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PingFlow {
    /// Node that pings.
    pub from: String,
    /// Node that answers.
    pub to: String,
    /// Number of requests (default 10).
    #[serde(default)]
    pub count: Option<u32>,
    /// Time between requests (default 1 s).
    #[serde(default)]
    pub interval: Option<Dur>,
    /// ICMP payload per request (default 56 B).
    #[serde(default)]
    pub packet_size: Option<Size>,
}

impl PingFlow {
    /// Checks every number against its valid range; `key` is the flow's path (`flow[0]`).
    pub(crate) fn check_ranges(&self, key: &str, c: &mut Check) {
        c.dur(&format!("{key}.interval"), self.interval, INTERVAL_RANGE_NS.0, INTERVAL_RANGE_NS.1);
    }
}

/// `kind = "udp-rr"`: UDP requests, each answered by a response.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpRrFlow {
    /// Node that sends the requests.
    pub from: String,
    /// Node that answers them.
    pub to: String,
    /// Request size (default 64 B).
    #[serde(default)]
    pub request: Option<Size>,
    /// Response size (default 64 B).
    #[serde(default)]
    pub response: Option<Size>,
    /// Number of requests (default 100).
    #[serde(default)]
    pub count: Option<u32>,
    /// Time between requests (default: the next as soon as the last is answered).
    #[serde(default)]
    pub interval: Option<Dur>,
    /// How long a request waits for its response before it counts as lost (default 1 s).
    #[serde(default)]
    pub timeout: Option<Dur>,
    /// How long to send (default: until `count` requests are done).
    #[serde(default)]
    pub duration: Option<Dur>,
}

impl UdpRrFlow {
    /// Checks every number against its valid range; `key` is the flow's path (`flow[0]`).
    pub(crate) fn check_ranges(&self, key: &str, c: &mut Check) {
        c.dur(&format!("{key}.duration"), self.duration, 1, MAX_DURATION_NS);
        c.dur(&format!("{key}.interval"), self.interval, INTERVAL_RANGE_NS.0, INTERVAL_RANGE_NS.1);
    }
}

/// `kind = "echo"`: the stop-and-wait echo engine (`wattlab_core::echo`), `count` requests of
/// `request` bytes, one at a time, each retransmitted after `timeout` until echoed.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EchoFlow {
    /// Node that sends the requests (the client).
    pub from: String,
    /// Node that echoes them (the server).
    pub to: String,
    /// Request size (default 64 B).
    #[serde(default)]
    pub request: Option<Size>,
    /// Number of requests (default 10).
    #[serde(default)]
    pub count: Option<u32>,
    /// Time after an echo before the next request (default 0: at once).
    #[serde(default)]
    pub interval: Option<Dur>,
    /// How long a request waits for its echo before it is sent again (default 1 s).
    #[serde(default)]
    pub timeout: Option<Dur>,
}

impl EchoFlow {
    /// Checks every number against its valid range; `key` is the flow's path (`flow[0]`).
    pub(crate) fn check_ranges(&self, key: &str, c: &mut Check) {
        c.dur(&format!("{key}.interval"), self.interval, 0, INTERVAL_RANGE_NS.1);
        c.dur(&format!("{key}.timeout"), self.timeout, INTERVAL_RANGE_NS.0, INTERVAL_RANGE_NS.1);
    }
}
