//! Radio energy model (being written).
