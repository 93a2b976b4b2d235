//! Station power saving: one registry of mode and policy names ([`mode`]) that every parser
//! (scenarios, the trace analyzer, the bindings, the Python reproductions) goes through; a
//! mode's settings and what the MAC below can do ([`save`]); and one state machine that runs
//! every mode on any MAC ([`station`]).

pub mod mode;
pub mod save;
pub mod station;

pub use mode::{Basis, Driver, ModeParam, ParseNameError, PolicyName, PowerMode, BSD_PERCENT};
pub use save::{MacCaps, PowerSave, PowerSaveSettings, BSD_MAX_SLEEP};
pub use station::{Command, MacView, PowerState, StationEvent, StationPower, StationStats};
