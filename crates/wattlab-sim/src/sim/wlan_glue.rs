//! The simulator's side of the 802.11 MAC: maps nodes and interfaces to stations, fires the
//! MAC's timers, and carries out what it asks (deliveries, captures, radio intervals).

use super::{Event, Simulation};
use crate::net::link::IfaceId;
use crate::wlan::{Bss, MacOutput, MacTimer, StaId};
use wattlab_core::power::Command;
use wattlab_core::{Packet, Time};

/// One BSS and its place in the topology.
pub struct WlanHost {
    /// The MAC.
    pub bss: Bss,
    /// Interface of each station (index = station id).
    pub sta_iface: Vec<IfaceId>,
    /// (node, station id) of every member, sorted by node: memory per BSS grows with its
    /// members, not with the topology.
    pub node_sta: Vec<(u32, StaId)>,
    /// The radiotap capture of its channel, if asked for.
    pub air: Option<Box<crate::wlan::radiotap::AirCapture>>,
}

impl WlanHost {
    /// The station id of `node` in this BSS, or `NO_STA` if it is not a member.
    #[inline]
    pub fn sta_of(&self, node: u32) -> StaId {
        match self.node_sta.binary_search_by_key(&node, |e| e.0) {
            Ok(i) => self.node_sta[i].1,
            Err(_) => NO_STA,
        }
    }
}

/// Marks a node that is not a station of a BSS.
pub const NO_STA: StaId = StaId::MAX;

impl Simulation {
    /// Starts every BSS's MAC (beacons, initial dozes).
    pub(crate) fn start_wlans(&mut self, now: Time) {
        for b in 0..self.wlans.len() {
            self.wlans[b].bss.start(now);
            self.drain_wlan(now, b);
        }
    }

    /// Sends `p` out of wireless interface `iface` (station `from` of BSS `b`) to the station
    /// that is node `next_hop`.
    pub(crate) fn wlan_send(&mut self, b: usize, from: StaId, next_hop: u32, p: Packet) {
        let now = self.sched.now();
        let to = self.wlans[b].sta_of(next_hop);
        if to == NO_STA {
            self.net.drops.unroutable += 1;
            return;
        }
        let tag = self.flow_tag(&p);
        self.wlans[b].bss.enqueue_tagged(now, from, to, p, tag);
        self.drain_wlan(now, b);
    }

    /// A driver (the station's agent) commands station `sta` of BSS `b` at `now`.
    pub(crate) fn wlan_command(&mut self, now: Time, b: usize, sta: StaId, cmd: Command) {
        self.wlans[b].bss.command(now, sta, cmd);
        self.drain_wlan(now, b);
    }

    /// A MAC timer fired.
    pub(super) fn on_wlan_timer(&mut self, now: Time, b: u16, timer: MacTimer) {
        self.wlans[b as usize].bss.handle_timer(now, timer);
        self.drain_wlan(now, b as usize);
    }

    /// Carries out everything the MAC asked for.
    fn drain_wlan(&mut self, now: Time, b: usize) {
        while let Some(o) = self.wlans[b].bss.poll_output() {
            match o {
                MacOutput::Timer { at, timer } => self.sched.schedule(at, Event::Mac { bss: b as u16, timer }),
                MacOutput::Transmit { sta, to, packet } => {
                    let (from_if, to_if) = (self.wlans[b].sta_iface[sta as usize], self.wlans[b].sta_iface[to as usize]);
                    let peer = self.net.ifaces[to_if as usize].mac;
                    self.net.capture(from_if, now, &packet, true, peer);
                }
                MacOutput::Deliver { sta, from, packet } => {
                    let (to_if, from_if) = (self.wlans[b].sta_iface[sta as usize], self.wlans[b].sta_iface[from as usize]);
                    // The AP holds frames for a dozing station, so what the MAC delivers its
                    // awake radio heard, even after its agent asked for sleep (the station
                    // dozes once the exchange on the air is over): never lost to the agent.
                    self.mbox_received(now, to_if, &packet);
                    let peer = self.net.ifaces[from_if as usize].mac;
                    self.net.capture(to_if, now, &packet, false, peer);
                    if self.mbox_consume(now, to_if, &packet) {
                        continue; // a tunnel packet: its inner packet comes out of the middlebox
                    }
                    let node = self.net.ifaces[to_if as usize].node;
                    match self.mbox_holding(to_if, true) {
                        Some(m) => self.mbox_hold(now, m, crate::middlebox::delay::Onward::Up { node }, packet),
                        None => self.receive(now, node, packet),
                    }
                }
                MacOutput::Activity { sta, start, end, kind, shape, tag } => {
                    if let Some(r) = self.net.ifaces[self.wlans[b].sta_iface[sta as usize] as usize].radio {
                        self.radios[r].ppdu_activity(start, end, kind, tag, shape);
                    }
                }
                MacOutput::Power { sta, at, state } => {
                    if let Some(r) = self.net.ifaces[self.wlans[b].sta_iface[sta as usize] as usize].radio {
                        self.radios[r].set_power(at, state);
                    }
                }
                MacOutput::AirFrames => self.write_air(b),
            }
        }
    }

    /// Writes the frames BSS `b` put on the air since the last call to its radiotap capture.
    #[cold]
    #[inline(never)]
    fn write_air(&mut self, b: usize) {
        let host = &mut self.wlans[b];
        let (Some(frames), Some(cap)) = (host.bss.take_air(), host.air.as_deref_mut()) else { return };
        // Each record is stamped at its PPDU's end, as a monitor's host stamps a frame once it
        // is received (radiotap TSFT keeps the start). The log is in start order and a batch
        // is one exchange, laid out when it starts: in end order (stable), the file stays in
        // time order where PPDUs overlap (a collision's shorter PPDU ends first).
        frames.sort_by_key(|f| f.start + f.dur);
        for f in frames.drain(..) {
            #[cfg(test)]
            cap.logged.push(f.clone());
            if let Err(e) = cap.sink.write_with(f.start + f.dur, |buf| crate::wlan::radiotap::encode(&f, &cap.cx, &self.net.arena, buf)) {
                self.net.fatal_error.get_or_insert_with(|| format!("writing capture {}: {e}", cap.path));
                return;
            }
        }
    }
}
