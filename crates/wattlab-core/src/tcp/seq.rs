//! 32-bit wrapping sequence-number arithmetic (RFC 793 §3.3, RFC 1982-style comparison).
//!
//! Internally the connection keeps every sequence position as an unwrapped `u64` offset from
//! the initial sequence number (0 = the SYN), so window arithmetic never wraps; these helpers
//! convert between that space and the 32-bit numbers on the wire.

/// `a < b` in wrapping sequence space.
#[inline]
pub fn lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// `a <= b` in wrapping sequence space.
#[inline]
pub fn le(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) <= 0
}

/// `a > b` in wrapping sequence space.
#[inline]
pub fn gt(a: u32, b: u32) -> bool {
    lt(b, a)
}

/// `a >= b` in wrapping sequence space.
#[inline]
pub fn ge(a: u32, b: u32) -> bool {
    le(b, a)
}

/// Signed distance `a - b` in wrapping sequence space.
#[inline]
pub fn diff(a: u32, b: u32) -> i32 {
    a.wrapping_sub(b) as i32
}

/// One direction's sequence space: maps unwrapped positions (0 = SYN) to wire numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqSpace {
    /// Initial sequence number (the SYN's sequence number).
    pub isn: u32,
}

impl SeqSpace {
    /// Space starting at `isn`.
    pub const fn new(isn: u32) -> SeqSpace {
        SeqSpace { isn }
    }

    /// Wire sequence number of unwrapped position `pos`.
    #[inline]
    pub fn wire(self, pos: u64) -> u32 {
        self.isn.wrapping_add(pos as u32)
    }

    /// Unwrapped position of wire number `w`, taken as the one nearest to `reference`
    /// (within ±2^31); negative if it lies before the SYN.
    #[inline]
    pub fn unwrap(self, w: u32, reference: u64) -> i64 {
        reference as i64 + diff(w, self.wire(reference)) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_wrap() {
        assert!(lt(u32::MAX, 0));
        assert!(gt(5, u32::MAX - 5));
        assert!(le(7, 7) && ge(7, 7));
        assert_eq!(diff(3, u32::MAX - 2), 6);
        assert_eq!(diff(u32::MAX - 2, 3), -6);
    }

    #[test]
    fn unwrap_is_nearest_to_reference() {
        let s = SeqSpace::new(u32::MAX - 10);
        assert_eq!(s.wire(0), u32::MAX - 10);
        assert_eq!(s.wire(11), 0);
        assert_eq!(s.unwrap(0, 5), 11);
        assert_eq!(s.unwrap(5, 1_000), 16);
        assert_eq!(s.unwrap(u32::MAX - 11, 0), -1);
        // Far past 2^32 bytes the mapping still works.
        let pos = (1u64 << 33) + 123;
        assert_eq!(s.unwrap(s.wire(pos + 1460), pos), (pos + 1460) as i64);
    }
}
