//! The daemon's side towards the fixed host: the TCP connection's life as the host reports
//! it (connected, data, acknowledgements, close, reset) and the relay bytes it writes.

use super::{DaemonEvent, FhCommand, FhId, Key, PsnaDaemon};
use crate::psna::estimator::Sample;
use crate::psna::transfer::{Direction, Phase, Transfer};
use crate::time::Time;
use crate::wire::pstp::PstpErrorCode;

impl PsnaDaemon {
    fn with_fh(&mut self, fh: FhId) -> Option<(Key, &mut Transfer)> {
        let key = *self.by_fh.get(&fh)?;
        self.transfers.get_mut(&key).map(|(_, t)| (key, t))
    }

    fn after_fh(&mut self, now: Time, fh: FhId, key: Key, was_done: bool, sample: Option<Sample>) {
        if let Some(sample) = sample {
            self.events.push_back(DaemonEvent::Sampled { fh, sample });
        }
        let Some((_, t)) = self.transfers.get(&key) else { return };
        if t.fh_done && !was_done {
            self.events.push_back(DaemonEvent::FhComplete { fh, at: now });
            if t.dir == Direction::Read {
                self.fh_cmds.push_back(FhCommand::Close(fh));
            }
        }
        self.push_owed(now, key);
    }

    /// The TCP connection `fh` is established.
    pub fn handle_fh_connected(&mut self, now: Time, fh: FhId) {
        let Some((key, t)) = self.with_fh(fh) else { return };
        t.fh_connected = true;
        if t.size == Some(0) {
            // An empty object: nothing to fetch or relay.
            self.fh_cmds.push_back(FhCommand::Close(fh));
        }
        self.push_owed(now, key);
    }

    /// Read: `data` arrived in order on `fh` (one call per TCP segment gives the estimator
    /// exact packet counts; larger reads count ⌈len / fh_segment_size⌉ packets).
    pub fn handle_fh_data(&mut self, now: Time, fh: FhId, data: &[u8]) {
        let cfg = self.cfg.clone();
        let Some((key, t)) = self.with_fh(fh) else { return };
        let (was_done, active) = (t.fh_done, t.phase == Phase::Active);
        let sample = t.on_fh_data(now, data, &cfg);
        if active && matches!(t.phase, Phase::Failed(_)) {
            self.fh_cmds.push_back(FhCommand::Abort(fh));
            self.events.push_back(DaemonEvent::Failed { fh, code: PstpErrorCode::TooLarge });
        }
        self.after_fh(now, fh, key, was_done, sample);
    }

    /// Send: the FH acknowledged `n` more bytes of `fh`.
    pub fn handle_fh_acked(&mut self, now: Time, fh: FhId, n: u64) {
        let Some((key, t)) = self.with_fh(fh) else { return };
        let was_done = t.fh_done;
        let sample = t.on_fh_acked(now, n);
        self.after_fh(now, fh, key, was_done, sample);
    }

    /// The FH closed `fh` gracefully (EOF): a read of unknown size is complete; anything
    /// short of the announced size is an error.
    pub fn handle_fh_closed(&mut self, now: Time, fh: FhId) {
        let Some((key, t)) = self.with_fh(fh) else { return };
        let was_done = t.fh_done;
        if t.phase != Phase::Active || t.fh_done {
            return;
        }
        if t.dir == Direction::Read && t.size.is_none() {
            t.fh_done = true;
        } else {
            self.fail(key, PstpErrorCode::FhClosedEarly);
        }
        self.after_fh(now, fh, key, was_done, None);
    }

    /// The FH connection `fh` was reset, or could not be opened.
    pub fn handle_fh_aborted(&mut self, now: Time, fh: FhId) {
        let Some((key, t)) = self.with_fh(fh) else { return };
        if t.phase != Phase::Active || (t.fh_done && t.dir == Direction::Read) {
            return;
        }
        let code = if t.fh_connected { PstpErrorCode::FhAborted } else { PstpErrorCode::FhUnreachable };
        self.fail(key, code);
        self.push_owed(now, key);
    }

    /// Send: relay bytes waiting to be written to `fh` (empty for reads and unknown ids).
    pub fn fh_outgoing(&self, fh: FhId) -> &[u8] {
        self.transfer(fh).map(Transfer::relay_pending).unwrap_or_default()
    }

    /// Send: the host wrote `n` bytes of [`fh_outgoing`](Self::fh_outgoing) to `fh`. When the
    /// whole object has been written, [`FhCommand::Close`] follows.
    pub fn fh_written(&mut self, fh: FhId, n: usize) {
        let Some((_, t)) = self.with_fh(fh) else { return };
        let before = t.relay_pending().is_empty();
        t.relay_written(n);
        let all_in = t.received == t.size.unwrap_or(0) && t.relay_pending().is_empty();
        if all_in && !before && t.phase == Phase::Active {
            self.fh_cmds.push_back(FhCommand::Close(fh));
        }
    }

}
