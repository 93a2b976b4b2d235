//! wattlab's live testbed: the same sans-IO protocol code as the simulator, hosted on real
//! Linux traffic between network namespaces.
//!
//! - [`emu`]: the userspace link/AP emulator of the `ap` namespace (NFQUEUE on FORWARD):
//!   rate, delay and jitter, loss, queue limits and idealised PSM, from a scenario's links.
//! - [`client_agent`]: seed 000's client-centered agent on the client's NFQUEUE.
//! - [`apps`]: the server and the downloading client, on Linux TCP.
//! - [`web`]: the web flow's browser and server, on Linux TCP (several persistent connections
//!   per page, think times; the simulator's page plan), and [`web_hints`], what the browser
//!   tells the agent.
//! - [`payload`]: the data they exchange, a keyed pseudo-random stream generated on the fly.
//! - [`plan`]: what a scenario asks of a live run (the path, the TCP settings, the flow, or the
//!   tunnel's settings and flows: [`plan::tunnel`]).
//! - [`host`]: the one live host of every datagram engine (`wattlab_core::engine::Engine`) on a
//!   real UDP socket; the modules below are only the applications on top of it:
//! - [`wwp_host`]: the Wave & Wait Protocol's sender and receiver;
//! - [`psna_host`]: seed 001's PSNA daemon (UDP + Linux TCP to the fixed host) and mobile;
//! - [`tunnel_host`]: seed 002 Ch. 4's SCTP tunnel on a TUN device;
//! - [`echo_host`]: the stop-and-wait echo, the smallest engine.
//!
//! The namespaces, interfaces, rules and processes are set up by the Python layer
//! (`wattlab.live`); each process here runs inside one namespace and does one job.

pub mod apps;
pub mod client_agent;
pub mod clock;
pub mod echo_host;
pub mod emu;
pub mod host;
pub mod nfqueue;
pub mod payload;
pub mod plan;
pub mod psna_host;
pub mod tcp_flow;
pub mod tunnel_host;
pub mod udp;
pub mod web;
pub mod web_hints;
pub mod wwp_host;
