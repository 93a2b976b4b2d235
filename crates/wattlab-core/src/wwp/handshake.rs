//! The six-way handshake: SYN, SYN_ACK1, SYN_ACK1, SYN, SYN_ACK2, D_WAIT, with two RTTs
//! measured at the passive side (B) and its first-level decision.
//!
//! Retransmission (the paper gives only "one SYN retry"): the active side (A) retries its SYN;
//! every later loss is repaired by B, the side that measures, so an RTT is always timed from
//! the message whose answer ends it. A answers duplicates (SYN_ACK1 again in REPEAT, SYN_ACK2
//! again in D_WAIT); B in ESTAB resends D_WAIT until the first data-phase segment arrives.

use super::config::WwpConfig;
use super::level::first_level;
use super::outbox::{Ctl, Outbox};
use crate::time::{Duration, Time};
use crate::wire::wwp::{WwpHeader, WwpType};

/// Handshake states (the paper's names where it has them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandshakeState {
    /// A: SYN sent, waiting for SYN_ACK1.
    Send,
    /// A: SYN_ACK1 echoed, waiting for B's SYN.
    Repeat,
    /// A: SYN_ACK2 sent, waiting for D_WAIT.
    DWait,
    /// B: waiting for a SYN.
    Listen,
    /// B: SYN_ACK1 sent (RTT1 running), waiting for its echo (the paper's LISTEN after step 2).
    Rtt1,
    /// B: SYN sent (RTT2 running), waiting for SYN_ACK2.
    Ready,
    /// Established; B still resends D_WAIT until data-phase traffic arrives.
    Estab,
    /// Closed: postponed, abandoned or timed out.
    Closed,
}

/// Why a handshake ended without a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandshakeFailure {
    /// A's SYN went unanswered after its retry: congestion, establishment postponed.
    Postponed,
    /// B's RTTs were above the threshold (D_WAIT with level 0).
    Abandoned,
    /// A timed out in REPEAT or D_WAIT, or B gave up waiting.
    TimedOut,
}

/// What a handshake step produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandshakeOutcome {
    /// Nothing new.
    Nothing,
    /// Established at this first level; the peer's ISN is known.
    Established {
        /// First wave level (1..=3).
        level: u8,
        /// The peer's initial sequence number.
        peer_isn: u16,
    },
    /// Failed.
    Failed(HandshakeFailure),
}

/// One side of the six-way handshake.
#[derive(Clone, Debug)]
pub struct Handshake {
    state: HandshakeState,
    active: bool,
    isn: u16,
    peer_isn: u16,
    retries: u8,
    repeated: bool,
    /// When the message whose answer ends the running RTT left.
    t_mark: Time,
    rtt1: Duration,
    /// Smallest RTT sample taken (either side).
    rtt_min: Option<Duration>,
    level: u8,
    retry_at: Option<Time>,
    give_up_at: Option<Time>,
}

impl Handshake {
    /// Active side: the SYN goes into `out`.
    pub fn connect(isn: u16, now: Time, cfg: &WwpConfig, out: &mut Outbox) -> Handshake {
        let mut h = Handshake::new(HandshakeState::Send, true, isn);
        h.send_syn(now, cfg, out);
        h
    }

    /// Passive side: wait for a SYN.
    pub fn listen(isn: u16) -> Handshake {
        Handshake::new(HandshakeState::Listen, false, isn)
    }

    fn new(state: HandshakeState, active: bool, isn: u16) -> Handshake {
        Handshake {
            state,
            active,
            isn: isn & 0x0fff,
            peer_isn: 0,
            retries: 0,
            repeated: false,
            t_mark: Time::ZERO,
            rtt1: Duration::ZERO,
            rtt_min: None,
            level: 0,
            retry_at: None,
            give_up_at: None,
        }
    }

    /// Current state.
    pub fn state(&self) -> HandshakeState {
        self.state
    }

    /// Whether this side opened actively (A).
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Smallest RTT measured during the handshake.
    pub fn rtt_min(&self) -> Option<Duration> {
        self.rtt_min
    }

    /// Whether a loss made the handshake repeat a message (B then forces level 1).
    pub fn repeated(&self) -> bool {
        self.repeated
    }

    fn sample(&mut self, now: Time) -> Duration {
        let rtt = now.saturating_since(self.t_mark);
        self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
        rtt
    }

    fn ctl(&self, kind: WwpType, level: u8) -> Ctl {
        Ctl { kind, seq: self.isn, level, wave_id: (self.isn as u8) & 0x3f }
    }

    fn send_syn(&mut self, now: Time, cfg: &WwpConfig, out: &mut Outbox) {
        // The level sub-field of A's SYN counts its attempts, so B learns of a retry even if
        // the first SYN was lost.
        out.push(self.ctl(WwpType::Syn, self.retries.min(3)));
        self.t_mark = now;
        self.retry_at = Some(now + cfg.handshake_retry);
    }

    /// The earliest handshake timer.
    pub fn deadline(&self) -> Option<Time> {
        match (self.retry_at, self.give_up_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// A data-phase segment arrived from the peer: B stops resending D_WAIT.
    pub fn on_data_phase(&mut self) {
        if self.state == HandshakeState::Estab {
            self.retry_at = None;
            self.give_up_at = None;
        }
    }

    /// A handshake segment arrived.
    pub fn on_segment(&mut self, now: Time, h: &WwpHeader, cfg: &WwpConfig, out: &mut Outbox) -> HandshakeOutcome {
        use HandshakeState as S;
        use WwpType as T;
        match (self.state, h.kind) {
            // --- A ---
            (S::Send, T::SynAck1) => {
                if !self.repeated {
                    self.sample(now);
                }
                out.push(self.ctl(T::SynAck1, 0));
                self.state = S::Repeat;
                self.retry_at = None;
                self.give_up_at = Some(now + cfg.dwait_timeout);
            }
            (S::Repeat, T::SynAck1) => out.push(self.ctl(T::SynAck1, 0)),
            (S::Repeat | S::DWait, T::Syn) => {
                self.peer_isn = h.seq;
                out.push(self.ctl(T::SynAck2, h.level));
                self.t_mark = now;
                if self.state == S::Repeat {
                    self.state = S::DWait;
                    self.give_up_at = Some(now + cfg.dwait_timeout);
                }
            }
            (S::DWait, T::DWait) => {
                self.sample(now);
                self.give_up_at = None;
                if h.level == 0 {
                    self.state = S::Closed;
                    return HandshakeOutcome::Failed(HandshakeFailure::Abandoned);
                }
                self.state = S::Estab;
                self.level = h.level;
                return HandshakeOutcome::Established { level: h.level, peer_isn: self.peer_isn };
            }
            // --- B ---
            (S::Listen, T::Syn) | (S::Rtt1, T::Syn) => {
                if self.state == S::Rtt1 || h.level > 0 {
                    self.repeated = true;
                }
                self.peer_isn = h.seq;
                out.push(self.ctl(T::SynAck1, 0));
                self.t_mark = now;
                self.state = S::Rtt1;
                self.retry_at = Some(now + cfg.handshake_retry);
            }
            (S::Rtt1, T::SynAck1) => {
                self.rtt1 = self.sample(now);
                self.retries = 0;
                out.push(self.ctl(T::Syn, 0));
                self.t_mark = now;
                self.state = S::Ready;
                self.retry_at = Some(now + cfg.handshake_retry);
                self.give_up_at = Some(now + cfg.ready_timeout);
            }
            (S::Ready, T::SynAck2) => {
                let rtt2 = self.sample(now);
                let level = first_level(self.rtt1, rtt2, self.repeated, cfg);
                self.level = level.unwrap_or(0);
                out.push(self.ctl(T::DWait, self.level));
                self.give_up_at = None;
                return match level {
                    Some(level) => {
                        self.state = S::Estab;
                        self.retries = 0;
                        self.retry_at = Some(now + cfg.handshake_retry);
                        self.give_up_at = Some(now + cfg.handshake_retry.saturating_mul(u64::from(cfg.handshake_retries) + 1));
                        HandshakeOutcome::Established { level, peer_isn: self.peer_isn }
                    }
                    None => {
                        self.state = S::Closed;
                        self.retry_at = None;
                        HandshakeOutcome::Failed(HandshakeFailure::Abandoned)
                    }
                };
            }
            (S::Estab, T::SynAck2) if !self.active => out.push(self.ctl(T::DWait, self.level)),
            _ => {}
        }
        HandshakeOutcome::Nothing
    }

    /// Handshake timers due at `now`.
    pub fn on_timeout(&mut self, now: Time, cfg: &WwpConfig, out: &mut Outbox) -> HandshakeOutcome {
        use HandshakeState as S;
        if self.give_up_at.is_some_and(|t| now >= t) {
            self.retry_at = None;
            self.give_up_at = None;
            if self.state == S::Estab {
                return HandshakeOutcome::Nothing;
            }
            self.state = S::Closed;
            return HandshakeOutcome::Failed(HandshakeFailure::TimedOut);
        }
        if self.retry_at.is_none_or(|t| now < t) {
            return HandshakeOutcome::Nothing;
        }
        self.retry_at = None;
        let can_retry = self.retries < cfg.handshake_retries;
        match self.state {
            S::Send if can_retry => {
                self.retries += 1;
                self.repeated = true;
                self.send_syn(now, cfg, out);
            }
            S::Send => {
                self.state = S::Closed;
                return HandshakeOutcome::Failed(HandshakeFailure::Postponed);
            }
            S::Rtt1 | S::Ready | S::Estab if can_retry => {
                self.retries += 1;
                self.repeated = true;
                let (kind, level) = match self.state {
                    S::Rtt1 => (WwpType::SynAck1, 0),
                    S::Ready => (WwpType::Syn, self.retries.min(3)),
                    _ => (WwpType::DWait, self.level),
                };
                out.push(self.ctl(kind, level));
                if self.state != S::Estab {
                    self.t_mark = now;
                }
                self.retry_at = Some(now + cfg.handshake_retry);
            }
            S::Rtt1 => {
                self.state = S::Closed;
                return HandshakeOutcome::Failed(HandshakeFailure::TimedOut);
            }
            _ => {}
        }
        HandshakeOutcome::Nothing
    }
}
