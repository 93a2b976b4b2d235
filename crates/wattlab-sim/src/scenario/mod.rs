//! Scenarios: the TOML schema, units, loading with overrides (parsed once, [`ScenarioSource`]),
//! the power-save baseline, and located errors.

pub mod baseline;
mod check;
pub mod error;
pub mod flow;
pub mod load;
pub mod locate;
pub mod names;
pub mod power_save;
pub mod ranges;
pub mod schema;
pub mod source;
pub mod units;
pub use flow::{psna, web, wwp};

pub use error::ScenarioError;
pub use baseline::Baseline;
pub use load::{parse, parse_effective, parse_with_overrides, read_file, without_power_save, MAX_SCENARIO_BYTES};
pub use source::{document_parses, Origin, ParsedScenario, ScenarioSource};
pub use schema::*;
pub use power_save::PowerSaveConfig;
pub use flow::{
    BulkFlow, CbrFlow, EchoFlow, FlowConfig, FlowSettings, PingFlow, PsnaFlow, ReaderConfig, TcpSettings, UdpRrFlow, WebFlow, WwpBulkFlow,
};
pub use psna::PsnaSettings;
pub use web::{HostCountConfig, ObjectCountConfig, PageListEntry, SizeDistConfig, ThinkConfig, ThirdPartyConfig};
pub use wwp::WwpSettings;
