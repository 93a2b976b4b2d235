//! The receiving half of one direction: the 256-segment buffer with in-order, duplicate-free
//! delivery, wave timing (B(i), T(i), REC_T, the band rule), the cumulative NACK list with its
//! terminator, the answers to probes, and FIN_ACK.

use super::config::{ProbeInWave, WaveEnd, WwpConfig};
use super::level::{level_from_probe_rtt, level_from_wave_time};
use super::outbox::{Ctl, Outbox};
use super::probe::ProbeAckLog;
use super::seq::{next_wave_id, SeqSpace};
use super::stats::WwpStats;
use crate::time::{Duration, Time};
use crate::wire::wwp::WwpType;

/// Longest NACK list sent (entries before the terminator).
pub const MAX_NACK_ENTRIES: usize = 1024;

/// The wave being received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaveRx {
    /// Its wave id.
    pub wave_id: u8,
    /// Its level (from the DATA headers).
    pub level: u8,
    /// Arrival of its first segment.
    pub t0: Time,
    /// Baseline time B(level) at the current BT.
    pub baseline: Duration,
    /// REC_T expiry.
    pub deadline: Time,
    /// First new segment after this wave (the next terminator, before clamping).
    pub new_end: u64,
}

/// The receiving half of a WWP endpoint.
#[derive(Clone, Debug)]
pub struct Receiver {
    space: SeqSpace,
    seg_size: usize,
    cap: u64,
    data: Vec<u8>,
    lens: Vec<u16>,
    present: Vec<bool>,
    /// Oldest segment not fully read by the application, and the bytes of it already read.
    read_base: u64,
    read_off: usize,
    /// Bytes of `[read_base, rcv_nxt)` not yet read.
    unread: usize,
    /// First segment not yet received.
    rcv_nxt: u64,
    /// Highest segment received + 1.
    highest: u64,
    /// The terminator last sent: the first new segment of the next wave.
    term: u64,
    /// The NACK list last sent (terminator excluded), oldest first.
    last_list: Vec<u64>,
    /// The same list and its terminator as 12-bit wire numbers, for encoding.
    nack_wire: Vec<u16>,
    expected_wave_id: u8,
    wave: Option<WaveRx>,
    /// Segments of the current wave, in the order the sender sends them.
    expected: Vec<u64>,
    bt: u64,
    /// One past the last segment, once the peer's FIN told us.
    end: Option<u64>,
    fin_ack_due: bool,
    probe_log: ProbeAckLog,
    rtt_min: Option<Duration>,
    established: bool,
}

impl Receiver {
    /// A receiver with its buffer allocated (nothing is accepted before `establish`).
    pub fn new(cfg: &WwpConfig) -> Receiver {
        let cap = usize::from(cfg.recv_buffer_segments);
        let seg = usize::from(cfg.segment_size);
        Receiver {
            space: SeqSpace::new(0),
            seg_size: seg,
            cap: cap as u64,
            data: vec![0; cap * seg],
            lens: vec![0; cap],
            present: vec![false; cap],
            read_base: 0,
            read_off: 0,
            unread: 0,
            rcv_nxt: 0,
            highest: 0,
            term: 0,
            last_list: Vec::with_capacity(cap),
            nack_wire: Vec::with_capacity(cap + 1),
            expected_wave_id: 0,
            wave: None,
            expected: Vec::with_capacity(usize::from(cfg.wave_size(3))),
            bt: cfg.baseline_throughput,
            end: None,
            fin_ack_due: false,
            probe_log: ProbeAckLog::default(),
            rtt_min: None,
            established: false,
        }
    }

    /// The handshake is over: the peer's data starts at `peer_isn`, its first wave has `wave_id`.
    pub fn establish(&mut self, peer_isn: u16, wave_id: u8, rtt: Option<Duration>) {
        self.space = SeqSpace::new(peer_isn);
        self.expected_wave_id = wave_id & 0x3f;
        self.established = true;
        if let Some(r) = rtt {
            self.add_rtt_sample(r);
        }
    }

    /// Record an RTT sample (the handshake's); the smallest is the probe rule's base.
    pub fn add_rtt_sample(&mut self, rtt: Duration) {
        self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
    }

    /// The wave being received, if any.
    pub fn wave(&self) -> Option<&WaveRx> {
        self.wave.as_ref()
    }

    /// The current baseline throughput BT in bytes per second.
    pub fn baseline_throughput(&self) -> u64 {
        self.bt
    }

    /// The NACK list last decided (12-bit, terminator last), for N-S_ACK / P-S_ACK payloads.
    pub fn nack_wire(&self) -> &[u16] {
        &self.nack_wire
    }

    /// The id of the wave the receiver expects next.
    pub fn expected_wave_id(&self) -> u8 {
        self.expected_wave_id
    }

    /// In-order segments received (index of the first missing one).
    pub fn received_in_order(&self) -> u64 {
        self.rcv_nxt
    }

    fn received(&self, n: u64) -> bool {
        n < self.rcv_nxt || (n < self.read_base + self.cap && self.present[(n % self.cap) as usize])
    }

    /// A DATA segment arrived. Returns whether it brought new data.
    #[allow(clippy::too_many_arguments)]
    pub fn on_data(
        &mut self,
        now: Time,
        seq: u16,
        level: u8,
        wave_id: u8,
        payload: &[u8],
        cfg: &WwpConfig,
        out: &mut Outbox,
        stats: &mut WwpStats,
    ) -> bool {
        if !self.established {
            return false;
        }
        let n = self.space.unwrap(seq, self.rcv_nxt);
        let mut fresh = false;
        match n {
            Some(n) if self.received(n) => stats.duplicate_segments += 1,
            Some(n)
                if n >= self.read_base + self.cap
                    || self.end.is_some_and(|e| n >= e)
                    || payload.len() > self.seg_size =>
            {
                stats.dropped_segments += 1
            }
            Some(n) => {
                let slot = (n % self.cap) as usize;
                self.data[slot * self.seg_size..slot * self.seg_size + payload.len()].copy_from_slice(payload);
                self.lens[slot] = payload.len() as u16;
                self.present[slot] = true;
                self.highest = self.highest.max(n + 1);
                while self.rcv_nxt < self.read_base + self.cap && self.present[(self.rcv_nxt % self.cap) as usize] {
                    self.unread += usize::from(self.lens[(self.rcv_nxt % self.cap) as usize]);
                    self.rcv_nxt += 1;
                }
                fresh = true;
            }
            None => stats.duplicate_segments += 1,
        }
        if self.wave.is_none() && wave_id == self.expected_wave_id && level >= 1 {
            self.start_wave(now, level, wave_id, cfg);
        }
        if self.wave.is_some_and(|w| w.wave_id == wave_id) {
            self.check_wave(now, n, cfg, out, stats);
        }
        self.check_fin(out);
        fresh
    }

    fn start_wave(&mut self, now: Time, level: u8, wave_id: u8, cfg: &WwpConfig) {
        let w = usize::from(cfg.wave_size(level));
        let r = self.last_list.len().min(w);
        self.expected.clear();
        self.expected.extend_from_slice(&self.last_list[..r]);
        let new_end = self.term + (w - r) as u64;
        let stop = self.end.map_or(new_end, |e| new_end.min(e.max(self.term)));
        self.expected.extend(self.term..stop);
        self.wave = Some(WaveRx {
            wave_id,
            level,
            t0: now,
            baseline: cfg.baseline_time(level, self.bt),
            deadline: now + cfg.rec_t,
            new_end,
        });
    }

    fn check_wave(&mut self, now: Time, arrived: Option<u64>, cfg: &WwpConfig, out: &mut Outbox, stats: &mut WwpStats) {
        let Some(w) = self.wave else { return };
        let all = self.expected.iter().all(|&n| self.received(n));
        let last = cfg.wave_end == WaveEnd::LastSegment && arrived.is_some() && self.expected.last().copied() == arrived;
        if all || last {
            self.finish_wave(now, now.saturating_since(w.t0), cfg, out, stats);
        }
    }

    fn finish_wave(&mut self, now: Time, t: Duration, cfg: &WwpConfig, out: &mut Outbox, stats: &mut WwpStats) {
        let Some(w) = self.wave.take() else { return };
        let _ = now;
        let mut baseline = w.baseline;
        if cfg.adaptive_bt && t > Duration::ZERO {
            let bytes = w.baseline.as_nanos() as u128 * u128::from(self.bt) / 1_000_000_000;
            let thr = (bytes * 1_000_000_000 / u128::from(t.as_nanos())) as u64;
            if thr > self.bt {
                self.bt = thr;
                baseline = cfg.baseline_time(w.level, self.bt);
            }
        }
        let level = level_from_wave_time(t, baseline);
        self.end_wave(&w);
        self.build_list(stats);
        self.expected_wave_id = next_wave_id(w.wave_id);
        stats.level_decisions[usize::from(level)] += 1;
        out.push(Ctl { kind: WwpType::NsAck, seq: 0, level, wave_id: self.expected_wave_id });
    }

    /// The wave is over: the next terminator follows it (its missing segments are lost).
    fn end_wave(&mut self, w: &WaveRx) {
        let mut term = w.new_end.max(self.highest);
        if let Some(e) = self.end {
            term = term.min(e.max(self.rcv_nxt));
        }
        self.term = term.max(self.rcv_nxt);
    }

    /// Whether a probe naming `wave_id` is answered now: never while a wave of that id arrives;
    /// during another wave only under the paper's literal rule.
    fn answers_probe(&self, wave_id: u8, cfg: &WwpConfig) -> bool {
        self.established
            && self.wave.is_none_or(|w| cfg.probe_in_wave == ProbeInWave::Answer && w.wave_id != wave_id & 0x3f)
    }

    fn build_list(&mut self, stats: &mut WwpStats) {
        self.last_list.clear();
        self.nack_wire.clear();
        let mut n = self.rcv_nxt;
        while n < self.term && self.last_list.len() < MAX_NACK_ENTRIES {
            if !self.received(n) {
                self.last_list.push(n);
                self.nack_wire.push(self.space.wire(n));
            }
            n += 1;
        }
        self.nack_wire.push(self.space.wire(self.term));
        stats.nacked_segments += self.last_list.len() as u64;
    }

    /// A PROBE1 arrived: answer with a PROBE_ACK echoing its id, unless a wave is arriving
    /// (`ProbeInWave`).
    pub fn on_probe1(&mut self, now: Time, id: u16, wave_id: u8, cfg: &WwpConfig, out: &mut Outbox, stats: &mut WwpStats) {
        if !self.answers_probe(wave_id, cfg) {
            stats.stale_ignored += 1;
            return;
        }
        self.probe_log.record(id, now);
        out.push(Ctl { kind: WwpType::ProbeAck, seq: id, level: 0, wave_id });
    }

    /// A PROBE2 arrived: RTT from the matching PROBE_ACK, level by the probe rule, P-S_ACK
    /// with the current NACK list.
    pub fn on_probe2(&mut self, now: Time, id: u16, wave_id: u8, cfg: &WwpConfig, out: &mut Outbox, stats: &mut WwpStats) {
        let sent = if self.answers_probe(wave_id, cfg) { self.probe_log.sent_at(id) } else { None };
        let Some(sent) = sent else {
            stats.stale_ignored += 1;
            return;
        };
        if let Some(w) = self.wave.take() {
            // The literal rule: the sender gave up waiting for this wave's N-S_ACK; the P-S_ACK
            // below ends the wave instead (its missing segments are listed).
            self.end_wave(&w);
            stats.probe_ended_waves += 1;
        }
        let rtt = now.saturating_since(sent);
        self.add_rtt_sample(rtt);
        let base = self.rtt_min.unwrap_or(rtt);
        let level = level_from_probe_rtt(rtt, base, cfg.probe_rtt_epsilon, cfg.probe_level_cap);
        self.term = self.term.max(self.highest.min(self.end.unwrap_or(u64::MAX)));
        self.build_list(stats);
        self.expected_wave_id = wave_id & 0x3f;
        stats.level_decisions[usize::from(level)] += 1;
        out.push(Ctl { kind: WwpType::PsAck, seq: id, level, wave_id: self.expected_wave_id });
    }

    /// The peer's FIN arrived, naming its last data segment: FIN_ACK once everything up to it
    /// is here.
    pub fn on_fin(&mut self, now: Time, last_seq: u16, cfg: &WwpConfig, out: &mut Outbox, stats: &mut WwpStats) {
        if !self.established {
            return;
        }
        if self.end.is_none() {
            let end = self.space.unwrap(last_seq, self.rcv_nxt).map_or(0, |n| n + 1);
            let end = end.max(self.highest);
            self.end = Some(end);
            self.last_list.retain(|&n| n < end);
            self.expected.retain(|&n| n < end);
            if self.wave.is_some() {
                self.check_wave(now, None, cfg, out, stats);
            }
        }
        self.fin_ack_due = true;
        self.check_fin(out);
    }

    fn check_fin(&mut self, out: &mut Outbox) {
        if self.fin_ack_due && self.end.is_some_and(|e| self.rcv_nxt >= e) {
            self.fin_ack_due = false;
            out.push(Ctl { kind: WwpType::FinAck, seq: 0, level: 0, wave_id: self.expected_wave_id });
        }
    }

    /// REC_T expiry, if a wave is arriving.
    pub fn deadline(&self) -> Option<Time> {
        self.wave.map(|w| w.deadline)
    }

    /// REC_T fired: the missing segments are lost, T = REC_T, N-S_ACK.
    pub fn on_timeout(&mut self, now: Time, cfg: &WwpConfig, out: &mut Outbox, stats: &mut WwpStats) {
        if self.wave.is_some_and(|w| now >= w.deadline) {
            stats.rec_t_expiries += 1;
            self.finish_wave(now, cfg.rec_t, cfg, out, stats);
        }
    }

    /// Bytes ready for `read`.
    pub fn readable(&self) -> usize {
        self.unread
    }

    /// Copy in-order data into `buf`; returns the bytes copied.
    pub fn read(&mut self, buf: &mut [u8], stats: &mut WwpStats) -> usize {
        let mut copied = 0;
        while self.read_base < self.rcv_nxt {
            let slot = (self.read_base % self.cap) as usize;
            let len = usize::from(self.lens[slot]);
            let take = (len - self.read_off).min(buf.len() - copied);
            let at = slot * self.seg_size + self.read_off;
            buf[copied..copied + take].copy_from_slice(&self.data[at..at + take]);
            copied += take;
            self.read_off += take;
            if self.read_off < len {
                break;
            }
            self.present[slot] = false;
            self.read_base += 1;
            self.read_off = 0;
        }
        self.unread -= copied;
        stats.delivered_bytes += copied as u64;
        copied
    }

    /// The peer's FIN arrived and the application has read everything before it.
    pub fn peer_finished(&self) -> bool {
        self.end.is_some_and(|e| self.read_base >= e)
    }
}
