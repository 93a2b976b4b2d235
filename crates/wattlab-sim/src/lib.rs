//! wattlab-sim: a deterministic packet-level discrete-event simulator.

pub mod engine;
pub mod impairment;
pub mod rng;
pub mod scenario;
