//! Wire encoding (being written).
