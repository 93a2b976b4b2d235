//! The simulation's side of the `[[wireless]]` hops' power management (each station's
//! [`StationPower`](wattlab_core::power::StationPower) on the hop's MAC): the channel events
//! it hears, its deadlines, and what it decides (holding at the AP, the station's radio).

use super::{Event, Simulation};
use crate::net::link::{ChannelId, IfaceId};
use crate::power::hop;
#[cfg(test)]
use wattlab_core::power::StationStats;
use wattlab_core::power::{Command, MacView, StationEvent};
use wattlab_core::Time;

impl Simulation {
    /// Starts every power-managed hop (the initial doze, U-APSD's trigger clock).
    pub(crate) fn start_hops(&mut self, now: Time) {
        for h in 0..self.hops.len() {
            if self.hops[h].power.mode().saves_power() {
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
            Some(h) => ch != self.hops[h as usize].down || self.hops[h as usize].power.hears(),
        }
    }

    /// A packet was queued on `ch`, a channel of hop `h`.
    pub(crate) fn hop_on_enqueue(&mut self, now: Time, h: u32, ch: ChannelId) {
        let h = h as usize;
        if ch == self.hops[h].up {
            self.hops[h].power.handle_own_frame(now);
        } else {
            self.hops[h].power.handle_ap_queued(now);
        }
        self.drain_hop(h);
    }

    /// A transmission started on `ch`, a channel of hop `h`.
    pub(crate) fn hop_on_tx_start(&mut self, h: u32, ch: ChannelId) {
        if ch == self.hops[h as usize].down {
            self.hops[h as usize].power.handle_ap_sent();
        }
    }

    /// A transmission ended on `ch`, a channel of hop `h` (after the next one was started):
    /// the station's own packet is out (BSD's window, a U-APSD trigger), or the AP's
    /// progressed; either way the station may be done.
    pub(crate) fn hop_on_tx_done(&mut self, now: Time, h: u32, ch: ChannelId) {
        let h = h as usize;
        let view = self.hop_view(h);
        let host = &mut self.hops[h];
        if ch == host.up {
            host.power.handle_uplink_sent(now, true, view);
        }
        host.power.handle_idle(now, view);
        self.drain_hop(h);
    }

    /// A packet on `ch` reached its end: false if the station sleeps and loses it (counted).
    pub(crate) fn hop_accepts(&mut self, h: u32, ch: ChannelId) -> bool {
        ch != self.hops[h as usize].down || self.hops[h as usize].power.accept_arrival()
    }

    /// A packet on `ch` was delivered or dropped at its end (after the receiver handled it).
    pub(crate) fn hop_on_arrived(&mut self, now: Time, h: u32, ch: ChannelId) {
        let h = h as usize;
        if ch == self.hops[h].down {
            let view = self.hop_view(h);
            if self.hops[h].power.downlink_matters() {
                self.hops[h].power.handle_downlink(now);
            }
            self.hops[h].power.handle_idle(now, view);
            self.drain_hop(h);
        }
    }

    /// The power event of hop `h` fired (it may be stale: nothing is due then).
    pub(crate) fn on_hop_timer(&mut self, now: Time, h: u32) {
        let h = h as usize;
        if self.hops[h].timer_at == Some(now) {
            self.hops[h].timer_at = None;
        }
        if self.hops[h].power.poll_timeout().is_some_and(|t| t <= now) {
            let view = self.hop_view(h);
            self.hops[h].power.handle_timeout(now, view);
        }
        self.drain_hop(h);
    }

    /// External mode: the driver wakes the station of hop `hop` (`awake`) or puts it to sleep
    /// at `now` (no earlier than the last event). No effect on hops in other modes.
    #[cfg(test)]
    pub(crate) fn set_station_awake(&mut self, now: Time, hop: u32, awake: bool) {
        self.station_command(now, hop, if awake { Command::Wake } else { Command::Sleep });
    }

    /// External mode: a driver's command (wake, sleep, off) to the station of hop `hop` at
    /// `now`. No effect on hops in other modes.
    pub(crate) fn station_command(&mut self, now: Time, hop: u32, cmd: Command) {
        let view = self.hop_view(hop as usize);
        self.hops[hop as usize].power.handle_command(now, cmd, view);
        self.drain_hop(hop as usize);
    }

    /// The power counters of hop `hop`, a doze in progress counted up to `now`.
    #[cfg(test)]
    pub(crate) fn hop_power_stats(&self, hop: u32, now: Time) -> StationStats {
        self.hops[hop as usize].power.stats_at(now)
    }

    fn hop_view(&self, h: usize) -> MacView {
        let host = &self.hops[h];
        hop::view(&self.net.channels[host.down as usize], &self.net.channels[host.up as usize])
    }

    /// Carries out what the station of hop `h` asked for, and keeps an event at its deadline.
    fn drain_hop(&mut self, h: usize) {
        while let Some(e) = self.hops[h].power.poll_event() {
            match e {
                StationEvent::Power { at, state } => {
                    let iface = self.net.channels[self.hops[h].up as usize].from;
                    if let Some(r) = self.net.ifaces[iface as usize].radio {
                        self.radios[r].set_power(at, state);
                    }
                }
                StationEvent::Release => {
                    let down = self.hops[h].down;
                    self.kick(down);
                }
                // The hop has no latency, no PS-Polls and no Null frames (MacCaps::HOP).
                StationEvent::Ready | StationEvent::PsPoll | StationEvent::Trigger | StationEvent::PmNull { .. } | StationEvent::TwtSetup => {}
            }
        }
        let host = &mut self.hops[h];
        if let Some(t) = host.power.poll_timeout() {
            if host.timer_at.is_none_or(|s| t < s) {
                host.timer_at = Some(t);
                self.sched.schedule(t, Event::Station { hop: h as u32 });
            }
        }
    }
}

impl Simulation {
    /// A driver (a middlebox) wakes or dozes the station radio behind `iface` at `now`: the
    /// station of a `[[wireless]]` hop or of a `[[wlan]]`.
    pub(crate) fn set_iface_awake(&mut self, now: Time, iface: IfaceId, awake: bool) {
        self.iface_command(now, iface, if awake { Command::Wake } else { Command::Sleep });
    }

    /// A driver's command (wake, sleep, off) to the station radio behind `iface` at `now`.
    pub(crate) fn iface_command(&mut self, now: Time, iface: IfaceId, cmd: Command) {
        if let Some((b, sta)) = self.net.ifaces[iface as usize].wlan {
            self.wlan_command(now, b as usize, sta, cmd);
            return;
        }
        let ch = self.net.ifaces[iface as usize].tx;
        if let Some(h) = self.net.channels[ch as usize].hop {
            self.station_command(now, h, cmd);
        }
    }
}
