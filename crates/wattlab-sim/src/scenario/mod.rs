//! Scenarios: the TOML schema, units, loading with overrides, and located errors.

pub mod error;
pub mod load;
pub mod locate;
pub mod names;
pub mod power_save;
pub mod ranges;
pub mod schema;
pub mod units;
pub mod web;
pub mod psna;
pub mod wwp;

pub use error::ScenarioError;
pub use load::{
    effective_text, parse, parse_effective, parse_with_overrides, read_file, without_power_save, MAX_SCENARIO_BYTES,
};
pub use schema::*;
pub use power_save::PowerSaveConfig;
pub use psna::PsnaSettings;
pub use wwp::WwpSettings;
pub use web::{ObjectCountConfig, PageListEntry, SizeDistConfig, ThinkConfig, WebFlowConfig};
