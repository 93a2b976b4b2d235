//! The link/AP emulator: a sans-IO model of the path ([`model`]).

pub mod model;

#[cfg(test)]
mod model_tests;
