//! Seed 001's Power Saving Network Architecture (Anastasi, Conti & Lapenna) as sans-IO
//! engines: the connection is split at the access point; a daemon there talks TCP to the
//! fixed host and PS-TP (connectionless, stop-and-wait) to the mobile, which switches its
//! card off for the residual time the daemon predicts and moves the data in one burst.
//!
//! No I/O and no clock, like [`crate::tcp`] and [`crate::wwp`]: hosts pass `now` in, feed
//! datagrams and FH-connection happenings to the engines, and drain datagrams, FH commands,
//! radio commands, timers and events. `docs/psna.md` describes the protocol, the wire format
//! and every choice made where the paper is silent.
//!
//! Modules: [`config`] (parameters), [`estimator`] (λ_i, sample mean, EWMA), [`transfer`]
//! (one transfer at the daemon: buffers, residual time, answers), [`daemon`] (the AP daemon
//! engine), [`request`] (the mobile's stop-and-wait request), [`mobile`] (the mobile engine:
//! Figs. 8-9 and radio commands), [`units`] (battery-seconds, the index, reductions),
//! [`fuzz`] (a shared property step). The message format is [`crate::wire::pstp`].

pub mod config;
pub mod daemon;
pub mod estimator;
pub mod fuzz;
pub mod mobile;
pub mod request;
pub mod transfer;
pub mod units;

#[cfg(test)]
mod tests;

pub use config::{DaemonConfig, EstimatorConfig, MobileConfig, PsnaConfigError};
pub use daemon::{DaemonEvent, DaemonStats, FhCommand, FhId, PsnaDaemon};
pub use estimator::{Sample, ThroughputEstimator};
pub use mobile::{MobileError, MobileEvent, MobileState, MobileStats, PsnaMobile, RadioCommand};
pub use transfer::Direction;
