//! The simulation's side of the `[[wireless]]` hops' power management ([`HopPower`]): the
//! channel events it hears, the timers it asks for, and what it decides (holding at the AP,
//! the station's radio awake or dozing).

use super::{Event, Simulation};
use crate::net::link::{ChannelId, IfaceId};
use crate::power::hop::{HopAction, HopPowerMode, HopTimer, HopView};
#[cfg(test)]
use crate::power::hop::HopPowerStats;
use wattlab_core::Time;

impl Simulation {
    /// Starts every power-managed hop (the initial doze).
    pub(crate) fn start_hops(&mut self, now: Time) {
        for h in 0..self.hops.len() {
            if self.hops[h].power.mode() != HopPowerMode::Cam {
                self.hops[h].power.start(now);
                self.drain_hop(h);
            }
        }
    }

    /// False while the AP holds: `ch` is a held AP → station channel.
    pub(crate) fn hop_may_send(&self, ch: ChannelId) -> bool {
        match self.net.channels[ch as usize].hop {
            None => true,
            Some(h) => {
                let host = &self.hops[h as usize];
                ch != host.down || host.power.ap_may_send()
            }
        }
    }

    /// True if the receiver of a transmission starting on `ch` hears it (its radio is costed).
    pub(crate) fn hop_receiver_hears(&self, ch: ChannelId) -> bool {
        match self.net.channels[ch as usize].hop {
            None => true,
            Some(h) => ch != self.hops[h as usize].down || self.hops[h as usize].power.station_hears(),
        }
    }

    /// A packet was queued on `ch`, a channel of hop `h`.
    pub(crate) fn hop_on_enqueue(&mut self, now: Time, h: u32, ch: ChannelId) {
        let h = h as usize;
        if ch == self.hops[h].up {
            self.hops[h].power.on_station_enqueue(now);
        } else {
            self.hops[h].power.on_ap_enqueue(now);
        }
        self.drain_hop(h);
    }

    /// A transmission started on `ch`, a channel of hop `h`.
    pub(crate) fn hop_on_tx_start(&mut self, h: u32, ch: ChannelId) {
        if ch == self.hops[h as usize].down {
            self.hops[h as usize].power.on_ap_tx_start();
        }
    }

    /// A transmission ended on `ch`, a channel of hop `h` (after the next one was started).
    pub(crate) fn hop_on_tx_done(&mut self, now: Time, h: u32, ch: ChannelId) {
        let h = h as usize;
        let view = self.hop_view(h);
        if ch == self.hops[h].up {
            self.hops[h].power.on_station_sent(now, view);
        } else {
            self.hops[h].power.on_down_progress(now, view);
        }
        self.drain_hop(h);
    }

    /// A packet on `ch` reached its end: false if the station dozes and drops it (counted).
    pub(crate) fn hop_accepts(&mut self, h: u32, ch: ChannelId) -> bool {
        ch != self.hops[h as usize].down || self.hops[h as usize].power.accept_arrival()
    }

    /// A packet on `ch` was delivered or dropped at its end (after the receiver handled it).
    pub(crate) fn hop_on_arrived(&mut self, now: Time, h: u32, ch: ChannelId) {
        let h = h as usize;
        if ch == self.hops[h].down {
            let view = self.hop_view(h);
            self.hops[h].power.on_down_progress(now, view);
            self.drain_hop(h);
        }
    }

    /// A hop power timer fired.
    pub(crate) fn on_hop_timer(&mut self, now: Time, h: u32, timer: HopTimer) {
        let h = h as usize;
        let view = self.hop_view(h);
        self.hops[h].power.handle_timer(now, timer, view);
        self.drain_hop(h);
    }

    /// Puts hop `hop` (index of its `[[wireless]]`) under external control before the run: the
    /// AP never holds, arrivals while the station dozes are dropped, and the station's radio
    /// (if it has one) gets a meter reported as `meter` that follows
    /// [`Simulation::set_station_awake`].
    pub(crate) fn set_hop_external(&mut self, hop: u32, meter: &str) {
        let host = &mut self.hops[hop as usize];
        host.power.set_mode(HopPowerMode::External);
        let (down, up, station) = (host.down, host.up, host.station);
        self.net.channels[down as usize].hop = Some(hop);
        self.net.channels[up as usize].hop = Some(hop);
        let iface = self.net.channels[up as usize].from;
        if let Some(r) = self.net.ifaces[iface as usize].radio {
            debug_assert_eq!(self.radios[r].node, station);
            let profile = self.radios[r].profile.clone();
            self.radios[r].add_mac_meter(meter.to_string(), &profile, Time::ZERO);
            if self.timeseries.is_some() {
                self.radios[r].enable_timelines();
            }
        }
    }

    /// External mode: wake the station of hop `hop` (`awake`) or put it to doze at `now`
    /// (no earlier than the last event). No effect on hops in other modes.
    pub(crate) fn set_station_awake(&mut self, now: Time, hop: u32, awake: bool) {
        self.hops[hop as usize].power.set_awake(now, awake);
        self.drain_hop(hop as usize);
    }

    /// The power counters of hop `hop`, a doze in progress counted up to `now`.
    #[cfg(test)]
    pub(crate) fn hop_power_stats(&self, hop: u32, now: Time) -> HopPowerStats {
        self.hops[hop as usize].power.stats_at(now)
    }

    fn hop_view(&self, h: usize) -> HopView {
        let (d, u) = (&self.net.channels[self.hops[h].down as usize], &self.net.channels[self.hops[h].up as usize]);
        HopView {
            ap_queued: d.queue.len() as u32,
            station_busy: u.in_tx.is_some() || !u.queue.is_empty(),
            down_in_flight: d.in_tx.is_some() || !d.pipe.is_empty(),
        }
    }

    /// Carries out what hop `h` asked for.
    fn drain_hop(&mut self, h: usize) {
        while let Some(a) = self.hops[h].power.poll_action() {
            match a {
                HopAction::Timer { at, timer } => self.sched.schedule(at, Event::Station { hop: h as u32, timer }),
                HopAction::Power { at, awake } => {
                    let iface = self.net.channels[self.hops[h].up as usize].from;
                    if let Some(r) = self.net.ifaces[iface as usize].radio {
                        self.radios[r].set_awake(at, awake);
                    }
                }
                HopAction::Release => {
                    let down = self.hops[h].down;
                    self.kick(down);
                }
            }
        }
    }
}

impl Simulation {
    /// A driver (a middlebox) wakes or dozes the station radio behind `iface` at `now`.
    pub(crate) fn set_iface_awake(&mut self, now: Time, iface: IfaceId, awake: bool) {
        let ch = self.net.ifaces[iface as usize].tx;
        if let Some(h) = self.net.channels[ch as usize].hop {
            self.set_station_awake(now, h, awake);
        }
    }
}
