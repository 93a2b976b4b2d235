//! wattlab-sim: a deterministic packet-level discrete-event simulator.
//!
//! A scenario (TOML, see [`scenario`]) is built ([`build`]) into a [`Simulation`] of layers
//! that point one way:
//!
//! ```text
//!   apps/        flows: bulk transfers, CBR, ping, web (one module per kind, a registry)
//!   stack/       host stack: TCP and datagram sockets, demultiplexing
//!   middlebox/   packet interception on an interface (seed 000's CC agent)
//!   power/, wlan/  station power management; the 802.11 MAC
//!   net/         nodes, interfaces, channels, routes, captures
//!   engine       the (time, sequence)-ordered event queue
//!   sim/         the event loop and the glue between the layers (no layer imports it)
//! ```
//!
//! Same scenario and seed give the same bytes out: JSON summary, CSV series and pcap.

pub mod apps;
pub mod build;
pub mod engine;
pub mod estimate;
pub mod flow_energy;
pub mod fuzz;
pub mod live_spec;
pub mod middlebox;
pub mod net;
pub mod output;
pub mod power;
pub mod provenance;
pub mod radio;
pub mod rng;
pub mod run;
pub mod savings;
pub mod scenario;
pub mod series;
pub mod sim;
pub mod stack;
pub mod wlan;

pub use build::BuildOptions;
pub use net::{impairment, link, pcap, routing};
pub use output::{RunOutput, Summary};
pub use run::{run, BaselineChoice, RunOptions, RunPlan, RunSet};
pub use power::hop as hop_power;
pub use sim::{Progress, Simulation};
