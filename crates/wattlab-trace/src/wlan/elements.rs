//! Management-frame contents: information elements (§9.4.2), the TIM, and action frame
//! categories (§9.4.1.11, §9.6).

/// Iterates over `(element id, value)` of an element list; stops at the first element that
/// runs past the bytes (a cut or corrupt list).
#[derive(Clone, Copy, Debug)]
pub struct Elements<'a> {
    rest: &'a [u8],
}

impl<'a> Elements<'a> {
    /// The elements in `b`.
    pub fn new(b: &'a [u8]) -> Elements<'a> {
        Elements { rest: b }
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = (u8, &'a [u8]);

    fn next(&mut self) -> Option<(u8, &'a [u8])> {
        let [id, len, ..] = *self.rest else { return None };
        let end = 2 + usize::from(len);
        let value = self.rest.get(2..end)?;
        self.rest = &self.rest[end..];
        Some((id, value))
    }
}

/// A Traffic Indication Map element (§9.4.2.5): which stations the AP buffers frames for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tim<'a> {
    /// Beacons until the next DTIM (0: this beacon is a DTIM).
    pub dtim_count: u8,
    /// Beacons between DTIMs.
    pub dtim_period: u8,
    /// Bitmap control: bit 0 is group-addressed traffic buffered, bits 1–7 the bitmap offset.
    pub bitmap_control: u8,
    /// The partial virtual bitmap.
    pub bitmap: &'a [u8],
}

impl<'a> Tim<'a> {
    /// Parse a TIM element's value (at least 4 bytes).
    pub fn parse(v: &'a [u8]) -> Option<Tim<'a>> {
        let [dtim_count, dtim_period, bitmap_control, ..] = *v else { return None };
        (v.len() >= 4).then_some(Tim {
            dtim_count,
            dtim_period,
            bitmap_control,
            bitmap: &v[3..],
        })
    }

    /// Group-addressed frames are buffered (meaningful in a DTIM beacon).
    pub fn group_buffered(&self) -> bool {
        self.bitmap_control & 1 != 0
    }

    /// The AP buffers frames for the station with association ID `aid`.
    pub fn has_aid(&self, aid: u16) -> bool {
        // The bitmap starts at octet N1 = 2 × (bitmap_control >> 1) of the full 251-octet map.
        let n1 = usize::from(self.bitmap_control & 0xfe);
        let octet = usize::from(aid / 8);
        octet >= n1 && self.bitmap.get(octet - n1).is_some_and(|b| b & (1 << (aid % 8)) != 0)
    }
}

/// An action frame's category and action, named where the analyzer cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Block Ack category (3), ADDBA Request (0).
    AddbaRequest,
    /// Block Ack category (3), ADDBA Response (1).
    AddbaResponse,
    /// Block Ack category (3), DELBA (2).
    Delba,
    /// Unprotected S1G category (22), TWT Setup (6): how 802.11ax sets up individual TWT.
    TwtSetup,
    /// Unprotected S1G category (22), TWT Teardown (7).
    TwtTeardown,
    /// Unprotected S1G category (22), TWT Information (11).
    TwtInformation,
    /// Any other category and action.
    Other {
        /// Category code.
        category: u8,
        /// Action code.
        action: u8,
    },
}

impl Action {
    /// The action with category `category` and action code `action`.
    pub fn from(category: u8, action: u8) -> Action {
        match (category, action) {
            (3, 0) => Action::AddbaRequest,
            (3, 1) => Action::AddbaResponse,
            (3, 2) => Action::Delba,
            (22, 6) => Action::TwtSetup,
            (22, 7) => Action::TwtTeardown,
            (22, 11) => Action::TwtInformation,
            (category, action) => Action::Other { category, action },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tim_bitmap_with_offset() {
        // DTIM count 0, period 3, offset 2 octets (control 0x02) | group bit, bitmap for AIDs 16–31.
        let v = [0u8, 3, 0x03, 0b0000_0100, 0b1000_0000];
        let t = Tim::parse(&v).unwrap();
        assert!(t.group_buffered());
        assert!(t.has_aid(18) && t.has_aid(31));
        assert!(!t.has_aid(17) && !t.has_aid(2) && !t.has_aid(40));
    }

    #[test]
    fn elements_stop_at_a_cut_element() {
        let b = [0u8, 2, b'h', b'i', 5, 9, 0];
        let v: Vec<_> = Elements::new(&b).collect();
        assert_eq!(v, vec![(0, &b"hi"[..])]);
    }
}
