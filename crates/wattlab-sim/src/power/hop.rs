//! Power saving on the simple `[[wireless]]` hop, emulated at the IP level as seed 000 did
//! (an IP proxy in front of the AP, section IV-B). The station runs the one power-save
//! machine of `wattlab_core::power::station` on a MAC with [`MacCaps::HOP`](wattlab_core::power::MacCaps::HOP): one station, no
//! contention, no beacons, polls or PM bits on the air, only *when* the AP end of the hop may
//! send to the station and *when* the station's radio dozes. What that idealises:
//!
//! - **Beacons are a clock, not frames**: instants at multiples of the beacon interval from
//!   t = 0, costing no airtime; at a wake instant the station learns at once what is held.
//! - **Retrieval is one burst**: what the AP held goes back to back when the station wakes
//!   (no PS-Poll per frame, no More Data). `psm` wakes for every `listen_interval`-th beacon
//!   and pays the profile's wake-up each time; `ideal-psm` wakes only when something is held,
//!   for free; `bsd-P` wakes on BSD's schedule (`wattlab_core::power::save::bsd_next_wake`).
//! - **U-APSD triggers are the station's own packets**; the optional periodic trigger takes no
//!   airtime and wakes the station only when frames are held (there are no Null frames).
//! - **No PM bit**: the AP end cannot tell when an `external` (`cc`) station sleeps, so it
//!   keeps sending and a packet reaching a sleeping station is lost, as in seed 000's
//!   emulation; the station's own packets go out while it sleeps (the radio wakes just for
//!   them). Its wake-ups take no time: the meter carves the transition from the sleep before.
//!
//! The simulation's glue is `crate::sim::power_glue` (the live emulator has its own).

use crate::net::link::{Channel, ChannelId, LinkPacket};
use wattlab_core::power::{MacView, StationPower};
use wattlab_core::Time;

/// A `[[wireless]]` hop's power management and the channels it governs.
pub struct HopHost {
    /// Hop name (the `name` of its `[[wireless]]`).
    pub name: String,
    /// The station's node.
    pub station: u32,
    /// The station's power-save machine.
    pub power: StationPower,
    /// AP → station channel.
    pub down: ChannelId,
    /// Station → AP channel.
    pub up: ChannelId,
    /// The time of the power event scheduled for the station, if any: a later deadline waits
    /// for it, an earlier one gets its own (stale events find nothing due).
    pub timer_at: Option<Time>,
}

/// The hop's channels as the station's machine sees them: what the AP end has queued for the
/// station (not the packet it is sending), and whether anything is still going on either way.
pub fn view<P: LinkPacket>(down: &Channel<P>, up: &Channel<P>) -> MacView {
    MacView {
        queued: down.queue.len() as u32,
        busy: up.in_tx.is_some() || !up.queue.is_empty() || down.in_tx.is_some() || !down.pipe.is_empty(),
    }
}
