//! Radio energy model: device profiles, exact state-interval metering and accounting policies.

pub mod profile;
pub mod state;

pub use profile::{
    builtin_profile, builtin_profile_names, builtin_profiles, find_builtin_profile, DeviceProfile,
    ProfileError, Transition,
};
pub use state::{ParseRadioStateError, RadioState};
pub mod meter;
pub use meter::{EnergyReport, RadioMeter, StateEnergy, TransitionEnergy};
pub mod policy;
pub use policy::{break_even_time, AccountingPolicy, Activity, ParsePolicyError, PolicyMeter};
