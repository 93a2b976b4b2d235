//! Packets through the network: routing out of a node (past its middlebox), channel queues and
//! transmissions (with the hop's power management and the radios' airtime), arrivals, and
//! delivery to the host stack.

use super::app_glue::Call;
use super::{Event, Simulation};
use crate::flow_energy::NO_FLOW;
use crate::middlebox::delay::Onward;
use crate::net::link::{ChannelId, IfaceId};
use crate::scenario::NodeKind;
use crate::stack::Demux;
use wattlab_core::energy::Activity;
use wattlab_core::{Packet, Time};

impl Simulation {
    /// Hands `p` to the node's routing: out of the interface towards its destination, past
    /// the middlebox on that interface if there is one (what a middlebox makes itself goes
    /// through `mbox_inject`).
    pub(crate) fn send_from(&mut self, node: u32, mut p: Packet) {
        let Some((iface, next_hop)) = self.net.route(node, p.dst) else {
            self.net.drops.unroutable += 1;
            return;
        };
        let now = self.sched.now();
        if !self.mbox_outgoing(now, iface, &mut p) {
            return;
        }
        if let Some(m) = self.mbox_holding(iface, false) {
            self.mbox_hold(now, m, Onward::Out { iface, next_hop }, p);
            return;
        }
        self.send_on(iface, next_hop, p);
    }

    /// Sends `p` out of `iface` towards `next_hop` (its middlebox already passed it).
    pub(crate) fn send_on(&mut self, iface: IfaceId, next_hop: u32, p: Packet) {
        if let Some((bss, sta)) = self.net.ifaces[iface as usize].wlan {
            self.wlan_send(bss as usize, sta, next_hop, p);
            return;
        }
        let ch = self.net.ifaces[iface as usize].tx;
        self.enqueue(ch, p);
    }

    fn enqueue(&mut self, ch: ChannelId, p: Packet) {
        let c = &mut self.net.channels[ch as usize];
        if c.enqueue(p).is_err() {
            return;
        }
        if let Some(h) = c.hop {
            self.hop_on_enqueue(self.sched.now(), h, ch);
        }
        self.kick(ch);
    }

    /// True if `ch` has work and may start it (a power-saving AP may be holding).
    fn can_start(&self, ch: ChannelId) -> bool {
        self.net.channels[ch as usize].ready() && self.hop_may_send(ch)
    }

    /// Starts a transmission on `ch` (or its medium) if it is free and has work.
    pub(crate) fn kick(&mut self, ch: ChannelId) {
        match self.net.channels[ch as usize].medium {
            None => {
                if self.can_start(ch) {
                    self.start_tx(ch);
                }
            }
            Some(m) => {
                let medium = &self.net.media[m as usize];
                if medium.busy_with.is_some() {
                    return;
                }
                let [a, b] = medium.channels;
                let ready = [self.can_start(a), self.can_start(b)];
                if let Some(next) = self.net.media[m as usize].pick(ready) {
                    self.net.media[m as usize].busy_with = Some(next);
                    self.start_tx(next);
                }
            }
        }
    }

    fn start_tx(&mut self, ch: ChannelId) {
        let now = self.sched.now();
        let c = &mut self.net.channels[ch as usize];
        let Some((end, &p)) = c.start_tx(now) else { return };
        let (from, to, hop) = (c.from, c.to, c.hop);
        self.sched.schedule(end, Event::TxDone(ch));
        self.net.capture_at_peer(from, now, &p, true);
        if let Some(h) = hop {
            self.hop_on_tx_start(h, ch);
        }
        let radios = [self.net.ifaces[from as usize].radio, self.net.ifaces[to as usize].radio];
        let flow = if radios.iter().flatten().any(|&r| self.radios[r].attributes()) { self.flow_tag(&p) } else { NO_FLOW };
        if let Some(r) = radios[0] {
            self.radios[r].activity(now, end, Activity::Tx, flow);
        }
        if let Some(r) = radios[1] {
            if hop.is_none() || self.hop_receiver_hears(ch) {
                self.radios[r].activity(now, end, Activity::Rx, flow);
            }
        }
    }

    pub(super) fn on_tx_done(&mut self, now: Time, ch: ChannelId) {
        let c = &mut self.net.channels[ch as usize];
        let Some(sent) = c.finish_tx(now) else { return };
        if let Ok(at) = sent {
            self.sched.schedule(at, Event::Arrive(ch));
        }
        let hop = c.hop;
        if let Some(m) = c.medium {
            self.net.media[m as usize].busy_with = None;
        }
        self.kick(ch);
        if let Some(h) = hop {
            self.hop_on_tx_done(now, h, ch);
        }
    }

    pub(super) fn on_arrive(&mut self, now: Time, ch: ChannelId) {
        let c = &mut self.net.channels[ch as usize];
        let Some((_, p)) = c.pipe.pop_front() else { return };
        let hop = c.hop;
        let to = c.to;
        if !self.mbox_incoming(now, to, &p) {
            // The middlebox's radio sleeps: lost (the hop, dozing too, counts it).
            if let Some(h) = hop {
                self.hop_accepts(h, ch);
                self.hop_on_arrived(now, h, ch);
            }
            return;
        }
        if let Some(h) = hop {
            if !self.hop_accepts(h, ch) {
                // A dozing station's interface never sees it: no delivery, no capture.
                self.hop_on_arrived(now, h, ch);
                return;
            }
        }
        let c = &mut self.net.channels[ch as usize];
        c.stats.packets_delivered += 1;
        let to = c.to;
        self.net.capture_at_peer(to, now, &p, false);
        let node = self.net.ifaces[to as usize].node;
        if !self.mbox_consume(now, to, &p) {
            match self.mbox_holding(to, true) {
                Some(m) => self.mbox_hold(now, m, Onward::Up { node }, p),
                None => self.receive(now, node, p),
            }
        }
        if let Some(h) = hop {
            self.hop_on_arrived(now, h, ch);
        }
    }

    /// A packet reached `node`: delivered to its stack, forwarded, or dropped.
    pub(crate) fn receive(&mut self, now: Time, node: u32, mut p: Packet) {
        if p.dst == self.net.nodes[node as usize].addr {
            self.deliver_local(now, node, p);
            return;
        }
        if self.net.nodes[node as usize].kind == NodeKind::Host {
            self.net.drops.not_forwarded += 1;
            return;
        }
        if p.ttl <= 1 {
            self.net.drops.ttl_expired += 1;
            return;
        }
        p.ttl -= 1;
        self.send_from(node, p);
    }

    /// A packet for `node` itself: to its socket (a new one if a listener takes a SYN).
    fn deliver_local(&mut self, now: Time, node: u32, p: Packet) {
        let s = match self.stack.demux(node, &p) {
            Demux::Socket(s) => s,
            Demux::Accepted { sock, owner, tag } => {
                self.run_flow(now, owner, Call::Accept(sock, tag, p.src_endpoint()));
                sock
            }
            Demux::Echo(reply) => {
                self.send_from(node, reply);
                return;
            }
            Demux::None => {
                // TCP, UDP and ICMP replies alike (no RST or port-unreachable is sent).
                self.net.drops.no_socket += 1;
                return;
            }
        };
        let slot = &mut self.stack.sockets[s as usize];
        slot.stats.packets_in += 1;
        slot.stats.bytes_in += u64::from(p.ip_len());
        self.stack.handle_packet(now, s, &p);
        self.drive(now, s);
    }
}
