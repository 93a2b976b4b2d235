//! Station power saving: the registry of power modes ([`modes`]: every mode's name, its
//! settings and its rules, one module each) that every parser (scenarios, the trace analyzer,
//! the bindings, the Python reproductions) and every MAC goes through; the names of
//! accounting policies ([`mode`]); and the one state machine that runs any mode on any MAC
//! ([`station`]).

pub mod mode;
pub mod modes;
pub mod station;

pub use mode::{Basis, ModeParam, ParseNameError, PolicyName};
pub use modes::{bsd_next_wake, bsd_window, Driver, PowerMode, PowerSave, PowerSaveSettings, TwtAgreement, BSD_MAX_SLEEP, BSD_PERCENT};
pub use station::{Command, MacCaps, MacView, PowerState, StationEvent, StationPower, StationStats};
