//! wattlab's live testbed: the same sans-IO protocol code as the simulator, hosted on real
//! Linux traffic between network namespaces.
//!
//! - [`emu`]: the userspace link/AP emulator of the `ap` namespace (NFQUEUE on FORWARD):
//!   rate, delay and jitter, loss, queue limits and idealised PSM, from a scenario's links.
//! - [`client_agent`]: seed 000's client-centered agent on the client's NFQUEUE.
//! - [`apps`]: the server and the downloading client, on Linux TCP.
//! - [`payload`]: the data they exchange, a keyed pseudo-random stream generated on the fly.
//! - [`plan`]: what a scenario asks of a live run (the path, the TCP settings, the flow).
//! - [`wwp_host`]: the Wave & Wait Protocol's sender and receiver on real UDP sockets.
//! - [`psna_host`]: seed 001's PSNA daemon (UDP + Linux TCP to the fixed host) and mobile.
//!
//! The namespaces, interfaces, rules and processes are set up by the Python layer
//! (`wattlab.live`); each process here runs inside one namespace and does one job.

pub mod apps;
pub mod client_agent;
pub mod clock;
pub mod emu;
pub mod nfqueue;
pub mod payload;
pub mod plan;
pub mod psna_host;
pub mod tcp_flow;
pub mod tunnel_host;
pub mod tunnel_plan;
pub mod udp;
pub mod wwp_host;
