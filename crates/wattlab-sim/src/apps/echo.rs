//! `echo`: the stop-and-wait echo (`wattlab_core::echo`), the smallest datagram engine, run by
//! the simulator's one engine socket ([`crate::stack::EngineSocket`]) exactly as the live host
//! runs it (`wattlab-live echo`). The client on `from` sends `count` requests of `request`
//! bytes to the server on `to` (port 7 by default), one at a time, `interval` after each echo,
//! retransmitting after `timeout`; the flow completes with the last echo, or fails when a
//! request goes unanswered after its retransmissions. This module, its `[[flow]]` struct and
//! registry entry (`scenario/flow/`), its line in `apps::build` and its tests are all a new
//! engine needs in the simulator.

use super::build::BuildCx;
use super::metrics::{FlowCost, FlowMetrics};
use super::{AppCtx, Application, Flow, FlowRecord};
use crate::scenario::{EchoFlow, ScenarioError};
use crate::stack::{SockId, SocketEvent, Stack};
use serde::Serialize;
use wattlab_core::echo::{EchoConfig, EchoEngine, EchoEvent};
use wattlab_core::{Duration, Endpoint, Time};

/// An echo flow from its `[[flow]]`: the server on `to`, the client on `from`.
pub(super) fn build(cx: &mut BuildCx, f: &EchoFlow) -> Result<(Flow, FlowRecord), ScenarioError> {
    let a = cx.node("from", &f.from)?;
    let b = cx.node("to", &f.to)?;
    cx.path(a, b, "to", true);
    let cfg = EchoConfig {
        count: f.count.unwrap_or(10),
        size: f.request.map_or(64, |s| s.bytes().min(usize::MAX as u64) as usize),
        interval: f.interval.map_or(Duration::ZERO, |d| d.get()),
        rto: f.timeout.map_or(Duration::from_secs(1), |d| d.get()),
        ..EchoConfig::default()
    };
    let client = EchoEngine::client(cfg).map_err(|(key, msg)| cx.error(if key == "size" { "request" } else if key == "rto" { "timeout" } else { key }, msg))?;
    let owner = cx.index as u32;
    let dst = Endpoint::new(cx.addrs[b as usize], cx.cfg.port.unwrap_or(7));
    let src = Endpoint::new(cx.addrs[a as usize], 30_000 + cx.index as u16);
    let server = cx.stack.bind_engine(b, dst, None, EchoEngine::server(), None, owner).ok_or_else(|| cx.error("port", "two UDP flows to the same node and port"))?;
    let client = cx.stack.bind_engine(a, src, Some(dst), client, None, owner).ok_or_else(|| cx.error("from", format!("port {} of the client is taken", src.port)))?;
    let target = Some(u64::from(cfg.count) * cfg.size as u64);
    let record = FlowRecord { target_bytes: target, finite: true, ..cx.record(a, b, cx.start()) };
    Ok((Flow::Echo(Echo { client, server, cfg, rtt_sum: Duration::ZERO }), record))
}

/// An echo client and its server.
pub struct Echo {
    client: SockId,
    server: SockId,
    cfg: EchoConfig,
    rtt_sum: Duration,
}

/// What an echo flow did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EchoMetrics {
    /// Requests sent for the first time.
    pub requests: u64,
    /// Requests sent again after the timeout.
    pub retransmissions: u64,
    /// Requests echoed back to the client.
    pub echoes: u64,
    /// Requests the server echoed (more than `echoes` when an echo was lost).
    pub served: u64,
    /// Mean round-trip time (ms) from each request's last transmission (Karn).
    pub rtt_mean_ms: Option<f64>,
}

impl Application for Echo {
    fn on_wake(&mut self, cx: &mut AppCtx) {
        cx.drive(self.client); // the first request is due at the start
    }

    fn on_socket(&mut self, cx: &mut AppCtx, s: SockId, ev: SocketEvent) {
        let SocketEvent::Engine = ev else { return };
        if s != self.client {
            return; // the server's events (Served) need nothing from the flow
        }
        match cx.stack.take_event::<EchoEngine>(s) {
            Some(EchoEvent::Echoed { rtt, .. }) => {
                self.rtt_sum += rtt;
                cx.record.bytes_delivered += self.cfg.size as u64;
            }
            Some(EchoEvent::Done) => cx.finish(),
            Some(EchoEvent::Failed { .. }) => cx.fail(),
            Some(EchoEvent::Served { .. }) | None => {}
        }
    }

    fn metrics(&self, stack: &Stack, _record: &FlowRecord, _end: Time) -> FlowMetrics {
        let c = stack.engine_ref::<EchoEngine>(self.client).stats();
        let s = stack.engine_ref::<EchoEngine>(self.server).stats();
        FlowMetrics::Echo(EchoMetrics {
            requests: c.requests,
            retransmissions: c.retransmissions,
            echoes: c.echoes,
            served: s.served,
            rtt_mean_ms: (c.echoes > 0).then(|| self.rtt_sum.as_secs_f64() * 1e3 / c.echoes as f64),
        })
    }

    fn cost(&self, record: &FlowRecord, _path_rate_bps: f64, horizon_s: f64) -> FlowCost {
        let n = f64::from(self.cfg.count);
        let start = record.start.as_nanos() as f64 / 1e9;
        let seconds = (n * (self.cfg.interval.as_secs_f64() + 0.01)).min((horizon_s - start).max(0.0));
        FlowCost { packets: 2.0 * n, seconds, ..FlowCost::default() }
    }
}
