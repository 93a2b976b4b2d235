//! The link/AP emulator: a sans-IO model of the path ([`model`]) and its NFQUEUE host ([`host`]).

pub mod host;
pub mod model;

#[cfg(test)]
mod model_tests;
