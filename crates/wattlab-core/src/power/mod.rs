//! Names of power modes and accounting policies: one registry ([`mode`]) that every parser
//! (scenarios, the trace analyzer, the bindings, the Python reproductions) goes through.

pub mod mode;

pub use mode::{Basis, Driver, ModeParam, ParseNameError, PolicyName, PowerMode, BSD_PERCENT};
