//! Broadcast TWT schedules read from the air (IEEE 802.11ax-2021 §9.4.2.199, §26.8.3): the
//! Broadcast TWT Parameter Sets of TWT elements (beacons announce schedules, negotiation type
//! 2; TWT Setup frames manage a station's membership, type 3), and the service periods' phase
//! they pin down.
//!
//! A broadcast set's Target Wake Time is 2 octets: bits 10-25 of the TSF at the schedule's
//! next service period (SP). The SP is therefore known to one TU (1024 µs) from one
//! announcement, its bits 0-9 read as 0. Every further announcement of the same schedule (each
//! beacon, the setup frames) narrows where the SPs can be: an SP is `phase + k × interval`,
//! and each announcement puts one SP in a 1024 µs window. [`Schedule`] intersects those
//! windows and takes the earliest phase consistent with all of them: exact when the SPs start
//! on TU boundaries, otherwise at most 1023 µs early and converging on the true phase as
//! announcements accumulate (how far depends on the interval modulo 1024 µs).

/// Element ID of the TWT element.
pub const TWT_ELEMENT_ID: u8 = 216;
/// Octets of one Broadcast TWT Parameter Set (Request Type 2, Target Wake Time 2, Nominal
/// Minimum TWT Wake Duration 1, TWT Wake Interval Mantissa 2, Broadcast TWT Info 2).
pub const BROADCAST_SET_BYTES: usize = 9;
/// Setup Command 4: Accept TWT.
pub const ACCEPT_TWT: u8 = 4;
/// The TWT element's Control: Negotiation Type's MSB, set for broadcast TWT.
const CONTROL_BROADCAST: u8 = 0x08;
/// The TWT element's Control: Wake Duration Unit (1 TU instead of 256 µs).
const CONTROL_DURATION_TU: u8 = 0x20;
/// A TU, µs: the resolution of a broadcast set's Target Wake Time.
pub const TU_US: u64 = 1024;

/// One Broadcast TWT Parameter Set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BroadcastSet {
    /// TWT Request (from the station).
    pub request: bool,
    /// TWT Setup Command (0 Request ... 4 Accept ...).
    pub command: u8,
    /// Broadcast TWT ID (Broadcast TWT Info B3-B7).
    pub id: u8,
    /// Target Wake Time: bits 10-25 of the TSF at the next SP.
    pub target_tu: u16,
    /// Nominal minimum wake duration, µs (× 256 µs, or × 1 TU with the unit bit).
    pub duration_us: u64,
    /// Wake interval, µs (mantissa × 2^exponent); 0 if it overflows.
    pub interval_us: u64,
}

/// The Broadcast TWT Parameter Sets of a TWT element's value (Control, then the sets); none
/// if the element is not a broadcast one. A set cut short ends the list.
pub fn broadcast_sets(value: &[u8]) -> impl Iterator<Item = BroadcastSet> + '_ {
    let control = value.first().copied().unwrap_or(0);
    let sets = if control & CONTROL_BROADCAST != 0 { &value[1..] } else { &[][..] };
    let unit = if control & CONTROL_DURATION_TU != 0 { TU_US } else { 256 };
    sets.chunks_exact(BROADCAST_SET_BYTES).map(move |s| {
        let req = u16::from_le_bytes([s[0], s[1]]);
        let exponent = u32::from((req >> 10) & 0x1f);
        let mantissa = u64::from(u16::from_le_bytes([s[5], s[6]]));
        BroadcastSet {
            request: req & 1 != 0,
            command: ((req >> 1) & 0x7) as u8,
            id: (u16::from_le_bytes([s[7], s[8]]) >> 3) as u8 & 0x1f,
            target_tu: u16::from_le_bytes([s[2], s[3]]),
            duration_us: u64::from(s[4]) * unit,
            interval_us: mantissa.checked_shl(exponent).filter(|i| i >> exponent == mantissa).unwrap_or(0),
        }
    })
}

/// The TWT element's value in a TWT Setup frame's body (category, action, dialog token, the
/// element), if it is a broadcast one.
pub fn setup_broadcast_element(body: &[u8]) -> Option<&[u8]> {
    let [_, _, _, id, len, ref rest @ ..] = *body else { return None };
    let value = rest.get(..usize::from(len))?;
    (id == TWT_ELEMENT_ID && value.first().is_some_and(|c| c & CONTROL_BROADCAST != 0)).then_some(value)
}

/// The TSF (µs) of the SP a Target Wake Time of `target_tu` announces at TSF `tsf_us`: the
/// first TU boundary, from the TU holding `tsf_us` on, whose bits 10-25 are `target_tu`.
pub fn target_tsf_us(target_tu: u16, tsf_us: u64) -> u64 {
    let base = tsf_us / TU_US;
    let delta = u64::from(target_tu).wrapping_sub(base) & 0xffff;
    (base + delta) * TU_US
}

/// What the announcements of one broadcast schedule seen so far say: its interval and
/// duration, and the phase of its SPs (modulo the interval) to within a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Wake interval, µs.
    pub interval_us: u64,
    /// Nominal minimum wake duration, µs.
    pub duration_us: u64,
    /// The earliest phase (µs, below the interval) consistent with every announcement.
    pub phase_us: u64,
    /// How far beyond `phase_us` the SPs may still start, µs (at most a TU).
    pub window_us: u64,
    /// Announcements taken.
    pub announcements: u64,
    /// Announcements that fitted none of the phases the earlier ones allowed (ignored).
    pub inconsistent: u64,
}

impl Schedule {
    /// The schedule `set` announces at TSF `tsf_us`, if its interval is usable (above 0).
    pub fn new(set: &BroadcastSet, tsf_us: u64) -> Option<Schedule> {
        let i = set.interval_us;
        (i > 0).then(|| Schedule {
            interval_us: i,
            duration_us: set.duration_us,
            phase_us: target_tsf_us(set.target_tu, tsf_us) % i,
            window_us: TU_US.min(i),
            announcements: 1,
            inconsistent: 0,
        })
    }

    /// Takes one more announcement; a set with another interval or duration starts afresh
    /// (the AP changed the schedule).
    pub fn announce(&mut self, set: &BroadcastSet, tsf_us: u64) {
        if (set.interval_us, set.duration_us) != (self.interval_us, self.duration_us) {
            if let Some(s) = Schedule::new(set, tsf_us) {
                *self = s;
            }
            return;
        }
        let i = self.interval_us;
        let (a, w) = (target_tsf_us(set.target_tu, tsf_us) % i, TU_US.min(i));
        // Intersect the circular windows [phase, phase + window) and [a, a + w) modulo i.
        let d = (a + i - self.phase_us) % i;
        let back = (self.phase_us + i - a) % i;
        if d < self.window_us {
            self.window_us = (self.window_us - d).min(w);
            self.phase_us = a;
        } else if back < w {
            self.window_us = self.window_us.min(w - back);
        } else {
            self.inconsistent += 1;
            return;
        }
        self.announcements += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(target_tu: u16, interval_us: u64) -> BroadcastSet {
        BroadcastSet { request: false, command: ACCEPT_TWT, id: 1, target_tu, duration_us: 4096, interval_us }
    }

    /// The simulator's element bytes (radiotap.rs `broadcast_set`): schedule 5, 100 ms
    /// (mantissa 50000, exponent 1), 4000 µs written as 16 × 256 µs, next SP at TSF 103000 µs
    /// (bits 10-25: 100).
    #[test]
    fn sets_are_read_field_by_field() {
        let req: u16 = (ACCEPT_TWT as u16) << 1 | 1 << 5 | 1 << 6 | 1 << 10;
        let mut v = vec![2 << 2 | CONTROL_BROADCAST];
        v.extend_from_slice(&req.to_le_bytes());
        v.extend_from_slice(&100u16.to_le_bytes());
        v.push(16);
        v.extend_from_slice(&50_000u16.to_le_bytes());
        v.extend_from_slice(&((5u16 << 3) | (255 << 8)).to_le_bytes());
        let s: Vec<_> = broadcast_sets(&v).collect();
        assert_eq!(s, vec![BroadcastSet { request: false, command: 4, id: 5, target_tu: 100, duration_us: 4096, interval_us: 100_000 }]);
        // The unit bit makes it 16 TU; an individual element has no broadcast sets.
        v[0] |= CONTROL_DURATION_TU;
        assert_eq!(broadcast_sets(&v).next().unwrap().duration_us, 16 * 1024);
        v[0] = 0;
        assert_eq!(broadcast_sets(&v).count(), 0);
    }

    #[test]
    fn the_target_is_the_next_tu_with_those_bits() {
        // At TSF 103000 µs (TU 100), bits 10-25 = 100: TU 100 itself.
        assert_eq!(target_tsf_us(100, 103_000), 102_400);
        assert_eq!(target_tsf_us(101, 103_000), 103_424);
        // The 16 bits wrap every 2^26 µs: from TU 65535, target 2 is TU 65538.
        assert_eq!(target_tsf_us(2, 65_535 * 1024 + 5), 65_538 * 1024);
    }

    /// SPs on TU boundaries (128 ms = 125 TU, phase 3 TU) are read exactly from one
    /// announcement, and later ones agree.
    #[test]
    fn tu_aligned_schedules_are_exact() {
        let sp = |k: u64| 3 * 1024 + k * 128_000;
        let mut s = Schedule::new(&set((sp(1) / 1024) as u16, 128_000), 50_000).unwrap();
        assert_eq!((s.phase_us, s.window_us), (3072, 1024));
        for k in 2..40 {
            s.announce(&set(((sp(k) / 1024) & 0xffff) as u16, 128_000), sp(k) - 20_000);
        }
        assert_eq!((s.phase_us, s.announcements, s.inconsistent), (3072, 39, 0));
    }

    /// SPs 100 ms apart at phase 0: one announcement of the SP at 100 ms reads it 672 µs
    /// early (TU 97 starts at 99328 µs); announcements of later SPs narrow the window from
    /// above and below (100000 mod 1024 = 672: the SPs' offsets in their TUs step by 672 µs
    /// modulo 1024, multiples of 32 µs), the earliest consistent phase within 32 µs of 0.
    #[test]
    fn unaligned_schedules_converge_from_below() {
        let ann = |k: u64| set((((k * 100_000) / 1024) & 0xffff) as u16, 100_000);
        let mut s = Schedule::new(&ann(1), 100_000 - 1).unwrap();
        assert_eq!(s.phase_us, 99_328);
        for k in 2..=40 {
            s.announce(&ann(k), k * 100_000 - 1);
            // The true phase (0 = 100000 modulo the interval) stays inside the window.
            assert!((100_000 - s.phase_us) % 100_000 < s.window_us, "{k}: {s:?}");
        }
        let early = (100_000 - s.phase_us) % 100_000;
        assert!(early <= 32 && s.window_us > early, "{s:?}");
        assert_eq!(s.inconsistent, 0);
        // A schedule with another interval starts afresh; an announcement outside the window
        // is counted and ignored.
        let before = s;
        s.announce(&set(5, 100_000), 40 * 100_000);
        assert_eq!((s.phase_us, s.inconsistent), (before.phase_us, 1));
        s.announce(&set(5, 50_000), 0);
        assert_eq!((s.interval_us, s.phase_us, s.announcements), (50_000, 5120, 1));
    }
}
