//! A middlebox's per-packet processing time (`agent.incoming_delay`, `agent.outgoing_delay`).
//!
//! A userspace agent on Linux's NFQUEUE holds each packet until its verdict: a packet reaching
//! the station is handed to the stack `incoming` after it arrived (and was captured: a capture
//! on the interface sees ingress before netfilter), a packet the station sends reaches the
//! interface `outgoing` after the stack sent it (a capture sees egress after netfilter). The
//! agent is one thread: packets wait for the ones before them, in order
//! (release = max(arrival, previous release) + own delay). Both zero (the default): no packet
//! is held and the packet path is unchanged.
//!
//! What the agent sends itself (open ACKs, probes and their closed ACKs) is made by the same
//! thread: the live agent sends it once it has given the verdict of the packet it was handling
//! (`wattlab-live` `client_agent::run`: verdict, then `Outputs::flush`), so it never overtakes
//! a packet the agent decided before. It waits behind every packet held when it is made, with
//! no time of its own ([`Hold::push_behind`]); without that, a closed ACK the agent decided
//! first reached the server after the open ACK it made next, and closed the window again.

use crate::net::link::IfaceId;
use std::collections::VecDeque;
use wattlab_core::{Duration, Packet, Time};

/// Where a held packet goes once the middlebox lets it go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Onward {
    /// Up to the stack of `node` (it arrived through the middlebox's interface).
    Up {
        /// The station's node.
        node: u32,
    },
    /// Out of `iface` towards `next_hop` (the route chosen when the stack sent it).
    Out {
        /// The middlebox's interface.
        iface: IfaceId,
        /// Next node on the route.
        next_hop: u32,
    },
}

/// Packets a middlebox holds for its processing time, in release order.
#[derive(Debug)]
pub struct Hold {
    incoming: Duration,
    outgoing: Duration,
    busy_until: Time,
    held: VecDeque<(Time, Onward, Packet)>,
}

impl Hold {
    /// A hold with these per-packet times (zero: that direction passes at once).
    pub fn new(incoming: Duration, outgoing: Duration) -> Self {
        Hold { incoming, outgoing, busy_until: Time::ZERO, held: VecDeque::new() }
    }

    /// Whether packets in this direction are held at all.
    pub fn holds(&self, up: bool) -> bool {
        (if up { self.incoming } else { self.outgoing }) != Duration::ZERO
    }

    /// Holds `p` arriving at `now`; the time it will be released.
    pub fn push(&mut self, now: Time, onward: Onward, p: Packet) -> Time {
        let own = if matches!(onward, Onward::Up { .. }) { self.incoming } else { self.outgoing };
        let at = now.max(self.busy_until) + own;
        self.busy_until = at;
        self.held.push_back((at, onward, p));
        at
    }

    /// Queues `p`, which the middlebox made itself at `now`, behind the packets it holds (its
    /// one thread sends it after their verdicts; it takes no processing time of its own). False:
    /// nothing is held past `now`, so it leaves at once and the caller sends it. True: it is
    /// released with the last held packet, whose release is already scheduled.
    pub fn push_behind(&mut self, now: Time, onward: Onward, p: Packet) -> bool {
        if self.busy_until <= now {
            return false;
        }
        self.held.push_back((self.busy_until, onward, p));
        true
    }

    /// The next packet due at or before `now`, if any.
    pub fn pop_due(&mut self, now: Time) -> Option<(Onward, Packet)> {
        if self.held.front().is_some_and(|(at, _, _)| *at <= now) {
            self.held.pop_front().map(|(_, o, p)| (o, p))
        } else {
            None
        }
    }

    /// Packets held now.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt() -> Packet {
        use std::net::Ipv4Addr;
        Packet::udp(Ipv4Addr::LOCALHOST, Ipv4Addr::LOCALHOST, Default::default(), 0)
    }

    #[test]
    fn zero_delays_hold_nothing() {
        let h = Hold::new(Duration::ZERO, Duration::ZERO);
        assert!(!h.holds(true) && !h.holds(false));
        let h = Hold::new(Duration::from_micros(38), Duration::ZERO);
        assert!(h.holds(true) && !h.holds(false));
    }

    #[test]
    fn one_thread_releases_in_order_after_each_packets_own_time() {
        let mut h = Hold::new(Duration::from_micros(38), Duration::from_micros(16));
        let t0 = Time::from_secs_f64(1.0);
        let up = Onward::Up { node: 2 };
        let out = Onward::Out { iface: 3, next_hop: 1 };
        // A data segment, then the ACK the stack sends 5 us later: the ACK waits for the
        // segment's verdict (t0 + 38) and then takes its own 16 us.
        assert_eq!(h.push(t0, up, pkt()), t0 + Duration::from_micros(38));
        assert_eq!(h.push(t0 + Duration::from_micros(5), out, pkt()), t0 + Duration::from_micros(54));
        // An idle agent: a packet long after takes only its own time.
        let later = t0 + Duration::from_millis(1);
        assert_eq!(h.push(later, out, pkt()), later + Duration::from_micros(16));
        assert_eq!(h.len(), 3);
        assert_eq!(h.pop_due(t0 + Duration::from_micros(37)), None);
        assert_eq!(h.pop_due(t0 + Duration::from_micros(38)).map(|x| x.0), Some(up));
        assert_eq!(h.pop_due(t0 + Duration::from_micros(53)), None);
        assert_eq!(h.pop_due(t0 + Duration::from_micros(54)).map(|x| x.0), Some(out));
        assert_eq!(h.pop_due(later + Duration::from_micros(16)).map(|x| x.0), Some(out));
        assert!(h.is_empty());
    }

    #[test]
    fn what_the_middlebox_makes_waits_behind_what_it_holds() {
        let mut h = Hold::new(Duration::from_micros(38), Duration::from_micros(13));
        let t0 = Time::from_secs_f64(1.0);
        let out = Onward::Out { iface: 3, next_hop: 1 };
        let up = Onward::Up { node: 2 };
        // Idle: an open ACK made now leaves at once (the caller sends it).
        assert!(!h.push_behind(t0, out, pkt()));
        assert!(h.is_empty());
        // The stack's ACK (decided closed) is held 13 us; a probe response arriving 4 us later
        // makes the agent send its open ACK: the ACK's verdict comes first, then the
        // response's (38 us), then the open ACK, with no time of its own.
        let ack_at = h.push(t0, out, pkt());
        let resp_at = h.push(t0 + Duration::from_micros(4), up, pkt());
        assert_eq!(resp_at, t0 + Duration::from_micros(51));
        assert!(h.push_behind(t0 + Duration::from_micros(4), out, pkt()));
        assert_eq!(h.pop_due(ack_at).map(|x| x.0), Some(out));
        assert_eq!(h.pop_due(ack_at), None);
        assert_eq!(h.pop_due(resp_at).map(|x| x.0), Some(up));
        assert_eq!(h.pop_due(resp_at).map(|x| x.0), Some(out));
        assert!(h.is_empty());
        // It took no time: a packet after it waits only for the response's verdict.
        assert_eq!(h.push(resp_at - Duration::from_micros(1), out, pkt()), resp_at + Duration::from_micros(13));
    }
}
