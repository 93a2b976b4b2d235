//! Radio energy model: device profiles, exact state-interval metering and accounting policies.
//!
//! - [`state`]: [`RadioState`] (`Off`, `Sleep` dormant; `Idle`, `IdleHigh`, `Rx`, `Tx` awake);
//! - [`profile`]: [`DeviceProfile`] loaded from TOML (`profiles/*.toml`, built in with
//!   `include_str!`), each citing where its numbers come from and which are derived;
//! - [`meter`]: [`RadioMeter`], which integrates state intervals into an [`EnergyReport`];
//! - [`marks`]: the energy up to an instant (a flow's completion), exact, resolved when the
//!   interval containing it is final;
//! - [`policy`]: [`break_even_time`] and [`PolicyMeter`], which costs a tx/rx activity stream
//!   under an [`AccountingPolicy`] (always-on, oracle, PSM, adaptive PSM);
//! - [`high_power`]: adaptive PSM's high-power test over sliding or fixed windows;
//! - [`replay`]: [`ReplayMeter`], which costs activity under a recorded sleep/wake schedule;
//! - [`timeline`]: [`cost_timeline`], a recorded state timeline costed by the meter (energy per
//!   owner and up to instants).
//!
//! # Exact accounting
//! Time is integer nanoseconds and power integer microwatts, so each interval contributes
//! `ns × µW` = femtojoules exactly, summed in `u128`. Reports give nanojoules (rounded half up,
//! each figure from its own exact value) and joules (`f64`, for display).
//!
//! # Transition semantics
//! Transitions are defined in a profile only between a dormant state (`Sleep`, `Off`) and
//! `Idle`. A state change at `t` means the radio *is in* the new state at `t`:
//!
//! - dormant -> awake (`Idle`, `Rx` or `Tx`) at `e`: the radio was ready at `e`, so the wake-up
//!   (duration `d_up`, power `P_up`) is carved out of the **end** of the dormant interval;
//! - awake -> dormant at `s`: the down transition starts at `s` and is carved out of the
//!   **start** of the dormant interval.
//!
//! A dormant interval `[s, e)` is thus costed as down `[s, s+d_down)`, dormant
//! `[s+d_down, e−d_up)`, up `[e−d_up, e)`. If it is shorter than `d_down + d_up`, the down leg is
//! clipped first, then the up leg, and the interval is counted in
//! [`EnergyReport::short_dormant_intervals`] (a policy asking for that is asking for the
//! impossible, so it must be visible). Time is conserved exactly: the per-state times plus
//! the transition time equal `end − start`.
//!
//! Switching between awake states is free. `Off` <-> awake uses the profile's `off`
//! transitions if it defines them, else costs nothing; `Sleep` <-> `Off` is free. A meter that
//! starts dormant owes no down transition (the radio was already down), and a dormant state
//! still in progress when a report is taken pays no up transition (the radio is still down).
//! [`TransitionEnergy::count`] counts dormant <-> awake switches, whatever their cost.

pub mod high_power;
pub mod marks;
pub mod meter;
pub mod policy;
pub mod profile;
pub mod replay;
pub mod state;
pub mod timeline;

pub use high_power::WindowKind;
pub use marks::{MarkEnergy, MarkId};
pub use meter::{EnergyReport, RadioMeter, RunEnergy, StateEnergy, TransitionEnergy};
pub use policy::{
    break_even_time, own_bucket, tail_bucket, AccountingPolicy, Activity, AdaptivePsmParams, ParsePolicyError,
    PolicyMeter, PsmParams,
};
pub use replay::ReplayMeter;
pub use profile::{
    builtin_profile, builtin_profile_names, builtin_profiles, find_builtin_profile, is_profile_path, profile_path,
    resolve_profile, DeviceProfile, PpduPower, ProfileError, Transition, MAX_PPDU_NSS, PPDU_WIDTHS_MHZ,
};
pub use state::{ParseRadioStateError, RadioState};
pub use timeline::{cost_timeline, TimelineError};
