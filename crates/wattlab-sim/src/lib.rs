//! Simulator (being written).
