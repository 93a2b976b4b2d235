//! TCP model (being written).
