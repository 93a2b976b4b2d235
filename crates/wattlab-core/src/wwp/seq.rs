//! The 12-bit sequence and 6-bit wave-id spaces: wire numbers ↔ unwrapped segment indices.

/// Mask of the 12-bit sequence space.
pub const SEQ_MASK: u16 = 0x0fff;
/// Mask of the 6-bit wave-id space.
pub const WAVE_ID_MASK: u8 = 0x3f;

/// One direction's sequence space: segment index `n` (0 = first data segment) travels as
/// `(isn + n) mod 4096`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqSpace {
    /// Initial sequence number (12 bits).
    pub isn: u16,
}

impl SeqSpace {
    /// Space starting at `isn` (masked to 12 bits).
    pub fn new(isn: u16) -> SeqSpace {
        SeqSpace { isn: isn & SEQ_MASK }
    }
    /// Wire number of segment index `n`.
    pub fn wire(self, n: u64) -> u16 {
        (self.isn as u64).wrapping_add(n) as u16 & SEQ_MASK
    }
    /// Index of wire number `seq` nearest to `reference`: within 2048 either side, `None` if
    /// that would be before index 0.
    pub fn unwrap(self, seq: u16, reference: u64) -> Option<u64> {
        let d = seq.wrapping_sub(self.wire(reference)) & SEQ_MASK;
        if d < 2048 {
            Some(reference + u64::from(d))
        } else {
            reference.checked_sub(u64::from(4096 - d))
        }
    }
}

/// The wave id after `wid`.
pub fn next_wave_id(wid: u8) -> u8 {
    wid.wrapping_add(1) & WAVE_ID_MASK
}
