//! The sending half of one direction: the 40-segment buffer, wave composition (retransmissions
//! first, highest feasible level), SEND_T, the level-0 pause, the probe cycle and FIN.

use super::config::WwpConfig;
use super::outbox::{Ctl, Outbox};
use super::probe::{ProbeCycle, ProbeSend};
use super::seq::{next_wave_id, SeqSpace, SEQ_MASK};
use super::stats::WwpStats;
use crate::time::Time;
use crate::wire::wwp::{encode_wwp, NackIter, WwpHeader, WwpType};

/// Size of the slot map: half the 12-bit sequence space.
const SPAN: u64 = 2048;
/// Largest distance between the oldest held segment and the newest (leaves room for a wave).
const MAX_SPAN: u64 = SPAN - 64;
/// Marks a segment without a slot.
const NO_SLOT: u16 = u16::MAX;

/// Where the sender is in its wave cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendState {
    /// The handshake has not given a first level yet.
    NotEstablished,
    /// A level is known; the next wave goes out once enough segments are buffered.
    Ready,
    /// A wave is being written out segment by segment.
    Sending,
    /// The wave is out; waiting up to SEND_T for its N-S_ACK.
    AwaitAck {
        /// SEND_T expiry.
        deadline: Time,
    },
    /// Level 0: pausing before the probe cycle.
    Pause {
        /// End of the pause.
        until: Time,
    },
    /// The pause is over but there is not enough data to probe for.
    Deferred,
    /// A probe cycle is running.
    Probing,
    /// All data acknowledged; FIN sent, waiting up to SEND_T for FIN_ACK.
    FinWait {
        /// SEND_T expiry (then FIN again).
        deadline: Time,
    },
    /// FIN acknowledged: this direction is finished.
    Done,
}

#[derive(Clone, Copy, Debug, Default)]
struct Wave {
    level: u8,
    wave_id: u8,
    rtx_pos: usize,
    rtx_count: usize,
    new_left: u16,
}

/// The sending half of a WWP endpoint.
#[derive(Clone, Debug)]
pub struct Sender {
    space: SeqSpace,
    seg_size: usize,
    /// `cap` slots of `seg_size` bytes, used in any order: a segment's slot is freed as soon
    /// as a NACK list shows it delivered, even if older segments are still missing.
    data: Vec<u8>,
    lens: Vec<u16>,
    /// Slot of segment `n` at `n % SPAN` (`NO_SLOT` when not held).
    slot_of: Vec<u16>,
    free: Vec<u16>,
    /// Oldest segment still held (the unwrapping reference for feedback).
    base: u64,
    /// Segments before this are acknowledged unless listed in `rtx` (the latest terminator).
    acked_upto: u64,
    /// Segments `[base, filled)` are complete; segment `filled` is being filled.
    filled: u64,
    fill_len: usize,
    closed: bool,
    /// First new segment of the next wave (the latest terminator).
    next_new: u64,
    /// Highest segment ever sent + 1.
    snd_max: u64,
    /// Segments to retransmit first (the latest NACK list), oldest first.
    rtx: Vec<u64>,
    /// The previous `rtx` (kept to reuse its allocation).
    old_rtx: Vec<u64>,
    level: u8,
    wave_id: u8,
    probe_wave_id: u8,
    state: SendState,
    wave: Wave,
    probe: ProbeCycle,
    fin_sent: bool,
}

impl Sender {
    /// A sender whose data starts at sequence number `isn`.
    pub fn new(cfg: &WwpConfig, isn: u16) -> Sender {
        let cap = usize::from(cfg.send_buffer_segments);
        let seg = usize::from(cfg.segment_size);
        Sender {
            space: SeqSpace::new(isn),
            seg_size: seg,
            data: vec![0; cap * seg],
            lens: vec![0; cap],
            slot_of: vec![NO_SLOT; SPAN as usize],
            free: (0..cap as u16).rev().collect(),
            base: 0,
            acked_upto: 0,
            filled: 0,
            fill_len: 0,
            closed: false,
            next_new: 0,
            snd_max: 0,
            rtx: Vec::with_capacity(cap),
            old_rtx: Vec::with_capacity(cap),
            level: 0,
            wave_id: (isn as u8) & 0x3f,
            probe_wave_id: 0,
            state: SendState::NotEstablished,
            wave: Wave::default(),
            probe: ProbeCycle::new(isn.wrapping_mul(31).wrapping_add(7)),
            fin_sent: false,
        }
    }

    /// The handshake is over: the first wave goes out at `level` with `wave_id`.
    pub fn establish(&mut self, level: u8, wave_id: u8, now: Time, cfg: &WwpConfig) {
        self.level = level.min(3);
        self.wave_id = wave_id & 0x3f;
        self.state = if level == 0 { SendState::Pause { until: now + cfg.pause } } else { SendState::Ready };
    }

    /// Current state.
    pub fn state(&self) -> SendState {
        self.state
    }

    /// The level the latest feedback asked for.
    pub fn level(&self) -> u8 {
        self.level
    }

    /// Bytes `write` would accept now.
    pub fn free_bytes(&self) -> usize {
        if self.closed {
            return 0;
        }
        let partial = if self.fill_len > 0 { self.seg_size - self.fill_len } else { 0 };
        self.free.len() * self.seg_size + partial
    }

    /// Buffer as much of `data` as fits; returns the bytes taken (flow control: the rest waits).
    pub fn write(&mut self, mut data: &[u8]) -> usize {
        let mut taken = 0;
        while !self.closed && !data.is_empty() {
            if self.fill_len == 0 {
                // A new segment needs a free slot, and must stay within half the 12-bit space
                // of the oldest held segment so feedback about both unwraps unambiguously.
                if self.filled - self.base >= MAX_SPAN {
                    break;
                }
                let Some(slot) = self.free.pop() else { break };
                self.slot_of[(self.filled % SPAN) as usize] = slot;
            }
            let slot = usize::from(self.slot_of[(self.filled % SPAN) as usize]);
            let n = (self.seg_size - self.fill_len).min(data.len());
            let at = slot * self.seg_size + self.fill_len;
            self.data[at..at + n].copy_from_slice(&data[..n]);
            self.fill_len += n;
            taken += n;
            data = &data[n..];
            if self.fill_len == self.seg_size {
                self.complete_tail();
            }
        }
        taken
    }

    fn complete_tail(&mut self) {
        self.lens[usize::from(self.slot_of[(self.filled % SPAN) as usize])] = self.fill_len as u16;
        self.filled += 1;
        self.fill_len = 0;
    }

    /// No more data: a partial last segment is sent as it is, and FIN follows the data.
    pub fn close(&mut self) {
        if !self.closed && self.fill_len > 0 {
            self.complete_tail();
        }
        self.closed = true;
    }

    /// Whether `close` was called.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Segments available for the next wave: retransmissions plus complete new segments.
    pub fn available(&self) -> u64 {
        self.rtx.len() as u64 + (self.filled - self.next_new)
    }

    fn enough_for_wave(&self, cfg: &WwpConfig) -> bool {
        let a = self.available();
        a >= u64::from(cfg.wave_size(1)) || (self.closed && a > 0)
    }

    fn last_seq(&self) -> u16 {
        if self.filled == 0 {
            self.space.isn.wrapping_sub(1) & SEQ_MASK
        } else {
            self.space.wire(self.filled - 1)
        }
    }

    fn start_probe(&mut self, now: Time, cfg: &WwpConfig, wave_id: u8, out: &mut Outbox, stats: &mut WwpStats) {
        self.probe_wave_id = wave_id;
        self.state = SendState::Probing;
        stats.probe_cycles += 1;
        let send = self.probe.start(now, cfg.send_t);
        self.push_probe(send, out);
    }

    fn push_probe(&self, send: ProbeSend, out: &mut Outbox) {
        let (kind, seq) = match send {
            ProbeSend::Probe1(id) => (WwpType::Probe1, id),
            ProbeSend::Probe2(id) => (WwpType::Probe2, id),
        };
        out.push(Ctl { kind, seq, level: 0, wave_id: self.probe_wave_id });
    }

    /// Write the next DATA segment into `buf` if one is due (composing a wave when ready);
    /// control segments it decides on (FIN, PROBE1) go to `out`. Returns the segment length.
    pub fn poll_data(
        &mut self,
        now: Time,
        cfg: &WwpConfig,
        ports: (u8, u8),
        out: &mut Outbox,
        stats: &mut WwpStats,
        buf: &mut Vec<u8>,
    ) -> Option<usize> {
        if self.state == SendState::Deferred {
            if self.enough_for_wave(cfg) {
                self.start_probe(now, cfg, self.wave_id, out, stats);
            } else if self.closed && self.available() == 0 {
                self.state = SendState::Ready;
            }
        }
        if self.state == SendState::Ready {
            let avail = self.available();
            if avail == 0 {
                if self.closed {
                    if !self.fin_sent {
                        out.push(Ctl { kind: WwpType::Fin, seq: self.last_seq(), level: 0, wave_id: self.wave_id });
                        self.fin_sent = true;
                    }
                    self.state = SendState::FinWait { deadline: now + cfg.send_t };
                }
                return None;
            }
            let feasible = (1..=self.level).rev().find(|&k| u64::from(cfg.wave_size(k)) <= avail);
            let (level, count) = match feasible {
                Some(k) => (k, cfg.wave_size(k)),
                None if self.closed => (cfg.short_wave_level, avail as u16),
                None => return None,
            };
            let rtx_count = self.rtx.len().min(usize::from(count));
            self.wave = Wave {
                level,
                wave_id: self.wave_id,
                rtx_pos: 0,
                rtx_count,
                new_left: count - rtx_count as u16,
            };
            stats.waves_sent[usize::from(level)] += 1;
            self.state = SendState::Sending;
        }
        if self.state != SendState::Sending {
            return None;
        }
        let n = if self.wave.rtx_pos < self.wave.rtx_count {
            self.wave.rtx_pos += 1;
            self.rtx[self.wave.rtx_pos - 1]
        } else {
            self.wave.new_left -= 1;
            self.next_new += 1;
            self.next_new - 1
        };
        let slot = usize::from(self.slot_of[(n % SPAN) as usize]);
        let len = usize::from(self.lens[slot]);
        let payload = &self.data[slot * self.seg_size..slot * self.seg_size + len];
        let header = WwpHeader {
            src_port: ports.0,
            dst_port: ports.1,
            seq: self.space.wire(n),
            kind: WwpType::Data,
            level: self.wave.level,
            wave_id: self.wave.wave_id,
        };
        let wire_len = encode_wwp(&header, payload, buf);
        if n < self.snd_max {
            stats.retransmitted_segments += 1;
            stats.retransmitted_bytes += len as u64;
        } else {
            stats.original_data_bytes += len as u64;
            self.snd_max = n + 1;
        }
        if self.wave.rtx_pos == self.wave.rtx_count && self.wave.new_left == 0 {
            if self.closed && self.next_new == self.filled {
                out.push(Ctl { kind: WwpType::Fin, seq: self.last_seq(), level: 0, wave_id: self.wave_id });
                self.fin_sent = true;
            }
            self.state = SendState::AwaitAck { deadline: now + cfg.send_t };
        }
        Some(wire_len)
    }

    /// An N-S_ACK or P-S_ACK arrived. Returns whether it was accepted (stale ones are ignored:
    /// N-S_ACKs once a probe cycle runs or for another wave, P-S_ACKs of another cycle).
    #[allow(clippy::too_many_arguments)]
    pub fn on_feedback(
        &mut self,
        kind: WwpType,
        seq: u16,
        level: u8,
        wave_id: u8,
        nack: NackIter<'_>,
        now: Time,
        cfg: &WwpConfig,
    ) -> bool {
        let accepted = match kind {
            WwpType::NsAck => {
                matches!(self.state, SendState::AwaitAck { .. }) && wave_id == next_wave_id(self.wave.wave_id)
            }
            WwpType::PsAck => self.state == SendState::Probing && self.probe.accept_ps_ack(seq),
            _ => false,
        };
        if !accepted {
            return false;
        }
        let Some(term) = nack.clone().last() else { return false };
        let term_n = self
            .space
            .unwrap(term, self.base)
            .unwrap_or(self.base)
            .clamp(self.base, self.snd_max)
            .max(self.acked_upto);
        std::mem::swap(&mut self.rtx, &mut self.old_rtx);
        self.rtx.clear();
        let count = nack.len().saturating_sub(1);
        for e in nack.take(count) {
            let Some(n) = self.space.unwrap(e, self.base) else { continue };
            if self.held(n) && n < term_n && !matches!(self.rtx.last(), Some(&p) if p >= n) {
                self.rtx.push(n);
            }
        }
        // Free what the list shows delivered: earlier retransmissions no longer listed, and
        // the segments between the previous terminator and this one that are not listed.
        for i in 0..self.old_rtx.len() {
            let n = self.old_rtx[i];
            if self.rtx.binary_search(&n).is_err() {
                self.release(n);
            }
        }
        for n in self.acked_upto..term_n {
            if self.rtx.binary_search(&n).is_err() {
                self.release(n);
            }
        }
        self.acked_upto = term_n;
        self.next_new = term_n;
        self.base = self.rtx.first().copied().unwrap_or(term_n);
        self.level = level.min(3);
        self.wave_id = wave_id & 0x3f;
        self.state = if self.level == 0 { SendState::Pause { until: now + cfg.pause } } else { SendState::Ready };
        true
    }

    /// A PROBE_ACK arrived; returns whether it advanced the probe cycle (else it was stale).
    pub fn on_probe_ack(&mut self, id: u16, now: Time, cfg: &WwpConfig, out: &mut Outbox) -> bool {
        if self.state != SendState::Probing {
            return false;
        }
        match self.probe.on_probe_ack(id, now, cfg.send_t) {
            Some(send) => {
                self.push_probe(send, out);
                true
            }
            None => false,
        }
    }

    /// The peer acknowledged our FIN (it does so only once it holds all our data).
    pub fn on_fin_ack(&mut self) -> bool {
        if !self.fin_sent || self.state == SendState::Done {
            return false;
        }
        self.probe.stop();
        for n in self.base..self.filled {
            self.release(n);
        }
        self.rtx.clear();
        self.base = self.filled;
        self.acked_upto = self.filled;
        self.next_new = self.filled;
        self.state = SendState::Done;
        true
    }

    /// The earliest timer: SEND_T, the pause, or the probe cycle's SEND_T.
    pub fn deadline(&self) -> Option<Time> {
        match self.state {
            SendState::AwaitAck { deadline } | SendState::FinWait { deadline } => Some(deadline),
            SendState::Pause { until } => Some(until),
            SendState::Probing => self.probe.deadline(),
            _ => None,
        }
    }

    /// Timers due at `now`: SEND_T after a wave starts a probe cycle, the end of a pause starts
    /// one (or defers it without data), SEND_T in a cycle retries, SEND_T after FIN resends it.
    pub fn on_timeout(&mut self, now: Time, cfg: &WwpConfig, out: &mut Outbox, stats: &mut WwpStats) {
        match self.state {
            SendState::AwaitAck { deadline } if now >= deadline => {
                self.start_probe(now, cfg, next_wave_id(self.wave.wave_id), out, stats);
            }
            SendState::Pause { until } if now >= until => {
                if self.enough_for_wave(cfg) {
                    self.start_probe(now, cfg, self.wave_id, out, stats);
                } else {
                    self.state = SendState::Deferred;
                }
            }
            SendState::Probing if self.probe.deadline().is_some_and(|d| now >= d) => {
                let restart = matches!(self.probe.phase(), super::probe::ProbePhase::AwaitPsAck { .. });
                if let Some(send) = self.probe.on_timeout(now, cfg.send_t) {
                    if restart {
                        stats.probe_cycles += 1;
                    }
                    self.push_probe(send, out);
                }
            }
            SendState::FinWait { deadline } if now >= deadline => {
                out.push(Ctl { kind: WwpType::Fin, seq: self.last_seq(), level: 0, wave_id: self.wave_id });
                self.state = SendState::FinWait { deadline: now + cfg.send_t };
            }
            _ => {}
        }
    }
}

impl Sender {
    /// Our initial sequence number.
    pub fn isn(&self) -> u16 {
        self.space.isn
    }
}

impl Sender {
    fn held(&self, n: u64) -> bool {
        n >= self.base && n < self.filled && self.slot_of[(n % SPAN) as usize] != NO_SLOT
    }

    fn release(&mut self, n: u64) {
        if self.held(n) {
            let i = (n % SPAN) as usize;
            self.free.push(self.slot_of[i]);
            self.slot_of[i] = NO_SLOT;
        }
    }
}
