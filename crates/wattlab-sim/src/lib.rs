//! wattlab-sim: a deterministic packet-level discrete-event simulator.
//!
//! A scenario (TOML, see [`scenario`]) is built into a [`Simulation`] of nodes joined by
//! links and wireless hops; hosts run sans-IO TCP connections from `wattlab-core` under
//! applications; the client's radio is costed by the core energy model. Same scenario and
//! seed give the same bytes out: JSON summary, CSV series and pcap.

pub mod agent_host;
pub mod app;
pub mod build;
mod build_wlan;
pub mod engine;
pub mod estimate;
pub mod fuzz;
pub mod hop_power;
pub mod impairment;
pub mod link;
pub mod live_spec;
pub mod output;
pub mod pcap;
pub mod provenance;
pub mod radio;
pub mod rng;
pub mod routing;
pub mod scenario;
pub mod sim;
pub mod web;
pub mod wlan;
pub mod wlan_host;

pub use build::BuildOptions;
pub use output::{RunOutput, Summary};
pub use sim::{Progress, Simulation};
