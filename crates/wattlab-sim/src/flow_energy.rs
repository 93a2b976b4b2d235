//! The energy of a flow: what each radio at the flow's ends spent up to the flow's completion,
//! and what it spent on the flow's own frames.
//!
//! **Up to completion.** When a flow completes (its receiver has the last byte), the radios of
//! its two end nodes mark that instant on every meter ([`wattlab_core::energy::marks`]): the
//! meter resolves the mark exactly once the interval containing it is final, so an accounting
//! policy that decides a gap retroactively (the oracle) costs it as it finally does, and a mark
//! inside a wake-up pays the part of the wake-up before it. A run may outlive a flow (other
//! flows, tails); this is the figure a per-download trace measures.
//!
//! **Attribution**, the trace analyzer's rule (docs/trace.md, "Attribution"; AT&T ARO's for
//! tails): every frame a radio sends or receives carries the tag of the flow its packet belongs
//! to (`FlowTags`), and the meter charges each interval to the tag current when it began. A
//! flow's **own** energy is its frames' airtime (an 802.11 exchange's RTS, CTS, data and ACK
//! all serve the data frame's flow) and any wake-up one of them needed; its **tail** is the
//! radio's time after its frames until the next frame of any flow: idle, sleep, down
//! transitions, beacons heard while dozing and wake-ups the power manager decided on its own.
//! **Unattributed** (its own column, the same on every row of a radio and meter): the time
//! before the radio's first frame, and frames of no flow (beacons, PS-Polls, Null triggers, the
//! frames a radio hears in a collision) with their tails. Own, tail and unattributed cover the
//! whole run, so each row states the identity `own + tail + other_flows + unattributed =
//! run_total`, exact in femtojoules (each nJ column is rounded on its own), `run_total` being
//! the radio row's total. `to_completion` is the same meter's energy over `[0, completion)`, a
//! prefix of `run_total`: equal to it for the flow that ends the run (up to air time a MAC
//! meter was told about ahead of time).
//!
//! The table has one row per flow, end radio and meter ([`FlowEnergyTable`]). Marks are placed
//! once per flow completion and tags are found per packet with one comparison in the common
//! case (a cache of the last connection) and a hash look-up otherwise: nothing is allocated per
//! packet.

use crate::stack::{DatagramProto, Socket, SocketSlot};
use serde::Serialize;
use rustc_hash::FxHashMap;
use wattlab_core::packet::Transport;
use wattlab_core::{Endpoint, Packet};

/// A frame's flow as the meters see it: 0 for no flow, `k + 1` for flow `k`.
pub type FlowTag = u32;

/// The tag of frames that belong to no flow.
pub const NO_FLOW: FlowTag = 0;

/// The tag of flow index `f`.
pub fn tag_of(f: u32) -> FlowTag {
    f + 1
}

/// Energy per flow, end radio and meter, one row each, by column.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlowEnergyTable {
    /// Flow name.
    pub flow: Vec<String>,
    /// The end node whose radio this is.
    pub node: Vec<String>,
    /// Which end: `sender` (of the data) or `receiver`.
    pub side: Vec<&'static str>,
    /// Accounting policy or power mode of the meter (as in the radio table).
    pub policy: Vec<String>,
    /// What the meter costs: `accounting` (this run's traffic under a policy) or `mode`.
    pub basis: Vec<wattlab_core::power::Basis>,
    /// When the flow completed, s from the run's start (NaN if it did not).
    pub completed_at_s: Vec<f64>,
    /// The radio's energy from the run's start to the flow's completion, J (NaN if the flow
    /// did not complete, or the mark could not be resolved).
    pub to_completion_j: Vec<f64>,
    /// Same, nJ (exact to the nJ; missing where the J figure is NaN).
    pub to_completion_nj: Vec<Option<u64>>,
    /// The flow's own energy at this radio over the run: its frames and the wake-ups they
    /// needed, J.
    pub own_j: Vec<f64>,
    /// The radio's time after the flow's frames until the next frame, over the run, J.
    pub tail_j: Vec<f64>,
    /// The own and tail energy of every other flow at this radio, over the run, J.
    pub other_flows_j: Vec<f64>,
    /// What no flow owns over the run (the same on every row of the radio and meter): the time
    /// before the radio's first frame, beacons, PS-Polls, Null frames, frames heard in a
    /// collision, and their tails, J.
    pub unattributed_j: Vec<f64>,
    /// The meter's energy over the whole run (the radio row's `energy_j`):
    /// `own + tail + other_flows + unattributed`, exactly in fJ, J.
    pub run_total_j: Vec<f64>,
    /// Own energy, nJ.
    pub own_nj: Vec<u64>,
    /// Tail energy, nJ.
    pub tail_nj: Vec<u64>,
    /// Other flows' energy, nJ.
    pub other_flows_nj: Vec<u64>,
    /// Unattributed energy, nJ.
    pub unattributed_nj: Vec<u64>,
    /// The run's total, nJ (the radio row's `total_energy_nj`).
    pub run_total_nj: Vec<u64>,
}

/// Which radios report each flow's energy, and the tags of packets.
#[derive(Debug, Default)]
pub(crate) struct FlowEnergy {
    /// Per flow, the radio of its sender's and of its receiver's node, if they have one.
    pub ends: Vec<[Option<u32>; 2]>,
    /// True if some radio attributes its frames to flows.
    pub on: bool,
    /// Packet → flow.
    pub tags: FlowTags,
}


/// Femtojoules to nanojoules, rounded half up (as the meter's reports).
pub(crate) fn fj_to_nj(fj: u128) -> u64 {
    ((fj + 500_000) / 1_000_000).min(u64::MAX as u128) as u64
}

/// Femtojoules to joules.
pub(crate) fn fj_to_j(fj: u128) -> f64 {
    fj as f64 * 1e-15
}

/// Finds the flow of a packet from the sockets at its ends, indexed lazily (each socket once,
/// when a packet is not found among those indexed so far), with the last connection cached.
#[derive(Debug, Default)]
pub(crate) struct FlowTags {
    /// Connection key → tag: a TCP connection by its two endpoints, a datagram socket by its
    /// local endpoint.
    // Fx, not SipHash: looked up once per frame, keys are not attacker-chosen.
    by_key: FxHashMap<u128, FlowTag>,
    /// Sockets indexed so far (sockets are only ever added).
    indexed: usize,
    /// The last packet's connection and its tag.
    last: Option<(u128, FlowTag)>,
}

impl FlowTags {
    /// The tag of `p`, from `sockets` (the stack's).
    pub fn tag(&mut self, p: &Packet, sockets: &[SocketSlot]) -> FlowTag {
        let (src, dst) = (p.src_endpoint(), p.dst_endpoint());
        let (datagram, conn) = match p.transport {
            Transport::Tcp(_) => (None, pair_key(src, dst)),
            Transport::Udp(..) => (Some(UDP_BIT), pair_key(src, dst) | UDP_BIT),
            // A ping socket's "port" is its echo identifier, the same at both ends.
            Transport::Icmp(_) => (Some(ICMP_BIT), pair_key(src, dst) | ICMP_BIT),
            Transport::Other { .. } => return NO_FLOW,
        };
        if let Some((k, t)) = self.last {
            if k == conn {
                return t;
            }
        }
        let mut found = self.find(datagram, conn, src, dst);
        if found.is_none() && self.indexed < sockets.len() {
            self.index(sockets);
            found = self.find(datagram, conn, src, dst);
        }
        match found {
            Some(t) => {
                self.last = Some((conn, t));
                t
            }
            // Not cached: a socket opened later may claim it.
            None => NO_FLOW,
        }
    }

    fn find(&self, datagram: Option<u128>, conn: u128, src: Endpoint, dst: Endpoint) -> Option<FlowTag> {
        match datagram {
            Some(bit) => {
                let local = |e| one_key(e) | bit;
                self.by_key.get(&local(dst)).or_else(|| self.by_key.get(&local(src))).copied()
            }
            None => self.by_key.get(&conn).copied(),
        }
    }

    /// Indexes the sockets opened since the last time.
    fn index(&mut self, sockets: &[SocketSlot]) {
        for s in &sockets[self.indexed..] {
            let tag = tag_of(s.owner);
            match &s.socket {
                Socket::Tcp(c) => {
                    self.by_key.insert(pair_key(c.local(), c.remote()), tag);
                }
                Socket::Datagram(d) => {
                    let bit = match d.proto() {
                        DatagramProto::Udp => UDP_BIT,
                        DatagramProto::Ping => ICMP_BIT,
                    };
                    self.by_key.insert(one_key(d.local()) | bit, tag);
                }
                Socket::Engine(e) => {
                    self.by_key.insert(one_key(e.local()) | UDP_BIT, tag);
                }
            }
        }
        self.indexed = sockets.len();
    }
}

/// Marks a UDP key (TCP and UDP connections with the same endpoints are different flows).
const UDP_BIT: u128 = 1 << 127;
/// Marks an ICMP echo key (an echo identifier is not a UDP port).
const ICMP_BIT: u128 = 1 << 126;

/// An endpoint in 48 bits.
fn one_key(e: Endpoint) -> u128 {
    (u128::from(u32::from(e.addr)) << 16) | u128::from(e.port)
}

/// A connection's two endpoints, in a fixed order (the same key for both directions).
fn pair_key(a: Endpoint, b: Endpoint) -> u128 {
    let (x, y) = (one_key(a), one_key(b));
    let (lo, hi) = if x <= y { (x, y) } else { (y, x) };
    (hi << 48) | lo
}

#[cfg(test)]
mod tests;
