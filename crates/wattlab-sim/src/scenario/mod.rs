//! Scenarios: the TOML schema, units, loading with overrides, and located errors.

mod check;
pub mod error;
pub mod flow;
pub mod load;
pub mod locate;
pub mod names;
pub mod ranges;
pub mod schema;
pub mod units;
pub use flow::{psna, web, wwp};

pub use error::ScenarioError;
pub use load::{
    effective_text, parse, parse_effective, parse_with_overrides, read_file, without_power_save, MAX_SCENARIO_BYTES,
};
pub use schema::*;
pub use flow::{
    BulkFlow, CbrFlow, FlowConfig, FlowSettings, PingFlow, PsnaFlow, ReaderConfig, TcpSettings, UdpRrFlow, WebFlow, WwpBulkFlow,
};
pub use psna::PsnaSettings;
pub use web::{ObjectCountConfig, PageListEntry, SizeDistConfig, ThinkConfig};
pub use wwp::WwpSettings;
