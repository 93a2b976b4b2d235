//! A-MSDU inside A-MPDU (IEEE 802.11-2020 §9.3.2.2, §10.12): with `QosConfig::amsdu` set, the
//! A-MPDU being built packs consecutive new MSDUs for its receiver into one MPDU while the
//! A-MSDU stays within the limit (`core::wlan::amsdu`), the A-MPDU within its own limits, and
//! the count of MSDUs within what the AP may release.
//!
//! The MSDUs of one MPDU share its sequence number: they are one MPDU for the Block Ack window,
//! the bitmap, the error draw (the whole MPDU's length) and the retry count, and they are
//! acknowledged, retransmitted and dropped together. A retransmitted MPDU keeps its MSDUs (the
//! same frames with that sequence number), so it is measured before it is added. Each MSDU
//! stays its own queue entry, so nothing is allocated per MPDU.

use super::ampdu::with_subframe;
use super::{Body, Bss, StaId, AP, NO_SEQ};
use wattlab_core::wlan::amsdu::{self, AMSDU_MPDU_OVERHEAD_BYTES};
use wattlab_core::wlan::phy::{DATA_OVERHEAD_BYTES, QOS_EXTRA_BYTES};

/// Size of one data MPDU as its MSDUs are added: a plain MPDU with one, an A-MSDU with more.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MpduSize {
    /// MSDUs so far.
    pub msdus: u32,
    /// Bytes of the A-MSDU they would make.
    amsdu: u32,
    /// Bytes of the first MSDU as a plain QoS data MPDU.
    plain: u32,
}

impl MpduSize {
    /// The size once an MSDU of an `ip_bytes` packet is added.
    #[inline]
    pub(crate) fn with(self, ip_bytes: u32) -> MpduSize {
        if self.msdus == 0 {
            MpduSize { msdus: 1, amsdu: amsdu::subframe_bytes(ip_bytes), plain: ip_bytes + DATA_OVERHEAD_BYTES + QOS_EXTRA_BYTES }
        } else {
            MpduSize { msdus: self.msdus + 1, amsdu: amsdu::with_subframe(self.amsdu, ip_bytes), plain: self.plain }
        }
    }

    /// Bytes of the MPDU (0 with no MSDU).
    #[inline]
    pub(crate) fn bytes(&self) -> u32 {
        match self.msdus {
            0 => 0,
            1 => self.plain,
            _ => self.amsdu + AMSDU_MPDU_OVERHEAD_BYTES,
        }
    }
}

/// The A-MPDU an A-MSDU fill may build: receiver, window end, byte cap and MSDU allowance.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FillLimits {
    /// Receiver.
    pub to: StaId,
    /// Access category (its TID's flow).
    pub ac: u8,
    /// First sequence number outside the Block Ack window.
    pub window_end: u32,
    /// Largest A-MPDU (bytes) within the length, time and TXOP limits.
    pub cap: u32,
    /// Most MSDUs the sender may put in it (what the AP may release, a probe's 1).
    pub allowance: u32,
    /// Largest A-MSDU (bytes).
    pub max_amsdu: u32,
}

/// What an A-MSDU fill put in the A-MPDU.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Filled {
    /// MSDUs (queue entries) marked in flight.
    pub msdus: u32,
    /// MPDUs (sequence numbers) they make.
    pub mpdus: u32,
    /// Bytes of the A-MPDU.
    pub psdu: u32,
    /// The first MSDU's tag.
    pub tag: u32,
}

impl Bss {
    /// Largest A-MSDU this MAC builds (bytes), 0 without A-MSDU.
    #[inline]
    pub(crate) fn amsdu_limit(&self) -> u32 {
        self.cfg.qos.and_then(|q| q.amsdu).unwrap_or(0)
    }

    /// Bytes of the MPDU that starts with queue entry `i` of `sta`'s data frames: the frame
    /// alone, or, sent before in an A-MSDU, all of that A-MSDU's entries still queued.
    pub(crate) fn head_mpdu_bytes(&self, sta: StaId, i: usize) -> u32 {
        let f = &self.stas[sta as usize].queue[i];
        if self.amsdu_limit() == 0 || f.ba.seq == NO_SEQ || !matches!(f.body, Body::Data(_)) {
            return self.mpdu_len(f);
        }
        let lim = FillLimits { to: f.to, ac: f.ac, window_end: 0, cap: 0, allowance: 0, max_amsdu: 0 };
        self.sent_mpdu(sta, i, &lim, f.ba.seq).bytes()
    }

    /// The MSDUs of the MPDU with sequence number `seq` that `sta` sent in the flow of `lim`
    /// before, from queue index `k` on: their count and the MPDU's size.
    fn sent_mpdu(&self, sta: StaId, k: usize, lim: &FillLimits, seq: u32) -> MpduSize {
        let mut size = MpduSize::default();
        for f in self.stas[sta as usize].queue.range(k..) {
            if f.to != lim.to || f.ac != lim.ac || f.ba.acked {
                continue;
            }
            match &f.body {
                Body::Data(p) if f.ba.seq == seq => size = size.with(p.ip_len()),
                _ => break,
            }
        }
        size
    }

    /// Fills the A-MPDU `sta` sends from queue index `head` with A-MSDUs within `lim`:
    /// retransmitted MPDUs whole and first, then new MSDUs packed into MPDUs numbered from
    /// `*next`. Marks the MSDUs in flight and counts their attempts.
    pub(crate) fn fill_amsdus(&mut self, sta: StaId, head: usize, lim: FillLimits, next: &mut u32) -> Filled {
        let to = lim.to;
        let mut fill = Filled::default();
        // The MPDU of new MSDUs being built: its sequence number, size and the A-MPDU before it.
        let mut open: Option<(u32, MpduSize, u32)> = None;
        let mut k = head;
        while k < self.stas[sta as usize].queue.len() {
            let f = &self.stas[sta as usize].queue[k];
            if f.to != to || f.ac != lim.ac || f.ba.acked {
                k += 1;
                continue;
            }
            let Body::Data(packet) = &f.body else { break };
            let ip = packet.ip_len();
            if f.ba.seq != NO_SEQ {
                // A retransmission: its MPDU goes whole or not at all.
                let seq = f.ba.seq;
                let size = self.sent_mpdu(sta, k, &lim, seq);
                let bytes = with_subframe(fill.psdu, size.bytes());
                if seq >= lim.window_end || (fill.msdus > 0 && (fill.msdus + size.msdus > lim.allowance || bytes > lim.cap)) {
                    break;
                }
                fill.psdu = bytes;
                fill.mpdus += 1;
                k = self.send_msdus(sta, k, seq, size.msdus, &mut fill) + 1;
                continue;
            }
            if fill.msdus >= lim.allowance {
                break;
            }
            if let Some((seq, size, before)) = open {
                let grown = size.with(ip);
                let bytes = with_subframe(before, grown.bytes());
                if grown.amsdu <= lim.max_amsdu && bytes <= lim.cap {
                    open = Some((seq, grown, before));
                    fill.psdu = bytes;
                    k = self.send_msdus(sta, k, seq, 1, &mut fill) + 1;
                    continue;
                }
            }
            let (seq, size) = (*next, MpduSize::default().with(ip));
            let bytes = with_subframe(fill.psdu, size.bytes());
            if seq >= lim.window_end || (fill.msdus > 0 && bytes > lim.cap) {
                break;
            }
            open = Some((seq, size, fill.psdu));
            *next += 1;
            fill.psdu = bytes;
            fill.mpdus += 1;
            k = self.send_msdus(sta, k, seq, 1, &mut fill) + 1;
        }
        let s = &mut self.stas[sta as usize].stats;
        s.ampdu_msdus += fill.msdus as u64;
        fill
    }

    /// Marks `count` MSDUs of `sta`'s flow of queue entry `k` (its receiver and AC), from `k`
    /// on, as sent in the MPDU `seq`; returns the index of the last one.
    fn send_msdus(&mut self, sta: StaId, mut k: usize, seq: u32, count: u32, fill: &mut Filled) -> usize {
        let (to, ac) = (self.stas[sta as usize].queue[k].to, self.stas[sta as usize].queue[k].ac);
        let mut left = count;
        loop {
            let Bss { stas, out, ap_queue, report_transmits, .. } = self;
            let s = &mut stas[sta as usize];
            let f = &mut s.queue[k];
            if f.to == to && f.ac == ac && !f.ba.acked {
                let Body::Data(packet) = f.body else { unreachable!("an MPDU holds data MSDUs") };
                if fill.msdus == 0 {
                    fill.tag = f.tag;
                }
                f.ba.seq = seq;
                f.ba.inflight = true;
                f.ba.tries += 1;
                if sta == AP {
                    ap_queue.served(f.finish);
                }
                s.stats.bytes_attempted += packet.ip_len() as u64;
                if f.ba.tries > 1 {
                    // One MPDU sent again, counted at its first MSDU.
                    s.stats.ba_retries += (left == count) as u64;
                } else if *report_transmits {
                    out.push_back(super::MacOutput::Transmit { sta, to, packet });
                }
                fill.msdus += 1;
                left -= 1;
                if left == 0 {
                    return k;
                }
            }
            k += 1;
        }
    }
}
