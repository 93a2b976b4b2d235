//! Station power management on the simple wireless hop: seed 000's IP-level emulation of
//! 802.11 PSM, idealised PSM and Bounded Slowdown, and the external mode a middlebox drives.
//! (The 802.11 MAC's own power saving is in `crate::wlan::power`.)

pub mod hop;
