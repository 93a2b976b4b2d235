//! What the mobile engine hands its host: radio commands, application events, errors, its
//! state and counters.

use crate::time::{Duration, Time};
use crate::wire::pstp::PstpErrorCode;

/// Switch the WLAN card on or off at `at` (ResumeCard / SuspendCard).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RadioCommand {
    /// When (the instant of the call that produced it).
    pub at: Time,
    /// On (true) or off.
    pub on: bool,
}

/// Why a transfer failed, or could not start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MobileError {
    /// A transfer is already running.
    #[error("a transfer is already running")]
    Busy,
    /// The object name is longer than 255 bytes.
    #[error("object name longer than 255 bytes")]
    NameTooLong,
    /// The daemon did not answer a request, retransmissions included.
    #[error("no answer from the daemon to a {what} after {tries} transmissions")]
    NoResponse {
        /// The request.
        what: &'static str,
        /// Transmissions made.
        tries: u32,
    },
    /// The daemon reported an error.
    #[error("daemon error: {}", .0.describe())]
    Daemon(PstpErrorCode),
    /// The daemon answered something that breaks the protocol.
    #[error("protocol violation by the daemon: {0}")]
    Protocol(&'static str),
}

/// What the host and the application hear (radio commands come first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MobileEvent {
    /// Switch the card on or off now: an on comes before the request it precedes (which the
    /// engine holds back until this was polled), an off after the last message.
    Radio(RadioCommand),
    /// The transfer finished: the object is read ([`PsnaMobile::take_object`](super::PsnaMobile::take_object)) or delivered.
    Completed {
        /// Transfer id.
        transfer: u32,
        /// Bytes moved.
        bytes: u64,
    },
    /// The transfer failed.
    Failed {
        /// Transfer id.
        transfer: u32,
        /// Why.
        error: MobileError,
    },
    /// A Residual_Time arrived (for the host's records).
    Residual {
        /// When.
        at: Time,
        /// Its value (0 = ready / done).
        residual: Duration,
    },
}

/// Where the mobile stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MobileState {
    /// No transfer.
    Idle,
    /// A request is in flight (radio on).
    Requesting,
    /// On, waiting for a deferred answer (the first Residual_Time, OK to send).
    WaitingOn,
    /// Waiting out a Residual_Time until the instant (radio off, or on if shorter than
    /// `min_sleep`).
    Sleeping(Time),
    /// Switched on, waiting `resume_delay` before polling.
    Resuming(Time),
}

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MobileStats {
    /// Requests sent, retransmissions excluded.
    pub requests: u64,
    /// Retransmissions.
    pub retransmissions: u64,
    /// Polls sent (first transmissions).
    pub polls: u64,
    /// Times the radio was switched off for a Residual_Time.
    pub sleeps: u64,
    /// Messages ignored (other transfer, stale sequence number, unexpected type).
    pub ignored: u64,
    /// Datagrams that did not decode.
    pub bad_datagrams: u64,
}

