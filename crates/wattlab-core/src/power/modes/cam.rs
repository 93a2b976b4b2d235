//! `cam`: continuously active mode. Always awake; the AP never holds; drivers are ignored.

use crate::power::station::{Core, Mode};

/// The rules of `cam`: none of the machine's rules apply.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cam;

impl Mode for Cam {
    fn saves_power(&self) -> bool {
        false
    }

    fn ap_may_send(&self, _c: &Core) -> bool {
        true
    }

    fn delivers_directly(&self, _c: &Core) -> bool {
        true
    }

    fn may_doze(&self, _c: &Core) -> bool {
        false
    }
}
