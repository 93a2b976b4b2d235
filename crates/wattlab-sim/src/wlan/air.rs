//! The frames on the air, as a monitor on the channel sees them: a record per MPDU (or
//! control frame) each exchange puts on the medium, with the fields an 802.11 capture shows
//! (kind, addresses, TX vector, retry, PM, More Data, sequence number, A-MPDU membership).
//!
//! Off unless a radiotap capture is asked for ([`Bss::log_air`]): every place that puts a
//! frame on the air then tests one `Option` and builds nothing. The simulator drains the log
//! after each call into the MAC (`sim/wlan_glue.rs`) and writes the frames in log order, which
//! is time order: an exchange is laid out in full when it starts and the medium is busy until
//! it ends, so the next exchange's frames are later.

use super::{Ac, Body, Bss, Frame, StaId, AP};
use wattlab_core::power::PowerSave;
use wattlab_core::wlan::TxVector;
use wattlab_core::{Duration, Packet, Time};

/// What kind of 802.11 frame a record is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AirKind {
    /// A data frame (a QoS data frame on the QoS MAC) with one or more MSDUs.
    Data,
    /// A (QoS) Null frame: a U-APSD trigger, a PM change, a TB PPDU with nothing to send.
    Null,
    /// An ACK.
    Ack,
    /// An RTS.
    Rts,
    /// A CTS.
    Cts,
    /// A PS-Poll.
    PsPoll,
    /// The AP's beacon.
    Beacon,
    /// A compressed Block Ack.
    BlockAck,
    /// A compressed BlockAckReq.
    BlockAckReq,
    /// An ADDBA Request action frame.
    AddBaRequest,
    /// An ADDBA Response action frame.
    AddBaResponse,
    /// A TWT Setup action frame, from the station (request) or the AP (response).
    TwtSetup,
    /// A Basic Trigger frame.
    Trigger,
}

/// One frame on the air.
#[derive(Clone, Debug)]
pub struct AirFrame {
    /// When its PPDU starts.
    pub start: Time,
    /// Its PPDU's airtime (the whole A-MPDU's for an MPDU of one).
    pub dur: Duration,
    /// Transmitter.
    pub from: StaId,
    /// Receiver ([`BROADCAST`] for a beacon).
    pub to: StaId,
    /// Frame kind.
    pub kind: AirKind,
    /// How its PPDU was sent (control and management frames: non-HT at their rate).
    pub tx: TxVector,
    /// MPDU length on the air, FCS included, as the model charges it.
    pub mpdu_bytes: u32,
    /// Retry bit: a retransmission of a data, Null or management frame.
    pub retry: bool,
    /// Power Management bit.
    pub pm: bool,
    /// More Data bit (the AP holds more frames for the receiver).
    pub more_data: bool,
    /// A QoS data or QoS-Null frame (QoS Control field present).
    pub qos: bool,
    /// Its TID (QoS frames, Block Ack frames).
    pub tid: u8,
    /// Sequence number (12 bits); for a Block Ack or BlockAckReq its starting sequence number.
    pub seq: u16,
    /// A-MPDU reference number and whether this MPDU is its last.
    pub ampdu: Option<(u32, bool)>,
    /// The addressee did not receive it (a frame error or a collision): the capture marks
    /// its FCS bad.
    pub lost: bool,
    /// A data frame's MSDUs (more than one: an A-MSDU).
    pub msdus: Vec<Packet>,
    /// A beacon's TIM (the AIDs the AP holds frames for); a Block Ack's bitmap bits set.
    pub bits: Vec<u16>,
    /// A TWT Setup frame's agreement (the station's mode).
    pub twt: Option<wattlab_core::power::TwtAgreement>,
    /// Sent as an HE TB PPDU: the station's answer to the AP's Basic Trigger.
    pub tb: bool,
}

/// Receiver of a broadcast frame.
pub const BROADCAST: StaId = StaId::MAX;

/// The log of frames on the air and what numbering it keeps.
#[derive(Debug, Default)]
pub struct AirLog {
    /// Frames not yet taken by the host.
    pub frames: Vec<AirFrame>,
    /// Per station and AC: (id of the last single frame numbered, its sequence number).
    seqs: Vec<[(u64, u16); 4]>,
    /// Per station: next sequence number outside Block Ack agreements.
    next_seq: Vec<u16>,
    /// A-MPDUs so far (their reference numbers).
    ampdus: u32,
}

impl AirLog {
    /// A log for a BSS of `n` stations.
    pub fn new(n: usize) -> AirLog {
        AirLog { frames: Vec::new(), seqs: vec![[(u64::MAX, 0); 4]; n], next_seq: vec![0; n], ampdus: 0 }
    }

    /// The sequence number of single frame `id` of `sta`'s AC `ac` (a retransmission keeps
    /// its first attempt's).
    fn seq_of(&mut self, sta: StaId, ac: usize, id: u64) -> u16 {
        let (last, seq) = self.seqs[sta as usize][ac];
        if last == id {
            return seq;
        }
        let seq = self.next_management_seq(sta);
        self.seqs[sta as usize][ac] = (id, seq);
        seq
    }

    /// The next sequence number of `sta` outside Block Ack agreements.
    fn next_management_seq(&mut self, sta: StaId) -> u16 {
        let s = &mut self.next_seq[sta as usize];
        let seq = *s;
        *s = (*s + 1) & 0x0fff;
        seq
    }

    /// Appends `f`; true if the log was empty (the host must be told).
    fn push(&mut self, f: AirFrame) -> bool {
        self.frames.push(f);
        self.frames.len() == 1
    }

    /// A new A-MPDU reference number.
    fn next_ampdu(&mut self) -> u32 {
        self.ampdus = self.ampdus.wrapping_add(1);
        self.ampdus
    }
}

/// A record with every optional field empty.
fn frame(start: Time, dur: Duration, from: StaId, to: StaId, kind: AirKind, tx: TxVector, mpdu_bytes: u32) -> AirFrame {
    AirFrame {
        start,
        dur,
        from,
        to,
        kind,
        tx,
        mpdu_bytes,
        retry: false,
        pm: false,
        more_data: false,
        qos: false,
        tid: 0,
        seq: 0,
        ampdu: None,
        lost: false,
        msdus: Vec::new(),
        bits: Vec::new(),
        twt: None,
        tb: false,
    }
}

/// The TID of an access category (802.11-2020 Table 10-1: the first UP of each AC).
fn tid_of_ac(ac: u8) -> u8 {
    match ac {
        x if x == Ac::Bk as u8 => 1,
        x if x == Ac::Vi as u8 => 5,
        x if x == Ac::Vo as u8 => 6,
        _ => 0,
    }
}

impl Bss {
    /// Starts logging the frames on the air (a radiotap capture of this BSS).
    pub fn enable_air_log(&mut self) {
        self.air = Some(Box::new(AirLog::new(self.stas.len())));
    }

    /// The frames logged since the last call, oldest first (none when the log is off).
    pub fn take_air(&mut self) -> Option<&mut Vec<AirFrame>> {
        self.air.as_mut().map(|a| &mut a.frames).filter(|f| !f.is_empty())
    }

    /// True while frames on the air are logged.
    #[inline(always)]
    pub(crate) fn logs_air(&self) -> bool {
        self.air.is_some()
    }

    /// Logs a control frame `kind` of `bytes` from `from` to `to` over `[start, start + dur)`,
    /// sent at the control rate answering `from` ↔ `to`'s data.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn log_control(&mut self, kind: AirKind, from: StaId, to: StaId, start: Time, dur: Duration, bytes: u32, lost: bool) {
        if self.air.is_some() {
            self.push_control(kind, from, to, start, dur, bytes, lost, None, None);
        }
    }

    /// [`Bss::log_control`] with the extra fields of a Block Ack frame or an action frame, and
    /// the rate it was sent at when it is not the control rate answering `from` ↔ `to`'s data
    /// (a set-up exchange's, at the lowest basic rate).
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push_control(&mut self, kind: AirKind, from: StaId, to: StaId, start: Time, dur: Duration, bytes: u32, lost: bool, ba: Option<(u8, u16, Vec<u16>)>, kbps: Option<u32>) {
        let (a, b) = if from == AP { (from, to) } else { (to, from) };
        let kbps = kbps.unwrap_or_else(|| self.cfg.phy.response_kbps(self.tx_vector(a, b)));
        let mut f = frame(start, dur, from, to, kind, TxVector::Legacy { kbps }, bytes);
        f.lost = lost;
        // A station's PS-Poll and management frames show its PM bit (control responses and
        // BlockAckReqs reserve the field).
        let shows_pm = matches!(kind, AirKind::PsPoll | AirKind::AddBaRequest | AirKind::AddBaResponse);
        f.pm = shows_pm && from != AP && self.stas[from as usize].power.pm_bit();
        if matches!(kind, AirKind::AddBaRequest | AirKind::AddBaResponse | AirKind::TwtSetup | AirKind::Trigger) {
            let air = self.air.as_mut().expect("logging");
            f.seq = if matches!(kind, AirKind::Trigger) { 0 } else { air.next_management_seq(from) };
        }
        if let Some((tid, ssn, bits)) = ba {
            f.tid = tid;
            if matches!(kind, AirKind::BlockAck | AirKind::BlockAckReq) {
                (f.seq, f.bits) = (ssn, bits);
            }
        }
        self.air_push(f);
    }

    /// Logs queued `frame` sent by `sta` over `[start, start + dur)` as one PPDU (data, Null
    /// or TWT Setup); `lost` if it did not arrive.
    #[inline]
    pub(crate) fn log_frame(&mut self, sta: StaId, frame: &Frame, start: Time, dur: Duration, lost: bool) {
        if self.air.is_some() {
            self.push_frame_record(sta, frame, start, dur, lost);
        }
    }

    #[cold]
    #[inline(never)]
    fn push_frame_record(&mut self, sta: StaId, fr: &Frame, start: Time, dur: Duration, lost: bool) {
        let to = fr.to;
        let bytes = self.mpdu_len(fr);
        let retry = self.stas[sta as usize].edcaf_ref().retries > 0;
        let (kind, tx) = match fr.body {
            Body::Data(_) => (AirKind::Data, self.tx_vector(sta, to)),
            Body::Null(_) => (AirKind::Null, self.tx_vector(sta, to)),
            Body::TwtSetup { .. } => {
                let (a, b) = if sta == AP { (sta, to) } else { (to, sta) };
                (AirKind::TwtSetup, TxVector::Legacy { kbps: self.cfg.phy.response_kbps(self.tx_vector(a, b)) })
            }
        };
        let mut f = frame(start, dur, sta, to, kind, tx, bytes);
        (f.retry, f.lost) = (retry, lost);
        f.pm = self.pm_of(sta, fr);
        f.more_data = sta == AP && self.held_for(to, fr.id) > 0;
        f.tb = self.responding == Some(sta);
        match fr.body {
            Body::Data(p) => {
                f.qos = self.cfg.qos.is_some();
                f.tid = if f.qos { tid_of_ac(fr.ac) } else { 0 };
                f.msdus.push(p);
            }
            // The model charges every Null frame as a QoS-Null (NULL_FRAME_BYTES).
            Body::Null(_) => (f.qos, f.tid) = (true, tid_of_ac(fr.ac)),
            Body::TwtSetup { .. } => {
                let s = if sta == AP { to } else { sta };
                if let PowerSave::Twt(a) = self.stas[s as usize].power.mode() {
                    f.twt = Some(a);
                }
            }
        }
        let air = self.air.as_mut().expect("logging");
        f.seq = if matches!(fr.body, Body::TwtSetup { .. }) { air.next_management_seq(sta) } else { air.seq_of(sta, fr.ac as usize, fr.id) };
        self.air_push(f);
    }

    /// Logs `f`, telling the host when the log stops being empty.
    fn air_push(&mut self, f: AirFrame) {
        if self.air.as_mut().expect("logging").push(f) {
            self.out.push_back(super::MacOutput::AirFrames);
        }
    }

    /// The PM bit of `frame` from `sta`: a PM Null frame's own, else the station's.
    fn pm_of(&self, sta: StaId, frame: &Frame) -> bool {
        match frame.body {
            _ if sta == AP => false,
            Body::Null(Some(pm)) => pm,
            _ => self.stas[sta as usize].power.pm_bit(),
        }
    }

    /// Frames the AP holds for `to` besides frame `id` (More Data).
    fn held_for(&self, to: StaId, id: u64) -> usize {
        self.stas[AP as usize].queue.iter().filter(|f| f.to == to && f.id != id && !f.ba.acked && !f.ba.inflight).count()
    }

    /// Logs the AP's beacon over `[start, start + dur)`, its TIM listing the power-saving
    /// stations the AP holds frames for.
    #[inline]
    pub(crate) fn log_beacon(&mut self, start: Time, dur: Duration) {
        if self.air.is_some() {
            self.push_beacon(start, dur);
        }
    }

    #[cold]
    #[inline(never)]
    fn push_beacon(&mut self, start: Time, dur: Duration) {
        let kbps = self.cfg.phy.basic_rates_kbps[0];
        let mut f = frame(start, dur, AP, BROADCAST, AirKind::Beacon, TxVector::Legacy { kbps }, self.cfg.beacon_bytes);
        f.bits = (1..self.stas.len() as StaId)
            .filter(|&i| self.stas[i as usize].power.mode().saves_power() && !self.ap_may_send(i))
            .filter(|&i| self.stas[AP as usize].queue.iter().any(|q| q.to == i && !q.ba.acked))
            .collect();
        let air = self.air.as_mut().expect("logging");
        f.seq = air.next_management_seq(AP);
        self.air_push(f);
    }

    /// Logs the A-MPDU `sta` sends `to` over `[start, start + dur)`: one record per MPDU in
    /// flight (its MSDUs together), in sequence order; `received` is the recipient's bitmap
    /// from `ssn` (None: the PPDU collided and nothing arrived).
    #[inline]
    pub(crate) fn log_ampdu(&mut self, sta: StaId, to: StaId, start: Time, dur: Duration, ssn: u32, received: Option<[u64; 4]>) {
        if self.air.is_some() {
            self.push_ampdu(sta, to, start, dur, ssn, received);
        }
    }

    #[cold]
    #[inline(never)]
    fn push_ampdu(&mut self, sta: StaId, to: StaId, start: Time, dur: Duration, ssn: u32, received: Option<[u64; 4]>) {
        let tx = self.tx_vector(sta, to);
        let qos_extra = self.data_extra_bytes();
        let mut out: Vec<AirFrame> = Vec::new();
        let pm = if sta == AP { false } else { self.stas[sta as usize].power.pm_bit() };
        for f in self.stas[sta as usize].queue.iter().filter(|f| f.ba.inflight && f.to == to) {
            let Body::Data(p) = f.body else { continue };
            if let Some(last) = out.last_mut().filter(|l| l.seq == (f.ba.seq & 0x0fff) as u16) {
                last.msdus.push(p);
                continue;
            }
            let mut r = frame(start, dur, sta, to, AirKind::Data, tx, 0);
            (r.qos, r.tid, r.seq, r.pm) = (true, tid_of_ac(f.ac), (f.ba.seq & 0x0fff) as u16, pm);
            r.tb = self.responding == Some(sta);
            r.retry = f.ba.tries > 1;
            let bit = f.ba.seq.wrapping_sub(ssn) as usize;
            r.lost = received.is_none_or(|w| bit >= 256 || w[bit / 64] >> (bit % 64) & 1 == 0);
            r.msdus.push(p);
            out.push(r);
        }
        for r in &mut out {
            r.mpdu_bytes = match r.msdus.len() {
                1 => r.msdus[0].ip_len() + wattlab_core::wlan::phy::DATA_OVERHEAD_BYTES + qos_extra,
                _ => {
                    let amsdu = r.msdus.iter().fold(0, |a, p| wattlab_core::wlan::amsdu::with_subframe(a, p.ip_len()));
                    amsdu + wattlab_core::wlan::amsdu::AMSDU_MPDU_OVERHEAD_BYTES
                }
            };
        }
        if sta == AP {
            let held = self.held_for(to, u64::MAX);
            if let Some(last) = out.last_mut() {
                last.more_data = held > 0;
            }
        }
        let air = self.air.as_mut().expect("logging");
        let reference = air.next_ampdu();
        let n = out.len();
        for (k, mut r) in out.into_iter().enumerate() {
            r.ampdu = Some((reference, k + 1 == n));
            self.air_push(r);
        }
    }

    /// The bits of `received` (from `ssn`) set, as offsets: a Block Ack's bitmap.
    pub(crate) fn ba_bits(received: [u64; 4]) -> Vec<u16> {
        (0..256u16).filter(|&b| received[b as usize / 64] >> (b % 64) & 1 == 1).collect()
    }

    /// The TID of `sta`'s current access (its Block Ack flow).
    pub(crate) fn current_tid(&self, sta: StaId) -> u8 {
        tid_of_ac(self.stas[sta as usize].cur as u8)
    }
}
