//! The stop-and-wait echo (`wattlab_core::echo`) live: the smallest application on the generic
//! host ([`crate::host`]), and the proof that a new engine runs live with nothing but its
//! application. The client sends its requests to `--peer` and reports each round-trip time;
//! the server echoes whoever writes until it is stopped or its time limit passes.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::AtomicBool;
use std::time::Duration as StdDuration;

use serde::Serialize;
use wattlab_core::echo::{EchoConfig, EchoEngine, EchoEvent, EchoStats};
use wattlab_core::Time;

use crate::clock::LiveClock;
use crate::host::{HostApp, HostConfig, HostStats, Peer};

/// What an echo host reports (JSON).
#[derive(Clone, Debug, Default, Serialize)]
pub struct EchoHostReport {
    /// `client` or `server`.
    pub role: String,
    /// `completed` or `failed` (client), `time-limit`, `count-limit` or `stopped`.
    pub outcome: String,
    /// What the host counted (datagrams, timers, addresses, start and end).
    pub host: HostStats,
    /// Round-trip time of each echoed request, in order, ms (client).
    pub rtt_ms: Vec<f64>,
    /// The engine's counters.
    pub stats: EchoStats,
}

/// The echo's application: it records the round-trip times and when the client is done.
#[derive(Default)]
struct Echo {
    rtt_ms: Vec<f64>,
    end: Option<String>,
}

impl HostApp<EchoEngine> for Echo {
    fn on_event(&mut self, _e: &mut EchoEngine, _now: Time, ev: EchoEvent) -> Result<(), String> {
        match ev {
            EchoEvent::Echoed { rtt, .. } => self.rtt_ms.push(rtt.0 as f64 / 1e6),
            EchoEvent::Done => self.end = Some("completed".into()),
            EchoEvent::Failed { seq } => self.end = Some(format!("failed: request {seq} unanswered")),
            EchoEvent::Served { .. } => {}
        }
        Ok(())
    }

    fn outcome(&mut self, _e: &EchoEngine, _now: Time, _host: &HostStats) -> Option<String> {
        self.end.clone()
    }
}

/// Runs an echo client (`peer` given: it sends `cfg`'s requests there) or server (`peer`
/// `None`) on `sock` until it is done, a limit is reached or `stop` is set; `on_ready` is
/// called once it listens.
pub fn run(sock: UdpSocket, peer: Option<SocketAddr>, cfg: EchoConfig, limit: StdDuration, stop: &AtomicBool, on_ready: impl FnOnce()) -> Result<EchoHostReport, String> {
    let clock = LiveClock::start();
    let (mut engine, who) = match peer {
        Some(p) => (EchoEngine::client(cfg).map_err(|(k, e)| format!("--{k}: {e}"))?, Peer::Fixed(p)),
        None => (EchoEngine::server(), Peer::Any),
    };
    let mut app = Echo::default();
    let host = HostConfig { time_limit: limit, ..HostConfig::new(who) };
    on_ready();
    let h = crate::host::run(&sock, &mut engine, &mut app, &clock, &host, stop)?;
    let role = if peer.is_some() { "client" } else { "server" };
    Ok(EchoHostReport { role: role.into(), outcome: h.outcome.clone(), host: h, rtt_ms: app.rtt_ms, stats: *engine.stats() })
}
